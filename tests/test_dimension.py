"""Unit tests for embedbook.dimension (tiny inputs; fast)."""

import pytest
import torch

from embedbook import claims, dimension


def test_attention_flops_scale_as_n2_d():
    base = dimension.attention_flops(64, 16)
    assert dimension.attention_flops(128, 16) == 4 * base
    assert dimension.attention_flops(64, 32) == 2 * base
    assert dimension.attention_flops(64, 16, project=True) == base + 3 * 2 * 64 * 16 * 16
    with pytest.raises(ValueError, match="positive"):
        dimension.attention_flops(0, 16)


def test_fit_exponent():
    assert dimension.fit_exponent([1, 2, 4], [3, 12, 48]) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="positive"):
        dimension.fit_exponent([1, 2], [0, 1])
    with pytest.raises(ValueError):
        dimension.fit_exponent([1], [1])


def test_attention_seconds_positive():
    assert dimension.attention_seconds(32, 8, repeats=2) > 0


def test_similarity_spearman():
    w = torch.tensor([[1.0, 0], [1, 0.1], [0, 1], [1, 1], [0.5, 1], [1, 0.5]])
    stoi = {w: i for i, w in enumerate("abcdef")}
    pairs = [("a", "b", 9.0), ("a", "c", 0.0), ("a", "d", 5.0), ("c", "e", 8.0), ("b", "c", 1.0), ("a", "f", 7.0)]
    rho, n = dimension.similarity_spearman(w, stoi, pairs + [("a", "zzz", 1.0)])
    assert n == 6 and rho > 0.8
    with pytest.raises(ValueError, match="covered"):
        dimension.similarity_spearman(w, stoi, pairs[:3])


def test_sweep_rejects_bad_dims():
    with pytest.raises(ValueError, match="multiples of 4"):
        dimension.dimension_sweep([["a", "b"]] * 10, dims=(6,))
    with pytest.raises(ValueError):
        dimension.dimension_sweep([["a", "b"]] * 10, dims=())


def test_checks_decide_from_numbers():
    rows = [{"d": 8, "params": 10, "best_val_ppl": 300, "final_val_ppl": 300, "final_train_ppl": 300, "overfit": 0.0, "ws353": 0.0, "n_ws353": 5},
            {"d": 64, "params": 80, "best_val_ppl": 100, "final_val_ppl": 100, "final_train_ppl": 90, "overfit": 0.0, "ws353": 0.1, "n_ws353": 5},
            {"d": 256, "params": 400, "best_val_ppl": 110, "final_val_ppl": 140, "final_train_ppl": 40, "overfit": 0.2, "ws353": 0.0, "n_ws353": 5}]
    assert dimension.check_c17(result=rows).verdict == claims.CONFIRMED
    rows[2].update(overfit=0.0, final_val_ppl=95)
    assert dimension.check_c17(result=rows).verdict == claims.CORRECTED
    cost = dimension.attention_cost((32, 64, 128), (8, 16), n_fixed=64, d_fixed=16, time_it=False)
    assert cost["exp_n"] == pytest.approx(2.0) and cost["exp_d"] == pytest.approx(1.0)
    assert dimension.check_c18(result=cost).verdict in (claims.CONFIRMED, claims.CORRECTED)
    assert dimension.check_c42(result=[("a", 768, "k"), ("b", 4096, "k")]).verdict == claims.CONFIRMED
    assert dimension.check_c42(result=[("a", 768, "k"), ("b", 50, "k")]).verdict == claims.CORRECTED
    assert dimension.check_c42(result=[("a", 20, "k"), ("b", 50, "k")]).verdict == claims.REFUTED
