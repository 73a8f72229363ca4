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


# --- the lesson's exercises: each answer from its modified code ---------------------------------------------------


def _pair(tok, model, second):
    """The lesson's first cells with ``pair[1] = second``: the two table rows, layer-0 and last-layer vectors."""
    import torch

    batch = tok(["the apple was sweet and juicy", second], padding=True, return_tensors="pt")
    apple = batch["input_ids"] == tok.convert_tokens_to_ids("apple")
    rows = model.embeddings.word_embeddings(batch["input_ids"])[apple]
    with torch.no_grad():
        hidden = model(**batch, output_hidden_states=True).hidden_states
    return rows, hidden[0][apple], hidden[-1][apple]


def test_exercise_1_same_row_other_layer0_vector(enc):
    """Answer 1: 'apple' first in one sentence: the same table row, different layer-0 vectors."""
    import torch

    rows, first, _ = _pair(*enc, "apple pie is my favourite dessert")
    assert torch.equal(rows[0], rows[1]) and not torch.equal(first[0], first[1])


def test_exercise_2_two_fruit_sentences_are_closer(enc):
    """Answer 2: 0.96 for two fruit sentences against 0.78 across the senses (the lesson's pair)."""
    import torch.nn.functional as F

    _, _, last = _pair(*enc, "the apple was red and ripe")
    _, _, across = _pair(*enc, "the apple store in the mall sells laptops")
    same, other = (float(F.cosine_similarity(v[0], v[1], dim=0)) for v in (last, across))
    assert round(same, 2) == 0.96 and round(other, 2) == 0.78


def _lesson_batch(tok, model):
    """The lesson's core cell: every sentence in one batch, the 'apple' and the word-token masks."""
    import torch

    from embedbook.chapters.ch11_contextual import measure as ch11

    batch = tok(ch11.FRUIT + ch11.COMPANY, padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch, output_hidden_states=True).hidden_states
    ids, real = batch["input_ids"], batch["attention_mask"].bool()
    is_apple = ids == tok.convert_tokens_to_ids("apple")
    words = real & ~torch.isin(ids, torch.tensor(tok.all_special_ids))
    return hidden, is_apple, words


def test_exercise_3_the_mean_explains_one_plus_n_minus_one_s_over_n(enc):
    """Answer 3: for unit vectors the mean's share is (1 + (n − 1)s)/n (apple: 80 rows); for every word token 0.15."""
    import torch.nn.functional as F

    hidden, is_apple, words = _lesson_batch(*enc)
    U = F.normalize(hidden[-1][is_apple].double(), dim=-1)
    n = len(U)
    share = float(U.sum(0) @ U.sum(0) / n ** 2)
    s = float(((U @ U.T).sum() - n) / (n * (n - 1)))
    assert n == 80 and share == pytest.approx((1 + (n - 1) * s) / n, abs=1e-12)
    W = F.normalize(hidden[-1][words].double(), dim=-1)
    assert round(float(W.sum(0) @ W.sum(0) / len(W) ** 2), 2) == 0.15


def test_exercise_4_a_longer_input_costs_more_per_token(enc):
    """Answer 4: 53 tokens, 21.73 million operations per token, against 21.34 million for the 8-token sentence;
    attention adds 4·d per token per layer for each extra token (9,216 over 6 layers at d = 384)."""
    from embedbook.chapters.ch11_contextual import measure as ch11

    tok, model = enc
    long_f, long_n = cx.count_forward_flops(tok, model, [" ".join(ch11.FRUIT[:6])])
    short_f, short_n = cx.count_forward_flops(tok, model, ["the apple was sweet and juicy"])
    assert (long_n, short_n) == (53, 8)
    assert round(long_f / long_n / 1e6, 2) == 21.73 and round(short_f / short_n / 1e6, 2) == 21.34
    assert 4 * model.config.hidden_size * model.config.num_hidden_layers == 9216


def test_the_two_counts_per_token_differ_by_their_sentences(enc):
    """The lesson shows one 8-token sentence's count (21.34 million per token) beside the verdict's count over 16
    sentences (21.36, rounded 21.4 in the table) and says why: other sentences, longer on average."""
    from embedbook.chapters.ch11_contextual import measure as ch11

    tok, model = enc
    senses = ch11.run_senses(tok, model, fruit=ch11.FRUIT[:2], company=ch11.COMPANY[:2])
    cost = ch11.run_cost(tok, model, senses, copies=1, reps=1)
    one_f, one_n = cx.count_forward_flops(tok, model, ["the apple was sweet and juicy"])
    assert cost.tokens / 16 > one_n and cost.flops_per_token > one_f / one_n
    assert f"{cost.flops_per_token / 1e6:.1f}" == "21.4" and f"{one_f / one_n / 1e6:.1f}" == "21.3"
