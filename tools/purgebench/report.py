# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Write a benchmark's results: CSV/JSON of every sample, plots, Markdown."""

import csv
import json
import os

from . import plan, promexport, scenarios, stats
from .cells import fmt  # noqa: F401  (report.fmt, as before)

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


def rel(v):
    """A relative value's cell, coloured by stats.mark (stats.rel_cell)."""
    return stats.rel_cell(v)


def plots(outdir, runs):
    """PNG plots, each scenario's own (Scenario.plots()); skipped (with a
    note) when matplotlib is missing."""
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
        made += scenarios.of(scen).plots(plt, outdir, rs)
    return made


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
    neither was kept); an arm by the name it has now (plan.current_name():
    history-growth's "no-throttle" of older directories is "unthrottled")."""
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
        # an arm saved under an older name (plan.RENAMED) is read as named now
        now = plan.current_name(r["arm"], r["scenario"])
        if now != r["arm"]:
            for row in [r] + r["samples"] + r["intervals"]:
                row["arm"] = now
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
