"""Unit tests for embedbook.dynamics (tiny synthetic data; fast)."""

import numpy as np
import pytest
import torch
from torch import nn

from embedbook import claims, dynamics, lm


def _tiny(tie: bool) -> lm.TinyLM:
    torch.manual_seed(0)
    return lm.TinyLM(lm.LMConfig(50, d_model=8, n_layers=1, n_heads=2, context=6, tie=tie, dropout=0.0))


def test_one_step_rows_untied_exact_and_tied_dense():
    batch = torch.tensor([[1, 2, 3, 4, 5, 6, 7], [3, 3, 9, 9, 1, 2, 40]])
    untied = dynamics.one_step_rows(_tiny(False), batch)
    present = len(batch[:, :-1].unique())
    assert untied["touched"] == untied["in_batch"] == present
    assert untied["untouched"] == 50 - present and untied["touched_absent"] == 0
    tied = dynamics.one_step_rows(_tiny(True), batch)
    assert tied["touched"] == 50


def test_touched_rows_sparse_and_errors():
    emb = nn.Embedding(10, 3, sparse=True)
    with pytest.raises(ValueError, match="no gradient"):
        dynamics.touched_rows(emb.weight)
    emb(torch.tensor([1, 4])).sum().backward()
    assert dynamics.touched_rows(emb.weight).nonzero().flatten().tolist() == [1, 4]
    with pytest.raises(TypeError):
        dynamics.touched_rows(torch.zeros(3))
    with pytest.raises(TypeError, match="batch"):
        dynamics.one_step_rows(_tiny(False), torch.zeros(2, 5))


def test_adam_refuses_sparse():
    assert "sparse" in dynamics.adam_sparse_error().lower()


def test_absent_rows_adam_moves_sparse_adam_does_not():
    adam = dynamics.absent_row_drift("adam", steps=3)
    sparse = dynamics.absent_row_drift("sparse_adam", steps=3)
    sgd = dynamics.absent_row_drift("sgd", steps=3)
    assert adam["absent_moved"] > 0 and adam["absent_rows_moved"] == adam["absent_rows"]
    assert sparse["absent_moved"] == 0 and sgd["absent_moved"] == 0
    assert sparse["present_moved"] > 0
    assert dynamics.absent_row_drift("adam", steps=3) == adam  # deterministic
    with pytest.raises(ValueError, match="unknown optimizer"):
        dynamics.absent_row_drift("lion")
    with pytest.raises(ValueError):
        dynamics.absent_row_drift("adam", lr=0)


def test_distance_from_init():
    a = torch.ones(3, 2)
    b = a.clone()
    b[1] += torch.tensor([3.0, 4.0])
    assert dynamics.distance_from_init(a, b, relative=False).tolist() == [0, 5, 0]
    assert dynamics.distance_from_init(a, b)[1] == pytest.approx(5 / 2**0.5)
    with pytest.raises(ValueError, match="same shape"):
        dynamics.distance_from_init(a, torch.ones(2, 2))
    with pytest.raises(ValueError, match="zeros"):
        dynamics.distance_from_init(torch.zeros(2, 2), a[:2])


def test_drift_summary_and_spearman():
    res = {"counts": np.array([0, 1, 2, 150, 300, 5]), "zipf": np.array([1.0, 2, 3, 5, 6, 2.5]),
           "drift": np.array([0.0, 0.1, 0.2, 0.8, 0.9, 0.3])}
    s = dynamics.drift_summary(res, rare_max=2, frequent_min=100)
    assert s["rho_count"] == pytest.approx(1.0) and s["median_rare"] == pytest.approx(0.15)
    assert s["n_unseen"] == 1
    with pytest.raises(ValueError):
        dynamics.drift_summary(res, rare_max=5, frequent_min=3)
    with pytest.raises(ValueError, match="constant"):
        dynamics.spearman([1, 1, 1], [1, 2, 3])


def test_rare_loss_and_position_losses():
    model = _tiny(False)
    ids = torch.randint(0, 50, (40,), generator=torch.Generator().manual_seed(0))
    losses, inputs = dynamics.position_losses(model, ids, 6)
    assert losses.shape == inputs.shape and torch.isfinite(losses).all()
    counts = torch.zeros(50, dtype=torch.long)
    counts[inputs[0]] = 1
    assert dynamics.rare_loss(losses, inputs, counts) == pytest.approx(float(losses[inputs == inputs[0]].mean()))
    with pytest.raises(ValueError, match="no validation position"):
        dynamics.rare_loss(losses, inputs, torch.zeros(50, dtype=torch.long))
    with pytest.raises(ValueError, match="multipliers"):
        dynamics.lr_mult_sweep([["a", "b"]] * 50, mults=(1.0, 0.0))


def test_fruit_corpus_and_pull():
    corpus = dynamics.fruit_corpus(200)
    assert not any("苹果" in s and "香蕉" in s for s in corpus)
    assert corpus == dynamics.fruit_corpus(200)
    r = dynamics.cooccurrence_pull(corpus, [("苹果", "香蕉")], steps=4, every=2, seeds=(0,), d=8)
    assert r["cos"].shape == (1, 3, 1) and r["steps"] == [0, 2, 4]
    with pytest.raises(KeyError, match="榴莲"):
        dynamics.cooccurrence_pull(corpus, [("苹果", "榴莲")], steps=2, every=2, seeds=(0,), d=8)
    with pytest.raises(ValueError):
        dynamics.fruit_corpus(0)


def test_checks_decide_from_numbers():
    r = {"untied": {"vocab": 10, "in_batch": 3, "touched": 3, "untouched": 7, "touched_absent": 0, "present_untouched": 0},
         "tied": {"vocab": 10, "in_batch": 3, "touched": 10, "untouched": 0, "touched_absent": 7, "present_untouched": 0}}
    assert dynamics.check_c12(result=r).verdict == claims.CORRECTED
    r["untied"]["touched"] = 5
    assert dynamics.check_c12(result=r).verdict == claims.REFUTED
    sweep = {"mults": [1.0, 10.0], "seeds": [0, 1, 2], "rare": [[5.0, 5.1, 5.2], [5.0, 5.2, 5.1]], "n_rare_positions": 9}
    assert dynamics.check_c16(result=sweep).verdict == claims.NOT_HERE
    sweep["rare"][1] = [4.0, 4.1, 4.2]
    assert dynamics.check_c16(result=sweep).verdict == claims.CORRECTED
    cos = np.zeros((2, 3, 2))
    cos[:, -1, 0] = 0.9
    assert dynamics.check_c38(result={"cos": cos}).verdict == claims.CONFIRMED
    cos[:, -1, 1] = 0.95
    assert dynamics.check_c38(result={"cos": cos}).verdict == claims.REFUTED
    assert dynamics.check_c14(result={"adam_losses": (2.0, 1.0)}).verdict == claims.REFUTED
