"""Chapter 05's C12 and C13 after issue 19: each outcome of the rule comes from a real measurement."""

import torch

from embedbook import claims, lm
from embedbook.experiments import ch05_learning as ch05


def test_c12_decides_on_the_input_lookup_and_reports_the_tied_head():
    r = ch05.run_touched(vocab=200, d=16, batch=2, context=8)
    assert r.touched_untied == r.in_batch and r.touched_absent_untied == 0
    assert r.touched_tied == r.vocab  # the second reading: a tied softmax head writes into every row
    v = ch05.check_c12(r)
    assert v.verdict == claims.CONFIRMED and f"{r.touched_tied:,} of {r.vocab:,}" in v.evidence


def test_c12_refuted_example_is_what_a_table_with_a_second_use_gives():
    """The REFUTED example's figures are what the count reads off a table that also gets gradient elsewhere:
    here the same TinyLM with the head tied, counted as if it were the input table alone."""
    torch.manual_seed(0)
    ids = torch.randint(0, 300, (2, 9))
    from embedbook import dynamics

    rows = dynamics.one_step_rows(lm.TinyLM(lm.LMConfig(300, d_model=16, n_layers=1, context=8, tie=True,
                                                        dropout=0.0)), ids)
    figures = {"in_batch": rows.in_batch, "touched_untied": rows.touched, "touched_absent_untied": rows.touched_absent,
               "present_untouched_untied": rows.present_untouched}
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
