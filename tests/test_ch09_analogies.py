"""C45's rule (chapter 09): each leg compared like with like, the place-name sections reported but not deciding."""

from embedbook import claims
from embedbook.experiments import ch09_analogies as ch09


def test_c45_legs_are_within_section_and_names_do_not_decide():
    rule = claims.rule_of("C45")
    assert set(rule.inputs) == {f"gap_{k}{s}" for k in ch09.C45_LEGS for s in ("", "_lo", "_hi")}
    assert not any(k.startswith("gap_names") for k in rule.inputs)  # confounded with relation type
    assert rule.revised  # changed after the verdict was seen, and the box says so


def test_c45_ambiguous_names_failing_alone_is_a_correction():
    rule = claims.rule_of("C45")
    f = dict(rule.examples[claims.CONFIRMED])
    assert rule(f) == claims.CONFIRMED
    # the audit's split: ambiguous names fail, ordinary homographs do not
    ordinary = {"gap_poly_common": -0.004, "gap_poly_common_lo": -0.032, "gap_poly_common_hi": 0.024}
    assert rule(f | ordinary) == claims.CORRECTED
    # an ordinary-homograph interval that reaches across gap_min leaves the verdict open
    assert rule(f | {"gap_poly_common": 0.03, "gap_poly_common_lo": -0.01, "gap_poly_common_hi": 0.07}) \
        == claims.INCONCLUSIVE
