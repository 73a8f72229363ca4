"""Bad input, systematically: property-based tests (hypothesis) over the public functions that take ids,
tables, sizes, dtypes, words, chapter names and parameters. Every input either gives a correct result or
a documented exception with a clear message — never a crash of another kind, a NaN or a wrong shape.
The number of inputs tried is printed at the end of the run."""

import math

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
        assert math.isfinite(w) and w > 0
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
