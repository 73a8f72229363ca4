"""Unit tests for embedbook.similarity (tiny synthetic spaces, plus the packaged analogy data) and for the
helpers of chapters 08 and 09's experiments."""

import numpy as np
import pytest
import torch

from embedbook import similarity as S
from embedbook import stats


# --- one helper per job ------------------------------------------------------------------------------------


def test_one_row_normaliser_and_one_rank_correlation():
    assert not hasattr(S, "normalize")
    assert S.unit_rows is stats.unit_rows and S.spearman is stats.spearman  # imported, not rewritten


# --- cosine, anisotropy -----------------------------------------------------------------------------------


def test_cosine_basic_and_length_invariant():
    a = np.array([1.0, 2.0, 3.0])
    assert S.cosine(a, 5 * a) == pytest.approx(1.0)
    assert S.cosine(a, -a) == pytest.approx(-1.0)
    assert S.cosine(np.array([1.0, 0]), np.array([0, 1.0])) == pytest.approx(0.0)
    assert S.cosine(a, 1e-3 * a) == pytest.approx(1.0, abs=1e-15)  # computed in float64


def test_cosine_takes_tensors_of_any_float_dtype():
    a = torch.tensor([1.0, 2.0, 3.0])
    for dtype in (torch.float16, torch.bfloat16, torch.float64):
        assert S.cosine(a.to(dtype), a) == pytest.approx(1.0, abs=1e-3)


def test_cosine_rejects_zero_nan_and_mismatch():
    with pytest.raises(ValueError, match="zero vector"):
        S.cosine(np.zeros(3), np.ones(3))
    with pytest.raises(ValueError, match="same length"):
        S.cosine(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="NaN"):
        S.cosine(np.array([1.0, np.nan]), np.ones(2))
    with pytest.raises(TypeError):
        S.cosine("ab", "cd")


def test_anisotropy():
    rng = np.random.default_rng(3)
    iso = rng.normal(size=(2000, 20))
    assert abs(S.anisotropy(iso, 2000)) < 0.05
    assert S.anisotropy(iso + 5, 2000) > 0.9  # a shared offset makes every pair look alike
    with pytest.raises(ValueError):
        S.anisotropy(iso[:1])
    with pytest.raises(ValueError):
        S.anisotropy(iso, 0)
    with pytest.raises(ValueError, match="NaN"):
        S.anisotropy(np.full((3, 2), np.nan))


# --- knn -------------------------------------------------------------------------------------------------


def test_knn_matches_brute_force_and_is_chunked():
    rng = np.random.default_rng(1)
    t = stats.unit_rows(rng.normal(size=(500, 6)))
    q = stats.unit_rows(rng.normal(size=(37, 6)))
    ref = np.argsort(-(q @ t.T), axis=1, kind="stable")[:, :5]
    for block in (10, 1000, 10**7):  # tiny blocks force chunking over queries and rows
        ids, sc = S.knn(q, t, 5, max_block=block)
        assert (ids == ref).all()
        assert np.all(np.diff(sc, axis=1) <= 0)


def test_knn_bad_k_and_bad_values():
    t = np.eye(4, dtype=np.float32)
    for k in (0, -1, 5, 2.0, True):
        with pytest.raises(ValueError, match="k"):
            S.knn(t[0], t, k)
    with pytest.raises(ValueError, match="NaN"):
        S.knn(np.array([np.nan, 0, 0, 0]), t, 1)  # a NaN query gave ids with NaN scores
    with pytest.raises(ValueError, match="NaN"):
        S.knn(t[0], np.where(t == 1, np.inf, t), 1)
    with pytest.raises(ValueError, match="width"):
        S.knn(np.ones(3), t, 1)
    with pytest.raises(ValueError, match="one list per query"):
        S.knn(t[:2], t, 1, exclude=[[0]])


def test_knn_exclude_and_tensors():
    t = np.eye(4, dtype=np.float32)
    ids, _ = S.knn(t[0], t, 1, exclude=[[0]])
    assert ids[0, 0] != 0
    with pytest.raises(ValueError, match="k=4"):
        S.knn(t[0], t, 4, exclude=[[0]])
    ids_t, _ = S.knn(torch.eye(4)[0], torch.eye(4), 2)
    assert ids_t[0, 0] == 0


# --- the space -----------------------------------------------------------------------------------------------


def test_space_refuses_nan_and_inf_rows():
    v = np.array([[1.0, 0.0], [np.nan, 1.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match="'b'"):  # names the word
        S.Space(["a", "b", "c"], v)
    v[1] = [np.inf, 0]
    with pytest.raises(ValueError, match="NaN or infinity"):
        S.Space(["a", "b", "c"], v)


def test_space_validates_shape_words_and_duplicates():
    with pytest.raises(ValueError, match="one vector row per word"):
        S.Space(["a", "b"], np.ones((3, 2)))
    with pytest.raises(ValueError, match="empty"):
        S.Space([], np.ones((0, 2)))
    with pytest.raises(ValueError, match="duplicates"):
        S.Space(["a", "a"], np.ones((2, 2)))
    with pytest.raises(TypeError, match="strings"):
        S.Space(["a", 3], np.ones((2, 2)))
    assert len(S.Space(["a", "b"], torch.ones(2, 3))) == 2
    with pytest.raises(TypeError, match="array of numbers"):
        S.Space(["a", "b"], [["x", "y"], ["z", "w"]])


def test_wrong_kinds_of_input_are_named(space):
    with pytest.raises(TypeError, match="section"):
        S.evaluate_analogies(space, [("man", "woman", "king", "queen")])
    with pytest.raises(TypeError, match="path"):
        S.read_analogies(123)
    with pytest.raises(ValueError, match="human score"):
        S.similarity_benchmark(space, [("man", "woman")] * 3)
    with pytest.raises(TypeError, match="tokenizer"):
        S.input_table_space("tok", "model")


def test_zero_rows_have_no_cosine_neighbours():
    sp = S.Space(["a", "b", "c", "zero"], np.array([[1.0, 0], [0.9, 0.1], [0, 1.0], [0, 0]]))
    assert sp.zero.tolist() == [False, False, False, True]
    with pytest.raises(ValueError, match="all-zero"):
        S.neighbours(sp, "zero", k=1)
    assert "zero" not in [w for w, _ in S.neighbours(sp, "a", k=2)]  # never an arbitrary neighbour at 0.0
    with pytest.raises(ValueError, match="k=3"):  # only b and c have a direction
        S.neighbours(sp, "a", k=3)
    assert len(S.neighbours(sp, "zero", k=3, metric="dot")) == 3  # the dot product is defined for it
    assert [w for w, _ in S.neighbours(sp, "a", k=3, metric="euclidean")][0] == "b"


def test_neighbours_exclude_the_word_itself(space):
    for m in ("cosine", "dot", "euclidean"):
        got = S.neighbours(space, "king", len(space) - 1, m)
        assert "king" not in [w for w, _ in got] and all(np.isfinite(s) for _, s in got)
    with pytest.raises(ValueError, match="k="):
        S.neighbours(space, "king", len(space))
    with pytest.raises(ValueError, match="metric"):
        S.neighbours(space, "king", 3, "manhattan")


def test_case_is_named_when_only_it_differs():
    sp = S.Space(["king", "queen", "ing", "ying"], np.eye(4))
    with pytest.raises(KeyError, match="lower-cased.*'king'"):
        S.neighbours(sp, "King", 2)  # suggested "ing, ying" before
    with pytest.raises(KeyError, match="did you mean 'queen'"):
        sp.id("quen")
    cased = S.Space(["Paris", "paris", "x"], np.eye(3))
    with pytest.raises(KeyError, match="case matters"):
        cased.id("PARIS")


def test_neighbours_match_brute_force(space):
    v = space.vectors.astype(np.float64)
    q = space.id("king")
    dist = np.linalg.norm(v - v[q], axis=1)
    dist[q] = np.inf
    assert [w for w, _ in S.neighbours(space, "king", 5, "euclidean")] == [space.words[j] for j in np.argsort(dist)[:5]]
    dot = v @ v[q]
    dot[q] = -np.inf
    assert [w for w, _ in S.neighbours(space, "king", 5, "dot")] == [space.words[j] for j in np.argsort(-dot)[:5]]


def test_from_keyed_limit():
    class KV:
        index_to_key = ["a", "b", "c"]
        vectors = np.eye(3, dtype=np.float32)

    assert len(S.Space.from_keyed(KV(), limit=2)) == 2
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match="limit"):
            S.Space.from_keyed(KV(), limit=bad)


# --- overlap between spaces, benchmarks --------------------------------------------------------------------


def test_common_rows_and_neighbour_overlap():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(30, 5)).astype(np.float32)
    words = [f"w{i}" for i in range(30)]
    s1, s2 = S.Space(words, v), S.Space(words[::-1], v[::-1])  # same vectors, other order
    shared, a, b = S.common_rows(s1, s2)
    assert shared == words and np.array_equal(a, b)
    assert np.all(S.neighbour_overlap(a, b, range(5), k=3) == 1.0)
    with pytest.raises(ValueError, match="share"):
        S.common_rows(s1, S.Space(["zz"], v[:1]))


def test_similarity_benchmark_and_coverage():
    sp = S.Space(["a", "b", "c", "d", "z"], np.array([[1, 0], [0.9, 0.1], [0, 1], [-1, 0], [0, 0]], dtype=np.float32))
    pairs = [("a", "b", 9.0), ("a", "c", 5.0), ("a", "d", 0.0), ("a", "zzz", 3.0), ("a", "z", 4.0)]
    r = S.similarity_benchmark(sp, pairs)
    assert r["covered"] == 3 and r["total"] == 5 and r["spearman"] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        S.similarity_benchmark(sp, [])
    with pytest.raises(ValueError, match="covers only"):
        S.similarity_benchmark(sp, pairs[:2])


def test_input_table_space():
    class Tok:
        def get_vocab(self):
            return {"[PAD]": 0, "the": 1, "##s": 2, "cat": 3, "42": 4}

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(5, 3)

        def get_input_embeddings(self):
            return self.emb

    sp = S.input_table_space(Tok(), Model())
    assert sp.words == ["the", "cat"]


# --- analogies ---------------------------------------------------------------------------------------------------


def test_solve_analogy_with_and_without_exclusion(space):
    top = S.solve_analogy(space, "man", "king", "woman", k=3)
    assert top[0][0] == "queen"
    assert all(w not in ("man", "king", "woman") for w, _ in top)
    incl = S.solve_analogy(space, "man", "king", "woman", k=3, exclude_inputs=False)
    assert {w for w, _ in incl} & {"queen", "king", "woman"}
    with pytest.raises(ValueError, match="empty"):
        S.solve_analogy(space, "", "king", "woman")
    with pytest.raises(KeyError):
        S.solve_analogy(space, "man", "kingg", "woman")


def test_solve_analogy_matches_five_lines_of_torch(space):
    u = torch.from_numpy(stats.unit_rows(space.vectors))
    a, b, c = (space.id(w) for w in ("man", "king", "woman"))
    t = u[b] - u[a] + u[c]
    scores = u @ t / t.norm()
    incl = [space.words[i] for i in scores.topk(4).indices]
    scores[[a, b, c]] = -float("inf")
    excl = [space.words[i] for i in scores.topk(4).indices]
    assert [w for w, _ in S.solve_analogy(space, "man", "king", "woman", k=4)] == excl
    assert [w for w, _ in S.solve_analogy(space, "man", "king", "woman", k=4, exclude_inputs=False)] == incl


def _reference_evaluation(space, questions, n):
    """The evaluation written the plain way: three separate searches per question."""
    unit = space.unit[:n]
    out = {"excl": [], "incl": [], "base": []}
    for q in questions:
        a, b, c = (space.index[w] for w in q[:3])
        t = unit[b] - unit[a] + unit[c]
        sc = unit @ (t / np.linalg.norm(t))
        out["incl"].append(space.words[int(np.argmax(sc))])
        sc[[a, b, c]] = -np.inf
        out["excl"].append(space.words[int(np.argmax(sc))])
        base = unit @ unit[c]
        base[[a, b, c]] = -np.inf
        out["base"].append(space.words[int(np.argmax(base))])
    return out


def test_evaluate_analogies_matches_reference(space, tmp_path):
    rng = np.random.default_rng(5)
    lines = [" ".join(rng.choice(space.words, 4, replace=False)) for _ in range(60)]
    f = tmp_path / "q.txt"
    f.write_text(": s1\n" + "\n".join(lines[:30]) + "\n: s2\n" + "\n".join(lines[30:]) + "\n", encoding="utf-8")
    res = S.evaluate_analogies(space, S.read_analogies(f), restrict=None)
    ref = _reference_evaluation(space, res.questions, len(space))
    assert res.pred_excl == ref["excl"] and res.pred_incl == ref["incl"] and res.pred_base == ref["base"]


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
    for bad in ({"restrict": 0}, {"per_section": 0}, {"restrict": 2}):
        with pytest.raises(ValueError):
            S.evaluate_analogies(space, qs, **bad)
    with pytest.raises(ValueError, match="convention"):
        res.correct("nope")
    bad = tmp_path / "bad.txt"
    bad.write_text(": g\nman woman king\n", encoding="utf-8")
    with pytest.raises(ValueError, match="four words"):
        S.read_analogies(bad)
    with pytest.raises(FileNotFoundError):
        S.read_analogies(tmp_path / "missing.txt")


def test_deterministic_evaluation(space, tmp_path):
    f = tmp_path / "q.txt"
    f.write_text(": g\nman woman king queen\napple banana car road\n", encoding="utf-8")
    r1 = S.evaluate_analogies(space, S.read_analogies(f), restrict=None)
    r2 = S.evaluate_analogies(space, S.read_analogies(f), restrict=None)
    assert r1.pred_excl == r2.pred_excl and r1.pred_base == r2.pred_base


def test_solve_analogies_is_solve_analogy_for_many_questions():
    from embedbook import similarity as sim

    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(300)]
    space = sim.Space(words, rng.normal(size=(300, 16)).astype(np.float32))
    questions = [tuple(rng.choice(words, 3, replace=False)) for _ in range(40)]
    for exclude in (True, False):
        many = sim.solve_analogies(space, questions, k=4, exclude_inputs=exclude)
        one = [sim.solve_analogy(space, *q, k=4, exclude_inputs=exclude) for q in questions]
        assert [[w for w, _ in r] for r in many] == [[w for w, _ in r] for r in one]
        assert max(abs(a[1] - b[1]) for r, s in zip(many, one) for a, b in zip(r, s)) < 1e-5
    with pytest.raises(KeyError, match=r"question 1 \('w1', 'nope', 'w2'\)"):
        sim.solve_analogies(space, [("w1", "w2", "w3"), ("w1", "nope", "w2")])
    with pytest.raises(ValueError, match="non-empty list"):
        sim.solve_analogies(space, [])
