# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Unit tests of the scenario insert-benchmark in bench.py (issue 20),
without a server: the steps of each arm planned through Bench, arms
rotated per repeat, the tables and their colouring, the writers' rate,
the options and counters run_arm() passes on, the report's plot."""

import io
import os
import sys
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from purgebench import bench, insertbench as ib, report, scenarios, sysbench  # noqa: E402
from purgebench.plan import Arm  # noqa: E402
import test_purgebench as tp  # noqa: E402
from test_insertbench import line  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def counters(**kw):
    """test_insertbench.line() with nothing done yet in 10 s."""
    return line(**dict(dict(readers=0, target_rate=0, inserted=0, deleted=0, commits=0,
                            events=0, seconds="10.000", event_max_ms="3.000",
                            event_avg_ms="1.000"), **kw))


def fake_output(options, threads, rows, seconds, speed, writers_keep_up=True):
    """What the script would print for one step, from its options: writers
    insert 1000 x speed rows/s unpaced, or their rate (half of it when they
    do not keep up); readers query 500 x speed a second."""
    o = dict(opt[2:].split("=", 1) for opt in options)
    kind, writers, k = o["ib_step"], int(o["ib_writers"]), int(o["ib_rows_per_commit"])
    rate = float(o["ib_writer_rate"])
    if kind == "index":
        return counters(step="index", role="indexer", writers=0, readers=0, queries=1,
                        seconds=f"{rows / (1000 * speed):.3f}")
    readers = threads - writers if kind == "query" else 0
    lines = []
    for w in range(writers):
        if kind == "query":
            secs = float(seconds)
            n = int(rate * secs * (1 if writers_keep_up else 0.5))
        else:
            n = (rows if kind == "load" else int(o["ib_rows"])) // writers
            secs = n * writers / (1000 * speed)
        lines.append(counters(step=kind, thread=w, writers=writers, readers=readers,
                              rows_per_commit=k, target_rate=f"{rate:g}", inserted=n,
                              deleted=0 if kind == "load" else n, events=n // k,
                              seconds=f"{secs:.3f}"))
    for i in range(readers):
        q = int(500 * speed * float(seconds))
        lines.append(counters(step=kind, thread=writers + i, role="reader", writers=writers,
                              readers=readers, rows_per_commit=k, queries=q, events=q,
                              seconds=f"{float(seconds):.3f}"))
    return "sysbench 1.0.20\n" + "\n".join(lines) + "\n"


class IBBench(tp.FakeBench):
    """The real insert_benchmark(), ib_step(), plan(), rotate(), tables();
    run_arm() prepares the table as the real one does (sysbench.prepare
    mocked) and makes the script's output from the step's options for the
    parse() it is given. A's server is faster than B's; adaptive runs at
    0.9 of unthrottled; formula's writers fall behind their rate."""
    speed = {"A": 1.0, "B": 0.8}
    arm_speed = {"unthrottled": 1.0, "formula": 1.0, "adaptive": 0.9}

    def run_arm(self, t, scenario, arm, settings, test, tables, rows, threads, seconds,
                repeat, rate=None, extra=None, options=(), parse=None):
        srv = self.use(t)
        self.ensure_tables(t, test, tables, rows)
        for var in settings:
            assert self.has_var(t, var), (t.label, arm, var)
        name = arm.name
        speed = self.speed["A" if t is self.targets[0] else "B"] * self.arm_speed[name]
        text = fake_output(options, threads, rows, seconds, speed,
                           writers_keep_up=name != "formula")
        samples = [{"t": float(i), "innodb_history_list_length": 100 * i,
                    "innodb_lsn_current": 1000 * i} for i in range(5)]
        res = dict(scenario=scenario, arm=str(t.arm(arm)), repeat=repeat, threads=threads,
                   seconds=seconds, rate=rate, settings=settings, tps=100.0, qps=200.0,
                   test=test, tables=tables, rows=rows, options=list(options),
                   lat_p99_ms=2.0, lat_max_ms=20.0, history_p95=380, history_max=400,
                   redo_bytes=4000, server_cpu_s=1.5, backlog=0,
                   samples=samples, intervals=[{"t": float(i), "tps": 50.0, "lat_ms": 1.0}
                                               for i in range(1, 5)],
                   **parse(text))
        srv.shutdown(slow=True)
        return self.keep(t, res, extra)


class BenchTest(unittest.TestCase):
    setUp = tp.CompareTest.setUp

    def bench(self, *argv, compare=False):
        self.prepared = []
        with mock.patch.object(bench.sysbench, "prepare",
                               side_effect=lambda *a, **kw: self.prepared.append((a, kw))
                               or ["sysbench", "prepare"]):
            return tp.CompareTest.bench(self, "insert-benchmark", "--rows", "10000", "--time",
                                        "3", "--lags", "1000", *argv, compare=compare,
                                        cls=IBBench)

    def test_every_step_of_each_arm_then_the_next_arm_rotated_per_repeat(self):
        b = self.bench("--repeats", "2")
        arms = ["unthrottled", "formula@1000", "adaptive@1000"]
        want = [(f"{arm}@{step}", r) for r, order in ((1, arms), (2, arms[1:] + arms[:1]))
                for arm in order for step in ib.STEPS]
        self.assertEqual(want, [(r["arm"], r["repeat"]) for r in b.runs])
        self.assertEqual(list(ib.STEPS) * 6, [r["ib_step"] for r in b.runs])
        # a fresh table for each arm, shared by its steps
        self.assertEqual(6, len(self.prepared))
        (socket, test, tables, rows), kw = self.prepared[0]
        self.assertEqual((ib.LUA, 1, 10000, []), (test, tables, rows, kw["extra"]))
        self.assertEqual([], tp.FakeServer.up)

    def test_arms_like_backlog_vs_lag(self):
        b = self.bench()
        settings = {r["arm"].rpartition("@")[0]: r["settings"] for r in b.runs}
        # on the fork the unthrottled arm names the formula mode, so that it
        # does not depend on the default (adaptive, which also acts only
        # with a lag)
        self.assertEqual({"innodb_max_purge_lag": 0, "innodb_purge_throttle": "formula"},
                         settings["unthrottled"])
        self.assertEqual({"innodb_max_purge_lag": 1000, "innodb_max_purge_lag_delay": 5000,
                          "innodb_purge_throttle": "adaptive"}, settings["adaptive@1000"])
        self.assertEqual("ON", settings["formula@1000"]["innodb_purge_coupled_throttle"])
        self.assertEqual({None, 1000}, {r.get("lag") for r in b.runs})
        b = self.bench("--arms", "adaptive", "--lags", "500,2000")
        self.assertEqual(["unthrottled", "adaptive@500", "adaptive@2000"],
                         list(dict.fromkeys(r["arm"].rpartition("@")[0] for r in b.runs)))

    def test_each_step_runs_with_its_own_options(self):
        b = self.bench("--threads", "3", "--rows", "20000")
        by = {r["arm"]: r for r in b.runs}
        for step in ib.plan_steps(table_rows=20000, query_seconds=3, writers=3):
            r = by[f"unthrottled@{step['name']}"]
            self.assertEqual(ib.sysbench_options(step), r["options"])
            self.assertEqual((ib.LUA, 1, 20000), (r["test"], r["tables"], r["rows"]))
            self.assertEqual((step["threads"], step["time_limit"]), (r["threads"], r["seconds"]))
        self.assertEqual(1, by["unthrottled@l.x"]["threads"])
        self.assertEqual(6, by["unthrottled@qp500"]["threads"])     # 3 writers, 3 readers
        self.assertEqual(3, by["unthrottled@qp500"]["seconds"])
        self.assertIn("--ib_rows=8000", by["unthrottled@l.i1"]["options"])  # 40% of 20000
        self.assertIn("--ib_rows=2000", by["unthrottled@l.i2"]["options"])  # 10%

    def test_a_stock_server_runs_unthrottled_and_formula(self):
        b = self.bench(compare=True)
        self.assertEqual(["fork:unthrottled", "stock:unthrottled", "fork:formula@1000",
                          "stock:formula@1000", "fork:adaptive@1000"],
                         list(dict.fromkeys(r["arm"].rpartition("@")[0] for r in b.runs)))
        self.assertEqual({"innodb_max_purge_lag": 1000, "innodb_max_purge_lag_delay": 5000},
                         next(r["settings"] for r in b.runs
                              if r["arm"] == "stock:formula@1000@l.i0"))
        # each server's steps of an arm together, one server up at a time
        self.assertEqual(["fork"] * 10 + ["stock"] * 10, [r["server"] for r in b.runs[:20]])

    def test_the_tables_and_their_colours(self):
        b = self.bench()
        tables = b.tables()
        self.assertEqual(["insert-benchmark: per step",
                          "insert-benchmark: relative to unthrottled (queries/s in qr/qp, "
                          "inserts/s in l.i0, l.i1, l.i2, rows indexed/s in l.x)"],
                         [title for title, _, _ in tables])
        (_, header, rows), (_, rel_header, rel_rows) = tables
        self.assertEqual(30, len(rows))
        self.assertEqual(["l.i0", "unthrottled"], rows[0][:2])
        cells = dict(zip(header, rows[0]))
        self.assertEqual("1,000", cells["inserts/s (l.x: rows indexed/s)"])
        self.assertEqual("2 / 20", cells["latency ms p99 / max"])
        self.assertEqual(("380", "400"), (cells["history p95"], cells["history max"]))
        self.assertEqual("0", cells["redo bytes per inserted row"])    # 4,000 B / 10,000 rows
        self.assertEqual("150.0", cells["server CPU µs/op"])            # 1.5 s / 10,000 rows
        self.assertEqual(["step", "formula@1000 / unthrottled", "adaptive@1000 / unthrottled"],
                         rel_header)
        self.assertEqual(list(ib.STEPS), [r[0] for r in rel_rows])
        # adaptive at 0.9: red in every step; formula's throughput the same
        self.assertEqual([["1.00", "**0.90** (red)"]] * 10, [r[1:] for r in rel_rows])

    def test_the_writers_rate(self):
        b = self.bench()
        by = {(r[0], r[1]): dict(zip(b.tables()[0][1], r)) for r in b.tables()[0][2]}
        # 2 writers at 100 rows/s each for 3 s (formula's at half of it)
        self.assertEqual("sustained (200 of 200 rows/s)", by[("qr100", "unthrottled")]["writers"])
        self.assertEqual("not sustained (100 of 200 rows/s)",
                         by[("qr100", "formula@1000")]["writers"])
        self.assertEqual("sustained (2,000 of 2,000 rows/s)",
                         by[("qp1000", "adaptive@1000")]["writers"])
        self.assertEqual("unpaced", by[("l.i1", "unthrottled")]["writers"])
        row = next(r["ib_row"] for r in b.runs if r["arm"] == "formula@1000@qp500")
        # the rate is per writer, the achieved rate all writers' together
        self.assertEqual(("not sustained", 500.0, 500.0),
                         (row["sustained"], row["achieved_rate"], row["target_rate"]))

    def test_two_servers_each_arm_against_the_same_arm(self):
        b = self.bench(compare=True)
        titles = [title for title, _, _ in b.tables()]
        self.assertIn("insert-benchmark: relative to fork:unthrottled", titles[1])
        (title, header, rows) = b.tables()[2]
        self.assertTrue(title.startswith("insert-benchmark: each arm against the same arm on "
                                         "the other server"), title)
        self.assertEqual(["step", "stock:unthrottled / fork:unthrottled",
                          "stock:formula@1000 / fork:formula@1000"], header)
        self.assertEqual(["l.i0", "**0.80** (red)", "**0.80** (red)"], rows[0])

    def test_the_report(self):
        b = self.bench("--repeats", "2")
        text = b.finish()
        self.assertIn("## insert-benchmark: per step (medians of 2 repeats)", text)
        self.assertIn("| qp1000 | adaptive@1000 |", text)
        self.assertIn("![insert-benchmark.png](insert-benchmark.png)", text)
        self.assertTrue(os.path.getsize(os.path.join(b.outdir, "insert-benchmark.png")))
        self.assertFalse(os.path.exists(os.path.join(b.outdir,
                                                     "insert-benchmark-history-tps.png")))
        # report.html beside summary.md, the plot beside it linked
        with open(os.path.join(b.outdir, "report.html")) as f:
            page = f.read()
        self.assertIn("insert-benchmark: per step (medians of 2 repeats)</h2>", page)
        self.assertIn('<img class="plot" src="insert-benchmark.png"', page)
        self.assertTrue(os.path.isfile(os.path.join(b.outdir, "report.json")))
        # runs.json keeps each step's counters and row: the plot can be drawn again
        self.assertEqual(["insert-benchmark.png"], report.replot(b.outdir))


class OptionTest(unittest.TestCase):
    def test_rows_time_and_threads_size_the_plan(self):
        a = bench.parse_args(["insert-benchmark", "--rows", "10000", "--time", "3",
                              "--threads", "1"])
        plan = {s["name"]: s for s in scenarios.ib_plan(a)}
        self.assertEqual(10000, plan["l.i0"]["table_rows"])
        self.assertEqual((4000, 1000), (plan["l.i1"]["rows"], plan["l.i2"]["rows"]))
        self.assertEqual((3, 2, 1, 1), tuple(plan["qp1000"][k] for k in (
            "seconds", "threads", "writers", "readers")))
        default = {s["name"]: s for s in scenarios.ib_plan(bench.parse_args(["insert-benchmark"]))}
        self.assertEqual(ib.SIZES[False]["table_rows"], default["l.i0"]["rows"])
        self.assertEqual(2, default["l.i1"]["writers"])

    def test_a_table_too_small_for_the_plan_stops_before_any_server(self):
        with mock.patch("sys.stderr", new_callable=io.StringIO) as err, \
                self.assertRaises(SystemExit):
            bench.parse_args(["insert-benchmark", "--rows", "2000", "--time", "3"])
        self.assertIn("raise --rows, or lower --time or --threads", err.getvalue())
        # other scenarios do not plan it
        bench.parse_args(["backlog-vs-lag", "--rows", "2000", "--time", "3"])

    def test_the_scripts_options(self):
        with mock.patch("sys.stderr", new_callable=io.StringIO) as err, \
                self.assertRaises(SystemExit):
            bench.parse_args(["insert-benchmark", "--sb-option", "ib_writer_rate=5"])
        self.assertIn("sets --ib_writer_rate for each insert-benchmark step", err.getvalue())
        a = bench.parse_args(["insert-benchmark", "backlog-vs-lag", "--sb-option",
                              "ib_data_max=100", "--sb-option", "index_updates=2"])
        b = bench.Bench.__new__(bench.Bench)
        b.sb_extra = list(a.sb_option)
        self.assertEqual(["--ib_data_max=100"], b.sb_for(ib.LUA))
        self.assertEqual(["--index_updates=2"], b.sb_for("oltp_write_only"))

    def test_a_scenario_of_all(self):
        self.assertIn("insert-benchmark", bench.parse_args(["all"]).scenarios)
        self.assertNotIn("insert-benchmark", bench.parse_args([]).scenarios)


class StepServer(tp.FakeServer):
    """A FakeServer enough for the real run_arm(): its process is this one
    (for its CPU time), shutdowns and the error log do nothing."""

    def start(self):
        super().start()
        self.proc = mock.Mock(pid=os.getpid())

    def prepare_slow_shutdown(self):
        pass

    def signal_shutdown(self):
        pass

    def shutdown_log(self):
        return dict(to_purge=0, log_s=None, lsn=None)

    def shutdown_status(self):
        return None


class FakeSampler:
    def __init__(self, socket, on_sample=None):
        self.cpu_s, self.errors, self.final = 0.01, 0, None
        self.t0 = time.time()

    def sample(self):
        return {"innodb_lsn_current": 1000, "trx_id_counter": 10,
                "innodb_history_list_length": 0}

    def start(self):
        pass

    def stop(self, final=False):
        # the last sample a second ago; the LSN when the load stopped a bit higher
        if final:
            self.final = dict(self.sample(), innodb_lsn_current=1000 + 500 * 2000)
        return [{"t": 1.0, "innodb_lsn_current": 1000 + 400 * 2000, "trx_id_counter": 30,
                 "innodb_history_list_length": 7}]


class FakeRun:
    """sysbench.Run: the fixture's output, saved from a real query step."""
    commands = []

    def __init__(self, cmd, on_interval=None, on_exit=None):
        FakeRun.commands.append(cmd)
        with open(os.path.join(FIXTURES, "insertbench-counters.txt")) as f:
            self.text = f.read().splitlines(keepends=True)
        self.intervals = [iv for iv in map(sysbench.parse_interval, self.text) if iv]
        self.on_exit = on_exit

    def pump(self):
        sum(i * i for i in range(100000))      # some CPU time of "the server"
        self.on_exit()
        return sysbench.parse_summary("".join(self.text))

    def latency(self):
        return sysbench.latency("".join(self.text))

    def extra(self):
        return {}

    def stop(self):
        pass


class RunArmTest(unittest.TestCase):
    """The real run_arm() and ib_step(): what they hand sysbench and what
    they add to the result."""

    def setUp(self):
        tp.CompareTest.setUp(self)
        FakeRun.commands = []
        self.prepared = []
        for p in (mock.patch.object(bench, "Server", StepServer),
                  mock.patch.object(bench.sampler, "Sampler", FakeSampler),
                  mock.patch.object(bench.sysbench, "Run", FakeRun),
                  mock.patch.object(bench.sysbench, "require", return_value="sysbench"),
                  mock.patch.object(bench.sysbench, "prepare",
                                    side_effect=lambda *a, **kw:
                                    self.prepared.append(kw["extra"]) or ["prepare"])):
            p.start()
            self.addCleanup(p.stop)

    def step(self, *argv):
        argv = ["insert-benchmark", "--server", self.fork, "--out",
                os.path.join(self.tmp, "out"), "--rows", "10000", "--time", "3"] + list(argv)
        b = bench.Bench(bench.parse_args(argv))
        t = b.targets[0]
        plan = {s["name"]: s for s in scenarios.ib_plan(b.args)}
        with mock.patch("builtins.print"):
            b.start_all()
            sbtest = os.path.join(t.server.datadir, "sbtest")
            os.makedirs(sbtest)
            with open(os.path.join(sbtest, "ib1.ibd"), "wb") as f:
                f.write(b"x" * 4096)
            with open(os.path.join(t.server.datadir, "ibdata1"), "wb") as f:
                f.write(b"x" * 1024)
            un = Arm("unthrottled")
            first = b.ib_step(t, un, {"innodb_max_purge_lag": 0}, plan["qr1000"], 1)
            second = b.ib_step(t, un, {"innodb_max_purge_lag": 0}, plan["qp1000"], 1)
            b.stop()
        return first, second

    def test_the_steps_options_go_to_the_run_not_to_the_prepare(self):
        self.step("--sb-option", "ib_data_max=100")
        self.assertEqual([["--ib_data_max=100"]], self.prepared)   # once for both steps
        run = FakeRun.commands[0]
        for opt in ("--ib_data_max=100", "--ib_step=query", "--ib_query=range",
                    "--ib_writer_rate=1000", "--threads=4", "--time=3", "--tables=1",
                    "--table-size=10000"):
            self.assertIn(opt, run)
        self.assertIn("--ib_query=point", FakeRun.commands[1])
        self.assertEqual(ib.LUA, run[1])

    def test_what_a_step_adds_to_its_result(self):
        res, _ = self.step()
        self.assertEqual(500 * 2000, res["redo_bytes"])         # LSN under load
        self.assertGreaterEqual(res["server_cpu_s"], 0.0)
        self.assertEqual(("query", 2, 2), (res["ib"]["step"], res["ib"]["writers"],
                                           res["ib"]["readers"]))
        self.assertEqual((4096 + 1024, 4096), (res["db_bytes"], res["table_bytes"]))
        self.assertEqual("qr1000", res["ib_step"])
        row = res["ib_row"]
        self.assertEqual(("qr1000", "unthrottled"), (row["step"], row["arm"]))
        self.assertAlmostEqual(500 * 2000 / res["ib"]["rows_inserted"], row["redo_bytes_per_row"])
        self.assertEqual(res["ib"]["queries"], row["ops"])
        self.assertIn(row["sustained"], ("sustained", "not sustained"))
        self.assertEqual(("unthrottled@qr1000", 1), (res["arm"], res["repeat"]))
        out = os.path.join(self.tmp, "out", "client-output",
                           "insert-benchmark-unthrottled@qr1000-1.txt")
        self.assertTrue(os.path.getsize(out))

    def test_other_scenarios_runs_are_unchanged_but_for_cpu_and_redo(self):
        b = bench.Bench(bench.parse_args(["backlog-vs-lag", "--server", self.fork, "--out",
                                          os.path.join(self.tmp, "out")]))
        t = b.targets[0]
        with mock.patch("builtins.print"):
            res = b.run_arm(t, "backlog-vs-lag", Arm("unthrottled"), {}, "oltp_write_only", 1, 100,
                            4, 3, 1)
            b.stop()
        self.assertNotIn("ib", res)
        self.assertEqual(500 * 2000, res["redo_bytes"])
        self.assertIsNotNone(res["server_cpu_s"])
        self.assertEqual([[]], self.prepared)
        self.assertFalse([o for o in FakeRun.commands[0] if o.startswith("--ib_")])


if __name__ == "__main__":
    unittest.main()
