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

"""The plan of a scenario's runs: the servers (Target), their arms, one per
--drains width, interleaved over the servers and rotated per repeat."""

import re

from .scenarios import DEFAULT_SWITCH


class Target:
    """One server under test: its programs, its data directory, the sbtest
    tables prepared there and the variables it has. Alone, its arms and
    meta keys are unprefixed, as they always were; when two servers are
    compared they carry its label ("fork:unthrottled", "fork: @@version")."""

    def __init__(self, label, inst, workdir, labelled):
        self.label = label
        self.inst = inst
        self.workdir = workdir
        self.prefix = f"{label}:" if labelled else ""
        self.meta_prefix = f"{label}: " if labelled else ""
        self.cnf_copy = f"my-{label}.cnf" if labelled else "my.cnf"
        self.server = None
        self.prepared = None    # (test, tables, rows) of its sbtest tables
        self.tcp_port = None    # 127.0.0.1 port, when a client needs TCP
        self.snapshot = None    # (scenario, warehouses) of data.prepared/
        self.vars = {}          # has_var answers (a binary's variables do not change)

    def running(self):
        s = self.server
        if getattr(s, "attached", False):
            return s.running()
        return s is not None and s.proc is not None

    def arm(self, name):
        """An arm's name as it appears in results and the report."""
        return self.prefix + name

    def owns(self, arm):
        return arm.startswith(self.prefix)


def with_drains(arms, drains, has_drain=True):
    """Each arm once per innodb_purge_drain_rsegs width of --drains (none:
    the arms as they are), named NAME+drainN[@LAG] for a width N > 0. A
    server without the variable (has_drain false) runs width 0 as it is:
    upstream's rotation."""
    if not drains:
        return arms

    def named(name, n):
        head, at, lag = name.partition("@")
        return f"{head}+drain{n}{at}{lag}" if n else name
    return [(named(name, n), dict(st, innodb_purge_drain_rsegs=n) if n or has_drain else st)
            for name, st in arms for n in drains]


DRAIN_RE = re.compile(r"\+drain\d+")


def unthrottled_for(name):
    """The unthrottled arm a backlog-vs-lag arm is compared with: the one at
    the same innodb_purge_drain_rsegs width (--drains)."""
    m = DRAIN_RE.search(name.partition("@")[0])
    return "unthrottled" + (m.group(0) if m else "")


def rotate(runs, repeat):
    """The runs of one repeat, their arms rotated by one per repeat (repeat
    1 as planned, repeat 2 from the second arm, ...), so that no arm always
    runs first: on this machine the first run after the tables are prepared
    was the fastest whatever its arm. runs: [(target, arm, ...)]; the runs of
    one arm (one per server) stay together, and their servers rotate the
    same way (repeat 2 of an arm on A, B, C runs B, C, A), so that no server
    always runs an arm first either."""
    groups = []
    for run in runs:
        if groups and groups[-1][0][1] == run[1]:
            groups[-1].append(run)
        else:
            groups.append([run])
    if not groups:
        return []
    k = (repeat - 1) % len(groups)
    return [run for g in groups[k:] + groups[:k]
            for run in g[(repeat - 1) % len(g):] + g[:(repeat - 1) % len(g)]]


def interleave(arm_lists, has_var):
    """The run order of one step over several servers: each arm on each
    server in turn (A's run, B's run, A's next arm, ...), arms in order of
    first appearance. arm_lists: [(target, [(arm, settings)])], each
    server's own arms. A server runs an arm of that name with its own
    settings; it skips an arm that it lacks a variable for (its own or, if
    it has no arm of that name, the other server's), with a note.
    Returns ([(target, arm, settings)], [note])."""
    names = []
    for _, arms in arm_lists:
        names += [name for name, _ in arms if name not in names]
    runs, notes = [], []
    for name in names:
        anyone = next(st for _, arms in arm_lists for n, st in arms if n == name)
        for t, arms in arm_lists:
            own = dict(arms).get(name)
            missing = [v for v in (anyone if own is None else own) if not has_var(t, v)]
            if missing:
                notes.append(f"  {t.label}: skipping {name}: needs "
                             f"{', '.join('@@' + v for v in missing)}, which it lacks")
            elif own is not None:
                runs.append((t, name, own))
    return runs, notes


def sweep_arms(switch, compared, has_default):
    """thread-sweep's arms on one server: one per value of --switch VAR
    (named VAR=VALUE); without it, one arm 'default' when two servers are
    compared, else the compact against the generic undo-page-init record
    (DEFAULT_SWITCH) where the server has that switch."""
    if switch:
        var, values = switch
        return [(f"{var}={v}", {var: v}) for v in values]
    if compared or not has_default:
        return [("default", {})]
    var, values = DEFAULT_SWITCH
    return [(f"{var}={v}", {var: v}) for v in values]


def sweep_plan(points, runs, repeats):
    """thread-sweep's run order: each thread count in turn, its repeats
    together, the arms of each repeat rotated (rotate()).
    runs: [(target, arm, settings)] from plan(); returns
    [(threads, repeat, target, arm, settings)]."""
    return [(threads, r, t, arm, st) for threads in points
            for r in range(1, repeats + 1) for t, arm, st in rotate(runs, r)]
