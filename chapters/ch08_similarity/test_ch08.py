"""Chapter 08's tests: its measurements on small inputs, its rules and its checks."""

import numpy as np
import pytest
import torch

from embedbook import similarity as S
from embedbook.book import claims
from embedbook.chapters.ch08_similarity import measure as ch08
from embedbook.chapters.ch09_analogies import measure as ch09


# --- the chapters' helpers ------------------------------------------------------------------------------------


def test_retrieval_work_counts():
    w = ch08.retrieval_work(400_000, 50)
    assert w["normalised"] == 400_000 * 50
    assert w["on_the_fly"] / w["normalised"] == pytest.approx(2.06, abs=0.01)
    assert ch08.retrieval_work(400_000, 50, batch=200)["on_the_fly"] / ch08.retrieval_work(400_000, 50, 200)["normalised"] < 1.1


def test_retrieval_routes_agree():
    r = ch08.run_retrieval(np.random.default_rng(0).normal(size=(3000, 16)), n_queries=4, k=5, reps=1)
    assert r.same_topk == 4 and r.max_score_diff < 1e-5 and r.work_ratio > 2
    assert r.work_cached / r.work_normalised == pytest.approx(1 + 2 / 16 + 1 / 3000)
    v = claims.run("C41", r)
    assert v.verdict in (claims.CONFIRMED, claims.INCONCLUSIVE) and v.figures["same_share"] == 1.0
    assert "scikit-learn" in v.evidence and "not deciding" in v.evidence and "Rule revised after measuring" in v.strength


def test_c41_decides_against_the_per_call_cosine():
    rule = claims.rule_of("C41")
    same = {"max_score_diff": 1e-6, "same_share": 1.0}
    assert rule({**same, "work_ratio": 2.06, "bench_ratio": 1.85}) == claims.CONFIRMED  # the build's figures
    assert rule({**same, "work_ratio": 2.06, "bench_ratio": 1.1}) == claims.CONFIRMED  # load narrows the clock
    # many queries per call share the row lengths: little left to save (the count for a batch of 20)
    batched = ch08.retrieval_work(400_000, 50, batch=20)
    ratio = batched["on_the_fly"] / batched["normalised"]
    assert rule({**same, "work_ratio": ratio, "bench_ratio": 1.05}) == claims.CORRECTED
    assert rule({**same, "same_share": 0.5, "work_ratio": 2.06, "bench_ratio": 1.85}) == claims.REFUTED
    # the kept-lengths reading is reported, not read: it cannot change the verdict
    assert "work_ratio_cached" not in rule.inputs


def test_page_helpers_of_ch08_and_ch09(space, tmp_path):
    r = ch08.run_retrieval(space.vectors, n_queries=2, k=3, reps=1)
    assert r.glued()["max_score_diff_text"] == "10⁻⁶" and r.glued()["device_text"] == "the CPU"
    assert ch08.device_words("cpu") == "the CPU" and ch08.device_words("cuda") == "the GPU"
    table = ch08.neighbour_table(space, ["king", "apple"], 3)
    assert list(table.columns.get_level_values(0)) == ["king"] * 3 + ["apple"] * 3
    assert list(table[("king", "cosine")]) == [w for w, _ in S.neighbours(space, "king", 3)]
    kq = ch09.run_analogy(space, "man", "king", "woman", expected="queen")
    answers = ch09.answers_table(kq)
    assert list(answers.index) == list(range(1, len(kq.top_excl) + 1))
    assert answers.iloc[0, 0].startswith("queen (")
    path = tmp_path / "q.txt"
    path.write_text(": gender\nman woman king queen\nking queen man woman\n")
    res = S.evaluate_analogies(space, S.read_analogies(path), restrict=None)
    html = ch09.section_table(res).to_html()
    assert "gender" in html and "all" in html and "%" in html


def test_c40_evidence_follows_glove_top_words():
    def lf(name, rho):
        return ch08.LengthFrequency(name, "f", np.ones(10), np.ones(10), rho, 0.1)

    spaces = [lf("GloVe", 0.36), lf("Word2Vec", 0.93), lf("MiniLM input", 0.81)]
    tail = claims.run("C40", ch08.Norms(spaces=spaces, scale_err=1e-12, rho_glove_top=0.04))
    assert tail.verdict == claims.CONFIRMED
    assert "10⁻¹²" in tail.evidence and "0.000000000001" not in tail.evidence and "e-12" not in tail.evidence
    assert "in GloVe through its rare tail only" in tail.evidence
    whole = claims.run("C40", ch08.Norms(spaces=spaces, scale_err=1e-12, rho_glove_top=0.35))
    assert "rare tail" not in whole.evidence and "every space measured" in whole.evidence


def test_bound_text_writes_powers_of_ten_readably():
    assert ch08.bound_text(1e-12) == "10⁻¹²" and ch08.bound_text(1e-6) == "10⁻⁶"
    assert ch08.bound_text(0.02) == "0.02" and ch08.bound_text(0) == "exactly 0" and ch08.bound_text(10.0) == "10"


def test_retrieval_keeps_what_the_page_checks_its_loop_against():
    table = np.random.default_rng(1).normal(size=(2000, 8)).astype(np.float32)
    r = ch08.run_retrieval(table, n_queries=6, k=4, reps=2, seed=3)
    assert r.routes == ("normalised", "on_the_fly", "cached") and r.reps == 2
    rows = torch.randperm(2000, generator=torch.Generator().manual_seed(3))[:6]
    assert torch.equal(torch.from_numpy(r.query_rows), rows)
    t = torch.from_numpy(table)
    cos = (t[rows] / t[rows].norm(dim=1, keepdim=True)) @ (t / t.norm(dim=1, keepdim=True)).T
    for name in r.routes:
        assert r.top_ids[name].shape == (6, 4)
        assert torch.equal(torch.from_numpy(r.top_ids[name]), cos.topk(4).indices)
        assert torch.allclose(torch.from_numpy(r.top_scores[name]), cos.topk(4).values, atol=1e-5)
    assert not any(k in r.glued() for k in ("query_rows", "top_ids", "routes"))  # only scalars are glued


def test_c40_and_c41_findings_follow_the_outcome():
    def lf(name, rho):
        return ch08.LengthFrequency(name, "f", np.ones(10), np.ones(10), rho, 0.1)

    def c40(rhos, err=1e-12):
        spaces = [lf(n, x) for n, x in zip(("GloVe", "Word2Vec", "MiniLM input"), rhos)]
        return claims.run("C40", ch08.Norms(spaces=spaces, scale_err=err, rho_glove_top=0.04))

    for rhos, verdict, says in [((0.36, 0.93, 0.81), claims.CONFIRMED, "in every space"),
                                ((0.11, 0.93, 0.81), claims.CORRECTED, "in Word2Vec and MiniLM input, not in GloVe"),
                                ((0.1, 0.1, -0.2), claims.REFUTED, "barely")]:
        v = c40(rhos)
        assert v.verdict == verdict and says in v.finding and f"{rhos[1]:+.2f} in Word2Vec" in v.finding
        assert ("only through its rare words" in v.finding) == (rhos[0] >= 0.3)  # GloVe's top words: ρ = 0.04
    v = c40((0.36, 0.93, 0.81), err=0.1)
    assert v.verdict == claims.REFUTED and "10⁻¹" in v.finding and "unchanged" not in v.finding

    r = ch08.run_retrieval(np.random.default_rng(0).normal(size=(3000, 16)), n_queries=4, k=5, reps=1)
    import dataclasses

    for fields, verdict, says in [({"bench_ratio": 1.85}, claims.CONFIRMED, "faster"),
                                  ({"bench_ratio": 0.5}, claims.INCONCLUSIVE, "disagree"),
                                  ({"work_on_the_fly": r.work_normalised, "bench_ratio": 1.0}, claims.CORRECTED,
                                   "little to save"),
                                  ({"same_topk": 1}, claims.REFUTED, "not equivalent")]:
        v = claims.run("C41", dataclasses.replace(r, **fields))
        assert v.verdict == verdict and says in v.finding and "C41" not in v.finding
        assert f"{v.figures['same_share'] * 4:.0f} of 4 queries" in v.finding


# --- the lesson's exercises: each answer is what the exercise's code gives ------------------------------------


@pytest.fixture(scope="module")
def glove_table():
    from embedbook import data

    kv = data.glove()  # the lesson's table: GloVe 6B 50d, all 400,000 rows
    E = torch.from_numpy(kv.vectors)
    return kv, E, E / E.norm(dim=1, keepdim=True)


def test_exercise_1_a_flipped_vector_flips_the_cosine(glove_table):
    kv, E, _unit = glove_table
    king, queen = E[kv.key_to_index["king"]], E[kv.key_to_index["queen"]]
    cos = king @ queen / (king.norm() * queen.norm())
    flipped = (-king) @ queen / ((-king).norm() * queen.norm())
    assert round(float(cos), 4) == 0.7839 and round(float(flipped), 4) == -0.7839


def test_exercise_2_frog_by_dot_product_and_by_cosine(glove_table):
    kv, E, unit = glove_table
    frog = kv.key_to_index["frog"]
    dot = [kv.index_to_key[j] for j in (E @ E[frog]).topk(6).indices]
    cos = [kv.index_to_key[j] for j in (unit @ unit[frog]).topk(6).indices]
    assert dot == ["frog", "leptodactylidae", "species", "ranidae", "snails", "colubrid"]
    assert cos == ["frog", "snake", "ape", "toad", "monkey", "spider"]
    lengths = E.norm(dim=1)
    longest = [(lengths < lengths[kv.key_to_index[w]]).float().mean().item() for w in dot[1:]]
    assert min(longest) > 0.98  # among the longest 2 % of the table


def test_exercise_3_rho_over_the_most_frequent_words(glove_table):
    from scipy.stats import spearmanr

    _kv, E, _unit = glove_table
    lengths = E.norm(dim=1).numpy()
    log_freq = -np.log1p(np.arange(len(E)))
    assert round(spearmanr(lengths, log_freq)[0], 2) == 0.36  # the lesson's figure, over all words
    assert round(spearmanr(lengths[:100_000], log_freq[:100_000])[0], 2) == 0.04
    assert lengths[:100_000].mean() > lengths[-100_000:].mean()  # the rarer words are shorter


def test_exercise_4_lengths_cost_about_one_matrix_vector_product(glove_table):
    import timeit

    _kv, E, unit = glove_table
    norm = min(timeit.repeat(lambda: E.norm(dim=1), number=5, repeat=5))
    product = min(timeit.repeat(lambda: unit @ unit[0], number=5, repeat=5))
    assert 1 / 4 < norm / product < 4  # about the same: both read the whole table once (a loose band: a clock)
