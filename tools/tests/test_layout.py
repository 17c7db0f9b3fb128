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

    def test_no_import_cycle_at_module_level(self):
        """The package's modules import each other, at their top, as a
        graph without a cycle (an import inside a function is not counted:
        it runs once the modules are loaded)."""
        graph = {}
        for rel, text in sources():
            name = rel[:-3].replace(os.sep, ".")
            is_pkg = name.endswith("__init__")
            name = name[:-len(".__init__")] if is_pkg else name
            pkg = name if is_pkg else name.rpartition(".")[0]
            deps = set()
            for node in ast.parse(text, rel).body:
                if isinstance(node, ast.ImportFrom) and not node.level and (
                        node.module or "").split(".")[0] == "purgebench":
                    # from purgebench[.x] import y: as from .[x] import y here
                    node = ast.ImportFrom(node.module.partition(".")[2] or None, node.names,
                                          len(pkg.split(".")) + 1 if pkg else 1)
                elif isinstance(node, ast.Import):
                    deps.update(a.name.partition(".")[2] for a in node.names
                                if a.name.startswith("purgebench."))
                    continue
                if isinstance(node, ast.ImportFrom) and node.level:
                    base = pkg.split(".") if pkg else []
                    base = base[:len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                    for alias in node.names:
                        # `from . import x`: x a module or a package (scenarios)
                        sub = ".".join(filter(None, [target, alias.name]))
                        path = os.path.join(PKG, *sub.split("."))
                        deps.add(sub if os.path.exists(path + ".py") or os.path.exists(
                            os.path.join(path, "__init__.py")) else target)
            graph[name] = deps - {name, "", "__init__"}
        self.assertIn("scenarios.base", graph["scenarios.tpcc"])
        self.assertIn("scenarios", graph["report"])         # a package is a node too
        # every module of the package is a node of the graph
        self.assertEqual(len(list(sources())), len(graph))
        done, path = set(), []

        def visit(m):
            if m in path:
                self.fail("import cycle: " + " -> ".join(path[path.index(m):] + [m]))
            if m in done:
                return
            path.append(m)
            for d in sorted(graph.get(m, ())):
                visit(d)
            path.pop()
            done.add(m)
        for m in sorted(graph):
            visit(m)

    def test_no_method_repeated_across_scenarios(self):
        """What several scenarios share is in a class of scenarios/base.py
        (Sysbench: prepare(), run_one(); Throttled: arms(), lags();
        Scenario: own_runs(), lag_runs(), ...), not copied into each."""
        seen = {}
        for rel, text in sources():
            if not rel.startswith("scenarios" + os.sep):
                continue
            for cls in ast.walk(ast.parse(text, rel)):
                if not isinstance(cls, ast.ClassDef):
                    continue
                for fn in cls.body:
                    if isinstance(fn, ast.FunctionDef):
                        body = fn.body[1:] if ast.get_docstring(fn) else fn.body
                        key = (fn.name, ast.dump(ast.Module(body, [])))
                        seen.setdefault(key, []).append(f"{rel}:{cls.name}")
        self.assertEqual({}, {k[0]: v for k, v in seen.items() if len(v) > 1})

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

    def test_no_scenario_named_outside_its_module(self):
        """What a scenario is (its plots, measures, checks, threads, steps)
        is asked of its Scenario: no module of the core names one (a string
        that is a registry name), so that a new scenario touches only its
        module and the registry. Its own helpers (its client's driver, its
        steps or figures) may."""
        helpers = ("gotpc.py", "insertbench.py", "snapshot.py")
        named = []
        for rel, text in sources():
            if rel.startswith("scenarios" + os.sep) or rel in helpers:
                continue
            for node in ast.walk(ast.parse(text, rel)):
                if isinstance(node, ast.Constant) and node.value in scenarios.REGISTRY:
                    named.append(f"{rel}:{node.lineno}: {node.value}")
        self.assertEqual([], named)

    def test_the_one_measured_run_knows_no_read_view(self):
        """snapshot-release's read view runs beside the load through
        measure()'s generic beside= (snapshot.View), not as the core's own:
        measure.py neither imports snapshot nor names its view."""
        with open(os.path.join(PKG, "measure.py")) as f:
            text = f.read()
        imported = set()
        for node in ast.parse(text).body:
            if isinstance(node, ast.ImportFrom):
                imported |= {a.name for a in node.names} | {node.module or ""}
        self.assertNotIn("snapshot", imported)
        self.assertNotIn("ViewHolder", text)
        from purgebench.scenarios import snapshot_release
        with open(snapshot_release.__file__) as f:
            self.assertIn("beside=", f.read())

    def test_the_registry_names_the_scenarios_with_steps(self):
        from purgebench import plan
        self.assertEqual({n for n, s in scenarios.REGISTRY.items() if s.steps},
                         set(plan.STEP_SCENARIOS))
        self.assertEqual("4", plan.Arm.parse("compact@4", "redo-per-trx").step)
        self.assertEqual(4, plan.Arm.parse("formula@4", "backlog-vs-lag").lag)

    def test_one_place_builds_the_rotated_run_list(self):
        """rotate() is called only by the planning helpers: thread-sweep's
        sweep_plan(), Scenario.own_runs() (a scenario's own arms) and
        Scenario.lag_runs() (unthrottled plus each lag), which the lag
        scenarios go through."""
        callers = []
        for rel, text in sources():
            for node in ast.walk(ast.parse(text, rel)):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "rotate"):
                    callers.append(rel)
        self.assertEqual(sorted(callers), sorted([
            "plan.py",                          # sweep_plan()
            os.path.join("scenarios", "base.py"),           # own_runs(), lag_runs()
            os.path.join("scenarios", "base.py")]))
        for name in ("backlog-vs-lag", "tpcc", "ch", "insert-benchmark", "snapshot-release"):
            with self.subTest(scenario=name):
                with open(sys.modules[type(scenarios.get(name)).__module__].__file__) as f:
                    self.assertIn(".lag_runs(", f.read())


if __name__ == "__main__":
    unittest.main()
