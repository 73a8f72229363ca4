"""One helper for the tests of the claim boxes' findings (``claims.judge(..., finding=)``)."""

from embedbook.book import claims


def all_findings(monkeypatch, run_check, tweaks=({},)) -> list[str]:
    """Every finding ``run_check()``'s judge could show: its ``finding`` written for each declared outcome, with the
    measured figures and with each of ``tweaks`` applied to them (the branches a full-size run may take)."""
    seen = []
    judge = claims.judge

    def spy(cid, figures, evidence, strength="", finding=None):
        seen.append((cid, figures, finding))
        return judge(cid, figures, evidence, strength, finding)

    monkeypatch.setattr(claims, "judge", spy)
    run_check()
    (cid, figures, finding), = seen
    assert finding is not None, f"{cid}: judge without finding="
    texts = []
    for tweak in tweaks:
        figures.update(tweak)
        texts += [finding(v) for v in claims.rule_of(cid).outcomes]
    return texts
