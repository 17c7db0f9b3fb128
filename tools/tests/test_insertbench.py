# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Unit tests of the Insert Benchmark's logic (issue 20): the step plan,
the writers' rate accounting, the counter lines of lua/insert_benchmark.lua,
the server's CPU time and database size, and the tables. No server.

The fixture tests/fixtures/insertbench-counters.txt is real output, saved
from tools/test-purgebench-e2e (client-output/insert-benchmark-
unthrottled@qr1000-1.txt: sysbench 1.0.20, the release build of 10.11.18,
2 writers at 1000 rows/s and 2 range readers for 2 s on 10,000 rows). The
one test that runs the script uses sysbench's
--mysql-dry-run, which pretends every client call succeeds and connects
nowhere; it is skipped where sysbench is not installed."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import insertbench as ib, stats, sysbench  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
COUNTERS = os.path.join(FIXTURES, "insertbench-counters.txt")
HEADER = "Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING)."


def fixture():
    with open(COUNTERS) as f:
        return f.read()


def line(**kw):
    """A counters line as the script prints it, with these fields changed."""
    d = dict(v=1, step="query", thread=0, role="writer", writers=1, readers=1,
             rows_per_commit=10, target_rate=100, inserted=6010, deleted=6010, commits=1202,
             queries=0, query_rows=0, events=601, restarts=0, seconds="60.000",
             event_max_ms="3.100", event_avg_ms="1.200", behind_max_s="0.000")
    d.update(kw)
    return "ib-counters: " + " ".join(f"{k}={v}" for k, v in d.items())


def step_of(name, **kw):
    return dict(next(s for s in ib.plan_steps() if s["name"] == name), **kw)


class PlanTest(unittest.TestCase):
    def test_the_steps_in_order(self):
        plan = ib.plan_steps()
        self.assertEqual(list(ib.STEPS), [s["name"] for s in plan])
        self.assertEqual(["load", "index", "churn", "churn"] + ["query"] * 6,
                         [s["ib_step"] for s in plan])
        self.assertEqual(("l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr500", "qp500",
                          "qr1000", "qp1000"), ib.STEPS)

    def test_the_default_takes_about_ten_minutes_and_full_longer(self):
        small = ib.estimated_seconds(ib.plan_steps())
        self.assertGreaterEqual(small, 8 * 60)
        self.assertLessEqual(small, 12 * 60)
        full = ib.plan_steps(full=True)
        self.assertGreater(ib.estimated_seconds(full), 3 * small)
        self.assertGreater(full[0]["rows"], ib.plan_steps()[0]["rows"])

    def test_rows_per_commit_and_rows(self):
        plan = {s["name"]: s for s in ib.plan_steps()}
        self.assertEqual(50, plan["l.i1"]["rows_per_commit"])
        self.assertEqual(5, plan["l.i2"]["rows_per_commit"])
        n = ib.SIZES[False]["table_rows"]
        self.assertEqual(n, plan["l.i0"]["rows"])
        self.assertIsNone(plan["l.x"]["rows"])
        self.assertEqual(ib.SIZES[False]["i1_rows"], plan["l.i1"]["rows"])
        self.assertTrue(all(s["table_rows"] == n for s in plan.values()))
        self.assertTrue(all(s["rows"] is None for k, s in plan.items() if k.startswith("q")))

    def test_threads_writers_and_readers(self):
        plan = {s["name"]: s for s in ib.plan_steps(writers=3)}
        self.assertEqual((1, 0, 0), tuple(plan["l.x"][k] for k in ("threads", "writers",
                                                                   "readers")))
        self.assertEqual((3, 3, 0), tuple(plan["l.i1"][k] for k in ("threads", "writers",
                                                                    "readers")))
        # one reader per writer unless told
        self.assertEqual((6, 3, 3), tuple(plan["qp500"][k] for k in ("threads", "writers",
                                                                     "readers")))
        plan = {s["name"]: s for s in ib.plan_steps(writers=1, readers=3)}
        self.assertEqual((4, 1, 3), tuple(plan["qr100"][k] for k in ("threads", "writers",
                                                                     "readers")))

    def test_rates_and_query_kinds(self):
        plan = {s["name"]: s for s in ib.plan_steps()}
        for rate in (100, 500, 1000):
            self.assertEqual((rate, "range"), (plan[f"qr{rate}"]["rate"],
                                               plan[f"qr{rate}"]["query"]))
            self.assertEqual((rate, "point"), (plan[f"qp{rate}"]["rate"],
                                               plan[f"qp{rate}"]["query"]))
        for name in ("l.i0", "l.x", "l.i1", "l.i2"):
            self.assertIsNone(plan[name]["rate"])
        self.assertEqual(["qr200", "qp200"],
                         [s["name"] for s in ib.plan_steps(rates=(200,))][4:])

    def test_time_limits(self):
        for s in ib.plan_steps():
            if s["ib_step"] == "query":
                self.assertEqual(s["seconds"], s["time_limit"])
            else:   # a cap well above the estimate: the rows end the step
                self.assertGreaterEqual(s["time_limit"], ib.MIN_TIME_LIMIT)
                self.assertGreaterEqual(s["time_limit"], ib.TIME_CAP * s["seconds"])
        self.assertEqual(300, ib.plan_steps(full=True)[-1]["time_limit"])
        self.assertEqual(30, ib.plan_steps(query_seconds=30)[-1]["time_limit"])

    def test_refused_plans(self):
        for kw in (dict(writers=0), dict(readers=0),
                   # a writer deletes only its share of the rows the step began with
                   dict(table_rows=100_000, i1_rows=100_000),
                   dict(table_rows=100_000, query_seconds=100)):
            with self.assertRaises(ValueError, msg=kw):
                ib.plan_steps(**kw)
        ib.plan_steps(table_rows=100_000, i1_rows=80_000, i2_rows=10_000, query_seconds=40)

    def test_the_scripts_options_per_step(self):
        plan = {s["name"]: s for s in ib.plan_steps()}
        self.assertEqual(["--ib_step=churn", "--ib_table=ib1", "--ib_rows=400000",
                          "--ib_rows_per_commit=50", "--ib_writers=2", "--ib_writer_rate=0",
                          "--ib_query=range", "--ib_range_length=10"],
                         ib.sysbench_options(plan["l.i1"]))
        load = ib.sysbench_options(plan["l.i0"])
        self.assertIn("--ib_step=load", load)
        self.assertIn("--ib_rows=0", load)          # load inserts --table-size rows
        qp = ib.sysbench_options(plan["qp1000"])
        for opt in ("--ib_step=query", "--ib_writers=2", "--ib_writer_rate=1000",
                    "--ib_query=point", "--ib_rows_per_commit=10"):
            self.assertIn(opt, qp)

    def test_command_lines(self):
        with mock.patch.object(sysbench, "require", return_value="/usr/bin/sysbench"):
            cmd = ib.command(step_of("qr500"), "/x/mysqld.sock")
            prep = ib.prepare_command("/x/mysqld.sock", 1000)
        self.assertEqual(["/usr/bin/sysbench", ib.LUA], cmd[:2])
        for opt in ("--tables=1", "--table-size=1000000", "--threads=4", "--time=60",
                    "--histogram=on", "--mysql-ignore-errors=1213,1205,1020",
                    "--ib_writer_rate=500", "--mysql-socket=/x/mysqld.sock"):
            self.assertIn(opt, cmd)
        self.assertFalse([c for c in cmd if c.startswith("--rate")])   # writers pace themselves
        self.assertEqual("run", cmd[-1])
        self.assertEqual("prepare", prep[-1])
        self.assertIn("--table-size=1000", prep)
        self.assertTrue(os.path.isfile(ib.LUA))


class SustainedTest(unittest.TestCase):
    def test_at_the_boundary(self):
        # 2 writers at 100 rows/s for 60 s: 95% is 11,400 rows
        self.assertEqual(("sustained", 190.0), ib.sustained(100, 2, 11400, 60))
        verdict, rate = ib.sustained(100, 2, 11399, 60)
        self.assertEqual("not sustained", verdict)
        self.assertAlmostEqual(189.983, rate, places=3)
        self.assertEqual("sustained", ib.sustained(1000, 2, 114000, 60.0)[0])
        self.assertEqual("not sustained", ib.sustained(1000, 2, 113999, 60.0)[0])

    def test_tolerance_and_plenty(self):
        self.assertEqual("not sustained", ib.sustained(100, 1, 5999, 60, tolerance=1.0)[0])
        self.assertEqual("sustained", ib.sustained(100, 1, 6000, 60, tolerance=1.0)[0])
        self.assertEqual("sustained", ib.sustained(500, 4, 130000, 60)[0])

    def test_unpaced_and_no_time(self):
        self.assertEqual(("unpaced", 100.0), ib.sustained(None, 2, 6000, 60))
        self.assertEqual("unpaced", ib.sustained(0, 2, 6000, 60)[0])
        self.assertEqual(("not sustained", 0.0), ib.sustained(100, 2, 0, 0))
        self.assertEqual(("not sustained", 0.0), ib.sustained(100, 2, 10, None))


class ParseTest(unittest.TestCase):
    def test_the_fixture(self):
        c = ib.parse_ib_output(fixture())
        self.assertEqual(("query", 2, 2, 10), (c["step"], c["writers"], c["readers"],
                                               c["rows_per_commit"]))
        self.assertTrue(c["complete"])
        self.assertEqual(1000.0, c["target_rate"])
        self.assertEqual(2010 + 2010, c["rows_inserted"])
        self.assertEqual(2010 + 2010, c["rows_deleted"])
        self.assertEqual(54674 + 46250, c["queries"])
        self.assertEqual(546581 + 462391, c["query_rows"])
        self.assertEqual(402 + 402, c["commits"])
        self.assertEqual(0, c["restarts"])
        self.assertEqual(2.003, c["writer_seconds"])          # the longer writer
        self.assertEqual(2.0, c["reader_seconds"])
        self.assertIsNone(c["indexer_seconds"])
        self.assertEqual(4.052, c["writer_event_max_ms"])
        self.assertEqual(3.19, c["reader_event_max_ms"])
        self.assertEqual(0.0, c["behind_max_s"])
        self.assertEqual([0, 1, 2, 3], [t["thread"] for t in c["threads"]])
        self.assertEqual(["writer", "writer", "reader", "reader"],
                         [t["role"] for t in c["threads"]])
        # both writers kept 1,000 rows/s each (one batch ahead at the start)
        verdict, rate = ib.sustained(c["target_rate"], c["writers"], c["rows_inserted"],
                                     c["writer_seconds"])
        self.assertEqual("sustained", verdict)
        self.assertAlmostEqual(4020 / 2.003, rate)

    def test_a_writer_that_fell_behind(self):
        text = fixture().replace("thread=1 role=writer writers=2 readers=2 rows_per_commit=10 "
                                 "target_rate=1000 inserted=2010",
                                 "thread=1 role=writer writers=2 readers=2 rows_per_commit=10 "
                                 "target_rate=1000 inserted=1700")
        c = ib.parse_ib_output(text)
        self.assertEqual(2010 + 1700, c["rows_inserted"])
        verdict, rate = ib.sustained(c["target_rate"], c["writers"], c["rows_inserted"],
                                     c["writer_seconds"])
        self.assertEqual("not sustained", verdict)          # 1,852 of 2,000 rows/s
        self.assertAlmostEqual(3710 / 2.003, rate)

    def test_the_harness_still_reads_sysbenchs_own_lines(self):
        text = fixture()
        self.assertEqual(101326, sysbench.parse_summary(text)["transactions"])
        lat = sysbench.latency(text)
        self.assertEqual(0.226, lat["lat_p99_ms"])
        self.assertEqual(4.05, lat["lat_max_ms"])
        # counter lines between the interval lines do not hide them
        self.assertEqual(2, len([iv for iv in map(sysbench.parse_interval, text.splitlines())
                                 if iv]))

    def test_no_counters(self):
        self.assertIsNone(ib.parse_ib_output("sysbench 1.0.20\nThreads started!\n"))
        self.assertIsNone(ib.parse_ib_output(""))

    def test_a_sustained_writer(self):
        c = ib.parse_ib_output("\n".join([line(), line(thread=1, role="reader", target_rate=0,
                                                       inserted=0, deleted=0, queries=900)]))
        self.assertEqual(100.0, c["target_rate"])
        self.assertEqual(("sustained", 6010 / 60),
                         ib.sustained(c["target_rate"], 1, c["rows_inserted"],
                                      c["writer_seconds"]))

    def test_unpaced_writers_have_no_target(self):
        c = ib.parse_ib_output(line(step="churn", target_rate=0, readers=0))
        self.assertIsNone(c["target_rate"])

    def test_malformed_lines(self):
        bad = [line().replace(" deleted=6010", ""),             # a field missing
               line(inserted="many"),                           # not a number
               line(v=2),                                       # another format
               line(role="boss"),
               line() + " stray",                               # not KEY=VALUE
               line() + "\n" + line(thread=1, step="churn")]    # two runs mixed
        for text in bad:
            with self.assertRaises(ValueError, msg=text):
                ib.parse_ib_output(text)

    def test_a_missing_thread_makes_it_incomplete(self):
        c = ib.parse_ib_output(line(writers=2, readers=1))
        self.assertFalse(c["complete"])

    def test_the_script_prints_what_the_parser_reads(self):
        with open(ib.LUA) as f:
            lua = f.read()
        joined = re.sub(r'"\s*\.\.\s*"', "", lua)      # "a " .. "b" -> "a b"
        fmt = re.search(r'"ib-counters: (.*?)\\n"', joined)
        self.assertIsNotNone(fmt, "the counters' format string in the script")
        keys = [k for k, _ in re.findall(r"(\w+)=(%[-.\w]+|\d+)", fmt.group(1))]
        self.assertEqual(sorted(ib.COUNTER_INTS + ib.COUNTER_FLOATS + ib.COUNTER_WORDS),
                         sorted(keys))
        self.assertTrue(lua.startswith("-- " + HEADER))
        for opt in ("ib_step", "ib_rows", "ib_rows_per_commit", "ib_writers", "ib_writer_rate",
                    "ib_query", "ib_range_length", "ib_table", "table_size", "tables"):
            self.assertRegex(lua, rf"\n   {opt} = {{", opt)


@unittest.skipUnless(shutil.which("sysbench"), "sysbench is not installed")
class ScriptTest(unittest.TestCase):
    """The script under sysbench itself, connecting nowhere: help, and a
    query step under --mysql-dry-run (every client call pretends to succeed,
    so nothing is deleted and reads return nothing)."""

    def run_sysbench(self, *args, timeout=60):
        return subprocess.run(["sysbench", ib.LUA] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=timeout)

    def test_help_lists_the_options(self):
        out = self.run_sysbench("help")
        self.assertEqual(0, out.returncode, out.stdout)
        for opt in ("--ib_step=", "--ib_writer_rate=", "--table_size="):
            self.assertIn(opt, out.stdout)

    def test_a_paced_writer_beside_readers(self):
        step = dict(step_of("qp100"), writers=1, readers=2, threads=3, table_rows=1000)
        out = self.run_sysbench("--mysql-dry-run", "--threads=3", "--time=2",
                                "--table-size=1000", "--tables=1", "--histogram=on",
                                "--report-interval=1", "--percentile=95",
                                *ib.sysbench_options(step), "run")
        self.assertEqual(0, out.returncode, out.stdout[-2000:])
        c = ib.parse_ib_output(out.stdout)
        self.assertTrue(c["complete"], out.stdout[-2000:])
        self.assertEqual((1, 2, 100.0), (c["writers"], c["readers"], c["target_rate"]))
        verdict, rate = ib.sustained(c["target_rate"], 1, c["rows_inserted"],
                                     c["writer_seconds"])
        self.assertEqual("sustained", verdict)
        self.assertLess(rate, 100 * 1.2, "a paced writer does not run ahead")
        self.assertGreater(c["queries"], 0)
        self.assertIsNotNone(sysbench.parse_summary(out.stdout).get("transactions"))

    def test_a_bad_step_is_a_clear_error(self):
        out = self.run_sysbench("--mysql-dry-run", "--ib_step=bogus", "--time=1", "run")
        self.assertNotEqual(0, out.returncode)
        self.assertIn("--ib_step is load, index, churn or query", out.stdout)


class ProcTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def test_utime_and_stime(self):
        os.makedirs(os.path.join(self.dir, "4242"))
        # the command name may hold spaces and parentheses
        fields = ["S", "1", "4242", "4242", "0", "-1", "4194560", "100", "0", "0", "0",
                  "250", "50", "0", "0", "20", "0", "40", "0", "12345"]
        with open(os.path.join(self.dir, "4242", "stat"), "w") as f:
            f.write("4242 (my (odd) d) " + " ".join(fields) + "\n")
        self.assertAlmostEqual(300 / os.sysconf("SC_CLK_TCK"),
                               ib.proc_cpu_seconds(4242, proc=self.dir))

    def test_no_such_process(self):
        self.assertIsNone(ib.proc_cpu_seconds(4243, proc=self.dir))

    def test_this_process(self):
        sum(i * i for i in range(200000))
        cpu = ib.proc_cpu_seconds(os.getpid())
        self.assertIsInstance(cpu, float)
        self.assertGreaterEqual(cpu, 0.0)


class DbBytesTest(unittest.TestCase):
    def test_the_database_and_the_undo(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for path, size in (("sbtest/ib1.ibd", 1000), ("sbtest/ib1.frm", 24), ("ibdata1", 500),
                           ("undo001", 300), ("undo002", 200), ("ib_logfile0", 700),
                           ("mysql/user.MAD", 900)):
            os.makedirs(os.path.dirname(os.path.join(d, path)) or d, exist_ok=True)
            with open(os.path.join(d, path), "wb") as f:
                f.write(b"x" * size)
        self.assertEqual(1000 + 24 + 500 + 300 + 200, ib.db_bytes(d))
        self.assertIsNone(ib.db_bytes(d, db="nothere"))


def result(**kw):
    """What Bench.run_arm() returns, plus what the hook adds (fake numbers)."""
    r = dict(scenario=ib.SCENARIO, arm="x@qr1000", repeat=1, lat_p99_ms=0.226,
             lat_max_ms=4.05, history_p95=40, history_max=90, server_cpu_s=2.0,
             redo_bytes=4020 * 500, db_bytes=300 * 2**20, samples=[])
    r.update(kw)
    return r


class StepRowTest(unittest.TestCase):
    def test_a_query_step(self):
        c = ib.parse_ib_output(fixture())
        row = ib.step_row(step_of("qr1000"), "base", result(ib=c))
        self.assertEqual(("qr1000", "base", 1), (row["step"], row["arm"], row["repeat"]))
        self.assertAlmostEqual(100924 / 2.0, row["queries_per_s"])
        self.assertAlmostEqual(4020 / 2.003, row["inserts_per_s"])
        self.assertEqual(row["queries_per_s"], row["throughput"])
        self.assertAlmostEqual(500.0, row["redo_bytes_per_row"])
        self.assertEqual(100924, row["ops"])                       # CPU per query
        self.assertAlmostEqual(2.0 / 100924, row["cpu_s_per_op"])
        self.assertEqual("sustained", row["sustained"])
        self.assertEqual(1000.0, row["target_rate"])
        self.assertEqual((0.226, 4.05, 40, 90, 300 * 2**20),
                         tuple(row[k] for k in ("lat_p99_ms", "lat_max_ms", "history_p95",
                                                "history_max", "db_bytes")))

    def test_a_churn_step_is_judged_by_its_inserts(self):
        c = ib.parse_ib_output(line(step="churn", target_rate=0, readers=0, inserted=400000,
                                    deleted=400000, seconds="40.000"))
        row = ib.step_row(step_of("l.i1"), "base", result(ib=c, server_cpu_s=80.0))
        self.assertEqual(10000.0, row["inserts_per_s"])
        self.assertEqual(row["inserts_per_s"], row["throughput"])
        self.assertIsNone(row["queries_per_s"])
        self.assertAlmostEqual(80.0 / 400000, row["cpu_s_per_op"])
        self.assertIsNone(row["sustained"])                          # unpaced

    def test_the_index_step_per_table_row(self):
        c = ib.parse_ib_output(line(step="index", role="indexer", writers=0, readers=0,
                                    target_rate=0, inserted=0, deleted=0, queries=1,
                                    seconds="10.000"))
        row = ib.step_row(step_of("l.x"), "base", result(ib=c, server_cpu_s=12.0,
                                                         redo_bytes=5e7))
        self.assertEqual(100000.0, row["inserts_per_s"])           # 1M rows indexed in 10 s
        self.assertAlmostEqual(12.0 / 1e6, row["cpu_s_per_op"])
        self.assertAlmostEqual(50.0, row["redo_bytes_per_row"])
        self.assertIsNone(row["sustained"])

    def test_explicit_values_and_the_redo_fallback(self):
        c = ib.parse_ib_output(line(step="churn", target_rate=0, readers=0))
        res = result(ib=None, server_cpu_s=None, redo_bytes=None, db_bytes=None,
                     samples=[{"innodb_lsn_current": 1000}, {"innodb_lsn_current": None},
                              {"innodb_lsn_current": 1000 + 6010 * 300}])
        row = ib.step_row(step_of("l.i2"), "base", res, counters=c, cpu_s=6.01, db_size=7)
        self.assertAlmostEqual(300.0, row["redo_bytes_per_row"])
        self.assertAlmostEqual(6.01 / 6010, row["cpu_s_per_op"])
        self.assertEqual(7, row["db_bytes"])
        row = ib.step_row(step_of("l.i2"), "base", dict(res, samples=[]), counters=c)
        self.assertIsNone(row["redo_bytes_per_row"])
        self.assertIsNone(row["cpu_s_per_op"])


def row(step, arm, throughput, repeat=1, **kw):
    query = step.startswith("q")
    r = dict(step=step, arm=arm, repeat=repeat, seconds=60.0, rows_inserted=6000,
             rows_deleted=6000, queries=1000, inserts_per_s=None if query else throughput,
             deletes_per_s=None, queries_per_s=throughput if query else None,
             throughput=throughput, lat_p99_ms=1.5, lat_max_ms=150.0, history_p95=1000,
             history_max=2000, redo_bytes_per_row=300.0, ops=1000, cpu_s_per_op=2.5e-5,
             db_bytes=100 * 2**20, writers=2, target_rate=100 if query else None,
             achieved_rate=200.0 if query else None,
             sustained="sustained" if query else None)
    r.update(kw)
    return r


class RelativeTableTest(unittest.TestCase):
    def results(self):
        return {"unthrottled": [row("l.i1", "unthrottled", 100.0), row("qr100", "unthrottled",
                                                                       200.0),
                                row("qp100", "unthrottled", 1000.0)],
                "adaptive@10000": [row("l.i1", "adaptive@10000", 95.0),
                                   row("qr100", "adaptive@10000", 210.0),
                                   row("qp100", "adaptive@10000", 1000.0,
                                       sustained="not sustained", achieved_rate=150.0)]}

    def test_the_first_arm_is_the_base_and_colours(self):
        per_step, rel = ib.relative_table(self.results())
        title, header, rows = rel
        self.assertIn("relative to unthrottled", title)
        self.assertEqual(["step", "adaptive@10000 / unthrottled"], header)
        self.assertEqual([["l.i1", "**0.95** (red)"],          # <= 0.95: red
                          ["qr100", "**1.05** (green)"],       # >= 1.05: green
                          ["qp100", "1.00"]], rows)
        self.assertEqual("red", stats.mark(0.95))

    def test_another_base(self):
        _, (title, header, rows) = ib.relative_table(self.results(), base_arm="adaptive@10000")
        self.assertIn("relative to adaptive@10000", title)
        self.assertEqual(["step", "unthrottled / adaptive@10000"], header)
        self.assertEqual("**1.05** (green)", rows[0][1])     # 100 / 95
        self.assertEqual("0.95", rows[1][1][:4].strip("*"))   # 200 / 210 = 0.952...
        with self.assertRaises(ValueError):
            ib.relative_table(self.results(), base_arm="nobody")

    def test_the_per_step_table(self):
        (title, header, rows), _ = ib.relative_table(self.results())
        self.assertEqual("insert-benchmark: per step", title)
        self.assertEqual(len(header), len(rows[0]))
        self.assertEqual([("l.i1", "unthrottled"), ("l.i1", "adaptive@10000"),
                          ("qr100", "unthrottled"), ("qr100", "adaptive@10000"),
                          ("qp100", "unthrottled"), ("qp100", "adaptive@10000")],
                         [(r[0], r[1]) for r in rows])
        cells = dict(zip(header, rows[0]))
        self.assertEqual("100", cells["inserts/s (l.x: rows indexed/s)"])
        self.assertEqual("-", cells["queries/s"])
        self.assertEqual("1.5 / 150", cells["latency ms p99 / max"])
        self.assertEqual("25.0", cells["server CPU µs/op"])
        self.assertEqual("100", cells["database MB (table)"])
        (_, head, (one,)), = ib.relative_table(
            {"a": [row("l.i1", "a", 1.0, db_bytes=150 * 2**20, table_bytes=100 * 2**20)]})
        self.assertEqual("150 (table 100)", dict(zip(head, one))["database MB (table)"])
        self.assertEqual("unpaced", cells["writers"])
        self.assertEqual("sustained (200 of 200 rows/s)", dict(zip(header, rows[2]))["writers"])
        self.assertEqual("not sustained (150 of 200 rows/s)",
                         dict(zip(header, rows[5]))["writers"])

    def test_one_arm_has_no_relative_table(self):
        tables = ib.relative_table({"unthrottled": self.results()["unthrottled"]})
        self.assertEqual(1, len(tables))
        self.assertEqual([], ib.relative_table({}))

    def test_repeats_are_merged_into_medians(self):
        res = {"a": [row("qr100", "a", 100.0, 1), row("qr100", "a", 300.0, 2),
                     row("qr100", "a", 200.0, 3)],
               "b": [row("qr100", "b", 180.0, 1), row("qr100", "b", 220.0, 2,
                                                      sustained="not sustained")]}
        (title, header, rows), (_, _, rel) = ib.relative_table(res)
        self.assertIn("medians of 3 repeats", title)
        self.assertEqual([["qr100", "1.00"]], rel)            # 200 / 200
        self.assertTrue(rows[1][-1].startswith("not sustained"))   # not every repeat was

    def test_a_step_one_arm_lacks(self):
        res = self.results()
        res["adaptive@10000"] = res["adaptive@10000"][:1]
        _, (_, _, rows) = ib.relative_table(res)
        self.assertEqual(["qr100", "-"], rows[1])

    def test_rows_by_arm_and_arm_names(self):
        runs = [dict(arm="unthrottled@l.i1", ib_row=row("l.i1", "unthrottled", 1.0)),
                dict(arm="other@l.i1"),                               # not measured
                dict(arm="adaptive@10000@l.i1", ib_row=row("l.i1", "adaptive@10000", 1.0))]
        self.assertEqual(["unthrottled", "adaptive@10000"], list(ib.rows_by_arm(runs)))


class HeadlineTest(unittest.TestCase):
    @staticmethod
    def run_of(r, server=None, lag=None):
        return dict(scenario=ib.SCENARIO, arm=r["arm"] + "@" + r["step"], repeat=r["repeat"],
                    server=server, lag=lag, ib_row=r)

    def test_arms_against_the_base(self):
        runs = [self.run_of(row("l.i1", "unthrottled", 100.0, history_p95=3000)),
                self.run_of(row("l.i2", "unthrottled", 50.0, history_p95=2500)),
                self.run_of(row("qr100", "unthrottled", 200.0)),
                self.run_of(row("l.i1", "adaptive@1000", 90.0, history_p95=1100), lag=1000),
                self.run_of(row("l.i2", "adaptive@1000", 50.0, history_p95=900), lag=1000),
                self.run_of(row("qr100", "adaptive@1000", 220.0, sustained="not sustained"),
                            lag=1000)]
        (title, lines), = ib.headline(runs)
        self.assertEqual("insert-benchmark", title)
        self.assertEqual("unthrottled (the base): history p95 l.i1 3,000, l.i2 2,500.", lines[0])
        self.assertEqual("adaptive@1000: history p95 l.i1 1,100 (1.10x the target 1,000), "
                         "l.i2 900 (0.90x the target 1,000); throughput over unthrottled "
                         "within 0.95..1.05 in 1 of 3 steps, outside: l.i1 0.90 (red), "
                         "qr100 1.10 (green); writers fell short of their rate in qr100.",
                         lines[1])

    def test_two_servers_pair_the_same_arm(self):
        runs = [self.run_of(row(s, "fork:unthrottled", t), server="fork")
                for s, t in (("l.i1", 100.0), ("qr100", 200.0))]
        runs += [self.run_of(row(s, "stock:unthrottled", t), server="stock")
                 for s, t in (("l.i1", 100.0), ("qr100", 180.0))]
        self.assertEqual([("stock:unthrottled", "fork:unthrottled")], ib.server_pairs(runs))
        (_, lines), (title, cmp_lines) = ib.headline(runs)
        self.assertEqual("insert-benchmark, servers", title)
        self.assertEqual(["stock:unthrottled over fork:unthrottled: within 0.95..1.05 in 1 of 2 "
                          "steps; outside: qr100 0.90 (red)."], cmp_lines)

    def test_nothing_to_say(self):
        self.assertEqual([], ib.headline([]))
        self.assertEqual([], ib.server_pairs([self.run_of(row("l.i1", "a", 1.0))]))


class HeaderTest(unittest.TestCase):
    def test_new_files_carry_the_header(self):
        for path in (ib.__file__, __file__):
            with open(path) as f:
                self.assertEqual("# " + HEADER, f.readline().strip(), path)


if __name__ == "__main__":
    unittest.main()
