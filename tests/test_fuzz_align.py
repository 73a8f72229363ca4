"""Property-based tests (hypothesis) of embedbook.align: any matrices give an orthogonal map or a clear
ValueError/TypeError, never a NaN; splits are disjoint and cover the dictionary; retrieval ranks stay in
range."""

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedbook import align
from tests.conftest import FUZZ_COUNTS

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
anyfloat = st.floats(allow_nan=True, allow_infinity=True, width=32)


def tried(name):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + 1


@SETTINGS
@given(n=st.integers(0, 12), d=st.integers(1, 6), d2=st.integers(1, 6), kind=st.sampled_from(["numpy", "torch"]),
       values=st.lists(anyfloat, min_size=144, max_size=144))
def test_procrustes_is_orthogonal_or_refuses(n, d, d2, kind, values):
    tried("align procrustes")
    v = np.array(values, dtype=np.float64)
    src, tgt = v[: n * d].reshape(n, d), v[72 : 72 + n * d2].reshape(n, d2)
    if kind == "torch":
        src, tgt = torch.tensor(src), torch.tensor(tgt)
    ok = n >= 2 and d == d2 and np.isfinite(v[: n * d]).all() and np.isfinite(v[72 : 72 + n * d2]).all()
    if ok:
        w = np.asarray(align.procrustes(src, tgt))
        assert w.shape == (d, d) and np.isfinite(w).all()
        assert np.allclose(w @ w.T, np.eye(d), atol=1e-6)
    else:
        with pytest.raises(ValueError):
            align.procrustes(src, tgt)


@SETTINGS
@given(n=st.integers(0, 60), fraction=st.floats(-0.5, 1.5, allow_nan=False), seed=st.integers(0, 2**31))
def test_split_pairs_partition(n, fraction, seed):
    tried("align split_pairs")
    pairs = [(f"s{i}", f"t{i}") for i in range(n)]
    if n >= 2 and 0 < fraction < 1:
        fit, test = align.split_pairs(pairs, fraction, seed)
        assert fit and test and sorted(fit + test) == sorted(pairs) and not set(fit) & set(test)
    else:
        with pytest.raises(ValueError):
            align.split_pairs(pairs, fraction, seed)


@SETTINGS
@given(n=st.integers(1, 30), q=st.integers(1, 10), d=st.integers(1, 5), seed=st.integers(0, 1000),
       bad_gold=st.booleans())
def test_translation_ranks_in_range(n, q, d, seed, bad_gold):
    tried("align translation_ranks")
    rng = np.random.default_rng(seed)
    cands, queries = rng.normal(size=(n, d)) + 0.1, rng.normal(size=(q, d)) + 0.1
    gold = rng.integers(0, n, size=q)
    if bad_gold:
        gold[0] = n
        with pytest.raises(ValueError, match="gold rows"):
            align.translation_ranks(queries, cands, gold)
        return
    ranks = align.translation_ranks(queries, cands, gold)
    assert ranks.shape == (q,) and (ranks >= 0).all() and (ranks < n).all()
    assert 0.0 <= align.precision_at(ranks, 1) <= align.precision_at(ranks, min(5, n)) <= 1.0
