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
runs.json): each scenario's own (its module under scenarios/, medians over
the repeats, the relative columns paired by repeat), in the registry's
order; the opening lines of failed runs."""

from .cells import (DRAIN, DRAIN_HEADER, LATENCY_HEADER, backlog_cell,  # noqa: F401
                    drain_cell, fmt, held_table, latency_cell, paired_ratio, relative_header,
                    short, spread, target_sentences)
from .scenarios import REGISTRY, SCENARIOS, UNPARSED  # noqa: F401
from .scenarios.base import TableContext


def summary_tables(runs, targets):
    """The summary's tables, [(title, header, rows)], per scenario of the runs
    (targets: the Bench's servers, the first the reference)."""
    ctx = TableContext(runs, targets)
    for s in REGISTRY.values():     # what one's runs tell the others' tables
        s.share(ctx)
    out = []
    for sc in sorted({r["scenario"] for r in runs}, key=SCENARIOS.index):
        out.extend(REGISTRY[sc].tables(ctx))
    return out


def headline(runs):
    """The summary's opening: each scenario's sentences (Scenario.headline(),
    medians over the repeats), in the order of their headline_order: of a
    scenario with targets, one per arm and target (history p95 as a
    multiple of the target, throughput as a share of unthrottled, paired
    by repeat, latency p95)."""
    out = []
    for s in sorted((s for s in REGISTRY.values() if s.headline_order is not None),
                    key=lambda s: s.headline_order):
        out += s.headline([r for r in runs if r["scenario"] == s.name])
    return out


def failed_lines(failures, stopped=None):
    """summary.md's opening when runs failed or the invocation stopped
    early: one line per failed run, and why it stopped."""
    out = [f"{f['scenario']} {f['arm']} #{f['repeat']}: "
           f"{(f['error'].splitlines() or ['?'])[0][:300]}" for f in failures]
    if stopped:
        out.append(f"The invocation stopped early: {stopped}; the runs after it were not made.")
    return out
