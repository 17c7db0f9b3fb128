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

"""Instructions per sysbench event that servers' statements cost, side by
side (tools/count-instructions).  Each server runs under valgrind's
callgrind on a fresh data directory (the harness's Server, socket only);
only what runs inside dispatch_command() during the measured events is
counted: one statement's work in its connection's thread, not purge's or
the page cleaner's.  With one client thread a server's count repeats
within a few parts in ten thousand in most runs (now and then one is about
1% over), where timings here vary by 10%.  Nothing here is a timing."""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import sysbench
from .options import cnf_option, distinct_labels, positive, server_item
from .server import Installation, Server, ServerError

# what valgrind needs of the server: io_uring's calls never complete under
# it (the server waits for ever at start), and it cannot reserve the
# default innodb_buffer_pool_size_max (8 TiB) of address space
OPTIONS = {"innodb_buffer_pool_size": "256M", "innodb_buffer_pool_size_max": "256M",
           "innodb_log_file_size": "256M", "innodb_flush_log_at_trx_commit": "1",
           "innodb_use_native_aio": "0"}
TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.MULTILINE)


class CountError(Exception):
    pass


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tools/count-instructions", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("servers", nargs="+", type=server_item, metavar="NAME=BUILD_DIR",
                   help="a superbuild directory (build, build-stock-10.11) or a mariadbd, "
                        "as --server-list takes it (NAME=PATH[:BASEDIR]); the first is "
                        "the reference")
    p.add_argument("--workload", default="oltp_update_non_index",
                   help="sysbench script (oltp_update_non_index)")
    p.add_argument("--events", type=positive, default=5000,
                   help="events measured, after as many to warm up (5000)")
    p.add_argument("--threads", type=positive, default=1,
                   help="client threads (1: more add spinning that varies from run to run)")
    p.add_argument("--rows", type=positive, default=10000, help="rows in the one table (10000)")
    p.add_argument("--option", action="append", default=[], type=cnf_option,
                   metavar="VAR=VALUE",
                   help="a server setting for every server, as a run's --option takes it "
                        "(repeatable), e.g. innodb_max_purge_lag=1000000")
    p.add_argument("--out", help="where counts.txt and each server's logs go "
                                 "(a new temp dir); the data directories are removed")
    a = p.parse_args(argv)
    try:
        distinct_labels(a.servers)
    except argparse.ArgumentTypeError as e:
        p.error(str(e))     # each name is a directory of --out
    for var, value in a.option:
        key = var.lower().replace("-", "_")
        if key in OPTIONS:
            p.error(f"--option {var}={value}: count-instructions sets {key}={OPTIONS[key]} "
                    f"itself (what valgrind needs, the same for every server)")
    return a


def callgrind_control(action, pid):
    out = subprocess.run(["callgrind_control", action, str(pid)], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    if out.returncode != 0:
        raise CountError(f"callgrind_control {action} {pid} failed:\n{out.stdout[-1000:]}")


def count(name, mariadbd, basedir, args, workdir):
    """Instructions inside dispatch_command() over args.events events."""
    srv = Server(Installation(mariadbd, basedir), workdir,
                 options={**OPTIONS, **dict(args.option)}, launcher=[
        "valgrind", "--tool=callgrind", "--collect-atstart=no",
        "--toggle-collect=dispatch_command*",
        f"--callgrind-out-file={os.path.join(workdir, 'callgrind.out')}",
        f"--log-file={os.path.join(workdir, 'valgrind.log')}"])
    srv.initialize()
    try:
        srv.start(timeout=600)
        srv.query("CREATE DATABASE sbtest")
        sysbench.prepare(srv.socket, args.workload, 1, args.rows)
        run = sysbench.command(args.workload, "run", srv.socket, 1, args.rows,
                               threads=args.threads, time_s=0,
                               extra=[f"--events={args.events}"])

        def events():
            out = subprocess.run(run, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)
            done = sysbench.parse_summary(out.stdout).get("transactions")
            if out.returncode != 0 or done != args.events:
                raise CountError(f"{name}: sysbench ran {done} events, not {args.events}:\n"
                                 + out.stdout[-2000:])
        events()                                 # warm-up
        callgrind_control("-z", srv.proc.pid)
        events()
        callgrind_control("-d", srv.proc.pid)
    finally:
        srv.kill()
        shutil.rmtree(srv.datadir, ignore_errors=True)
    # the one dump that -d asked for (the final one goes to callgrind.out)
    dumps = glob.glob(os.path.join(workdir, "callgrind.out.*"))
    if len(dumps) != 1:
        raise CountError(f"{name}: expected one dump in {workdir}, found {dumps}")
    with open(dumps[0]) as f:
        m = TOTALS.search(f.read())
    if not m:
        raise CountError(f"{name}: no totals in {dumps[0]}")
    return int(m.group(1))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    for tool in ("valgrind", "callgrind_control"):
        if not shutil.which(tool):
            sys.exit(f"count-instructions: {tool} is missing: run BUILD/setup")
    out = args.out or tempfile.mkdtemp(prefix="count-instructions.")
    os.makedirs(out, exist_ok=True)
    lines = [f"$ tools/count-instructions {' '.join(argv)}",
             f"{'server':<16} {'instructions':>14} {'per-event':>10}"]
    print(lines[-1], flush=True)
    per = {}
    try:
        sysbench.require()
        for name, mariadbd, basedir in args.servers:
            ins = count(name, mariadbd, basedir, args, os.path.join(out, name))
            per[name] = ins / args.events
            lines.append(f"{name:<16} {ins:>14} {per[name]:>10.1f}")
            print(lines[-1], flush=True)
    except (ServerError, sysbench.SysbenchError, CountError) as e:
        sys.exit(f"count-instructions: {e}")
    first = args.servers[0][0]
    lines += [f"{name} / {first}: {per[name] / per[first]:.4f}" for name, _, _ in args.servers[1:]]
    settings = "".join(f", {var}={value}" for var, value in args.option)
    lines.append(f"workload {args.workload}, {args.threads} thread(s), {args.events} events "
                 f"after {args.events} to warm up, {args.rows} rows{settings}; counts in {out}")
    print("\n".join(lines[2 + len(per):]))
    with open(os.path.join(out, "counts.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
