from pathlib import Path

import pytest

from embedbook import book, claims

SEEDS = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"


def test_register_has_all_49_claims():
    assert list(claims.CLAIMS) == [f"C{i:02d}" for i in range(1, 50)]


@pytest.mark.skipif(not SEEDS.exists(), reason="the source articles (../shared/seeds) are not beside this checkout")
@pytest.mark.parametrize("cid", list(claims.CLAIMS))
def test_quote_is_verbatim_from_its_article(cid):
    c = claims.claim(cid)
    text = next(SEEDS.glob(f"{c.article}_*.txt")).read_text(encoding="utf-8")
    assert c.quote in text, f"{cid}'s quote is not a verbatim passage of article {c.article}"
    assert c.section in text


def test_unknown_claim_id():
    with pytest.raises(KeyError, match="C01 to C49"):
        claims.claim("C99")


def test_verdict_rejects_unknown_verdict():
    with pytest.raises(ValueError, match="unknown verdict"):
        claims.Verdict("C01", "probably", "")


def test_claim_without_check_is_pending(monkeypatch):
    monkeypatch.setattr(claims, "_load_check", lambda cid: None)
    v = claims.run("C01")
    assert v.verdict == claims.PENDING


def test_registered_checks_return_their_own_claim():
    v = claims.run("C02", smoke=True)
    assert v.claim_id == "C02" and v.verdict in claims.VERDICTS


def test_check_must_return_a_verdict_for_its_claim(monkeypatch):
    monkeypatch.setitem(claims._CHECKS, "C01", lambda smoke=False: claims.Verdict("C02", claims.CONFIRMED, ""))
    with pytest.raises(TypeError, match="Verdict for C01"):
        claims.run("C01")


def test_box_contains_quote_and_verdict():
    md = claims.verdict_markdown(claims.Verdict("C05", claims.CONFIRMED, "evidence"))
    assert claims.claim("C05").quote in md and "confirmed" in md and md.startswith("```{admonition}")


def test_every_claim_points_at_a_chapter_name():
    for c in claims.CLAIMS.values():
        assert len(c.chapter) > 3 and c.chapter[:2].isdigit()


def test_chapters_with_checks_exist():
    present = set(book.chapters())
    for c in claims.CLAIMS.values():
        if c.chapter in present:
            assert claims.has_check(c.id), f"{c.id} belongs to {c.chapter}, which exists, but has no check"
