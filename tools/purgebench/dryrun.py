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

"""--dry-run: the runs of an invocation in the order they would run
(servers x scenarios x arms x lags x repeats), by the scenarios' own
planning code, and an estimate of how long they would take. Nothing is
built, started, connected to or written."""

from . import gotpc, insertbench, scenarios
from .bench import Bench
from .plan import Target

RUN_OVERHEAD_S = 8      # per run: settings, waiting for purge, the shutdown or drain
START_S = 20            # per server: its first start (or connection)
LOAD_S_PER_WAREHOUSE = 45   # tpcc/ch: go-tpc's load, once per server


class NoServer:
    """What a scenario's planning asks of a server, answered with nothing."""
    socket = tcp_port = datadir = None

    def __getattr__(self, name):
        return lambda *a, **kw: None


class DryRun(Bench):
    """Bench's scenarios with every run recorded instead of measured; every
    server is taken to have the fork's variables (a stock one would skip
    the arms that need them)."""

    def __init__(self, args):        # Bench's state, no results directory
        self.args, self.full = args, args.full
        self.attach = getattr(args, "attach", None)
        if self.attach:
            servers = [(args.label, f"attached: {self.attach.where()}")]
        elif getattr(args, "server_list", None):
            servers = [(label, path) for label, path, _ in args.server_list]
        else:
            servers = [(args.label, args.server)]
            if args.compare_server:
                servers.append((args.compare_label, args.compare_server))
        labelled = len(servers) > 1
        self.servers = servers
        self.targets = [Target(label, None, "", labelled) for label, _ in servers]
        self.runs, self.failures, self.commands, self.noted = [], [], [], set()
        self.meta, self.secrets, self.stopped = {}, [], None
        self.sb_extra = list(args.sb_option)
        self.max_threads = 0
        self.planned = []           # [(target label, scenario, arm, lag, repeat, seconds)]
        self.loads = 0.0            # seconds of go-tpc loads

    def log(self, msg):
        pass

    def use(self, t):
        return NoServer()

    def start_all(self):
        pass

    def stop(self):
        pass

    def has_var(self, t, name):
        return True

    def run_arm(self, t, scenario, arm, settings, test, tables, rows, threads, seconds,
                repeat, estimate=None, **kw):
        extra = kw.get("extra") or {}
        lag = (settings or {}).get("innodb_max_purge_lag") or extra.get("lag")
        form = extra.get("release_form")
        self.planned.append((t.label, scenario, str(t.arm(arm)) + (f" ({form})" if form else ""),
                             lag or None, repeat,
                             estimate if estimate is not None else seconds))
        # a result that the scenario's own code reads on: purge kept up
        return dict(scenario=scenario, arm=str(t.arm(arm)), repeat=repeat, tps=None,
                    rate=kw.get("rate"), client_short=None,
                    samples=[{"innodb_history_list_length": 0} for _ in range(6)])

    # the scenarios' own steps that are not runs
    def gotpc_snapshot(self, t, binary, name, warehouses):
        self.loads += warehouses * LOAD_S_PER_WAREHOUSE

    def restore_snapshot(self, t):
        pass

    def gotpc_check(self, t, binary, warehouses):
        return {"check": "(dry run)"}

    def ib_step(self, t, arm, settings, step, repeat, extra=None):
        return self.run_arm(t, insertbench.SCENARIO, arm.at(step["name"]), settings,
                            insertbench.LUA, 1, step["table_rows"], step["threads"],
                            step["time_limit"], repeat, estimate=step["seconds"],
                            extra=dict(extra or {}, ib_step=step["name"]))

    def scenario(self, name):
        saved = gotpc.require
        gotpc.require = lambda: "go-tpc"      # found or not: nothing runs
        try:
            Bench.scenario(self, name)
        finally:
            gotpc.require = saved

    def text(self):
        """The plan as printed."""
        a = self.args
        lines = ["purgebench: dry run: nothing is built, started, connected to or written",
                 "servers: " + ", ".join(f"{label} ({where or 'the release build'})"
                                         for label, where in self.servers),
                 f"scenarios: {' '.join(a.scenarios)}; {a.repeats} repeat(s)"
                 + ("; --full" if a.full else ""),
                 "", f"{'#':>4}  {'server':<12} {'scenario':<18} {'arm':<28} {'lag':>9} "
                     f"{'repeat':>6} {'load s':>7}"]
        for i, (server, sc, arm, lag, r, s) in enumerate(self.planned, 1):
            lines.append(f"{i:>4}  {server:<12} {sc:<18} {arm:<28} "
                         f"{lag if lag else '-':>9} {r:>6} {s:>7.0f}")
        load = sum(p[5] for p in self.planned)
        total = (load + RUN_OVERHEAD_S * len(self.planned) + START_S * len(self.targets)
                 + self.loads)
        lines += ["", f"{len(self.planned)} runs, {load / 60:.1f} min of load; estimated "
                      f"duration {total / 60:.0f} min (about {RUN_OVERHEAD_S} s more per "
                      f"run, {START_S} s per server"
                      + (f", {self.loads / 60:.0f} min of go-tpc loads" if self.loads else "")
                      + "; sysbench's prepares and "
                      + ("the drains after each run" if self.attach else "the slow shutdowns")
                      + " not counted)",
                  "assumed: every server has the fork's variables (a server without them "
                  "skips the arms that need them)"]
        lines += [f"{sc}: {scenarios.get(sc).dry_run_note}" for sc in a.scenarios
                  if scenarios.get(sc).dry_run_note]
        return "\n".join(lines)


def main(args):
    """Print the plan of args (parsed options); 0."""
    d = DryRun(args)
    for sc in args.scenarios:
        d.scenario(sc)
    print(d.text())
    return 0
