"""Tests for embedbook.quantize: byte accounting, round trips, bad input, the embedding module."""

import math

import numpy as np
import pytest
import torch

from embedbook import quantize as Q


@pytest.fixture
def table():
    return torch.randn(50, 16, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("bits,scheme", [(8, "row"), (8, "tensor"), (4, "row"), (4, "tensor")])
def test_roundtrip_error_is_bounded(table, bits, scheme):
    q = Q.quantize(table, bits, scheme)
    back = Q.dequantize(q)
    step = (table.abs().amax(1, keepdim=True) if scheme == "row" else table.abs().max()) / Q.QMAX[bits]
    assert back.shape == table.shape
    assert torch.all((back - table).abs() <= step / 2 + 1e-6)


def test_byte_accounting(table):
    q8, q4 = Q.quantize(table, 8, "row"), Q.quantize(table, 4, "row")
    assert q8.nbytes == 50 * 16 + 50 * 4
    assert q4.nbytes == 50 * 8 + 50 * 4
    assert q8.ratio == pytest.approx(50 * 16 * 4 / (50 * 20))
    assert Q.quantize(table, 8, "tensor").nbytes == 50 * 16 + 4


def test_int4_packing_roundtrip():
    codes = torch.arange(-8, 8, dtype=torch.int8).reshape(2, 8)
    packed = Q.pack_int4(codes)
    assert packed.dtype == torch.uint8 and packed.shape == (2, 4)
    assert torch.equal(Q.unpack_int4(packed), codes)


def test_bad_input(table):
    with pytest.raises(ValueError, match="bits"):
        Q.quantize(table, 2)
    with pytest.raises(ValueError, match="scheme"):
        Q.quantize(table, 8, "column")
    bad = table.clone()
    bad[3, 2] = float("nan")
    with pytest.raises(ValueError, match="NaN"):
        Q.quantize(bad)
    bad[3, 2] = float("inf")
    with pytest.raises(ValueError, match="inf"):
        Q.quantize(bad)
    with pytest.raises(ValueError, match="even"):
        Q.quantize(torch.randn(4, 5), 4)
    with pytest.raises(TypeError):
        Q.quantize(torch.ones(3, 4, dtype=torch.int64))
    with pytest.raises(ValueError):
        Q.quantize(torch.randn(5))


@pytest.mark.parametrize("bits", [8, 4])
def test_zero_rows_come_back_exactly_zero(table, bits):
    t = table.clone()
    t[7] = 0.0
    q = Q.quantize(t, bits, "row")
    assert q.scales[7] == 0 and torch.isfinite(q.scales).all()
    assert torch.equal(Q.dequantize(q)[7], torch.zeros(16))
    assert torch.equal(Q.dequantize(Q.quantize(torch.zeros(3, 4), bits, "tensor")), torch.zeros(3, 4))


@pytest.mark.parametrize("bits,fused", [(8, True), (8, False), (4, True)])
def test_quantized_embedding_matches_dequantize(table, bits, fused):
    emb = Q.QuantizedEmbedding.from_float(torch.nn.Embedding.from_pretrained(table), bits, fused=fused)
    ids = torch.tensor([[0, 3, 49], [7, 7, 1]])
    ref = Q.dequantize(Q.quantize(table, bits))[ids]
    assert torch.equal(emb(ids), ref)
    assert emb.nbytes >= Q.quantize(table, bits).nbytes
    with pytest.raises(IndexError, match=r"\[0, 50\)"):
        emb(torch.tensor([50]))
    with pytest.raises(TypeError):
        emb(torch.tensor([1.0]))
    assert emb.table.nbytes == Q.quantize(table, bits).nbytes
    extra = 50 * 4 if emb.fused else 0  # the fused layout's per-row offset
    assert emb.nbytes == Q.quantize(table, bits).nbytes + extra


def test_neighbour_overlap_identity_and_bounds(table):
    q = torch.arange(10)
    assert Q.neighbour_overlap(table, table, q, k=5) == 1.0
    ov = Q.neighbour_overlap(table, Q.roundtrip(table, 4), q, k=5)
    assert 0.0 <= ov <= 1.0
    with pytest.raises(ValueError):
        Q.topk_neighbours(table, q, k=50)


def test_bench_lookup_reports_ratios(table):
    r = Q.bench_lookup(table, 8, n_ids=64, repeats=2)
    assert r["throughput_ratio"] > 0 and math.isfinite(r["throughput_ratio"])
    assert r["memory_ratio"] > 1


def test_relative_error_shape_check(table):
    with pytest.raises(ValueError, match="shapes differ"):
        Q.relative_error(table, torch.zeros(3, 3))
    assert Q.relative_error(np.asarray(table), table) == 0.0


def test_deterministic(table):
    a, b = Q.quantize(table, 4), Q.quantize(table.clone(), 4)
    assert torch.equal(a.codes, b.codes) and torch.equal(a.scales, b.scales)
