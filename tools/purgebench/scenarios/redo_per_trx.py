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

"""redo-per-trx: redo bytes per transaction at a few thread counts, the
compact against the generic undo-page-init record."""

from .. import plots, stats
from ..cells import mmm
from ..plan import Arm, arm_of
from .base import ArmTable, Sysbench, med


class RedoPerTrx(Sysbench, ArmTable):
    name = "redo-per-trx"
    scale = dict(test="oltp_update_non_index", tables=(1, 1), rows=(10000, 1000000),
                 threads=((1, 4, 16), (1, 2, 4, 8, 16, 32, 64)), time=(10, 60))
    options = ("--tables", "--rows", "--workload")
    steps = True

    def arms(self, lag, wanted, fork, no_throttle):
        if fork:
            return [(Arm("compact"), {"innodb_undo_log_compact_init": "ON"}),
                    (Arm("generic"), {"innodb_undo_log_compact_init": "OFF"})]
        return [(Arm("stock"), {})]

    def run(self, bench, job):
        for threads in self.pick("threads", bench.full):
            for r in range(1, job["repeats"] + 1):
                for t, arm, st in self.own_runs(bench, r):
                    self.run_one(bench, job, t, arm.at(threads), st, threads, r)

    def row(self, ctx, arm, rs, base):
        # its own server's compact arm, else A's (stock has none)
        at = arm.replace(name="compact")
        partner = (ctx.by.get((self.name, at)) or ctx.by.get((self.name, ctx.targets[0].arm(at)))
                   or rs)
        ratio = stats.ratio(med(rs, "redo_bytes_per_trx")["median"],
                            med(partner, "redo_bytes_per_trx")["median"])
        return [str(arm), mmm(med(rs, "tps")), mmm(med(rs, "redo_bytes_per_trx"), 1),
                stats.rel_cell(ratio)]

    def header(self, ctx):
        return ["arm@threads", "tps", "redo bytes/trx", "bytes/trx vs compact"]


    def plots(self, plt, outdir, runs):
        """Its history plots, and redo-per-trx.png: redo bytes per
        transaction against threads, a line per arm."""
        arms = {}
        for r in runs:
            arms.setdefault(str(arm_of(r).replace(step=None)), []).append(
                (r["threads"], r["redo_bytes_per_trx"]))
        return super().plots(plt, outdir, runs) + [plots.arm_lines(
            plt, outdir, "redo-per-trx.png", arms, "threads", "redo bytes per transaction",
            xscale=("log", {"base": 2}), legend_size=None)]


SCENARIO = RedoPerTrx()
