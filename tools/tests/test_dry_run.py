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

"""--dry-run: the plan in run order with an estimated duration; nothing
set up, built, started or written."""

import io
import os
import re
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, dryrun, server  # noqa: E402,F401  (dryrun: its class made before Bench is patched)


def dry(argv):
    out = io.StringIO()
    with mock.patch("sys.stdout", out), \
            mock.patch.object(bench, "Bench", side_effect=AssertionError("set up")), \
            mock.patch.object(bench.sysbench, "require", side_effect=AssertionError("sysbench")), \
            mock.patch.object(server.subprocess, "Popen",
                              side_effect=AssertionError("a process")):
        rc = bench.main(["--dry-run"] + argv)
    return rc, out.getvalue()


def rows(text):
    """(server, scenario, arm, lag, repeat) of each planned run."""
    return [tuple(line.split()[1:6]) for line in text.splitlines()
            if re.match(r"\s+\d+  ", line)]


class DryRunTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-dry-")
        self.addCleanup(shutil.rmtree, self.tmp)
        old = os.getcwd()
        os.chdir(self.tmp)
        self.addCleanup(os.chdir, old)

    def test_the_default_plan_in_run_order(self):
        rc, text = dry([])
        self.assertEqual(0, rc)
        plan = rows(text)
        # history-growth then backlog-vs-lag, 2 repeats, arms rotated per repeat
        self.assertEqual([("fork", "history-growth", "unthrottled", "-", "1"),
                          ("fork", "history-growth", "adaptive@1000", "1000", "1"),
                          ("fork", "history-growth", "adaptive@1000", "1000", "2"),
                          ("fork", "history-growth", "unthrottled", "-", "2")], plan[:4])
        self.assertEqual(["unthrottled", "formula@10000", "adaptive@10000",
                          "formula@10000", "adaptive@10000", "unthrottled"],
                         [r[2] for r in plan[4:]])
        self.assertIn("10 runs, 8.7 min of load; estimated duration", text)
        self.assertEqual([], os.listdir(self.tmp))         # no results directory

    def test_three_servers_interleaved_and_rotated(self):
        exe = os.path.join(self.tmp, "mariadbd")
        with open(exe, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(exe, 0o755)
        rc, text = dry(["backlog-vs-lag", "--repeats", "2", "--arms", "adaptive",
                        "--server-list", f"a={exe},b={exe},c={exe}", "--time", "10"])
        self.assertEqual(0, rc)
        plan = rows(text)
        self.assertEqual(12, len(plan))
        self.assertEqual([("a", "a:unthrottled"), ("b", "b:unthrottled"), ("c", "c:unthrottled"),
                          ("a", "a:adaptive@10000"), ("b", "b:adaptive@10000"),
                          ("c", "c:adaptive@10000")], [(r[0], r[2]) for r in plan[:6]])
        # repeat 2: the arms rotated, and the servers' order within an arm
        self.assertEqual(["b", "c", "a"], [r[0] for r in plan[6:9]])
        self.assertTrue(all(r[4] == "2" for r in plan[6:]))
        self.assertIn("12 runs, 2.0 min of load", text)
        self.assertEqual(["mariadbd"], os.listdir(self.tmp))

    def test_every_scenario_plans_without_a_server(self):
        rc, text = dry(["all", "--threads", "4"])
        self.assertEqual(0, rc)
        scenarios = {r[1] for r in rows(text)}
        self.assertEqual({"history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
                          "thread-sweep", "tpcc", "ch", "insert-benchmark", "snapshot-release"},
                         scenarios)
        self.assertIn("of go-tpc loads", text)
        self.assertIn("snapshot-release", text)

    def test_attach_mode_connects_to_nothing(self):
        rc, text = dry(["backlog-vs-lag", "--host", "db1"])
        self.assertEqual(0, rc)
        self.assertIn("attached (attached: db1:3306 as root)", text)
        self.assertIn("the drains after each run not counted", text)


if __name__ == "__main__":
    unittest.main()
