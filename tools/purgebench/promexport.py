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

"""samples-prometheus.txt: every sample of every run in the OpenMetrics
text format, under the names that Prometheus' mysqld_exporter gives the same
values, so that a run lines up with the dashboards (PMM, Grafana) of a
server that exporter watches, and can be loaded into Prometheus with
`promtool tsdb create-blocks-from openmetrics samples-prometheus.txt DIR`.

mysqld_exporter names a SHOW GLOBAL STATUS variable
mysql_global_status_<name in lower case> (its collector global_status,
untyped), and an INNODB_METRICS counter
mysql_info_schema_innodb_metrics_<subsystem>_<name>, with _total for the
types counter and status_counter (its collector info_schema.innodb_metrics).
A sample keeps the fork's INNODB_METRICS counters under status-like names
(sampler.metric_rows()): INNODB_METRICS below says which they are. Each
series carries the run's labels (scenario, arm, repeat, and server when
several were compared) and each sample its epoch timestamp (the sample's
epoch, else the run's start_epoch + t; a run with neither is left out)."""

import os

STATUS_PREFIX = "mysql_global_status_"
METRICS_PREFIX = "mysql_info_schema_innodb_metrics_"
FILE = "samples-prometheus.txt"

# a sample's key -> (SUBSYSTEM, NAME, TYPE) of the INNODB_METRICS counter it
# holds (storage/innobase/include/srv0purgelab_mon.h and the adaptive
# throttle's and the drain's _mon.h beside it, the module
# purge_throttle: a value now is TYPE 'value', a counter that only grows
# 'status_counter'; purge_dml_delay_usec is the purge module's)
_COUNTS = ("purge_dml_delayed_rows", "purge_dml_delayed_trx", "purge_dml_delay_total_usec",
           "purge_dml_wakeups", "purge_commit_wakeups", "purge_coordinator_polls",
           "purge_throttle_wait_points", "purge_throttle_updates_in_batch",
           "purge_truncation_passes", "purge_truncation_usec",
           "purge_drain_released", "purge_drain_withheld_usec")
_VALUES = ("purge_throttle_tickets", "purge_throttle_error", "purge_truncation_busy_rsegs",
           "purge_truncation_referenced_rsegs", "purge_rsegs_withheld", "purge_drain_width")
INNODB_METRICS = dict(
    [("innodb_" + n, ("purge_throttle", n, "status_counter")) for n in _COUNTS]
    + [("innodb_" + n, ("purge_throttle", n, "value")) for n in _VALUES]
    + [("innodb_purge_dml_delay_current_usec", ("purge", "purge_dml_delay_usec", "value"))])
# sample keys that are not the server's values, or that the sampler renamed
NOT_METRICS = ("t", "epoch", "scenario", "arm", "repeat", "server")
RENAMED = {"trx_id_counter": "innodb_max_trx_id"}


def exporter_name(key):
    """(metric name, OpenMetrics type) of a sample's key as mysqld_exporter
    spells it: ('mysql_global_status_innodb_history_list_length', 'unknown'),
    ('mysql_info_schema_innodb_metrics_purge_throttle_purge_dml_wakeups_total',
    'counter'); None for a key that is no server value."""
    if key in NOT_METRICS:
        return None
    if key in INNODB_METRICS:
        subsystem, name, kind = INNODB_METRICS[key]
        base = f"{METRICS_PREFIX}{subsystem}_{name}"
        if kind in ("counter", "status_counter"):
            return base + "_total", "counter"
        return base, "gauge"
    return STATUS_PREFIX + RENAMED.get(key, key).lower(), "unknown"


def _label(v):
    return str(v).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def _number(v):
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, (int, float)):
        return repr(v)
    return None


def lines(runs):
    """The OpenMetrics text of the runs' samples, as lines: per metric a
    family (its # TYPE line), its series by run, each in time order; the
    last line # EOF. Empty when no run's samples have a time on the clock."""
    families = {}       # name -> (type, [(labels, [(epoch, value)])])
    for r in runs:
        start = r.get("start_epoch")
        labels = [("scenario", r.get("scenario")), ("arm", r.get("arm")),
                  ("repeat", r.get("repeat"))] + (
            [("server", r["server"])] if r.get("server") else [])
        text = ",".join(f'{k}="{_label(v)}"' for k, v in labels)
        series = {}
        for s in r.get("samples") or []:
            at = s.get("epoch")
            if at is None and start is not None and s.get("t") is not None:
                at = round(start + s["t"], 3)
            if at is None:
                continue
            for key, v in s.items():
                named, value = exporter_name(key), _number(v)
                if named is None or value is None:
                    continue
                series.setdefault(named, []).append((at, value))
        for (name, kind), points in series.items():
            families.setdefault(name, (kind, []))[1].append((text, sorted(points)))
    if not families:
        return []
    out = []
    for name, (kind, series) in families.items():
        family = name[:-len("_total")] if kind == "counter" else name
        out.append(f"# TYPE {family} {kind}")
        for text, points in series:
            out += [f"{name}{{{text}}} {value} {at}" for at, value in points]
    return out + ["# EOF"]


def write(outdir, runs):
    """Write samples-prometheus.txt beside samples.csv; returns its path, or
    None when no sample has a time on the clock (runs saved before the
    samples had one)."""
    text = lines(runs)
    if not text:
        return None
    path = os.path.join(outdir, FILE)
    with open(path, "w") as f:
        f.write("\n".join(text) + "\n")
    return path
