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

"""insert-benchmark: Mark Callaghan's Insert Benchmark (insertbench.py: its
steps, commands, counters and tables; ib_step() in insertbench.Runs, a
part of bench.Bench). Each arm (unthrottled, each throttle at each
--lags target) runs every step in order on a table of its own."""

import os

from .. import insertbench
from ..plan import arm_of
from .base import COSTS, Throttled


def ib_plan(args):
    """insert-benchmark's steps (insertbench.plan_steps()) for the options:
    --rows the table's rows, --time each query step's seconds, --threads
    the writers (and as many readers), --full the larger sizes. ValueError
    for a plan whose writers would run out of rows to delete."""
    return insertbench.plan_steps(args.full, writers=args.threads or insertbench.DEFAULT_WRITERS,
                                  table_rows=args.rows, query_seconds=args.time)


class InsertBenchmark(Throttled):
    name = insertbench.SCENARIO
    # the Insert Benchmark's steps on one table (insertbench.plan_steps():
    # rows = the table's, l.i1 and l.i2 insert 40% and 10% of it; time = each
    # query step's; threads = writers, as many readers); unthrottled and each
    # throttle at these targets
    scale = dict(test=insertbench.LUA, tables=(1, 1),
                 rows=tuple(insertbench.SIZES[f]["table_rows"] for f in (False, True)),
                 threads=(insertbench.DEFAULT_WRITERS,) * 2,
                 time=tuple(insertbench.SIZES[f]["query_seconds"] for f in (False, True)),
                 lags=((10000,), (10000,)))
    options = ("--threads", "--rows", "--lags", "--arms")
    steps = True
    own_script = True   # the script's own options (ib_*) go to it alone
    headline_order = 3
    key = "inserts_per_s"
    measures = ((("inserts_per_s", "inserts/s", False, 0), ("queries_per_s", "queries/s", False, 0))
                + COSTS + (("redo_bytes_per_row", "redo bytes/row", True, 1),
                           ("cpu_us_per_op", "server CPU µs/op", True, 1)))

    def check_options(self, args):
        """A plan whose writers would run out of rows to delete (ib_plan())."""
        try:
            ib_plan(args)
        except ValueError as e:
            return f"{self.name}: {e}; raise --rows, or lower --time or --threads"
        return None

    def refuse_sb_option(self, key):
        if key in insertbench.SET_BY_HARNESS:
            return f"purgebench sets --{key} for each {self.name} step itself"
        return None

    def owns_sb_option(self, option):
        return insertbench.is_script_option(option)

    def prepare(self, bench):
        steps = ib_plan(bench.args)
        bench.start_all()
        first, lua = steps[0], insertbench.LUA
        bench.log(f"== {self.name}: 1 table of {first['table_rows']:,} rows, "
                  f"{first['writers']} writer(s), {steps[-1]['readers']} reader(s) in the "
                  f"query steps, {' '.join(s['name'] for s in steps)}, query steps "
                  f"{steps[-1]['seconds']}s"
                  + (f", {' '.join(bench.sb_for(lua))}" if bench.sb_for(lua) else "")
                  + f", {bench.args.repeats} repeat(s); about "
                  f"{insertbench.estimated_seconds(steps) / 60:.0f} min per arm (estimate)")
        return dict(steps=steps)

    def run(self, bench, job):
        """Each arm in turn (rotated per repeat as a whole) runs every step on
        a table of its own, prepared afresh; the steps of an arm share the
        table."""
        steps, lags = job["steps"], self.lags(bench)
        for r in range(1, bench.args.repeats + 1):
            # rotate whole arms: each arm runs all its steps in order
            for t, arm, st, extra in self.lag_runs(bench, lags, r):
                t.prepared = None       # a fresh table: drop sbtest and prepare again
                for i, step in enumerate(steps):
                    if bench.ib_step(t, arm, st, step, r, extra) is None:
                        # the later steps need this one's table: not run
                        left = [s["name"] for s in steps[i + 1:]]
                        if left:
                            bench.log(f"  {self.name} {t.arm(arm)} #{r}: not running "
                                      f"{' '.join(left)} (they follow a failed step)")
                        break

    def tables(self, ctx):
        return ib_tables(ctx.of(self.name))

    def headline(self, runs):
        return insertbench.headline(runs)

    def plots(self, plt, outdir, runs):
        return [ib_plot(plt, outdir, runs)]

    # -- compare: a step's measures are its "ib_row"'s ---------------------
    def value(self, run, key):
        """A step's measure from its "ib_row" (insertbench.step_row():
        inserts/s, queries/s, redo per row, CPU per operation); its sysbench
        tps and qps count the script's events, not the benchmark's rows or
        queries: None. A run without one (not a step), from the run."""
        row = run.get("ib_row")
        if row is not None:
            if key in ("tps", "qps", "redo_bytes_per_trx"):
                return None
            if key == "cpu_us_per_op":
                v = row.get("cpu_s_per_op")
                return None if v is None else v * 1e6
            if key in row:
                return row[key]
        return run.get(key)

    def throughput(self, runs):
        """queries/s where the steps are query steps, else inserts/s (what
        its own tables compare)."""
        if any(r.get("ib_row") for r in runs):
            return ("queries_per_s" if any(self.value(r, "queries_per_s") is not None
                                           for r in runs) else "inserts_per_s")
        return self.key


def ib_tables(runs):
    """insert-benchmark's tables: per step and arm, and each arm over
    the first arm (the first server's unthrottled); with several servers,
    also each arm over the first server's arm of the same name
    (insertbench.server_pairs(), as the headline pairs them)."""
    return insertbench.relative_table(insertbench.rows_by_arm(runs),
                                      pairs=insertbench.server_pairs(runs))


def ib_plot(plt, outdir, runs):
    """insert-benchmark.png: per arm (a row of two panels), the history
    length and the throughput per second (insertbench.throughput_series():
    rows inserted/s in l.i*, queries/s in q*) across all its steps one after
    the other, each step's seconds under load (not the restarts between
    them); dotted lines mark where a step begins, each repeat a line."""
    arms = {}
    for r in runs:
        arm = arm_of(r)
        arms.setdefault(str(arm.replace(step=None)), {}).setdefault(r["repeat"], []).append(
            (arm.step, r))
    fig, axes = plt.subplots(len(arms), 2, figsize=(14, 1 + 2.6 * len(arms)), squeeze=False,
                             sharey="col")
    for (arm, repeats), (ax_h, ax_t) in zip(arms.items(), axes):
        for repeat, steps in repeats.items():
            offset, hx, hy, tx, ty = 0.0, [], [], [], []
            for step, r in steps:
                samples = r.get("samples") or []
                hx += [offset + s["t"] for s in samples]
                hy += [s.get("innodb_history_list_length") for s in samples]
                # positive values only (a log scale); a gap between steps
                series = [(t, v) for t, v in insertbench.throughput_series(r) if v > 0]
                tx += [offset + t for t, _ in series] + [offset]
                ty += [v for _, v in series] + [float("nan")]
                hx.append(offset)
                hy.append(float("nan"))
                for ax in (ax_h, ax_t):
                    ax.axvline(offset, color="grey", linestyle=":", linewidth=0.8)
                if repeat == min(repeats):
                    ax_h.text(offset, 1.01, step, transform=ax_h.get_xaxis_transform(),
                              fontsize=7, rotation=45, ha="left", va="bottom")
                ends = [s["t"] for s in samples] + [iv["t"] for iv in r.get("intervals") or []]
                offset += max(ends + [1.0])
            ax_h.plot(hx, hy, label=f"#{repeat}", linewidth=1)
            ax_t.plot(tx, ty, label=f"#{repeat}", linewidth=1)
        lags = sorted({r.get("lag") for rs in repeats.values() for _, r in rs if r.get("lag")})
        for lag in lags:
            ax_h.axhline(lag, color="k", linestyle="--", linewidth=0.8)
        ax_h.set_ylabel(f"{arm}\nhistory length" + (" (dashed: target)" if lags else ""),
                        fontsize=8)
        ax_t.set_ylabel("inserts/s (l.i*), queries/s (q*)", fontsize=8)
        ax_t.set_yscale("log")
        if len(repeats) > 1:
            ax_h.legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("seconds under load, the steps one after the other")
    fig.suptitle("insert-benchmark")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "insert-benchmark.png"), dpi=80)
    plt.close(fig)
    return "insert-benchmark.png"


SCENARIO = InsertBenchmark()
