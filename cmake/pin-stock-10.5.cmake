# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# Comparator: stock MariaDB 10.5, unpatched (BUILD/build stock-10.5;
# docs/building.md, "Version comparators"). The last series before the 10.6
# purge rewrite: MDEV-29401 was reported as "the history list grows in 10.6
# and not in 10.5". Read by CMakeLists.txt (PURGELAB_COMPARATOR=stock-10.5)
# after cmake/pin.cmake, whose values these replace, and by
# tools/fetch-upstream --pin stock-10.5.

set(PURGELAB_UPSTREAM_VERSION     "10.5.23")
# Debian 11's source package (checked 2026-11-24: the bullseye index lists it)
set(PURGELAB_DEB_PACKAGE          "mariadb-10.5")
set(PURGELAB_DEB_VERSION          "1:10.5.23-0+deb11u1")
set(PURGELAB_DEB_SUITE            "bullseye")
set(PURGELAB_ORIG_TARBALL         "mariadb-10.5_10.5.23.orig.tar.gz")
set(PURGELAB_ORIG_SHA256          "3f7c33b208cb799db014a874f56718eadff22ee95781fa360aa6bc696109acfe")
