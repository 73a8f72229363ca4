"""Chapter 11's tests: its measurements on small inputs, its rules and its checks."""

from __future__ import annotations

import numpy as np
import pytest

from embedbook import contextual as cx
from embedbook.book import claims


def test_sense_study_lookup_is_static(enc):
    tok, model = enc
    from embedbook.chapters.ch11_contextual.measure import COMPANY, FRUIT

    r = cx.sense_study(tok, model, FRUIT[:3], COMPANY[:3])
    assert r.lookup_max_diff == 0.0 and r.lookup_accuracy == 0.5 and r.lookup_across == pytest.approx(1.0)
    assert len(r.across) == 7 and r.n_a == r.n_b == 3
    assert r.accuracy[-1] > r.lookup_accuracy


# --- the chapters' experiments on the real model ------------------------------------------------------


def test_chapter11_checks_on_the_real_model(enc):
    from embedbook.chapters.ch11_contextual import measure as ch11

    tok, model = enc
    senses = ch11.run_senses(tok, model)
    assert senses.max_row_diff == 0.0 and senses.max_layer0_diff <= 1e-5 and senses.repeated_tokens > 5
    assert claims.run("C10", senses).verdict == claims.CONFIRMED
    cost = ch11.run_cost(tok, model, senses, copies=1, reps=1)
    assert cost.cost_ratio > 1e4 and cost.lookup_flops_per_token == 0
    assert cost.flops_per_token == pytest.approx(cost.flops_per_token_formula, rel=0.02)
    assert cost.acc_lookup == 0.5 and cost.word_row_diff == 0.0  # one row for both senses: every sentence is a tie
    assert senses.n_fruit == senses.n_company == 40 and 0.5 <= senses.acc_context_bag <= 1.0
    v = claims.run("C46", cost)
    assert v.verdict in claims.rule_of("C46").outcomes and "operations per token" in v.evidence
    assert "static bag of context" in v.evidence


def test_c10_says_it_holds_by_definition(enc):
    from embedbook.chapters.ch11_contextual import measure as ch11

    tok, model = enc
    v = claims.run("C10", ch11.run_senses(tok, model, fruit=ch11.FRUIT[:3], company=ch11.COMPANY[:3]))
    assert v.verdict == claims.CONFIRMED and "by definition" in v.evidence and "by construction" in v.strength


def test_static_share_is_the_mean_vectors_share():
    from embedbook.chapters.ch11_contextual import measure as ch11

    rng = np.random.default_rng(0)
    c = rng.normal(size=16)
    assert ch11.static_share(np.stack([c, c, c])) == pytest.approx(1.0)
    assert ch11.static_share(np.stack([c, -c])) == pytest.approx(0.0)
    x = rng.normal(size=(12, 16)) + 2.0
    resid = ((x - x.mean(0)) ** 2).sum()  # what the best single vector, the mean, leaves
    assert ch11.static_share(x) == pytest.approx(1 - resid / (x ** 2).sum())
    assert ch11.static_share(x) <= cx.mev(x, "paper") + 1e-12  # σ₁²/Σσᵢ² bounds it from above
    for bad in (np.zeros((3, 4)), np.ones((1, 4)), np.array([[1.0, np.nan], [0.0, 1.0]])):
        with pytest.raises(ValueError):
            ch11.static_share(bad)


def test_calibration_separates_the_readings():
    from embedbook.chapters.ch11_contextual import measure as ch11

    cal = ch11.run_calibration([5, 10, 20, 30], dim=384, n_random=300, noise=(0.01, 1.0, 3.0), words=4)
    assert cal.static["paper"] > 0.99  # one static vector explains a static word
    assert cal.static["released"] < 0.01  # about 1/d: blind to the static vector
    assert cal.static["centred"] < 0.3  # centring removes it
    assert cal.scores["paper"][0] > cal.scores["paper"][1] > cal.scores["paper"][2]  # follows self-similarity
    assert abs(cal.random_matched["paper"]) < 0.01 < cal.random_paper["paper"]  # the small-n excess
    assert cal.mean_static > 0.99 and abs(cal.mean_random) < 0.01  # the deciding statistic passes
    with pytest.raises(ValueError, match="context counts"):
        ch11.run_calibration([1, 5], dim=8, n_random=10)
