"""Tests for chapter 04's experiments (embedbook.chapters.ch04_tying.measure): parameter counts (issue 11,
finding 14: ``param_counts(1000, 64, tie=False)`` gives a clear error), the tie as one shared tensor, the
C08 check on hand-made runs, the C09 check from the literature, and a tiny real run."""

import math

import pytest
import torch

from embedbook import lm
from embedbook.book import claims
from embedbook.chapters.ch04_tying import claims as c04
from embedbook.chapters.ch04_tying import measure as ch


def test_param_counts_differ_by_vd():
    p = ch.param_counts(100, 16, n_layers=1, n_heads=2, context=8)
    assert p.untied - p.tied == 100 * 16
    assert p.untied_embedding == 2 * p.tied_embedding == 2 * 100 * 16
    assert p.glued()["saved"] == 1600


def test_param_counts_with_tie_gives_a_clear_error():
    with pytest.raises(ValueError, match="both tied and untied: leave out tie="):
        ch.param_counts(1000, 64, tie=False)


def test_the_tie_is_one_tensor_with_gradient_from_both_uses():
    model = lm.TinyLM(lm.LMConfig(50, d_model=8, n_layers=1, n_heads=2, context=4, tie=True, dropout=0.0))
    assert model.head.weight is model.embed.weight
    ids = torch.tensor([[1, 2, 3]])
    model(ids)[0, -1, 40].backward()  # row 40 is only ever used by the head, rows 1–3 by the lookup too
    rows = set((model.embed.weight.grad.abs().sum(1) > 0).nonzero().flatten().tolist())
    assert {1, 2, 3, 40} <= rows


def _run(tie, seed, n, loss):
    return ch.Run(tie=tie, seed=seed, n_train=n, steps=[0, 20], val_loss=[6.0, loss], train_loss=[6.0, loss - 0.3],
                  best_step=20, best_val_loss=loss, train_at_best=loss - 0.3, plateau=True, tokens_per_s=1.0)


def _tying(small, large, seeds=3, uni=5.2):
    """Hand-made runs: ``small`` / ``large`` are per-seed (tied, untied) best losses."""
    runs = [_run(tie, s, n, pair[0 if tie else 1]) for n, arm in ((1000, small), (4000, large))
            for s, pair in enumerate(arm) for tie in (True, False)]
    return ch.Tying(vocab=512, d_model=32, n_layers=1, context=32, batch_size=32, lr=0.01, eval_every=20, patience=5,
                    min_delta=0.01, small_tokens=1000,
                    large_tokens=4000, n_val=5000, n_seeds=seeds, unigram_small=uni, unigram_large=uni,
                    params_tied=30000, params_untied=46000, params_embedding=16000, runs=runs)


def test_c08_is_decided_by_the_literature_whatever_the_miniature_shows():
    assert claims.rule_of("C08").basis == claims.LITERATURE
    tied_wins = _tying([(4.5, 4.6)] * 3, [(4.0, 4.05), (4.0, 4.02), (4.0, 4.03)])
    untied_wins = _tying([(4.6, 4.5)] * 3, [(4.0, 4.02), (4.0, 3.99), (4.0, 4.01)])
    a, b = claims.run("C08", tied_wins), claims.run("C08", untied_wins)
    assert a.verdict == b.verdict == claims.CORRECTED  # the cited studies decide, both ways alike
    assert "tying lowered the loss on every seed" in a.evidence
    assert "untying lowered the loss on every seed" in b.evidence
    assert "53% more parameters" in b.strength and "Rule revised after an external audit" in b.strength
    assert "generalisation gap" in b.evidence and "Press & Wolf" in b.evidence


def test_c08_rule_reaches_every_outcome_from_the_sources(swap_sources):
    r = _tying([(4.5, 4.6)] * 3, [(4.0, 4.05)] * 3)
    improve = [s for s in c04.C08_SOURCES if s.bears("tying_improves")]
    hurt = [s for s in c04.C08_SOURCES if s.bears("tying_improves", claims.CONTRADICTS)]
    assert claims.run("C08", r).figures["studies_hurt"] == len(hurt) == 2  # Chung et al., MobileLLM
    swap_sources("C08", c04._C08_LOW, *improve)
    assert claims.run("C08", r).verdict == claims.CONFIRMED
    swap_sources("C08", *hurt)
    assert claims.run("C08", r).verdict == claims.REFUTED
    swap_sources("C08", claims.Source("press2017tying", "bears on something else", "§1", supports=("other",)))
    assert claims.run("C08", r).verdict == claims.INCONCLUSIVE


def test_tying_result_summaries():
    r = _tying([(4.5, 4.6)] * 3, [(4.0, 4.05)] * 3)
    assert r.gap(1000).mean == pytest.approx(0.1) and r.gap(4000).mean == pytest.approx(0.05)
    assert r.extra().lo == pytest.approx(0.05)
    assert r.margin() == pytest.approx(5.2 - 4.6)
    g = r.glued()
    assert g["small_tied_ppl"] == pytest.approx(math.exp(4.5)) and g["plateaus"] == 12


def test_c09_is_decided_by_the_literature():
    v = claims.run("C09", ch.literature_c09())
    assert v.verdict == claims.CORRECTED
    assert claims.rule_of("C09").basis == claims.LITERATURE
    assert "Chung" in v.evidence and "MobileLLM" in v.evidence
    box = claims.verdict_markdown(v)  # the box lists every source with where it says so
    assert "Bertolotti" in box and "§2.2, embedding sharing" in box and "Strongest evidence against" in box
    assert v.figures["icml2024_studies"] == 2 and v.figures["studies_threshold_256k"] == 0


def test_run_tying_tiny_and_bad_sizes():
    r = ch.run_tying(1000, 2000, 1, max_steps=4, eval_every=2, patience=1, batch_size=64, context=8)
    assert len(r.runs) == 4 and r.vocab == 512 and r.n_val > 1000
    assert "1 seed cannot decide" in claims.run("C08", r).evidence  # one seed decides nothing in the miniature
    with pytest.raises(ValueError, match="small_tokens < large_tokens"):
        ch.run_tying(2000, 1000, 1, max_steps=4, eval_every=2, batch_size=64)
    with pytest.raises(ValueError, match="exceeds"):
        ch.run_tying(1000, 10**8, 1, max_steps=4, eval_every=2, batch_size=64)


def test_c08_box_says_the_rule_was_revised():
    v = claims.run("C08", _tying([(4.5, 4.6)] * 3, [(4.0, 4.05)] * 3))
    box = claims.verdict_markdown(v)
    assert "Rule, revised after measuring.**" in box and "*Why it last changed:* the miniature decided" in box
    assert "declared before measuring" not in box


def test_c08_finding_counts_the_sources_and_reads_for_each_outcome(swap_sources):
    r = _tying([(4.5, 4.6)] * 3, [(4.0, 4.05)] * 3)
    v = claims.run("C08", r)
    # a correction says what holds first, then what does not
    assert v.finding.startswith("2 cited studies find that tying lowers held-out perplexity, so tying can help")
    assert "but none compares the gain across amounts of data" in v.finding and "2 find untied embeddings better" in v.finding
    assert len(v.finding.split()) <= claims.FINDING_WORDS
    swap_sources("C08", c04._C08_LOW, c04.C08_SOURCES[0])
    v = claims.run("C08", r)
    assert v.verdict == claims.CONFIRMED
    assert "1 finds the gain larger with less data; none finds untying better" in v.finding


def test_c09_finding_follows_the_counts():
    v = claims.run("C09", ch.literature_c09())
    assert v.verdict == claims.CORRECTED
    assert v.finding.startswith("What holds: untying helped at large (120K–250K) vocabularies in 1 cited study.")
    assert "none of the 2 ICML 2024 studies of tying we found places a cost at 256K" in v.finding
    assert "2 published 256K-vocabulary models tie" in v.finding and len(v.finding.split()) <= claims.FINDING_WORDS


def test_c08_literature_sentence_follows_the_counts(swap_sources):
    r = _tying([(4.5, 4.6)] * 3, [(4.0, 4.05)] * 3)
    v = claims.run("C08", r)
    assert "2 cited studies found that tying lowered held-out perplexity (Press & Wolf (2017); Inan et al." in v.evidence
    assert "2 cited studies found untied embeddings did better" in v.evidence and "unsupported" in v.evidence
    press = c04.C08_SOURCES[0]
    chung = c04.C08_SOURCES[2]
    swap_sources("C08", press, chung)  # one each way: still corrected, the sentence counts again
    v = claims.run("C08", r)
    assert v.verdict == claims.CORRECTED
    assert "1 cited study found that tying lowered" in v.evidence and "Inan" not in v.evidence.split("Our miniature")[0]
    assert "1 cited study found untied embeddings did better (Chung et al. (2021))" in v.evidence
    swap_sources("C08", c04._C08_LOW, press)
    v = claims.run("C08", r)
    assert v.verdict == claims.CONFIRMED and "found the gain larger with less data" in v.evidence
    assert "none found untied embeddings better" in v.evidence


@pytest.mark.parametrize("overlap, says", [
    (0.08, "left free, the two roles organise the tokens differently"),
    (0.02, "not clearly above chance"),
])
def test_c09_miniature_sentence_follows_the_overlap(overlap, says):
    import dataclasses

    lit = dataclasses.replace(ch.literature_c09(), io_overlap=overlap, io_overlap_chance=0.02)
    v = claims.run("C09", lit)
    assert says in v.evidence and v.verdict == claims.CORRECTED
    if overlap == 0.02:
        assert "organise the tokens differently" not in v.evidence


# --- the lesson's exercises: each answer is what the exercise's code gives ------------------------------------


def _tied(V, d, bias=False):
    from torch import nn

    embed = nn.Embedding(V, d)
    head = nn.Linear(d, V, bias=bias)
    head.weight = embed.weight
    return embed, head


def test_exercise_1_saving_at_d_256():
    from torch import nn

    embed, head = _tied(1000, 256)
    untied = embed.weight.numel() + nn.Linear(256, 1000, bias=False).weight.numel()
    tied = sum(p.numel() for p in nn.ModuleList([embed, head]).parameters())
    assert untied - tied == 256_000


def test_exercise_2_row_3_gets_both_uses():
    embed, head = _tied(1000, 64)
    ids = torch.tensor([3, 1, 4])
    head(embed(ids))[:, 3].sum().backward()
    tied_grad = embed.weight.grad.clone()
    assert tied_grad.abs().sum(1).nonzero().flatten().tolist() == [1, 3, 4]
    # the same score through an untied input table (a copy): its row 3 gets only the lookup's part
    e2 = torch.nn.Embedding(1000, 64)
    e2.weight.data = embed.weight.data.clone()
    h2 = torch.nn.Linear(64, 1000, bias=False)
    h2.weight.data = embed.weight.data.clone()
    h2(e2(ids))[:, 3].sum().backward()
    assert torch.allclose(tied_grad[3], e2.weight.grad[3] + h2.weight.grad[3])  # both uses, summed
    assert e2.weight.grad[3].abs().sum() > 0 and h2.weight.grad[3].abs().sum() > 0


def test_exercise_3_a_real_loss_gives_every_row_gradient():
    embed, head = _tied(1000, 64)
    ids = torch.tensor([3, 1, 4])
    torch.nn.functional.cross_entropy(head(embed(ids)), torch.tensor([1, 4, 7])).backward()
    assert int((embed.weight.grad.abs().sum(1) > 0).sum()) == 1000


def test_exercise_4_bias_is_not_tied():
    from torch import nn

    embed, head = _tied(1000, 64, bias=True)
    assert sum(p.numel() for p in nn.ModuleList([embed, head]).parameters()) == 65_000
