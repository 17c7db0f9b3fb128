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

"""The harness fails loudly and early: options checked before set-up and
the build (BUILD/run), numbers that make no sense refused, options a
scenario ignores noted, failed runs named and the exit status non-zero."""

import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench  # noqa: E402
from purgebench.server import ServerError  # noqa: E402
import test_purgebench as tp  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_error(argv):
    """parse_args(argv)'s error message (it must fail)."""
    err = io.StringIO()
    with mock.patch("sys.stderr", err):
        try:
            bench.parse_args(argv)
        except SystemExit as e:
            assert e.code == 2, e.code
            return err.getvalue().splitlines()[-1]
    raise AssertionError(f"{argv} was accepted")


class BuildRunTest(unittest.TestCase):
    """BUILD/run as it is, in a copy of the tree whose BUILD/setup and
    BUILD/build only say that they ran."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-run-")
        self.addCleanup(shutil.rmtree, self.tmp)
        os.makedirs(os.path.join(self.tmp, "BUILD"))
        for f in ("run", "common.sh"):
            shutil.copy(os.path.join(REPO, "BUILD", f), os.path.join(self.tmp, "BUILD", f))
        for f in ("setup", "build"):
            path = os.path.join(self.tmp, "BUILD", f)
            with open(path, "w") as fh:
                fh.write(f"#!/bin/sh\necho FAKE-{f.upper()} \"$@\"\n")
            os.chmod(path, 0o755)
        os.symlink(os.path.join(REPO, "tools"), os.path.join(self.tmp, "tools"))

    def run_it(self, *argv):
        t0 = time.time()
        out = subprocess.run([os.path.join(self.tmp, "BUILD", "run")] + list(argv),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             cwd=self.tmp, timeout=60)
        return out.returncode, out.stdout, time.time() - t0

    def test_a_wrong_option_fails_before_set_up_and_the_build(self):
        for argv, names in ((["--no-such-option"], "--no-such-option"),
                            (["--threads", "0"], "--threads"),
                            (["backlog-vs-lag", "--time", "-5"], "--time"),
                            (["--option", "foo"], "--option"),
                            (["history-growth", "--lags", "1000"], "--lags"),
                            (["compare", "onlyone"], "DIR_B")):
            with self.subTest(argv=argv):
                rc, out, took = self.run_it(*argv)
                self.assertEqual(2, rc, out)
                self.assertIn(names, out)
                self.assertNotIn("FAKE-SETUP", out)
                self.assertNotIn("FAKE-BUILD", out)
                self.assertLess(took, 10)

    def test_good_options_are_checked_then_set_up_and_build_run(self):
        rc, out, _ = self.run_it("--threads", "8", "--out", os.path.join(self.tmp, "r"))
        # the note comes from the check, before set-up; the run itself then
        # fails for want of a server binary in this copy of the tree
        note = "history-growth ignores --threads"
        self.assertIn(note, out)
        self.assertLess(out.index(note), out.index("FAKE-SETUP"))
        self.assertLess(out.index("FAKE-SETUP"), out.index("FAKE-BUILD release"))
        self.assertIn("no server binary", out)
        self.assertEqual(1, rc)


    def test_help_is_printed_once_and_nothing_runs(self):
        for argv, head in ((["--help"], "usage: purgebench "),
                           (["compare", "--help"], "usage: purgebench compare")):
            with self.subTest(argv=argv):
                rc, out, _ = self.run_it(*argv)
                self.assertEqual(0, rc)
                self.assertEqual(1, out.count(head), out)
                self.assertNotIn("FAKE-", out)

    def test_the_server_that_the_build_makes_is_not_asked_for_before_it(self):
        rc, out, _ = self.run_it("--server", os.path.join(self.tmp, "build", "release", "sql",
                                                          "no-mariadbd-yet"),
                                 "--out", os.path.join(self.tmp, "r"))
        self.assertIn("FAKE-BUILD release", out)

    def test_attach_mode_sets_up_but_builds_nothing(self):
        pw = os.path.join(self.tmp, "pw")
        with open(pw, "w") as f:
            f.write("x\n")
        rc, out, _ = self.run_it("backlog-vs-lag", "--host", "127.0.0.1", "--port", "1",
                                 "--password-file", pw, "--out", os.path.join(self.tmp, "r"))
        self.assertIn("FAKE-SETUP", out)
        self.assertNotIn("FAKE-BUILD", out)
        self.assertIn("cannot connect to 127.0.0.1:1 as root", out)   # nothing listens there
        self.assertNotIn("Traceback", out)
        self.assertEqual(1, rc)


class NumbersTest(unittest.TestCase):
    def test_zero_and_negative_are_refused_naming_the_option(self):
        for opt in ("--time", "--threads", "--tables", "--rows", "--repeats", "--warehouses",
                    "--check-time", "--ac-threads"):
            for bad in ("0", "-1", "x"):
                with self.subTest(opt=opt, bad=bad):
                    sc = {"--warehouses": "tpcc", "--check-time": "tpcc",
                          "--ac-threads": "ch"}.get(opt, "backlog-vs-lag")
                    msg = parse_error([sc, opt, bad])
                    self.assertIn(f"argument {opt}: '{bad}'", msg)

    def test_given_numbers_are_kept(self):
        a = bench.parse_args(["backlog-vs-lag", "--time", "7", "--threads", "3", "--tables",
                              "2", "--rows", "10"])
        self.assertEqual((7, 3, 2, 10), (a.time, a.threads, a.tables, a.rows))

    def test_option_needs_var_equals_value(self):
        self.assertIn("give VAR=VALUE", parse_error(["--option", "foo"]))
        self.assertIn("give VAR=VALUE", parse_error(["--option", "=1"]))
        a = bench.parse_args(["--option", "innodb_purge_threads=8", "--option", "x-y = 1"])
        self.assertEqual([("innodb_purge_threads", "8"), ("x-y", "1")], a.option)

    def test_sb_option_errors_are_messages(self):
        self.assertIn("give KEY=VALUE", parse_error(["--sb-option", "=3"]))
        self.assertIn("the harness sets --threads itself",
                      parse_error(["--sb-option", "threads=4"]))


class IgnoredOptionTest(unittest.TestCase):
    def test_a_scenario_that_ignores_an_option_says_so(self):
        a = bench.parse_args(["--threads", "8"])       # history-growth backlog-vs-lag
        self.assertEqual(["note: history-growth ignores --threads (it runs its own thread "
                          "counts)"], a.notes)
        a = bench.parse_args(["thread-sweep", "backlog-vs-lag", "--threads", "8"])
        self.assertEqual(["note: thread-sweep ignores --threads (its thread counts are "
                          "--sweep-threads')"], a.notes)
        a = bench.parse_args(["tpcc", "backlog-vs-lag", "--rows", "100", "--warehouses", "1"])
        self.assertIn("note: tpcc ignores --rows (its data is --warehouses')", a.notes)
        self.assertIn("note: backlog-vs-lag ignores --warehouses", a.notes)
        a = bench.parse_args(["insert-benchmark", "backlog-vs-lag", "--sb-option",
                              "ib_data_max=10", "--sb-option", "index_updates=2"])
        self.assertEqual(["note: insert-benchmark ignores --sb-option index_updates=2",
                          "note: backlog-vs-lag ignores --sb-option ib_data_max=10"],
                         a.notes)
        self.assertEqual([], bench.parse_args(["backlog-vs-lag", "--threads", "8"]).notes)

    def test_an_option_no_scenario_uses_is_an_error(self):
        self.assertIn("--rates is used only by purge-capacity",
                      parse_error(["history-growth", "--rates", "100"]))
        self.assertIn("--arms is used only by",
                      parse_error(["thread-sweep", "--arms", "adaptive"]))
        self.assertIn("only insert-benchmark pass(es) it",
                      parse_error(["backlog-vs-lag", "--sb-option", "ib_data_max=10"]))

    def test_check_args_prints_the_notes_and_exits(self):
        err = io.StringIO()
        with mock.patch("sys.stderr", err):
            self.assertEqual(0, bench.main(["--check-args", "--threads", "8"]))
        self.assertIn("purgebench: note: history-growth ignores --threads", err.getvalue())
        with mock.patch("sys.stderr", err), self.assertRaises(SystemExit):
            bench.main(["--check-args", "compare", "a"])
        with mock.patch("sys.stderr", err), self.assertRaises(SystemExit):
            bench.main(["--check-args", "--server", "/no/such/mariadbd"])
        self.assertIn("--server /no/such/mariadbd: no such executable", err.getvalue())


class FailingBench(tp.FakeBench):
    """FakeBench's runs through the real run_arm(): the arms in `fail`
    raise as a client or a server would."""
    fail = {}       # arm -> the error its runs raise
    run_arm = bench.Bench.run_arm

    def measure(self, t, scenario, arm, settings, *args, **kw):
        if str(arm) in self.fail:
            self.use(t)
            raise self.fail[str(arm)]
        return tp.FakeBench.run_arm(self, t, scenario, arm, settings, *args, **kw)


class FailedRunTest(unittest.TestCase):
    setUp = tp.CompareTest.setUp
    bench = tp.CompareTest.bench

    def test_a_failed_run_is_named_and_the_others_go_on(self):
        FailingBench.fail = {"formula@1000": bench.sysbench.SysbenchError(
            "sysbench exited with 1:\nFATAL: mysql_stmt_prepare() failed")}
        b = self.bench("backlog-vs-lag", "--lags", "1000", "--repeats", "2", compare=False,
                       cls=FailingBench)
        self.assertEqual(["unthrottled", "adaptive@1000", "adaptive@1000", "unthrottled"],
                         [r["arm"] for r in b.runs])
        self.assertEqual([("formula@1000", 1), ("formula@1000", 2)],
                         [(f["arm"], f["repeat"]) for f in b.failures])
        with mock.patch("builtins.print"), \
                mock.patch.object(bench.report, "plots", return_value=[]):
            text = b.finish()
        top = text.split("**backlog-vs-lag", 1)[0]
        self.assertIn("**Failed runs**", top)
        self.assertIn("- backlog-vs-lag formula@1000 #1: sysbench exited with 1:", top)
        self.assertTrue(os.path.exists(os.path.join(b.outdir, "failed-runs.json")))

    def test_runs_failing_in_a_row_stop_the_invocation(self):
        FailingBench.fail = {a: ServerError("mariadbd exited with code 1 at start")
                             for a in ("unthrottled", "formula@1000", "adaptive@1000")}
        with self.assertRaises(bench.GiveUp):
            self.bench("backlog-vs-lag", "--lags", "1000", compare=False, cls=FailingBench)

    def test_main_exits_non_zero_when_a_run_failed(self):
        FailingBench.fail = {"adaptive@1000": ServerError("query failed: SET GLOBAL x")}
        out = os.path.join(self.tmp, "main")
        argv = ["backlog-vs-lag", "--lags", "1000", "--server", self.fork, "--out", out]
        with mock.patch.object(bench, "Bench", FailingBench), \
                mock.patch.object(bench.sysbench, "require"), \
                mock.patch.object(bench.report, "plots", return_value=[]), \
                mock.patch("builtins.print"), mock.patch("sys.stderr", io.StringIO()):
            rc = bench.main(argv)
        self.assertEqual(1, rc)
        with open(os.path.join(out, "summary.md")) as f:
            text = f.read()
        self.assertTrue(text.startswith("# purgebench report\n\n**Failed runs**"), text[:200])
        self.assertIn("backlog-vs-lag adaptive@1000 #1: query failed: SET GLOBAL x", text)
        # the command line and the harness's commit, in environment.json too
        import json
        with open(os.path.join(out, "environment.json")) as f:
            env = json.load(f)
        self.assertEqual("purgebench " + " ".join(argv), env["purgebench command"])
        self.assertRegex(env["purgebench's git commit"], r"^[0-9a-f]{40}")


class TreeCommitTest(unittest.TestCase):
    def test_the_commit_the_changes_and_the_binary_time(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)

        def git(*a):
            subprocess.run(["git", "-C", tmp, "-c", "user.name=t", "-c", "user.email=t@t"]
                           + list(a), check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        git("init", "-q")
        with open(os.path.join(tmp, "f"), "w") as f:
            f.write("1\n")
        git("add", "f")
        git("commit", "-q", "-m", "one", "--date=2020-01-01T00:00:00")
        head = subprocess.run(["git", "-C", tmp, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                              text=True).stdout.strip()
        os.makedirs(os.path.join(tmp, "build"))
        binary = os.path.join(tmp, "build", "mariadbd")
        open(binary, "w").close()
        got = bench.tree_commit(binary)
        self.assertTrue(got.startswith(head + "; binary built "), got)
        self.assertTrue(got.endswith("after that commit"), got)
        os.utime(binary, (0, 0))        # 1970: before the commit
        self.assertTrue(bench.tree_commit(binary).endswith("BEFORE that commit"))
        with open(os.path.join(tmp, "f"), "w") as f:
            f.write("2\n")
        self.assertEqual(head + " + uncommitted changes", bench.tree_commit(tmp))
        self.assertIsNone(bench.tree_commit(tempfile.gettempdir()))


class CompareInsertBenchmarkTest(unittest.TestCase):
    """purgebench compare on saved Insert Benchmark results (two steps per
    arm of docs/results/ib-fork-vs-stock and -r2, runs.json as recorded):
    inserts/s and queries/s are in each run's ib_row."""
    A = os.path.join(tp.FIXTURES, "results", "ib-fork-vs-stock")
    B = os.path.join(tp.FIXTURES, "results", "ib-fork-vs-stock-r2")

    def test_inserts_and_queries_per_second_are_compared(self):
        from purgebench import compare
        a, b = compare.load(self.A, "A"), compare.load(self.B, "B")
        arms, _ = compare.plan(a, b)
        (rel_title, header, rows), (_, abs_header, abs_rows) = compare.tables(a, b, arms)
        self.assertEqual("insert-benchmark: B over A", rel_title)
        self.assertIn("inserts/s", header)
        self.assertIn("queries/s", header)
        self.assertNotIn("tps", header)         # the script's events, not its rows
        by = {r[0]: r for r in abs_rows}
        ins, q = abs_header.index("inserts/s"), abs_header.index("queries/s")
        # A's one run; B's median of its two repeats (32,084.7 and 29,409.6)
        self.assertEqual("30,347 → 30,747", by["fork:unthrottled@l.i1"][ins])
        self.assertEqual("- → -", by["fork:unthrottled@l.i1"][q])
        self.assertEqual("62,969 → 61,350", by["fork:unthrottled@qr100"][q])
        rel = {r[0]: r for r in rows}
        self.assertEqual("**0.83** (red)", rel["stock-10.11.18:unthrottled@qr100"][
            header.index("queries/s")])
        lines = dict(compare.headline(a, b, arms))["insert-benchmark"]
        self.assertIn("fork:unthrottled@l.i1: inserts/s 1.01x, history p95 0.84x, "
                      "latency p95 1.01x (B over A)", lines)
        self.assertIn("stock-10.11.18:unthrottled@qr100: queries/s 0.83x, history p95 "
                      "1.00x, latency p95 0.90x (B over A)", lines)


if __name__ == "__main__":
    unittest.main()
