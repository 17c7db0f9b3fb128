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

"""tpcc and ch: TPC-C and the CH-benCHmark through go-tpc. The data is
loaded once per server and every run starts from a copy of it
(gotpc.Runs, a part of bench.Bench); unthrottled against each throttle at
each --lags target; go-tpc's consistency check after every run."""

from .. import gotpc, stats
from ..cells import fmt, held_table, paired_ratio, spread
from ..plan import arm_of
from .base import COSTS, REDO_PER_TRX, THROUGHPUT, Throttled


class Tpcc(Throttled):
    name = "tpcc"
    # the seed's 500k lag needs --full's hours (not reachable here,
    # docs/RESULTS.md)
    scale = dict(test="go-tpc tpcc", warehouses=(2, 10), threads=(32, 64), time=(90, 1800),
                 lags=((10000,), (500000,)))
    options = ("--threads", "--lags", "--arms", "--warehouses", "--check-time")
    ignores = {"--rows": "its data is --warehouses'"}
    tcp = True
    key = "tpmc"
    analytical = False  # analytical query threads beside TPC-C's (ch)
    measures = THROUGHPUT + (("tpmc", "tpmC", False, 0),) + COSTS + REDO_PER_TRX
    headline_order = 1

    def prepare(self, bench):
        a = bench.args
        seconds = a.time or self.pick("time", bench.full)
        bench.start_all()
        bench.log(f"== {self.name}: go-tpc {self.name}, {seconds}s, {a.repeats} repeat(s)")
        binary = gotpc.require()
        bench.meta["go-tpc"] = binary
        job = dict(binary=binary, seconds=seconds,
                   warehouses=a.warehouses or self.pick("warehouses", bench.full),
                   threads=self.threads(bench), ac=self.ac_threads(bench),
                   lags=self.lags(bench))
        bench.log(f"   {job['warehouses']} warehouse(s), {job['threads']} threads"
                  + (f", {job['ac']} analytical" if job["ac"] else "") + f", check bounded by "
                  f"{a.check_time}s")
        for t in bench.targets:
            bench.gotpc_snapshot(t, binary, self.name, job["warehouses"])
        return job

    def ac_threads(self, bench):
        return None

    def run(self, bench, job):
        """Every arm from a copy of the loaded data; after each run, go-tpc's
        consistency check (bounded by --check-time)."""
        for r in range(1, bench.args.repeats + 1):
            for t, arm, st, extra in self.lag_runs(bench, job["lags"], r):
                bench.restore_snapshot(t)

                def go_tpc(srv, t=t):
                    cmd = gotpc.command(job["binary"], t.tcp_port, self.name, "run",
                                        job["warehouses"], job["threads"], job["seconds"],
                                        job["ac"], interval=1, conn=bench.attach)
                    return cmd, (lambda **kw: gotpc.Run(cmd, **kw))
                res = bench.run_arm(t, self.name, arm, st, self.name, job["warehouses"], 0,
                                    job["threads"], job["seconds"], r,
                                    extra=dict(extra or {}, warehouses=job["warehouses"],
                                               ac_threads=job["ac"]), client=go_tpc)
                if res is None:
                    continue
                res.update(self.check(bench, t, dict(res, **job)))
                if res["check"].startswith("FAILED"):
                    bench.failures.append(dict(scenario=self.name, arm=res["arm"], repeat=r,
                                               error=f"go-tpc tpcc check: {res['check']}"))
                bench.log(f"    check: {res['check']}; tpmC {fmt(res.get('tpmc'))}, "
                          f"{res.get('errors')} _ERR, {res.get('error_lines')} error line(s)")

    def check(self, bench, t, result):
        """go-tpc tpcc check after a run (bench.gotpc_check())."""
        return bench.gotpc_check(t, result["binary"], result["warehouses"])

    def tables(self, ctx):
        mine = ctx.of(self.name)
        return (gotpc_tables(self.name, mine, analytical=self.analytical)
                + held_table(self.name, mine))

class Ch(Tpcc):
    name = "ch"
    scale = dict(test="go-tpc ch", warehouses=(2, 10), threads=(32, 64), time=(90, 1800),
                 ac_threads=(1, 2), lags=((10000,), (500000,)))
    options = Tpcc.options + ("--ac-threads",)
    measures = (THROUGHPUT + (("tpmc", "tpmC", False, 0),
                              ("ac_queries_per_hour", "analytical queries/h", False, 0))
                + COSTS + REDO_PER_TRX)
    analytical = True
    headline_order = 2

    def ac_threads(self, bench):
        return bench.args.ac_threads or self.pick("ac_threads", bench.full)


def gotpc_tables(sc, runs, analytical=False):
    """tpcc / ch: per arm tpmC and NOPM, New-Order and Payment latency, the
    history, the backlog at slow shutdown, the check and the errors, and
    tpmC over the unthrottled run of the same repeat (and server); with
    analytical threads (ch) also the analytical queries per hour and how
    much of the unparsed history the oldest read view held back."""
    by = {}         # Arm: [run]
    for r in runs:
        by.setdefault(arm_of(r), []).append(r)

    def lat(rs, txn):
        def one(k):
            m = stats.summary([(r.get("txn") or {}).get(txn, {}).get(k) for r in rs])["median"]
            return "-" if m is None else f"{m:,.0f}"
        return f"{one('p95_ms')} / {one('p99_ms')}"

    header = ["arm", "tpmC", "NOPM", "New-Order p95 / p99 ms", "Payment p95 / p99 ms",
              "history p95", "history max", "to purge at slow shutdown",
              "throttle in force (% of samples)", "check", "_ERR (error lines)",
              "tpmC / unthrottled"]
    if analytical:
        header[-1:-1] = ["analytical queries/h", "unparsed, of it blocked by a read view"]
    rows = []
    for arm, rs in by.items():
        ref = by.get(arm.unthrottled(), [])
        checks = sorted({r.get("check", "-") for r in rs})
        row = [str(arm), spread(rs, "tpmc"), spread(rs, "nopm"), lat(rs, "NEW_ORDER"),
               lat(rs, "PAYMENT"), spread(rs, "history_p95"), spread(rs, "history_max"),
               spread(rs, "backlog"), spread(rs, "held_throttled_share"), "; ".join(checks),
               f"{sum(r.get('errors') or 0 for r in rs)} "
               f"({sum(r.get('error_lines') or 0 for r in rs)})",
               paired_ratio(rs, ref, "tpmc")]
        if analytical:
            row[-1:-1] = [spread(rs, "ac_queries_per_hour"),
                          f"{spread(rs, 'held_unparsed')}, {spread(rs, 'held_view_blocked')}"]
        rows.append(row)
    return [(sc, header, rows)]


TPCC = Tpcc()
CH = Ch()
