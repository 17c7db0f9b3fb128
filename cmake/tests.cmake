# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# ctest drives every test of the fork (docs/building.md: "Tests"):
#  unit.*       googletest of the fork's C++ logic      (unittest/purgelab)
#  tools.*      the superbuild's own scripts            (tools/tests)
#  mtr.*        the fork's mtr suite and upstream mtr tests that must stay
#               green with the patches, per flavour
#  package.*    the binary tarball (stripped, runs), its debuginfo tarball
#               (gdb), and the series on top of Debian's patches

# The mtr tests that CI runs per flavour are listed in cmake/mtr-tests.txt
# (BUILD/test checks that none of them was skipped): mtr.upstream.<flavour>
# runs those of other suites than purgelab listed for <flavour>.
set(PURGELAB_MTR_TESTS_FILE ${CMAKE_SOURCE_DIR}/cmake/mtr-tests.txt)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${PURGELAB_MTR_TESTS_FILE})
file(STRINGS ${PURGELAB_MTR_TESTS_FILE} _mtr_lines REGEX "^[^# \t]")
# A purgelab test marked "alone" there measures how the throttle holds its
# target, which a test beside it on 2 cores would change: mtr.purgelab.<flavour>
# skips it and mtr.alone.<flavour> runs it by itself (--parallel=1).
foreach(flavour IN ITEMS release debug)
  set(PURGELAB_UPSTREAM_MTR_${flavour})
endforeach()
set(PURGELAB_ALONE_MTR)
foreach(_line IN LISTS _mtr_lines)
  string(REGEX REPLACE "[ \t]+" ";" _fields "${_line}")
  list(POP_FRONT _fields _test)
  if(_test MATCHES "^purgelab\\.")
    if("alone" IN_LIST _fields)
      list(APPEND PURGELAB_ALONE_MTR ${_test})
    endif()
    continue()
  endif()
  foreach(flavour IN LISTS _fields)
    list(APPEND PURGELAB_UPSTREAM_MTR_${flavour} ${_test})
  endforeach()
endforeach()
# --skip-test=^purgelab\.(a|b)$ for the suite's run
set(_alone_names ${PURGELAB_ALONE_MTR})
list(TRANSFORM _alone_names REPLACE "^purgelab\\." "")
list(JOIN _alone_names "|" _alone_names)

set(mtr_common --force --max-test-fail=0 --retry=0 --parallel=${PURGELAB_JOBS}
  --mysqld=--loose-innodb-buffer-pool-size=64M)

foreach(flavour IN LISTS PURGELAB_FLAVOURS)
  set(mtr_dir ${CMAKE_BINARY_DIR}/${flavour}/mysql-test)
  # the fork's own suite runs on every flavour
  add_test(NAME mtr.purgelab.${flavour}
    COMMAND perl mysql-test-run.pl ${mtr_common} --suite=purgelab
            "--skip-test=^purgelab\\.(${_alone_names})$"
            --vardir=${CMAKE_BINARY_DIR}/mtr-var/purgelab-${flavour}
            --xml-report=${CMAKE_BINARY_DIR}/mtr-var/purgelab-${flavour}.xml
    WORKING_DIRECTORY ${mtr_dir})
  if(PURGELAB_ALONE_MTR)
    add_test(NAME mtr.alone.${flavour}
      COMMAND perl mysql-test-run.pl ${mtr_common} --parallel=1
              --vardir=${CMAKE_BINARY_DIR}/mtr-var/alone-${flavour}
              --xml-report=${CMAKE_BINARY_DIR}/mtr-var/alone-${flavour}.xml
              ${PURGELAB_ALONE_MTR}
      WORKING_DIRECTORY ${mtr_dir})
    set_tests_properties(mtr.alone.${flavour}
      PROPERTIES TIMEOUT 1200 RUN_SERIAL ON)
  endif()
  add_test(NAME mtr.upstream.${flavour}
    COMMAND perl mysql-test-run.pl ${mtr_common}
            --vardir=${CMAKE_BINARY_DIR}/mtr-var/upstream-${flavour}
            --xml-report=${CMAKE_BINARY_DIR}/mtr-var/upstream-${flavour}.xml
            ${PURGELAB_UPSTREAM_MTR_${flavour}}
    WORKING_DIRECTORY ${mtr_dir})
  set_tests_properties(mtr.purgelab.${flavour} mtr.upstream.${flavour}
    PROPERTIES TIMEOUT 2400 RUN_SERIAL ON)
endforeach()

# the harness runs on Debian's python3, with Debian's PyMySQL, rich and
# matplotlib (BUILD/run); its tests run there too
find_program(PURGELAB_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT PURGELAB_SYSTEM_PYTHON)
  set(PURGELAB_SYSTEM_PYTHON ${Python3_EXECUTABLE})
endif()
add_test(NAME tools.assemble_and_fetch
  COMMAND ${PURGELAB_SYSTEM_PYTHON} -m unittest discover -s ${CMAKE_SOURCE_DIR}/tools/tests -v)
# report.html and compare.html in headless Chromium (Debian's, BUILD/setup
# installs it): colours as drawn, plots decoded, the answer on the first screen
add_test(NAME tools.report_in_browser
  COMMAND ${PURGELAB_SYSTEM_PYTHON} ${CMAKE_SOURCE_DIR}/tools/test-report-browser)
set_tests_properties(tools.report_in_browser PROPERTIES TIMEOUT 300 RUN_SERIAL ON)

if("release" IN_LIST PURGELAB_FLAVOURS)
  add_test(NAME package.tarball_runs
    COMMAND ${CMAKE_SOURCE_DIR}/tools/test-tarball ${PURGELAB_TARBALL})
  set_tests_properties(package.tarball_runs PROPERTIES TIMEOUT 600 RUN_SERIAL ON)
  # the stripped tarball + the debuginfo tarball: gdb finds the symbols
  # through the build-id tree, and finds none without it
  add_test(NAME package.debuginfo_gdb
    COMMAND ${CMAKE_SOURCE_DIR}/tools/test-debuginfo
            ${PURGELAB_TARBALL} ${PURGELAB_DEBUGINFO_TARBALL})
  set_tests_properties(package.debuginfo_gdb PROPERTIES TIMEOUT 600 RUN_SERIAL ON)
endif()
add_test(NAME package.series_on_debian_patches
  COMMAND ${CMAKE_SOURCE_DIR}/tools/test-debian-patches ${PURGELAB_PRISTINE_DIR})

if("release" IN_LIST PURGELAB_FLAVOURS)
  add_test(NAME tools.purgebench_end_to_end
    COMMAND ${CMAKE_SOURCE_DIR}/tools/test-purgebench-e2e
            ${CMAKE_BINARY_DIR}/release/sql/mariadbd)
  set_tests_properties(tools.purgebench_end_to_end PROPERTIES TIMEOUT 300 RUN_SERIAL ON)
  # attach mode: a server started as a user would have deployed it (127.0.0.1)
  add_test(NAME tools.purgebench_attach_end_to_end
    COMMAND ${CMAKE_SOURCE_DIR}/tools/test-purgebench-attach-e2e
            ${CMAKE_BINARY_DIR}/release/sql/mariadbd)
  set_tests_properties(tools.purgebench_attach_end_to_end PROPERTIES TIMEOUT 180 RUN_SERIAL ON)
  add_test(NAME tools.gotpc_end_to_end
    COMMAND ${CMAKE_SOURCE_DIR}/tools/test-gotpc-e2e
            ${CMAKE_BINARY_DIR}/release/sql/mariadbd)
  set_tests_properties(tools.gotpc_end_to_end PROPERTIES TIMEOUT 600 RUN_SERIAL ON)
endif()
