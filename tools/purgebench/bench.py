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
import re
import shlex
import shutil
import signal
import sys
import time

from . import client, cpuload, gotpc, insertbench, progress, report, sampler, snapshot, \
    stats, sysbench, workloads
from .environment import cnf_settings, flavour, machine, tree_commit
from .options import REPO, check_args, parse_args
from .plan import (Arm, Target, interleave, rotate, scenario_arms, sweep_arms, sweep_plan,
                   with_drains)
from .scenarios import (ARM_VARS, BASE_CNF, DEFAULT_SWITCH, RECORDED_VARS, SCALE,
                        TCP_SCENARIOS)
from .server import (AttachedServer, Installation, Server, ServerError, free_port, redact,
                     sql_literal, unknown_settings)
from .tables import (DRAIN, drain_cell, failed_lines, fmt, headline, lag_measure,
                     purge_keeps_up, summary_tables)

# The layout (docs/benchmarks.md, "The harness's layout"): scenarios.py
# (names, scale, settings), plan.py (servers, arms as plan.Arm, rotation),
# options.py (the command line), tables.py (the summary's tables and
# sentences), report.py and htmlreport.py (summary.md, report.json,
# report.html); snapshot.py, insertbench.py and gotpc.py hold those
# scenarios' own logic and runs (their Runs, a part of Bench); here the
# shared core: servers, one measured run (run_arm(), measure()), the
# sysbench scenarios, and main().


class Bench(gotpc.Runs, insertbench.Runs, snapshot.Runs):
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
        # what no log may show: the password of attach mode, exactly
        self.secrets = [self.attach.password] if self.attach and self.attach.password else []
        self.sb_extra = list(args.sb_option)
        if self.attach:
            self.log(ATTACH_WARNING)
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
            # as it is: NULL as None, a ';' or a quote kept; its type says
            # whether SET GLOBAL takes it quoted
            rows = t.server.query(f"SELECT @@GLOBAL.{name}", raw=True)
            value = rows[0][0] if rows else None
            kinds = t.server.query("SELECT VARIABLE_TYPE FROM information_schema."
                                   f"SYSTEM_VARIABLES WHERE VARIABLE_NAME='{name.upper()}'")
            self.saved_globals[name] = literal = sql_literal(
                value, kinds[0][0] if kinds and kinds[0] else None)
            lines.append(f"SET GLOBAL {name}={literal};")
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
            for name, literal in getattr(self, "saved_globals", {}).items():
                try:
                    t.server.query(f"SET GLOBAL {name}={literal}", split=False)
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
                if e.code != 1193 and "ERROR 1193 " not in str(e):  # ER_UNKNOWN_SYSTEM_VARIABLE
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
        self.commands.append(redact(" ".join(cmd), self.secrets))
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
        why = redact(str(error).strip(), self.secrets, command=False)
        self.failures.append(dict(scenario=scenario, arm=str(arm), repeat=repeat,
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
        arm = t.arm(arm)         # its name in the results: str(arm)
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
                             + redact(" ".join(cmd), self.secrets))
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
        drained, shut = {}, {}
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
            # the server's own account of it: the history it began with, its
            # log's clock (a check on took) and where its redo log ended
            logged = srv.shutdown_log()
            backlog = logged["to_purge"]
            shut = dict(shutdown_log_s=logged["log_s"], shutdown_lsn=logged["lsn"])
        hist = [s.get("innodb_history_list_length") for s in samples]
        trx = (s1["trx_id_counter"] - s0["trx_id_counter"]) / 2 \
            if s1.get("trx_id_counter") and s0.get("trx_id_counter") else None
        # the LSN when the load stopped (a run may be shorter than a sample)
        lsn = (s0.get("innodb_lsn_current"), (smp.final or s1).get("innodb_lsn_current"))
        if shut.get("shutdown_lsn") is not None and lsn[1] is not None:
            # the redo the slow shutdown wrote: purge's work and undo truncation
            shut["shutdown_redo_bytes"] = shut["shutdown_lsn"] - lsn[1]
        result = dict(scenario=scenario, arm=str(arm), repeat=repeat, threads=threads,
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
                      # the history when the load ended, the instant before the
                      # slow shutdown (or the drain) began
                      **stats.end_composition(smp.final or s1),
                      **stats.truncation_figures(samples),
                      **drained, **shut,
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
                    f"backlog {fmt(backlog)}"
                    + (f", unparsed at the load's end {fmt(result['end_unparsed'])}"
                       if result.get("end_unparsed") is not None else "")
                    + f" (slow shutdown {took:.1f}s)"))
        return result

    def keep_output(self, scenario, arm, repeat, lines):
        """The client's output of a run, as it printed it, under
        client-output/ (what the tables were parsed from)."""
        d = os.path.join(self.outdir, "client-output")
        os.makedirs(d, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.@=+-]", "_", f"{scenario}-{arm}-{repeat}.txt")
        with open(os.path.join(d, name), "w") as f:
            f.write(redact("".join(lines), self.secrets, command=False))

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
        return [(Arm("unthrottled"), self.no_throttle(t))]

    def arms_for(self, t, scenario, lag=None):
        """[(Arm, SET GLOBAL settings)] for the server of t."""
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
        if scenario == "thread-sweep":
            return sweep_arms(self.args.switch, len(self.targets) > 1,
                              self.has_var(t, DEFAULT_SWITCH[0]))
        return scenario_arms(scenario, lag, a.arms, fork, self.no_throttle(t))

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
                        self.run_arm(t, name, arm.at(threads), st, test, tables, rows,
                                     threads, seconds, r)
        elif name == "thread-sweep":
            points = self.args.sweep_threads or self.pick(name, "threads")
            for threads, r, t, arm, st in sweep_plan(points, self.plan(name), repeats):
                self.run_arm(t, name, arm.at(threads), st, test, tables, rows, threads,
                             seconds, r)
        elif name == snapshot.SCENARIO:
            self.snapshot_release(name, test, tables, rows, seconds, repeats)
        elif name == "purge-capacity":
            threads = self.args.threads or self.pick(name, "threads")
            going = list(self.targets)      # servers whose purge kept up so far
            # last, unpaced: whether purge keeps up with all the load can give
            for rate in list(self.args.rates or self.pick(name, "rates")) + [None]:
                step = Arm("rate").at(rate or "max")
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


# what a failed run raises; run_arm() files it and goes on
RUN_ERRORS = (ServerError, sysbench.SysbenchError, gotpc.GoTpcError, sampler.SamplerError)
MAX_FAILED_IN_A_ROW = 3


class GiveUp(Exception):
    """Runs keep failing: stop the invocation, keep what was measured."""


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


# what the first line of progress.log says in attach mode
ATTACH_WARNING = (
    "purgebench: attach mode: the throttle's settings are global: while an arm runs, "
    "every other client of this server is throttled as the benchmark's are, and during "
    "snapshot-release's held read view purge stalls for everyone; the settings are "
    "restored at the end (restore-globals.sql)")
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
