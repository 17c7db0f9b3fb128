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


"""tools/count-instructions (purgebench.instructions): wrong input gets a
clear error before any server starts, and the server runs under the
launcher it is given (a full count runs servers under valgrind and is not
part of the tests)."""

import os
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(TOOLS, "count-instructions")
sys.path.insert(0, TOOLS)

from purgebench.server import Installation, Server, ServerError  # noqa: E402


def run(*args):
    return subprocess.run([TOOL, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=60)


class CountInstructionsInput(unittest.TestCase):
    def test_help(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("dispatch_command", r.stdout)
        self.assertIn("--events", r.stdout)

    def test_no_server(self):
        r = run()
        self.assertEqual(r.returncode, 2)
        self.assertIn("NAME=BUILD_DIR", r.stderr)

    def test_bad_count(self):
        for opt in ("--events", "--threads", "--rows"):
            r = run(opt, "0", "fork=/bin/true")
            self.assertEqual(r.returncode, 2, opt)
            self.assertIn("'0': give a whole number of at least 1", r.stderr)

    def test_bad_name(self):
        # each name is a directory of --out, and a label as --server-list's
        r = run("a/b=/bin/true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("label 'a/b'", r.stderr)

    def test_name_given_twice(self):
        r = run("fork=/bin/true", "fork=/bin/true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("label 'fork' is given twice", r.stderr)

    def test_unknown_option(self):
        r = run("--evnts=5", "fork=/bin/true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--evnts", r.stderr)

    def test_bad_setting(self):
        # --option as a run's: checked before any server starts
        r = run("--option", "innodb_max_purge_lag=lots", "fork=/bin/true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("innodb_max_purge_lag takes a whole number", r.stderr)

    def test_setting_the_tool_owns(self):
        # what valgrind needs stays the same for every server
        r = run("--option", "innodb_use_native_aio=1", "fork=/bin/true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("count-instructions sets innodb_use_native_aio=0 itself", r.stderr)

    def test_missing_build(self):
        with tempfile.TemporaryDirectory() as d:
            r = run(f"fork={d}")
        self.assertEqual(r.returncode, 2)
        self.assertIn("release/sql/mariadbd", r.stderr)


class Launcher(unittest.TestCase):
    def test_the_server_runs_under_the_launcher(self):
        with tempfile.TemporaryDirectory() as d:
            # a stand-in mariadbd that writes what the launcher set, opens
            # its socket and stays up
            os.makedirs(os.path.join(d, "sql"))
            os.makedirs(os.path.join(d, "scripts"))
            fake = os.path.join(d, "sql", "mariadbd")
            seen = os.path.join(d, "seen")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\n"
                        f"echo \"$LAUNCHED\" > {seen}\n"
                        "sock=$(sed -n 's/^socket=//p' \"${1#--defaults-file=}\")\n"
                        ": > \"$sock\"\nexec sleep 60\n")
            os.chmod(fake, stat.S_IRWXU)
            os.symlink("/bin/true", os.path.join(d, "scripts", "mariadb-install-db"))
            srv = Server(Installation(fake), os.path.join(d, "run"),
                         launcher=["/usr/bin/env", "LAUNCHED=yes"])
            # without PyMySQL the start ends at once (it has started the
            # stand-in by then)
            with mock.patch.dict(sys.modules, {"pymysql": None}):
                with self.assertRaises(ServerError):
                    srv.start(timeout=30)
            with open(seen) as f:
                self.assertEqual("yes", f.read().strip())


if __name__ == "__main__":
    unittest.main()
