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

"""Run sysbench 1.0 OLTP workloads and parse what they print."""

import re
import shutil
import subprocess

from . import client

INTERVAL_RE = re.compile(
    r"^\[ *(?P<t>\d+(?:\.\d+)?)s \] thds: (?P<thds>\d+) tps: (?P<tps>[\d.]+) "
    r"qps: (?P<qps>[\d.]+) \(r/w/o: [\d./]+\) lat \(ms,(?P<pct>\d+)%\): (?P<lat>[\d.]+) "
    r"err/s:? (?P<err>[\d.]+)")
SUMMARY_RES = {
    "transactions": re.compile(r"^\s*transactions:\s+(\d+)\s+\(([\d.]+) per sec\.\)"),
    "queries": re.compile(r"^\s*queries:\s+(\d+)\s+\(([\d.]+) per sec\.\)"),
    "errors": re.compile(r"^\s*ignored errors:\s+(\d+)"),
    "time": re.compile(r"^\s*total time:\s+([\d.]+)s"),
    "lat_min": re.compile(r"^\s*min:\s+([\d.]+)"),
    "lat_avg": re.compile(r"^\s*avg:\s+([\d.]+)"),
    "lat_max": re.compile(r"^\s*max:\s+([\d.]+)"),
    "lat_pct": re.compile(r"^\s*(\d+)th percentile:\s+([\d.]+)"),
}


class SysbenchError(Exception):
    pass


def parse_interval(line):
    """One '--report-interval' line -> dict, or None."""
    m = INTERVAL_RE.match(line.strip())
    if not m:
        return None
    return {"t": float(m.group("t")), "threads": int(m.group("thds")),
            "tps": float(m.group("tps")), "qps": float(m.group("qps")),
            "lat_ms": float(m.group("lat")), "lat_pct": int(m.group("pct")),
            "err_s": float(m.group("err"))}


def parse_summary(text):
    """The final statistics block -> dict."""
    out = {}
    for line in text.splitlines():
        for key, rx in SUMMARY_RES.items():
            m = rx.match(line)
            if not m:
                continue
            if key in ("transactions", "queries"):
                out[key] = int(m.group(1))
                out[key + "_per_s"] = float(m.group(2))
            elif key == "lat_pct":
                out["lat_pct"] = int(m.group(1))
                out["lat_pct_ms"] = float(m.group(2))
            elif key in ("errors",):
                out[key] = int(m.group(1))
            else:
                out[key] = float(m.group(1))
    return out


HISTOGRAM_HEAD = "Latency histogram (values are in milliseconds)"
HISTOGRAM_ROW = re.compile(r"^\s*(?P<value>\d+(?:\.\d+)?) \|\**\s+(?P<count>\d+)\s*$")


def parse_histogram(text):
    """The latency histogram that --histogram=on prints before the final
    statistics: [(bucket value in ms, count)] in increasing order, [] when
    there is none."""
    start = text.find(HISTOGRAM_HEAD)
    if start < 0:
        return []
    rows = []
    for line in text[start:].splitlines()[2:]:
        m = HISTOGRAM_ROW.match(line)
        if not m:
            if rows:
                break       # the blank line that ends it
            continue
        rows.append((float(m.group("value")), int(m.group("count"))))
    return rows


def histogram_percentile(rows, p):
    """The value of the first bucket at which the cumulative count reaches
    p percent of all (how sysbench reports its own percentile); None for an
    empty histogram."""
    total = sum(c for _, c in rows)
    if not total:
        return None
    need, seen = total * p / 100.0, 0
    for value, count in rows:
        seen += count
        if seen >= need:
            return value
    return rows[-1][0]


def latency(text):
    """Transaction latency of one run from its output: p50, p95, p99 from
    the histogram and max from the final statistics, in ms (None where
    sysbench printed nothing, e.g. no transactions)."""
    rows = parse_histogram(text)
    summary = parse_summary(text)
    out = {f"lat_p{p}_ms": histogram_percentile(rows, p) for p in (50, 95, 99)}
    out["lat_max_ms"] = summary.get("lat_max")
    return out


def rate_not_reached(text):
    """Why a paced run (--rate) stopped early, from sysbench's output: its
    event queue filled because the threads could not keep up with the rate
    (sysbench 1.0 then exits with an error), or None for any other failure."""
    if "event queue is full" in text.lower():
        return ("rate not reached by the client: sysbench's event queue filled "
                "(its threads could not keep up with --rate)")
    return None


def require():
    path = shutil.which("sysbench")
    if not path:
        raise SysbenchError("sysbench is not installed: run BUILD/setup "
                            "(or apt-get install sysbench)")
    return path


def version():
    out = subprocess.run([require(), "--version"], stdout=subprocess.PIPE, text=True)
    return out.stdout.strip()


def command(test, action, socket, tables, table_size, threads=1, time_s=None,
            rate=None, report_interval=1, extra=()):
    # socket: the harness's own server's socket (as root, schema sbtest),
    # or a server.Conn (attach mode: its host or socket, user, schema)
    where = (socket.sysbench_args() if hasattr(socket, "sysbench_args")
             else [f"--mysql-socket={socket}", "--mysql-user=root", "--mysql-db=sbtest"])
    cmd = [require(), test] + where + [f"--tables={tables}", f"--table-size={table_size}",
                                       f"--threads={threads}", "--db-ps-mode=auto"]
    # uniform row choice unless the caller's options choose (--sb-option
    # rand-type=special, sysbench's own default, hammers a few hot rows)
    if not any(str(x).startswith("--rand-type=") for x in extra):
        cmd.append("--rand-type=uniform")
    if action == "run":
        cmd += [f"--time={time_s}", f"--report-interval={report_interval}",
                "--percentile=95", "--histogram=on",
                # deadlock, lock wait timeout, and 1020 (record changed
                # since last read), which innodb_snapshot_isolation=ON (the
                # default from 11.6) raises where older versions waited:
                # each rolls the transaction back and sysbench retries it
                "--mysql-ignore-errors=1213,1205,1020"]
        if rate:
            cmd.append(f"--rate={rate}")
    cmd += list(extra)
    cmd.append(action)
    return cmd


def prepare(socket, test, tables, table_size, threads=2, extra=(), on_line=None):
    """sysbench's prepare of the tables; on_line gets each line of its
    output as it comes ('Inserting 5000 records into 'sbtest3'', ...)."""
    cmd = command(test, "prepare", socket, tables, table_size, threads=threads, extra=extra)
    rc, out = client.run_lines(cmd, on_line)
    if rc != 0:
        raise SysbenchError("sysbench prepare failed:\n" + out[-2000:])
    return cmd


class Run(client.ClientRun):
    """A sysbench run in the background; intervals are parsed as they come."""
    name = "sysbench"
    error = SysbenchError

    def interval(self, line):
        return parse_interval(line)

    def summarize(self, text):
        return parse_summary(text)

    def latency(self):
        """p50/p95/p99/max transaction latency of the run (latency())."""
        return latency("".join(self.text))
