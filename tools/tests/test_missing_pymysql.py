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

"""A Python without PyMySQL (another interpreter than the one BUILD/setup
provisions) gets the harness's own error naming what to install, not an
ImportError traceback, at the first statement sent to a server, and a
server being started says so at once rather than waiting out its start
timeout with a healthy error log."""

import os
import stat
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from purgebench.server import Installation, Queries, Server, ServerError  # noqa: E402


class NoPyMySQL(unittest.TestCase):
    def test_first_query_names_what_to_install(self):
        q = Queries()
        # None in sys.modules makes `import pymysql` raise ImportError
        with mock.patch.dict(sys.modules, {"pymysql": None}):
            with self.assertRaises(ServerError) as cm:
                q.query("SELECT 1")
        self.assertIn("PyMySQL", str(cm.exception))
        self.assertIn("python3-pymysql", str(cm.exception))

    def test_start_says_so_at_once(self):
        with tempfile.TemporaryDirectory() as d:
            # a stand-in mariadbd that opens its socket and stays up
            sql = os.path.join(d, "sql")
            os.makedirs(sql)
            fake = os.path.join(sql, "mariadbd")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\n"
                        "sock=$(sed -n 's/^socket=//p' \"${1#--defaults-file=}\")\n"
                        ": > \"$sock\"\nexec sleep 60\n")
            os.chmod(fake, stat.S_IRWXU)
            scripts = os.path.join(d, "scripts")
            os.makedirs(scripts)
            os.symlink("/bin/true", os.path.join(scripts, "mariadb-install-db"))
            srv = Server(Installation(fake), os.path.join(d, "run"))
            t0 = time.time()
            with mock.patch.dict(sys.modules, {"pymysql": None}):
                with self.assertRaises(ServerError) as cm:
                    srv.start(timeout=30)
            self.assertIn("python3-pymysql", str(cm.exception))
            self.assertLess(time.time() - t0, 10, "not after the start timeout")
            self.assertIsNone(srv.proc, "the stand-in was stopped")


if __name__ == "__main__":
    unittest.main()
