"""Bad input, systematically: property-based tests (hypothesis) over the public functions that take ids,
tables, sizes, chapter names, chapter parameters, claim ids and the statistics helpers. Every input either
gives a correct result or a documented exception with a clear message — never a crash of another kind, a
NaN or a wrong shape. Topic modules have their own suites (tests/test_fuzz_<topic>.py). The number of inputs
tried is printed at the end of the run."""

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedbook import book, lookup, stats
from embedbook.book import claims, cli
from tests.conftest import FUZZ_COUNTS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tried(name):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + 1


ints = st.integers(min_value=-(2**40), max_value=2**40)
dtypes = st.sampled_from([torch.long, torch.int32, torch.int16, torch.uint8, torch.float32, torch.float64, torch.bool])


@SETTINGS
@given(values=st.lists(ints, min_size=0, max_size=20), dtype=dtypes, vocab=st.integers(1, 50),
       table_dtype=st.sampled_from([torch.float32, torch.float16, torch.bfloat16, torch.float64]))
def test_lookup_ids(values, dtype, vocab, table_dtype):
    tried("lookup ids")
    table = torch.arange(vocab * 3, dtype=torch.float32).reshape(vocab, 3).to(table_dtype)
    try:
        ids = torch.tensor(values, dtype=dtype)
    except (OverflowError, RuntimeError):
        return  # not representable in that dtype: no tensor to pass
    ok = (not dtype.is_floating_point and dtype != torch.bool and ids.numel() > 0
          and int(ids.min()) >= 0 and int(ids.max()) < vocab)
    fns = (lookup.gather, lookup.one_hot_matmul, lookup.linear_lookup, lambda i, t: lookup.Lookup(t)(i))
    for fn in fns:
        if ok:
            out = fn(ids, table)
            assert out.shape == (len(values), 3) and out.dtype == table_dtype and torch.equal(out, table[ids.long()])
        else:
            with pytest.raises((TypeError, ValueError, IndexError)) as err:
                fn(ids, table)
            assert str(err.value)


@SETTINGS
@given(name=st.text(max_size=20))
def test_chapter_names(name):
    tried("chapter names")
    if name in book.chapters():
        assert book.chapter_path(name).exists()
    else:
        with pytest.raises(ValueError, match="unknown chapter"):
            book.chapter_path(name)


values = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False), st.text(max_size=6), st.booleans(),
                   st.lists(st.integers(0, 10), max_size=3))


@SETTINGS
@given(name=st.sampled_from(["SMOKE", "BW_TOKENS", "VOCAB_SIZES", "REPS", "NOT_DECLARED"]), value=values)
def test_chapter_parameter_values(name, value):
    """A value must have the type of the parameter's default (an int for a float is fine)."""
    tried("chapter parameters")
    path = book.chapter_path("02_lookup")
    declared = book.parameters(path)
    if name not in declared:
        with pytest.raises(ValueError, match="no parameter"):
            book.check_params(path, {name: value})
        return
    default = declared[name]
    fits = (isinstance(value, bool) == isinstance(default, bool)) and (
        isinstance(value, type(default)) or (isinstance(default, float) and isinstance(value, int))
        or (isinstance(default, list) and isinstance(value, list)))
    if fits:
        book.check_params(path, {name: value})
    else:
        with pytest.raises(ValueError, match=f"parameter {name}"):
            book.check_params(path, {name: value})


@SETTINGS
@given(text=st.text(max_size=12))
def test_cli_parameter_text(text):
    """`embedbook run -p BW_TOKENS=<text>`: an int is accepted, anything else refused before running."""
    tried("CLI -p values")
    parsed = cli._parse_params([f"BW_TOKENS={text}"])
    path = book.chapter_path("02_lookup")
    if isinstance(parsed["BW_TOKENS"], int) and not isinstance(parsed["BW_TOKENS"], bool):
        book.check_params(path, parsed)
    else:
        with pytest.raises(ValueError, match="BW_TOKENS"):
            book.check_params(path, parsed)


@SETTINGS
@given(cid=st.text(max_size=5))
def test_claim_ids(cid):
    tried("claim ids")
    if cid in claims.CLAIMS:
        assert claims.claim(cid).id == cid
    else:
        with pytest.raises(KeyError, match="unknown claim id"):
            claims.claim(cid)


numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 10**6))


@SETTINGS
@given(xs=st.lists(numbers, max_size=6), ys=st.lists(numbers, max_size=6))
def test_power_law_exponent(xs, ys):
    tried("power-law fits")
    ok = (len(xs) == len(ys) >= 2 and all(math.isfinite(v) and v > 0 for v in xs + ys) and len(set(xs)) >= 2
          and all(math.isfinite(math.log(v)) for v in xs + ys))
    if ok:
        assert math.isfinite(stats.power_law_exponent(xs, ys))
    else:
        with pytest.raises((ValueError, TypeError)):
            stats.power_law_exponent(xs, ys)


@SETTINGS
@given(rows=st.integers(0, 5), d=st.integers(0, 5), special=st.sampled_from([None, 0.0, math.nan, math.inf]),
       as_tensor=st.booleans())
def test_unit_rows(rows, d, special, as_tensor):
    tried("unit rows")
    m = np.random.default_rng(rows * 7 + d).standard_normal((rows, d)).astype(np.float32)
    if special is not None and rows and d:
        m[0] = special
    x = torch.from_numpy(m) if as_tensor else m
    bad = rows and (d == 0 or special is not None)  # a width-0 row has norm 0: no direction either
    if bad:
        with pytest.raises(ValueError):
            stats.unit_rows(x)
        if special == 0.0 or d == 0:
            out = stats.unit_rows(x, zero="keep")
            assert float(abs(out[0]).sum()) == 0.0
        return
    out = stats.unit_rows(x)
    if rows and d:
        norms = np.linalg.norm(np.asarray(out), axis=1)
        assert np.allclose(norms, 1.0, atol=1e-5)
