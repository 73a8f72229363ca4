"""Which built pages the checks read: the whole book after ``make book`` (``_build/html``, the Chinese edition in
``_build/html/zh``), or one chapter's page after ``make page NN``, which sets ``EMBEDBOOK_HTML`` (its build) and
``EMBEDBOOK_PAGE`` (its pages, comma-separated: ``chapters/ch04_tying/04_tying,chapters/ch04_tying/04_audit``);
checks of the whole book then skip."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = Path(os.environ.get("EMBEDBOOK_HTML") or ROOT / "_build" / "html")
ZH = HTML / "zh"
PAGE = os.environ.get("EMBEDBOOK_PAGE") or None
PAGES = PAGE.split(",") if PAGE else []
whole_book = pytest.mark.skipif(PAGE is not None, reason="a check of the whole book (make book), not of one page")


def chapter_pages(base: Path = HTML) -> list[Path]:
    """The chapters' built pages under ``base`` (one edition), lessons and audit pages: every chapter's, or the
    one chapter's being checked."""
    if not base.exists():
        return []
    if PAGE is not None:
        return [p for p in (base / f"{page}.html" for page in PAGES if page.startswith("chapters/")) if p.exists()]
    return sorted(base.glob("chapters/ch[0-9][0-9]_*/[0-9][0-9]_*.html"))


def is_audit(page: Path) -> bool:
    """Whether a built page is a chapter's audit page (``04_audit.html``)."""
    return page.stem.endswith("_audit")
