"""Unit tests for embedbook.similarity: tiny synthetic spaces, plus the packaged analogy data."""

import numpy as np
import pytest

from embedbook import claims, similarity as S


@pytest.fixture
def space():
    rng = np.random.default_rng(0)
    words = ["man", "woman", "king", "queen", "apple", "banana", "car", "road"] + [f"w{i}" for i in range(40)]
    vecs = rng.normal(size=(len(words), 8)).astype(np.float32)
    gender = rng.normal(size=8)
    vecs[1] = vecs[0] + gender  # woman = man + gender
    vecs[3] = vecs[2] + gender  # queen = king + gender
    return S.Space(words, vecs)


def test_cosine_basic_and_length_invariant():
    a = np.array([1.0, 2.0, 3.0])
    assert S.cosine(a, 5 * a) == pytest.approx(1.0)
    assert S.cosine(a, -a) == pytest.approx(-1.0)
    assert S.cosine(np.array([1.0, 0]), np.array([0, 1.0])) == pytest.approx(0.0)


def test_cosine_rejects_zero_and_mismatch():
    with pytest.raises(ValueError, match="zero vector"):
        S.cosine(np.zeros(3), np.ones(3))
    with pytest.raises(ValueError, match="same length"):
        S.cosine(np.ones(3), np.ones(4))


def test_normalize_zero_rows():
    m = np.array([[3.0, 4.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="zero row"):
        S.normalize(m)
    out = S.normalize(m, zero="keep")
    assert np.allclose(out[0], [0.6, 0.8]) and np.allclose(out[1], 0)
    with pytest.raises(ValueError):
        S.normalize(m, zero="nan")


def test_knn_matches_brute_force_and_is_chunked():
    rng = np.random.default_rng(1)
    t = S.normalize(rng.normal(size=(500, 6)))
    q = S.normalize(rng.normal(size=(37, 6)))
    ref = np.argsort(-(q @ t.T), axis=1, kind="stable")[:, :5]
    for block in (10, 1000, 10**7):  # tiny blocks force chunking over queries and rows
        ids, sc = S.knn(q, t, 5, max_block=block)
        assert (ids == ref).all()
        assert np.all(np.diff(sc, axis=1) <= 0)


def test_knn_pairwise_agrees_with_normalised_route():
    rng = np.random.default_rng(2)
    t = rng.normal(size=(300, 5)).astype(np.float32) * rng.uniform(0.1, 5, size=(300, 1)).astype(np.float32)
    q = t[7]
    ids_p, _ = S.knn_pairwise(q, t, 4)
    ids_n, _ = S.knn(q / np.linalg.norm(q), S.normalize(t), 4)
    assert (ids_p == ids_n[0]).all() and ids_p[0] == 7


def test_knn_bad_k():
    t = np.eye(4, dtype=np.float32)
    for k in (0, -1, 5):
        with pytest.raises(ValueError, match="k"):
            S.knn(t[0], t, k)


def test_knn_exclude():
    t = np.eye(4, dtype=np.float32)
    ids, _ = S.knn(t[0], t, 1, exclude=[[0]])
    assert ids[0, 0] != 0


def test_space_unknown_word_suggests(space):
    with pytest.raises(KeyError, match="did you mean"):
        space.id("quen")
    with pytest.raises(ValueError, match="one vector row per word"):
        S.Space(["a", "b"], np.ones((3, 2)))


def test_solve_analogy_with_and_without_exclusion(space):
    top = S.solve_analogy(space, "man", "king", "woman", k=3)
    assert top[0][0] == "queen"
    assert all(w not in ("man", "king", "woman") for w, _ in top)
    incl = S.solve_analogy(space, "man", "king", "woman", k=3, exclude_inputs=False)
    assert {w for w, _ in incl} & {"queen", "king", "woman"}
    with pytest.raises(ValueError, match="empty"):
        S.solve_analogy(space, "", "king", "woman")


def test_neighbours_metrics(space):
    for m in ("cosine", "dot", "euclidean"):
        assert len(S.neighbours(space, "king", 3, m)) == 3
    with pytest.raises(ValueError, match="metric"):
        S.neighbours(space, "king", 3, "manhattan")


def test_evaluate_analogies(space, tmp_path):
    f = tmp_path / "q.txt"
    f.write_text(": g\nman woman king queen\nking queen man woman\nman woman apple zzz\n", encoding="utf-8")
    qs = S.read_analogies(f)
    res = S.evaluate_analogies(space, qs, restrict=None)
    assert res.skipped == 1 and len(res.questions) == 2
    assert res.accuracy("excl") == 1.0
    assert set(res.by_section()["g"]) == {"n", "excl", "incl", "base"}
    with pytest.raises(ValueError):
        S.evaluate_analogies(space, {})
    bad = tmp_path / "bad.txt"
    bad.write_text(": g\nman woman king\n", encoding="utf-8")
    with pytest.raises(ValueError, match="four words"):
        S.read_analogies(bad)


def test_anisotropy_and_spearman():
    rng = np.random.default_rng(3)
    iso = rng.normal(size=(2000, 20))
    assert abs(S.anisotropy(iso, 2000)) < 0.05
    assert S.anisotropy(iso + 5, 2000) > 0.9  # a shared offset makes every pair look alike
    assert S.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        S.spearman([1, 2], [1, 2])


def test_benchmark_same_answers():
    rng = np.random.default_rng(4)
    b = S.benchmark_retrieval(rng.normal(size=(2000, 8)), n_queries=10, k=3, n_pairwise=1)
    assert b.same_topk and b.max_score_diff < 1e-5 and b.ratio_vs_pairwise > 0


def test_packaged_data():
    zh = S.zh_analogies()
    assert "capital-country" in zh and ("北京", "中国", "东京", "日本") in zh["capital-country"]
    assert "turkey" in S.polysemous_en()


def test_claim_checks_registered():
    for cid in ("C40", "C41", "C43", "C44", "C45"):
        assert claims.has_check(cid)


def test_deterministic_evaluation(space, tmp_path):
    f = tmp_path / "q.txt"
    f.write_text(": g\nman woman king queen\napple banana car road\n", encoding="utf-8")
    r1 = S.evaluate_analogies(space, S.read_analogies(f), restrict=None)
    r2 = S.evaluate_analogies(space, S.read_analogies(f), restrict=None)
    assert r1.pred_excl == r2.pred_excl and r1.pred_base == r2.pred_base


def test_neighbours_match_brute_force(space):
    v = space.vectors.astype(np.float64)
    q = space.id("king")
    dist = np.linalg.norm(v - v[q], axis=1)
    dist[q] = np.inf
    assert [w for w, _ in S.neighbours(space, "king", 5, "euclidean")] == [space.words[j] for j in np.argsort(dist)[:5]]
    dot = v @ v[q]
    dot[q] = -np.inf
    assert [w for w, _ in S.neighbours(space, "king", 5, "dot")] == [space.words[j] for j in np.argsort(-dot)[:5]]
