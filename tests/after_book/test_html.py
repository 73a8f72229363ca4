"""The built book in a real browser (headless Chromium): every page loads without console errors, its
internal links and images resolve, its mermaid diagrams are drawn as SVG, and Chinese text is present. On the
chapters' pages, in both editions: glued text reads at the weight around it, every table fits its column with no
column of text squeezed, no header row is empty but for a pandas index name, and the verdicts table carries each
claim's whole finding. A screenshot of each page is kept under _build/screenshots. Run after `make book` (`make
check-html`); one browser run a page serves all its checks."""

import functools
import html
import json
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.after_book.built import HTML, PAGE, PAGES, ZH, whole_book

SHOTS = HTML.parent / "screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# no --allow-file-access-from-files: the book must work when a reader opens it from disk
CJK = re.compile(r"[\u4e00-\u9fff]")
SKIP = {"genindex.html", "search.html", "py-modindex.html"}
MAX_DIAGRAM_WIDTH = 800  # px at natural size: shrunk to the ~670 px column, labels stay >= 13 px

pytestmark = pytest.mark.skipif(not HTML.exists() or CHROMIUM is None,
                                reason="needs a built book (make book) and chromium (make check-html installs it)")


def pages():
    if PAGE is not None:  # one chapter's page, in both editions
        return [p for page in PAGES for p in (HTML / f"{page}.html", HTML / "zh" / f"{page}.html") if p.exists()]
    return sorted(p for p in HTML.rglob("*.html") if p.name not in SKIP and not p.name.startswith(".")
                  and "_static" not in p.parts
                  and "_sources" not in p.parts) if HTML.exists() else []


class Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.refs.append(value)


def chromium(page: Path, *extra: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                              capture_output=True, text=True, timeout=120)


# px: a column of text narrower than this, while its table could give it more, is squeezed (a sentence then
# reads four or five words a line); what tests/after_book checks of tables at a 1280 px window
NARROWEST_TEXT_COLUMN = 160

# Run by MEASURE once the page is drawn; returns what the layout checks below read, in <body data-layout>:
# - bold_glue: glued text (myst-nb's span.pasted-text) drawn bolder than the text around it;
# - wide_tables: tables wider than the column they sit in, and cells whose content runs past their edge;
# - narrow_columns: table columns of text squeezed under NARROWEST_TEXT_COLUMN px while the others could give.
# Tables are measured as the page opens and again with every dropdown open (the tables inside them, and cells
# that hold one). A table's column is the article's text column, or the narrower block it sits in (a dropdown, a
# card); the theme's scroll wrapper around every table (pst-scrollable-table-container) does not count as room.
# A table may be wider than its column only on purpose, and only if it cannot fit: tagged wide-table (on the
# table, or as a cell tag, which gives its cell the class tag_wide-table) and wider than the column even with
# every cell wrapped as far as it goes. Anything else that is wider should wrap, be split or be transposed: the
# theme would otherwise scroll it silently, its last columns out of sight.
LAYOUT = """
function layout(art) {
  var FLOOR = %d, out = {bold_glue: [], wide_tables: [], narrow_columns: []};
  function weight(el) { return parseInt(getComputedStyle(el).fontWeight, 10); }
  function label(el) { return (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 60); }
  function inner(el) {
    var cs = getComputedStyle(el);
    return el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  }
  function scrolls(el) { var ox = getComputedStyle(el).overflowX; return ox === 'auto' || ox === 'scroll'; }
  document.querySelectorAll('span.pasted-text').forEach(function (el) {
    if (weight(el) > weight(el.parentElement))
      out.bold_glue.push(weight(el) + ' in ' + weight(el.parentElement) + ': ' + label(el));
  });
  // one cell per column: those of the table's fullest row without merged cells (a body row before a header row)
  function columns(t) {
    var best = null;
    Array.from(t.rows).forEach(function (row) {
      if (Array.from(row.cells).some(function (c) { return c.colSpan !== 1; })) return;
      var body = row.parentElement.tagName !== 'THEAD';
      var n = row.cells.length;
      if (!best || n > best.row.cells.length || (n === best.row.cells.length && body && !best.body))
        best = {row: row, body: body};
    });
    return best ? Array.from(best.row.cells) : [];
  }
  function widths(t) { return columns(t).map(function (c) { return c.getBoundingClientRect().width; }); }
  // the column widths of a copy of table t laid out at `width` (1px: every cell wrapped as far as it goes;
  // max-content: nothing wrapped), without declared column or cell widths and, if bodyOnly, without its header rows
  function natural(t, width, bodyOnly) {
    var c = t.cloneNode(true);
    c.querySelectorAll('colgroup, col').forEach(function (e) { e.remove(); });
    c.querySelectorAll('td, th').forEach(function (e) {
      e.style.width = 'auto'; e.style.minWidth = '0'; e.style.maxWidth = 'none';
    });
    if (bodyOnly) c.querySelectorAll('thead').forEach(function (e) { e.remove(); });
    c.style.cssText = 'position:absolute;visibility:hidden;left:0;top:0;table-layout:auto;min-width:0;' +
                      'max-width:none;width:' + width;
    t.parentElement.appendChild(c);
    var w = widths(c), whole = c.getBoundingClientRect().width;
    c.remove();
    return {cols: w, whole: whole};
  }
  function measure() {
    art.querySelectorAll('table').forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.width === 0) return;  // inside a closed dropdown
      var holder = t.parentElement, tagged = false;
      for (var a = t; a && a !== art; a = a.parentElement)
        if (a.classList.contains('wide-table') || a.classList.contains('tag_wide-table')) tagged = true;
      while (holder !== art && scrolls(holder)) holder = holder.parentElement;
      var room = Math.min(inner(holder), inner(art)), used = Math.max(r.width, t.scrollWidth);
      var least = natural(t, '1px', false), what = label(t);
      if (used > room + 1 && !(tagged && least.whole > room + 1))
        out.wide_tables.push(Math.round(used) + ' px wide in a ' + Math.round(room) + ' px column (' +
          (least.whole <= room + 1 ? 'it fits at ' + Math.round(least.whole) + ' px with its text wrapped'
                                   : 'too wide even with every cell wrapped: split or transpose it, or tag it wide-table') +
          '): ' + what);
      t.querySelectorAll('td, th').forEach(function (cell) {
        if (cell.clientWidth > 0 && cell.scrollWidth > cell.clientWidth + 1)
          out.wide_tables.push('a cell ' + cell.clientWidth + ' px wide holds ' + cell.scrollWidth + ' px: ' + label(cell));
      });
      var w = widths(t), most = natural(t, 'max-content', true).cols;
      if (most.length !== w.length || least.cols.length !== w.length) return;
      w.forEach(function (wi, i) {
        var want = Math.min(FLOOR, most[i]);  // its text on one line, up to the floor
        if (wi >= want - 1) return;
        var spare = Math.max(0, room - used);  // what the table could give: room it leaves, and what the other
        w.forEach(function (wj, j) {          // columns have beyond their narrowest and beyond the floor
          if (j !== i) spare += Math.max(0, wj - Math.max(least.cols[j], FLOOR));
        });
        if (spare >= want - wi)
          out.narrow_columns.push('column ' + (i + 1) + ' of ' + w.length + ' is ' + Math.round(wi) + ' px (its text is ' +
            Math.round(most[i]) + ' px on one line; the other columns could give ' + Math.round(spare) + ' px): ' + what);
      });
    });
  }
  measure();  // as the page opens
  art.querySelectorAll('details').forEach(function (d) { d.open = true; });
  measure();  // with every dropdown open
  for (var k in out) out[k] = out[k].filter(function (x, i, all) { return all.indexOf(x) === i; });
  return out;
}
""" % NARROWEST_TEXT_COLUMN


# Run in the page once scripts (MathJax, mermaid) have drawn: every table, image and figure in the article
# that reaches past the text column without sitting in its own horizontal scroll container is listed in
# <body data-too-wide>. Anything inside a closed toggle has no layout and is skipped. Then LAYOUT's findings.
MEASURE = """<script>
setTimeout(function () {
  var art = document.querySelector('article.bd-article');
  if (!art) { document.body.setAttribute('data-too-wide', '[]'); return; }
  var right = art.getBoundingClientRect().right + 1, out = [];
  art.querySelectorAll('table, img, figure, pre.mermaid > svg').forEach(function (el) {
    var r = el.getBoundingClientRect(); if (r.width === 0 || r.right <= right) return;
    for (var a = el.parentElement; a && a !== art; a = a.parentElement) {
      var ox = getComputedStyle(a).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && a.getBoundingClientRect().right <= right) return;
    }
    out.push(el.tagName + ' ' + Math.round(r.right - right) + 'px over: ' +
             (el.textContent || el.getAttribute('src') || '').trim().slice(0, 50));
  });
  document.body.setAttribute('data-too-wide', JSON.stringify(out));
  document.body.setAttribute('data-layout', JSON.stringify(layout(art)));
}, 15000);
""" + LAYOUT + """
</script>"""


@functools.lru_cache(maxsize=None)  # one browser run a page serves every check of it
def rendered(page: Path) -> tuple[str, str]:
    """The DOM after scripts ran (with :data:`MEASURE`'s findings), and the browser's log (console messages)."""
    probe = page.with_name(f".measure-{page.name}")  # beside the page, so its relative links resolve
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    try:
        r = chromium(probe, "--virtual-time-budget=20000", "--window-size=1280,2000", "--enable-logging=stderr",
                     "--v=0", "--dump-dom")
    finally:
        probe.unlink()
    return r.stdout, r.stderr


def visible_text(dom: str) -> str:
    """The page's text as a reader sees it: scripts, styles, code and typeset math left out."""
    for tag in ("script", "style", "pre", "code", "mjx-container", "svg", "textarea"):
        dom = re.sub(rf"<{tag}\b.*?</{tag}>", " ", dom, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", dom))


def test_visible_text_catches_what_it_must():
    assert "$x$" in visible_text("<p>a $x$ b</p><code>$y$</code>")
    assert "<Foo at 0x7f>" in visible_text("<p>&lt;Foo at 0x7f&gt;</p>")


def test_there_are_pages():
    assert len(pages()) >= (2 if PAGE else 5)  # one page in both editions, or the book


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(HTML)))
def test_page_in_browser(page):
    dom, log = rendered(page)
    assert "</html>" in dom, f"{page.name} did not render"
    errors = [line for line in log.splitlines() if "CONSOLE" in line and re.search(r"error|uncaught", line, re.I)]
    assert not errors, f"console errors on {page.name}: {errors[:3]}"
    # mermaid: every diagram was replaced by an SVG
    diagrams = re.findall(r'<pre class="mermaid"[^>]*>(.*?)</pre>', dom, re.S)
    undrawn = [d[:60] for d in diagrams if "<svg" not in d]
    assert not undrawn, f"{page.name}: {len(undrawn)} of {len(diagrams)} mermaid diagrams not drawn: {undrawn[:2]}"
    # ... and drawn to fit the text column (about 670 px at a 1280 px window): mermaid shrinks a wider one
    # to fit, so one much wider than the column would have illegible labels
    widths = [float(w) for w in re.findall(r'<svg[^>]*id="mermaid[^"]*"[^>]*viewBox="[-\d.]+ [-\d.]+ ([\d.]+)', dom)]
    too_wide = [round(w) for w in widths if w > MAX_DIAGRAM_WIDTH]
    assert not too_wide, f"{page.name}: mermaid diagrams {too_wide} px wide; redraw them under {MAX_DIAGRAM_WIDTH} px"
    # every table and figure fits the text column or scrolls in its own container
    wide = re.search(r'<body[^>]*data-too-wide="([^"]*)"', dom)
    assert wide or "bd-article" not in page.read_text(encoding="utf-8"), f"{page.name}: the layout probe did not run"
    too_wide = json.loads(html.unescape(wide.group(1))) if wide else []  # a redirect page has no article
    assert not too_wide, f"{page.name}: wider than the text column, with no scroll of their own: {too_wide[:3]}"
    # nothing is fetched from the network: scripts, styles and images come from the book itself
    remote = re.findall(r'<(?:script|img)[^>]+src="(https?:[^"]+)"|<link[^>]+href="(https?:[^"]+\.css[^"]*)"', dom)
    assert not remote, f"{page.name} loads remote resources: {remote[:3]}"
    # math is typeset (MathJax replaced the TeX with SVG)
    if 'class="math notranslate' in page.read_text(encoding="utf-8"):  # Sphinx's math markup
        assert "<mjx-container" in dom, f"{page.name}: math was not typeset"
    # a clean page: no object reprs, no raw dicts of numbers, no TeX left untypeset in the text
    text = visible_text(dom)
    reprs = re.findall(r"<[\w.]+(?: object)? at 0x[0-9a-f]+>", text)
    assert not reprs, f"{page.name} shows object reprs: {reprs[:3]}"
    raw_tex = re.findall(r"\$[^$\s][^$]{0,80}\$|\\(?:times|mathbf|mathcal|frac|cdot|approx)\b", text)
    assert not raw_tex, f"{page.name} shows raw TeX: {raw_tex[:3]}"
    raw_rst = re.findall(r"(?m)^\s*\.\. [a-z-]+::.*$|:(?:py:obj|py:func|doc|ref):`", text)
    assert not raw_rst, f"{page.name} shows reStructuredText as text: {raw_rst[:3]}"
    # internal links and images resolve
    parser = Refs()
    parser.feed(page.read_text(encoding="utf-8"))
    missing = []
    for ref in parser.refs:
        url = urlparse(ref)
        if url.scheme or url.netloc or not url.path:
            continue
        target = (page.parent / unquote(url.path)).resolve()
        if not target.exists():
            missing.append(ref)
    assert not missing, f"{page.name}: broken internal links/images {missing[:5]}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / (str(page.relative_to(HTML)).replace("/", "_") + ".png")
    # a tall window, so that the screenshot holds the whole page (figures, claim boxes, exercises), then the
    # blank space below the page trimmed off
    chromium(page, "--virtual-time-budget=20000", "--window-size=1280,16000", "--hide-scrollbars", f"--screenshot={shot}")
    assert shot.exists() and shot.stat().st_size > 10_000
    trim_blank_bottom(shot)


def chapter_pages() -> list[Path]:
    """The chapters' pages (lessons, audit pages, the verdicts) in both editions."""
    return [p for p in pages() if re.match(r"\d\d_", p.name)]


def layout(page: Path) -> dict[str, list[str]]:
    """What :data:`LAYOUT` found on ``page`` in the browser."""
    dom, _ = rendered(page)
    found = re.search(r'<body[^>]*data-layout="([^"]*)"', dom)
    assert found, f"{page.name}: the layout probe did not run"
    return json.loads(html.unescape(found.group(1)))


def page_id(page: Path) -> str:
    return str(page.relative_to(HTML))


PROBE_PAGE = """<!DOCTYPE html><html><head><style>
article { width: 600px; } td { padding: 0 4px; } .nowrap td { white-space: nowrap; }
span.pasted-text { font-weight: bold; } strong span.pasted-text { font-weight: inherit; }
</style></head><body><article class="bd-article">
<p>plain <span class="pasted-text">bold glue</span> <strong>bold <span class="pasted-text">glue in bold</span></strong></p>
<div style="overflow-x: auto"><table class="nowrap"><tr><td>untagged %(long)s</td><td>b</td></tr></table></div>
<div class="tag_wide-table"><div style="overflow-x: auto">
  <table class="nowrap"><tr><td>tagged %(long)s</td></tr></table></div></div>
<div class="tag_wide-table"><div style="overflow-x: auto">
  <table class="nowrap" style="width: 800px"><tr><td>fits wrapped</td></tr></table></div></div>
<table style="table-layout: fixed; width: 100%%"><tr><td style="width: 15%%">squeezed %(text)s</td><td>x</td></tr></table>
<table style="table-layout: fixed; width: 300px">
  <tr><td style="width: 60px; white-space: nowrap">spills out of its cell</td><td>y</td></tr></table>
<details><summary>more</summary><table class="nowrap"><tr><td>in a dropdown %(long)s</td></tr></table></details>
</article></body></html>""" % {"long": "wide " * 200, "text": "words " * 40}


def test_layout_probe_catches_what_it_must(tmp_path):
    page = tmp_path / "probe.html"
    page.write_text(PROBE_PAGE, encoding="utf-8")
    found = layout(page)
    assert found["bold_glue"] == ["700 in 400: bold glue"]
    wide = " | ".join(found["wide_tables"])
    assert "untagged" in wide and "in a dropdown" in wide and "spills out of its cell" in wide, wide
    assert "tagged wide" not in wide.replace("untagged", ""), wide  # tagged, and too wide even wrapped: allowed
    assert "fits wrapped" in wide, wide  # tagged, but would fit with its text wrapped: not allowed
    narrow = " | ".join(found["narrow_columns"])
    assert re.search(r"column 1 of 2 is \d+ px \(its text is \d{4} px on one line.*: squeezed", narrow), narrow


@pytest.mark.parametrize("page", chapter_pages(), ids=page_id)
def test_glued_text_is_not_bold(page):
    """A glued number or sentence ({glue:text}) reads as the text around it: myst-nb's stylesheet makes every
    span.pasted-text bold, book/_static/embedbook.css sets it back to the weight it sits in (a glue inside
    **bold** stays bold)."""
    bold = layout(page)["bold_glue"]
    assert not bold, f"{page.name}: {len(bold)} glued texts drawn bolder than the text around them: {bold[:3]}"


@pytest.mark.parametrize("page", chapter_pages(), ids=page_id)
def test_tables_fit_their_column(page):
    """No table is wider than the column it sits in, and no cell's content runs past its edge. The theme wraps
    every table in a scroll container, so a table too wide would scroll silently, its last columns out of sight:
    only a table tagged wide-table that cannot fit even with every cell wrapped may (see :data:`LAYOUT`)."""
    wide = layout(page)["wide_tables"]
    assert not wide, f"{page.name}: tables wider than their column: {wide[:3]}"


@pytest.mark.parametrize("page", chapter_pages(), ids=page_id)
def test_table_columns_of_text_are_not_squeezed(page):
    """No column of text is narrower than NARROWEST_TEXT_COLUMN px (its text wrapping) while the table could
    give it that much: room the table leaves in its column, or width its other columns hold beyond their narrowest
    and beyond that floor. A table already wider than its column has every column at its narrowest: that is
    test_tables_fit_their_column's to report. Give such a table column widths (a CSS class in
    book/_static/embedbook.css, as the verdicts table has; ``:widths:`` in a list-table) or keep its labels on
    one line."""
    narrow = layout(page)["narrow_columns"]
    assert not narrow, f"{page.name}: columns of text squeezed: {narrow[:3]}"


def header_rows(page_html: str) -> list[list[str]]:
    """The text of each header row's cells, for every table of a built page."""
    rows = []
    for head in re.findall(r"<thead\b.*?</thead>", page_html, re.S):
        for row in re.findall(r"<tr\b[^>]*>(.*?)</tr>", head, re.S):
            rows.append([html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                         for c in re.findall(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", row, re.S)])
    return rows


def test_header_rows_catches_an_index_name():
    import pandas as pd

    frame = pd.DataFrame({"a": [1], "b": [2]}, index=pd.Index(["x"], name="rank"))
    assert ["rank", "", ""] in header_rows(frame.to_html())
    assert ["rank", "a", "b"] in header_rows(frame.rename_axis(index=None, columns="rank").to_html())


@pytest.mark.parametrize("page", chapter_pages(), ids=page_id)
def test_no_header_row_of_empty_cells(page):
    """A table's header has no row that is empty but for its first cell: what pandas draws for a named index
    (the name alone on a second header row). Name the corner instead: ``df.rename_axis(index=None,
    columns=df.index.name)`` puts the name in the first header row's empty first cell."""
    empty = [row for row in header_rows(page.read_text(encoding="utf-8")) if len(row) > 1 and not any(row[1:])]
    assert not empty, f"{page.name}: header rows empty but for their first cell (a pandas index name): {empty[:3]}"


def _words(text: str) -> list[str]:
    """A text's words and CJK characters, markup, math delimiters and punctuation left out."""
    text = re.sub(r"\{[\w:-]+\}`([^`<]*)(?:<[^>]*>)?`", r"\1", text)  # a role: its text
    return re.findall(r"[\u4e00-\u9fff]|[^\W_]+", text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_verdict_rows_carry_the_whole_finding(lang):
    """Each row of the verdicts page's table carries its claim's whole finding (at most claims.FINDING_WORDS
    words), which is where a correction, a reason or an attribution is said: not only its first sentence. Read
    against the records the page was built from (full size after make book, smoke size after make page 16); a
    record written after the page was built is not its business."""
    from embedbook.book import claims

    page = (HTML if lang == "en" else ZH) / "chapters" / "ch16_verdicts" / "16_verdicts.html"
    store = claims.verdict_store(smoke=PAGE is not None)
    if not page.exists() or store is None or not store.exists():
        pytest.skip("needs the built verdicts page and the verdict records it read (make book, or make page 16)")
    table = re.search(r'<table class="[^"]*verdicts-table.*?</table>', page.read_text(encoding="utf-8"), re.S)
    assert table, "the verdicts page has no table of class verdicts-table"
    rows = {}
    for row in re.findall(r"<tr\b.*?</tr>", table.group(0), re.S):
        cid = re.match(r"\s*<td\b[^>]*>(?:<[^>]+>|\s)*(C\d\d)\b", row[row.index(">") + 1:])  # the first cell: C01
        if cid:  # the row's text without its evidence dropdown
            text = re.sub(r"<[^>]+>", " ", re.sub(r"<details.*?</details>", "", row, flags=re.S))
            rows[cid.group(1)] = _words(html.unescape(text))
    short = []
    for path in sorted(store.glob("C*.json")):
        if path.stat().st_mtime > page.stat().st_mtime:
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        finding = record["finding"] if lang == "en" else record.get("texts", {}).get(lang, {}).get("finding", "")
        tail = _words(finding)[-6:]
        shown = " ".join(rows.get(record["claim"], []))
        if tail and " ".join(tail) not in shown:
            short.append(f"{record['claim']} (ends '{' '.join(tail)}')")
    assert not short, f"{lang}: rows that do not carry their whole finding: {short[:6]}"


def trim_blank_bottom(png: Path) -> None:
    from PIL import Image, ImageChops

    img = Image.open(png).convert("RGB")
    box = ImageChops.difference(img, Image.new("RGB", img.size, img.getpixel((img.width - 1, img.height - 1)))).getbbox()
    if box:
        img.crop((0, 0, img.width, min(img.height, box[3] + 40))).save(png)


def test_launch_buttons_point_at_the_notebooks():
    """Each chapter page links Binder to its own notebook in the repository (_config.yml), and Colab to its reader
    notebook (embedbook.book.reader: CommonMark, the book's figures written in) where the page runs on Colab;
    the download button offers the reader notebook, which the build wrote beside the page."""
    from markdown_it import MarkdownIt

    from embedbook import book
    from embedbook.book import reader
    from tests.test_reader import LEFT_OVER

    chapters = [p for p in pages() if re.match(r"\d\d_", p.name)]
    if PAGE is not None and not chapters:
        pytest.skip("a one-page build of a page that is no chapter (make page explore)")
    assert chapters
    for page in chapters:
        html = page.read_text(encoding="utf-8")
        docname = f"chapters/{page.parent.name}/{page.stem}"  # a lesson or its audit page
        nb = f"{docname}.ipynb"
        lang = "zh" if "zh" in page.relative_to(HTML).parts[:1] else "en"
        assert f"urlpath=tree/{nb}" in html, page.name
        runs = reader.runs_on_colab(docname, (book.root() / nb).read_text(encoding="utf-8"))
        assert (reader.colab_url(docname, lang) in html) == runs, f"{page.name}: Colab button {runs=}"
        assert f"colab.research.google.com/github/embedbook/embedbook/blob/main/{nb}" not in html, page.name
        edition = HTML / "zh" if lang == "zh" else HTML
        written = reader.path_for(edition, docname)
        assert written.exists(), f"{page.name}: no reader notebook at {written}"
        assert (edition / "_sources" / nb).read_bytes() == written.read_bytes(), f"{page.name}: download"
        for cell in json.loads(written.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":  # as Colab, VS Code and JupyterLab render it: CommonMark
                left = LEFT_OVER.findall(MarkdownIt("commonmark").render(cell["source"]))
                assert not left, f"{written}: MyST left: {left[:3]}"


def test_cjk_font_covers_every_character():
    """Chinese text is drawn with the book's own font subset, which must hold every character used."""
    from fontTools.ttLib import TTFont

    font = HTML / "_static" / "embedbook-cjk.otf"
    assert font.exists(), "the CJK web font was not written (embedbook.book.sphinxext)"
    cmap = TTFont(str(font)).getBestCmap()
    used = {ch for p in pages() if "zh" not in p.relative_to(HTML).parts  # the Chinese edition has its own
            for ch in CJK.findall(p.read_text(encoding="utf-8"))}
    missing = sorted(ch for ch in used if ord(ch) not in cmap)
    assert used and not missing, f"characters without a glyph: {''.join(missing[:40])}"
    assert "embedbook-cjk" in (HTML / "_static" / "embedbook.css").read_text(encoding="utf-8")


@whole_book
def test_chapters_show_chinese_text_and_figures():
    chapters = [p for p in pages() if re.match(r"\d\d_", p.name)]
    assert chapters
    for page in chapters:
        html = page.read_text(encoding="utf-8")
        assert CJK.search(html), f"{page.name} has no Chinese text (the article quotes)"
    figures = list((HTML / "_images").glob("*.svg"))
    with_cjk = [f for f in figures if "NotoSansCJK" in f.read_text(encoding="utf-8", errors="ignore")]
    assert with_cjk, "no figure draws Chinese glyphs with the CJK font"
