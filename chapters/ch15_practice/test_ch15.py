"""Tests for chapter 15's experiments (embedbook.chapters.ch15_practice.measure): the C30 and C48 checks on
hand-made results, and tiny real runs of both experiments."""

import pytest

from embedbook import align
from embedbook.book import claims, ledger
from embedbook.chapters.ch15_practice import claims as c15
from embedbook.chapters.ch15_practice import measure as ch


def _finetune(target, source_after, seeds=3, plateau=True):
    """``target[mode]`` / ``source_after[mode]``: per-seed losses; pre-training ends at 4.5 on the source."""
    pre = [ch.Pretrained(seed=s, source_loss=4.5, target_loss=5.0, best_step=100, plateau=plateau) for s in range(seeds)]
    tuned = [ch.Tuned(mode=m, seed=s, target_loss=target[m][s], source_loss=source_after[m][s], best_step=40,
                      plateau=plateau) for m in ch.MODES for s in range(seeds)]
    return ch.FineTune(vocab=512, d_model=32, n_layers=2, source_tokens=32000, target_tokens=8000, n_source_val=8000,
                       n_target_val=16000, n_seeds=seeds, lr=1e-2, ft_lr=3e-3, small_mult=0.1, unigram_source=5.3,
                       unigram_target=5.3, target_pieces_per_word=2.8, source_pieces_per_word=2.8, pre=pre,
                       tuned=tuned)


def test_c30_outcomes():
    """Two readings of what the practice buys (fit to the news, Wikipedia kept); opposite readings are inconclusive."""
    same_source = {m: [4.6, 4.6, 4.6] for m in ch.MODES}  # the source loss rose 0.1 in every arm: nothing kept
    slowed_fits_better = {"full": [4.5, 4.5, 4.5], "small_lr": [4.45, 4.48, 4.47], "frozen": [4.6, 4.6, 4.6]}
    full_fits_better = {"full": [4.4, 4.4, 4.4], "small_lr": [4.45, 4.48, 4.47], "frozen": [4.6, 4.6, 4.6]}
    frozen_keeps = {"full": [4.8, 4.8, 4.8], "small_lr": [4.8, 4.8, 4.8], "frozen": [4.6, 4.7, 4.65]}
    assert claims.run("C30", _finetune(slowed_fits_better, frozen_keeps)).verdict == claims.CONFIRMED
    v = claims.run("C30", _finetune(full_fits_better, frozen_keeps))  # the build's case: the readings disagree
    assert v.verdict == claims.INCONCLUSIVE and "point opposite ways" in v.evidence
    assert claims.run("C30", _finetune(slowed_fits_better, same_source)).verdict == claims.INCONCLUSIVE
    v = claims.run("C30", _finetune(full_fits_better, same_source))  # premise met (source loss rose 0.1), nothing kept
    assert v.verdict == claims.REFUTED and "fitted the news better than both on every seed" in v.evidence
    no_forgetting = {m: [4.45, 4.44, 4.43] for m in ch.MODES}  # the source loss fell: retention cannot be tested
    v = claims.run("C30", _finetune(slowed_fits_better, no_forgetting))
    assert v.verdict == claims.CONFIRMED and "cannot be tested" in v.evidence
    assert claims.run("C30", _finetune(full_fits_better, no_forgetting)).verdict == claims.REFUTED
    assert "was not varied" in v.evidence  # the article's 'especially under a large shift'
    assert len(ledger.load()["C30"]) > 1  # changed after measuring, and the ledger (so the box) says so
    tiny_keep = {"full": [4.6, 4.6, 4.6], "small_lr": [4.598, 4.597, 4.596], "frozen": [4.6, 4.6, 4.6]}
    assert claims.run("C30", _finetune(full_fits_better, tiny_keep)).verdict == claims.REFUTED  # keep below min_effect
    mixed_keep = {"full": [4.6, 4.6, 4.6], "small_lr": [4.58, 4.61, 4.6], "frozen": [4.6, 4.6, 4.6]}
    assert claims.run("C30", _finetune(same_source, mixed_keep)).verdict == claims.INCONCLUSIVE  # both inside the spread
    assert claims.run("C30", _finetune(slowed_fits_better, frozen_keeps, plateau=False)).verdict == claims.INCONCLUSIVE


def test_finetune_summaries():
    r = _finetune({"full": [4.5] * 3, "small_lr": [4.4] * 3, "frozen": [4.6] * 3},
                  {"full": [4.8] * 3, "small_lr": [4.7] * 3, "frozen": [4.5] * 3})
    assert r.target_gain("small_lr").mean == pytest.approx(0.1)
    assert r.forgetting("frozen") == pytest.approx([0.0] * 3)
    assert r.retention("frozen").mean == pytest.approx(0.3)
    assert r.pre_margin() == pytest.approx(0.8)


def _fold(before, after, shuffled):
    return align.Alignment(n_pairs=280, n_usable=279, n_fit=186, n_test=93, n_candidates=50000, p1_before=0.0,
                           p5_before=before, p1_after=after / 2, p5_after=after, cos_before=0.0, cos_after=0.5,
                           p1_shuffled=0.0, p5_shuffled=shuffled)


def _crosslingual(folds):
    mean = lambda name: sum(getattr(f, name) for f in folds) / len(folds)
    return ch.CrossLingual(zh_words=15000, zh_tokens=1_100_000, dim=50, n_candidates=50000, n_pairs=280,
                           n_usable=279, k=len(folds), p1_before=0.0, p5_before=mean("p5_before"),
                           p1_after=mean("p1_after"), p5_after=mean("p5_after"), p5_shuffled=mean("p5_shuffled"),
                           cos_before=0.0, cos_after=0.5, folds=folds)


def test_c48_outcomes(swap_sources):
    v = claims.run("C48", _crosslingual([_fold(0.0, 0.2, 0.0)] * 3))
    assert v.verdict == claims.CORRECTED and "post-hoc alignment works" in v.evidence
    assert "Rule revised after an external audit" in v.strength and "Basis: literature" in v.strength
    # the joint-model half comes from the studies: a failing map does not change it, and the text says so
    v = claims.run("C48", _crosslingual([_fold(0.0, 0.01, 0.0)] * 3))
    assert v.verdict == claims.CORRECTED and "not shown to work here" in v.evidence
    # without the joint-model studies, the measurement decides whether alignment arises without parallel data
    swap_sources("C48", *[s for s in c15.C48_SOURCES if not s.bears("aligned_without_parallel")])
    assert claims.run("C48", _crosslingual([_fold(0.0, 0.2, 0.0)] * 3)).verdict == claims.CORRECTED
    assert claims.run("C48", _crosslingual([_fold(0.0, 0.01, 0.0)] * 3)).verdict == claims.CONFIRMED
    assert claims.run("C48", _crosslingual([_fold(0.0, 0.05, 0.0)] * 3)).verdict == claims.INCONCLUSIVE
    assert claims.run("C48", _crosslingual([_fold(0.0, 0.2, 0.0)] * 2)).verdict == claims.INCONCLUSIVE  # too few folds
    swap_sources("C48", *[s for s in c15.C48_SOURCES if not s.bears("aligned_without_parallel")
                                and not s.bears("parallel_improves")])
    assert claims.run("C48", _crosslingual([_fold(0.0, 0.2, 0.0)] * 3)).verdict == claims.REFUTED


def test_run_alignment_tiny():
    r = ch.run_alignment(zh_lines=2000, epochs=1, n_candidates=20000, k=3)
    assert r.k == 3 and len(r.folds) == 3 and r.dim == 50
    assert 0.0 <= r.p5_before <= 1.0 and r.n_usable > 30
    assert claims.run("C48", r).verdict in claims.VERDICTS
    assert r.top5 and all(len(top) == 5 and hit in (0, 1) and (hit == 1) == (gold in top) for _, gold, top, hit in r.top5)
    if all(a.n_test <= 40 for a in r.folds):  # every held-out word shown: the hits are precision@5
        hits = sum(hit for *_, hit in r.top5)
        assert abs(hits / sum(a.n_test for a in r.folds) - r.p5_after) < 0.05


def test_run_finetune_tiny_and_bad_input():
    r = ch.run_finetune(2000, 1000, 1, source_val_tokens=1000, target_val_tokens=1000, max_steps=4, eval_every=2,
                        patience=1, batch_size=16, context=8)
    assert len(r.pre) == 1 and len(r.tuned) == 3 and {t.mode for t in r.tuned} == set(ch.MODES)
    assert claims.run("C30", r).verdict == claims.INCONCLUSIVE  # one seed can never decide
    assert r.n_target_val == 1000 and r.n_source_val == 1000
    with pytest.raises(ValueError, match="small_mult"):
        ch.run_finetune(2000, 1000, 1, source_val_tokens=1000, target_val_tokens=1000, max_steps=4, eval_every=2,
                        batch_size=8, small_mult=2.0)


def test_summary_c30_words_follow_the_signs():
    r = _finetune({"full": [4.5] * 3, "small_lr": [4.4] * 3, "frozen": [4.6] * 3},
                  {"full": [4.8] * 3, "small_lr": [4.7] * 3, "frozen": [4.5] * 3})
    text = ch.summary_c30(r)
    assert text.startswith("Over 3 seeds, full fine-tuning raised the Wikipedia loss by 0.300 to 0.300 nats")
    assert "fitted the news 0.100 nats better" in text and "fitted the news 0.100 nats worse" in text
    assert "kept 0.100 nats more of Wikipedia" in text and "kept 0.300 nats more" in text
    r = _finetune({m: [4.5] for m in ch.MODES}, {"full": [4.4], "small_lr": [4.45], "frozen": [4.4]}, seeds=1)
    text = ch.summary_c30(r)
    assert text.startswith("Over one seed, full fine-tuning lowered the Wikipedia loss by 0.100 to 0.100 nats")
    assert "kept 0.050 nats less of Wikipedia" in text and "e-0" not in text


def test_crosslingual_fit_pairs_and_shown_examples():
    folds = [_fold(0.0, 0.2, 0.0) for _ in range(3)]
    for f, n in zip(folds, (185, 186, 186)):
        f.n_fit = n
    r = _crosslingual(folds)
    assert r.fit_pairs() == 186 == r.glued()["n_fit"]
    assert "about 186 dictionary pairs" in claims.run("C48", r).evidence  # the summary and the verdict say one number
    r.top5 = [("猫", "cat", ["dog", "cat", "cats", "pet", "kitten"], 1),
              ("父亲", "father", ["grandmother", "mother", "son", "wife", "daughter"], 0),
              ("狗", "dog", ["dog", "dogs", "cat", "pet", "puppy"], 1)]
    shown = r.shown(hits=1, misses=5)
    assert shown == [("猫", "cat", "dog, cat, cats, pet, kitten", "yes"),
                     ("父亲", "father", "grandmother, mother, son, wife, daughter", "no")]


def test_finetune_data_and_base_model_are_what_run_finetune_trains():
    """run_finetune trains exactly on these two helpers (its data and its pre-trained model, seeded)."""
    import torch

    from embedbook import lm

    d = ch.finetune_data(2000, 1000, source_val_tokens=1000, target_val_tokens=1000)
    assert (len(d.src_train), len(d.tgt_train), len(d.src_val), len(d.tgt_val)) == (2000, 1000, 1000, 1000)
    a, b = ch.base_model(d.vocab_size, context=8, seed=3), ch.base_model(d.vocab_size, context=8, seed=3)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    assert not a.cfg.tie and a.cfg.d_model == 32
    h = lm.train(a, d.src_train, d.src_val, steps=4, batch_size=16, lr=1e-2, eval_every=2, seed=3, progress=False,
                 patience=1, min_delta=0.01)
    r = ch.run_finetune(2000, 1000, 1, source_val_tokens=1000, target_val_tokens=1000, max_steps=4, eval_every=2,
                        patience=1, batch_size=16, context=8, first_seed=3)
    assert r.pre[0].source_loss == h.best_val_loss and r.pre[0].best_step == h.best_step
    with pytest.raises(ValueError, match="positive"):
        ch.finetune_data(0, 1000)


# --- the lesson's exercises: each answer is what its code gives ------------------------------------------------


def _lesson_procrustes(rows: int = 100, noise: float = 0.05):
    """The lesson's toy: 100 'Chinese' rows, a hidden rotation Q, noisy 'English' rows; W fitted on the first rows."""
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 5))
    Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    Y = X @ Q + noise * rng.normal(size=(100, 5))
    U, _, Vt = np.linalg.svd(X[:rows].T @ Y[:rows])
    W = U @ Vt
    return float(np.abs(W - Q).max()), bool(np.allclose(W @ W.T, np.eye(5)))


def test_exercise_1_three_pairs_leave_the_map_unconstrained():
    base, _ = _lesson_procrustes()
    three, orthogonal = _lesson_procrustes(rows=3)
    assert round(base, 3) == 0.007 and round(three, 2) == 0.17 and orthogonal


def test_exercise_2_ten_times_the_noise():
    base, _ = _lesson_procrustes()
    noisy, orthogonal = _lesson_procrustes(noise=0.5)
    assert orthogonal and round(noisy, 2) == 0.07 and 8 < noisy / base < 12  # "ten times further"


def test_exercise_3_a_slower_table_moves_ten_times_less():
    import copy

    import torch
    from torch import nn

    def moved(lr_table):
        torch.manual_seed(0)
        pretrained = nn.Sequential(nn.Embedding(100, 8), nn.Linear(8, 100))
        model = copy.deepcopy(pretrained)
        logits = model(torch.tensor([1, 2, 3]))
        nn.functional.cross_entropy(logits, torch.tensor([2, 3, 4])).backward()
        torch.optim.Adam([{"params": model[0].parameters(), "lr": lr_table},
                          {"params": model[1].parameters(), "lr": 3e-3}]).step()
        return (model[0].weight - pretrained[0].weight).abs().max().item()

    full, slowed, slower = moved(3e-3), moved(3e-4), moved(3e-5)
    assert 9.5 < slowed / slower < 10.5 and 95 < full / slower < 105  # ten times; a hundredth of the full step
