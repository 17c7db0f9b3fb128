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

"""snapshot-release (MDEV-16260's protocol): the read view's holder, the
figures of a run, the plan of both forms, the tables and the plot."""

import os
import sys
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, report, snapshot  # noqa: E402
from purgebench.plan import Arm  # noqa: E402
import test_insertbench_hook as hook  # noqa: E402
import test_purgebench as tp  # noqa: E402


class FakeConn:
    """A PyMySQL connection that records what it is sent."""

    def __init__(self, history=4321):
        self.sent, self.history, self.closed = [], history, False

    def cursor(self):
        conn = self

        class Cursor:
            def __enter__(self):
                return self

            def __exit__(self, *a):
                return False

            def execute(self, sql):
                conn.sent.append((round(time.time(), 2), sql))

            def fetchall(self):
                return [(1,)]

            def fetchone(self):
                return ("Innodb_history_list_length", str(conn.history))
        return Cursor()

    def close(self):
        self.closed = True


class ViewHolderTest(unittest.TestCase):
    def test_opens_after_before_and_releases_after_hold(self):
        conn = FakeConn()
        t0 = time.time()
        h = snapshot.ViewHolder(lambda: conn, t0, 0.2, 0.3)
        h.start()
        h.join(timeout=5)
        h.close()
        sqls = [sql for _, sql in conn.sent]
        self.assertEqual("START TRANSACTION WITH CONSISTENT SNAPSHOT", sqls[0])
        self.assertEqual("COMMIT", sqls[-1])
        self.assertTrue(0.15 <= h.opened <= 0.5, h.opened)
        self.assertTrue(0.45 <= h.released <= 0.9, h.released)
        self.assertEqual(4321, h.result()["history_at_release"])
        self.assertTrue(conn.closed)

    def test_the_stop_form_releases_with_the_load(self):
        conn = FakeConn()
        h = snapshot.ViewHolder(lambda: conn, time.time(), 0.05)     # hold: until release()
        h.start()
        time.sleep(0.3)
        self.assertIsNone(h.released)
        h.release()             # the load's end (on_exit)
        h.close()
        self.assertIsNotNone(h.released)
        self.assertEqual(1, [sql for _, sql in conn.sent].count("COMMIT"))

    def test_a_load_shorter_than_before_opens_no_view(self):
        conn = FakeConn()
        h = snapshot.ViewHolder(lambda: conn, time.time(), 5, 1)
        h.start()
        h.close()
        self.assertEqual([], conn.sent)
        self.assertIsNone(h.result()["view_opened_t"])


class FiguresTest(unittest.TestCase):
    def test_throughput_windows_and_the_return_under_the_target(self):
        # the load started 0.5 s after the sampler; view 10..40 s
        ivs = [{"t": float(t), "tps": 100.0 if t < 10 or t >= 55 else
                (60.0 if t < 40 else 80.0)} for t in range(1, 90)]
        samples = [{"t": t + 0.2, "innodb_history_list_length":
                    5000 + 1000 * t if t < 40 else max(0, 45000 - 3000 * (t - 40))}
                   for t in range(0, 90)]
        res = dict(view_opened_t=10.5, view_released_t=40.5, load_start_t=0.5,
                   intervals=ivs, samples=samples)
        f = snapshot.figures(res, 10000)
        self.assertEqual(100.0, f["tps_before"])        # t + 0.5 < 10.5
        self.assertEqual(60.0, f["tps_during"])
        self.assertEqual((15 * 80.0 + 15 * 100.0) / 30, f["tps_after"])   # 40.5..70.5
        self.assertEqual(100.0, f["tps_steady"])
        # history 45000 - 3000 (t - 40) <= 10000 first at t = 52 (sample 52.2)
        self.assertEqual(11.7, f["back_under_s"])
        self.assertEqual(14.7, f["zero_s"])             # 0 first at t = 55
        # the level before the view: its highest sample, 15,000 at t = 10.2
        self.assertEqual(15000, f["history_before_view"])
        self.assertEqual(9.7, f["back_before_s"])       # 45000 - 3000 x 10 at t = 50.2
        self.assertEqual({}, snapshot.figures(dict(view_opened_t=None), 10000))


class SnapBench(tp.FakeBench):
    """The real plan of snapshot-release; a run records its settings and
    view, and what the continue form or the stop form measures."""

    def run_arm(self, t, scenario, arm, settings, test, tables, rows, threads, seconds,
                repeat, extra=None, view=None):
        srv = self.use(t)
        before, hold = view
        form = extra["release_form"]
        released = before + (hold if form == "continue" else 0) + (0 if form == "continue"
                                                                   else 30)
        h = 20000 if arm.name == "unthrottled" else 12000
        res = dict(scenario=scenario, arm=str(t.arm(arm)), repeat=repeat, threads=threads,
                   seconds=seconds, settings=settings, view=view, tps=100.0, qps=2000.0,
                   samples=[{"t": float(t), "innodb_history_list_length": 1}
                            for t in (0, seconds)], intervals=[],
                   view_opened_t=float(before), view_released_t=float(released),
                   history_at_release=h, view_target=extra["lag"], tps_before=100.0,
                   tps_during=70.0, tps_after=90.0 if arm.name == "unthrottled" else 95.0,
                   tps_steady=100.0, back_under_s=12.0 if arm.name == "unthrottled" else 4.0,
                   zero_s=None, backlog=h // 2, shutdown_s=3.5)
        srv.shutdown(slow=True)
        return self.keep(t, res, extra)


class PlanTest(unittest.TestCase):
    setUp = tp.CompareTest.setUp
    bench = tp.CompareTest.bench

    def test_every_arm_in_both_forms_and_its_tables(self):
        b = self.bench("snapshot-release", "--hold", "30", "--time", "20", "--lags", "10000",
                       compare=False, cls=SnapBench)
        got = [(r["arm"], r["release_form"], r["seconds"], r["view"]) for r in b.runs]
        self.assertEqual([("unthrottled", "continue", 20 + 30 + 30 + 20, (20, 30)),
                          ("unthrottled", "stop", 20 + 30, (20, None)),
                          ("formula@10000", "continue", 100, (20, 30)),
                          ("formula@10000", "stop", 50, (20, None)),
                          ("adaptive@10000", "continue", 100, (20, 30)),
                          ("adaptive@10000", "stop", 50, (20, None))], got)
        tables = {title: (header, rows) for title, header, rows in b.tables()}
        header, rows = tables["snapshot-release: the load goes on after the release"]
        # the samples go on 50 s after the release, the history never at zero
        self.assertEqual(["adaptive@10000", "12,000", "4 s", "-", "not within 50 s",
                          "100", "70", "95", "100",
                          "0.70 / 0.95 / 1.00"], rows[2])
        header, rows = tables["snapshot-release: the load stops at the release "
                              "(MDEV-16260's form)"]
        self.assertEqual(["arm", "history at release", "to purge at slow shutdown",
                          "slow shutdown took"], header)
        self.assertEqual(["unthrottled", "20,000", "10,000", "3.5 s"], rows[0])
        (title, lines), = [h for h in bench.headline(b.runs) if h[0].startswith("snapshot")]
        self.assertEqual("unthrottled: history at release 20,000 (2.0x the target), back "
                         "under the target 12 s after the release, tps during the view 0.70, "
                         "in the 30 s after the release 0.90 of before.", lines[0])

    def test_the_options(self):
        a = bench.parse_args(["snapshot-release", "--hold", "5", "--release-forms", "stop"])
        self.assertEqual((5, ["stop"]), (a.hold, a.release_forms))
        from test_fail_early import parse_error
        self.assertIn("give continue, stop or continue,stop",
                      parse_error(["snapshot-release", "--release-forms", "go"]))
        self.assertIn("--hold is used only by snapshot-release",
                      parse_error(["backlog-vs-lag", "--hold", "5"]))
        self.assertIn("argument --hold: '0'", parse_error(["snapshot-release", "--hold", "0"]))


class MeasureTest(unittest.TestCase):
    """The real run_arm() with a view: held beside the (fake) load, released
    with it in the stop form, its figures in the result."""
    setUp = hook.RunArmTest.setUp

    def test_a_run_with_a_view(self):
        conn = FakeConn(history=777)
        b = bench.Bench(bench.parse_args(["snapshot-release", "--server", self.fork, "--out",
                                          os.path.join(self.tmp, "out")]))
        t = b.targets[0]
        with mock.patch.object(bench.sampler, "connect", return_value=conn), \
                mock.patch("builtins.print"):
            res = b.run_arm(t, "snapshot-release", Arm("unthrottled"), {"innodb_max_purge_lag": 0},
                            "oltp_write_only", 1, 100, 4, 3, 1,
                            extra={"lag": 10000, "release_form": "stop"}, view=(0, None))
            b.stop()
        sqls = [sql for _, sql in conn.sent]
        self.assertEqual(["START TRANSACTION WITH CONSISTENT SNAPSHOT",
                          "SELECT COUNT(*) FROM information_schema.INNODB_TRX",
                          "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'", "COMMIT"],
                         sqls)
        self.assertEqual((777, "stop", 10000),
                         (res["history_at_release"], res["release_form"], res["view_target"]))
        self.assertIsNotNone(res["view_released_t"])
        self.assertIn("tps_before", res)


class PlotTest(unittest.TestCase):
    def test_the_view_span_prefers_the_continue_form(self):
        runs = [dict(view_opened_t=20.0, view_released_t=50.0, release_form="continue"),
                dict(view_opened_t=20.5, view_released_t=51.0, release_form="continue"),
                dict(view_opened_t=20.0, view_released_t=21.0, release_form="stop")]
        self.assertEqual((20.25, 50.5), report.view_span(runs))
        self.assertIsNone(report.view_span([{"arm": "x"}]))


if __name__ == "__main__":
    unittest.main()
