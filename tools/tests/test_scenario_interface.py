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

"""What the core asks of a scenario rather than knowing it (scenarios/base.py's
Scenario): its plots (report.plots()), what compare compares and in which
throughput (compare.py), the options only it takes and what it cannot run
with (options.py), its script's own --sb-options, the most threads it runs
(max_connections), its note in a dry run, what its runs tell the others'
tables (purge-capacity's sustained rate)."""

import importlib.util
import io
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)

from purgebench import bench, compare, insertbench, report, scenarios  # noqa: E402
from purgebench import tables as summary  # noqa: E402
from purgebench.plan import Target  # noqa: E402
from purgebench.scenarios.base import Scenario  # noqa: E402

HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


def run(scenario, arm, repeat=1, samples=8, **kw):
    """A run as runs.json and the samples hold it; made up."""
    return dict(dict(scenario=scenario, arm=arm, repeat=repeat, threads=4, tps=100.0 * repeat,
                     qps=2000.0, lat_p95_ms=3.0, history_p95=900, history_max=1000,
                     backlog=800, redo_bytes_per_trx=700.0,
                     samples=[{"t": float(i), "innodb_history_list_length": 100 * i}
                              for i in range(samples)],
                     intervals=[{"t": float(i), "tps": 100.0, "lat_ms": 3.0}
                                for i in range(1, samples)]), **kw)


def parse_error(argv):
    """What the command line says of argv, which it refuses."""
    with mock.patch("sys.stderr", new_callable=io.StringIO) as err:
        try:
            bench.parse_args(argv)
        except SystemExit:
            return err.getvalue()
    raise AssertionError(f"{argv} was not refused")


@unittest.skipUnless(HAVE_MPL, "matplotlib not installed")
class Plots(unittest.TestCase):
    """report.plots() draws what each scenario's plots() names."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-iface-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_each_scenario_its_own(self):
        runs = [run("backlog-vs-lag", "unthrottled"),
                run("backlog-vs-lag", "formula@10000", lag=10000),
                run("redo-per-trx", "compact@4"), run("redo-per-trx", "generic@4"),
                run("thread-sweep", "default@1"), run("thread-sweep", "default@16"),
                run("snapshot-release", "unthrottled", release_form="stop",
                    view_opened_t=1.0, view_released_t=3.0)]
        made = report.plots(self.tmp, runs)
        self.assertEqual(["backlog-vs-lag-history-tps.png", "backlog-vs-lag-setpoint.png",
                          "backlog-vs-lag.png",
                          "redo-per-trx-history-tps.png", "redo-per-trx.png",
                          "thread-sweep.png", "snapshot-release-history-tps.png"], made)
        for name in made:
            self.assertGreater(os.path.getsize(os.path.join(self.tmp, name)), 1000, name)

    def test_a_scenario_the_registry_does_not_know(self):
        """A results directory of another version: the interface's defaults."""
        self.assertEqual(["gone-history-tps.png"], report.plots(self.tmp, [run("gone", "x")]))
        self.assertIsInstance(scenarios.of("gone"), Scenario)
        self.assertIs(scenarios.get("tpcc"), scenarios.of("tpcc"))


class Compare(unittest.TestCase):
    """compare's columns and headline throughput are the scenario's own."""

    def test_the_measures_and_the_throughput(self):
        titles = {n: [m[1] for m in s.measures] for n, s in scenarios.REGISTRY.items()}
        self.assertIn("tpmC", titles["tpcc"])
        self.assertIn("analytical queries/h", titles["ch"])
        self.assertNotIn("analytical queries/h", titles["tpcc"])
        self.assertEqual(["inserts/s", "queries/s"], titles["insert-benchmark"][:2])
        self.assertEqual("tps", titles["history-growth"][0])
        self.assertEqual({"backlog-vs-lag": "qps", "tpcc": "tpmc", "ch": "tpmc",
                          "insert-benchmark": "inserts_per_s"},
                         {n: s.key for n, s in scenarios.REGISTRY.items() if s.key != "tps"})

    def test_a_directory_over_another(self):
        a = [run("tpcc", "unthrottled", tpmc=1000.0), run("tpcc", "unthrottled", 2, tpmc=1100.0)]
        b = [run("tpcc", "unthrottled", tpmc=900.0), run("tpcc", "unthrottled", 2, tpmc=990.0)]
        arms, notes = compare.plan(a, b)
        (title, lines), = compare.headline(a, b, arms)
        self.assertEqual(["unthrottled: tpmC 0.90x, history p95 1.00x, latency p95 1.00x "
                          "(B over A)"], lines)
        (_, header, _), _ = compare.tables(a, b, arms)
        self.assertEqual(["arm", "repeats A / B", "tps", "qps", "tpmC", "latency p95 ms ↓",
                          "history p95 ↓", "history max ↓", "to purge at slow shutdown ↓",
                          "redo bytes/trx ↓"], header)

    def test_an_insert_benchmark_step_by_its_row(self):
        ib = scenarios.get("insert-benchmark")
        step = {"ib_row": {"inserts_per_s": 500.0, "queries_per_s": None, "cpu_s_per_op": 2e-5},
                "tps": 7.0, "lat_p95_ms": 4.0}
        self.assertEqual(500.0, ib.value(step, "inserts_per_s"))
        self.assertIsNone(ib.value(step, "tps"))
        self.assertAlmostEqual(20.0, ib.value(step, "cpu_us_per_op"))
        self.assertEqual(4.0, ib.value(step, "lat_p95_ms"))
        self.assertEqual("inserts_per_s", ib.throughput([step]))
        query = {"ib_row": {"inserts_per_s": 100.0, "queries_per_s": 900.0}}
        self.assertEqual("queries_per_s", ib.throughput([step, query]))
        self.assertEqual("queries/s", ib.unit("queries_per_s"))


class Options(unittest.TestCase):
    def test_an_option_only_one_scenario_takes(self):
        self.assertEqual(("--sweep-threads", "--switch"),
                         scenarios.get("thread-sweep").own_options)
        self.assertIn("--sweep-threads and --switch are thread-sweep's: add the scenario "
                      "thread-sweep", parse_error(["backlog-vs-lag", "--switch", "a=1,2"]))

    def test_a_scripts_own_options(self):
        self.assertIs(scenarios.get("insert-benchmark"),
                      scenarios.sb_option_owner("--ib_data_max=10"))
        self.assertIsNone(scenarios.sb_option_owner("--index_updates=2"))
        opts = ["--ib_data_max=10", "--index_updates=2"]
        self.assertEqual(["--ib_data_max=10"], scenarios.sb_options_for(insertbench.LUA, opts))
        self.assertEqual(["--index_updates=2"], scenarios.sb_options_for("oltp_write_only", opts))
        self.assertIn("purgebench sets --ib_step for each insert-benchmark step itself",
                      parse_error(["backlog-vs-lag", "--sb-option", "ib_step=l.i0"]))

    def test_what_a_scenario_cannot_run_with(self):
        self.assertIn("insert-benchmark: ", parse_error(
            ["insert-benchmark", "--rows", "2000", "--time", "3000"]))
        self.assertIsNone(scenarios.get("backlog-vs-lag").check_options(
            bench.parse_args(["backlog-vs-lag"])))

    def test_the_most_threads(self):
        a = bench.parse_args(["thread-sweep", "history-growth"])
        self.assertEqual(1024, scenarios.get("thread-sweep").most_threads(a, False))
        self.assertEqual(4096, scenarios.get("thread-sweep").most_threads(a, True))
        self.assertEqual(0, scenarios.get("history-growth").most_threads(a, False))


class Tables(unittest.TestCase):
    def test_what_purge_sustained_reaches_backlog_vs_lag(self):
        t = Target("fork", None, None, labelled=False)
        runs = [run("purge-capacity", "rate@500", rate=500, tps=490.0, bounded=True),
                run("purge-capacity", "rate@1000", rate=1000, tps=700.0, bounded=False),
                run("backlog-vs-lag", "unthrottled", tps=245.0)]
        out = summary.summary_tables(runs, [t])
        blv = next(rows for title, _, rows in out if title == "backlog-vs-lag")
        self.assertEqual("0.50", blv[0][-1].split(" ")[0].strip("*"))
        sustained = next(rows for title, _, rows in out if title.endswith("what purge sustained"))
        self.assertEqual("490", sustained[0][1])

    def test_a_dry_runs_note(self):
        notes = {n: s.dry_run_note for n, s in scenarios.REGISTRY.items() if s.dry_run_note}
        self.assertEqual(["purge-capacity"], list(notes))


if __name__ == "__main__":
    unittest.main()
