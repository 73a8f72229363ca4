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
