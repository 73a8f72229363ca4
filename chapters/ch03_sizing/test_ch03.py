"""Chapter 03's tests: its measurements on small inputs, its rules and its checks."""

import pytest
import torch

from embedbook import lm, sizing
from embedbook.book import claims


# --- chapter 03's experiments and checks (embedbook.chapters.ch03_sizing.measure) --------------------------


def test_chapter03_headlines_cover_every_outcome():
    from embedbook.chapters.ch03_sizing import measure as ch03

    for cid, table in ch03.HEADLINES.items():
        rule = claims.rule_of(cid)
        assert set(table) == set(rule.outcomes), cid
        for outcome, figures in rule.examples.items():
            assert ch03.headline(claims.Verdict(cid, outcome, "", dict(figures)))


def test_chapter03_checks_on_cheap_inputs():
    from embedbook.chapters.ch03_sizing import measure as ch03

    runs = [(lambda: ch03.run_bytes(real_rows=10), claims.check_of("C05")), (ch03.run_article_table, claims.check_of("C06")),
            (ch03.run_tying, claims.check_of("C07")), (lambda: ch03.run_width_rule(256, 4), claims.check_of("C19")),
            (ch03.run_heads, claims.check_of("C20")), (ch03.run_vocabularies, claims.check_of("C27")),
            (lambda: ch03.run_shares(lm.TinyLM(lm.LMConfig(1000, 64))), claims.check_of("C35")),
            (ch03.run_multilingual, claims.check_of("C36"))]
    for run, check in runs:
        v = check(run())
        assert v.verdict in claims.rule_of(v.claim_id).outcomes and v.evidence
    with pytest.raises(ValueError, match="32,000"):
        claims.run("C05", ch03.run_bytes(1000, 64, real_rows=10))
    with pytest.raises(ValueError, match="same d"):
        ch03.run_multilingual([("BERT-base", "Multilingual MiniLM-L12")])


def test_chapter03_findings_follow_the_outcome():
    """Issue 17: each check writes the box's visible finding, with the deciding figures, worded for the outcome
    the rule gave (no claim codes, no threshold names)."""
    import dataclasses

    from embedbook.chapters.ch03_sizing import measure as ch03

    r = ch03.run_bytes(real_rows=10)
    v = claims.run("C05", r)
    assert v.verdict == claims.CONFIRMED and f"{r.fp32_mb:,.1f} MB" in v.finding and "524 MB" in v.finding
    off = claims.run("C05", dataclasses.replace(r, fp32_mb=500.0))  # 4.6% below the article's 524 MB
    assert off.verdict == claims.CORRECTED and "off by up to 4.6%" in off.finding and "are right" not in off.finding
    t = ch03.run_tying()
    assert "saves 617.6M" in claims.run("C07", t).finding
    far = claims.run("C07", dataclasses.replace(t, claimed_saving=900e6))
    assert far.verdict == claims.CORRECTED and "away from 'about 600" in far.finding
    a = ch03.run_article_table()
    assert "617.558M, which rounds to 617.6M, not 617.5M" in claims.run("C06", a).finding
    fine = [dict(row, **{"article (M)": row["rounds to"], "rounding ok": 1}) for row in a.rows]
    ok = claims.run("C06", dataclasses.replace(a, rows=fine, n_rounding_off=0))
    assert ok.verdict == claims.CONFIRMED and "rounded to 0.1M" in ok.finding and "But" not in ok.finding
    w = ch03.run_width_rule(256, 4)
    assert f"{abs(w.rows[0]['error']):.0%} short at 125M" in claims.run("C19", w).finding
    for v in (claims.run("C20", ch03.run_heads()), claims.run("C27", ch03.run_vocabularies()),
              claims.run("C36", ch03.run_multilingual())):
        assert v.finding and "`" not in v.finding and v.claim_id not in v.finding


def test_markdown_table_formats_and_aligns():
    from embedbook.chapters.ch03_sizing import measure as ch03

    rows = [{"name": "a|b", "n": 1234}, {"name": "c", "n": 5}]
    text = ch03.markdown_table(rows, {"model": ("name", "{}"), "$n$": ("n", "{:,}")})
    assert text.splitlines() == ["| model | $n$ |", "|:---|---:|", "| a\\|b | 1,234 |", "| c | 5 |"]
    with pytest.raises(KeyError, match="no \\['size'\\]"):
        ch03.markdown_table(rows, {"size": ("size", "{}")})
    with pytest.raises(ValueError, match="at least one row"):
        ch03.markdown_table([], {"model": ("name", "{}")})


def test_decoupled_attention_matches_torch_when_heads_split_d():
    from embedbook.chapters.ch03_sizing import measure as ch03

    d, h = 12, 3
    mha = torch.nn.MultiheadAttention(d, h, bias=False, batch_first=True)
    wq, wk, wv = mha.in_proj_weight.detach().chunk(3)
    w = {"q": wq.T, "k": wk.T, "v": wv.T, "o": mha.out_proj.weight.detach().T}
    x = torch.randn(5, d)
    expected = mha(x[None], x[None], x[None], need_weights=False)[0][0]
    assert torch.allclose(ch03.decoupled_attention(x, w, h), expected, atol=1e-5)


def test_wilson_interval_and_the_declared_groups():
    from embedbook import stats
    from embedbook.chapters.ch03_sizing import measure as ch03

    lo, hi = stats.wilson_interval(3, 12)
    assert 0.08 < lo < 0.1 and 0.52 < hi < 0.54
    assert stats.wilson_interval(0, 4)[0] == 0.0 and stats.wilson_interval(4, 4)[1] == 1.0
    for bad in ((5, 4), (-1, 4), (1, 0), (1.0, 4)):
        with pytest.raises(ValueError):
            stats.wilson_interval(*bad)
    # C36's pairing rule: same width, same kind, one primarily English and one multilingual, every such pair
    pairs = ch03.same_width_pairs()
    assert ("Gemma-7B", "Llama-3.2-3B") in pairs and ("Gemma-2-9B", "Qwen2-7B") in pairs
    for mono, multi in pairs:
        a, b = sizing.model(mono), sizing.model(multi)
        assert a.d == b.d and a.kind == b.kind and not a.multilingual and b.multilingual
    assert ch03.run_vocabularies().n_recent >= 12  # C27's current group
    assert all(m.source for m in sizing.MODELS)


def test_c36_siblings_decide_and_both_other_countings_are_reported():
    """Issue 19: the direct test is an English model against its own multilingual sibling; the same-width pairs
    are reported per pair and once per width, and do not decide."""
    from embedbook.chapters.ch03_sizing import measure as ch03

    for mono, multi, source in ch03.SIBLING_PAIRS:
        a, b = sizing.model(mono), sizing.model(multi)
        assert a.d == b.d and not a.multilingual and b.multilingual and source and b.source
    assert not {m.name for m in sizing.SIBLINGS} & {m.name for m in sizing.MODELS}  # MODELS' counts unchanged
    r = ch03.run_multilingual()
    assert r.n_siblings == len(ch03.SIBLING_PAIRS) and len(r.rows) == r.n_pairs
    # every width once: 4,096 (10 of 10 thicker) weighs as much as 3,584 (0 of 2)
    rows = [{"d": 4096, "ratio": 2.0}] * 10 + [{"d": 3584, "ratio": 0.6}] * 2
    assert ch03.width_share(rows) == pytest.approx(0.5)
    v = claims.run("C36", r)
    assert (v.figures["n_sib_thicker"], v.figures["n_sib_not"]) == (r.n_sib_thicker, r.n_siblings - r.n_sib_thicker)
    assert v.verdict == claims.rule_of("C36")(v.figures)  # counted from the sources, not typed
    assert f"{r.width_share:.0%}" in v.evidence and f"{r.n_thicker} of {r.n_pairs}" in v.evidence
    # the same-width figures do not move the verdict
    r2 = ch03.run_multilingual(pairs=[("Gemma-2-9B", "Qwen2-7B")])
    assert claims.run("C36", r2).verdict == v.verdict


# --- the lesson's exercise answers: each runs the exercise's modified code and checks the figure the answer gives --


def test_exercise1_float64_doubles_fp32():
    import torch

    t = torch.empty(32_000, 4_096, dtype=torch.float64, device="meta")
    size = t.numel() * t.element_size()
    assert t.element_size() == 8
    assert (f"{size / 1e6:.1f}", f"{size / 2**20:.1f}") == ("1048.6", "1000.0")


def test_exercise2_tying_llama3_saves_v_times_d():
    from embedbook import sizing
    from embedbook.chapters.ch03_sizing import measure as ch03

    saving = ch03.run_tying(128256, 4096).saving
    assert saving == 525_336_576 == 128256 * 4096
    assert round(saving * 4 / 1e9, 1) == 2.1  # GB in fp32
    assert not sizing.model("Llama-3.1-8B").tied  # Llama 3 does not tie


def test_exercise3_four_heads_of_25_split_100():
    import torch

    torch.nn.MultiheadAttention(100, 4)  # accepted: 4 × 25 = 100
    with pytest.raises(AssertionError):
        torch.nn.MultiheadAttention(100, 3)


def test_exercise4_the_short_articles_table_next_to_48_and_12_layers():
    from embedbook import sizing

    table = 100_000 * 1_000
    assert sizing.approx_params(48, 1000) == 576_000_000
    assert round(100 * table / (table + sizing.approx_params(48, 1000)), 1) == 14.8
    assert round(100 * table / (table + sizing.approx_params(12, 1000))) == 41
