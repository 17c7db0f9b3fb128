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

"""A server lent to the harness (attach mode) gets its settings back
whatever stops the harness (SIGHUP, SIGQUIT, a second Ctrl-C during the
restore), exactly as they were (NULL, a ';'); --switch sets the throttle's
variables only unless allowed; the log warns what other clients see."""

import io
import os
import signal
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, server  # noqa: E402
import test_attach as ta  # noqa: E402
import test_insertbench_hook as hook  # noqa: E402


class SignalTest(unittest.TestCase):
    def setUp(self):
        saved = {s: signal.getsignal(s) for s in (signal.SIGINT,) + bench.STOP_SIGNALS}
        self.addCleanup(lambda: [signal.signal(s, h) for s, h in saved.items()])

    def test_hangup_and_quit_stop_as_kill_does(self):
        bench.stop_on_sigterm()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            with self.subTest(sig=sig), self.assertRaises(KeyboardInterrupt):
                os.kill(os.getpid(), sig)
                signal.sigtimedwait([], 0.1)    # let Python run the handler

    def test_signals_during_the_restore_wait_for_it(self):
        bench.stop_on_sigterm()
        err = io.StringIO()
        with mock.patch("sys.stderr", err):
            with bench.shielded():
                for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
                    os.kill(os.getpid(), sig)
                    signal.sigtimedwait([], 0.1)
        self.assertEqual(4, err.getvalue().count("restoring the server's settings first"))
        with self.assertRaises(KeyboardInterrupt):      # the handlers are back
            os.kill(os.getpid(), signal.SIGHUP)
            signal.sigtimedwait([], 0.1)


class RestoreTest(unittest.TestCase):
    argv = ta.AttachTest.argv

    def setUp(self):
        ta.AttachTest.setUp(self)

    def sweep_argv(self, *more):
        return ["thread-sweep", "--host", "127.0.0.1", "--port", "3307", "--user", "bench",
                "--password-file", self.pwfile, "--out", self.out, "--time", "3",
                "--sweep-threads", "1"] + list(more)

    def restored(self, var, found, values):
        """Attach, save, let arms set var to values, stop: what var is then."""
        ta.FakeAttached.globals[var] = found
        b = bench.Bench(bench.parse_args(self.sweep_argv(
            "--switch", f"{var}={values}", "--allow-switch", var)))
        with mock.patch("builtins.print"):
            try:
                b.scenario("thread-sweep")
            finally:
                b.stop()
        self.assertIn(f"SET GLOBAL {var}=", " ".join(ta.FakeAttached.sent))
        return ta.FakeAttached.globals[var], b

    def test_null_comes_back_as_null(self):
        value, b = self.restored("init_connect", None, "a,b")
        self.assertIsNone(value)
        with open(b.restore_file) as f:
            self.assertIn("SET GLOBAL init_connect=NULL;", f.read())

    def test_a_value_with_a_semicolon_comes_back_whole(self):
        value, b = self.restored("init_connect", "SET @a=1;SET @b='x'", "a,b")
        self.assertEqual("SET @a=1;SET @b='x'", value)
        self.assertEqual("'SET @a=1;SET @b=\\'x\\''", b.saved_globals["init_connect"])

    def test_the_type_says_whether_a_number_is_quoted(self):
        self.assertEqual("'10'", server.sql_literal("10", "VARCHAR"))
        self.assertEqual("10", server.sql_literal("10", "BIGINT UNSIGNED"))
        self.assertEqual("1", server.sql_literal("1", "BOOLEAN"))
        self.assertEqual("'adaptive'", server.sql_literal("adaptive", "ENUM"))
        self.assertEqual("NULL", server.sql_literal(None, "VARCHAR"))

    def test_a_second_ctrl_c_during_the_restore_does_not_abort_it(self):
        one = ta.FakeAttached.one
        sent = {"n": 0}

        def interrupted(fake, stmt):
            # Ctrl-C at the first restoring SET, after the run was stopped
            if stmt.startswith("SET GLOBAL innodb_max_purge_lag=0") and stopping["now"]:
                sent["n"] += 1
                if sent["n"] == 1:
                    os.kill(os.getpid(), signal.SIGINT)
                    signal.sigtimedwait([], 0.1)
            return one(fake, stmt)
        stopping = {"now": False}
        stop = bench.Bench.stop

        def stop_later(b):
            stopping["now"] = True
            return stop(b)

        def ctrl_c(run):
            raise KeyboardInterrupt
        saved = signal.getsignal(signal.SIGINT)
        self.addCleanup(signal.signal, signal.SIGINT, saved)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        ta.FakeAttached.globals["innodb_max_purge_lag"] = "0"
        with mock.patch.object(ta.FakeAttached, "one", interrupted), \
                mock.patch.object(bench.Bench, "stop", stop_later), \
                mock.patch.object(hook.FakeRun, "pump", ctrl_c), \
                mock.patch.object(hook.FakeRun, "error", bench.sysbench.SysbenchError,
                                  create=True), \
                mock.patch("builtins.print") as printed, mock.patch("sys.stderr", io.StringIO()):
            # the first run sets the lag, then Ctrl-C
            ta.FakeAttached.globals["innodb_max_purge_lag"] = "0"
            rc = bench.main(self.argv("--arms", "adaptive"))
        self.assertEqual(130, rc)
        self.assertEqual(1, sent["n"])
        self.assertEqual(ta.FORK_GLOBALS, ta.FakeAttached.globals)
        self.assertIn("restoring the server's settings first", str(printed.call_args_list))


class LentServerTest(unittest.TestCase):
    argv = ta.AttachTest.argv
    run_bench = ta.AttachTest.run_bench

    def setUp(self):
        ta.AttachTest.setUp(self)

    def test_the_first_line_of_the_log_warns_what_other_clients_see(self):
        self.run_bench("--arms", "adaptive")
        with open(os.path.join(self.out, "progress.log")) as f:
            first = f.readline()
        self.assertIn("every other client of this server is throttled", first)
        self.assertIn("snapshot-release", first)
        self.assertIn("purge stalls for everyone", first)

    def test_the_first_line_names_a_variable_allowed_to_switch(self):
        a = bench.parse_args(["thread-sweep", "--host", "db1", "--switch",
                              "max_connections=10,20", "--allow-switch", "max_connections"])
        line = bench.attach_warning(a)
        self.assertTrue(line.startswith(bench.ATTACH_WARNING))
        self.assertIn("--allow-switch max_connections: every client meets "
                      "max_connections=10, then 20 while thread-sweep runs", line)
        self.assertEqual(bench.ATTACH_WARNING, bench.attach_warning(
            bench.parse_args(["thread-sweep", "--host", "db1"])))

    def test_switch_sets_the_throttle_s_variables_only_unless_allowed(self):
        from test_fail_early import parse_error
        base = ["thread-sweep", "--host", "db1"]
        self.assertIn("add --allow-switch max_connections",
                      parse_error(base + ["--switch", "max_connections=10,20"]))
        for var in ("innodb_purge_throttle", "innodb_max_purge_lag", "innodb_max_purge_lag_delay",
                    "innodb_purge_batch_size"):
            with self.subTest(var=var):
                a = bench.parse_args(base + ["--switch", f"{var}=1,2"])
                self.assertEqual(var, a.switch[0])
        a = bench.parse_args(base + ["--switch", "max_connections=10,20",
                                     "--allow-switch", "max_connections"])
        self.assertEqual("max_connections", a.switch[0])
        # a variable's name in any case, as the server takes it
        a = bench.parse_args(base + ["--switch", "Max_Connections=10,20",
                                     "--allow-switch", "max_connections"])
        self.assertEqual("Max_Connections", a.switch[0])
        self.assertIn("add --allow-switch MAX_CONNECTIONS",
                      parse_error(base + ["--switch", "MAX_CONNECTIONS=10,20"]))
        # a server the harness starts is its own: any variable
        self.assertEqual("max_connections", bench.parse_args(
            ["thread-sweep", "--switch", "max_connections=10,20"]).switch[0])


if __name__ == "__main__":
    unittest.main()
