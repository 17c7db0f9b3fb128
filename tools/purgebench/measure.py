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

"""One measured run of the harness (Runner, a part of bench.Bench): the
settings of its arm, the client (sysbench, or another such as go-tpc), the
sampler beside it, the slow shutdown after it or, on a server the harness
did not start, the sampled drain; a run that fails is filed and the next
goes on."""

import os
import re
import time

from . import client, cpuload, gotpc, insertbench, progress, sampler, stats, sysbench
from .scenarios import SCALE, sb_options_for
from .server import ServerError, redact
from .tables import DRAIN, drain_cell, fmt


class Runner:
    """run_arm(), measure() and drain(): a part of bench.Bench (its use(),
    has_var(), step(), log(), pick(), args)."""

    def wait_for_purge(self, srv):
        """SET GLOBAL innodb_max_purge_lag_wait=0: until purge has caught up."""
        def history():
            h = srv.status(["Innodb_history_list_length"]).get("innodb_history_list_length")
            return None if h is None else f"history {int(h):,}"
        with self.step("waiting for purge to catch up", history):
            srv.query("SET GLOBAL innodb_max_purge_lag_wait=0", timeout=600)

    def workload(self, scenario):
        """What sysbench runs in a scenario: --workload, or its own."""
        return self.args.workload or SCALE[scenario]["test"]

    def sb_for(self, test):
        """The --sb-option options a script gets: a scenario's own script
        (the Insert Benchmark's) its own (ib_*), any other script the others
        (scenarios.sb_options_for())."""
        return sb_options_for(test, self.sb_extra)

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
                client_short=None, beside=None):
        """One measured run. beside: what a scenario runs beside the load
        (snapshot.View, snapshot-release's read view): its start(server,
        t0) returns a thread, started with the load, whose release() comes
        when the load ends and close() after it, and whose error, if any, is
        logged; its results(result, settings, extra) go into the result.
        client: None for sysbench on the sbtest tables
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
                if holder:      # e.g. snapshot-release's stop form: the view goes
                    holder.release()    # with the load
                smp.stop(final=True)
                cpu[1] = server_cpu(srv)
                srv.signal_shutdown()
            load_start = time.time() - smp.t0
            run = start(on_interval=on_interval, on_exit=on_exit)
            if beside:
                holder = beside.start(srv, smp.t0)
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
                end_epoch = time.time()
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
                      # the run's clock (t = 0 of its samples) and the load's
                      # end, as epoch seconds (to line up with PMM or Grafana)
                      start_epoch=round(smp.t0, 3), end_epoch=round(end_epoch, 3),
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
            result["load_start_t"] = round(load_start, 2)
            result.update(beside.results(result, settings, extra))
            if holder.error:
                self.log(f"  {scenario} {arm} #{repeat}: {beside.what}: {holder.error}")
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
