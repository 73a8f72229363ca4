"""The two editions of the built book (after `make book`; no browser needed): a Chinese page for every
page, marked lang="zh-CN"; Chinese chapters mostly Chinese, with no English sentence left in their prose;
the same claim-box outcomes in both; a language switch on every page that lands on the other edition's
page; search and the CJK font per edition. (The browser check, tests/after_book/test_html.py, loads the
pages of both.)"""

import json
import re
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from tests.after_book.built import HTML, PAGE, PAGES, ROOT, ZH, whole_book

sys.path.insert(0, str(ROOT / "tools"))
import visible_words  # noqa: E402

from embedbook.book import i18n  # noqa: E402

pytestmark = pytest.mark.skipif(not ZH.exists(), reason="needs a built book with its Chinese edition (make book)")
MIN_CJK_SHARE = 0.5  # CJK characters against Latin words, in a Chinese chapter's visible prose


def en_pages():
    if not HTML.exists():
        return []
    if PAGE is not None:
        return [Path(f"{page}.html") for page in PAGES]
    return sorted(p.relative_to(HTML) for p in HTML.rglob("*.html")
                  if not {"zh", "_static", "_sources"} & set(p.relative_to(HTML).parts) and not p.name.startswith("."))


def chapter_pages():
    return [p for p in en_pages() if re.match(r"\d\d_", p.name)]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_every_page_has_its_chinese_page():
    from embedbook import book

    pages = en_pages()
    if PAGE is None:
        assert len(chapter_pages()) == len(book.notebooks())
        assert Path("book/intro.html") in pages and Path("book/using.html") in pages
    missing = [str(p) for p in pages if not (ZH / p).exists()]
    assert not missing, f"no Chinese page for {missing[:5]}"


@pytest.mark.parametrize("page", en_pages(), ids=str)
def test_lang_and_switch(page):
    en, zh = read(HTML / page), read(ZH / page)
    if "bd-article" not in en:  # a redirect page (index.html): no page of its own
        return
    assert re.search(r'<html[^>]*\blang="en"', en), f"{page}: the English page is not lang=en"
    assert re.search(r'<html[^>]*\blang="zh-CN"', zh), f"{page}: the Chinese page is not lang=zh-CN"
    for edition, text, here in (("en", en, HTML / page), ("zh", zh, ZH / page)):
        m = re.search(r'<a href="([^"]+)"[^>]*class="[^"]*language-switch-button', text) or \
            re.search(r'class="[^"]*language-switch-button[^"]*"[^>]*href="([^"]+)"', text)
        assert m, f"{edition}/{page}: no language switch"
        target = (here.parent / m.group(1)).resolve()
        other = (ZH / page) if edition == "en" else (HTML / page)
        assert target == other.resolve(), f"{edition}/{page}: the switch goes to {target}, not {other}"


def prose(path: Path) -> str:
    """A page's visible prose: its visible text without tables and inline code (names and data, not
    sentences) and without the articles' quotes (their own words, English names included)."""
    soup = BeautifulSoup(read(path), "html.parser")
    for el in soup.select("table, code, .pst-scrollable-table-container, blockquote"):
        el.decompose()
    return visible_words.visible_text(str(soup))


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_chinese_chapter_is_chinese(page):
    n = visible_words.count(read(ZH / page))
    share = n["cjk"] / max(1, n["cjk"] + n["latin"])
    assert share >= MIN_CJK_SHARE, (f"zh/{page}: CJK characters are {share:.0%} of the visible prose "
                                    f"({n['cjk']:,} CJK, {n['latin']:,} Latin words), under {MIN_CJK_SHARE:.0%}")
    left = i18n.english_left(prose(ZH / page))
    assert not left, f"zh/{page}: English left in the Chinese prose: {left[:5]}"


LITERAL = re.compile(r"\*{1,2}[^*\s][^*\n]{0,60}?\*{1,2}(?=[\u4e00-\u9fff\w])|(?<![\w*])\*\*(?=[\u4e00-\u9fff])")


def test_literal_check_catches_cjk_emphasis():
    assert LITERAL.search("*依据：*真实数据") and LITERAL.search("**证据强度。**文本")
    assert not LITERAL.search("2 * 3 * 4 的积") and not LITERAL.search("依据：真实数据")


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_no_literal_emphasis_in_chinese(page):
    """CommonMark does not close *…* after CJK punctuation before a CJK character (*依据：*真): the markers
    would show as text. Read with the collapsed protocols open, outside code and math."""
    soup = BeautifulSoup(read(ZH / page), "html.parser")
    main = soup.select_one("article.bd-article")
    for el in main.select("pre, code, .math, mjx-container, div.cell_input, script, style"):
        el.decompose()
    found = LITERAL.findall(main.get_text(" "))
    assert not found, f"zh/{page}: Markdown emphasis shown as text: {found[:5]}"


def boxes(path: Path) -> dict[str, str]:
    soup = BeautifulSoup(read(path), "html.parser")
    return {box.get("id"): " ".join(sorted(c for c in box.get("class", []) if c.startswith("verdict-")))
            for box in soup.select(".claim-box")}


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_claim_boxes_agree(page):
    en, zh = boxes(HTML / page), boxes(ZH / page)
    assert en == zh, f"{page}: the editions' claim boxes differ: {set(en.items()) ^ set(zh.items())}"
    assert all(en.values()), f"{page}: a box without its verdict class"


@whole_book
def test_verdicts_page_counts_agree():
    from embedbook import book
    from embedbook.book import claims

    def counts(path):
        return [b.get_text() for b in BeautifulSoup(read(path), "html.parser").select(".sd-badge")]

    page = book.chapter_path("16").relative_to(book.root()).with_suffix(".html")
    en, zh = counts(HTML / page), counts(ZH / page)
    assert len(en) == len(zh) == len(claims.CLAIMS), (len(en), len(zh))


def terms(path: Path) -> dict:
    text = read(path)
    return json.loads(text[text.index("(") + 1:text.rindex(")")])["terms"]


@whole_book
def test_search_per_edition():
    """Each edition has its own index; the Chinese one is cut into Chinese words (jieba), so a search for
    嵌入 (embedding) or 余弦 (cosine) finds pages."""
    en, zh = terms(HTML / "searchindex.js"), terms(ZH / "searchindex.js")
    assert "embed" in en and "嵌入" not in en
    assert {"嵌入", "余弦", "词表"} <= set(zh), "the Chinese search index lacks Chinese words"


def test_chinese_font_covers_the_chinese_edition():
    from fontTools.ttLib import TTFont

    cmap = TTFont(str(ZH / "_static" / "embedbook-cjk.otf")).getBestCmap()
    used = {ch for p in ZH.rglob("*.html") for ch in re.findall(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]", read(p))}
    missing = sorted(ch for ch in used if ord(ch) not in cmap)
    assert used and not missing, f"characters of the Chinese edition without a glyph: {''.join(missing[:40])}"
