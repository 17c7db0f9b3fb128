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

"""history-growth: oltp_read_write at a few threads, without throttle and
with the adaptive throttle at 1000: how the history grows."""

from ..plan import Arm
from .base import HistoryTable, Sysbench


class HistoryGrowth(Sysbench, HistoryTable):
    name = "history-growth"
    scale = dict(test="oltp_read_write", tables=(4, 4), rows=(20000, 100000),
                 threads=(4, 4), time=(40, 300))
    options = ("--tables", "--rows", "--arms", "--workload")
    throttles = True

    def arms(self, lag, wanted, fork, no_throttle):
        arms = super().arms(lag, wanted, fork, no_throttle)     # unthrottled
        if fork and "adaptive" in wanted:
            arms.append((Arm("adaptive", 1000), {"innodb_max_purge_lag": 1000,
                                                 "innodb_purge_throttle": "adaptive"}))
        return arms

    def run(self, bench, job):
        threads = self.pick("threads", bench.full)
        for r in range(1, job["repeats"] + 1):
            for t, arm, st in self.own_runs(bench, r):      # interleaved arms
                self.run_one(bench, job, t, arm, st, threads, r)

    def bases(self, ctx, arms):
        """Each arm over its server's first arm."""
        base = {}
        for t in ctx.targets:
            mine = [arm for arm in arms if t.owns(arm)]
            for arm in mine:
                base[arm] = ctx.by[(self.name, mine[0])]
        return base


SCENARIO = HistoryGrowth()
