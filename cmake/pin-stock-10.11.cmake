# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# Comparator: stock MariaDB 10.11.18, unpatched (BUILD/build stock-10.11;
# docs/building.md, "Version comparators"): the fork's own upstream, from
# the same tarball as cmake/pin.cmake and built with the fork's flags, so
# that the fork with no lag set can be measured against the code it
# patches. Debian's binary package of 10.11.18 (tools/install-stock-server)
# differs in compiler flags and plugins. Read by CMakeLists.txt
# (PURGELAB_COMPARATOR=stock-10.11) after cmake/pin.cmake, whose values
# these repeat, and by tools/fetch-upstream --pin stock-10.11.

set(PURGELAB_UPSTREAM_VERSION     "10.11.18")
set(PURGELAB_DEB_PACKAGE          "mariadb")
set(PURGELAB_DEB_VERSION          "1:10.11.18-0+deb12u1")
set(PURGELAB_DEB_SUITE            "bookworm")
set(PURGELAB_ORIG_TARBALL         "mariadb_10.11.18.orig.tar.gz")
set(PURGELAB_ORIG_SHA256          "a46852c68075be7c31c7b33fee233c5b5a00c8c28117f5204d124e4f2fd56fa8")
