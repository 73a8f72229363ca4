"""Unit tests for embedbook.dynamics (tiny synthetic data; fast), and the chapter-05 checks on small runs."""

import ast
from pathlib import Path

import pytest
import torch
from torch import nn

from embedbook import dynamics, lm


def _tiny(tie: bool) -> lm.TinyLM:
    torch.manual_seed(0)
    return lm.TinyLM(lm.LMConfig(50, d_model=8, n_layers=1, n_heads=2, context=6, tie=tie, dropout=0.0))


def test_touched_rows_are_the_ids_in_the_batch():
    emb = nn.Embedding(10, 4)
    ids = torch.tensor([[2, 5, 5, 7]])
    emb(ids).pow(2).sum().backward()
    assert dynamics.touched_rows(emb.weight).nonzero().flatten().tolist() == [2, 5, 7]


def test_one_step_rows_untied_exact_and_tied_dense():
    batch = torch.tensor([[1, 2, 3, 4, 5, 6, 7], [3, 3, 9, 9, 1, 2, 40]])
    untied = dynamics.one_step_rows(_tiny(False), batch)
    present = len(batch[:, :-1].unique())
    assert untied.touched == untied.in_batch == present
    assert untied.untouched == 50 - present and untied.touched_absent == 0 and untied.present_untouched == 0
    tied = dynamics.one_step_rows(_tiny(True), batch)
    assert tied.touched == 50 and tied.touched_absent == 50 - present


def test_touched_rows_sparse_and_errors():
    emb = nn.Embedding(10, 3, sparse=True)
    with pytest.raises(ValueError, match="no gradient"):
        dynamics.touched_rows(emb.weight)
    emb(torch.tensor([1, 4])).sum().backward()
    assert dynamics.touched_rows(emb.weight).nonzero().flatten().tolist() == [1, 4]
    with pytest.raises(TypeError, match="2-D"):
        dynamics.touched_rows(torch.zeros(3))
    with pytest.raises(TypeError, match="batch"):
        dynamics.one_step_rows(_tiny(False), torch.zeros(2, 5))
    with pytest.raises(TypeError, match="embed.weight"):
        dynamics.one_step_rows(nn.Linear(3, 3), torch.zeros(2, 5, dtype=torch.long))


def test_moved_rows():
    a = torch.zeros(4, 2)
    b = a.clone()
    b[2, 1] = 1e-9
    assert dynamics.moved_rows(a, b).tolist() == [False, False, True, False]
    with pytest.raises(ValueError, match="same shape"):
        dynamics.moved_rows(a, torch.zeros(3, 2))
    with pytest.raises(TypeError):
        dynamics.moved_rows(a, [[0.0]])


def test_adam_moves_rows_with_zero_gradient_sgd_does_not():
    """The chapter's mechanism: step 1 on every id, step 2 on ids 0 and 1 only."""
    for opt_class, moved_expected in ((torch.optim.SGD, [True, True] + [False] * 8), (torch.optim.Adam, [True] * 10)):
        torch.manual_seed(0)
        emb = nn.Embedding(10, 4)
        opt = opt_class(emb.parameters(), lr=0.1)
        emb(torch.arange(10)).sum().backward(); opt.step(); opt.zero_grad()  # noqa: E702
        before = emb.weight.detach().clone()
        emb(torch.tensor([0, 1])).sum().backward(); opt.step()  # noqa: E702
        assert dynamics.moved_rows(before, emb.weight).tolist() == moved_expected


def test_absent_row_drift():
    adam = dynamics.absent_row_drift("adam", steps=3)
    sparse = dynamics.absent_row_drift("sparse_adam", steps=3)
    sgd = dynamics.absent_row_drift("sgd", steps=3)
    assert adam.absent_moved > 0 and adam.absent_rows_moved == adam.absent_rows
    assert sparse.absent_moved == 0 and sgd.absent_moved == 0 and sparse.absent_rows_moved == 0
    assert sparse.present_moved > 0 and sgd.present_moved > 0
    assert dynamics.absent_row_drift("adam", steps=3) == adam  # deterministic
    with pytest.raises(ValueError, match="unknown optimizer"):
        dynamics.absent_row_drift("lion")
    for bad in ({"lr": 0}, {"lr": float("nan")}, {"steps": 0}, {"vocab_size": 3}, {"d": 1.5}):
        with pytest.raises(ValueError):
            dynamics.absent_row_drift("adam", **bad)


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
    with pytest.raises(TypeError):
        dynamics.distance_from_init(a, b.numpy())


def test_drift_by_frequency():
    counts = [0, 1, 2, 150, 300, 5]
    drift = [0.0, 0.1, 0.2, 0.8, 0.9, 0.3]
    s = dynamics.drift_by_frequency(counts, drift, rare_max=2, frequent_min=100)
    assert s.rho == pytest.approx(1.0) and s.median_rare == pytest.approx(0.15) and s.median_frequent == pytest.approx(0.85)
    assert s.n_unseen == 1 and s.max_unseen == 0.0 and s.n_rare == 2 and s.n_frequent == 2
    with pytest.raises(ValueError, match="rare_max < frequent_min"):
        dynamics.drift_by_frequency(counts, drift, rare_max=5, frequent_min=3)
    with pytest.raises(ValueError, match="no token"):
        dynamics.drift_by_frequency(counts, drift, rare_max=3, frequent_min=1000)
    with pytest.raises(ValueError, match="equally long"):
        dynamics.drift_by_frequency(counts, drift[:3])
    with pytest.raises(ValueError, match="finite"):
        dynamics.drift_by_frequency(counts, [float("nan")] * 6)
    with pytest.raises(ValueError, match="constant"):  # stats.spearman refuses instead of returning NaN
        dynamics.drift_by_frequency([1, 2, 150, 300], [0.5] * 4, rare_max=2, frequent_min=100)


def test_dynamics_uses_the_one_spearman():
    tree = ast.parse(Path(dynamics.__file__).read_text(encoding="utf-8"))
    froms = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "embedbook.stats" in froms and "embedbook.similarity" not in froms and "scipy.stats" not in froms


def test_position_losses_and_loss_by_count():
    model = _tiny(False)
    ids = torch.randint(0, 50, (40,), generator=torch.Generator().manual_seed(0))
    losses, inputs = dynamics.position_losses(model, ids, 6)
    assert losses.shape == inputs.shape == (36,) and torch.isfinite(losses).all()
    assert model.training  # mode restored
    counts = torch.zeros(50, dtype=torch.long)
    counts[inputs[0]] = 1
    mean, n = dynamics.loss_by_count(losses, inputs, counts, 1, 10)
    assert mean == pytest.approx(float(losses[inputs == inputs[0]].mean())) and n == int((inputs == inputs[0]).sum())
    with pytest.raises(ValueError, match="no position"):
        dynamics.loss_by_count(losses, inputs, torch.zeros(50, dtype=torch.long))
    with pytest.raises(ValueError, match="low must be"):
        dynamics.loss_by_count(losses, inputs, counts, 5, 1)
    with pytest.raises(TypeError, match="1-D LongTensor"):
        dynamics.position_losses(model, ids.float(), 6)
    with pytest.raises(ValueError, match="context"):
        dynamics.position_losses(model, ids[:5], 6)
