# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Unit tests of the benchmark harness's parsers and statistics."""

import os
import shutil
import signal
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import (bench, cpuload, options, report, sampler, scenarios, stats,  # noqa: E402
                        sysbench)
from purgebench import tables as summary  # noqa: E402
from purgebench import plan, plots  # noqa: E402
from purgebench.scenarios import purge_capacity  # noqa: E402
from purgebench.plan import Arm, Target  # noqa: E402
from purgebench.server import (Installation, ServerError, parse_backlog,  # noqa: E402
                               parse_help_variables, unknown_settings)

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def fixture(name):
    """A saved client output (tools/tests/fixtures/NAME)."""
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


INTERVAL = ("[ 10s ] thds: 4 tps: 612.93 qps: 12271.55 (r/w/o: 8594.66/2451.73/1225.16) "
            "lat (ms,95%): 9.22 err/s: 0.00 reconn/s: 0.00")
SUMMARY = """SQL statistics:
    queries performed:
        read:                            0
        write:                           4004
        other:                           2002
        total:                           6006
    transactions:                        1001   (99.92 per sec.)
    queries:                             6006   (599.51 per sec.)
    ignored errors:                      3      (0.30 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          10.0160s
    total number of events:              1001

Latency (ms):
         min:                                    5.52
         avg:                                   10.00
         max:                                   31.23
         95th percentile:                       14.46
         sum:                                10011.87
"""
ERRLOG = """2026-11-22  3:40:29 0 [Note] InnoDB: to purge 5 transactions
2026-11-22  3:40:30 0 [Note] /x/mariadbd (initiated by: root[root] @ localhost []): Normal shutdown
2026-11-22  3:40:30 0 [Note] InnoDB: FTS optimize thread exiting.
2026-11-22  3:40:30 0 [Note] InnoDB: to purge 20000 transactions
2026-11-22  3:40:45 0 [Note] InnoDB: to purge 1200 transactions
"""


class ParserTest(unittest.TestCase):
    def test_interval_line(self):
        iv = sysbench.parse_interval(INTERVAL)
        self.assertEqual(10.0, iv["t"])
        self.assertEqual(4, iv["threads"])
        self.assertAlmostEqual(612.93, iv["tps"])
        self.assertAlmostEqual(12271.55, iv["qps"])
        self.assertAlmostEqual(9.22, iv["lat_ms"])
        self.assertEqual(95, iv["lat_pct"])

    def test_not_an_interval_line(self):
        self.assertIsNone(sysbench.parse_interval("Threads started!"))

    def test_summary(self):
        s = sysbench.parse_summary(SUMMARY)
        self.assertEqual(1001, s["transactions"])
        self.assertAlmostEqual(99.92, s["transactions_per_s"])
        self.assertAlmostEqual(599.51, s["queries_per_s"])
        self.assertEqual(3, s["errors"])
        self.assertAlmostEqual(10.016, s["time"])
        self.assertAlmostEqual(14.46, s["lat_pct_ms"])

    def test_backlog_is_the_first_after_the_last_shutdown(self):
        self.assertEqual(20000, parse_backlog(ERRLOG))

    def test_no_backlog_line_means_empty_history(self):
        self.assertEqual(0, parse_backlog("... Normal shutdown\n... Shutdown complete\n"))

    def test_status_rows_to_a_sample(self):
        s = sampler.from_rows([("Innodb_history_list_length", "17"),
                               ("Innodb_max_trx_id", "123456"),
                               ("Innodb_purge_throttle_active", "ON")])
        self.assertEqual(17, s["innodb_history_list_length"])
        self.assertEqual(123456, s["trx_id_counter"])       # for redo bytes per trx
        self.assertEqual(1, s["innodb_purge_throttle_active"])
        self.assertIsNone(s["innodb_purge_unparsed_trx"])    # a server without it
        self.assertNotIn("innodb_max_trx_id", s)

    def test_the_sampler_reads_status_and_the_throttle_metrics(self):
        self.assertTrue(sampler.QUERY.startswith("SHOW GLOBAL STATUS WHERE"))
        self.assertIn("'Innodb_max_trx_id'", sampler.QUERY)
        self.assertIn("SUBSYSTEM='purge_throttle'", sampler.METRICS_QUERY)

    def test_metrics_keep_the_names_they_had_as_status_variables(self):
        rows = sampler.metric_rows([("purge_coordinator_polls", 7),
                                    ("purge_dml_delay_usec", 2500),
                                    ("purge_rsegs_withheld", 3)])
        s = sampler.from_rows([("Innodb_history_list_length", "17"),
                               ("Innodb_max_trx_id", "1")] + rows)
        self.assertEqual(7, s["innodb_purge_coordinator_polls"])
        self.assertEqual(2500, s["innodb_purge_dml_delay_current_usec"])
        self.assertEqual(3, s["innodb_purge_rsegs_withheld"])
        # an older build's status variable wins over a metric of its name
        s = sampler.from_rows([("Innodb_max_trx_id", "1"),
                               ("Innodb_purge_rsegs_withheld", "5")] + rows)
        self.assertEqual(5, s["innodb_purge_rsegs_withheld"])

    def test_status_values(self):
        self.assertEqual(1, sampler.to_number("ON"))
        self.assertEqual(0, sampler.to_number("OFF"))
        self.assertEqual(42, sampler.to_number("42"))
        self.assertEqual(-7, sampler.to_number("-7"))
        self.assertIsNone(sampler.to_number(None))


class StatsTest(unittest.TestCase):
    def test_percentile(self):
        self.assertEqual(5.5, stats.percentile(range(1, 11), 50))
        self.assertEqual(10, stats.percentile([10], 95))
        self.assertIsNone(stats.percentile([], 50))
        self.assertAlmostEqual(9.55, stats.percentile(range(1, 11), 95))

    def test_summary(self):
        self.assertEqual({"min": 1, "median": 2, "max": 9, "n": 3}, stats.summary([9, 1, 2]))
        self.assertEqual(0, stats.summary([None])["n"])

    def test_ratio_and_mark(self):
        self.assertEqual(0.5, stats.ratio(1, 2))
        self.assertIsNone(stats.ratio(1, 0))
        self.assertEqual("red", stats.mark(0.95))
        self.assertEqual("green", stats.mark(1.05))
        self.assertEqual("", stats.mark(1.0))

    def test_redo_bytes_per_trx(self):
        # MDEV-16168: (LSN_end - LSN_start) / (trx_end - trx_start)
        self.assertEqual(263.5, stats.redo_bytes_per_trx(1000, 1000 + 2635, 10, 20))
        self.assertIsNone(stats.redo_bytes_per_trx(1, 2, 5, 5))

    def test_purge_keeps_up(self):
        grow = {"samples": [{"innodb_history_list_length": 1000 * i} for i in range(30)]}
        flat = {"samples": [{"innodb_history_list_length": 5000 + (i % 3) * 100} for i in range(30)]}
        self.assertFalse(purge_capacity.purge_keeps_up(grow))
        self.assertTrue(purge_capacity.purge_keeps_up(flat))

    def test_purge_keeps_up_judged_by_what_it_has_not_parsed(self):
        # a history that grows only by undo logs waiting for truncation
        parsed = {"samples": [{"innodb_history_list_length": 1000 * i,
                               "innodb_purge_unparsed_trx": 300 + (i % 2) * 200}
                              for i in range(30)]}
        self.assertEqual("innodb_purge_unparsed_trx", purge_capacity.lag_measure(parsed))
        self.assertTrue(purge_capacity.purge_keeps_up(parsed))
        behind = {"samples": [{"innodb_history_list_length": 1000 * i,
                               "innodb_purge_unparsed_trx": 900 * i} for i in range(30)]}
        self.assertFalse(purge_capacity.purge_keeps_up(behind))
        # a sample without it (a server that lacks the variable): the history
        parsed["samples"][3]["innodb_purge_unparsed_trx"] = None
        self.assertEqual("innodb_history_list_length", purge_capacity.lag_measure(parsed))
        self.assertFalse(purge_capacity.purge_keeps_up(parsed))

    def test_an_unpaced_run_is_judged_by_its_own_tps(self):
        # 2 s of commits at 5,000 tps: a saw-tooth, not a backlog
        saw = {"tps": 5000, "rate": None,
               "samples": [{"innodb_history_list_length": 9000 * (i % 2)} for i in range(30)]}
        self.assertTrue(purge_capacity.purge_keeps_up(saw))

    def test_sustained_by_purge(self):
        runs = [dict(rate=500, tps=499, bounded=True), dict(rate=1000, tps=990, bounded=True),
                dict(rate=2000, tps=1500, bounded=False)]
        self.assertEqual((990, False), purge_capacity.sustained_by_purge(runs))
        runs[2]["bounded"] = True
        runs.append(dict(rate=None, tps=1700, bounded=True))
        self.assertEqual((1700, True), purge_capacity.sustained_by_purge(runs))
        self.assertIsNone(purge_capacity.sustained_by_purge(
            [dict(rate=500, tps=400, bounded=False)]))


class SignalTest(unittest.TestCase):
    def test_sigterm_stops_like_ctrl_c(self):
        previous = bench.stop_on_sigterm()
        self.addCleanup(signal.signal, signal.SIGTERM, previous)
        with self.assertRaises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)       # the handler runs before this ends


class CliTest(unittest.TestCase):
    def test_defaults(self):
        a = bench.parse_args([])
        self.assertEqual(list(scenarios.DEFAULT_SCENARIOS), a.scenarios)
        self.assertEqual(["formula", "adaptive"], a.arms)

    def test_all_and_lags(self):
        a = bench.parse_args(["all", "--lags", "10,20"])
        self.assertEqual(list(scenarios.SCENARIOS), a.scenarios)
        self.assertEqual([10, 20], a.lags)
        for bad in ("10k", "0", "-5", "10,,20"):
            with self.assertRaises(SystemExit, msg=bad), mock.patch("sys.stderr"):
                bench.parse_args(["--lags", bad])

    def test_comparison_options(self):
        a = bench.parse_args(["--compare-server", "/x/mariadbd"])
        self.assertEqual(("fork", "stock"), (a.label, a.compare_label))
        a = bench.parse_args([])
        self.assertIsNone(a.compare_server)

    def test_bad_comparison_options_are_clear_errors(self):
        for argv in (["--label", "x"], ["--compare-basedir", "/x"],
                     ["--compare-server", "/x", "--label", "a:b"],
                     ["--compare-server", "/x", "--compare-label", ""],
                     ["--compare-server", "/x", "--label", "s", "--compare-label", "s"]):
            with self.assertRaises(SystemExit, msg=argv), \
                    mock.patch("sys.stderr"):
                bench.parse_args(argv)

    def test_cpu_load(self):
        self.assertEqual(0, bench.parse_args([]).cpu_load)
        self.assertEqual(2, bench.parse_args(["--cpu-load", "2"]).cpu_load)
        for bad in ("x", "-1", "65", "1,2"):
            with self.assertRaises(SystemExit, msg=bad), mock.patch("sys.stderr"):
                bench.parse_args(["--cpu-load", bad])

    def test_drains(self):
        self.assertIsNone(bench.parse_args([]).drains)
        self.assertEqual([0, 16], bench.parse_args(["--drains", "0,16"]).drains)
        for bad in ("65", "-1", "x", "4,4"):
            with self.assertRaises(SystemExit, msg=bad), mock.patch("sys.stderr"):
                bench.parse_args(["--drains", bad])

    def test_missing_server_binary_is_a_clear_error(self):
        rc = bench.main(["--server", "/nonexistent/mariadbd", "--out", "/tmp/pb-missing"])
        self.assertEqual(1, rc)


# -- comparing two servers, without starting any ---------------------------
FORK_ONLY = {"innodb_purge_throttle", "innodb_purge_coupled_throttle",
             "innodb_undo_log_compact_init", "innodb_purge_drain_rsegs"}


def help_table(names):
    """What 'mariadbd --verbose --help' ends with: its variables table."""
    return ("Variables (--variable-name=value)\n"
            "and boolean options {FALSE|TRUE}                             Value (after "
            "reading options)\n" + "-" * 60 + " -------------\n"
            + "".join(f"{n.replace('_', '-'):<60} 1\n" for n in names) + "\n"
            "To see what values a running MariaDB server is using, type\n")


def fake_tree(root, debian, version="10.11.18", lacks=None):
    """Executables where Installation looks: a tarball's bin/, or Debian's
    usr/sbin + usr/bin + usr/share/mysql unpacked by install-stock-server.
    With lacks, its mariadbd's --verbose --help lists the variables of
    bench.BASE_CNF and a few more, except those."""
    usr = os.path.join(root, "usr") if debian else root
    server_dir = os.path.join(usr, "sbin" if debian else "bin")
    for d, name in ((server_dir, "mariadbd"), (os.path.join(usr, "bin"), "mariadb"),
                    (os.path.join(usr, "bin"), "mariadb-install-db")):
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "w") as f:
            f.write(f"#!/bin/sh\necho 'mariadbd  Ver {version}-MariaDB'\n")
            if lacks is not None:
                names = set(bench.BASE_CNF) | {"max_connections", "max_prepared_stmt_count",
                                                "datadir", "socket"}
                f.write("[ \"$3\" = --help ] && cat <<'EOF'\n"
                        + help_table(sorted(names - set(lacks))) + "EOF\n")
        os.chmod(os.path.join(d, name), 0o755)
    if debian:
        os.makedirs(os.path.join(usr, "share", "mysql", "english"))
        open(os.path.join(usr, "share", "mysql", "english", "errmsg.sys"), "w").close()
        with open(os.path.join(root, scenarios.STOCK_MARKER), "w") as f:
            f.write("mariadb-server-core=1:10.11.18-0+deb12u1 0123\n"
                    "mariadb-client-core=1:10.11.18-0+deb12u1 4567\n")
    return os.path.join(server_dir, "mariadbd")


class FakeServer:
    """Stands in for server.Server: answers @@variables (a stock server
    lacks the fork's), checks that only one server runs at a time."""
    lacking = {}      # mariadbd path -> variables it lacks
    up = []

    def __init__(self, inst, workdir, options=None, allow_nonempty=False, tcp_port=None):
        self.inst = inst
        self.options = dict(options or {})
        self.tcp_port = tcp_port
        os.makedirs(workdir, exist_ok=True)
        self.cnf = os.path.join(workdir, "my.cnf")
        with open(self.cnf, "w") as f:
            f.write("[mariadbd]\ndatadir=/x/data\n"
                    + "".join(f"{k}={v}\n" for k, v in self.options.items()))
        self.socket = os.path.join(workdir, "mysqld.sock")
        self.datadir = os.path.join(workdir, "data")
        self.proc = None

    def initialize(self):
        pass

    def start(self):
        assert not FakeServer.up, "two servers up at once"
        FakeServer.up.append(self)
        self.proc = object()

    def shutdown(self, slow=True, timeout=None):
        FakeServer.up.remove(self)
        self.proc = None
        return 0.0

    kill = shutdown

    def query(self, sql, timeout=60):
        return []

    def status(self, names):
        return {}

    def shutdown_status(self):
        return None

    def value(self, sql):
        name = sql.split("@@")[-1].replace("GLOBAL.", "")
        if name in FakeServer.lacking.get(self.inst.mariadbd, ()):
            raise ServerError(f"query failed: {sql}: ERROR 1193 (HY000) at line 1: "
                              f"Unknown system variable '{name}'")
        return "1"


class FakeBench(bench.Bench):
    """The real planning, interleaving, labelling and tables; a run only
    records what it would measure: tps by server and repeat, history that
    stays flat up to a server's capacity and grows beyond it."""
    tps = {"A": (100, 90, 110), "B": (90, 90, 90), "C": (80, 80, 80)}     # by repeat
    capacity = {"A": 1000, "B": 500, "C": 400}
    client_limit = None     # a --rate above which sysbench's event queue fills

    def run_arm(self, t, scenario, arm, settings, test, tables, rows, threads, seconds,
                repeat, rate=None, extra=None, client_short=None):
        srv = self.use(t)
        for var in settings:
            assert self.has_var(t, var), (t.label, arm, var)
        key = "ABC"[self.targets.index(t)]
        tps = self.tps[key][repeat - 1]
        growth = 1000 if rate is not None and rate > self.capacity[key] else 0
        compact = settings.get("innodb_undo_log_compact_init") == "ON"
        # the fork reports the unparsed history (as repeat * 10, growing with
        # the history beyond its capacity), stock does not
        samples = [{"t": i, "innodb_history_list_length": 100 + growth * i,
                    "innodb_purge_unparsed_trx":
                    repeat * 10 + growth * i if key == "A" else None}
                   for i in range(30)]
        res = dict(scenario=scenario, arm=str(t.arm(arm)), repeat=repeat, threads=threads,
                   rate=rate, settings=settings, tps=tps, qps=tps * 20, backlog=0,
                   redo_bytes_per_trx=200.0 if compact else 300.0, intervals=[],
                   samples=samples, client_short=None, **stats.history_composition(samples))
        if self.client_limit and rate and rate > self.client_limit:
            # as bench.run_arm() keeps a run whose client could not give the rate
            res["client_short"] = client_short(
                "FATAL: The event queue is full. This means that the worker threads are "
                "unable to keep up with the specified event generation rate\n")
            assert res["client_short"], "a full event queue is a short client"
            res["tps"] = res["qps"] = None
        srv.shutdown(slow=True)
        return self.keep(t, res, extra)


class DriftBench(FakeBench):
    """A machine whose speed drifts between repeats (repeat 2 is slow for
    every arm): the fork's adaptive arm runs at 0.98 and 0.97 of unthrottled
    in repeats 1 and 2, and at half of it in repeat 3."""
    qps = {"unthrottled": (100, 60, 100), "adaptive@1000": (98, 58, 50),
           "formula@1000": (100, 60, 100)}

    def run_arm(self, t, scenario, arm, settings, test, tables, rows, threads, seconds,
                repeat, rate=None, extra=None):
        self.tps = {"A": tuple(q / 20 for q in self.qps[str(arm)]), "B": (90, 90, 90)}
        return super().run_arm(t, scenario, arm, settings, test, tables, rows, threads,
                               seconds, repeat, rate, extra)


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-test-")
        self.fork = fake_tree(os.path.join(self.tmp, "fork"), debian=False)
        self.stock = fake_tree(os.path.join(self.tmp, "stock"), debian=True)
        FakeServer.lacking = {self.fork: set(), self.stock: FORK_ONLY}
        FakeServer.up = []
        for p in (mock.patch.object(bench, "Server", FakeServer),
                  mock.patch.object(bench, "machine", return_value={}),
                  mock.patch.object(bench.sysbench, "version", return_value="sysbench 1.0.20")):
            p.start()
            self.addCleanup(p.stop)
        self.addCleanup(shutil.rmtree, self.tmp)

    def bench(self, *argv, compare=True, cls=FakeBench):
        argv = list(argv) + ["--server", self.fork, "--out", os.path.join(self.tmp, "out")]
        if compare:
            argv += ["--compare-server", self.stock]
        b = cls(bench.parse_args(argv))
        for sc in b.args.scenarios:
            with mock.patch("builtins.print"):
                b.scenario(sc)
        b.stop()
        return b

    def order(self, b):
        return [(r["arm"], r["repeat"]) for r in b.runs]

    def test_every_arm_on_both_servers_interleaved(self):
        b = self.bench("history-growth", "--repeats", "2")
        # the second repeat starts from the second arm, and an arm's servers
        # in the second place (rotate())
        self.assertEqual([("fork:unthrottled", 1), ("stock:unthrottled", 1),
                          ("fork:adaptive@1000", 1),
                          ("fork:adaptive@1000", 2),
                          ("stock:unthrottled", 2), ("fork:unthrottled", 2)], self.order(b))
        self.assertEqual(["fork", "stock", "fork", "fork", "stock", "fork"],
                         [r["server"] for r in b.runs])
        self.assertEqual([], FakeServer.up)

    def test_fork_only_arm_is_skipped_with_one_note(self):
        b = self.bench("history-growth", "--repeats", "2")
        with open(os.path.join(b.outdir, "progress.log")) as f:
            log = f.read()
        note = ("  stock: skipping adaptive@1000: needs @@innodb_purge_throttle, "
                "which it lacks")
        self.assertEqual(1, log.count(note + "\n"))

    def test_native_arm_of_the_same_name_runs_with_its_own_settings(self):
        b = self.bench("backlog-vs-lag", "--lags", "1000")
        self.assertEqual(["fork:unthrottled", "stock:unthrottled", "fork:formula@1000",
                          "stock:formula@1000", "fork:adaptive@1000"],
                         [r["arm"] for r in b.runs])
        settings = {r["arm"]: r["settings"] for r in b.runs}
        self.assertEqual({"innodb_max_purge_lag": 1000, "innodb_max_purge_lag_delay": 5000},
                         settings["stock:formula@1000"])
        self.assertEqual("ON", settings["fork:formula@1000"]["innodb_purge_coupled_throttle"])

    def test_arms_restricts_the_stock_server_too(self):
        b = self.bench("backlog-vs-lag", "--lags", "1000", "--arms", "unthrottled")
        self.assertEqual(["fork:unthrottled", "stock:unthrottled"], [r["arm"] for r in b.runs])
        b = self.bench("backlog-vs-lag", "--lags", "1000", "--arms", "unthrottled,adaptive")
        self.assertEqual(["fork:unthrottled", "stock:unthrottled", "fork:adaptive@1000"],
                         [r["arm"] for r in b.runs])

    def test_each_server_has_its_data_directory_cnf_and_meta(self):
        b = self.bench("history-growth")
        self.assertEqual(["server-fork", "server-stock"],
                         sorted(d for d in os.listdir(b.outdir) if d.startswith("server")))
        for name in ("my-fork.cnf", "my-stock.cnf"):
            self.assertTrue(os.path.exists(os.path.join(b.outdir, name)), name)
        self.assertEqual("installed binaries (not a build tree)", b.meta["fork: build flavour"])
        self.assertIn("mariadb-server-core=1:10.11.18-0+deb12u1", b.meta["stock: build flavour"])
        self.assertEqual(self.stock, b.meta["stock: server binary"])
        self.assertIn("Ver 10.11.18", b.meta["fork: mariadbd --version"])
        self.assertTrue(b.meta["compared"].startswith("A = fork, B = stock"))

    def test_labels(self):
        b = self.bench("history-growth", "--label", "mine", "--compare-label", "deb")
        self.assertEqual(["mine:unthrottled", "deb:unthrottled", "mine:adaptive@1000"],
                         [r["arm"] for r in b.runs])
        self.assertTrue(os.path.isdir(os.path.join(b.outdir, "server-deb")))

    def test_purge_capacity_goes_on_for_the_server_that_keeps_up(self):
        b = self.bench("purge-capacity")
        self.assertEqual([("fork:rate@500", True), ("stock:rate@500", True),
                          ("fork:rate@1000", True), ("stock:rate@1000", False),
                          ("fork:rate@2000", False)],
                         [(r["arm"], r["bounded"]) for r in b.runs])

    def test_purge_capacity_stops_where_the_client_cannot_give_the_rate(self):
        class ShortClient(FakeBench):
            client_limit = 700
        b = self.bench("purge-capacity", "--rates", "500,1000,2000", cls=ShortClient,
                       compare=False)
        self.assertEqual([("rate@500", True, None), ("rate@1000", None, True)],
                         [(r["arm"], r["bounded"], r["client_short"] and True)
                          for r in b.runs])
        _, header, rows = next(t for t in b.tables() if t[0].startswith("purge-capacity"))
        self.assertEqual("- (rate not reached by the client)",
                         rows[1][header.index("purge keeps up")])

    def test_purge_capacity_ends_unpaced_while_purge_keeps_up(self):
        b = self.bench("purge-capacity", "--rates", "100,200")
        self.assertEqual([("fork:rate@100", True), ("stock:rate@100", True),
                          ("fork:rate@200", True), ("stock:rate@200", True),
                          ("fork:rate@max", True), ("stock:rate@max", True)],
                         [(r["arm"], r["bounded"]) for r in b.runs])
        # the fork is judged by what purge has not parsed, stock by its history
        self.assertEqual(["innodb_purge_unparsed_trx", "innodb_history_list_length"],
                         [r["bounded_by"] for r in b.runs[:2]])
        tables = {title: (header, rows) for title, header, rows in b.tables()}
        header, rows = tables["purge-capacity"]
        self.assertEqual("purge keeps up", header[5])
        self.assertEqual(["yes", "yes (history)"], [r[5] for r in rows[:2]])
        header, rows = tables["purge-capacity: what purge sustained"]
        self.assertEqual(["fork", "100", "the load: purge kept up with all of it (unpaced)"],
                         rows[0])

    def test_backlog_vs_lag_against_what_purge_sustained(self):
        b = self.bench("backlog-vs-lag", "purge-capacity", "--lags", "1000",
                       "--rates", "500,2000")
        tables = {title: (header, rows) for title, header, rows in b.tables()}
        _, sustained = tables["purge-capacity: what purge sustained"]
        self.assertEqual([["fork", "100", "purge: it fell behind at the next rate"],
                          ["stock", "90", "purge: it fell behind at the next rate"]], sustained)
        header, rows = tables["backlog-vs-lag"]
        self.assertEqual("tps / sustained by purge", header[-2])    # before B/A
        self.assertEqual("1.00", {r[0]: r for r in rows}["fork:adaptive@1000"][-2])
        self.assertEqual("1.00", {r[0]: r for r in rows}["stock:formula@1000"][-2])

    def test_rates_option(self):
        self.assertEqual([2000, 4000],
                         bench.parse_args(["purge-capacity", "--rates", "2000,4000"]).rates)
        for bad in ("4000,2000", "0,100", "a", "100,100"):
            with mock.patch("sys.stderr"), self.assertRaises(SystemExit):
                bench.parse_args(["purge-capacity", "--rates", bad])

    def test_b_over_a_column(self):
        b = self.bench("history-growth", "--repeats", "3")
        (title, header, rows), = b.tables()
        self.assertEqual("B/A tps (stock/fork)", header[-1])
        by = {row[0]: row for row in rows}
        self.assertEqual(["fork:unthrottled", "stock:unthrottled", "fork:adaptive@1000"],
                         list(by))
        self.assertEqual("100 (90..110)", by["fork:unthrottled"][1])     # median (min..max)
        self.assertEqual("", by["fork:unthrottled"][-1])
        # 90 over 100, 90 and 110 by repeat: median (min..max)
        self.assertEqual("**0.90** (red) (0.82..1.00)", by["stock:unthrottled"][-1])
        # vs its own first arm, repeat by repeat: median (min..max)
        self.assertEqual("1.00 (1.00..1.00)", by["stock:unthrottled"][-2])
        self.assertEqual("", by["fork:adaptive@1000"][-1])

    def test_ratio_to_unthrottled_pairs_the_runs_of_a_repeat(self):
        b = self.bench("backlog-vs-lag", "--lags", "1000", "--repeats", "3",
                       compare=False, cls=DriftBench)
        (title, header, rows), _ = b.tables()
        by = {row[0]: row for row in rows}
        i = header.index("qps / unthrottled")
        # 0.98, 0.97, 0.50 by repeat; the medians' ratio would say 58 / 100
        self.assertEqual("0.97 (0.50..0.98)", by["adaptive@1000"][i])
        self.assertEqual("1.00 (1.00..1.00)", by["formula@1000"][i])
        self.assertEqual("1.00 (1.00..1.00)", by["unthrottled"][i])

    def test_b_over_a_uses_qps_for_backlog_vs_lag(self):
        b = self.bench("backlog-vs-lag", "--lags", "1000")
        (title, header, rows), _ = b.tables()
        self.assertEqual("B/A qps (stock/fork)", header[-1])
        self.assertEqual("**0.90** (red)", {r[0]: r for r in rows}["stock:formula@1000"][-1])

    def test_what_the_history_held_for_the_servers_that_report_it(self):
        b = self.bench("backlog-vs-lag", "--lags", "1000", "--repeats", "3")
        _, (title, header, rows) = b.tables()
        self.assertEqual("backlog-vs-lag: what the history held (means over the samples)", title)
        by = {row[0]: row for row in rows}
        self.assertEqual(["fork:unthrottled", "fork:formula@1000", "fork:adaptive@1000"],
                         list(by))
        # history 100, unparsed 10/20/30 by repeat: median (min..max) of the repeats
        # (the fake reports no view-blocked part: "-")
        self.assertEqual(["100 (100..100)", "20 (10..30)", "-", "80 (70..90)", "0 (0..0)",
                          "0 (0..0)"], by["fork:formula@1000"][1:])

    def test_redo_of_stock_is_compared_with_the_forks_compact(self):
        with mock.patch.dict(bench.SCALE["redo-per-trx"], threads=((4,), (4,))):
            b = self.bench("redo-per-trx")
        (title, header, rows), = b.tables()
        by = {row[0]: row for row in rows}
        self.assertEqual(["fork:compact@4", "fork:generic@4", "stock:stock@4"], list(by))
        self.assertEqual("**1.50** (green)", by["fork:generic@4"][3])
        self.assertEqual("**1.50** (green)", by["stock:stock@4"][3])

    def test_alone_nothing_is_labelled(self):
        b = self.bench("history-growth", compare=False)
        self.assertEqual(["unthrottled", "adaptive@1000"], [r["arm"] for r in b.runs])
        self.assertNotIn("server", b.runs[0])
        self.assertTrue(os.path.isdir(os.path.join(b.outdir, "server")))
        self.assertTrue(os.path.exists(os.path.join(b.outdir, "my.cnf")))
        self.assertIn("build flavour", b.meta)
        self.assertNotIn("compared", b.meta)
        (title, header, rows), = b.tables()
        self.assertEqual("tps / first arm", header[-1])
        self.assertEqual(len(header), len(rows[0]))
        self.assertIn(summary.LATENCY_HEADER, header)


class ServerListTest(unittest.TestCase):
    """--server-list: N labelled servers in one run."""

    def setUp(self):
        CompareTest.setUp(self)     # the same fake fork and Debian trees
        self.old = fake_tree(os.path.join(self.tmp, "old"), debian=False, version="10.5.23",
                             lacks={"innodb_flush_method"})
        FakeServer.lacking[self.old] = FORK_ONLY

    def listed(self, *argv, servers=None):
        servers = servers or (f"fork={self.fork},stock={os.path.dirname(self.stock)},"
                              f"old={os.path.dirname(os.path.dirname(self.old))}")
        argv = list(argv) + ["--server-list", servers, "--out", os.path.join(self.tmp, "out")]
        b = FakeBench(bench.parse_args(argv))
        for sc in b.args.scenarios:
            with mock.patch("builtins.print"):
                b.scenario(sc)
        b.stop()
        return b

    def test_parsing(self):
        sl = options.server_list(f"fork={self.fork},stock={self.stock}:/opt/base")
        self.assertEqual([("fork", self.fork, None), ("stock", self.stock, "/opt/base")], sl)
        # a directory: the mariadbd under it (here Debian's tree, usr/sbin)
        root = os.path.dirname(os.path.dirname(os.path.dirname(self.stock)))
        self.assertEqual(self.stock, options.server_list(f"a={self.fork},b={root}")[1][1])
        # a superbuild directory: its release/sql/mariadbd
        sb = os.path.join(self.tmp, "build-stock-10.5")
        tree = os.path.join(sb, "release", "sql")
        os.makedirs(tree)
        shutil.copy(self.fork, tree)
        self.assertEqual(os.path.join(tree, "mariadbd"),
                         options.server_list(f"a={self.fork},b={sb}")[1][1])

    def test_server_takes_a_directory_as_the_list_does(self):
        sb = os.path.join(self.tmp, "build-x")
        tree = os.path.join(sb, "release", "sql")
        os.makedirs(tree)
        shutil.copy(self.fork, tree)
        a = bench.parse_args(["history-growth", "--server", sb, "--compare-server", sb])
        self.assertEqual((os.path.join(tree, "mariadbd"),) * 2, (a.server, a.compare_server))
        from test_fail_early import parse_error
        self.assertIn(f"--server: no mariadbd under {self.tmp}",
                      parse_error(["history-growth", "--server", self.tmp]))

    def test_bad_lists_are_clear_errors(self):
        for text, msg in ((f"fork={self.fork}", "two or more servers"),
                          (f"fork={self.fork},fork={self.stock}", "given twice"),
                          (f"fork={self.fork},{self.stock}", "give LABEL=PATH"),
                          (f"fork={self.fork},a:b={self.stock}", "label 'a:b'"),
                          (f"fork={self.fork},b=", "give LABEL=PATH"),
                          (f"fork={self.fork},b={self.stock}:", "empty BASEDIR"),
                          (f"fork={self.fork},b={self.tmp}", "no mariadbd under")):
            with self.assertRaisesRegex(options.argparse.ArgumentTypeError, msg, msg=text):
                options.server_list(text)
        for argv in (["--server-list", f"a={self.fork},b={self.stock}", "--server", self.fork],
                     ["--server-list", f"a={self.fork},b={self.stock}", "--compare-server",
                      self.stock],
                     ["--server-list", f"a={self.fork},b={self.stock}", "--label", "x"]):
            with self.assertRaises(SystemExit, msg=argv), mock.patch("sys.stderr"):
                bench.parse_args(argv)

    def test_every_arm_on_each_server_rotated(self):
        b = self.listed("history-growth", "--repeats", "3")
        no = [r["server"] for r in b.runs if r["arm"].endswith(":unthrottled")]
        self.assertEqual(["fork", "stock", "old", "stock", "old", "fork",
                          "old", "fork", "stock"], no)
        # the fork's own arm runs on the fork alone, each repeat
        self.assertEqual(3, sum(r["arm"] == "fork:adaptive@1000" for r in b.runs))
        self.assertEqual(["server-fork", "server-old", "server-stock"],
                         sorted(d for d in os.listdir(b.outdir) if d.startswith("server")))
        self.assertTrue(b.meta["compared"].startswith("fork, stock, old: every arm runs on "
                                                      "each"))

    def test_a_relative_column_against_the_first_server(self):
        b = self.listed("history-growth", "--repeats", "3")
        (title, header, rows), = b.tables()
        self.assertEqual("tps / fork (each server's row)", header[-1])
        by = {row[0]: row for row in rows}
        self.assertEqual("", by["fork:unthrottled"][-1])
        self.assertEqual("**0.90** (red) (0.82..1.00)", by["stock:unthrottled"][-1])
        self.assertEqual("**0.80** (red) (0.73..0.89)", by["old:unthrottled"][-1])
        self.assertEqual(len(header), len(rows[0]))

    def test_backlog_vs_lag_skips_the_forks_arms_on_both_stock_servers(self):
        b = self.listed("backlog-vs-lag", "--lags", "1000")
        self.assertEqual(["fork:unthrottled", "stock:unthrottled", "old:unthrottled",
                          "fork:formula@1000", "stock:formula@1000", "old:formula@1000",
                          "fork:adaptive@1000"], [r["arm"] for r in b.runs])
        with open(os.path.join(b.outdir, "progress.log")) as f:
            log = f.read()
        for label in ("stock", "old"):
            self.assertIn(f"  {label}: skipping adaptive@1000: needs @@innodb_purge_throttle",
                          log)

    def test_connections_and_prepared_statements_are_sized_for_the_threads(self):
        b = self.listed("backlog-vs-lag", "--threads", "4096", "--lags", "1000",
                        "--arms", "unthrottled")
        for t in b.targets:
            self.assertEqual("4146", t.server.options["max_connections"], t.label)
            self.assertEqual(str(4096 * 32), t.server.options["max_prepared_stmt_count"],
                             t.label)
        b = self.listed("history-growth")       # 256 threads at least: the default
        self.assertEqual("16382", b.targets[0].server.options["max_prepared_stmt_count"])

    def test_settings_a_version_does_not_know_are_left_out_and_listed(self):
        b = self.listed("history-growth")
        old = next(t for t in b.targets if t.label == "old")
        self.assertNotIn("innodb_flush_method", old.server.options)
        self.assertIn("innodb_buffer_pool_size", old.server.options)
        self.assertEqual("innodb_flush_method",
                         b.meta["old: my.cnf settings left out (the server does not know "
                                "them)"])
        self.assertIn("Ver 10.5.23", b.meta["old: mariadbd --version"])
        # the others keep it (the fake fork says nothing: not checked)
        fork = next(t for t in b.targets if t.label == "fork")
        self.assertEqual("O_DIRECT", fork.server.options["innodb_flush_method"])
        self.assertIn("not checked", b.meta["fork: my.cnf settings"])
        # each server's my.cnf in the report, without this run's paths
        self.assertIn("innodb_buffer_pool_size=2G", b.meta["old: my.cnf"])
        self.assertNotIn("innodb_flush_method", b.meta["old: my.cnf"])
        self.assertNotIn("datadir", b.meta["old: my.cnf"])
        with open(os.path.join(b.outdir, "progress.log")) as f:
            self.assertIn("old: leaving innodb_flush_method out of its my.cnf", f.read())


class HelpVariablesTest(unittest.TestCase):
    def test_parse_help_table(self):
        text = ("mariadbd  Ver 10.5.23-MariaDB\n  --innodb-foo  an option\n"
                + help_table(["innodb_buffer_pool_size", "skip_networking", "max_connections"]))
        self.assertEqual({"innodb_buffer_pool_size", "skip_networking", "max_connections"},
                         parse_help_variables(text))
        self.assertIsNone(parse_help_variables("mariadbd  Ver 10.5.23-MariaDB\n"))

    def test_unknown_settings(self):
        known = {"innodb_buffer_pool_size", "innodb_doublewrite", "max_connections"}
        opts = {"innodb_buffer_pool_size": "2G", "innodb-doublewrite": "ON",
                "innodb_purge_throttle": "adaptive", "skip-innodb-doublewrite": None,
                "loose-innodb-whatever": "1", "max_connections": "300"}
        self.assertEqual(["innodb_purge_throttle"], unknown_settings(opts, known))
        self.assertEqual([], unknown_settings(opts, None))


class InterleaveTest(unittest.TestCase):
    class T:
        def __init__(self, label, lacks=()):
            self.label, self.lacks = label, set(lacks)

    @staticmethod
    def has(t, var):
        return var not in t.lacks

    def test_one_server_runs_its_arms_in_order(self):
        a = self.T("a")
        x, y = Arm("x"), Arm("y")
        runs, notes = bench.interleave([(a, [(x, {}), (y, {"v": 1})])], self.has)
        self.assertEqual([(a, x, {}), (a, y, {"v": 1})], runs)
        self.assertEqual([], notes)

    def test_an_arm_only_the_other_server_has_is_left_out_silently(self):
        a, b = self.T("a", FORK_ONLY), self.T("b")
        stock, compact = Arm("stock"), Arm("compact")
        runs, notes = bench.interleave([(a, [(stock, {})]), (b, [(compact, {})])], self.has)
        self.assertEqual([(a, stock, {}), (b, compact, {})], runs)
        self.assertEqual([], notes)

    def test_lacking_a_variable_of_its_own_arm_skips_it(self):
        a, b = self.T("a"), self.T("b", {"w"})
        x = Arm("x")
        runs, notes = bench.interleave([(a, [(x, {"w": 1})]), (b, [(x, {"w": 2})])],
                                       self.has)
        self.assertEqual([(a, x, {"w": 1})], runs)
        self.assertEqual(["  b: skipping x: needs @@w, which it lacks"], notes)


class HistoryCompositionTest(unittest.TestCase):
    SAMPLES = [{"innodb_history_list_length": 1000, "innodb_purge_unparsed_trx": 400,
                "innodb_purge_rsegs_withheld": 16, "innodb_purge_throttle_active": 0,
                "innodb_purge_view_blocked_trx": 100},
               {"innodb_history_list_length": 3000, "innodb_purge_unparsed_trx": 600,
                "innodb_purge_rsegs_withheld": 0, "innodb_purge_throttle_active": 1,
                "innodb_purge_view_blocked_trx": 500}]

    def test_means_of_what_the_history_held(self):
        self.assertEqual({"held_history": 2000, "held_unparsed": 500, "held_view_blocked": 300,
                          "held_not_truncated": 1500, "held_withheld": 8,
                          "held_throttled_share": 50},
                         stats.history_composition(self.SAMPLES))

    def test_a_build_without_the_view_blocked_count(self):
        older = [{k: v for k, v in s.items() if k != "innodb_purge_view_blocked_trx"}
                 for s in self.SAMPLES]
        self.assertIsNone(stats.history_composition(older)["held_view_blocked"])

    def test_a_server_without_the_unparsed_count_has_none(self):
        # the sampler records a variable that the server lacks as None
        stock = [{"innodb_history_list_length": 1000, "innodb_purge_unparsed_trx": None}]
        self.assertEqual({}, stats.history_composition(stock))
        self.assertEqual({}, stats.history_composition([]))


class LineStyleTest(unittest.TestCase):
    def test_one_colour_per_arm_one_line_style_per_repeat(self):
        runs = [{"arm": a, "repeat": n} for n in (1, 2) for a in ("x", "y", "z")]
        styles = [plots.line_style(runs, r) for r in runs]
        self.assertEqual(["C0", "C1", "C2", "C0", "C1", "C2"], [s["color"] for s in styles])
        self.assertEqual(["-"] * 3 + ["--"] * 3, [s["linestyle"] for s in styles])
        self.assertEqual("-", plots.line_style(runs, {"arm": "x", "repeat": 5})["linestyle"])


class PlottedTpsTest(unittest.TestCase):
    def test_sysbench_report_glitch_is_left_out(self):
        # sysbench 1.0.20 at 4096 threads, one second reporting 1.2M tps
        path = os.path.join(os.path.dirname(__file__), "fixtures",
                            "sysbench-4096-report-glitch.txt")
        with open(path) as f:
            ivs = [iv for iv in map(sysbench.parse_interval, f) if iv]
        tps = plots.plotted_tps(ivs)
        self.assertEqual(len(ivs), len(tps))
        dropped = [iv["t"] for iv, v in zip(ivs, tps) if v is None]
        self.assertEqual([27.0], dropped)
        self.assertEqual([iv["tps"] for iv in ivs if iv["t"] != 27.0],
                         [v for v in tps if v is not None])

    def test_no_intervals_or_no_tps(self):
        self.assertEqual([], plots.plotted_tps([]))
        self.assertEqual([None], plots.plotted_tps([{"t": 1.0}]))


class TruncationFiguresTest(unittest.TestCase):
    # three samples a second apart, as the sampler records the fork's counters
    SAMPLES = [{"t": 1.0, "innodb_purge_truncation_passes": 100,
                "innodb_purge_truncation_usec": 50000,
                "innodb_purge_truncation_busy_rsegs": 60,
                "innodb_purge_truncation_referenced_rsegs": 120,
                "innodb_purge_drain_released": 10, "innodb_purge_drain_withheld_usec": 0},
               {"t": 2.0, "innodb_purge_truncation_passes": 110,
                "innodb_purge_truncation_usec": 60000,
                "innodb_purge_truncation_busy_rsegs": 64,
                "innodb_purge_truncation_referenced_rsegs": 124,
                "innodb_purge_drain_released": 30, "innodb_purge_drain_withheld_usec": 2000000},
               {"t": 3.0, "innodb_purge_truncation_passes": 120,
                "innodb_purge_truncation_usec": 70000,
                "innodb_purge_truncation_busy_rsegs": 68,
                "innodb_purge_truncation_referenced_rsegs": 128,
                "innodb_purge_drain_released": 50, "innodb_purge_drain_withheld_usec": 6000000}]

    def test_rates_and_means_between_the_first_and_last_sample(self):
        f = stats.truncation_figures(self.SAMPLES)
        self.assertEqual(10, f["trunc_passes_per_s"])          # 20 passes in 2 s
        self.assertEqual(1, f["trunc_pass_ms"])                # 20 ms over 20 passes
        self.assertEqual(64, f["trunc_busy_rsegs"])
        self.assertEqual(124, f["trunc_referenced_rsegs"])
        self.assertEqual(20, f["drain_released_per_s"])
        self.assertEqual(150, f["drain_withheld_ms"])          # 6 s over 40 segments

    def test_nothing_given_back_has_no_withheld_time(self):
        quiet = [dict(s, innodb_purge_drain_released=0) for s in self.SAMPLES]
        self.assertIsNone(stats.truncation_figures(quiet)["drain_withheld_ms"])
        self.assertEqual(0, stats.truncation_figures(quiet)["drain_released_per_s"])

    def test_a_server_without_the_counters_or_one_sample_has_none(self):
        stock = [{"t": s["t"], "innodb_purge_truncation_passes": None} for s in self.SAMPLES]
        self.assertEqual({}, stats.truncation_figures(stock))
        self.assertEqual({}, stats.truncation_figures(self.SAMPLES[:1]))

    def test_the_table_beside_what_the_history_held(self):
        f = stats.truncation_figures(self.SAMPLES)
        runs = [dict(f, arm="adaptive@10000", held_history=9, held_unparsed=1,
                     held_view_blocked=0, held_not_truncated=8, held_withheld=64,
                     held_throttled_share=0),
                {"arm": "stock:unthrottled", "held_history": 100}]
        (_, _, held), (title, header, rows) = summary.held_table("backlog-vs-lag", runs)
        self.assertEqual(["adaptive@10000"], [r[0] for r in held])
        self.assertIn("undo log truncation", title)
        self.assertEqual([["adaptive@10000", "10.0", "1.0", "64.0", "124.0", "20.0", "150.0"]],
                         rows)
        self.assertEqual(len(header), len(rows[0]))


class RotateTest(unittest.TestCase):
    def test_first_repeat_as_planned_then_one_arm_later_each(self):
        runs = [("a", "x"), ("a", "y"), ("a", "z")]
        self.assertEqual(runs, bench.rotate(runs, 1))
        self.assertEqual([("a", "y"), ("a", "z"), ("a", "x")], bench.rotate(runs, 2))
        self.assertEqual([("a", "z"), ("a", "x"), ("a", "y")], bench.rotate(runs, 3))
        self.assertEqual(runs, bench.rotate(runs, 4))

    def test_the_servers_runs_of_an_arm_stay_together_their_order_rotated(self):
        runs = [("A", "x", 1), ("B", "x", 2), ("A", "y", 3), ("B", "y", 4), ("A", "z", 5)]
        self.assertEqual([("B", "y", 4), ("A", "y", 3), ("A", "z", 5), ("B", "x", 2),
                          ("A", "x", 1)], bench.rotate(runs, 2))
        self.assertEqual(runs, bench.rotate(runs, 3)[1:] + bench.rotate(runs, 3)[:1])

    def test_each_of_n_servers_runs_an_arm_first_once_in_n_repeats(self):
        runs = [(s, "x") for s in "ABCD"] + [(s, "y") for s in "ABCD"]
        firsts = []
        for r in range(1, 5):
            order = bench.rotate(runs, r)
            self.assertEqual(sorted(runs), sorted(order))
            x = [s for s, arm in order if arm == "x"]
            self.assertEqual(4, len(x))
            firsts.append(x[0])
            # still grouped: the four runs of an arm follow each other
            arms = [arm for _, arm in order]
            self.assertEqual(arms, sorted(arms, key=arms.index))
        self.assertEqual(["A", "B", "C", "D"], firsts)

    def test_nothing_to_run(self):
        self.assertEqual([], bench.rotate([], 3))


class DrainArmsTest(unittest.TestCase):
    def test_without_drains_the_arms_are_unchanged(self):
        arms = [(Arm("unthrottled"), {"innodb_max_purge_lag": 0})]
        self.assertIs(arms, bench.with_drains(arms, None))

    def test_each_arm_once_per_width_named_before_the_lag(self):
        arms = [(Arm("unthrottled"), {"innodb_max_purge_lag": 0}),
                (Arm("adaptive", 10000), {"innodb_purge_throttle": "adaptive"})]
        got = bench.with_drains(arms, [0, 16])
        self.assertEqual(
            [("unthrottled", {"innodb_max_purge_lag": 0, "innodb_purge_drain_rsegs": 0}),
             ("unthrottled+drain16", {"innodb_max_purge_lag": 0,
                                      "innodb_purge_drain_rsegs": 16}),
             ("adaptive@10000", {"innodb_purge_throttle": "adaptive",
                                 "innodb_purge_drain_rsegs": 0}),
             ("adaptive+drain16@10000", {"innodb_purge_throttle": "adaptive",
                                         "innodb_purge_drain_rsegs": 16})],
            [(str(arm), st) for arm, st in got])
        self.assertEqual(Arm("adaptive", 10000, 16), got[3][0])

    def test_compared_with_unthrottled_at_the_same_width(self):
        def un(name):
            return str(Arm.parse(name, "backlog-vs-lag").unthrottled())
        self.assertEqual("unthrottled", un("adaptive@10000"))
        self.assertEqual("unthrottled", un("unthrottled"))
        self.assertEqual("unthrottled+drain64", un("adaptive+drain64@10000"))
        self.assertEqual("unthrottled+drain16", un("unthrottled+drain16"))
        self.assertEqual("stock:unthrottled+drain16", un("stock:formula+drain16@1000"))

    def test_a_server_without_the_variable_skips_drain_arms(self):
        t = InterleaveTest.T("stock", {"innodb_purge_drain_rsegs"})
        runs, notes = bench.interleave(
            [(t, bench.with_drains([(Arm("unthrottled"), {})], [0, 16], False))],
            InterleaveTest.has)
        self.assertEqual([(t, Arm("unthrottled"), {})], runs)
        self.assertEqual(["  stock: skipping unthrottled+drain16: needs "
                          "@@innodb_purge_drain_rsegs, which it lacks"], notes)


class ArmTest(unittest.TestCase):
    """plan.Arm: the structured arm, its name in results and back."""
    NAMES = (  # (scenario, name as saved results hold it, the Arm)
        ("backlog-vs-lag", "unthrottled", Arm("unthrottled")),
        ("backlog-vs-lag", "formula@10000", Arm("formula", 10000)),
        ("backlog-vs-lag", "stock:formula@10000", Arm("formula", 10000, server="stock")),
        ("backlog-vs-lag", "fork:adaptive+drain64@1000",
         Arm("adaptive", 1000, 64, server="fork")),
        ("history-growth", "adaptive@1000", Arm("adaptive", 1000)),
        ("tpcc", "stock-10.11.18:unthrottled", Arm("unthrottled", server="stock-10.11.18")),
        ("thread-sweep", "innodb_undo_log_compact_init=ON@16",
         Arm("innodb_undo_log_compact_init=ON", step="16")),
        ("thread-sweep", "default+drain2@4", Arm("default", drain=2, step="4")),
        ("redo-per-trx", "stock:stock@256", Arm("stock", step="256", server="stock")),
        ("purge-capacity", "fork:rate@max", Arm("rate", step="max", server="fork")),
        ("purge-capacity", "rate@5000", Arm("rate", step="5000")),
        ("insert-benchmark", "unthrottled@l.i0", Arm("unthrottled", step="l.i0")),
        ("insert-benchmark", "fork:formula+drain2@10000@qr100",
         Arm("formula", 10000, 2, "qr100", "fork")),
    )

    def test_name_and_back(self):
        for scenario, name, arm in self.NAMES:
            self.assertEqual(name, str(arm))
            self.assertEqual(arm, Arm.parse(name, scenario), name)
            self.assertEqual(arm, plan.arm_of({"arm": name, "scenario": scenario}))

    def test_every_saved_run_reads_back_to_its_name(self):
        import glob
        import json
        for path in glob.glob(os.path.join(FIXTURES, "results", "*", "runs.json")):
            with open(path) as f:
                for r in json.load(f):
                    self.assertEqual(r["arm"], str(plan.arm_of(r)), path)
                    if r.get("lag") and r["scenario"] != "insert-benchmark":
                        self.assertIn(plan.arm_of(r).lag, (None, r["lag"]), r["arm"])

    def test_a_step_and_a_server(self):
        arm = Arm("formula", 1000)
        self.assertEqual("formula@1000@l.i1", str(arm.at("l.i1")))
        self.assertEqual("rate@max", str(Arm("rate").at("max")))
        t = Target("stock", None, None, labelled=True)
        self.assertEqual("stock:formula@1000", str(t.arm(arm)))
        self.assertTrue(t.owns(t.arm(arm)))
        self.assertFalse(t.owns(arm))
        self.assertEqual(arm, Target("fork", None, None, labelled=False).arm(arm))


class CpuLoadTest(unittest.TestCase):
    def test_spins_while_the_block_runs_and_stops_after(self):
        with cpuload.spinning(2) as procs:
            self.assertEqual(2, len(procs))
            self.assertTrue(all(p.poll() is None for p in procs))
        self.assertTrue(all(p.poll() is not None for p in procs))

    def test_stops_when_the_block_fails(self):
        with self.assertRaises(KeyboardInterrupt):
            with cpuload.spinning(1) as procs:
                raise KeyboardInterrupt
        self.assertIsNotNone(procs[0].poll())

    def test_none_by_default(self):
        with cpuload.spinning(0) as procs:
            self.assertEqual([], procs)


class StockInstallationTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-test-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_debian_tree_unpacked_elsewhere(self):
        root = os.path.join(self.tmp, "stock")
        inst = Installation(fake_tree(root, debian=True))
        usr = os.path.join(root, "usr")
        self.assertEqual(usr, inst.basedir)
        self.assertEqual(os.path.join(usr, "bin", "mariadb"), inst.client)
        self.assertEqual(os.path.join(usr, "bin", "mariadb-install-db"), inst.install_db)
        self.assertEqual([f"--basedir={usr}",
                          f"--lc-messages-dir={os.path.join(usr, 'share', 'mysql')}"],
                         inst.server_args())
        self.assertEqual([f"--basedir={usr}"], inst.install_db_args())

    def test_tarball_layout_unchanged(self):
        root = os.path.join(self.tmp, "tarball")
        inst = Installation(fake_tree(root, debian=False))
        self.assertEqual([f"--basedir={root}"], inst.server_args())


if __name__ == "__main__":
    unittest.main()


class ReportTest(unittest.TestCase):
    def test_read_samples_gives_back_what_write_samples_wrote(self):
        from purgebench import report
        runs = [dict(scenario="backlog-vs-lag", arm=arm, repeat=rep, qps=1.0,
                     samples=[dict(t=float(i), history=10 * i + rep) for i in range(3)],
                     intervals=[dict(t=float(i), tps=100.0 + i) for i in range(2)])
                for arm in ("unthrottled", "adaptive@10000") for rep in (1, 2)]
        d = tempfile.mkdtemp()
        try:
            report.write_samples(d, runs)
            back = report.read_samples(d)
        finally:
            shutil.rmtree(d)
        self.assertEqual(len(runs), len(back))
        for want, got in zip(runs, back):
            self.assertEqual((want["arm"], want["repeat"]), (got["arm"], got["repeat"]))
            self.assertEqual([s["history"] for s in want["samples"]],
                             [s["history"] for s in got["samples"]])
            self.assertEqual([iv["tps"] for iv in want["intervals"]],
                             [iv["tps"] for iv in got["intervals"]])
