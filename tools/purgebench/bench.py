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

import datetime
import json
import os
import shlex
import shutil
import signal
import sys
import time  # noqa: F401  (tests patch bench.time)

from . import client, gotpc, insertbench, progress, report, sampler, scenarios, \
    sysbench  # noqa: F401
from .environment import cnf_settings, flavour, machine, tree_commit
from .lent import Lent
from .measure import (MAX_FAILED_IN_A_ROW, RUN_ERRORS, GiveUp, Runner,  # noqa: F401
                      drain_target, server_cpu)
from .options import REPO, check_args, parse_args
from .plan import (Arm, Target, interleave, rotate, sweep_arms, sweep_plan,  # noqa: F401
                   with_drains)
from .scenarios import ARM_VARS, BASE_CNF, RECORDED_VARS, SCALE, TCP_SCENARIOS
from .server import (AttachedServer, Installation, Server, ServerError, free_port, redact,
                     unknown_settings)
from .tables import DRAIN, drain_cell, failed_lines, headline, summary_tables  # noqa: F401

# The layout (docs/benchmarks.md, "The harness's layout"): scenarios/ (a
# module per scenario behind scenarios.base.Scenario: name, scale, options,
# arms, run loop, tables; the registry in scenarios/__init__.py), plan.py
# (servers, arms as plan.Arm, rotation), options.py (the command line),
# tables.py and cells.py (the summary's tables and sentences), report.py and
# htmlreport.py (summary.md, report.json, report.html); here the core:
# servers, the scenarios run from the registry, and main(); measure.py
# (Runner: one measured run) and lent.py (Lent: attach mode's restore) are
# parts of Bench, as gotpc.Runs and insertbench.Runs (their scenarios'
# data loads, checks and steps).


class Bench(Runner, Lent, gotpc.Runs, insertbench.Runs):
    progress_every = 10     # seconds between two progress lines of a step in a log

    def __init__(self, args):
        self.args = args
        self.full = args.full
        self.attach = getattr(args, "attach", None)
        servers = servers_of(args)
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
        # what no log may show: the password of attach mode, exactly
        self.secrets = [self.attach.password] if self.attach and self.attach.password else []
        self.sb_extra = list(args.sb_option)
        if self.attach:
            self.log(attach_warning(args))
        for note in getattr(args, "notes", ()):
            self.log(note)
        if args.workload:
            self.meta["workload"] = (f"{args.workload} (--workload)"
                                     + (f", options {' '.join(self.sb_extra)}"
                                        if self.sb_extra else ""))
        # max_connections and the like are sized for the most threads any
        # scenario of this invocation runs
        self.max_threads = max([256, args.threads or 0]
                               + [scenarios.get(sc).most_threads(args, self.full)
                                  for sc in args.scenarios])
        if args.cpu_load:
            self.meta["cpu_load"] = (
                f"{args.cpu_load} process(es) spinning on the CPU while each run's load "
                f"runs (--cpu-load)")
        compared = compared_note(self.targets)
        if compared:
            self.meta["compared"] = compared

    # -- helpers -----------------------------------------------------------
    def pick(self, scenario, key):
        v = SCALE[scenario][key]
        return v[1] if self.full else v[0]

    def log(self, msg):
        msg = redact(msg, self.secrets, command=False) if self.secrets else msg
        try:
            print(msg, flush=True)
        except OSError:
            pass        # the terminal is gone (SIGHUP): the log still gets it
        with open(os.path.join(self.outdir, "progress.log"), "a") as f:
            f.write(msg + "\n")

    def step(self, title, status=None):
        """A step that may run for long, with its progress (progress.Ticker):
        a live line in a terminal, a line every 10 s in the log."""
        return progress.Ticker(title, say=self.log, status=status, every=self.progress_every)

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
            try:
                return self.detach()
            finally:
                self.attach.forget_secret()
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
                if e.code != 1193 and "ERROR 1193 " not in str(e):  # ER_UNKNOWN_SYSTEM_VARIABLE
                    raise       # not an answer: do not remember it
                t.vars[name] = False
        return t.vars[name]

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
        return [(Arm("unthrottled"), self.no_throttle(t))]

    def arms_for(self, t, scenario, lag=None):
        """[(Arm, SET GLOBAL settings)] for the server of t: the scenario's
        own (Scenario.arms_on())."""
        sc = scenarios.get(scenario)
        fork = self.has_var(t, "innodb_purge_throttle")
        lost = [x for x in ("uncoupled", "adaptive") if x in self.args.arms]
        if not fork and lost and len(self.targets) == 1 and sc.throttles:
            # with several servers interleave() says it, per arm
            self.note(f"  {t.label}: skipping {', '.join(lost)}: "
                      f"{'they need' if len(lost) > 1 else 'it needs'} @@innodb_purge_throttle, "
                      "which this server lacks (a stock server)")
        return sc.arms_on(self, t, lag)

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
        """Run one scenario of the registry (scenarios/): prepare, run,
        cleanup, as go-tpc's Workloader."""
        sc = scenarios.get(name)
        job = sc.prepare(self)
        sc.run(self, job)
        sc.cleanup(self, job)

    # -- summary ---------------------------------------------------------
    def tables(self):
        return summary_tables(self.runs, self.targets)

    def finish(self):
        report.write_samples(self.outdir, self.runs)
        with open(os.path.join(self.outdir, "commands.txt"), "w") as f:
            f.write(redact("\n".join(self.commands), self.secrets) + "\n")
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


def servers_of(args):
    """[(label, Installation or None)]: the servers of an invocation (None:
    attach mode's, a server the harness did not start)."""
    if getattr(args, "attach", None):
        return [(args.label, None)]
    if getattr(args, "server_list", None):
        return [(label, Installation(path, basedir=basedir, hint=(
            f"--server-list {label}=...: build it (BUILD/build, BUILD/build stock-10.5), "
            "unpack Debian's stock server with tools/install-stock-server, or give "
            "another path")))
            for label, path, basedir in args.server_list]
    servers = [(args.label, Installation(args.server, basedir=args.basedir))]
    if args.compare_server:
        servers.append((args.compare_label, Installation(
            args.compare_server, basedir=args.compare_basedir,
            hint="unpack Debian's with tools/install-stock-server or pass another "
                 "with --compare-server")))
    return servers


def compared_note(targets):
    """environment.json's "compared": how the servers are compared (None
    for one server)."""
    if len(targets) == 2:
        a, b = targets
        return (f"A = {a.label}, B = {b.label}: every arm runs on both, interleaved, each "
                f"on its own data directory; B/A is B's median over A's for the same arm")
    if len(targets) > 2:
        a = targets[0]
        return (f"{', '.join(t.label for t in targets)}: every arm runs on each, "
                f"interleaved (the servers' order rotated per repeat), each on its own data "
                f"directory; SERVER/{a.label} is a server's median over {a.label}'s for the "
                f"same arm, paired by repeat")
    return None


# what the first line of progress.log says in attach mode
ATTACH_WARNING = (
    "purgebench: attach mode: the throttle's settings are global: while an arm runs, "
    "every other client of this server is throttled as the benchmark's are, and during "
    "snapshot-release's held read view purge stalls for everyone; the settings are "
    "restored at the end (restore-globals.sql)")
def attach_warning(args):
    """The first line of progress.log in attach mode: what other clients of
    the server see while the harness runs (and a variable that
    --allow-switch lets --switch set, with its values)."""
    allowed = (f"; --allow-switch {args.switch[0]}: every client meets "
               f"{args.switch[0]}={', then '.join(args.switch[1])} while thread-sweep runs"
               if getattr(args, "allow_switch", None) and args.switch else "")
    return ATTACH_WARNING + allowed


# the signals that stop a benchmark as Ctrl-C does: kill, a dropped ssh
# session (SIGHUP), Ctrl-\ (SIGQUIT)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def stop_on_sigterm():
    """Let kill (SIGTERM), a hang-up (SIGHUP: the ssh session dropped) and
    SIGQUIT stop a benchmark as Ctrl-C does, keeping the runs measured so
    far and restoring an attached server's globals: a run started in the
    background from a script ignores SIGINT, so kill is the way to stop it
    there.  Returns the SIGTERM handler it replaced."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    return {s: signal.signal(s, interrupt) for s in STOP_SIGNALS}[signal.SIGTERM]


class shielded:
    """While the server's settings are restored and the harness's schema
    dropped (Bench.stop()), a second Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT)
    does not abort it: it is noted, and the restore goes on."""

    def __enter__(self):
        self.saved = {}

        def later(signum, frame):
            try:
                print("purgebench: restoring the server's settings first; a moment",
                      file=sys.stderr, flush=True)
            except OSError:
                pass
        try:
            for s in (signal.SIGINT,) + STOP_SIGNALS:
                self.saved[s] = signal.signal(s, later)
        except ValueError:      # not the main thread: signals go elsewhere
            pass
        return self

    def __exit__(self, *exc):
        for s, handler in self.saved.items():
            signal.signal(s, handler)
        return False


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "--check-args":
        return check_args(argv[1:])
    if argv and argv[0] == "report":
        from . import htmlreport
        return htmlreport.main(argv[1:])
    if argv and argv[0] == "compare":
        from . import compare
        return compare.main(argv[1:])
    args = parse_args(argv)
    if args.dry_run:
        from . import dryrun
        return dryrun.main(args)
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
        secrets = bench.secrets if bench else (
            [args.attach.password] if args.attach and args.attach.password else [])
        print(f"purgebench: {redact(str(e), secrets, command=False)}", file=sys.stderr)
        if bench is None:
            return 1
        rc = 1
        why = redact(str(e), secrets, command=False)
        bench.stopped = why.splitlines()[0] if why.strip() else type(e).__name__
    finally:
        if bench:
            with shielded():
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
