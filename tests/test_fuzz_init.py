"""Property-based tests for embedbook.init and embedbook.dynamics: any shape, dtype, padding row or count
vector either gives the right answer or a clear exception, never a NaN or a raw torch error."""

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedbook import dynamics, init

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(rows=st.integers(1, 40), dim=st.integers(1, 16), name=st.sampled_from(init.known()),
       dtype=st.sampled_from([torch.float32, torch.float64, torch.bfloat16]),
       pad=st.one_of(st.none(), st.integers(-40, 39)))
def test_apply_any_shape(rows, dim, name, dtype, pad):
    w = torch.full((rows, dim), float("nan"), dtype=dtype)
    if pad is not None and not -rows <= pad < rows:
        with pytest.raises(ValueError, match="padding_idx"):
            init.apply(w, name, padding_idx=pad)
        return
    out = init.apply(w, name, generator=torch.Generator().manual_seed(0), padding_idx=pad)
    assert out is w and torch.isfinite(out).all()
    bound = init.std_of(name, rows, dim) * (math.sqrt(3) if init.scheme(name).uniform else 12)
    assert out.float().abs().max() <= bound * 1.01 + 1e-6
    if pad is not None:
        assert (out[pad] == 0).all()


@SETTINGS
@given(counts=st.lists(st.integers(0, 500), min_size=3, max_size=40),
       drift=st.lists(st.floats(0, 10, allow_nan=False), min_size=3, max_size=40))
def test_drift_by_frequency_answers_or_explains(counts, drift):
    n = min(len(counts), len(drift))
    counts, drift = counts[:n], drift[:n]
    try:
        s = dynamics.drift_by_frequency(counts, drift, rare_max=3, frequent_min=100)
    except ValueError as err:
        assert str(err)  # a named problem: no rare / frequent token, too few seen, a constant sequence
        return
    assert -1 <= s.rho <= 1 and s.n_rare >= 1 and s.n_frequent >= 1
    c = np.array(counts)
    assert s.n_unseen == int((c == 0).sum())
