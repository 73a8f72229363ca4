"""Chapter 13's tests: its measurements on small inputs, its rules and its checks."""

import pytest
import torch

from embedbook.book import claims


# --- chapter 13's experiments on tiny inputs ----------------------------------------------------------------


def test_run_memory_counts_scales():
    from embedbook.chapters.ch13_quantize import measure as ch13

    r = ch13.run_memory({"tiny": torch.randn(10, 50)}, vocab=64, dim=4096, widths=(50, 4096))
    assert r.int8_bytes == 64 * 4096 + 64 * 4 and r.int4_bytes == 64 * 2048 + 64 * 4
    assert r.width_int8 == pytest.approx([200 / 54, 4 * 4096 / 4100])
    assert r.table_int4 == pytest.approx([200 / 29])
    assert claims.run("C28", r).verdict == "confirmed"


def test_run_neighbours_on_a_tiny_table():
    from embedbook.chapters.ch13_quantize import measure as ch13

    t = torch.randn(300, 16, generator=torch.Generator().manual_seed(0))
    r = ch13.run_neighbours({"a": t, "b": t * 2}, {"a": range(0, 100, 10), "b": range(0, 100, 10)}, k=5)
    assert r.overlap_8 == pytest.approx(r.overlap_8[:1] * 2)  # a table scaled by 2 quantises the same way
    assert all(0 <= x <= 1 for x in r.overlap_4 + r.changed_4 + r.changed_8)
    assert claims.run("C49", r).verdict in ("confirmed", "confirmed with a correction", "refuted")
    with pytest.raises(ValueError, match="query"):
        ch13.run_neighbours({"a": t}, {"b": [1]})


def test_c49_order_change_alone_confirms():
    """The article claims only that the order may change: a reordered list with every neighbour kept confirms."""
    from embedbook.book import claims
    from embedbook.chapters.ch13_quantize import measure as ch13_quantize  # noqa: F401  (registers the rule)

    rule = claims.rule_of("C49")
    assert rule({"changed_8": 0.2, "changed_4": 0.9, "lost_8": 0.0, "lost_4": 0.0}) == "confirmed"
    assert rule({"changed_8": 0.0, "changed_4": 0.01}) == "refuted"


def test_run_robustness_counts_tokens_unpooled():
    from embedbook import data
    from embedbook.chapters.ch13_quantize import measure as ch13

    torch.set_num_threads(1)
    tok, model = data.load_encoder()
    sentences = ch13.lee_sentences(4, words=8)
    r = ch13.run_robustness(tok, model, sentences)
    n = int(tok(sentences, padding=True, return_tensors="pt")["attention_mask"].sum())
    assert r.n_tokens == n
    for b in (8, 4):
        for key in ("tok_wins_all", "tok_wins_layer", "wins_all", "wins_layer"):
            assert 0 <= getattr(r, f"{key}_{b}") <= 1
        assert 0 < getattr(r, f"tok_emb_median_{b}") < 1
    assert r.tok_emb_median_4 > r.tok_emb_median_8  # INT4's step is 18 times coarser
    v = claims.run("C29", r)
    assert "tok_wins_layer_8" in v.figures and "Rule revised" in v.strength and "e-0" not in v.evidence
    assert "Q-BERT" in v.evidence and "more sensitive" in v.evidence


def test_c29_readings_that_disagree_are_inconclusive():
    from embedbook.book import claims
    from embedbook.chapters.ch13_quantize import claims as c13

    rule = claims.rule_of("C29")
    # the build's figures: against all attention the table wins at both widths; against one block a tie, a loss
    built = {"tok_wins_all_8": 0.999, "tok_wins_all_4": 0.993, "tok_wins_layer_8": 0.5, "tok_wins_layer_4": 0.06}
    assert rule(built) == claims.INCONCLUSIVE
    assert c13._c29_reading(0.999, 0.993, 0.9) == claims.CONFIRMED
    assert c13._c29_reading(0.5, 0.06, 0.9) == claims.REFUTED
    both_int8 = {"tok_wins_all_8": 0.99, "tok_wins_all_4": 0.5, "tok_wins_layer_8": 0.95, "tok_wins_layer_4": 0.2}
    assert rule(both_int8) == claims.CORRECTED


# --- issue 17: the claim boxes' visible findings ---------------------------------------------------------------


def _filled(cls, **values):
    """A result dataclass with every field zero (or empty) except ``values``."""
    import dataclasses

    empty = {f.name: [] if "list" in str(f.type) else 0 for f in dataclasses.fields(cls)}
    return cls(**(empty | values))


def test_c28_finding_reads_for_every_outcome():
    import dataclasses

    from embedbook.chapters.ch13_quantize import measure as ch13

    r = ch13.run_memory({"tiny": torch.randn(10, 50)}, vocab=64, dim=4096, widths=(50,))
    for ratios, verdict, words in [((3.996, 7.984), "confirmed", "within 5% of 4× and 8×"),
                                   ((3.7, 6.9), "confirmed with a correction", "more than 5% short"),
                                   ((3.996, 3.996), "refuted", "below the floor of 3× or 6×")]:
        v = claims.run("C28", dataclasses.replace(r, int8_ratio=ratios[0], int4_ratio=ratios[1]))
        assert v.verdict == verdict and words in v.finding
        assert f"{ratios[0]:.3f}×" in v.finding and "tiny's width of 50" in v.finding


def test_c49_and_c29_findings_follow_the_figures():
    from embedbook.chapters.ch13_quantize import measure as ch13

    two = dict(names=["a", "b"], gap=[0.01, 0.01], dcos_8=[0.001] * 2, dcos_4=[0.02] * 2, blurred_8=[0.1] * 2,
               blurred_4=[0.9] * 2, rel_error_8=[0.01] * 2, rel_error_4=[0.1] * 2, k=10, n_queries=100)
    v = claims.run("C49", _filled(ch13.Neighbours, **two, overlap_8=[1.0, 1.0], overlap_4=[0.9, 0.8],
                               changed_8=[0.2, 0.3], changed_4=[0.9, 1.0]))
    assert v.verdict == "confirmed" and "even on a's table a word's ordered top-10 list changed for 20% of the query words after INT8 and 90% after INT4" in v.finding
    assert "at least 10.0% of the neighbours are replaced outright at INT4" in v.finding
    v = claims.run("C49", _filled(ch13.Neighbours, **two, overlap_8=[1.0] * 2, overlap_4=[1.0] * 2,
                               changed_8=[0.0] * 2, changed_4=[0.01, 0.02]))
    assert v.verdict == "refuted" and v.finding.startswith("The neighbour lists barely change")
    shares = {"tok_wins_all_8": 0.999, "tok_wins_all_4": 0.993, "tok_wins_layer_8": 0.5, "tok_wins_layer_4": 0.06}
    v = claims.run("C29", _filled(ch13.Robustness, n_tokens=1232, n_sentences=40, n_blocks=6, **shares))
    assert v.verdict == "inconclusive here" and "The two comparisons disagree" in v.finding
    assert "100% (INT8) and 99% (INT4) of 1,232 tokens" in v.finding and "for 50% and 6%" in v.finding
    v = claims.run("C29", _filled(ch13.Robustness, n_tokens=1232, n_sentences=40, n_blocks=6,
                               **{k: 0.99 for k in shares}))
    assert v.verdict == "confirmed" and "more robust at both widths" in v.finding


# --- the lesson's exercises: each answer is what its code gives ------------------------------------------------


def _lesson_table(cols: int) -> torch.Tensor:
    """The lesson's first table: 4 rows from the generator seeded with 0."""
    return torch.randn(4, cols, generator=torch.Generator().manual_seed(0))


def test_exercise_1_bytes_at_width_4096():
    E = _lesson_table(4096)
    scale = E.abs().amax(dim=1, keepdim=True) / 127
    codes = torch.round(E / scale).clamp(-127, 127).to(torch.int8)
    ratio = E.numel() * E.element_size() / (codes.numel() * codes.element_size() + scale.numel() * scale.element_size())
    assert round(ratio, 3) == 3.996


def test_exercise_2_one_scale_for_an_outlier():
    E = _lesson_table(6)
    E[0, 0] = 100.0
    errors, codes = {}, {}
    for name, scale in (("row", E.abs().amax(dim=1, keepdim=True) / 127), ("one", E.abs().amax() / 127)):
        codes[name] = torch.round(E / scale).clamp(-127, 127).to(torch.int8)
        E_hat = codes[name].float() * scale
        errors[name] = float((E_hat - E)[1:].norm() / E[1:].norm())
    assert round(errors["row"], 3) == 0.003  # "about 0.3 %"
    assert 0.19 < errors["one"] < 0.21  # "about 20 %"
    assert E[1:].abs().max() < 2.4  # "all within ±2.4"
    assert (int(codes["one"][1:].min()), int(codes["one"][1:].max())) == (-3, 3)  # "the codes −3 … 3"
    assert round(float(E.abs().amax() / 127), 1) == 0.8  # the step, 100/127


def test_exercise_3_paris_neighbours():
    from embedbook import data
    from embedbook import quantize as Q

    glove = data.glove(limit=100_000)  # the lesson's GLOVE_LIMIT
    W = torch.from_numpy(glove.vectors.copy())

    def nearest(table, word, k=8):
        unit = table / table.norm(dim=1, keepdim=True)
        sims = unit @ unit[glove.key_to_index[word]]
        return [glove.index_to_key[i] for i in sims.topk(k + 1).indices[1:]]

    fp32, int8, int4 = (nearest(t, "paris") for t in (W, Q.roundtrip(W, 8), Q.roundtrip(W, 4)))
    assert int8 == fp32  # INT8 leaves the list as it is
    assert int4 != fp32 and set(int4) == set(fp32)  # INT4 reorders the same eight words
    assert int4[1] == "french" and fp32.index("rome") == int4.index("berlin") and fp32.index("berlin") == int4.index("rome")


def test_exercise_4_an_empty_batch_is_refused():
    from embedbook import quantize as Q

    with pytest.raises(ValueError, match="an empty batch has nothing to look up"):
        Q.QuantizedEmbedding.from_float(torch.randn(10, 4))(torch.tensor([], dtype=torch.long))
