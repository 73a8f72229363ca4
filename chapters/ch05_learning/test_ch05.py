"""Chapter 05's C12, C13 and C14 after issue 19: each outcome of the rule comes from a real measurement."""


import numpy as np
import pytest
import torch

from embedbook import dynamics, lm
from embedbook.book import claims
from embedbook.chapters.ch05_learning import claims as c05
from embedbook.chapters.ch05_learning import measure as ch05


def test_c12_judges_the_gradient_and_the_update_and_reports_the_tied_head():
    r = ch05.run_touched(vocab=200, d=16, batch=2, context=8)
    assert r.touched_untied == r.in_batch and r.touched_absent_untied == 0
    assert r.touched_tied == r.vocab  # context: a tied softmax head writes into every row
    # the update half, from C13's measurement: AdamW moves every absent row, plain SGD none
    assert r.drift["adamw"].absent_rows_moved == r.drift["adamw"].absent_rows > 0
    assert r.drift["sgd"].absent_rows_moved == 0 and r.drift["sparse_adam"].absent_rows_moved == 0
    v = claims.run("C12", r)
    assert v.verdict == claims.CORRECTED and f"{r.touched_tied:,} of {r.vocab:,}" in v.evidence
    assert "chosen after all these counts were known" in v.strength


def test_c12_confirmed_is_what_a_lazy_optimizer_gives():
    """CONFIRMED needs AdamW's absent rows to stay put: the figures of a lazy optimizer (SparseAdam) or plain SGD
    in its place, from the same measurement, give it; AdamW's own give CORRECTED."""
    r = ch05.run_touched(vocab=200, d=16, batch=2, context=8)
    rule = claims.rule_of("C12")
    base = {"in_batch": r.in_batch, "touched_untied": r.touched_untied,
            "touched_absent_untied": r.touched_absent_untied, "present_untouched_untied": r.present_untouched_untied}
    for lazy in ("sparse_adam", "sgd"):
        assert rule({**base, "adamw_absent_rows_moved": r.drift[lazy].absent_rows_moved}) == claims.CONFIRMED
    assert rule({**base, "adamw_absent_rows_moved": r.drift["adamw"].absent_rows_moved}) == claims.CORRECTED


def test_c12_refuted_example_is_what_a_table_with_a_second_use_gives():
    """The REFUTED example's figures are what the count reads off a table that also gets gradient elsewhere:
    here the same TinyLM with the head tied, counted as if it were the input table alone."""
    torch.manual_seed(0)
    ids = torch.randint(0, 300, (2, 9))
    from embedbook import dynamics

    rows = dynamics.one_step_rows(lm.TinyLM(lm.LMConfig(300, d_model=16, n_layers=1, context=8, tie=True,
                                                        dropout=0.0)), ids)
    figures = {"in_batch": rows.in_batch, "touched_untied": rows.touched, "touched_absent_untied": rows.touched_absent,
               "present_untouched_untied": rows.present_untouched, "adamw_absent_rows_moved": 0}
    assert claims.rule_of("C12")(figures) == claims.REFUTED


def test_c13_each_outcome_from_a_real_torch_run():
    rule = claims.rule_of("C13")
    trains = {name: ch05._trains(name) for name in ("SparseAdam", "SGD", "Adam")}
    assert trains == {"SparseAdam": 1, "SGD": 1, "Adam": 0}
    assert rule({"adam_refused": 1, "sparse_adam_trains": trains["SparseAdam"], "sgd_trains": trains["SGD"]}) \
        == claims.CONFIRMED
    # the CORRECTED example: SGD as most LMs configure it, with weight decay, refuses a sparse gradient
    with_decay = ch05._trains("SGD", weight_decay=0.01)
    assert with_decay == 0
    assert rule({"adam_refused": 1, "sparse_adam_trains": 1, "sgd_trains": with_decay}) == claims.CORRECTED
    # the REFUTED example: an optimizer that accepts the sparse gradient in Adam's place (Adagrad does)
    assert rule({"adam_refused": 1 - ch05._trains("Adagrad"), "sparse_adam_trains": 1, "sgd_trains": 1}) \
        == claims.REFUTED


def test_c13_reports_the_dense_reading_and_every_torch_optimizer():
    r = ch05.run_optimizers(drift_steps=3)
    assert set(r.sparse_accepting) | set(r.sparse_refusing) == set(ch05.torch_optimizers())
    assert {"SparseAdam", "SGD"} <= set(r.sparse_accepting) and "Adam" in r.sparse_refusing
    v = claims.run("C13", r)
    assert r.dense_loss_after < r.dense_loss_before and "dense Adam" in v.evidence
    assert "revised in a later review" in v.strength


def test_c14_decides_on_stated_reasons_not_on_dlrm():
    """The real sources give REFUTED, and DLRM (SGD on sparse tables, no reason stated) decides nothing: taking it
    out leaves the verdict; taking out what contradicts (Baevski & Auli's dense NAG model, Li et al.) leaves it
    inconclusive."""
    rule = claims.rule_of("C14")
    real = ch05.C14_LITERATURE.sources

    def verdict(sources):
        return rule(claims.tally(tuple(sources), ch05.C14_COUNTED))

    assert claims.run("C14", ch05.run_survey()).verdict == claims.REFUTED
    assert verdict(real) == claims.REFUTED
    assert verdict(s for s in real if s.cite != "naumov2019dlrm") == claims.REFUTED
    assert verdict(s for s in real if s.cite not in ("baevski2019adaptive", "li2021frequency")) == claims.INCONCLUSIVE
    li = ch05.C14_ADAPTIVE_AT_SCALE
    assert li.cite == "li2021frequency" and li.bears("sgd_for_sparse", claims.CONTRADICTS)


def test_c14_a_stated_reason_is_what_confirms_and_its_record_needs_one():
    r = ch05.TRAINING_RECORDS[-1]  # DLRM: SGD on sparse tables, no reason stated
    assert r.sgd_family and r.sparse_embedding_grads and not r.reason
    assert r.source().supports == ("sgd_on_sparse_unstated",)
    import dataclasses

    import pytest

    with pytest.raises(ValueError):
        dataclasses.replace(r, reason_is_sparse=True)  # a sparse-gradient reason must be a stated one
    stated = dataclasses.replace(r, reason="its tables' gradients are sparse", reason_is_sparse=True)
    assert stated.source().supports == ("sgd_for_sparse_other",)
    rule = claims.rule_of("C14")
    assert rule(claims.tally(ch05.C14_LITERATURE.sources + (stated.source(),), ch05.C14_COUNTED)) == claims.CORRECTED


def test_findings_are_short_and_follow_the_measurements():
    """Each box's visible finding (issue 17) reads for the outcome the rule gave, with the measured figures."""
    r = ch05.run_touched(vocab=200, d=16, batch=2, context=8)
    v = claims.run("C12", r)
    assert v.finding.startswith(f"A backward pass gave gradient to exactly the {r.in_batch} rows of the batch's ids, "
                                "but AdamW then moved")
    assert "only plain SGD and SparseAdam left them" in v.finding
    v = claims.run("C14", ch05.run_survey())
    assert v.verdict == claims.REFUTED and v.finding.startswith("No source gives sparse gradients as the reason")
    assert "9 of 10 large language models" in v.finding
    pull = ch05.run_pull(200, seeds=(0,), lr=1e-2, max_steps=6)
    v = claims.run("C38", pull)
    assert v.verdict == claims.INCONCLUSIVE and v.finding.endswith("Too weak, or the seeds disagree, to judge.")
    assert f"{pull.best[0][0]:+.2f} at the plateau" in v.finding
    for v in (claims.run("C12", r), claims.run("C38", pull)):
        assert 0 < len(v.finding.split()) <= claims.FINDING_WORDS


def test_c15_finding_fits_with_three_seeds_and_a_correction(monkeypatch):
    """The longest C15 finding (a range per arm, two arms where the claim holds) stays within the limit."""
    r = ch05.run_lr_study(vocab_size=2000, d=8, context=8, mult=10.0, seeds=(0,), max_steps=4, eval_every=2)
    monkeypatch.setattr(c05, "_weak", lambda f, t: False)
    arms = [ch05.ArmSummary("adamw_small", [0.4] * 3, [1.0] * 3, [2.0] * 3, [0.91, 0.95, 0.93], [0.5] * 3, 10, 10),
            ch05.ArmSummary("adamw_unit", [0.4] * 3, [1.0] * 3, [2.0] * 3, [0.98, 0.99, 0.985], [0.5] * 3, 10, 10),
            ch05.ArmSummary("sgd_small", [0.4] * 3, [1.0] * 3, [2.0] * 3, [0.26, 0.44, 0.3], [0.5] * 3, 10, 10)]
    for module in (ch05, c05):  # the check (claims.py) reads the arms through its own import of arm_summaries
        monkeypatch.setattr(module, "arm_summaries", lambda _r: arms)
    v = claims.run("C15", r)
    assert v.verdict == claims.CORRECTED
    assert "0.91–0.95 (AdamW, std 0.02)" in v.finding and "holds only with AdamW, std 0.02 and AdamW, N(0, 1)" in v.finding
    assert len(v.finding.split()) <= claims.FINDING_WORDS


# --- chapter 05's experiments, small ---------------------------------------------------------------------


def test_chapter_checks_on_small_runs():
    from embedbook.chapters.ch05_learning import measure as ch05

    # gradient only in the batch's rows, but AdamW still updates the others (cold audit, round 3)
    assert claims.run("C12", ch05.run_touched(vocab=200, d=16, batch=2, context=8)).verdict == claims.CORRECTED
    opt = ch05.run_optimizers(drift_steps=3)
    assert opt.adam_refused == 1 and "sparse" in opt.adam_error.lower()
    assert claims.run("C13", opt).verdict == claims.CONFIRMED  # Adam refuses; SparseAdam and SGD train (issue 19)
    assert claims.run("C14", ch05.run_survey()).verdict == claims.REFUTED  # no source states sparse gradients as why
    pull = ch05.run_pull(40, seeds=(0,), max_steps=20, eval_every=10)
    v = claims.run("C38", pull)
    assert v.verdict == claims.INCONCLUSIVE and "seed" in v.evidence  # one seed cannot decide
    assert np.asarray(pull.cos).shape == (1, len(pull.steps[0]), 2)


def test_fruit_corpus():
    from embedbook.chapters.ch05_learning import measure as ch05

    corpus = ch05.fruit_corpus(200)
    words = {"苹果", "香蕉", "手机", "电脑"}
    assert all(len(words & set(s)) == 1 for s in corpus)
    assert corpus == ch05.fruit_corpus(200)
    with pytest.raises(ValueError):
        ch05.fruit_corpus(0)


def test_chapter_summary_has_a_line_for_every_outcome():
    from embedbook.chapters.ch05_learning import measure as ch05

    for cid, lines in ch05.SUMMARY.items():
        assert set(lines) == set(claims.rule_of(cid).outcomes), cid


def test_c15_arms_on_a_small_run():
    from embedbook.chapters.ch05_learning import measure as ch05

    r = ch05.run_lr_study(vocab_size=2000, d=8, context=8, mult=10.0, seeds=(0,), max_steps=4, eval_every=2)
    assert [a.key for a in r.drift_arms] == [k for k, _, _ in ch05.C15_ARMS]
    assert [(a.optimizer, a.init) for a in r.drift_arms] == [(o, i) for _, o, i in ch05.C15_ARMS]
    for arm in r.drift_arms:
        assert len(arm.cos) == len(arm.drift) == 1 and len(arm.cos[0]) == r.vocab
        assert all(-1.0001 <= c <= 1.0001 for c in arm.cos[0])
    assert r.drift_arms[0].drift == r.drift  # the first arm is the 1x run of the learning-rate study
    v = claims.run("C15", r)
    assert v.verdict == claims.INCONCLUSIVE and "seed" in v.evidence  # one seed, no plateau: cannot decide
    assert {f"{k}_rare_cos_min" for k, _, _ in ch05.C15_ARMS} <= set(v.figures)


def test_c15_reading_follows_the_arms(monkeypatch):
    """The sentences after the C15 figure follow what the arms measured, not a fixed story."""
    from embedbook.chapters.ch05_learning import measure as ch05

    r = ch05.run_lr_study(vocab_size=2000, d=8, context=8, mult=10.0, seeds=(0,), max_steps=4, eval_every=2)
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
    from embedbook.chapters.ch05_learning import measure as ch05

    v = claims.run("C13", ch05.run_optimizers(drift_steps=3))
    assert "e-0" not in v.evidence and "e+0" not in v.evidence
    assert set(ch05.OPTIMIZER_LABELS) == set(dynamics.DRIFT_OPTIMIZERS)


# --- the lesson's exercises: each answer is what its code gives ------------------------------------------------


def _lesson_loop(warm):
    """The lesson's core loop (cell l05core), with step 1's batch ``warm``: rows with gradient and rows moved in
    step 2, per optimizer."""
    import torch.nn.functional as F
    from torch import nn

    head = torch.randn(10, 4, generator=torch.Generator().manual_seed(1))

    def loss_of(E, batch):
        return F.cross_entropy(E(batch) @ head.T, (batch + 1) % 10)

    optimizers = {
        "SGD": lambda p: torch.optim.SGD(p, lr=0.1),
        "SGD + momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
        "Adam": lambda p: torch.optim.Adam(p, lr=0.1),
        "AdamW": lambda p: torch.optim.AdamW(p, lr=0.1, weight_decay=0.1),
        "SparseAdam": lambda p: torch.optim.SparseAdam(p, lr=0.1),
    }
    batch = torch.tensor([2, 5, 5, 7])
    out = {}
    for name, make in optimizers.items():
        torch.manual_seed(0)
        E = nn.Embedding(10, 4, sparse=name == "SparseAdam")
        opt = make(E.parameters())
        loss_of(E, warm).backward(); opt.step(); opt.zero_grad()
        before = E.weight.detach().clone()
        loss_of(E, batch).backward()
        grad = E.weight.grad.to_dense().norm(dim=1)
        opt.step()
        update = (E.weight.detach() - before).norm(dim=1)
        out[name] = ((grad > 0).nonzero().flatten().tolist(), (update > 0).nonzero().flatten().tolist())
    return out


def test_lesson_loop_is_run_row_updates_and_moves_what_the_page_says():
    rows = _lesson_loop(torch.arange(10))
    pkg = ch05.run_row_updates([2, 5, 5, 7])
    for name, key in zip(rows, dynamics.DRIFT_OPTIMIZERS):
        assert rows[name] == (pkg.rows_with_gradient(key), pkg.rows_moved(key))
    assert all(g == [2, 5, 7] for g, _ in rows.values())
    assert rows["SGD"][1] == rows["SparseAdam"][1] == [2, 5, 7]
    assert rows["SGD + momentum"][1] == rows["Adam"][1] == rows["AdamW"][1] == list(range(10))


def test_exercise_1_one_position_one_row():
    from torch import nn

    torch.manual_seed(0)
    E = nn.Embedding(10, 4)
    E(torch.tensor([[2, 5, 5, 7]]))[0, 1].sum().backward()
    assert (E.weight.grad != 0).any(dim=1).nonzero().flatten().tolist() == [5]


def test_exercise_2_rows_never_seen_move_only_under_weight_decay():
    rows = _lesson_loop(torch.arange(5))
    assert rows["SGD"][1] == rows["SparseAdam"][1] == [2, 5, 7]
    assert rows["SGD + momentum"][1] == rows["Adam"][1] == [0, 1, 2, 3, 4, 5, 7]
    assert rows["AdamW"][1] == list(range(10))
    pkg = ch05.run_row_updates([2, 5, 5, 7], warm=list(range(5)))
    assert [pkg.rows_moved(k) for k in dynamics.DRIFT_OPTIMIZERS] == [r for _, r in rows.values()]


def test_exercise_3_sparse_adam_moves_the_batch_and_adam_refuses():
    from torch import nn

    def two_steps(optimizer):
        torch.manual_seed(0)
        E = nn.Embedding(10, 4, sparse=True)
        opt = optimizer(E.parameters(), lr=0.1)
        E(torch.arange(10)).sum().backward(); opt.step(); opt.zero_grad()
        before = E.weight.detach().clone()
        E(torch.tensor([0, 1])).sum().backward(); opt.step()
        return (E.weight.detach() != before).any(dim=1).nonzero().flatten().tolist()

    assert two_steps(torch.optim.SparseAdam) == [0, 1]
    with pytest.raises(RuntimeError, match="Adam does not support sparse gradients, please consider SparseAdam instead"):
        two_steps(torch.optim.Adam)


def test_exercise_4_shared_contexts_pull_the_control_pair_up(monkeypatch):
    torch.set_num_threads(1)
    before = ch05.run_pull(300, seeds=(0,), lr=1e-2, max_steps=2000)
    assert round(before.best[0][1], 2) == -0.04
    monkeypatch.setattr(ch05, "FRUIT_CONTEXTS", ch05.PHONE_CONTEXTS)
    after = ch05.run_pull(300, seeds=(0,), lr=1e-2, max_steps=2000)
    fruit, phone = after.best[0]
    assert round(phone, 2) == 0.61 and round(fruit, 2) == 0.67


def test_and_all_joins_both_languages():
    msg = ch05.and_all(["SGD", "Adam", "AdamW"])
    assert msg.en == "SGD, Adam and AdamW"
    assert ch05.and_all(["SGD"]).en == "SGD"
