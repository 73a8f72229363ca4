"""C45's rule (chapter 09): each leg compared like with like and resampled by word; the homographs read merged and
split, open where the two groupings disagree; the place-name sections reported but not deciding."""

import numpy as np

from embedbook import claims
from embedbook.experiments import ch09_analogies as ch09


def test_c45_reads_both_groupings_and_names_do_not_decide():
    rule = claims.rule_of("C45")
    assert set(rule.inputs) == {f"gap_{k}{s}" for k in ch09.C45_GROUPS for s in ("", "_lo", "_hi")}
    assert not any(k.startswith("gap_names") for k in rule.inputs)  # confounded with relation type
    assert "round 3's first version" in rule.revised  # changed after the verdict was seen, and the box says so


def test_c45_groupings_that_disagree_leave_polysemy_open():
    rule = claims.rule_of("C45")
    f = dict(rule.examples[claims.CONFIRMED])
    assert rule(f) == claims.CONFIRMED
    # the cold audit's word-resampled figures: merged homographs fail more, the split's ordinary half is open
    audit = dict(rule.examples[claims.INCONCLUSIVE])
    assert ch09.c45_polysemy(audit, rule.thresholds) == (ch09.HELD, ch09.OPEN, ch09.OPEN)
    assert rule(audit) == claims.INCONCLUSIVE
    # ambiguous names fail, ordinary homographs clearly do not: the split says "not all", the merged says "fail"
    ordinary = {"gap_poly_common": -0.02, "gap_poly_common_lo": -0.045, "gap_poly_common_hi": 0.02}
    assert ch09.c45_polysemy(f | ordinary, rule.thresholds)[2] == ch09.OPEN
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

    from embedbook import stats

    with pytest.raises(ValueError, match="one label per value"):
        stats.bootstrap_mean_ci([0.0, 1.0, 1.0], groups=["a", "b"])
    with pytest.raises(ValueError, match="two groups"):
        stats.bootstrap_mean_ci([0.0, 1.0, 1.0], groups=["a", "a", "a"])
    # a group of equal values moves as one: two groups of different means give their range
    lo, hi = stats.bootstrap_mean_ci([0.0] * 5 + [1.0] * 5, groups=[0] * 5 + [1] * 5)
    assert lo == 0.0 and hi == 1.0
