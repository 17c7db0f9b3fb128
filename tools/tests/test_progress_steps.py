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

"""Every step that runs for long shows its progress: go-tpc's load, a
sysbench prepare, a slow shutdown, the wait for purge (progress.Ticker)."""

import io
import os
import shutil
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, client, gotpc, progress  # noqa: E402
from purgebench.server import Installation, Server  # noqa: E402
import test_purgebench as tp  # noqa: E402


class TickerTest(unittest.TestCase):
    def test_a_log_gets_a_line_per_interval_with_the_status(self):
        said = []
        state = {"n": 0}

        def status():
            state["n"] += 1
            return f"part {state['n']}"
        with progress.Ticker("go-tpc tpcc prepare", say=said.append, status=status,
                             every=0.1, live=False):
            time.sleep(0.55)
        self.assertGreaterEqual(len(said), 5)
        self.assertRegex(said[0], r"^  go-tpc tpcc prepare: 0 s, part 1$")
        self.assertRegex(said[-1], r"^  go-tpc tpcc prepare: done after 1 s, part \d+$")

    def test_a_short_step_says_nothing(self):
        said = []
        with progress.Ticker("quick", say=said.append, every=10, live=False):
            pass
        self.assertEqual([], said)

    def test_a_failing_step_says_it_stopped(self):
        said = []
        with self.assertRaises(RuntimeError):
            with progress.Ticker("x", say=said.append, every=0.05, live=False):
                time.sleep(0.12)
                raise RuntimeError("boom")
        self.assertIn("x: stopped after", said[-1])

    def test_a_status_that_fails_is_left_out(self):
        said = []
        with progress.Ticker("x", say=said.append, every=0.05, live=False,
                             status=lambda: 1 / 0):
            time.sleep(0.12)
        self.assertRegex(said[0], r"^  x: 0 s$")

    def test_a_terminal_gets_a_live_line(self):
        out = io.StringIO()
        said = []
        with progress.Ticker("slow shutdown", say=said.append, status=lambda: "to purge 9",
                             every=0.05, stream=out, live=True):
            time.sleep(1.3)
        self.assertIn("slow shutdown", out.getvalue())
        self.assertIn("to purge 9", out.getvalue())
        self.assertEqual(["  slow shutdown: done after 1 s, to purge 9"], said)


class LoadProgressTest(unittest.TestCase):
    def test_go_tpc_prepare_lines(self):
        # go-tpc v1.0.7 tpcc prepare --warehouses 1 -T 4 against the release
        # build, as it printed: its DDL, the load's parts (4 threads: the
        # districts out of order), then the consistency check that prepare
        # runs itself, stopped after 45 s in condition 3.3.2.10
        p = gotpc.LoadProgress(1)
        self.assertIsNone(p.status())
        with open(os.path.join(tp.FIXTURES, "gotpc-tpcc-prepare-1wh.txt")) as f:
            lines = f.readlines()
        last_load = max(i for i, line in enumerate(lines) if line.startswith("load to"))
        for line in lines[:9]:
            p(line)
        self.assertEqual("creating table item", p.status())
        for line in lines[9:last_load + 1]:
            p(line)
        self.assertEqual(54, gotpc.load_parts(1))
        self.assertEqual(1 + 4 * 53, gotpc.load_parts(4))
        self.assertEqual("54 of 54 load parts begun, latest: load to order_line in "
                         "warehouse 1 district 9", p.status())
        for line in lines[last_load + 1:]:
            p(line)
            if "3.3.2.10" in line:
                break
        self.assertEqual("54 of 54 load parts begun, latest: begin to check warehouse 1 "
                         "at condition 3.3.2.10", p.status())

    def test_run_lines_streams_the_output(self):
        seen = []
        t0 = time.time()
        rc, out = client.run_lines(
            ["sh", "-c", "echo one; sleep 0.3; echo two >&2; exit 3"],
            lambda line: seen.append((line.strip(), time.time() - t0)))
        self.assertEqual(3, rc)
        self.assertEqual("one\ntwo\n", out)
        self.assertEqual(["one", "two"], [s for s, _ in seen])
        self.assertLess(seen[0][1], 0.25)       # as it came, not at the end


class ShutdownStatusTest(unittest.TestCase):
    def test_the_last_to_purge_of_the_shutdown_under_way(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        mariadbd = tp.fake_tree(os.path.join(tmp, "t"), debian=False)
        srv = Server(Installation(mariadbd), os.path.join(tmp, "w"))
        os.makedirs(srv.workdir)
        with open(srv.errlog, "w") as f:
            f.write("[Note] InnoDB: to purge 77 transactions\n")
        srv.log_mark = os.path.getsize(srv.errlog)
        self.assertIsNone(srv.shutdown_status())
        with open(srv.errlog, "a") as f:
            f.write(tp.ERRLOG)
        self.assertEqual("to purge 1,200 transactions", srv.shutdown_status())


class GoTpcLoadTest(unittest.TestCase):
    """gotpc_snapshot() with a go-tpc that loads slowly: the log shows the
    load's progress while it runs."""
    setUp = tp.CompareTest.setUp

    def test_the_load_is_shown_while_it_runs(self):
        fake = os.path.join(self.tmp, "go-tpc")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\ngrep '^load to' "
                    + os.path.join(tp.FIXTURES, "gotpc-tpcc-prepare-1wh.txt")
                    + " | while read -r line; do echo \"$line\"; sleep 0.02; done\n")
        os.chmod(fake, 0o755)
        b = tp.FakeBench(bench.parse_args(["tpcc", "--server", self.fork, "--out",
                                           os.path.join(self.tmp, "out")]))
        b.progress_every = 0.1
        t = b.targets[0]
        with mock.patch("builtins.print"):
            b.use(t)
            os.makedirs(t.server.datadir)
            t.server.shutdown_status = lambda: None
            b.gotpc_snapshot(t, fake, "tpcc", 1)
        with open(os.path.join(b.outdir, "progress.log")) as f:
            log = f.read()
        self.assertIn("fork: go-tpc tpcc prepare: 0 s, ", log)
        self.assertRegex(log, r"fork: go-tpc tpcc prepare: \d+ s, \d+ of 54 load parts "
                              r"begun, latest: load to ")
        self.assertIn("fork: go-tpc tpcc prepare: done after ", log)


if __name__ == "__main__":
    unittest.main()
