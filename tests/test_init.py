"""Tests for embedbook.init: each scheme's spread, reproducibility, bad input."""

import math

import pytest
import torch

from embedbook import init


@pytest.mark.parametrize("name", init.known())
def test_scheme_std_matches(name):
    emb = torch.nn.Embedding(2000, 64)
    w = init.apply(emb, name, generator=torch.Generator().manual_seed(0))
    assert w is emb.weight
    assert w.std().item() == pytest.approx(init.std_of(name, 2000, 64), rel=0.02)
    assert abs(w.mean().item()) < 0.02 * max(1e-3, init.std_of(name, 2000, 64)) * 50


def test_formulas():
    assert init.std_of("std_inv_sqrt_d", 10, 64) == pytest.approx(1 / 8)
    assert init.std_of("var_inv_sqrt_d", 10, 64) ** 2 == pytest.approx(1 / 8)
    assert init.std_of("xavier_normal", 100, 28) == pytest.approx(math.sqrt(2 / 128))
    w = init.apply(torch.empty(50, 8), "small")
    assert w.abs().max().item() <= 1e-4


def test_reproducible():
    a = init.apply(torch.empty(5, 4), "normal_0.02", generator=torch.Generator().manual_seed(3))
    b = init.apply(torch.empty(5, 4), "normal_0.02", generator=torch.Generator().manual_seed(3))
    assert torch.equal(a, b)


def test_bad_input():
    with pytest.raises(KeyError, match="known schemes: torch_default"):
        init.apply(torch.empty(3, 3), "kaiming")
    with pytest.raises(TypeError, match="2-D"):
        init.apply(torch.empty(3), "small")
    with pytest.raises(TypeError, match="floating"):
        init.apply(torch.zeros(3, 3, dtype=torch.long), "small")
    with pytest.raises(ValueError, match="positive"):
        init.std_of("small", 0, 3)


def test_steps_to():
    assert init.steps_to([0, 10, 20], [5.0, 4.0, 3.0], 4.0) == 10
    assert init.steps_to([0, 10], [5.0, 4.5], 4.0) is None
    with pytest.raises(ValueError, match="same length"):
        init.steps_to([0], [1.0, 2.0], 1.0)


def test_step0_scale_follows_scheme():
    ids = torch.randint(0, 50, (200,), generator=torch.Generator().manual_seed(0))
    big = init.step0_stats("torch_default", 50, 16, ids, context=8)
    std = init.step0_stats("std_inv_sqrt_d", 50, 16, ids, context=8)
    assert big["emb_rms"] == pytest.approx(1.0, rel=0.2) and std["emb_rms"] == pytest.approx(0.25, rel=0.2)
    assert big["logit_std"] > 2 * std["logit_std"]  # tied head: logits scale with the table
    assert big["loss0"] > std["loss0"] and big["ln_v"] == pytest.approx(math.log(50))


def _fake_result(default_std, gains_default, gains_small):
    curves = {n: {0: [[7.0, 5.0]], 5: [[7.0, 5.0]]} for n in init.known()}
    curves["torch_default"] = {0: [[9.0, 6.0 + g] for g in gains_default], 5: [[9.0, 6.0] for _ in gains_default]}
    curves["normal_0.02"] = {0: [[7.0, 5.0 + g] for g in gains_small], 5: [[7.0, 5.0] for _ in gains_small]}
    return {"settings": {"warmup": 5}, "default_std": default_std, "curves": curves}


def test_c23_rule():
    assert init.check_c23(result=_fake_result(1.0, [0.5, 0.4], [0.0, 0.01])).verdict == "confirmed"
    assert init.check_c23(result=_fake_result(1.0, [-0.1, 0.4], [0.0, 0.01])).verdict == "confirmed with a correction"
    assert init.check_c23(result=_fake_result(0.5, [0.5, 0.4], [0.0, 0.01])).verdict == "refuted"


def test_bad_settings():
    with pytest.raises(KeyError, match="unknown setting"):
        init.measure_init(smoke=True, lr_typo=1.0)


def _glove_result(small_rnd, small_pre, large_rnd, large_pre):
    steps = [0, 10, 20, 30, 40]
    return {"glove": {"coverage": 0.9, "steps": steps,
                      "small": {"random": [small_rnd], "pretrained": [small_pre]},
                      "large": {"random": [large_rnd], "pretrained": [large_pre]}}}


def test_c22_rule():
    slow = [7.0, 6.0, 5.5, 5.2, 5.0]
    fast = [7.0, 5.0, 4.9, 4.8, 4.7]   # reaches 5.0 at step 10: 4x sooner, ends lower
    bit = [7.0, 6.0, 5.5, 4.99, 4.98]  # reaches 5.0 at step 30: 1.33x
    assert init.glove_speedup(_glove_result(slow, fast, slow, slow), "small")["speedup"] == pytest.approx(4.0)
    assert init.check_c22(result=_glove_result(slow, fast, slow, bit)).verdict == "confirmed"
    assert init.check_c22(result=_glove_result(slow, slow, slow, fast)).verdict == "confirmed with a correction"
    assert init.check_c22(result=_glove_result(slow, slow, slow, slow)).verdict == "refuted"
