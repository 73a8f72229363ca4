"""Every claim's decision rule is declared as data beside its check, and every outcome it declares is
reachable: the rule, fed the realistic figures it gives as the example of each outcome, reaches exactly
that outcome. A rule that declares an outcome it can never give fails here."""

import pytest

from embedbook.book import claims


@pytest.mark.parametrize("cid", list(claims.CLAIMS))
def test_claim_has_a_rule_and_a_check(cid):
    assert claims.rule_of(cid) is not None, f"{cid} has no declared rule in {claims.claims_module(cid)}"
    assert claims.check_of(cid) is not None, f"{cid} has no check in {claims.claims_module(cid)}"


@pytest.mark.parametrize("cid", list(claims.CLAIMS))
def test_every_declared_outcome_is_reachable(cid):
    rule = claims.rule_of(cid)
    if rule is None:
        pytest.fail(f"{cid} has no declared rule")
    assert len(rule.outcomes) >= 2, f"{cid}: one outcome means the verdict is typed, not decided"
    assert claims.PENDING not in rule.outcomes
    for outcome, figures in rule.examples.items():
        assert set(rule.inputs) <= set(figures), f"{cid}: the example for {outcome!r} lacks {set(rule.inputs) - set(figures)}"
        assert rule(figures) == outcome, f"{cid}: the example for {outcome!r} gives {rule(figures)!r}"


@pytest.mark.parametrize("cid", list(claims.CLAIMS))
def test_rule_text_is_printable(cid):
    rule = claims.rule_of(cid)
    if rule is None:
        pytest.fail(f"{cid} has no declared rule")
    md = rule.markdown()
    for outcome in rule.outcomes:
        assert f"**{outcome}**" in md
    assert rule.quantity and all(rule.outcomes.values())


def test_a_missing_figure_is_named():
    rule = claims.rule_of("C02")
    with pytest.raises(KeyError, match="max_diff"):
        rule({})


def test_a_nan_figure_cannot_decide():
    with pytest.raises(ValueError, match="NaN"):
        claims.rule_of("C02")({"max_diff": float("nan")})


def test_rule_refuses_one_outcome():
    with pytest.raises(ValueError, match="at least two outcomes"):
        claims.rule("C05", quantity="q", inputs={}, outcomes={claims.CONFIRMED: "always"},
                    examples={claims.CONFIRMED: {}})(lambda f, t: claims.CONFIRMED)


def test_rule_refuses_an_outcome_without_example():
    with pytest.raises(ValueError, match="one example"):
        claims.rule("C05", quantity="q", inputs={}, outcomes={claims.CONFIRMED: "a", claims.REFUTED: "b"},
                    examples={claims.CONFIRMED: {}})(lambda f, t: claims.CONFIRMED)


def test_judge_writes_the_evidence_for_the_outcome_the_rule_gave():
    v = claims.judge("C02", {"max_diff": 0.5}, lambda outcome: f"it was {outcome}")
    assert v.verdict == claims.REFUTED and v.evidence == "it was refuted"


def test_smoke_inconclusive_is_not_refuted():
    assert claims.INCONCLUSIVE in claims.VERDICTS and claims.INCONCLUSIVE != claims.REFUTED


@pytest.mark.parametrize("cid", list(claims.CLAIMS))
def test_every_rule_says_what_kind_of_evidence_decides(cid):
    rule = claims.rule_of(cid)
    assert rule.basis in claims.BASES, f"{cid}: basis {rule.basis!r}"
    assert claims.BASIS_WORDS[rule.basis] and "*Basis:*" in rule.markdown()


def test_rule_refuses_a_missing_or_unknown_basis():
    declared = dict(quantity="q", inputs={}, outcomes={claims.CONFIRMED: "a", claims.REFUTED: "b"},
                    examples={claims.CONFIRMED: {}, claims.REFUTED: {}})
    for basis in ("", "measurement"):
        with pytest.raises(ValueError, match="basis must be one of"):
            claims.rule("C05", basis=basis, **declared)(lambda f, t: claims.CONFIRMED)


def test_constructed_demonstrations_are_not_counted_as_measurements():
    # C38 and C39 decide on corpora built so that the effect can appear (issue 19)
    assert {claims.rule_of(c).basis for c in ("C38", "C39")} == {claims.CONSTRUCTED}


def test_box_and_record_carry_the_basis(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBEDBOOK_VERDICTS", str(tmp_path))
    v = claims.judge("C38", claims.rule_of("C38").examples[claims.CONFIRMED], lambda outcome: "evidence")
    md = claims.verdict_markdown(v)
    head = md.partition("How this was decided")[0]
    assert f"Evidence: {claims.BASIS_WORDS[claims.CONSTRUCTED]}." in head
    assert f"*Basis:* {claims.BASIS_WORDS[claims.CONSTRUCTED]}." in md
    import json
    record = json.loads(claims.record_verdict(v, smoke=True).read_text(encoding="utf-8"))
    assert record["basis"] == claims.CONSTRUCTED


# --- literature verdicts: decided from a list of sources, never from a typed count ---------------------------

_SRC = claims.Source("press2017tying", "tying lowered held-out perplexity", "Table 2", supports=("gain",))
_LIT = claims.Literature((_SRC,), claims.Search(("weight tying language model",), ("pages",), "2026-12-01"),
                         strongest_against="none found")


def _literature_rules():
    return [cid for cid in claims.CLAIMS if (r := claims.rule_of(cid)) is not None and r.counted]


def test_a_source_says_what_where_and_on_what():
    with pytest.raises(ValueError, match="where"):
        claims.Source("press2017tying", "tying helps", "", supports=("gain",))
    with pytest.raises(ValueError, match="at least one tag"):
        claims.Source("press2017tying", "tying helps", "Table 2")
    with pytest.raises(TypeError, match="tuples of tags"):
        claims.Source("press2017tying", "tying helps", "Table 2", supports="gain")
    with pytest.raises(ValueError, match="both support and contradict"):
        claims.Source("press2017tying", "tying helps", "Table 2", supports=("gain",), contradicts=("gain",))


def test_counts_come_from_the_sources():
    against = claims.Source("chung2021rethinking", "untied did better", "Table 1", contradicts=("gain",))
    lit = claims.Literature((_SRC, against), _LIT.search, "Chung et al.")
    assert lit.count("gain") == 1 and lit.count("gain", claims.CONTRADICTS) == 1 and lit.count("other") == 0
    assert lit.figures({"n_for": "gain", "n_against": ("gain", claims.CONTRADICTS)}) == {"n_for": 1, "n_against": 1}
    with pytest.raises(ValueError, match="stance"):
        lit.count("gain", "maybe")


def test_the_box_lists_findings_where_search_and_the_evidence_against():
    md = _LIT.markdown({"n_for": "gain"})
    for text in ("tying lowered held-out perplexity", "Table 2", "weight tying language model", "pages",
                 "none found", "`n_for` = 1"):
        assert text in md


def test_a_rule_refuses_a_typed_count():
    declared = dict(quantity="q", inputs={"n_for": "sources for"}, literature=_LIT, counted={"n_for": "gain"},
                    outcomes={claims.CONFIRMED: "a", claims.REFUTED: "b"})
    with pytest.raises(ValueError, match="source_set"):
        claims.rule("C05", examples={claims.CONFIRMED: {"n_for": 1}, claims.REFUTED: claims.source_set()},
                    **declared)(lambda f, t: claims.CONFIRMED)
    with pytest.raises(ValueError, match="types the counted"):
        claims.rule("C05", examples={claims.CONFIRMED: claims.source_set(_SRC, n_for=1),
                                     claims.REFUTED: claims.source_set()}, **declared)(lambda f, t: claims.CONFIRMED)
    with pytest.raises(ValueError, match="literature="):
        claims.rule("C05", **{**declared, "literature": None},
                    examples={claims.CONFIRMED: claims.source_set(_SRC), claims.REFUTED: claims.source_set()})(
            lambda f, t: claims.CONFIRMED)


@pytest.mark.parametrize("cid", _literature_rules())
def test_literature_examples_are_source_sets(cid):
    rule = claims.rule_of(cid)
    assert set(rule.example_sources) == set(rule.outcomes), f"{cid}: every outcome's example is a source set"
    for outcome, given in rule.example_sources.items():
        assert claims.tally(given.sources, rule.counted).items() <= rule.examples[outcome].items()
        assert rule(rule.examples[outcome]) == outcome


@pytest.mark.parametrize("cid", _literature_rules())
def test_judge_counts_the_sources_and_refuses_typed_counts(cid):
    rule = claims.rule_of(cid)
    with pytest.raises(ValueError, match="counted from the rule's sources"):
        claims.judge(cid, {name: 1 for name in rule.counted}, lambda v: v)


@pytest.mark.parametrize("cid", _literature_rules())
def test_every_cite_is_in_the_bibliography(cid):
    keys = claims.bibliography_keys()
    rule = claims.rule_of(cid)
    cites = set(rule.literature.cites()) | {s.cite for g in rule.example_sources.values() for s in g.sources}
    assert cites <= keys, f"{cid}: {sorted(cites - keys)} are not in book/references.bib"


def test_bibliography_keys_are_unique():
    import collections
    import re

    text = (claims.book.root() / "book" / "references.bib").read_text(encoding="utf-8")
    keys = re.findall(r"^@\w+\s*\{\s*([^,\s]+)\s*,", text, flags=re.M)
    twice = sorted(k for k, n in collections.Counter(keys).items() if n > 1)
    assert not twice, f"book/references.bib defines {twice} more than once"
    assert set(keys) == claims.bibliography_keys()


def _literature_basis():
    return [cid for cid in claims.CLAIMS if (r := claims.rule_of(cid)) is not None and r.basis == claims.LITERATURE]


@pytest.mark.parametrize("cid", _literature_basis())
def test_every_literature_rule_decides_from_a_source_list(cid):
    rule = claims.rule_of(cid)
    assert rule.literature is not None and rule.counted, f"{cid}: declare literature= and counted= on its rule"
    assert set(rule.counted) <= set(rule.inputs)


def test_a_rule_changed_after_measuring_says_so_in_the_box():
    from embedbook.chapters.ch05_learning import measure as ch05

    v = claims.run("C14", ch05.run_survey())
    box = claims.verdict_markdown(v)
    assert "Rule, revised after measuring.**" in box and "declared before measuring" not in box
    assert "*Why it last changed:* 'confirmed' if any surveyed large LM" in box  # the ledger's note on the change


def test_a_literature_record_keeps_its_sources(tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("EMBEDBOOK_VERDICTS", str(tmp_path))
    v = claims.judge("C09", {}, lambda outcome: "evidence")
    assert v.figures == claims.rule_of("C09").literature.figures(claims.rule_of("C09").counted)  # counted, not typed
    record = json.loads(claims.record_verdict(v, smoke=True).read_text(encoding="utf-8"))
    cites = [s["cite"] for s in record["sources"]]
    assert "liu2024mobilellm" in cites and all(s["where"] and s["finding"] for s in record["sources"])


# --- the rule ledger -------------------------------------------------------------------------------------

def test_every_rule_in_force_is_in_the_ledger():
    """A rule changed without a ledger entry fails here: `python tools/ledger.py add` records it, dated."""
    from pathlib import Path

    from embedbook.book import ledger

    root = Path(__file__).resolve().parents[1]
    today = ledger.read_tree(root)
    assert set(today) == set(claims.CLAIMS)
    missing = ledger.unledgered(today)
    assert not missing, (f"rules changed without a ledger entry: {missing}; run `python tools/ledger.py add` and "
                         "commit chapters/ledger.json with the change")


def test_a_changed_threshold_or_decision_is_unledgered():
    """The fingerprint sees a threshold's value, an imported constant's value and the deciding code; it does
    not see the basis label or the explanation of a change."""
    from pathlib import Path

    from embedbook.book import ledger

    root = Path(__file__).resolve().parents[1]
    path = root / "chapters" / "ch02_lookup" / "claims.py"
    text = path.read_text(encoding="utf-8")

    def read(p):
        f = root / p
        return f.read_text(encoding="utf-8") if f.exists() else None

    def fingerprint(source):
        return ledger.declarations(source, read)["C02"]["fingerprint"]

    today = fingerprint(text)
    assert today in {v["fingerprint"] for v in ledger.load()["C02"]}
    assert '"rounding": 1e-6' in text and 'f["max_diff"] == 0.0' in text
    assert fingerprint(text.replace('"rounding": 1e-6', '"rounding": 1e-5')) != today
    assert fingerprint(text.replace('f["max_diff"] == 0.0', 'f["max_diff"] <= 0.0')) != today
    assert fingerprint(text.replace("basis=claims.ARITHMETIC", "basis=claims.MEASURED")) == today


def test_an_earlier_rule_is_replayed_on_todays_figures():
    from embedbook.book import ledger

    entry = {"era": "rule", "declared": {"inputs": "{'x': 'a figure'}", "thresholds": "{'line': 0.5}"},
             "decide": "def decide(f, t):\n    return CONFIRMED if f['x'] > t['line'] else REFUTED"}
    symbols = {"CONFIRMED": claims.CONFIRMED, "REFUTED": claims.REFUTED}
    assert ledger.replay(entry, {"x": 0.7}, symbols) == claims.CONFIRMED
    assert ledger.replay(entry, {"x": 0.2}, symbols) == claims.REFUTED
    assert ledger.replay(entry, {"y": 0.7}, symbols) is None  # reads a figure today's check does not measure
    assert ledger.replay({**entry, "era": "check"}, {"x": 0.7}, symbols) is None
