# Copyright (c) 2026, purgelab developers.
#
# This program is free software; you can redistribute it and/or modify it
# under the terms of the GNU General Public License as published by the Free
# Software Foundation; version 2 of the License.
#
# This program is distributed in the hope that it will be useful, but WITHOUT
# ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS
# FOR A PARTICULAR PURPOSE. See the GNU General Public License for more details.
#
# You should have received a copy of the GNU General Public License along with
# this program; if not, write to the Free Software Foundation, Inc.,
# 51 Franklin St, Fifth Floor, Boston, MA 02110-1335 USA

"""Tests of tools/debsource.py: the pins, the URIs derived from the apt
sources, the index-or-pool decision. No network: fake apt operations, and
one run through apt itself against a file:// mirror."""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(TOOLS, "tests"))
import debsource  # noqa: E402
from test_deb_src import DEBIAN_SOURCES, KEYRING  # noqa: E402

PIN = {"PURGELAB_DEB_PACKAGE": "mariadb", "PURGELAB_DEB_VERSION": "1:11.8.6-0+deb13u1",
       "PURGELAB_DEB_SUITE": "trixie", "PURGELAB_ORIG_TARBALL": "mariadb_11.8.6.orig.tar.gz",
       "PURGELAB_ORIG_SHA256": hashlib.sha256(b"orig").hexdigest()}
URIS = ["http://mirror.invalid/debian", "http://mirror.invalid/debian-security"]


class FakeOps:
    """apt as a test wants it: what the index lists, whether apt-get source
    works, which URLs the pool serves (url -> bytes)."""

    def __init__(self, listed=False, apt_ok=True, pool=None, uris=URIS):
        self._listed, self.apt_ok, self.pool, self._uris = listed, apt_ok, pool or {}, uris
        self.fetched = []
        self.apt_called = False

    def listed(self):
        if isinstance(self._listed, Exception):
            raise self._listed
        return self._listed

    def apt_source(self, dest):
        self.apt_called = True
        if not self.apt_ok:
            raise debsource.FetchError("E: Failed to fetch ... 404  Not Found")
        with open(os.path.join(dest, PIN["PURGELAB_ORIG_TARBALL"]), "wb") as f:
            f.write(b"orig")

    def uris(self):
        return self._uris

    def download(self, url, path):
        self.fetched.append(url)
        if url not in self.pool:
            raise debsource.NotFound("not found (404)")
        with open(path, "wb") as f:
            f.write(self.pool[url])


def served(uri, orig=b"orig"):
    base = f"{uri}/pool/main/m/mariadb/"
    return {base + "mariadb_11.8.6-0+deb13u1.dsc": b"dsc",
            base + "mariadb_11.8.6.orig.tar.gz": orig}


class PinTest(unittest.TestCase):
    def test_repository_pins(self):
        """Every pin in cmake/ names a package, version, suite and sha256."""
        names = sorted(f for f in os.listdir(os.path.join(REPO, "cmake"))
                       if f == "pin.cmake" or f.startswith("pin-"))
        self.assertIn("pin-stock-10.5.cmake", names)
        self.assertIn("pin-stock-11.8.cmake", names)
        for name in names:
            pin = debsource.read_pin(os.path.join(REPO, "cmake", name))
            self.assertRegex(pin["PURGELAB_ORIG_SHA256"], r"^[0-9a-f]{64}$", name)
            version = pin["PURGELAB_UPSTREAM_VERSION"]
            self.assertIn(f":{version}-", pin["PURGELAB_DEB_VERSION"], name)
            self.assertIn(f"_{version}.orig.tar", pin["PURGELAB_ORIG_TARBALL"], name)
        base = debsource.read_pin(os.path.join(REPO, "cmake", "pin.cmake"))
        self.assertEqual(base["PURGELAB_DEB_SUITE"], "bookworm")

    def test_pin_without_suite_is_a_clear_error(self):
        with tempfile.NamedTemporaryFile("w", suffix=".cmake") as f:
            f.write('set(PURGELAB_DEB_PACKAGE "mariadb")\n')
            f.flush()
            with self.assertRaisesRegex(debsource.FetchError, "lacks .*PURGELAB_DEB_SUITE"):
                debsource.read_pin(f.name)

    def test_dsc_name_drops_the_epoch(self):
        self.assertEqual(debsource.dsc_name("mariadb-10.5", "1:10.5.23-0+deb11u1"),
                         "mariadb-10.5_10.5.23-0+deb11u1.dsc")
        self.assertEqual(debsource.dsc_name("foo", "2.0-1"), "foo_2.0-1.dsc")


class UriTest(unittest.TestCase):
    def derived(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "sources.list.d"))
            with open(os.path.join(d, "sources.list.d", "debian.sources"), "w") as f:
                f.write(DEBIAN_SOURCES)
            p = subprocess.run([os.path.join(TOOLS, "deb-src"), "derive", d],
                               capture_output=True, text=True, check=True)
        return debsource.parse_stanzas(p.stdout)

    def test_uris_from_the_machines_sources(self):
        self.assertEqual(debsource.archive_uris(self.derived()), URIS)

    def test_suites_moved_to_another_release(self):
        moved = debsource.for_suite(self.derived(), "bullseye")
        self.assertEqual([st["Suites"] for st in moved],
                         ["bullseye bullseye-updates", "bullseye-security"])
        self.assertEqual([st["URIs"] for st in moved], URIS)
        text = debsource.render(moved)
        self.assertIn("Types: deb-src\nURIs: http://mirror.invalid/debian\n"
                      "Suites: bullseye bullseye-updates\nComponents: main\n"
                      f"Signed-By: {KEYRING}\n", text)
        # read back as the same entries
        self.assertEqual(debsource.parse_stanzas(text), moved)

    def test_bad_suite(self):
        with self.assertRaisesRegex(debsource.FetchError, "not a Debian codename"):
            debsource.for_suite(self.derived(), "Bullseye/updates")

    def test_pool_paths(self):
        self.assertEqual(debsource.pool_url(URIS[0] + "/", "mariadb-10.5", "x.dsc"),
                         "http://mirror.invalid/debian/pool/main/m/mariadb-10.5/x.dsc")
        self.assertEqual(debsource.pool_url(URIS[0], "libfoo", "f.dsc"),
                         "http://mirror.invalid/debian/pool/main/libf/libfoo/f.dsc")

    def test_listed(self):
        showsrc = ("Package: mariadb\nVersion: 1:10.11.18-0+deb12u1\n\n"
                   "Package: mariadb\nVersion: 1:10.11.19-0+deb12u1\n")
        self.assertTrue(debsource.listed(showsrc, "mariadb", "1:10.11.18-0+deb12u1"))
        self.assertFalse(debsource.listed(showsrc, "mariadb", "1:10.11.17-0+deb12u1"))
        self.assertFalse(debsource.listed(showsrc, "mariadb-10.5", "1:10.11.18-0+deb12u1"))
        self.assertFalse(debsource.listed("", "mariadb", "1:10.11.18-0+deb12u1"))


class DecisionTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dest = self.tmp.name
        self.msgs = []

    def tearDown(self):
        self.tmp.cleanup()

    def fetch(self, ops):
        return debsource.fetch(PIN, self.dest, ops, log=self.msgs.append)

    def files(self):
        return sorted(os.listdir(self.dest))

    def test_listed_version_comes_from_the_index(self):
        ops = FakeOps(listed=True, pool=served(URIS[0]))
        self.assertEqual(self.fetch(ops), "index")
        self.assertEqual(ops.fetched, [])
        self.assertEqual(self.msgs, [])

    def test_unlisted_version_comes_from_the_pool(self):
        ops = FakeOps(listed=False, pool=served(URIS[0]))
        self.assertEqual(self.fetch(ops), "pool")
        self.assertFalse(ops.apt_called)
        self.assertEqual(self.files(), ["mariadb_11.8.6-0+deb13u1.dsc",
                                        "mariadb_11.8.6.orig.tar.gz"])
        self.assertIn("no trixie index lists mariadb=1:11.8.6-0+deb13u1", self.msgs[0])
        self.assertIn("by the pool path under http://mirror.invalid/debian/pool/main (fallback",
                      self.msgs[-1])

    def test_apt_failure_falls_back_to_the_pool(self):
        ops = FakeOps(listed=True, apt_ok=False, pool=served(URIS[0]))
        self.assertEqual(self.fetch(ops), "pool")
        self.assertTrue(ops.apt_called)
        self.assertIn("apt-get source failed", self.msgs[0])

    def test_unreadable_index_falls_back_to_the_pool(self):
        ops = FakeOps(listed=debsource.FetchError("apt-get update for trixie failed"),
                      pool=served(URIS[0]))
        self.assertEqual(self.fetch(ops), "pool")
        self.assertIn("index could not be read", self.msgs[0])

    def test_next_uri_when_the_first_lacks_it(self):
        ops = FakeOps(pool=served(URIS[1]))
        self.assertEqual(self.fetch(ops), "pool")
        self.assertTrue(ops.fetched[0].startswith(URIS[0]))
        self.assertIn(f"under {URIS[1]}/pool/main (fallback", self.msgs[-1])

    def test_the_security_archives_pool_layout(self):
        """debian-security keeps its pool under pool/updates/main."""
        pool = {u.replace("/pool/main/", "/pool/updates/main/"): v
                for u, v in served(URIS[1]).items()}
        ops = FakeOps(pool=pool)
        self.assertEqual(self.fetch(ops), "pool")
        self.assertIn(f"under {URIS[1]}/pool/updates/main (fallback", self.msgs[-1])
        # main/, updates/main/ of the first URI, main/ of the second: their
        # .dsc missing; then the .dsc and the tarball
        self.assertEqual(5, len(ops.fetched))

    def test_gone_everywhere_is_one_clear_error(self):
        ops = FakeOps(pool={})
        with self.assertRaises(debsource.FetchError) as cm:
            self.fetch(ops)
        msg = str(cm.exception)
        self.assertIn("its pool path is not served", msg)
        for uri in URIS:
            for comp in ("main", "updates/main"):
                self.assertIn(f"{uri}/pool/{comp}/m/mariadb/mariadb_11.8.6-0+deb13u1.dsc", msg)
        self.assertEqual(self.files(), [])

    def test_sha256_mismatch_stops_and_keeps_nothing(self):
        ops = FakeOps(pool=dict(served(URIS[0], orig=b"tampered"), **served(URIS[1])))
        with self.assertRaisesRegex(debsource.FetchError, "sha256 mismatch for "
                                    "http://mirror.invalid/debian/pool/"):
            self.fetch(ops)
        # not silently taken from the next mirror either
        self.assertFalse(any(u.startswith(URIS[1]) for u in ops.fetched))
        self.assertEqual(self.files(), [])

    def test_no_uri_to_fall_back_to(self):
        with self.assertRaisesRegex(debsource.FetchError, "no Debian archive URI"):
            self.fetch(FakeOps(uris=[]))


@unittest.skipUnless(shutil.which("apt-get") and os.path.exists(debsource.APT_HELPER),
                     "needs apt")
class AptFileMirrorTest(unittest.TestCase):
    """The real AptOps against a file:// mirror that has a pool but no
    index: the fallback fetches by the pool path, through apt-helper."""

    def test_pool_fallback_through_apt(self):
        with tempfile.TemporaryDirectory() as t:
            mirror = os.path.join(t, "mirror", "debian")
            pool = os.path.join(mirror, "pool", "main", "m", "mariadb")
            os.makedirs(pool)
            for name, data in (("mariadb_11.8.6-0+deb13u1.dsc", b"dsc"),
                               ("mariadb_11.8.6.orig.tar.gz", b"orig")):
                with open(os.path.join(pool, name), "wb") as f:
                    f.write(data)
            apt = os.path.join(t, "apt")
            os.makedirs(os.path.join(apt, "sources.list.d"))
            with open(os.path.join(apt, "sources.list.d", "debian.sources"), "w") as f:
                f.write(f"Types: deb\nURIs: file://{mirror}\nSuites: bookworm\n"
                        f"Components: main\nSigned-By: {KEYRING}\n")
            dest = os.path.join(t, "cache", "downloads")
            os.makedirs(dest)
            # world-traversable, as apt's download helper may run as _apt
            for d in (t, mirror, dest):
                os.chmod(d, 0o755)
            msgs = []
            ops = debsource.AptOps(PIN, os.path.join(t, "cache"), apt)
            self.assertEqual(debsource.fetch(PIN, dest, ops, log=msgs.append), "pool")
            with open(os.path.join(dest, "mariadb_11.8.6.orig.tar.gz"), "rb") as f:
                self.assertEqual(f.read(), b"orig")
            self.assertIn("falling back to the pool path", msgs[0])
            # the suite's index was read through a private directory
            with open(os.path.join(t, "cache", "apt", "trixie", "sources.list.d",
                                   "purgelab.sources")) as f:
                self.assertIn("Suites: trixie\n", f.read())


if __name__ == "__main__":
    unittest.main()
