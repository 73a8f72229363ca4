"""Tests for embedbook.tying: parameter counts, the summary, and the C08/C09 decision rules."""

import math

import pytest

from embedbook import claims, tying


def fake(tied, untied, small=1000, large=100000):
    reg = lambda t, u: {"steps": [0, 10], "tied": [[9.0, x] for x in t], "untied": [[9.0, x] for x in u]}
    return {"settings": {"d_model": 64}, "train_tokens": {"small": small, "large": large},
            "vocab_sizes": {"base": 2000, "big": 8000}, "unigram_ppl": {"small": 300.0, "large": 250.0}, "small": reg(*tied[0]), "large": reg(*tied[1]),
            "big_vocab": reg(*untied)}


def test_param_counts_differ_by_vd():
    p = tying.param_counts(100, 16, n_layers=1, n_heads=2, context=8)
    assert p["untied"] - p["tied"] == 100 * 16
    assert p["untied_embedding"] == 2 * p["tied_embedding"] == 2 * 100 * 16


def test_summarise_paired_gap():
    s = tying.summarise({"tied": [[5.0, 4.0], [5.0, 4.2]], "untied": [[5.0, 4.5], [5.0, 4.3]]})
    assert s["gap"] == pytest.approx(0.3) and s["gap_min"] == pytest.approx(0.1)
    assert s["tied_ppl"] == pytest.approx((math.exp(4.0) + math.exp(4.2)) / 2)
    with pytest.raises(ValueError, match="same"):
        tying.summarise({"tied": [[1.0]], "untied": []})


def test_c08_rule():
    helps_small_more = fake(([([4.0, 4.1], [4.5, 4.6]), ([4.0, 4.0], [4.05, 4.05])]), ([4.0], [4.0]))
    assert tying.check_c08(result=helps_small_more).verdict == claims.CONFIRMED
    helps_large_only = fake(([([4.0, 4.1], [3.9, 4.2]), ([4.0, 4.0], [4.5, 4.5])]), ([4.0], [4.0]))
    assert tying.check_c08(result=helps_large_only).verdict == claims.CORRECTED
    never = fake(([([4.0, 4.1], [3.9, 4.0]), ([4.0, 4.0], [3.9, 3.9])]), ([4.0], [4.0]))
    assert tying.check_c08(result=never).verdict == claims.REFUTED


def test_c09_rule():
    hurts_big = fake(([([4.0], [4.1]), ([4.0], [4.1])]), ([5.0, 5.0], [4.8, 4.9]))
    assert tying.check_c09(result=hurts_big).verdict == claims.CORRECTED
    helps_big = fake(([([4.0], [4.1]), ([4.0], [4.1])]), ([5.0, 5.0], [5.2, 5.1]))
    v = tying.check_c09(result=helps_big)
    assert v.verdict == claims.NOT_HERE and "ICML 2024" in v.evidence


def test_bad_settings():
    with pytest.raises(KeyError, match="unknown setting"):
        tying.measure_tying(smoke=True, stepz=3)
