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

"""The interface every scenario implements, in the shape of go-tpc's
Workloader (pkg/workload: Name, Prepare, Run, Cleanup, Check); the two
places that build a repeat's run list, rotated per repeat (own_runs(): a
scenario's own arms; lag_runs(): unthrottled plus each lag); and what
several scenarios share: Sysbench (a sysbench client: prepare(),
run_one()), Throttled (the throttles at each target: arms(), lags(), the
sentences), ArmTable and HistoryTable (a table with a row per arm).

A scenario is a module of this package holding one Scenario: its name, its
scale (the small default and --full), the command-line options it uses, its
arms, its run loop, its tables and plots, and whatever else the core asks
of it rather than knowing it (what compare compares, the options only it
takes, its script's own options). The harness's core (bench.Bench) is
passed to each method as `bench`: it starts the servers (start_all(),
use()), plans the runs over them (plan(), interleaved), makes one measured
run (run_arm()) and logs (log()); a scenario never imports it."""

from .. import plots, setpoint, stats, workloads
from ..cells import (DRAIN, DRAIN_HEADER, LATENCY_HEADER, backlog_cell, latency_cell, mmm,
                     paired_ratio, relative_header, target_sentences)
from ..plan import Arm, arm_of, rotate


# what `purgebench compare` compares of a scenario's runs (Scenario.measures):
# (run key, column title, less is better, decimals), in the order of its table
THROUGHPUT = (("tps", "tps", False, 0), ("qps", "qps", False, 0))
COSTS = (("lat_p95_ms", "latency p95 ms", True, 1), ("lat_p99_ms", "latency p99 ms", True, 1),
         ("history_p95", "history p95", True, 0), ("history_max", "history max", True, 0),
         ("backlog", "to purge at slow shutdown", True, 0))
REDO_PER_TRX = (("redo_bytes_per_trx", "redo bytes/trx", True, 1),)


class Scenario:
    name = ""
    scale = {}          # key: (default, --full)
    options = ()        # the command line's scenario options it uses ("--threads", ...)
    own_options = ()    # options that only it takes: given without it, an error
    ignores = {}        # option: what it does instead (the note of --check-args)
    tcp = False         # its client connects over TCP (go-tpc)
    throttles = False   # runs the throttles' arms (a stock server lacks some)
    steps = False       # each arm runs at several steps, named ARM@STEP
    own_script = False  # its script takes --sb-options of its own (owns_sb_option())
    headline_order = None   # its place among the summary's opening sentences
    key = "tps"         # the run's key of the throughput its answer is given in
    measures = THROUGHPUT + COSTS + REDO_PER_TRX    # what compare compares
    dry_run_note = None     # what --dry-run says of its plan beside the runs

    # -- the Workloader interface ----------------------------------------
    def prepare(self, bench):
        """Start the servers and say what will run; returns the job that
        run() and cleanup() take."""
        bench.start_all()
        return {}

    def run(self, bench, job):
        """Every run of the scenario, in order."""
        raise NotImplementedError

    def cleanup(self, bench, job):
        """After the runs: nothing unless the scenario says so."""

    def check(self, bench, t, result):
        """A run's consistency check (go-tpc's): a dict added to its result,
        or None when the scenario has none."""
        return None

    # -- its options ------------------------------------------------------
    def check_options(self, args):
        """What in the parsed options it cannot run with (a message naming
        the fix), before anything is set up; None when it can."""
        return None

    def refuse_sb_option(self, key):
        """Why --sb-option KEY=... may not be given (its script's option that
        the harness sets itself), or None."""
        return None

    def owns_sb_option(self, option):
        """Whether an --sb-option (--KEY=VALUE) is for its own script alone
        (own_script); the other scripts get those that no scenario owns."""
        return False

    def most_threads(self, args, full):
        """The most client threads it runs beyond --threads (each server's
        max_connections is sized for the largest of a run)."""
        return 0

    # -- its plan ---------------------------------------------------------
    def pick(self, key, full):
        v = self.scale[key]
        return v[1] if full else v[0]

    def arms_on(self, bench, t, lag=None):
        """[(Arm, SET GLOBAL settings)] on the server of t (bench.arms_for())."""
        return self.arms(lag, bench.args.arms, bench.has_var(t, "innodb_purge_throttle"),
                         bench.no_throttle(t))

    def arms(self, lag, wanted, fork, no_throttle):
        """[(Arm, SET GLOBAL settings)] on one server: wanted, the --arms;
        fork, whether the server has the fork's throttle variables;
        no_throttle, its settings of a run without throttle. By default
        the unthrottled arm alone."""
        return [(Arm("unthrottled"), no_throttle)]

    def threads(self, bench):
        """Its client threads: --threads, or its scale's."""
        return bench.args.threads or self.pick("threads", bench.full)

    def own_runs(self, bench, repeat):
        """A repeat's run list of a scenario whose arms are its own (not
        unthrottled plus each lag): arms_on() interleaved over the servers,
        rotated by one arm per repeat (plan.rotate())."""
        return rotate(bench.plan(self.name), repeat)

    def lag_runs(self, bench, lags, repeat, unthrottled_extra=None, forms=None):
        """The one place that builds a repeat's run list of the scenarios
        with targets: the unthrottled arm, then each throttle at each lag,
        interleaved over the servers, each a (target, arm, settings,
        extra) with extra {"lag": LAG} (the unthrottled arm's:
        unthrottled_extra), once per form when forms are given (extra's
        release_form), rotated by one arm per repeat (plan.rotate())."""
        runs = [(t, arm, st, unthrottled_extra) for t, arm, st in
                bench.plan(self.name, fixed=bench.unthrottled)]
        for lag in lags:
            runs += [(t, arm, st, {"lag": lag}) for t, arm, st in bench.plan(self.name, lag)]
        if forms:
            runs = [(t, arm, st, dict(extra, release_form=form))
                    for t, arm, st, extra in runs for form in forms]
        return rotate(runs, repeat)

    # -- its report -------------------------------------------------------
    def share(self, ctx):
        """What its runs tell the tables of the others (set on ctx, a
        TableContext), before any table is drawn."""

    def tables(self, ctx):
        """[(title, header, rows)] of its runs (ctx: TableContext)."""
        return []

    def headline(self, runs):
        """[(title, [sentence])]: its part of the summary's opening."""
        return []

    def plots(self, plt, outdir, runs):
        """Its PNG plots of its runs (plt: matplotlib.pyplot), their names:
        the history, tps and latency over time, and per arm with a target
        the set-point tracking (setpoint.plot())."""
        made = [plots.history_tps(plt, outdir, self.name, runs, self.plot_label,
                                  self.plot_marks)]
        tracked = setpoint.plot(plt, outdir, self.name, runs)
        return made + ([tracked] if tracked else [])

    def plot_label(self, run, style):
        """A run's label on the history plot (it may change the run's style)."""
        return plots.default_label(run, style)

    plot_marks = None   # (axes, runs): more on the history plot's panels

    # -- compare (purgebench compare) -------------------------------------
    def value(self, run, key):
        """A run's measure (a key of measures)."""
        return run.get(key)

    def throughput(self, runs):
        """The measure its answer is given in, for these runs."""
        return self.key

    def unit(self, key):
        """A measure's name in a sentence: its column title."""
        return next((m[1] for m in self.measures if m[0] == key), key)


class TableContext:
    """What a scenario's tables are drawn from: all the runs, the servers
    (the first the reference), the runs by (scenario, Arm), and what a
    scenario's share() set for the others: what purge sustained per server
    (purge-capacity, when it ran)."""

    def __init__(self, runs, targets, sustained=None):
        self.runs = runs
        self.targets = targets
        self.sustained = sustained or {}    # set by purge-capacity's share()
        self.by = {}
        for r in runs:
            self.by.setdefault((r["scenario"], arm_of(r)), []).append(r)

    def of(self, scenario):
        return [r for r in self.runs if r["scenario"] == scenario]

    def arms(self, scenario):
        return [k[1] for k in self.by if k[0] == scenario]

    def server_of(self, arm):
        return next(t for t in self.targets if t.owns(arm))


def med(rs, k):
    return stats.summary([x.get(k) for x in rs])


class ArmTable(Scenario):
    """A scenario whose table has a row per arm (sysbench's scenarios but
    thread-sweep): row() and header() are its own; with several servers a
    last column holds each arm over the first server's, paired by repeat
    (of its key, the throughput compared)."""

    def bases(self, ctx, arms):
        """Each arm's reference runs (its relative column), on its server."""
        return {}

    def row(self, ctx, arm, rs, base):
        raise NotImplementedError

    def header(self, ctx):
        raise NotImplementedError

    def extra_tables(self, ctx):
        return []

    def tables(self, ctx):
        sc, targets = self.name, ctx.targets
        a = targets[0]
        arms = ctx.arms(sc)
        base = self.bases(ctx, arms)
        rows = []
        for arm in arms:
            t = ctx.server_of(arm)
            rs = ctx.by[(sc, arm)]
            row = self.row(ctx, arm, rs, base)
            if len(targets) > 1:    # over A, same arm, repeat by repeat; blank on A's rows
                row.append("" if t is a else paired_ratio(rs, ctx.by.get((sc, a.arm(arm))),
                                                          self.key))
            rows.append(row)
        header = self.header(ctx)
        if len(targets) > 1:
            header.append(relative_header(self.key, targets))
        return [(sc, header, rows)] + self.extra_tables(ctx)


class HistoryTable(ArmTable):
    """history-growth's and backlog-vs-lag's table: throughput, latency, the
    history and the backlog per arm, and the arm's throughput over its
    reference (relative_name)."""
    relative_name = "tps / first arm"

    def row(self, ctx, arm, rs, base):
        return [str(arm), mmm(med(rs, "tps")), mmm(med(rs, "qps")), latency_cell(rs),
                mmm(med(rs, "history_p95")), mmm(med(rs, "history_p95_late")),
                mmm(med(rs, "history_max")), backlog_cell(rs, mmm, med),
                paired_ratio(rs, base.get(arm), self.key)]

    def header(self, ctx):
        drained = any(r.get("backlog_measure") == DRAIN for r in ctx.of(self.name))
        return ["arm", "tps", "qps", LATENCY_HEADER, "history p95", "history p95, 2nd half",
                "history max", DRAIN_HEADER if drained else "to purge at slow shutdown",
                self.relative_name]


def throttle_arms(lag, wanted, fork):
    """The arms of the scenarios with targets at one lag: formula (coupled),
    uncoupled and adaptive as --arms asks; a stock server runs formula only,
    with the lag alone."""
    base = {"innodb_max_purge_lag": lag, "innodb_max_purge_lag_delay": 5000}
    if not fork:
        return [(Arm("formula", lag), base)] if "formula" in wanted else []
    modes = {"formula": dict(innodb_purge_throttle="formula",
                             innodb_purge_coupled_throttle="ON"),
             "uncoupled": dict(innodb_purge_throttle="formula",
                               innodb_purge_coupled_throttle="OFF"),
             "adaptive": dict(innodb_purge_throttle="adaptive")}
    return [(Arm(m, lag), dict(base, **st)) for m, st in modes.items() if m in wanted]


class Sysbench(Scenario):
    """A scenario whose client is sysbench on the sbtest tables: prepare()
    starts the servers and says what it runs, its job (its script,
    --workload or its own; tables, rows, seconds, repeats); run_one() makes
    one run of that job."""

    def prepare(self, bench):
        a = bench.args
        job = dict(test=bench.workload(self.name),
                   tables=a.tables or self.pick("tables", bench.full),
                   rows=a.rows or self.pick("rows", bench.full),
                   seconds=a.time or self.pick("time", bench.full), repeats=a.repeats)
        bench.start_all()
        bench.log(f"== {self.name}: {workloads.label(job['test'])}"
                  + (f" {' '.join(bench.sb_extra)}" if bench.sb_extra else "")
                  + f", {job['tables']} x {job['rows']} rows, {job['seconds']}s, "
                  f"{job['repeats']} repeat(s)")
        return job

    def run_one(self, bench, job, t, arm, settings, threads, repeat, seconds=None, **kw):
        """One measured run of the job (bench.run_arm(); seconds: the job's
        unless given); its result, or None when it failed."""
        return bench.run_arm(t, self.name, arm, settings, job["test"], job["tables"],
                             job["rows"], threads, seconds or job["seconds"], repeat, **kw)


class Throttled(Scenario):
    """A scenario with targets: the unthrottled arm, then each throttle
    that --arms asks for at each lag (throttle_arms(), lag_runs())."""
    throttles = True

    def arms(self, lag, wanted, fork, no_throttle):
        return throttle_arms(lag, wanted, fork)

    def lags(self, bench):
        """Its targets: --lags, or its scale's."""
        return bench.args.lags or self.pick("lags", bench.full)

    def headline(self, runs):
        """Per target, a sentence per arm (cells.target_sentences())."""
        return target_sentences(self.name, self.key, runs, self.unit(self.key))
