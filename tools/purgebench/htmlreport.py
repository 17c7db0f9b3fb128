# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""report.html (and compare.html): a results directory's page: the answer
first, the tables with the relative cells coloured (stats.mark), the plots,
then the build, configuration and machine, my.cnf and the commands.

The page is drawn from its data, report.json beside summary.md
(compare.json beside compare.md): report.page() holds the tables as
header, rows and cells, a relative cell with its colour (stats.Rel), the
same data that summary.md is written from. A directory saved before
report.json existed has only its summary.md: legacy_page() reads that into
the same data (its tables split at '|', a coloured cell read back with
stats.REL_CELL_RE; its other text kept as Markdown), so that the page can
be made again for any saved directory.

The plots are linked by their names (they sit beside the page, as
summary.md links them); embed=True (purgebench report --embed-plots) puts
them in the page as data: URIs, for one file to send on its own.

Python-Markdown (python3-markdown) renders the prose (the answer, the text
of a legacy summary) with raw HTML switched off, so that text from a run
is always escaped; a Jinja2 template (python3-jinja2, autoescaping) lays
out the page."""

import argparse
import base64
import json
import os
import re
import sys
import unicodedata

from . import report, stats

TEMPLATE = "report.html.j2"
META_TITLE = report.META_TITLE
# files of a results directory shown at the end of the page, as they are
CONFIG_FILES = re.compile(r"^my(-[A-Za-z0-9._+-]+)?\.cnf$")
COMMANDS = "commands.txt"
# the most of a text file shown on the page
MAX_TEXT = 200_000


class ReportError(Exception):
    """A report that cannot be made: a missing module, not a results directory."""


def require():
    """(jinja2, markdown), or ReportError naming the Debian packages."""
    missing = []
    try:
        import jinja2
    except ImportError:
        jinja2 = None
        missing.append("python3-jinja2")
    try:
        import markdown
    except ImportError:
        markdown = None
        missing.append("python3-markdown")
    if missing:
        raise ReportError(f"the HTML report needs {' and '.join(missing)} for /usr/bin/python3 "
                          f"(BUILD/setup installs them: BUILD/packages.txt)")
    return jinja2, markdown


# -- the page's data ---------------------------------------------------------
def load_page(outdir, source="summary.md", kind="report"):
    """The data of outdir's page: its report.json (compare.json), else its
    source's Markdown read by legacy_page(); ReportError when it has
    neither."""
    if not os.path.isdir(outdir):
        raise ReportError(f"{outdir}: no such directory")
    data = os.path.join(outdir, report.PAGE_JSON.get(source, source + ".json"))
    if os.path.isfile(data):
        try:
            with open(data) as f:
                pg = json.load(f)
            if isinstance(pg, dict) and pg.get("format") == 1:
                return pg
        except ValueError:
            pass        # unreadable: the Markdown, as for an older directory
    src = os.path.join(outdir, source)
    if not os.path.isfile(src):
        raise ReportError(f"{outdir}: not a purgebench results directory (no {source})")
    with open(src, errors="replace") as f:
        return legacy_page(f.read(), kind)


def legacy_page(text, kind="report"):
    """The page data of a summary.md (compare.md) written before report.json:
    its '# ' title, the answer (what comes before the first '## '), its
    sections, each as blocks (a table, a plot, Markdown text), and its
    '## Build, configuration, machine' section as Markdown."""
    lines = text.splitlines()
    title = ""
    if lines and lines[0].startswith("# "):
        title = lines.pop(0)[2:].strip()
    cut = next((i for i, ln in enumerate(lines) if ln.startswith("## ")), len(lines))
    # the colours' legend is drawn by the page itself, near the top
    legend = [ln for ln in lines[cut:] if ln.strip() == stats.legend()
              or ln.startswith("Relative values: **bold (red)**")]
    rest = with_plots_heading([ln for ln in lines[cut:] if ln not in legend])
    sections, meta, into = [], [], None
    for ln in rest:
        if ln.startswith("## ") and ln[3:].strip() == META_TITLE:
            into = meta
        elif ln.startswith("## "):
            sections.append({"title": ln[3:].strip(), "lines": []})
            into = sections[-1]["lines"]
        elif into is not None:
            into.append(ln)
    return {"format": 0, "kind": kind, "title": title, "answer": lines[:cut],
            "sections": [{"title": s["title"], "blocks": blocks(s["lines"])}
                         for s in sections],
            "legend": "\n".join(legend), "meta": "\n".join(meta).strip()}


IMAGE_LINE = re.compile(r"^!\[[^\]]*\]\(([^)]*)\)\s*$")


def with_plots_heading(lines):
    """The lines with a '## Plots' heading before the first run of image
    lines that the harness wrote after its last table (so that the plots
    have a place in the page's index); lines already under a heading of
    their own are left alone."""
    out = list(lines)
    for i, ln in enumerate(out):
        if IMAGE_LINE.match(ln):
            before = [x for x in out[:i] if x.strip()]
            if before and before[-1].startswith("|"):
                out[i:i] = ["## Plots", ""]
            break
    return out


def blocks(lines):
    """A legacy section's lines as blocks: {"table"}, {"plot"}, {"text"}."""
    out, text, i = [], [], 0

    def flush():
        if "".join(text).strip():
            out.append({"text": "\n".join(text).strip()})
        text.clear()
    while i < len(lines):
        ln = lines[i]
        m = IMAGE_LINE.match(ln)
        if (ln.startswith("|") and i + 1 < len(lines)
                and re.fullmatch(r"\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*", lines[i + 1])):
            flush()
            rows = [split_row(lines[i])]
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                # as Python-Markdown reads a row: as many cells as the header
                row = split_row(lines[i])[:len(rows[0])]
                rows.append([legacy_cell(c) for c in row + [""] * (len(rows[0]) - len(row))])
                i += 1
            out.append({"table": {"header": rows[0], "rows": rows[1:]}})
            continue
        if m:
            flush()
            out.append({"plot": m.group(1)})
        else:
            text.append(ln)
        i += 1
    flush()
    return out


def split_row(line):
    cells = line.strip().strip("|").split("|")
    return [c.strip() for c in cells]


def legacy_cell(text):
    """A Markdown cell: a relative value that stats.rel_cell() wrote as
    '**0.90** (red) ...' as {text, mark, note}; any other as it is."""
    m = stats.REL_CELL_RE.match(text)
    if not m:
        return text
    return {"text": m.group("value"), "mark": m.group("mark"),
            "note": text[m.end():].strip()}


def sections_of(pg):
    """[{"title", "blocks"}] of a page: a legacy page's own; a page()'s
    tables, each a section, then its plots under 'Plots'."""
    if "sections" in pg:
        return pg["sections"]
    out = [{"title": t["title"], "blocks": [{"table": t}]} for t in pg["tables"]]
    if pg["plots"]:
        out.append({"title": "Plots", "blocks": [
            {"plot": p} if p.endswith(".png") else {"text": p} for p in pg["plots"]]})
    return out


# -- the HTML ------------------------------------------------------------------
def data_uri(path):
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    kind = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg",
            ".jpeg": "image/jpeg"}.get(os.path.splitext(path)[1].lower(), "application/octet-stream")
    return f"data:{kind};base64,{data}"


def _processor(markdown):
    """A Python-Markdown tree processor: colours a relative value in prose;
    an image in prose is left as its text (the page loads nothing but the
    plots of its own directory, and those in their own blocks)."""
    class Page(markdown.treeprocessors.Treeprocessor):
        def run(self, root):
            for strong in list(root.iter("strong")):
                colour_inline(strong)
            for img in list(root.iter("img")):
                img.tag = "span"
                img.text = f"(image {img.get('src', '')})"
                img.attrib.clear()
            return root
    return Page


def colour_inline(strong):
    """A relative value in prose (the thread-sweep's answer: '**1.13**
    (green)'): the bold value gets the colour, the word is dropped."""
    m = stats.REL_CELL_RE.match(f"**{strong.text or ''}**{strong.tail or ''}")
    if m and not list(strong):
        strong.tail = (strong.tail or "")[len(f" ({m.group('mark')})"):]
        strong.set("class", f"rel rel-{m.group('mark')}")


def to_html(markdown, text):
    """Markdown prose to an HTML fragment: no raw HTML (it is escaped),
    relative values coloured."""
    md = markdown.Markdown(extensions=["tables", "sane_lists"], output_format="html")
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_processor(markdown)(md), "purgebench", 1)
    return md.convert(text)


def slug(title, taken):
    """An id for a heading, as Python-Markdown's toc made them ('plots',
    'ch-what-the-history-held-means-over-the-samples'), unique in taken."""
    s = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    s = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", s).strip().lower()) or "section"
    out, n = s, 0
    while out in taken:
        n += 1
        out = f"{s}_{n}"
    taken.add(out)
    return out


def html_blocks(markdown, outdir, blocks_, missing, embed):
    """A section's blocks for the template: tables with their cells as
    {text, mark, note}, plots linked (or embedded), Markdown text rendered."""
    from markupsafe import Markup     # Jinja2's own dependency
    out = []
    for b in blocks_:
        if "table" in b:
            t = b["table"]
            out.append({"table": {"header": t["header"], "rows": [
                [dict({"mark": "", "note": ""}, **c) if isinstance(c, dict)
                 else {"text": c, "mark": "", "note": ""} for c in row]
                for row in t["rows"]]}})
        elif "plot" in b:
            src = b["plot"]
            name = os.path.basename(src)
            path = os.path.join(outdir, name)
            if src != name or not os.path.isfile(path):
                # only the directory's own files, by name; a missing one is said
                missing.append(src)
                out.append({"missing": src})
            else:
                out.append({"plot": data_uri(path) if embed else name, "name": name})
        elif b.get("text"):
            out.append({"html": Markup(to_html(markdown, b["text"]))})
    # every kind's key in every block (the template's undefined is strict)
    return [dict(dict.fromkeys(("table", "plot", "name", "missing", "html")), **b) for b in out]


def read_text(path):
    with open(path, errors="replace") as f:
        text = f.read(MAX_TEXT + 1)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + "\n... (cut here: the file is longer)"
    return text


def attachments(outdir):
    """[(name, text)]: the directory's my.cnf files and commands.txt."""
    names = sorted(n for n in os.listdir(outdir) if CONFIG_FILES.match(n))
    if os.path.isfile(os.path.join(outdir, COMMANDS)):
        names.append(COMMANDS)
    return [(n, read_text(os.path.join(outdir, n))) for n in names]


def render(outdir, pg, kind=None, title=None, embed=False):
    """The page of page data pg (load_page()) of results directory outdir,
    as a string, and the plots it names that outdir lacks."""
    jinja2, markdown = require()
    from markupsafe import Markup
    kind = kind or pg.get("kind") or "report"
    missing, taken = [], set()
    sections = [{"title": s["title"], "id": slug(s["title"], taken),
                 "blocks": html_blocks(markdown, outdir, s["blocks"], missing, embed)}
                for s in sections_of(pg)]
    answer = "\n".join(pg["answer"]).strip()
    meta = pg.get("meta")           # a page()'s [key, value] pairs, a legacy page's Markdown
    cells = [c for s in sections for b in s["blocks"] if b["table"]
             for row in b["table"]["rows"] for c in row]
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(__file__), "templates")),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True, keep_trailing_newline=True)
    page = env.get_template(TEMPLATE).render(
        kind=kind,
        title=title or pg.get("title") or "purgebench report",
        directory=os.path.basename(os.path.abspath(outdir)),
        headline=Markup(to_html(markdown, answer)) if answer else None,
        sections=sections,
        meta=Markup(to_html(markdown, meta)) if meta and isinstance(meta, str) else None,
        meta_items=meta if isinstance(meta, list) else [],
        meta_title=META_TITLE,
        files=attachments(outdir),
        red_at=f"{stats.RED_AT:.2f}", green_at=f"{stats.GREEN_AT:.2f}",
        has_relative=bool(pg.get("legend")) or any(c.get("mark") for c in cells)
        or bool(re.search(r"\*\* \((red|green)\)", answer)))
    return page, missing


def write_report(outdir, name="report.html", source="summary.md", kind="report",
                 embed=False):
    """Write outdir/name from outdir's page data (report.json, else
    source); returns (its path, [plots named in it but missing from
    outdir]). ReportError when outdir has neither or a module is missing."""
    pg = load_page(outdir, source, kind)
    page, missing = render(outdir, pg, kind=kind, embed=embed)
    path = os.path.join(outdir, name)
    with open(path, "w") as f:
        f.write(page)
    return path, missing


def report_parser():
    ap = argparse.ArgumentParser(
        prog="purgebench report", allow_abbrev=False,
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


def main(argv):
    """purgebench report [--embed-plots] DIR...: (re)write report.html
    from each results directory's report.json or summary.md (compare.html
    in a directory that purgebench compare wrote)."""
    args = report_parser().parse_args(argv)
    rc = 0
    for d in args.dirs:
        try:
            if (not os.path.isfile(os.path.join(d, "summary.md"))
                    and os.path.isfile(os.path.join(d, "compare.md"))):
                # a directory that purgebench compare wrote: its page again
                path, missing = write_report(d, "compare.html", "compare.md", kind="compare",
                                             embed=args.embed_plots)
            else:
                path, missing = write_report(d, embed=args.embed_plots)
        except ReportError as e:
            print(f"purgebench report: {e}", file=sys.stderr)
            rc = 1
            continue
        for m in missing:
            print(f"purgebench report: {d}: plot {m} is missing (noted on the page)",
                  file=sys.stderr)
        print(path)
    return rc
