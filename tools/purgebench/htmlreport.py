# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""report.html (and compare.html): a results directory's Markdown summary as
one self-contained page: the answer first, tables as HTML tables with the
relative cells coloured (stats.mark), every plot embedded as a data: URI,
then the build, configuration and machine, my.cnf and the commands.

The page is drawn from the Markdown that the harness writes (summary.md,
compare.md), so that it can be made again for any saved directory,
including those recorded before this module existed. Python-Markdown
(python3-markdown) turns the Markdown into HTML with raw HTML switched
off, so that text from a run is always escaped; a Jinja2 template
(python3-jinja2, autoescaping) lays out the page."""

import base64
import html
import os
import re

from . import stats

TEMPLATE = "report.html.j2"
META_TITLE = "Build, configuration, machine"
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


def split_summary(text):
    """(title, headline, body, meta) of a summary's Markdown: its '# '
    title, what comes before the first '## ' section (the answer), the
    sections, and the '## Build, configuration, machine' section."""
    lines = text.splitlines()
    title = ""
    if lines and lines[0].startswith("# "):
        title = lines.pop(0)[2:].strip()
    cut = next((i for i, ln in enumerate(lines) if ln.startswith("## ")), len(lines))
    head, rest = lines[:cut], lines[cut:]
    meta_at = next((i for i, ln in enumerate(rest) if ln.strip() == f"## {META_TITLE}"), None)
    meta = []
    if meta_at is not None:
        end = next((i for i in range(meta_at + 1, len(rest)) if rest[i].startswith("## ")),
                   len(rest))
        meta = rest[meta_at + 1:end]
        rest = rest[:meta_at] + rest[end:]
    # the colours' legend is drawn by the page itself, near the top
    legend = stats.legend()
    body = [ln for ln in rest if ln.strip() != legend and
            not ln.startswith("Relative values: **bold (red)**")]
    return (title, "\n".join(head).strip(), "\n".join(with_plots_heading(body)).strip(),
            "\n".join(meta).strip())


IMAGE_LINE = re.compile(r"^!\[[^\]]*\]\([^)]*\)\s*$")


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


def data_uri(path):
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    kind = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg",
            ".jpeg": "image/jpeg"}.get(os.path.splitext(path)[1].lower(), "application/octet-stream")
    return f"data:{kind};base64,{data}"


def _processor(markdown, outdir, missing):
    """A Python-Markdown tree processor: colours the relative cells, embeds
    the images of outdir, wraps each table in a scrolling box."""
    from xml.etree import ElementTree as etree

    class Page(markdown.treeprocessors.Treeprocessor):
        def run(self, root):
            parents = {c: p for p in root.iter() for c in p}
            for td in list(root.iter("td")):
                colour_cell(td)
            for strong in list(root.iter("strong")):
                colour_inline(strong)
            for img in list(root.iter("img")):
                self.embed(img, parents)
            for table in list(root.iter("table")):
                parent = parents.get(table, root)
                box = etree.Element("div", {"class": "table-box"})
                i = list(parent).index(table)
                parent.remove(table)
                box.append(table)
                parent.insert(i, box)
                box.tail, table.tail = table.tail, None
            return root

        def embed(self, img, parents):
            src = img.get("src", "")
            name = os.path.basename(src)
            path = os.path.join(outdir, name)
            if src != name or not os.path.isfile(path):
                # only the directory's own files, by name; a missing one is said
                missing.append(src)
                note = etree.Element("span", {"class": "missing"})
                note.text = f"(plot {src} is missing from this directory)"
                note.tail = img.tail
                parent = parents[img]
                parent.insert(list(parent).index(img), note)
                parent.remove(img)
                return
            img.set("src", data_uri(path))
            img.set("title", name)
            img.set("class", "plot")
    return Page


def colour_cell(td):
    """A cell that stats.rel_cell() wrote as '**0.90** (red) ...': the class
    rel-red or rel-green, the value in bold, the colour's word dropped (the
    background says it), the rest of the cell kept."""
    kids = list(td)
    if (td.text or "").strip() or not kids or kids[0].tag != "strong":
        return
    strong = kids[0]
    m = stats.REL_CELL_RE.match(f"**{strong.text or ''}**{strong.tail or ''}")
    if not m:
        return
    word = f" ({m.group('mark')})"
    strong.tail = (strong.tail or "")[len(word):]
    td.set("class", f"rel rel-{m.group('mark')}")
    strong.set("class", "value")
    td.set("title", f"coloured {m.group('mark')}, as in the Insert Benchmark")


def colour_inline(strong):
    """A relative value in prose (the thread-sweep's answer: '**1.13**
    (green)'): the bold value gets the colour, the word is dropped."""
    if strong.get("class"):
        return
    m = stats.REL_CELL_RE.match(f"**{strong.text or ''}**{strong.tail or ''}")
    if m and not list(strong):
        strong.tail = (strong.tail or "")[len(f" ({m.group('mark')})"):]
        strong.set("class", f"rel rel-{m.group('mark')}")


def to_html(markdown, text, outdir, missing, sections=None):
    """Markdown to an HTML fragment: tables, ids on the headings, no raw
    HTML (it is escaped), coloured cells, embedded images."""
    md = markdown.Markdown(extensions=["tables", "sane_lists", "toc"], output_format="html")
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_processor(markdown, outdir, missing)(md), "purgebench", 1)
    out = md.convert(text)
    if sections is not None:
        # the headings as the toc extension named them: (text, id)
        sections.extend((html.unescape(t["name"]), t["id"]) for t in md.toc_tokens)
    return out


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


def render(outdir, text, kind="report", title=None):
    """The page for Markdown text (a summary.md or compare.md) of results
    directory outdir, as a string. kind names the page ("report" or
    "compare")."""
    jinja2, markdown = require()
    md_title, head, body, meta = split_summary(text)
    missing = []
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(__file__), "templates")),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True, keep_trailing_newline=True)
    from markupsafe import Markup     # Jinja2's own dependency
    sections = []
    body_html = to_html(markdown, body, outdir, missing, sections)
    page = env.get_template(TEMPLATE).render(
        kind=kind,
        title=title or md_title or "purgebench report",
        directory=os.path.basename(os.path.abspath(outdir)),
        headline=Markup(to_html(markdown, head, outdir, missing)) if head else None,
        body=Markup(body_html),
        meta=Markup(to_html(markdown, meta, outdir, missing)) if meta else None,
        meta_title=META_TITLE,
        files=attachments(outdir),
        sections=sections,
        red_at=f"{stats.RED_AT:.2f}", green_at=f"{stats.GREEN_AT:.2f}",
        has_relative=bool(re.search(r"\*\* \((red|green)\)", text)) or stats.legend() in text)
    return page, missing


def write_report(outdir, name="report.html", source="summary.md", kind="report"):
    """Write outdir/name from outdir/source; returns (its path, [plots named
    in the source but missing from outdir]). ReportError
    when outdir has no such file or a module is missing."""
    src = os.path.join(outdir, source)
    if not os.path.isdir(outdir):
        raise ReportError(f"{outdir}: no such directory")
    if not os.path.isfile(src):
        raise ReportError(f"{outdir}: not a purgebench results directory (no {source})")
    with open(src, errors="replace") as f:
        text = f.read()
    page, missing = render(outdir, text, kind=kind)
    path = os.path.join(outdir, name)
    with open(path, "w") as f:
        f.write(page)
    return path, missing
