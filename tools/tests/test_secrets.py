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

"""Attach mode's password: sysbench reads it from a file of mode 0600,
never from its command line; no log shows its exact value, spaces and all;
a client option file (--defaults-extra-file) is read as the mariadb client
reads it."""

import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, optionfile, server  # noqa: E402
import test_attach as ta  # noqa: E402
import test_insertbench_hook as hook  # noqa: E402

SPACED = "my pass word"


class SysbenchFileTest(unittest.TestCase):
    def conn(self, password):
        c = server.Conn(host="db1", port=3306, user="bench", password=password, db="pb")
        self.addCleanup(c.forget_secret)
        return c

    def test_the_password_is_in_a_private_file_not_on_the_command_line(self):
        c = self.conn(SPACED)
        args = c.sysbench_args()
        self.assertNotIn("pass", " ".join(args))
        path = c.sysbench_secret()
        self.assertIn(f"--config-file={path}", args)
        self.assertEqual(0o600, os.stat(path).st_mode & 0o777)
        self.assertEqual(0o700, os.stat(os.path.dirname(path)).st_mode & 0o777)
        self.assertEqual(path, c.sysbench_secret())         # made once
        with open(path) as f:
            self.assertEqual(f'mysql-password="{SPACED}"\n', f.read())
        c.forget_secret()
        self.assertFalse(os.path.exists(os.path.dirname(path)))

    def test_no_password_no_file(self):
        c = self.conn(None)
        self.assertFalse([a for a in c.sysbench_args() if "config-file" in a])
        self.assertIsNone(c.secret_file)

    @unittest.skipUnless(shutil.which("sysbench"), "sysbench is not installed")
    def test_sysbench_reads_back_each_password_exactly(self):
        # sysbench itself, no server: a script's command that prints the
        # password sysbench took from the file
        tmp = tempfile.mkdtemp(prefix="purgebench-sbcfg-")
        self.addCleanup(shutil.rmtree, tmp)
        lua = os.path.join(tmp, "show.lua")
        with open(lua, "w") as f:
            f.write('function cmd_show() io.write("[" .. sysbench.opt.mysql_password .. "]") end\n'
                    'sysbench.cmdline.commands = { show = {cmd_show} }\n')
        for pw in (SPACED, "s3cret", "  lead", "trail ", "a#b", "a=b", "it's", 'say "hi"',
                   "back\\slash", "\"q", "'q", "it's\"x", "\t\ttab"):
            with self.subTest(pw=pw):
                c = self.conn(pw)
                out = subprocess.run(["sysbench", f"--config-file={c.sysbench_secret()}", lua,
                                      "show"], stdout=subprocess.PIPE, text=True, timeout=60)
                self.assertIn(f"[{pw}]", out.stdout)
                c.forget_secret()

    def test_a_password_sysbench_s_file_cannot_hold_is_refused(self):
        pw = os.path.join(tempfile.mkdtemp(prefix="purgebench-pw-"), "pw")
        self.addCleanup(shutil.rmtree, os.path.dirname(pw))
        with open(pw, "w") as f:
            f.write("it's \"both\"\n")
        from test_fail_early import parse_error
        self.assertIn("cannot hold a password with white space and both quote",
                      parse_error(["--host", "db1", "--password-file", pw]))

    def test_redact_hides_the_exact_value(self):
        text = f"go-tpc -p {SPACED} -D x; error: access denied for '{SPACED}'"
        out = server.redact(text, [SPACED])
        self.assertNotIn("pass", out)
        self.assertNotIn("word", out)
        self.assertEqual("mariadb -h h -u bench -p < f",
                         server.redact("mariadb -h h -u bench -p < f", [SPACED], command=False))


class LogsTest(unittest.TestCase):
    """A run in attach mode with a password with spaces, whose first run
    fails with an error that quotes it: no file of the results shows it."""

    def setUp(self):
        ta.AttachTest.setUp(self)
        with open(self.pwfile, "w") as f:
            f.write(SPACED + "\n")

    def test_no_log_shows_the_password(self):
        calls = {"n": 0}
        pump = hook.FakeRun.pump

        def fail_once(run):
            calls["n"] += 1
            if calls["n"] == 1:
                run.on_exit()
                raise bench.sysbench.SysbenchError(f"FATAL: login failed with '{SPACED}'")
            return pump(run)
        argv = ta.AttachTest.argv(self, "--arms", "adaptive")
        with mock.patch.object(hook.FakeRun, "pump", fail_once), \
                mock.patch.object(hook.FakeRun, "error", bench.sysbench.SysbenchError,
                                  create=True), \
                mock.patch("builtins.print"), mock.patch("sys.stderr", io.StringIO()):
            rc = bench.main(argv)
        self.assertEqual(1, rc)
        seen = []
        for d, _, files in os.walk(self.out):
            for name in files:
                with open(os.path.join(d, name), errors="replace") as f:
                    text = f.read()
                seen.append(name)
                self.assertNotIn("pass word", text, name)
        for name in ("commands.txt", "progress.log", "summary.md", "failed-runs.json"):
            self.assertIn(name, seen)
        with open(os.path.join(self.out, "failed-runs.json")) as f:
            self.assertIn("login failed with '***'", f.read())
        # sysbench was handed the file, not the password
        for cmd in hook.FakeRun.commands:
            self.assertNotIn("pass word", " ".join(cmd) if isinstance(cmd, list) else cmd)
            self.assertIn("--config-file=", " ".join(cmd) if isinstance(cmd, list) else cmd)

    def test_the_help_says_where_go_tpc_shows_it(self):
        out = io.StringIO()
        with mock.patch("sys.stdout", out), self.assertRaises(SystemExit):
            bench.parse_args(["--help"])
        text = " ".join(out.getvalue().split())
        self.assertIn("go-tpc (tpcc, ch) takes it only on its command line, visible in ps", text)
        self.assertIn("--socket, with no password", text)


class OptionFileTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-optfile-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def write(self, name, text, mode=0o600):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def test_read_as_the_client_reads_it(self):
        os.mkdir(os.path.join(self.tmp, "conf.d"))
        self.write(os.path.join("conf.d", "z.cnf"), "[client]\nport = 3310\n")
        path = self.write("my.cnf", "# a comment\n[mysqld]\nuser=mysql\nport=1\n"
                                    "[client]\nhost=db1   # the primary\nuser = 'bench'\n"
                                    "password = \"p w#1\"  # quoted: the # is the password's\n"
                                    "[mysql]\nloose-user=bench2\n"
                                    "!includedir conf.d\n")
        self.assertEqual({"host": "db1", "user": "bench2", "password": "p w#1", "port": "3310"},
                         optionfile.read(path))
        self.assertEqual({"password": "a b"},
                         optionfile.read(self.write("e.cnf", "[client]\npassword=a\\sb\n")))

    def test_what_the_client_would_not_take_is_an_error(self):
        for text, mode, says in (("[client]\npassword\n", 0o600, "asks for it"),
                                 ("[client]\nuser=x\n", 0o666, "world-writable"),
                                 ("[client\nuser=x\n", 0o600, "without ']'"),
                                 ("[client]\nport=db\n", 0o600, "not a port number")):
            with self.subTest(text=text):
                with self.assertRaisesRegex(optionfile.OptionFileError, says):
                    optionfile.read(self.write("bad.cnf", text, mode))

    def test_attach_mode_from_the_file_and_the_command_line_wins(self):
        path = self.write("c.cnf", "[client]\nhost=db1\nport=3307\nuser=bench\n"
                                   "password=\"p w\"\n")
        c = bench.parse_args(["--defaults-extra-file", path]).attach
        self.assertEqual(("db1", 3307, "bench", "p w"), (c.host, c.port, c.user, c.password))
        pw = self.write("pw", "other\n")
        a = bench.parse_args(["--defaults-extra-file", path, "--host", "db2", "--user", "u",
                              "--password-file", pw])
        c = a.attach
        self.assertEqual(("db2", 3307, "u", "other"), (c.host, c.port, c.user, c.password))
        self.assertEqual("attached", a.label)
        sock = self.write("s.cnf", "[client]\nsocket=/run/mysqld/mysqld.sock\n")
        c = bench.parse_args(["--defaults-extra-file", sock]).attach
        self.assertEqual(("/run/mysqld/mysqld.sock", None, "root"), (c.socket, c.host, c.user))


if __name__ == "__main__":
    unittest.main()
