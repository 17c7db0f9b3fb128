# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""purgebench compare DIR_A DIR_B: two results directories of the same
scenario and arms, made at different times (before and after a change, say),
side by side: per scenario and arm, B's median over A's for each measure,
coloured as in the Insert Benchmark, the medians themselves, and the
history of A and B overlaid on one plot per arm. Writes compare.md,
compare.html and compare-SCENARIO-history.png to the output directory."""

import argparse
import json
import os
import re
import sys

from . import report, stats

# (run key, column title, less is better): the measures compared, in the
# order of the table; a column appears when either directory has the key
MEASURES = (
    ("tps", "tps", False),
    ("qps", "qps", False),
    ("tpmc", "tpmC", False),
    ("ac_queries_per_hour", "analytical queries/h", False),
    ("inserts_per_s", "inserts/s", False),
    ("queries_per_s", "queries/s", False),
    ("lat_p95_ms", "latency p95 ms", True),
    ("lat_p99_ms", "latency p99 ms", True),
    ("history_p95", "history p95", True),
    ("history_max", "history max", True),
    ("backlog", "to purge at slow shutdown", True),
    ("redo_bytes_per_trx", "redo bytes/trx", True),
    ("redo_bytes_per_row", "redo bytes/row", True),
    ("cpu_us_per_op", "server CPU µs/op", True),
)
# marks a measure where less is better in the table's header
LESS = "↓"
# the throughput a scenario's answer is given in (as bench.HEADLINE_KEY)
THROUGHPUT = {"backlog-vs-lag": "qps", "tpcc": "tpmc", "ch": "tpmc",
              "insert-benchmark": "inserts_per_s"}
# how a run was made: a difference between A and B is noted, not refused
SETUP_KEYS = ("threads", "seconds", "rate", "lag", "warehouses", "ac_threads", "cpu_load",
              "settings")
# environment.json entries whose difference is worth a line
ENV_KEYS = ("@@version", "mariadbd --version", "build flavour", "server binary", "workload",
            "sysbench", "go-tpc", "compared")


class NotComparable(Exception):
    """The two directories cannot be compared; the message says why."""


def load(path, which):
    """The runs of results directory path (with their samples when it kept
    them), or NotComparable saying what is wrong with it."""
    if not os.path.isdir(path):
        raise NotComparable(f"{which} {path}: no such directory")
    if not os.path.isfile(os.path.join(path, "runs.json")):
        if os.path.isfile(os.path.join(path, "summary.md")):
            raise NotComparable(
                f"{which} {path}: has a summary.md but no runs.json (a directory saved "
                "with its report only): compare needs the runs that purgebench writes")
        raise NotComparable(f"{which} {path}: not a purgebench results directory "
                            "(no runs.json)")
    try:
        runs = report.read_samples(path)
    except (ValueError, KeyError, OSError) as e:
        raise NotComparable(f"{which} {path}: runs.json or its samples cannot be read: {e}")
    if not isinstance(runs, list) or not runs or not all(
            isinstance(r, dict) and "scenario" in r and "arm" in r for r in runs):
        raise NotComparable(f"{which} {path}: runs.json holds no runs")
    return runs


def environment(path):
    try:
        with open(os.path.join(path, "environment.json")) as f:
            env = json.load(f)
        return env if isinstance(env, dict) else {}
    except (OSError, ValueError):
        return {}


def group(runs):
    """{scenario: {arm: [runs]}}, in the order of first appearance."""
    out = {}
    for r in runs:
        out.setdefault(r["scenario"], {}).setdefault(r["arm"], []).append(r)
    return out


def value(r, key):
    """A run's measure: an Insert Benchmark step's from its "ib_row"
    (insertbench.step_row(): inserts/s, queries/s, redo per row, CPU per
    operation; its sysbench tps and qps count the script's events, not the
    benchmark's rows or queries: left out), any other run's from the run
    itself."""
    row = r.get("ib_row")
    if row is not None:
        if key in ("tps", "qps", "redo_bytes_per_trx"):
            return None
        if key == "cpu_us_per_op":
            v = row.get("cpu_s_per_op")
            return None if v is None else v * 1e6
        if key in row:
            return row[key]
    return r.get(key)


def median(rs, key):
    return stats.summary([value(r, key) for r in rs])["median"]


def plan(runs_a, runs_b):
    """What the two directories have in common: ([(scenario, [arm])], [note]).
    NotComparable when they share no scenario, or no arm in any scenario."""
    ga, gb = group(runs_a), group(runs_b)
    common = [sc for sc in ga if sc in gb]
    if not common:
        raise NotComparable(f"different scenarios: A ran {', '.join(ga)}; B ran {', '.join(gb)}")
    notes = [f"Only in {w}: scenario {sc}." for w, g, other in (("A", ga, gb), ("B", gb, ga))
             for sc in g if sc not in other]
    out = []
    for sc in common:
        arms = [a for a in ga[sc] if a in gb[sc]]
        for w, g, other in (("A", ga, gb), ("B", gb, ga)):
            only = [a for a in g[sc] if a not in other[sc]]
            if only:
                notes.append(f"{sc}: only in {w}: {', '.join(only)}.")
        if arms:
            out.append((sc, arms))
        else:
            notes.append(f"{sc}: no arm in common (A: {', '.join(ga[sc])}; "
                         f"B: {', '.join(gb[sc])}).")
    if not out:
        raise NotComparable("no arm in common: " + " ".join(notes))
    for sc, arms in out:
        for arm in arms:
            for key in SETUP_KEYS:
                va = sorted({json.dumps(r.get(key), sort_keys=True) for r in ga[sc][arm]})
                vb = sorted({json.dumps(r.get(key), sort_keys=True) for r in gb[sc][arm]})
                if va != vb:
                    notes.append(f"{sc} {arm}: {key} differs: A {', '.join(va)}; "
                                 f"B {', '.join(vb)}.")
    return out, notes


def measures(rs_a, rs_b):
    """The MEASURES that A or B has for these runs."""
    return [(k, t, low) for k, t, low in MEASURES
            if any(value(r, k) is not None for r in rs_a + rs_b)]


def tables(runs_a, runs_b, arms_by_scenario):
    """[(title, header, rows)] per scenario: B over A (medians of the
    repeats, coloured by stats.mark, less-is-better measures inverted for
    the colour), then the medians, A -> B."""
    ga, gb = group(runs_a), group(runs_b)
    out = []
    for sc, arms in arms_by_scenario:
        every_a = [r for a in arms for r in ga[sc][a]]
        every_b = [r for a in arms for r in gb[sc][a]]
        cols = measures(every_a, every_b)
        rel_rows, abs_rows = [], []
        for arm in arms:
            a, b = ga[sc][arm], gb[sc][arm]
            rel_rows.append([arm, f"{len(a)} / {len(b)}"] + [
                stats.rel_cell(stats.ratio(median(b, k), median(a, k)), low)
                for k, _, low in cols])
            abs_rows.append([arm] + [f"{report.fmt(median(a, k), digits(k))} → "
                                     f"{report.fmt(median(b, k), digits(k))}"
                                     for k, _, _ in cols])
        out.append((f"{sc}: B over A", ["arm", "repeats A / B"] +
                    [t + (f" {LESS}" if low else "") for _, t, low in cols], rel_rows))
        out.append((f"{sc}: medians, A → B", ["arm"] + [t for _, t, _ in cols], abs_rows))
    return out


def throughput_key(sc, runs):
    """The throughput a scenario's answer is given in; for an Insert
    Benchmark step, queries/s in a query step and inserts/s in the others
    (what its own tables compare)."""
    if any(r.get("ib_row") for r in runs):
        return ("queries_per_s" if any(value(r, "queries_per_s") is not None for r in runs)
                else "inserts_per_s")
    return THROUGHPUT.get(sc, "tps")


def digits(key):
    return 1 if key in ("lat_p95_ms", "lat_p99_ms", "redo_bytes_per_trx",
                        "redo_bytes_per_row", "cpu_us_per_op") else 0


def headline(runs_a, runs_b, arms_by_scenario):
    """[(title, [sentence])]: per scenario, each arm's throughput and history
    p95 in B as a multiple of A's."""
    ga, gb = group(runs_a), group(runs_b)
    out = []
    for sc, arms in arms_by_scenario:
        lines = []
        for arm in arms:
            a, b = ga[sc][arm], gb[sc][arm]
            key = throughput_key(sc, a + b)
            unit = "tpmC" if key == "tpmc" else key.replace("_per_s", "/s")
            parts = []
            for k, name in ((key, unit), ("history_p95", "history p95"),
                            ("lat_p95_ms", "latency p95")):
                r = stats.ratio(median(b, k), median(a, k))
                if r is not None:
                    parts.append(f"{name} {r:.2f}x")
            lines.append(f"{arm}: " + (", ".join(parts) if parts else "no measure in common")
                         + " (B over A)")
        out.append((sc, lines))
    return out


def plot(outdir, runs_a, runs_b, arms_by_scenario):
    """compare-SCENARIO-history.png per scenario: one panel per arm, the
    history list length of each run of A (solid) and B (dashed) against
    seconds. Returns the summary lines (image links or notes)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [report.NO_PLOTS]
    ga, gb = group(runs_a), group(runs_b)
    made = []
    for sc, arms in arms_by_scenario:
        if not any(r.get("samples") for a in arms for r in ga[sc][a] + gb[sc][a]):
            made.append(f"({sc}: neither directory kept its samples: no history plot)")
            continue
        cols = min(3, len(arms))
        rows = (len(arms) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.2 * rows), squeeze=False)
        for ax, arm in zip([ax for row in axes for ax in row], arms):
            for which, rs, style, colour in (("A", ga[sc][arm], "-", "tab:blue"),
                                             ("B", gb[sc][arm], "--", "tab:orange")):
                for r in rs:
                    s = r.get("samples") or []
                    ax.plot([x["t"] for x in s],
                            [x.get("innodb_history_list_length") for x in s],
                            linestyle=style, color=colour, linewidth=1,
                            label=f"{which} #{r['repeat']}")
            lags = sorted({r["lag"] for r in ga[sc][arm] + gb[sc][arm] if r.get("lag")})
            for lag in lags:
                ax.axhline(lag, color="k", linestyle=":", linewidth=1)
            ax.set_title(arm, fontsize=10)
            ax.set_xlabel("seconds", fontsize=8)
            ax.tick_params(labelsize=8)
            ax.legend(fontsize=7)
        for row in axes:
            row[0].set_ylabel("history list length", fontsize=8)
        for ax in [ax for row in axes for ax in row][len(arms):]:
            ax.set_visible(False)
        fig.suptitle(f"{sc}: history, A solid, B dashed (dotted: the target)", fontsize=11)
        fig.tight_layout()
        name = f"compare-{safe(sc)}-history.png"
        fig.savefig(os.path.join(outdir, name), dpi=80)
        plt.close(fig)
        made.append(name)
    return made


def safe(name):
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name)


def page(dir_a, dir_b, outdir, runs_a, runs_b):
    """compare.md's data (report.page(); and the plots in outdir)."""
    arms, notes = plan(runs_a, runs_b)
    lines = [f"A = `{dir_a}`, B = `{dir_b}`: each measure is B's median over the "
             "repeats of an arm over A's (directories made at different times: "
             "runs are not paired).", ""]
    for title, sentences in headline(runs_a, runs_b, arms):
        lines += [f"**{title}**", ""] + [f"- {s}" for s in sentences] + [""]
    if notes:
        lines += ["Not compared, or made differently:", ""] + [f"- {n}" for n in notes] + [""]
    legend = (stats.legend() + f" Here red means B is worse: for the measures marked "
              f"{LESS} less is better, so their colour is that of A over B.")
    env_a, env_b = environment(dir_a), environment(dir_b)
    meta = [("A", dir_a), ("B", dir_b)]
    for k in ENV_KEYS:
        if k in env_a or k in env_b:
            va, vb = env_a.get(k, "-"), env_b.get(k, "-")
            meta.append((k, f"{va}" if va == vb else f"A: {va}; B: {vb}"))
    return report.page("compare", "purgebench compare", lines,
                       tables(runs_a, runs_b, arms), legend,
                       plot(outdir, runs_a, runs_b, arms), meta)


def run(dir_a, dir_b, outdir=None):
    """Write compare.md, the plots and compare.html; returns (outdir,
    [missing module note])."""
    from . import htmlreport
    runs_a, runs_b = load(dir_a, "A"), load(dir_b, "B")
    plan(runs_a, runs_b)            # refuse before anything is written
    if outdir is None:
        outdir = os.path.join("results", f"compare-{safe(os.path.basename(os.path.abspath(dir_a)))}"
                                         f"-vs-{safe(os.path.basename(os.path.abspath(dir_b)))}")
    os.makedirs(outdir, exist_ok=True)
    report.write_page(outdir, page(dir_a, dir_b, outdir, runs_a, runs_b), "compare.md")
    notes = []
    try:
        htmlreport.write_report(outdir, "compare.html", "compare.md", kind="compare")
    except htmlreport.ReportError as e:
        notes.append(f"no compare.html: {e}")
    return outdir, notes


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="purgebench compare", allow_abbrev=False,
        description="Compare two results directories of the same scenario and arms, made at "
                    "different times: B over A per arm and measure, and their histories "
                    "overlaid. Writes compare.md, compare.html and PNG plots.")
    ap.add_argument("dir_a", metavar="DIR_A", help="the reference results directory (A)")
    ap.add_argument("dir_b", metavar="DIR_B", help="the results directory compared with it (B)")
    ap.add_argument("--out", default=None, metavar="DIR",
                    help="where to write (default results/compare-A-vs-B)")
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    try:
        outdir, notes = run(args.dir_a, args.dir_b, args.out)
    except NotComparable as e:
        print(f"purgebench compare: {e}", file=sys.stderr)
        return 2
    for n in notes:
        print(f"purgebench compare: {n}", file=sys.stderr)
    print(f"purgebench compare: {os.path.join(outdir, 'compare.md')}")
    if not notes:
        print(f"purgebench compare: {os.path.join(outdir, 'compare.html')}")
    return 1 if notes else 0
