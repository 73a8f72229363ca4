"""The lookup on a GPU: every function runs on the device its inputs live on, Lookup (fresh and with out=) works
there, and the bandwidth and speed benchmarks run against a device copy / F.embedding. Skips without CUDA."""

import pytest
import torch

from embedbook import device, lookup, quantize

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


def test_lookup_fresh_and_with_out_on_the_gpu(table):
    lk = lookup.Lookup(table)
    ids = torch.randint(0, 1000, (256,), device="cuda")
    assert torch.equal(lk(ids), table[ids])
    buf = torch.empty(256, 64, device="cuda")
    assert lk(ids, out=buf) is buf and torch.equal(buf, table[ids])
    with pytest.raises(ValueError, match="cuda"):
        lk(ids, out=torch.empty(256, 64))  # a CPU buffer for a GPU table


def test_ids_on_the_cpu_are_refused(table):
    with pytest.raises(ValueError, match="device"):
        lookup.gather(torch.tensor([1, 2]), table)


def test_bandwidth_on_the_gpu():
    r = lookup.bandwidth(n_tokens=65536, d=1024, vocab_size=50000, reps=5, device="cuda")
    assert r.device == "cuda" and r.copy_gbps > 0 and r.ours_fraction > 0 and r.plain_fraction > 0


def test_speed_ratios_on_the_gpu():
    rs = quantize.speed_ratios((512, 4096), d=256, vocab_size=5000, reps=2, device="cuda")
    assert all(r.device == "cuda" and r.fp32_ms > 0 for r in rs)
    assert all(set(r.ratios) == {"int8", "int4", "lookup", "lookup_out"} for r in rs)  # the fused kernels are CPU-only


def test_pick_finds_the_gpu():
    assert device.pick().type == "cuda" and device.pick("cuda:0") == torch.device("cuda:0")
