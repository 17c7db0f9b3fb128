# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""The Insert Benchmark (issue 20): Mark Callaghan's benchmark, written for
purgelab from its published description, as a sequence of sysbench runs of
lua/insert_benchmark.lua: the step plan, the command lines, the parser of
the script's counter lines, the check of the writers' rate, the server's
CPU time and database size, the tables, and the runs (Runs).

Run as the scenario insert-benchmark by scenarios/insert_benchmark.py and
Runs.ib_step(), a part of bench.Bench (docs/benchmarks.md); tests/fixtures/insertbench-counters.txt is the client
output of a query step against the release build of 10.11.18.

The steps (plan_steps()), in order, on one table that they share:
  l.i0   load table_rows rows in primary-key order, no secondary indexes
  l.x    create the 3 secondary indexes (one ALTER TABLE)
  l.i1   inserts in PK order and deletes of the oldest rows at the same rate,
         50 rows per commit, until i1_rows rows are in
  l.i2   the same, 5 rows per commit, i2_rows rows
  qr100, qp100, qr500, qp500, qr1000, qp1000
         query_seconds each: `readers` threads run range (qr) or point (qp)
         queries as fast as they can while `writers` threads insert and
         delete 100, 500 or 1000 rows per second each; sustained() tells
         whether the writers kept that rate.
The default sizes took about 6.5 minutes per arm on the 2-core machine
(docs/results/ib-lag1000); estimated_seconds() says about 10, because
ESTIMATED_ROWS_PER_S is a cautious guess (measured there: l.i0 ~230k,
l.x ~510k, l.i1 ~30k, l.i2 ~11k rows/s) that also sets the load steps'
time limits (TIME_CAP). --full is estimated at about 40 minutes.

How bench.py runs it
--------------------
Plan: ib_plan() = plan_steps(--full, writers=--threads or 2, table_rows=
--rows, query_seconds=--time), checked in parse_args() before any server
starts. Arms: unthrottled and each throttle at each --lags target, as in
backlog-vs-lag (scenarios.base.throttle_arms(); a stock server runs
formula only), rotated per repeat as whole arms (Scenario.lag_runs()); an arm runs every step in plan order on a table
of its own (t.prepared = None before its l.i0: ensure_tables() drops
sbtest and runs the script's prepare; the later steps keep its key).
Each step is one run_arm() named ARM@STEP (plan.Arm.at()), given
options=sysbench_options(step) (for the run only, not the prepare) and
parse=parse_ib_output (res["ib"]); run_arm() adds server_cpu_s (mariadbd's
utime + stime from /proc over the load, not its shutdown) and redo_bytes
(LSN under load). Each step ends with run_arm()'s slow shutdown, so all
history is purged before the next step starts the server again (10.11
dumps and reloads the buffer pool, so a step starts warm-ish). With the
server down, Bench.ib_step() adds db_bytes() and table_bytes, and
step_row() as res["ib_row"]; Bench.tables() shows relative_table() of
rows_by_arm(), scenarios/insert_benchmark.py's ib_plot() draws
throughput_series() and the history across the steps of each arm.
"""

import os
import re

from . import stats, sysbench

LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lua", "insert_benchmark.lua")
SCENARIO = "insert-benchmark"
TABLE = "ib1"

RATES = (100, 500, 1000)        # rows per second per writer in the query steps
STEPS = ("l.i0", "l.x", "l.i1", "l.i2") + tuple(
    f"q{kind}{rate}" for rate in RATES for kind in ("r", "p"))

# (small default, --full)
SIZES = {
    False: dict(table_rows=1_000_000, i1_rows=400_000, i2_rows=100_000, query_seconds=60),
    True: dict(table_rows=5_000_000, i1_rows=2_000_000, i2_rows=500_000, query_seconds=300),
}
# rows per commit: the benchmark's 50 (l.i1) and 5 (l.i2); l.i0 inserts 100
# rows per statement; the query steps' writers commit 10 rows at a time (our
# choice: 10 commits a second at 100 rows/s)
ROWS_PER_COMMIT = {"l.i0": 100, "l.i1": 50, "l.i2": 5, "query": 10}
RANGE_LENGTH = 10
DEFAULT_WRITERS = 2
# Guesses of what the 2-core machine does, all writers together (l.x: rows
# indexed per second), for the time estimate and the row-limited steps'
# time limit. Replace them by measured ones after a first run.
ESTIMATED_ROWS_PER_S = {"l.i0": 50_000, "l.x": 100_000, "l.i1": 10_000, "l.i2": 2_000}
TIME_CAP = 4            # a row-limited step's --time: this many times its estimate,
MIN_TIME_LIMIT = 60     # and at least this many seconds
STEP_OVERHEAD_S = 10    # per step: server start, purge wait, slow shutdown (estimate)
# a writer deletes only its 1/writers of the rows its step began with
# (lua/insert_benchmark.lua): a step keeps each writer's rows below this
# share of them, leaving room for holes an earlier step left in the keys
SHARE = 0.9

COUNTERS_PREFIX = "ib-counters:"
COUNTER_INTS = ("v", "thread", "writers", "readers", "rows_per_commit", "inserted",
                "deleted", "commits", "queries", "query_rows", "events", "restarts")
COUNTER_FLOATS = ("target_rate", "seconds", "event_max_ms", "event_avg_ms", "behind_max_s")
COUNTER_WORDS = ("step", "role")
ROLES = ("writer", "reader", "indexer", "idle")


def lua_step(name):
    """The script's --ib_step of a step name: load, index, churn or query."""
    return {"l.i0": "load", "l.x": "index", "l.i1": "churn", "l.i2": "churn"}.get(
        name, "query")


def plan_steps(full=False, writers=DEFAULT_WRITERS, readers=None, table_rows=None,
               i1_rows=None, i2_rows=None, query_seconds=None, rates=RATES,
               range_length=RANGE_LENGTH):
    """The steps in order: a list of dicts, each
        name            l.i0, l.x, l.i1, l.i2, qr100, qp100, ... (q + r|p + rate)
        ib_step         the script's step: load, index, churn, query
        threads         sysbench --threads (l.x: 1; qr/qp: writers + readers)
        writers, readers  threads that write, and that query
        rows            rows to insert, all writers together (l.i0:
                        table_rows; l.x and the query steps: None, the
                        query steps run for `seconds`)
        rows_per_commit
        rate            rows per second per writer (None: as fast as they can)
        query           range, point, or None
        range_length    rows per range query
        seconds         the query steps' duration; the others' estimate
        time_limit      sysbench --time: seconds for a query step; for the
                        others TIME_CAP x the estimate, at least MIN_TIME_LIMIT
        table_rows      the table's size (sysbench --table-size)
    Sizes default to SIZES[full]; a table_rows given without i1_rows or
    i2_rows scales them with it (as SIZES: 40% and 10% of the table);
    readers default to one per writer. A writer deletes
    only rows that were there when its step began, 1/writers of them, so a
    step in which a writer would insert more than SHARE x table_rows /
    writers rows is refused (ValueError), as are fewer than 1 writer or
    reader."""
    size = dict(SIZES[bool(full)])
    if table_rows is not None:
        for key in ("i1_rows", "i2_rows"):
            size[key] = max(1, size[key] * table_rows // size["table_rows"])
    for key, value in (("table_rows", table_rows), ("i1_rows", i1_rows),
                       ("i2_rows", i2_rows), ("query_seconds", query_seconds)):
        if value is not None:
            size[key] = value
    readers = writers if readers is None else readers
    if writers < 1 or readers < 1:
        raise ValueError(f"the insert benchmark needs a writer and a reader at least "
                         f"(writers {writers}, readers {readers})")
    n = size["table_rows"]
    share = SHARE * n / writers     # rows one writer may insert in a step

    def limited(name, rows, threads, rows_per_commit):
        estimate = rows / ESTIMATED_ROWS_PER_S[name]
        return dict(name=name, ib_step=lua_step(name), threads=threads,
                    writers=0 if name == "l.x" else threads,
                    readers=0, rows=None if name == "l.x" else rows,
                    rows_per_commit=rows_per_commit, rate=None, query=None,
                    range_length=range_length, seconds=estimate,
                    time_limit=max(MIN_TIME_LIMIT, int(TIME_CAP * estimate + 0.999)),
                    table_rows=n)

    steps = [limited("l.i0", n, writers, ROWS_PER_COMMIT["l.i0"]),
             limited("l.x", n, 1, ROWS_PER_COMMIT["l.i1"])]
    for name in ("l.i1", "l.i2"):
        rows = size[name[2:] + "_rows"]
        if rows / writers + ROWS_PER_COMMIT[name] > share:
            raise ValueError(f"{name}: {rows:,} rows over {writers} writers is more than "
                             f"the {share:,.0f} rows each may insert and delete in a step "
                             f"on a {n:,}-row table")
        steps.append(limited(name, rows, writers, ROWS_PER_COMMIT[name]))
    seconds = size["query_seconds"]
    for rate in rates:
        if rate * seconds + ROWS_PER_COMMIT["query"] > share:
            raise ValueError(f"q*{rate}: {rate} rows/s for {seconds}s is more than the "
                             f"{share:,.0f} rows each writer may insert and delete in a "
                             f"step on a {n:,}-row table")
        for kind, query in (("r", "range"), ("p", "point")):
            steps.append(dict(name=f"q{kind}{rate}", ib_step="query",
                              threads=writers + readers, writers=writers, readers=readers,
                              rows=None, rows_per_commit=ROWS_PER_COMMIT["query"], rate=rate,
                              query=query, range_length=range_length, seconds=seconds,
                              time_limit=seconds, table_rows=n))
    return steps


def estimated_seconds(steps, overhead=STEP_OVERHEAD_S):
    """The plan's estimated duration: each step's seconds plus `overhead`."""
    return sum(s["seconds"] + overhead for s in steps)


def sysbench_options(step, table=TABLE):
    """The script's options for one step of plan_steps(): what follows
    sysbench's own options on the command line (--tables, --table-size,
    --threads and --time are sysbench.command()'s)."""
    # load inserts --table-size rows; churn its rows; query runs for --time
    rows = step["rows"] if step["ib_step"] == "churn" else 0
    return [f"--ib_step={step['ib_step']}", f"--ib_table={table}", f"--ib_rows={rows}",
            f"--ib_rows_per_commit={step['rows_per_commit']}",
            f"--ib_writers={step['writers']}",
            f"--ib_writer_rate={step['rate'] or 0}",
            f"--ib_query={step['query'] or 'range'}",
            f"--ib_range_length={step['range_length']}"]


# the script's options that plan_steps() and sysbench_options() set for
# each step: --sb-option may not set them
SET_BY_HARNESS = ("ib_step", "ib_table", "ib_rows", "ib_rows_per_commit", "ib_writers",
                  "ib_writer_rate", "ib_query", "ib_range_length")


def is_script_option(option):
    """Whether an --sb-option ('--KEY=VALUE') is this script's (ib_*, e.g.
    --ib_data_max=4000): the script gets those and only those; the others
    are for the sysbench workloads of the other scenarios."""
    return option.lstrip("-").startswith("ib_")


def command(step, socket, table=TABLE):
    """The whole sysbench command line of a step (as run_arm() would make
    it, given options=sysbench_options(step))."""
    return sysbench.command(LUA, "run", socket, 1, step["table_rows"], threads=step["threads"],
                            time_s=step["time_limit"], extra=sysbench_options(step, table))


def prepare_command(socket, table_rows, table=TABLE):
    """sysbench's prepare of the script: the empty table, no indexes."""
    return sysbench.command(LUA, "prepare", socket, 1, table_rows, threads=1,
                            extra=[f"--ib_table={table}"])


def parse_counter_line(line):
    """One 'ib-counters:' line -> dict (ints, floats and words by
    COUNTER_INTS, COUNTER_FLOATS, COUNTER_WORDS); ValueError when a field is
    missing or is not a number, or the line is not one."""
    text = line.strip()
    if not text.startswith(COUNTERS_PREFIX):
        raise ValueError(f"not a counters line: {line!r}")
    fields = {}
    for item in text[len(COUNTERS_PREFIX):].split():
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"'{item}' is not KEY=VALUE in {line!r}")
        fields[key] = value
    out = {}
    for keys, conv in ((COUNTER_INTS, int), (COUNTER_FLOATS, float), (COUNTER_WORDS, str)):
        for key in keys:
            if key not in fields:
                raise ValueError(f"counters line without {key}: {line!r}")
            out[key] = conv(fields[key])
    if out["v"] != 1:
        raise ValueError(f"counters line of version {out['v']}, this parser reads 1")
    if out["role"] not in ROLES:
        raise ValueError(f"unknown role {out['role']!r} in {line!r}")
    return out


def parse_ib_output(text):
    """What the script printed in one sysbench run (its whole output, or any
    part holding the 'ib-counters:' lines, one per thread) -> dict, None
    when there is no such line:
        step, writers, readers, rows_per_commit   as the script was run
        target_rate     rows/s per writer, None when unpaced
        rows_inserted, rows_deleted, commits, queries, query_rows, restarts
                        sums over the threads
        writer_seconds, reader_seconds, indexer_seconds
                        the longest any thread of that role ran (None: none)
        writer_event_max_ms, reader_event_max_ms   the slowest event
        behind_max_s    the most a paced writer was late
        threads         the lines, as parse_counter_line() made them,
                        ordered by thread
        complete        every writer and reader printed its line
    ValueError for a malformed line or lines of different steps."""
    lines = [parse_counter_line(line) for line in text.splitlines()
             if line.strip().startswith(COUNTERS_PREFIX)]
    if not lines:
        return None
    lines.sort(key=lambda d: d["thread"])
    first = lines[0]
    for d in lines[1:]:
        for key in ("step", "writers", "readers"):
            if d[key] != first[key]:
                raise ValueError(f"counters of different runs mixed: {key} {first[key]!r} "
                                 f"and {d[key]!r}")

    def of(role):
        return [d for d in lines if d["role"] == role]

    def most(role, key):
        return max((d[key] for d in of(role)), default=None)

    writers = of("writer")
    rates = {d["target_rate"] for d in writers}
    rate = max(rates) if rates else 0
    out = dict(step=first["step"], writers=first["writers"], readers=first["readers"],
               rows_per_commit=first["rows_per_commit"], target_rate=rate or None,
               threads=lines,
               complete=(len(writers) == first["writers"]
                         and len(of("reader")) == first["readers"]))
    for key, total in (("inserted", "rows_inserted"), ("deleted", "rows_deleted"),
                       ("commits", "commits"), ("queries", "queries"),
                       ("query_rows", "query_rows"), ("restarts", "restarts")):
        out[total] = sum(d[key] for d in lines)
    for role in ("writer", "reader", "indexer"):
        out[f"{role}_seconds"] = most(role, "seconds")
    out["writer_event_max_ms"] = most("writer", "event_max_ms")
    out["reader_event_max_ms"] = most("reader", "event_max_ms")
    out["behind_max_s"] = most("writer", "behind_max_s")
    return out


def sustained(target_rate_per_writer, writers, rows_written, seconds, tolerance=0.95):
    """Whether the writers kept their rate: (verdict, achieved rows/s of all
    writers together). Sustained when rows_written / seconds is at least
    tolerance x target_rate_per_writer x writers (exactly at the boundary
    counts as sustained). "unpaced" when there was no target (None or 0);
    "not sustained" with 0.0 when the writers did not run (seconds <= 0)."""
    if not seconds or seconds <= 0:
        return ("unpaced" if not target_rate_per_writer else "not sustained"), 0.0
    achieved = rows_written / seconds
    if not target_rate_per_writer:
        return "unpaced", achieved
    need = tolerance * target_rate_per_writer * writers
    # a relative epsilon, so that a rate exactly at the boundary is not lost
    # to rounding
    return ("sustained" if achieved >= need * (1 - 1e-9) else "not sustained"), achieved


def proc_cpu_seconds(pid, proc="/proc"):
    """CPU seconds (user + system) a process has used so far, from
    PROC/PID/stat fields 14 and 15 (utime, stime, in clock ticks); None when
    there is no such process. The command name (field 2) may hold spaces
    and parentheses: the fields are counted after its last ')'."""
    try:
        with open(os.path.join(proc, str(pid), "stat")) as f:
            text = f.read()
    except OSError:
        return None
    rest = text[text.rindex(")") + 1:].split()
    # rest[0] is field 3 (state): utime is field 14, stime field 15
    utime, stime = int(rest[11]), int(rest[12])
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


UNDO_RE = re.compile(r"^(ibdata\d+|undo\d+)$")


def db_bytes(datadir, db="sbtest", system=True):
    """Bytes on disk of the benchmark's database: the files under
    DATADIR/DB (the table's .ibd: its rows, its delete-marked rows purge has
    not removed yet, free pages) plus, unless system is false, the system
    and undo tablespaces (ibdata*, undo*), where the history lives. None
    when DATADIR/DB is not there. Meant for a stopped server (after
    run_arm()'s shutdown). The system tablespace never shrinks (10.11 keeps
    the undo logs in it by default, innodb_undo_tablespaces=0): what an
    earlier arm on the same data directory made it grow stays in it."""
    path = os.path.join(datadir, db)
    if not os.path.isdir(path):
        return None
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    if not system:
        return total
    for name in os.listdir(datadir):
        full = os.path.join(datadir, name)
        if UNDO_RE.match(name) and os.path.isfile(full):
            total += os.path.getsize(full)
    return total


def _redo_from_samples(samples):
    lsn = [s.get("innodb_lsn_current") for s in samples or []]
    lsn = [v for v in lsn if v is not None]
    return lsn[-1] - lsn[0] if len(lsn) >= 2 else None


def _per(a, b):
    return None if a is None or not b else a / b


def step_row(step, arm, res, counters=None, cpu_s=None, db_size=None, redo_bytes=None,
             tolerance=0.95):
    """One step of one arm, measured: a dict for relative_table().
      step      the step's dict from plan_steps()
      arm       the arm's name (without @STEP)
      res       Bench.run_arm()'s result: lat_p99_ms, lat_max_ms,
                history_p95, history_max, repeat, and what the hook adds
                (module docstring, 4.): ib, server_cpu_s, redo_bytes,
                db_bytes; samples only for the redo fallback
      counters, cpu_s, db_size, redo_bytes   override res's ib,
                server_cpu_s, db_bytes, redo_bytes
    The row:
      step, arm, repeat, seconds (the writers' time; l.x the ALTER's; a
      query step its readers'), rows_inserted, rows_deleted, queries,
      inserts_per_s (l.x: rows indexed per second), deletes_per_s,
      queries_per_s, throughput (queries/s in a query step, else
      inserts/s: what relative_table() compares), lat_p99_ms, lat_max_ms,
      history_p95, history_max, redo_bytes_per_row (per inserted row; l.x:
      per table row), ops and cpu_s_per_op (server CPU seconds per query in
      a query step, per inserted row in l.i*, per table row in l.x), db_bytes,
      table_bytes (res's, the table's files alone: db_bytes(system=False)),
      writers, target_rate, achieved_rate (rows/s of all writers) and
      sustained (sustained(): a verdict in a paced step, else None)."""
    c = counters if counters is not None else res.get("ib") or {}
    cpu_s = cpu_s if cpu_s is not None else res.get("server_cpu_s")
    db_size = db_size if db_size is not None else res.get("db_bytes")
    if redo_bytes is None:
        redo_bytes = res.get("redo_bytes")
    if redo_bytes is None:
        redo_bytes = _redo_from_samples(res.get("samples"))
    kind = step["ib_step"]
    inserted, deleted, queries = (c.get("rows_inserted") or 0, c.get("rows_deleted") or 0,
                                  c.get("queries") or 0)
    wsec, rsec = c.get("writer_seconds"), c.get("reader_seconds")
    if kind == "index":
        seconds = c.get("indexer_seconds")
        rows = step["table_rows"]
        inserts_per_s, ops = _per(rows, seconds), rows
        redo_per_row = _per(redo_bytes, rows)
    else:
        seconds = rsec if kind == "query" else wsec
        inserts_per_s, ops = _per(inserted, wsec), (queries if kind == "query" else inserted)
        redo_per_row = _per(redo_bytes, inserted)
    queries_per_s = _per(queries, rsec) if kind == "query" else None
    target = c.get("target_rate") if "target_rate" in c else step.get("rate")
    writers = c.get("writers") or step["writers"]
    verdict, achieved = sustained(target, writers, inserted, wsec or 0, tolerance) \
        if kind != "index" else (None, None)
    return dict(step=step["name"], arm=arm, repeat=res.get("repeat", 1), seconds=seconds,
                rows_inserted=inserted, rows_deleted=deleted, queries=queries,
                inserts_per_s=inserts_per_s, deletes_per_s=_per(deleted, wsec),
                queries_per_s=queries_per_s,
                throughput=queries_per_s if kind == "query" else inserts_per_s,
                lat_p99_ms=res.get("lat_p99_ms"), lat_max_ms=res.get("lat_max_ms"),
                history_p95=res.get("history_p95"), history_max=res.get("history_max"),
                redo_bytes_per_row=redo_per_row, ops=ops, cpu_s_per_op=_per(cpu_s, ops),
                db_bytes=db_size, table_bytes=res.get("table_bytes"),
                writers=writers if kind != "index" else 0,
                target_rate=target,
                achieved_rate=achieved,
                sustained=verdict if verdict in ("sustained", "not sustained") else None)


def throughput_series(res):
    """One step's throughput per second, from sysbench's report intervals
    (res["intervals"]: t, tps = events/s) and the script's counters
    (res["ib"]): [(t, value)], what relative_table() compares:
      l.i0, l.i1, l.i2: rows inserted/s, events/s x rows per commit (an
        event of a writer inserts one batch);
      qr*, qp*: queries/s, events/s less the writers' mean events/s over
        the step (an event is one query, or one writer's insert and delete
        transactions: at most writers x rate / rows per commit a second);
      l.x: none (its one event is the ALTER TABLE)."""
    c = res.get("ib") or {}
    intervals = res.get("intervals") or []
    if c.get("step") in ("load", "churn"):
        k = c.get("rows_per_commit") or 0
        return [(iv["t"], iv["tps"] * k) for iv in intervals]
    if c.get("step") == "query":
        events = sum(d["events"] for d in c.get("threads", []) if d["role"] == "writer")
        per_s = events / c["writer_seconds"] if c.get("writer_seconds") else 0.0
        return [(iv["t"], max(0.0, iv["tps"] - per_s)) for iv in intervals]
    return []


def rows_by_arm(runs):
    """Bench.runs of the scenario (each with its "ib_row") -> {arm: [row]},
    arms in the order they first ran."""
    out = {}
    for r in runs:
        row = r.get("ib_row")
        if row is not None:
            out.setdefault(row["arm"], []).append(row)
    return out


def relative_cell(r):
    """A relative value, coloured as the Insert Benchmark colours it
    (stats.mark: red <= 0.95, green >= 1.05): '**0.90** (red)', '1.00'."""
    return stats.rel_cell(r)


NUMERIC = ("seconds", "rows_inserted", "rows_deleted", "queries", "inserts_per_s",
           "deletes_per_s", "queries_per_s", "throughput", "lat_p99_ms", "lat_max_ms",
           "history_p95", "history_max", "redo_bytes_per_row", "ops", "cpu_s_per_op",
           "db_bytes", "table_bytes", "target_rate", "achieved_rate")


def _merged(rows):
    """The repeats of one step of one arm as one row: the median of every
    number; sustained only when every repeat was."""
    if len(rows) == 1:
        return dict(rows[0], n=1)
    out = dict(rows[0], n=len(rows))
    for key in NUMERIC:
        out[key] = stats.summary([r.get(key) for r in rows])["median"]
    verdicts = {r.get("sustained") for r in rows}
    out["sustained"] = (None if verdicts == {None} else "sustained"
                        if verdicts == {"sustained"} else "not sustained")
    return out


def _num(v, d=0):
    if v is None:
        return "-"
    return f"{v:,.{d}f}"


def _ms(v):
    return "-" if v is None else f"{v:,.3g}" if v < 100 else f"{v:,.0f}"


def _merge_steps(results_by_arm):
    """(steps in the order they first ran, {arm: {step: merged row}})."""
    steps, merged = [], {}
    for arm, rows in results_by_arm.items():
        by_step = {}
        for row in rows:
            by_step.setdefault(row["step"], []).append(row)
            if row["step"] not in steps:
                steps.append(row["step"])
        merged[arm] = {s: _merged(rs) for s, rs in by_step.items()}
    return steps, merged


def server_pairs(runs):
    """[(arm, reference arm)]: each arm of a later server with the first
    server's arm of the same name (Bench.runs' "server" labels)."""
    from .plan import Arm
    servers, arms = [], {}
    for r in runs:
        row = r.get("ib_row")
        if row is None:
            continue
        arm = Arm.parse(row["arm"])     # without its step
        if arm.server not in servers:
            servers.append(arm.server)
        arms.setdefault(arm.server, {})[arm.replace(server="")] = row["arm"]
    if len(servers) < 2:
        return []
    first = arms[servers[0]]
    return [(name, first[plain]) for srv in servers[1:]
            for plain, name in arms[srv].items() if plain in first]


def headline(runs, pairs=None):
    """The summary's opening for the Insert Benchmark: [(title, [sentence])].
    Per arm the history p95 of the churn steps (l.i1, l.i2; as a multiple
    of the arm's target if it has one) and, for arms other than the base
    (the first), the throughput over the base's per step, with the steps
    the Insert Benchmark colours; the paced steps whose writers fell short;
    with two servers or more (pairs: server_pairs()), each arm over the same
    arm on the first server, and the steps outside 0.95..1.05."""
    results = rows_by_arm(runs)
    if not results:
        return []
    pairs = server_pairs(runs) if pairs is None else pairs
    lag_of = {r["ib_row"]["arm"]: r.get("lag") for r in runs if r.get("ib_row")}
    steps, merged = _merge_steps(results)
    arms = list(results)
    base = arms[0]

    def ratios(arm, ref):
        return [(s, stats.ratio(merged[arm][s].get("throughput"),
                                merged[ref][s].get("throughput")))
                for s in steps if s in merged[arm] and s in merged[ref]]

    def outside(rs):
        bad = [f"{s} {r:.2f} ({stats.mark(r)})" for s, r in rs if stats.mark(r)]
        inside = sum(1 for _, r in rs if r is not None and not stats.mark(r))
        return inside, bad

    lines = []
    for arm in arms:
        churn = [(s, merged[arm][s].get("history_p95")) for s in ("l.i1", "l.i2")
                 if s in merged[arm]]
        lag = lag_of.get(arm)
        hist = ", ".join(f"{s} {_num(h)}" + (f" ({h / lag:.2f}x the target {_num(lag)})"
                                               if lag and h is not None else "")
                         for s, h in churn)
        text = f"{arm}{' (the base)' if arm == base else ''}: history p95 {hist or '-'}"
        if arm != base:
            rs = ratios(arm, base)
            inside, bad = outside(rs)
            text += (f"; throughput over {base} within 0.95..1.05 in {inside} of {len(rs)} steps"
                     + (f", outside: {', '.join(bad)}" if bad else ""))
        short = [s for s in steps if s in merged[arm]
                 and merged[arm][s].get("sustained") == "not sustained"]
        text += (f"; writers fell short of their rate in {', '.join(short)}" if short else "")
        lines.append(text + ".")
    out = [("insert-benchmark", lines)]
    if pairs:
        cmp_lines = []
        for arm, ref in pairs:
            rs = ratios(arm, ref)
            inside, bad = outside(rs)
            cmp_lines.append(f"{arm} over {ref}: within 0.95..1.05 in {inside} of {len(rs)} "
                             f"steps" + (f"; outside: {', '.join(bad)}" if bad else "") + ".")
        out.append(("insert-benchmark, servers", cmp_lines))
    return out


def relative_table(results_by_arm, base_arm=None, pairs=()):
    """The report's tables, as (title, header, rows) like Bench.tables():
      per step and arm: inserts/s, queries/s, latency p99 / max, history p95
        and max, redo bytes per inserted row, server CPU microseconds per
        operation, database MB at the end of the step, the writers' rate;
      with two arms or more, per step the throughput of each arm over the
        base arm's (queries/s in qr/qp, inserts/s in l.i0, l.i1, l.i2,
        indexed rows/s in l.x), coloured by stats.mark;
      with pairs [(arm, reference arm)] (two servers: B's arm and A's arm of
        the same name), per step each arm's throughput over its reference's.
    results_by_arm: {arm: [step_row() dicts]} (rows_by_arm()); repeats of a
    step are merged into their medians. The base is base_arm, else the
    first arm. Steps appear in the order they first appear."""
    arms = list(results_by_arm)
    if not arms:
        return []
    base = base_arm if base_arm is not None else arms[0]
    if base not in results_by_arm:
        raise ValueError(f"base arm {base!r} has no results (arms: {', '.join(arms)})")
    steps, merged = _merge_steps(results_by_arm)
    repeats = max(r["n"] for m in merged.values() for r in m.values())

    def writers_cell(r):
        if not r.get("writers"):
            return "-"      # l.x: the ALTER TABLE alone
        if r.get("sustained") is None:
            return "unpaced"
        target = (r.get("target_rate") or 0) * (r.get("writers") or 0)
        return f"{r['sustained']} ({_num(r.get('achieved_rate'))} of {_num(target)} rows/s)"

    rows = []
    for s in steps:
        for arm in arms:
            r = merged[arm].get(s)
            if r is None:
                continue
            cpu_us = None if r.get("cpu_s_per_op") is None else r["cpu_s_per_op"] * 1e6
            mb = _num(None if r.get("db_bytes") is None else r["db_bytes"] / 2**20)
            if r.get("table_bytes") is not None:
                mb += f" (table {_num(r['table_bytes'] / 2**20)})"
            rows.append([s, arm, _num(r.get("inserts_per_s")), _num(r.get("queries_per_s")),
                         f"{_ms(r.get('lat_p99_ms'))} / {_ms(r.get('lat_max_ms'))}",
                         _num(r.get("history_p95")), _num(r.get("history_max")),
                         _num(r.get("redo_bytes_per_row")), _num(cpu_us, 1), mb,
                         writers_cell(r)])
    title = "insert-benchmark: per step" + (f" (medians of {repeats} repeats)"
                                            if repeats > 1 else "")
    out = [(title, ["step", "arm", "inserts/s (l.x: rows indexed/s)", "queries/s",
                    "latency ms p99 / max", "history p95", "history max",
                    "redo bytes per inserted row", "server CPU µs/op",
                    "database MB (table)",
                    "writers"], rows)]
    what = "queries/s in qr/qp, inserts/s in l.i0, l.i1, l.i2, rows indexed/s in l.x"

    def ratios(pairs):
        rel_rows = []
        for s in steps:
            row = [s]
            for arm, ref in pairs:
                me, b = merged[arm].get(s), merged[ref].get(s)
                row.append(relative_cell(stats.ratio(me and me.get("throughput"),
                                                     b and b.get("throughput"))))
            rel_rows.append(row)
        return ["step"] + [f"{arm} / {ref}" for arm, ref in pairs], rel_rows

    others = [a for a in arms if a != base]
    if others:
        out.append((f"insert-benchmark: relative to {base} ({what})",
                    *ratios([(arm, base) for arm in others])))
    pairs = [(arm, ref) for arm, ref in pairs if arm in merged and ref in merged]
    if pairs:
        out.append((f"insert-benchmark: each arm against the same arm on the other server "
                    f"({what})", *ratios(pairs)))
    return out


class Runs:
    """One step of insert-benchmark (scenarios/insert_benchmark.py runs the
    arms and their steps): a part of bench.Bench (its run_arm(), step(),
    log(), ...)."""

    def ib_step(self, t, arm, settings, step, repeat, extra=None):
        """One step of the Insert Benchmark for one arm: a run_arm() with
        the step's options, its counters parsed, the database's size taken
        once the server is down, and its row of the tables."""
        fmt = _num
        name = SCENARIO
        at = t.arm(arm).at(step["name"])       # its name: ARM@STEP

        def parse(text):
            try:
                return {"ib": parse_ib_output(text)}
            except ValueError as e:
                self.log(f"  {name} {at}: the script's counters "
                         f"do not parse: {e}")
                return {"ib": None}

        res = self.run_arm(t, name, arm.at(step["name"]), settings, LUA, 1,
                           step["table_rows"], step["threads"], step["time_limit"], repeat,
                           extra=dict(extra or {}, ib_step=step["name"]),
                           options=sysbench_options(step), parse=parse)
        if res is None:
            return None
        if self.attach:
            # no data directory here: the table's tablespace as the server
            # reports it, the system and undo tablespaces not
            res["db_bytes"] = None
            size = t.server.value("SELECT SUM(FILE_SIZE) FROM information_schema."
                                  "INNODB_SYS_TABLESPACES WHERE NAME LIKE "
                                  f"'{self.attach.db}/%'")
            res["table_bytes"] = int(size) if size not in (None, "NULL") else None
        else:
            res["db_bytes"] = db_bytes(t.server.datadir)
            res["table_bytes"] = db_bytes(t.server.datadir, system=False)
        row = res["ib_row"] = step_row(step, str(t.arm(arm)), res)
        c = res.get("ib") or {}
        if step["rows"] and c.get("rows_inserted", 0) < step["rows"]:
            self.log(f"  {name} {at}: only "
                     f"{fmt(c.get('rows_inserted', 0))} of {fmt(step['rows'])} rows in "
                     f"within {step['time_limit']}s")
        self.log(f"  {name} {at} #{repeat}: inserts/s "
                 f"{fmt(row['inserts_per_s'])} queries/s {fmt(row['queries_per_s'])}"
                 + (f" writers {row['sustained']}" if row["sustained"] else ""))
        return res
