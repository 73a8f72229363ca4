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


# --- the lesson: its loop's answers read for the page -----------------------------------------------------------


def conventions_sentence(allowed: list[str], excluded: list[str], inputs=("man", "king", "woman"),
                         expected: str = "queen") -> str:
    """What the two conventions show for one analogy, from its top words with the inputs allowed and excluded
    (best first): a sentence that follows the lists (an :class:`~embedbook.book.i18n.Msg`)."""
    rank = allowed.index(expected) + 1 if expected in allowed else None
    where = (_("{expected} is number {rank}").format(expected=expected, rank=rank) if rank else
             _("{expected} is not among the first {n}").format(expected=expected, n=len(allowed)))
    if allowed[0] in inputs:
        head = _("With the inputs allowed, the nearest word is {top}, one of the three inputs, and {where}: the "
                 "offset − {a} + {c} moves the point only a little away from {b}.").format(
            top=allowed[0], where=where, a=inputs[0], b=inputs[1], c=inputs[2])
    else:
        head = _("With the inputs allowed, the nearest word is already {top} ({where}).").format(
            top=allowed[0], where=where)
    if excluded[0] == expected and allowed[0] != expected:
        tail = _("Struck out, {expected} comes first: the famous answer needs the exclusion rule.")
    elif excluded[0] == expected:
        tail = _("Struck out, {expected} stays first: here the rule changes nothing at the top.")
    else:
        tail = _("Struck out, {top} comes first, not {expected}.")
    return _("{head} {tail}").format(head=head, tail=tail.format(expected=expected, top=excluded[0]))


@dataclass
class LessonSet(Result):
    """The lesson's loop over the analogy set (one boolean per question and convention), read for the page:
    accuracies, the sections where the offset adds most and least to the nearest word to c, how often an
    allowed answer is an input, and accuracy by the rank of the rarest word."""

    n: int  # questions answered
    restrict: int
    acc_excl: float
    acc_incl: float
    acc_base: float
    took_input: float  # inputs allowed: share of questions whose answer is a, b or c
    took_c: float  # ... c itself
    top_rank: int  # "frequent": every word of the question within this rank
    acc_top: float
    rare_rank: int  # "rare": a word of the question beyond this rank
    acc_rare: float
    sections: list = field(default_factory=list)  # section_table-like rows (see AnalogySet.section_table)
    bands: list = field(default_factory=list)  # band_table-like rows (see AnalogySet.band_table)

    def extra_glue(self) -> dict:
        rare = (_("Rare words fail more often") if self.acc_top - self.acc_rare >= 0.05 else
                _("Rare words do not fail clearly more often"))
        return {"offset_words": self.offset_words(), "allowed_words": self.allowed_words(),
                "band_words": self.band_words(), "rare_summary": rare}

    def offset_words(self) -> str:
        rows = [r for r in self.sections if r["questions"] >= 20]  # a section of a few questions says little
        lead = sorted(rows, key=lambda r: r["inputs excluded"] - r["nearest to c"])
        worst, best = lead[0], lead[-1]
        gap = self.acc_excl - self.acc_base
        head = (_("So the offset b − a does much of the work, not closeness to c alone: 3CosAdd is {gap:.0f} "
                  "percentage points ahead.") if gap >= 0.05 else
                _("So most right answers are simply c's neighbours: 3CosAdd is only {gap:.0f} percentage points "
                  "ahead.")).format(
            gap=100 * gap)
        worst_gap = worst["inputs excluded"] - worst["nearest to c"]
        tail = (_(", where the nearest word to c is right as often as the arithmetic") if abs(worst_gap) < 0.02
                else "")
        return _("{head} Its lead is largest for {best} ({be:.0%} against {bb:.0%}) and smallest for {worst} "
                 "({we:.0%} against {wb:.0%}){tail}.").format(
            head=head, best=section_name(best["section"]), be=best["inputs excluded"], bb=best["nearest to c"],
            worst=section_name(worst["section"]), we=worst["inputs excluded"], wb=worst["nearest to c"], tail=tail)

    def allowed_words(self) -> str:
        if self.took_input < 0.1:
            return _("With the inputs allowed, the top word is an input in only {share:.0%} of the questions: "
                     "the exclusion changes few answers.").format(share=self.took_input)
        c = (_(", nearly always c itself ({c:.0%} of all)") if self.took_c >= 0.8 * self.took_input else
             _(" ({c:.0%} of all: c itself)")).format(c=self.took_c)
        return _("With the inputs allowed, the top word is one of a, b, c in {share:.0%} of the questions{c}: "
                 "b − a + c stays close to its inputs, and striking them out is what makes room for the "
                 "answer.").format(share=self.took_input, c=c)

    def band_words(self) -> str:
        head = _("Questions whose words are all among the {top:,} most frequent are answered {acc_top:.0%} "
                 "right; those with a word beyond rank {rare:,}, {acc_rare:.0%}.").format(
            top=self.top_rank, acc_top=self.acc_top, rare=self.rare_rank, acc_rare=self.acc_rare)
        if self.acc_top - self.acc_rare >= 0.05:
            return _("{head} Rare words fail more, as the article says; part of that is which relations they "
                     "belong to, since rare words are not spread evenly over the sections.").format(head=head)
        return _("{head} On this set rare words do not fail clearly more.").format(head=head)


def lesson_figures(sections, right: dict, took_input, max_rank, restrict: int) -> LessonSet:
    """Read the lesson's loop: ``sections`` (each question's section), ``right`` ("inputs excluded", "inputs
    allowed", "nearest to c" → one boolean per question), ``took_input`` (per question, whether the answer
    with the inputs allowed was a, b or c: three booleans), ``max_rank`` (the row of its rarest word)."""
    secs, rank = np.asarray(sections), np.asarray(max_rank)
    ok = {k: np.asarray(v, bool) for k, v in right.items()}
    took = np.asarray(took_input, bool)
    rows = [{"section": s, "questions": int((secs == s).sum()),
             **{k: float(v[secs == s].mean()) for k, v in ok.items()}} for s in dict.fromkeys(secs.tolist())]
    bands = [{"rarest word's rank": f"{lo + 1:,}–{min(hi, restrict):,}",
              "questions": int(((rank >= lo) & (rank < hi)).sum()),
              "accuracy": float(ok["inputs excluded"][(rank >= lo) & (rank < hi)].mean())}
             for lo, hi in RANK_BANDS if lo < restrict and ((rank >= lo) & (rank < hi)).any()]
    top = RANK_BANDS[0][1]
    rare = RARE_RANK if restrict > 2 * RARE_RANK else restrict // 2
    return LessonSet(n=len(secs), restrict=restrict, acc_excl=float(ok["inputs excluded"].mean()),
                     acc_incl=float(ok["inputs allowed"].mean()), acc_base=float(ok["nearest to c"].mean()),
                     took_input=float(took.any(axis=1).mean()), took_c=float(took[:, 2].mean()),
                     top_rank=top, acc_top=float(ok["inputs excluded"][rank < top].mean()),
                     rare_rank=rare, acc_rare=float(ok["inputs excluded"][rank >= rare].mean()),
                     sections=rows, bands=bands)


# --- figures and tables for the pages -----------------------------------------------------------------------


def section_chart(rows: list[dict], restrict: int):
    """Accuracy per section under the three conventions, one bar each (rows as :meth:`AnalogySet.section_table`
    gives them); labels in the current language."""
    from embedbook import plotting

    y = np.arange(len(rows))
    fig, ax = plotting.subplots(figsize=(7.5, 6))
    bars = {"inputs excluded": _("inputs excluded"), "inputs allowed": _("inputs allowed"),
            "nearest to c": _("nearest to c")}
    for off, (col, label) in zip((-0.27, 0, 0.27), bars.items()):
        ax.barh(y + off, [100 * r[col] for r in rows], height=0.27, label=str(label))
    ax.set_yticks(y, [str(section_name(r["section"])) for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel(str(_("questions answered right (%)")))
    ax.set_title(str(_("GloVe 50d on questions-words.txt (top {n:,} words)").format(n=restrict)))
    ax.legend(fontsize=9, loc="lower right")
    return fig


def band_chart(rows: list[dict]):
    """Accuracy (inputs excluded) by the frequency rank of each question's rarest word (rows as
    :meth:`AnalogySet.band_table` gives them); labels in the current language."""
    from embedbook import plotting

    fig, ax = plotting.subplots(figsize=(7, 3.4))
    ax.bar([r["rarest word's rank"] for r in rows], [100 * r["accuracy"] for r in rows], color=plotting.PALETTE[0])
    for x, r in enumerate(rows):
        ax.text(x, 100 * r["accuracy"], str(_("{acc:.0%}\n{n:,} q.").format(acc=r["accuracy"], n=r["questions"])),
                ha="center", va="bottom", fontsize=9)
    ax.set_ylim(0, 100)
    ax.set_xlabel(str(_("frequency rank of the rarest of the four words")))
    ax.set_ylabel(str(_("answered right (%)")))
    ax.set_title(str(_("低频词 · accuracy by the rarest word's frequency")))
    return fig


# --- tables ------------------------------------------------------------------------------------


def answers_table(r: Analogy):
    """The top answers of one analogy (:func:`run_analogy`), inputs excluded and allowed side by side, each
    as "word (cosine)", ranked from 1. A DataFrame whose index is the rank."""
    import pandas as pd

    q = f"{r.b} − {r.a} + {r.c}"
    return pd.DataFrame({_("{q} (inputs excluded)").format(q=q): [f"{w} ({s:.2f})" for w, s in r.top_excl],
                         _("inputs allowed"): [f"{w} ({s:.2f})" for w, s in r.top_incl]},
                        index=pd.RangeIndex(1, len(r.top_excl) + 1))  # no index name: no empty header row


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
    table.insert(0, _("section"), table.index)  # a column, not an index name: no empty header row
    return table.style.hide(axis="index").format({"questions": "{:,.0f}", **{c: "{:.1%}" for c in cols[1:]}})
