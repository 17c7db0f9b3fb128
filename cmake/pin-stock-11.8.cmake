# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# Comparator: stock MariaDB 11.8 (the newest LTS), unpatched (BUILD/build
# stock-11.8; docs/building.md, "Version comparators"). Upstream changed
# purge after 10.11.6 (MDEV-32050, MDEV-33213, MDEV-34515). Read by
# CMakeLists.txt (PURGELAB_COMPARATOR=stock-11.8) after cmake/pin.cmake,
# whose values these replace, and by tools/fetch-upstream --pin stock-11.8.

set(PURGELAB_UPSTREAM_VERSION     "11.8.6")
# Debian 13's source package. Checked 2026-11-24: the trixie index lists
# 1:11.8.9+ds-0+deb13u1, whose files are not served (404); 11.8.6 is no longer
# listed but still in the pool, so tools/fetch-upstream fetches it by its pool
# path (the fallback), checked against the sha256 below.
set(PURGELAB_DEB_PACKAGE          "mariadb")
set(PURGELAB_DEB_VERSION          "1:11.8.6-0+deb13u1")
set(PURGELAB_DEB_SUITE            "trixie")
set(PURGELAB_ORIG_TARBALL         "mariadb_11.8.6.orig.tar.gz")
set(PURGELAB_ORIG_SHA256          "b126581a8ca89376d2a3ce63fee97c114c3e15315345e769b9d00c51e1b7d619")
