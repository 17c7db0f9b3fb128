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

"""The scenarios of purgebench: a registry of the scenario modules of this
package (each a Scenario of base.py: name, scale, options, arms, run loop,
tables), and what the harness sets up for all of them: the settings of the
servers it starts and the variables it records or sets.

SCENARIOS, SCALE, TCP_SCENARIOS and the option users are read off the
registry; the names that scenarios.py held before it became this package
stay importable from here."""

from . import (backlog_vs_lag, history_growth, insert_benchmark, purge_capacity, redo_per_trx,
               snapshot_release, thread_sweep, tpcc)
from .base import Scenario  # noqa: F401
from .insert_benchmark import ib_plan  # noqa: F401
from .purge_capacity import UNPARSED  # noqa: F401
# names that plan.py owns, kept importable from here
from ..plan import DEFAULT_SWITCH, LABEL_RE, STEP_SCENARIOS  # noqa: F401

# the registry, in the order of the report's tables and of `all`
REGISTRY = {s.name: s for s in (
    history_growth.SCENARIO, backlog_vs_lag.SCENARIO, redo_per_trx.SCENARIO,
    purge_capacity.SCENARIO, thread_sweep.SCENARIO, tpcc.TPCC, tpcc.CH,
    insert_benchmark.SCENARIO, snapshot_release.SCENARIO)}


def get(name):
    """The Scenario of a name (KeyError for an unknown one)."""
    return REGISTRY[name]


def of(name):
    """The Scenario of a name, or for a name the registry does not know (a
    results directory of another version of the harness) one with the
    interface's defaults: its plots, its measures."""
    if name in REGISTRY:
        return REGISTRY[name]
    other = Scenario()
    other.name = name
    return other


def sb_option_owner(option):
    """The scenario whose own script alone takes an --sb-option
    (Scenario.owns_sb_option()), or None: every other script takes it."""
    return next((s for s in REGISTRY.values() if s.owns_sb_option(option)), None)


def sb_options_for(test, options):
    """The --sb-options (--KEY=VALUE) that a script gets: a scenario's own
    script (own_script) those it owns, any other script those that no
    scenario owns."""
    own = [s for s in REGISTRY.values() if s.own_script and s.scale.get("test") == test]
    return [o for o in options if sb_option_owner(o) in (own[:1] or [None])]


SCENARIOS = tuple(REGISTRY)
# plan.Arm.parse() reads the last '@' part of their arms' names as the step
STEP_SCENARIOS.update(n for n, s in REGISTRY.items() if s.steps)
# scenarios whose client (go-tpc) connects over TCP: the server then listens
# on 127.0.0.1 only, on a free port
TCP_SCENARIOS = tuple(n for n, s in REGISTRY.items() if s.tcp)
DEFAULT_SCENARIOS = ("history-growth", "backlog-vs-lag")

# Scale: (small default, --full = seed scale), each scenario's own
SCALE = {n: s.scale for n, s in REGISTRY.items()}


def option_users(option):
    """The scenarios that use a scenario option (--threads, --lags, ...), in
    registry order."""
    return tuple(n for n, s in REGISTRY.items() if option in s.options)


BASE_CNF = {
    "innodb_buffer_pool_size": "2G",
    "innodb_log_file_size": "1G",
    "innodb_flush_log_at_trx_commit": "1",
    "innodb_flush_method": "O_DIRECT",
    "innodb_purge_threads": "4",
    "innodb_doublewrite": "ON",
}
RECORDED_VARS = ["version", "version_comment", "innodb_buffer_pool_size",
                 "innodb_log_file_size", "innodb_flush_log_at_trx_commit",
                 "innodb_flush_method", "innodb_purge_threads", "innodb_purge_batch_size",
                 "innodb_doublewrite", "max_connections"]


# variables that arms set: probed once per server at its first start
ARM_VARS = ("innodb_max_purge_lag", "innodb_max_purge_lag_delay", "innodb_purge_throttle",
            "innodb_purge_coupled_throttle", "innodb_undo_log_compact_init",
            "innodb_purge_drain_rsegs")
# what tools/install-stock-server leaves next to the usr/ it unpacked
STOCK_MARKER = "purgelab-stock.txt"
