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

"""backlog-vs-lag: 256 writers outrun purge; unthrottled against each
throttle at each --lags target: the history against the target and the
throughput it costs."""

from .. import plots, stats
from ..cells import held_table
from ..plan import arm_of
from .base import HistoryTable, Sysbench, Throttled


class BacklogVsLag(Throttled, Sysbench, HistoryTable):
    name = "backlog-vs-lag"
    # 256 writers outrun purge here: the unthrottled history passes the
    # 10k target, so that the throttles have something to do
    scale = dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                 threads=(256, 256), time=(60, 120),
                 lags=((10000,), (10000, 100000, 500000)))
    options = ("--threads", "--tables", "--rows", "--lags", "--arms", "--workload")
    key = "qps"
    relative_name = "qps / unthrottled"
    headline_order = 0

    def run(self, bench, job):
        threads, lags = self.threads(bench), self.lags(bench)
        for r in range(1, job["repeats"] + 1):
            for t, arm, st, extra in self.lag_runs(bench, lags, r):
                self.run_one(bench, job, t, arm, st, threads, r, extra=extra)

    def bases(self, ctx, arms):
        """Each arm over the unthrottled arm of its server."""
        return {arm: ctx.by.get((self.name, arm.unthrottled()), []) for arm in arms}

    def row(self, ctx, arm, rs, base):
        row = super().row(ctx, arm, rs, base)
        if ctx.sustained:       # purge-capacity ran too: tps over what purge sustained
            mine = ctx.sustained.get(ctx.server_of(arm))
            tps = stats.summary([x.get("tps") for x in rs])["median"]
            row.append(mine and stats.rel_cell(stats.ratio(tps, mine[0])) or "")
        return row

    def header(self, ctx):
        return super().header(ctx) + (["tps / sustained by purge"] if ctx.sustained else [])

    def extra_tables(self, ctx):
        return held_table(self.name, ctx.of(self.name))

    def plots(self, plt, outdir, runs):
        """Its history plots, and backlog-vs-lag.png: per throttle, what the
        slow shutdown had to purge against the lag."""
        arms = {}
        for r in runs:
            if r.get("lag"):
                arms.setdefault(str(arm_of(r).replace(lag=None)), []).append(
                    (r["lag"], r["backlog"]))
        lags = sorted({r["lag"] for r in runs if r.get("lag")})
        return super().plots(plt, outdir, runs) + [plots.arm_lines(
            plt, outdir, "backlog-vs-lag.png", arms, "innodb_max_purge_lag",
            "to purge at slow shutdown", xscale=("log", {}), yscale=("symlog", {}),
            extra=lambda ax: ax.plot(lags, lags, "k--", label="backlog = lag"))]


SCENARIO = BacklogVsLag()
