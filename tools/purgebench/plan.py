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

"""The plan of a scenario's runs: the servers (Target), their arms (Arm),
one per --drains width, interleaved over the servers and rotated per
repeat."""

import dataclasses
import re
from typing import Optional

# the scenarios whose arms run at several steps, each a run named ARM@STEP
# (Arm): a thread count, a rate, an Insert Benchmark step. The registry
# (scenarios/__init__.py) adds each Scenario with steps as it loads; every
# module that reads a run's arm imports it (this one is below it)
STEP_SCENARIOS = set()
# thread-sweep's arms when neither --switch nor --compare-server is given
DEFAULT_SWITCH = ("innodb_undo_log_compact_init", ("ON", "OFF"))
# a server's or run's label
LABEL_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,31}")


@dataclasses.dataclass(frozen=True)
class Arm:
    """One arm of a scenario: what a run sets and how its results are
    grouped. name: its mode ("unthrottled", "formula", "adaptive",
    "uncoupled", "compact", "generic", "stock", "rate", "default", or
    VAR=VALUE of --switch; results saved before may name one as RENAMED
    does); lag: the innodb_max_purge_lag
    target in its name; drain: the innodb_purge_drain_rsegs width of
    --drains (0 or None: not in the name); step: the thread count
    (thread-sweep, redo-per-trx), the rate (purge-capacity) or the Insert
    Benchmark's step; server: the label of its server when several are
    compared ("" alone).

    str() is its name in results, the report and runs.json:
    [SERVER:]NAME[+drainN][@LAG][@STEP]; parse() reads it back (for
    results saved before the Arm existed too)."""
    name: str
    lag: Optional[int] = None
    drain: Optional[int] = None
    step: Optional[str] = None
    server: str = ""

    def __str__(self):
        return ((f"{self.server}:" if self.server else "") + self.name
                + (f"+drain{self.drain}" if self.drain else "")
                + (f"@{self.lag}" if self.lag is not None else "")
                + (f"@{self.step}" if self.step is not None else ""))

    def replace(self, **kw):
        return dataclasses.replace(self, **kw)

    def at(self, step):
        """This arm at one step (threads, rate, Insert Benchmark step)."""
        return self.replace(step=str(step))

    def unthrottled(self):
        """The unthrottled arm this one is compared with: on the same server,
        at the same innodb_purge_drain_rsegs width and step."""
        return self.replace(name="unthrottled", lag=None)

    @classmethod
    def parse(cls, text, scenario=None):
        """An arm's name back as an Arm. In the scenarios whose arms have
        steps (STEP_SCENARIOS) the last '@' part is the step, the one before
        it (if any) the lag; elsewhere an '@' part is the lag."""
        server = ""
        head, colon, rest = text.partition(":")
        if colon and LABEL_RE.fullmatch(head):
            server, text = head, rest
        parts = text.split("@")
        step = parts.pop() if scenario in STEP_SCENARIOS and len(parts) > 1 else None
        lag = None
        if len(parts) == 2 and parts[1].isdigit():
            lag = int(parts.pop())
        name = "@".join(parts)
        drain = None
        m = DRAIN_RE.fullmatch(name)
        if m:
            name, drain = m.group(1), int(m.group(2))
        return cls(name, lag, drain, step, server)


# arms' names of results saved before they were renamed -> their names now:
# history-growth's unthrottled arm was "no-throttle"
RENAMED = {"no-throttle": "unthrottled"}


def current_name(text, scenario=None):
    """A saved arm's name as the arm is named now (RENAMED), its server,
    drain width, lag and step kept; any other name as it is."""
    arm = Arm.parse(text, scenario)
    if arm.name not in RENAMED:
        return text
    return str(arm.replace(name=RENAMED[arm.name]))


def arm_of(run):
    """The Arm of a run (Bench.runs, runs.json, a failure)."""
    return Arm.parse(run["arm"], run.get("scenario"))


DRAIN_RE = re.compile(r"(.*)\+drain(\d+)")


class Target:
    """One server under test: its programs, its data directory, the sbtest
    tables prepared there and the variables it has. Alone, its arms and
    meta keys are unprefixed, as they always were; when two servers are
    compared they carry its label ("fork:unthrottled", "fork: @@version")."""

    def __init__(self, label, inst, workdir, labelled):
        self.label = label
        self.inst = inst
        self.workdir = workdir
        self.arm_server = label if labelled else ""     # its Arms' server
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

    def arm(self, arm):
        """An Arm of this server, as it appears in results and the report
        (with the server's label when several are compared)."""
        return arm.replace(server=self.arm_server)

    def owns(self, arm):
        """Whether an Arm (Arm.parse() of a result's name) ran here."""
        return arm.server == self.arm_server


def with_drains(arms, drains, has_drain=True):
    """Each arm once per innodb_purge_drain_rsegs width of --drains (none:
    the arms as they are), its drain that width (named NAME+drainN[@LAG]
    for a width N > 0). A server without the variable (has_drain false)
    runs width 0 as it is: upstream's rotation."""
    if not drains:
        return arms
    return [(arm.replace(drain=n or None),
             dict(st, innodb_purge_drain_rsegs=n) if n or has_drain else st)
            for arm, st in arms for n in drains]


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
        return [(Arm(f"{var}={v}"), {var: v}) for v in values]
    if compared or not has_default:
        return [(Arm("default"), {})]
    var, values = DEFAULT_SWITCH
    return [(Arm(f"{var}={v}"), {var: v}) for v in values]


def sweep_plan(points, runs, repeats):
    """thread-sweep's run order: each thread count in turn, its repeats
    together, the arms of each repeat rotated (rotate()).
    runs: [(target, arm, settings)] from plan(); returns
    [(threads, repeat, target, arm, settings)]."""
    return [(threads, r, t, arm, st) for threads in points
            for r in range(1, repeats + 1) for t, arm, st in rotate(runs, r)]
