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

"""SCENARIO-setpoint.png: set-point tracking, per arm with a target (a
throttle at a lag): the history's error against the target (history length
minus innodb_max_purge_lag) over the run, and beside it, on its own axis,
the throttle's commit limit (Innodb_purge_throttle_commit_limit, the
adaptive throttle's actuator), one line per repeat. How closely and how
calmly a throttle holds the history at its target, which a table's p95
alone does not show."""

import os

from . import plan

HISTORY = "innodb_history_list_length"
LIMIT = "innodb_purge_throttle_commit_limit"


def target_of(run):
    """The run's target: its arm's lag (ARM@LAG), else its lag; None for an
    arm without one (unthrottled)."""
    return plan.arm_of(run).lag or run.get("lag")


def series(run):
    """(t, error, limit) of a run with a target: seconds, history minus the
    target, the commit limit (None where a sample lacks it); None for a run
    without a target or samples."""
    target = target_of(run)
    samples = [s for s in run.get("samples") or [] if s.get("t") is not None]
    if not target or not samples:
        return None
    t = [s["t"] for s in samples]
    error = [None if s.get(HISTORY) is None else s[HISTORY] - target for s in samples]
    limit = [s.get(LIMIT) for s in samples]
    return t, error, limit


def arms(runs):
    """{arm: [run]} of the runs with a target, in order of first appearance."""
    out = {}
    for r in runs:
        if series(r) is not None:
            out.setdefault(r["arm"], []).append(r)
    return out


def plot(plt, outdir, scenario, runs):
    """Draw SCENARIO-setpoint.png, a panel per arm with a target; returns its
    name, or None when no run has a target (nothing to track)."""
    by_arm = arms(runs)
    if not by_arm:
        return None
    fig, axes = plt.subplots(len(by_arm), 1, figsize=(9, 2.8 * len(by_arm)), squeeze=False)
    for ax, (arm, rs) in zip([row[0] for row in axes], by_arm.items()):
        right = None
        for r in rs:
            t, error, limit = series(r)
            run = f"#{r['repeat']}" + (f" ({r['release_form']})" if r.get("release_form") else "")
            line, = ax.plot(t, error, linewidth=1, label=f"history - target {run}")
            if any(v for v in limit if v is not None):
                right = right or ax.twinx()
                right.plot(t, limit, linewidth=1, linestyle="--", color=line.get_color(),
                           label=f"commit limit {run}")
        ax.axhline(0, color="k", linestyle=":", linewidth=1)
        ax.set_title(f"{arm}: target {target_of(rs[0]):,}", fontsize=10)
        ax.set_ylabel("history - target", fontsize=8)
        ax.tick_params(labelsize=8)
        handles, labels = ax.get_legend_handles_labels()
        if right is not None:
            right.set_ylabel("commit limit (dashed)", fontsize=8)
            right.tick_params(labelsize=8)
            more = right.get_legend_handles_labels()
            handles, labels = handles + more[0], labels + more[1]
        else:
            ax.text(0.99, 0.95, "no commit limit in force", transform=ax.transAxes,
                    ha="right", va="top", fontsize=7)
        ax.legend(handles, labels, fontsize=7, loc="upper left")
    axes[-1][0].set_xlabel("seconds")
    fig.suptitle(f"{scenario}: set-point tracking, the history's error against the target "
                 "(dotted: on target) and the throttle's commit limit", fontsize=10)
    fig.tight_layout()
    name = f"{scenario}-setpoint.png"
    fig.savefig(os.path.join(outdir, name), dpi=80)
    plt.close(fig)
    return name
