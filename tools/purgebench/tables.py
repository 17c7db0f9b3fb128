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

"""The summary's tables and opening sentences, from the runs (Bench.runs or
runs.json): per scenario, medians over the repeats, the relative columns
paired by repeat."""

from . import insertbench, report, snapshot, stats
from .plan import Arm, arm_of
from .scenarios import SCENARIOS, TCP_SCENARIOS, UNPARSED


def paired_ratio(runs, refs, key):
    """Each run's `key` over that of the reference run of the same repeat,
    as median (min..max) of those ratios. Pairing by repeat keeps a machine
    that runs faster or slower from one repeat to the next out of the
    comparison; a ratio of the two medians would mix fast and slow repeats."""
    ref = {r["repeat"]: r.get(key) for r in refs or []}
    s = stats.summary([stats.ratio(r.get(key), ref.get(r["repeat"])) for r in runs])
    cell = report.rel(s["median"])
    if s["n"] <= 1:
        return cell
    return cell.noted(f"({s['min']:.2f}..{s['max']:.2f})")


def summary_tables(runs, targets):
    """The summary's tables, [(title, header, rows)], per scenario of the runs
    (targets: the Bench's servers, the first the reference)."""
    out = []
    by = {}         # (scenario, Arm): [run]
    for r in runs:
        by.setdefault((r["scenario"], arm_of(r)), []).append(r)
    a = targets[0]
    compare = len(targets) > 1

    def med(rs, k):
        return stats.summary([x.get(k) for x in rs])

    def mmm(s, d=0):
        if s["n"] <= 1:
            return fmt(s["median"], d)
        return f"{fmt(s['median'], d)} ({fmt(s['min'], d)}..{fmt(s['max'], d)})"

    scen = sorted({k[0] for k in by}, key=SCENARIOS.index)
    # what purge sustained on each server, when purge-capacity ran too
    sustained = {t: sustained_by_purge([r for r in runs if t.owns(arm_of(r)) and
                                        r["scenario"] == "purge-capacity"])
                 for t in targets}
    sustained = {t: v for t, v in sustained.items() if v}
    for sc in scen:
        arms = [k[1] for k in by if k[0] == sc]
        if sc == insertbench.SCENARIO:
            out.extend(ib_tables([r for r in runs if r["scenario"] == sc]))
            continue
        if sc == snapshot.SCENARIO:
            out.extend(snapshot.table([r for r in runs if r["scenario"] == sc]))
            continue
        if sc == "thread-sweep":
            out.append(sweep_table([r for r in runs if r["scenario"] == sc]))
            continue
        if sc in TCP_SCENARIOS:
            mine = [r for r in runs if r["scenario"] == sc]
            out.extend(gotpc_tables(sc, mine) + held_table(sc, mine))
            continue
        key = "qps" if sc == "backlog-vs-lag" else "tps"   # the throughput compared
        base = {}                       # each arm's reference runs, on its server
        for t in targets:
            mine = [arm for arm in arms if t.owns(arm)]
            if sc == "backlog-vs-lag":
                for arm in mine:
                    base[arm] = by.get((sc, arm.unthrottled()), [])
            elif sc in ("history-growth",) and mine:
                for arm in mine:
                    base[arm] = by[(sc, mine[0])]
        rows = []
        for arm in arms:
            t = next(t for t in targets if t.owns(arm))
            rs = by[(sc, arm)]
            qps, tps = med(rs, "qps"), med(rs, "tps")
            if sc == "redo-per-trx":
                # its own server's compact arm, else A's (stock has none)
                at = arm.replace(name="compact")
                partner = by.get((sc, at)) or by.get((sc, a.arm(at))) or rs
                ratio = stats.ratio(med(rs, "redo_bytes_per_trx")["median"],
                                    med(partner, "redo_bytes_per_trx")["median"])
                row = [str(arm), mmm(tps), mmm(med(rs, "redo_bytes_per_trx"), 1),
                       report.rel(ratio)]
            elif sc == "purge-capacity":
                unparsed = [s.get(UNPARSED) for s in rs[0]["samples"]
                            if s.get(UNPARSED) is not None]
                row = [str(arm), mmm(tps), fmt(rs[0].get("history_max")),
                       fmt(max(unparsed, default=None)), fmt(rs[0].get("history_last")),
                       "- (rate not reached by the client)" if rs[0].get("client_short")
                       else ("yes" if rs[0].get("bounded") else "no")
                       + (" (history)" if rs[0].get("bounded_by") != UNPARSED else "")]
            else:
                row = [str(arm), mmm(tps), mmm(qps), latency_cell(rs), mmm(med(rs, "history_p95")),
                       mmm(med(rs, "history_p95_late")),
                       mmm(med(rs, "history_max")), backlog_cell(rs, mmm, med),
                       paired_ratio(rs, base.get(arm), key)]
                if sc == "backlog-vs-lag" and sustained:
                    mine = sustained.get(t)
                    row.append(mine and report.rel(stats.ratio(tps["median"], mine[0]))
                               or "")
            if compare:     # over A, same arm, repeat by repeat; blank on A's rows
                row.append("" if t is a else paired_ratio(rs, by.get((sc, a.arm(arm))), key))
            rows.append(row)
        if sc == "redo-per-trx":
            header = ["arm@threads", "tps", "redo bytes/trx", "bytes/trx vs compact"]
        elif sc == "purge-capacity":
            header = ["target rate", "tps", "history max", "unparsed max", "history at end",
                      "purge keeps up"]
        else:
            drained = any(r.get("backlog_measure") == DRAIN for r in runs
                          if r["scenario"] == sc)
            header = ["arm", "tps", "qps", LATENCY_HEADER, "history p95",
                      "history p95, 2nd half", "history max",
                      DRAIN_HEADER if drained else "to purge at slow shutdown",
                      "qps / unthrottled" if sc == "backlog-vs-lag" else "tps / first arm"]
            if sc == "backlog-vs-lag" and sustained:
                header.append("tps / sustained by purge")
        if compare:
            header.append(relative_header(key, targets))
        out.append((sc, header, rows))
        if sc == "purge-capacity":
            out.append((f"{sc}: what purge sustained", ["server", "tps", "bound by"],
                        [[t.label, fmt(v[0]),
                          "the load: purge kept up with all of it (unpaced)" if v[1]
                          else "purge: it fell behind at the next rate"]
                         for t, v in sustained.items()]))
        if sc == "backlog-vs-lag":
            out.extend(held_table(sc, [r for r in runs if r["scenario"] == sc]))
    return out


def ib_tables(runs):
    """insert-benchmark's tables: per step and arm, and each arm over
    the first arm (the first server's unthrottled); with several servers,
    also each arm over the first server's arm of the same name
    (insertbench.server_pairs(), as the headline pairs them)."""
    return insertbench.relative_table(insertbench.rows_by_arm(runs),
                                      pairs=insertbench.server_pairs(runs))


LATENCY_HEADER = "latency ms p50 / p95 / p99 / max"


# the backlog measure of a run on a server the harness did not start
DRAIN = "drain (sampled)"
DRAIN_HEADER = "history at the load's end; s to under the target / to zero (sampled)"


def drain_cell(r):
    """A run's drain in words: seconds to under the target / to zero."""
    def sec(v):
        return f">{r.get('drain_limit_s')} s" if v is None else f"{v:.1f} s"
    under = sec(r.get("drain_under_target_s")) if r.get("drain_target") else "-"
    return f"{under} / {sec(r.get('drain_zero_s'))}"


def backlog_cell(rs, mmm, med):
    """The backlog column's cell: what the slow shutdown had to purge, or in
    attach mode the history at the load's end and the drain's times
    (medians over the repeats)."""
    if not any(r.get("backlog_measure") == DRAIN for r in rs):
        return mmm(med(rs, "backlog"))

    def m(k):
        return stats.summary([r.get(k) for r in rs])["median"]
    under, zero = m("drain_under_target_s"), m("drain_zero_s")
    first = rs[0]
    return (f"{fmt(m('backlog'))}; "
            + drain_cell(dict(first, drain_under_target_s=under, drain_zero_s=zero)))


def failed_lines(failures, stopped=None):
    """summary.md's opening when runs failed or the invocation stopped
    early: one line per failed run, and why it stopped."""
    out = [f"{f['scenario']} {f['arm']} #{f['repeat']}: "
           f"{(f['error'].splitlines() or ['?'])[0][:300]}" for f in failures]
    if stopped:
        out.append(f"The invocation stopped early: {stopped}; the runs after it were not made.")
    return out


def relative_header(key, targets):
    """The header of the column of each server's arm over the first's:
    B/A for two servers (as it always was), SERVER/A for more, where each
    server's rows hold its own ratio."""
    a = targets[0]
    if len(targets) == 2:
        return f"B/A {key} ({targets[1].label}/{a.label})"
    return f"{key} / {a.label} (each server's row)"


def latency_cell(rs):
    """A table cell of the runs' transaction latency: the median over the
    repeats of each of p50, p95, p99 and max, in ms."""
    def one(k):
        m = stats.summary([r.get(k) for r in rs])["median"]
        return "-" if m is None else f"{m:,.3g}" if m < 100 else f"{m:,.0f}"
    return " / ".join(one(f"lat_{p}_ms") for p in ("p50", "p95", "p99", "max"))


def short(arm):
    """An arm's name in a column header: without the innodb_ of a switch."""
    return arm.replace("innodb_", "")


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


def spread(rs, k, d=0):
    """A table cell of the runs' k: the median (min..max) of the repeats."""
    s = stats.summary([r.get(k) for r in rs])
    if s["n"] <= 1:
        return fmt(s["median"], d)
    return f"{fmt(s['median'], d)} ({fmt(s['min'], d)}..{fmt(s['max'], d)})"


def held_table(sc, runs):
    """[(title, header, rows)]: per arm, what the history held (the means of
    stats.history_composition()), on servers that report the unparsed
    history; [] when none does."""
    by = {}
    for r in runs:
        by.setdefault(r["arm"], []).append(r)
    rows = [[arm] + [spread(rs, k) for k in stats.HELD_KEYS] for arm, rs in by.items()
            if stats.summary([r.get("held_unparsed") for r in rs])["n"]]
    if not rows:
        return []
    out = [(f"{sc}: what the history held (means over the samples)",
            ["arm", "history", "unparsed by purge", "of which blocked by a read view",
             "purged, not truncated", "rollback segments withheld",
             "throttle in force (% of samples)"], rows)]
    trunc = [[arm] + [spread(rs, k, 1) for k in stats.TRUNC_KEYS] for arm, rs in by.items()
             if stats.summary([r.get("trunc_passes_per_s") for r in rs])["n"]]
    if trunc:
        out.append((f"{sc}: what undo log truncation did (of 128 rollback segments)",
                    ["arm", "passes/s", "pass, ms", "segments busy at a pass",
                     "segments referenced at a pass", "segments given back drained, /s",
                     "withheld until given back, ms"], trunc))
    return out


def gotpc_tables(sc, runs):
    """tpcc / ch: per arm tpmC and NOPM, New-Order and Payment latency, the
    history, the backlog at slow shutdown, the check and the errors, and
    tpmC over the unthrottled run of the same repeat (and server); for ch
    also the analytical queries per hour and how much of the unparsed
    history the oldest read view held back."""
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
    if sc == "ch":
        header[-1:-1] = ["analytical queries/h", "unparsed, of it blocked by a read view"]
    rows = []
    for arm, rs in by.items():
        ref = by.get(arm.unthrottled(), [])
        checks = sorted({r.get("check", "-") for r in rs})
        row = [str(arm), spread(rs, "tpmc"), spread(rs, "nopm"), lat(rs, "NEW_ORDER"), lat(rs, "PAYMENT"),
               spread(rs, "history_p95"), spread(rs, "history_max"), spread(rs, "backlog"),
               spread(rs, "held_throttled_share"), "; ".join(checks),
               f"{sum(r.get('errors') or 0 for r in rs)} ({sum(r.get('error_lines') or 0 for r in rs)})",
               paired_ratio(rs, ref, "tpmc")]
        if sc == "ch":
            row[-1:-1] = [spread(rs, "ac_queries_per_hour"),
                          f"{spread(rs, 'held_unparsed')}, {spread(rs, 'held_view_blocked')}"]
        rows.append(row)
    return [(sc, header, rows)]


# the throughput that headline() compares, by scenario
HEADLINE_KEY = {"backlog-vs-lag": "qps", "tpcc": "tpmc", "ch": "tpmc"}


def headline(runs):
    """The summary's opening: for each target of backlog-vs-lag, tpcc and
    ch, one sentence per arm (history p95 as a multiple of the target,
    throughput (qps, tpmC) as a share of unthrottled, paired by repeat,
    latency p95); one sentence for a thread-sweep; the Insert Benchmark's
    (insertbench.headline()). Medians over the repeats."""
    out = []
    for sc, key in HEADLINE_KEY.items():
        out += target_sentences(sc, key, [r for r in runs if r["scenario"] == sc])
    out += insertbench.headline([r for r in runs if r["scenario"] == insertbench.SCENARIO])
    out += snapshot.headline([r for r in runs if r["scenario"] == snapshot.SCENARIO])
    sweep = [r for r in runs if r["scenario"] == "thread-sweep"]
    if sweep:
        _, header, rows = sweep_table(sweep)
        rel = [h for h in header if h.endswith(" tps") and " / " in h]
        if rel:
            i = header.index(rel[0])
            cells = ", ".join(f"{row[0]}: {row[i]}" for row in rows)
            out.append(("thread-sweep", [f"{rel[0]} by threads: {cells}."]))
    return out


def target_sentences(sc, key, blv):
    """headline()'s sentences for the runs of one scenario with targets."""
    out = []
    unit = "tpmC" if key == "tpmc" else key

    def med(rs, k):
        return stats.summary([r.get(k) for r in rs])["median"]

    def ms(v):
        return "-" if v is None else f"{v:,.3g} ms" if v < 100 else f"{v:,.0f} ms"

    servers = []
    for r in blv:
        if r.get("server") not in servers:
            servers.append(r.get("server"))
    for server in servers:
        mine = [r for r in blv if r.get("server") == server]
        unthrottled = Arm("unthrottled", server=server or "")
        un = [r for r in mine if arm_of(r) == unthrottled]
        for lag in sorted({r["lag"] for r in mine if r.get("lag")}):
            at = [r for r in mine if r.get("lag") == lag]
            arms = []
            for r in at:
                if r["arm"] not in arms:
                    arms.append(r["arm"])
            lines = []
            if un:
                h = med(un, "history_p95")
                lines.append(f"{unthrottled}: history p95 {fmt(h)} "
                             f"({h / lag:.2f}x the target), {fmt(med(un, key))} {unit}, "
                             f"latency p95 {ms(med(un, 'lat_p95_ms'))}."
                             if h is not None else f"{unthrottled}: no history samples.")
            for arm in arms:
                rs = [r for r in at if r["arm"] == arm]
                h = med(rs, "history_p95")
                q = stats.summary([stats.ratio(r.get(key), next(
                    (u.get(key) for u in un if u["repeat"] == r["repeat"]), None))
                    for r in rs])["median"]
                share = f" at {q:.2f} of unthrottled {unit}" if q is not None else ""
                lines.append(f"{arm}: history p95 {h / lag:.2f}x the target{share}, "
                             f"latency p95 {ms(med(rs, 'lat_p95_ms'))}."
                             if h is not None else f"{arm}: no history samples.")
            hu = med(un, "history_p95") if un else None
            if hu is not None and hu <= lag:
                lines.append(f"The unthrottled history stayed under the target ({fmt(hu)} <= "
                             f"{fmt(lag)}): the throttles had nothing to do here; raise "
                             "--threads or lower --lags.")
            out.append((f"{sc}, target {fmt(lag)} (innodb_max_purge_lag)"
                        + (f", {server}" if server else ""), lines))
    return out


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


def fmt(v, d=0):
    return report.fmt(v, d)
