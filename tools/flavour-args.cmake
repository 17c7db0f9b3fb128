# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# cmake -DFLAVOUR=release -DOUT=FILE -P tools/flavour-args.cmake
# Writes to FILE, one a line, the configure arguments that the superbuild
# gives the server build of a flavour (cmake/flavours.cmake,
# cmake/plugins.cmake), for a server built outside the superbuild with the
# same flags (BUILD/export --check).
if(NOT FLAVOUR OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DFLAVOUR=release -DOUT=FILE -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/flavours.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/plugins.cmake)
if(NOT DEFINED PURGELAB_FLAVOUR_${FLAVOUR}_ARGS)
  message(FATAL_ERROR "unknown flavour '${FLAVOUR}' (release, debug)")
endif()
set(text "")
foreach(arg IN LISTS PURGELAB_COMMON_ARGS PURGELAB_FLAVOUR_${FLAVOUR}_ARGS PURGELAB_LEAN_ARGS)
  string(APPEND text "${arg}\n")
endforeach()
file(WRITE ${OUT} "${text}")
