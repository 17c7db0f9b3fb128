# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Unit tests of the benchmark harness's parsers and statistics."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, sampler, stats, sysbench  # noqa: E402
from purgebench.server import parse_backlog  # noqa: E402

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

    def test_trx_id_counter(self):
        text = "------------\nTRANSACTIONS\n------------\nTrx id counter 123456\nPurge done"
        self.assertEqual(123456, sampler.parse_trx_counter(text))
        self.assertIsNone(sampler.parse_trx_counter("nothing"))

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
        self.assertFalse(bench.purge_keeps_up(grow))
        self.assertTrue(bench.purge_keeps_up(flat))


class CliTest(unittest.TestCase):
    def test_defaults(self):
        a = bench.parse_args([])
        self.assertEqual(list(bench.DEFAULT_SCENARIOS), a.scenarios)
        self.assertEqual(["formula", "adaptive"], a.arms)

    def test_all_and_lags(self):
        a = bench.parse_args(["all", "--lags", "10,20"])
        self.assertEqual(list(bench.SCENARIOS), a.scenarios)
        self.assertEqual([10, 20], a.lags)

    def test_missing_server_binary_is_a_clear_error(self):
        rc = bench.main(["--server", "/nonexistent/mariadbd", "--out", "/tmp/pb-missing"])
        self.assertEqual(1, rc)


if __name__ == "__main__":
    unittest.main()
