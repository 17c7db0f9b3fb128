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

"""Tests of tools/assemble.py and tools/fetch-upstream on toy trees."""

import gzip
import hashlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)
import assemble  # noqa: E402

PATCH = """Description: toy
Author: test
---
--- a/sql/a.c
+++ b/sql/a.c
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class AssembleTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.pristine = os.path.join(t, "pristine")
        self.repo = os.path.join(t, "repo")
        self.out = os.path.join(t, "build", "src")
        write(os.path.join(self.pristine, "sql/a.c"), "one\ntwo\nthree\n")
        write(os.path.join(self.pristine, "sql/b.c"), "bee\n")
        write(os.path.join(self.pristine, "include/h.h"), "h\n")
        write(os.path.join(self.repo, "patches/series"), "toy.patch\n")
        write(os.path.join(self.repo, "patches/toy.patch"), PATCH)
        write(os.path.join(self.repo, "storage/new.cc"), "new\n")
        # an old mtime on every pristine file, as a tarball has
        for d, _, files in os.walk(self.pristine):
            for f in files:
                os.utime(os.path.join(d, f), (1000000, 1000000))

    def tearDown(self):
        self.tmp.cleanup()

    def run_assemble(self):
        return assemble.assemble(self.pristine, self.repo, self.out)

    def read(self, rel):
        with open(os.path.join(self.out, rel)) as f:
            return f.read()

    def mtime(self, rel):
        return os.stat(os.path.join(self.out, rel)).st_mtime

    def test_patches_and_overlay_applied(self):
        self.run_assemble()
        self.assertEqual("one\nTWO\nthree\n", self.read("sql/a.c"))
        self.assertEqual("new\n", self.read("storage/new.cc"))
        self.assertEqual("bee\n", self.read("sql/b.c"))
        self.assertEqual(1000000, self.mtime("sql/b.c"))

    def test_second_run_rewrites_nothing(self):
        self.run_assemble()
        before = {rel: self.mtime(rel) for rel in ("sql/a.c", "storage/new.cc")}
        time.sleep(0.05)
        self.assertEqual([], self.run_assemble())
        for rel, m in before.items():
            self.assertEqual(m, self.mtime(rel))

    def test_one_overlay_edit_rewrites_one_file(self):
        self.run_assemble()
        a = self.mtime("sql/a.c")
        write(os.path.join(self.repo, "storage/new.cc"), "newer\n")
        self.assertEqual(["storage/new.cc"], self.run_assemble())
        self.assertEqual("newer\n", self.read("storage/new.cc"))
        self.assertEqual(a, self.mtime("sql/a.c"))

    def test_dropped_patch_restores_pristine_and_dropped_file_goes(self):
        self.run_assemble()
        write(os.path.join(self.repo, "patches/series"), "")
        os.remove(os.path.join(self.repo, "storage/new.cc"))
        changed = self.run_assemble()
        self.assertEqual(sorted(["sql/a.c", "storage/new.cc"]), sorted(changed))
        self.assertEqual("one\ntwo\nthree\n", self.read("sql/a.c"))
        self.assertFalse(os.path.exists(os.path.join(self.out, "storage/new.cc")))

    def test_failing_patch_names_patch_file_and_hunk(self):
        write(os.path.join(self.pristine, "sql/a.c"), "one\nzwei\nthree\n")
        with self.assertRaises(assemble.AssemblyError) as cm:
            self.run_assemble()
        msg = str(cm.exception)
        self.assertIn("patch toy.patch does not apply", msg)
        self.assertIn("file sql/a.c: hunk #1", msg)

    def test_series_naming_a_missing_patch(self):
        write(os.path.join(self.repo, "patches/series"), "toy.patch\ngone.patch\n")
        with self.assertRaises(assemble.AssemblyError) as cm:
            self.run_assemble()
        self.assertIn("gone.patch", str(cm.exception))

    def test_overlay_file_that_is_also_patched_is_refused(self):
        write(os.path.join(self.repo, "sql/a.c"), "mine\n")
        with self.assertRaises(assemble.AssemblyError) as cm:
            self.run_assemble()
        self.assertIn("sql/a.c", str(cm.exception))


    def test_comparator_gets_its_own_series_and_no_overlay(self):
        """A comparator (BUILD/build stock-10.5): patches/stock-X/ only."""
        fix = PATCH.replace("sql/a.c", "sql/b.c").replace(" one\n-two\n+TWO\n three\n",
                                                          "-bee\n+BEE\n").replace(
            "@@ -1,3 +1,3 @@", "@@ -1 +1 @@")
        write(os.path.join(self.repo, "patches/stock-x/series"), "# a build fix\nfix.patch\n")
        write(os.path.join(self.repo, "patches/stock-x/fix.patch"), fix)
        assemble.assemble(self.pristine, self.repo, self.out,
                          patch_dir=os.path.join(self.repo, "patches/stock-x"), overlay=False)
        self.assertEqual("BEE\n", self.read("sql/b.c"))
        self.assertEqual("one\ntwo\nthree\n", self.read("sql/a.c"))     # not the fork's
        self.assertFalse(os.path.exists(os.path.join(self.out, "storage/new.cc")))
        # an empty series: the pristine tree as it is
        write(os.path.join(self.repo, "patches/stock-x/series"), "# none needed\n")
        assemble.assemble(self.pristine, self.repo, self.out,
                          patch_dir=os.path.join(self.repo, "patches/stock-x"), overlay=False)
        self.assertEqual("bee\n", self.read("sql/b.c"))


class FetchUpstreamTest(unittest.TestCase):
    """Bad input to tools/fetch-upstream stops with one clear message."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = dict(os.environ, PURGELAB_CACHE=os.path.join(self.tmp.name, "cache"))
        self.env.pop("PURGELAB_SOURCE_DIR", None)
        self.env.pop("PURGELAB_SOURCE_SHA256", None)

    def tearDown(self):
        self.tmp.cleanup()

    def fetch(self, **env):
        e = dict(self.env, **env)
        return subprocess.run([os.path.join(TOOLS, "fetch-upstream")], env=e,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def tarball(self, name, members):
        path = os.path.join(self.tmp.name, name)
        with tarfile.open(path, "w:gz") as tar:
            for rel, text in members.items():
                data = text.encode()
                info = tarfile.TarInfo(rel)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return path

    @staticmethod
    def sha(path):
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    def test_missing_tarball(self):
        p = self.fetch(PURGELAB_SOURCE_TARBALL="/nonexistent/x.tar.gz")
        self.assertNotEqual(0, p.returncode)
        self.assertIn("does not exist", p.stderr)

    def test_sha256_mismatch_keeps_the_file(self):
        path = self.tarball("t.tar.gz", {"m/VERSION": "x"})
        p = self.fetch(PURGELAB_SOURCE_TARBALL=path)
        self.assertNotEqual(0, p.returncode)
        self.assertIn("sha256 mismatch", p.stderr)
        self.assertIn("expected a46852c6", p.stderr)
        self.assertTrue(os.path.exists(path))

    def test_comparator_pin(self):
        path = self.tarball("t.tar.gz", {"m/VERSION": "x"})
        p = subprocess.run([os.path.join(TOOLS, "fetch-upstream"), "--pin", "stock-10.5"],
                           env=dict(self.env, PURGELAB_SOURCE_TARBALL=path),
                           capture_output=True, text=True)
        self.assertNotEqual(0, p.returncode)
        self.assertIn("expected 3f7c33b2", p.stderr)        # the 10.5 pin's sha256
        p = subprocess.run([os.path.join(TOOLS, "fetch-upstream"), "--pin", "stock-9.9"],
                           env=self.env, capture_output=True, text=True)
        self.assertNotEqual(0, p.returncode)
        self.assertIn("no pin cmake/pin-stock-9.9.cmake; the pins are: stock-10.11 stock-10.5 stock-11.8",
                      p.stderr)

    def test_corrupt_archive(self):
        path = os.path.join(self.tmp.name, "bad.tar.gz")
        with open(path, "wb") as f:
            f.write(gzip.compress(b"this is not a tar archive" * 100)[:200])
        p = self.fetch(PURGELAB_SOURCE_TARBALL=path, PURGELAB_SOURCE_SHA256=self.sha(path))
        self.assertNotEqual(0, p.returncode)
        self.assertIn("cannot extract", p.stderr)
        self.assertEqual([], os.listdir(os.path.join(self.tmp.name, "cache", "src")))

    def test_good_tarball_is_extracted_once(self):
        path = self.tarball("ok.tar.gz", {"mariadb-x/VERSION": "MYSQL_VERSION_MAJOR=10\n",
                                          "mariadb-x/sql/a.c": "a\n"})
        sha = self.sha(path)
        p = self.fetch(PURGELAB_SOURCE_TARBALL=path, PURGELAB_SOURCE_SHA256=sha)
        self.assertEqual(0, p.returncode, p.stderr)
        dest = p.stdout.strip().splitlines()[-1]
        self.assertTrue(dest.endswith(sha))
        self.assertTrue(os.path.exists(os.path.join(dest, "sql/a.c")))
        p2 = self.fetch(PURGELAB_SOURCE_TARBALL=path, PURGELAB_SOURCE_SHA256=sha)
        self.assertNotIn("extracting", p2.stderr)

    def test_source_dir_that_is_not_mariadb(self):
        p = self.fetch(PURGELAB_SOURCE_DIR=self.tmp.name)
        self.assertNotEqual(0, p.returncode)
        self.assertIn("not a MariaDB source tree", p.stderr)


if __name__ == "__main__":
    unittest.main()
