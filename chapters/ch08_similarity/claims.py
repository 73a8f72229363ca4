"""Chapter 08's claims (C40, C41): the article's words (register entries), each claim's
declared rule, its sources and its check.

The measurements they read are in :mod:`embedbook.chapters.ch08_similarity.measure`.
"""

from __future__ import annotations

from embedbook.book import claims
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED, SHORT, Claim
from embedbook.book.i18n import _
from embedbook.chapters.ch08_similarity.measure import (
    Norms,
    Retrieval,
    bound_text,
    device_words,
    run_retrieval,
    space_label,
)

# --- the register entries: the articles' words this chapter settles ------------------------------------

claims.declare(
    __name__,
    Claim("C40", SHORT, "距离怎么算，维度怎么选", "常用余弦相似度，看夹角不看长度。向量长度常被用来承载词频这类信息",
          "cosine similarity is the usual choice: it looks at the angle, not the length. Vector length is often used to carry information such as word frequency",
          "Cosine similarity ignores length; vector length often carries frequency information.", "similarity"),
    Claim("C41", SHORT, "距离怎么算，维度怎么选", "做检索前一般先归一化再算内积，结果等价，速度更快",
          "before retrieval one usually normalises first and then takes inner products: the result is equivalent, and faster",
          "Normalising first and then taking inner products gives the same result as cosine, and is faster for retrieval.",
          "similarity"),
)


@claims.rule(
    "C40",
    basis=claims.MEASURED,
    quantity="whether cosine changes when a vector is scaled (largest change over 1,000 random GloVe pairs scaled "
    "by 0.01, 3 and 1,000), and the Spearman correlation between vector length and log word frequency over the "
    "whole vocabulary of GloVe 6B 50d, a Word2Vec model trained here and MiniLM's input table",
    inputs={"scale_err": "largest |cos(s·a, b) − cos(a, b)|", "rho_glove": "ρ in GloVe",
            "rho_word2vec": "ρ in Word2Vec", "rho_minilm": "ρ in MiniLM's input table"},
    thresholds={"rounding": 1e-9, "rho_min": 0.3},
    outcomes={
        REFUTED: "cosine changes with length beyond rounding, or |ρ| < rho_min in every space",
        CONFIRMED: "cosine ignores length and |ρ| ≥ rho_min in every space",
        CORRECTED: "cosine ignores length and |ρ| ≥ rho_min in some spaces but not all",
    },
    examples={
        REFUTED: {"scale_err": 0.0, "rho_glove": 0.05, "rho_word2vec": 0.1, "rho_minilm": -0.2},
        CONFIRMED: {"scale_err": 1e-16, "rho_glove": 0.36, "rho_word2vec": 0.9, "rho_minilm": 0.8},
        CORRECTED: {"scale_err": 1e-16, "rho_glove": 0.1, "rho_word2vec": 0.9, "rho_minilm": 0.8},
    },
    full_size_only=True,  # GloVe's correlation sits in its rare tail, which the smoke run's 50,000 words leave out
)
def _c40(f, t):
    strong = [abs(f[k]) >= t["rho_min"] for k in ("rho_glove", "rho_word2vec", "rho_minilm")]
    if f["scale_err"] > t["rounding"] or not any(strong):
        return REFUTED
    return CONFIRMED if all(strong) else CORRECTED


@claims.check("C40")
def check_c40(r: Norms) -> claims.Verdict:
    """Settle C40 from :func:`run_norms`."""
    t = claims.rule_of("C40").thresholds
    figures = {"scale_err": r.scale_err, "rho_glove": r.rho("GloVe"), "rho_word2vec": r.rho("Word2Vec"),
               "rho_minilm": r.rho("MiniLM input")}

    def evidence(v: str) -> str:
        listing = _("; ").join(_("{name} ({n:,} words): ρ = {rho:+.2f}").format(name=space_label(s.name),
                                                                               n=len(s.lengths), rho=s.rho)
                               for s in r.spaces)
        weak = [space_label(s.name) for s in r.spaces if abs(s.rho) < t["rho_min"]]
        text = _(
            "Scaling a vector by 0.01, 3 or 1,000 changed its cosines by at most {bound}: cosine ignores length. "
            "Spearman correlation between a word's vector length and its log frequency — {listing}. "
        ).format(bound=bound_text(r.scale_err), listing=listing)
        if weak:
            text += _("Below {rho_min} in {weak}. ").format(rho_min=t["rho_min"], weak=_(", ").join(weak))
        tail_only = abs(r.rho("GloVe")) >= t["rho_min"] and abs(r.rho_glove_top) < t["rho_min"]
        if tail_only:
            text += _("In GloVe the relation sits in the rare tail: among its {top:,} most frequent words "
                      "ρ = {rho:+.2f}, and only the rarer words are markedly shorter. ").format(
                top=r.glove_top, rho=r.rho_glove_top)
        return text + {
            CONFIRMED: _("{found}; cosine divides it out, a raw dot product keeps it.").format(
                found=_("Over whole vocabularies length carries frequency in every space measured, in GloVe "
                        "through its rare tail only")
                if tail_only else _("Length carries frequency in every space measured")),
            CORRECTED: _("Length carries frequency in some spaces, not in all."),
            REFUTED: _("Length carries no frequency information worth the name here, or cosine is not length-free."),
        }[v]

    def finding(v: str) -> str:
        rhos = _(", ").join(_("{rho:+.2f} in {name}").format(rho=s.rho, name=space_label(s.name)) for s in r.spaces)
        if r.scale_err > t["rounding"]:
            return _("Scaling a vector changed its cosines by up to {bound}, beyond rounding.").format(
                bound=bound_text(r.scale_err))
        strong = [space_label(s.name) for s in r.spaces if abs(s.rho) >= t["rho_min"]]
        weak = [space_label(s.name) for s in r.spaces if abs(s.rho) < t["rho_min"]]
        found = {CONFIRMED: _("follows word frequency in every space"),
                 CORRECTED: _("follows word frequency in {strong}, not in {weak}").format(
                     strong=_(" and ").join(strong), weak=_(" and ").join(weak)),
                 REFUTED: _("barely follows word frequency in any space")}[v]
        tail = (abs(r.rho("GloVe")) >= t["rho_min"] and abs(r.rho_glove_top) < t["rho_min"])
        if tail:
            return _("Scaling a vector leaves its cosines unchanged. Its length {found} (Spearman ρ with log "
                     "frequency {rhos}); in GloVe only through its rare words.").format(found=found, rhos=rhos)
        return _("Scaling a vector leaves its cosines unchanged. Its length {found} (Spearman ρ with log "
                 "frequency {rhos}).").format(found=found, rhos=rhos)

    strength = _("whole vocabularies (the rank correlation over every word), deterministic; GloVe's frequency is its "
                 "rank in the published file, MiniLM's comes from wordfreq")
    return claims.judge("C40", figures, evidence, strength, finding=finding)


@claims.rule(
    "C41",
    basis=claims.MEASURED,
    quantity="top-k cosine retrieval over all rows of GloVe (400,000 × 50), one query per call: whether the "
    "normalised-then-dot route returns the same top-k lists as cosine computed per call (both inputs normalised on "
    "every call, as scikit-learn's cosine_similarity does) and how far their scores differ; the arithmetic operations "
    "per call of the two routes, counted; and, as a check on the count, their time ratio (the routes timed in turn "
    "on one thread, median of the rounds' ratios). The per-call cosine is the comparator because it is what "
    "'cosine' means computed as written, and what a library routine that takes two matrices does; a cosine that "
    "keeps its row lengths from an earlier pass is measured too and reported, not deciding: keeping the lengths is "
    "already half of normalising in advance",
    inputs={"max_score_diff": "largest |score difference| between the two routes",
            "same_share": "share of queries whose top-k lists are identical under both routes",
            "work_ratio": "counted operations of the per-call cosine / of the normalised route",
            "bench_ratio": "timed per-call cosine / normalised, per query (median of the rounds' ratios)"},
    thresholds={"rounding": 1e-4, "same_min": 0.9, "work_min": 1.5, "clock_min": 0.8, "clock_max": 2.0},
    outcomes={
        REFUTED: "the scores differ beyond float rounding, or fewer than same_min of the queries get the same "
        "top-k list: the routes are not equivalent",
        CONFIRMED: "equivalent, the per-call cosine does at least work_min times the operations, and the clock does "
        "not contradict the count (time ratio ≥ clock_min)",
        CORRECTED: "equivalent, but the count shows no real saving (work ratio < work_min, as when many queries "
        "share one call's row lengths) and the clock agrees (time ratio < clock_max)",
        INCONCLUSIVE: "equivalent, but the count and the clock disagree (none of the cases above)",
    },
    examples={
        REFUTED: {"max_score_diff": 0.2, "same_share": 0.35, "work_ratio": 2.06, "bench_ratio": 1.85},
        CONFIRMED: {"max_score_diff": 5e-7, "same_share": 1.0, "work_ratio": 2.06, "bench_ratio": 1.85},
        CORRECTED: {"max_score_diff": 5e-7, "same_share": 1.0, "work_ratio": 1.07, "bench_ratio": 1.05},
        INCONCLUSIVE: {"max_score_diff": 5e-7, "same_share": 1.0, "work_ratio": 2.06, "bench_ratio": 0.6},
    },
    timed=True,
)
def _c41(f, t):
    if f["max_score_diff"] > t["rounding"] or f["same_share"] < t["same_min"]:
        return REFUTED
    if f["work_ratio"] >= t["work_min"]:
        return CONFIRMED if f["bench_ratio"] >= t["clock_min"] else INCONCLUSIVE
    return CORRECTED if f["bench_ratio"] < t["clock_max"] else INCONCLUSIVE


@claims.check("C41")
def check_c41(r: Retrieval) -> claims.Verdict:
    """Settle C41 from :func:`run_retrieval`."""
    work_cached = r.work_cached / r.work_normalised

    def evidence(v: str) -> str:
        calls = _("one query at a time") if r.batch == 1 else _("{batch} queries per call").format(batch=r.batch)
        head = _(
            "Top-{k} over all {n_rows:,} rows ({dim} wide) for {n_queries} queries, {calls}: the two routes "
            "return the same top-{k} list for {same} of {n_queries} queries, and their scores differ by "
            "at most {bound}. Counted, a cosine computed per call (the {n_rows:,} row lengths recomputed on every "
            "call, as scikit-learn's cosine_similarity does) does {work_ratio:.2f}× the operations of the normalised "
            "route, and timed in turn on {device} it took {bench_ratio:.2f}× as long (median of the rounds' ratios; "
            "{ms_fly:.1f} against {ms_norm:.1f} ms per query). A second reading, not deciding: a cosine that keeps "
            "the row lengths from an earlier pass does {work_cached:.3f}× the operations and took "
            "{bench_cached:.2f}× as long. "
        ).format(k=r.k, n_rows=r.n_rows, dim=r.dim, n_queries=r.n_queries, calls=calls, same=r.same_topk,
                 bound=bound_text(r.max_score_diff), work_ratio=r.work_ratio, device=device_words(r.device),
                 bench_ratio=r.bench_ratio, ms_fly=r.bench_ms_on_the_fly, ms_norm=r.bench_ms_normalised,
                 work_cached=work_cached, bench_cached=r.bench_ratio_cached)
        return head + {
            CONFIRMED: _("Normalising first gives cosine's neighbours and is faster, because the row lengths are "
                         "computed once instead of on every call; keeping the lengths instead saves the same work, "
                         "and what is left then is one product and one division per score, a few per cent at this "
                         "width."),
            CORRECTED: _("Normalising first is equivalent, but with the row lengths shared by every query of a call "
                         "it saves little: the saving is the lengths' recomputation, and here there was little of "
                         "it."),
            REFUTED: _("The two routes do not return the same neighbours."),
            INCONCLUSIVE: _("Equivalent, but the count and the clock disagree about the saving here."),
        }[v]

    figures = {"max_score_diff": r.max_score_diff, "same_share": r.same_topk / r.n_queries,
               "work_ratio": r.work_ratio, "bench_ratio": r.bench_ratio, "work_ratio_cached": work_cached,
               "bench_ratio_cached": r.bench_ratio_cached}
    strength = _("equivalence checked on every query's list and scores; the work is counted exactly (per call the "
                 "cosine adds n·d + n + d + 2n operations to the normalised route's n·d, about 1 + 1/b + 2/d of it "
                 "for b queries per call); the clock only has to agree, with the routes timed in turn on one thread "
                 "so that load slows both, and its thresholds leave a factor of two. Rule revised after measuring, "
                 "in a later review of the book: it decides against the per-call cosine again, as the first build's "
                 "rule did, with equal neighbour lists added to the equivalence and a branch for a count that shows "
                 "no saving. The second round's rule decided against a cosine that keeps its row lengths, whose "
                 "ratio is 1 + 1/n + 2/d and reaches its 1.5 only for d ≤ 4, so it could not confirm; its reason, "
                 "that no real implementation recomputes the lengths, does not hold (scikit-learn's "
                 "cosine_similarity normalises both inputs on every call).")

    def finding(v: str) -> str:
        same = _("The two routes returned the same top-{k} list for {same} of {n_queries} queries").format(
            k=r.k, same=r.same_topk, n_queries=r.n_queries)
        if v == REFUTED:
            return _("{same}, their scores up to {bound} apart: they are not equivalent.").format(
                same=same, bound=bound_text(r.max_score_diff))
        counted = _("cosine computed per call did {work_ratio:.2f}× the arithmetic of the normalised rows and "
                    "took {bench_ratio:.2f}× as long").format(work_ratio=r.work_ratio, bench_ratio=r.bench_ratio)
        return {CONFIRMED: _("{same}; {counted}: normalising once is the same answer, faster."),
                CORRECTED: _("{same}; {counted}: the same answer, with little to save."),
                INCONCLUSIVE: _("{same}; {counted}, so the count and the clock disagree.")}[v].format(
            same=same, counted=counted)

    return claims.judge("C41", figures, evidence, strength, finding=finding)


def _load_probe() -> claims.Verdict:
    from embedbook import data

    return check_c41(run_retrieval(data.glove().vectors[:50_000], n_queries=10, k=10, reps=3))


# Smoke-size runs of the timed claims, for tests/test_load.py: a busy machine must give the same verdict.
LOAD_PROBES = {"C41": _load_probe}
