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

"""Attach mode (--host/--socket): a server the harness did not start,
faked here as the SQL it is sent; the real Bench, run_arm() and measure()
(sysbench and the sampler faked as in test_insertbench_hook)."""

import io
import os
import re
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, server  # noqa: E402
from purgebench import tables as summary  # noqa: E402
from purgebench.server import ServerError  # noqa: E402
import test_insertbench_hook as hook  # noqa: E402
import test_purgebench as tp  # noqa: E402

FORK_GLOBALS = {"innodb_max_purge_lag": "0", "innodb_max_purge_lag_delay": "0",
                "innodb_purge_throttle": "adaptive", "innodb_purge_coupled_throttle": "1",
                "innodb_undo_log_compact_init": "1", "innodb_purge_drain_rsegs": "0",
                "version": "10.11.18-MariaDB", "version_comment": "deployed"}
STOCK_GLOBALS = {k: v for k, v in FORK_GLOBALS.items() if k not in tp.FORK_ONLY}


class FakeAttached(server.AttachedServer):
    """The SQL a server the harness attached to is sent, answered from a
    dict of global variables; what it was sent is in `sent`."""
    globals = {}
    schemas = set()
    sent = []
    restore_at_first_set = None     # restore-globals.sql when the first SET came
    outdir = None

    def start(self, timeout=None):
        self.db = object()

    def kill(self):
        self.db = None

    def status(self, names):
        return {}

    def query(self, sql, timeout=None, split=True, raw=False):
        rows = []
        for stmt in (x.strip() for x in (sql.split(";") if split else [sql]) if x.strip()):
            FakeAttached.sent.append(stmt)
            rows = self.one(stmt)
        # NULL as the server's client gives it: None raw, else 'NULL'
        return [[v if raw or v is not None else "NULL" for v in row] for row in rows]

    def one(self, stmt):
        g = FakeAttached.globals
        m = re.fullmatch(r"SELECT @@(?:GLOBAL\.)?(\w+)", stmt)
        if m:
            if m.group(1) not in g:
                raise ServerError(f"query failed: {stmt}: ERROR 1193 (attached): Unknown "
                                  f"system variable '{m.group(1)}'")
            return [[g[m.group(1)]]]
        m = re.fullmatch(r"SET GLOBAL (\w+)=(.*)", stmt)
        if m:
            if m.group(1) == "innodb_max_purge_lag_wait":
                return []
            if FakeAttached.restore_at_first_set is None:
                path = os.path.join(FakeAttached.outdir, "restore-globals.sql")
                FakeAttached.restore_at_first_set = ""
                if os.path.exists(path):
                    with open(path) as f:
                        FakeAttached.restore_at_first_set = f.read()
            value = m.group(2)
            g[m.group(1)] = (None if value == "NULL" else
                             value[1:-1].replace("\\'", "'") if value.startswith("'")
                             else value)
            return []
        m = re.search(r"WHERE SCHEMA_NAME='(\w+)'", stmt)
        if m:
            return [[m.group(1)]] if m.group(1) in FakeAttached.schemas else []
        m = re.fullmatch(r"CREATE DATABASE (\w+)", stmt)
        if m:
            FakeAttached.schemas.add(m.group(1))
            return []
        m = re.fullmatch(r"DROP DATABASE IF EXISTS (\w+)", stmt)
        if m:
            FakeAttached.schemas.discard(m.group(1))
            return []
        if stmt == "SHOW GLOBAL VARIABLES":
            return [[k, v] for k, v in sorted(g.items())]
        if "FILE_SIZE" in stmt:
            return [["98304"]]
        if stmt.startswith("SELECT TABLE_NAME FROM information_schema.TABLES"):
            return [["stock"], ["warehouse"]]
        return [["1"]] if stmt == "SELECT 1" else []


class AttachTest(unittest.TestCase):
    def setUp(self):
        hook.RunArmTest.setUp(self)
        self.out = os.path.join(self.tmp, "out")
        FakeAttached.globals = dict(FORK_GLOBALS)
        FakeAttached.schemas = {"mysql", "sbtest"}      # someone's sbtest: not touched
        FakeAttached.sent = []
        FakeAttached.restore_at_first_set = None
        FakeAttached.outdir = self.out
        self.drained = []

        def drain(b, srv, target, limit):
            self.drained.append((target, limit))
            return (3.0, 7.0, [(0.0, 5000), (3.0, 800), (7.0, 0)])
        for p in (mock.patch.object(bench, "AttachedServer", FakeAttached),
                  mock.patch.object(bench.Bench, "drain", drain),
                  mock.patch.object(bench.report, "plots", return_value=[])):
            p.start()
            self.addCleanup(p.stop)
        self.pwfile = os.path.join(self.tmp, "pw")
        with open(self.pwfile, "w") as f:
            f.write("s3cret\n")

    def argv(self, *more):
        return ["backlog-vs-lag", "--host", "127.0.0.1", "--port", "3307", "--user", "bench",
                "--password-file", self.pwfile, "--lags", "1000", "--out", self.out,
                "--time", "3"] + list(more)

    def run_bench(self, *more):
        b = bench.Bench(bench.parse_args(self.argv(*more)))
        with mock.patch("builtins.print"):
            try:
                b.scenario("backlog-vs-lag")
            finally:
                b.stop()
        return b

    def test_the_options(self):
        a = bench.parse_args(self.argv())
        c = a.attach
        self.assertEqual(("127.0.0.1", 3307, "bench", "s3cret", "purgebench", None),
                         (c.host, c.port, c.user, c.password, c.db, c.socket))
        # the password reaches sysbench in a file of mode 0600, not on its
        # command line
        self.addCleanup(c.forget_secret)
        secret = c.sysbench_secret()
        self.assertEqual(["--mysql-host=127.0.0.1", "--mysql-port=3307", "--mysql-user=bench",
                          f"--config-file={secret}", "--mysql-db=purgebench"],
                         c.sysbench_args())
        self.assertNotIn("s3cret", " ".join(c.sysbench_args()))
        self.assertEqual(0o600, os.stat(secret).st_mode & 0o777)
        with open(secret) as f:
            self.assertEqual("mysql-password=s3cret\n", f.read())
        self.assertEqual(300, a.drain_timeout)
        a = bench.parse_args(["--socket", "/run/mysqld/mysqld.sock", "--schema", "pb2"])
        self.assertEqual(("/run/mysqld/mysqld.sock", None, "root", None, "pb2"),
                         (a.attach.socket, a.attach.host, a.attach.user, a.attach.password,
                          a.attach.db))
        self.assertEqual("mariadb -S /run/mysqld/mysqld.sock -u root < /x.sql",
                         a.attach.client_hint("/x.sql"))
        self.assertIsNone(bench.parse_args([]).attach)

    def test_options_that_do_not_fit_are_errors(self):
        from test_fail_early import parse_error
        for argv, says in (
                (["--host", "h", "--socket", "/s"], "--host and --socket: give one"),
                (["--socket", "/s", "--port", "1"], "--port is for --host"),
                (["--port", "3306"], "--port: only in attach mode"),
                (["--drain-timeout", "5"], "--drain-timeout: only in attach mode"),
                (["--host", "h", "--server", "/x"], "--server: for a server that purgebench "
                                                     "starts"),
                (["--host", "h", "--option", "a=b"], "--option: for a server"),
                (["tpcc", "--socket", "/s"], "tpcc: go-tpc connects over TCP only"),
                (["--host", "h", "--password-file", "/no/such/file"],
                 "--password-file /no/such/file: No such file or directory"),
                (["--host", "h", "--schema", "a-b"], "--schema 'a-b'"),
                (["--host", "h", "--port", "70000"], "a port is 1..65535")):
            with self.subTest(argv=argv):
                self.assertIn(says, parse_error(argv))

    def test_the_restore_sql_comes_before_any_change_and_runs_at_the_end(self):
        b = self.run_bench("--arms", "formula,adaptive")
        self.assertEqual(["unthrottled", "formula@1000", "adaptive@1000"],
                         [r["arm"] for r in b.runs])
        # every variable an arm may set, as found, before the first SET GLOBAL
        restore = FakeAttached.restore_at_first_set
        for name in ("innodb_max_purge_lag", "innodb_max_purge_lag_delay",
                     "innodb_purge_throttle", "innodb_purge_coupled_throttle"):
            self.assertIn(f"SET GLOBAL {name}=", restore)
        self.assertIn("SET GLOBAL innodb_purge_throttle='adaptive';", restore)
        self.assertEqual(FORK_GLOBALS, FakeAttached.globals)
        # the harness's schema made and dropped; someone's sbtest untouched;
        # never a shutdown
        self.assertEqual({"mysql", "sbtest"}, FakeAttached.schemas)
        self.assertIn("CREATE DATABASE purgebench", FakeAttached.sent)
        self.assertEqual(["DROP DATABASE IF EXISTS purgebench",
                          "DROP DATABASE IF EXISTS purgebench_tpcc"], FakeAttached.sent[-2:])
        self.assertFalse([s for s in FakeAttached.sent
                          if "shutdown" in s.lower() or "sbtest" in s])
        # the clients and sampler were pointed at the server
        run = hook.FakeRun.commands[0]
        self.assertIn("--mysql-host=127.0.0.1", run)
        self.assertIn("--mysql-db=purgebench", run)
        with open(os.path.join(self.out, "server-variables.json")) as f:
            self.assertIn('"version_comment": "deployed"', f.read())

    def test_the_backlog_is_the_drain_and_the_table_says_so(self):
        b = self.run_bench("--arms", "adaptive", "--drain-timeout", "60")
        self.assertEqual([(1000, 60), (1000, 60)], self.drained)
        r = b.runs[1]
        self.assertEqual((bench.DRAIN, 3.0, 7.0, 1000),
                         (r["backlog_measure"], r["drain_under_target_s"], r["drain_zero_s"],
                          r["drain_target"]))
        self.assertEqual(0.0, r["shutdown_s"])
        self.assertIsNone(r["server_cpu_s"])        # not our child process
        (title, header, rows), = [t for t in b.tables() if t[0] == "backlog-vs-lag"]
        col = header.index(summary.DRAIN_HEADER)
        # the history of the last sample, at the load's end; the drain's times
        self.assertEqual("0; 3.0 s / 7.0 s", rows[0][col])
        self.assertIn("backlog measure", b.meta)

    def test_a_stock_server_skips_the_fork_arms_with_a_note(self):
        FakeAttached.globals = dict(STOCK_GLOBALS)
        b = self.run_bench("--arms", "formula,adaptive")
        self.assertEqual(["unthrottled", "formula@1000"], [r["arm"] for r in b.runs])
        with open(os.path.join(self.out, "progress.log")) as f:
            log = f.read()
        self.assertEqual(1, log.count("  attached: skipping adaptive: it needs "
                                      "@@innodb_purge_throttle, which this server lacks"))
        with open(os.path.join(self.out, "restore-globals.sql")) as f:
            self.assertNotIn("innodb_purge_throttle", f.read())
        self.assertEqual(STOCK_GLOBALS, FakeAttached.globals)

    def test_ctrl_c_and_a_crashed_client_still_restore(self):
        calls = {"n": 0}
        pump = hook.FakeRun.pump

        def crash(run):
            calls["n"] += 1
            if calls["n"] == 1:
                run.on_exit()
                raise bench.sysbench.SysbenchError("sysbench exited with 137 (killed)")
            if calls["n"] == 3:
                raise KeyboardInterrupt
            return pump(run)
        with mock.patch.object(hook.FakeRun, "pump", crash), \
                mock.patch.object(hook.FakeRun, "error", bench.sysbench.SysbenchError,
                                  create=True), \
                mock.patch("builtins.print"), mock.patch("sys.stderr", io.StringIO()):
            rc = bench.main(self.argv("--arms", "formula,adaptive"))
        self.assertEqual(130, rc)
        self.assertEqual(FORK_GLOBALS, FakeAttached.globals)
        self.assertNotIn("purgebench", FakeAttached.schemas)
        with open(os.path.join(self.out, "summary.md")) as f:
            text = f.read()
        self.assertIn("sysbench exited with 137", text.split("## ")[0])
        self.assertIn("interrupted", text.split("## ")[0])
        with open(os.path.join(self.out, "progress.log")) as f:
            log = f.read()
        self.assertIn("mariadb -h 127.0.0.1 -P 3307 -u bench -p < ", log)
        self.assertIn("global variables are restored", log)
        with open(os.path.join(self.out, "commands.txt")) as f:
            self.assertNotIn("s3cret", f.read())

    def test_go_tpc_loads_once_into_its_own_schema_as_the_user(self):
        fake = os.path.join(self.tmp, "go-tpc")
        args_file = os.path.join(self.tmp, "go-tpc.args")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\necho \"$*\" >> {args_file}\n"
                    f"cat {os.path.join(tp.FIXTURES, 'gotpc-tpcc-prepare-1wh.txt')}\n")
        os.chmod(fake, 0o755)
        b = bench.Bench(bench.parse_args(self.argv("--warehouses", "1")[1:] + ["tpcc"]))
        t = b.targets[0]
        with mock.patch("builtins.print"):
            b.start_all()
            b.gotpc_snapshot(t, fake, "tpcc", 1)
            b.restore_snapshot(t)           # nothing to restore: the server is not ours
            b.stop()
        with open(args_file) as f:
            self.assertEqual("tpcc -H 127.0.0.1 -P 3307 -U bench -p s3cret -D purgebench_tpcc "
                             "--warehouses 1 prepare -T 4 --no-check", f.read().strip())
        self.assertIn("DROP DATABASE IF EXISTS purgebench_tpcc", FakeAttached.sent)
        # the optimizer sees the loaded tables' row counts, not an empty table's
        analyze = "ANALYZE TABLE `purgebench_tpcc`.`stock`, `purgebench_tpcc`.`warehouse`"
        self.assertIn(analyze, FakeAttached.sent)
        self.assertIn(analyze, b.commands)
        self.assertIn("attach mode: loaded once", b.meta["go-tpc data"])
        self.assertEqual("DROP DATABASE IF EXISTS purgebench_tpcc", FakeAttached.sent[-1])
        self.assertFalse([s for s in FakeAttached.sent if "CREATE USER" in s])
        self.assertIn("-p *** -D purgebench_tpcc", " ".join(b.commands))
        self.assertNotIn("s3cret", " ".join(b.commands))

    def test_a_schema_of_its_name_is_refused(self):
        FakeAttached.schemas.add("purgebench")
        with self.assertRaisesRegex(ServerError, "schema purgebench exists on 127.0.0.1:3307"):
            self.run_bench()
        self.assertIn("purgebench", FakeAttached.schemas)
        self.assertFalse([s for s in FakeAttached.sent if s.startswith(("SET", "DROP"))])


class DrainTest(unittest.TestCase):
    """Bench.drain() on a fake connection, one sample per tick of a fake clock."""

    def test_times_to_under_the_target_and_to_zero(self):
        history = iter([5000, 2500, 900, 300, 0])

        class Cursor:
            def __enter__(self):
                return self

            def __exit__(self, *a):
                return False

            def execute(self, sql):
                assert "Innodb_history_list_length" in sql

            def fetchone(self):
                return ("Innodb_history_list_length", str(next(history)))

        conn = mock.Mock(cursor=Cursor)
        clock = iter([0] + list(range(100)))       # the start, then a second a sample
        b = bench.Bench.__new__(bench.Bench)
        b.log = lambda msg: None
        with mock.patch.object(bench.sampler, "connect", return_value=conn), \
                mock.patch.object(bench.time, "time", lambda: float(next(clock))), \
                mock.patch.object(bench.time, "sleep"):
            under, zero, seen = b.drain(mock.Mock(conn=None), 1000, 60)
        self.assertEqual((2.0, 4.0), (under, zero))
        self.assertEqual([(0.0, 5000), (1.0, 2500), (2.0, 900), (3.0, 300), (4.0, 0)], seen)
        conn.close.assert_called_once()

    def test_a_drain_that_does_not_end_stops_at_the_limit(self):
        conn = mock.MagicMock()
        conn.cursor.return_value.__enter__.return_value.fetchone.return_value = ("h", "5")
        clock = iter([0] + list(range(100)))
        b = bench.Bench.__new__(bench.Bench)
        b.log = lambda msg: None
        with mock.patch.object(bench.sampler, "connect", return_value=conn), \
                mock.patch.object(bench.time, "time", lambda: float(next(clock))), \
                mock.patch.object(bench.time, "sleep"):
            under, zero, seen = b.drain(mock.Mock(conn=None), None, 5)
        self.assertEqual((None, None), (under, zero))
        self.assertEqual(5.0, seen[-1][0])
        self.assertEqual("- / >5 s", bench.drain_cell(dict(drain_limit_s=5)))


if __name__ == "__main__":
    unittest.main()
