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

"""purgebench: the fork's benchmark harness (README: "Benchmarks")."""

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time

from . import report, sampler, stats, sysbench
from .server import Installation, Server, ServerError

SCENARIOS = ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity")
DEFAULT_SCENARIOS = ("history-growth", "backlog-vs-lag")

# Scale: (small default, --full = seed scale)
SCALE = {
    "history-growth": dict(test="oltp_read_write", tables=(4, 4), rows=(20000, 100000),
                           threads=(4, 4), time=(40, 300)),
    "backlog-vs-lag": dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                           threads=(64, 256), time=(30, 120),
                           lags=((10000, 100000), (10000, 100000, 500000))),
    "redo-per-trx": dict(test="oltp_update_non_index", tables=(1, 1), rows=(10000, 1000000),
                         threads=((1, 4, 16), (1, 2, 4, 8, 16, 32, 64)), time=(10, 60)),
    "purge-capacity": dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                           threads=(16, 64), time=(20, 60),
                           rates=((500, 1000, 2000, 4000, 8000),
                                  (500, 1000, 2000, 4000, 8000, 16000))),
}

BASE_CNF = {
    "innodb_buffer_pool_size": "2G",
    "innodb_log_file_size": "1G",
    "innodb_flush_log_at_trx_commit": "1",
    "innodb_flush_method": "O_DIRECT",
    "innodb_purge_threads": "4",
    "innodb_doublewrite": "ON",
}
RECORDED_VARS = ["version", "version_comment", "innodb_buffer_pool_size",
                 "innodb_log_file_size", "innodb_flush_log_at_trx_commit",
                 "innodb_flush_method", "innodb_purge_threads", "innodb_purge_batch_size",
                 "innodb_doublewrite", "max_connections"]


def machine():
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = f.readline().split(":", 1)[1].strip()
    except OSError:
        pass
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    disk = subprocess.run(["df", "-h", "."], stdout=subprocess.PIPE, text=True).stdout
    return {"cores": os.cpu_count(), "cpu": cpu, "memory": mem,
            "kernel": platform.release(), "disk": disk.splitlines()[-1] if disk else ""}


class Bench:
    def __init__(self, args):
        self.args = args
        self.full = args.full
        self.inst = Installation(args.server, basedir=args.basedir)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.outdir = os.path.abspath(args.out or os.path.join("results", stamp))
        os.makedirs(self.outdir, exist_ok=True)
        self.runs = []
        self.server = None
        self.commands = []
        self.meta = {}
        self.prepared = None   # (test, tables, rows) of the sbtest tables

    # -- helpers -----------------------------------------------------------
    def pick(self, scenario, key):
        v = SCALE[scenario][key]
        return v[1] if self.full else v[0]

    def log(self, msg):
        print(msg, flush=True)
        with open(os.path.join(self.outdir, "progress.log"), "a") as f:
            f.write(msg + "\n")

    def ensure_server(self):
        """Start the server unless it runs (each arm ends with a shutdown)."""
        if self.server is None or self.server.proc is None:
            self.start_server(max(self.args.threads or 0, 256))

    def start_server(self, threads):
        cnf = dict(BASE_CNF)
        cnf["max_connections"] = str(max(151, threads + 50))
        cnf.update(dict(kv.split("=", 1) for kv in self.args.option))
        first = self.server is None
        workdir = os.path.join(self.outdir, "server")
        if first and os.path.isdir(os.path.join(workdir, "data")) and not self.args.reuse_datadir:
            raise ServerError(f"{workdir}/data exists; pass --reuse-datadir or another --out")
        self.server = Server(self.inst, workdir, cnf, allow_nonempty=not first or self.args.reuse_datadir)
        self.server.initialize()
        self.server.start()
        shutil.copy(self.server.cnf, os.path.join(self.outdir, "my.cnf"))
        if first or not self.meta:
            self.meta["server binary"] = self.inst.mariadbd
            self.meta["mariadbd --version"] = self.inst.version()
            for v in RECORDED_VARS:
                try:
                    self.meta["@@" + v] = self.server.value(f"SELECT @@{v}")
                except ServerError:
                    pass
            self.meta["sysbench"] = sysbench.version()
            self.meta["machine"] = json.dumps(machine())
            self.meta["build flavour"] = self.flavour()

    def flavour(self):
        cache = os.path.join(self.inst.basedir, "CMakeCache.txt")
        if os.path.exists(cache):
            keep = ("CMAKE_BUILD_TYPE", "BUILD_CONFIG", "WITH_JEMALLOC", "CMAKE_CXX_FLAGS_RELWITHDEBINFO")
            with open(cache) as f:
                vals = [ln.strip() for ln in f if ln.split(":", 1)[0] in keep]
            return "; ".join(vals)
        return "installed binaries (not a build tree)"

    def has_var(self, name):
        try:
            self.server.value(f"SELECT @@GLOBAL.{name}")
            return True
        except ServerError:
            return False

    def ensure_tables(self, test, tables, rows):
        key = (test, tables, rows)
        if self.prepared == key:
            return
        self.server.query("DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest")
        cmd = sysbench.prepare(self.server.socket, test, tables, rows)
        self.commands.append(" ".join(cmd))
        self.prepared = key
        self.server.query("SET GLOBAL innodb_max_purge_lag_wait=0", timeout=600)

    # -- one measured run --------------------------------------------------
    def run_arm(self, scenario, arm, settings, test, tables, rows, threads, seconds,
                repeat, rate=None, extra=None):
        self.ensure_server()
        self.ensure_tables(test, tables, rows)
        for var, val in settings.items():
            if not self.has_var(var):
                raise ServerError(f"arm {arm} needs @@{var}, which this server lacks")
            self.server.query(f"SET GLOBAL {var}={val}")
        self.server.query("SET GLOBAL innodb_max_purge_lag_wait=0", timeout=600)
        cmd = sysbench.command(test, "run", self.server.socket, tables, rows, threads=threads,
                               time_s=seconds, rate=rate)
        self.commands.append(f"# {scenario} {arm} #{repeat}: SET GLOBAL {settings}\n" + " ".join(cmd))
        last = {}

        def on_sample(s):
            last.update(s)

        def on_interval(iv):
            h = last.get("innodb_history_list_length")
            print(f"\r  {scenario} {arm} #{repeat}: {iv['t']:.0f}/{seconds}s "
                  f"tps {iv['tps']:.0f} history {h if h is not None else '-'}   ",
                  end="", flush=True)

        self.server.prepare_slow_shutdown()
        smp = sampler.Sampler(self.server, on_sample=on_sample)
        s0 = sampler.sample_once(self.server)
        smp.start()
        run = sysbench.Run(cmd, on_interval=on_interval,
                           on_exit=self.server.signal_shutdown)
        try:
            summary = run.pump()
        finally:
            run.stop()
            samples = smp.stop()
        print()
        # purge clears tens of thousands of transactions within a second once
        # the load stops: the slow shutdown began the instant sysbench exited
        took = self.server.shutdown(slow=True)
        s1 = samples[-1] if samples else s0     # the last sample under load
        backlog = self.server.backlog()
        hist = [s.get("innodb_history_list_length") for s in samples]
        trx = (s1["trx_id_counter"] - s0["trx_id_counter"]) / 2 \
            if s1.get("trx_id_counter") and s0.get("trx_id_counter") else None
        result = dict(scenario=scenario, arm=arm, repeat=repeat, threads=threads,
                      seconds=seconds, rate=rate, settings=settings,
                      tps=summary.get("transactions_per_s"), qps=summary.get("queries_per_s"),
                      lat_p95_ms=summary.get("lat_pct_ms"), errors=summary.get("errors"),
                      backlog=backlog, shutdown_s=round(took, 1),
                      history_last=s1.get("innodb_history_list_length"),
                      history_max=max([h for h in hist if h is not None], default=None),
                      history_p95=stats.percentile(hist, 95),
                      history_p50=stats.percentile(hist, 50),
                      redo_bytes_per_trx=stats.redo_bytes_per_trx(
                          s0.get("innodb_lsn_current"), s1.get("innodb_lsn_current"),
                          s0.get("trx_id_counter"), s1.get("trx_id_counter")),
                      trx=trx, samples=samples, intervals=run.intervals)
        result.update(extra or {})
        self.runs.append(result)
        self.log(f"  {scenario} {arm} #{repeat}: tps {fmt(result['tps'])} "
                 f"qps {fmt(result['qps'])} history max {fmt(result['history_max'])} "
                 f"last {fmt(result['history_last'])} backlog {fmt(backlog)} "
                 f"(slow shutdown {took:.1f}s)")
        return result

    # -- scenarios -------------------------------------------------------
    def arms_for(self, scenario, lag=None):
        """[(arm name, SET GLOBAL settings)] for this server."""
        a = self.args
        self.ensure_server()
        fork = self.has_var("innodb_purge_throttle")
        if scenario in ("history-growth",):
            arms = [("no-throttle", {"innodb_max_purge_lag": 0})]
            if fork and "adaptive" in a.arms:
                arms.append(("adaptive@1000", {"innodb_max_purge_lag": 1000,
                                               "innodb_purge_throttle": "adaptive"}))
            return arms
        if scenario == "backlog-vs-lag":
            arms = []
            base = {"innodb_max_purge_lag": lag, "innodb_max_purge_lag_delay": 5000}
            if fork:
                if "formula" in a.arms:
                    arms.append((f"formula@{lag}", dict(base, innodb_purge_throttle="formula",
                                                        innodb_purge_coupled_throttle="ON")))
                if "uncoupled" in a.arms:
                    arms.append((f"uncoupled@{lag}", dict(base, innodb_purge_throttle="formula",
                                                          innodb_purge_coupled_throttle="OFF")))
                if "adaptive" in a.arms:
                    arms.append((f"adaptive@{lag}", dict(base, innodb_purge_throttle="adaptive")))
            else:
                arms.append((f"formula@{lag}", base))
            return arms
        if scenario == "redo-per-trx":
            if fork:
                return [("compact", {"innodb_undo_log_compact_init": "ON"}),
                        ("generic", {"innodb_undo_log_compact_init": "OFF"})]
            return [("stock", {})]
        return [("no-throttle", {"innodb_max_purge_lag": 0})]

    def scenario(self, name):
        sc = SCALE[name]
        test, tables, rows = sc["test"], self.pick(name, "tables"), self.pick(name, "rows")
        seconds = self.args.time or self.pick(name, "time")
        tables = self.args.tables or tables
        rows = self.args.rows or rows
        repeats = self.args.repeats
        self.ensure_server()
        self.log(f"== {name}: {test}, {tables} x {rows} rows, {seconds}s, {repeats} repeat(s)")
        if name == "history-growth":
            threads = self.pick(name, "threads")
            for r in range(1, repeats + 1):
                for arm, st in self.arms_for(name):        # interleaved arms
                    self.run_arm(name, arm, st, test, tables, rows, threads, seconds, r)
        elif name == "backlog-vs-lag":
            threads = self.args.threads or self.pick(name, "threads")
            lags = self.args.lags or self.pick(name, "lags")
            for r in range(1, repeats + 1):
                self.run_arm(name, "unthrottled", {"innodb_max_purge_lag": 0}, test, tables,
                             rows, threads, seconds, r)
                for lag in lags:
                    for arm, st in self.arms_for(name, lag):
                        self.run_arm(name, arm, st, test, tables, rows, threads, seconds, r,
                                     extra={"lag": lag})
        elif name == "redo-per-trx":
            for threads in self.pick(name, "threads"):
                for r in range(1, repeats + 1):
                    for arm, st in self.arms_for(name):
                        self.run_arm(name, f"{arm}@{threads}", st, test, tables, rows, threads,
                                     seconds, r)
        elif name == "purge-capacity":
            threads = self.pick(name, "threads")
            for rate in self.pick(name, "rates"):
                res = self.run_arm(name, f"rate@{rate}", {"innodb_max_purge_lag": 0}, test,
                                   tables, rows, threads, seconds, 1, rate=rate,
                                   extra={"target_rate": rate})
                res["bounded"] = purge_keeps_up(res)
                if not res["bounded"]:
                    break

    # -- summary ---------------------------------------------------------
    def tables(self):
        out = []
        by = {}
        for r in self.runs:
            by.setdefault((r["scenario"], r["arm"]), []).append(r)

        def med(rs, k):
            return stats.summary([x.get(k) for x in rs])

        def mmm(s, d=0):
            if s["n"] <= 1:
                return fmt(s["median"], d)
            return f"{fmt(s['median'], d)} ({fmt(s['min'], d)}..{fmt(s['max'], d)})"

        scen = sorted({k[0] for k in by}, key=SCENARIOS.index)
        for sc in scen:
            arms = [k[1] for k in by if k[0] == sc]
            base = None
            if sc == "backlog-vs-lag":
                base = med(by.get((sc, "unthrottled"), []), "qps")["median"]
            elif sc in ("history-growth",):
                base = med(by[(sc, arms[0])], "tps")["median"]
            rows = []
            for arm in arms:
                rs = by[(sc, arm)]
                qps, tps = med(rs, "qps"), med(rs, "tps")
                if sc == "redo-per-trx":
                    partner = arm.replace("generic", "compact")
                    ratio = stats.ratio(med(rs, "redo_bytes_per_trx")["median"],
                                        med(by.get((sc, partner), rs), "redo_bytes_per_trx")["median"])
                    rows.append([arm, mmm(tps), mmm(med(rs, "redo_bytes_per_trx"), 1),
                                 report.rel(ratio)])
                elif sc == "purge-capacity":
                    rows.append([arm, mmm(tps), fmt(rs[0].get("history_max")),
                                 fmt(rs[0].get("history_last")), "yes" if rs[0].get("bounded") else "no"])
                else:
                    ref = (qps["median"] if sc == "backlog-vs-lag" else tps["median"])
                    rows.append([arm, mmm(tps), mmm(qps), mmm(med(rs, "history_p95")),
                                 mmm(med(rs, "history_max")), mmm(med(rs, "backlog")),
                                 report.rel(stats.ratio(ref, base))])
            if sc == "redo-per-trx":
                header = ["arm@threads", "tps", "redo bytes/trx", "bytes/trx vs compact"]
            elif sc == "purge-capacity":
                header = ["target rate", "tps", "history max", "history at end", "bounded"]
            else:
                header = ["arm", "tps", "qps", "history p95", "history max",
                          "to purge at slow shutdown",
                          "qps / unthrottled" if sc == "backlog-vs-lag" else "tps / first arm"]
            out.append((sc, header, rows))
        return out

    def finish(self):
        report.write_samples(self.outdir, self.runs)
        with open(os.path.join(self.outdir, "commands.txt"), "w") as f:
            f.write("\n".join(self.commands) + "\n")
        with open(os.path.join(self.outdir, "environment.json"), "w") as f:
            json.dump(self.meta, f, indent=1)
        text = report.markdown(self.outdir, self.meta, self.runs, self.tables())
        return text


def purge_keeps_up(res):
    """A write rate is sustainable when the history did not keep growing:
    its last third averages no more than twice its first third, or less
    than two seconds of commits (the coordinator of 10.11.18 may sleep a
    second between batches, so a saw-tooth of that height is no backlog)."""
    h = [s.get("innodb_history_list_length") or 0 for s in res["samples"]]
    if len(h) < 6:
        return None
    third = len(h) // 3
    first, last = sum(h[:third]) / third, sum(h[-third:]) / third
    return last < max(1000, 2 * (res.get("rate") or 0)) or last <= 2 * max(first, 1)


def fmt(v, d=0):
    return report.fmt(v, d)


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="purgebench", description=__doc__)
    ap.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                    help=f"any of {', '.join(SCENARIOS)}, or all "
                         f"(default: {' '.join(DEFAULT_SCENARIOS)})")
    ap.add_argument("--server", default=None,
                    help="the mariadbd to benchmark (default: the fork's release build, "
                         "build/release/sql/mariadbd; /usr/sbin/mariadbd for Debian's)")
    ap.add_argument("--basedir", default=None, help="its basedir, if not the parent of its bin/")
    ap.add_argument("--arms", default="formula,adaptive",
                    help="throttle arms for the fork: any of formula,uncoupled,adaptive "
                         "(default formula,adaptive)")
    ap.add_argument("--full", action="store_true", help="seed scale (long)")
    ap.add_argument("--repeats", type=int, default=1, help="repeats of each arm (default 1)")
    ap.add_argument("--time", type=int, default=None, help="seconds per run (override)")
    ap.add_argument("--threads", type=int, default=None, help="threads for backlog-vs-lag")
    ap.add_argument("--tables", type=int, default=None, help="sysbench tables (override)")
    ap.add_argument("--rows", type=int, default=None, help="rows per table (override)")
    ap.add_argument("--lags", type=lambda s: [int(x) for x in s.split(",")], default=None,
                    help="innodb_max_purge_lag values for backlog-vs-lag, e.g. 10000,100000")
    ap.add_argument("--option", action="append", default=[], metavar="VAR=VALUE",
                    help="extra my.cnf setting (repeatable)")
    ap.add_argument("--out", default=None, help="results directory (default results/<time>)")
    ap.add_argument("--reuse-datadir", action="store_true",
                    help="allow an existing data directory under --out")
    a = ap.parse_args(argv)
    for sc in a.scenarios:
        if sc not in SCENARIOS + ("all",):
            ap.error(f"unknown scenario '{sc}' (choose from {', '.join(SCENARIOS)}, all)")
    if not a.scenarios:
        a.scenarios = list(DEFAULT_SCENARIOS)
    elif "all" in a.scenarios:
        a.scenarios = list(SCENARIOS)
    a.arms = a.arms.split(",")
    return a


def main(argv=None):
    args = parse_args(argv)
    if args.server is None:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        args.server = os.path.join(repo, "build", "release", "sql", "mariadbd")
    bench = None
    try:
        sysbench.require()
        bench = Bench(args)
        print(f"purgebench: results in {bench.outdir}")
        for sc in args.scenarios:
            bench.scenario(sc)
    except KeyboardInterrupt:
        print("\npurgebench: interrupted; keeping what was measured", file=sys.stderr)
    except (ServerError, sysbench.SysbenchError) as e:
        print(f"purgebench: {e}", file=sys.stderr)
        if bench is None:
            return 1
    finally:
        if bench and bench.server and bench.server.proc:
            try:   # stop cleanly; kill only if that fails
                bench.server.shutdown(slow=False, timeout=120)
            except (ServerError, KeyboardInterrupt):
                bench.server.kill()
    if bench and bench.runs:
        print(bench.finish())
        print(f"purgebench: report {os.path.join(bench.outdir, 'summary.md')}")
        return 0
    return 1
