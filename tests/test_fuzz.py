"""Bad input, systematically: property-based tests (hypothesis) over the public functions that take ids,
tables, sizes, dtypes, words, chapter names and parameters. Every input either gives a correct result or
a documented exception with a clear message — never a crash of another kind, a NaN or a wrong shape.
The number of inputs tried is printed at the end of the run."""

import math

import numpy as np

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedbook import book, claims, lookup, sizing, tokenize
from tests.conftest import FUZZ_COUNTS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tried(name):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + 1


ints = st.integers(min_value=-(2**40), max_value=2**40)
dtypes = st.sampled_from([torch.long, torch.int32, torch.int16, torch.uint8, torch.float32, torch.float64, torch.bool])


@SETTINGS
@given(values=st.lists(ints, min_size=0, max_size=20), dtype=dtypes, vocab=st.integers(1, 50))
def test_lookup_ids(values, dtype, vocab):
    tried("lookup ids")
    table = torch.arange(vocab * 3, dtype=torch.float32).reshape(vocab, 3)
    try:
        ids = torch.tensor(values, dtype=dtype)
    except (OverflowError, RuntimeError):
        return  # not representable in that dtype: no tensor to pass
    ok = (not dtype.is_floating_point and dtype != torch.bool and ids.numel() > 0
          and int(ids.min()) >= 0 and int(ids.max()) < vocab)
    for fn in (lookup.gather, lookup.one_hot_matmul, lambda i, t: lookup.Lookup(t)(i)):
        if ok:
            out = fn(ids, table)
            assert out.shape == (len(values), 3) and torch.equal(out, table[ids.long()])
        else:
            with pytest.raises((TypeError, ValueError, IndexError)) as err:
                fn(ids, table)
            assert str(err.value)


@SETTINGS
@given(vocab=st.integers(-5, 10**6), d=st.integers(-5, 4096), dtype=st.sampled_from(["fp32", "fp16", "bf16", "int8", "int4", "fp8", ""]))
def test_sizing_bytes(vocab, d, dtype):
    tried("sizing bytes")
    valid = vocab > 0 and d > 0 and dtype in ("fp32", "fp16", "bf16", "int8", "int4") and not (dtype == "int4" and d % 2)
    if valid and vocab * d <= 2**22:  # keep real allocations small
        assert sizing.measured_bytes(vocab, d, dtype) == sizing.formula_bytes(vocab * d, dtype)
    elif not valid:
        with pytest.raises(ValueError):
            sizing.measured_bytes(vocab, d, dtype)


@SETTINGS
@given(d=st.integers(-3, 10**5), heads=st.integers(-3, 200))
def test_head_dim(d, heads):
    tried("head_dim")
    if d > 0 and heads > 0 and d % heads == 0:
        assert sizing.head_dim(d, heads) * heads == d
    else:
        with pytest.raises(ValueError):
            sizing.head_dim(d, heads)


@SETTINGS
@given(n=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([math.nan, math.inf, -1.0])),
       layers=st.integers(-3, 200))
def test_width_for(n, layers):
    tried("width_for")
    if n > 0 and layers > 0 and math.isfinite(n):
        w = sizing.width_for(n, layers)
        assert math.isfinite(w) and w >= 0  # a subnormal N underflows to 0
    else:
        with pytest.raises(ValueError):
            sizing.width_for(n, layers)


@SETTINGS
@given(name=st.text(max_size=20))
def test_chapter_names(name):
    tried("chapter names")
    if name in book.chapters():
        assert book.chapter_path(name).exists()
    else:
        with pytest.raises(ValueError, match="unknown chapter"):
            book.chapter_path(name)


@SETTINGS
@given(params=st.dictionaries(st.text(min_size=1, max_size=12), st.integers(), max_size=3))
def test_chapter_parameters(params):
    tried("chapter parameters")
    declared = book.parameters(book.chapter_path("03_sizing"))
    unknown = set(params) - set(declared)
    if unknown:
        with pytest.raises(ValueError, match="no parameter"):
            book.run_chapter("03_sizing", params=params)


@SETTINGS
@given(cid=st.text(max_size=5))
def test_claim_ids(cid):
    tried("claim ids")
    if cid in claims.CLAIMS:
        assert claims.claim(cid).id == cid
    else:
        with pytest.raises(KeyError, match="unknown claim id"):
            claims.claim(cid)


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=40))
def test_tokenizers_roundtrip(text):
    tried("tokenizer texts")
    if not text:
        with pytest.raises(ValueError, match="empty"):
            tokenize.gpt2_split(text)
        return
    split = tokenize.gpt2_split(text)
    assert len(split.ids) == len(split.pieces) > 0
    from embedbook import data

    assert data.gpt2_encoding().decode(split.ids) == text  # byte-level: every string round-trips
    assert len(tokenize.wordpiece_split(text).ids) >= 0


# --- quantisation: bit widths, schemes, tables with NaN/inf/zero rows --------------------------------

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False, width=32)
cells = st.one_of(finite, finite, finite, st.sampled_from([0.0, math.nan, math.inf, -math.inf]))


@SETTINGS
@given(rows=st.integers(1, 6), d=st.integers(1, 9), bits=st.sampled_from([8, 4, 2, 16, 0]),
       scheme=st.sampled_from(["row", "tensor", "col"]), data=st.data())
def test_quantize_tables(rows, d, bits, scheme, data):
    from embedbook import quantize

    tried("quantize tables")
    values = data.draw(st.lists(cells, min_size=rows * d, max_size=rows * d))
    if data.draw(st.booleans()):
        values[:d] = [0.0] * d  # an all-zero row
    table = torch.tensor(values, dtype=torch.float32).reshape(rows, d)
    bad = bits not in (8, 4) or scheme not in ("row", "tensor") or not torch.isfinite(table).all() or (bits == 4 and d % 2)
    if bad:
        with pytest.raises(ValueError) as err:
            quantize.quantize(table, bits, scheme)
        assert str(err.value)
        return
    back = quantize.dequantize(quantize.quantize(table, bits, scheme))
    assert back.shape == table.shape and torch.isfinite(back).all()
    assert torch.equal(back[table.abs().sum(1) == 0], table[table.abs().sum(1) == 0])  # zero rows come back exactly 0
    scale = table.abs().amax(1, keepdim=True) if scheme == "row" else table.abs().amax()
    step = scale / (127 if bits == 8 else 7)
    assert ((back - table).abs() <= step / 2 + 1e-3 * scale + 1e-6).all()  # within half a quantisation step


# --- similarity: vectors, k, words ----------------------------------------------------------------


@SETTINGS
@given(a=st.lists(finite, min_size=1, max_size=6), b=st.lists(finite, min_size=1, max_size=6))
def test_cosine(a, b):
    from embedbook import similarity

    tried("cosine vectors")
    na, nb = np.linalg.norm(np.float64(a)), np.linalg.norm(np.float64(b))
    if len(a) != len(b) or na == 0 or nb == 0:
        with pytest.raises(ValueError):
            similarity.cosine(np.array(a), np.array(b))
    else:
        c = similarity.cosine(np.array(a), np.array(b))
        assert math.isfinite(c) and -1 - 1e-9 <= c <= 1 + 1e-9


@SETTINGS
@given(n=st.integers(1, 30), k=st.one_of(st.integers(-3, 40), st.sampled_from([1.5, "3", None])))
def test_knn_k(n, k):
    from embedbook import similarity

    tried("knn k")
    table = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
    if isinstance(k, int) and 0 < k <= n:
        idx, scores = similarity.knn(table[[0, n - 1]], table, k)
        assert idx.shape == (2, k) and np.isfinite(scores).all()
    else:
        with pytest.raises(ValueError):
            similarity.knn(table[[0, n - 1]], table, k)
