"""Chapter 09's claims (C43, C44, C45): the article's words (register entries), each claim's
declared rule, its sources and its check.

The measurements they read are in :mod:`embedbook.chapters.ch09_analogies.measure`.
"""

from __future__ import annotations

from embedbook.book import claims
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED, SHORT, Claim
from embedbook.book.i18n import _
from embedbook.chapters.ch09_analogies.measure import RARE_RANK, Analogy, AnalogySet, polysemous_en

# --- the register entries: the articles' words this chapter settles ------------------------------------

claims.declare(
    __name__,
    Claim("C43", SHORT, "国王减男人加女人，边界在哪", "king 减 man 加 woman，最近邻是 queen。它在早期词向量上确实能复现",
          "king minus man plus woman has queen as its nearest neighbour. This really does reproduce on early word vectors",
          "king − man + woman has queen as nearest neighbour on early word vectors.", "similarity"),
    Claim("C44", SHORT, "国王减男人加女人，边界在哪", "它证明的是分布规律可被线性近似，不证明模型会做逻辑推理",
          "what it proves is that distributional regularities can be approximated linearly, not that the model can reason logically",
          "It shows that distributional regularities can be approximated linearly (offsets between vectors); it does not show that the model reasons.", "similarity"),
    Claim("C45", SHORT, "国王减男人加女人，边界在哪", "这类类比在低频词、专有名词、多义词上经常失效",
          "such analogies often fail on low-frequency words, proper nouns and polysemous words",
          "Analogies often fail on rare words, proper nouns and polysemous words.", "similarity"),
)


@claims.rule(
    "C43",
    basis=claims.MEASURED,
    quantity="the rank of queen among all 400,000 GloVe 6B 50d words by cosine with king − man + woman (3CosAdd), "
    "twice: with the three input words excluded, as in Mikolov et al.'s tool and gensim, and with them allowed "
    "(the caveat of Nissim et al., 2020)",
    inputs={"rank_excl": "queen's rank with the inputs excluded (1 = nearest)",
            "rank_incl": "queen's rank with the inputs allowed (1 = nearest)"},
    thresholds={"near": 5},
    outcomes={
        CONFIRMED: "queen is the nearest word both with and without the exclusion",
        CORRECTED: "queen is within near with the inputs excluded, but not the nearest word in both readings",
        REFUTED: "queen ranks below near even with the inputs excluded",
    },
    examples={CONFIRMED: {"rank_excl": 1, "rank_incl": 1}, CORRECTED: {"rank_excl": 1, "rank_incl": 2},
              REFUTED: {"rank_excl": 40, "rank_incl": 41}},
)
def _c43(f, t):
    if f["rank_excl"] == 1 and f["rank_incl"] == 1:
        return CONFIRMED
    return CORRECTED if f["rank_excl"] <= t["near"] else REFUTED


@claims.check("C43")
def check_c43(r: Analogy) -> claims.Verdict:
    """Settle C43 from :func:`run_analogy`."""

    def evidence(v: str) -> str:
        where = (_("the nearest word") if r.rank_excl == 1 else  # by rank: "corrected" may have it first once excluded
                 _("number {rank}, near but not first").format(rank=r.rank_excl) if v != REFUTED else
                 _("only number {rank:,}").format(rank=r.rank_excl))
        incl = (_("the nearest word is {answer!r} itself (cosine {score:.3f}) and {expected} ranks {rank}").format(
                    answer=r.answer_incl, score=r.score_incl, expected=r.expected, rank=r.rank_incl)
                if r.answer_incl != r.expected else
                _("{expected} is still the nearest word").format(expected=r.expected))
        rests = (_(": the famous result rests on the exclusion rule (Nissim et al., 2020)")
                 if r.rank_excl == 1 and r.rank_incl > 1 else "")
        return _(
            "On GloVe 6B 50d ({n_words:,} words) {expected} is {where} to {b} − {a} + {c} when the three "
            "input words are excluded, as word2vec's tool and gensim's most_similar do (top answer {answer!r}, "
            "cosine {score:.3f}). Without that exclusion {incl}{rests}."
        ).format(n_words=r.n_words, expected=r.expected, where=where, b=r.b, a=r.a, c=r.c, answer=r.answer_excl,
                 score=r.score_excl, incl=incl, rests=rests)

    strength = _("exact arithmetic on one published vector set (the whole vocabulary searched); the literature "
                 "reports the same answer for word2vec's Google News vectors with the same convention")

    def finding(v: str) -> str:
        where = (_("the nearest word") if r.rank_excl == 1 else
                 _("number {rank} nearest").format(rank=r.rank_excl) if v != REFUTED else
                 _("only number {rank:,} nearest").format(rank=r.rank_excl))
        behind = _(", behind {answer}").format(answer=r.answer_incl) if r.rank_incl > 1 else ""
        return _("With the three input words excluded, {expected} is {where} to {b} − {a} + {c} on GloVe; "
                 "with them allowed, {expected} ranks {rank}{behind}.").format(
            expected=r.expected, where=where, b=r.b, a=r.a, c=r.c, rank=r.rank_incl, behind=behind)

    return claims.judge("C43", {"rank_excl": r.rank_excl, "rank_incl": r.rank_incl}, evidence, strength,
                        finding=finding)


@claims.rule(
    "C44",
    basis=claims.MEASURED,
    quantity="on GloVe 6B 50d and the 19,544 questions of questions-words.txt (top 100,000 words): how much the "
    "offsets b − a and d − c of a question share a direction (mean cosine, against offsets paired with questions "
    "from other sections), and how far 3CosAdd beats the nearest word to c alone (Linzen, 2016); whether the model "
    "reasons is not measured (nothing here can test it)",
    inputs={
        "offset_cos": "mean cos(b − a, d − c) over the questions",
        "offset_cos_other": "the same with d − c taken from a question of another section",
        "acc_excl": "3CosAdd accuracy, inputs excluded",
        "acc_base": "accuracy of the nearest word to c, inputs excluded",
    },
    thresholds={"shared_null": 0.05, "shared_min": 0.1, "margin_min": 0.05},
    outcomes={
        REFUTED: "the offsets share no direction (offset_cos − offset_cos_other < shared_null): a linear offset "
        "does not describe the relations",
        CONFIRMED: "the offsets share a direction (offset_cos − offset_cos_other ≥ shared_min) and 3CosAdd beats "
        "the nearest word to c by at least margin_min: the offset, not mere closeness to c, answers the questions",
        CORRECTED: "the offsets share a direction, but 3CosAdd beats the nearest word to c by less than "
        "margin_min: most answers are c's neighbours",
        INCONCLUSIVE: "offset_cos − offset_cos_other lies between shared_null and shared_min",
    },
    examples={
        REFUTED: {"offset_cos": 0.03, "offset_cos_other": 0.0, "acc_excl": 0.4, "acc_base": 0.1},
        CONFIRMED: {"offset_cos": 0.4, "offset_cos_other": 0.0, "acc_excl": 0.47, "acc_base": 0.15},
        CORRECTED: {"offset_cos": 0.4, "offset_cos_other": 0.0, "acc_excl": 0.2, "acc_base": 0.17},
        INCONCLUSIVE: {"offset_cos": 0.08, "offset_cos_other": 0.0, "acc_excl": 0.47, "acc_base": 0.15},
    },
)
def _c44(f, t):
    shared = f["offset_cos"] - f["offset_cos_other"]
    if shared < t["shared_null"]:
        return REFUTED
    if shared < t["shared_min"]:
        return INCONCLUSIVE
    return CONFIRMED if f["acc_excl"] - f["acc_base"] >= t["margin_min"] else CORRECTED


@claims.check("C44")
def check_c44(r: AnalogySet) -> claims.Verdict:
    """Settle C44 from :func:`run_analogy_set`."""

    def evidence(v: str) -> str:
        head = _(
            "On {n:,} questions (GloVe, top {restrict:,} words) the offsets b − a and d − c of a question "
            "have mean cosine {offset_cos:.2f}, against {offset_cos_other:.2f} when d − c comes from a question of "
            "another section. 3CosAdd answers {acc_excl:.1%} with the inputs excluded and {acc_incl:.1%} when "
            "they are allowed; the nearest word to c alone gets {acc_base:.1%}. (Inside a section a right answer "
            "has the larger offset cosine with probability {auc:.2f}, but 3CosAdd picks d by how well d − c "
            "follows b − a, so that figure is nearly built in and does not decide.) "
        ).format(n=r.n_questions, restrict=r.restrict, offset_cos=r.offset_cos, offset_cos_other=r.offset_cos_other,
                 acc_excl=r.acc_excl, acc_incl=r.acc_incl, acc_base=r.acc_base, auc=r.auc_offset)
        scope = _(" The measurement says how far a linear offset accounts for the answers; whether a model "
                  "'reasons' is not something it can test, so that half of the claim is left open.")
        return head + {
            CONFIRMED: _("A relation is roughly one shared direction, and the offset adds clearly to mere closeness "
                         "to c: a linear regularity of co-occurrence-based vectors.") + scope,
            CORRECTED: _("The offsets align, but 3CosAdd adds little to picking c's nearest neighbour: much of the "
                         "famous behaviour is proximity, not a relation (Linzen, 2016).") + scope,
            REFUTED: _("The offsets of one relation share no direction beyond chance pairings: the linear-offset "
                       "account does not describe these answers."),
            INCONCLUSIVE: _("The offsets share a direction only weakly; this run cannot tell."),
        }[v]

    figures = {"offset_cos": r.offset_cos, "offset_cos_other": r.offset_cos_other, "acc_excl": r.acc_excl,
               "acc_incl": r.acc_incl, "acc_base": r.acc_base, "auc_offset": r.auc_offset}
    strength = _("{n:,} questions, deterministic; the cross-section pairing is the chance level of the "
                 "offset cosine and the nearest word to c the chance level of the accuracy. Rule revised after an "
                 "external audit of the first build (was: also required the within-section AUC of the offset "
                 "cosine, which is nearly circular for 3CosAdd).").format(n=r.n_questions)

    def finding(v: str) -> str:
        shared = _("A question's two offsets have mean cosine {offset_cos:.2f}, against {offset_cos_other:.2f} "
                   "for offsets of unrelated questions").format(offset_cos=r.offset_cos,
                                                                offset_cos_other=r.offset_cos_other)
        acc = _("3CosAdd answers {acc_excl:.0%} of the questions, taking the third word's nearest neighbour "
                "{acc_base:.0%}").format(acc_excl=r.acc_excl, acc_base=r.acc_base)
        return {CONFIRMED: _("{shared}: a relation is roughly one direction. {acc}, so the offset does the work."),
                CORRECTED: _("{shared}, but {acc}: most answers are the third word's neighbours."),
                REFUTED: _("{shared}: the offsets of one relation share no direction."),
                INCONCLUSIVE: _("{shared}: too small a difference to tell.")}[v].format(shared=shared, acc=acc)

    return claims.judge("C44", figures, evidence, strength, finding=finding)


# The groups C45 measures, each a within-section accuracy gap (figure prefix → what it compares). Rare words are
# one leg; polysemous words are the other, read in two groupings: all homographs merged, and split in two.
C45_GROUPS = {
    "rare": "rare words (the rarest word beyond rank 30,000) against the other questions of their section",
    "poly": f"all {len(polysemous_en())} homographs merged, against the other questions of their section",
    "poly_names": "ambiguous place and currency names (the homographs of the place-name sections: turkey, georgia, "
    "real, won, …) against the other, unambiguous names of their section",
    "poly_common": "ordinary homographs (saw, fell, mouse, …, in the other sections) against the other questions of "
    "their section",
}
HELD, AGAINST, OPEN = "fails more", "does not fail more", "open"


def _c45_status(f, t, k: str) -> str:
    """One group's reading: its gap ≥ gap_min with the interval above 0, its interval below gap_min, or open."""
    if f[f"gap_{k}"] >= t["gap_min"] and f[f"gap_{k}_lo"] > 0:
        return HELD
    return AGAINST if f[f"gap_{k}_hi"] < t["gap_min"] else OPEN


def c45_polysemy(f, t) -> tuple[str, str, str]:
    """The polysemy leg: ``(merged, split, leg)``. The split reads 'fails more' only if both halves do and
    'does not' only if neither does; the leg is the two groupings' common reading, and open where they differ
    (neither grouping was declared before measuring)."""
    merged = _c45_status(f, t, "poly")
    halves = {_c45_status(f, t, "poly_names"), _c45_status(f, t, "poly_common")}
    split = halves.pop() if len(halves) == 1 else OPEN
    return merged, split, merged if merged == split else OPEN


@claims.rule(
    "C45",
    basis=claims.MEASURED,
    quantity="GloVe 3CosAdd accuracy (inputs excluded) on questions-words.txt: the accuracy of comparable questions "
    "minus that of a group (a gap, positive when the group fails more), compared within each section and weighted "
    "by the group's questions per section; its 95 % interval resamples the words that put questions in the group "
    "(2,000 draws, all of a word's questions together: its rarest word, its homograph). Groups: "
    + "; ".join(C45_GROUPS.values()) + ". Two legs decide: rare words, and polysemous words, read both merged and "
    "split, since neither grouping was declared before measuring. Proper nouns as such cannot be compared within "
    "a section (every question of a place-name section is made of names), so the gap of the place-name sections "
    "against the others, at equal word frequency, is reported beside the rule and does not decide",
    inputs={f"gap_{k}{s}": f"{what}{' (95 % interval ' + s[1:] + ')' if s else ''}"
            for k, what in (("rare", "rare-word gap"), ("poly", "all-homograph gap"),
                            ("poly_names", "ambiguous-name gap"), ("poly_common", "ordinary-homograph gap"))
            for s in ("", "_lo", "_hi")},
    thresholds={"gap_min": 0.05},
    outcomes={
        CONFIRMED: "both legs fail more: the rare-word gap ≥ `gap_min` with its interval above 0, and polysemous "
        "words fail more in both groupings (merged; and each half of the split)",
        CORRECTED: "one leg fails more and the other does not (its interval lies below `gap_min`; for polysemy, in "
        "both groupings): the article names the wrong groups, or too many",
        REFUTED: "neither leg fails more (every interval below `gap_min`, in both groupings)",
        INCONCLUSIVE: "anything else: an interval straddles the thresholds, or the merged and split groupings of the "
        "homographs disagree",
    },
    examples={
        CONFIRMED: {"gap_rare": 0.1, "gap_rare_lo": 0.047, "gap_rare_hi": 0.16, "gap_poly": 0.12, "gap_poly_lo": 0.06,
                    "gap_poly_hi": 0.18, "gap_poly_names": 0.147, "gap_poly_names_lo": 0.06,
                    "gap_poly_names_hi": 0.244, "gap_poly_common": 0.09, "gap_poly_common_lo": 0.02,
                    "gap_poly_common_hi": 0.16},
        CORRECTED: {"gap_rare": 0.1, "gap_rare_lo": 0.047, "gap_rare_hi": 0.16, "gap_poly": -0.01,
                    "gap_poly_lo": -0.045, "gap_poly_hi": 0.03, "gap_poly_names": 0.0, "gap_poly_names_lo": -0.04,
                    "gap_poly_names_hi": 0.045, "gap_poly_common": -0.02, "gap_poly_common_lo": -0.06,
                    "gap_poly_common_hi": 0.03},
        REFUTED: {"gap_rare": 0.0, "gap_rare_lo": -0.04, "gap_rare_hi": 0.04, "gap_poly": -0.01,
                  "gap_poly_lo": -0.045, "gap_poly_hi": 0.03, "gap_poly_names": 0.0, "gap_poly_names_lo": -0.04,
                  "gap_poly_names_hi": 0.045, "gap_poly_common": -0.02, "gap_poly_common_lo": -0.06,
                  "gap_poly_common_hi": 0.03},
        INCONCLUSIVE: {"gap_rare": 0.101, "gap_rare_lo": 0.047, "gap_rare_hi": 0.16, "gap_poly": 0.069,
                       "gap_poly_lo": 0.003, "gap_poly_hi": 0.136, "gap_poly_names": 0.147,
                       "gap_poly_names_lo": 0.06, "gap_poly_names_hi": 0.244, "gap_poly_common": -0.004,
                       "gap_poly_common_lo": -0.075, "gap_poly_common_hi": 0.071},
    },
    full_size_only=True,
)
def _c45(f, t):
    legs = [_c45_status(f, t, "rare"), c45_polysemy(f, t)[2]]
    if legs == [HELD, HELD]:
        return CONFIRMED
    if HELD in legs and AGAINST in legs:
        return CORRECTED
    return REFUTED if legs == [AGAINST, AGAINST] else INCONCLUSIVE


@claims.check("C45")
def check_c45(r: AnalogySet) -> claims.Verdict:
    """Settle C45 from :func:`run_analogy_set`."""
    figures = {f"gap_{k}{s}": getattr(r, f"gap_{k}{s}") for k in (*C45_GROUPS, "names") for s in ("", "_lo", "_hi")}
    t = claims.rule_of("C45").thresholds
    merged, split, poly = c45_polysemy(figures, t)

    def interval(k: str) -> str:
        return _("{gap:+.1%} (95 % interval {lo:+.1%} to {hi:+.1%})").format(
            gap=figures[f"gap_{k}"], lo=figures[f"gap_{k}_lo"], hi=figures[f"gap_{k}_hi"])

    def reading(k: str) -> str:
        status = _c45_status(figures, t, k)
        if status == HELD:
            return _("fails more")
        if status == AGAINST:
            return _("does not fail more by {gap_min:.0%} or more").format(gap_min=t["gap_min"])
        edge = "0" if figures[f"gap_{k}"] >= t["gap_min"] else f"{t['gap_min']:.0%}"
        return _("not settled (the interval reaches across {edge})").format(edge=edge)

    def status_words(status: str) -> str:
        return {HELD: _("fails more"), AGAINST: _("does not fail more"), OPEN: _("open")}[status]

    def evidence(v: str) -> str:
        text = _(
            "GloVe, 3CosAdd with the inputs excluded; a gap is the accuracy of comparable questions minus that of the "
            "group, positive when the group fails more, and its interval resamples words. Rare words: the "
            "{n_rare:,} questions whose rarest word ranks beyond {rare_rank:,} score {acc_rare:.1%} (inside the "
            "10,000 most frequent words: {acc_frequent:.1%}); their gap within sections is {interval_rare}: "
            "{reading_rare}. Polysemous words, merged: the {n_poly:,} questions with one of the homographs, "
            "{interval_poly}: {reading_poly}. Split: the {n_poly_names:,} with an ambiguous place or currency "
            "name, {interval_poly_names}: {reading_poly_names}; the {n_poly_common:,} with an ordinary "
            "homograph, {interval_poly_common}: {reading_poly_common}. Proper nouns as such: the "
            "{n_names:,} questions of the place-name sections score {acc_names:.1%} against {acc_rest:.1%} for "
            "the rest, a gap at equal word frequency of {interval_names}; every question of those sections is made "
            "of names, so this compares relation types and does not decide. "
        ).format(n_rare=r.n_rare, rare_rank=RARE_RANK, acc_rare=r.acc_rare, acc_frequent=r.acc_frequent,
                 interval_rare=interval("rare"), reading_rare=reading("rare"), n_poly=r.n_poly,
                 interval_poly=interval("poly"), reading_poly=reading("poly"), n_poly_names=r.n_poly_names,
                 interval_poly_names=interval("poly_names"), reading_poly_names=reading("poly_names"),
                 n_poly_common=r.n_poly_common, interval_poly_common=interval("poly_common"),
                 reading_poly_common=reading("poly_common"), n_names=r.n_names, acc_names=r.acc_names,
                 acc_rest=r.acc_rest, interval_names=interval("names"))
        if merged == split == OPEN:
            poly_words = _("Neither grouping of the homographs settles the polysemy leg")
        elif merged == split:
            poly_words = _("The merged and split groupings of the homographs agree: the polysemy leg {poly}").format(
                poly=status_words(poly))
        else:
            poly_words = _("The two groupings of the homographs disagree (merged: {merged}; split: {split}) and "
                           "neither was declared before measuring, so the polysemy leg is open").format(
                merged=status_words(merged), split=status_words(split))
        close = {
            CONFIRMED: _("; rare and polysemous words both fail more, as the article says (proper nouns untested "
                         "here)."),
            CORRECTED: _("; one of the two legs fails more and the other does not, so the article names a wrong "
                         "group."),
            REFUTED: _("; neither rare nor polysemous words fail more here."),
            INCONCLUSIVE: _("; with a leg open this run does not settle the claim."),
        }[v]
        return text + poly_words + close

    strength = _("{n:,} questions but few words: every deciding gap is compared within sections, and its "
                 "interval resamples words (2,000 draws), so a handful of words cannot pass for a group; the homograph "
                 "list is the book's own and small, and how it is split was chosen after the data (hence both "
                 "groupings); proper nouns that are not ambiguous cannot be compared like with like in this "
                 "set").format(n=r.n_questions)

    def finding(v: str) -> str:
        rare = {HELD: _("Questions with a rare word fail more"),
                AGAINST: _("Questions with a rare word do not fail clearly more"),
                OPEN: _("Whether questions with a rare word fail more is not settled")}[_c45_status(figures, t, "rare")]
        homographs = {HELD: _("homographs fail more, merged and split"),
                      AGAINST: _("homographs do not, merged or split"),
                      OPEN: _("the merged and split readings of the homographs disagree, so polysemy stays open")
                      if merged != split else _("the homographs' intervals leave polysemy open")}[poly]
        gap = _("accuracy gap {gap:+.1%}, 95 % interval {lo:+.1%} to {hi:+.1%}").format(
            gap=figures["gap_rare"], lo=figures["gap_rare_lo"], hi=figures["gap_rare_hi"])
        return _("{rare} ({gap}); {homographs}.").format(rare=rare, gap=gap, homographs=homographs)

    return claims.judge("C45", figures, evidence, strength, finding=finding)
