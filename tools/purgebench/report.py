# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Write a benchmark's results: CSV/JSON of every sample, plots, Markdown."""

import csv
import json
import os

from . import insertbench, promexport, setpoint, stats
from . import plan

NO_PLOTS = "(matplotlib not installed: no plots)"


def write_samples(outdir, runs):
    rows = []
    for run in runs:
        for s in run.get("samples", []):
            rows.append(dict(scenario=run["scenario"], arm=run["arm"],
                             repeat=run["repeat"], **s))
    keys = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    with open(os.path.join(outdir, "samples.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(outdir, "samples.json"), "w") as f:
        json.dump(rows, f)
    iv_rows = [dict(scenario=r["scenario"], arm=r["arm"], repeat=r["repeat"], **iv)
               for r in runs for iv in r.get("intervals", [])]
    if iv_rows:
        with open(os.path.join(outdir, "intervals.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(iv_rows[0].keys()))
            w.writeheader()
            w.writerows(iv_rows)
    slim = [{k: v for k, v in r.items() if k not in ("samples", "intervals")} for r in runs]
    with open(os.path.join(outdir, "runs.json"), "w") as f:
        json.dump(slim, f, indent=1)
    # the same samples under mysqld_exporter's names, with their epoch times
    promexport.write(outdir, runs)


def fmt(v, digits=0):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return f"{v:,}"


def rel(v):
    """A relative value's cell, coloured by stats.mark (stats.rel_cell)."""
    return stats.rel_cell(v)


REPEAT_STYLES = ("-", "--", ":", "-.")


def line_style(runs, r):
    """matplotlib style of run r among runs: one colour per arm (in the
    order the arms first appear), one line style per repeat (solid, dashed,
    dotted, dash-dot), so that an arm's repeats read as one series."""
    arms = list(dict.fromkeys(x["arm"] for x in runs))
    return {"color": f"C{arms.index(r['arm']) % 10}",
            "linestyle": REPEAT_STYLES[(int(r.get("repeat") or 1) - 1) % len(REPEAT_STYLES)]}


#: an interval whose tps is this many times the run's median is sysbench's
#: report glitch, not throughput: at 4096 threads its starved report thread
#: printed second 27 at 1,198,448 tps, then second 29 twice and no 28;
#: left out of the plot
TPS_GLITCH = 20


def plotted_tps(intervals):
    """tps per interval for the plot: None (a gap) where sysbench's report
    is over TPS_GLITCH times the run's median; the run's figures come from
    sysbench's totals, not from these."""
    values = [iv.get("tps") for iv in intervals]
    median = stats.percentile(values, 50)
    return [None if v is not None and median and v > TPS_GLITCH * median else v
            for v in values]


def view_span(runs):
    """(opened, released): the median times of the read view of the runs
    that held one (snapshot-release), or None."""
    held = [r for r in runs if r.get("view_opened_t") is not None
            and r.get("view_released_t") is not None]
    # the continue form's, where both forms ran (the stop form's view ends
    # with its load)
    held = [r for r in held if r.get("release_form") == "continue"] or held
    if not held:
        return None
    return (stats.summary([r["view_opened_t"] for r in held])["median"],
            stats.summary([r["view_released_t"] for r in held])["median"])


def plots(outdir, runs):
    """PNG plots; skipped (with a note) when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [NO_PLOTS]
    made = []
    by_scenario = {}
    for r in runs:
        by_scenario.setdefault(r["scenario"], []).append(r)
    for scen, rs in by_scenario.items():
        if scen == "thread-sweep":
            made.append(sweep_plot(plt, outdir, rs))
            continue
        if scen == insertbench.SCENARIO:
            made.append(insertbench_plot(plt, outdir, rs))
            continue
        fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(9, 9), sharex=True)
        for r in rs:
            label = f"{r['arm']}#{r['repeat']}"
            style = dict(line_style(rs, r), linewidth=1)
            if r.get("release_form"):       # snapshot-release: the stop form dotted
                label += f" ({r['release_form']})"
                if r["release_form"] == "stop":
                    style["linestyle"] = ":"
            t = [s["t"] for s in r["samples"]]
            h = [s.get("innodb_history_list_length") for s in r["samples"]]
            ax1.plot(t, h, label=label, **style)
            ax2.plot([iv["t"] for iv in r["intervals"]], plotted_tps(r["intervals"]),
                     label=label, **style)
            ax3.plot([iv["t"] for iv in r["intervals"]],
                     [iv.get("lat_ms") for iv in r["intervals"]], label=label, **style)
        lags = sorted({r["lag"] for r in rs if r.get("lag")})
        for lag in lags:
            ax1.axhline(lag, color="k", linestyle=":", linewidth=1)
        view = view_span(rs)
        if view:
            # snapshot-release: where the read view was held (the median
            # of the runs' times; the load's start differs by a second)
            for ax in (ax1, ax2, ax3):
                ax.axvspan(view[0], view[1], color="0.88", zorder=0)
                ax.axvline(view[0], color="0.4", linestyle="--", linewidth=1)
                ax.axvline(view[1], color="0.4", linestyle="-", linewidth=1)
            ax1.text(view[0], 1.01, " view opened", transform=ax1.get_xaxis_transform(),
                     fontsize=7)
            ax1.text(view[1], 1.01, " released", transform=ax1.get_xaxis_transform(),
                     fontsize=7)
        ax1.set_ylabel("history list length" + (" (dotted: target)" if lags else ""))
        ax2.set_ylabel(f"tps (over {TPS_GLITCH}x the median: dropped)")
        ax3.set_ylabel("latency p95 per second (ms)")
        ax3.set_yscale("log")
        ax3.set_xlabel("seconds")
        ax1.legend(fontsize=7)
        ax1.set_title(scen)
        fig.tight_layout()
        name = f"{scen}-history-tps.png"
        fig.savefig(os.path.join(outdir, name), dpi=80)
        plt.close(fig)
        made.append(name)
        # each throttle's tracking of its target (the arms with a lag)
        tracked = setpoint.plot(plt, outdir, scen, rs)
        if tracked:
            made.append(tracked)
        if scen == "backlog-vs-lag":
            fig, ax = plt.subplots(figsize=(7, 5))
            arms = {}
            for r in rs:
                if r.get("lag"):
                    arms.setdefault(str(plan.arm_of(r).replace(lag=None)), []).append(
                        (r["lag"], r["backlog"]))
            for a, pts in arms.items():
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=a)
            lags = sorted({r["lag"] for r in rs if r.get("lag")})
            ax.plot(lags, lags, "k--", label="backlog = lag")
            ax.set_xscale("log")
            ax.set_yscale("symlog")
            ax.set_xlabel("innodb_max_purge_lag")
            ax.set_ylabel("to purge at slow shutdown")
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(os.path.join(outdir, "backlog-vs-lag.png"), dpi=80)
            plt.close(fig)
            made.append("backlog-vs-lag.png")
        if scen == "redo-per-trx":
            fig, ax = plt.subplots(figsize=(7, 5))
            arms = {}
            for r in rs:
                arms.setdefault(str(plan.arm_of(r).replace(step=None)), []).append(
                    (r["threads"], r["redo_bytes_per_trx"]))
            for a, pts in arms.items():
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=a)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("threads")
            ax.set_ylabel("redo bytes per transaction")
            ax.legend()
            fig.tight_layout()
            fig.savefig(os.path.join(outdir, "redo-per-trx.png"), dpi=80)
            plt.close(fig)
            made.append("redo-per-trx.png")
    return made


def sweep_plot(plt, outdir, runs):
    """thread-sweep: tps and latency p95 against threads (log2 axis, as the
    seed's), a line per arm through the medians of its repeats."""
    by = {}
    for r in runs:
        arm = plan.arm_of(r)
        by.setdefault(str(arm.replace(step=None)), {}).setdefault(int(arm.step), []).append(r)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for arm, points in by.items():
        xs = sorted(points)
        ax1.plot(xs, [stats.summary([r.get("tps") for r in points[x]])["median"] for x in xs],
                 "o-", label=arm)
        ax2.plot(xs, [stats.summary([r.get("lat_p95_ms") for r in points[x]])["median"]
                      for x in xs], "o-", label=arm)
    ax1.set_xscale("log", base=2)
    points = sorted({x for p in by.values() for x in p})
    ax2.set_xticks(points)
    ax2.set_xticklabels([str(x) for x in points])
    ax2.minorticks_off()
    ax1.set_ylabel("tps (median of repeats)")
    ax2.set_ylabel("latency p95 (ms)")
    ax2.set_yscale("log")
    ax2.set_xlabel("threads")
    ax1.legend(fontsize=8)
    ax1.set_title("thread-sweep")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "thread-sweep.png"), dpi=80)
    plt.close(fig)
    return "thread-sweep.png"


def insertbench_plot(plt, outdir, runs):
    """insert-benchmark: per arm (a row of two panels), the history length
    and the throughput per second (insertbench.throughput_series(): rows
    inserted/s in l.i*, queries/s in q*) across all its steps one after
    the other, each step's seconds under load (not the restarts between
    them); dotted lines mark where a step begins, each repeat a line."""
    arms = {}
    for r in runs:
        arm = plan.arm_of(r)
        arms.setdefault(str(arm.replace(step=None)), {}).setdefault(r["repeat"], []).append(
            (arm.step, r))
    fig, axes = plt.subplots(len(arms), 2, figsize=(14, 1 + 2.6 * len(arms)), squeeze=False,
                             sharey="col")
    for (arm, repeats), (ax_h, ax_t) in zip(arms.items(), axes):
        for repeat, steps in repeats.items():
            offset, hx, hy, tx, ty = 0.0, [], [], [], []
            for step, r in steps:
                samples = r.get("samples") or []
                hx += [offset + s["t"] for s in samples]
                hy += [s.get("innodb_history_list_length") for s in samples]
                # positive values only (a log scale); a gap between steps
                series = [(t, v) for t, v in insertbench.throughput_series(r) if v > 0]
                tx += [offset + t for t, _ in series] + [offset]
                ty += [v for _, v in series] + [float("nan")]
                hx.append(offset)
                hy.append(float("nan"))
                for ax in (ax_h, ax_t):
                    ax.axvline(offset, color="grey", linestyle=":", linewidth=0.8)
                if repeat == min(repeats):
                    ax_h.text(offset, 1.01, step, transform=ax_h.get_xaxis_transform(),
                              fontsize=7, rotation=45, ha="left", va="bottom")
                ends = [s["t"] for s in samples] + [iv["t"] for iv in r.get("intervals") or []]
                offset += max(ends + [1.0])
            ax_h.plot(hx, hy, label=f"#{repeat}", linewidth=1)
            ax_t.plot(tx, ty, label=f"#{repeat}", linewidth=1)
        lags = sorted({r.get("lag") for rs in repeats.values() for _, r in rs if r.get("lag")})
        for lag in lags:
            ax_h.axhline(lag, color="k", linestyle="--", linewidth=0.8)
        ax_h.set_ylabel(f"{arm}\nhistory length" + (" (dashed: target)" if lags else ""),
                        fontsize=8)
        ax_t.set_ylabel("inserts/s (l.i*), queries/s (q*)", fontsize=8)
        ax_t.set_yscale("log")
        if len(repeats) > 1:
            ax_h.legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("seconds under load, the steps one after the other")
    fig.suptitle("insert-benchmark")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "insert-benchmark.png"), dpi=80)
    plt.close(fig)
    return "insert-benchmark.png"


def plot_line(name):
    """summary.md's line for an entry of plots(): an image link, or a note."""
    return f"![{name}]({name})" if name.endswith(".png") else name


# the page's data beside its Markdown: report.json beside summary.md,
# compare.json beside compare.md (htmlreport draws the HTML page from it)
PAGE_JSON = {"summary.md": "report.json", "compare.md": "compare.json"}
META_TITLE = "Build, configuration, machine"


def cell_data(c):
    """A table cell as page data: a Rel (stats.rel_cell()) as {text, mark,
    note}; any other as its text."""
    if isinstance(c, stats.Rel):
        return {"text": c.value, "mark": c.mark, "note": c.note}
    return str(c)


def page(kind, title, answer, tables, legend, plots, meta):
    """A page's data, what both its Markdown (page_markdown()) and its HTML
    (htmlreport) are drawn from: answer, the Markdown lines before the
    tables (failed runs, the headline); tables [(title, header, rows)], a
    row's cells strings or stats.Rel; legend, the line on the colours;
    plots, plots()'s entries; meta [(key, value)]."""
    return {"format": 1, "kind": kind, "title": title, "answer": list(answer),
            "tables": [{"title": t, "header": [str(h) for h in header],
                        "rows": [[cell_data(c) for c in row] for row in rows]}
                       for t, header, rows in tables],
            "legend": legend, "plots": list(plots),
            "meta": [[str(k), str(v)] for k, v in meta]}


def cell_markdown(c):
    if isinstance(c, dict):
        return str(stats.Rel(c["text"], c.get("mark", ""), c.get("note", "")))
    return c


def page_markdown(pg):
    """The Markdown of a page() (summary.md, compare.md)."""
    lines = [f"# {pg['title']}", ""] + pg["answer"]
    for t in pg["tables"]:
        lines += [f"## {t['title']}", "", "| " + " | ".join(t["header"]) + " |",
                  "|" + "---|" * len(t["header"])]
        lines += ["| " + " | ".join(cell_markdown(c) for c in row) + " |" for row in t["rows"]]
        lines.append("")
    lines += [pg["legend"], ""] + [plot_line(p) for p in pg["plots"]]
    lines += ["", f"## {META_TITLE}", ""] + [f"- **{k}**: {v}" for k, v in pg["meta"]]
    return "\n".join(lines) + "\n"


def write_page(outdir, pg, name="summary.md"):
    """Write a page's Markdown (name) and its data (PAGE_JSON[name]);
    returns the Markdown."""
    text = page_markdown(pg)
    with open(os.path.join(outdir, name), "w") as f:
        f.write(text)
    with open(os.path.join(outdir, PAGE_JSON[name]), "w") as f:
        json.dump(pg, f, indent=1)
    return text


def markdown(outdir, meta, runs, tables, headline=(), failed=()):
    """summary.md and report.json: the runs that failed, if any (failed:
    [line]), the answer (headline: [(title, [sentence])]), then the
    tables, the plots, and the build, configuration and machine."""
    lines = []
    if failed:
        lines.append("**Failed runs** (the figures below are of the runs that finished; "
                     "the errors whole: failed-runs.json, progress.log):")
        lines.append("")
        lines.extend(f"- {line}" for line in failed)
        lines.append("")
    for title, sentences in headline:
        lines.append(f"**{title}**")
        lines.append("")
        lines.extend(f"- {s}" for s in sentences)
        lines.append("")
    return write_page(outdir, page("report", "purgebench report", lines, tables,
                                   stats.legend(), plots(outdir, runs), meta.items()))


def number(text):
    """A CSV cell of write_samples() back as a number (None when empty)."""
    if text in (None, ""):
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def read_samples(outdir):
    """The runs of a results directory, with their samples and intervals, as
    write_samples() left them (samples.json, else samples.csv; none when
    neither was kept)."""
    with open(os.path.join(outdir, "runs.json")) as f:
        runs = json.load(f)
    samples = []
    path = os.path.join(outdir, "samples.json")
    if os.path.exists(path):
        with open(path) as f:
            samples = json.load(f)
    elif os.path.exists(os.path.join(outdir, "samples.csv")):
        # a directory saved under docs/results keeps the CSV, not the JSON
        with open(os.path.join(outdir, "samples.csv"), newline="") as f:
            samples = [{k: number(v) if k not in ("scenario", "arm") else v
                        for k, v in row.items()} for row in csv.DictReader(f)]
    intervals = []
    path = os.path.join(outdir, "intervals.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            intervals = list(csv.DictReader(f))
    def run_of(row):
        return tuple(str(row[k]) for k in ("scenario", "arm", "repeat"))
    by_run = {}
    for s in samples:
        by_run.setdefault(run_of(s), ([], []))[0].append(s)
    for iv in intervals:
        iv.update({k: float(iv[k]) for k in ("t", "tps", "lat_ms") if iv.get(k)})
        by_run.setdefault(run_of(iv), ([], []))[1].append(iv)
    for r in runs:
        r["samples"], r["intervals"] = by_run.get(run_of(r), ([], []))
    return runs


def replot(outdir):
    """Draw the plots of a results directory again (for example after
    installing matplotlib) and link them from its summary.md."""
    made = plots(outdir, read_samples(outdir))
    summary = os.path.join(outdir, "summary.md")
    data = os.path.join(outdir, PAGE_JSON["summary.md"])
    if NO_PLOTS not in made and os.path.exists(data):
        with open(data) as f:
            pg = json.load(f)
        if NO_PLOTS in pg["plots"]:
            pg["plots"] = made
            write_page(outdir, pg)
    elif NO_PLOTS not in made and os.path.exists(summary):
        with open(summary) as f:
            text = f.read()
        # markdown() wrote the note where the links go; links already there stay
        if NO_PLOTS in text:
            with open(summary, "w") as f:
                f.write(text.replace(NO_PLOTS, "\n".join(plot_line(p) for p in made)))
    return made


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 2 or not os.path.isfile(os.path.join(sys.argv[1], "runs.json")):
        sys.exit("usage: python3 -m purgebench.report RESULTS_DIR (a directory with runs.json)")
    for line in replot(sys.argv[1]):
        print(line)
