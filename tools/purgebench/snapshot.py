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

"""snapshot-release, MDEV-16260's protocol: under a write load, one
connection holds a read view (START TRANSACTION WITH CONSISTENT SNAPSHOT)
for a while and releases it; purge cannot pass the view meanwhile, so the
history grows, and what counts is how it comes back. Two forms per arm:
  continue  the load goes on after the release: the history at release,
            seconds until it is back under the target and until zero, and
            the throughput before, during the view, in the 30 s after the
            release and in steady state after that;
  stop      the ticket's own: the load stops at the release, and the time
            to drain (the slow shutdown's length, or in attach mode the
            sampled drain) is the figure, beside what of the history purge
            had not parsed when the load ended (the slow shutdown's work)
            and what only waited for undo truncation.
ViewHolder holds the view in a thread beside the load; figures() reads a
run's samples and report intervals; table() and headline() for the
report; scenarios/snapshot_release.py plans the runs."""

import threading
import time

from . import sampler, stats
from .cells import fmt

SCENARIO = "snapshot-release"
FORMS = ("continue", "stop")
AFTER_S = 30        # the window "after the release"
END_HEADER = ("of the history when the load ended: unparsed (share) / purged, "
              "not truncated")


class View:
    """What snapshot-release runs beside a run's load (the core's
    measure(beside=...)): a read view opened `before` s into the load and
    held `hold` s (None: until the load ends), a ViewHolder; its figures
    against the run's target (its lag, else the first of lags)."""
    what = "the read view"

    def __init__(self, before, hold, lags, overlap=0):
        """overlap: a second view, opened that many s after the first and
        held as long (None: until the load ends); 0: none."""
        self.before, self.hold, self.lags, self.overlap = before, hold, lags, overlap
        self.holder = None

    def start(self, srv, t0):
        def connect():
            return sampler.connect(srv.socket)
        self.holder = ViewHolder(connect, t0, self.before, self.hold)
        if self.overlap:
            self.holder = ViewPair(self.holder, ViewHolder(connect, t0,
                                                           self.before + self.overlap,
                                                           self.hold))
        self.holder.start()
        return self.holder

    def results(self, result, settings, extra):
        """The view's times and figures, for the run's result (which has
        its samples, intervals and load_start_t)."""
        target = ((settings or {}).get("innodb_max_purge_lag") or (extra or {}).get("lag")
                  or (self.lags[0] if self.lags else None))
        out = dict(self.holder.result(), view_target=target)
        out.update(figures(dict(result, **out), target))
        return out


class ViewHolder(threading.Thread):
    """Opens a read view `before` seconds after start() and releases it
    `hold` seconds later (or at release(), whichever comes first), on a
    connection of its own (connect: a function returning a PyMySQL
    connection). Times are seconds since t0 (the sampler's start), so that
    they line up with the samples."""

    def __init__(self, connect, t0, before, hold=None):
        """hold None: until release() (the stop form: at the load's end)."""
        super().__init__(daemon=True)
        self.connect, self.t0, self.before, self.hold = connect, t0, before, hold
        self.opened = self.released = None
        self.history_at_release = None
        self.error = None
        self._release = threading.Event()
        self._lock = threading.Lock()
        self.conn = None

    def _now(self):
        return round(time.time() - self.t0, 2)

    def run(self):
        try:
            self.conn = self.connect()
            if self._release.wait(self.before):
                return          # the load ended first
            with self.conn.cursor() as cur:
                cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
                # a read, so that the view is used as a reader's would be
                cur.execute("SELECT COUNT(*) FROM information_schema.INNODB_TRX")
                cur.fetchall()
            self.opened = self._now()
            self._release.wait(self.hold)
            self.release()
        except Exception as e:      # reported with the run; never kills the load
            self.error = str(e)

    def release(self):
        """COMMIT the view (once) and note the history then."""
        with self._lock:
            self._release.set()
            if self.conn is None or self.released is not None or self.opened is None:
                return
            try:
                with self.conn.cursor() as cur:
                    cur.execute("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'")
                    row = cur.fetchone()
                    self.history_at_release = int(row[1]) if row else None
                    cur.execute("COMMIT")
                self.released = self._now()
            except Exception as e:
                self.error = str(e)

    def close(self):
        self.release()
        self.join(timeout=10)
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass

    def result(self):
        return dict(view_before_s=self.before, view_hold_s=self.hold, view_opened_t=self.opened,
                    view_released_t=self.released,
                    history_at_release=self.history_at_release, view_error=self.error)


class ViewPair:
    """Two ViewHolders, the second opened while the first is held: purge
    waits for the later release. Released and closed together; its result
    is the first view's opening and the later release (with the history
    then), plus the second view's own times."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def start(self):
        self.first.start()
        self.second.start()

    def release(self):
        self.first.release()
        self.second.release()

    def close(self):
        self.first.close()
        self.second.close()

    @property
    def error(self):
        return self.first.error or self.second.error

    def result(self):
        a, b = self.first.result(), self.second.result()
        # purge was held until the later release; none if either view never ended
        last = (max(b, a, key=lambda r: r["view_released_t"])
                if a["view_released_t"] is not None and b["view_released_t"] is not None
                else dict(view_released_t=None, history_at_release=None))
        return dict(a, view_released_t=last["view_released_t"],
                    history_at_release=last["history_at_release"],
                    view2_opened_t=b["view_opened_t"], view2_released_t=b["view_released_t"],
                    view_overlap_s=self.second.before - self.first.before,
                    view_error=self.error)


def view_span(runs):
    """(opened, released): the median times of the read view of the runs
    that held one, or None."""
    held = [r for r in runs if r.get("view_opened_t") is not None
            and r.get("view_released_t") is not None]
    # the continue form's, where both forms ran (the stop form's view ends
    # with its load)
    held = [r for r in held if r.get("release_form") == "continue"] or held
    if not held:
        return None
    return (stats.summary([r["view_opened_t"] for r in held])["median"],
            stats.summary([r["view_released_t"] for r in held])["median"])


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def figures(res, target, after=AFTER_S):
    """What a snapshot-release run comes to, from its samples (t since the
    sampler's start), its report intervals (t since the load's start,
    shifted by load_start_t) and the view's times: tps before the view,
    during it, in the `after` s after the release and after that (steady);
    seconds from the release until the history is back under target and
    until it is zero (None: not within the samples)."""
    opened, released = res.get("view_opened_t"), res.get("view_released_t")
    if opened is None or released is None:
        return {}
    shift = res.get("load_start_t") or 0.0
    ivs = [(iv["t"] + shift, iv.get("tps")) for iv in res.get("intervals") or []]

    def tps(lo, hi):
        return _mean([v for t, v in ivs if lo <= t < hi])
    out = dict(tps_before=tps(float("-inf"), opened), tps_during=tps(opened, released),
               tps_after=tps(released, released + after),
               tps_steady=tps(released + after, float("inf")))
    samples = [(s["t"], s.get("innodb_history_list_length")) for s in res.get("samples") or []
               if s.get("t") is not None]
    hist = [(t, h) for t, h in samples if t >= released]
    # the level the history held before the view: an unthrottled arm has no
    # target to come back under, but it has that
    level = max((h for t, h in samples if t < opened and h is not None), default=None)
    under = next((t for t, h in hist if h is not None and target and h <= target), None)
    back = next((t for t, h in hist if h is not None and level is not None and h <= level),
                None)
    zero = next((t for t, h in hist if h == 0), None)
    out["history_before_view"] = level
    out["back_under_s"] = None if under is None else round(under - released, 1)
    out["back_before_s"] = None if back is None else round(back - released, 1)
    out["zero_s"] = None if zero is None else round(zero - released, 1)
    return out


def end_composition(r):
    """A run's history when the load ended: (unparsed, purged but not
    truncated), from the sampler's sample after the load (end_* of the
    result), or for a run recorded without them from its last sample under
    load; (None, None) from a server that does not report what purge has
    not parsed."""
    if r.get("end_unparsed") is not None:
        return r["end_unparsed"], r.get("end_not_truncated")
    last = [s for s in r.get("samples") or [] if s.get("innodb_purge_unparsed_trx") is not None]
    end = stats.end_composition(last[-1] if last else None)
    return end.get("end_unparsed"), end.get("end_not_truncated")


def purged_per_s(r):
    """Transactions a run's slow shutdown purged a second: what it had to
    purge over how long it took, from the shutdown request to the server's
    exit (so at least that); None without both or in under 0.1 s."""
    backlog, took = r.get("backlog"), r.get("shutdown_s")
    return backlog / took if backlog is not None and took else None


def _cell(v, d=0):
    return fmt(v, d)


def _end_cell(unparsed, not_truncated):
    """'194,910 (96%) / 8,638': unparsed (its share) / purged, not truncated."""
    if unparsed is None:
        return "-"
    whole = unparsed + (not_truncated or 0)
    share = f" ({100.0 * unparsed / whole:.0f}%)" if whole else ""
    return f"{_cell(unparsed)}{share} / {_cell(not_truncated)}"


def _secs(v, limit=None):
    if v is None:
        return f"not within {limit:.0f} s" if limit else "-"
    return f"{v:g} s"


def _rel(v, ref):
    r = stats.ratio(v, ref)
    return "-" if r is None else f"{r:.2f}"


def table(runs):
    """[(title, header, rows)]: the continue form's and the stop form's
    tables, one row per arm (medians over the repeats)."""
    out = []
    by = {}
    for r in runs:
        by.setdefault((r.get("release_form"), r["arm"]), []).append(r)

    def med(rs, k):
        return stats.summary([r.get(k) for r in rs])["median"]
    cont = [(arm, rs) for (form, arm), rs in by.items() if form == "continue"]
    if cont:
        rows = []
        for arm, rs in cont:
            before = med(rs, "tps_before")
            end = max((s["t"] for r in rs for s in r.get("samples") or []), default=None)
            left = (end - med(rs, "view_released_t")) if end is not None and \
                med(rs, "view_released_t") is not None else None
            rows.append([arm, _cell(med(rs, "history_at_release")),
                         _secs(med(rs, "back_under_s"), left),
                         "-" if med(rs, "history_before_view") is None else
                         f"{_secs(med(rs, 'back_before_s'), left)} "
                         f"({_cell(med(rs, 'history_before_view'))})",
                         _secs(med(rs, "zero_s"), left),
                         _cell(before), _cell(med(rs, "tps_during")),
                         _cell(med(rs, "tps_after")), _cell(med(rs, "tps_steady")),
                         f"{_rel(med(rs, 'tps_during'), before)} / "
                         f"{_rel(med(rs, 'tps_after'), before)} / "
                         f"{_rel(med(rs, 'tps_steady'), before)}"])
        out.append((f"{SCENARIO}: the load goes on after the release",
                    ["arm", "history at release", "back under the target after",
                     "back to its level before the view after (that level)",
                     "history zero after", "tps before the view", "tps during the view",
                     f"tps {AFTER_S} s after the release", "tps steady (after that)",
                     "during / after / steady over before"], rows))
    stop = [(arm, rs) for (form, arm), rs in by.items() if form == "stop"]
    if stop:
        rows = []
        drained = any(r.get("backlog_measure") for _, rs in stop for r in rs)
        for arm, rs in stop:
            ends = [end_composition(r) for r in rs]
            end = _end_cell(stats.summary([u for u, _ in ends])["median"],
                            stats.summary([n for _, n in ends])["median"])
            if drained:
                under, zero = med(rs, "drain_under_target_s"), med(rs, "drain_zero_s")
                limit = med(rs, "drain_limit_s")
                rows.append([arm, _cell(med(rs, "history_at_release")), end,
                             _secs(under, limit), _secs(zero, limit)])
            else:
                rows.append([arm, _cell(med(rs, "history_at_release")),
                             _cell(med(rs, "backlog")), end, _secs(med(rs, "shutdown_s")),
                             _cell(stats.summary([purged_per_s(r) for r in rs])["median"])])
        header = (["arm", "history at release", END_HEADER,
                   "drained under the target after (sampled)",
                   "drained to zero after (sampled)"] if drained else
                  ["arm", "history at release", "to purge at slow shutdown", END_HEADER,
                   "slow shutdown took", "transactions purged a second in it (at least)"])
        out.append((f"{SCENARIO}: the load stops at the release (MDEV-16260's form)",
                    header, rows))
    return out


def stop_sentence(arm, rs):
    """The stop form's answer for one arm (its runs: medians over the
    repeats): what the slow shutdown purged, how fast, and whether that was
    purge's work (history it had not parsed when the load ended) or mostly
    undo truncation; None in attach mode (no slow shutdown)."""
    if any(r.get("backlog_measure") for r in rs):
        return None

    def med(values):
        return stats.summary(values)["median"]
    backlog, took = med([r.get("backlog") for r in rs]), med([r.get("shutdown_s") for r in rs])
    if backlog is None or took is None:
        return None
    rate = med([purged_per_s(r) for r in rs])
    line = (f"{arm}, the load ending at the release: the slow shutdown purged "
            f"{_cell(backlog)} transactions in {_secs(took)}"
            + (f" ({_cell(rate)} a second)" if rate is not None else ""))
    logged = med([r.get("shutdown_log_s") for r in rs])
    if logged is not None:      # its log's times are whole seconds
        line += f", under {logged + 1:g} s by the server's log"
    ends = [end_composition(r) for r in rs]
    unparsed, rest = med([u for u, _ in ends]), med([n for _, n in ends])
    if unparsed is None or not unparsed + (rest or 0):
        return line + "."
    share = unparsed / (unparsed + (rest or 0))
    line += (f"; when the load ended purge had not parsed {_cell(unparsed)} of the history "
             f"({share:.0%})")
    return line + (": purge's own work in the shutdown, not undo truncation alone."
                   if share >= 0.5 else
                   f", the other {_cell(rest)} only waited for undo truncation.")


def headline(runs):
    """[(title, [sentence])]: per arm of the continue form, the history at
    release against the target, how soon it was back under it, and the
    throughput during the view and after the release over before; per arm
    of the stop form, what its slow shutdown purged (stop_sentence())."""
    lines = []
    by, stop = {}, {}
    for r in runs:
        if r.get("release_form") == "continue":
            by.setdefault(r["arm"], []).append(r)
        elif r.get("release_form") == "stop":
            stop.setdefault(r["arm"], []).append(r)
    for arm, rs in by.items():
        def med(k):
            return stats.summary([r.get(k) for r in rs])["median"]
        h, target, before = med("history_at_release"), med("view_target"), med("tps_before")
        under = med("back_under_s")
        parts = [f"history at release {_cell(h)}"
                 + (f" ({h / target:.1f}x the target)" if h is not None and target else "")]
        parts.append(f"back under the target {under:g} s after the release" if under is not None
                     else "not back under the target within the run")
        back = med("back_before_s")
        if back is not None:
            parts.append(f"at its level before the view after {back:g} s")
        parts.append(f"tps during the view {_rel(med('tps_during'), before)}, in the "
                     f"{AFTER_S} s after the release {_rel(med('tps_after'), before)} of "
                     "before")
        lines.append(f"{arm}: " + ", ".join(parts) + ".")
    lines += [line for line in (stop_sentence(arm, rs) for arm, rs in stop.items()) if line]
    overlap = next((r.get("view_overlap_s") for r in runs if r.get("view_overlap_s")), None)
    what = (f"two read views, the second opened {overlap:g} s after the first, held, "
            "then released" if overlap else "a read view held, then released")
    return [(f"{SCENARIO} ({what})", lines)] if lines else []
