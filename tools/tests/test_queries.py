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

"""Server and AttachedServer query over PyMySQL (server.Queries), not a
client process per statement: a fake pymysql connection records what it
is sent."""

import os
import subprocess
import sys
import tempfile
import shutil
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import server  # noqa: E402
from purgebench.server import Installation, Server, ServerError  # noqa: E402
import test_purgebench as tp  # noqa: E402

import pymysql  # noqa: E402


class FakeCursor:
    def __init__(self, db):
        self.db = db
        self.rows = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, stmt):
        self.db.sent.append(stmt)
        if stmt.startswith("BAD"):
            raise pymysql.err.OperationalError(1193, "Unknown system variable 'x'")
        self.rows = self.db.answers.get(stmt, ())

    def fetchall(self):
        return self.rows


class FakeDb:
    made = []

    def __init__(self, **kw):
        self.kw = kw
        self.sent = []
        self.answers = {"SELECT 1": ((1,),), "SELECT @@x": ((None,),),
                        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema."
                        "GLOBAL_STATUS WHERE VARIABLE_NAME='Uptime'": (("UPTIME", 7),)}
        self.open = True
        self.alive = True
        FakeDb.made.append(self)

    def cursor(self):
        return FakeCursor(self)

    def ping(self, reconnect=False):
        if not self.alive:
            raise pymysql.err.OperationalError(2006, "MySQL server has gone away")

    def close(self):
        self.open = False


class QueriesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-test-")
        self.addCleanup(shutil.rmtree, self.tmp)
        FakeDb.made = []
        patch = mock.patch.object(pymysql, "connect", side_effect=lambda **kw: FakeDb(**kw))
        patch.start()
        self.addCleanup(patch.stop)
        self.srv = Server(Installation(tp.fake_tree(os.path.join(self.tmp, "t"), debian=False)),
                          os.path.join(self.tmp, "w"))

    def test_no_client_process(self):
        with mock.patch.object(subprocess, "run") as run, \
                mock.patch.object(subprocess, "Popen") as popen:
            self.assertEqual([["1"]], self.srv.query("SELECT 1"))
            self.assertEqual("NULL", self.srv.value("SELECT @@x"))
            self.assertEqual({"uptime": "7"}, self.srv.status(["Uptime"]))
        run.assert_not_called()
        popen.assert_not_called()
        # over the server's socket as root; status() on a connection of its own
        self.assertEqual(2, len(FakeDb.made))
        self.assertEqual(self.srv.socket, FakeDb.made[0].kw["unix_socket"])
        self.assertEqual("root", FakeDb.made[0].kw["user"])
        self.assertEqual(["SELECT 1", "SELECT @@x"], FakeDb.made[0].sent)

    def test_how_long_a_statement_may_take(self):
        self.srv.query("SELECT 1")
        self.assertEqual(60, FakeDb.made[0]._read_timeout)     # as the client's was
        self.srv.query("SELECT 1", timeout=600)
        self.assertEqual(600, FakeDb.made[0]._read_timeout)
        srv = server.AttachedServer(server.Conn(host="h", port=1))
        srv.query("SELECT 1")
        self.assertEqual(3600, FakeDb.made[-1]._read_timeout)

    def test_statements_split_and_the_last_answers(self):
        self.srv.query("DROP DATABASE IF EXISTS d; SELECT 1")
        self.assertEqual(["DROP DATABASE IF EXISTS d", "SELECT 1"], FakeDb.made[0].sent)

    def test_an_error_carries_the_server_code(self):
        with self.assertRaises(ServerError) as cm:
            self.srv.query("BAD")
        self.assertEqual(1193, cm.exception.code)
        self.assertIn("query failed: BAD: ERROR 1193", str(cm.exception))

    def test_one_connection_until_the_server_goes(self):
        self.srv.query("SELECT 1")
        self.srv.query("SELECT 1")
        self.assertEqual(1, len(FakeDb.made))
        FakeDb.made[0].alive = False        # restarted under it: connect again
        self.srv.query("SELECT 1")
        self.assertEqual(2, len(FakeDb.made))
        self.assertFalse(FakeDb.made[0].open)
        self.srv.kill()                     # the server stopped: closed
        self.assertFalse(FakeDb.made[1].open)
        self.assertIsNone(self.srv.db)

    def test_attached_server_the_same_way(self):
        conn = server.Conn(host="127.0.0.1", port=3306, user="bench", password="pw")
        srv = server.AttachedServer(conn)
        srv.start()
        self.assertTrue(srv.running())
        kw = FakeDb.made[0].kw
        self.assertEqual(("127.0.0.1", 3306, "bench", "pw"),
                         (kw["host"], kw["port"], kw["user"], kw["password"]))
        srv.kill()
        self.assertFalse(srv.running())


if __name__ == "__main__":
    unittest.main()
