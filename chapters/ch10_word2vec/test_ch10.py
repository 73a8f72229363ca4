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


# --- the lesson's helpers ---------------------------------------------------------------------------------------


def test_planted_once_is_the_first_seed_of_run_planted(corpus):
    big = [["sweet", "ripe", "fire", "eat", "sweet"], ["drive", "road", "company", "engine", "road"]] * 60 + corpus
    once = ch10.run_planted_once(big, n=30, epochs=8, dim=16, n_tokens=None)
    every = ch10.run_planted(big, n=30, seeds=2, epochs=8, dim=16, n_tokens=None)
    assert once.leans == [every.leans[p][0] for p in every.ps]  # the lesson's run is the audit's seed 0
    words = once.glued()
    assert words["lean_words"].startswith("On seed 0 the lean is ")
    assert "at p = 0.2" in words["lean_words"] and "at p = 0.8" in words["summary"]


def test_planted_once_words_follow_the_leans():
    r = ch10.PlantedOnce(a="fire", b="company", seed=0, n_planted=40, ps=[0.2, 0.5, 0.8], leans=[-0.2, 0.0, 0.3])
    assert "grows with the share of 'fire' contexts at every step" in r.glued()["lean_words"]
    assert r.glued()["summary"].startswith("With everything else held fixed")
    r.leans = [-0.2, 0.4, 0.3]
    assert "but not at every step" in r.glued()["lean_words"] and "did not set" in r.glued()["summary"]
    r.leans = [0.3, 0.1, -0.2]
    assert "does not grow" in r.glued()["lean_words"]
    r.leans = [-0.01, -0.005, 0.0]  # growing, but by less than a visible amount (a smoke run's tiny model)
    assert "barely moves with the share of 'fire' contexts (by +0.01" in r.glued()["lean_words"]
    assert "did not set" in r.glued()["summary"]


def test_map_labels_do_not_overlap():
    import matplotlib

    matplotlib.use("Agg")
    from embedbook import plotting

    plotting.setup()
    rng = np.random.default_rng(0)
    xy = rng.normal(size=(120, 2))
    words = [f"word{i:03d}" for i in range(120)]
    groups = [g for g in ("country, capital", "family word", "noun, plural") for _ in range(40)]
    fig = ch10.map_chart(words, groups, xy, per_group=3)
    ax = fig.axes[0]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert 3 <= len(boxes) <= 9  # at most three named per group
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    inside = ax.get_window_extent(renderer)
    assert all(inside.x0 <= b.x0 and b.x1 <= inside.x1 and inside.y0 <= b.y0 and b.y1 <= inside.y1 for b in boxes)
    legend = ax.get_legend().get_window_extent(renderer)
    assert not any(b.overlaps(legend) for b in boxes)


# --- the lesson's exercises: each answer is what the exercise's code gives ---------------------------------------


def _toy(noise_from=3, drop=()):
    """The lesson's toy cells in order: the tables from the generator, then the loop over the article's pairs
    (no cell between draws from the generator)."""
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(0)
    W_in = 0.5 * torch.randn(7, 8, generator=g)
    W_out = 0.5 * torch.randn(7, 8, generator=g)
    start = W_in.clone()
    pairs = [p for p in [(0, 3), (0, 4), (1, 3), (1, 4), (2, 5), (2, 6)] if p not in drop]
    before = [F.cosine_similarity(W_in[0], W_in[j], dim=0).item() for j in (1, 2)]
    for step in range(300):
        centre, context = pairs[step % len(pairs)]
        W.sgns_step(W_in, W_out, centre, context, torch.randint(noise_from, 7, (2,), generator=g), lr=0.2)
    after = [F.cosine_similarity(W_in[0], W_in[j], dim=0).item() for j in (1, 2)]
    return [round(x, 2) for x in before], [round(x, 2) for x in after], W_in, start


def test_exercise_1_banana_without_shared_contexts():
    before, after, W_in, start = _toy()
    assert before[0] == 0.31 and after[0] == 0.90  # the lesson's run
    before, after, W_in, start = _toy(drop=[(1, 3), (1, 4)])
    assert before[0] == 0.31 and after[0] == 0.15
    assert torch.equal(W_in[1], start[1])  # 香蕉's row never moves


def test_exercise_2_noise_from_all_seven_words():
    _, after, _, _ = _toy()
    assert after == [0.90, -0.03]
    _, after, _, _ = _toy(noise_from=0)
    assert after == [0.96, 0.19]


def test_exercise_3_the_papers_subsampling_threshold():
    import collections

    from embedbook import data

    lee_counts = collections.Counter(w for doc in data.lee_corpus() for w in doc)
    kept = {w: c for w, c in lee_counts.items() if c >= 5}
    f = torch.tensor(list(kept.values()), dtype=torch.float64) / sum(kept.values())
    shares = {}
    for t in (1e-3, 1e-5):
        keep = torch.clamp(torch.sqrt(t / f) + t / f, max=1.0)
        shares[t] = (round(100 * float((f * keep).sum())), int((keep < 1).sum()))
    assert shares == {1e-3: (72, 51), 1e-5: (12, len(kept))}  # at 1e-5 every word is cut
    assert 5 / sum(kept.values()) > 5e-5  # a word seen five times: f about 1e-4, above the paper's t


def test_exercise_4_gensim_and_the_package_give_the_same_neighbours():
    from embedbook import data, similarity

    cbow_zh = W.train(data.peoples_daily(), sg="cbow", vector_size=50, epochs=3, seed=0)  # the lesson's model
    zh = W.as_space(cbow_zh)
    theirs = cbow_zh.wv.most_similar("苹果", topn=5)
    ours = similarity.neighbours(zh, "苹果", 5)
    assert [w for w, _ in theirs] == [w for w, _ in ours]
    assert np.allclose([s for _, s in theirs], [s for _, s in ours], atol=1e-5)
