"""Count the words a reader sees on a built page: prose, headings, tables, claim boxes' visible parts.

Not counted: code (cell inputs, code blocks, printed output in ``<pre>``), math, and everything a reader
must click to see (closed ``<details>``: the claim boxes' "How this was decided", hidden cells; dropdown
admonitions such as the exercise answers). A word is a run of Latin letters or digits (``1,000`` and
``don't`` are one word each); each CJK character counts as one word, which overstates a Chinese quote's
length rather than hiding it.

    python tools/visible_words.py _build/html/book/*.html       # pages of a built book
    python tools/visible_words.py --chapter 04_tying [--full]     # run one chapter (smoke size unless
                                                                   # --full), build that page alone, count it

``tests/after_book/test_html.py`` holds every chapter of the full build to :data:`CHAPTER_LIMIT` words
and the verdicts page to :data:`VERDICTS_LIMIT`, with this counter.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bs4 import BeautifulSoup

CHAPTER_LIMIT = 1800  # a lesson (chapters/chNN_name/NN_name): d2l's pages run 1,000-1,950
AUDIT_LIMIT = 5000  # an audit page: its boxes show verdict and finding, their protocols are collapsed
VERDICTS_LIMIT = 3000
LATIN = re.compile(r"[A-Za-z0-9]+(?:['’.,\-][A-Za-z0-9]+)*")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Elements whose text a reader does not see without a click, or that are not prose.
HIDDEN = ["script", "style", "pre", "div.cell_input", "span.math", "div.math", "mjx-container", "a.headerlink",
          ".tag_hide-output .cell_output", ".tag_hide-cell", ".toggle-hidden", "button", ".sd-summary-state-marker"]


def visible_text(html: str) -> str:
    """The text of a page's article a reader sees without opening anything."""
    soup = BeautifulSoup(html, "html.parser")
    main = soup.select_one("article.bd-article") or soup.select_one("main") or soup
    for sel in HIDDEN:
        for el in main.select(sel):
            el.decompose()
    for det in main.select("details"):  # closed by default: only its summary shows
        if det.has_attr("open"):
            continue
        summary = det.find("summary")
        for child in list(det.children):
            if child is not summary:
                child.extract()
    for adm in main.select(".admonition.dropdown"):  # sphinx-togglebutton: only the title shows
        title = adm.select_one(".admonition-title")
        for child in list(adm.children):
            if child is not title:
                child.extract()
    return main.get_text(" ")


def count(html: str) -> dict[str, int]:
    """``{"words": …, "latin": …, "cjk": …}`` for a page's visible text (words = latin + cjk)."""
    text = visible_text(html)
    latin, cjk = len(LATIN.findall(text)), len(CJK.findall(text))
    return {"words": latin + cjk, "latin": latin, "cjk": cjk}


def _page_config(folder: Path) -> Path:
    # What the book's own _config.yml sets for rendering, without execution or the book's other pages.
    cfg = folder / "_config.yml"
    cfg.write_text(
        "title: page\nexecute:\n  execute_notebooks: 'off'\nparse:\n  myst_enable_extensions: [amsmath, "
        "colon_fence, deflist, dollarmath, html_image, linkify, substitution]\nsphinx:\n  extra_extensions: "
        "[sphinxcontrib.mermaid, sphinxcontrib.bibtex]\n  config:\n    nb_render_markdown_format: myst\n"
        f"    bibtex_bibfiles: ['{Path(__file__).resolve().parents[1] / 'book' / 'references.bib'}']\n"
        "    suppress_warnings: ['mystnb.unknown_mime_type', 'myst.role_unknown', 'myst.xref_missing']\n")
    return cfg


def chapter_page(chapter: str, full: bool = False) -> Path:
    """Run ``chapter`` (smoke size unless ``full``) and build its page alone; returns the HTML file."""
    root = Path(__file__).resolve().parents[1]
    bin_ = Path(sys.executable).parent
    work = Path(tempfile.mkdtemp(prefix=f"words-{chapter}-"))
    env = dict(os.environ, PYTHONHASHSEED="0", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", EMBEDBOOK_LANGS="en")
    cmd = [str(bin_ / "embedbook"), "run", chapter, "--out", str(work)] + ([] if full else ["--smoke"])
    subprocess.run(cmd, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    cfg = _page_config(work)
    subprocess.run([str(bin_ / "jupyter-book"), "build", f"{chapter}.ipynb", "--config", str(cfg)], cwd=work,
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return work / "_build" / "_page" / chapter / "html" / f"{chapter}.html"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pages", nargs="*", type=Path, help="built HTML pages")
    p.add_argument("--chapter", help="run and build one chapter, e.g. 04_tying")
    p.add_argument("--full", action="store_true", help="with --chapter: full size (default smoke)")
    args = p.parse_args(argv)
    pages = list(args.pages)
    if args.chapter:
        pages.append(chapter_page(args.chapter, args.full))
    if not pages:
        p.error("give built pages or --chapter")
    for page in pages:
        n = count(page.read_text(encoding="utf-8"))
        print(f"{n['words']:6,} words ({n['latin']:,} latin + {n['cjk']:,} CJK)  {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
