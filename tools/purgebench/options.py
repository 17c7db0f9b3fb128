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

from . import compare, optionfile, snapshot, workloads
from .htmlreport import report_parser  # noqa: F401  (options.report_parser as before)
from .scenarios import (DEFAULT_SCENARIOS, LABEL_RE, REGISTRY, SCENARIOS, TCP_SCENARIOS,
                        option_users, sb_option_owner)
from .server import Conn, sysbench_quoted


def users(option):
    """The scenarios that use a scenario option, for its help."""
    names = option_users(option)
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def scale_text(scenario, key):
    """A scenario's default of a scale key and its --full one, for a help:
    '256' or '16 (--full 64)' (lists joined by ',')."""
    def text(v):
        return ",".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)
    small, full = (text(v) for v in REGISTRY[scenario].scale[key])
    return small if small == full else f"{small} (--full {full})"


def scale_of(option, key):
    """scale_text() of the first scenario that takes an option and has the
    scale key (an option of one scenario, or of several alike)."""
    sc = next(s for s in REGISTRY.values()
              if option in s.options + s.own_options and key in s.scale)
    return scale_text(sc.name, key)


def defaults(option, key):
    """The defaults of a scale key in the scenarios that use an option, for
    its help: 'backlog-vs-lag 256, purge-capacity 16 (--full 64), ...'."""
    return ", ".join(f"{sc} {scale_text(sc, key)}" for sc in option_users(option)
                     if key in REGISTRY[sc].scale)


def parse_args(argv, check_only=False):
    """The options, checked. check_only (--check-args, before BUILD/setup):
    the same checks, except those that need what set-up installs."""
    ap = argparse.ArgumentParser(
        prog="purgebench", allow_abbrev=False,
        description="purgebench: the fork's benchmark harness (docs/benchmarks.md).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="The fork against Debian's stock 10.11.18, every arm on both, interleaved\n"
               "(tools/install-stock-server unpacks it once, without a service), from the\n"
               "top of the clone:\n"
               "  BUILD/run --compare-server \"$(tools/install-stock-server --path)\"\n\n"
               "Two more commands (each has --help):\n"
               "  purgebench report DIR...        report.html of a results directory again\n"
               "  purgebench compare A B [C...] [--out DIR]  two or more results directories\n"
               "                                  of the same arms, made at different times:\n"
               "                                  B (C, ...) over A")
    ap.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                    help=f"any of {', '.join(SCENARIOS)}, or all "
                         f"(default: {' '.join(DEFAULT_SCENARIOS)})")
    ap.add_argument("--server", default=None, metavar="PATH", type=server_path,
                    help="the mariadbd to benchmark, A, or a directory holding one as "
                         "--server-list takes (default: the fork's release build, "
                         "build/release/sql/mariadbd; Debian's: see --compare-server)")
    ap.add_argument("--basedir", default=None, metavar="DIR",
                    help="its basedir, if not the parent of its bin/ or sbin/")
    ap.add_argument("--arms", default=None, metavar="ARM[,ARM...]",
                    help=f"the throttle arms of {users('--arms')}: any of "
                         "formula,uncoupled,adaptive (default formula,adaptive; "
                         "history-growth runs adaptive alone of them); the unthrottled arm "
                         "always runs, --arms unthrottled alone; a server without the "
                         "fork's variables runs formula as the lag alone and skips the others")
    ap.add_argument("--drains", type=drain_widths, default=None, metavar="N[,N...]",
                    help="run every arm once per innodb_purge_drain_rsegs width, e.g. 0,16 "
                         "(arms ARM+drainN; default: leave the variable alone)")
    ap.add_argument("--workload", default=None, metavar="NAME|FILE.lua",
                    help=f"the sysbench script that {users('--workload')} run instead of "
                         "their own: one of sysbench's (oltp_write_only, oltp_update_index, "
                         "oltp_insert, ...: an unknown name lists them) or your Lua file")
    ap.add_argument("--sb-option", action="append", default=[], type=sb_option,
                    metavar="KEY=VALUE",
                    help="an option of the sysbench script a scenario runs, passed to it as "
                         "--KEY=VALUE for prepare and run (repeatable), e.g. "
                         "delete_inserts=10; insert-benchmark's own script takes its ib_* "
                         "ones; options the harness sets (threads, tables, time, mysql-*, "
                         "...) are refused")
    ap.add_argument("--sweep-threads", type=thread_counts, default=None, metavar="N[,N...]",
                    help="thread-sweep: the thread counts, increasing; default "
                         f"{scale_of('--sweep-threads', 'threads')}")
    ap.add_argument("--switch", type=switch, default=None, metavar="VAR=V1,V2[,...]",
                    help="thread-sweep: one arm per value of a global variable, e.g. "
                         "innodb_undo_log_compact_init=ON,OFF (the default on the fork; "
                         "with --compare-server and no --switch: each server as it is); in "
                         "attach mode only the throttle's own variables (innodb_purge_*, "
                         "innodb_max_purge_lag*) unless --allow-switch VAR")
    ap.add_argument("--warehouses", type=upto(MAX["--warehouses"]), default=None, metavar="N",
                    help=f"{users('--warehouses')}: TPC-C warehouses; default "
                         f"{scale_of('--warehouses', 'warehouses')}")
    ap.add_argument("--ac-threads", type=upto(MAX["--ac-threads"]), default=None, metavar="N",
                    help="ch: analytical query threads; default "
                         f"{scale_of('--ac-threads', 'ac_threads')}")
    ap.add_argument("--check-time", type=upto(MAX["--check-time"]), default=None, metavar="S",
                    help=f"{users('--check-time')}: seconds that go-tpc's consistency check "
                         "may take after "
                         "each run; a check still running then is stopped, its queries "
                         "killed, and the conditions it finished reported (default 60; its "
                         "condition 3.3.2.10 takes minutes even at 1 warehouse)")
    ap.add_argument("--full", action="store_true",
                    help="every scenario at its seed scale (longer runs, more points and "
                         "lags: the defaults in parentheses after --full)")
    ap.add_argument("--repeats", type=upto(MAX["--repeats"]), default=None, metavar="N",
                    help="repeats of each arm, their order rotated (default 1; 2 for the "
                         "default run, no SCENARIO given)")
    ap.add_argument("--time", type=upto(MAX["--time"]), default=None, metavar="S",
                    help="seconds of load per run (default: each scenario's own); "
                         "redo-per-trx and thread-sweep: per thread count, purge-capacity: "
                         "per rate, insert-benchmark: per query step, snapshot-release: the "
                         "load before the read view, and again after its release")
    ap.add_argument("--threads", type=upto(MAX["--threads"]), default=None, metavar="N",
                    help=f"client threads of {users('--threads')} (default: "
                         f"{defaults('--threads', 'threads')}); insert-benchmark: writers, "
                         "and as many readers in its query steps")
    ap.add_argument("--tables", type=upto(MAX["--tables"]), default=None, metavar="N",
                    help=f"sysbench tables of {users('--tables')} (default: "
                         f"{defaults('--tables', 'tables')})")
    ap.add_argument("--rows", type=upto(MAX["--rows"]), default=None, metavar="N",
                    help=f"rows per table of {users('--rows')} (default: "
                         f"{defaults('--rows', 'rows')}); insert-benchmark: the table's "
                         "rows, of which l.i1 inserts 40%% and l.i2 10%%")
    ap.add_argument("--lags", type=lags, default=None, metavar="N[,N...]",
                    help=f"the innodb_max_purge_lag targets of {users('--lags')}, each "
                         "throttle arm at each, e.g. 10000,100000 (default: "
                         f"{defaults('--lags', 'lags')})")
    ap.add_argument("--hold", type=upto(MAX["--hold"]), default=None, metavar="S",
                    help="snapshot-release: seconds the read view is held; default "
                         f"{scale_of('--hold', 'hold')}; --time is the load "
                         "before it")
    ap.add_argument("--overlap", type=upto(MAX["--overlap"]), default=None, metavar="S",
                    help="snapshot-release: a second read view, opened S s after the first "
                         "and held as long (--hold), so that the two overlap and purge "
                         "waits for the later release; less than --hold (default: one view)")
    ap.add_argument("--release-forms", type=release_forms, default=None,
                    metavar="continue,stop",
                    help="snapshot-release: the load goes on after the release (continue), "
                         "stops at it (stop, MDEV-16260's form), or both (default)")
    ap.add_argument("--rates", type=rates, default=None, metavar="N[,N...]",
                    help="purge-capacity: the paced write rates to try, transactions per "
                         "second, in increasing order; default "
                         f"{scale_of('--rates', 'rates')}; an unpaced run follows "
                         "while purge keeps up")
    ap.add_argument("--option", action="append", default=[], type=cnf_option,
                    metavar="VAR=VALUE",
                    help="extra my.cnf setting of a server purgebench starts (repeatable); "
                         "the settings it owns (datadir, socket, port, log-error, user, "
                         "...) are refused, each naming the option to use instead")
    ap.add_argument("--cpu-load", type=cpu_load, default=0, metavar="N",
                    help="N processes (0..64) spinning on the CPU while each run's load "
                         "runs, as other work on a busy host (default 0)")
    ap.add_argument("--out", default=None, metavar="DIR",
                    help="results directory (default results/<time>)")
    ap.add_argument("--reuse-datadir", action="store_true",
                    help="allow an existing data directory under --out")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the plan (each run in order: server, scenario, arm, lag, "
                         "repeat) and its estimated duration; build, start and connect to "
                         "nothing")
    att = ap.add_argument_group(
        "attach mode: a server you deployed",
        "Benchmark a running server that purgebench did not start: the clients and the\n"
        "sampler connect to it; purgebench creates and drops its own schema, records\n"
        "the server's version and variables, never shuts it down, and restores every\n"
        "global variable it changed (restore-globals.sql, written before any change;\n"
        "also after Ctrl-C, kill, SIGHUP or SIGQUIT). The backlog is the drain after\n"
        "each run: seconds until the history is under the target and zero, sampled.\n"
        "The throttle is global: while an arm runs, every other client of the server is\n"
        "throttled too, and snapshot-release's read view stalls purge for everyone.")
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
                     help="a file whose first line is the user's password (default: none); "
                          "sysbench reads it from a file of its own (mode 0600, --config-file), "
                          "never from its command line. go-tpc (tpcc, ch) takes it only on "
                          "its command line, visible in ps on this machine: there use a user "
                          "of the benchmark's own, or attach the sysbench scenarios over "
                          "--socket, with no password")
    att.add_argument("--defaults-extra-file", default=None, metavar="F",
                     help="a client option file, read as the mariadb client reads it: "
                          "host, port, socket, user and password of its [client], "
                          "[client-server], [client-mariadb], [mysql] and [mariadb-client] "
                          "groups; the command line's options win")
    att.add_argument("--allow-switch", action="append", default=[], metavar="VAR",
                     help="attach mode: let --switch set VAR, a global variable other than "
                          "the throttle's own (innodb_purge_*, innodb_max_purge_lag*); every "
                          "client of the server meets its values while an arm runs")
    att.add_argument("--schema", default=None, metavar="NAME",
                     help="the schema purgebench creates and drops (default purgebench), "
                          "and NAME_tpcc for tpcc and ch; one that exists already is refused")
    att.add_argument("--drain-timeout", type=upto(MAX["--drain-timeout"]), default=None, metavar="S",
                     help="seconds the drain after a run is sampled at most, until the "
                          "history is under the target and zero (default 300)")
    cmp = ap.add_argument_group(
        "comparing servers",
        "A is --server, B is --compare-server; or any number with --server-list.\n"
        "Arm names carry the server's label (fork:unthrottled, stock:unthrottled); an\n"
        "arm that sets a variable a server lacks is skipped on it, with a note, and\n"
        "my.cnf settings a server does not know are left out of its my.cnf and\n"
        "listed; each table gets a column of each server's median over the first\n"
        "server's for the same arm, paired by repeat, measured in the same run.")
    cmp.add_argument("--compare-server", default=None, metavar="PATH", type=server_path,
                     help="a second mariadbd, B: each arm of each scenario runs on A, then on "
                          "B (A, B, A, B, ...), each on its own data directory under --out. "
                          "Debian's stock 10.11.18: tools/install-stock-server prints its path")
    cmp.add_argument("--compare-basedir", default=None, metavar="DIR",
                     help="B's basedir, if not the parent of its bin/ or sbin/")
    cmp.add_argument("--label", default=None, metavar="LABEL",
                     help="A's name in arm names, the report and server-LABEL/ (default "
                          "fork; in attach mode attached)")
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
    # argparse takes '--' (--sb-option=--, --host=--) as no value at all
    for act in ap._actions:
        if act.option_strings and act.nargs is None:
            v = getattr(a, act.dest, None)
            many = isinstance(act, argparse._AppendAction)
            if any(x == [] for x in (v if many else [v])):     # (a type never gives [])
                ap.error(f"{act.option_strings[0]} --: '--' is not a value; give "
                         f"{act.metavar or act.dest.upper()}")
    for sc in a.scenarios:
        if sc not in SCENARIOS + ("all",):
            ap.error(f"unknown scenario '{sc}' (choose from {', '.join(SCENARIOS)}, all)")
    twice = sorted({sc for sc in a.scenarios if a.scenarios.count(sc) > 1})
    if twice:
        ap.error(f"scenario {twice[0]} is given twice: each runs once per invocation "
                 "(more runs: --repeats N)")
    if "all" in a.scenarios and len(a.scenarios) > 1:
        ap.error("'all' runs every scenario: give it alone")
    check_strings(ap, a)
    if not a.scenarios:
        a.scenarios = list(DEFAULT_SCENARIOS)
        # the default run shows medians of two repeats in rotated order:
        # this machine's run-to-run noise is about +-10%
        a.repeats = a.repeats or 2
    elif "all" in a.scenarios:
        a.scenarios = list(SCENARIOS)
    a.repeats = a.repeats or 1
    a.given = {o for o in OPTION_USERS if getattr(a, dest(o)) not in (None, [])}
    arms_text = "formula,adaptive" if a.arms is None else a.arms
    a.arms = [x.strip() for x in arms_text.split(",")]
    a.check_time = a.check_time or 60
    if "" in a.arms:
        ap.error(f"--arms '{arms_text}': an empty entry; give e.g. formula,adaptive "
                 "(unthrottled alone: --arms unthrottled)")
    bad = [x for x in a.arms
           if x not in ("formula", "uncoupled", "adaptive", "unthrottled")]
    if bad:
        ap.error(f"--arms {bad[0]}: choose from formula, uncoupled, adaptive "
                 "(unthrottled alone: --arms unthrottled)")
    twice = [x for x in a.arms if a.arms.count(x) > 1]
    if twice:
        ap.error(f"--arms {arms_text}: {twice[0]} is given twice")
    for opt in a.sb_option:
        key = opt.lstrip("-").partition("=")[0]
        for sc in REGISTRY.values():        # a script's option the harness sets
            why = sc.refuse_sb_option(key)
            if why:
                ap.error(f"--sb-option {opt[2:]}: {why}")
    for name in a.scenarios:                # what a scenario cannot run with
        why = REGISTRY[name].check_options(a)
        if why:
            ap.error(why)
    if a.workload:
        try:
            a.workload = workloads.resolve(a.workload)
        except workloads.WorkloadError as e:
            # before BUILD/setup (--check-args) sysbench may not be installed
            # yet: its scripts are checked again once it is
            if not ((check_only or a.dry_run) and not os.path.isdir(workloads.SYSBENCH_DIR)):
                ap.error(str(e))
    for sc in REGISTRY.values():            # options that only one scenario takes
        if sc.name not in a.scenarios and any(getattr(a, dest(o)) for o in sc.own_options):
            ap.error(f"{' and '.join(sc.own_options)} "
                     f"{'are' if len(sc.own_options) > 1 else 'is'} {sc.name}'s: add the "
                     f"scenario {sc.name}")
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
    a.attach = attach_conn(ap, a)
    a.label = ("attached" if a.attach else "fork") if a.label is None else a.label
    a.compare_label = "stock" if a.compare_label is None else a.compare_label
    for opt, label in (("--label", a.label), ("--compare-label", a.compare_label)):
        if not LABEL_RE.fullmatch(label):
            ap.error(f"{opt} '{label}': use 1-32 letters, digits, '.', '_', '+' or '-', "
                     "starting with a letter or digit (it names arms and a directory)")
    if a.compare_server and a.label == a.compare_label:
        ap.error(f"--label and --compare-label are both '{a.label}'; give the servers "
                 "different names")
    # before set-up (--check-args) and a dry run; a run reports it as it
    # starts (not one that BUILD/run's build of the release flavour makes)
    for opt, path in (("--server", a.server), ("--compare-server", a.compare_server)):
        if path is None or built_by_run(os.path.expanduser(path)) or not (
                check_only or a.dry_run):
            continue
        if not os.access(os.path.expanduser(path), os.X_OK):
            ap.error(f"{opt} {path}: no such executable")
    for opt, path in (("--basedir", a.basedir), ("--compare-basedir", a.compare_basedir)):
        if path is not None and not os.path.isdir(os.path.expanduser(path)):
            ap.error(f"{opt} {path}: no such directory")
    for label, _, basedir in (a.server_list or []) if (check_only or a.dry_run) else []:
        if basedir and not os.path.isdir(basedir):
            ap.error(f"--server-list {label}=...:{basedir}: BASEDIR is not a directory")
    unused, a.notes = ignored_options(a.scenarios, a.given, a.sb_option)
    if unused:
        ap.error(unused)
    return a


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def dest(option):
    """The attribute of the parsed options that an option sets."""
    return option.lstrip("-").replace("-", "_")


# the options that only some scenarios use, and which (each scenario's
# module lists its own): any other scenario of a run ignores it (a note), a
# run where none uses it is an error
OPTION_USERS = {opt: option_users(opt) for opt in (
    "--threads", "--tables", "--rows", "--lags", "--arms", "--hold", "--overlap",
    "--release-forms",
    "--rates", "--warehouses", "--check-time", "--ac-threads", "--workload")}
# what a scenario does instead of an option it ignores: (option, scenario)
# (from the scenario's module) or the option alone
IGNORES = {
    "--threads": "it runs its own thread counts",
    "--tables": "it has its own tables",
    "--lags": "it sets no innodb_max_purge_lag target",
    "--arms": "it runs its own arms",
    "--workload": "it runs its own client",
}
IGNORES.update({(opt, name): why for name, sc in REGISTRY.items()
                for opt, why in sc.ignores.items()})
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
    by_owner = {}       # a scenario whose own script alone takes them, or None
    for o in sb_options:
        by_owner.setdefault(sb_option_owner(o), []).append(o)
    # those of every other script first
    for owner, opts in sorted(by_owner.items(), key=lambda kv: kv[0] is not None):
        users = (owner.name,) if owner else SB_USERS
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


def build_dir():
    """The superbuild directory that BUILD/run builds the release flavour
    in (PURGELAB_BUILD_DIR, default build/ at the top of the clone)."""
    return os.path.abspath(os.environ.get("PURGELAB_BUILD_DIR") or os.path.join(REPO, "build"))


def built_by_run(path):
    """Whether path is (or is under) what BUILD/run's build of the release
    flavour makes: it may not be there before that build."""
    path, built = os.path.abspath(path), build_dir()
    return path == built or path.startswith(os.path.join(built, "release") + os.sep)


def find_server(path):
    """--server-list's PATH: a mariadbd as it is, or the one under a
    directory (SERVER_IN_DIR, the first found); a directory without one, a
    path that does not exist or a file that is not executable is an error,
    except the release build that BUILD/run makes before the run (its
    absence is reported by Installation)."""
    path = os.path.expanduser(path)
    if not os.path.isdir(path):
        if built_by_run(path) and not os.path.exists(path):
            return path
        if not os.path.exists(path):
            raise argparse.ArgumentTypeError(
                f"{path}: no such file or directory; build it (BUILD/build, BUILD/build "
                "stock-10.5), unpack Debian's with tools/install-stock-server, or give "
                "another path")
        if not os.access(path, os.X_OK):
            raise argparse.ArgumentTypeError(f"{path}: not executable (give a mariadbd, "
                                             "or a directory holding one)")
        return path
    for rel in SERVER_IN_DIR:
        p = os.path.join(path, rel)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    if os.path.abspath(path) == build_dir():
        return os.path.join(path, "release", "sql", "mariadbd")     # BUILD/run builds it
    raise argparse.ArgumentTypeError(
        f"no mariadbd under {path} (looked for {', '.join(SERVER_IN_DIR)}); "
        "build it (BUILD/build, BUILD/build stock-10.5) or give the binary's path")


def server_path(path):
    """--server's and --compare-server's PATH: a directory is taken as
    --server-list takes it (find_server()); anything else as given, checked
    before a dry run and as a run starts."""
    return find_server(path) if os.path.isdir(os.path.expanduser(path)) else path


def server_item(item):
    """One LABEL=PATH[:BASEDIR] of --server-list (or of tools/count-instructions):
    (label, mariadbd, basedir or None)."""
    label, eq, rest = item.strip().partition("=")
    if not eq or not rest:
        raise argparse.ArgumentTypeError(
            f"'{item}': give LABEL=PATH, e.g. fork=build/release/sql/mariadbd")
    if not LABEL_RE.fullmatch(label):
        raise argparse.ArgumentTypeError(
            f"label '{label}': use 1-32 letters, digits, '.', '_', '+' or '-', starting "
            "with a letter or digit (it names arms and a directory)")
    path, colon, basedir = rest.partition(":")
    if colon and not basedir:
        raise argparse.ArgumentTypeError(f"'{item}': an empty BASEDIR after ':'")
    return label, find_server(path), os.path.expanduser(basedir) if basedir else None


def distinct_labels(servers):
    """servers as server_item() gives them, each label once."""
    seen = set()
    for label, _, _ in servers:
        if label in seen:
            raise argparse.ArgumentTypeError(f"label '{label}' is given twice")
        seen.add(label)
    return servers


def server_list(text):
    """--server-list LABEL=PATH[:BASEDIR],...: [(label, mariadbd, basedir or
    None)], two or more, labels distinct."""
    out = distinct_labels([server_item(item) for item in text.split(",")])
    if len(out) < 2:
        raise argparse.ArgumentTypeError(
            f"'{text}': give two or more servers (one alone: --server PATH)")
    return out


def whole_numbers(text, what, example):
    """Comma-separated whole numbers, for an option's type; an empty entry
    is an error."""
    items = [x.strip() for x in text.split(",")]
    if "" in items:
        raise argparse.ArgumentTypeError(f"'{text}': an empty entry; give {what}, "
                                         f"e.g. {example}")
    try:
        return [int(x) for x in items]
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
    forms = [f.strip() for f in text.split(",")]
    bad = [f for f in forms if f not in snapshot.FORMS]
    if bad or len(set(forms)) != len(forms):
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
                           ("--drain-timeout", a.drain_timeout),
                           ("--defaults-extra-file", a.defaults_extra_file)) if v is not None]
    mine += ["--allow-switch"] if a.allow_switch else []
    extra = {}
    if a.defaults_extra_file is not None:
        try:
            extra = optionfile.read(a.defaults_extra_file)
        except optionfile.OptionFileError as e:
            ap.error(f"--defaults-extra-file: {e}")
        if a.host is None and a.socket is None:
            # the file says where, as it would to the mariadb client
            if "socket" in extra and extra.get("host", "localhost") == "localhost":
                a.socket = extra["socket"]
            elif "host" in extra:
                a.host = extra["host"]
        if a.host is not None and a.port is None and "port" in extra:
            a.port = port_number(extra["port"])
        for key in ("host", "socket", "user"):
            if key in extra and not extra[key].strip():
                ap.error(f"--defaults-extra-file {a.defaults_extra_file}: an empty {key}")
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
    for opt, value in (("--user", a.user), ("--schema", a.schema)):
        if value is not None and not value.strip():
            ap.error(f"{opt} '{value}': empty; give a name or leave {opt} out (default "
                     f"{'root' if opt == '--user' else 'purgebench'})")
    password = extra.get("password")
    if a.password_file is not None:
        try:
            with open(os.path.expanduser(a.password_file)) as f:
                password = f.readline().rstrip("\r\n")
        except OSError as e:
            ap.error(f"--password-file {a.password_file}: {e.strerror}")
    if password:
        try:
            sysbench_quoted(password)
        except ValueError as e:
            ap.error(f"the password: {e}; change it, or attach over --socket without one")
    schema = a.schema or "purgebench"
    if not re.fullmatch(r"[A-Za-z0-9_]{1,64}", schema):
        ap.error(f"--schema '{schema}': use 1-64 letters, digits or '_'")
    check_switch(ap, a)
    a.drain_timeout = a.drain_timeout or 300
    return Conn(socket=os.path.abspath(a.socket) if a.socket else None, host=a.host,
                port=a.port or 3306 if a.host else None,
                user=a.user or extra.get("user") or "root",
                password=password or None, db=schema)


# what --switch may set on a server of someone else's (attach mode) without
# --allow-switch: the throttle's own variables
THROTTLE_VAR_RE = re.compile(r"innodb_purge_\w+|innodb_max_purge_lag\w*", re.I)


def check_switch(ap, a):
    """Attach mode: --switch sets the throttle's own variables, or one that
    --allow-switch names; --allow-switch names what --switch sets."""
    var = a.switch[0] if a.switch else None
    for allowed in a.allow_switch:      # a variable's name in any case, as the server takes it
        if allowed.lower() != (var or "").lower():
            ap.error(f"--allow-switch {allowed}: "
                     + (f"--switch sets {var}" if var else "no --switch sets it"))
    if var and not THROTTLE_VAR_RE.fullmatch(var) and not a.allow_switch:
        ap.error(f"--switch {var}=...: in attach mode --switch sets only the throttle's own "
                 f"variables (innodb_purge_*, innodb_max_purge_lag*): every client of the "
                 f"server would meet {var}'s values; if that is meant, add "
                 f"--allow-switch {var}")


# the my.cnf settings the harness owns for a server it starts (it writes
# them, or passes them on the server's command line): --option may not set
# them, and says what to use instead
OUT = "the harness keeps each server's files under --out DIR"
ATTACH = "to benchmark a server of yours, attach to it: --host H --port P or --socket S"
OWNED_CNF = {
    "datadir": f"{OUT} (DIR/server*/data)",
    "socket": f"the harness's server listens on DIR/server*/mysqld.sock of --out DIR; {ATTACH}",
    "port": f"the harness's server listens on a socket (tpcc, ch: a free port on 127.0.0.1); "
            f"{ATTACH}",
    "bind_address": f"the harness's server listens on a socket (tpcc, ch: 127.0.0.1 only); "
                    f"{ATTACH}",
    "skip_networking": f"the harness's server listens on a socket (tpcc, ch: 127.0.0.1 "
                       f"only); {ATTACH}",
    "log_error": f"{OUT} (DIR/server*/error.log, read for the backlog)",
    "pid_file": OUT,
    "log_basename": OUT,
    "user": "the server runs as the harness's user; the user a client connects as is "
            "attach mode's --user U",
    "basedir": "use --basedir DIR (--compare-basedir DIR, --server-list LABEL=PATH:BASEDIR)",
    "lc_messages_dir": "the harness finds the messages from --basedir DIR",
    "tmpdir": OUT,
    "innodb_data_home_dir": OUT,
    "innodb_log_group_home_dir": OUT,
    "innodb_undo_directory": OUT,
    "defaults_file": "the harness writes the server's my.cnf itself (a command-line option)",
    "defaults_extra_file": "the harness writes the server's my.cnf itself (a command-line "
                           "option); a client's option file: attach mode's "
                           "--defaults-extra-file F",
    "defaults_group_suffix": "the harness writes the server's my.cnf itself (a command-line "
                             "option)",
    "no_defaults": "the harness writes the server's my.cnf itself (a command-line option)",
}
# settings whose values are checked before the build, not at the server's
# start after it: whole numbers, sizes (a K, M, G or T suffix), switches,
# choices
INT_CNF = ("innodb_max_purge_lag", "innodb_max_purge_lag_delay", "innodb_purge_drain_rsegs",
           "innodb_purge_threads", "innodb_purge_batch_size", "max_connections",
           "max_prepared_stmt_count", "innodb_flush_log_at_trx_commit")
SIZE_CNF = ("innodb_buffer_pool_size", "innodb_log_file_size", "innodb_log_buffer_size")
BOOL_CNF = ("innodb_purge_coupled_throttle", "innodb_undo_log_compact_init",
            "innodb_purge_throttle_replica")
CHOICE_CNF = {"innodb_purge_throttle": ("formula", "adaptive")}


def owned_cnf(var):
    """The OWNED_CNF key that a my.cnf key var sets, or None: '-' and '_'
    alike, a loose-, skip-, disable- or enable- prefix, and a prefix of an
    owned name (mariadbd takes an unambiguous prefix of an option)."""
    key = var.strip().lower().replace("-", "_")
    names = {key, re.sub(r"^loose_", "", key)}
    names |= {re.sub(r"^(skip|disable|enable)_", "", n) for n in names}
    for n in names:
        for own in OWNED_CNF:
            if n == own or own.startswith(n) or own == "skip_" + n:
                return own
    return None


def cnf_option(text):
    """--option VAR=VALUE: a my.cnf setting -> (VAR, VALUE). Refused: a
    newline (it would add lines, or a section, to my.cnf), an empty value,
    a '#' (my.cnf would cut the value there), a setting the harness owns
    (OWNED_CNF), a value of a known setting that its server would refuse."""
    if "\n" in text or "\r" in text:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a newline; give one VAR=VALUE per --option")
    var, eq, value = text.partition("=")
    var, value = var.strip(), value.strip()
    if not eq or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", var):
        raise argparse.ArgumentTypeError(
            f"'{text}': give VAR=VALUE, e.g. innodb_max_purge_lag=10000 (a switch: VAR=ON)")
    own = owned_cnf(var)
    if own:
        raise argparse.ArgumentTypeError(
            f"'{text}': the harness sets {own.replace('_', '-')} itself; {OWNED_CNF[own]}")
    if not value:
        raise argparse.ArgumentTypeError(
            f"'{text}': an empty value; give VAR=VALUE (a switch: VAR=ON)")
    if "#" in value:
        raise argparse.ArgumentTypeError(
            f"'{text}': a '#' starts a comment in my.cnf; the server would see "
            f"{value.split('#')[0].strip() or 'nothing'}")
    key = var.lower().replace("-", "_")
    if key in INT_CNF and not re.fullmatch(r"\d+", value):
        raise argparse.ArgumentTypeError(f"'{text}': {var} takes a whole number, e.g. "
                                         f"{var}=10000")
    if key in SIZE_CNF and not re.fullmatch(r"\d+[KkMmGgTt]?", value):
        raise argparse.ArgumentTypeError(f"'{text}': {var} takes a size, e.g. {var}=2G")
    if key in BOOL_CNF and value.upper() not in ("ON", "OFF", "1", "0", "TRUE", "FALSE"):
        raise argparse.ArgumentTypeError(f"'{text}': {var} takes ON or OFF")
    if key in CHOICE_CNF and value not in CHOICE_CNF[key]:
        raise argparse.ArgumentTypeError(f"'{text}': {var} takes "
                                         f"{' or '.join(CHOICE_CNF[key])}")
    return var, value


# the upper bounds of the numeric options: beyond them a run is a typo
MAX = {"--time": 86400, "--hold": 86400, "--overlap": 86400, "--check-time": 86400,
       "--drain-timeout": 86400, "--threads": 65536, "--ac-threads": 1024, "--warehouses": 1000, "--tables": 1024,
       "--rows": 1000000000, "--repeats": 100}
MAX_LAG = 4294967295        # innodb_max_purge_lag's own maximum
MAX_RATE = 10000000


def upto(hi):
    """A type: a whole number from 1 to hi."""
    def check(text):
        n = positive(text)
        if n > hi:
            raise argparse.ArgumentTypeError(f"'{text}': at most {hi:,}")
        return n
    return check


# the options that take a string; an empty one (or one with a newline) is
# refused rather than taken as the default or as localhost
STRING_OPTIONS = {
    "--host": "give the server's host name or address (an empty one would be localhost)",
    "--socket": "give the path of the server's Unix socket",
    "--user": "give a user name (an empty one would be root)",
    "--schema": "give a name or leave --schema out (default purgebench)",
    "--password-file": "give a file, or leave it out for no password",
    "--defaults-extra-file": "give an option file, or leave it out",
    "--out": "give a directory, or leave --out out (default results/<time>)",
    "--server": "give a mariadbd, or leave --server out (default the release build)",
    "--basedir": "give a directory, or leave --basedir out",
    "--compare-server": "give a mariadbd",
    "--compare-basedir": "give a directory, or leave --compare-basedir out",
    "--workload": "give a workload's name or a Lua file, or leave --workload out",
    "--label": "give a label, or leave --label out",
    "--compare-label": "give a label, or leave --compare-label out",
}


def check_strings(ap, a):
    """Refuse an empty string option, a newline in any, a space in --host."""
    for opt, hint in STRING_OPTIONS.items():
        value = getattr(a, opt.lstrip("-").replace("-", "_"), None)
        if value is None:
            continue
        if not value.strip():
            ap.error(f"{opt} '{value}': empty; {hint}")
        if "\n" in value or "\r" in value:
            ap.error(f"{opt} {value!r}: a newline")
    if a.host is not None and re.search(r"\s", a.host):
        ap.error(f"--host '{a.host}': a space in a host name")


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
    values = tuple(v.strip() for v in vals.split(","))
    if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var):
        raise argparse.ArgumentTypeError(f"'{text}': give VAR=V1,V2, e.g. "
                                         "innodb_undo_log_compact_init=ON,OFF")
    if "" in values:
        raise argparse.ArgumentTypeError(f"'{text}': an empty value; give VAR=V1,V2")
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
    if any(v > MAX_LAG for v in values):
        raise argparse.ArgumentTypeError(f"'{text}': innodb_max_purge_lag is at most "
                                         f"{MAX_LAG:,}")
    twice = [v for v in values if values.count(v) > 1]
    if twice:
        raise argparse.ArgumentTypeError(f"'{text}': the lag {twice[0]} is given twice "
                                         "(more runs: --repeats N)")
    return values


def rates(text):
    """--rates: increasing paced write rates, transactions per second."""
    values = whole_numbers(text, "transactions per second", "2000,4000,6000")
    if any(v <= 0 for v in values) or values != sorted(set(values)):
        raise argparse.ArgumentTypeError(f"'{text}': give positive rates in increasing order")
    if values[-1] > MAX_RATE:
        raise argparse.ArgumentTypeError(f"'{text}': a rate is at most {MAX_RATE:,} per second")
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


def check_args(argv):
    """--check-args ARGS: parse and check ARGS as a run would, print what a
    scenario will ignore, and exit: BUILD/run does this before set-up and
    the build, so that a wrong option fails in seconds."""
    if argv and argv[0] == "report":
        report_parser().parse_args(argv[1:])
        mode = "report"
    elif argv and argv[0] == "compare":
        compare.parse_args(argv[1:])
        mode = "compare"
    else:
        a = parse_args(argv, check_only=True)
        for note in a.notes:
            print(f"purgebench: {note}", file=sys.stderr)
        mode = "dry-run" if a.dry_run else "attach" if a.attach else "start"
    # what BUILD/run reads: whether to set up and build (attach mode and a
    # dry run build nothing; a dry run sets nothing up either)
    print(mode)
    return 0
