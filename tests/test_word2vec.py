"""Unit tests for embedbook.word2vec on a tiny synthetic corpus (seconds)."""

import numpy as np
import pytest

from embedbook import claims, word2vec as W
from embedbook.similarity import Space


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(0)
    fruit, cars = ["apple", "banana", "pear"], ["car", "truck", "bus"]
    out = []
    for _ in range(300):
        grp = fruit if rng.random() < 0.5 else cars
        ctx = ["sweet", "eat", "ripe"] if grp is fruit else ["drive", "road", "engine"]
        out.append([str(rng.choice(ctx)), str(rng.choice(grp)), str(rng.choice(ctx)), str(rng.choice(ctx))])
    return out


def test_train_is_deterministic(corpus):
    a = W.train(corpus, vector_size=10, min_count=1, epochs=3, seed=1)
    b = W.train(corpus, vector_size=10, min_count=1, epochs=3, seed=1)
    assert np.array_equal(a.wv.vectors, b.wv.vectors)
    sp = W.as_space(a)
    assert sp.words == a.wv.index_to_key
    c = W.counts(a)
    assert (np.diff(c) <= 0).all()  # most frequent first


def test_train_bad_input():
    with pytest.raises(ValueError, match="empty"):
        W.train([])
    with pytest.raises(TypeError, match="token lists"):
        W.train(["a sentence"])
    with pytest.raises(ValueError, match="epochs"):
        W.train([["a", "b"]], epochs=0)
    with pytest.raises(ValueError, match="min_count"):
        W.train([["a", "b"]], min_count=5)


def test_similarity_benchmark_and_coverage():
    sp = Space(["a", "b", "c", "d"], np.array([[1, 0], [0.9, 0.1], [0, 1], [-1, 0]], dtype=np.float32))
    pairs = [("a", "b", 9.0), ("a", "c", 5.0), ("a", "d", 0.0), ("a", "zzz", 3.0)]
    r = W.similarity_benchmark(sp, pairs)
    assert r["covered"] == 3 and r["total"] == 4 and r["spearman"] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        W.similarity_benchmark(sp, [])


def test_neighbour_overlap():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(30, 5)).astype(np.float32)
    words = [f"w{i}" for i in range(30)]
    s1 = Space(words, v)
    s2 = Space(words[::-1], v[::-1])  # same vectors, other order
    assert np.all(W.neighbour_overlap(s1, s2, words[:5], k=3) == 1.0)
    with pytest.raises(ValueError):
        W.neighbour_overlap(s1, s2, [], k=3)
    with pytest.raises(ValueError):
        W.top_neighbours(s1, "w0", 0)


def test_c39_registered():
    assert claims.has_check("C39")
