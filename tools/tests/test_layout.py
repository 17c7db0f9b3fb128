# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""The harness's layout (docs/benchmarks.md, "The harness's layout"): no
class over 300 lines; a module per scenario behind one interface, each in
the registry; one place that builds the rotated run list."""
import ast
import os
import sys
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(TOOLS, "purgebench")
sys.path.insert(0, TOOLS)

from purgebench import scenarios  # noqa: E402
from purgebench.scenarios.base import Scenario  # noqa: E402

MAX_CLASS_LINES = 300


def sources():
    for d, _, files in os.walk(PKG):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(d, f)
                with open(path) as fh:
                    yield os.path.relpath(path, PKG), fh.read()


class Layout(unittest.TestCase):
    def test_no_class_over_300_lines(self):
        sizes = {}
        for rel, text in sources():
            for node in ast.walk(ast.parse(text, rel)):
                if isinstance(node, ast.ClassDef):
                    sizes[f"{rel}:{node.name}"] = node.end_lineno - node.lineno + 1
        self.assertIn("bench.py:Bench", sizes)
        big = {k: v for k, v in sizes.items() if v > MAX_CLASS_LINES}
        self.assertEqual({}, big, f"classes over {MAX_CLASS_LINES} lines")

    def test_a_module_per_scenario_in_the_registry(self):
        files = sorted(f[:-3] for f in os.listdir(os.path.join(PKG, "scenarios"))
                       if f.endswith(".py") and f not in ("__init__.py", "base.py"))
        modules = sorted({type(s).__module__.rsplit(".", 1)[1]
                          for s in scenarios.REGISTRY.values()})
        self.assertEqual(files, modules)
        self.assertEqual(scenarios.SCENARIOS, tuple(scenarios.REGISTRY))
        for name, s in scenarios.REGISTRY.items():
            with self.subTest(scenario=name):
                self.assertIsInstance(s, Scenario)
                self.assertEqual(name, s.name)
                for method in ("prepare", "run", "cleanup", "check", "tables"):
                    self.assertTrue(callable(getattr(s, method)))
                self.assertIsNot(type(s).run, Scenario.run, "its own run loop")
                self.assertIn("time", s.scale)
                self.assertTrue(all(o.startswith("--") for o in s.options))

    def test_one_place_builds_the_rotated_run_list(self):
        """rotate() is called only by the planning helpers and the scenarios
        whose arms are not unthrottled plus each lag; the lag scenarios go
        through Scenario.lag_runs()."""
        callers = []
        for rel, text in sources():
            for node in ast.walk(ast.parse(text, rel)):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "rotate"):
                    callers.append(rel)
        self.assertEqual(sorted(callers), sorted([
            "plan.py",                          # sweep_plan()
            os.path.join("scenarios", "base.py"),           # lag_runs()
            os.path.join("scenarios", "history_growth.py"),
            os.path.join("scenarios", "redo_per_trx.py")]))
        for name in ("backlog-vs-lag", "tpcc", "ch", "insert-benchmark", "snapshot-release"):
            with self.subTest(scenario=name):
                self.assertIn(".lag_runs(", ast.unparse(ast.parse(
                    open(sys.modules[type(scenarios.get(name)).__module__].__file__).read())))


if __name__ == "__main__":
    unittest.main()
