"""Property-based tests (hypothesis) of embedbook.quantize's QuantizedEmbedding and table functions: tables of
odd shapes and dtypes (with NaN, infinity and zero rows), bits 4 and 8, both schemes, and ids of every dtype,
shape and range. Every input gives exactly ``dequantize(quantize(table))[ids]`` or a TypeError / ValueError /
IndexError with a message — never another exception, a NaN or a wrong shape."""

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedbook import quantize as Q
from tests.conftest import FUZZ_COUNTS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False, width=32)
cells = st.one_of(finite, finite, finite, finite, st.sampled_from([0.0, -0.0, 1e-30, math.nan, math.inf, -math.inf]))
id_dtypes = st.sampled_from([torch.long, torch.int32, torch.int16, torch.int8, torch.uint8,
                             torch.float32, torch.float64, torch.bool])
table_dtypes = st.sampled_from([torch.float32, torch.float16, torch.bfloat16, torch.float64])


def tried(name):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + 1


@st.composite
def tables(draw, allow_bad=True):
    rows, d = draw(st.integers(1, 7)), draw(st.integers(1, 9))
    values = draw(st.lists(cells if allow_bad else finite, min_size=rows * d, max_size=rows * d))
    if draw(st.booleans()):
        values[:d] = [0.0] * d  # an all-zero row
    t = torch.tensor(values, dtype=torch.float32).reshape(rows, d)
    dtype = draw(table_dtypes)
    if dtype == torch.float16:  # keep finite values finite in half precision (its largest is 65,504)
        t = torch.where(torch.isfinite(t), t.clamp(-6e4, 6e4), t)
    return t.to(dtype)


def _fp16_scales(table, bits):
    """Whether the int4 row scales and their offsets (-8 * scale) are fp16 values: the fused layout can hold them."""
    s = Q.quantize(table, bits).scales
    return bool(torch.equal(s.half().float(), s) and torch.equal((-8 * s).half().float(), -8 * s))


@SETTINGS
@given(table=tables(), bits=st.sampled_from([8, 4]), scheme=st.sampled_from(["row", "tensor"]),
       fused=st.sampled_from([None, True, False]))
def test_building_a_quantized_embedding(table, bits, scheme, fused):
    tried("quantize embedding build")
    finite_table = bool(torch.isfinite(table.float()).all())
    odd = bits == 4 and table.shape[1] % 2
    unfusable = (fused is True and finite_table and not odd
                 and not (scheme == "row" and (bits == 8 or _fp16_scales(table, bits))))
    if not finite_table or odd or unfusable:
        with pytest.raises(ValueError) as err:
            Q.QuantizedEmbedding.from_float(table, bits, scheme, fused=fused)
        assert str(err.value)
        return
    emb = Q.QuantizedEmbedding.from_float(table, bits, scheme, fused=fused)
    ref = Q.dequantize(Q.quantize(table, bits, scheme))
    rows = emb(torch.arange(table.shape[0]))
    assert rows.dtype == torch.float32 and torch.isfinite(rows).all()
    assert torch.equal(rows, ref)
    zero = table.float().abs().sum(1) == 0
    assert torch.equal(rows[zero], torch.zeros_like(rows[zero]))  # zero rows come back exactly zero
    assert emb.nbytes >= emb.table.nbytes and emb.ratio > 0


@SETTINGS
@given(table=tables(allow_bad=False), bits=st.sampled_from([8, 4]), scheme=st.sampled_from(["row", "tensor"]),
       values=st.lists(st.integers(-(2**40), 2**40), max_size=12), shape=st.sampled_from(["flat", "2d", "scalar"]),
       dtype=id_dtypes)
def test_ids_of_every_kind(table, bits, scheme, values, shape, dtype):
    tried("quantize embedding ids")
    if bits == 4 and table.shape[1] % 2:
        table = torch.cat([table, torch.zeros(table.shape[0], 1, dtype=table.dtype)], 1)
    emb = Q.QuantizedEmbedding.from_float(table, bits, scheme)
    vocab, d = table.shape
    if shape == "scalar":
        values = values[:1]
    try:
        ids = torch.tensor(values, dtype=dtype)
    except (OverflowError, RuntimeError):
        return  # not representable in that dtype: no tensor to pass
    if shape == "2d" and len(values) % 2 == 0 and values:
        ids = ids.reshape(2, -1)
    if shape == "scalar" and values:
        ids = ids.reshape(())
    ok = (not dtype.is_floating_point and dtype != torch.bool and ids.numel() > 0
          and int(ids.min()) >= 0 and int(ids.max()) < vocab)
    if ok:
        out = emb(ids)
        assert out.shape == (*ids.shape, d) and out.dtype == torch.float32
        assert torch.equal(out, Q.dequantize(Q.quantize(table, bits, scheme))[ids.long()])
    else:
        with pytest.raises((TypeError, ValueError, IndexError)) as err:
            emb(ids)
        assert str(err.value)
        if ids.numel() == 0 and not dtype.is_floating_point and dtype != torch.bool:
            assert err.type is ValueError  # an empty batch, as lookup.validate_ids says


@SETTINGS
@given(thing=st.one_of(st.lists(finite, max_size=4), st.none(), st.integers(), st.text(max_size=3),
                       st.builds(lambda n: torch.zeros(n), st.integers(0, 4))))
def test_wrong_things_in_place_of_a_table_or_ids(thing):
    tried("quantize wrong types")
    with pytest.raises((TypeError, ValueError)) as err:
        Q.QuantizedEmbedding.from_float(thing)
    assert str(err.value)
    with pytest.raises(TypeError, match="QuantizedTable"):
        Q.QuantizedEmbedding(thing)
    emb = Q.QuantizedEmbedding.from_float(torch.randn(4, 2))
    if not isinstance(thing, torch.Tensor):
        with pytest.raises(TypeError, match="torch.Tensor"):
            emb(thing)


@SETTINGS
@given(table=tables(allow_bad=False), bits=st.sampled_from([8, 4]))
def test_fused_and_plain_paths_agree(table, bits):
    tried("quantize fused vs plain")
    if bits == 4 and table.shape[1] % 2:
        return
    a = Q.QuantizedEmbedding.from_float(table, bits, fused=None)
    b = Q.QuantizedEmbedding.from_float(table, bits, fused=False)
    ids = torch.arange(table.shape[0]).flip(0)
    assert torch.equal(a(ids), b(ids))
    assert torch.equal(a._plain_rows(ids), b(ids))  # the path a GPU takes
    b.load_state_dict(a.state_dict())  # either layout's state dict loads into the other
    a.load_state_dict(b.state_dict())
    assert torch.equal(a(ids), b(ids))


@SETTINGS
@given(table=tables(), bits=st.sampled_from([8, 4, 2, 16, 0, True]), scheme=st.sampled_from(["row", "tensor", "col", ""]))
def test_quantize_tables(table, bits, scheme):
    tried("quantize tables")
    t = table.float()
    bad = (bits not in (8, 4) or isinstance(bits, bool) or scheme not in ("row", "tensor")
           or not torch.isfinite(t).all() or (bits == 4 and t.shape[1] % 2))
    if bad:
        with pytest.raises(ValueError) as err:
            Q.quantize(table, bits, scheme)
        assert str(err.value)
        return
    q = Q.quantize(table, bits, scheme)
    assert q.nbytes == q.codes.numel() * q.codes.element_size() + 4 * q.scales.numel()
    back = Q.dequantize(q)
    assert back.shape == t.shape and back.dtype == torch.float32 and torch.isfinite(back).all()
    zero = t.abs().sum(1) == 0
    assert torch.equal(back[zero], t[zero])  # zero rows come back exactly 0
    scale = t.abs().amax(1, keepdim=True) if scheme == "row" else t.abs().amax()
    step = q.scales.reshape(-1, 1)  # int4: absmax / 7 at fp16's precision (11 significant bits)
    assert ((step - scale / Q.QMAX[bits]).abs() <= (2**-11 if bits == 4 else 0) * scale / Q.QMAX[bits]).all()
    assert ((back - t).abs() <= step / 2 + 1e-6 * scale + 1e-30).all()  # within half a quantisation step
