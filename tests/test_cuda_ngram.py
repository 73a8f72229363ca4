"""embedbook.ngram on a GPU: the n-gram table stays in host memory while the token table and the model move,
outputs land on the ids' device, gradients reach both tables, and a TinyLM trains with either embedding."""

import pytest
import torch

from embedbook import lm, ngram

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


@pytest.fixture
def index():
    stream = torch.tensor([1, 2, 3, 1, 2, 4, 1, 2, 3, 5, 2, 3] * 4, dtype=torch.long)
    return ngram.NgramIndex.build(stream, vocab_size=6, size=3)


def test_ngram_table_stays_home(index):
    emb = ngram.NgramEmbedding(6, 8, index).cuda()
    assert emb.token.weight.device.type == "cuda" and emb.ngram.weight.device.type == "cpu"
    ids = torch.tensor([[1, 2, 3, 5]], device="cuda")
    out = emb(ids)
    assert out.device.type == "cuda" and out.shape == (1, 4, 8)
    want = emb.token.weight[ids].cpu() + emb.ngram.weight[index.rows_for(ids)]
    assert torch.allclose(out.cpu(), want)
    out.sum().backward()
    assert emb.token.weight.grad.device.type == "cuda" and emb.ngram.weight.grad.device.type == "cpu"
    assert emb.ngram.weight.grad[index.row((1, 2))].abs().sum() > 0


def test_rows_for_takes_cuda_ids(index):
    ids = torch.tensor([[1, 2, 3]], device="cuda")
    assert index.rows_for(ids).device.type == "cpu"
    assert index.rows_for(ids).tolist() == index.rows_for(ids.cpu()).tolist()


def test_index_builds_from_a_cuda_stream():
    stream = torch.tensor([1, 2, 3, 1, 2], device="cuda")
    idx = ngram.NgramIndex.build(stream, 4, 2)
    assert idx.keys.device.type == "cpu" and idx.row((1, 2)) == 1


def test_adaptive_input_on_cuda():
    ada = ngram.AdaptiveInput(100, 16, [10, 40]).cuda()
    ids = torch.tensor([[0, 15, 99]], device="cuda")
    out = ada(ids)
    assert out.device.type == "cuda"
    cpu = ngram.AdaptiveInput(100, 16, [10, 40])
    cpu.load_state_dict({k: v.cpu() for k, v in ada.state_dict().items()})
    assert torch.allclose(out.cpu(), cpu(ids.cpu()), atol=1e-6)


def test_adaptive_input_half_on_cuda():
    ada = ngram.AdaptiveInput(100, 16, [10, 40]).cuda().half()
    assert ada(torch.tensor([[3, 50]], device="cuda")).dtype == torch.float16


@pytest.mark.parametrize("kind", ["ngram", "adaptive"])
def test_tiny_lm_trains_on_cuda(kind, index):
    sents = [["a", "b", "c", "a", "b", "d"] * 20 for _ in range(5)]
    vocab = lm.Vocab.build(sents, 10)
    tr, va = lm.split_ids(vocab.encode(sents))
    V = len(vocab)
    emb = (ngram.NgramEmbedding(V, 8, ngram.NgramIndex.build(tr, V, 5)) if kind == "ngram"
           else ngram.AdaptiveInput(V, 8, [3]))
    model = lm.TinyLM(lm.LMConfig(V, d_model=8, context=8, n_heads=2, tie=False, embedding=emb)).cuda()
    h = lm.train(model, tr, va, steps=6, batch_size=4, eval_every=3, progress=False, patience=5)
    assert all(map(torch.isfinite, map(torch.tensor, h.val_loss)))
    if kind == "ngram":
        assert emb.ngram.weight.device.type == "cpu"
