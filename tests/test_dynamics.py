"""Unit tests for embedbook.dynamics (tiny synthetic data; fast), and the chapter-05 checks on small runs."""

import ast
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from embedbook import claims, dynamics, lm


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


# --- chapter 05's experiments, small ---------------------------------------------------------------------


def test_chapter_checks_on_small_runs():
    from embedbook.experiments import ch05_learning as ch05

    # gradient only in the batch's rows, but AdamW still updates the others (cold audit, round 3)
    assert ch05.check_c12(ch05.run_touched(vocab=200, d=16, batch=2, context=8)).verdict == claims.CORRECTED
    opt = ch05.run_optimizers(drift_steps=3)
    assert opt.adam_refused == 1 and "sparse" in opt.adam_error.lower()
    assert ch05.check_c13(opt).verdict == claims.CONFIRMED  # Adam refuses; SparseAdam and SGD train (issue 19)
    assert ch05.check_c14(ch05.run_survey()).verdict == claims.REFUTED  # no source states sparse gradients as why
    pull = ch05.run_pull(40, seeds=(0,), max_steps=20, eval_every=10)
    v = ch05.check_c38(pull)
    assert v.verdict == claims.INCONCLUSIVE and "seed" in v.evidence  # one seed cannot decide
    assert np.asarray(pull.cos).shape == (1, len(pull.steps[0]), 2)


def test_fruit_corpus():
    from embedbook.experiments import ch05_learning as ch05

    corpus = ch05.fruit_corpus(200)
    words = {"苹果", "香蕉", "手机", "电脑"}
    assert all(len(words & set(s)) == 1 for s in corpus)
    assert corpus == ch05.fruit_corpus(200)
    with pytest.raises(ValueError):
        ch05.fruit_corpus(0)


def test_chapter_summary_has_a_line_for_every_outcome():
    from embedbook.experiments import ch05_learning as ch05

    for cid, lines in ch05.SUMMARY.items():
        assert set(lines) == set(claims.rule_of(cid).outcomes), cid


def test_c15_arms_on_a_small_run():
    from embedbook.experiments import ch05_learning as ch05

    r = ch05.run_lr_study(d=8, context=8, seeds=(0,), max_steps=4, eval_every=2)
    assert [a.key for a in r.drift_arms] == [k for k, _, _ in ch05.C15_ARMS]
    assert [(a.optimizer, a.init) for a in r.drift_arms] == [(o, i) for _, o, i in ch05.C15_ARMS]
    for arm in r.drift_arms:
        assert len(arm.cos) == len(arm.drift) == 1 and len(arm.cos[0]) == r.vocab
        assert all(-1.0001 <= c <= 1.0001 for c in arm.cos[0])
    assert r.drift_arms[0].drift == r.drift  # the first arm is the 1x run of the learning-rate study
    v = ch05.check_c15(r)
    assert v.verdict == claims.INCONCLUSIVE and "seed" in v.evidence  # one seed, no plateau: cannot decide
    assert {f"{k}_rare_cos_min" for k, _, _ in ch05.C15_ARMS} <= set(v.figures)


def test_c15_reading_follows_the_arms(monkeypatch):
    """The sentences after the C15 figure follow what the arms measured, not a fixed story."""
    from embedbook.experiments import ch05_learning as ch05

    r = ch05.run_lr_study(d=8, context=8, seeds=(0,), max_steps=4, eval_every=2)
    assert ch05.c15_reading(r).startswith("AdamW moves each coordinate of a row by about its learning rate")

    def fake(cos: dict):
        return lambda _r: [ch05.ArmSummary(k, [0.4], [1.0], [2.0], list(c), [0.5], 10, 10) for k, c in cos.items()]

    # the full-size pattern: only AdamW from N(0, 1) keeps rare rows near their start
    monkeypatch.setattr(ch05, "arm_summaries", fake({"adamw_small": (0.19, 0.21), "adamw_unit": (0.98, 0.99),
                                                    "sgd_small": (0.26, 0.44)}))
    text = ch05.c15_reading(r)
    assert "a few updates turn a small row and barely touch a unit-scale one" in text
    assert "the scale of the start, not rarity alone" in text and "in proportion to its gradient" in text
    # every arm keeps them: the text must not explain a drift that did not happen
    monkeypatch.setattr(ch05, "arm_summaries", fake({"adamw_small": (0.95, 0.96), "adamw_unit": (0.98, 0.99),
                                                    "sgd_small": (0.93, 0.93)}))
    text = ch05.c15_reading(r)
    assert "turn a small row" not in text and "too few to turn it here" in text
    # seeds disagree in one arm
    monkeypatch.setattr(ch05, "arm_summaries", fake({"adamw_small": (0.5, 0.95), "adamw_unit": (0.98, 0.99),
                                                    "sgd_small": (0.2, 0.3)}))
    text = ch05.c15_reading(r)
    assert "The seeds disagree in an AdamW arm" in text and "turn a small row" not in text


def test_c13_evidence_prints_plain_decimals():
    from embedbook.experiments import ch05_learning as ch05

    v = ch05.check_c13(ch05.run_optimizers(drift_steps=3))
    assert "e-0" not in v.evidence and "e+0" not in v.evidence
    assert set(ch05.OPTIMIZER_LABELS) == set(dynamics.DRIFT_OPTIMIZERS)
