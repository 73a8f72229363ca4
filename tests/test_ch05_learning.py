"""Chapter 05's C12, C13 and C14 after issue 19: each outcome of the rule comes from a real measurement."""

import torch

from embedbook import claims, lm
from embedbook.experiments import ch05_learning as ch05


def test_c12_judges_the_gradient_and_the_update_and_reports_the_tied_head():
    r = ch05.run_touched(vocab=200, d=16, batch=2, context=8)
    assert r.touched_untied == r.in_batch and r.touched_absent_untied == 0
    assert r.touched_tied == r.vocab  # context: a tied softmax head writes into every row
    # the update half, from C13's measurement: AdamW moves every absent row, plain SGD none
    assert r.drift["adamw"].absent_rows_moved == r.drift["adamw"].absent_rows > 0
    assert r.drift["sgd"].absent_rows_moved == 0 and r.drift["sparse_adam"].absent_rows_moved == 0
    v = ch05.check_c12(r)
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
    v = ch05.check_c13(r)
    assert r.dense_loss_after < r.dense_loss_before and "dense Adam" in v.evidence
    assert "revised in round 3" in v.strength


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
