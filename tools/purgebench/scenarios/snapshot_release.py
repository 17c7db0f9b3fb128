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

"""snapshot-release, MDEV-16260's protocol (snapshot.py: the read view's
holder, the figures, the table and the sentences): each arm (unthrottled,
each throttle at each lag) once per form, a read view held for --hold s
after --time s of load, then released."""

from .. import snapshot
from .base import Sysbench, Throttled


class SnapshotRelease(Throttled, Sysbench):
    name = snapshot.SCENARIO
    # a read view held for `hold` s under backlog-vs-lag's load, after `time`
    # s of load, then released; the load goes on for 30 s and `time` s more
    # (the continue form), or stops at the release (stop)
    scale = dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                 threads=(256, 256), time=(20, 60), hold=(30, 300),
                 lags=((10000,), (10000,)))
    options = ("--threads", "--tables", "--rows", "--lags", "--arms", "--hold",
               "--overlap", "--release-forms", "--workload")
    headline_order = 4

    def hold(self, args):
        """Seconds a read view is held: --hold, else the scale's."""
        return args.hold or self.pick("hold", args.full)

    def check_options(self, args):
        """A second view that would not overlap the first."""
        hold = self.hold(args)
        if args.overlap and args.overlap >= hold:
            return (f"{self.name}: --overlap {args.overlap} opens the second read view "
                    f"after the first is released (--hold {hold}); give less than {hold}")
        return None

    def run(self, bench, job):
        """The load goes on for AFTER_S + --time s more after the (last)
        release (continue) or stops at it (stop)."""
        a, before = bench.args, job["seconds"]
        threads, lags = self.threads(bench), self.lags(bench)
        hold = self.hold(a)
        overlap = a.overlap or 0
        forms = a.release_forms or list(snapshot.FORMS)
        second = (f"; a second view opened {overlap} s after the first, held as long"
                  if overlap else "")
        bench.log(f"   view held {hold} s after {before} s of load{second}; "
                  f"forms: {', '.join(forms)}")
        for r in range(1, job["repeats"] + 1):
            for t, arm, st, extra in self.lag_runs(bench, lags, r, {"lag": lags[0]}, forms):
                form = extra["release_form"]
                seconds = before + hold + (overlap + snapshot.AFTER_S + before
                                           if form == "continue" else 0)
                view = snapshot.View(before, hold if form == "continue" else None, lags,
                                     overlap)
                self.run_one(bench, job, t, arm, st, threads, r, seconds, extra=extra,
                             beside=view)

    def tables(self, ctx):
        return snapshot.table(ctx.of(self.name))

    def headline(self, runs):
        return snapshot.headline(runs)

    def plot_label(self, run, style):
        """Its form beside a run's name; the stop form's lines dotted."""
        label = super().plot_label(run, style)
        if run.get("release_form"):
            label += f" ({run['release_form']})"
            if run["release_form"] == "stop":
                style["linestyle"] = ":"
        return label

    @staticmethod
    def plot_marks(axes, runs):
        """Where the read view was held (the median of the runs' times; the
        load's start differs by a second): shaded, from its opening
        (dashed) to its release (solid)."""
        view = snapshot.view_span(runs)
        if not view:
            return
        for ax in axes:
            ax.axvspan(view[0], view[1], color="0.88", zorder=0)
            ax.axvline(view[0], color="0.4", linestyle="--", linewidth=1)
            ax.axvline(view[1], color="0.4", linestyle="-", linewidth=1)
        top = axes[0]
        top.text(view[0], 1.01, " view opened", transform=top.get_xaxis_transform(), fontsize=7)
        top.text(view[1], 1.01, " released", transform=top.get_xaxis_transform(), fontsize=7)


SCENARIO = SnapshotRelease()
