# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Names and times of the ecosystem: each sample's epoch time and each run's
start (runs.json), the samples under mysqld_exporter's metric names
(samples-prometheus.txt, OpenMetrics), and the set-point plot per arm with
a target; on the saved directory tools/tests/fixtures/setpoint."""

import csv
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
import unittest
from unittest import mock

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from purgebench import bench, promexport, report, sampler, setpoint  # noqa: E402
import test_attach as ta  # noqa: E402

FIXTURE = os.path.join(TOOLS, "tests", "fixtures", "setpoint")
HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


class FakeCursor:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def execute(self, sql):
        self.sql = sql

    def fetchall(self):
        if "INNODB_METRICS" in self.sql:
            return [("purge_dml_wakeups", 4)]
        return [("Innodb_history_list_length", "120"), ("Innodb_max_trx_id", "77")]


class FakeConn:
    open = True

    def cursor(self):
        return FakeCursor()

    def close(self):
        self.open = False


class Workdir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-eco-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def saved(self):
        return report.read_samples(FIXTURE)


class Clock(Workdir):
    def test_each_sample_has_its_epoch_time(self):
        with mock.patch.object(sampler, "connect", return_value=FakeConn()):
            smp = sampler.Sampler("/no/socket", interval=0.01)
        before = time.time()
        smp.start()
        time.sleep(0.1)
        samples = smp.stop()
        self.assertGreater(len(samples), 2)
        for s in samples:
            self.assertGreaterEqual(s["epoch"], before - 0.01)
            self.assertLessEqual(s["epoch"], time.time() + 0.001)     # rounded to ms
            self.assertAlmostEqual(smp.t0 + s["t"], s["epoch"], delta=0.002)
        self.assertEqual(120, samples[0]["innodb_history_list_length"])

    def test_a_run_has_its_start_and_end_on_the_clock(self):
        ta.AttachTest.setUp(self)
        self.argv = lambda *more: ta.AttachTest.argv(self, *more)
        before = time.time()
        with mock.patch("builtins.print"):
            b = ta.AttachTest.run_bench(self, "--arms", "adaptive")
        self.assertTrue(b.runs)
        for r in b.runs:
            self.assertLessEqual(before - 1, r["start_epoch"])
            self.assertLessEqual(r["start_epoch"], r["end_epoch"])
            self.assertLessEqual(r["end_epoch"], time.time() + 0.001)
        report.write_samples(b.outdir, b.runs)
        with open(os.path.join(b.outdir, "runs.json")) as f:
            kept = json.load(f)
        self.assertEqual([r["start_epoch"] for r in b.runs], [r["start_epoch"] for r in kept])


class ExporterNames(Workdir):
    def test_names_as_mysqld_exporter_spells_them(self):
        self.assertEqual(("mysql_global_status_innodb_history_list_length", "unknown"),
                         promexport.exporter_name("innodb_history_list_length"))
        self.assertEqual(("mysql_global_status_innodb_max_trx_id", "unknown"),
                         promexport.exporter_name("trx_id_counter"))
        self.assertEqual(("mysql_global_status_innodb_purge_throttle_commit_limit", "unknown"),
                         promexport.exporter_name("innodb_purge_throttle_commit_limit"))
        self.assertEqual(
            ("mysql_info_schema_innodb_metrics_purge_throttle_purge_dml_wakeups_total",
             "counter"), promexport.exporter_name("innodb_purge_dml_wakeups"))
        self.assertEqual(
            ("mysql_info_schema_innodb_metrics_purge_throttle_purge_throttle_error", "gauge"),
            promexport.exporter_name("innodb_purge_throttle_error"))
        self.assertEqual(("mysql_info_schema_innodb_metrics_purge_purge_dml_delay_usec",
                          "gauge"),
                         promexport.exporter_name("innodb_purge_dml_delay_current_usec"))
        for key in ("t", "epoch", "arm"):
            self.assertIsNone(promexport.exporter_name(key))

    def test_the_metrics_table_is_the_servers(self):
        """INNODB_METRICS names every counter of the fork's purge_throttle
        module with its type, as the server's headers declare them (each
        feature's counters in its own)."""
        include = os.path.join(os.path.dirname(TOOLS), "storage", "innobase", "include")
        headers = [os.path.join(include, h) for h in (
            "srv0purgelab_mon.h", "srv0purgelab_adaptive_mon.h", "srv0purgelab_drain_mon.h")]
        if not os.path.exists(headers[0]):
            self.skipTest("no server source beside the harness")
        import re
        text = ""
        for header in headers:
            with open(header) as f:
                text += f.read().replace("\\\n", " ")
        declared = {name: "status_counter" if kind == "COUNT" else "value"
                    for name, kind in re.findall(
                        r'X\(MONITOR_\w+,\s*"(\w+)",\s*PURGE_THROTTLE_MON_(COUNT|NOW)', text)}
        self.assertGreater(len(declared), 10)
        mine = {name: kind for subsystem, name, kind in promexport.INNODB_METRICS.values()
                if subsystem == "purge_throttle"}
        self.assertEqual(declared, mine)


class Export(Workdir):
    def read(self):
        with open(os.path.join(self.tmp, promexport.FILE)) as f:
            return f.read().splitlines()

    def test_the_saved_samples_in_openmetrics(self):
        self.assertTrue(promexport.write(self.tmp, self.saved()))
        lines = self.read()
        self.assertEqual("# EOF", lines[-1])
        self.assertIn("# TYPE mysql_global_status_innodb_history_list_length unknown", lines)
        self.assertIn('mysql_global_status_innodb_history_list_length{scenario="backlog-vs-lag",'
                      'arm="adaptive@10000",repeat="1"} 13000 1764201800.004', lines)
        self.assertIn("# TYPE mysql_info_schema_innodb_metrics_purge_throttle_purge_dml_wakeups"
                      " counter", lines)
        self.assertIn('mysql_info_schema_innodb_metrics_purge_throttle_purge_dml_wakeups_total'
                      '{scenario="backlog-vs-lag",arm="unthrottled",repeat="1"} 21 '
                      '1764201607.004', lines)
        self.assertIn('mysql_global_status_innodb_max_trx_id{scenario="backlog-vs-lag",'
                      'arm="formula@10000",repeat="1"} 1000 1764201700.004', lines)
        # a family's TYPE once, then all its samples; a series in time order
        families, current = [], None
        for line in lines[:-1]:
            if line.startswith("# TYPE "):
                current = line.split()[2]
                self.assertNotIn(current, families)
                families.append(current)
                continue
            self.assertTrue(line.startswith(current), line)
        self.assertEqual(5, len(families))     # the fixture's samples hold 5 server values
        series = {}
        for line in lines:
            if not line.startswith("#"):
                key, _, at = line.rpartition(" ")
                series.setdefault(key.rsplit(" ", 1)[0], []).append(float(at))
        self.assertTrue(all(ts == sorted(ts) and len(ts) == 8 for ts in series.values()))
        self.assertFalse([line for line in lines if line.startswith(("t{", "epoch{"))])

    def test_samples_without_an_epoch_take_the_runs_start(self):
        runs = self.saved()
        for r in runs:
            for s in r["samples"]:
                del s["epoch"]
        promexport.write(self.tmp, runs)
        self.assertIn('mysql_global_status_innodb_history_list_length{scenario="backlog-vs-lag",'
                      'arm="unthrottled",repeat="1"} 2000 1764201601.004', self.read())
        for r in runs:
            del r["start_epoch"]
        os.remove(os.path.join(self.tmp, promexport.FILE))
        self.assertIsNone(promexport.write(self.tmp, runs))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, promexport.FILE)))

    def test_labels_are_escaped_and_a_server_named(self):
        runs = [dict(scenario="x", arm='a"b\\c', repeat=2, server="fork", start_epoch=10.0,
                     samples=[{"t": 1.5, "innodb_history_list_length": 3}])]
        self.assertEqual(["# TYPE mysql_global_status_innodb_history_list_length unknown",
                          'mysql_global_status_innodb_history_list_length{scenario="x",'
                          'arm="a\\"b\\\\c",repeat="2",server="fork"} 3 11.5', "# EOF"],
                         promexport.lines(runs))

    def test_write_samples_writes_it_and_the_epoch_column(self):
        runs = self.saved()
        for r in runs:      # as measured: a sample without its run's labels
            r["samples"] = [{k: v for k, v in s.items() if k not in ("scenario", "arm", "repeat")}
                            for s in r["samples"]]
            r["intervals"] = []
        report.write_samples(self.tmp, runs)
        with open(os.path.join(self.tmp, "samples.csv"), newline="") as f:
            self.assertIn("epoch", next(csv.reader(f)))
        self.assertEqual("# EOF", self.read()[-1])


class SetPoint(Workdir):
    def test_the_error_against_the_target_and_the_limit(self):
        runs = {r["arm"]: r for r in self.saved()}
        self.assertIsNone(setpoint.series(runs["unthrottled"]))
        t, error, limit = setpoint.series(runs["adaptive@10000"])
        self.assertEqual([0.004, 1.004], t[:2])
        self.assertEqual([3000, 810], error[:2])
        self.assertEqual([4000, 3750], limit[:2])
        self.assertEqual(["formula@10000", "adaptive@10000"], list(setpoint.arms(self.saved())))

    @unittest.skipUnless(HAVE_MPL, "matplotlib not installed")
    def test_a_plot_per_scenario_with_a_panel_per_lag_arm(self):
        made = report.plots(self.tmp, self.saved())
        self.assertIn("backlog-vs-lag-setpoint.png", made)
        self.assertGreater(os.path.getsize(os.path.join(self.tmp,
                                                        "backlog-vs-lag-setpoint.png")), 5000)
        none = [dict(r, arm="unthrottled", lag=None) for r in self.saved()]
        self.assertNotIn("backlog-vs-lag-setpoint.png", report.plots(self.tmp, none))


if __name__ == "__main__":
    unittest.main()
