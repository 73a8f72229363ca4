"""Tests for embedbook.align: the seed dictionary, splits, Procrustes (NumPy and torch), retrieval and
the whole alignment on a space with a hidden rotation; bad input gets a clear error."""

import numpy as np
import pytest
import torch

from embedbook import align


class _KV:
    """A minimal stand-in for gensim KeyedVectors."""

    def __init__(self, words, vectors):
        self.index_to_key = list(words)
        self.key_to_index = {w: i for i, w in enumerate(words)}
        self.vectors = np.asarray(vectors, dtype=np.float32)


def _rotation(d, seed=0):
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(d, d)))
    return q


def test_seed_dictionary_is_packaged_and_clean():
    pairs = align.seed_dictionary()
    assert len(pairs) >= 200
    assert all(e.isascii() and not z.isascii() for e, z in pairs)
    assert len({z for _, z in pairs}) == len(pairs)


def test_split_is_seeded_and_disjoint():
    pairs = [(str(i), str(i)) for i in range(40)]
    fit, test = align.split_pairs(pairs, 0.25, seed=1)
    assert len(test) == 10 and len(fit) == 30 and not set(fit) & set(test)
    assert align.split_pairs(pairs, 0.25, seed=1) == (fit, test)
    assert align.split_pairs(pairs, 0.25, seed=2) != (fit, test)
    with pytest.raises(ValueError, match="test_fraction"):
        align.split_pairs(pairs, 1.5)
    with pytest.raises(ValueError, match="at least 2 pairs"):
        align.split_pairs(pairs[:1])
    with pytest.raises(TypeError, match="pair"):
        align.split_pairs(["ab", "cd"])


def test_folds_hold_every_pair_out_once():
    pairs = [(str(i), str(i)) for i in range(10)]
    splits = align.folds(pairs, k=3, seed=0)
    held = [p for _, test in splits for p in test]
    assert sorted(held) == sorted(pairs)
    assert all(not set(fit) & set(test) and len(fit) + len(test) == 10 for fit, test in splits)
    with pytest.raises(ValueError, match="k must be"):
        align.folds(pairs, k=1)
    with pytest.raises(ValueError, match="k must be"):
        align.folds(pairs, k=11)


def test_procrustes_recovers_a_rotation_numpy_and_torch():
    rng = np.random.default_rng(0)
    x, q = rng.normal(size=(30, 5)), _rotation(5)
    w = align.procrustes(x, x @ q)
    assert np.allclose(w, q, atol=1e-8) and np.allclose(w @ w.T, np.eye(5), atol=1e-8)
    xt = torch.tensor(x, dtype=torch.float64)
    wt = align.procrustes(xt, xt @ torch.tensor(q))
    assert isinstance(wt, torch.Tensor) and torch.allclose(wt, torch.tensor(q), atol=1e-8)


def test_procrustes_is_the_best_orthogonal_map():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(50, 4)), rng.normal(size=(50, 4))
    best = np.linalg.norm(x @ align.procrustes(x, y) - y)
    for seed in range(20):
        assert best <= np.linalg.norm(x @ _rotation(4, seed) - y) + 1e-9


def test_procrustes_refuses_bad_input():
    x = np.ones((5, 3))
    with pytest.raises(ValueError, match="matching"):
        align.procrustes(x, x[:, :2])
    with pytest.raises(ValueError, match="n >= 2"):
        align.procrustes(x[:1], x[:1])
    with pytest.raises(ValueError, match="NaN"):
        align.procrustes(np.full((3, 2), np.nan), np.ones((3, 2)))
    with pytest.raises(ValueError, match="overflows"):
        align.procrustes(np.full((3, 2), 1e200), np.full((3, 2), 1e200))
    with pytest.raises(TypeError, match="same kind"):
        align.procrustes(x, torch.ones(5, 3))
    with pytest.raises(TypeError, match="floating"):
        align.procrustes(torch.ones(5, 3, dtype=torch.long), torch.ones(5, 3, dtype=torch.long))


def test_prepare_centres_and_normalises():
    x = np.random.default_rng(0).normal(size=(20, 4)) + 5.0
    p = align.prepare(x)
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-5)
    raw = x / np.linalg.norm(x, axis=1, keepdims=True)
    assert np.linalg.norm(p.mean(0)) < 0.2 * np.linalg.norm(raw.mean(0))  # the shared direction is gone
    t = align.prepare(torch.tensor(x, dtype=torch.float32))
    assert isinstance(t, torch.Tensor) and torch.allclose(t, torch.tensor(p), atol=1e-5)
    with pytest.raises(ValueError, match=r"row\(s\) are all zeros"):
        align.prepare(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="two rows"):
        align.prepare(np.ones((1, 2)))


def test_translation_ranks_and_precision():
    cands = np.eye(4, dtype=np.float32)
    queries = np.array([[1, 0, 0, 0], [0.1, 0.9, 0, 0], [0, 0, 0, 1]], dtype=np.float32)
    ranks = align.translation_ranks(queries, cands, [0, 0, 3])
    assert ranks.tolist() == [0, 1, 0]
    assert align.precision_at(ranks, 1) == pytest.approx(2 / 3) and align.precision_at(ranks, 2) == 1.0
    with pytest.raises(ValueError, match="gold rows"):
        align.translation_ranks(queries, cands, [0, 0, 9])
    with pytest.raises(ValueError, match="one gold row"):
        align.translation_ranks(queries, cands, [0])
    with pytest.raises(ValueError, match="dimensions"):
        align.translation_ranks(queries[:, :2] + 1, cands, [0, 0, 0])
    with pytest.raises(ValueError, match="k must"):
        align.precision_at(ranks, 0)
    with pytest.raises(ValueError, match="no ranks"):
        align.precision_at([], 1)


def test_align_finds_a_hidden_rotation():
    rng = np.random.default_rng(0)
    en = rng.normal(size=(60, 8))
    en_kv = _KV([f"w{i}" for i in range(60)], en)
    zh_kv = _KV([f"z{i}" for i in range(60)], (en - en.mean(0)) @ _rotation(8).T)  # a rotated copy
    pairs = [(f"z{i}", f"w{i}") for i in range(60)] + [("z0", "missing")]
    r = align.align(zh_kv, en_kv, pairs, n_candidates=60, seed=0)
    assert r.n_pairs == 61 and r.n_usable == 60 and r.n_test == 15 and r.n_fit == 45
    assert r.p1_after == 1.0 and r.p1_before < 0.5 and r.p5_shuffled < 0.7
    assert r.cos_after > 0.99 > r.cos_before
    assert np.allclose(r.map @ r.map.T, np.eye(8), atol=1e-5)
    assert all(guess == gold for _, gold, guess in r.examples)
    explicit = align.align(zh_kv, en_kv, fit=pairs[:45], test=pairs[45:60], n_candidates=60)
    assert explicit.p1_after == 1.0 and explicit.n_test == 15


def test_align_refuses_bad_input():
    en_kv = _KV(["a", "b", "c"], np.eye(3))
    with pytest.raises(ValueError, match="dimensions differ"):
        align.align(_KV(["x", "y"], np.ones((2, 2))), en_kv, [("x", "a"), ("y", "b")])
    with pytest.raises(TypeError, match="KeyedVectors"):
        align.align(np.ones((3, 3)), en_kv, [("x", "a")])
    with pytest.raises(ValueError, match="too few"):
        align.align(_KV(["x", "y", "z"], np.eye(3)), en_kv, [("x", "nope"), ("y", "nope"), ("z", "nope")])
    with pytest.raises(ValueError, match="both fit and test"):
        align.align(_KV(["x", "y", "z"], np.eye(3)), en_kv, fit=[("x", "a")])
