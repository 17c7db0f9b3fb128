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

"""Every scenario calls its arm without throttle `unthrottled`; history-growth
called it `no-throttle` before. A results directory saved then
(tools/tests/fixtures/results/history-growth-no-throttle, cut from
docs/results/default-256) still reads, its arm by the name it has now: in
report's reading of a directory (report.read_samples()), so in the summary's
tables, the plots and `purgebench compare` against a directory made now."""

import importlib.util
import json
import os
import shutil
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)

from purgebench import compare, plan, report, scenarios  # noqa: E402
from purgebench import tables as summary  # noqa: E402
from purgebench.plan import Arm, Target  # noqa: E402

OLD = os.path.join(TOOLS, "tests", "fixtures", "results", "history-growth-no-throttle")
DOCS_RESULTS = os.path.join(os.path.dirname(TOOLS), "docs", "results")
HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


class Names(unittest.TestCase):
    def test_every_scenario_calls_it_unthrottled(self):
        for name, s in scenarios.REGISTRY.items():
            with self.subTest(scenario=name):
                arms = [str(a) for a, _ in s.arms(1000, ["formula", "adaptive"], True,
                                                  {"innodb_max_purge_lag": 0})]
                self.assertNotIn("no-throttle", arms)
        self.assertEqual(["unthrottled", "adaptive@1000"],
                         [str(a) for a, _ in scenarios.get("history-growth").arms(
                             None, ["formula", "adaptive"], True, {})])

    def test_an_old_name_as_named_now(self):
        self.assertEqual("unthrottled", plan.current_name("no-throttle", "history-growth"))
        self.assertEqual("stock-10.5:unthrottled+drain16",
                         plan.current_name("stock-10.5:no-throttle+drain16", "history-growth"))
        for name in ("unthrottled", "adaptive@1000", "fork:formula@10000"):
            self.assertEqual(name, plan.current_name(name, "backlog-vs-lag"))
        # a saved name still reads back as it was written (plan.Arm)
        self.assertEqual(Arm("no-throttle"), plan.arm_of({"arm": "no-throttle",
                                                          "scenario": "history-growth"}))


class OldDirectory(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-old-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_its_runs_samples_and_intervals(self):
        with open(os.path.join(OLD, "runs.json")) as f:
            self.assertIn("no-throttle", [r["arm"] for r in json.load(f)])
        runs = report.read_samples(OLD)
        self.assertEqual(["unthrottled", "adaptive@1000", "adaptive@1000", "unthrottled"],
                         [r["arm"] for r in runs])
        for r in runs:
            self.assertEqual(10, len(r["samples"]), r["arm"])
            self.assertEqual(10, len(r["intervals"]), r["arm"])
            self.assertEqual({r["arm"]}, {x["arm"] for x in r["samples"] + r["intervals"]})
        self.assertEqual(1363, runs[0]["samples"][1]["innodb_history_list_length"])

    def test_its_table(self):
        (title, header, rows), = summary.summary_tables(report.read_samples(OLD),
                                                        [Target("fork", None, None, False)])
        self.assertEqual("history-growth", title)
        self.assertEqual(["unthrottled", "adaptive@1000"], [row[0] for row in rows])

    def test_compared_with_a_directory_made_now(self):
        """The same runs written again, as purgebench writes them now: the arm
        is in common, under its name now."""
        now = os.path.join(self.tmp, "now")
        os.makedirs(now)
        runs = report.read_samples(OLD)
        for r in runs:      # as measured: samples without their run's labels
            r["samples"] = [{k: v for k, v in x.items() if k not in ("scenario", "arm", "repeat")}
                            for x in r["samples"]]
            r["intervals"] = []
        report.write_samples(now, runs)
        with open(os.path.join(now, "runs.json")) as f:
            self.assertNotIn("no-throttle", f.read())
        a, b = compare.load(OLD, "A"), compare.load(now, "B")
        arms, notes = compare.plan(a, b)
        self.assertEqual([("history-growth", ["unthrottled", "adaptive@1000"])], arms)
        self.assertEqual([], notes)
        (_, lines), = compare.headline(a, b, arms)
        self.assertEqual("unthrottled: tps 1.00x, history p95 1.00x, latency p95 1.00x "
                         "(B over A)", lines[0])

    @unittest.skipUnless(HAVE_MPL, "matplotlib not installed")
    def test_its_plot(self):
        self.assertEqual(["history-growth-history-tps.png", "history-growth-setpoint.png"],
                         report.plots(self.tmp, report.read_samples(OLD)))

    @unittest.skipUnless(os.path.isdir(DOCS_RESULTS), "no docs/results")
    def test_the_saved_directories_that_say_no_throttle(self):
        """docs/results' directories of that time read whole: no run loses
        its samples to the new name, none keeps the old one."""
        old = []
        for d in sorted(os.listdir(DOCS_RESULTS)):
            path = os.path.join(DOCS_RESULTS, d, "runs.json")
            if os.path.isfile(path):
                with open(path) as f:
                    if '"no-throttle"' in f.read():
                        old.append(d)
        self.assertIn("default-256", old)
        for d in old:
            with self.subTest(directory=d):
                runs = report.read_samples(os.path.join(DOCS_RESULTS, d))
                self.assertNotIn("no-throttle", {plan.arm_of(r).name for r in runs})
                self.assertTrue(all(r["samples"] and r["intervals"] for r in runs
                                    if r["scenario"] == "history-growth"))
                # its summary.md, the page a reader opens, says the name now
                with open(os.path.join(DOCS_RESULTS, d, "summary.md")) as f:
                    text = f.read()
                self.assertNotIn("no-throttle", text)
                self.assertIn("unthrottled |", text)


if __name__ == "__main__":
    unittest.main()
