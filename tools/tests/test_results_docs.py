# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""docs/results and the pages that cite it stay in step.

- every run directory under docs/results is cited by a page (README.md,
  docs/*.md), by a link into it or by a docs/results/DIR path;
- every docs/results path that a page links or names exists;
- docs/results holds at most 25 directories and 15 MB, and no page there
  embeds images (report.html with data: URIs is not kept in docs/);
- docs/RESULTS.md is at most 250 lines, its first table's answers are at
  most 25 words each, its links to its own sections resolve, and it does
  not speak of how the work was organised (stop or issue numbers, owners),
  nor does any other page (README.md, docs/*.md).

No exception for any directory: a run added later is cited like the rest."""

import os
import re
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")
RESULTS_DIR = os.path.join(DOCS, "results")
RESULTS_MD = os.path.join(DOCS, "RESULTS.md")

MAX_DIRS = 25
# what `du` counts: every file and directory in whole 4 KiB blocks, against
# 15 MB as du -h and a reader count them
MAX_BYTES = 15 * 1000 * 1000
BLOCK = 4096
MAX_LINES = 250
MAX_ANSWER_WORDS = 25

LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
PATH = re.compile(r"docs/results/([A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9._-]+)*)")
ORGANISATION = re.compile(r"\bstops? \d+|\bissues? #?\d+|\bowners?\b|\bmain job\b",
                          re.IGNORECASE)


def pages():
    """The pages that may cite a run: README.md and docs/*.md."""
    out = [os.path.join(ROOT, "README.md")]
    out += sorted(os.path.join(DOCS, f) for f in os.listdir(DOCS) if f.endswith(".md"))
    return [p for p in out if os.path.isfile(p)]


def result_pages():
    """Pages inside docs/results (its index; summaries are the runs' own)."""
    return [os.path.join(RESULTS_DIR, f) for f in sorted(os.listdir(RESULTS_DIR))
            if f.endswith(".md") and os.path.isfile(os.path.join(RESULTS_DIR, f))]


def run_dirs():
    return sorted(d for d in os.listdir(RESULTS_DIR)
                  if os.path.isdir(os.path.join(RESULTS_DIR, d)) and not d.startswith("."))


def results_paths(page):
    """(path relative to docs/results, how it was written) for every link of
    a page that lands under docs/results and every docs/results/... path
    named in its text. Links to other pages, anchors and URLs are not."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    base = os.path.dirname(page)
    out = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(base, target.split("#")[0]))
        rel = os.path.relpath(path, RESULTS_DIR)
        if rel != "." and not rel.startswith(".."):
            out.append((rel, target))
    for rel in PATH.findall(text):
        out.append((rel.rstrip("."), "docs/results/" + rel))
    return out


def files_kept():
    """Files under docs/results that git would keep: tracked or not ignored
    (a run's server*/ data directory and samples.json are ignored)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
             "--", "docs/results"],
            cwd=ROOT, check=True, capture_output=True).stdout.decode()
        names = [n for n in out.split("\0") if n]
        return [os.path.join(ROOT, n) for n in names if os.path.isfile(os.path.join(ROOT, n))]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for top, _dirs, files in os.walk(RESULTS_DIR):
            found += [os.path.join(top, f) for f in files]
        return found


def slug(heading):
    """The anchor that GitHub gives a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


class ResultsDocs(unittest.TestCase):

    def test_every_run_directory_is_cited(self):
        cited = set()
        for page in pages():
            for rel, _written in results_paths(page):
                cited.add(rel.split(os.sep)[0].split("/")[0])
        uncited = [d for d in run_dirs() if d not in cited]
        self.assertEqual(uncited, [],
                         "run directories under docs/results that no page (README.md, "
                         "docs/*.md) cites: cite each where its figures are used, or "
                         "git rm it (git history keeps it)")

    def test_every_cited_path_exists(self):
        missing = []
        for page in pages() + result_pages():
            for rel, written in results_paths(page):
                if not os.path.exists(os.path.join(RESULTS_DIR, rel)):
                    missing.append("%s: %s" % (os.path.relpath(page, ROOT), written))
        self.assertEqual(missing, [], "pages name docs/results paths that do not exist")

    def test_at_most_25_directories(self):
        dirs = run_dirs()
        self.assertLessEqual(len(dirs), MAX_DIRS,
                             "%d run directories under docs/results (at most %d): %s"
                             % (len(dirs), MAX_DIRS, ", ".join(dirs)))

    def test_at_most_15_mb(self):
        files = files_kept()
        dirs = [d for d, _, _ in os.walk(RESULTS_DIR)]
        total = sum(-(-os.path.getsize(f) // BLOCK) * BLOCK for f in files)
        total += BLOCK * len(dirs)
        biggest = sorted(files, key=os.path.getsize, reverse=True)[:5]
        self.assertLessEqual(total, MAX_BYTES,
                             "docs/results takes %.1f MB on disk (at most %d MB); largest: %s"
                             % (total / 1e6, MAX_BYTES // 1000000,
                                ", ".join(os.path.relpath(f, RESULTS_DIR) for f in biggest)))

    def test_no_embedded_images(self):
        embedding = []
        for f in files_kept():
            if f.endswith((".html", ".htm", ".md", ".svg")):
                with open(f, "rb") as fh:
                    if re.search(rb"""(src|href)\s*=\s*["']?data:""", fh.read()):
                        embedding.append(os.path.relpath(f, ROOT))
        self.assertEqual(embedding, [],
                         "pages under docs/results that embed copies of images "
                         "(report.html: not kept in docs/, BUILD/run report DIR writes it again)")

    def test_results_md_length(self):
        with open(RESULTS_MD, encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertLessEqual(len(lines), MAX_LINES,
                             "docs/RESULTS.md has %d lines (at most %d)" % (len(lines), MAX_LINES))

    def test_first_table_answers_are_short(self):
        with open(RESULTS_MD, encoding="utf-8") as f:
            lines = f.read().splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("|"))
        header = [c.strip().lower() for c in lines[start].strip("|").split("|")]
        self.assertIn("answer", header, "the first table of docs/RESULTS.md has an 'answer' column")
        col = header.index("answer")
        rows = []
        for line in lines[start + 2:]:
            if not line.startswith("|"):
                break
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        self.assertTrue(rows, "the first table of docs/RESULTS.md has rows")
        long_ = []
        for row in rows:
            words = len(row[col].replace("`", "").split())
            if words > MAX_ANSWER_WORDS:
                long_.append("%d words: %s" % (words, row[col]))
        self.assertEqual(long_, [], "answers in the first table over %d words" % MAX_ANSWER_WORDS)

    def test_results_md_anchors_resolve(self):
        with open(RESULTS_MD, encoding="utf-8") as f:
            text = f.read()
        anchors = {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)}
        broken = sorted({a for a in re.findall(r"\]\(#([^)]+)\)", text) if a not in anchors})
        self.assertEqual(broken, [], "links of docs/RESULTS.md to sections it does not have")

    def test_pages_speak_of_the_project(self):
        for page in pages():
            with open(page, encoding="utf-8") as f:
                found = sorted({m.group(0) for m in ORGANISATION.finditer(f.read())})
            self.assertEqual(found, [], f"{os.path.relpath(page, ROOT)} names how the work "
                             "was organised; say what the project does or measured")


if __name__ == "__main__":
    unittest.main()
