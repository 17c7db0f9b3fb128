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

"""thread-sweep (MDEV-16168): oltp_update_non_index over 1..4096 threads,
two builds or settings: tps and latency per thread count and arm."""

import os

from .. import stats
from ..cells import fmt, paired_ratio, short
from ..plan import DEFAULT_SWITCH, arm_of, sweep_arms, sweep_plan
from .base import Sysbench


class ThreadSweep(Sysbench):
    name = "thread-sweep"
    scale = dict(test="oltp_update_non_index", tables=(1, 1), rows=(100000, 1000000),
                 threads=((1, 4, 16, 64, 256, 1024), (1, 4, 16, 64, 256, 1024, 4096)),
                 time=(20, 60))
    options = ("--tables", "--rows", "--workload")
    own_options = ("--sweep-threads", "--switch")
    ignores = {"--threads": "its thread counts are --sweep-threads'"}
    steps = True
    headline_order = 5

    def arms_on(self, bench, t, lag=None):
        """One arm per value of --switch, or the default switch, or each
        server as it is (plan.sweep_arms())."""
        return sweep_arms(bench.args.switch, len(bench.targets) > 1,
                          bench.has_var(t, DEFAULT_SWITCH[0]))

    def most_threads(self, args, full):
        return max(list(args.sweep_threads or []) + list(self.pick("threads", full)))

    def run(self, bench, job):
        points = bench.args.sweep_threads or self.pick("threads", bench.full)
        for threads, r, t, arm, st in sweep_plan(points, bench.plan(self.name), job["repeats"]):
            self.run_one(bench, job, t, arm.at(threads), st, threads, r)

    def tables(self, ctx):
        return [sweep_table(ctx.of(self.name))]

    def plots(self, plt, outdir, runs):
        return [sweep_plot(plt, outdir, runs)]

    def headline(self, runs):
        if not runs:
            return []
        _, header, rows = sweep_table(runs)
        rel = [h for h in header if h.endswith(" tps") and " / " in h]
        if not rel:
            return []
        i = header.index(rel[0])
        cells = ", ".join(f"{row[0]}: {row[i]}" for row in rows)
        return [("thread-sweep", [f"{rel[0]} by threads: {cells}."])]


def sweep_table(runs):
    """thread-sweep's table: a row per thread count; per arm its tps
    (median (min..max) of the repeats), latency p95 and redo bytes per
    transaction (medians); per arm after the
    first, its tps over the first arm's, paired by repeat (paired_ratio)."""
    arms, by = [], {}
    for r in runs:
        arm = arm_of(r)
        base = str(arm.replace(step=None))
        if base not in arms:
            arms.append(base)
        by.setdefault((base, int(arm.step)), []).append(r)
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


def sweep_plot(plt, outdir, runs):
    """thread-sweep.png: tps and latency p95 against threads (log2 axis, as
    the seed's), a line per arm through the medians of its repeats."""
    by = {}
    for r in runs:
        arm = arm_of(r)
        by.setdefault(str(arm.replace(step=None)), {}).setdefault(int(arm.step), []).append(r)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for arm, points in by.items():
        xs = sorted(points)
        ax1.plot(xs, [stats.summary([r.get("tps") for r in points[x]])["median"] for x in xs],
                 "o-", label=arm)
        ax2.plot(xs, [stats.summary([r.get("lat_p95_ms") for r in points[x]])["median"]
                      for x in xs], "o-", label=arm)
    ax1.set_xscale("log", base=2)
    points = sorted({x for p in by.values() for x in p})
    ax2.set_xticks(points)
    ax2.set_xticklabels([str(x) for x in points])
    ax2.minorticks_off()
    ax1.set_ylabel("tps (median of repeats)")
    ax2.set_ylabel("latency p95 (ms)")
    ax2.set_yscale("log")
    ax2.set_xlabel("threads")
    ax1.legend(fontsize=8)
    ax1.set_title("thread-sweep")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "thread-sweep.png"), dpi=80)
    plt.close(fig)
    return "thread-sweep.png"


SCENARIO = ThreadSweep()
