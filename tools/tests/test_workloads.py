# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Unit tests of the harness's workloads, thread sweep, latency, headline
and progress (issue: any sysbench workload, sweeps, latency percentiles)."""

import io
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from purgebench import bench, progress, report, sysbench, workloads  # noqa: E402
from purgebench.plan import Arm  # noqa: E402
import test_purgebench as tp  # noqa: E402
from test_purgebench import fixture  # noqa: E402



class WorkloadTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="purgebench-lua-")
        self.addCleanup(shutil.rmtree, self.dir)
        for name in ("oltp_common", "oltp_insert", "oltp_write_only", "bulk_insert"):
            open(os.path.join(self.dir, name + ".lua"), "w").close()

    def test_bundled_scripts_without_the_common_one(self):
        self.assertEqual(["bulk_insert", "oltp_insert", "oltp_write_only"],
                         workloads.bundled(self.dir))

    def test_a_bundled_name_is_given_as_it_is(self):
        self.assertEqual("oltp_insert", workloads.resolve("oltp_insert", self.dir))

    def test_an_unknown_name_lists_the_choices(self):
        with self.assertRaises(workloads.WorkloadError) as e:
            workloads.resolve("oltp_upsert", self.dir)
        self.assertIn("unknown workload", str(e.exception))
        self.assertIn("bulk_insert, oltp_insert, oltp_write_only", str(e.exception))
        self.assertNotIn("oltp_common", str(e.exception))

    def test_no_scripts_at_all_says_so(self):
        with self.assertRaises(workloads.WorkloadError) as e:
            workloads.resolve("oltp_insert", os.path.join(self.dir, "none"))
        self.assertIn("is sysbench installed?", str(e.exception))

    def test_a_lua_file_is_given_by_its_absolute_path(self):
        path = os.path.join(self.dir, "mine.lua")
        open(path, "w").close()
        rel = os.path.relpath(path)
        self.assertEqual(path, workloads.resolve(rel, self.dir))
        self.assertEqual("mine", workloads.label(path))

    def test_a_missing_lua_file_is_an_error(self):
        with self.assertRaises(workloads.WorkloadError) as e:
            workloads.resolve(os.path.join(self.dir, "gone.lua"), self.dir)
        self.assertIn("no such Lua file", str(e.exception))

    def test_sb_options_pass_through(self):
        self.assertEqual("--delete_inserts=10", workloads.sb_option("delete_inserts=10"))
        self.assertEqual("--skip_trx", workloads.sb_option("skip_trx"))
        self.assertEqual("--range_size=5", workloads.sb_option("--range_size=5"))

    def test_the_row_distribution_is_uniform_unless_chosen(self):
        with mock.patch.object(sysbench, "require", return_value="sysbench"):
            plain = sysbench.command("oltp_update_non_index", "run", "/s", 5, 5000, 8,
                                     time_s=10)
            hot = sysbench.command("oltp_update_non_index", "run", "/s", 5, 5000, 8,
                                   time_s=10, extra=[workloads.sb_option("rand-type=special")])
        self.assertIn("--rand-type=uniform", plain)
        self.assertIn("--rand-type=special", hot)
        self.assertNotIn("--rand-type=uniform", hot)

    def test_sb_options_the_harness_owns_are_refused(self):
        for text, own in (("threads=8", "--threads"), ("table-size=5", "--rows"),
                          ("time=3", "--time"), ("mysql-socket=/x", None),
                          ("histogram=off", None)):
            with self.assertRaises(workloads.WorkloadError) as e:
                workloads.sb_option(text)
            if own:
                self.assertIn(own, str(e.exception))
        with self.assertRaises(workloads.WorkloadError):
            workloads.sb_option("=3")


class OptionTest(unittest.TestCase):
    def test_unknown_workload_stops_before_any_server(self):
        with mock.patch.object(bench, "Server") as server, \
                mock.patch("sys.stderr", new_callable=io.StringIO) as err:
            with self.assertRaises(SystemExit) as e:
                bench.main(["--workload", "no_such_workload", "--out", "/tmp/pb-none"])
        self.assertEqual(2, e.exception.code)
        self.assertIn("oltp_write_only", err.getvalue())
        server.assert_not_called()

    def test_workload_and_options(self):
        a = bench.parse_args(["backlog-vs-lag", "--workload", "oltp_update_index",
                              "--sb-option", "index_updates=2", "--sb-option", "skip_trx"])
        self.assertEqual("oltp_update_index", a.workload)
        self.assertEqual(["--index_updates=2", "--skip_trx"], a.sb_option)

    def test_sweep_options(self):
        a = bench.parse_args(["thread-sweep", "--sweep-threads", "1,8,64",
                              "--switch", "innodb_undo_log_compact_init=ON,OFF"])
        self.assertEqual([1, 8, 64], a.sweep_threads)
        self.assertEqual(("innodb_undo_log_compact_init", ("ON", "OFF")), a.switch)
        for bad in (["thread-sweep", "--sweep-threads", "8,1"],
                    ["thread-sweep", "--sweep-threads", "0,4"],
                    ["thread-sweep", "--switch", "x=ON"],
                    ["thread-sweep", "--switch", "x=ON,ON"],
                    ["thread-sweep", "--switch", "ON,OFF"],
                    ["backlog-vs-lag", "--sweep-threads", "1,4"]):
            with self.subTest(bad=bad), mock.patch("sys.stderr", new_callable=io.StringIO):
                with self.assertRaises(SystemExit):
                    bench.parse_args(bad)

    def test_the_default_run_is_where_writers_outrun_purge(self):
        a = bench.parse_args([])
        self.assertEqual(["history-growth", "backlog-vs-lag"], a.scenarios)
        self.assertEqual(2, a.repeats)          # medians, arms rotated
        self.assertEqual(1, bench.parse_args(["backlog-vs-lag"]).repeats)
        self.assertEqual(3, bench.parse_args(["--repeats", "3"]).repeats)
        with mock.patch("sys.stderr", new_callable=io.StringIO), self.assertRaises(SystemExit):
            bench.parse_args(["--repeats", "0"])
        self.assertEqual(256, bench.SCALE["backlog-vs-lag"]["threads"][0])
        self.assertEqual((10000,), bench.SCALE["backlog-vs-lag"]["lags"][0])


class SweepTest(unittest.TestCase):
    setUp = tp.CompareTest.setUp
    bench = tp.CompareTest.bench

    def test_arms(self):
        sw = ("innodb_undo_log_compact_init", ("ON", "OFF"))
        self.assertEqual([(Arm("innodb_undo_log_compact_init=ON"),
                           {"innodb_undo_log_compact_init": "ON"}),
                          (Arm("innodb_undo_log_compact_init=OFF"),
                           {"innodb_undo_log_compact_init": "OFF"})],
                         bench.sweep_arms(None, False, True))
        self.assertEqual([(Arm("default"), {})], bench.sweep_arms(None, True, True))
        self.assertEqual([(Arm("default"), {})], bench.sweep_arms(None, False, False))
        self.assertEqual(2, len(bench.sweep_arms(sw, True, False)))

    def test_plan_points_then_repeats_arms_rotated(self):
        runs = [("t", "ON", {}), ("t", "OFF", {})]
        plan = [(n, r, arm) for n, r, _, arm, _ in bench.sweep_plan([1, 16], runs, 2)]
        self.assertEqual([(1, 1, "ON"), (1, 1, "OFF"), (1, 2, "OFF"), (1, 2, "ON"),
                          (16, 1, "ON"), (16, 1, "OFF"), (16, 2, "OFF"), (16, 2, "ON")], plan)

    def test_one_binary_two_settings(self):
        b = self.bench("thread-sweep", "--sweep-threads", "1,4", compare=False)
        self.assertEqual(["innodb_undo_log_compact_init=ON@1", "innodb_undo_log_compact_init=OFF@1",
                          "innodb_undo_log_compact_init=ON@4", "innodb_undo_log_compact_init=OFF@4"],
                         [r["arm"] for r in b.runs])
        (title, header, rows), = b.tables()
        self.assertEqual("thread-sweep", title)
        self.assertEqual(["threads", "undo_log_compact_init=ON tps",
                          "undo_log_compact_init=ON p95 ms", "undo_log_compact_init=ON redo B/trx",
                          "undo_log_compact_init=OFF tps", "undo_log_compact_init=OFF p95 ms",
                          "undo_log_compact_init=OFF redo B/trx",
                          "undo_log_compact_init=OFF / undo_log_compact_init=ON tps"], header)
        self.assertEqual("200.0", rows[0][3])       # the fake's compact redo
        self.assertEqual(["1", "4"], [r[0] for r in rows])
        self.assertEqual("1.00", rows[0][-1])

    def test_two_servers_as_they_are(self):
        b = self.bench("thread-sweep", "--sweep-threads", "16", "--repeats", "3")
        (title, header, rows), = b.tables()
        self.assertEqual(["threads", "fork:default tps", "fork:default p95 ms",
                          "fork:default redo B/trx", "stock:default tps",
                          "stock:default p95 ms", "stock:default redo B/trx",
                          "stock:default / fork:default tps"], header)
        # A 100/90/110, B 90 by repeat: 0.90, 1.00, 0.82
        self.assertEqual(["16", "100 (90..110)", "-", "300.0", "90 (90..90)", "-", "300.0",
                          "**0.90** (red) (0.82..1.00)"], rows[0])
        (title, sentences), = bench.headline(b.runs)
        self.assertEqual(["stock:default / fork:default tps by threads: "
                          "16: **0.90** (red) (0.82..1.00)."], sentences)

    def test_max_connections_sized_for_the_largest_point(self):
        b = self.bench("thread-sweep", "--sweep-threads", "1,1024", compare=False)
        self.assertEqual(1024, b.max_threads)
        self.assertEqual(256, self.bench("history-growth", compare=False).max_threads)


def run(arm, repeat, qps, h95, lag=None, p95=10.0, server=None):
    r = dict(scenario="backlog-vs-lag", arm=arm, repeat=repeat, qps=qps, tps=qps / 10,
             history_p95=h95, lat_p95_ms=p95)
    if lag:
        r["lag"] = lag
    if server:
        r["server"] = server
    return r


class HeadlineTest(unittest.TestCase):
    def test_one_sentence_per_arm(self):
        runs = [run("unthrottled", 1, 1000, 60000), run("formula@10000", 1, 580, 120000, 10000),
                run("adaptive@10000", 1, 970, 10500, 10000, p95=40.0),
                run("unthrottled", 2, 800, 50000), run("formula@10000", 2, 480, 125000, 10000),
                run("adaptive@10000", 2, 760, 10300, 10000, p95=60.0)]
        (title, lines), = bench.headline(runs)
        self.assertEqual("backlog-vs-lag, target 10,000 (innodb_max_purge_lag)", title)
        self.assertEqual([
            "unthrottled: history p95 55,000 (5.50x the target), 900 qps, latency p95 10 ms.",
            # 0.58 and 0.60 of unthrottled, paired by repeat
            "formula@10000: history p95 12.25x the target at 0.59 of unthrottled qps, "
            "latency p95 10 ms.",
            "adaptive@10000: history p95 1.04x the target at 0.96 of unthrottled qps, "
            "latency p95 50 ms."], lines)

    def test_tpcc_compares_tpmc(self):
        runs = [dict(run("unthrottled", 1, 0, 38456), scenario="tpcc", tpmc=38606),
                dict(run("adaptive@2000", 1, 0, 1825, 2000), scenario="tpcc", tpmc=37479)]
        (title, lines), = bench.headline(runs)
        self.assertEqual("tpcc, target 2,000 (innodb_max_purge_lag)", title)
        self.assertEqual("adaptive@2000: history p95 0.91x the target at 0.97 of unthrottled "
                         "tpmC, latency p95 10 ms.", lines[1])

    def test_says_when_the_throttles_had_nothing_to_do(self):
        runs = [run("unthrottled", 1, 1000, 7894), run("adaptive@10000", 1, 1000, 7000, 10000)]
        (title, lines), = bench.headline(runs)
        self.assertIn("stayed under the target (7,894 <= 10,000)", lines[-1])

    def test_per_server_when_compared(self):
        runs = [run("fork:unthrottled", 1, 1000, 60000, server="fork"),
                run("stock:unthrottled", 1, 900, 70000, server="stock"),
                run("stock:formula@10000", 1, 500, 120000, 10000, server="stock")]
        titles = [t for t, _ in bench.headline(runs)]
        self.assertEqual(["backlog-vs-lag, target 10,000 (innodb_max_purge_lag), stock"], titles)

    def test_summary_opens_with_the_answer(self):
        out = tempfile.mkdtemp(prefix="purgebench-md-")
        self.addCleanup(shutil.rmtree, out)
        text = report.markdown(out, {"machine": "x"}, [],
                               [("backlog-vs-lag", ["arm"], [["unthrottled"]])],
                               [("backlog-vs-lag, target 10", ["adaptive: fine."])])
        self.assertLess(text.index("adaptive: fine."), text.index("## backlog-vs-lag"))
        self.assertLess(text.index("## backlog-vs-lag"), text.index("## Build, configuration"))


class ProgressTest(unittest.TestCase):
    def test_a_log_gets_one_plain_line_every_ten_seconds(self):
        out = io.StringIO()
        p = progress.Progress("backlog-vs-lag adaptive@10000 #1", 30, stream=out, live=False)
        for t in range(1, 31):
            p.update(float(t), 1234.5, 10500 if t > 1 else None, 12.5)
        p.close()
        lines = out.getvalue().splitlines()
        self.assertEqual(3, len(lines))
        self.assertNotIn("\r", out.getvalue())
        self.assertEqual("  backlog-vs-lag adaptive@10000 #1: 10/30s tps 1,234 p95 12.5 ms "
                         "history 10,500", lines[0])

    def test_a_terminal_gets_a_live_line(self):
        out = io.StringIO()
        p = progress.Progress("x", 5, stream=out, live=True)
        p.update(1.0, 10, 20, 1.0)
        p.close()
        self.assertIn("tps 10", out.getvalue())


if __name__ == "__main__":
    unittest.main()


class LatencyTest(unittest.TestCase):
    """Real sysbench 1.0.20 output with --histogram=on --report-interval=1
    --percentile=95 (fixtures/sysbench-*.txt, saved from runs against the
    fork's release build)."""

    def check(self, name):
        text = fixture(name)
        rows = sysbench.parse_histogram(text)
        self.assertTrue(rows)
        summary = sysbench.parse_summary(text)
        # every transaction is in the histogram once
        self.assertEqual(summary["transactions"], sum(c for _, c in rows))
        self.assertEqual(sorted(rows), rows)
        lat = sysbench.latency(text)
        # sysbench's own 95th percentile comes from the same histogram (the
        # summary prints 2 decimals, the histogram 3)
        self.assertEqual(summary["lat_pct_ms"], round(lat["lat_p95_ms"], 2))
        self.assertEqual(summary["lat_max"], lat["lat_max_ms"])
        self.assertLessEqual(lat["lat_p50_ms"], lat["lat_p95_ms"])
        self.assertLessEqual(lat["lat_p95_ms"], lat["lat_p99_ms"])
        self.assertLessEqual(summary["lat_min"], lat["lat_p50_ms"])
        intervals = [iv for iv in map(sysbench.parse_interval, text.splitlines()) if iv]
        self.assertTrue(intervals)
        self.assertTrue(all(iv["lat_pct"] == 95 for iv in intervals))
        return lat

    def test_update_non_index(self):
        self.check("sysbench-oltp_update_non_index.txt")

    def test_write_only_256_threads(self):
        self.check("sysbench-oltp_write_only-256.txt")

    def test_percentile_of_buckets(self):
        rows = [(1.0, 50), (2.0, 45), (5.0, 4), (9.0, 1)]
        self.assertEqual(1.0, sysbench.histogram_percentile(rows, 50))
        self.assertEqual(2.0, sysbench.histogram_percentile(rows, 95))
        self.assertEqual(5.0, sysbench.histogram_percentile(rows, 99))
        self.assertEqual(9.0, sysbench.histogram_percentile(rows, 100))
        self.assertIsNone(sysbench.histogram_percentile([], 50))

    def test_no_histogram(self):
        self.assertEqual([], sysbench.parse_histogram("SQL statistics:\n"))
        lat = sysbench.latency("nothing")
        self.assertEqual({"lat_p50_ms": None, "lat_p95_ms": None, "lat_p99_ms": None,
                          "lat_max_ms": None}, lat)
