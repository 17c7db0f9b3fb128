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

"""purge-capacity: oltp_write_only at increasing --rate, then unpaced,
without throttle: the highest rate that purge keeps up with (judged by
what it has not parsed, else by the history)."""

from .. import sysbench
from ..cells import fmt, mmm
from ..plan import Arm, arm_of
from .base import ArmTable, Sysbench, med

# the fork's count of committed transactions that purge has not parsed yet
UNPARSED = "innodb_purge_unparsed_trx"


class PurgeCapacity(Sysbench, ArmTable):
    name = "purge-capacity"
    scale = dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                 threads=(16, 64), time=(20, 60),
                 rates=((500, 1000, 2000, 4000, 8000), (500, 1000, 2000, 4000, 8000, 16000)))
    options = ("--threads", "--tables", "--rows", "--rates", "--workload")
    steps = True
    dry_run_note = ("every rate listed; a server stops at the first rate its purge does not "
                    "keep up with")

    def run(self, bench, job):
        threads = self.threads(bench)
        going = list(bench.targets)      # servers whose purge kept up so far
        # last, unpaced: whether purge keeps up with all the load can give
        for rate in list(bench.args.rates or self.pick("rates", bench.full)) + [None]:
            step = Arm("rate").at(rate or "max")
            for t, arm, st in bench.plan(self.name, fixed=[(step, {"innodb_max_purge_lag": 0})],
                                         targets=going):
                res = self.run_one(bench, job, t, arm, st, threads, 1, rate=rate,
                                   extra={"target_rate": rate},
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

    def share(self, ctx):
        """What purge sustained on each server (sustained_by_purge()), for
        backlog-vs-lag's column and its own last table."""
        for t in ctx.targets:
            v = sustained_by_purge([r for r in ctx.of(self.name) if t.owns(arm_of(r))])
            if v:
                ctx.sustained[t] = v

    def row(self, ctx, arm, rs, base):
        unparsed = [s.get(UNPARSED) for s in rs[0]["samples"] if s.get(UNPARSED) is not None]
        return [str(arm), mmm(med(rs, "tps")), fmt(rs[0].get("history_max")),
                fmt(max(unparsed, default=None)), fmt(rs[0].get("history_last")),
                "- (rate not reached by the client)" if rs[0].get("client_short")
                else ("yes" if rs[0].get("bounded") else "no")
                + (" (history)" if rs[0].get("bounded_by") != UNPARSED else "")]

    def header(self, ctx):
        return ["target rate", "tps", "history max", "unparsed max", "history at end",
                "purge keeps up"]

    def extra_tables(self, ctx):
        return [(f"{self.name}: what purge sustained", ["server", "tps", "bound by"],
                 [[t.label, fmt(v[0]),
                   "the load: purge kept up with all of it (unpaced)" if v[1]
                   else "purge: it fell behind at the next rate"]
                  for t, v in ctx.sustained.items()])]


def lag_measure(res):
    """The status variable that shows how far purge is behind in a run: the
    committed transactions that it has not parsed yet (the fork's
    Innodb_purge_unparsed_trx), else the history length.  The history also
    counts the undo logs that purge has processed and that undo log
    truncation has not freed yet; at 256 threads that was most of it
    (docs/results/cpuload-256), a lag of truncation, not of purge."""
    samples = res["samples"]
    if samples and all(s.get(UNPARSED) is not None for s in samples):
        return UNPARSED
    return "innodb_history_list_length"


def purge_keeps_up(res, key=None):
    """A write rate is sustainable when purge's lag (key, by default
    lag_measure()) did not keep growing: its last third averages no more
    than twice its first third, or less than two seconds of commits (the
    coordinator of 10.11.18 may sleep a second between batches, so a
    saw-tooth of that height is no backlog)."""
    key = key or lag_measure(res)
    h = [s.get(key) or 0 for s in res["samples"]]
    if len(h) < 6:
        return None
    third = len(h) // 3
    first, last = sum(h[:third]) / third, sum(h[-third:]) / third
    pace = res.get("rate") or res.get("tps") or 0
    return last < max(1000, 2 * pace) or last <= 2 * max(first, 1)


def sustained_by_purge(runs):
    """What purge sustained on one server, from its purge-capacity runs:
    (tps, whether the load bound it).  When purge kept up with the unpaced
    run, that is all the load could give, and its tps; else the highest tps
    of a paced run that purge kept up with.  None when it kept up with none."""
    kept = [r for r in runs if r.get("bounded") and r.get("tps")]
    unpaced = [r for r in kept if r.get("rate") is None]
    if unpaced:
        return unpaced[-1]["tps"], True
    return (max(r["tps"] for r in kept), False) if kept else None


SCENARIO = PurgeCapacity()
