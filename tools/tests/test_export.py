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

"""BUILD/export (the fork as upstream commits, one per feature):
 - patches/export.map against this repository: every patch of the series and
   every fork file in exactly one stanza, the series order kept, a file's
   includes with it or before it (or named in its feature's Unclean), each
   header and mtr include file with the first feature that needs it;
 - BUILD/export itself on a toy upstream tarball and a toy fork (a git
   repository of a few files, patches and a map): the commits, their trees
   and messages, reproducible, format-patch, and each bad input stopped
   with one clear message."""

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
import export  # noqa: E402


class RealMapTest(unittest.TestCase):
    """patches/export.map as it is, against the working tree."""

    @classmethod
    def setUpClass(cls):
        cls.plan = export.Plan(REPO)     # raises with every mismatch at once

    def test_every_patch_once_and_every_fork_file_once(self):
        in_map = [p for ft in self.plan.features for p in ft.patches]
        self.assertEqual(sorted(self.plan.series), sorted(in_map))
        self.assertEqual(set(self.plan.overlay), set(self.plan.file_owner))

    def test_features_in_dependency_order(self):
        # the server's wait point first, as a commit of its own: the
        # engine's files that come next tell it whether InnoDB wants it
        self.assertEqual(["wait-point", "coupled-throttle", "undo-init-switch",
                          "mem-root-name", "throttle-metrics", "adaptive-throttle",
                          "rseg-drain"],
                         [ft.name for ft in self.plan.features])
        for ft in self.plan.features[:2]:
            self.assertTrue(ft.subject.startswith("MDEV-29401: "), ft.subject)

    def test_an_include_of_a_later_feature_is_named_in_its_unclean(self):
        later, _ = self.plan.dependency_report()
        by_name = {ft.name: ft for ft in self.plan.features}
        for ft, src, tgt, _ in later:
            text = " ".join(by_name[ft].unclean)
            with self.subTest(feature=ft, include=f"{src} -> {tgt}"):
                self.assertIn(os.path.basename(src), text)
                self.assertIn(os.path.basename(tgt), text)

    def test_each_header_and_mtr_include_with_the_first_feature_that_needs_it(self):
        _, unneeded = self.plan.dependency_report()
        self.assertEqual([], unneeded)

    def test_every_subject_fits_and_every_omit_says_why(self):
        for ft in self.plan.features:
            self.assertLessEqual(len(ft.subject), 80, ft.subject)
        for o in self.plan.omits:
            self.assertTrue(o.why)


class MapParserTest(unittest.TestCase):
    def test_fields_continuations_and_empty_description_lines(self):
        fts, omits = export.parse_map(
            "# comment\nFeature: a\nSubject: MDEV-1: x\n y\nPatches: p1\n p2\n"
            "Unclean:\n - one\n   more\n - two\nDescription: first\n .\n second\n\n"
            "Omit: cmake/*.cmake\nWhy: superbuild\n")
        self.assertEqual("MDEV-1: x y", fts[0].subject)
        self.assertEqual(["p1", "p2"], fts[0].patches)
        self.assertEqual(["one more", "two"], fts[0].unclean)
        self.assertEqual("first\n\nsecond", fts[0].description)
        self.assertEqual(["cmake/*.cmake"], omits[0].patterns)

    def test_bad_maps_name_the_line(self):
        for text, msg in (("Feature: a\nBogus: 1\n", ":2: unknown field 'Bogus'"),
                          ("Feature: a\nSubject: s\n", "feature without Description"),
                          ("Omit: x\n", "Omit without a Why"),
                          (" stray\n", ":1: a continuation line outside a field"),
                          ("Feature: A\nSubject: s\nDescription: d\n", "lower case")):
            with self.subTest(text=text):
                with self.assertRaisesRegex(export.ExportError, msg):
                    export.parse_map(text)


# ---------------------------------------------------------------- a toy fork

PRISTINE = {
    "VERSION": "MYSQL_VERSION_MAJOR=10\nMYSQL_VERSION_MINOR=11\nMYSQL_VERSION_PATCH=18\n",
    "sql/handler.cc": "".join(f"handler line {i}\n" for i in range(1, 21)),
    "storage/innobase/trx/trx0purge.cc": "".join(f"purge line {i}\n" for i in range(1, 21)),
    "storage/innobase/CMakeLists.txt": "SET(INNOBASE_SOURCES a.cc)\n",
    "Docs/a b.txt": "a file name with a space\n",
}
PATCH_A = """Description: toy hook A
---
--- a/sql/handler.cc
+++ b/sql/handler.cc
@@ -1,3 +1,4 @@
 handler line 1
+#include "foo.h"
 handler line 2
 handler line 3
"""
PATCH_B = """Description: toy hook B
---
--- a/storage/innobase/trx/trx0purge.cc
+++ b/storage/innobase/trx/trx0purge.cc
@@ -10,3 +10,4 @@
 purge line 10
+  purge_hook();
 purge line 11
 purge line 12
"""
PATCH_C = """Description: toy new file
---
--- /dev/null
+++ b/sql/new.h
@@ -0,0 +1 @@
+#define NEW 1
"""
MAP = """# toy
Feature: alpha
Subject: MDEV-1: Alpha
Patches: 0001-a.patch
Files: storage/innobase/include/foo.h
Description: Alpha does a.
 .
 Second paragraph.

Feature: beta
Subject: Beta: a plain subject
Depends: alpha
Patches: 0002-b.patch 0003-c.patch
Mtr: beta_test
Unit: unittest/purgelab/beta-t.cc
Unclean:
 - not clean for a reason
Description: Beta does b.

Omit: cmake/*.cmake
Why: the superbuild's
"""
FORK = {
    "patches/series": "0001-a.patch\n0002-b.patch\n0003-c.patch\n",
    "patches/0001-a.patch": PATCH_A,
    "patches/0002-b.patch": PATCH_B,
    "patches/0003-c.patch": PATCH_C,
    "patches/export.map": MAP,
    "storage/innobase/include/foo.h": "#define FOO 1\n",
    "mysql-test/suite/purgelab/t/beta_test.test": "SELECT 1;\n",
    "mysql-test/suite/purgelab/t/beta_test.opt": "--innodb\n",
    "mysql-test/suite/purgelab/r/beta_test.result": "SELECT 1;\n1\n1\n",
    "unittest/purgelab/beta-t.cc": "#include \"foo.h\"\n",
}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class ToyExportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="purgelab-export-test-")
        cls.repo = os.path.join(cls.tmp, "fork")
        for rel in ("BUILD/export", "BUILD/common.sh", "tools/export.py", "tools/assemble.py", "tools/debsource.py",
                    "tools/fetch-upstream", "cmake/pin.cmake"):
            os.makedirs(os.path.join(cls.repo, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(os.path.join(REPO, rel), os.path.join(cls.repo, rel))
        for rel, text in FORK.items():
            write(os.path.join(cls.repo, rel), text)
        cls.git("init", "-q")
        cls.git("config", "user.name", "Toy Maintainer")
        cls.git("config", "user.email", "toy@example.invalid")
        cls.commit("toy fork")
        cls.tarball = os.path.join(cls.tmp, "mariadb_10.11.18.orig.tar.gz")
        with tarfile.open(cls.tarball, "w:gz") as tar:
            for rel, text in sorted(PRISTINE.items()):
                data = text.encode()
                info = tarfile.TarInfo("mariadb-10.11.18/" + rel)
                info.size, info.mtime = len(data), 1700000000
                tar.addfile(info, io.BytesIO(data))
        with open(cls.tarball, "rb") as f:
            cls.sha = hashlib.sha256(f.read()).hexdigest()
        cls.env = dict(os.environ, PURGELAB_CACHE=os.path.join(cls.tmp, "cache"),
                       PURGELAB_SOURCE_TARBALL=cls.tarball, PURGELAB_SOURCE_SHA256=cls.sha,
                       PURGELAB_BUILD_DIR=os.path.join(cls.tmp, "build"))
        for var in ("PURGELAB_SOURCE_DIR", "SOURCE_DATE_EPOCH", "GIT_DIR", "GIT_WORK_TREE"):
            cls.env.pop(var, None)
        cls.out = os.path.join(cls.tmp, "build", "export")
        cls.first = cls.run_export("--format-patch", os.path.join(cls.tmp, "fp"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def git(cls, *args, git_dir=None):
        cmd = ["git"] + (["--git-dir", git_dir] if git_dir else ["-C", cls.repo]) + list(args)
        return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout.strip()

    @classmethod
    def commit(cls, message):
        cls.git("add", "-A")
        cls.git("-c", "commit.gpgsign=false", "commit", "-q", "-m", message)

    @classmethod
    def run_export(cls, *args, **env):
        return subprocess.run([os.path.join(cls.repo, "BUILD", "export")] + list(args),
                              env=dict(cls.env, **env), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=60)

    def toy_fork(self, name):
        """The toy fork's files (FORK) written to a fresh directory NAME."""
        fork = os.path.join(self.tmp, name)
        for rel, text in FORK.items():
            write(os.path.join(fork, rel), text)
        return fork

    def log(self, fmt, rev="HEAD", out=None):
        return self.git("log", "--reverse", f"--format={fmt}", rev, git_dir=out or self.out)

    def tree(self, rev, out=None):
        return set(self.git("ls-tree", "-r", "--name-only", rev, git_dir=out or self.out).split("\n"))

    def show(self, spec, out=None):
        return self.git("show", spec, git_dir=out or self.out)

    def test_pristine_then_one_commit_per_feature(self):
        self.assertEqual(0, self.first.returncode, self.first.stdout)
        self.assertEqual([f"MariaDB 10.11.18 (Debian orig tarball, sha256 {self.sha})",
                          "MDEV-1: Alpha", "Beta: a plain subject"],
                         self.log("%s").split("\n"))
        self.assertEqual("refs/heads/purgelab-10.11.18",
                         self.git("symbolic-ref", "HEAD", git_dir=self.out))
        self.assertEqual({"Toy Maintainer <toy@example.invalid>"},
                         set(self.log("%an <%ae>").split("\n")) |
                         set(self.log("%cn <%ce>").split("\n")))

    def test_the_first_commit_is_the_tarball_byte_for_byte(self):
        self.assertEqual(set(PRISTINE), self.tree("HEAD~2"))
        for rel, text in PRISTINE.items():
            self.assertEqual(text.rstrip("\n"), self.show(f"HEAD~2:{rel}"))

    def test_each_feature_adds_its_patches_and_files_and_nothing_else(self):
        alpha = self.git("diff", "--name-only", "HEAD~2", "HEAD~1", git_dir=self.out).split("\n")
        self.assertEqual(["sql/handler.cc", "storage/innobase/include/foo.h"], alpha)
        self.assertIn('#include "foo.h"', self.show("HEAD~1:sql/handler.cc"))
        beta = self.git("diff", "--name-only", "HEAD~1", "HEAD", git_dir=self.out).split("\n")
        self.assertEqual(sorted(["mysql-test/suite/purgelab/r/beta_test.result",
                                 "mysql-test/suite/purgelab/t/beta_test.opt",
                                 "mysql-test/suite/purgelab/t/beta_test.test",
                                 "sql/new.h", "storage/innobase/trx/trx0purge.cc",
                                 "unittest/purgelab/beta-t.cc"]), sorted(beta))
        self.assertFalse([f for f in self.tree("HEAD") if f.startswith(("cmake/", "patches/",
                                                                          "BUILD/", "tools/"))])

    def test_the_message_explains_the_feature(self):
        msg = self.log("%B", "HEAD~1..HEAD")
        self.assertIn("Beta does b.", msg)
        self.assertIn("Depends on:\n  MDEV-1: Alpha", msg)
        self.assertIn("- not clean for a reason", msg)
        self.assertIn("mtr: purgelab.beta_test.", msg)
        self.assertIn("unittest/purgelab/beta-t.cc", msg)
        # the fork's patch names and revision are no part of a message for
        # upstream; the export's config keeps the revision
        self.assertNotIn("0002-b.patch", msg)
        self.assertNotIn("purgelab ", msg.replace("purgelab export note", "")
                         .replace("purgelab.beta_test", "").replace("unittest/purgelab", ""))
        rev = self.git("config", "branch.%s.purgelab-revision" % self.git(
            "symbolic-ref", "--short", "HEAD", git_dir=self.out), git_dir=self.out)
        self.assertRegex(rev, r"^[0-9a-f]{40}$")
        self.assertIn("Alpha does a.\n\nSecond paragraph.", self.log("%B", "HEAD~2..HEAD~1"))

    def test_again_the_same_commits_and_format_patch(self):
        tip = self.git("rev-parse", "HEAD", git_dir=self.out)
        again = self.run_export()
        self.assertEqual(0, again.returncode, again.stdout)
        self.assertEqual(tip, self.git("rev-parse", "HEAD", git_dir=self.out))
        self.assertNotIn("importing the pristine tree", again.stdout)   # reused
        self.assertEqual(["0001-MDEV-1-Alpha.patch", "0002-Beta-a-plain-subject.patch"],
                         sorted(os.listdir(os.path.join(self.tmp, "fp"))))

    def test_without_unit_tests_and_another_branch(self):
        out = os.path.join(self.tmp, "nounit")
        r = self.run_export("--out", out, "--branch", "review/x", "--without-unit-tests")
        self.assertEqual(0, r.returncode, r.stdout)
        self.assertNotIn("unittest/purgelab/beta-t.cc", self.tree("review/x", out))
        self.assertNotIn("Unit tests", self.log("%B", "review/x", out))

    def test_bad_input_stops_with_one_clear_message(self):
        r = self.run_export("--frobnicate")
        self.assertEqual(2, r.returncode)
        self.assertIn("unknown option '--frobnicate'", r.stdout)
        r = self.run_export("--branch")
        self.assertEqual(2, r.returncode)
        self.assertIn("--branch needs a value", r.stdout)

        other = os.path.join(self.tmp, "other")
        write(os.path.join(other, "mine.txt"), "someone's\n")
        r = self.run_export("--out", other)
        self.assertEqual(1, r.returncode)
        self.assertIn(f"{other} exists and is not an export", r.stdout)

        r = self.run_export("--out", os.path.join(self.tmp, "x"),
                            PURGELAB_SOURCE_TARBALL="", PURGELAB_SOURCE_SHA256="",
                            PURGELAB_CACHE=os.path.join(self.tmp, "empty-cache"))
        self.assertEqual(1, r.returncode)
        self.assertIn("mariadb_10.11.18.orig.tar.gz is not downloaded yet", r.stdout)
        self.assertIn("Fetch and verify it with: tools/fetch-upstream", r.stdout)

        r = self.run_export("--rev", "no-such-rev", "--out", os.path.join(self.tmp, "y"))
        self.assertEqual(1, r.returncode)
        self.assertIn("no-such-rev is not a revision", r.stdout)

        r = self.run_export("--out", os.path.join(self.tmp, "z"), PURGELAB_SOURCE_DIR=self.tmp)
        self.assertEqual(1, r.returncode)
        self.assertIn("PURGELAB_SOURCE_DIR is set", r.stdout)

    def test_check_builds_every_commit_and_runs_mtr_at_the_tip(self):
        # no compiler: cmake, ninja, ccache and perl are fakes that log their
        # calls; the 'build' fails where foo.h is there without sql/new.h,
        # as a commit that needs a later one does
        fake = os.path.join(self.tmp, "fakebin")
        calls = os.path.join(self.tmp, "fake.log")
        scripts = {
            "cmake": """#!/bin/sh
echo "cmake $*" >> "$FAKE_LOG"
case "$1" in
  -DFLAVOUR=*) for a; do case $a in -DOUT=*) printf -- '-DWITH_X=1\\n-DEMPTY=\\n' > "${a#-DOUT=}";; esac; done ;;
  -S) mkdir -p "$4/mysql-test"; echo "$2" > "$4/src_path"; touch "$4/build.ninja" ;;
  --build) src=$(cat "$2/src_path")
    if [ -f "$src/storage/innobase/include/foo.h" ] && [ ! -f "$src/sql/new.h" ]; then
      echo "handler.cc:2: error: new.h: no such file"; exit 1; fi ;;
esac
""",
            "perl": "#!/bin/sh\necho \"perl $* in $(pwd)\" >> \"$FAKE_LOG\"\n",
            "ninja": "#!/bin/sh\nexit 0\n",
            "ccache": "#!/bin/sh\nexit 0\n",
        }
        for name, text in scripts.items():
            write(os.path.join(fake, name), text)
            os.chmod(os.path.join(fake, name), 0o755)
        out = os.path.join(self.tmp, "checked")
        r = self.run_export("--out", out, "--check", FAKE_LOG=calls,
                            PATH=fake + os.pathsep + os.environ["PATH"])
        self.assertEqual(1, r.returncode, r.stdout)
        shas = self.log("%h", out=out).split("\n")
        self.assertRegex(r.stdout, rf"\n  {shas[0][:7]}\w* built \(\d+ s\)  MariaDB 10.11.18")
        self.assertRegex(r.stdout, rf"\n  {shas[1][:7]}\w* FAILED \(\d+ s\)  MDEV-1: Alpha\n"
                                   r"      handler.cc:2: error: new.h: no such file")
        self.assertRegex(r.stdout, rf"\n  {shas[2][:7]}\w* built \(\d+ s\)  Beta")
        self.assertIn("mtr --suite=purgelab at the tip: passed", r.stdout)
        with open(calls) as f:
            log = f.read()
        self.assertEqual(3, log.count("cmake --build"))
        self.assertEqual(1, log.count("cmake -S"))          # configured once
        self.assertIn("-DWITH_X=1 -DEMPTY= -DCMAKE_C_COMPILER_LAUNCHER=", log)
        self.assertRegex(log, r"perl mysql-test-run.pl .*--suite=purgelab.* in .*"
                              r"export-check/release/mysql-test")

    def test_a_patch_that_does_not_apply_is_named(self):
        bad = os.path.join(self.tmp, "bad-fork")
        shutil.copytree(self.repo, bad, symlinks=True)
        write(os.path.join(bad, "patches/0002-b.patch"), PATCH_B.replace("purge line 11", "nope"))
        subprocess.run(["git", "-C", bad, "commit", "-qam", "break 0002"], check=True)
        r = subprocess.run([os.path.join(bad, "BUILD", "export"), "--out",
                            os.path.join(self.tmp, "bad-out")], env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(1, r.returncode)
        self.assertIn("feature beta: patch 0002-b.patch does not apply", r.stdout)
        self.assertIn("storage/innobase/trx/trx0purge.cc: hunk #1", r.stdout)

    def test_a_map_that_misses_a_patch_or_a_file_is_refused(self):
        fork = self.toy_fork("plan")
        write(os.path.join(fork, "patches/series"), FORK["patches/series"] + "0004-d.patch\n")
        write(os.path.join(fork, "patches/0004-d.patch"), PATCH_C.replace("new.h", "d.h"))
        write(os.path.join(fork, "storage/innobase/include/stray.h"), "\n")
        with self.assertRaises(export.ExportError) as e:
            export.Plan(fork)
        self.assertIn("patch 0004-d.patch (patches/series) is in no feature", str(e.exception))
        self.assertIn("storage/innobase/include/stray.h is in no feature", str(e.exception))

    def test_series_order_is_kept_across_features(self):
        fork = self.toy_fork("order")
        # 0001 and a second patch of sql/handler.cc, the latter in an earlier feature
        write(os.path.join(fork, "patches/series"), FORK["patches/series"] + "0004-d.patch\n")
        write(os.path.join(fork, "patches/0004-d.patch"), PATCH_A.replace("foo.h", "bar.h"))
        write(os.path.join(fork, "patches/export.map"),
              MAP.replace("Patches: 0001-a.patch\n", "Patches: 0004-d.patch\n")
                 .replace("Patches: 0002-b.patch", "Patches: 0001-a.patch 0002-b.patch"))
        with self.assertRaisesRegex(export.ExportError, "sql/handler.cc: patch 0001-a.patch"):
            export.Plan(fork)


if __name__ == "__main__":
    unittest.main()
