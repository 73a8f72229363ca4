"""Property-based tests (hypothesis) of every sizing function: any input gives the right count or a
ValueError/TypeError with a message — never a negative size, a float count, a NaN or an allocation of
absurd size."""

import math

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from embedbook import sizing
from tests.conftest import FUZZ_COUNTS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPE_NAMES = ["fp32", "fp16", "bf16", "int8", "int4", "fp8", "float32", "", None, 4, torch.float16, torch.float64,
               "half", "BFloat16"]
CANONICAL = {"fp32": "fp32", "fp16": "fp16", "bf16": "bf16", "int8": "int8", "int4": "int4", "float32": "fp32",
             torch.float16: "fp16", "half": "fp16", "BFloat16": "bf16"}  # what sizing.dtype_name makes of each
anything = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                     st.none(), st.text(max_size=4))


def tried(name):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + 1


def _is_size(x, zero=False):
    return isinstance(x, int) and not isinstance(x, bool) and (x >= 0 if zero else x > 0)


@SETTINGS
@given(vocab=anything, d=anything)
def test_embedding_params(vocab, d):
    tried("sizing embedding_params")
    if _is_size(vocab) and _is_size(d):
        out = sizing.embedding_params(vocab, d)
        assert isinstance(out, int) and out == vocab * d > 0
    else:
        with pytest.raises(ValueError, match="must be"):
            sizing.embedding_params(vocab, d)


@SETTINGS
@given(params=anything, dtype=st.sampled_from(DTYPE_NAMES))
def test_formula_bytes(params, dtype):
    tried("sizing formula_bytes")
    if _is_size(params, zero=True) and dtype in CANONICAL:
        out = sizing.formula_bytes(params, dtype)
        assert isinstance(out, int) and out >= 0
        assert out == math.ceil(params * sizing.BYTES_PER_VALUE[CANONICAL[dtype]])
    else:
        with pytest.raises((ValueError, TypeError)):
            sizing.formula_bytes(params, dtype)


@SETTINGS
@given(vocab=st.one_of(st.integers(-3, 10**9), st.floats(0, 10)), d=st.integers(-3, 10**6),
       dtype=st.sampled_from(DTYPE_NAMES), device=st.sampled_from(["meta", "cpu"]))
def test_measured_bytes(vocab, d, dtype, device):
    tried("sizing measured_bytes")
    ok = _is_size(vocab) and _is_size(d) and dtype in CANONICAL and not (dtype == "int4" and d % 2)
    big = ok and sizing.formula_bytes(vocab * d, dtype) > sizing.MAX_ALLOC_BYTES
    if ok and not (big and device == "cpu"):
        assert sizing.measured_bytes(vocab, d, dtype, device=device) == sizing.formula_bytes(vocab * d, dtype)
    else:
        with pytest.raises((ValueError, TypeError)) as err:
            sizing.measured_bytes(vocab, d, dtype, device=device)
        assert str(err.value)


@SETTINGS
@given(layers=anything, d=anything)
def test_approx_params(layers, d):
    tried("sizing approx_params")
    if _is_size(layers) and _is_size(d):
        out = sizing.approx_params(layers, d)
        assert isinstance(out, int) and out == 12 * layers * d * d > 0
        if out < 1e300:
            assert sizing.width_for(float(out), layers) == pytest.approx(d, rel=1e-9)
    else:
        with pytest.raises(ValueError):
            sizing.approx_params(layers, d)


@SETTINGS
@given(params=anything, layers=anything)
def test_width_for(params, layers):
    tried("sizing width_for")
    ok_params = isinstance(params, (int, float)) and not isinstance(params, bool) and math.isfinite(params) and params > 0
    if ok_params and _is_size(layers):
        try:
            w = sizing.width_for(params, layers)
        except OverflowError:
            pytest.fail("width_for overflowed instead of answering")
        assert math.isfinite(w) and w >= 0  # a subnormal N underflows to 0
    else:
        with pytest.raises(ValueError):
            sizing.width_for(params, layers)


@SETTINGS
@given(d=anything, heads=anything)
def test_head_dim(d, heads):
    tried("sizing head_dim")
    if _is_size(d) and _is_size(heads) and d % heads == 0:
        assert sizing.head_dim(d, heads) * heads == d
    else:
        with pytest.raises(ValueError):
            sizing.head_dim(d, heads)


@settings(max_examples=60, deadline=None)
@given(vocab=st.integers(1, 300), d=st.integers(1, 16), context=st.integers(1, 300), tie=st.booleans(),
       extra=st.integers(0, 3))
def test_count_parameters(vocab, d, context, tie, extra):
    tried("sizing count_parameters")
    # when the position table is the largest and a body layer has its shape (context == d), that layer looks
    # like a head by the documented rule (the last Linear shaped like the largest table): not a case to pin
    assume(vocab >= context or context != d or extra == 0)
    m = torch.nn.Module()
    m.tok = torch.nn.Embedding(vocab, d)
    m.pos = torch.nn.Embedding(context, d)
    m.body = torch.nn.Sequential(*[torch.nn.Linear(d, d) for _ in range(extra)])
    m.out = torch.nn.Linear(d, vocab, bias=False)
    if tie:
        m.out.weight = m.tok.weight
    c = sizing.count_parameters(m)
    assert c.total == sum(p.numel() for p in m.parameters())
    assert c.embedding == vocab * d + context * d
    assert c.tied_heads == (("out",) if tie else ())
    largest_is_tok = vocab >= context  # the head is recognised by the token table's shape
    assert c.head == (0 if tie or not largest_is_tok else vocab * d)
    assert c.body >= 0 and 0 <= c.share <= 1
