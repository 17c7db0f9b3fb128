# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""purgebench compare DIR_A DIR_B [DIR...]: two or more results directories
of the same scenario and arms, made at different times (before and after a
change, say), side by side: per scenario and arm, each directory's median
over the first's (A) for each measure, coloured as in the Insert Benchmark,
the medians themselves, and the histories overlaid on one plot per arm.
Writes compare.md, compare.html and compare-SCENARIO-history.png to the
output directory. The directories are named A, B, C, ... in the order
given; with two, every text reads as it always did (B over A)."""

import argparse
import json
import os
import re
import string
import sys

from . import htmlreport, report, scenarios, stats

# the measures compared and the throughput a scenario's answer is given in
# are the scenario's own (Scenario.measures, value(), throughput() of
# scenarios/); marks a measure where less is better in the table's header
LESS = "↓"
# how a run was made: a difference between A and B is noted, not refused
SETUP_KEYS = ("threads", "seconds", "rate", "lag", "warehouses", "ac_threads", "cpu_load",
              "settings")
# environment.json entries whose difference is worth a line
ENV_KEYS = ("@@version", "mariadbd --version", "build flavour", "server binary", "workload",
            "sysbench", "go-tpc", "compared")


# the directories' names, in the order given
NAMES = string.ascii_uppercase
# each directory's line on the history plot: (linestyle, its name, colour)
LINES = (("-", "solid", "tab:blue"), ("--", "dashed", "tab:orange"),
         ("-.", "dash-dot", "tab:green"), ((0, (3, 1, 1, 1, 1, 1)), "dash-dot-dot", "tab:red"),
         ("-", "solid", "tab:purple"), ("--", "dashed", "tab:brown"),
         ("-.", "dash-dot", "tab:pink"), ((0, (3, 1, 1, 1, 1, 1)), "dash-dot-dot", "tab:olive"))


def names(n):
    """The names of n directories: A, B, C, ..."""
    return NAMES[:n]


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


def median(sc, rs, key):
    """The median over the runs rs of scenario sc (a Scenario) of a measure."""
    return stats.summary([sc.value(r, key) for r in rs])["median"]


def plan(*sets):
    """What the directories' runs (sets: A's, B's, ...) have in common:
    ([(scenario, [arm])], [note]). NotComparable when they share no
    scenario, or no arm in any scenario."""
    groups = [group(runs) for runs in sets]
    who = names(len(sets))
    common = [sc for sc in groups[0] if all(sc in g for g in groups)]
    if not common:
        raise NotComparable("different scenarios: " + "; ".join(
            f"{w} ran {', '.join(g)}" for w, g in zip(who, groups)))
    notes = []
    for sc in {sc: 0 for g in groups for sc in g if sc not in common}:
        holders = [w for w, g in zip(who, groups) if sc in g]
        notes.append(f"Only in {', '.join(holders)}: scenario {sc}.")
    out = []
    for sc in common:
        arms = [a for a in groups[0][sc] if all(a in g[sc] for g in groups)]
        seen = {}
        for g in groups:
            for a in g[sc]:
                if a not in arms and a not in seen:
                    seen[a] = tuple(w for w, h in zip(who, groups) if a in h[sc])
        by_holders = {}
        for a, holders in seen.items():
            by_holders.setdefault(holders, []).append(a)
        for holders, only in by_holders.items():
            notes.append(f"{sc}: only in {', '.join(holders)}: {', '.join(only)}.")
        if arms:
            out.append((sc, arms))
        else:
            notes.append(f"{sc}: no arm in common (" + "; ".join(
                f"{w}: {', '.join(g[sc])}" for w, g in zip(who, groups)) + ").")
    if not out:
        raise NotComparable("no arm in common: " + " ".join(notes))
    for sc, arms in out:
        for arm in arms:
            for key in SETUP_KEYS:
                vs = [sorted({json.dumps(r.get(key), sort_keys=True) for r in g[sc][arm]})
                      for g in groups]
                if any(v != vs[0] for v in vs[1:]):
                    notes.append(f"{sc} {arm}: {key} differs: " + "; ".join(
                        f"{w} {', '.join(v)}" for w, v in zip(who, vs)) + ".")
    return out, notes


def measures(sc, *rss):
    """The measures of scenario sc (a Scenario) that any directory has for
    these runs: [(key, title, less is better, decimals)]."""
    return [m for m in sc.measures
            if any(sc.value(r, m[0]) is not None for rs in rss for r in rs)]


def tables(*args):
    """tables(RUNS_A, RUNS_B, ..., arms_by_scenario): [(title, header, rows)]
    per scenario: each directory after A over A (medians of the repeats,
    coloured by stats.mark, less-is-better measures inverted for the
    colour), then the medians, A -> B -> ..."""
    *sets, arms_by_scenario = args
    groups = [group(runs) for runs in sets]
    who = names(len(sets))
    out = []
    for sc, arms in arms_by_scenario:
        s = scenarios.of(sc)
        cols = measures(s, *[[r for a in arms for r in g[sc][a]] for g in groups])
        for w, g in zip(who[1:], groups[1:]):
            rel_rows = []
            for arm in arms:
                a, b = groups[0][sc][arm], g[sc][arm]
                rel_rows.append([arm, f"{len(a)} / {len(b)}"] + [
                    stats.rel_cell(stats.ratio(median(s, b, k), median(s, a, k)), low)
                    for k, _, low, _ in cols])
            out.append((f"{sc}: {w} over A", ["arm", f"repeats A / {w}"] +
                        [t + (f" {LESS}" if low else "") for _, t, low, _ in cols], rel_rows))
        abs_rows = [[arm] + [" → ".join(report.fmt(median(s, g[sc][arm], k), d)
                                        for g in groups) for k, _, _, d in cols]
                    for arm in arms]
        out.append((f"{sc}: medians, {' → '.join(who)}", ["arm"] + [c[1] for c in cols],
                    abs_rows))
    return out


def headline(*args):
    """headline(RUNS_A, RUNS_B, ..., arms_by_scenario): [(title, [sentence])]:
    per scenario, each arm's throughput and history p95 in each directory
    after A as a multiple of A's."""
    *sets, arms_by_scenario = args
    groups = [group(runs) for runs in sets]
    out = []
    for sc, arms in arms_by_scenario:
        s = scenarios.of(sc)
        lines = []
        for arm in arms:
            a = groups[0][sc][arm]
            for w, g in zip(names(len(sets))[1:], groups[1:]):
                b = g[sc][arm]
                key = s.throughput(a + b)
                parts = []
                for k, name in ((key, s.unit(key)), ("history_p95", "history p95"),
                                ("lat_p95_ms", "latency p95")):
                    r = stats.ratio(median(s, b, k), median(s, a, k))
                    if r is not None:
                        parts.append(f"{name} {r:.2f}x")
                lines.append(f"{arm}: " + (", ".join(parts) if parts else "no measure in common")
                             + f" ({w} over A)")
        out.append((sc, lines))
    return out


def plot(outdir, sets, arms_by_scenario):
    """compare-SCENARIO-history.png per scenario: one panel per arm, the
    history list length of each run of each directory (A solid, B dashed,
    C dash-dot, ...: LINES) against seconds. Returns the summary lines
    (image links or notes)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [report.NO_PLOTS]
    groups = [group(runs) for runs in sets]
    lines = [(w,) + LINES[i % len(LINES)] for i, w in enumerate(names(len(sets)))]
    made = []
    for sc, arms in arms_by_scenario:
        if not any(r.get("samples") for a in arms for g in groups for r in g[sc][a]):
            made.append(f"({sc}: {'neither' if len(sets) == 2 else 'no'} directory kept "
                        "its samples: no history plot)")
            continue
        cols = min(3, len(arms))
        rows = (len(arms) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.2 * rows), squeeze=False)
        for ax, arm in zip([ax for row in axes for ax in row], arms):
            for (which, style, _, colour), g in zip(lines, groups):
                for r in g[sc][arm]:
                    s = r.get("samples") or []
                    ax.plot([x["t"] for x in s],
                            [x.get("innodb_history_list_length") for x in s],
                            linestyle=style, color=colour, linewidth=1,
                            label=f"{which} #{r['repeat']}")
            lags = sorted({r["lag"] for g in groups for r in g[sc][arm] if r.get("lag")})
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
        styles = ", ".join(f"{w} {name}" + (f" {colour[4:]}" if len(sets) > 4 else "")
                           for w, _, name, colour in lines)
        fig.suptitle(f"{sc}: history, {styles} (dotted: the target)", fontsize=11)
        fig.tight_layout()
        name = f"compare-{safe(sc)}-history.png"
        fig.savefig(os.path.join(outdir, name), dpi=80)
        plt.close(fig)
        made.append(name)
    return made


def safe(name):
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name)


def page(dirs, outdir, sets):
    """compare.md's data (report.page(); and the plots in outdir)."""
    arms, notes = plan(*sets)
    who = names(len(dirs))
    named = ", ".join(f"{w} = `{d}`" for w, d in zip(who, dirs))
    lines = [f"{named}: each measure is "
             + ("B's" if len(dirs) == 2 else "a directory's")
             + " median over the repeats of an arm over A's (directories made at "
             "different times: runs are not paired).", ""]
    for title, sentences in headline(*sets, arms):
        lines += [f"**{title}**", ""] + [f"- {s}" for s in sentences] + [""]
    if notes:
        lines += ["Not compared, or made differently:", ""] + [f"- {n}" for n in notes] + [""]
    worse = ("B is worse", "that of A over B") if len(dirs) == 2 else (
        "a directory is worse than A", "that of A over it")
    legend = (stats.legend() + f" Here red means {worse[0]}: for the measures marked "
              f"{LESS} less is better, so their colour is {worse[1]}.")
    envs = [environment(d) for d in dirs]
    meta = list(zip(who, dirs))
    for k in ENV_KEYS:
        if any(k in env for env in envs):
            vs = [env.get(k, "-") for env in envs]
            meta.append((k, f"{vs[0]}" if all(v == vs[0] for v in vs) else
                         "; ".join(f"{w}: {v}" for w, v in zip(who, vs))))
    return report.page("compare", "purgebench compare", lines, tables(*sets, arms), legend,
                       plot(outdir, sets, arms), meta)


def run(dir_a, dir_b, outdir=None):
    """Two directories: run_all([dir_a, dir_b], outdir)."""
    return run_all([dir_a, dir_b], outdir)


def run_all(dirs, outdir=None):
    """Write compare.md, the plots and compare.html of two or more results
    directories (the first the reference, A); returns (outdir, [missing
    module note])."""
    if len(dirs) > len(NAMES):
        raise NotComparable(f"{len(dirs)} directories: compare takes at most {len(NAMES)}")
    sets = [load(d, w) for w, d in zip(names(len(dirs)), dirs)]
    plan(*sets)                     # refuse before anything is written
    if outdir is None:
        outdir = os.path.join("results", "compare-" + "-vs-".join(
            safe(os.path.basename(os.path.abspath(d))) for d in dirs))
    os.makedirs(outdir, exist_ok=True)
    report.write_page(outdir, page(dirs, outdir, sets), "compare.md")
    notes = []
    try:
        htmlreport.write_report(outdir, "compare.html", "compare.md", kind="compare")
    except htmlreport.ReportError as e:
        notes.append(f"no compare.html: {e}")
    return outdir, notes


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="purgebench compare", allow_abbrev=False,
        description="Compare two or more results directories of the same scenario and arms, "
                    "made at different times: B (C, ...) over A per arm and measure, and "
                    "their histories overlaid. Writes compare.md, compare.html and PNG plots.")
    ap.add_argument("dir_a", metavar="DIR_A", help="the reference results directory (A)")
    ap.add_argument("dir_b", metavar="DIR_B", help="the results directory compared with it (B)")
    ap.add_argument("more", nargs="*", metavar="DIR",
                    help="more results directories, each compared with A as B is")
    ap.add_argument("--out", default=None, metavar="DIR",
                    help="where to write (default results/compare-A-vs-B[-vs-C...])")
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    try:
        outdir, notes = run_all([args.dir_a, args.dir_b] + args.more, args.out)
    except NotComparable as e:
        print(f"purgebench compare: {e}", file=sys.stderr)
        return 2
    for n in notes:
        print(f"purgebench compare: {n}", file=sys.stderr)
    print(f"purgebench compare: {os.path.join(outdir, 'compare.md')}")
    if not notes:
        print(f"purgebench compare: {os.path.join(outdir, 'compare.html')}")
    return 1 if notes else 0
