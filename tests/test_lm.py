"""Tests for embedbook.lm: vocabulary, split, model shapes, tying, groups, determinism, bad input."""

import math

import pytest
import torch

from embedbook import device, lm

@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models train faster (and less noisily on a shared machine) on one thread."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


SENTS = [["the", "cat", "sat"], ["the", "dog", "sat", "down"], ["a", "cat"]] * 30


def tiny(**kw):
    v = lm.Vocab.build(SENTS, 5)
    cfg = lm.LMConfig(len(v), d_model=16, n_layers=1, n_heads=2, context=8, **kw)
    device.seed_everything(0)
    return v, lm.TinyLM(cfg)


def test_vocab_build_encode():
    v = lm.Vocab.build(SENTS, 3)
    assert v.itos[:2] == ["<unk>", "<eol>"] and len(v) == 5
    assert v.itos[2:] == ["cat", "sat", "the"]  # counts 60, 60, 60: ties broken alphabetically
    assert v.counts[v.stoi["the"]] == 60 and v.counts[1] == 90
    ids = v.encode([["the", "zebra"]])
    assert ids.tolist() == [v.stoi["the"], 0, 1] and ids.dtype == torch.long


def test_split_contiguous():
    ids = torch.arange(100)
    tr, va = lm.split_ids(ids, 0.1)
    assert tr.tolist() == list(range(90)) and va.tolist() == list(range(90, 100))
    with pytest.raises(ValueError, match="val_fraction"):
        lm.split_ids(ids, 1.5)


def test_tied_shares_one_tensor_and_counts_once():
    _, tied = tiny(tie=True)
    _, untied = tiny(tie=False)
    assert tied.head.weight is tied.embed.weight
    V, d = tied.cfg.vocab_size, tied.cfg.d_model
    assert untied.num_params() - tied.num_params() == V * d
    assert tied.num_params("embedding") == V * d and untied.num_params("embedding") == 2 * V * d


def test_forward_shapes_and_extra():
    v, m = tiny()
    ids = torch.randint(0, len(v), (3, 8))
    assert m(ids).shape == (3, 8, len(v))
    m.eval()
    extra = torch.zeros(3, 8, 16)
    assert torch.equal(m(ids), m(ids, extra))
    with pytest.raises(ValueError, match="extra"):
        m(ids, torch.zeros(3, 8, 4))
    with pytest.raises(ValueError, match="context"):
        m(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(TypeError):
        m(ids.float())


def test_param_groups_mult():
    _, m = tiny(tie=False)
    groups = {g["name"]: g for g in m.param_groups(1e-3, emb_lr_mult=10.0, weight_decay=0.1)}
    assert groups["embed"]["lr"] == pytest.approx(1e-2) and groups["head"]["lr"] == pytest.approx(1e-3)
    n = sum(p.numel() for g in groups.values() for p in g["params"])
    assert n == m.num_params()
    with pytest.raises(ValueError, match="emb_lr_mult"):
        m.param_groups(1e-3, emb_lr_mult=0.0)


def test_train_deterministic_and_learns():
    v = lm.Vocab.build(SENTS, 5)
    tr, va = lm.split_ids(v.encode(SENTS), 0.2)
    runs = []
    for _ in range(2):
        device.seed_everything(1)
        m = lm.TinyLM(lm.LMConfig(len(v), d_model=16, n_layers=1, n_heads=2, context=8))
        runs.append(lm.train(m, tr, va, steps=30, batch_size=8, lr=1e-2, eval_every=10, progress=False))
    assert runs[0].val_loss == runs[1].val_loss and runs[0].steps == [0, 10, 20, 30]
    assert runs[0].val_loss[0] == pytest.approx(math.log(len(v)), abs=0.3)  # N(0, 0.02) init: near uniform
    assert runs[0].val_loss[-1] < runs[0].val_loss[0] - 0.5
    assert runs[0].val_ppl[-1] == pytest.approx(math.exp(runs[0].val_loss[-1]))


def test_sparse_embedding_optimizers():
    v = lm.Vocab.build(SENTS, 5)
    tr, va = lm.split_ids(v.encode(SENTS), 0.2)
    device.seed_everything(0)
    m = lm.TinyLM(lm.LMConfig(len(v), d_model=16, n_layers=1, n_heads=2, context=8, tie=False, sparse=True))
    with pytest.raises(ValueError, match="sparse"):
        lm.train(m, tr, va, steps=2, optimizer="adamw", progress=False)
    h = lm.train(m, tr, va, steps=4, batch_size=4, optimizer="sparse_adam", eval_every=2, progress=False)
    assert all(math.isfinite(x) for x in h.val_loss)


def test_bad_input():
    with pytest.raises(ValueError, match="empty"):
        lm.Vocab.build([], 10)
    with pytest.raises(ValueError, match="no tokens"):
        lm.Vocab.build([[], []], 10)
    with pytest.raises(TypeError, match="token lists"):
        lm.Vocab.build(["the cat"], 10)
    with pytest.raises(KeyError, match="known schemes"):
        lm.LMConfig(10, init="he_uniform")
    with pytest.raises(ValueError, match="tie=True"):
        lm.LMConfig(10, d_model=16, tie=True, embedding=torch.nn.Embedding(10, 16))
    with pytest.raises(ValueError, match="divisible"):
        lm.LMConfig(10, d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="tie=False"):
        lm.LMConfig(10, tie=True, sparse=True)
    v, m = tiny(tie=False)
    tr, va = lm.split_ids(v.encode(SENTS), 0.2)
    with pytest.raises(ValueError, match="unknown optimizer"):
        lm.train(m, tr, va, steps=1, optimizer="lion", progress=False)
    with pytest.raises(ValueError, match="emb_lr_mult"):
        lm.train(m, tr, va, steps=1, emb_lr_mult=-1.0, progress=False)
    with pytest.raises(ValueError, match="context"):
        lm.train(m, tr[:5], va, steps=1, progress=False)
    # a replacement embedding with the wrong width is caught at the first forward
    bad = lm.TinyLM(lm.LMConfig(len(v), d_model=16, n_heads=2, context=8, tie=False,
                                embedding=torch.nn.Embedding(len(v), 8)))
    with pytest.raises(ValueError, match="expected"):
        bad(torch.zeros(1, 4, dtype=torch.long))


def test_unigram_loss():
    tr = torch.tensor([0, 0, 0, 1])
    # add-one counts: id0 4, id1 2, id2 1 -> p = 4/7, 2/7, 1/7
    assert lm.unigram_loss(tr, torch.tensor([2]), 3) == pytest.approx(math.log(7))
    assert lm.unigram_loss(tr, torch.tensor([0, 1]), 3) == pytest.approx(-(math.log(4 / 7) + math.log(2 / 7)) / 2)
    with pytest.raises(ValueError, match="lie in"):
        lm.unigram_loss(tr, torch.tensor([5]), 3)
