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

"""purgebench's command line: the options, checked (parse_args(), also as
--check-args before BUILD/run sets up and builds), the notes of options a
scenario ignores, attach mode's connection."""

import argparse
import os
import re
import sys

from . import insertbench, snapshot, workloads
from .scenarios import (DEFAULT_SCENARIOS, LABEL_RE, SCENARIOS, TCP_SCENARIOS, ib_plan)
from .server import Conn


def parse_args(argv, check_only=False):
    """The options, checked. check_only (--check-args, before BUILD/setup):
    the same checks, except those that need what set-up installs."""
    ap = argparse.ArgumentParser(
        prog="purgebench",
        description="purgebench: the fork's benchmark harness (docs/benchmarks.md).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="The fork against Debian's stock 10.11.18, every arm on both, interleaved\n"
               "(tools/install-stock-server unpacks it once, without a service), from the\n"
               "top of the clone:\n"
               "  BUILD/run --compare-server \"$(tools/install-stock-server --path)\"\n\n"
               "Two more commands (each has --help):\n"
               "  purgebench report DIR...        report.html of a results directory again\n"
               "  purgebench compare A B [--out DIR]  two results directories of the same\n"
               "                                  arms, made at different times: B over A")
    ap.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                    help=f"any of {', '.join(SCENARIOS)}, or all "
                         f"(default: {' '.join(DEFAULT_SCENARIOS)})")
    ap.add_argument("--server", default=None, metavar="PATH",
                    help="the mariadbd to benchmark, A (default: the fork's release build, "
                         "build/release/sql/mariadbd; Debian's: see --compare-server)")
    ap.add_argument("--basedir", default=None, metavar="DIR",
                    help="its basedir, if not the parent of its bin/ or sbin/")
    ap.add_argument("--arms", default=None,
                    help="throttle arms for the fork: any of formula,uncoupled,adaptive "
                         "(default formula,adaptive); the unthrottled arm always runs; "
                         "--arms unthrottled runs it alone")
    ap.add_argument("--drains", type=drain_widths, default=None, metavar="N[,N...]",
                    help="run every arm once per innodb_purge_drain_rsegs width, e.g. 0,16 "
                         "(arms ARM+drainN; default: leave the variable alone)")
    ap.add_argument("--workload", default=None, metavar="NAME|FILE.lua",
                    help="the sysbench workload every scenario runs instead of its own: one "
                         "of sysbench's scripts (oltp_write_only, oltp_update_index, "
                         "oltp_insert, ...: an unknown name lists them) or your Lua file")
    ap.add_argument("--sb-option", action="append", default=[], type=sb_option,
                    metavar="KEY=VALUE",
                    help="an option of the workload's script, passed to sysbench as "
                         "--KEY=VALUE (repeatable), e.g. delete_inserts=10")
    ap.add_argument("--sweep-threads", type=thread_counts, default=None, metavar="N[,N...]",
                    help="thread-sweep: the thread counts (default 1,4,16,64,256,1024; "
                         "--full also 4096)")
    ap.add_argument("--switch", type=switch, default=None, metavar="VAR=V1,V2[,...]",
                    help="thread-sweep: one arm per value of a global variable, e.g. "
                         "innodb_undo_log_compact_init=ON,OFF (the default on the fork; "
                         "with --compare-server and no --switch: each server as it is)")
    ap.add_argument("--warehouses", type=positive, default=None, metavar="N",
                    help="tpcc, ch: TPC-C warehouses (default 2, --full 10)")
    ap.add_argument("--ac-threads", type=positive, default=None, metavar="N",
                    help="ch: analytical query threads (default 1, --full 2)")
    ap.add_argument("--check-time", type=positive, default=None, metavar="S",
                    help="tpcc, ch: seconds that go-tpc's consistency check may take after "
                         "each run; a check still running then is stopped, its queries "
                         "killed, and the conditions it finished reported (default 60; its "
                         "condition 3.3.2.10 takes minutes even at 1 warehouse)")
    ap.add_argument("--full", action="store_true", help="seed scale (long)")
    ap.add_argument("--repeats", type=positive, default=None,
                    help="repeats of each arm, their order rotated (default 1; 2 for the "
                         "default run, no SCENARIO given)")
    ap.add_argument("--time", type=positive, default=None, metavar="S",
                    help="seconds per run (override; insert-benchmark: per query step)")
    ap.add_argument("--threads", type=positive, default=None, metavar="N",
                    help="threads for backlog-vs-lag and purge-capacity; insert-benchmark: "
                         "writers, and as many readers in the query steps (default 2)")
    ap.add_argument("--tables", type=positive, default=None, metavar="N",
                    help="sysbench tables (override)")
    ap.add_argument("--rows", type=positive, default=None, metavar="N",
                    help="rows per table (override; insert-benchmark: the table's rows, "
                         "of which l.i1 inserts 40%% and l.i2 10%%)")
    ap.add_argument("--lags", type=lags, default=None, metavar="N[,N...]",
                    help="innodb_max_purge_lag values for backlog-vs-lag and insert-benchmark, "
                         "e.g. 10000,100000")
    ap.add_argument("--hold", type=positive, default=None, metavar="S",
                    help="snapshot-release: seconds the read view is held (default 30, "
                         "--full 300); --time is the load before it")
    ap.add_argument("--release-forms", type=release_forms, default=None,
                    metavar="continue,stop",
                    help="snapshot-release: the load goes on after the release (continue), "
                         "stops at it (stop, MDEV-16260's form), or both (default)")
    ap.add_argument("--rates", type=rates, default=None, metavar="N[,N...]",
                    help="purge-capacity: the paced write rates to try, transactions per "
                         "second, in increasing order (default 500,1000,2000,4000,8000, with --full "
                         "also 16000); an unpaced run follows while purge keeps up")
    ap.add_argument("--option", action="append", default=[], type=cnf_option,
                    metavar="VAR=VALUE",
                    help="extra my.cnf setting (repeatable)")
    ap.add_argument("--cpu-load", type=cpu_load, default=0, metavar="N",
                    help="N processes spinning on the CPU while each run's load runs, as other "
                         "work on a busy host (default 0)")
    ap.add_argument("--out", default=None, help="results directory (default results/<time>)")
    ap.add_argument("--reuse-datadir", action="store_true",
                    help="allow an existing data directory under --out")
    att = ap.add_argument_group(
        "attach mode: a server you deployed",
        "Benchmark a running server that purgebench did not start: the clients and the\n"
        "sampler connect to it; purgebench creates and drops its own schema, records\n"
        "the server's version and variables, never shuts it down, and restores every\n"
        "global variable it changed (restore-globals.sql, written before any change).\n"
        "The backlog is the drain after each run: seconds until the history is under\n"
        "the target and zero, sampled.")
    att.add_argument("--host", default=None, metavar="H",
                     help="the server's host (TCP; with --port, default 3306)")
    att.add_argument("--port", type=port_number, default=None, metavar="P",
                     help="its TCP port (default 3306)")
    att.add_argument("--socket", default=None, metavar="S",
                     help="its Unix socket, instead of --host")
    att.add_argument("--user", default=None, metavar="U",
                     help="the user the harness connects as (default root); it needs to "
                          "create and drop the schema and to SET GLOBAL")
    att.add_argument("--password-file", default=None, metavar="F",
                     help="a file whose first line is the user's password (default: none)")
    att.add_argument("--schema", default=None, metavar="NAME",
                     help="the schema purgebench creates and drops (default purgebench); "
                          "one that exists already is refused")
    att.add_argument("--drain-timeout", type=positive, default=None, metavar="S",
                     help="the longest the drain after a run is sampled (default 300)")
    cmp = ap.add_argument_group(
        "comparing servers",
        "A is --server, B is --compare-server; or any number with --server-list.\n"
        "Arm names carry the server's label (fork:unthrottled, stock:unthrottled); an\n"
        "arm that sets a variable a server lacks is skipped on it, with a note, and\n"
        "my.cnf settings a server does not know are left out of its my.cnf and\n"
        "listed; each table gets a column of each server's median over the first\n"
        "server's for the same arm, paired by repeat, measured in the same run.")
    cmp.add_argument("--compare-server", default=None, metavar="PATH",
                     help="a second mariadbd, B: each arm of each scenario runs on A, then on "
                          "B (A, B, A, B, ...), each on its own data directory under --out. "
                          "Debian's stock 10.11.18: tools/install-stock-server prints its path")
    cmp.add_argument("--compare-basedir", default=None, metavar="DIR",
                     help="B's basedir, if not the parent of its bin/ or sbin/")
    cmp.add_argument("--label", default=None, metavar="LABEL",
                     help="A's name in arm names, the report and server-LABEL/ (default fork)")
    cmp.add_argument("--compare-label", default=None, metavar="LABEL",
                     help="B's name (default stock)")
    cmp.add_argument("--server-list", type=server_list, default=None,
                     metavar="LABEL=PATH[:BASEDIR],...",
                     help="two or more servers, the first the reference, e.g. "
                          "fork=build,stock-10.5=build-stock-10.5,stock-10.11=~/.cache/"
                          "purgelab/stock/10.11.18-0+deb12u1: PATH is a mariadbd, or a "
                          "directory holding one (a build tree, a superbuild directory, "
                          "an unpacked Debian tree); every arm runs on each, interleaved, "
                          "the servers' order rotated per repeat. Instead of --server, "
                          "--compare-server and their --label options")
    a = ap.parse_args(argv)
    for sc in a.scenarios:
        if sc not in SCENARIOS + ("all",):
            ap.error(f"unknown scenario '{sc}' (choose from {', '.join(SCENARIOS)}, all)")
    if not a.scenarios:
        a.scenarios = list(DEFAULT_SCENARIOS)
        # the default run shows medians of two repeats in rotated order:
        # this machine's run-to-run noise is about +-10%
        a.repeats = a.repeats or 2
    elif "all" in a.scenarios:
        a.scenarios = list(SCENARIOS)
    a.repeats = a.repeats or 1
    a.given = {o for o in OPTION_USERS if getattr(a, o.lstrip("-").replace("-", "_"))
               not in (None, [])}
    a.arms = [x for x in (a.arms or "formula,adaptive").split(",") if x]
    a.check_time = a.check_time or 60
    bad = [x for x in a.arms
           if x not in ("formula", "uncoupled", "adaptive", "unthrottled")]
    if bad:
        ap.error(f"--arms {bad[0]}: choose from formula, uncoupled, adaptive "
                 "(unthrottled alone: --arms unthrottled)")
    for opt in a.sb_option:
        key = opt.lstrip("-").partition("=")[0]
        if key in insertbench.SET_BY_HARNESS:
            ap.error(f"--sb-option {opt[2:]}: purgebench sets --{key} for each "
                     f"insert-benchmark step itself")
    if insertbench.SCENARIO in a.scenarios:
        try:
            ib_plan(a)
        except ValueError as e:
            ap.error(f"insert-benchmark: {e}; raise --rows, or lower --time or --threads")
    if a.workload:
        try:
            a.workload = workloads.resolve(a.workload)
        except workloads.WorkloadError as e:
            # before BUILD/setup (--check-args) sysbench may not be installed
            # yet: its scripts are checked again once it is
            if not (check_only and not os.path.isdir(workloads.SYSBENCH_DIR)):
                ap.error(str(e))
    if (a.sweep_threads or a.switch) and "thread-sweep" not in a.scenarios:
        ap.error("--sweep-threads and --switch are thread-sweep's: add the scenario "
                 "thread-sweep")
    if a.server_list:
        given = [o for o, v in (("--server", a.server), ("--basedir", a.basedir),
                                ("--compare-server", a.compare_server),
                                ("--compare-basedir", a.compare_basedir), ("--label", a.label),
                                ("--compare-label", a.compare_label)) if v is not None]
        if given:
            ap.error(f"--server-list names every server with its label: leave out "
                     f"{', '.join(given)}")
    elif not a.compare_server:
        given = [o for o, v in (("--compare-basedir", a.compare_basedir), ("--label", a.label),
                                ("--compare-label", a.compare_label)) if v is not None]
        if given:
            ap.error(f"{', '.join(given)}: only with --compare-server")
    a.label = ("attached" if a.host or a.socket else "fork") if a.label is None else a.label
    a.compare_label = "stock" if a.compare_label is None else a.compare_label
    for opt, label in (("--label", a.label), ("--compare-label", a.compare_label)):
        if not LABEL_RE.fullmatch(label):
            ap.error(f"{opt} '{label}': use 1-32 letters, digits, '.', '_', '+' or '-', "
                     "starting with a letter or digit (it names arms and a directory)")
    if a.compare_server and a.label == a.compare_label:
        ap.error(f"--label and --compare-label are both '{a.label}'; give the servers "
                 "different names")
    a.attach = attach_conn(ap, a)
    if check_only:
        # (not one that BUILD/run's build of the release flavour makes)
        built = os.path.join(os.environ.get("PURGELAB_BUILD_DIR") or
                             os.path.join(REPO, "build"), "release")
        for opt, path in (("--server", a.server), ("--compare-server", a.compare_server)):
            if path is None or os.path.abspath(path).startswith(built + os.sep):
                continue
            if not os.access(os.path.expanduser(path), os.X_OK):
                ap.error(f"{opt} {path}: no such executable")
    unused, a.notes = ignored_options(a.scenarios, a.given, a.sb_option)
    if unused:
        ap.error(unused)
    return a


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the options that only some scenarios use, and which: any other scenario
# of a run ignores it (a note), a run where none uses it is an error
OPTION_USERS = {
    "--threads": ("backlog-vs-lag", "purge-capacity", "tpcc", "ch", "insert-benchmark",
                  "snapshot-release"),
    "--tables": ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
                 "thread-sweep", "snapshot-release"),
    "--rows": ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
               "thread-sweep", "insert-benchmark", "snapshot-release"),
    "--lags": ("backlog-vs-lag", "tpcc", "ch", "insert-benchmark", "snapshot-release"),
    "--arms": ("history-growth", "backlog-vs-lag", "tpcc", "ch", "insert-benchmark",
               "snapshot-release"),
    "--hold": ("snapshot-release",),
    "--release-forms": ("snapshot-release",),
    "--rates": ("purge-capacity",),
    "--warehouses": ("tpcc", "ch"),
    "--check-time": ("tpcc", "ch"),
    "--ac-threads": ("ch",),
    "--workload": ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
                   "thread-sweep", "snapshot-release"),
}
# what a scenario does instead of an option it ignores: (option, scenario)
# or the option alone
IGNORES = {
    "--threads": "it runs its own thread counts",
    ("--threads", "thread-sweep"): "its thread counts are --sweep-threads'",
    "--tables": "it has its own tables",
    ("--rows", "tpcc"): "its data is --warehouses'",
    ("--rows", "ch"): "its data is --warehouses'",
    "--lags": "it sets no innodb_max_purge_lag target",
    "--arms": "it runs its own arms",
    "--workload": "it runs its own client",
}
SB_USERS = OPTION_USERS["--workload"]


def ignored_options(scenarios, given, sb_options=()):
    """(error or None, [note]) for the options given that a scenario of
    this run does not use: an option that none of them uses is an error
    (it would change nothing), one that some ignore gets a note per
    scenario that ignores it."""
    notes = []
    for opt in sorted(given):
        users = OPTION_USERS[opt]
        mine = [sc for sc in scenarios if sc in users]
        if not mine:
            return (f"{opt} is used only by {', '.join(users)}; this run has "
                    f"{' '.join(scenarios)}: add one of those scenarios or leave {opt} out",
                    [])
        for sc in scenarios:
            if sc not in users:
                why = IGNORES.get((opt, sc)) or IGNORES.get(opt)
                notes.append(f"note: {sc} ignores {opt}" + (f" ({why})" if why else ""))
    ib = [o for o in sb_options if insertbench.is_script_option(o)]
    other = [o for o in sb_options if not insertbench.is_script_option(o)]
    for opts, users in ((other, SB_USERS), (ib, (insertbench.SCENARIO,))):
        if not opts:
            continue
        mine = [sc for sc in scenarios if sc in users]
        if not mine:
            return (f"--sb-option {' '.join(o[2:] for o in opts)}: only "
                    f"{', '.join(users)} pass(es) it to its script; this run has "
                    f"{' '.join(scenarios)}", [])
        notes += [f"note: {sc} ignores --sb-option {' '.join(o[2:] for o in opts)}"
                  for sc in scenarios if sc not in users]
    return None, notes


# where a mariadbd is under a directory given to --server-list: its own
# directory, a superbuild
# directory (build/, build-stock-10.5/), a build tree (build/release), an
# installation or a tarball, Debian's packages unpacked (install-stock-server)
SERVER_IN_DIR = ("mariadbd", "release/sql/mariadbd", "sql/mariadbd", "usr/sbin/mariadbd",
                 "sbin/mariadbd", "bin/mariadbd")


def find_server(path):
    """--server-list's PATH: a mariadbd as it is, or the one under a
    directory (SERVER_IN_DIR, the first found); a directory without one is
    an error. A path that does not exist is left for Installation to
    report."""
    path = os.path.expanduser(path)
    if not os.path.isdir(path):
        return path
    for rel in SERVER_IN_DIR:
        p = os.path.join(path, rel)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    raise argparse.ArgumentTypeError(
        f"no mariadbd under {path} (looked for {', '.join(SERVER_IN_DIR)}); "
        "build it (BUILD/build, BUILD/build stock-10.5) or give the binary's path")


def server_list(text):
    """--server-list LABEL=PATH[:BASEDIR],...: [(label, mariadbd, basedir or
    None)], two or more, labels distinct."""
    out = []
    for item in text.split(","):
        label, eq, rest = item.strip().partition("=")
        if not eq or not rest:
            raise argparse.ArgumentTypeError(
                f"'{item}': give LABEL=PATH, e.g. fork=build/release/sql/mariadbd")
        if not LABEL_RE.fullmatch(label):
            raise argparse.ArgumentTypeError(
                f"label '{label}': use 1-32 letters, digits, '.', '_', '+' or '-', starting "
                "with a letter or digit (it names arms and a directory)")
        if label in [x[0] for x in out]:
            raise argparse.ArgumentTypeError(f"label '{label}' is given twice")
        path, colon, basedir = rest.partition(":")
        if colon and not basedir:
            raise argparse.ArgumentTypeError(f"'{item}': an empty BASEDIR after ':'")
        out.append((label, find_server(path), os.path.expanduser(basedir) if basedir else None))
    if len(out) < 2:
        raise argparse.ArgumentTypeError(
            f"'{text}': give two or more servers (one alone: --server PATH)")
    return out


def whole_numbers(text, what, example):
    """Comma-separated whole numbers, for an option's type."""
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': give {what}, e.g. {example}")


def counts(text, what, example):
    """Comma-separated whole numbers, each 0..64, for an option's type."""
    values = whole_numbers(text, what, example)
    bad = [n for n in values if not 0 <= n <= 64]
    if bad:
        raise argparse.ArgumentTypeError(f"{bad[0]}: {what} range from 0 to 64")
    return values


def release_forms(text):
    """--release-forms: continue, stop or both."""
    forms = [f.strip() for f in text.split(",") if f.strip()]
    bad = [f for f in forms if f not in snapshot.FORMS]
    if bad or not forms or len(set(forms)) != len(forms):
        raise argparse.ArgumentTypeError(f"'{text}': give continue, stop or continue,stop")
    return forms


def port_number(text):
    """--port: a TCP port, 1..65535."""
    n = positive(text)
    if n > 65535:
        raise argparse.ArgumentTypeError(f"'{text}': a port is 1..65535")
    return n


def attach_conn(ap, a):
    """Attach mode's Conn from --host/--port/--socket/--user/--password-file/
    --schema, or None without --host and --socket; the options that belong
    to a server the harness starts are refused with it."""
    mine = [o for o, v in (("--port", a.port), ("--user", a.user),
                           ("--password-file", a.password_file), ("--schema", a.schema),
                           ("--drain-timeout", a.drain_timeout)) if v is not None]
    if a.host is None and a.socket is None:
        if mine:
            ap.error(f"{', '.join(mine)}: only in attach mode, with --host or --socket")
        a.drain_timeout = 300
        return None
    if a.host is not None and a.socket is not None:
        ap.error("--host and --socket: give one (TCP, or the server's Unix socket)")
    if a.socket is not None and a.port is not None:
        ap.error("--port is for --host (TCP); --socket needs none")
    theirs = [o for o, v in (("--server", a.server), ("--basedir", a.basedir),
                             ("--compare-server", a.compare_server),
                             ("--compare-basedir", a.compare_basedir),
                             ("--server-list", a.server_list))
              if v is not None] + (["--option"] if a.option else []) + \
        (["--reuse-datadir"] if a.reuse_datadir else [])
    if theirs:
        ap.error(f"{', '.join(theirs)}: for a server that purgebench starts; in attach "
                 "mode (--host/--socket) the server is yours: set its configuration there")
    tcp = [sc for sc in a.scenarios if sc in TCP_SCENARIOS]
    if tcp and a.socket is not None:
        ap.error(f"{', '.join(tcp)}: go-tpc connects over TCP only: give --host (and "
                 "--port) instead of --socket")
    password = None
    if a.password_file is not None:
        try:
            with open(os.path.expanduser(a.password_file)) as f:
                password = f.readline().rstrip("\r\n")
        except OSError as e:
            ap.error(f"--password-file {a.password_file}: {e.strerror}")
    schema = a.schema or "purgebench"
    if not re.fullmatch(r"[A-Za-z0-9_]{1,64}", schema):
        ap.error(f"--schema '{schema}': use 1-64 letters, digits or '_'")
    a.drain_timeout = a.drain_timeout or 300
    return Conn(socket=os.path.abspath(a.socket) if a.socket else None, host=a.host,
                port=a.port or 3306 if a.host else None, user=a.user or "root",
                password=password or None, db=schema)


def cnf_option(text):
    """--option VAR=VALUE: a my.cnf setting -> (VAR, VALUE)."""
    var, eq, value = text.partition("=")
    var = var.strip()
    if not eq or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", var):
        raise argparse.ArgumentTypeError(
            f"'{text}': give VAR=VALUE, e.g. innodb_max_purge_lag=10000 (a switch: VAR=ON)")
    return var, value.strip()


def positive(text):
    """A whole number of at least 1, for an option's type."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"'{text}': give a whole number of at least 1")
    return n


def sb_option(text):
    """--sb-option: KEY=VALUE -> --KEY=VALUE for sysbench."""
    try:
        return workloads.sb_option(text)
    except workloads.WorkloadError as e:
        raise argparse.ArgumentTypeError(str(e))


def thread_counts(text):
    """--sweep-threads: distinct positive thread counts, increasing."""
    values = whole_numbers(text, "thread counts", "1,4,16,64")
    if any(v <= 0 or v > 65536 for v in values) or values != sorted(set(values)):
        raise argparse.ArgumentTypeError(f"'{text}': give distinct thread counts from 1 to "
                                         "65536 in increasing order")
    return values


def switch(text):
    """--switch VAR=V1,V2: (variable, (values)), at least two distinct values."""
    var, eq, vals = text.partition("=")
    values = tuple(v.strip() for v in vals.split(",") if v.strip())
    if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var):
        raise argparse.ArgumentTypeError(f"'{text}': give VAR=V1,V2, e.g. "
                                         "innodb_undo_log_compact_init=ON,OFF")
    if len(values) < 2 or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"'{text}': give two or more distinct values")
    bad = [v for v in values if not re.fullmatch(r"[A-Za-z0-9_.+-]+", v)]
    if bad:
        raise argparse.ArgumentTypeError(f"'{bad[0]}': a value is a word or a number")
    return var, values


def lags(text):
    """--lags: innodb_max_purge_lag targets, each positive (0 would turn the
    throttle off)."""
    values = whole_numbers(text, "history lengths", "10000,100000")
    if any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"'{text}': give positive history lengths")
    return values


def rates(text):
    """--rates: increasing paced write rates, transactions per second."""
    values = whole_numbers(text, "transactions per second", "2000,4000,6000")
    if any(v <= 0 for v in values) or values != sorted(set(values)):
        raise argparse.ArgumentTypeError(f"'{text}': give positive rates in increasing order")
    return values


def cpu_load(text):
    """--cpu-load: spinning processes, 0..64."""
    if "," in text:
        raise argparse.ArgumentTypeError(f"'{text}': give one number of processes, e.g. 2")
    return counts(text, "spinning processes", "2")[0]


def drain_widths(text):
    """--drains: distinct innodb_purge_drain_rsegs widths, 0..64."""
    widths = counts(text, "innodb_purge_drain_rsegs widths", "0,16")
    if len(set(widths)) != len(widths):
        raise argparse.ArgumentTypeError(f"'{text}': a width is given twice")
    return widths


def report_parser():
    ap = argparse.ArgumentParser(
        prog="purgebench report",
        description="Write report.html beside summary.md in each results directory: one "
                    "page (tables with the Insert Benchmark colours, the plots beside it "
                    "linked), from its report.json (a directory saved before that: its "
                    "summary.md). A run writes it itself; this makes it again.")
    ap.add_argument("dirs", nargs="+", metavar="DIR",
                    help="a results directory (summary.md), or one that purgebench compare "
                         "wrote (compare.md: compare.html again)")
    ap.add_argument("--embed-plots", action="store_true",
                    help="put the plots in the page (data: URIs): one file to send on its "
                         "own, not only with its directory")
    return ap


def check_args(argv):
    """--check-args ARGS: parse and check ARGS as a run would, print what a
    scenario will ignore, and exit: BUILD/run does this before set-up and
    the build, so that a wrong option fails in seconds."""
    if argv and argv[0] == "report":
        report_parser().parse_args(argv[1:])
    elif argv and argv[0] == "compare":
        from . import compare
        compare.parse_args(argv[1:])
    else:
        for note in parse_args(argv, check_only=True).notes:
            print(f"purgebench: {note}", file=sys.stderr)
    return 0
