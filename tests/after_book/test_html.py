"""The built book in a real browser (headless Chromium): every page loads without console errors, its
internal links and images resolve, its mermaid diagrams are drawn as SVG, and Chinese text is present.
A screenshot of each page is kept under _build/screenshots. Run after `make book` (`make check-html`)."""

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

from tests.after_book.built import HTML, PAGE, PAGES, whole_book

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


# Run in the page once scripts (MathJax, mermaid) have drawn: every table, image and figure in the article
# that reaches past the text column without sitting in its own horizontal scroll container is listed in
# <body data-too-wide>. Anything inside a closed toggle has no layout and is skipped.
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
}, 15000);
</script>"""


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


def trim_blank_bottom(png: Path) -> None:
    from PIL import Image, ImageChops

    img = Image.open(png).convert("RGB")
    box = ImageChops.difference(img, Image.new("RGB", img.size, img.getpixel((img.width - 1, img.height - 1)))).getbbox()
    if box:
        img.crop((0, 0, img.width, min(img.height, box[3] + 40))).save(png)


def test_launch_buttons_point_at_the_notebooks():
    """Each chapter page links Colab and Binder to its own notebook in the repository (_config.yml)."""
    chapters = [p for p in pages() if re.match(r"\d\d_", p.name)]
    assert chapters
    for page in chapters:
        html = page.read_text(encoding="utf-8")
        nb = f"chapters/{page.parent.name}/{page.stem}.ipynb"  # a lesson or its audit page
        assert f"colab.research.google.com/github/embedbook/embedbook/blob/main/{nb}" in html, page.name
        assert f"urlpath=tree/{nb}" in html, page.name


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
