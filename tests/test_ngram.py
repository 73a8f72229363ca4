"""Tests for embedbook.ngram: the n-gram index, the host-resident table and adaptive input."""

import pytest
import torch

from embedbook import ngram


@pytest.fixture
def stream():
    return torch.tensor([1, 2, 3, 1, 2, 4, 1, 2, 3, 5, 2, 3], dtype=torch.long)


def test_index_keeps_most_frequent(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=2)
    assert len(idx) == 2
    assert {idx.row((1, 2)), idx.row((2, 3))} == {1, 2}  # (1,2) x3, (2,3) x3 are the two most frequent


def test_unseen_ngram_key_raises_and_maps_to_zero(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=2)
    with pytest.raises(KeyError, match="not among"):
        idx.row((5, 5))
    with pytest.raises(ValueError):
        idx.row((1, 2, 3))
    rows = idx.rows_for(torch.tensor([[1, 2, 3, 5, 5]]))
    assert rows[0, 0] == 0  # no n-gram ends at the first position
    assert rows[0, 1] == idx.row((1, 2)) and rows[0, 2] == idx.row((2, 3))
    assert rows[0, 3] == 0 and rows[0, 4] == 0


def test_index_bad_input(stream):
    with pytest.raises(TypeError):
        ngram.NgramIndex.build(stream.float(), 6, 2)
    with pytest.raises(ValueError):
        ngram.NgramIndex.build(stream, 3, 2)  # ids beyond the vocabulary
    with pytest.raises(ValueError):
        ngram.NgramIndex.build(stream, 6, 2, n=1)


def test_trigram_index(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=1, n=3)
    assert idx.row((1, 2, 3)) == 1
    assert idx.rows_for(torch.tensor([[1, 2, 3]])).tolist() == [[0, 0, 1]]


def test_ngram_embedding_stays_on_cpu_and_adds(stream):
    idx = ngram.NgramIndex.build(stream, vocab_size=6, size=3)
    emb = ngram.NgramEmbedding(6, 4, idx)
    emb.to(torch.float64)  # a conversion applied to the model reaches the token table only
    assert emb.token.weight.dtype == torch.float64 and emb.ngram.weight.dtype == torch.float32
    emb.to(torch.float32)
    ids = torch.tensor([[1, 2, 3]])
    out = emb(ids)
    assert out.shape == (1, 3, 4)
    assert torch.allclose(out[0, 0], emb.token.weight[1])  # row 0 of the n-gram table is zero
    assert emb.host_bytes() == (len(idx) + 1) * 4 * 4
    assert emb.device_bytes() == 6 * 4 * 8 / 2


def test_adaptive_input_shapes_and_params():
    ada = ngram.AdaptiveInput(100, 16, [10, 40])
    assert ada.dims == [16, 4, 1]
    out = ada(torch.tensor([[0, 15, 99]]))
    assert out.shape == (1, 3, 16)
    assert ngram.n_params(ada) == 10 * 16 + 30 * 4 + 60 * 1 + 16 * 16 + 4 * 16 + 1 * 16
    assert ngram.AdaptiveInput(100, 16, [10, 40], reverse=True).dims == [1, 4, 16]
    with pytest.raises(ValueError):
        ngram.AdaptiveInput(100, 16, [40, 10])
    with pytest.raises(ValueError):
        ngram.AdaptiveInput(100, 4, [10, 40], factor=4)


def test_tiny_lm_with_ngram_embedding_is_deterministic():
    sents = [["a", "b", "c", "a", "b", "d"] * 20 for _ in range(5)]
    d = ngram.small_lm_data(10, sents)
    idx = ngram.NgramIndex.build(d.train, len(d.vocab), 5)
    ppls = []
    for _ in range(2):
        torch.manual_seed(0)
        emb = ngram.NgramEmbedding(len(d.vocab), 8, idx)
        ppls.append(ngram.fit(d, d_model=8, context=8, steps=3, embedding=emb, batch_size=4)[1])
    assert ppls[0] == ppls[1]
