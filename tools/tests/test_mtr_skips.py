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

"""Tests of tools/mtr-skips on hand-written mtr --xml-report files and ctest
logs, and of cmake/mtr-tests.txt itself."""

import os
import subprocess
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)
SKIPS = os.path.join(TOOLS, "mtr-skips")

EXPECTED = """\
# comment
purgelab.a        release debug
purgelab.dbg      debug
purgelab.rel      release
purgelab.solo     release alone
innodb.purge      release
"""

CASE = ('<testcase assertions="" classname="{suite}" name="{name}" '
        'status="{status}" time="1.0" combinations="{comb}"{rest}')


def case(full, status="MTR_RES_PASSED", reason=None, comb="", tag="skipped"):
    suite, name = full.split(".", 1)
    rest = " />"
    if reason is not None:
        rest = (f'>\n<{tag} message="{reason}" type="MTR_RES_SKIPPED"/>\n'
                "</testcase>")
    return CASE.format(suite=suite, name=name, status=status, comb=comb,
                       rest=rest)


def report(*cases):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
            '<testsuite name="x">\n' + "\n".join(cases) +
            "\n</testsuite>\n</testsuites>\n")


def ctest_log(*names):
    return "".join(f"{i + 1}/9 Test  #{i + 3}: {n} ........   Passed   "
                   f"1.00 sec\n" for i, n in enumerate(names))


class MtrSkips(unittest.TestCase):
    def run_skips(self, log, reports):
        with tempfile.TemporaryDirectory() as d:
            exp = os.path.join(d, "expected.txt")
            with open(exp, "w") as f:
                f.write(EXPECTED)
            with open(os.path.join(d, "ctest.log"), "w") as f:
                f.write(log)
            for name, text in reports.items():
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            p = subprocess.run([SKIPS, exp, os.path.join(d, "ctest.log"), d],
                               capture_output=True, text=True)
            return p.returncode, p.stdout

    def test_expected_skip_passes_and_is_listed(self):
        rc, out = self.run_skips(
            ctest_log("mtr.purgelab.release"),
            {"purgelab-release.xml": report(
                case("purgelab.a"), case("purgelab.rel"),
                case("purgelab.dbg", "MTR_RES_SKIPPED", "Test requires: debug"))})
        self.assertEqual(rc, 0, out)
        self.assertIn("purgelab.dbg: Test requires: debug", out)
        self.assertNotIn("FAIL", out)

    def test_skip_of_a_listed_test_fails(self):
        rc, out = self.run_skips(
            ctest_log("mtr.purgelab.release"),
            {"purgelab-release.xml": report(
                case("purgelab.a", "MTR_RES_SKIPPED", "Need binlog"),
                case("purgelab.rel"))})
        self.assertEqual(rc, 1, out)
        self.assertIn("purgelab.a: Need binlog  CI RUNS IT HERE", out)
        self.assertIn("FAIL: purgelab.a is listed to run on release", out)

    def test_one_skipped_combination_fails(self):
        rc, out = self.run_skips(
            ctest_log("mtr.purgelab.release"),
            {"purgelab-release.xml": report(
                case("purgelab.a", comb="row"),
                case("purgelab.a", "MTR_RES_SKIPPED", "no", comb="stmt"),
                case("purgelab.rel"))})
        self.assertEqual(rc, 1, out)
        self.assertIn("purgelab.a 'stmt': no", out)

    def test_disabled_counts_as_skipped(self):
        rc, out = self.run_skips(
            ctest_log("mtr.purgelab.release"),
            {"purgelab-release.xml": report(
                case("purgelab.a"),
                case("purgelab.rel", "MTR_RES_SKIPPED", "MDEV-1", tag="disabled"))})
        self.assertEqual(rc, 1, out)
        self.assertIn("purgelab.rel: disabled: MDEV-1", out)

    def test_listed_test_that_did_not_run_fails(self):
        rc, out = self.run_skips(
            ctest_log("mtr.purgelab.release"),
            {"purgelab-release.xml": report(case("purgelab.a"))})
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: purgelab.rel is listed to run on release "
                      "(cmake/mtr-tests.txt) but did not run", out)

    def test_failed_test_is_ctests_to_report(self):
        rc, out = self.run_skips(
            ctest_log("mtr.purgelab.release"),
            {"purgelab-release.xml": report(
                case("purgelab.a", "MTR_RES_FAILED"), case("purgelab.rel"))})
        self.assertEqual(rc, 0, out)

    def test_runs_checked_per_flavour_and_kind(self):
        # upstream.release needs innodb.purge only, not the purgelab tests;
        # the debug run needs purgelab.dbg, not purgelab.rel
        rc, out = self.run_skips(
            ctest_log("mtr.upstream.release", "mtr.purgelab.debug"),
            {"upstream-release.xml": report(case("innodb.purge")),
             "purgelab-debug.xml": report(
                 case("purgelab.a"), case("purgelab.dbg"),
                 case("purgelab.rel", "MTR_RES_SKIPPED", "Test requires: not debug"))})
        self.assertEqual(rc, 0, out)
        self.assertIn("mtr.upstream.release: mtr skipped\n  (none)", out)
        self.assertIn("mtr.purgelab.debug: mtr skipped\n"
                      "  purgelab.rel: Test requires: not debug", out)

    def test_alone_test_runs_in_its_own_run(self):
        # purgelab.solo is skipped in the suite's run and runs in mtr.alone
        rc, out = self.run_skips(
            ctest_log("mtr.purgelab.release", "mtr.alone.release"),
            {"purgelab-release.xml": report(
                case("purgelab.a"), case("purgelab.rel"),
                case("purgelab.solo", "MTR_RES_SKIPPED", "")),
             "alone-release.xml": report(case("purgelab.solo"))})
        self.assertEqual(rc, 0, out)
        self.assertIn("purgelab.solo: --skip-test: runs alone, in mtr.alone",
                      out)
        self.assertIn("mtr.alone.release: mtr skipped\n  (none)", out)

    def test_alone_test_skipped_in_its_own_run_fails(self):
        rc, out = self.run_skips(
            ctest_log("mtr.alone.release"),
            {"alone-release.xml": report(
                case("purgelab.solo", "MTR_RES_SKIPPED", "Need binlog"))})
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: purgelab.solo is listed to run on release", out)

    def test_alone_test_missing_from_its_own_run_fails(self):
        rc, out = self.run_skips(
            ctest_log("mtr.alone.release"),
            {"alone-release.xml": report(case("purgelab.a"))})
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: purgelab.solo is listed to run on release "
                      "(cmake/mtr-tests.txt) but did not run", out)

    def test_missing_report_fails(self):
        rc, out = self.run_skips(ctest_log("mtr.purgelab.debug"), {})
        self.assertEqual(rc, 1, out)
        self.assertIn("no report", out)

    def test_alone_lists_a_flavours_alone_tests(self):
        with tempfile.TemporaryDirectory() as d:
            exp = os.path.join(d, "expected.txt")
            with open(exp, "w") as f:
                f.write(EXPECTED)
            for flavour, want in (("release", "purgelab.solo\n"), ("debug", "")):
                p = subprocess.run([SKIPS, "--alone", flavour, exp],
                                   capture_output=True, text=True)
                self.assertEqual((p.returncode, p.stdout), (0, want))

    def test_runs_that_ctest_did_not_run_are_not_checked(self):
        rc, out = self.run_skips(ctest_log("unit.throttle"), {})
        self.assertEqual(rc, 0, out)
        self.assertIn("ctest ran no mtr suite", out)


class MtrTestsList(unittest.TestCase):
    """cmake/mtr-tests.txt lists every test of the purgelab suite, for the
    flavours its includes allow"""

    def test_purgelab_suite_listed(self):
        listed = {}
        with open(os.path.join(REPO, "cmake", "mtr-tests.txt")) as f:
            for line in f:
                fields = line.split("#", 1)[0].split()
                if fields:
                    listed[fields[0]] = set(fields[1:]) - {"alone"}
        tdir = os.path.join(REPO, "mysql-test", "suite", "purgelab", "t")
        for name in sorted(os.listdir(tdir)):
            if not name.endswith(".test"):
                continue
            test = "purgelab." + name[:-5]
            with open(os.path.join(tdir, name)) as f:
                text = f.read()
            want = {"release", "debug"}
            if "include/have_debug.inc" in text:
                want = {"debug"}
            if "include/not_debug.inc" in text:
                want = {"release"}
            self.assertEqual(listed.get(test), want, test)


if __name__ == "__main__":
    unittest.main()
