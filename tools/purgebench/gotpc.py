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

"""Run go-tpc (TPC-C, CH-benCHmark) and parse what it prints: per-interval
and summary lines per transaction type or query, tpmC, errors, the
consistency check. Runs: the scenarios tpcc and ch, a part of bench.Bench
(the data loaded once per server, every run from a copy of it, checked
after)."""

import os
import re
import shutil
import subprocess
import time

from . import client
from .server import ServerError, redact

# go-tpc's user on the benchmark server (created by the harness; the
# server listens on 127.0.0.1 only)
USER, PASSWORD, DB = "purgebench", "purgebench", "tpcc"
INSTALLER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "install-go-tpc")

LINE_RE = re.compile(r"^\[(?P<kind>Current|Summary)\] (?P<name>[A-Za-z0-9_]+)\s+- (?P<fields>.*)$")
FIELD_RE = re.compile(r"(?P<key>[A-Za-z0-9.]+(?:\((?:s|ms)\))?): (?P<value>-?[\d.]+)")
TPMC_RE = re.compile(r"^tpmC: (?P<tpmc>[\d.]+)(?:, tpmTotal: (?P<total>[\d.]+))?")
QPHH_RE = re.compile(r"^QphH: (?P<qphh>[\d.]+)")
KEYS = {"Takes(s)": "takes_s", "Count": "count", "TPM": "tpm", "Sum(ms)": "sum_ms",
        "Avg(ms)": "avg_ms", "50th(ms)": "p50_ms", "90th(ms)": "p90_ms", "95th(ms)": "p95_ms",
        "99th(ms)": "p99_ms", "99.9th(ms)": "p999_ms", "Max(ms)": "max_ms"}
TPCC_TYPES = ("NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL")


class GoTpcError(Exception):
    pass


def db_of(conn=None):
    """The schema of go-tpc's tables: tpcc on the harness's own server; in
    attach mode the harness's schema name + _tpcc (created and dropped by
    it, like the other)."""
    return DB if conn is None else f"{conn.db}_tpcc"


def require():
    """The pinned go-tpc's path, built once by tools/install-go-tpc."""
    out = subprocess.run([INSTALLER, "--path"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        raise GoTpcError("go-tpc is not available:\n" + out.stderr.strip()
                         + "\n(tools/install-go-tpc builds it; BUILD/setup runs it)")
    return out.stdout.strip()


def parse_line(line):
    """One '[Current]' or '[Summary]' line -> (kind, name, {field: number}),
    or None."""
    m = LINE_RE.match(line.strip())
    if not m:
        return None
    fields = {KEYS.get(f.group("key"), f.group("key")): float(f.group("value"))
              for f in FIELD_RE.finditer(m.group("fields"))}
    if "count" in fields:
        fields["count"] = int(fields["count"])
    return m.group("kind"), m.group("name"), fields


def parse(text):
    """A run's whole output -> {'summary': {name: fields}, 'intervals':
    [(name, fields)], 'tpmc', 'tpm_total', 'qphh' (CH-benCHmark's analytical
    queries per hour), 'errors': {TYPE or QUERY: count of its _ERR line}};
    the last summary line of a name wins."""
    out = {"summary": {}, "intervals": [], "tpmc": None, "tpm_total": None, "qphh": None,
           "errors": {}}
    for line in text.splitlines():
        p = parse_line(line)
        if p:
            kind, name, fields = p
            if kind == "Summary":
                out["summary"][name] = fields
            else:
                out["intervals"].append((name, fields))
            continue
        m = QPHH_RE.match(line.strip())
        if m:
            out["qphh"] = float(m.group("qphh"))
        m = TPMC_RE.match(line.strip())
        if m:
            out["tpmc"] = float(m.group("tpmc"))
            out["tpm_total"] = float(m.group("total")) if m.group("total") else None
    out["errors"] = {name[:-4]: f.get("count", 0) for name, f in out["summary"].items()
                     if name.endswith("_ERR")}
    return out


def command(gotpc, port, bench, action, warehouses, threads=1, seconds=None,
            ac_threads=None, interval=None, conn=None):
    """go-tpc's command line against 127.0.0.1:port as the harness's user,
    or (attach mode) as conn says: its host, port, user and password, in
    the schema db_of(conn). bench: 'tpcc' or 'ch'."""
    if conn is None:
        where = ["-H", "127.0.0.1", "-P", str(port), "-U", USER, "-p", PASSWORD, "-D", DB]
    else:
        where = (["-H", conn.host, "-P", str(conn.port), "-U", conn.user]
                 + (["-p", conn.password] if conn.password else []) + ["-D", db_of(conn)])
    cmd = [gotpc, bench] + where + ["--warehouses", str(warehouses), action,
                                    "-T", str(threads)]
    if ac_threads is not None:
        cmd += ["-t", str(ac_threads)]
    if seconds is not None:
        cmd += ["--time", f"{seconds}s"]
    if interval is not None:
        cmd += ["--interval", f"{interval}s"]
    return cmd


# go-tpc tpcc prepare prints one line as it begins each part of the load
# (tpcc/load.go): the items once, then per warehouse its row, its stock and
# its districts, then per district its customers, history, orders, new
# orders and order lines
LOAD_RE = re.compile(r"^load to (?P<table>[a-z_]+)(?: in warehouse (?P<w>\d+))?"
                     r"(?: district (?P<d>\d+))?$")
DISTRICTS_PER_WAREHOUSE = 10


def load_parts(warehouses):
    """How many 'load to' lines go-tpc tpcc prepare prints for a load."""
    return 1 + warehouses * (3 + DISTRICTS_PER_WAREHOUSE * 5)


class LoadProgress:
    """The status of a go-tpc prepare from its output lines: the parts of
    the load begun out of all, and the latest; any other line (ch
    prepare's 'creating view', 'analyzing table') as it is."""

    def __init__(self, warehouses):
        self.total = load_parts(warehouses)
        self.begun = 0
        self.latest = None

    def __call__(self, line):
        line = line.strip()
        if LOAD_RE.match(line):
            self.begun += 1
        if line:
            self.latest = line[:160]

    def status(self):
        if self.begun:
            return f"{self.begun} of {self.total} load parts begun, latest: {self.latest}"
        return self.latest


ERROR_LINE_RE = re.compile(r"(?i)(\berror\b|\bfailed\b|invalid connection|\berr\b)")


def error_lines(text):
    """Lines of a run's output that report an error (a failed transaction,
    a lost connection), beside the _ERR summary lines."""
    return [line.strip() for line in text.splitlines()
            if ERROR_LINE_RE.search(line) and not LINE_RE.match(line.strip())]


def result(parsed, text):
    """What a go-tpc run adds to the harness's result of a run: tpmC (go-tpc's
    own), NOPM (New-Order transactions per minute, from its summary line),
    transactions/s of all types, per type p95/p99 latency and _ERR counts,
    the analytical queries of a CH-benCHmark run per hour, error lines."""
    summary = parsed["summary"]
    ok = {n: f for n, f in summary.items() if not n.endswith("_ERR")}
    tpcc = {n: f for n, f in ok.items() if n in TPCC_TYPES}
    queries = {n: f for n, f in ok.items() if re.fullmatch(r"Q\d+", n)}
    no = summary.get("NEW_ORDER", {})

    def per(f, unit):
        return f["count"] / f["takes_s"] * unit if f.get("takes_s") else None
    tps = sum(per(f, 1) or 0 for f in tpcc.values()) if tpcc else None
    errs = error_lines(text)
    out = {"tpmc": parsed["tpmc"], "nopm": per(no, 60) if no else None,
           "transactions_per_s": tps,
           "txn": {n: {k: f.get(k) for k in ("count", "p95_ms", "p99_ms", "max_ms")}
                   for n, f in ok.items()},
           "errors_by_type": parsed["errors"],
           "errors": sum(parsed["errors"].values()),
           "error_lines": len(errs), "error_examples": errs[:3]}
    if queries:
        out["ac_queries"] = sum(f["count"] for f in queries.values())
        out["ac_queries_per_hour"] = parsed["qphh"]
    return out


class Run(client.ClientRun):
    """A go-tpc run in the background, parsed as it prints (as
    sysbench.Run): each '[Current] NEW_ORDER' line is one interval, its
    New-Order transactions per second and their p95 latency."""
    name = "go-tpc"
    error = GoTpcError

    def __init__(self, cmd, on_interval=None, on_exit=None):
        self.t = 0.0
        self.parsed = None
        super().__init__(cmd, on_interval, on_exit)

    def interval(self, line):
        p = parse_line(line)
        if not (p and p[0] == "Current" and p[1] == "NEW_ORDER"):
            return None
        f = p[2]
        self.t += f.get("takes_s", 0)
        return {"t": round(self.t, 1), "tps": f.get("tpm", 0) / 60,
                "lat_ms": f.get("p95_ms"), "lat_pct": 95}

    def summarize(self, text):
        self.parsed = parse(text)
        if not self.parsed["summary"]:
            raise GoTpcError(f"go-tpc printed no summary:\n{text[-2000:]}")
        r = result(self.parsed, text)
        return {"transactions_per_s": r["transactions_per_s"], "queries_per_s": None,
                "errors": r["errors"]}

    def latency(self):
        """New-Order latency: p50, p95, p99, max (ms)."""
        no = (self.parsed or {}).get("summary", {}).get("NEW_ORDER", {})
        return {"lat_p50_ms": no.get("p50_ms"), "lat_p95_ms": no.get("p95_ms"),
                "lat_p99_ms": no.get("p99_ms"), "lat_max_ms": no.get("max_ms")}

    def extra(self):
        r = result(self.parsed, "".join(self.text))
        r.pop("transactions_per_s")
        r.pop("errors")
        return r


CHECK_BEGIN_RE = re.compile(r"begin to check warehouse (?P<w>\d+) at condition (?P<c>[\d.]+)")
CHECK_FAIL_RE = re.compile(r"(?i)check .*failed|\bfailed\b|\berror\b")


def check_verdict(text, rc, timed_out, limit_s):
    """The verdict of `go-tpc tpcc check`: 'passed', 'FAILED: <its first
    failure line>' (a failed check is a failed run), or, when the harness
    stopped it at limit_s, which conditions passed and which one had not
    finished (go-tpc checks them in turn and stops at the first failure;
    what it prints after the stop, 'Got signal', is not one)."""
    if timed_out and "Got signal" in text:
        text = text[:text.index("Got signal")]      # what follows is the stop
    begun = [(m.group("w"), m.group("c")) for m in CHECK_BEGIN_RE.finditer(text)]
    failure = next((line.strip() for line in text.splitlines()
                    if CHECK_FAIL_RE.search(line) and not CHECK_BEGIN_RE.search(line)), None)
    if timed_out and not failure:
        if not begun:
            return f"not finished in {limit_s} s"
        passed = [c for _, c in begun[:-1]]
        w, c = begun[-1]
        return ((f"{', '.join(passed)} passed; " if passed else "")
                + f"{c} (warehouse {w}) not finished in {limit_s} s")
    if rc != 0 or failure:
        first = failure.splitlines()[0] if failure else f"go-tpc exited with {rc}"
        return "FAILED: " + first[:200]
    return "passed"


class Runs:
    """What the scenarios tpcc and ch (scenarios/tpcc.py) ask of the
    harness's core: go-tpc's data loaded once per server and restored for
    every run, and go-tpc's check; a part of bench.Bench (its use(),
    step(), log(), ...)."""

    def gotpc_user(self, srv):
        if self.attach:
            return          # go-tpc connects as the user given
        srv.query(f"CREATE USER IF NOT EXISTS {USER}@'127.0.0.1' IDENTIFIED BY "
                  f"'{PASSWORD}'; GRANT ALL ON *.* TO {USER}@'127.0.0.1'")

    def gotpc_snapshot(self, t, binary, name, warehouses):
        """Load go-tpc's data into t's server once, shut it down slowly (no
        history left) and keep a copy of the data directory to start every
        run from."""
        key = (name, warehouses)
        if t.snapshot == key:
            return
        srv = self.use(t)
        self.gotpc_user(srv)
        srv.query(f"DROP DATABASE IF EXISTS {db_of(self.attach)}")
        self.schema_created = True
        steps = [("tpcc", "prepare")] + ([("ch", "prepare")] if name == "ch" else [])
        for bench, action in steps:
            cmd = command(binary, t.tcp_port, bench, action, warehouses, threads=4,
                                conn=self.attach)
            if bench == "tpcc":
                # the consistency check that prepare runs after the load by
                # itself took most of a 4-warehouse prepare's 12 minutes
                # (condition 3.3.2.10); every run is checked afterwards
                cmd.append("--no-check")
            self.commands.append(redact(" ".join(cmd), self.secrets))
            self.log(f"   {t.label}: go-tpc {bench} {action}, {warehouses} warehouse(s)")
            load = LoadProgress(warehouses)
            with self.step(f"{t.label}: go-tpc {bench} {action}", load.status):
                rc, out = client.run_lines(cmd, load)
            if rc != 0:
                raise GoTpcError(f"go-tpc {bench} {action} failed:\n{out[-2000:]}")
        self.analyze_tables(srv, t)
        if self.attach:
            # no data directory to copy: the runs share the data as loaded
            # once, each starting where the one before left it
            self.meta["go-tpc data"] = (
                "attach mode: loaded once; each run starts where the one before left it "
                "(no copy of the data directory to restore)")
            self.wait_for_purge(srv)
            t.snapshot = key
            return
        with self.step(f"{t.label}: slow shutdown after the load", srv.shutdown_status):
            srv.shutdown(slow=True)
        snap = os.path.join(t.workdir, "data.prepared")
        shutil.rmtree(snap, ignore_errors=True)
        with self.step(f"{t.label}: copying the loaded data directory"):
            shutil.copytree(srv.datadir, snap, symlinks=True)
        t.snapshot = key

    def analyze_tables(self, srv, t):
        """ANALYZE TABLE every table that go-tpc loaded. InnoDB's persistent
        statistics otherwise count the rows of an almost empty table until a
        background recalculation: the optimizer then scanned stock and
        customer under locking reads, and TPC-C ran 30 times slower."""
        db = db_of(self.attach)
        tables = [r[0] for r in srv.query(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE "
            f"TABLE_SCHEMA='{db}' AND TABLE_TYPE='BASE TABLE' ORDER BY TABLE_NAME")]
        if not tables:
            return
        sql = "ANALYZE TABLE " + ", ".join(f"`{db}`.`{n}`" for n in tables)
        self.commands.append(sql)
        with self.step(f"{t.label}: ANALYZE TABLE ({len(tables)} tables)"):
            srv.query(sql, timeout=3600)

    def restore_snapshot(self, t):
        """t's data directory as gotpc_snapshot() left it; its server stopped.
        Attach mode: nothing (the server is not the harness's to stop)."""
        if self.attach:
            return
        if t.running():
            t.server.shutdown(slow=False)
        for other in self.targets:
            if other is not t and other.running():
                other.server.shutdown(slow=False, timeout=600)
        data = t.server.datadir
        with self.step(f"{t.label}: restoring the loaded data directory"):
            shutil.rmtree(data)
            shutil.copytree(os.path.join(t.workdir, "data.prepared"), data, symlinks=True)
        t.prepared = None       # sysbench's tables are not in it

    def gotpc_check(self, t, binary, warehouses):
        """go-tpc tpcc check after a run, bounded by --check-time: passed,
        FAILED (a failed check is a failed run), or not finished (its
        connections are killed on the server, so that no query of it runs on)."""
        srv = self.use(t)
        cmd = command(binary, t.tcp_port, "tpcc", "check", warehouses, threads=1,
                            conn=self.attach)
        t0 = time.time()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        timed_out = False
        try:
            with self.step(f"{t.label}: go-tpc tpcc check (at most {self.args.check_time} s)"):
                out = proc.communicate(timeout=self.args.check_time)[0]
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.terminate()
            try:
                out = proc.communicate(timeout=15)[0]
            except subprocess.TimeoutExpired:
                proc.kill()
                out = proc.communicate()[0]
            for (cid,) in srv.query("SELECT ID FROM information_schema.PROCESSLIST "
                                    + (f"WHERE USER='{USER}'" if not self.attach else
                                       f"WHERE DB='{db_of(self.attach)}' AND "
                                       "ID <> CONNECTION_ID()")):
                try:
                    srv.query(f"KILL {cid}")
                except ServerError:
                    pass            # it ended meanwhile
        verdict = check_verdict(out, proc.returncode, timed_out, self.args.check_time)
        self.keep_output("check", t.label, len(self.runs), [out])
        # stop it so that the next run starts from its snapshot
        srv.shutdown(slow=False)
        return {"check": verdict, "check_s": round(time.time() - t0, 1),
                "check_passed": verdict.startswith("passed")}
