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

"""The cells and tables that several scenarios' tables share: a relative
cell paired by repeat, latency, the backlog or the drain, the spread of the
repeats, what the history held, the sentences of a scenario with targets."""

from . import stats
from .plan import Arm, arm_of


def paired_ratio(runs, refs, key):
    """Each run's `key` over that of the reference run of the same repeat,
    as median (min..max) of those ratios. Pairing by repeat keeps a machine
    that runs faster or slower from one repeat to the next out of the
    comparison; a ratio of the two medians would mix fast and slow repeats."""
    ref = {r["repeat"]: r.get(key) for r in refs or []}
    s = stats.summary([stats.ratio(r.get(key), ref.get(r["repeat"])) for r in runs])
    cell = stats.rel_cell(s["median"])
    if s["n"] <= 1:
        return cell
    return cell.noted(f"({s['min']:.2f}..{s['max']:.2f})")


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


def target_sentences(sc, key, blv, unit=None):
    """headline()'s sentences for the runs of one scenario with targets: its
    throughput `key`, named `unit` (Scenario.unit(): its column's title)."""
    out = []
    unit = unit or key

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


def mmm(s, d=0):
    """A table cell of a stats.summary(): the median (min..max) of the
    repeats, the median alone for one."""
    if s["n"] <= 1:
        return fmt(s["median"], d)
    return f"{fmt(s['median'], d)} ({fmt(s['min'], d)}..{fmt(s['max'], d)})"


def fmt(v, digits=0):
    """A figure of a cell: None as '-', a float to `digits` decimals, thousands
    separated."""
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return f"{v:,}"
