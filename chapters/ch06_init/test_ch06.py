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


# --- the lesson's mechanism and exercises: each answer is what its code gives ---------------------------------


def _tables(V, d):
    """The lesson's mechanism cells: five tables from one generator state, and hidden states from their own."""
    import torch
    from torch.nn.init import xavier_uniform_

    g = lambda: torch.Generator().manual_seed(0)
    tables = {"N(0,1)": torch.empty(V, d).normal_(0, 1, generator=g()),
              "N(0,0.02²)": torch.empty(V, d).normal_(0, 0.02, generator=g()),
              "N(0,1/d)": torch.empty(V, d).normal_(0, d ** -0.5, generator=g()),
              "var 1/√d": torch.empty(V, d).normal_(0, d ** -0.25, generator=g()),
              "Xavier": xavier_uniform_(torch.empty(V, d), generator=g())}
    noise = torch.randn(512, d, generator=torch.Generator().manual_seed(1))
    return tables, noise


def _spreads(tables, hidden):
    return {name: float((hidden @ E.T).std()) for name, E in tables.items()}


def test_lesson_hidden_states_are_independent_of_the_tables():
    """The forward-pass cell draws its hidden states from a generator of their own: the tied-logit spread is
    σ√d (at d = 64: 8, 0.16, 1, 2.83, 0.35), not inflated by hidden rows equal to table rows (issue 31: the
    global RNG seeded to 0 gave the first table's own rows)."""
    import torch

    tables, noise = _tables(1000, 64)
    hidden = torch.nn.functional.layer_norm(noise, (64,))
    got = _spreads(tables, hidden)
    for name, want in (("N(0,1)", 8.0), ("N(0,0.02²)", 0.16), ("N(0,1/d)", 1.0), ("var 1/√d", 64 ** 0.25)):
        assert got[name] == pytest.approx(want, rel=0.02), name


def test_exercise_1_unnormalised_hidden_states_triple_every_spread():
    import torch

    tables, noise = _tables(1000, 64)
    normed = _spreads(tables, torch.nn.functional.layer_norm(noise, (64,)))
    tripled = _spreads(tables, noise * 3)
    for name in tables:
        assert tripled[name] / normed[name] == pytest.approx(3, rel=0.02), name


def test_exercise_2_at_width_1024():
    import torch

    tables, noise = _tables(1000, 1024)
    got = _spreads(tables, torch.nn.functional.layer_norm(noise, (1024,)))
    assert f"{got['N(0,1/d)']:.2f}" == "1.00" and f"{got['var 1/√d']:.2f}" == "5.66"
    tables, noise = _tables(1000, 64)
    assert f"{_spreads(tables, torch.nn.functional.layer_norm(noise, (64,)))['var 1/√d']:.2f}" == "2.82"


def test_exercise_3_a_ten_times_larger_first_step():
    import torch
    from torch import nn

    tables, noise = _tables(1000, 64)
    hidden = torch.nn.functional.layer_norm(noise, (64,))
    moved = {}
    for lr in (3e-3, 3e-2):
        for name in ("N(0,1)", "N(0,0.02²)"):
            E0 = tables[name]
            E = nn.Parameter(E0.clone())
            opt = torch.optim.AdamW([E], lr=lr)
            (hidden[:32] @ E.T).logsumexp(dim=1).mean().backward()
            opt.step()
            moved[lr, name] = float((E - E0).norm() / E0.norm())
            # an entry moves by at most about the learning rate (weight decay adds lr · 0.01 · |entry|)
            assert (E - E0).abs().max() <= lr * 1.05
    assert f"{moved[3e-2, 'N(0,1)']:.1%}" == "2.7%" and round(moved[3e-2, "N(0,0.02²)"], 1) == 1.5
    for name in ("N(0,1)", "N(0,0.02²)"):
        assert moved[3e-2, name] / moved[3e-3, name] == pytest.approx(10, rel=0.01)


def test_lesson_step0_loop_is_run_step0_and_exercise_4_untied():
    """The lesson's core loop on two schemes equals run_step0 on seed 0; untied (exercise 4), N(0, 1)'s logits
    spread by 0.16 and its initial loss is 6.92 nats, next to ln V = 6.91."""
    import math

    import numpy as np
    import torch
    import torch.nn.functional as F

    from embedbook import lm
    from embedbook.chapters.ch06_init import measure as ch06

    vocab, _, val_ids = ch06.lee(1000)
    T, n = 32, 8
    x, y = val_ids[: n * T].view(n, T), val_ids[1: n * T + 1].view(n, T)

    def figures(scheme, tie):
        torch.manual_seed(0)
        cfg = lm.LMConfig(len(vocab), d_model=64, n_layers=1, context=T, tie=tie, init=scheme, dropout=0.0)
        model = lm.TinyLM(cfg).eval()
        with torch.no_grad():
            logits = model(x)
            rms = model.embed(x).pow(2).mean().sqrt().item()
            loss0 = F.cross_entropy(logits.flatten(0, 1), y.flatten()).item()
        return rms, logits.std().item(), loss0

    step0 = ch06.run_step0(1000, dims=(64,), seeds=(0,), windows=n, schemes=("torch_default", "normal_0.02"))
    for scheme in ("torch_default", "normal_0.02"):
        s = step0.stats[scheme][64]
        assert np.allclose((s["emb_rms"], s["logit_std"], s["loss0"]), figures(scheme, True), rtol=1e-5)
    # exercise 4 runs the lesson's loop on its 64 windows
    x, y = val_ids[: 64 * T].view(64, T), val_ids[1: 64 * T + 1].view(64, T)
    _, spread, loss0 = figures("torch_default", False)
    assert f"{spread:.2f}" == "0.16" and f"{loss0:.2f}" == "6.92" and f"{math.log(len(vocab)):.2f}" == "6.91"
