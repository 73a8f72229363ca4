from pathlib import Path

import dataclasses

import pytest

from embedbook import book
from embedbook.book import claims

SEEDS = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"


def test_register_numbers_its_claims_without_gaps():
    """The register is read from the chapters: its ids run C01, C02, … without a gap, each declared by the claims
    module of the chapter named in it (how many there are is ``len(claims.CLAIMS)``, never typed)."""
    assert list(claims.CLAIMS) == [f"C{i:02d}" for i in range(1, len(claims.CLAIMS) + 1)]
    assert len(claims.CLAIMS) > 1
    for c in claims.CLAIMS.values():
        assert (book.chapter_dir(c.chapter) / "claims.py").exists(), c.id


def test_a_claim_is_declared_in_a_chapter_module():
    with pytest.raises(ValueError, match="chapter's module"):
        claims.declare("embedbook.lookup", claims.claim("C01"))
    with pytest.raises(ValueError, match="declared twice"):
        claims.declare("embedbook.chapters.ch99_other.claims", claims.claim("C01"))


@pytest.mark.skipif(not SEEDS.exists(), reason="the source articles (../shared/seeds) are not beside this checkout")
@pytest.mark.parametrize("cid", list(claims.CLAIMS))
def test_quote_is_verbatim_from_its_article(cid):
    c = claims.claim(cid)
    text = next(SEEDS.glob(f"{c.article}_*.txt")).read_text(encoding="utf-8")
    assert c.quote in text, f"{cid}'s quote is not a verbatim passage of article {c.article}"
    assert c.section in text


@pytest.mark.parametrize("cid", list(claims.CLAIMS))
def test_every_quote_has_an_english_rendering(cid):
    c = claims.claim(cid)
    assert c.english and not any("\u4e00" <= ch <= "\u9fff" for ch in c.english)


def test_unknown_claim_id():
    with pytest.raises(KeyError, match=f"C01 to C{len(claims.CLAIMS):02d}"):
        claims.claim("C99")


def test_verdict_rejects_unknown_verdict():
    with pytest.raises(ValueError, match="unknown verdict"):
        claims.Verdict("C01", "probably", "")


def test_check_must_return_a_verdict_for_its_claim(monkeypatch):
    claims.check_of("C01")  # import its chapter's claims module first
    monkeypatch.setitem(claims._CHECKS, "C01", lambda result: claims.Verdict("C02", claims.CONFIRMED, ""))
    with pytest.raises(TypeError, match="Verdict for C01"):
        claims.run("C01", None)


def test_box_shows_words_verdict_and_finding_and_collapses_the_protocol(monkeypatch):
    monkeypatch.setenv("EMBEDBOOK_LANGS", "en")  # made-up English texts, which have no Chinese
    v = claims.judge("C02", {"max_diff": 0.0}, lambda outcome: "the evidence", strength="exact",
                     finding=lambda outcome: "What was found.")
    md = claims.verdict_markdown(v)
    c = claims.claim("C02")
    head, _, protocol = md.partition("{dropdown} How this was decided")
    assert md.startswith("``````{admonition} Confirmed · C02")
    assert c.quote in head and c.english in head and "What was found." in head and claims.ARTICLE_NAMES[c.article] in head
    assert "the evidence" not in head and "after measuring" not in head
    assert "the evidence" in protocol and "revised after measuring" in protocol and "Strength of the evidence" in protocol


def test_the_rule_header_comes_from_the_ledger(monkeypatch):
    from embedbook.book import ledger

    v = claims.judge("C02", {"max_diff": 0.0}, lambda outcome: "evidence")
    md = claims.verdict_markdown(v)  # the ledger holds the first build's check and today's rule
    assert "revised after measuring" in md and "declared before measuring" not in md
    assert "*Version 1* (2026-11-29" in md and "max_diff_matmul" in md  # the first build's code, shown
    only_today = {**ledger.load(), "C02": ledger.load()["C02"][-1:]}
    monkeypatch.setattr(ledger, "_LOADED", only_today)
    md = claims.verdict_markdown(v)
    assert "declared before measuring" in md and "revised after measuring" not in md and "*Version 1*" not in md


def test_a_finding_is_at_most_two_short_sentences(monkeypatch):
    monkeypatch.setenv("EMBEDBOOK_LANGS", "en")
    with pytest.raises(ValueError, match="finding has"):
        claims.judge("C02", {"max_diff": 0.0}, lambda outcome: "e", finding=lambda outcome: "word " * 60)


def test_every_claim_points_at_a_chapter():
    present = set(book.chapters())
    for c in claims.CLAIMS.values():
        assert c.chapter in present, f"{c.id} points at {c.chapter}, which is not in _toc.yml"


def test_every_claim_names_a_library_module():
    import embedbook

    for c in claims.CLAIMS.values():
        assert c.module in embedbook.LIBRARY, f"{c.id} names {c.module!r}, which is not a library module"


def test_every_check_writes_its_finding():
    """The box's visible finding is written per check (``judge(..., finding=)``), not the stand-in."""
    import ast

    missing = []
    for path in sorted((book.root() / "chapters").glob("ch*/claims.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "judge"
                    and not any(k.arg == "finding" for k in node.keywords)):
                missing.append(f"{path.name}:{node.lineno}")
    assert not missing, f"claims.judge without finding= at {missing}"


def test_a_held_out_set_that_disagrees_makes_the_verdict_inconclusive(monkeypatch):
    monkeypatch.setenv("EMBEDBOOK_LANGS", "en")
    r = claims.rule_of("C34")
    assert r.replication  # declared with the rule
    first = claims.judge("C34", {"adjacent_ratio": 1.0, "spearman": 0.2}, lambda o: "ev.", finding=lambda o: "found.")
    same = claims.judge("C34", {"adjacent_ratio": 1.0, "spearman": 0.15}, lambda o: "ev.", finding=lambda o: "found.")
    other = claims.judge("C34", {"adjacent_ratio": 1.0, "spearman": 0.05}, lambda o: "ev.", finding=lambda o: "found.")
    kept = claims.replicated(first, same, r)
    assert kept.verdict == claims.CORRECTED and kept.replication["verdict"] == claims.CORRECTED
    assert "gives the same verdict" in kept.evidence and kept.finding == "found."
    lost = claims.replicated(first, other, r)
    assert lost.verdict == claims.INCONCLUSIVE and lost.replication["figures"]["spearman"] == 0.05
    assert "gives confirmed, not confirmed with a correction" in lost.evidence and "nothing is decided" in lost.finding
    assert "**Held-out replication**" in claims.protocol_markdown(lost, "en")
    record = {"figures": lost.figures, "verdict": lost.verdict, "replication": lost.replication}
    assert claims._follows_from_figures("C34", record)  # the record's verdict follows from both sets of figures
    assert not claims._follows_from_figures("C34", {**record, "verdict": claims.CORRECTED})
    assert not claims._follows_from_figures("C34", {**record, "replication": None})


def test_a_declared_replication_needs_its_held_out_measurement():
    claims.check_of("C34")
    with pytest.raises(ValueError, match="held_out"):
        claims.run("C34", object())  # refused before the check's figures are trusted alone
    with pytest.raises(ValueError, match="declares no held-out replication"):
        claims.run("C02", {"max_diff": 0.0}, held_out={"max_diff": 0.0})
