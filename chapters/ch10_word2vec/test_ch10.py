"""Chapter 10's tests: its measurements on small inputs, its rules and its checks."""

import numpy as np
import pytest
import torch

from embedbook import word2vec as W
from embedbook.book import claims
from embedbook.chapters.ch10_word2vec import measure as ch10

# --- from tests/test_word2vec.py: the chapter's experiments on small inputs --------------------


# --- chapter 10's helpers -------------------------------------------------------------------------------------------


def test_token_slices_are_disjoint_and_exact():
    corpus = [[f"t{i}" for i in range(j * 10, j * 10 + 10)] for j in range(10)]  # 100 tokens
    a, b = ch10.token_slices(corpus, 35, parts=2)
    flat_a, flat_b = sum(a, []), sum(b, [])
    assert len(flat_a) == len(flat_b) == 35 and not set(flat_a) & set(flat_b)
    assert flat_a + flat_b == [f"t{i}" for i in range(70)]
    with pytest.raises(ValueError, match="fewer"):
        ch10.token_slices(corpus, 60, parts=2)


def test_epoch_improvement():
    assert ch10.epoch_improvement([10, 9, 8, 8, 8, 8]) == pytest.approx(0.0)
    assert ch10.epoch_improvement([10, 9, 8, 6]) > 0.2
    with pytest.raises(ValueError):
        ch10.epoch_improvement([3, 2])


def test_plant_copies_contexts_in_the_declared_mix():
    corpus = [["x", "y", "fire", "z", "w"], ["a", "company", "b"]] * 20
    docs = ch10.plant(corpus, "tok", "fire", "company", 0.8, 10, window=2, seed=0)
    assert len(docs) == 10 and all(d.count("tok") == 1 for d in docs)
    assert sum(d == ["x", "y", "tok", "z", "w"] for d in docs) == 8
    assert sum(d == ["a", "tok", "b"] for d in docs) == 2
    assert corpus[0] == ["x", "y", "fire", "z", "w"]  # the corpus itself is untouched
    with pytest.raises(ValueError, match="never contains"):
        ch10.plant(corpus, "tok", "fire", "absent", 0.5, 4)
    with pytest.raises(ValueError, match="probability"):
        ch10.plant(corpus, "tok", "fire", "company", 1.5, 4)


def test_lean_sign_and_phrase(corpus):
    sp = W.as_space(W.train(corpus, vector_size=16, min_count=1, epochs=30, seed=0))
    assert ch10.lean(sp, "apple", ["banana", "pear"], ["car", "truck"]) > 0
    assert ch10.lean(sp, "apple", ["banana", "missing"], ["car"]) == pytest.approx(
        ch10.lean(sp, "apple", ["banana"], ["car"]))
    with pytest.raises(ValueError, match="lacks"):
        ch10.lean(sp, "apple", ["missing"], ["car"])
    assert "fruit" in ch10.lean_phrase("apple", 0.2) and "technology" in ch10.lean_phrase("apple", -0.1)
    assert "not in this vocabulary" in ch10.lean_phrase("苹果", None)


def test_planted_lean_follows_the_mix(corpus):
    big = [["sweet", "ripe", "fire", "eat", "sweet"], ["drive", "road", "company", "engine", "road"]] * 60 + corpus
    r = ch10.run_planted(big, n=30, seeds=2, epochs=8, dim=16, n_tokens=None)
    assert r.rise > 0 and set(r.leans) == {0.2, 0.5, 0.8} and all(len(v) == 2 for v in r.leans.values())
    assert claims.run("C39", r).verdict in {claims.CONFIRMED, claims.INCONCLUSIVE, claims.REFUTED}


def test_usage_examples_skip_function_words():
    u = ch10.Usage.__new__(ch10.Usage)
    u.words = ["about", "also", "fires", "police"]
    u.per_word = {"across": np.array([0.0, 0.0, 0.1, 0.2]), "seed": np.array([0.9, 0.9, 0.9, 0.9])}
    assert u.examples(2) == ["fires", "police"]


def test_page_helpers_of_ch10(corpus):
    sp = W.as_space(W.train(corpus, vector_size=16, min_count=1, epochs=5, seed=0))
    table = ch10.neighbour_table({"a": (sp, "apple"), "gone": (sp, "missing")}, k=2)
    assert list(table.columns) == ["a"] and len(table) == 2
    assert "a: " in ch10.neighbours_sentence(table, 2)
    assert "None of these words" in ch10.neighbours_sentence(table[[]], 2)
    agree = ch10.run_agreement({"x": sp, "y": sp}, n_words=5, k=2)
    assert agree.loc["x", "y"] == pytest.approx(1.0) and agree.loc["y", "x"] == agree.loc["x", "y"]
    from embedbook import similarity

    fam = sorted({w for q in similarity.read_analogies()["family"] for w in q})
    rng = np.random.default_rng(0)
    fs = similarity.Space(fam, rng.normal(size=(len(fam), 6)).astype(np.float32))
    words, groups, xy = ch10.map_points(fs, 10, {"family": "family", "also": "family"})
    assert len(words) == len(set(words)) == len(groups) == xy.shape[0] and xy.shape[1] == 2


# --- the skip-gram loop of chapter 10's page ------------------------------------------------------------------


def test_run_skipgram_is_the_sgns_step_loop_it_documents(corpus):
    """run_skipgram is word2vec.c's layout: vocabulary most frequent first, pairs in order, uniform/d and zero
    starts, one multinomial draw of noise per epoch, linear decay; replayed here with sgns_step, bit for bit."""
    docs = corpus[:40]
    r = ch10.run_skipgram(docs, dim=8, window=1, negative=3, epochs=2, lr=0.2, min_count=1, seed=3)
    again = ch10.run_skipgram(docs, dim=8, window=1, negative=3, epochs=2, lr=0.2, min_count=1, seed=3)
    assert torch.equal(r.w_in, again.w_in) and r.losses == again.losses
    index = {w: i for i, w in enumerate(r.words)}
    pairs = [(index[d[i]], index[d[j]]) for d in docs for i in range(len(d)) for j in (i - 1, i + 1)
             if 0 <= j < len(d)]
    assert r.n_pairs == len(pairs) and r.words[0] in {"sweet", "drive", "eat", "road", "ripe", "engine"}
    g = torch.Generator().manual_seed(3)
    w_in, w_out = (torch.rand(len(r.words), 8, generator=g) - 0.5) / 8, torch.zeros(len(r.words), 8)
    counts = {w: sum(d.count(w) for d in docs) for w in r.words}
    noise_p = torch.tensor([counts[w] for w in r.words], dtype=torch.float) ** 0.75
    for epoch in range(2):
        neg = torch.multinomial(noise_p, len(pairs) * 3, replacement=True, generator=g).view(-1, 3)
        for i, (c, o) in enumerate(pairs):
            W.sgns_step(w_in, w_out, c, o, neg[i], lr=0.2 * max(1 - (epoch * len(pairs) + i) / (2 * len(pairs)), 1e-4))
    assert torch.equal(w_in, r.w_in) and torch.equal(w_out, r.w_out)
    assert r.loss_last < r.loss_first and r.loss_first == r.losses[0]


def test_run_skipgram_bad_input(corpus):
    with pytest.raises(ValueError, match="window must be a positive int"):
        ch10.run_skipgram(corpus, window=0, dim=8)
    with pytest.raises(ValueError, match="min_count"):
        ch10.run_skipgram(corpus, min_count=10_000, dim=8)
    with pytest.raises(ValueError, match="no \\(centre, context\\) pair"):
        ch10.run_skipgram([["a"], ["a"]], min_count=1, dim=8)
    with pytest.raises(TypeError, match="token lists"):
        ch10.run_skipgram("not a corpus", dim=8)
