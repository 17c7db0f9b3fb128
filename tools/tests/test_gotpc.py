# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Unit tests of the go-tpc client (tpcc and ch scenarios): parsing of its
real output (fixtures saved from go-tpc v1.0.7 runs against the fork's
release build), the check verdict, the tables."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from purgebench import bench, gotpc  # noqa: E402
from purgebench import tables as summary  # noqa: E402
from purgebench.scenarios import tpcc  # noqa: E402
from test_purgebench import fixture  # noqa: E402



class ParseTest(unittest.TestCase):
    def test_summary_line(self):
        kind, name, f = gotpc.parse_line(
            "[Summary] NEW_ORDER - Takes(s): 29.9, Count: 1234, TPM: 2476.3, Sum(ms): 100.5, "
            "Avg(ms): 8.1, 50th(ms): 7.3, 90th(ms): 12.6, 95th(ms): 14.7, 99th(ms): 25.2, "
            "99.9th(ms): 46.1, Max(ms): 60.8")
        self.assertEqual(("Summary", "NEW_ORDER"), (kind, name))
        self.assertEqual(1234, f["count"])
        self.assertEqual(14.7, f["p95_ms"])
        self.assertEqual(25.2, f["p99_ms"])
        self.assertEqual(60.8, f["max_ms"])
        self.assertIsNone(gotpc.parse_line("Finished"))

    def test_tpcc_run(self):
        text = fixture("gotpc-tpcc-run.txt")
        p = gotpc.parse(text)
        self.assertEqual(set(gotpc.TPCC_TYPES), {n for n in p["summary"]
                                                 if not n.endswith("_ERR")})
        self.assertIsNotNone(p["tpmc"])
        no = p["summary"]["NEW_ORDER"]
        # tpmC is the New-Order rate per minute
        self.assertAlmostEqual(no["tpm"], p["tpmc"], delta=0.1 * p["tpmc"])
        r = gotpc.result(p, text)
        self.assertAlmostEqual(r["nopm"], no["count"] / no["takes_s"] * 60)
        self.assertGreater(r["transactions_per_s"], 0)
        self.assertEqual(sum(p["errors"].values()), r["errors"])
        self.assertTrue(p["intervals"])
        self.assertNotIn("ac_queries", r)

    def test_run_intervals_and_latency(self):
        run = fake_run(fixture("gotpc-tpcc-run.txt"))
        summary = run.pump()
        self.assertGreater(summary["transactions_per_s"], 0)
        self.assertTrue(run.intervals)
        self.assertEqual(sorted(iv["t"] for iv in run.intervals), [iv["t"] for iv in run.intervals])
        lat = run.latency()
        self.assertLessEqual(lat["lat_p50_ms"], lat["lat_p95_ms"])
        self.assertLessEqual(lat["lat_p95_ms"], lat["lat_p99_ms"])
        self.assertLessEqual(lat["lat_p99_ms"], lat["lat_max_ms"])
        self.assertIn("tpmc", run.extra())

    def test_ch_run_counts_analytical_queries(self):
        text = fixture("gotpc-ch-run.txt")
        p = gotpc.parse(text)
        r = gotpc.result(p, text)
        self.assertEqual(33, r["ac_queries"])           # Q1..Q22 summary counts
        self.assertEqual(4208.2, r["ac_queries_per_hour"])  # go-tpc's QphH
        self.assertEqual(23710.9, r["tpmc"])
        # errors of both kinds, by type
        self.assertEqual({"NEW_ORDER": 1, "PAYMENT": 2, "Q12": 1}, r["errors_by_type"])

    def test_errors_are_counted(self):
        text = ("[Summary] NEW_ORDER - Takes(s): 10.0, Count: 100, TPM: 600.0\n"
                "[Summary] NEW_ORDER_ERR - Takes(s): 10.0, Count: 2, TPM: 12.0\n"
                "[Summary] PAYMENT_ERR - Takes(s): 10.0, Count: 3, TPM: 18.0\n"
                "[mysql] 2026/11/24 packets.go:37: unexpected EOF\n"
                "execute run failed, err invalid connection\n"
                "tpmC: 600.0, tpmTotal: 600.0, efficiency: 100.0%\n")
        r = gotpc.result(gotpc.parse(text), text)
        self.assertEqual({"NEW_ORDER": 2, "PAYMENT": 3}, r["errors_by_type"])
        self.assertEqual(5, r["errors"])
        self.assertEqual(1, r["error_lines"])


class CheckTest(unittest.TestCase):
    def test_passed(self):
        self.assertEqual("passed", gotpc.check_verdict(fixture("gotpc-tpcc-check.txt"), 0,
                                                       False, 900))

    def test_stopped_at_the_slow_condition(self):
        # stopped by SIGTERM after 90 s in 3.3.2.10; go-tpc then printed a
        # 'failed ... context canceled', which is the stop, not a failure
        self.assertEqual("3.3.2.4, 3.3.2.8, 3.3.2.9 passed; 3.3.2.10 (warehouse 1) not "
                         "finished in 90 s",
                         gotpc.check_verdict(fixture("gotpc-tpcc-check-stopped.txt"), 0,
                                             True, 90))

    def test_failed(self):
        v = gotpc.check_verdict("check condition 2 failed sum mismatch\n", 1, False, 120)
        self.assertTrue(v.startswith("FAILED: check condition 2 failed"), v)
        self.assertTrue(gotpc.check_verdict("", 1, False, 120).startswith("FAILED"))

    def test_not_finished(self):
        self.assertEqual("not finished in 60 s", gotpc.check_verdict("", -15, True, 60))


class FakeProc:
    def __init__(self, text, rc):
        self.stdout = iter(text.splitlines(True))
        self.rc = rc

    def wait(self):
        return self.rc


def fake_run(text, rc=0):
    run = gotpc.Run.__new__(gotpc.Run)
    run.on_interval = run.on_exit = None
    run.intervals, run.text, run.t, run.parsed = [], [], 0.0, None
    run.proc = FakeProc(text, rc)
    return run


class ClientErrorTest(unittest.TestCase):
    def test_a_client_that_cannot_connect_is_a_clear_error(self):
        # go-tpc with a wrong password: a panic and exit code 2
        with self.assertRaises(gotpc.GoTpcError) as e:
            fake_run(fixture("gotpc-tpcc-badpass.txt"), rc=2).pump()
        self.assertIn("failed to connect to database", str(e.exception))

    def test_no_summary_is_an_error(self):
        with self.assertRaises(gotpc.GoTpcError):
            fake_run("Finished\n").pump()


class CommandTest(unittest.TestCase):
    def test_loopback_only(self):
        cmd = gotpc.command("/x/go-tpc", 40000, "ch", "run", 4, threads=8, seconds=60,
                            ac_threads=2, interval=1)
        self.assertEqual(["/x/go-tpc", "ch", "-H", "127.0.0.1", "-P", "40000"], cmd[:6])
        self.assertIn("--warehouses", cmd)
        self.assertEqual(["-t", "2"], cmd[cmd.index("-t"):cmd.index("-t") + 2])
        self.assertIn("60s", cmd)

    def test_options(self):
        a = bench.parse_args(["tpcc", "--warehouses", "2", "--check-time", "30"])
        self.assertEqual((2, 30), (a.warehouses, a.check_time))
        a = bench.parse_args(["ch", "--ac-threads", "2"])
        self.assertEqual(2, a.ac_threads)


class TableTest(unittest.TestCase):
    def test_relative_to_unthrottled_of_the_same_repeat(self):
        def run(arm, repeat, tpmc):
            return {"scenario": "tpcc", "arm": arm, "repeat": repeat, "tpmc": tpmc,
                    "nopm": tpmc, "check": "passed", "errors": 1, "error_lines": 0,
                    "txn": {"NEW_ORDER": {"p95_ms": 10.0, "p99_ms": 20.0}}}
        runs = [run("unthrottled", 1, 1000), run("adaptive@10000", 1, 900),
                run("unthrottled", 2, 500), run("adaptive@10000", 2, 500)]
        (title, header, rows), = tpcc.gotpc_tables("tpcc", runs)
        by = {r[0]: r for r in rows}
        self.assertEqual("**0.95** (red) (0.90..1.00)", by["adaptive@10000"][-1])
        self.assertEqual("10 / 20", by["adaptive@10000"][header.index("New-Order p95 / p99 ms")])
        self.assertEqual("passed", by["adaptive@10000"][header.index("check")])
        self.assertEqual("2 (0)", by["adaptive@10000"][header.index("_ERR (error lines)")])

    def test_what_the_history_held(self):
        runs = [{"arm": "unthrottled", "held_history": 40000, "held_unparsed": 5000,
                 "held_view_blocked": 4700, "held_not_truncated": 35000, "held_withheld": 0,
                 "held_throttled_share": 0},
                {"arm": "stock:unthrottled", "held_history": 100}]    # no unparsed count
        (title, header, rows), = summary.held_table("ch", runs)
        self.assertEqual("ch: what the history held (means over the samples)", title)
        self.assertEqual([["unthrottled", "40,000", "5,000", "4,700", "35,000", "0", "0"]], rows)
        self.assertEqual([], summary.held_table("ch", runs[1:]))


if __name__ == "__main__":
    unittest.main()
