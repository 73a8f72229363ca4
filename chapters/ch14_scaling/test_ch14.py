"""Chapter 14's tests: its measurements on small inputs, its rules and its checks."""

import math

import pytest

from embedbook.book import claims
from embedbook.chapters.ch14_scaling import claims as c14
from embedbook.chapters.ch14_scaling import measure as ch14
from tests.test_ngram import _scaling


def test_c26_without_loss_is_counted_from_the_cited_findings(swap_sources):
    r = _scaling([4.74, 4.75, 4.73], [4.75, 4.76, 4.74], [4.95, 4.96, 4.94])
    assert claims.run("C26", r).figures["lit_no_loss"] == 1  # Baevski & Auli
    swap_sources("C26", c14._C26_LOSS)  # a cited loss against fixed-size embeddings, no finding of none
    assert claims.run("C26", r).verdict == claims.REFUTED
    swap_sources("C26", c14._C26_LOSS, *c14.C26_SOURCES)  # the findings disagree
    v = claims.run("C26", r)
    assert v.verdict == claims.INCONCLUSIVE and "disagree" in v.evidence
    swap_sources("C26", c14.C26_SOURCES[1])  # nothing on the loss
    v = claims.run("C26", r)
    assert v.verdict == claims.INCONCLUSIVE and "no cited finding" in v.evidence


def test_c25_perplexity_pairs_are_tagged_from_the_computed_cut():
    assert c14.c25_cut(20.0, 19.2) == pytest.approx(0.04)
    inside, outside = c14.c25_perplexity_source(20.0, 19.2, "t"), c14.c25_perplexity_source(20.0, 18.0, "t")
    assert inside.bears(c14.C25_TAG) and outside.bears(c14.C25_TAG, claims.CONTRADICTS)
    assert "4.0% lower" in inside.finding
    with pytest.raises(ValueError, match="positive and finite"):
        c14.c25_cut(0.0, 19.0)


def test_run_scaling_smoke():
    r = ch14.run_scaling([0], n_docs=20, vocab_size=200, d_model=16, cutoffs=(20, 80), ngram_rows=100,
                         table_sizes=(50, 100), max_steps=4, min_steps=0, eval_every=2)
    assert set(r.best_loss) == set(ch14.ARMS) and len(r.best_loss["full"]) == 1
    assert r.device_bytes[0] == r.device_bytes[1] and r.host_bytes[1] > r.host_bytes[0]
    assert r.input_params["adaptive"] < r.input_params["full"] < r.input_params["ngram"]
    assert math.isfinite(r.glued()["ppl_full"])
    assert claims.run("C26", r).verdict == claims.INCONCLUSIVE  # one seed cannot decide


def test_summary_has_a_line_for_every_declared_outcome():
    for cid in ("C25", "C26"):
        assert set(ch14.SUMMARY[cid]) == set(claims.rule_of(cid).outcomes), cid


def test_summary_line_follows_the_verdict():
    v = claims.run("C26", _scaling([4.74, 4.75, 4.73], [4.75, 4.76, 4.74], [4.95, 4.96, 4.94]))
    assert ch14.summary_line(v) == ch14.SUMMARY["C26"][claims.CORRECTED] and "widest" in ch14.summary_line(v)


# --- the lesson's exercises: each answer is what its code gives ------------------------------------------------


def _lesson_bigrams(K: int):
    """The lesson's bigram cells with K rows: (the bigrams that keep a row, the rows of the batch [[3, 1, 4, 1, 6]])."""
    import torch

    V = 10
    train = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 1, 4, 1, 5])
    keys = train[:-1] * V + train[1:]
    uniq, counts = torch.unique(keys, return_counts=True)
    top = uniq[torch.argsort(counts, descending=True, stable=True)[:K]].sort().values
    ids = torch.tensor([[3, 1, 4, 1, 6]])
    key = ids[:, :-1] * V + ids[:, 1:]
    pos = torch.searchsorted(top, key).clamp(max=K - 1)
    rows = torch.where(top[pos] == key, pos + 1, 0)
    twice = sorted((int(k) // V, int(k) % V) for k, c in zip(uniq, counts) if c == 2)
    return [(int(k) // V, int(k) % V) for k in top], rows.tolist(), twice


def test_exercise_1_two_bigram_rows():
    kept, rows, twice = _lesson_bigrams(2)
    assert twice == [(1, 4), (1, 5), (3, 1), (4, 1)]  # "four bigrams occur twice"
    assert kept == [(1, 4), (1, 5)] and rows == [[0, 1, 0, 0]]
    assert _lesson_bigrams(4)[1] == [[3, 1, 4, 0]]  # "with K = 4 it was [[3, 1, 4, 0]]"


def _adaptive_numbers(edges, dims, d=32):
    import torch

    tables = [torch.randn(b - a, k) for a, b, k in zip(edges, edges[1:], dims)]
    projs = [torch.randn(k, d) for k in dims]
    return sum(t.numel() for t in tables) + sum(p.numel() for p in projs)


def test_exercise_2_and_3_adaptive_counts():
    from embedbook import ngram

    assert _adaptive_numbers([0, 100, 400, 1000], [32, 32, 32]) == 35_072
    two = _adaptive_numbers([0, 100, 1000], [32, 8])
    assert two == 11_680 and round(32_000 / two, 1) == 2.7
    assert sum(p.numel() for p in ngram.AdaptiveInput(1000, 32, [100]).parameters()) == two  # the package agrees


def test_exercise_4_the_ngram_table_stays_on_the_cpu():
    import torch

    from embedbook import ngram

    train = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 1, 4, 1, 5])
    emb = ngram.NgramEmbedding(10, 4, ngram.NgramIndex.build(train, 10, 4)).to("meta")  # any other device
    assert emb.token.weight.device.type == "meta" and emb.ngram.weight.device.type == "cpu"
