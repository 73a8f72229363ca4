"""Tests for embedbook.practice: seed dictionary, Procrustes alignment, bits per character, fine-tuning."""

import numpy as np
import pytest

from embedbook import practice


def test_seed_dictionary_is_packaged_and_clean():
    pairs = practice.seed_dictionary()
    assert len(pairs) >= 200
    assert all(e.isascii() and not z.isascii() for e, z in pairs)
    assert len({z for _, z in pairs}) == len(pairs)


def test_split_is_seeded_and_disjoint():
    pairs = [(str(i), str(i)) for i in range(40)]
    fit, test = practice.split_pairs(pairs, 0.25, seed=1)
    assert len(test) == 10 and not set(fit) & set(test)
    assert practice.split_pairs(pairs, 0.25, seed=1) == (fit, test)
    with pytest.raises(ValueError):
        practice.split_pairs(pairs, 1.5)


def test_procrustes_recovers_a_rotation():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 5))
    q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    w = practice.procrustes(x, x @ q)
    assert np.allclose(w, q, atol=1e-8)
    assert np.allclose(w @ w.T, np.eye(5), atol=1e-8)
    with pytest.raises(ValueError):
        practice.procrustes(x, x[:, :4])


class _KV:
    """A minimal stand-in for gensim KeyedVectors."""

    def __init__(self, words, vectors):
        self.index_to_key = list(words)
        self.key_to_index = {w: i for i, w in enumerate(words)}
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.vector_size = self.vectors.shape[1]


def test_align_finds_a_hidden_rotation():
    rng = np.random.default_rng(0)
    en = rng.normal(size=(60, 8))
    q, _ = np.linalg.qr(rng.normal(size=(8, 8)))
    words = [f"w{i}" for i in range(60)]
    en_kv = _KV(words, en)
    zh_kv = _KV([f"z{i}" for i in range(60)], (en - en.mean(0)) @ q.T)  # a rotated copy
    pairs = [(f"w{i}", f"z{i}") for i in range(60)] + [("missing", "z0")]
    r = practice.align(zh_kv, en_kv, pairs, n_targets=60, seed=0)
    assert r["n_usable"] == 60 and r["n_test"] == 15
    assert r["p1_after"] == 1.0 and r["p1_before"] < 0.5
    with pytest.raises(ValueError, match="dimensions differ"):
        practice.align(_KV(["z0"], np.ones((1, 3))), en_kv, pairs)


def test_vocab_bits_per_char_tiny():
    texts = ["the cat sat on the mat and the dog sat on the log"] * 30
    rows = practice.vocab_bits_per_char(texts[:25], texts[25:], [270], d_model=8, context=8, steps=2)
    assert rows[0]["vocab"] <= 270 and rows[0]["bits_per_char"] > 0
    assert rows[0]["embedding_params"] == rows[0]["vocab"] * 8
    with pytest.raises(ValueError):
        practice.vocab_bits_per_char(texts, texts, [], steps=1)


def test_finetune_modes_tiny_and_deterministic():
    src = [["a", "b", "c", "d"] * 30 for _ in range(4)]
    tgt = [["a", "c", "b", "d", "e"] * 30 for _ in range(4)]
    kw = dict(vocab_size=6, d_model=8, context=8, pre_steps=2, ft_steps=4)
    r1, r2 = practice.finetune_modes(src, tgt, **kw), practice.finetune_modes(src, tgt, **kw)
    assert r1 == r2
    assert r1["frozen_target"] != r1["full_target"]  # the modes really differ
    assert set(practice.MODES) <= {k.rsplit("_", 1)[0] for k in r1}
    with pytest.raises(ValueError):
        practice.finetune_modes(src, tgt, small_mult=2.0, **kw)
