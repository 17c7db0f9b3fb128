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

"""purgebench: the fork's benchmark harness (docs/benchmarks.md)."""

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

from . import client, cpuload, gotpc, insertbench, progress, report, sampler, snapshot, \
    stats, sysbench, workloads
from .server import (AttachedServer, Conn, Installation, Server, ServerError, free_port,
                     redact, sql_literal, unknown_settings)

SCENARIOS = ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
             "thread-sweep", "tpcc", "ch", "insert-benchmark", "snapshot-release")
# scenarios whose client (go-tpc) connects over TCP: the server then listens
# on 127.0.0.1 only, on a free port
TCP_SCENARIOS = ("tpcc", "ch")
DEFAULT_SCENARIOS = ("history-growth", "backlog-vs-lag")

# Scale: (small default, --full = seed scale)
SCALE = {
    "history-growth": dict(test="oltp_read_write", tables=(4, 4), rows=(20000, 100000),
                           threads=(4, 4), time=(40, 300)),
    # 256 writers outrun purge here: the unthrottled history passes the
    # 10k target, so that the throttles have something to do
    "backlog-vs-lag": dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                           threads=(256, 256), time=(60, 120),
                           lags=((10000,), (10000, 100000, 500000))),
    "redo-per-trx": dict(test="oltp_update_non_index", tables=(1, 1), rows=(10000, 1000000),
                         threads=((1, 4, 16), (1, 2, 4, 8, 16, 32, 64)), time=(10, 60)),
    "purge-capacity": dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                           threads=(16, 64), time=(20, 60),
                           rates=((500, 1000, 2000, 4000, 8000),
                                  (500, 1000, 2000, 4000, 8000, 16000))),
    # MDEV-16168: update_no_index over 1..4096 threads, two builds or settings
    "thread-sweep": dict(test="oltp_update_non_index", tables=(1, 1), rows=(100000, 1000000),
                         threads=((1, 4, 16, 64, 256, 1024), (1, 4, 16, 64, 256, 1024, 4096)),
                         time=(20, 60)),
    # the Insert Benchmark's steps on one table (insertbench.plan_steps():
    # rows = the table's, l.i1 and l.i2 insert 40% and 10% of it; time = each
    # query step's; threads = writers, as many readers); unthrottled and each
    # throttle at these targets
    "insert-benchmark": dict(test=insertbench.LUA, tables=(1, 1),
                             rows=tuple(insertbench.SIZES[f]["table_rows"] for f in (False, True)),
                             threads=(insertbench.DEFAULT_WRITERS,) * 2,
                             time=tuple(insertbench.SIZES[f]["query_seconds"]
                                        for f in (False, True)),
                             lags=((10000,), (10000,))),
}
SCALE.update({
    # MDEV-16260: a read view held for `hold` s under backlog-vs-lag's load,
    # after `time` s of load, then released; the load goes on for 30 s and
    # `time` s more (the continue form), or stops at the release (stop)
    snapshot.SCENARIO: dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                            threads=(256, 256), time=(20, 60), hold=(30, 300),
                            lags=((10000,), (10000,))),
    # TPC-C through go-tpc: the data is loaded once per server and restored
    # for every run; the seed's 500k lag needs --full's hours (not reachable
    # here, docs/RESULTS.md)
    "tpcc": dict(test="go-tpc tpcc", warehouses=(2, 10), threads=(32, 64), time=(90, 1800),
                 lags=((10000,), (500000,))),
    # CH-benCHmark: the same writers plus analytical queries (--ac-threads)
    "ch": dict(test="go-tpc ch", warehouses=(2, 10), threads=(32, 64), time=(90, 1800),
               ac_threads=(1, 2), lags=((10000,), (500000,))),
})
# thread-sweep's arms when neither --switch nor --compare-server is given
DEFAULT_SWITCH = ("innodb_undo_log_compact_init", ("ON", "OFF"))

# the fork's count of committed transactions that purge has not parsed yet
UNPARSED = "innodb_purge_unparsed_trx"

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


# variables that arms set: probed once per server at its first start
ARM_VARS = ("innodb_max_purge_lag", "innodb_max_purge_lag_delay", "innodb_purge_throttle",
            "innodb_purge_coupled_throttle", "innodb_undo_log_compact_init",
            "innodb_purge_drain_rsegs")
# what tools/install-stock-server leaves next to the usr/ it unpacked
STOCK_MARKER = "purgelab-stock.txt"
LABEL_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,31}")


class Target:
    """One server under test: its programs, its data directory, the sbtest
    tables prepared there and the variables it has. Alone, its arms and
    meta keys are unprefixed, as they always were; when two servers are
    compared they carry its label ("fork:unthrottled", "fork: @@version")."""

    def __init__(self, label, inst, workdir, labelled):
        self.label = label
        self.inst = inst
        self.workdir = workdir
        self.prefix = f"{label}:" if labelled else ""
        self.meta_prefix = f"{label}: " if labelled else ""
        self.cnf_copy = f"my-{label}.cnf" if labelled else "my.cnf"
        self.server = None
        self.prepared = None    # (test, tables, rows) of its sbtest tables
        self.tcp_port = None    # 127.0.0.1 port, when a client needs TCP
        self.snapshot = None    # (scenario, warehouses) of data.prepared/
        self.vars = {}          # has_var answers (a binary's variables do not change)

    def running(self):
        s = self.server
        if getattr(s, "attached", False):
            return s.running()
        return s is not None and s.proc is not None

    def arm(self, name):
        """An arm's name as it appears in results and the report."""
        return self.prefix + name

    def owns(self, arm):
        return arm.startswith(self.prefix)


def with_drains(arms, drains, has_drain=True):
    """Each arm once per innodb_purge_drain_rsegs width of --drains (none:
    the arms as they are), named NAME+drainN[@LAG] for a width N > 0. A
    server without the variable (has_drain false) runs width 0 as it is:
    upstream's rotation."""
    if not drains:
        return arms

    def named(name, n):
        head, at, lag = name.partition("@")
        return f"{head}+drain{n}{at}{lag}" if n else name
    return [(named(name, n), dict(st, innodb_purge_drain_rsegs=n) if n or has_drain else st)
            for name, st in arms for n in drains]


DRAIN_RE = re.compile(r"\+drain\d+")


def paired_ratio(runs, refs, key):
    """Each run's `key` over that of the reference run of the same repeat,
    as median (min..max) of those ratios. Pairing by repeat keeps a machine
    that runs faster or slower from one repeat to the next out of the
    comparison; a ratio of the two medians would mix fast and slow repeats."""
    ref = {r["repeat"]: r.get(key) for r in refs or []}
    s = stats.summary([stats.ratio(r.get(key), ref.get(r["repeat"])) for r in runs])
    if s["n"] <= 1:
        return report.rel(s["median"])
    return f"{report.rel(s['median'])} ({s['min']:.2f}..{s['max']:.2f})"


def unthrottled_for(name):
    """The unthrottled arm a backlog-vs-lag arm is compared with: the one at
    the same innodb_purge_drain_rsegs width (--drains)."""
    m = DRAIN_RE.search(name.partition("@")[0])
    return "unthrottled" + (m.group(0) if m else "")


def rotate(runs, repeat):
    """The runs of one repeat, their arms rotated by one per repeat (repeat
    1 as planned, repeat 2 from the second arm, ...), so that no arm always
    runs first: on this machine the first run after the tables are prepared
    was the fastest whatever its arm. runs: [(target, arm, ...)]; the runs of
    one arm (one per server) stay together, and their servers rotate the
    same way (repeat 2 of an arm on A, B, C runs B, C, A), so that no server
    always runs an arm first either."""
    groups = []
    for run in runs:
        if groups and groups[-1][0][1] == run[1]:
            groups[-1].append(run)
        else:
            groups.append([run])
    if not groups:
        return []
    k = (repeat - 1) % len(groups)
    return [run for g in groups[k:] + groups[:k]
            for run in g[(repeat - 1) % len(g):] + g[:(repeat - 1) % len(g)]]


def interleave(arm_lists, has_var):
    """The run order of one step over several servers: each arm on each
    server in turn (A's run, B's run, A's next arm, ...), arms in order of
    first appearance. arm_lists: [(target, [(arm, settings)])], each
    server's own arms. A server runs an arm of that name with its own
    settings; it skips an arm that it lacks a variable for (its own or, if
    it has no arm of that name, the other server's), with a note.
    Returns ([(target, arm, settings)], [note])."""
    names = []
    for _, arms in arm_lists:
        names += [name for name, _ in arms if name not in names]
    runs, notes = [], []
    for name in names:
        anyone = next(st for _, arms in arm_lists for n, st in arms if n == name)
        for t, arms in arm_lists:
            own = dict(arms).get(name)
            missing = [v for v in (anyone if own is None else own) if not has_var(t, v)]
            if missing:
                notes.append(f"  {t.label}: skipping {name}: needs "
                             f"{', '.join('@@' + v for v in missing)}, which it lacks")
            elif own is not None:
                runs.append((t, name, own))
    return runs, notes


def tree_commit(path):
    """The git commit of the work tree that holds path (a server binary in
    its build directory), with '+ uncommitted changes' when the tree
    differs from it, and the binary's time against the commit's: what
    built the server, as far as the tree can say now. None outside git."""
    d = path if os.path.isdir(path) else os.path.dirname(path)
    try:
        head = subprocess.run(["git", "-C", d, "log", "-1", "--format=%H %ct"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              timeout=30)
        dirty = subprocess.run(["git", "-C", d, "status", "--porcelain",
                                "--untracked-files=no"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0 or not head.stdout.strip():
        return None
    commit, when = head.stdout.split()
    out = commit + (" + uncommitted changes" if dirty.stdout.strip() else "")
    if os.path.isfile(path):
        built = os.path.getmtime(path)
        stamp = datetime.datetime.fromtimestamp(built).strftime("%Y-%m-%d %H:%M")
        out += (f"; binary built {stamp}, "
                + ("after" if built >= int(when) else "BEFORE") + " that commit")
    return out


def flavour(inst):
    """How the server was built: a build tree's cmake settings, Debian's
    packages unpacked by tools/install-stock-server, or neither."""
    cache = os.path.join(inst.basedir, "CMakeCache.txt")
    if os.path.exists(cache):
        keep = ("CMAKE_BUILD_TYPE", "BUILD_CONFIG", "WITH_JEMALLOC",
                "CMAKE_CXX_FLAGS_RELWITHDEBINFO", "COMPILATION_COMMENT")
        with open(cache) as f:
            vals = [ln.strip() for ln in f if ln.split(":", 1)[0] in keep]
        return "; ".join(vals)
    marker = os.path.join(os.path.dirname(inst.basedir), STOCK_MARKER)
    if os.path.exists(marker):
        with open(marker) as f:
            pkgs = [ln.split()[0] for ln in f if ln.strip()]
        return f"Debian packages {', '.join(pkgs)} (unpacked by tools/install-stock-server)"
    return "installed binaries (not a build tree)"


def cnf_settings(path):
    """A my.cnf's settings in one line, without the paths of this run
    (datadir, socket, log-error, pid-file)."""
    skip = ("datadir", "socket", "log-error", "log_error", "pid-file", "pid_file")
    try:
        with open(path) as f:
            lines = [ln.strip() for ln in f]
    except OSError:
        return "-"
    return "; ".join(ln for ln in lines if ln and not ln.startswith(("[", "#"))
                     and ln.split("=", 1)[0] not in skip)


def sweep_arms(switch, compared, has_default):
    """thread-sweep's arms on one server: one per value of --switch VAR
    (named VAR=VALUE); without it, one arm 'default' when two servers are
    compared, else the compact against the generic undo-page-init record
    (DEFAULT_SWITCH) where the server has that switch."""
    if switch:
        var, values = switch
        return [(f"{var}={v}", {var: v}) for v in values]
    if compared or not has_default:
        return [("default", {})]
    var, values = DEFAULT_SWITCH
    return [(f"{var}={v}", {var: v}) for v in values]


def sweep_plan(points, runs, repeats):
    """thread-sweep's run order: each thread count in turn, its repeats
    together, the arms of each repeat rotated (rotate()).
    runs: [(target, arm, settings)] from plan(); returns
    [(threads, repeat, target, arm, settings)]."""
    return [(threads, r, t, arm, st) for threads in points
            for r in range(1, repeats + 1) for t, arm, st in rotate(runs, r)]


class Bench:
    progress_every = 10     # seconds between two progress lines of a step in a log

    def __init__(self, args):
        self.args = args
        self.full = args.full
        self.attach = getattr(args, "attach", None)
        if self.attach:
            servers = [(args.label, None)]      # a server the harness did not start
        elif getattr(args, "server_list", None):
            servers = [(label, Installation(path, basedir=basedir, hint=(
                f"--server-list {label}=...: build it (BUILD/build, BUILD/build stock-10.5), "
                "unpack Debian's stock server with tools/install-stock-server, or give "
                "another path")))
                for label, path, basedir in args.server_list]
        else:
            servers = [(args.label, Installation(args.server, basedir=args.basedir))]
            if args.compare_server:
                servers.append((args.compare_label, Installation(
                    args.compare_server, basedir=args.compare_basedir,
                    hint="unpack Debian's with tools/install-stock-server or pass another "
                         "with --compare-server")))
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.outdir = os.path.abspath(args.out or os.path.join("results", stamp))
        os.makedirs(self.outdir, exist_ok=True)
        labelled = len(servers) > 1
        self.targets = [Target(label, inst, os.path.join(
            self.outdir, f"server-{label}" if labelled else "server"), labelled)
            for label, inst in servers]
        self.runs = []
        self.failures = []      # the runs that failed: scenario, arm, repeat, error
        self.stopped = None     # why the invocation stopped before its end
        self.schema_created = False     # attach mode: the harness's schema is there
        self.commands = []
        self.meta = {}
        self.noted = set()
        self.sb_extra = list(args.sb_option)
        for note in getattr(args, "notes", ()):
            self.log(note)
        if args.workload:
            self.meta["workload"] = (f"{args.workload} (--workload)"
                                     + (f", options {' '.join(self.sb_extra)}"
                                        if self.sb_extra else ""))
        # max_connections and the like are sized for the most threads any
        # scenario of this invocation runs
        self.max_threads = max([256, args.threads or 0] + list(args.sweep_threads or [])
                               + (list(self.pick("thread-sweep", "threads"))
                                  if "thread-sweep" in args.scenarios else []))
        if args.cpu_load:
            self.meta["cpu_load"] = (
                f"{args.cpu_load} process(es) spinning on the CPU while each run's load "
                f"runs (--cpu-load)")
        if len(self.targets) == 2:
            a, b = self.targets
            self.meta["compared"] = (
                f"A = {a.label}, B = {b.label}: every arm runs on both, interleaved, each "
                f"on its own data directory; B/A is B's median over A's for the same arm")
        elif labelled:
            a = self.targets[0]
            self.meta["compared"] = (
                f"{', '.join(t.label for t in self.targets)}: every arm runs on each, "
                f"interleaved (the servers' order rotated per repeat), each on its own data "
                f"directory; SERVER/{a.label} is a server's median over {a.label}'s for the "
                f"same arm, paired by repeat")

    # -- helpers -----------------------------------------------------------
    def pick(self, scenario, key):
        v = SCALE[scenario][key]
        return v[1] if self.full else v[0]

    def log(self, msg):
        print(msg, flush=True)
        with open(os.path.join(self.outdir, "progress.log"), "a") as f:
            f.write(msg + "\n")

    def step(self, title, status=None):
        """A step that may run for long, with its progress (progress.Ticker):
        a live line in a terminal, a line every 10 s in the log."""
        return progress.Ticker(title, say=self.log, status=status, every=self.progress_every)

    def wait_for_purge(self, srv):
        """SET GLOBAL innodb_max_purge_lag_wait=0: until purge has caught up."""
        def history():
            h = srv.status(["Innodb_history_list_length"]).get("innodb_history_list_length")
            return None if h is None else f"history {int(h):,}"
        with self.step("waiting for purge to catch up", history):
            srv.query("SET GLOBAL innodb_max_purge_lag_wait=0", timeout=600)

    def use(self, t):
        """Make t's server the running one (one at a time: the other is idle
        and stops fast); start it unless it runs (each arm ends with a
        shutdown)."""
        for other in self.targets:
            if other is not t and other.running():
                other.server.shutdown(slow=False, timeout=600)
        if not t.running():
            self.start_server(t, self.max_threads)
        return t.server

    def start_all(self):
        """Start each server once before the first run, so that a broken
        one fails early and the variables of each are known; leave A up."""
        for t in self.targets:
            if t.server is None:
                self.use(t)
        self.use(self.targets[0])

    def stop(self):
        if self.attach:
            return self.detach()
        for t in self.targets:
            if t.running():
                try:   # stop cleanly; kill only if that fails
                    t.server.shutdown(slow=False, timeout=120)
                except (ServerError, KeyboardInterrupt):
                    t.server.kill()

    def start_server(self, t, threads):
        if self.attach:
            return self.attach_server(t)
        cnf = dict(BASE_CNF)
        cnf["max_connections"] = str(max(151, threads + 50))
        # sysbench prepares its statements per thread and table: 2048
        # threads pass the default 16382 (error 1461 in thread_init)
        cnf["max_prepared_stmt_count"] = str(max(16382, threads * 32))
        cnf.update(dict(self.args.option))
        # settings this version does not know stay out of its my.cnf
        # (10.5 lacks some of 10.11's, 11.8 dropped some), listed in the report
        unknown = unknown_settings(cnf, t.inst.variables())
        for k in unknown:
            del cnf[k]
        first = t.server is None
        if first and unknown:
            self.meta[t.meta_prefix + "my.cnf settings left out (the server does not "
                      "know them)"] = ", ".join(unknown)
            self.log(f"  {t.label}: leaving {', '.join(unknown)} out of its my.cnf: "
                     "the server does not know them (mariadbd --verbose --help)")
        elif first and t.inst.variables() is None:
            self.meta[t.meta_prefix + "my.cnf settings"] = (
                "not checked: mariadbd --verbose --help listed no variables")
        if first and os.path.isdir(os.path.join(t.workdir, "data")) and not self.args.reuse_datadir:
            raise ServerError(f"{t.workdir}/data exists; pass --reuse-datadir or another --out")
        if t.tcp_port is None and any(sc in TCP_SCENARIOS for sc in self.args.scenarios):
            t.tcp_port = free_port()
        t.server = Server(t.inst, t.workdir, cnf, allow_nonempty=not first or self.args.reuse_datadir,
                          tcp_port=t.tcp_port)
        with self.step(f"{t.label}: starting mariadbd"):
            t.server.initialize()
            t.server.start()
        shutil.copy(t.server.cnf, os.path.join(self.outdir, t.cnf_copy))
        if first:
            self.record(t)
            for v in ARM_VARS:
                self.has_var(t, v)

    # -- attach mode: a server the harness did not start -----------------
    def attach_server(self, t):
        """Connect to the server of --host/--socket. The first time: refuse
        a schema of the harness's name that is there already (it would be
        dropped), record the server, and write the SQL that restores the
        global variables the arms may change, before any is changed."""
        first = t.server is None
        t.server = AttachedServer(self.attach)
        with self.step(f"connecting to {self.attach.where()}"):
            t.server.start()
        if not first:
            return
        for db in (self.attach.db, gotpc.db_of(self.attach)):
            if t.server.query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA "
                              f"WHERE SCHEMA_NAME='{db}'"):
                raise ServerError(f"schema {db} exists on {self.attach.where()}: purgebench "
                                  f"creates and drops schemas of its own; drop {db} or pass "
                                  "--schema NAME")
        self.record_attached(t)
        self.save_globals(t)

    def record_attached(self, t):
        """What the server says of itself: version, recorded variables, all
        its global variables (server-variables.json)."""
        m = t.meta_prefix
        self.meta[m + "server"] = (f"attached: {self.attach.where()} (not started by "
                                   "purgebench, never shut down by it)")
        for v in RECORDED_VARS + ["version_compile_machine", "version_compile_os",
                                  "innodb_undo_tablespaces", "thread_handling"]:
            try:
                self.meta[f"{m}@@{v}"] = t.server.value(f"SELECT @@{v}")
            except ServerError:
                pass
        variables = dict(t.server.query("SHOW GLOBAL VARIABLES"))
        with open(os.path.join(self.outdir, "server-variables.json"), "w") as f:
            json.dump(variables, f, indent=1, sort_keys=True)
        self.meta[m + "build flavour"] = "unknown (attached): see @@version_comment"
        self.meta[m + "my.cnf"] = ("the server's own; every global variable as found: "
                                   "server-variables.json")
        self.meta["backlog measure"] = (
            "attach mode, no slow shutdown: after the load stops, the history is sampled "
            f"every {self.DRAIN_EVERY} s until it is under the target and until it is zero "
            "(at most "
            f"--drain-timeout {self.args.drain_timeout} s)")
        if "sysbench" not in self.meta:
            self.meta["sysbench"] = sysbench.version()
            self.meta["machine"] = json.dumps(dict(machine(), note="the harness's machine; "
                                                   "the server may run elsewhere"))

    def changeable(self, t):
        """The global variables that this invocation's arms may set."""
        names = list(ARM_VARS)
        if self.args.switch:
            names.append(self.args.switch[0])
        return [n for n in names if self.has_var(t, n)]

    def save_globals(self, t):
        """restore-globals.sql: SET GLOBAL of each variable an arm may
        change, to its value now; written before any is changed, run by
        detach() (also after Ctrl-C or a failed run), and by hand if the
        harness dies (the command is printed now)."""
        lines, self.saved_globals = [], {}
        for name in self.changeable(t):
            value = t.server.value(f"SELECT @@GLOBAL.{name}")
            self.saved_globals[name] = value
            lines.append(f"SET GLOBAL {name}={sql_literal(value)};")
        self.restore_file = os.path.join(self.outdir, "restore-globals.sql")
        with open(self.restore_file, "w") as f:
            f.write("-- purgebench: the global variables it may change, as it found them\n"
                    + "\n".join(lines) + "\n")
        self.log(f"purgebench: the server's settings as found are in {self.restore_file}; "
                 f"if purgebench dies before it restores them, run:\n  "
                 f"{self.attach.client_hint(self.restore_file)}")

    def detach(self):
        """The end of attach mode, however it came: restore the global
        variables, drop the harness's schema, close the connection. The
        server runs on."""
        t = self.targets[0]
        if t.server is None:
            return
        if getattr(self, "saved_globals", None) is None and not self.schema_created:
            t.server.kill()         # nothing changed yet (it may not even have answered)
            return
        failed = []
        try:
            if not t.running():
                t.server.start()
            for name, value in getattr(self, "saved_globals", {}).items():
                try:
                    t.server.query(f"SET GLOBAL {name}={sql_literal(value)}")
                except ServerError as e:
                    failed.append(f"{name}: {e}")
            if self.schema_created:
                t.server.query(f"DROP DATABASE IF EXISTS {self.attach.db}; "
                               f"DROP DATABASE IF EXISTS {gotpc.db_of(self.attach)}")
        except ServerError as e:
            failed.append(str(e))
        finally:
            t.server.kill()
        if failed:
            self.log("purgebench: could not restore the server's settings: "
                     + "; ".join(failed) + "\n  run: "
                     + self.attach.client_hint(self.restore_file))
        elif getattr(self, "restore_file", None):
            self.log(f"purgebench: the server's global variables are restored "
                     f"({os.path.basename(self.restore_file)}); schema {self.attach.db} "
                     "dropped; the server runs on")

    DRAIN_EVERY = 0.25      # seconds between two samples of the drain

    def drain(self, srv, target, limit):
        """After the load, without a slow shutdown: sample the history every
        DRAIN_EVERY s until it is under target (if any) and zero, at most
        limit s.
        Returns (seconds to under target or None, seconds to zero or None,
        [(t, history)])."""
        smp = sampler.connect(srv.conn)
        t0, seen, under, zero = time.time(), [], None, None

        def status():
            return f"history {fmt(seen[-1][1])}" if seen else None
        try:
            with self.step("draining: the history after the load", status):
                while True:
                    with smp.cursor() as cur:
                        cur.execute("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'")
                        row = cur.fetchone()
                    t = round(time.time() - t0, 1)
                    h = int(row[1]) if row else None
                    seen.append((t, h))
                    if h is not None and target and under is None and h <= target:
                        under = t
                    if h == 0:
                        zero = t
                        under = t if target and under is None else under
                        break
                    if t >= limit:
                        break
                    time.sleep(self.DRAIN_EVERY)
        finally:
            smp.close()
        return under, zero, seen

    def record(self, t):
        """The server's identity and settings, into the report's meta."""
        m = t.meta_prefix
        self.meta[m + "server binary"] = t.inst.mariadbd
        self.meta[m + "mariadbd --version"] = t.inst.version()
        for v in RECORDED_VARS:
            try:
                self.meta[f"{m}@@{v}"] = t.server.value(f"SELECT @@{v}")
            except ServerError:
                pass
        self.meta[m + "build flavour"] = flavour(t.inst)
        commit = tree_commit(t.inst.mariadbd)
        if commit:
            self.meta[m + "git commit of its tree (now)"] = commit
        self.meta[m + "my.cnf"] = cnf_settings(t.server.cnf)
        # the same for every server: asked once
        if "sysbench" not in self.meta:
            self.meta["sysbench"] = sysbench.version()
            self.meta["machine"] = json.dumps(machine())

    def has_var(self, t, name):
        """Whether t's server has the global variable (asked once)."""
        if name not in t.vars:
            try:
                self.use(t).value(f"SELECT @@GLOBAL.{name}")
                t.vars[name] = True
            except ServerError as e:
                if "ERROR 1193 " not in str(e):     # ER_UNKNOWN_SYSTEM_VARIABLE
                    raise       # not an answer: do not remember it
                t.vars[name] = False
        return t.vars[name]

    def workload(self, scenario):
        """What sysbench runs in a scenario: --workload, or its own."""
        return self.args.workload or SCALE[scenario]["test"]

    def sb_for(self, test):
        """The --sb-option options a script gets: the Insert Benchmark's
        script its own (ib_*), any other script the others."""
        mine = test == insertbench.LUA
        return [o for o in self.sb_extra if insertbench.is_script_option(o) == mine]

    def ensure_tables(self, t, test, tables, rows):
        """Prepare the tables once per data directory and workload (and its
        options): a run that follows on the same ones reuses them."""
        key = (test, tables, rows, tuple(self.sb_for(test)))
        if t.prepared == key:
            return
        db = self.attach.db if self.attach else "sbtest"
        t.server.query(f"DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}")
        self.schema_created = True
        last = client.LastLine()
        with self.step(f"{t.label}: sysbench prepare, {tables} x {rows:,} rows", last.status):
            cmd = sysbench.prepare(t.server.socket, test, tables, rows, extra=self.sb_for(test),
                                   on_line=last)
        self.commands.append(redact(" ".join(cmd)))
        t.prepared = key
        self.wait_for_purge(t.server)

    # -- one measured run --------------------------------------------------
    def run_arm(self, t, scenario, arm, settings, test, tables, rows, threads, seconds,
                repeat, **kw):
        """One measured run (measure(), which takes the same arguments); a
        run that fails (its client, the server, the sampler) is filed in
        self.failures, its server stopped, and None returned: the next run
        goes on, and the invocation ends with a non-zero status and the
        failed runs named at the top of summary.md. After
        MAX_FAILED_IN_A_ROW failures in a row it gives up (GiveUp)."""
        try:
            res = self.measure(t, scenario, arm, settings, test, tables, rows, threads,
                               seconds, repeat, **kw)
        except RUN_ERRORS as e:
            self.run_failed(t, scenario, t.arm(arm), repeat, e)
            return None
        self.failed_in_a_row = 0
        return res

    def run_failed(self, t, scenario, arm, repeat, error):
        why = str(error).strip()
        self.failures.append(dict(scenario=scenario, arm=arm, repeat=repeat,
                                  error=why[-2000:]))
        first = why.splitlines()[0] if why else type(error).__name__
        self.log(f"  {scenario} {arm} #{repeat}: FAILED: {first}")
        if t.running():
            try:
                t.server.kill()     # the next run starts it again (crash recovery)
            except (ServerError, OSError):
                pass
        self.failed_in_a_row = getattr(self, "failed_in_a_row", 0) + 1
        if self.failed_in_a_row >= MAX_FAILED_IN_A_ROW:
            raise GiveUp(f"{self.failed_in_a_row} runs failed in a row; the last: {first}")

    def measure(self, t, scenario, arm, settings, test, tables, rows, threads, seconds,
                repeat, rate=None, extra=None, client=None, options=(), parse=None,
                client_short=None, view=None):
        """One measured run. view: (before, hold) for snapshot-release: a read
        view opened `before` s into the load and held `hold` s (None: until
        the load ends; snapshot.ViewHolder). client: None for sysbench on the sbtest tables
        (prepared here), or a function of the server that returns the
        command of another client and a function that starts it (on_interval,
        on_exit), as sysbench.Run (gotpc.Run). options: more options for this
        run's sysbench command (not for the prepare of its tables); parse: a
        function of the client's whole output whose dict goes into the result;
        client_short: a function of the output of a client that failed that
        says why the client could not give the load asked for (or None: the
        failure is an error); the run is then kept, its result's
        client_short says why, and its figures are what the samples hold."""
        srv = self.use(t)
        if client is None:
            self.ensure_tables(t, test, tables, rows)
        arm = t.arm(arm)
        for var, val in settings.items():
            if not self.has_var(t, var):
                raise ServerError(f"arm {arm} needs @@{var}, which this server lacks")
            srv.query(f"SET GLOBAL {var}={val}")
        self.wait_for_purge(srv)
        if client is None:
            cmd = sysbench.command(test, "run", srv.socket, tables, rows, threads=threads,
                                   time_s=seconds, rate=rate,
                                   extra=self.sb_for(test) + list(options))

            def start(**kw):
                return sysbench.Run(cmd, **kw)
        else:
            cmd, start = client(srv)
        self.commands.append(f"# {scenario} {arm} #{repeat}: SET GLOBAL {settings}\n"
                             + redact(" ".join(cmd)))
        last = {}

        def on_sample(s):
            last.update(s)

        bar = progress.Progress(f"{scenario} {arm} #{repeat}", seconds)

        def on_interval(iv):
            bar.update(iv["t"], iv["tps"], last.get("innodb_history_list_length"), iv["lat_ms"])

        srv.prepare_slow_shutdown()
        smp = sampler.Sampler(srv.socket, on_sample=on_sample)
        s0 = smp.sample()
        smp.start()
        # the server's CPU time (utime + stime) over the load, not its shutdown
        cpu = [server_cpu(srv), None]
        holder = None
        with cpuload.spinning(self.args.cpu_load):
            def on_exit():      # the last sample is taken under load
                if holder:      # the stop form: the view goes with the load
                    holder.release()
                smp.stop(final=True)
                cpu[1] = server_cpu(srv)
                srv.signal_shutdown()
            load_start = time.time() - smp.t0
            run = start(on_interval=on_interval, on_exit=on_exit)
            if view:
                holder = snapshot.ViewHolder(lambda: sampler.connect(srv.socket), smp.t0,
                                             *view)
                holder.start()
            short = None
            try:
                summary = run.pump()
            except run.error:
                short = client_short("".join(run.text)) if client_short else None
                if not short:
                    raise
                summary = {}
                self.log(f"  {scenario} {arm} #{repeat}: {short}")
            finally:
                run.stop()
                samples = smp.stop()
                if holder:
                    holder.close()
                bar.close()
                self.keep_output(scenario, arm, repeat, run.text)
        s1 = samples[-1] if samples else s0     # the last sample under load
        drained = {}
        if getattr(srv, "attached", False):
            # no slow shutdown of a server that is not ours: the history
            # left when the load stopped, and how long purge took to bring
            # it under the target and to zero
            target = drain_target(settings, extra, self.args.lags or (
                self.pick(scenario, "lags") if "lags" in SCALE.get(scenario, {}) else None))
            backlog = (smp.final or s1).get("innodb_history_list_length")
            under, zero, seen = self.drain(srv, target, self.args.drain_timeout)
            took = 0.0
            drained = dict(backlog_measure=DRAIN, drain_target=target,
                           drain_under_target_s=under, drain_zero_s=zero,
                           drain_limit_s=self.args.drain_timeout, drain_samples=seen)
        else:
            # purge clears tens of thousands of transactions within a second
            # once the load stops: the slow shutdown began the instant
            # sysbench exited
            with self.step(f"{scenario} {arm} #{repeat}: slow shutdown", srv.shutdown_status):
                took = srv.shutdown(slow=True)
            backlog = srv.backlog()
        hist = [s.get("innodb_history_list_length") for s in samples]
        trx = (s1["trx_id_counter"] - s0["trx_id_counter"]) / 2 \
            if s1.get("trx_id_counter") and s0.get("trx_id_counter") else None
        # the LSN when the load stopped (a run may be shorter than a sample)
        lsn = (s0.get("innodb_lsn_current"), (smp.final or s1).get("innodb_lsn_current"))
        result = dict(scenario=scenario, arm=arm, repeat=repeat, threads=threads,
                      seconds=seconds, rate=rate, settings=settings,
                      cpu_load=self.args.cpu_load,
                      tps=summary.get("transactions_per_s"), qps=summary.get("queries_per_s"),
                      errors=summary.get("errors"), client_short=short,
                      **run.latency(), **run.extra(),
                      sampler_cpu_s=round(smp.cpu_s, 3), sampler_errors=smp.errors,
                      backlog=backlog, shutdown_s=round(took, 1),
                      history_last=s1.get("innodb_history_list_length"),
                      history_max=max([h for h in hist if h is not None], default=None),
                      history_p95=stats.percentile(hist, 95),
                      history_p50=stats.percentile(hist, 50),
                      # once a throttle has converged: the second half of the run
                      history_p95_late=stats.percentile(hist[len(hist) // 2:], 95),
                      redo_bytes_per_trx=stats.redo_bytes_per_trx(
                          s0.get("innodb_lsn_current"), s1.get("innodb_lsn_current"),
                          s0.get("trx_id_counter"), s1.get("trx_id_counter")),
                      trx=trx, samples=samples, intervals=run.intervals,
                      redo_bytes=None if None in lsn else lsn[1] - lsn[0],
                      server_cpu_s=None if None in cpu else round(cpu[1] - cpu[0], 3),
                      **stats.history_composition(samples),
                      **stats.truncation_figures(samples),
                      **drained,
                      **(parse("".join(run.text)) if parse else {}))
        if holder:
            result.update(holder.result(), load_start_t=round(load_start, 2),
                          view_target=drain_target(settings, extra, self.args.lags))
            result.update(snapshot.figures(result, result["view_target"]))
            if holder.error:
                self.log(f"  {scenario} {arm} #{repeat}: the read view: {holder.error}")
        self.keep(t, result, extra)
        form = f" ({(extra or {})['release_form']} form)" if (extra or {}).get(
            "release_form") else ""
        self.log(f"  {scenario} {arm} #{repeat}{form}: tps {fmt(result['tps'])} "
                 f"qps {fmt(result['qps'])} latency p95 {fmt(result['lat_p95_ms'], 2)} ms "
                 f"history max {fmt(result['history_max'])} "
                 f"last {fmt(result['history_last'])} "
                 + (f"at the load's end {fmt(backlog)}, {drain_cell(result)}" if drained else
                    f"backlog {fmt(backlog)} (slow shutdown {took:.1f}s)"))
        return result

    def keep_output(self, scenario, arm, repeat, lines):
        """The client's output of a run, as it printed it, under
        client-output/ (what the tables were parsed from)."""
        d = os.path.join(self.outdir, "client-output")
        os.makedirs(d, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.@=+-]", "_", f"{scenario}-{arm}-{repeat}.txt")
        with open(os.path.join(d, name), "w") as f:
            f.write("".join(lines))

    def keep(self, t, result, extra=None):
        """File a run's result (with its server's label when comparing)."""
        if len(self.targets) > 1:
            result["server"] = t.label
        result.update(extra or {})
        self.runs.append(result)
        return result

    # -- scenarios -------------------------------------------------------
    def no_throttle(self, t):
        """The settings of a run without throttle on the server of t: no
        target, and on the fork the formula mode explicitly, so that the arm
        does not depend on the default of innodb_purge_throttle."""
        if self.has_var(t, "innodb_purge_throttle"):
            return {"innodb_max_purge_lag": 0, "innodb_purge_throttle": "formula"}
        return {"innodb_max_purge_lag": 0}

    def unthrottled(self, t):
        """[the unthrottled arm] for the server of t (plan()'s fixed=)."""
        return [("unthrottled", self.no_throttle(t))]

    def arms_for(self, t, scenario, lag=None):
        """[(arm name, SET GLOBAL settings)] for the server of t."""
        a = self.args
        fork = self.has_var(t, "innodb_purge_throttle")
        lost = [x for x in ("uncoupled", "adaptive") if x in a.arms]
        if (not fork and lost and len(self.targets) == 1
                and scenario in ("history-growth", "backlog-vs-lag", "tpcc", "ch",
                                 insertbench.SCENARIO, snapshot.SCENARIO)):
            # with several servers interleave() says it, per arm
            self.note(f"  {t.label}: skipping {', '.join(lost)}: "
                      f"{'they need' if len(lost) > 1 else 'it needs'} @@innodb_purge_throttle, "
                      "which this server lacks (a stock server)")
        if scenario in ("history-growth",):
            arms = [("no-throttle", self.no_throttle(t))]
            if fork and "adaptive" in a.arms:
                arms.append(("adaptive@1000", {"innodb_max_purge_lag": 1000,
                                               "innodb_purge_throttle": "adaptive"}))
            return arms
        if scenario in ("backlog-vs-lag", insertbench.SCENARIO, snapshot.SCENARIO):
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
            elif "formula" in a.arms:
                arms.append((f"formula@{lag}", base))
            return arms
        if scenario == "redo-per-trx":
            if fork:
                return [("compact", {"innodb_undo_log_compact_init": "ON"}),
                        ("generic", {"innodb_undo_log_compact_init": "OFF"})]
            return [("stock", {})]
        if scenario == "thread-sweep":
            return sweep_arms(self.args.switch, len(self.targets) > 1,
                              self.has_var(t, DEFAULT_SWITCH[0]))
        return [("no-throttle", self.no_throttle(t))]

    def note(self, text):
        """Log a note once per invocation."""
        if text not in self.noted:
            self.noted.add(text)
            self.log(text)

    def plan(self, scenario, lag=None, fixed=None, targets=None):
        """The runs of one step, interleaved over the servers: fixed arms
        (a list, or a function of the server that returns one), or each
        server's arms_for(). Skipped arms are logged once."""
        targets = self.targets if targets is None else targets
        lists = [(t, with_drains(fixed(t) if callable(fixed)
                                 else fixed if fixed is not None
                                 else self.arms_for(t, scenario, lag), self.args.drains,
                                 self.has_var(t, "innodb_purge_drain_rsegs")))
                 for t in targets]
        runs, notes = interleave(lists, self.has_var)
        for note in notes:
            if note not in self.noted:
                self.noted.add(note)
                self.log(note)
        return runs

    def scenario(self, name):
        if name in TCP_SCENARIOS:
            seconds = self.args.time or self.pick(name, "time")
            self.start_all()
            self.log(f"== {name}: go-tpc {name}, {seconds}s, {self.args.repeats} repeat(s)")
            self.gotpc_scenario(name, seconds, self.args.repeats)
            return
        if name == insertbench.SCENARIO:
            return self.insert_benchmark()
        test, tables, rows = self.workload(name), self.pick(name, "tables"), self.pick(name, "rows")
        seconds = self.args.time or self.pick(name, "time")
        tables = self.args.tables or tables
        rows = self.args.rows or rows
        repeats = self.args.repeats
        self.start_all()
        self.log(f"== {name}: {workloads.label(test)}"
                 + (f" {' '.join(self.sb_extra)}" if self.sb_extra else "")
                 + f", {tables} x {rows} rows, {seconds}s, {repeats} repeat(s)")
        if name == "history-growth":
            threads = self.pick(name, "threads")
            for r in range(1, repeats + 1):
                for t, arm, st in rotate(self.plan(name), r):     # interleaved arms
                    self.run_arm(t, name, arm, st, test, tables, rows, threads, seconds, r)
        elif name == "backlog-vs-lag":
            threads = self.args.threads or self.pick(name, "threads")
            lags = self.args.lags or self.pick(name, "lags")
            for r in range(1, repeats + 1):
                runs = [(t, arm, st, None) for t, arm, st in
                        self.plan(name, fixed=self.unthrottled)]
                for lag in lags:
                    runs += [(t, arm, st, {"lag": lag}) for t, arm, st in self.plan(name, lag)]
                for t, arm, st, extra in rotate(runs, r):
                    self.run_arm(t, name, arm, st, test, tables, rows, threads, seconds, r,
                                 extra=extra)
        elif name == "redo-per-trx":
            for threads in self.pick(name, "threads"):
                for r in range(1, repeats + 1):
                    for t, arm, st in rotate(self.plan(name), r):
                        self.run_arm(t, name, f"{arm}@{threads}", st, test, tables, rows,
                                     threads, seconds, r)
        elif name == "thread-sweep":
            points = self.args.sweep_threads or self.pick(name, "threads")
            for threads, r, t, arm, st in sweep_plan(points, self.plan(name), repeats):
                self.run_arm(t, name, f"{arm}@{threads}", st, test, tables, rows, threads,
                             seconds, r)
        elif name == snapshot.SCENARIO:
            self.snapshot_release(name, test, tables, rows, seconds, repeats)
        elif name == "purge-capacity":
            threads = self.args.threads or self.pick(name, "threads")
            going = list(self.targets)      # servers whose purge kept up so far
            # last, unpaced: whether purge keeps up with all the load can give
            for rate in list(self.args.rates or self.pick(name, "rates")) + [None]:
                step = f"rate@{rate or 'max'}"
                for t, arm, st in self.plan(name, fixed=[(step, {"innodb_max_purge_lag": 0})],
                                            targets=going):
                    res = self.run_arm(t, name, arm, st, test, tables, rows, threads, seconds,
                                       1, rate=rate, extra={"target_rate": rate},
                                       client_short=sysbench.rate_not_reached)
                    if res is None:         # failed: no higher rate on this server
                        going.remove(t)
                        continue
                    res["bounded_by"] = lag_measure(res)
                    # a rate the client could not give says nothing of purge
                    res["bounded"] = (None if res["client_short"]
                                      else purge_keeps_up(res, res["bounded_by"]))
                    if not res["bounded"]:
                        going.remove(t)
                if not going:
                    break

    # -- snapshot-release (MDEV-16260) ---------------------------------------
    def snapshot_release(self, name, test, tables, rows, before, repeats):
        """Each arm (unthrottled, each throttle at each lag) once per form:
        a read view held for --hold s after `before` s of load, then
        released; the load goes on for snapshot.AFTER_S + `before` s more
        (continue) or stops at the release (stop)."""
        threads = self.args.threads or self.pick(name, "threads")
        hold = self.args.hold or self.pick(name, "hold")
        lags = self.args.lags or self.pick(name, "lags")
        forms = self.args.release_forms or list(snapshot.FORMS)
        self.log(f"   view held {hold} s after {before} s of load; forms: {', '.join(forms)}")
        for r in range(1, repeats + 1):
            arms = [(t, arm, st, {"lag": lags[0]}) for t, arm, st in
                    self.plan(name, fixed=self.unthrottled)]
            for lag in lags:
                arms += [(t, arm, st, {"lag": lag}) for t, arm, st in self.plan(name, lag)]
            runs = [(t, arm, st, dict(extra, release_form=form))
                    for t, arm, st, extra in arms for form in forms]
            for t, arm, st, extra in rotate(runs, r):
                form = extra["release_form"]
                seconds = before + hold + (snapshot.AFTER_S + before if form == "continue" else 0)
                self.run_arm(t, name, arm, st, test, tables, rows, threads, seconds, r,
                             extra=extra, view=(before, hold if form == "continue" else None))

    # -- TPC-C and CH-benCHmark (go-tpc) ------------------------------------
    def gotpc_scenario(self, name, seconds, repeats):
        """tpcc / ch: load the data once per server, then every arm from a
        copy of it; after each run, go-tpc's consistency check (bounded by
        --check-time)."""
        binary = gotpc.require()
        self.meta["go-tpc"] = binary
        warehouses = self.args.warehouses or self.pick(name, "warehouses")
        threads = self.args.threads or self.pick(name, "threads")
        ac = (self.args.ac_threads or self.pick(name, "ac_threads")) if name == "ch" else None
        lags = self.args.lags or self.pick(name, "lags")
        self.log(f"   {warehouses} warehouse(s), {threads} threads"
                 + (f", {ac} analytical" if ac else "") + f", check bounded by "
                 f"{self.args.check_time}s")
        for t in self.targets:
            self.gotpc_snapshot(t, binary, name, warehouses)
        for r in range(1, repeats + 1):
            runs = [(t, arm, st, None) for t, arm, st in
                    self.plan(name, fixed=self.unthrottled)]
            for lag in lags:
                runs += [(t, arm, st, {"lag": lag})
                         for t, arm, st in self.plan("backlog-vs-lag", lag)]
            for t, arm, st, extra in rotate(runs, r):
                self.restore_snapshot(t)

                def go_tpc(srv, t=t):
                    cmd = gotpc.command(binary, t.tcp_port, name, "run", warehouses, threads,
                                        seconds, ac, interval=1, conn=self.attach)
                    return cmd, (lambda **kw: gotpc.Run(cmd, **kw))
                res = self.run_arm(t, name, arm, st, name, warehouses, 0, threads, seconds, r,
                                   extra=dict(extra or {}, warehouses=warehouses,
                                              ac_threads=ac), client=go_tpc)
                if res is None:
                    continue
                res.update(self.gotpc_check(t, binary, warehouses))
                if res["check"].startswith("FAILED"):
                    self.failures.append(dict(scenario=name, arm=res["arm"], repeat=r,
                                              error=f"go-tpc tpcc check: {res['check']}"))
                self.log(f"    check: {res['check']}; tpmC {fmt(res.get('tpmc'))}, "
                         f"{res.get('errors')} _ERR, {res.get('error_lines')} error line(s)")

    def gotpc_user(self, srv):
        if self.attach:
            return          # go-tpc connects as the user given
        srv.query(f"CREATE USER IF NOT EXISTS {gotpc.USER}@'127.0.0.1' IDENTIFIED BY "
                  f"'{gotpc.PASSWORD}'; GRANT ALL ON *.* TO {gotpc.USER}@'127.0.0.1'")

    def gotpc_snapshot(self, t, binary, name, warehouses):
        """Load go-tpc's data into t's server once, shut it down slowly (no
        history left) and keep a copy of the data directory to start every
        run from."""
        key = (name, warehouses)
        if t.snapshot == key:
            return
        srv = self.use(t)
        self.gotpc_user(srv)
        srv.query(f"DROP DATABASE IF EXISTS {gotpc.db_of(self.attach)}")
        self.schema_created = True
        steps = [("tpcc", "prepare")] + ([("ch", "prepare")] if name == "ch" else [])
        for bench, action in steps:
            cmd = gotpc.command(binary, t.tcp_port, bench, action, warehouses, threads=4,
                                conn=self.attach)
            if bench == "tpcc":
                # the consistency check that prepare runs after the load by
                # itself took most of a 4-warehouse prepare's 12 minutes
                # (condition 3.3.2.10); every run is checked afterwards
                cmd.append("--no-check")
            self.commands.append(redact(" ".join(cmd)))
            self.log(f"   {t.label}: go-tpc {bench} {action}, {warehouses} warehouse(s)")
            load = gotpc.LoadProgress(warehouses)
            with self.step(f"{t.label}: go-tpc {bench} {action}", load.status):
                rc, out = client.run_lines(cmd, load)
            if rc != 0:
                raise gotpc.GoTpcError(f"go-tpc {bench} {action} failed:\n{out[-2000:]}")
        if self.attach:
            # no data directory to copy: the runs share the data as loaded
            # once, each starting where the one before left it
            self.meta["go-tpc data"] = (
                "attach mode: loaded once; each run starts where the one before left it "
                "(no copy of the data directory to restore)")
            self.wait_for_purge(srv)
            t.snapshot = key
            return
        with self.step(f"{t.label}: slow shutdown after the load", srv.shutdown_status):
            srv.shutdown(slow=True)
        snap = os.path.join(t.workdir, "data.prepared")
        shutil.rmtree(snap, ignore_errors=True)
        with self.step(f"{t.label}: copying the loaded data directory"):
            shutil.copytree(srv.datadir, snap, symlinks=True)
        t.snapshot = key

    def restore_snapshot(self, t):
        """t's data directory as gotpc_snapshot() left it; its server stopped.
        Attach mode: nothing (the server is not the harness's to stop)."""
        if self.attach:
            return
        if t.running():
            t.server.shutdown(slow=False)
        for other in self.targets:
            if other is not t and other.running():
                other.server.shutdown(slow=False, timeout=600)
        data = t.server.datadir
        with self.step(f"{t.label}: restoring the loaded data directory"):
            shutil.rmtree(data)
            shutil.copytree(os.path.join(t.workdir, "data.prepared"), data, symlinks=True)
        t.prepared = None       # sysbench's tables are not in it

    def gotpc_check(self, t, binary, warehouses):
        """go-tpc tpcc check after a run, bounded by --check-time: passed,
        FAILED (a failed check is a failed run), or not finished (its
        connections are killed on the server, so that no query of it runs on)."""
        srv = self.use(t)
        cmd = gotpc.command(binary, t.tcp_port, "tpcc", "check", warehouses, threads=1,
                            conn=self.attach)
        t0 = time.time()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        timed_out = False
        try:
            with self.step(f"{t.label}: go-tpc tpcc check (at most {self.args.check_time} s)"):
                out = proc.communicate(timeout=self.args.check_time)[0]
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.terminate()
            try:
                out = proc.communicate(timeout=15)[0]
            except subprocess.TimeoutExpired:
                proc.kill()
                out = proc.communicate()[0]
            for (cid,) in srv.query("SELECT ID FROM information_schema.PROCESSLIST "
                                    + (f"WHERE USER='{gotpc.USER}'" if not self.attach else
                                       f"WHERE DB='{gotpc.db_of(self.attach)}' AND "
                                       "ID <> CONNECTION_ID()")):
                try:
                    srv.query(f"KILL {cid}")
                except ServerError:
                    pass            # it ended meanwhile
        verdict = gotpc.check_verdict(out, proc.returncode, timed_out, self.args.check_time)
        self.keep_output("check", t.label, len(self.runs), [out])
        # stop it so that the next run starts from its snapshot
        srv.shutdown(slow=False)
        return {"check": verdict, "check_s": round(time.time() - t0, 1),
                "check_passed": verdict.startswith("passed")}
    def insert_benchmark(self):
        """The Insert Benchmark (insertbench): each arm in turn (rotated per
        repeat) runs every step on a table of its own, prepared afresh; the
        steps of an arm share the table. Arms: unthrottled and each throttle
        at each target, as backlog-vs-lag (a stock server: formula only)."""
        name = insertbench.SCENARIO
        steps = ib_plan(self.args)
        lags = self.args.lags or self.pick(name, "lags")
        self.start_all()
        first = steps[0]
        self.log(f"== {name}: 1 table of {first['table_rows']:,} rows, {first['writers']} "
                 f"writer(s), {steps[-1]['readers']} reader(s) in the query steps, "
                 f"{' '.join(s['name'] for s in steps)}, query steps {steps[-1]['seconds']}s"
                 + (f", {' '.join(self.sb_for(insertbench.LUA))}"
                    if self.sb_for(insertbench.LUA) else "")
                 + f", {self.args.repeats} repeat(s); about "
                 f"{insertbench.estimated_seconds(steps) / 60:.0f} min per arm (estimate)")
        for r in range(1, self.args.repeats + 1):
            arms = [(t, arm, st, None) for t, arm, st in
                    self.plan(name, fixed=self.unthrottled)]
            for lag in lags:
                arms += [(t, arm, st, {"lag": lag}) for t, arm, st in self.plan(name, lag)]
            # rotate whole arms: each arm runs all its steps in order
            for t, arm, st, extra in rotate(arms, r):
                t.prepared = None       # a fresh table: drop sbtest and prepare again
                for i, step in enumerate(steps):
                    if self.ib_step(t, arm, st, step, r, extra) is None:
                        # the later steps need this one's table: not run
                        left = [s["name"] for s in steps[i + 1:]]
                        if left:
                            self.log(f"  {name} {t.arm(arm)} #{r}: not running "
                                     f"{' '.join(left)} (they follow a failed step)")
                        break

    def ib_step(self, t, arm, settings, step, repeat, extra=None):
        """One step of the Insert Benchmark for one arm: a run_arm() with
        the step's options, its counters parsed, the database's size taken
        once the server is down, and its row of the tables."""
        name = insertbench.SCENARIO

        def parse(text):
            try:
                return {"ib": insertbench.parse_ib_output(text)}
            except ValueError as e:
                self.log(f"  {name} {t.arm(arm)}@{step['name']}: the script's counters "
                         f"do not parse: {e}")
                return {"ib": None}

        res = self.run_arm(t, name, f"{arm}@{step['name']}", settings, insertbench.LUA, 1,
                           step["table_rows"], step["threads"], step["time_limit"], repeat,
                           extra=dict(extra or {}, ib_step=step["name"]),
                           options=insertbench.sysbench_options(step), parse=parse)
        if res is None:
            return None
        if self.attach:
            # no data directory here: the table's tablespace as the server
            # reports it, the system and undo tablespaces not
            res["db_bytes"] = None
            size = t.server.value("SELECT SUM(FILE_SIZE) FROM information_schema."
                                  "INNODB_SYS_TABLESPACES WHERE NAME LIKE "
                                  f"'{self.attach.db}/%'")
            res["table_bytes"] = int(size) if size not in (None, "NULL") else None
        else:
            res["db_bytes"] = insertbench.db_bytes(t.server.datadir)
            res["table_bytes"] = insertbench.db_bytes(t.server.datadir, system=False)
        row = res["ib_row"] = insertbench.step_row(step, t.arm(arm), res)
        c = res.get("ib") or {}
        if step["rows"] and c.get("rows_inserted", 0) < step["rows"]:
            self.log(f"  {name} {t.arm(arm)}@{step['name']}: only "
                     f"{fmt(c.get('rows_inserted', 0))} of {fmt(step['rows'])} rows in "
                     f"within {step['time_limit']}s")
        self.log(f"  {name} {t.arm(arm)}@{step['name']} #{repeat}: inserts/s "
                 f"{fmt(row['inserts_per_s'])} queries/s {fmt(row['queries_per_s'])}"
                 + (f" writers {row['sustained']}" if row["sustained"] else ""))
        return res

    # -- summary ---------------------------------------------------------
    def tables(self):
        out = []
        by = {}
        for r in self.runs:
            by.setdefault((r["scenario"], r["arm"]), []).append(r)
        a = self.targets[0]
        compare = len(self.targets) > 1

        def med(rs, k):
            return stats.summary([x.get(k) for x in rs])

        def mmm(s, d=0):
            if s["n"] <= 1:
                return fmt(s["median"], d)
            return f"{fmt(s['median'], d)} ({fmt(s['min'], d)}..{fmt(s['max'], d)})"

        def split(arm):
            """(the target that ran it, the arm's name without its label)"""
            t = next(t for t in self.targets if t.owns(arm))
            return t, arm[len(t.prefix):]

        scen = sorted({k[0] for k in by}, key=SCENARIOS.index)
        # what purge sustained on each server, when purge-capacity ran too
        sustained = {t: sustained_by_purge([r for r in self.runs if t.owns(r["arm"]) and
                                            r["scenario"] == "purge-capacity"])
                     for t in self.targets}
        sustained = {t: v for t, v in sustained.items() if v}
        for sc in scen:
            arms = [k[1] for k in by if k[0] == sc]
            if sc == insertbench.SCENARIO:
                out.extend(self.ib_tables([r for r in self.runs if r["scenario"] == sc]))
                continue
            if sc == snapshot.SCENARIO:
                out.extend(snapshot.table([r for r in self.runs if r["scenario"] == sc]))
                continue
            if sc == "thread-sweep":
                out.append(sweep_table([r for r in self.runs if r["scenario"] == sc]))
                continue
            if sc in TCP_SCENARIOS:
                mine = [r for r in self.runs if r["scenario"] == sc]
                out.extend(gotpc_tables(sc, mine) + held_table(sc, mine))
                continue
            key = "qps" if sc == "backlog-vs-lag" else "tps"   # the throughput compared
            base = {}                       # each arm's reference runs, on its server
            for t in self.targets:
                mine = [arm for arm in arms if t.owns(arm)]
                if sc == "backlog-vs-lag":
                    for arm in mine:
                        ref = t.arm(unthrottled_for(arm[len(t.prefix):]))
                        base[arm] = by.get((sc, ref), [])
                elif sc in ("history-growth",) and mine:
                    for arm in mine:
                        base[arm] = by[(sc, mine[0])]
            rows = []
            for arm in arms:
                t, name = split(arm)
                rs = by[(sc, arm)]
                qps, tps = med(rs, "qps"), med(rs, "tps")
                if sc == "redo-per-trx":
                    # its own server's compact arm, else A's (stock has none)
                    at = "compact@" + name.rpartition("@")[2]
                    partner = by.get((sc, t.arm(at))) or by.get((sc, a.arm(at))) or rs
                    ratio = stats.ratio(med(rs, "redo_bytes_per_trx")["median"],
                                        med(partner, "redo_bytes_per_trx")["median"])
                    row = [arm, mmm(tps), mmm(med(rs, "redo_bytes_per_trx"), 1),
                           report.rel(ratio)]
                elif sc == "purge-capacity":
                    unparsed = [s.get(UNPARSED) for s in rs[0]["samples"]
                                if s.get(UNPARSED) is not None]
                    row = [arm, mmm(tps), fmt(rs[0].get("history_max")),
                           fmt(max(unparsed, default=None)), fmt(rs[0].get("history_last")),
                           "- (rate not reached by the client)" if rs[0].get("client_short")
                           else ("yes" if rs[0].get("bounded") else "no")
                           + (" (history)" if rs[0].get("bounded_by") != UNPARSED else "")]
                else:
                    row = [arm, mmm(tps), mmm(qps), latency_cell(rs), mmm(med(rs, "history_p95")),
                           mmm(med(rs, "history_p95_late")),
                           mmm(med(rs, "history_max")), backlog_cell(rs, mmm, med),
                           paired_ratio(rs, base.get(arm), key)]
                    if sc == "backlog-vs-lag" and sustained:
                        mine = sustained.get(t)
                        row.append(mine and report.rel(stats.ratio(tps["median"], mine[0]))
                                   or "")
                if compare:     # over A, same arm, repeat by repeat; blank on A's rows
                    row.append("" if t is a else paired_ratio(rs, by.get((sc, a.arm(name))), key))
                rows.append(row)
            if sc == "redo-per-trx":
                header = ["arm@threads", "tps", "redo bytes/trx", "bytes/trx vs compact"]
            elif sc == "purge-capacity":
                header = ["target rate", "tps", "history max", "unparsed max", "history at end",
                          "purge keeps up"]
            else:
                drained = any(r.get("backlog_measure") == DRAIN for r in self.runs
                              if r["scenario"] == sc)
                header = ["arm", "tps", "qps", LATENCY_HEADER, "history p95",
                          "history p95, 2nd half", "history max",
                          DRAIN_HEADER if drained else "to purge at slow shutdown",
                          "qps / unthrottled" if sc == "backlog-vs-lag" else "tps / first arm"]
                if sc == "backlog-vs-lag" and sustained:
                    header.append("tps / sustained by purge")
            if compare:
                header.append(relative_header(key, self.targets))
            out.append((sc, header, rows))
            if sc == "purge-capacity":
                out.append((f"{sc}: what purge sustained", ["server", "tps", "bound by"],
                            [[t.label, fmt(v[0]),
                              "the load: purge kept up with all of it (unpaced)" if v[1]
                              else "purge: it fell behind at the next rate"]
                             for t, v in sustained.items()]))
            if sc == "backlog-vs-lag":
                out.extend(held_table(sc, [r for r in self.runs if r["scenario"] == sc]))
        return out

    def ib_tables(self, runs):
        """insert-benchmark's tables: per step and arm, and each arm over
        the first arm (the first server's unthrottled); with several servers,
        also each arm over the first server's arm of the same name
        (insertbench.server_pairs(), as the headline pairs them)."""
        return insertbench.relative_table(insertbench.rows_by_arm(runs),
                                          pairs=insertbench.server_pairs(runs))

    def finish(self):
        report.write_samples(self.outdir, self.runs)
        with open(os.path.join(self.outdir, "commands.txt"), "w") as f:
            f.write("\n".join(self.commands) + "\n")
        with open(os.path.join(self.outdir, "environment.json"), "w") as f:
            json.dump(self.meta, f, indent=1)
        cpu = [r["sampler_cpu_s"] for r in self.runs if r.get("sampler_cpu_s") is not None]
        if cpu:
            self.meta["sampler"] = (
                f"one connection (PyMySQL), SHOW GLOBAL STATUS once a second: "
                f"{sum(cpu) / len(cpu):.2f} CPU s per run on average, {max(cpu):.2f} at most, "
                f"over {len(cpu)} runs; {sum(r.get('sampler_errors') or 0 for r in self.runs)} "
                "failed samples")
        if self.failures:
            with open(os.path.join(self.outdir, "failed-runs.json"), "w") as f:
                json.dump(self.failures, f, indent=1)
        text = report.markdown(self.outdir, self.meta, self.runs, self.tables(),
                               headline(self.runs), failed=failed_lines(self.failures,
                                                                        self.stopped))
        # report.html beside it; a missing module costs the page, not the run
        from . import htmlreport
        try:
            htmlreport.write_report(self.outdir)
        except htmlreport.ReportError as e:
            print(f"purgebench: no report.html: {e}", file=sys.stderr)
        return text


LATENCY_HEADER = "latency ms p50 / p95 / p99 / max"
# what a failed run raises; run_arm() files it and goes on
RUN_ERRORS = (ServerError, sysbench.SysbenchError, gotpc.GoTpcError, sampler.SamplerError)
MAX_FAILED_IN_A_ROW = 3


class GiveUp(Exception):
    """Runs keep failing: stop the invocation, keep what was measured."""


# the backlog measure of a run on a server the harness did not start
DRAIN = "drain (sampled)"
DRAIN_HEADER = "history at the load's end; s to under the target / to zero (sampled)"


def server_cpu(srv):
    """The CPU seconds the server's process used so far (/proc), or None
    for a server whose process is not the harness's child (attach mode)."""
    pid = getattr(getattr(srv, "proc", None), "pid", None)
    return None if pid is None else insertbench.proc_cpu_seconds(pid)


def drain_target(settings, extra, lags):
    """The history the drain after a run is timed down to: the run's
    innodb_max_purge_lag, else its step's lag, else the first of --lags;
    None when there is none (only the time to zero is taken)."""
    lag = (settings or {}).get("innodb_max_purge_lag") or (extra or {}).get("lag")
    return lag or (lags[0] if lags else None)


def drain_cell(r):
    """A run's drain in words: seconds to under the target / to zero."""
    def sec(v):
        return f">{r.get('drain_limit_s')} s" if v is None else f"{v:.1f} s"
    under = sec(r.get("drain_under_target_s")) if r.get("drain_target") else "-"
    return f"{under} / {sec(r.get('drain_zero_s'))}"


def backlog_cell(rs, mmm, med):
    """The backlog column's cell: what the slow shutdown had to purge, or in
    attach mode the history at the load's end and the drain's times
    (medians over the repeats)."""
    if not any(r.get("backlog_measure") == DRAIN for r in rs):
        return mmm(med(rs, "backlog"))

    def m(k):
        return stats.summary([r.get(k) for r in rs])["median"]
    under, zero = m("drain_under_target_s"), m("drain_zero_s")
    first = rs[0]
    return (f"{fmt(m('backlog'))}; "
            + drain_cell(dict(first, drain_under_target_s=under, drain_zero_s=zero)))


def failed_lines(failures, stopped=None):
    """summary.md's opening when runs failed or the invocation stopped
    early: one line per failed run, and why it stopped."""
    out = [f"{f['scenario']} {f['arm']} #{f['repeat']}: "
           f"{(f['error'].splitlines() or ['?'])[0][:300]}" for f in failures]
    if stopped:
        out.append(f"The invocation stopped early: {stopped}; the runs after it were not made.")
    return out


def relative_header(key, targets):
    """The header of the column of each server's arm over the first's:
    B/A for two servers (as it always was), SERVER/A for more, where each
    server's rows hold its own ratio."""
    a = targets[0]
    if len(targets) == 2:
        return f"B/A {key} ({targets[1].label}/{a.label})"
    return f"{key} / {a.label} (each server's row)"


def latency_cell(rs):
    """A table cell of the runs' transaction latency: the median over the
    repeats of each of p50, p95, p99 and max, in ms."""
    def one(k):
        m = stats.summary([r.get(k) for r in rs])["median"]
        return "-" if m is None else f"{m:,.3g}" if m < 100 else f"{m:,.0f}"
    return " / ".join(one(f"lat_{p}_ms") for p in ("p50", "p95", "p99", "max"))


def short(arm):
    """An arm's name in a column header: without the innodb_ of a switch."""
    return arm.replace("innodb_", "")


def sweep_table(runs):
    """thread-sweep's table: a row per thread count; per arm its tps
    (median (min..max) of the repeats), latency p95 and redo bytes per
    transaction (medians); per arm after the
    first, its tps over the first arm's, paired by repeat (paired_ratio)."""
    arms, by = [], {}
    for r in runs:
        base, _, threads = r["arm"].rpartition("@")
        if base not in arms:
            arms.append(base)
        by.setdefault((base, int(threads)), []).append(r)
    points = sorted({k[1] for k in by})
    header = ["threads"]
    for arm in arms:
        header += [f"{short(arm)} tps", f"{short(arm)} p95 ms", f"{short(arm)} redo B/trx"]
    header += [f"{short(arm)} / {short(arms[0])} tps" for arm in arms[1:]]
    rows = []
    for n in points:
        row = [str(n)]
        for arm in arms:
            rs = by.get((arm, n), [])
            s = stats.summary([r.get("tps") for r in rs])
            p95 = stats.summary([r.get("lat_p95_ms") for r in rs])["median"]
            redo = stats.summary([r.get("redo_bytes_per_trx") for r in rs])["median"]
            row += [fmt(s["median"]) if s["n"] <= 1 else
                    f"{fmt(s['median'])} ({fmt(s['min'])}..{fmt(s['max'])})",
                    "-" if p95 is None else f"{p95:,.3g}", fmt(redo, 1)]
        row += [paired_ratio(by.get((arm, n), []), by.get((arms[0], n)), "tps")
                for arm in arms[1:]]
        rows.append(row)
    return "thread-sweep", header, rows


def spread(rs, k, d=0):
    """A table cell of the runs' k: the median (min..max) of the repeats."""
    s = stats.summary([r.get(k) for r in rs])
    if s["n"] <= 1:
        return fmt(s["median"], d)
    return f"{fmt(s['median'], d)} ({fmt(s['min'], d)}..{fmt(s['max'], d)})"


def held_table(sc, runs):
    """[(title, header, rows)]: per arm, what the history held (the means of
    stats.history_composition()), on servers that report the unparsed
    history; [] when none does."""
    by = {}
    for r in runs:
        by.setdefault(r["arm"], []).append(r)
    rows = [[arm] + [spread(rs, k) for k in stats.HELD_KEYS] for arm, rs in by.items()
            if stats.summary([r.get("held_unparsed") for r in rs])["n"]]
    if not rows:
        return []
    out = [(f"{sc}: what the history held (means over the samples)",
            ["arm", "history", "unparsed by purge", "of which blocked by a read view",
             "purged, not truncated", "rollback segments withheld",
             "throttle in force (% of samples)"], rows)]
    trunc = [[arm] + [spread(rs, k, 1) for k in stats.TRUNC_KEYS] for arm, rs in by.items()
             if stats.summary([r.get("trunc_passes_per_s") for r in rs])["n"]]
    if trunc:
        out.append((f"{sc}: what undo log truncation did (of 128 rollback segments)",
                    ["arm", "passes/s", "pass, ms", "segments busy at a pass",
                     "segments referenced at a pass", "segments given back drained, /s",
                     "withheld until given back, ms"], trunc))
    return out


def gotpc_tables(sc, runs):
    """tpcc / ch: per arm tpmC and NOPM, New-Order and Payment latency, the
    history, the backlog at slow shutdown, the check and the errors, and
    tpmC over the unthrottled run of the same repeat (and server); for ch
    also the analytical queries per hour and how much of the unparsed
    history the oldest read view held back."""
    arms, by = [], {}
    for r in runs:
        if r["arm"] not in arms:
            arms.append(r["arm"])
        by.setdefault(r["arm"], []).append(r)

    def lat(rs, txn):
        def one(k):
            m = stats.summary([(r.get("txn") or {}).get(txn, {}).get(k) for r in rs])["median"]
            return "-" if m is None else f"{m:,.0f}"
        return f"{one('p95_ms')} / {one('p99_ms')}"

    header = ["arm", "tpmC", "NOPM", "New-Order p95 / p99 ms", "Payment p95 / p99 ms",
              "history p95", "history max", "to purge at slow shutdown",
              "throttle in force (% of samples)", "check", "_ERR (error lines)",
              "tpmC / unthrottled"]
    if sc == "ch":
        header[-1:-1] = ["analytical queries/h", "unparsed, of it blocked by a read view"]
    rows = []
    for arm in arms:
        rs = by[arm]
        prefix = arm.partition(":")[0] + ":" if ":" in arm else ""
        ref = by.get(prefix + "unthrottled", [])
        checks = sorted({r.get("check", "-") for r in rs})
        row = [arm, spread(rs, "tpmc"), spread(rs, "nopm"), lat(rs, "NEW_ORDER"), lat(rs, "PAYMENT"),
               spread(rs, "history_p95"), spread(rs, "history_max"), spread(rs, "backlog"),
               spread(rs, "held_throttled_share"), "; ".join(checks),
               f"{sum(r.get('errors') or 0 for r in rs)} ({sum(r.get('error_lines') or 0 for r in rs)})",
               paired_ratio(rs, ref, "tpmc")]
        if sc == "ch":
            row[-1:-1] = [spread(rs, "ac_queries_per_hour"),
                          f"{spread(rs, 'held_unparsed')}, {spread(rs, 'held_view_blocked')}"]
        rows.append(row)
    return [(sc, header, rows)]


# the throughput that headline() compares, by scenario
HEADLINE_KEY = {"backlog-vs-lag": "qps", "tpcc": "tpmc", "ch": "tpmc"}


def headline(runs):
    """The summary's opening: for each target of backlog-vs-lag, tpcc and
    ch, one sentence per arm (history p95 as a multiple of the target,
    throughput (qps, tpmC) as a share of unthrottled, paired by repeat,
    latency p95); one sentence for a thread-sweep; the Insert Benchmark's
    (insertbench.headline()). Medians over the repeats."""
    out = []
    for sc, key in HEADLINE_KEY.items():
        out += target_sentences(sc, key, [r for r in runs if r["scenario"] == sc])
    out += insertbench.headline([r for r in runs if r["scenario"] == insertbench.SCENARIO])
    out += snapshot.headline([r for r in runs if r["scenario"] == snapshot.SCENARIO])
    sweep = [r for r in runs if r["scenario"] == "thread-sweep"]
    if sweep:
        _, header, rows = sweep_table(sweep)
        rel = [h for h in header if h.endswith(" tps") and " / " in h]
        if rel:
            i = header.index(rel[0])
            cells = ", ".join(f"{row[0]}: {row[i]}" for row in rows)
            out.append(("thread-sweep", [f"{rel[0]} by threads: {cells}."]))
    return out


def target_sentences(sc, key, blv):
    """headline()'s sentences for the runs of one scenario with targets."""
    out = []
    unit = "tpmC" if key == "tpmc" else key

    def med(rs, k):
        return stats.summary([r.get(k) for r in rs])["median"]

    def ms(v):
        return "-" if v is None else f"{v:,.3g} ms" if v < 100 else f"{v:,.0f} ms"

    servers = []
    for r in blv:
        if r.get("server") not in servers:
            servers.append(r.get("server"))
    for server in servers:
        mine = [r for r in blv if r.get("server") == server]
        prefix = f"{server}:" if server else ""
        un = [r for r in mine if r["arm"] == prefix + "unthrottled"]
        for lag in sorted({r["lag"] for r in mine if r.get("lag")}):
            at = [r for r in mine if r.get("lag") == lag]
            arms = []
            for r in at:
                if r["arm"] not in arms:
                    arms.append(r["arm"])
            lines = []
            if un:
                h = med(un, "history_p95")
                lines.append(f"{prefix}unthrottled: history p95 {fmt(h)} "
                             f"({h / lag:.2f}x the target), {fmt(med(un, key))} {unit}, "
                             f"latency p95 {ms(med(un, 'lat_p95_ms'))}."
                             if h is not None else f"{prefix}unthrottled: no history samples.")
            for arm in arms:
                rs = [r for r in at if r["arm"] == arm]
                h = med(rs, "history_p95")
                q = stats.summary([stats.ratio(r.get(key), next(
                    (u.get(key) for u in un if u["repeat"] == r["repeat"]), None))
                    for r in rs])["median"]
                share = f" at {q:.2f} of unthrottled {unit}" if q is not None else ""
                lines.append(f"{arm}: history p95 {h / lag:.2f}x the target{share}, "
                             f"latency p95 {ms(med(rs, 'lat_p95_ms'))}."
                             if h is not None else f"{arm}: no history samples.")
            hu = med(un, "history_p95") if un else None
            if hu is not None and hu <= lag:
                lines.append(f"The unthrottled history stayed under the target ({fmt(hu)} <= "
                             f"{fmt(lag)}): the throttles had nothing to do here; raise "
                             "--threads or lower --lags.")
            out.append((f"{sc}, target {fmt(lag)} (innodb_max_purge_lag)"
                        + (f", {server}" if server else ""), lines))
    return out


def ib_plan(args):
    """insert-benchmark's steps (insertbench.plan_steps()) for the options:
    --rows the table's rows, --time each query step's seconds, --threads
    the writers (and as many readers), --full the larger sizes. ValueError
    for a plan whose writers would run out of rows to delete."""
    return insertbench.plan_steps(args.full, writers=args.threads or insertbench.DEFAULT_WRITERS,
                                  table_rows=args.rows, query_seconds=args.time)


def lag_measure(res):
    """The status variable that shows how far purge is behind in a run: the
    committed transactions that it has not parsed yet (the fork's
    Innodb_purge_unparsed_trx), else the history length.  The history also
    counts the undo logs that purge has processed and that undo log
    truncation has not freed yet; at 256 threads that was most of it
    (docs/results/cpuload-256), a lag of truncation, not of purge."""
    samples = res["samples"]
    if samples and all(s.get(UNPARSED) is not None for s in samples):
        return UNPARSED
    return "innodb_history_list_length"


def purge_keeps_up(res, key=None):
    """A write rate is sustainable when purge's lag (key, by default
    lag_measure()) did not keep growing: its last third averages no more
    than twice its first third, or less than two seconds of commits (the
    coordinator of 10.11.18 may sleep a second between batches, so a
    saw-tooth of that height is no backlog)."""
    key = key or lag_measure(res)
    h = [s.get(key) or 0 for s in res["samples"]]
    if len(h) < 6:
        return None
    third = len(h) // 3
    first, last = sum(h[:third]) / third, sum(h[-third:]) / third
    pace = res.get("rate") or res.get("tps") or 0
    return last < max(1000, 2 * pace) or last <= 2 * max(first, 1)


def sustained_by_purge(runs):
    """What purge sustained on one server, from its purge-capacity runs:
    (tps, whether the load bound it).  When purge kept up with the unpaced
    run, that is all the load could give, and its tps; else the highest tps
    of a paced run that purge kept up with.  None when it kept up with none."""
    kept = [r for r in runs if r.get("bounded") and r.get("tps")]
    unpaced = [r for r in kept if r.get("rate") is None]
    if unpaced:
        return unpaced[-1]["tps"], True
    return (max(r["tps"] for r in kept), False) if kept else None


def fmt(v, d=0):
    return report.fmt(v, d)


def parse_args(argv, check_only=False):
    """The options, checked. check_only (--check-args, before BUILD/setup):
    the same checks, except those that need what set-up installs."""
    ap = argparse.ArgumentParser(
        prog="purgebench", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="The fork against Debian's stock 10.11.18, every arm on both, interleaved\n"
               "(tools/install-stock-server unpacks it once, without a service), from the\n"
               "top of the clone:\n"
               "  BUILD/run --compare-server \"$(tools/install-stock-server --path)\"\n\n"
               "Two more commands (each has --help):\n"
               "  purgebench report DIR...        report.html of a results directory again\n"
               "  purgebench compare A B [--out DIR]  two results directories of the same\n"
               "                                  arms, made at different times: B over A")
    ap.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                    help=f"any of {', '.join(SCENARIOS)}, or all "
                         f"(default: {' '.join(DEFAULT_SCENARIOS)})")
    ap.add_argument("--server", default=None, metavar="PATH",
                    help="the mariadbd to benchmark, A (default: the fork's release build, "
                         "build/release/sql/mariadbd; Debian's: see --compare-server)")
    ap.add_argument("--basedir", default=None, metavar="DIR",
                    help="its basedir, if not the parent of its bin/ or sbin/")
    ap.add_argument("--arms", default=None,
                    help="throttle arms for the fork: any of formula,uncoupled,adaptive "
                         "(default formula,adaptive); the unthrottled arm always runs; "
                         "--arms unthrottled runs it alone")
    ap.add_argument("--drains", type=drain_widths, default=None, metavar="N[,N...]",
                    help="run every arm once per innodb_purge_drain_rsegs width, e.g. 0,16 "
                         "(arms ARM+drainN; default: leave the variable alone)")
    ap.add_argument("--workload", default=None, metavar="NAME|FILE.lua",
                    help="the sysbench workload every scenario runs instead of its own: one "
                         "of sysbench's scripts (oltp_write_only, oltp_update_index, "
                         "oltp_insert, ...: an unknown name lists them) or your Lua file")
    ap.add_argument("--sb-option", action="append", default=[], type=sb_option,
                    metavar="KEY=VALUE",
                    help="an option of the workload's script, passed to sysbench as "
                         "--KEY=VALUE (repeatable), e.g. delete_inserts=10")
    ap.add_argument("--sweep-threads", type=thread_counts, default=None, metavar="N[,N...]",
                    help="thread-sweep: the thread counts (default 1,4,16,64,256,1024; "
                         "--full also 4096)")
    ap.add_argument("--switch", type=switch, default=None, metavar="VAR=V1,V2[,...]",
                    help="thread-sweep: one arm per value of a global variable, e.g. "
                         "innodb_undo_log_compact_init=ON,OFF (the default on the fork; "
                         "with --compare-server and no --switch: each server as it is)")
    ap.add_argument("--warehouses", type=positive, default=None, metavar="N",
                    help="tpcc, ch: TPC-C warehouses (default 2, --full 10)")
    ap.add_argument("--ac-threads", type=positive, default=None, metavar="N",
                    help="ch: analytical query threads (default 1, --full 2)")
    ap.add_argument("--check-time", type=positive, default=None, metavar="S",
                    help="tpcc, ch: seconds that go-tpc's consistency check may take after "
                         "each run; a check still running then is stopped, its queries "
                         "killed, and the conditions it finished reported (default 60; its "
                         "condition 3.3.2.10 takes minutes even at 1 warehouse)")
    ap.add_argument("--full", action="store_true", help="seed scale (long)")
    ap.add_argument("--repeats", type=positive, default=None,
                    help="repeats of each arm, their order rotated (default 1; 2 for the "
                         "default run, no SCENARIO given)")
    ap.add_argument("--time", type=positive, default=None, metavar="S",
                    help="seconds per run (override; insert-benchmark: per query step)")
    ap.add_argument("--threads", type=positive, default=None, metavar="N",
                    help="threads for backlog-vs-lag and purge-capacity; insert-benchmark: "
                         "writers, and as many readers in the query steps (default 2)")
    ap.add_argument("--tables", type=positive, default=None, metavar="N",
                    help="sysbench tables (override)")
    ap.add_argument("--rows", type=positive, default=None, metavar="N",
                    help="rows per table (override; insert-benchmark: the table's rows, "
                         "of which l.i1 inserts 40%% and l.i2 10%%)")
    ap.add_argument("--lags", type=lags, default=None, metavar="N[,N...]",
                    help="innodb_max_purge_lag values for backlog-vs-lag and insert-benchmark, "
                         "e.g. 10000,100000")
    ap.add_argument("--hold", type=positive, default=None, metavar="S",
                    help="snapshot-release: seconds the read view is held (default 30, "
                         "--full 300); --time is the load before it")
    ap.add_argument("--release-forms", type=release_forms, default=None,
                    metavar="continue,stop",
                    help="snapshot-release: the load goes on after the release (continue), "
                         "stops at it (stop, MDEV-16260's form), or both (default)")
    ap.add_argument("--rates", type=rates, default=None, metavar="N[,N...]",
                    help="purge-capacity: the paced write rates to try, transactions per "
                         "second, in increasing order (default 500,1000,2000,4000,8000, with --full "
                         "also 16000); an unpaced run follows while purge keeps up")
    ap.add_argument("--option", action="append", default=[], type=cnf_option,
                    metavar="VAR=VALUE",
                    help="extra my.cnf setting (repeatable)")
    ap.add_argument("--cpu-load", type=cpu_load, default=0, metavar="N",
                    help="N processes spinning on the CPU while each run's load runs, as other "
                         "work on a busy host (default 0)")
    ap.add_argument("--out", default=None, help="results directory (default results/<time>)")
    ap.add_argument("--reuse-datadir", action="store_true",
                    help="allow an existing data directory under --out")
    att = ap.add_argument_group(
        "attach mode: a server you deployed",
        "Benchmark a running server that purgebench did not start: the clients and the\n"
        "sampler connect to it; purgebench creates and drops its own schema, records\n"
        "the server's version and variables, never shuts it down, and restores every\n"
        "global variable it changed (restore-globals.sql, written before any change).\n"
        "The backlog is the drain after each run: seconds until the history is under\n"
        "the target and zero, sampled.")
    att.add_argument("--host", default=None, metavar="H",
                     help="the server's host (TCP; with --port, default 3306)")
    att.add_argument("--port", type=port_number, default=None, metavar="P",
                     help="its TCP port (default 3306)")
    att.add_argument("--socket", default=None, metavar="S",
                     help="its Unix socket, instead of --host")
    att.add_argument("--user", default=None, metavar="U",
                     help="the user the harness connects as (default root); it needs to "
                          "create and drop the schema and to SET GLOBAL")
    att.add_argument("--password-file", default=None, metavar="F",
                     help="a file whose first line is the user's password (default: none)")
    att.add_argument("--schema", default=None, metavar="NAME",
                     help="the schema purgebench creates and drops (default purgebench); "
                          "one that exists already is refused")
    att.add_argument("--drain-timeout", type=positive, default=None, metavar="S",
                     help="the longest the drain after a run is sampled (default 300)")
    cmp = ap.add_argument_group(
        "comparing servers",
        "A is --server, B is --compare-server; or any number with --server-list.\n"
        "Arm names carry the server's label (fork:unthrottled, stock:unthrottled); an\n"
        "arm that sets a variable a server lacks is skipped on it, with a note, and\n"
        "my.cnf settings a server does not know are left out of its my.cnf and\n"
        "listed; each table gets a column of each server's median over the first\n"
        "server's for the same arm, paired by repeat, measured in the same run.")
    cmp.add_argument("--compare-server", default=None, metavar="PATH",
                     help="a second mariadbd, B: each arm of each scenario runs on A, then on "
                          "B (A, B, A, B, ...), each on its own data directory under --out. "
                          "Debian's stock 10.11.18: tools/install-stock-server prints its path")
    cmp.add_argument("--compare-basedir", default=None, metavar="DIR",
                     help="B's basedir, if not the parent of its bin/ or sbin/")
    cmp.add_argument("--label", default=None, metavar="LABEL",
                     help="A's name in arm names, the report and server-LABEL/ (default fork)")
    cmp.add_argument("--compare-label", default=None, metavar="LABEL",
                     help="B's name (default stock)")
    cmp.add_argument("--server-list", type=server_list, default=None,
                     metavar="LABEL=PATH[:BASEDIR],...",
                     help="two or more servers, the first the reference, e.g. "
                          "fork=build,stock-10.5=build-stock-10.5,stock-10.11=~/.cache/"
                          "purgelab/stock/10.11.18-0+deb12u1: PATH is a mariadbd, or a "
                          "directory holding one (a build tree, a superbuild directory, "
                          "an unpacked Debian tree); every arm runs on each, interleaved, "
                          "the servers' order rotated per repeat. Instead of --server, "
                          "--compare-server and their --label options")
    a = ap.parse_args(argv)
    for sc in a.scenarios:
        if sc not in SCENARIOS + ("all",):
            ap.error(f"unknown scenario '{sc}' (choose from {', '.join(SCENARIOS)}, all)")
    if not a.scenarios:
        a.scenarios = list(DEFAULT_SCENARIOS)
        # the default run shows medians of two repeats in rotated order:
        # this machine's run-to-run noise is about +-10%
        a.repeats = a.repeats or 2
    elif "all" in a.scenarios:
        a.scenarios = list(SCENARIOS)
    a.repeats = a.repeats or 1
    a.given = {o for o in OPTION_USERS if getattr(a, o.lstrip("-").replace("-", "_"))
               not in (None, [])}
    a.arms = [x for x in (a.arms or "formula,adaptive").split(",") if x]
    a.check_time = a.check_time or 60
    bad = [x for x in a.arms
           if x not in ("formula", "uncoupled", "adaptive", "unthrottled")]
    if bad:
        ap.error(f"--arms {bad[0]}: choose from formula, uncoupled, adaptive "
                 "(unthrottled alone: --arms unthrottled)")
    for opt in a.sb_option:
        key = opt.lstrip("-").partition("=")[0]
        if key in insertbench.SET_BY_HARNESS:
            ap.error(f"--sb-option {opt[2:]}: purgebench sets --{key} for each "
                     f"insert-benchmark step itself")
    if insertbench.SCENARIO in a.scenarios:
        try:
            ib_plan(a)
        except ValueError as e:
            ap.error(f"insert-benchmark: {e}; raise --rows, or lower --time or --threads")
    if a.workload:
        try:
            a.workload = workloads.resolve(a.workload)
        except workloads.WorkloadError as e:
            # before BUILD/setup (--check-args) sysbench may not be installed
            # yet: its scripts are checked again once it is
            if not (check_only and not os.path.isdir(workloads.SYSBENCH_DIR)):
                ap.error(str(e))
    if (a.sweep_threads or a.switch) and "thread-sweep" not in a.scenarios:
        ap.error("--sweep-threads and --switch are thread-sweep's: add the scenario "
                 "thread-sweep")
    if a.server_list:
        given = [o for o, v in (("--server", a.server), ("--basedir", a.basedir),
                                ("--compare-server", a.compare_server),
                                ("--compare-basedir", a.compare_basedir), ("--label", a.label),
                                ("--compare-label", a.compare_label)) if v is not None]
        if given:
            ap.error(f"--server-list names every server with its label: leave out "
                     f"{', '.join(given)}")
    elif not a.compare_server:
        given = [o for o, v in (("--compare-basedir", a.compare_basedir), ("--label", a.label),
                                ("--compare-label", a.compare_label)) if v is not None]
        if given:
            ap.error(f"{', '.join(given)}: only with --compare-server")
    a.label = ("attached" if a.host or a.socket else "fork") if a.label is None else a.label
    a.compare_label = "stock" if a.compare_label is None else a.compare_label
    for opt, label in (("--label", a.label), ("--compare-label", a.compare_label)):
        if not LABEL_RE.fullmatch(label):
            ap.error(f"{opt} '{label}': use 1-32 letters, digits, '.', '_', '+' or '-', "
                     "starting with a letter or digit (it names arms and a directory)")
    if a.compare_server and a.label == a.compare_label:
        ap.error(f"--label and --compare-label are both '{a.label}'; give the servers "
                 "different names")
    if check_only:
        # (not one that BUILD/run's build of the release flavour makes)
        built = os.path.join(os.environ.get("PURGELAB_BUILD_DIR") or
                             os.path.join(REPO, "build"), "release")
        for opt, path in (("--server", a.server), ("--compare-server", a.compare_server)):
            if path is None or os.path.abspath(path).startswith(built + os.sep):
                continue
            if not os.access(os.path.expanduser(path), os.X_OK):
                ap.error(f"{opt} {path}: no such executable")
    a.attach = attach_conn(ap, a)
    unused, a.notes = ignored_options(a.scenarios, a.given, a.sb_option)
    if unused:
        ap.error(unused)
    return a


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the options that only some scenarios use, and which: any other scenario
# of a run ignores it (a note), a run where none uses it is an error
OPTION_USERS = {
    "--threads": ("backlog-vs-lag", "purge-capacity", "tpcc", "ch", "insert-benchmark",
                  "snapshot-release"),
    "--tables": ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
                 "thread-sweep", "snapshot-release"),
    "--rows": ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
               "thread-sweep", "insert-benchmark", "snapshot-release"),
    "--lags": ("backlog-vs-lag", "tpcc", "ch", "insert-benchmark", "snapshot-release"),
    "--arms": ("history-growth", "backlog-vs-lag", "tpcc", "ch", "insert-benchmark",
               "snapshot-release"),
    "--hold": ("snapshot-release",),
    "--release-forms": ("snapshot-release",),
    "--rates": ("purge-capacity",),
    "--warehouses": ("tpcc", "ch"),
    "--check-time": ("tpcc", "ch"),
    "--ac-threads": ("ch",),
    "--workload": ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
                   "thread-sweep", "snapshot-release"),
}
# what a scenario does instead of an option it ignores: (option, scenario)
# or the option alone
IGNORES = {
    "--threads": "it runs its own thread counts",
    ("--threads", "thread-sweep"): "its thread counts are --sweep-threads'",
    "--tables": "it has its own tables",
    ("--rows", "tpcc"): "its data is --warehouses'",
    ("--rows", "ch"): "its data is --warehouses'",
    "--lags": "it sets no innodb_max_purge_lag target",
    "--arms": "it runs its own arms",
    "--workload": "it runs its own client",
}
SB_USERS = OPTION_USERS["--workload"]


def ignored_options(scenarios, given, sb_options=()):
    """(error or None, [note]) for the options given that a scenario of
    this run does not use: an option that none of them uses is an error
    (it would change nothing), one that some ignore gets a note per
    scenario that ignores it."""
    notes = []
    for opt in sorted(given):
        users = OPTION_USERS[opt]
        mine = [sc for sc in scenarios if sc in users]
        if not mine:
            return (f"{opt} is used only by {', '.join(users)}; this run has "
                    f"{' '.join(scenarios)}: add one of those scenarios or leave {opt} out",
                    [])
        for sc in scenarios:
            if sc not in users:
                why = IGNORES.get((opt, sc)) or IGNORES.get(opt)
                notes.append(f"note: {sc} ignores {opt}" + (f" ({why})" if why else ""))
    ib = [o for o in sb_options if insertbench.is_script_option(o)]
    other = [o for o in sb_options if not insertbench.is_script_option(o)]
    for opts, users in ((other, SB_USERS), (ib, (insertbench.SCENARIO,))):
        if not opts:
            continue
        mine = [sc for sc in scenarios if sc in users]
        if not mine:
            return (f"--sb-option {' '.join(o[2:] for o in opts)}: only "
                    f"{', '.join(users)} pass(es) it to its script; this run has "
                    f"{' '.join(scenarios)}", [])
        notes += [f"note: {sc} ignores --sb-option {' '.join(o[2:] for o in opts)}"
                  for sc in scenarios if sc not in users]
    return None, notes


# where a mariadbd is under a directory given to --server-list: its own
# directory, a superbuild
# directory (build/, build-stock-10.5/), a build tree (build/release), an
# installation or a tarball, Debian's packages unpacked (install-stock-server)
SERVER_IN_DIR = ("mariadbd", "release/sql/mariadbd", "sql/mariadbd", "usr/sbin/mariadbd",
                 "sbin/mariadbd", "bin/mariadbd")


def find_server(path):
    """--server-list's PATH: a mariadbd as it is, or the one under a
    directory (SERVER_IN_DIR, the first found); a directory without one is
    an error. A path that does not exist is left for Installation to
    report."""
    path = os.path.expanduser(path)
    if not os.path.isdir(path):
        return path
    for rel in SERVER_IN_DIR:
        p = os.path.join(path, rel)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    raise argparse.ArgumentTypeError(
        f"no mariadbd under {path} (looked for {', '.join(SERVER_IN_DIR)}); "
        "build it (BUILD/build, BUILD/build stock-10.5) or give the binary's path")


def server_list(text):
    """--server-list LABEL=PATH[:BASEDIR],...: [(label, mariadbd, basedir or
    None)], two or more, labels distinct."""
    out = []
    for item in text.split(","):
        label, eq, rest = item.strip().partition("=")
        if not eq or not rest:
            raise argparse.ArgumentTypeError(
                f"'{item}': give LABEL=PATH, e.g. fork=build/release/sql/mariadbd")
        if not LABEL_RE.fullmatch(label):
            raise argparse.ArgumentTypeError(
                f"label '{label}': use 1-32 letters, digits, '.', '_', '+' or '-', starting "
                "with a letter or digit (it names arms and a directory)")
        if label in [x[0] for x in out]:
            raise argparse.ArgumentTypeError(f"label '{label}' is given twice")
        path, colon, basedir = rest.partition(":")
        if colon and not basedir:
            raise argparse.ArgumentTypeError(f"'{item}': an empty BASEDIR after ':'")
        out.append((label, find_server(path), os.path.expanduser(basedir) if basedir else None))
    if len(out) < 2:
        raise argparse.ArgumentTypeError(
            f"'{text}': give two or more servers (one alone: --server PATH)")
    return out


def whole_numbers(text, what, example):
    """Comma-separated whole numbers, for an option's type."""
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': give {what}, e.g. {example}")


def counts(text, what, example):
    """Comma-separated whole numbers, each 0..64, for an option's type."""
    values = whole_numbers(text, what, example)
    bad = [n for n in values if not 0 <= n <= 64]
    if bad:
        raise argparse.ArgumentTypeError(f"{bad[0]}: {what} range from 0 to 64")
    return values


def release_forms(text):
    """--release-forms: continue, stop or both."""
    forms = [f.strip() for f in text.split(",") if f.strip()]
    bad = [f for f in forms if f not in snapshot.FORMS]
    if bad or not forms or len(set(forms)) != len(forms):
        raise argparse.ArgumentTypeError(f"'{text}': give continue, stop or continue,stop")
    return forms


def port_number(text):
    """--port: a TCP port, 1..65535."""
    n = positive(text)
    if n > 65535:
        raise argparse.ArgumentTypeError(f"'{text}': a port is 1..65535")
    return n


def attach_conn(ap, a):
    """Attach mode's Conn from --host/--port/--socket/--user/--password-file/
    --schema, or None without --host and --socket; the options that belong
    to a server the harness starts are refused with it."""
    mine = [o for o, v in (("--port", a.port), ("--user", a.user),
                           ("--password-file", a.password_file), ("--schema", a.schema),
                           ("--drain-timeout", a.drain_timeout)) if v is not None]
    if a.host is None and a.socket is None:
        if mine:
            ap.error(f"{', '.join(mine)}: only in attach mode, with --host or --socket")
        a.drain_timeout = 300
        return None
    if a.host is not None and a.socket is not None:
        ap.error("--host and --socket: give one (TCP, or the server's Unix socket)")
    if a.socket is not None and a.port is not None:
        ap.error("--port is for --host (TCP); --socket needs none")
    theirs = [o for o, v in (("--server", a.server), ("--basedir", a.basedir),
                             ("--compare-server", a.compare_server),
                             ("--compare-basedir", a.compare_basedir),
                             ("--server-list", a.server_list))
              if v is not None] + (["--option"] if a.option else []) + \
        (["--reuse-datadir"] if a.reuse_datadir else [])
    if theirs:
        ap.error(f"{', '.join(theirs)}: for a server that purgebench starts; in attach "
                 "mode (--host/--socket) the server is yours: set its configuration there")
    tcp = [sc for sc in a.scenarios if sc in TCP_SCENARIOS]
    if tcp and a.socket is not None:
        ap.error(f"{', '.join(tcp)}: go-tpc connects over TCP only: give --host (and "
                 "--port) instead of --socket")
    password = None
    if a.password_file is not None:
        try:
            with open(os.path.expanduser(a.password_file)) as f:
                password = f.readline().rstrip("\r\n")
        except OSError as e:
            ap.error(f"--password-file {a.password_file}: {e.strerror}")
    schema = a.schema or "purgebench"
    if not re.fullmatch(r"[A-Za-z0-9_]{1,64}", schema):
        ap.error(f"--schema '{schema}': use 1-64 letters, digits or '_'")
    a.drain_timeout = a.drain_timeout or 300
    return Conn(socket=os.path.abspath(a.socket) if a.socket else None, host=a.host,
                port=a.port or 3306 if a.host else None, user=a.user or "root",
                password=password or None, db=schema)


def cnf_option(text):
    """--option VAR=VALUE: a my.cnf setting -> (VAR, VALUE)."""
    var, eq, value = text.partition("=")
    var = var.strip()
    if not eq or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", var):
        raise argparse.ArgumentTypeError(
            f"'{text}': give VAR=VALUE, e.g. innodb_max_purge_lag=10000 (a switch: VAR=ON)")
    return var, value.strip()


def positive(text):
    """A whole number of at least 1, for an option's type."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"'{text}': give a whole number of at least 1")
    return n


def sb_option(text):
    """--sb-option: KEY=VALUE -> --KEY=VALUE for sysbench."""
    try:
        return workloads.sb_option(text)
    except workloads.WorkloadError as e:
        raise argparse.ArgumentTypeError(str(e))


def thread_counts(text):
    """--sweep-threads: distinct positive thread counts, increasing."""
    values = whole_numbers(text, "thread counts", "1,4,16,64")
    if any(v <= 0 or v > 65536 for v in values) or values != sorted(set(values)):
        raise argparse.ArgumentTypeError(f"'{text}': give distinct thread counts from 1 to "
                                         "65536 in increasing order")
    return values


def switch(text):
    """--switch VAR=V1,V2: (variable, (values)), at least two distinct values."""
    var, eq, vals = text.partition("=")
    values = tuple(v.strip() for v in vals.split(",") if v.strip())
    if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var):
        raise argparse.ArgumentTypeError(f"'{text}': give VAR=V1,V2, e.g. "
                                         "innodb_undo_log_compact_init=ON,OFF")
    if len(values) < 2 or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"'{text}': give two or more distinct values")
    bad = [v for v in values if not re.fullmatch(r"[A-Za-z0-9_.+-]+", v)]
    if bad:
        raise argparse.ArgumentTypeError(f"'{bad[0]}': a value is a word or a number")
    return var, values


def lags(text):
    """--lags: innodb_max_purge_lag targets, each positive (0 would turn the
    throttle off)."""
    values = whole_numbers(text, "history lengths", "10000,100000")
    if any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"'{text}': give positive history lengths")
    return values


def rates(text):
    """--rates: increasing paced write rates, transactions per second."""
    values = whole_numbers(text, "transactions per second", "2000,4000,6000")
    if any(v <= 0 for v in values) or values != sorted(set(values)):
        raise argparse.ArgumentTypeError(f"'{text}': give positive rates in increasing order")
    return values


def cpu_load(text):
    """--cpu-load: spinning processes, 0..64."""
    if "," in text:
        raise argparse.ArgumentTypeError(f"'{text}': give one number of processes, e.g. 2")
    return counts(text, "spinning processes", "2")[0]


def drain_widths(text):
    """--drains: distinct innodb_purge_drain_rsegs widths, 0..64."""
    widths = counts(text, "innodb_purge_drain_rsegs widths", "0,16")
    if len(set(widths)) != len(widths):
        raise argparse.ArgumentTypeError(f"'{text}': a width is given twice")
    return widths


def stop_on_sigterm():
    """Let kill (SIGTERM) stop a benchmark as Ctrl-C does, keeping the runs
    measured so far: a run started in the background from a script ignores
    SIGINT, so kill is the way to stop it there.  Returns the handler it
    replaced."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    return signal.signal(signal.SIGTERM, interrupt)


SUBCOMMANDS = ("report", "compare")


def report_parser():
    ap = argparse.ArgumentParser(
        prog="purgebench report",
        description="Write report.html beside summary.md in each results directory: one "
                    "self-contained page (tables with the Insert Benchmark colours, plots "
                    "embedded). A run writes it itself; this makes it again, or for a "
                    "directory saved before.")
    ap.add_argument("dirs", nargs="+", metavar="DIR",
                    help="a results directory (summary.md), or one that purgebench compare "
                         "wrote (compare.md: compare.html again)")
    return ap


def report_main(argv):
    """purgebench report DIR...: (re)write report.html from each results
    directory's summary.md (compare.html from compare.md in a directory
    that purgebench compare wrote)."""
    from . import htmlreport
    args = report_parser().parse_args(argv)
    rc = 0
    for d in args.dirs:
        try:
            if (not os.path.isfile(os.path.join(d, "summary.md"))
                    and os.path.isfile(os.path.join(d, "compare.md"))):
                # a directory that purgebench compare wrote: its page again
                path, missing = htmlreport.write_report(d, "compare.html", "compare.md",
                                                        kind="compare")
            else:
                path, missing = htmlreport.write_report(d)
        except htmlreport.ReportError as e:
            print(f"purgebench report: {e}", file=sys.stderr)
            rc = 1
            continue
        for m in missing:
            print(f"purgebench report: {d}: plot {m} is missing (noted on the page)",
                  file=sys.stderr)
        print(path)
    return rc


def check_args(argv):
    """--check-args ARGS: parse and check ARGS as a run would, print what a
    scenario will ignore, and exit: BUILD/run does this before set-up and
    the build, so that a wrong option fails in seconds."""
    if argv and argv[0] == "report":
        report_parser().parse_args(argv[1:])
    elif argv and argv[0] == "compare":
        from . import compare
        compare.parse_args(argv[1:])
    else:
        for note in parse_args(argv, check_only=True).notes:
            print(f"purgebench: {note}", file=sys.stderr)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "--check-args":
        return check_args(argv[1:])
    if argv and argv[0] == "report":
        return report_main(argv[1:])
    if argv and argv[0] == "compare":
        from . import compare
        return compare.main(argv[1:])
    args = parse_args(argv)
    stop_on_sigterm()
    if args.server is None:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        args.server = os.path.join(repo, "build", "release", "sql", "mariadbd")
    bench = None
    rc = 0
    try:
        sysbench.require()
        bench = Bench(args)
        bench.meta["purgebench command"] = "purgebench " + shlex.join(argv)
        commit = tree_commit(REPO)
        if commit:
            bench.meta["purgebench's git commit"] = commit.split(";")[0]
        print(f"purgebench: results in {bench.outdir}")
        for sc in args.scenarios:
            bench.scenario(sc)
    except KeyboardInterrupt:
        print("\npurgebench: interrupted; keeping what was measured", file=sys.stderr)
        rc = 130
        if bench:
            bench.stopped = "interrupted (Ctrl-C or kill)"
    except (GiveUp,) + RUN_ERRORS as e:
        print(f"purgebench: {e}", file=sys.stderr)
        if bench is None:
            return 1
        rc = 1
        bench.stopped = str(e).splitlines()[0] if str(e).strip() else type(e).__name__
    finally:
        if bench:
            bench.stop()
    if bench is None:
        return 1
    if bench.failures:
        rc = rc or 1
        print(f"purgebench: {len(bench.failures)} run(s) failed:", file=sys.stderr)
        for line in failed_lines(bench.failures):
            print(f"  {line}", file=sys.stderr)
    if bench.runs or bench.failures:
        print(bench.finish())
        print(f"purgebench: report {os.path.join(bench.outdir, 'summary.md')}")
        if os.path.exists(os.path.join(bench.outdir, "report.html")):
            print(f"purgebench: report {os.path.join(bench.outdir, 'report.html')}")
        return rc
    return rc or 1
