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

"""The plots that several scenarios draw: the history, throughput and
latency of each run over time (SCENARIO-history-tps.png), and a line per
arm through points (a measure against a lag or a thread count). Each
scenario picks its own (Scenario.plots() in scenarios/); report.plots()
only imports matplotlib and asks each scenario of the runs. plt is
matplotlib.pyplot, passed in: nothing here imports matplotlib."""

import os

from . import stats

REPEAT_STYLES = ("-", "--", ":", "-.")


def line_style(runs, r):
    """matplotlib style of run r among runs: one colour per arm (in the
    order the arms first appear), one line style per repeat (solid, dashed,
    dotted, dash-dot), so that an arm's repeats read as one series."""
    arms = list(dict.fromkeys(x["arm"] for x in runs))
    return {"color": f"C{arms.index(r['arm']) % 10}",
            "linestyle": REPEAT_STYLES[(int(r.get("repeat") or 1) - 1) % len(REPEAT_STYLES)]}


#: an interval whose tps is this many times the run's median is sysbench's
#: report glitch, not throughput: at 4096 threads its starved report thread
#: printed second 27 at 1,198,448 tps, then second 29 twice and no 28;
#: left out of the plot
TPS_GLITCH = 20


def plotted_tps(intervals):
    """tps per interval for the plot: None (a gap) where sysbench's report
    is over TPS_GLITCH times the run's median; the run's figures come from
    sysbench's totals, not from these."""
    values = [iv.get("tps") for iv in intervals]
    median = stats.percentile(values, 50)
    return [None if v is not None and median and v > TPS_GLITCH * median else v
            for v in values]


def default_label(r, style):
    """A run's label on history_tps()'s plot (style: its line_style(), which
    the function may change)."""
    return f"{r['arm']}#{r['repeat']}"


def history_tps(plt, outdir, name, runs, label=default_label, mark=None):
    """NAME-history-tps.png: three panels over the seconds of each run, its
    history length (the lags dotted), tps and latency p95 per second; a
    line per run (line_style()). label(run, style): the run's label, which
    may change its style; mark(axes, runs): more on the panels (a span
    shaded). Returns the file's name."""
    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(9, 9), sharex=True)
    for r in runs:
        style = dict(line_style(runs, r), linewidth=1)
        text = label(r, style)
        t = [s["t"] for s in r["samples"]]
        h = [s.get("innodb_history_list_length") for s in r["samples"]]
        ax1.plot(t, h, label=text, **style)
        ax2.plot([iv["t"] for iv in r["intervals"]], plotted_tps(r["intervals"]),
                 label=text, **style)
        ax3.plot([iv["t"] for iv in r["intervals"]],
                 [iv.get("lat_ms") for iv in r["intervals"]], label=text, **style)
    lags = sorted({r["lag"] for r in runs if r.get("lag")})
    for lag in lags:
        ax1.axhline(lag, color="k", linestyle=":", linewidth=1)
    if mark:
        mark((ax1, ax2, ax3), runs)
    ax1.set_ylabel("history list length" + (" (dotted: target)" if lags else ""))
    ax2.set_ylabel(f"tps (over {TPS_GLITCH}x the median: dropped)")
    ax3.set_ylabel("latency p95 per second (ms)")
    ax3.set_yscale("log")
    ax3.set_xlabel("seconds")
    ax1.legend(fontsize=7)
    ax1.set_title(name)
    fig.tight_layout()
    made = f"{name}-history-tps.png"
    fig.savefig(os.path.join(outdir, made), dpi=80)
    plt.close(fig)
    return made


def arm_lines(plt, outdir, made, series, xlabel, ylabel, xscale=None, yscale=None,
              extra=None, legend_size=8):
    """made (a PNG's name): a line per arm through its points, sorted by x.
    series {arm: [(x, y)]}; xscale, yscale: matplotlib's (name, options);
    extra(ax): more lines before the legend. Returns made."""
    fig, ax = plt.subplots(figsize=(7, 5))
    for arm, pts in series.items():
        pts = sorted(pts)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=arm)
    if extra:
        extra(ax)
    for scale, setter in ((xscale, ax.set_xscale), (yscale, ax.set_yscale)):
        if scale:
            setter(scale[0], **scale[1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, made), dpi=80)
    plt.close(fig)
    return made
