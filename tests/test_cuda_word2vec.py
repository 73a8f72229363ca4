"""CUDA paths of embedbook.word2vec and embedbook.similarity, and chapter 08's retrieval benchmark on a GPU:
the skip-gram step runs on the tables' device and gives the CPU's numbers; the similarity functions accept
CUDA tensors; the two retrieval routes agree and are timed with the device synchronised."""

import numpy as np
import pytest
import torch

from embedbook import similarity as S
from embedbook import word2vec as W

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


def test_sgns_step_on_cuda_matches_cpu():
    g = torch.Generator().manual_seed(0)
    w_in, w_out = torch.randn(50, 16, generator=g), torch.randn(50, 16, generator=g)
    noise = torch.tensor([3, 7, 7, 20])
    a_in, a_out = w_in.clone(), w_out.clone()
    b_in, b_out = w_in.cuda(), w_out.cuda()
    loss_cpu = W.sgns_step(a_in, a_out, 1, 2, noise, lr=0.1)
    loss_gpu = W.sgns_step(b_in, b_out, 1, 2, noise.cuda(), lr=0.1)
    assert b_in.is_cuda and b_out.is_cuda
    assert loss_gpu == pytest.approx(loss_cpu, rel=1e-5)
    assert torch.allclose(b_in.cpu(), a_in, atol=1e-6) and torch.allclose(b_out.cpu(), a_out, atol=1e-6)
    loss = W.sgns_loss(b_in[1], b_out[2], b_out[noise.cuda()])
    assert loss.is_cuda


def test_sgns_refuses_mixed_devices():
    t = torch.randn(5, 3)
    with pytest.raises(ValueError, match="device"):
        W.sgns_step(t, t.cuda(), 0, 1, [2])
    with pytest.raises(ValueError, match="devices"):
        W.sgns_loss(t[0], t[1].cuda(), t[2:].cuda())


def test_similarity_takes_cuda_tensors():
    g = torch.Generator().manual_seed(1)
    table = torch.randn(200, 8, generator=g)
    ids_cpu, sc_cpu = S.knn(table[:3], table, 4)
    ids_gpu, sc_gpu = S.knn(table[:3].cuda(), table.cuda(), 4)
    assert np.array_equal(ids_cpu, ids_gpu) and np.allclose(sc_cpu, sc_gpu)
    assert S.cosine(table[0].cuda(), table[1].cuda()) == pytest.approx(S.cosine(table[0], table[1]))
    sp = S.Space([f"w{i}" for i in range(200)], table.cuda().half())
    assert len(S.neighbours(sp, "w0", 5)) == 5
    assert S.anisotropy(table.cuda(), 100) == pytest.approx(S.anisotropy(table, 100), abs=1e-5)


def test_retrieval_benchmark_on_cuda():
    from embedbook.chapters.ch08_similarity import measure as ch08

    r = ch08.run_retrieval(np.random.default_rng(0).normal(size=(20_000, 32)), n_queries=8, k=10, reps=2, device="cuda")
    assert r.device == "cuda" and r.same_topk == 8 and r.max_score_diff < 1e-4
    assert torch.get_num_threads() >= 1
