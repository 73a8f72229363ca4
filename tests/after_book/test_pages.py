"""The built pages read as lessons (after `make book`; no browser needed): each chapter within its word
budget, claim boxes that show the verdict and finding with their protocol collapsed, honest rule headers,
and no Markdown left as literal text.

Words are counted as ``tools/visible_words.py`` counts them: what a reader sees without opening a toggle,
outside code, printed output and math; each CJK character counts as one word."""

import re
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from tests.after_book.built import HTML, PAGE, PAGES, ROOT, chapter_pages, is_audit, whole_book

sys.path.insert(0, str(ROOT / "tools"))
import visible_words  # noqa: E402

needs_book = pytest.mark.skipif(not HTML.exists(), reason="needs a built book (make book)")
BOOK = HTML / "book"


def soup(page: Path) -> BeautifulSoup:
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


@needs_book
@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_page_within_its_word_budget(page):
    limit = (visible_words.VERDICTS_LIMIT if page.stem == "16_verdicts" else
             visible_words.AUDIT_LIMIT if is_audit(page) else visible_words.CHAPTER_LIMIT)
    n = visible_words.count(page.read_text(encoding="utf-8"))
    assert n["words"] <= limit, (f"{page.name}: {n['words']:,} visible words ({n['latin']:,} latin + {n['cjk']:,} "
                                 f"CJK), over {limit:,}; cut prose or collapse optional detail")


@needs_book
@whole_book
def test_every_chapter_is_counted():
    from embedbook import book

    assert len([p for p in chapter_pages() if not is_audit(p)]) == len(book.chapters())
    assert len(chapter_pages()) == len(book.notebooks())


@needs_book
@pytest.mark.parametrize("page", [p for p in chapter_pages() if not is_audit(p)], ids=lambda p: p.stem)
def test_lesson_holds_no_claim_box_and_links_every_box(page):
    """A lesson teaches; its claims' boxes are on its audit page, and its closing table links each of them."""
    from embedbook import book
    from embedbook.book import claims

    html = soup(page)
    assert not html.select(".claim-box"), (f"{page.name}: a claim box in a lesson; claims.show() belongs in the "
                                           "chapter's audit page")
    chapter = book.chapter_of(page.stem)
    wanted = {claims.anchor(c) for c, x in claims.CLAIMS.items() if x.chapter == chapter}
    table = html.select(".articles-said")
    if wanted:
        assert table, f"{page.name}: no 'What the articles said' table ({{articles-said}} directive)"
        linked = {a.get("href", "").rsplit("#", 1)[-1] for a in table[0].select("a")}
        assert linked >= wanted, f"{page.name}: its table does not link the boxes {sorted(wanted - linked)}"


MARKERS = re.compile(r"(?<![\w*\\])\*{1,2}[A-Za-z\u4e00-\u9fff][^*\n]{0,60}?(?<=[\w.)\u4e00-\u9fff])\*{1,2}(?![\w*])"
                     r"|(?<!\S)\*\*(?=\w)")


def test_marker_check_catches_literal_markdown():
    assert MARKERS.search("the word *apple* here") and MARKERS.search("**bold** text")
    assert not MARKERS.search("2 * 3 * 4 and a*b")


@needs_book
@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_no_literal_markdown_markers(page):
    text = visible_words.visible_text(page.read_text(encoding="utf-8"))
    found = [m.group(0) for m in MARKERS.finditer(text)]
    assert not found, f"{page.name} shows Markdown as literal text: {found[:5]}"


def claim_boxes():
    return [(p, box) for p in chapter_pages() for box in soup(p).select(".claim-box")]


@needs_book
def test_every_claim_has_its_box():
    from embedbook.book import claims

    ids = {box.get("id") for _, box in claim_boxes()}
    from embedbook import book

    if PAGE and not PAGES[0].startswith("chapters/"):
        pytest.skip("a one-page build of a page that is no chapter (make page explore)")
    chapter = book.chapter_of(Path(PAGES[0]).name) if PAGE else None  # one chapter: its own claims
    wanted = {claims.anchor(c) for c, x in claims.CLAIMS.items() if chapter in (None, x.chapter)}
    assert ids >= wanted, sorted(wanted - ids)


REVISED = re.compile(r"rule[^.]{0,80}\brevised\b|revised after|changed after (?:the|its|a|an) (?:first |external )?"
                     r"(?:build|measurement|audit)", re.I)


@needs_book
@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_claim_boxes_show_verdict_and_finding_and_collapse_the_protocol(page):
    for box in soup(page).select(".claim-box"):
        cid = box.get("id")
        protocol = box.select("details.claim-protocol")
        assert len(protocol) == 1, f"{page.name} {cid}: its protocol is not in one collapsed 'How this was decided'"
        assert not protocol[0].has_attr("open"), f"{page.name} {cid}: the protocol is open by default"
        summary = protocol[0].find("summary")
        assert summary is not None and "How this was decided" in summary.get_text(" "), f"{page.name} {cid}: no summary"
        shown = box.get_text(" ").replace(protocol[0].get_text(" "), " ")
        for word in ("Rule,", "Thresholds:", "Strength of the evidence", "Outcomes:"):
            assert word not in shown, f"{page.name} {cid}: {word!r} is visible outside the collapsed protocol"
        assert len(visible_words.LATIN.findall(shown)) < 160, f"{page.name} {cid}: the visible box is too long"
        full = protocol[0].get_text(" ")
        if "Rule, declared before measuring" in full:
            hit = REVISED.search(full)
            assert not hit, (f"{page.name} {cid}: headed 'declared before measuring' but says {hit.group(0)!r}: "
                             "give its rule revised= (what it was)")


@needs_book
def test_no_page_calls_the_articles_by_number():
    for page in chapter_pages() + [p for p in [BOOK / "intro.html"] if p.exists()]:
        text = visible_words.visible_text(page.read_text(encoding="utf-8"))
        hits = re.findall(r"\barticles? 0{2,}[04]\b|\b(?:article|seed) 004\b", text)
        assert not hits, f"{page.name} names an article by number: {hits[:3]}; name it by its title"
