import numpy as np
import pytest
import torch

from embedbook import lm, sizing


def test_embedding_params_and_bytes():
    assert sizing.embedding_params(32000, 4096) == 131_072_000
    for dt in ["fp32", "fp16", "bf16", "int8", "int4"]:
        assert sizing.measured_bytes(100, 64, dt) == sizing.formula_bytes(100 * 64, dt)
        assert sizing.measured_bytes(100, 64, dt, device="cpu") == sizing.formula_bytes(100 * 64, dt)


def test_bytes_are_numel_times_element_size():
    for name, dtype in sizing.DTYPES.items():
        t = torch.empty(7, 10, dtype=dtype)
        assert sizing.formula_bytes(t.numel(), name) == t.numel() * t.element_size() == sizing.measured_bytes(7, 10, name)


def test_formula_bytes_is_an_int_and_int4_rounds_up():
    assert sizing.formula_bytes(131_072_000, "fp32") == 524_288_000
    assert isinstance(sizing.formula_bytes(7, "int4"), int) and sizing.formula_bytes(7, "int4") == 4
    assert sizing.formula_bytes(0, "fp16") == 0


def test_bad_sizes():
    with pytest.raises(ValueError):
        sizing.embedding_params(0, 10)
    with pytest.raises(ValueError, match="even d"):
        sizing.measured_bytes(10, 7, "int4")
    with pytest.raises(ValueError, match="unknown dtype"):
        sizing.formula_bytes(10, "fp8")


def test_issue_11_finding_10_validation():
    """Negative sizes, float sizes and absurd allocations are refused with a clear message."""
    with pytest.raises(ValueError, match="params must be >= 0"):
        sizing.formula_bytes(-100, "fp32")
    with pytest.raises(ValueError, match="layers must be positive"):
        sizing.approx_params(-2, 768)
    with pytest.raises(ValueError, match="vocab must be an int"):
        sizing.embedding_params(1.5, 4)
    with pytest.raises(ValueError, match="must be an int"):
        sizing.formula_bytes(True, "fp32")
    # 4 TB: measured on the meta device by default (nothing allocated), refused on a real device
    assert sizing.measured_bytes(10**7, 10**5, "fp32") == 4 * 10**12
    with pytest.raises(ValueError, match="meta"):
        sizing.measured_bytes(10**7, 10**5, "fp32", device="cpu")


def test_width_rule_inverts():
    n = sizing.approx_params(32, 4096)
    assert isinstance(n, int)
    assert sizing.width_for(n, 32) == pytest.approx(4096)
    with pytest.raises(ValueError):
        sizing.width_for(1e9, 0)
    with pytest.raises(ValueError):
        sizing.width_for(float("nan"), 4)


def test_approx_params_counts_a_real_layer():
    d = 256
    layer = torch.nn.TransformerEncoderLayer(d, 4, dim_feedforward=4 * d)
    biases_and_norms = 13 * d
    assert sum(p.numel() for p in layer.parameters()) == sizing.approx_params(1, d) + biases_and_norms


def test_head_dim():
    assert sizing.head_dim(4096, 32) == 128
    with pytest.raises(ValueError, match="not divisible"):
        sizing.head_dim(100, 3)
    with pytest.raises(ValueError, match="heads must be positive"):
        sizing.head_dim(100, 0)


def test_model_lookup():
    assert sizing.model("BERT-base").embedding_params == 30522 * 768
    with pytest.raises(KeyError, match="known"):
        sizing.model("GPT-5")


def test_model_table_is_consistent():
    names = [m.name for m in sizing.MODELS]
    assert len(names) == len(set(names))
    for m in sizing.MODELS:
        assert m.kind in ("encoder", "decoder") and 0 < m.embedding_share < 1, m.name
    gpt3_xl = sizing.model("GPT-3 XL")  # Brown et al. (2020), Table 2.1: d = 2048, 24 heads of 128
    assert gpt3_xl.decoupled and not gpt3_xl.d_divisible and gpt3_xl.attention_width == 3072
    assert not sizing.model("GPT-2 small").decoupled


def test_count_parameters_finds_every_embedding():
    """Issue 11, finding 7: TinyLM's table is called ``embed``, not ``word_embeddings``."""
    tied = lm.TinyLM(lm.LMConfig(1000, 64))
    c = sizing.count_parameters(tied)
    assert c.tables == {"pos": 64 * 64, "embed": 1000 * 64}
    assert c.embedding == 1000 * 64 + 64 * 64 and c.head == 0 and c.tied_heads == ("head",)
    assert c.total == sum(p.numel() for p in tied.parameters())
    assert c.embedding - c.tables["pos"] + c.head == tied.num_params("embedding")
    untied = lm.TinyLM(lm.LMConfig(1000, 64, tie=False))
    u = sizing.count_parameters(untied)
    assert u.head == 1000 * 64 and u.tied_heads == ()
    assert u.embedding - u.tables["pos"] + u.head == untied.num_params("embedding")
    assert u.total - c.total == 1000 * 64  # the tied head is counted once
    assert 0 < u.share < 1 and u.body == u.total - u.embedding - u.head


def test_count_parameters_on_meta_and_without_tables():
    m = torch.nn.Module()
    m.wte = torch.nn.Embedding.from_pretrained(torch.empty(50257, 12288, device="meta"), freeze=False)
    m.lm_head = torch.nn.Linear(12288, 50257, bias=False, device="meta")
    assert sizing.count_parameters(m).head == 50257 * 12288
    m.lm_head.weight = m.wte.weight
    c = sizing.count_parameters(m)
    assert c.total == c.embedding == 50257 * 12288 and c.head == 0
    plain = sizing.count_parameters(torch.nn.Linear(3, 4))
    assert plain.embedding == 0 and plain.total == 16 and plain.share == 0.0
    assert sizing.count_parameters(torch.nn.ReLU()).share == 0.0
    with pytest.raises(TypeError, match="nn.Module"):
        sizing.count_parameters("model")


def test_attention_flops():
    f = sizing.attention_flops(16, 8)
    assert f["total"] == 8 * 16 * 64 + 4 * 256 * 8
    with pytest.raises(ValueError):
        sizing.attention_flops(0, 8)


# --- chapter 03's experiments and checks (embedbook.experiments.ch03_sizing) --------------------------


def test_chapter03_headlines_cover_every_outcome():
    from embedbook import claims
    from embedbook.experiments import ch03_sizing as ch03

    for cid, table in ch03.HEADLINES.items():
        rule = claims.rule_of(cid)
        assert set(table) == set(rule.outcomes), cid
        for outcome, figures in rule.examples.items():
            assert ch03.headline(claims.Verdict(cid, outcome, "", dict(figures)))


def test_chapter03_checks_on_cheap_inputs():
    from embedbook import claims
    from embedbook.experiments import ch03_sizing as ch03

    runs = [(lambda: ch03.run_bytes(real_rows=10), ch03.check_c05), (ch03.run_article_table, ch03.check_c06),
            (ch03.run_tying, ch03.check_c07), (lambda: ch03.run_width_rule(256, 4), ch03.check_c19),
            (ch03.run_heads, ch03.check_c20), (ch03.run_vocabularies, ch03.check_c27),
            (lambda: ch03.run_shares(lm.TinyLM(lm.LMConfig(1000, 64))), ch03.check_c35),
            (ch03.run_multilingual, ch03.check_c36)]
    for run, check in runs:
        v = check(run())
        assert v.verdict in claims.rule_of(v.claim_id).outcomes and v.evidence
    with pytest.raises(ValueError, match="32,000"):
        ch03.check_c05(ch03.run_bytes(1000, 64, real_rows=10))
    with pytest.raises(ValueError, match="same d"):
        ch03.run_multilingual([("BERT-base", "Multilingual MiniLM-L12")])


def test_chapter03_findings_follow_the_outcome():
    """Issue 17: each check writes the box's visible finding, with the deciding figures, worded for the outcome
    the rule gave (no claim codes, no threshold names)."""
    import dataclasses

    from embedbook import claims
    from embedbook.experiments import ch03_sizing as ch03

    r = ch03.run_bytes(real_rows=10)
    v = ch03.check_c05(r)
    assert v.verdict == claims.CONFIRMED and f"{r.fp32_mb:,.1f} MB" in v.finding and "524 MB" in v.finding
    off = ch03.check_c05(dataclasses.replace(r, fp32_mb=500.0))  # 4.6% below the article's 524 MB
    assert off.verdict == claims.CORRECTED and "off by up to 4.6%" in off.finding and "are right" not in off.finding
    t = ch03.run_tying()
    assert "saves 617.6M" in ch03.check_c07(t).finding
    far = ch03.check_c07(dataclasses.replace(t, claimed_saving=900e6))
    assert far.verdict == claims.CORRECTED and "away from 'about 600" in far.finding
    a = ch03.run_article_table()
    assert "617.558M, which rounds to 617.6M, not 617.5M" in ch03.check_c06(a).finding
    fine = [dict(row, **{"article (M)": row["rounds to"], "rounding ok": 1}) for row in a.rows]
    ok = ch03.check_c06(dataclasses.replace(a, rows=fine, n_rounding_off=0))
    assert ok.verdict == claims.CONFIRMED and "rounded to 0.1M" in ok.finding and "But" not in ok.finding
    w = ch03.run_width_rule(256, 4)
    assert f"{abs(w.rows[0]['error']):.0%} short at 125M" in ch03.check_c19(w).finding
    for v in (ch03.check_c20(ch03.run_heads()), ch03.check_c27(ch03.run_vocabularies()),
              ch03.check_c36(ch03.run_multilingual())):
        assert v.finding and "`" not in v.finding and v.claim_id not in v.finding


def test_markdown_table_formats_and_aligns():
    from embedbook.experiments import ch03_sizing as ch03

    rows = [{"name": "a|b", "n": 1234}, {"name": "c", "n": 5}]
    text = ch03.markdown_table(rows, {"model": ("name", "{}"), "$n$": ("n", "{:,}")})
    assert text.splitlines() == ["| model | $n$ |", "|:---|---:|", "| a\\|b | 1,234 |", "| c | 5 |"]
    with pytest.raises(KeyError, match="no \\['size'\\]"):
        ch03.markdown_table(rows, {"size": ("size", "{}")})
    with pytest.raises(ValueError, match="at least one row"):
        ch03.markdown_table([], {"model": ("name", "{}")})


def test_decoupled_attention_matches_torch_when_heads_split_d():
    from embedbook.experiments import ch03_sizing as ch03

    d, h = 12, 3
    mha = torch.nn.MultiheadAttention(d, h, bias=False, batch_first=True)
    wq, wk, wv = mha.in_proj_weight.detach().chunk(3)
    w = {"q": wq.T, "k": wk.T, "v": wv.T, "o": mha.out_proj.weight.detach().T}
    x = torch.randn(5, d)
    expected = mha(x[None], x[None], x[None], need_weights=False)[0][0]
    assert torch.allclose(ch03.decoupled_attention(x, w, h), expected, atol=1e-5)


def test_wilson_interval_and_the_declared_groups():
    from embedbook import stats
    from embedbook.experiments import ch03_sizing as ch03

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


# --- issue 18: one dtype spelling everywhere; model names as people type them ---------------------------


SPELLINGS = {
    "fp32": ["fp32", "FP32", "float32", "float", "torch.float32", torch.float32, torch.float, np.float32,
             np.dtype("float32")],
    "fp16": ["fp16", "float16", "half", torch.float16, torch.half, np.float16, np.dtype("float16")],
    "bf16": ["bf16", "bfloat16", "torch.bfloat16", torch.bfloat16],
    "int8": ["int8", torch.int8, np.int8, np.dtype("int8")],
    "int4": ["int4", "INT4"],
}


def test_dtype_name_accepts_torch_numpy_and_the_usual_strings():
    for name, spellings in SPELLINGS.items():
        for spelling in spellings:
            assert sizing.dtype_name(spelling) == name, spelling
    for bad in ["fp8", "", "float64", torch.float64, np.float64, torch.bool, "int32"]:
        with pytest.raises(ValueError, match="unknown dtype"):
            sizing.dtype_name(bad)
    for bad in [None, 4, 2.5, object()]:
        with pytest.raises(TypeError, match="torch.dtype or a NumPy dtype"):
            sizing.dtype_name(bad)


def test_every_dtype_taking_function_of_the_library_goes_through_dtype_name():
    """formula_bytes, measured_bytes and lookup.one_hot_bytes (every public function with a dtype
    argument) give one answer for every spelling of a format."""
    from embedbook import lookup

    calls = {
        "sizing.formula_bytes": lambda dt: sizing.formula_bytes(20, dt),
        "sizing.measured_bytes": lambda dt: sizing.measured_bytes(5, 4, dt),
        "lookup.one_hot_bytes": lambda dt: lookup.one_hot_bytes(5, 4, dt),
    }
    for fn, call in calls.items():
        for name, spellings in SPELLINGS.items():
            want = call(name)
            assert want == sizing.formula_bytes(20, name), (fn, name)
            for spelling in spellings:
                assert call(spelling) == want, (fn, spelling)
        with pytest.raises(ValueError, match="unknown dtype"):
            call("fp8")


def test_model_matches_case_and_punctuation_and_suggests_close_names():
    assert sizing.model("bert-base") is sizing.model("BERT base") is sizing.model("BERT-base")
    assert sizing.model("gpt2 small").name == "GPT-2 small"
    with pytest.raises(KeyError, match="did you mean Qwen2-7B"):
        sizing.model("Qwen2-8B")
    with pytest.raises(KeyError, match="did you mean BERT-base"):
        sizing.model("bert-bse")
    with pytest.raises(KeyError, match="known: BERT-base") as err:
        sizing.model("no such model")
    assert "did you mean" not in str(err.value)
    with pytest.raises(TypeError, match="model name"):
        sizing.model(3)


def test_c36_siblings_decide_and_both_other_countings_are_reported():
    """Issue 19: the direct test is an English model against its own multilingual sibling; the same-width pairs
    are reported per pair and once per width, and do not decide."""
    from embedbook import claims
    from embedbook.experiments import ch03_sizing as ch03

    for mono, multi, source in ch03.SIBLING_PAIRS:
        a, b = sizing.model(mono), sizing.model(multi)
        assert a.d == b.d and not a.multilingual and b.multilingual and source and b.source
    assert not {m.name for m in sizing.SIBLINGS} & {m.name for m in sizing.MODELS}  # MODELS' counts unchanged
    r = ch03.run_multilingual()
    assert r.n_siblings == len(ch03.SIBLING_PAIRS) and len(r.rows) == r.n_pairs
    # every width once: 4,096 (10 of 10 thicker) weighs as much as 3,584 (0 of 2)
    rows = [{"d": 4096, "ratio": 2.0}] * 10 + [{"d": 3584, "ratio": 0.6}] * 2
    assert ch03.width_share(rows) == pytest.approx(0.5)
    v = ch03.check_c36(r)
    assert (v.figures["n_sib_thicker"], v.figures["n_sib_not"]) == (r.n_sib_thicker, r.n_siblings - r.n_sib_thicker)
    assert v.verdict == claims.rule_of("C36")(v.figures)  # counted from the sources, not typed
    assert f"{r.width_share:.0%}" in v.evidence and f"{r.n_thicker} of {r.n_pairs}" in v.evidence
    # the same-width figures do not move the verdict
    r2 = ch03.run_multilingual(pairs=[("Gemma-2-9B", "Qwen2-7B")])
    assert ch03.check_c36(r2).verdict == v.verdict


def test_width_for_takes_numpy_ints_like_the_other_sizing_functions():
    assert sizing.width_for(1e6, np.int64(2)) == sizing.width_for(1e6, 2)  # was "must be a positive int, got np.int64(2)"
    with pytest.raises(ValueError, match="layers must be an int"):
        sizing.width_for(1e6, 2.0)
