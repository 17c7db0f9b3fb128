# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# The upstream base of the fork, pinned. Changing the base means changing
# these lines and refreshing patches/ (docs/building.md: "Bumping the base").

set(PURGELAB_UPSTREAM_VERSION     "10.11.18")
# Debian source package that carries it (Debian 12's own LTS)
set(PURGELAB_DEB_PACKAGE          "mariadb")
set(PURGELAB_DEB_VERSION          "1:10.11.18-0+deb12u1")
# the Debian release whose index lists it (tools/fetch-upstream); when no
# index lists it any more, the files are fetched by their pool path
set(PURGELAB_DEB_SUITE            "bookworm")
set(PURGELAB_ORIG_TARBALL         "mariadb_10.11.18.orig.tar.gz")
set(PURGELAB_ORIG_SHA256          "a46852c68075be7c31c7b33fee233c5b5a00c8c28117f5204d124e4f2fd56fa8")
# Debian's packaging (debian/patches), used by the packager test only
set(PURGELAB_DEBIAN_TARBALL       "mariadb_10.11.18-0+deb12u1.debian.tar.xz")
set(PURGELAB_DEBIAN_SHA256        "b5e013be56bb9ff2d2bc3e18920686370e65fbfe38c040185f9044a09ed9ea76")
# What the fork calls itself: SELECT VERSION() shows 10.11.18-MariaDB-purgelab
set(PURGELAB_SUFFIX               "purgelab")
