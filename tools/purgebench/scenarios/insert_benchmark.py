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

from .. import insertbench
from .base import Scenario, throttle_arms


def ib_plan(args):
    """insert-benchmark's steps (insertbench.plan_steps()) for the options:
    --rows the table's rows, --time each query step's seconds, --threads
    the writers (and as many readers), --full the larger sizes. ValueError
    for a plan whose writers would run out of rows to delete."""
    return insertbench.plan_steps(args.full, writers=args.threads or insertbench.DEFAULT_WRITERS,
                                  table_rows=args.rows, query_seconds=args.time)


class InsertBenchmark(Scenario):
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
    throttles = True
    steps = True
    headline_order = 3

    def arms(self, lag, wanted, fork, no_throttle):
        return throttle_arms(lag, wanted, fork)

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
        steps = job["steps"]
        lags = bench.args.lags or self.pick("lags", bench.full)
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


def ib_tables(runs):
    """insert-benchmark's tables: per step and arm, and each arm over
    the first arm (the first server's unthrottled); with several servers,
    also each arm over the first server's arm of the same name
    (insertbench.server_pairs(), as the headline pairs them)."""
    return insertbench.relative_table(insertbench.rows_by_arm(runs),
                                      pairs=insertbench.server_pairs(runs))


SCENARIO = InsertBenchmark()
