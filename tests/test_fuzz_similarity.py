"""Property-based tests (hypothesis) of embedbook.similarity: spaces with NaN, infinity and all-zero rows,
queries of every kind, any k and metric. Every input gives a correct result — the word itself never among its
neighbours, finite scores best first, no all-zero row as a cosine neighbour, the same neighbours as a brute-force
search — or a ValueError / KeyError with a message; never another exception, a NaN or a wrong shape."""

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedbook import similarity as S
from tests.conftest import FUZZ_COUNTS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False, width=32)
cells = st.one_of(finite, finite, finite, finite, st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf]))


def tried(name):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + 1



@st.composite
def matrices(draw, allow_bad=True, min_rows=1, d=None):
    rows, d = draw(st.integers(min_rows, 8)), d or draw(st.integers(1, 6))
    bad = allow_bad and draw(st.booleans())  # half the tables are finite, or few would get past validation
    values = draw(st.lists(cells if bad else finite, min_size=rows * d, max_size=rows * d))
    m = np.array(values, dtype=np.float32).reshape(rows, d)
    for r in draw(st.lists(st.integers(0, rows - 1), max_size=2)):
        m[r] = 0.0  # all-zero rows
    return m


@SETTINGS
@given(m=matrices(), data=st.data(), metric=st.sampled_from(["cosine", "cosine", "dot", "euclidean", "manhattan"]))
def test_space_neighbours(m, data, metric):
    tried("similarity space")
    word = data.draw(st.one_of(st.integers(0, len(m) - 1), st.integers(0, 9)))  # mostly a known word
    k = data.draw(st.one_of(st.integers(1, max(1, len(m) - 1)), st.integers(-1, 9)))  # mostly a k that fits
    words = [f"w{i}" for i in range(len(m))]
    if not np.isfinite(m).all():
        try:
            S.Space(words, m)
        except ValueError as err:
            assert "NaN or infinity" in str(err)
            return
        raise AssertionError("a space with NaN or infinity was accepted")
    sp = S.Space(words, m)
    w = f"w{word}"
    zero = sp.zero  # all-zero rows, and rows too short to have a float32 direction
    assert zero[~np.any(m != 0, axis=1)].all()
    try:
        got = S.neighbours(sp, w, k, metric)
    except KeyError:
        assert word >= len(m)
        return
    except ValueError as err:
        msg = str(err)
        candidates = len(m) - 1 - (int(zero.sum() - zero[word]) if metric == "cosine" else 0)
        assert (metric not in ("cosine", "dot", "euclidean") and "metric" in msg) or \
            (metric == "cosine" and zero[word] and "all-zero" in msg) or \
            ("k" in msg and (k <= 0 or k > candidates)), msg
        return
    names = [x for x, _ in got]
    scores = np.array([s for _, s in got])
    assert len(got) == k and w not in names and len(set(names)) == k
    assert np.isfinite(scores).all() and np.all(np.diff(scores) <= 1e-9)
    if metric == "cosine":
        assert not any(zero[sp.index[x]] for x in names)
        assert np.all(np.abs(scores) <= 1 + 1e-5)
    # the same scores as a brute-force computation, in float64
    v = m.astype(np.float64)
    q = v[word]
    if metric == "cosine":
        ref = [v[sp.index[x]] @ q / (np.linalg.norm(v[sp.index[x]]) * np.linalg.norm(q)) for x in names]
    elif metric == "dot":
        ref = [v[sp.index[x]] @ q for x in names]
    else:
        ref = [-np.linalg.norm(v[sp.index[x]] - q) for x in names]
    assert np.allclose(scores, ref, rtol=1e-3, atol=1e-3 * (1 + np.abs(v).max() ** 2))


@SETTINGS
@given(t=matrices(), data=st.data(), block=st.sampled_from([1, 7, 2**23]))
def test_knn(t, data, block):
    tried("similarity knn")
    q = data.draw(st.one_of(matrices(d=t.shape[1]), matrices(d=t.shape[1]), matrices()))  # mostly the same width
    k = data.draw(st.one_of(st.integers(1, len(t)), st.integers(-1, 9)))
    try:
        ids, sc = S.knn(q, t, k, max_block=block)
    except ValueError as err:
        msg = str(err)
        assert ("NaN" in msg and not (np.isfinite(t).all() and np.isfinite(q).all())) or \
            ("width" in msg and q.shape[1] != t.shape[1]) or ("k" in msg and (k <= 0 or k > len(t))), msg
        return
    assert ids.shape == sc.shape == (len(q), k)
    assert ((0 <= ids) & (ids < len(t))).all() and np.isfinite(sc).all()
    assert np.all(np.diff(sc, axis=1) <= 0)
    full = q.astype(np.float64) @ t.T.astype(np.float64)
    # every returned score is the true inner product, and nothing left out scores higher
    assert np.allclose(np.take_along_axis(full, ids, 1), sc, rtol=1e-4, atol=1e-2)
    kth = np.sort(full, axis=1)[:, ::-1][:, k - 1]
    assert np.all(sc[:, -1] >= kth - 1e-3 * (1 + np.abs(full).max()))


@SETTINGS
@given(a=st.lists(cells, min_size=1, max_size=6), b=st.lists(cells, min_size=1, max_size=6))
def test_cosine(a, b):
    tried("similarity cosine")
    a, b = np.array(a), np.array(b)
    try:
        c = S.cosine(a, b)
    except ValueError as err:
        assert len(a) != len(b) or not (np.isfinite(a).all() and np.isfinite(b).all()) or \
            not a.any() or not b.any(), str(err)
        return
    assert -1.0 <= c <= 1.0


@SETTINGS
@given(m=matrices(allow_bad=False, min_rows=4), words=st.lists(st.integers(0, 7), min_size=3, max_size=3),
       exclude=st.booleans(), k=st.integers(1, 3))
def test_solve_analogy(m, words, exclude, k):
    tried("similarity analogy")
    sp = S.Space([f"w{i}" for i in range(len(m))], m)
    a, b, c = (f"w{i}" for i in words)
    try:
        got = S.solve_analogy(sp, a, b, c, k=k, exclude_inputs=exclude)
    except KeyError:
        assert max(words) >= len(m)
        return
    except ValueError as err:
        assert "k" in str(err)  # too few words left once the inputs are excluded
        return
    assert len(got) == k and all(math.isfinite(s) for _, s in got)
    if exclude:
        assert not {a, b, c} & {w for w, _ in got}
