# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""report.html (htmlreport) and purgebench compare, on saved results
directories (tools/tests/fixtures/results, copied from docs/results)."""

import base64
import html.parser
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, compare, htmlreport, report, stats  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "results")


class Page(html.parser.HTMLParser):
    """What a page holds: its cells (class, text), images, the order of
    some landmarks, and every tag seen."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.cells, self.images, self.tags, self.order = [], [], [], []
        self.answer_text = ""
        self._cell = None
        self._answer = 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "td":
            self._cell = [a.get("class", ""), ""]
        if tag == "img":
            self.images.append(a)
        if tag == "section" and a.get("class") == "answer":
            self._answer = 1
            self.order.append("answer")
        elif self._answer and tag == "section":
            self._answer += 1
        if tag == "table":
            self.order.append("table")
        if tag == "img":
            self.order.append("img")
        if tag == "section" and a.get("id") == "run-details":
            self.order.append("details")

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.cells.append(tuple(self._cell))
            self._cell = None
        if tag == "section" and self._answer:
            self._answer -= 1

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data
        if self._answer:
            self.answer_text += data

    def cell(self, text):
        """The class of the one cell whose text starts with text."""
        found = [c for c, t in self.cells if t.strip().startswith(text)]
        if len(found) != 1:
            raise AssertionError(f"{len(found)} cells start with {text!r}")
        return found[0]


class Workdir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-html-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def copy(self, name):
        dst = os.path.join(self.tmp, name)
        shutil.copytree(os.path.join(RESULTS, name), dst)
        return dst

    def report(self, name):
        d = self.copy(name)
        path, missing = htmlreport.write_report(d)
        self.assertEqual(os.path.join(d, "report.html"), path)
        with open(path) as f:
            return Page(f.read()), f.name, missing


class ThresholdTest(unittest.TestCase):
    def test_one_definition_of_the_colours(self):
        self.assertEqual((0.95, 1.05), (stats.RED_AT, stats.GREEN_AT))
        self.assertEqual("**0.95** (red)", stats.rel_cell(0.95))
        self.assertEqual("0.96", stats.rel_cell(0.96))
        self.assertEqual("**1.05** (green)", stats.rel_cell(1.05))
        self.assertEqual("-", stats.rel_cell(None))
        # the harness's cells and its legend come from there
        self.assertEqual(stats.rel_cell(0.9), report.rel(0.9))
        self.assertIn("<= 0.95", stats.legend())
        self.assertIn(">= 1.05", stats.legend())

    def test_less_is_better_inverts_the_colour(self):
        self.assertEqual("green", stats.mark(0.90, lower_is_better=True))
        self.assertEqual("red", stats.mark(1.10, lower_is_better=True))
        self.assertEqual("", stats.mark(1.02, lower_is_better=True))
        self.assertEqual("green", stats.mark(0.0, lower_is_better=True))
        self.assertEqual("**1.10** (red)", stats.rel_cell(1.10, lower_is_better=True))

    def test_the_cell_pattern_reads_what_rel_cell_wrote(self):
        m = stats.REL_CELL_RE.match(stats.rel_cell(0.6) + " (0.59..0.61)")
        self.assertEqual(("0.60", "red"), (m.group("value"), m.group("mark")))
        self.assertIsNone(stats.REL_CELL_RE.match("1.02 (0.99..1.06)"))


class ReportHtmlTest(Workdir):
    def test_relative_cells_have_their_colour_and_others_none(self):
        page, _, _ = self.report("ch-2wh")
        # ch-2wh's summary.md: adaptive '**1.07** (green)', the others 1.00
        self.assertEqual("rel rel-green", page.cell("1.07"))
        rel = [(c, t) for c, t in page.cells if "rel" in c]
        self.assertEqual([("rel rel-green", "1.07")], rel)
        self.assertEqual(2, sum(1 for c, t in page.cells if t == "1.00" and not c))
        # the colour's word is gone from the cell: its background says it
        self.assertFalse([t for _, t in page.cells if "(green)" in t or "(red)" in t])

    def test_red_cells_keep_their_range(self):
        page, _, _ = self.report("default-256")
        self.assertEqual("rel rel-red", page.cell("0.60"))
        self.assertEqual("rel rel-red", page.cell("0.90"))
        self.assertIn(("rel rel-red", "0.60 (0.59..0.61)"), page.cells)
        # within 0.95..1.05: no colour
        self.assertEqual("", page.cell("1.02 (0.99..1.06)"))

    def test_a_relative_value_in_the_answer_is_coloured_too(self):
        d = self.copy("default-256")
        with open(os.path.join(d, "summary.md")) as f:
            text = f.read()
        with open(os.path.join(d, "summary.md"), "w") as f:
            f.write(text.replace("- adaptive@10000: history p95 0.96x",
                                 "- by threads: 16: **1.13** (green) (1.03..1.24), 64: 1.01.\n"
                                 "- adaptive@10000: history p95 0.96x", 1))
        path, _ = htmlreport.write_report(d)
        with open(path) as f:
            page = f.read()
        self.assertIn('16: <strong class="rel rel-green">1.13</strong> (1.03..1.24), 64: 1.01.',
                      page)

    def test_the_answer_comes_first(self):
        page, _, _ = self.report("ch-2wh")
        self.assertEqual("answer", page.order[0])
        self.assertLess(page.order.index("answer"), page.order.index("table"))
        self.assertLess(page.order.index("table"), page.order.index("img"))
        self.assertLess(page.order.index("img"), page.order.index("details"))
        self.assertIn("adaptive@10000: history p95 2.33x the target at 1.07 of unthrottled "
                      "tpmC, latency p95 96.5 ms.", page.answer_text)
        self.assertIn("ch, target 10,000 (innodb_max_purge_lag)", page.answer_text)

    def test_plots_are_linked_and_nothing_else_is_loaded(self):
        page, path, missing = self.report("ch-2wh")
        self.assertEqual([], missing)
        # the PNG beside the page, by its name (relative: the directory moves whole)
        self.assertEqual(["ch-history-tps.png"], [i["src"] for i in page.images])
        with open(path) as f:
            text = f.read()
        # the plots that followed the last table have a heading (and a link at the top)
        self.assertLess(text.index('<h2 id="plots">Plots</h2>'), text.index("<img "))
        self.assertIn('<a href="#plots">Plots</a>', text)
        # no script, no style sheet; nothing from elsewhere
        for tag, a in page.tags:
            self.assertNotIn(tag, ("script", "link", "iframe"))
            for k in ("src", "href"):
                v = a.get(k) or ""
                self.assertTrue(v.startswith("#") or not v or (tag == "img" and "/" not in v),
                                (tag, k, v[:60]))

    def test_plots_embedded_on_request(self):
        d = self.copy("ch-2wh")
        path, missing = htmlreport.write_report(d, embed=True)
        with open(path) as f:
            page = Page(f.read())
        src = page.images[0]["src"]
        self.assertTrue(src.startswith("data:image/png;base64,"), src[:40])
        with open(os.path.join(RESULTS, "ch-2wh", "ch-history-tps.png"), "rb") as f:
            self.assertEqual(f.read(), base64.b64decode(src.split(",", 1)[1]))
        with mock.patch("sys.stdout", new_callable=io.StringIO):
            self.assertEqual(0, bench.main(["report", "--embed-plots", d]))
        with open(path) as f:
            self.assertIn('src="data:image/png;base64,', f.read())

    def test_a_missing_plot_is_said(self):
        page, path, missing = self.report("default-256")
        self.assertEqual(["history-growth-history-tps.png", "backlog-vs-lag-history-tps.png",
                          "backlog-vs-lag.png"], missing)
        with open(path) as f:
            self.assertIn("(plot backlog-vs-lag.png is missing from this directory)", f.read())
        self.assertEqual([], page.images)

    def test_configuration_and_commands_at_the_end(self):
        _, path, _ = self.report("ch-2wh")
        with open(path) as f:
            text = f.read()
        self.assertIn("<summary>my.cnf</summary>", text)
        self.assertIn("innodb_buffer_pool_size", text)
        self.assertIn("<summary>commands.txt</summary>", text)
        self.assertIn("go-tpc", text)
        self.assertIn("<strong>@@version</strong>: 10.11.18-MariaDB-purgelab", text)
        self.assertLess(text.index('id="run-details"'), text.index("<summary>my.cnf"))

    def test_text_from_a_run_is_escaped(self):
        d = self.copy("default-256")
        with open(os.path.join(d, "summary.md"), "a") as f:
            f.write("- **workload**: <script>alert(1)</script> & <b>x</b>\n")
        htmlreport.write_report(d)
        with open(os.path.join(d, "report.html")) as f:
            text = f.read()
        self.assertNotIn("<script>", text)
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;x&lt;/b&gt;", text)

    def test_an_image_in_prose_is_not_loaded(self):
        d = self.copy("default-256")
        with open(os.path.join(d, "summary.md")) as f:
            text = f.read()
        with open(os.path.join(d, "summary.md"), "w") as f:
            f.write(text.replace("# purgebench report\n",
                                 "# purgebench report\n\n![x](http://example.invalid/x.png)\n", 1))
        path, _ = htmlreport.write_report(d)
        with open(path) as f:
            page = Page(f.read())
        self.assertEqual([], page.images)
        self.assertIn("(image http://example.invalid/x.png)", page.answer_text)

    def test_not_a_results_directory(self):
        with self.assertRaisesRegex(htmlreport.ReportError, "no summary.md"):
            htmlreport.write_report(self.tmp)
        with self.assertRaisesRegex(htmlreport.ReportError, "no such directory"):
            htmlreport.write_report(os.path.join(self.tmp, "nowhere"))

    def test_a_missing_module_is_a_clear_error(self):
        with mock.patch.dict(sys.modules, {"jinja2": None}):
            with self.assertRaisesRegex(htmlreport.ReportError,
                                        r"needs python3-jinja2 .*BUILD/setup"):
                htmlreport.write_report(self.copy("ch-2wh"))

    def test_the_report_subcommand(self):
        d = self.copy("ch-2wh")
        with mock.patch("sys.stdout", new_callable=io.StringIO) as out:
            self.assertEqual(0, bench.main(["report", d]))
        self.assertEqual(os.path.join(d, "report.html"), out.getvalue().strip())
        with mock.patch("sys.stderr", new_callable=io.StringIO) as err:
            self.assertEqual(1, bench.main(["report", self.tmp]))
        self.assertIn("not a purgebench results directory (no summary.md)", err.getvalue())


class PageDataTest(Workdir):
    """A run's summary.md and report.html drawn from the same data
    (report.page(), kept as report.json); the HTML's tables from that
    data, not from the Markdown."""

    def write(self, name="ch-2wh"):
        from purgebench.plan import Target
        d = self.copy(name)
        os.remove(os.path.join(d, "summary.md"))
        runs = report.read_samples(d)
        with mock.patch.object(report, "plots", return_value=["ch-history-tps.png"]):
            text = report.markdown(d, {"@@version": "10.11.18 <b>x</b> **y**"}, runs,
                                   bench.summary_tables(runs, [Target("fork", None, None,
                                                                      False)]),
                                   bench.headline(runs), failed=["ch x #1: boom"])
        return d, text

    def test_summary_md_is_the_pages_markdown(self):
        d, text = self.write()
        with open(os.path.join(d, "report.json")) as f:
            pg = json.load(f)
        self.assertEqual(text, report.page_markdown(pg))
        with open(os.path.join(d, "summary.md")) as f:
            self.assertEqual(text, f.read())
        self.assertTrue(text.startswith("# purgebench report\n\n**Failed runs**"))
        (table,) = [t for t in pg["tables"] if t["title"] == "ch"]
        self.assertEqual("arm", table["header"][0])
        # a relative cell as data: its value and colour, and its Markdown form
        self.assertIn({"text": "1.07", "mark": "green", "note": ""}, table["rows"][2])
        self.assertIn("| **1.07** (green) |", text)

    def test_the_page_is_drawn_from_the_data(self):
        d, _ = self.write()
        with open(os.path.join(d, "summary.md"), "w") as f:
            f.write("# not this\n\n| a |\n|---|\n| **0.10** (red) |\n")
        path, missing = htmlreport.write_report(d)
        self.assertEqual([], missing)
        with open(path) as f:
            text = f.read()
        page = Page(text)
        self.assertEqual([("rel rel-green", "1.07")], [(c, t) for c, t in page.cells if c])
        self.assertNotIn("not this", text)
        self.assertIn("<strong>@@version</strong>: 10.11.18 &lt;b&gt;x&lt;/b&gt; **y**", text)
        self.assertIn("ch x #1: boom", page.answer_text)
        self.assertEqual(["ch-history-tps.png"], [i["src"] for i in page.images])

    def test_a_cell_is_text_not_markdown(self):
        d = os.path.join(self.tmp, "cells")
        os.makedirs(d)
        report.write_page(d, report.page("report", "t", [], [
            ("x", ["arm", "r"], [["**a** | `b`", stats.rel_cell(0.5).noted("(0.4..0.6)")]])],
            stats.legend(), [], []))
        path, _ = htmlreport.write_report(d)
        with open(path) as f:
            page = Page(f.read())
        self.assertEqual([("", "**a** | `b`"), ("rel rel-red", "0.50 (0.4..0.6)")], page.cells)


def write_runs(path, runs):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "runs.json"), "w") as f:
        json.dump(runs, f)
    return path


def run(arm, repeat=1, scenario="backlog-vs-lag", **kw):
    return {"scenario": scenario, "arm": arm, "repeat": repeat, "threads": 256, **kw}


class CompareTest(Workdir):
    def fixture_runs(self):
        return (compare.load(os.path.join(RESULTS, "ch-2wh"), "A"),
                compare.load(os.path.join(RESULTS, "ch-2wh-r2"), "B"))

    def test_b_over_a_per_arm_and_measure(self):
        a, b = self.fixture_runs()
        arms, notes = compare.plan(a, b)
        self.assertEqual([("ch", ["unthrottled", "formula@10000", "adaptive@10000"])], arms)
        self.assertEqual([], notes)
        (title, header, rows), (title2, header2, rows2) = compare.tables(a, b, arms)
        self.assertEqual("ch: B over A", title)
        by = {row[0]: dict(zip(header, row)) for row in rows}
        ra = {r["arm"]: r for r in a}
        rb = {r["arm"]: r for r in b}
        for arm in ("unthrottled", "formula@10000", "adaptive@10000"):
            self.assertEqual(stats.rel_cell(rb[arm]["tpmc"] / ra[arm]["tpmc"]),
                             by[arm]["tpmC"])
            # less is better: the colour of A over B
            self.assertEqual(stats.rel_cell(rb[arm]["history_p95"] / ra[arm]["history_p95"],
                                            True), by[arm]["history p95 ↓"])
            self.assertEqual("1 / 1", by[arm]["repeats A / B"])
        self.assertIn("analytical queries/h", header)
        self.assertNotIn("qps", header)         # go-tpc reports none
        absolute = {row[0]: dict(zip(header2, row)) for row in rows2}
        self.assertEqual(f"{ra['unthrottled']['tpmc']:,.0f} → {rb['unthrottled']['tpmc']:,.0f}",
                         absolute["unthrottled"]["tpmC"])

    def test_medians_of_the_repeats(self):
        a = [run("unthrottled", i, qps=q, history_p95=h)
             for i, (q, h) in enumerate([(100, 1000), (120, 3000), (110, 2000)], 1)]
        b = [run("unthrottled", i, qps=q, history_p95=h)
             for i, (q, h) in enumerate([(132, 1000), (100, 1400)], 1)]
        (_, header, rows), _ = compare.tables(a, b, [("backlog-vs-lag", ["unthrottled"])])
        row = dict(zip(header, rows[0]))
        self.assertEqual("**1.05** (green)", row["qps"])        # 116 / 110
        self.assertEqual("**0.60** (green)", row["history p95 ↓"])  # 1200 / 2000, less is better
        self.assertEqual("3 / 2", row["repeats A / B"])
        self.assertNotIn("tpmC", header)

    def test_writes_markdown_html_and_the_overlaid_plot(self):
        out = os.path.join(self.tmp, "cmp")
        outdir, notes = compare.run(os.path.join(RESULTS, "ch-2wh"),
                                    os.path.join(RESULTS, "ch-2wh-r2"), out)
        self.assertEqual(([], out), (notes, outdir))
        with open(os.path.join(out, "compare.md")) as f:
            text = f.read()
        self.assertIn("## ch: B over A", text)
        self.assertIn("![compare-ch-history.png](compare-ch-history.png)", text)
        self.assertGreater(os.path.getsize(os.path.join(out, "compare-ch-history.png")), 1000)
        with open(os.path.join(out, "compare.html")) as f:
            page = Page(f.read())
        self.assertEqual("answer", page.order[0])
        self.assertIn("adaptive@10000: tpmC", page.answer_text)
        self.assertEqual("compare-ch-history.png", page.images[0]["src"])
        coloured = {c for c, _ in page.cells if c.startswith("rel")}
        self.assertEqual({"rel rel-red", "rel rel-green"}, coloured)

    def test_different_scenarios(self):
        a = write_runs(os.path.join(self.tmp, "a"), [run("unthrottled", scenario="tpcc")])
        b = write_runs(os.path.join(self.tmp, "b"), [run("unthrottled", scenario="ch")])
        with self.assertRaisesRegex(compare.NotComparable,
                                    "different scenarios: A ran tpcc; B ran ch"):
            compare.run(a, b, os.path.join(self.tmp, "out"))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out")))

    def test_no_common_arm(self):
        a = write_runs(os.path.join(self.tmp, "a"), [run("formula@10000")])
        b = write_runs(os.path.join(self.tmp, "b"), [run("adaptive@10000")])
        with self.assertRaisesRegex(compare.NotComparable, "no arm in common"):
            compare.run(a, b, os.path.join(self.tmp, "out"))

    def test_not_results_directories(self):
        with self.assertRaisesRegex(compare.NotComparable, "A .*: no such directory"):
            compare.load(os.path.join(self.tmp, "nowhere"), "A")
        with self.assertRaisesRegex(compare.NotComparable, r"not a purgebench results "
                                                           r"directory \(no runs.json\)"):
            compare.load(self.tmp, "B")
        with self.assertRaisesRegex(compare.NotComparable, "summary.md but no runs.json"):
            compare.load(self.copy("default-256"), "A")
        with self.assertRaisesRegex(compare.NotComparable, "holds no runs"):
            compare.load(write_runs(os.path.join(self.tmp, "empty"), []), "A")
        bad = os.path.join(self.tmp, "bad")
        os.makedirs(bad)
        with open(os.path.join(bad, "runs.json"), "w") as f:
            f.write("{not json")
        with self.assertRaisesRegex(compare.NotComparable, "cannot be read"):
            compare.load(bad, "B")

    def test_what_only_one_has_and_what_was_made_differently(self):
        a = [run("unthrottled", qps=1), run("formula@10000", qps=1)]
        b = [run("unthrottled", qps=1, threads=128), run("adaptive@10000", qps=1),
             run("x", scenario="tpcc")]
        arms, notes = compare.plan(a, b)
        self.assertEqual([("backlog-vs-lag", ["unthrottled"])], arms)
        self.assertIn("Only in B: scenario tpcc.", notes)
        self.assertIn("backlog-vs-lag: only in A: formula@10000.", notes)
        self.assertIn("backlog-vs-lag: only in B: adaptive@10000.", notes)
        self.assertIn("backlog-vs-lag unthrottled: threads differs: A 256; B 128.", notes)

    def test_the_compare_subcommand(self):
        out = os.path.join(self.tmp, "cmp")
        with mock.patch("sys.stdout", new_callable=io.StringIO) as stdout:
            self.assertEqual(0, bench.main(["compare", os.path.join(RESULTS, "ch-2wh"),
                                            os.path.join(RESULTS, "ch-2wh-r2"), "--out", out]))
        self.assertIn(os.path.join(out, "compare.html"), stdout.getvalue())
        with mock.patch("sys.stderr", new_callable=io.StringIO) as err:
            self.assertEqual(2, bench.main(["compare", os.path.join(RESULTS, "ch-2wh"),
                                            self.tmp]))
        self.assertIn("purgebench compare: B", err.getvalue())
        # its page again, as for a results directory
        os.remove(os.path.join(out, "compare.html"))
        with mock.patch("sys.stdout", new_callable=io.StringIO) as stdout:
            self.assertEqual(0, bench.main(["report", out]))
        self.assertEqual(os.path.join(out, "compare.html"), stdout.getvalue().strip())

    def test_samples_read_back_from_the_csv(self):
        a, _ = self.fixture_runs()
        s = a[0]["samples"]
        self.assertEqual(30, len(s))
        self.assertIsInstance(s[5]["innodb_history_list_length"], int)
        self.assertIsInstance(s[5]["t"], float)
        self.assertTrue(a[0]["intervals"])


if __name__ == "__main__":
    unittest.main()
