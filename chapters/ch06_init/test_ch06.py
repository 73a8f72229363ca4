"""Chapter 06's tests: its measurements on small inputs, its rules and its checks."""

import pytest

from embedbook.book import claims
from tests.findings import all_findings


def test_chapter_summary_has_a_line_for_every_outcome():
    from embedbook.chapters.ch06_init import measure as ch06

    for cid, lines in ch06.SUMMARY.items():
        assert set(lines) == set(claims.rule_of(cid).outcomes), cid


def test_c21_and_c23_on_small_runs():
    from embedbook.chapters.ch06_init import measure as ch06

    step0 = ch06.run_step0(1000, dims=(64,), seeds=(0,), windows=4, schemes=(ch06.LITERAL, ch06.READING, "xavier_normal"))
    assert claims.run("C21", step0).verdict == claims.CORRECTED
    default = ch06.run_default(1000, seeds=(0,))
    assert abs(default.default_std - 1) < 0.02 and default.step_default * 10 < default.step_small
    sweep = ch06.run_warmup(default, 1000, seeds=(0,), warmup=5, max_steps=10)
    assert set(sweep.runs) == set(ch06.WARMUP_INITS) and all(len(a[0]) == len(a[1]) == 1
                                                          for by_lr in sweep.runs.values() for a in by_lr.values())
    # the untied arm: the same sweep with tie=False, at the higher learning rate only
    assert sweep.tie and not sweep.untied.tie and sweep.untied.untied is None
    assert sweep.untied.lrs == [ch06.WARMUP_LRS[1]] and set(sweep.untied.runs) == set(ch06.WARMUP_INITS)
    # one seed and ten steps: no run reaches a plateau, so nothing may decide
    v = claims.run("C23", sweep)
    assert v.verdict == claims.INCONCLUSIVE and "Untied head, lr 0.01" in v.evidence
    with pytest.raises(ValueError, match="two learning rates"):
        ch06.run_warmup(default, 1000, seeds=(0,), warmup=5, lrs=(1e-3,), max_steps=10)
    with pytest.raises(ValueError, match="one untied"):
        ch06.run_warmup(default, 1000, seeds=(0,), warmup=5, lrs=ch06.WARMUP_LRS, max_steps=10, tie=False)
    with pytest.raises(ValueError, match="untied sweep"):
        claims.run("C23", ch06.run_warmup(default, 1000, seeds=(0,), warmup=2, max_steps=4, untied_lrs=()))


def test_c23_needs_the_tied_and_the_untied_model_to_agree():
    """The cold audit's untied re-run (no gain for the N(0, 1) table) against a tied sweep that confirms."""
    from embedbook.chapters.ch06_init import claims as c06

    rule = claims.rule_of("C23")
    confirmed = dict(rule.examples[claims.CONFIRMED])
    audit = c06._c23_example((1, c06._QUIET, c06._QUIET), (1, (0.018, 0.496, 0.194), (-0.003, 0.012, 0.004)),
                              c06._AUDIT_UNTIED)
    assert rule(audit) == claims.INCONCLUSIVE  # tied confirms, untied cannot: not settled
    untied = {k: v for k, v in confirmed.items() if k.startswith("untied_")}
    assert rule(audit | untied) == claims.CONFIRMED  # the untied model confirming too settles it
    assert rule(confirmed | {"untied_ok": 0}) == claims.INCONCLUSIVE  # an untied arm that may not decide
    # the untied model reads "corrected" (std 0.02 gains as much), the tied one "confirmed": they disagree
    corrected = dict(rule.examples[claims.CORRECTED])
    assert rule(confirmed | {k: v for k, v in corrected.items() if k.startswith("untied_")}) == claims.INCONCLUSIVE
    # the tied model alone at lr 1e-2 (its lr 3e-3 quiet) still counts as the tied reading, as before
    assert rule(confirmed | {"slow_ok": 0}) == claims.CONFIRMED


def test_every_finding_fits_the_box_and_names_no_code(monkeypatch):
    from embedbook.chapters.ch06_init import measure as ch06

    step0 = ch06.run_step0(1000, dims=(64,), seeds=(0,), windows=4, schemes=(ch06.LITERAL, ch06.READING))
    texts = all_findings(monkeypatch, lambda: claims.run("C21", step0))
    sweep = ch06.run_warmup(ch06.run_default(1000, seeds=(0,)), 1000, seeds=(0,), warmup=2, max_steps=4)
    texts += all_findings(monkeypatch, lambda: claims.run("C23", sweep),
                       ({}, {"n_seeds": 3}, {"default_std": 0.5}, {"default_std": 1.0, "fast_unit_lo": -12.3456}))
    pre = ch06.run_pretrained(1000, small_tokens=3000, seeds=(0,), max_steps=4, eval_every=2)
    texts += all_findings(monkeypatch, lambda: claims.run("C22", pre), ({}, {"n_seeds": 3, "plateau_all": 1}))
    for text in texts:
        assert 0 < len(text.split()) <= claims.FINDING_WORDS, text
        assert not any(code in text for code in ("C21", "C22", "C23", "min_effect", "logit_std_max", "`")), text


def test_the_warmup_sweep_repeats_run_warmup_arm():
    """run_warmup's runs are run_warmup_arm's, the loop the chapter writes out (same best loss and step)."""
    from embedbook.chapters.ch06_init import measure as ch06

    sweep = ch06.run_warmup(ch06.run_default(1000, seeds=(0,)), 1000, seeds=(0,), warmup=2, max_steps=6, eval_every=2,
                            untied_lrs=())
    _, h = ch06.run_warmup_arm("normal_0.02", ch06.WARMUP_LRS[1], 0, vocab_size=1000, warmup=2, max_steps=6, eval_every=2)
    run = sweep.runs["normal_0.02"][ch06.WARMUP_LRS[1]][1][0]
    assert (run["best_val"], run["best_step"], run["plateau"]) == (h.best_val_loss, h.best_step, int(h.plateau))
    _, cold = ch06.run_warmup_arm("normal_0.02", ch06.WARMUP_LRS[1], 0, warm=False, vocab_size=1000, warmup=2,
                                  max_steps=6,
                                  eval_every=2)
    assert sweep.runs["normal_0.02"][ch06.WARMUP_LRS[1]][0][0]["best_val"] == cold.best_val_loss
