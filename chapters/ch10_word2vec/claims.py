"""Chapter 10's claims (C39): the article's words (register entries), each claim's
declared rule, its sources and its check.

The measurements they read are in :mod:`embedbook.chapters.ch10_word2vec.measure`.
"""

from __future__ import annotations

import numpy as np

from embedbook.book import claims
from embedbook.book.claims import CONFIRMED, INCONCLUSIVE, REFUTED, SHORT, Claim
from embedbook.book.i18n import _
from embedbook.chapters.ch10_word2vec.measure import Planted

# --- the register entries: the articles' words this chapter settles ------------------------------------

claims.declare(
    __name__,
    Claim("C39", SHORT, "那些数字是训练出来的", "所以向量反映的是语料里的用法，不是词典定义",
          "so the vectors reflect usage in the corpus, not dictionary definitions",
          "Vectors reflect usage in the corpus, not dictionary meaning: 苹果 lies near both 手机/发布会 and 水果/产地, leaning toward whichever pairing the training corpus has more of.",
          "word2vec"),
)


@claims.rule(
    "C39",
    basis=claims.CONSTRUCTED,
    quantity="the lean of a made-up word placed in the contexts of 'fire' in a share p of its 40 occurrences and in "
    "the contexts of 'company' in the rest — cos(word, fire) − cos(word, company) — for p = 0.2, 0.5, 0.8, one "
    "skip-gram model on the Lee corpus plus the planted contexts per seed, three seeds",
    inputs={
        "rise": "mean over seeds of lean(p = 0.8) − lean(p = 0.2)",
        "rise_lo": "its smallest seed", "rise_hi": "its largest seed",
        "monotone_seeds": "seeds in which the lean grows at each step of p",
        "seeds": "seeds trained",
        "spread": "the largest range of the lean over the seeds at one p (the seed noise)",
        "plateau": "1 if every model's training loss fell by less than 2 % over its last two epochs",
    },
    thresholds={"rise_min": 0.10, "equiv_max": 0.05},
    seeds=3,
    outcomes={
        CONFIRMED: "the lean grows with p at every step in every seed, and the smallest rise is at least rise_min "
        "and larger than the seed spread: the mix of contexts decides which way the word leans",
        REFUTED: "the models settled, and in every seed the lean moves by less than equiv_max between p = 0.2 and "
        "p = 0.8: the mix of contexts does not move the word",
        INCONCLUSIVE: "a model has not reached a plateau, or neither case above holds (the lean moves, but not "
        "in every seed or not beyond the seed spread)",
    },
    examples={
        CONFIRMED: {"rise": 0.6, "rise_lo": 0.5, "rise_hi": 0.7, "monotone_seeds": 3, "seeds": 3, "spread": 0.2,
                    "plateau": 1},
        REFUTED: {"rise": 0.01, "rise_lo": -0.03, "rise_hi": 0.04, "monotone_seeds": 1, "seeds": 3,
                  "spread": 0.1, "plateau": 1},
        INCONCLUSIVE: {"rise": 0.3, "rise_lo": 0.05, "rise_hi": 0.5, "monotone_seeds": 2, "seeds": 3,
                       "spread": 0.3, "plateau": 1},
    },
    full_size_only=True,  # a smoke run's corpus and epochs are too few for settled vectors
)
def _c39(f, t):
    if not f["plateau"]:
        return INCONCLUSIVE
    if (f["monotone_seeds"] == f["seeds"] and f["rise_lo"] >= t["rise_min"] and f["rise_lo"] > f["spread"]):
        return CONFIRMED
    if -t["equiv_max"] < f["rise_lo"] and f["rise_hi"] < t["equiv_max"]:
        return REFUTED
    return INCONCLUSIVE


@claims.check("C39")
def check_c39(r: Planted) -> claims.Verdict:
    """Settle C39 from :func:`run_planted`."""
    lo, hi = r.ps[0], r.ps[-1]
    mean = {p: float(np.mean(v)) for p, v in r.leans.items()}

    def evidence(v: str) -> str:
        head = (
            _("A made-up word was given {n} occurrences, each a copy of the context of '{a}' (a share p "
              "of them) or of '{b}' (the rest), added to {tokens:,} tokens of Lee news; skip-gram, "
              "{epochs} epochs, {seeds} seeds. Its lean cos(word, {a}) − cos(word, {b}) averages ").format(
                n=r.n_planted, a=r.a, b=r.b, tokens=r.n_tokens, epochs=r.epochs, seeds=r.seeds)
            + _(", ").join(_("{lean:+.2f} at p = {p:g}").format(lean=mean[p], p=p) for p in r.ps)
            + _("; from p = {lo:g} to {hi:g} it rises by {rise_lo:+.2f} to {rise_hi:+.2f} per seed, against a "
                "seed spread of {spread:.2f} at one p. ").format(lo=lo, hi=hi, rise_lo=r.rise_lo, rise_hi=r.rise_hi,
                                                                 spread=r.spread)
        )
        return head + {
            CONFIRMED: _("Nothing but the mix of contexts differs between the made-up words, and the lean follows "
                         "it in every seed: which way a word leans is set by which company it keeps in the corpus. "
                         "The planted test is a constructed demonstration: it shows the mechanism on one base corpus; "
                         "it does not measure how the real 苹果 leans in a particular corpus."),
            REFUTED: _("The mix of contexts barely moves the word: its neighbours are not set by usage here."),
            INCONCLUSIVE: (_("A model had not settled (its loss still fell by {fell:.1%} over its "
                             "last two epochs).").format(fell=r.worst_improvement) if not r.plateau else
                           _("The lean moves with p, but not in every seed beyond the seed spread; this run "
                             "cannot tell.") if r.rise > 0 else _("The seeds disagree; this run cannot tell.")),
        }[v]

    figures = {k: getattr(r, k) for k in ("rise", "rise_lo", "rise_hi", "monotone_seeds", "seeds", "spread",
                                          "plateau")}
    strength = _("{seeds} seeds, each with its own draw of the planted contexts; every model's training loss "
                 "fell by at most {fell:.1%} over its last two epochs (gensim lowers the learning "
                 "rate to nearly zero by the end, which flattens the loss too); one base corpus and one pair of "
                 "context words. Rule revised after an external audit of the first build (was: neighbour overlap "
                 "between corpora against a reseed, 'corrected' because a second sample of one source moved the "
                 "neighbours as much — a test that could not fail and did not test the direction).").format(
        seeds=r.seeds, fell=r.worst_improvement)

    def finding(v: str) -> str:
        rise = (_("from p = {lo:g} to {hi:g} its lean towards '{a}' rose by {rise_lo:+.2f} to {rise_hi:+.2f} "
                  "per seed (seed spread {spread:.2f})") if r.rise_lo > 0 else
                _("from p = {lo:g} to {hi:g} its lean towards '{a}' moved by {rise_lo:+.2f} to {rise_hi:+.2f} "
                  "per seed (seed spread {spread:.2f})")).format(lo=lo, hi=hi, a=r.a, rise_lo=r.rise_lo,
                                                                   rise_hi=r.rise_hi, spread=r.spread)
        return {
            CONFIRMED: _("The more of a made-up word's contexts came from '{a}', the more it leaned that way: {rise}, "
                         "at every step in all {seeds} seeds."),
            REFUTED: _("The mix of contexts did not move the made-up word: {rise}."),
            INCONCLUSIVE: (_("A model was still learning (its loss fell {fell:.1%} over its last two "
                             "epochs), so this run cannot tell.") if not r.plateau else
                           _("Not clear-cut: {rise}, growing at every step in {monotone} of {seeds} seeds.")),
        }[v].format(a=r.a, rise=rise, seeds=r.seeds, fell=r.worst_improvement, monotone=r.monotone_seeds)

    return claims.judge("C39", figures, evidence, strength, finding=finding)
