"""C45's rule (chapter 09): each leg compared like with like and resampled by word; the homographs read merged and
split, open where the two groupings disagree; the place-name sections reported but not deciding."""

import numpy as np
import pytest

from embedbook import similarity as S
from embedbook import stats
from embedbook.book import claims
from embedbook.chapters.ch09_analogies import claims as c09
from embedbook.chapters.ch09_analogies import measure as ch09


def test_c45_reads_both_groupings_and_names_do_not_decide():
    rule = claims.rule_of("C45")
    assert set(rule.inputs) == {f"gap_{k}{s}" for k in c09.C45_GROUPS for s in ("", "_lo", "_hi")}
    assert not any(k.startswith("gap_names") for k in rule.inputs)  # confounded with relation type
    assert "first revision" in rule.revised  # changed after the verdict was seen, and the box says so


def test_c45_groupings_that_disagree_leave_polysemy_open():
    rule = claims.rule_of("C45")
    f = dict(rule.examples[claims.CONFIRMED])
    assert rule(f) == claims.CONFIRMED
    # the cold audit's word-resampled figures: merged homographs fail more, the split's ordinary half is open
    audit = dict(rule.examples[claims.INCONCLUSIVE])
    assert c09.c45_polysemy(audit, rule.thresholds) == (c09.HELD, c09.OPEN, c09.OPEN)
    assert rule(audit) == claims.INCONCLUSIVE
    # ambiguous names fail, ordinary homographs clearly do not: the split says "not all", the merged says "fail"
    ordinary = {"gap_poly_common": -0.02, "gap_poly_common_lo": -0.045, "gap_poly_common_hi": 0.02}
    assert c09.c45_polysemy(f | ordinary, rule.thresholds)[2] == c09.OPEN
    assert rule(f | ordinary) == claims.INCONCLUSIVE
    # both groupings saying "no" with rare words failing is a correction
    assert rule(dict(rule.examples[claims.CORRECTED])) == claims.CORRECTED


def test_stratified_gap_resamples_words_not_questions():
    rng = np.random.default_rng(0)
    # one section; 10 group words with 40 questions each, a word's questions all right or all wrong
    word_ok = rng.random(10) < 0.5
    units = np.repeat([f"w{i}" for i in range(10)], 40)
    ok = np.concatenate([np.repeat(word_ok, 40), rng.random(400) < 0.5])
    mask = np.arange(800) < 400
    units = np.concatenate([units, np.array(["x"] * 400)])
    strata = np.zeros(800, int)
    gap, lo, hi, n = ch09.stratified_gap(ok, mask, strata, units)
    assert n == 400 and lo < gap < hi
    assert np.isclose(gap, ok[~mask].mean() - ok[mask].mean())
    # the same outcomes with every question its own word: a far narrower interval, the one an audit rejected
    _, lo_q, hi_q, _ = ch09.stratified_gap(ok, mask, strata, np.arange(800).astype(str))
    assert hi - lo > 2.5 * (hi_q - lo_q)
    # one word only: nothing to resample, the interval is the whole range
    assert ch09.stratified_gap(ok, mask, strata, np.array(["w"] * 800))[1:3] == (-1.0, 1.0)


def test_cluster_bootstrap_refuses_bad_groups():
    import pytest


    with pytest.raises(ValueError, match="one label per value"):
        stats.bootstrap_mean_ci([0.0, 1.0, 1.0], groups=["a", "b"])
    with pytest.raises(ValueError, match="two groups"):
        stats.bootstrap_mean_ci([0.0, 1.0, 1.0], groups=["a", "a", "a"])
    # a group of equal values moves as one: two groups of different means give their range
    lo, hi = stats.bootstrap_mean_ci([0.0] * 5 + [1.0] * 5, groups=[0] * 5 + [1] * 5)
    assert lo == 0.0 and hi == 1.0


def test_findings_follow_the_outcome():
    from embedbook import similarity as S

    space = S.Space(["king", "man", "woman", "queen", "x"],
                    np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 1], [-1, 0, 0]], np.float32))
    kq = ch09.run_analogy(space, "man", "king", "woman", expected="queen", k=2)
    v = claims.run("C43", kq)
    assert v.verdict == claims.CONFIRMED and "queen is the nearest word to king − man + woman" in v.finding
    assert (f"ranks {kq.rank_incl}, behind" in v.finding) == (kq.rank_incl > 1)
    import dataclasses

    v = claims.run("C43", dataclasses.replace(kq, rank_excl=40, rank_incl=41, answer_incl="king"))
    assert v.verdict == claims.REFUTED and "queen is only number 40 nearest" in v.finding and "behind king" in v.finding

    rule44 = claims.rule_of("C44")
    for verdict, ex in rule44.examples.items():
        r = ch09.AnalogySet.__new__(ch09.AnalogySet)
        for k, x in ex.items():
            setattr(r, k, x)
        r.acc_incl, r.auc_offset, r.n_questions, r.restrict = 0.3, 0.8, 100, 100_000
        v = claims.run("C44", r)
        assert v.verdict == verdict and f"{ex['offset_cos']:.2f}" in v.finding and len(v.finding.split()) <= 45

    rule45 = claims.rule_of("C45")
    for verdict, ex in rule45.examples.items():
        r = ch09.AnalogySet.__new__(ch09.AnalogySet)
        for k in ("rare", "poly", "poly_names", "poly_common", "names"):
            for s in ("", "_lo", "_hi"):
                setattr(r, f"gap_{k}{s}", ex.get(f"gap_{k}{s}", 0.0))
        for k in ("n_rare", "n_poly", "n_poly_names", "n_poly_common", "n_names", "n_questions"):
            setattr(r, k, 10)
        r.acc_rare = r.acc_frequent = r.acc_names = r.acc_rest = 0.5
        v = claims.run("C45", r)
        assert v.verdict == verdict and f"{ex['gap_rare']:+.1%}" in v.finding and len(v.finding.split()) <= 45
        said = {claims.CONFIRMED: "homographs fail more", claims.REFUTED: "homographs do not",
                claims.INCONCLUSIVE: "polysemy stays open", claims.CORRECTED: "homographs do not"}[verdict]
        assert said in v.finding


def test_homograph_count_is_read_from_the_list():
    assert f"all {len(ch09.polysemous_en())} homographs" in c09.C45_GROUPS["poly"]
    assert claims.rule_of("C44").revised  # its strength says the rule was revised; the box must say so too


def test_packaged_data():
    zh = S.zh_analogies()
    assert "capital-country" in zh and ("北京", "中国", "东京", "日本") in zh["capital-country"]
    assert "turkey" in ch09.polysemous_en()


def test_c43_evidence_follows_the_ranks():
    glove_like = S.Space(["king", "man", "woman", "queen", "x"],
                                  np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 1], [-1, 0, 0]], np.float32))
    r = ch09.run_analogy(glove_like, "man", "king", "woman", expected="queen", k=2)
    text = claims.run("C43", r).evidence
    assert r.rank_excl == 1 and ("rests on the exclusion rule" in text) == (r.rank_incl > 1)


def test_gensim_sentence_follows_the_run():
    r = ch09.AnalogySet.__new__(ch09.AnalogySet)
    r.restrict, r.n_questions, r.acc_excl = 100_000, 19_230, 9_038 / 19_230
    assert "the same count as here" in ch09.gensim_sentence(r)
    r.acc_excl = 9_000 / 19_230
    assert "9,000 right here" in ch09.gensim_sentence(r)
    r.n_questions = 4_000
    assert "other settings" in ch09.gensim_sentence(r)


def test_stratified_gap_and_auc():
    ok = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0] * 4, bool)
    mask = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1] * 4, bool)  # the masked questions all fail
    strata = np.array(["a"] * 20 + ["b"] * 20)
    words = np.arange(40).astype(str)  # each question its own word
    gap, lo, hi, n = ch09.stratified_gap(ok, mask, strata, words)
    assert gap == pytest.approx(1.0) and n == 20 and lo <= gap <= hi
    assert np.isnan(ch09.stratified_gap(ok, mask, strata, words, min_n=50)[0])
    score = np.where(ok, 1.0, 0.0)
    auc, used = ch09.within_section_auc(score, ok, strata)
    assert auc == pytest.approx(1.0) and used == 2
    assert ch09.within_section_auc(np.zeros(40), ok, strata)[0] == pytest.approx(0.5)  # ties count half
