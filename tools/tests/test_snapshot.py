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

import json
import os
import shutil
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, snapshot, stats  # noqa: E402
from purgebench.plan import Arm  # noqa: E402
from purgebench.server import Server, parse_backlog, parse_shutdown  # noqa: E402
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

    def test_a_second_view_overlaps_the_first_and_counts_from_the_later_release(self):
        first, second = FakeConn(history=100), FakeConn(history=900)
        conns = iter([first, second])
        view = snapshot.View(0.1, 0.4, [10000], overlap=0.2)
        srv = mock.Mock(socket="/nowhere")
        with mock.patch.object(snapshot.sampler, "connect", lambda sock: next(conns)):
            pair = view.start(srv, time.time())
            self.assertIsInstance(pair, snapshot.ViewPair)
            pair.first.join(timeout=5)
            pair.second.join(timeout=5)
            pair.close()
        r = pair.result()
        # the second opened while the first was held, and was released last
        self.assertLess(r["view_opened_t"], r["view2_opened_t"])
        self.assertLess(r["view2_opened_t"], pair.first.released)
        self.assertEqual(r["view2_released_t"], r["view_released_t"])
        self.assertGreater(r["view_released_t"], pair.first.released)
        self.assertEqual(900, r["history_at_release"])      # at the later release
        self.assertAlmostEqual(0.2, r["view_overlap_s"])
        self.assertIsNone(r["view_error"])
        self.assertTrue(first.closed and second.closed)

    def test_the_stop_form_releases_both_views_with_the_load(self):
        first, second = FakeConn(), FakeConn()
        pair = snapshot.ViewPair(snapshot.ViewHolder(lambda: first, time.time(), 0.05),
                                 snapshot.ViewHolder(lambda: second, time.time(), 0.1))
        pair.start()
        time.sleep(0.3)
        pair.release()
        pair.close()
        for c in (first, second):
            self.assertEqual(1, [sql for _, sql in c.sent].count("COMMIT"))
        self.assertIsNotNone(pair.result()["view_released_t"])

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
                repeat, extra=None, beside=None):
        srv = self.use(t)
        before, hold = view = (beside.before, beside.hold)
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
                          snapshot.END_HEADER, "slow shutdown took",
                          "transactions purged a second in it (at least)"], header)
        # no unparsed history in these samples (as from a stock server)
        self.assertEqual(["unthrottled", "20,000", "10,000", "-", "3.5 s", "2,857"], rows[0])
        (title, lines), = [h for h in bench.headline(b.runs) if h[0].startswith("snapshot")]
        self.assertEqual("unthrottled: history at release 20,000 (2.0x the target), back "
                         "under the target 12 s after the release, tps during the view 0.70, "
                         "in the 30 s after the release 0.90 of before.", lines[0])

    def test_a_second_view_lengthens_the_continue_form(self):
        b = self.bench("snapshot-release", "--hold", "30", "--time", "20", "--lags", "10000",
                       "--overlap", "10", "--arms", "adaptive", compare=False, cls=SnapBench)
        got = [(r["arm"], r["release_form"], r["seconds"]) for r in b.runs]
        # continue: the load goes on 30 s and --time s after the second release
        self.assertEqual([("unthrottled", "continue", 20 + 30 + 10 + 30 + 20),
                          ("unthrottled", "stop", 20 + 30),
                          ("adaptive@10000", "continue", 110),
                          ("adaptive@10000", "stop", 50)], got)

    def test_the_options(self):
        a = bench.parse_args(["snapshot-release", "--hold", "5", "--release-forms", "stop"])
        self.assertEqual((5, ["stop"]), (a.hold, a.release_forms))
        from test_fail_early import parse_error
        self.assertIn("give continue, stop or continue,stop",
                      parse_error(["snapshot-release", "--release-forms", "go"]))
        self.assertIn("--hold is used only by snapshot-release",
                      parse_error(["backlog-vs-lag", "--hold", "5"]))
        self.assertIn("argument --hold: '0'", parse_error(["snapshot-release", "--hold", "0"]))
        self.assertEqual(10, bench.parse_args(["snapshot-release", "--overlap", "10"]).overlap)
        self.assertIn("--overlap is used only by snapshot-release",
                      parse_error(["backlog-vs-lag", "--overlap", "5"]))
        self.assertIn("--overlap 30 opens the second read view after the first is released "
                      "(--hold 30); give less than 30",
                      parse_error(["snapshot-release", "--overlap", "30"]))


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
                            extra={"lag": 10000, "release_form": "stop"},
                            beside=snapshot.View(0, None, [10000]))
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

    def test_a_run_records_the_history_after_the_load_and_the_shutdown_log(self):
        # the sample after the load (FakeSampler's final: LSN 1,001,000) and
        # the server's log of its slow shutdown, as in the real run's
        after = {"innodb_lsn_current": 1000, "trx_id_counter": 10,
                 "innodb_history_list_length": 206301, "innodb_purge_unparsed_trx": 197000}
        logged = dict(to_purge=206301, log_s=1.0, lsn=1001000 + 18725401)
        b = bench.Bench(bench.parse_args(["snapshot-release", "--server", self.fork, "--out",
                                          os.path.join(self.tmp, "out")]))
        with mock.patch.object(bench.sampler, "connect", return_value=FakeConn()), \
                mock.patch.object(hook.FakeSampler, "sample", lambda smp: dict(after)), \
                mock.patch.object(hook.StepServer, "shutdown_log", lambda srv: logged), \
                mock.patch("builtins.print"):
            res = b.run_arm(b.targets[0], "snapshot-release", Arm("unthrottled"),
                            {"innodb_max_purge_lag": 0}, "oltp_write_only", 1, 100, 4, 3, 1,
                            extra={"lag": 10000, "release_form": "stop"},
                            beside=snapshot.View(0, None, [10000]))
            b.stop()
        self.assertEqual((206301, 1.0, 18725401),
                         (res["backlog"], res["shutdown_log_s"], res["shutdown_redo_bytes"]))
        self.assertEqual((206301, 197000, 9301),
                         (res["end_history"], res["end_unparsed"], res["end_not_truncated"]))


class StopFormTest(unittest.TestCase):
    """The stop form's figure, on a real run: 256 writers, 30 s of load, a
    view held 30 s, on the 2-core machine. Its fixtures are real output:
    errlog-snapshot-release-256.txt, the server's error log around the
    continue form's and the stop form's shutdowns (the restart between them
    cut to its first and last lines), and snapshot-release-256-stop-run.json,
    the stop form's run as runs.json recorded it, with its last two samples.
    The slow shutdown took about 1 s for 206,301 transactions; the server's
    log says the same, and 96% of that history was not yet parsed when the
    load ended: purge's own work, not undo truncation alone."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-test-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_the_server_log_of_each_shutdown(self):
        with open(os.path.join(tp.FIXTURES, "errlog-snapshot-release-256.txt")) as f:
            log = f.read()
        srv = Server(None, self.tmp)
        second = log.index("2026-11-25 21:05:53")       # the stop form's shutdown
        with open(srv.errlog, "w") as f:
            f.write(log[:second])
        # the continue form's: purge had emptied the history before InnoDB's
        # shutdown began, so no 'to purge' line
        self.assertEqual(dict(to_purge=0, log_s=0.0, lsn=813715373), srv.shutdown_log())
        srv.log_mark = os.path.getsize(srv.errlog)      # signal_shutdown()
        with open(srv.errlog, "a") as f:
            f.write(log[second:])
        self.assertEqual(dict(to_purge=206301, log_s=1.0, lsn=1250672223), srv.shutdown_log())
        self.assertEqual(206301, srv.backlog())
        # read from the start of the log, the last shutdown's, as before
        self.assertEqual(206301, parse_backlog(log))

    def test_a_log_without_a_finished_shutdown(self):
        self.assertEqual(dict(to_purge=0, log_s=None, lsn=None), parse_shutdown(""))
        killed = ("2026-11-22  3:40:30 0 [Note] /x/mariadbd (initiated by: unknown): "
                  "Normal shutdown\n2026-11-22  3:40:30 0 [Note] InnoDB: to purge 5 "
                  "transactions\n")
        self.assertEqual(dict(to_purge=5, log_s=None, lsn=None), parse_shutdown(killed))

    def real_run(self, **more):
        with open(os.path.join(tp.FIXTURES, "snapshot-release-256-stop-run.json")) as f:
            return dict(json.load(f), **more)

    def stop_row(self, runs):
        (title, header, rows), = [t for t in snapshot.table(runs) if "stops" in t[0]]
        return rows[0]

    def test_the_real_run_says_what_the_shutdown_purged(self):
        run = self.real_run()
        self.assertEqual((206301, 1.0), (run["backlog"], run["shutdown_s"]))
        # recorded before the end_* keys: its last sample, 0.5 s before the
        # release, 203,548 = 194,910 unparsed + 8,638 purged, not truncated
        self.assertEqual(["unthrottled", "206,301", "206,301", "194,910 (96%) / 8,638", "1 s",
                          "206,301"], self.stop_row([run]))
        (title, lines), = snapshot.headline([run])
        self.assertEqual(["unthrottled, the load ending at the release: the slow shutdown "
                          "purged 206,301 transactions in 1 s (206,301 a second); when the "
                          "load ended purge had not parsed 194,910 of the history (96%): "
                          "purge's own work in the shutdown, not undo truncation alone."],
                         lines)

    def test_a_run_now_records_the_history_after_the_release(self):
        # the sample after the release and the server's log (as measure()
        # records them now) win over the last sample under load
        run = self.real_run(end_history=206301, end_unparsed=197000, end_not_truncated=9301,
                            shutdown_log_s=1.0)
        self.assertEqual("197,000 (95%) / 9,301", self.stop_row([run])[3])
        (title, lines), = snapshot.headline([run])
        self.assertIn("in 1 s (206,301 a second), under 2 s by the server's log; when the load "
                      "ended purge had not parsed 197,000 of the history (95%)", lines[0])

    def test_a_history_waiting_for_truncation_is_said_so(self):
        run = self.real_run(backlog=50000, shutdown_s=0.2, end_history=50000, end_unparsed=1000,
                            end_not_truncated=49000)
        self.assertEqual(["unthrottled", "206,301", "50,000", "1,000 (2%) / 49,000", "0.2 s",
                          "250,000"], self.stop_row([run]))
        (title, lines), = snapshot.headline([run])
        self.assertTrue(lines[0].endswith("when the load ended purge had not parsed 1,000 of "
                                          "the history (2%), the other 49,000 only waited for "
                                          "undo truncation."), lines[0])

    def test_the_history_at_the_end_of_a_sample(self):
        self.assertEqual(dict(end_history=203548, end_unparsed=194910, end_not_truncated=8638),
                         stats.end_composition(self.real_run()["samples"][-1]))
        self.assertEqual({}, stats.end_composition({"innodb_history_list_length": 7,
                                                    "innodb_purge_unparsed_trx": None}))
        self.assertEqual({}, stats.end_composition(None))


class PlotTest(unittest.TestCase):
    def test_the_view_span_prefers_the_continue_form(self):
        runs = [dict(view_opened_t=20.0, view_released_t=50.0, release_form="continue"),
                dict(view_opened_t=20.5, view_released_t=51.0, release_form="continue"),
                dict(view_opened_t=20.0, view_released_t=21.0, release_form="stop")]
        self.assertEqual((20.25, 50.5), snapshot.view_span(runs))
        self.assertIsNone(snapshot.view_span([{"arm": "x"}]))


if __name__ == "__main__":
    unittest.main()
