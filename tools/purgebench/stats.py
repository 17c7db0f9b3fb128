# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Small statistics for benchmark repeats and time series."""

import math
import re


def percentile(values, p):
    """Linear-interpolated percentile, p in [0, 100]; None for no values."""
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    if len(vals) == 1:
        return vals[0]
    k = (len(vals) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return vals[lo] + (vals[hi] - vals[lo]) * (k - lo)


def summary(values):
    """{'min', 'median', 'max', 'n'} of repeats."""
    vals = [v for v in values if v is not None]
    if not vals:
        return {"min": None, "median": None, "max": None, "n": 0}
    return {"min": min(vals), "median": percentile(vals, 50), "max": max(vals),
            "n": len(vals)}


def ratio(b, a):
    """B/A, None when either is missing or A is 0."""
    if a in (None, 0) or b is None:
        return None
    return b / a


# The Insert Benchmark's colouring of a relative value (B over A): red at
# or below RED_AT, green at or above GREEN_AT. The one definition: the
# Markdown cells (rel_cell), their legend and the HTML report's colours
# all come from here.
RED_AT = 0.95
GREEN_AT = 1.05


def mark(r, lower_is_better=False):
    """Insert Benchmark colouring of a relative value: "red", "green" or "".
    For a measure where less is better (latency, history) the colour is
    that of the inverse ratio, so that red always means worse."""
    if r is None:
        return ""
    if lower_is_better:
        if r == 0:
            return "green"
        r = 1 / r
    if r <= RED_AT:
        return "red"
    if r >= GREEN_AT:
        return "green"
    return ""


class Rel(str):
    """A relative value's table cell (rel_cell()): as a str its Markdown
    form, '**0.90** (red) (0.85..0.95)' when mark() colours it, else
    '1.00 (0.99..1.06)'; its parts for the HTML report's table data:
    value ('0.90'), mark ('red', 'green' or '') and note (what follows)."""

    def __new__(cls, value, mark="", note=""):
        text = (f"**{value}** ({mark})" if mark else value) + (f" {note}" if note else "")
        self = super().__new__(cls, text)
        self.value, self.mark, self.note = value, mark, note
        return self

    def noted(self, note):
        """The same value with note after it (a range of the repeats)."""
        return Rel(self.value, self.mark, note)


def rel_cell(r, lower_is_better=False):
    """A relative value as a table cell: a Rel ('**0.90** (red)' when mark()
    colours it, else '1.00'); '-' for none."""
    if r is None:
        return "-"
    return Rel(f"{r:.2f}", mark(r, lower_is_better))


# rel_cell()'s coloured form at the start of a Markdown cell: how the HTML
# report reads the tables of a summary.md saved before report.json existed
REL_CELL_RE = re.compile(r"^\*\*(?P<value>-?[0-9][0-9,]*(?:\.[0-9]+)?)\*\* \((?P<mark>red|green)\)")


def legend():
    """The Markdown line that says what the colours mean."""
    return (f"Relative values: **bold (red)** <= {RED_AT:.2f}, **bold (green)** >= "
            f"{GREEN_AT:.2f}, as in the Insert Benchmark.")


def redo_bytes_per_trx(lsn0, lsn1, trx0, trx1):
    """(LSN_end - LSN_start) / (trx_id_end - trx_id_start), MDEV-16168."""
    if None in (lsn0, lsn1, trx0, trx1) or trx1 <= trx0:
        return None
    return (lsn1 - lsn0) / (trx1 - trx0)


def history_composition(samples):
    """Means over one run's samples (as the sampler records them: numbers,
    None where the server lacks a variable) of what its history held: the
    history length, the part purge had not parsed yet
    (Innodb_purge_unparsed_trx), of that the part that the oldest read view
    kept it from parsing (Innodb_purge_view_blocked_trx; None on a build
    without it), the part purged but not yet truncated (the
    difference), the rollback segments withheld (Innodb_purge_rsegs_withheld),
    and the share of samples with a throttle in force
    (Innodb_purge_throttle_active), in percent.
    Keyed as in a run's result (HELD_KEYS); {} when the server did not report
    the unparsed history (stock)."""
    rows = [(s.get("innodb_history_list_length"), s.get("innodb_purge_unparsed_trx"),
             s.get("innodb_purge_rsegs_withheld"), s.get("innodb_purge_throttle_active"),
             s.get("innodb_purge_view_blocked_trx"))
            for s in samples]
    rows = [r for r in rows if r[0] is not None and r[1] is not None]
    if not rows:
        return {}
    n = len(rows)
    history = sum(r[0] for r in rows) / n
    unparsed = sum(r[1] for r in rows) / n
    blocked = [r[4] for r in rows if r[4] is not None]
    return dict(zip(HELD_KEYS, (history, unparsed,
                                sum(blocked) / len(blocked) if blocked else None,
                                history - unparsed,
                                sum(r[2] or 0 for r in rows) / n,
                                100.0 * sum(1 for r in rows if r[3]) / n)))


def end_composition(sample):
    """What the history held when the load ended, from one sample: the
    sampler's last, which it takes after the client exited (and, in
    snapshot-release, after the read view's release), the instant before
    the slow shutdown begins.  The history length, the part purge had not
    parsed (Innodb_purge_unparsed_trx: what a slow shutdown has to purge)
    and the part purged but not yet truncated (the difference: what it only
    has to free).  Keyed as END_KEYS; {} when the sample lacks either (a
    stock server, no sample)."""
    history = (sample or {}).get("innodb_history_list_length")
    unparsed = (sample or {}).get("innodb_purge_unparsed_trx")
    if history is None or unparsed is None:
        return {}
    return dict(zip(END_KEYS, (history, unparsed, history - unparsed)))


def truncation_figures(samples):
    """What undo log truncation did over one run's samples, from the fork's
    counters (Innodb_purge_truncation_*, Innodb_purge_drain_released and
    _withheld_usec): passes per second, the mean pass in ms, the mean
    number of rollback segments that a pass found busy (processed history it
    could not free) and referenced by transactions, segments that the drain
    gave back per second, and how long it had withheld them, mean ms (None
    when it gave none back).  Keyed as TRUNC_KEYS; {} when the server lacks
    the counters or the run has fewer than two samples."""
    rows = [s for s in samples if s.get("innodb_purge_truncation_passes") is not None
            and s.get("t") is not None]
    if len(rows) < 2:
        return {}
    a, b = rows[0], rows[-1]
    dt = b["t"] - a["t"]

    def delta(k):
        return (b.get(k) or 0) - (a.get(k) or 0)

    passes, released = delta("innodb_purge_truncation_passes"), delta("innodb_purge_drain_released")
    if dt <= 0:
        return {}
    mean = lambda k: sum(s.get(k) or 0 for s in rows) / len(rows)  # noqa: E731
    return dict(zip(TRUNC_KEYS, (
        passes / dt,
        delta("innodb_purge_truncation_usec") / passes / 1000 if passes > 0 else None,
        mean("innodb_purge_truncation_busy_rsegs"),
        mean("innodb_purge_truncation_referenced_rsegs"),
        released / dt,
        delta("innodb_purge_drain_withheld_usec") / released / 1000 if released > 0 else None)))


TRUNC_KEYS = ("trunc_passes_per_s", "trunc_pass_ms", "trunc_busy_rsegs",
              "trunc_referenced_rsegs", "drain_released_per_s", "drain_withheld_ms")


END_KEYS = ("end_history", "end_unparsed", "end_not_truncated")


HELD_KEYS = ("held_history", "held_unparsed", "held_view_blocked", "held_not_truncated",
             "held_withheld", "held_throttled_share")
