"""embedbook.ngram (the n-gram index, the host-resident n-gram table, adaptive input) and chapter 14's
experiments and rules (C25, C26)."""


import pytest
import torch

from embedbook import lm, ngram
from embedbook.book import claims, ledger
from embedbook.chapters.ch14_scaling import measure as ch14


@pytest.fixture
def stream():
    return torch.tensor([1, 2, 3, 1, 2, 4, 1, 2, 3, 5, 2, 3], dtype=torch.long)


# --- NgramIndex ------------------------------------------------------------------------------------------


def test_index_keeps_most_frequent(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=2)
    assert len(idx) == 2
    assert {idx.row((1, 2)), idx.row((2, 3))} == {1, 2}  # (1,2) ×3 and (2,3) ×3 are the two most frequent
    assert sorted(idx.counts.tolist()) == [3, 3]


def test_ties_broken_by_the_smaller_key():
    s = torch.tensor([0, 1, 2, 3], dtype=torch.long)  # (0,1), (1,2), (2,3) once each
    idx = ngram.NgramIndex.build(s, vocab_size=4, size=2)
    assert idx.row((0, 1)) == 1 and idx.row((1, 2)) == 2
    with pytest.raises(KeyError):
        idx.row((2, 3))


def test_unindexed_ngram_raises_and_maps_to_zero(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=2)
    with pytest.raises(KeyError, match="not among"):
        idx.row((5, 5))
    with pytest.raises(ValueError, match="2-grams"):
        idx.row((1, 2, 3))
    rows = idx.rows_for(torch.tensor([[1, 2, 3, 5, 5]]))
    assert rows[0, 0] == 0  # no bigram ends at the first position
    assert rows[0, 1] == idx.row((1, 2)) and rows[0, 2] == idx.row((2, 3))
    assert rows[0, 3] == 0 and rows[0, 4] == 0


def test_empty_index_maps_everything_to_zero(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=0)
    assert len(idx) == 0
    assert idx.rows_for(torch.tensor([[1, 2, 3]])).tolist() == [[0, 0, 0]]


@pytest.mark.parametrize("bad, err, match", [
    (lambda s: s.float(), TypeError, "LongTensor"),
    (lambda s: s.view(3, 4), TypeError, "1-D"),
    (lambda s: s[:1], ValueError, "at least n=2"),
    (lambda s: s * 10, ValueError, r"\[0, 6\)"),
    (lambda s: s - 2, ValueError, r"\[0, 6\)"),
])
def test_index_bad_ids(stream, bad, err, match):
    with pytest.raises(err, match=match):
        ngram.NgramIndex.build(bad(stream), 6, 2)


def test_index_bad_settings(stream):
    with pytest.raises(ValueError, match="n must be"):
        ngram.NgramIndex.build(stream, 6, 2, n=1)
    with pytest.raises(ValueError, match="int64"):
        ngram.NgramIndex.build(stream, 10**7, 2, n=3)
    with pytest.raises(ValueError, match="size"):
        ngram.NgramIndex.build(stream, 6, -1)
    with pytest.raises(ValueError, match="vocab_size"):
        ngram.NgramIndex.build(stream, 0, 2)


def test_rows_for_refuses_bad_batches(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=3)
    with pytest.raises(ValueError, match="2-D"):
        idx.rows_for(torch.tensor([1, 2, 3]))
    with pytest.raises(TypeError, match="LongTensor"):
        idx.rows_for(torch.tensor([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="empty"):
        idx.rows_for(torch.zeros(1, 0, dtype=torch.long))
    with pytest.raises(ValueError, match=r"\[0, 6\)"):
        idx.rows_for(torch.tensor([[1, 7]]))


def test_trigram_index(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=1, n=3)
    assert idx.row((1, 2, 3)) == 1
    assert idx.rows_for(torch.tensor([[1, 2, 3]])).tolist() == [[0, 0, 1]]


# --- NgramEmbedding ------------------------------------------------------------------------------------------


def test_ngram_embedding_keeps_its_table_home_and_adds(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=3)
    emb = ngram.NgramEmbedding(6, 4, idx)
    emb.to(torch.float64)  # a conversion applied to the model reaches the token table only
    assert emb.token.weight.dtype == torch.float64 and emb.ngram.weight.dtype == torch.float32
    out = emb(torch.tensor([[1, 2, 3]]))
    assert out.dtype == torch.float64 and out.shape == (1, 3, 4)
    emb.to(torch.float32)
    out = emb(torch.tensor([[1, 2, 3]]))
    assert torch.equal(out[0, 0], emb.token.weight[1])  # row 0 of the n-gram table is zero
    assert torch.allclose(out[0, 1], emb.token.weight[2] + emb.ngram.weight[idx.row((1, 2))])
    assert emb.host_bytes() == (len(idx) + 1) * 4 * 4
    assert emb.device_bytes() == 6 * 4 * 4


def test_ngram_embedding_row_zero_gets_no_gradient(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=2)
    emb = ngram.NgramEmbedding(6, 4, idx)
    emb(torch.tensor([[5, 5, 1, 2]])).sum().backward()
    assert torch.equal(emb.ngram.weight.grad[0], torch.zeros(4))
    assert emb.ngram.weight.grad[idx.row((1, 2))].abs().sum() > 0


def test_ngram_embedding_bad_input(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=2)
    with pytest.raises(ValueError, match="built for V=6"):
        ngram.NgramEmbedding(7, 4, idx)
    with pytest.raises(TypeError, match="NgramIndex"):
        ngram.NgramEmbedding(6, 4, {"a": 1})
    with pytest.raises(ValueError, match="d must be"):
        ngram.NgramEmbedding(6, 0, idx)
    emb = ngram.NgramEmbedding(6, 4, idx)
    with pytest.raises(ValueError, match=r"\[0, 6\)"):
        emb(torch.tensor([[1, 6]]))
    with pytest.raises(ValueError, match="2-D"):
        emb(torch.tensor([1, 2]))


# --- AdaptiveInput --------------------------------------------------------------------------------------------


def test_adaptive_input_shapes_and_params():
    ada = ngram.AdaptiveInput(100, 16, [10, 40])
    assert ada.dims == [16, 4, 1] and ada.edges == [0, 10, 40, 100]
    out = ada(torch.tensor([[0, 15, 99]]))
    assert out.shape == (1, 3, 16)
    assert sum(p.numel() for p in ada.parameters()) == 10 * 16 + 30 * 4 + 60 * 1 + 16 * 16 + 4 * 16 + 1 * 16
    assert ngram.AdaptiveInput(100, 16, [10, 40], reverse=True).dims == [1, 4, 16]


def test_adaptive_input_is_table_row_times_projection():
    ada = ngram.AdaptiveInput(100, 16, [10, 40])
    ids = torch.tensor([3, 12, 77])
    want = torch.stack([ada.tables[0].weight[3] @ ada.projs[0].weight.T,
                        ada.tables[1].weight[2] @ ada.projs[1].weight.T,
                        ada.tables[2].weight[37] @ ada.projs[2].weight.T])
    assert torch.allclose(ada(ids), want)


def test_adaptive_input_follows_its_dtype():
    ada = ngram.AdaptiveInput(50, 8, [10]).to(torch.float64)
    assert ada(torch.tensor([[1, 20]])).dtype == torch.float64


@pytest.mark.parametrize("kwargs, match", [
    (dict(cutoffs=[40, 10]), "increase strictly"),
    (dict(cutoffs=[10, 100]), "increase strictly"),
    (dict(cutoffs=[0, 10]), "increase strictly"),
    (dict(cutoffs=[10, 40], d=4), "too small"),
    (dict(cutoffs=[10], factor=0), "factor"),
    (dict(cutoffs=[10], d=-1), "d must be"),
])
def test_adaptive_input_bad_settings(kwargs, match):
    args = {"vocab_size": 100, "d": 16, **kwargs}
    with pytest.raises(ValueError, match=match):
        ngram.AdaptiveInput(**args)


def test_adaptive_input_refuses_non_int_cutoffs():
    with pytest.raises(TypeError, match="int band edges"):
        ngram.AdaptiveInput(100, 16, [10.5])
    with pytest.raises(TypeError, match="int band edges"):
        ngram.AdaptiveInput(100, 16, "ab")


def test_adaptive_input_bad_ids():
    ada = ngram.AdaptiveInput(100, 16, [10, 40])
    with pytest.raises(ValueError, match=r"\[0, 100\)"):
        ada(torch.tensor([[100]]))
    with pytest.raises(TypeError, match="LongTensor"):
        ada(torch.tensor([[1.0]]))
    with pytest.raises(ValueError, match="empty"):
        ada(torch.zeros(0, dtype=torch.long))


# --- in the book's language model -------------------------------------------------------------------------------


def test_tiny_lm_with_ngram_embedding_trains_deterministically():
    sents = [["a", "b", "c", "a", "b", "d"] * 20 for _ in range(5)]
    vocab = lm.Vocab.build(sents, 10)
    tr, va = lm.split_ids(vocab.encode(sents))
    idx = ngram.NgramIndex.build(tr, len(vocab), 5)
    losses = []
    for _ in range(2):
        torch.manual_seed(0)
        cfg = lm.LMConfig(len(vocab), d_model=8, context=8, n_heads=2, tie=False,
                          embedding=ngram.NgramEmbedding(len(vocab), 8, idx))
        model = lm.TinyLM(cfg)
        losses.append(lm.train(model, tr, va, steps=3, batch_size=4, eval_every=3, progress=False).val_loss[-1])
    assert losses[0] == losses[1]
    assert model.num_params("embedding") >= len(vocab) * 8 + (len(idx) + 1) * 8


# --- chapter 14's rules and checks --------------------------------------------------------------------------------


def _scaling(full, ada, rev, ngr=None, plateau=1, unigram=5.2):
    seeds = list(range(len(full)))
    arms = {"full": full, "adaptive": ada, "reversed": rev, "ngram": ngr or full}
    return ch14.Scaling(
        seeds=seeds, n_docs=100, vocab=1002, d_model=64, train_tokens=17_000, val_tokens=1_900, unigram=unigram,
        cutoffs=[100, 400], dims=[64, 16, 4], ngram_rows=2000, ngram_coverage=0.5, best_loss=arms,
        steps_run={a: [300] * len(seeds) for a in arms}, plateau={a: [plateau] * len(seeds) for a in arms},
        curves={a: [([0, 20], [6.9, v]) for v in arms[a]] for a in arms},
        input_params={"full": 64128, "adaptive": 18000, "reversed": 50000, "ngram": 192128},
        table_sizes=[1000, 10000], device_bytes=[256512, 256512], host_bytes=[256256, 2560256],
    )


@pytest.mark.parametrize("ada, rev, plateau, want", [
    ([4.75, 4.76, 4.74], [4.74, 4.77, 4.75], 1, claims.CONFIRMED),  # frequent-narrow no worse
    ([4.75, 4.76, 4.74], [4.95, 4.96, 4.94], 1, claims.CORRECTED),  # the article's direction loses
    ([4.81, 4.82, 4.80], [4.83, 4.84, 4.82], 1, claims.CONFIRMED),  # the miniature's loss to the full table: no say
    ([4.75, 4.76, 4.74], [4.76, 4.81, 4.80], 1, claims.INCONCLUSIVE),  # the direction straddles the tolerance
    ([4.75, 4.76, 4.74], [4.74, 4.77, 4.75], 0, claims.INCONCLUSIVE),  # not trained to a plateau
])
def test_c26_decides_the_direction_from_the_seeds(ada, rev, plateau, want):
    r = _scaling([4.74, 4.75, 4.73], ada, rev, plateau=plateau)
    v = claims.run("C26", r)
    assert v.verdict == want
    assert f"{r.input_params['adaptive']:,}" in v.evidence and "Baevski" in v.evidence
    assert "Rule revised" in v.strength
    # the box's visible finding is written for the outcome: the saving, and what decided (or what kept it open)
    assert f"{v.figures['saving']:.1f}× fewer" in v.finding
    assert {claims.CONFIRMED: "make do with fewer", claims.CORRECTED: "need the wide rows",
            claims.INCONCLUSIVE: "do not settle"}[want] in v.finding
    if want == claims.CORRECTED:
        assert f"{v.figures['dir_lo']:.2f} to {v.figures['dir_hi']:.2f} nats" in v.finding


def test_c26_refuted_when_nothing_is_saved():
    r = _scaling([4.74, 4.75, 4.73], [4.75, 4.76, 4.74], [4.95, 4.96, 4.94])
    r.input_params["adaptive"] = 60000  # 64,128 / 60,000 < 1.5
    v = claims.run("C26", r)
    assert v.verdict == claims.REFUTED and "too few to matter" in v.finding


def test_c26_miniature_loss_is_reported_not_decisive():
    v = claims.run("C26", _scaling([4.74, 4.75, 4.73], [4.81, 4.82, 4.80], [4.95, 4.96, 4.94]))
    assert v.verdict == claims.CORRECTED and "lost more than 0.03 nats to the full table" in v.evidence
    assert v.figures["ada_lo"] == pytest.approx(0.07) and "ada_lo" not in claims.rule_of("C26").inputs


def test_c26_needs_a_margin_over_the_unigram_baseline():
    r = _scaling([4.74, 4.75, 4.73], [4.75, 4.76, 4.74], [4.74, 4.77, 4.75], unigram=4.9)
    assert claims.run("C26", r).verdict == claims.INCONCLUSIVE


def test_c25_is_decided_by_the_paper_and_illustrated_by_the_miniature():
    for ngr in ([4.60, 4.61, 4.62], [4.85, 4.86, 4.87]):  # the miniature helps or hurts: same verdict
        v = claims.run("C25", _scaling([4.74, 4.75, 4.73], [4.75] * 3, [4.9] * 3, ngr))
        assert v.verdict == claims.INCONCLUSIVE  # no perplexities at equal inference FLOPs were read
        assert "1.9B" in v.evidence and ("lowered" in v.evidence) == (ngr[0] < 4.7)
        assert "training compute is not held fixed" in v.evidence
        assert "off the accelerator" in v.finding and "is open" in v.finding  # the finding, for this outcome
    assert claims.rule_of("C25").basis == claims.LITERATURE
    assert any(v.get("why") for v in ledger.load()["C25"])
