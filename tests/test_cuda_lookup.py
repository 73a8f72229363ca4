"""The lookup on a GPU: every function runs on the device its inputs live on, Lookup takes F.embedding's path
there, and the bandwidth benchmark runs against a device copy. Skips without CUDA."""

import pytest
import torch

from embedbook import device, lookup

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


@pytest.fixture
def table():
    return torch.randn(1000, 64, generator=torch.Generator().manual_seed(0)).cuda()


def test_three_views_on_the_gpu(table):
    ids = torch.randint(0, 1000, (4, 16), device="cuda")
    a = lookup.gather(ids, table)
    assert a.device.type == "cuda"
    assert torch.equal(a, lookup.one_hot_matmul(ids, table))
    assert torch.allclose(a, lookup.linear_lookup(ids, table))  # cuBLAS may use TF32: equal up to rounding


def test_lookup_takes_f_embedding_on_the_gpu(table):
    lk = lookup.Lookup(table)
    assert lk.path == "F.embedding"
    ids = torch.randint(0, 1000, (256,), device="cuda")
    assert torch.equal(lk(ids), table[ids])


def test_ids_on_the_cpu_are_refused(table):
    with pytest.raises(ValueError, match="device"):
        lookup.gather(torch.tensor([1, 2]), table)


def test_bandwidth_on_the_gpu():
    r = lookup.bandwidth(n_tokens=65536, d=1024, vocab_size=50000, reps=5, device="cuda")
    assert r.device == "cuda" and r.copy_gbps > 0
    assert r.ours_fraction >= 0.95 * r.plain_fraction  # Lookup is F.embedding on a GPU: never the slower path


def test_pick_finds_the_gpu():
    assert device.pick().type == "cuda" and device.pick("cuda:0") == torch.device("cuda:0")
