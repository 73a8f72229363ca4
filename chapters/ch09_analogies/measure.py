"""Chapter 09, "King − man + woman": the measurements behind C43, C44 and C45 (their rules and checks: claims.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
from scipy.stats import rankdata

from embedbook import similarity, stats
from embedbook.book import Result, i18n
from embedbook.book.i18n import _
from embedbook.similarity import AnalogyResult, Space

# Sections of questions-words.txt built from names of places: countries, capitals, cities, US states
# (the currency and nationality sections pair a country's name with its currency or adjective).
NAME_SECTIONS = ("capital-common-countries", "capital-world", "currency", "city-in-state", "gram6-nationality-adjective")
# Frequency bands by the row of the rarest of a question's four words (GloVe is frequency ordered).
RANK_BANDS = ((0, 5_000), (5_000, 10_000), (10_000, 30_000), (30_000, 100_000))
RARE_RANK = 30_000


def polysemous_en() -> set[str]:
    """The hand-picked English homographs of the analogy set (``resources/polysemous_en.txt``)."""
    ref = resources.files("embedbook") / "resources" / "polysemous_en.txt"
    lines = Path(str(ref)).read_text(encoding="utf-8").splitlines()
    return {ln.split()[0] for ln in lines if ln.strip() and not ln.startswith("#")}


# --- C43: king − man + woman -----------------------------------------------------------------------------


@dataclass
class Analogy(Result):
    """One analogy ``a : b :: c : ?`` by 3CosAdd, with and without the three input words excluded."""

    verbatim = ("a", "b", "c", "expected", "answer_excl", "answer_incl")  # words: the same in both editions
    a: str
    b: str
    c: str
    expected: str
    n_words: int
    answer_excl: str  # the nearest word, inputs excluded (word2vec's tool, gensim)
    score_excl: float
    answer_incl: str  # the nearest word when the inputs may be returned
    score_incl: float
    rank_excl: int  # rank of the expected word, inputs excluded (1 = nearest)
    rank_incl: int  # its rank when the inputs may be returned
    top_excl: list = field(default_factory=list)  # [(word, cosine)] best first
    top_incl: list = field(default_factory=list)


def run_analogy(space: Space, a: str = "man", b: str = "king", c: str = "woman", expected: str = "queen",
                k: int = 5) -> Analogy:
    """``b − a + c`` on ``space`` by 3CosAdd, both conventions, and the exact rank of ``expected`` in each."""
    ia, ib, ic, ie = (space.id(w) for w in (a, b, c, expected))
    target = stats.unit_rows((space.unit[ib] - space.unit[ia] + space.unit[ic])[None], zero="keep")[0]
    scores = (space.unit @ target).astype(np.float64)
    rank_incl = 1 + int((scores > scores[ie]).sum())
    struck = scores.copy()
    struck[[ia, ib, ic]] = -np.inf
    rank_excl = 1 + int((struck > struck[ie]).sum())
    excl = similarity.solve_analogy(space, a, b, c, k=k, exclude_inputs=True)
    incl = similarity.solve_analogy(space, a, b, c, k=k, exclude_inputs=False)
    return Analogy(a=a, b=b, c=c, expected=expected, n_words=len(space), answer_excl=excl[0][0], score_excl=excl[0][1],
                   answer_incl=incl[0][0], score_incl=incl[0][1], rank_excl=rank_excl, rank_incl=rank_incl,
                   top_excl=excl, top_incl=incl)


# --- C44, C45: the whole analogy set -----------------------------------------------------------------------


def stratified_gap(ok: np.ndarray, mask: np.ndarray, strata: np.ndarray, units: np.ndarray, min_n: int = 5,
                   reps: int = 2000, seed: int = 0) -> tuple[float, float, float, int]:
    """Accuracy of the questions outside ``mask`` minus that of the questions inside it, compared within each
    stratum (a section, a frequency band) and averaged with weights = masked questions per stratum.

    The gap is the mean, over the masked questions, of their stratum's accuracy outside the mask minus their own
    0/1 outcome. Its 95 % interval resamples ``units`` (one label per question: the word that puts it in the
    group), all the questions of a word moving together (:func:`embedbook.stats.bootstrap_mean_ci` with
    ``groups``, ``reps`` draws): the words were sampled, not the questions, and one word's questions succeed or
    fail together. With a single word the interval is the whole range, −1 to +1. Strata with fewer than
    ``min_n`` questions on either side are left out. Returns ``(gap, lo, hi, n)``, ``n`` the masked questions
    used; NaNs and 0 when no stratum qualifies.
    """
    ok, mask, strata, units = np.asarray(ok, bool), np.asarray(mask, bool), np.asarray(strata), np.asarray(units)
    diffs, labels = [], []
    for s in dict.fromkeys(strata.tolist()):
        inside, rest = (strata == s) & mask, (strata == s) & ~mask
        if inside.sum() >= min_n and rest.sum() >= min_n:
            diffs.append(ok[rest].mean() - ok[inside])
            labels.append(units[inside])
    if not diffs:
        return float("nan"), float("nan"), float("nan"), 0
    d, labels = np.concatenate(diffs), np.concatenate(labels)
    if len(set(labels.tolist())) < 2:
        return float(d.mean()), -1.0, 1.0, len(d)
    lo, hi = stats.bootstrap_mean_ci(d, groups=labels, reps=reps, seed=seed)
    return float(d.mean()), lo, hi, len(d)


def within_section_auc(score: np.ndarray, ok: np.ndarray, sections: np.ndarray, min_n: int = 5) -> tuple[float, int]:
    """How well ``score`` separates right from wrong answers inside each section: the probability that a
    right answer's score beats a wrong one's (ties count half; 0.5 = no relation), averaged over the
    sections with at least ``min_n`` of each, weighted by their size. Returns ``(auc, sections used)``."""
    aucs, weights = [], []
    for s in dict.fromkeys(sections.tolist()):
        m = sections == s
        pos, neg = score[m & ok], score[m & ~ok]
        if len(pos) >= min_n and len(neg) >= min_n:
            ranks = rankdata(np.concatenate([pos, neg]))  # average ranks for ties
            aucs.append((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))
            weights.append(m.sum())
    if not aucs:
        return float("nan"), 0
    return float(np.average(aucs, weights=weights)), len(aucs)


@dataclass
class AnalogySet(Result):
    """GloVe on ``questions-words.txt``: accuracy under three conventions, how much the relation offsets of a
    question share a direction, and where the failures are."""

    n_questions: int
    n_skipped: int
    restrict: int
    acc_excl: float  # 3CosAdd, inputs excluded
    acc_incl: float  # 3CosAdd, inputs allowed
    acc_base: float  # the nearest word to c alone (Linzen, 2016)
    offset_cos: float  # mean cos(b − a, d − c) over the questions
    offset_cos_other: float  # mean cos(b − a, d' − c') with (c', d') from a question of another section
    auc_offset: float  # within sections: P(a right answer's offset cosine > a wrong answer's)
    n_sections_auc: int
    acc_frequent: float  # questions whose rarest word is among the 10,000 most frequent
    acc_rare: float  # ... beyond RARE_RANK
    n_rare: int
    gap_rare: float  # within-section accuracy gap: the other questions minus those with a rare word
    gap_rare_lo: float
    gap_rare_hi: float
    acc_names: float  # sections built from place names
    acc_rest: float
    n_names: int
    gap_names: float  # within frequency bands: questions without names minus those with names
    gap_names_lo: float
    gap_names_hi: float
    n_poly: int
    gap_poly: float  # within-section: the other questions minus those with a homograph
    gap_poly_lo: float
    gap_poly_hi: float
    n_poly_names: int  # homograph questions of the place-name sections: an ambiguous place or currency name
    gap_poly_names: float  # within those sections: the other (unambiguous) names' questions minus theirs
    gap_poly_names_lo: float
    gap_poly_names_hi: float
    n_poly_common: int  # homograph questions of the other sections: an ordinary word with two senses
    gap_poly_common: float  # within those sections
    gap_poly_common_lo: float
    gap_poly_common_hi: float
    result: AnalogyResult | None = None
    offsets: np.ndarray | None = None  # per question: cos(b − a, d − c)

    def extra_glue(self) -> dict:
        return {"gensim_sentence": gensim_sentence(self)}

    def section_table(self) -> list[dict]:
        """One row per section: questions, accuracy under each convention, mean offset cosine."""
        secs = np.array(self.result.sections)
        rows = []
        for s, acc in self.result.by_section().items():
            rows.append({"section": s, "questions": acc["n"], "inputs excluded": acc["excl"],
                         "inputs allowed": acc["incl"], "nearest to c": acc["base"],
                         "offset cosine": float(self.offsets[secs == s].mean())})
        return rows

    def band_table(self) -> list[dict]:
        """Accuracy (inputs excluded) by the frequency rank of each question's rarest word."""
        rank, ok = np.array(self.result.max_rank), self.result.correct("excl")
        return [{"rarest word's rank": f"{lo + 1:,}–{hi:,}", "questions": int(((rank >= lo) & (rank < hi)).sum()),
                 "accuracy": float(ok[(rank >= lo) & (rank < hi)].mean()) if ((rank >= lo) & (rank < hi)).any() else float("nan")}
                for lo, hi in RANK_BANDS if lo < self.restrict]


# A one-off check, run once by hand because it takes minutes: gensim's own
# KeyedVectors.evaluate_word_analogies(questions-words.txt, restrict_vocab=100000) on GloVe 6B 50d.
GENSIM_CHECK = {"restrict": 100_000, "correct": 9_038, "questions": 19_230}


def gensim_sentence(r: AnalogySet) -> str:
    """Compare this run with :data:`GENSIM_CHECK`, in a sentence that follows the numbers (an
    :class:`~embedbook.book.i18n.Msg`: both editions)."""
    g = GENSIM_CHECK
    said = _("gensim's own evaluate_word_analogies(..., restrict_vocab=100000) answered {correct:,} of "
             "{questions:,} questions ({share:.1%}) for these vectors in a one-off check "
             "(it takes minutes, so the chapter does not rerun it)").format(
        correct=g["correct"], questions=g["questions"], share=g["correct"] / g["questions"])
    if r.restrict != g["restrict"] or r.n_questions != g["questions"]:
        return _("At RESTRICT = 100,000 on the whole set, {said}; this run uses other settings.").format(said=said)
    same = round(r.acc_excl * r.n_questions) == g["correct"]
    opening = i18n.Msg(said.en[:1].upper() + said.en[1:], said.zh)  # the sentence's start: capitalised in English
    tail = (_("the same questions and the same count as here.") if same else
            _("the same questions, but {right:,} right here.").format(right=round(r.acc_excl * r.n_questions)))
    return _("{opening}: {tail}").format(opening=opening, tail=tail)


def run_analogy_set(space: Space, restrict: int, per_section: int | None, seed: int = 0) -> AnalogySet:
    """Evaluate ``space`` on Mikolov et al.'s ``questions-words.txt`` and break the outcomes down."""
    res = similarity.evaluate_analogies(space, similarity.read_analogies(), restrict=restrict,
                                        per_section=per_section, seed=seed)
    u = space.unit
    ids = np.array([[space.index[w] for w in q] for q in res.questions])
    off1, off2 = u[ids[:, 1]] - u[ids[:, 0]], u[ids[:, 3]] - u[ids[:, 2]]

    def cos_rows(x, y):
        return np.einsum("ij,ij->i", stats.unit_rows(x, zero="keep"), stats.unit_rows(y, zero="keep"))

    offsets = cos_rows(off1, off2)
    secs = np.array(res.sections)
    rng = np.random.default_rng(seed)
    other = rng.integers(0, len(ids), len(ids))
    keep = secs[other] != secs  # pair each question's b − a with the d − c of a question of another section
    offset_other = cos_rows(off1[keep], off2[other[keep]])
    ok = res.correct("excl")
    rank = np.array(res.max_rank)
    auc, n_auc = within_section_auc(offsets, ok, secs)
    names = np.isin(secs, NAME_SECTIONS)
    band = np.digitize(rank, [hi for _, hi in RANK_BANDS[:-1]])
    poly_words = polysemous_en()
    poly = np.array([any(w in poly_words for w in q) for q in res.questions])
    rare = rank >= RARE_RANK
    # the word that puts a question in its group, the unit the intervals resample: its rarest word, its homograph
    rarest = np.array([max(q, key=space.index.__getitem__) for q in res.questions])
    homograph = np.array([next((w for w in q if w in poly_words), "") for q in res.questions])
    g_rare = stratified_gap(ok, rare, secs, rarest, seed=seed)
    g_names = stratified_gap(ok, names, band, rarest, seed=seed)
    g_poly = stratified_gap(ok, poly, secs, homograph, seed=seed)
    g_pnames = stratified_gap(ok, poly & names, secs, homograph, seed=seed)
    g_pcommon = stratified_gap(ok, poly & ~names, secs, homograph, seed=seed)

    def acc(mask):
        return float(ok[mask].mean()) if mask.any() else float("nan")

    return AnalogySet(
        n_questions=len(res.questions), n_skipped=res.skipped, restrict=restrict,
        acc_excl=res.accuracy("excl"), acc_incl=res.accuracy("incl"), acc_base=res.accuracy("base"),
        offset_cos=float(offsets.mean()), offset_cos_other=float(offset_other.mean()),
        auc_offset=auc, n_sections_auc=n_auc,
        acc_frequent=acc(rank < 10_000), acc_rare=acc(rare), n_rare=int(rare.sum()),
        gap_rare=g_rare[0], gap_rare_lo=g_rare[1], gap_rare_hi=g_rare[2],
        acc_names=acc(names), acc_rest=acc(~names), n_names=int(names.sum()),
        gap_names=g_names[0], gap_names_lo=g_names[1], gap_names_hi=g_names[2],
        n_poly=int(poly.sum()), gap_poly=g_poly[0], gap_poly_lo=g_poly[1], gap_poly_hi=g_poly[2],
        n_poly_names=g_pnames[3], gap_poly_names=g_pnames[0], gap_poly_names_lo=g_pnames[1],
        gap_poly_names_hi=g_pnames[2], n_poly_common=g_pcommon[3], gap_poly_common=g_pcommon[0],
        gap_poly_common_lo=g_pcommon[1], gap_poly_common_hi=g_pcommon[2],
        result=res, offsets=offsets,
    )


# --- tables for the page ------------------------------------------------------------------------------------


def answers_table(r: Analogy):
    """The top answers of one analogy (:func:`run_analogy`), inputs excluded and allowed side by side, each
    as "word (cosine)", ranked from 1. A DataFrame whose index is the rank."""
    import pandas as pd

    q = f"{r.b} − {r.a} + {r.c}"
    return pd.DataFrame({_("{q} (inputs excluded)").format(q=q): [f"{w} ({s:.2f})" for w, s in r.top_excl],
                         _("inputs allowed"): [f"{w} ({s:.2f})" for w, s in r.top_incl]},
                        index=pd.RangeIndex(1, len(r.top_excl) + 1, name=_("rank")))


def section_name(section: str) -> str:
    """An analogy section's name as the page shows it (``gram3-comparative``: each edition its own; an
    :class:`~embedbook.book.i18n.Msg`), the name itself for a section not listed."""
    return {
        "capital-common-countries": _("capital-common-countries"), "capital-world": _("capital-world"),
        "currency": _("currency"), "city-in-state": _("city-in-state"), "family": _("family"),
        "gram1-adjective-to-adverb": _("gram1-adjective-to-adverb"), "gram2-opposite": _("gram2-opposite"),
        "gram3-comparative": _("gram3-comparative"), "gram4-superlative": _("gram4-superlative"),
        "gram5-present-participle": _("gram5-present-participle"),
        "gram6-nationality-adjective": _("gram6-nationality-adjective"), "gram7-past-tense": _("gram7-past-tense"),
        "gram8-plural": _("gram8-plural"), "gram9-plural-verbs": _("gram9-plural-verbs"),
        "capital-country": _("capital-country"), "province-capital": _("province-capital"),
        "family-gender": _("family-gender"), "all": _("all"),
    }.get(section, section)


def section_table(res: AnalogyResult):
    """Questions and accuracy per section of an analogy evaluation, and over all of them, formatted for
    the page (a pandas Styler): 3CosAdd with the inputs excluded and allowed, and the nearest word to c."""
    import pandas as pd

    rows = {section_name(s): [v["n"], v["excl"], v["incl"], v["base"]] for s, v in res.by_section().items()}
    rows[section_name("all")] = [len(res.questions), res.accuracy("excl"), res.accuracy("incl"), res.accuracy("base")]
    cols = [_("questions"), _("inputs excluded"), _("inputs allowed"), _("nearest to c")]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=cols)
    table.index.name = _("section")
    return table.style.format({"questions": "{:,.0f}", **{c: "{:.1%}" for c in cols[1:]}})
