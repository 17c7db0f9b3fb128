# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# Build flavours of the assembled server. Each builds in its own directory
# (<build>/<flavour>) from the one assembled tree (<build>/src).

include(${CMAKE_CURRENT_LIST_DIR}/pin.cmake)

# Common to every flavour: system libraries (nothing is downloaded at
# configure time), the fork's version suffix, a tarball name packagers expect.
set(PURGELAB_COMMON_ARGS
  -DMYSQL_SERVER_SUFFIX=-${PURGELAB_SUFFIX}
  -DCPACK_PACKAGE_FILE_NAME=mariadb-${PURGELAB_UPSTREAM_VERSION}-${PURGELAB_SUFFIX}-linux-x86_64
  -DCOMPILATION_COMMENT=purgelab
  -DUPDATE_SUBMODULES=OFF
  -DWITH_SSL=system
  -DWITH_ZLIB=system
  -DWITH_PCRE=system
  -DWITH_LIBFMT=system
  -DWITH_SYSTEMD=yes                 # also what prints "to purge N transactions"
  -DWITH_URING=yes
  -DWITH_LIBAIO=ON
  -DMYSQL_MAINTAINER_MODE=OFF
  -DINSTALL_MYSQLTESTDIR=            # the tarball carries no test suite
  -DINSTALL_SQLBENCHDIR=
)

# release: what packagers ship and benchmarkers deploy (mysql_release:
# RelWithDebInfo -O2 -g, jemalloc linked statically so the tarball runs anywhere)
set(PURGELAB_FLAVOUR_release_ARGS
  -DBUILD_CONFIG=mysql_release
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
  -DWITH_JEMALLOC=static
  # mysql_release would strip the client programs at install time (debug
  # information lost); package-release splits it off instead, for every ELF file
  -DWITH_STRIPPED_CLIENT=OFF
)

# debug: for mtr tests that need have_debug.inc and for MEM_ROOT names
set(PURGELAB_FLAVOUR_debug_ARGS
  -DCMAKE_BUILD_TYPE=Debug
  -DWITH_JEMALLOC=no
)
