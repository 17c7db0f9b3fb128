# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""purgebench compare DIR_A DIR_B [DIR...]: N results directories, each
after the first compared with it (A), on saved results directories
(tools/tests/fixtures/results); two directories read as they always did
(tools/tests/fixtures/compare-ch-2wh-vs-r2.md, written before N)."""

import importlib.util
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)

from purgebench import bench, compare  # noqa: E402

FIXTURES = os.path.join(TOOLS, "tests", "fixtures")
A = os.path.join("tests", "fixtures", "results", "ch-2wh")
B = os.path.join("tests", "fixtures", "results", "ch-2wh-r2")


class CompareMany(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-compare-")
        self.addCleanup(shutil.rmtree, self.tmp)
        cwd = os.getcwd()
        os.chdir(TOOLS)
        self.addCleanup(os.chdir, cwd)
        # C: A's runs at half A's tpmC, without the adaptive arm
        with open(os.path.join(A, "runs.json")) as f:
            runs = json.load(f)
        self.C = os.path.join(self.tmp, "c")
        os.makedirs(self.C)
        with open(os.path.join(self.C, "runs.json"), "w") as f:
            json.dump([dict(r, tpmc=r["tpmc"] / 2) for r in runs
                       if r["arm"] != "adaptive@10000"], f)

    def test_each_directory_over_the_first(self):
        a, b, c = compare.load(A, "A"), compare.load(B, "B"), compare.load(self.C, "C")
        arms, notes = compare.plan(a, b, c)
        self.assertEqual([("ch", ["unthrottled", "formula@10000"])], arms)
        self.assertIn("ch: only in A, B: adaptive@10000.", notes)
        out = compare.tables(a, b, c, arms)
        self.assertEqual(["ch: B over A", "ch: C over A", "ch: medians, A → B → C"],
                         [title for title, _, _ in out])
        _, header, rows = out[1]
        self.assertEqual("repeats A / C", header[1])
        cells = dict(zip(header, rows[0]))
        self.assertEqual("unthrottled", rows[0][0])
        self.assertEqual("0.50", cells["tpmC"].value)
        self.assertEqual("red", cells["tpmC"].mark)
        _, header, rows = out[2]
        tpmc = dict(zip(header, rows[0]))["tpmC"]
        self.assertEqual(3, len(tpmc.split(" → ")))
        self.assertEqual("27,660 → 27,060 → 13,830", tpmc)
        lines = dict(compare.headline(a, b, c, arms))["ch"]
        self.assertIn("unthrottled: tpmC 0.50x, history p95 1.00x, latency p95 1.00x "
                      "(C over A)", lines)

    def test_no_scenario_or_arm_in_all_is_refused(self):
        other = os.path.join(self.tmp, "other")
        os.makedirs(other)
        with open(os.path.join(other, "runs.json"), "w") as f:
            json.dump([{"scenario": "tpcc", "arm": "unthrottled", "repeat": 1}], f)
        with self.assertRaisesRegex(compare.NotComparable,
                                    "different scenarios: A ran ch; B ran ch; C ran tpcc"):
            compare.plan(*(compare.load(d, w) for w, d in (("A", A), ("B", B), ("C", other))))

    def test_the_command_with_three_directories(self):
        out = os.path.join(self.tmp, "out")
        err, printed = io.StringIO(), io.StringIO()
        with mock.patch("sys.stderr", err), mock.patch("sys.stdout", printed):
            rc = bench.main(["compare", A, B, self.C, "--out", out])
        self.assertIn(rc, (0, 1), err.getvalue())      # 1: no compare.html (a module missing)
        with open(os.path.join(out, "compare.md")) as f:
            text = f.read()
        self.assertIn(f"A = `{A}`, B = `{B}`, C = `{self.C}`: each measure is a directory's "
                      "median", text)
        self.assertIn("## ch: C over A", text)
        self.assertIn("- **C**: " + self.C, text)
        with open(os.path.join(out, "compare.json")) as f:
            self.assertEqual(3, sum(1 for s in json.load(f)["tables"]
                                    if s["title"].startswith("ch: ")))

    def test_two_directories_read_as_they_always_did(self):
        out = os.path.join(self.tmp, "two")
        compare.run(A, B, out)
        with open(os.path.join(out, "compare.md")) as f, \
                open(os.path.join(FIXTURES, "compare-ch-2wh-vs-r2.md")) as g:
            want = g.read()
            if importlib.util.find_spec("matplotlib") is None:
                # written where matplotlib draws the plot; without it, its note
                want = want.replace("![compare-ch-history.png](compare-ch-history.png)",
                                    compare.report.NO_PLOTS)
            self.assertEqual(want, f.read())

    def test_default_out_names_every_directory(self):
        with mock.patch.object(compare, "page", return_value=compare.report.page(
                "compare", "t", [], [], "", [], [])):
            os.chdir(self.tmp)
            outdir, _ = compare.run_all([os.path.join(TOOLS, A), os.path.join(TOOLS, B),
                                         self.C])
        self.assertEqual(os.path.join("results", "compare-ch-2wh-vs-ch-2wh-r2-vs-c"), outdir)

    def test_arguments(self):
        a = compare.parse_args(["x", "y", "z", "w"])
        self.assertEqual(("x", "y", ["z", "w"]), (a.dir_a, a.dir_b, a.more))
        with mock.patch("sys.stderr", io.StringIO()) as err, self.assertRaises(SystemExit):
            compare.parse_args(["x"])
        self.assertIn("DIR_B", err.getvalue())
        with mock.patch("sys.stderr", io.StringIO()), mock.patch("sys.stdout", io.StringIO()):
            self.assertEqual(0, bench.main(["--check-args", "compare", "x", "y", "z"]))


if __name__ == "__main__":
    unittest.main()
