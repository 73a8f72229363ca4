"""Chapter 15's claims (C30, C48): the article's words (register entries), each claim's
declared rule, its sources and its check.

The measurements they read are in :mod:`embedbook.chapters.ch15_practice.measure`.
"""

from __future__ import annotations

import math

import numpy as np

from embedbook import stats
from embedbook.book import claims
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, LONG, REFUTED, SHORT, Claim
from embedbook.book.i18n import _
from embedbook.chapters.ch15_practice.measure import MODES, CrossLingual, FineTune, _c30_figures

# --- the register entries: the articles' words this chapter settles ------------------------------------

claims.declare(
    __name__,
    Claim("C30", LONG, "实践中的考量", "一些实践建议对Embedding层使用较小的学习率，或完全冻结Embedding层只微调上层",
          "some practitioners recommend a smaller learning rate for the embedding layer, or freezing it entirely and fine-tuning only the layers above",
          "Some practices suggest a smaller learning rate for the embedding layer when fine-tuning, or freezing it and "
          "fine-tuning only the layers above; the article adds that this matters especially when the data differ much "
          "from the pre-training data.", "lm"),
    Claim("C48", SHORT, "一张矩阵解决不了的事", "向量空间是否对齐，取决于训练语料里有没有平行数据",
          "whether vector spaces are aligned depends on whether the training corpus contains parallel data",
          "Whether vector spaces are aligned depends on parallel data in the training corpus; unaligned, a word and its translation may lie far apart.", "align"),
)


@claims.rule(
    "C30",
    basis=claims.MEASURED,
    quantity="per seed, against full fine-tuning of a model pre-trained on Wikipedia and fine-tuned on news: (1) the "
    "target reading, the news validation loss with the input embedding at a tenth of the learning rate or frozen; "
    "(2) the retention reading, how much less the Wikipedia validation loss rose during fine-tuning (forgetting). "
    "The article does not say which the practice is for; each reading gives 'helps' (one of the two practices better "
    "by at least `min_effect` on every seed), 'does not help', or nothing outside the seed spread",
    inputs={
        "n_seeds": "seeds (each repeats pre-training and fine-tuning)",
        "all_plateau": "1 if every pre-training and fine-tuning run stopped on a plateau",
        "margin": "smallest margin below the unigram model: pre-trained models on the source, fine-tuned on the target",
        "full_forget_lo": "smallest per-seed rise of the source loss during full fine-tuning",
        "small_lr_gain_lo": "smallest per-seed target gain of the slowed embedding (full − slowed)",
        "small_lr_gain_hi": "largest per-seed target gain of the slowed embedding",
        "frozen_gain_lo": "smallest per-seed target gain of the frozen embedding",
        "frozen_gain_hi": "largest per-seed target gain of the frozen embedding",
        "small_lr_keep_lo": "smallest per-seed source-loss advantage of the slowed embedding after fine-tuning "
        "(full − slowed: positive means less forgetting)",
        "small_lr_keep_hi": "largest per-seed source-loss advantage of the slowed embedding",
        "frozen_keep_lo": "the same for the frozen embedding: smallest",
        "frozen_keep_hi": "the same for the frozen embedding: largest",
    },
    thresholds={"min_seeds": 3, "min_margin": 0.3, "min_forgetting": 0.02, "min_effect": 0.01},
    seeds=3,
    outcomes={
        INCONCLUSIVE: "the evidence is not strong (fewer than `min_seeds` seeds, a run off its plateau, a model less "
        "than `min_margin` nats below its unigram model); or the two readings point opposite ways; or neither reading "
        "gives a result outside the seed spread",
        CONFIRMED: "target reading: the slowed or the frozen embedding fits the news better than full fine-tuning by "
        "at least `min_effect` on every seed; or retention reading: full fine-tuning raises the source loss by at "
        "least `min_forgetting` on every seed and one of them keeps at least `min_effect` more of it on every seed; "
        "and the other reading does not say the opposite",
        REFUTED: "target reading: full fine-tuning fits the news better than both by at least `min_effect` on every "
        "seed; or retention reading (when full fine-tuning raises the source loss by `min_forgetting` on every seed): "
        "neither keeps `min_effect` more of the source on any seed; and the other reading does not say the opposite",
    },
    examples={
        INCONCLUSIVE: {"n_seeds": 3, "all_plateau": 1, "margin": 0.5, "full_forget_lo": 0.08,
                       "small_lr_gain_lo": -0.017, "small_lr_gain_hi": -0.013, "frozen_gain_lo": -0.04,
                       "frozen_gain_hi": -0.03, "small_lr_keep_lo": 0.01, "small_lr_keep_hi": 0.03,
                       "frozen_keep_lo": 0.05, "frozen_keep_hi": 0.08},
        CONFIRMED: {"n_seeds": 3, "all_plateau": 1, "margin": 0.5, "full_forget_lo": 0.08, "small_lr_gain_lo": -0.004,
                    "small_lr_gain_hi": 0.006, "frozen_gain_lo": -0.02, "frozen_gain_hi": 0.01,
                    "small_lr_keep_lo": 0.01, "small_lr_keep_hi": 0.03, "frozen_keep_lo": 0.05, "frozen_keep_hi": 0.07},
        REFUTED: {"n_seeds": 3, "all_plateau": 1, "margin": 0.61, "full_forget_lo": -0.07,
                  "small_lr_gain_lo": -0.024, "small_lr_gain_hi": -0.018, "frozen_gain_lo": -0.034,
                  "frozen_gain_hi": -0.029, "small_lr_keep_lo": -0.019, "small_lr_keep_hi": 0.021,
                  "frozen_keep_lo": -0.013, "frozen_keep_hi": 0.021},
    },
    full_size_only=True,
)
def _c30(f, t):
    if not (f["n_seeds"] >= t["min_seeds"] and f["all_plateau"] == 1 and f["margin"] >= t["min_margin"]):
        return INCONCLUSIVE
    signs = {_c30_target(f, t), _c30_retention(f, t)} - {0}
    if signs == {1}:
        return CONFIRMED
    if signs == {-1}:
        return REFUTED
    return INCONCLUSIVE  # the readings disagree, or neither stands out from the seed spread


def _c30_target(f, t) -> int:
    """+1 if slowing or freezing fits the target better on every seed, -1 if full fine-tuning beats both, else 0."""
    if max(f["small_lr_gain_lo"], f["frozen_gain_lo"]) >= t["min_effect"]:
        return 1
    return -1 if max(f["small_lr_gain_hi"], f["frozen_gain_hi"]) <= -t["min_effect"] else 0


def _c30_retention(f, t) -> int:
    """+1 if one keeps more of the source on every seed, -1 if neither does on any seed, 0 if untestable (full
    fine-tuning does not damage the source) or inside the spread."""
    if f["full_forget_lo"] < t["min_forgetting"]:
        return 0
    if max(f["small_lr_keep_lo"], f["frozen_keep_lo"]) >= t["min_effect"]:
        return 1
    return -1 if max(f["small_lr_keep_hi"], f["frozen_keep_hi"]) < t["min_effect"] else 0


@claims.check("C30")
def check_c30(r: FineTune) -> claims.Verdict:
    """Settle C30 from :func:`run_finetune`."""
    f = _c30_figures(r)
    t = claims.rule_of("C30").thresholds
    ppl = {m: math.exp(np.mean([t.target_loss for t in r.arm(m)])) for m in MODES}
    forget = {m: float(np.mean(r.forgetting(m))) for m in MODES}
    strong = f["n_seeds"] >= t["min_seeds"] and f["all_plateau"] and f["margin"] >= t["min_margin"]
    premise = f["full_forget_lo"] >= t["min_forgetting"]

    def evidence(v: str) -> str:
        head = _(
            "Fine-tuned on {target_tokens:,} news tokens, the models reach a target perplexity of "
            "{ppl_full:.1f} with the embedding trained fully, {ppl_small:.1f} at {mult:g}× its "
            "learning rate and {ppl_frozen:.1f} frozen (mean of {n_seeds} seeds; per-seed gain over full "
            "fine-tuning {small_lo:+.3f} to {small_hi:+.3f} and {frozen_lo:+.3f} "
            "to {frozen_hi:+.3f} nats). On the source domain the loss changed by {forget_full:+.3f}, "
            "{forget_small:+.3f} and {forget_frozen:+.3f} nats during fine-tuning (a rise is forgetting; a "
            "fall means the news helped on Wikipedia too). "
        ).format(target_tokens=r.target_tokens, ppl_full=ppl["full"], ppl_small=ppl["small_lr"], mult=r.small_mult,
                 ppl_frozen=ppl["frozen"], n_seeds=r.n_seeds, small_lo=f["small_lr_gain_lo"],
                 small_hi=f["small_lr_gain_hi"], frozen_lo=f["frozen_gain_lo"], frozen_hi=f["frozen_gain_hi"],
                 forget_full=forget["full"], forget_small=forget["small_lr"], forget_frozen=forget["frozen"])
        fit = {1: _("slowing or freezing the embedding fitted the news better on every seed"),
               -1: _("full fine-tuning fitted the news better than both on every seed"),
               0: _("the difference in fit to the news stays inside the seed spread")}[_c30_target(f, t)]
        kept = ({1: _("slowing or freezing the embedding kept more of Wikipedia on every seed"),
                 -1: _("neither kept measurably more of Wikipedia on any seed"),
                 0: _("what they kept of Wikipedia differs inside the seed spread")}[_c30_retention(f, t)] if premise
                else _("full fine-tuning raised the Wikipedia loss by less than {min_forgetting:g} nats on some seed "
                       "(per seed {lo:+.3f} to {hi:+.3f}), so there was nothing to keep "
                       "and this reading cannot be tested").format(
                    min_forgetting=t["min_forgetting"], lo=f["full_forget_lo"], hi=f["full_forget_hi"]))
        readings = _("Read as a better fit to the new data, {fit}; read as keeping what pre-training learned, "
                     "{kept}. ").format(fit=fit, kept=kept)
        untested = _("The article's 'especially when the data differ much from pre-training' was not varied: one "
                     "source and one target domain.")
        tail = {
            CONFIRMED: readings + _("The practice buys something here, and the other reading does not say the "
                                    "opposite. ") + untested,
            REFUTED: readings + _("Neither practice bought anything measurable here. ") + untested,
            INCONCLUSIVE: (_("These runs are too weak to judge (see the strength). ") if not strong else readings + (
                _("The two readings point opposite ways, and the article does not say which one its advice is for "
                  "(ULMFiT lowers the lower layers' rates to avoid forgetting: Howard & Ruder 2018), so the rule "
                  "declares neither. ") if {_c30_target(f, t), _c30_retention(f, t)} == {1, -1} else
                _("Nothing stands out from the seed spread. "))) + untested,
        }[v]
        return head + tail

    plateaus = sum(p.plateau for p in r.pre) + sum(t.plateau for t in r.tuned)
    strength = _(
        "{n_seeds} seeds, each repeating pre-training and fine-tuning; {plateaus} of {n_runs} "
        "runs stopped on a plateau (best weights kept); every model at least {margin:.2f} nats below its unigram "
        "model (declared margin 0.3); whole validation parts scored ({n_source_val:,} source and "
        "{n_target_val:,} target tokens); pre-training on {source_tokens:,} tokens, "
        "{ratio:.0f}× the fine-tuning data, into a {n_layers}-layer model of width "
        "{d_model}, where the input table is a large share of the trainable parameters (so freezing it keeps much "
        "of the model as it was). Pre-training was raised from 32,000 to 256,000 tokens in the previous round, so "
        "that fine-tuning has pre-trained knowledge to damage (at 32,000 the source loss fell in every arm)."
    ).format(n_seeds=r.n_seeds, plateaus=plateaus, n_runs=len(r.pre) + len(r.tuned), margin=f["margin"],
             n_source_val=r.n_source_val, n_target_val=r.n_target_val, source_tokens=r.source_tokens,
             ratio=r.source_tokens / r.target_tokens, n_layers=r.n_layers, d_model=r.d_model)

    def finding(v: str) -> str:
        target, kept = _c30_target(f, t), _c30_retention(f, t)
        seeds = (_("{n} seeds") if r.n_seeds != 1 else _("{n} seed")).format(n=r.n_seeds)
        if not strong:
            weak = (_("These runs are too weak to judge: {seeds} (the rule asks for {min_seeds}), {plateaus} of "
                      "{n_runs} runs stopped on a plateau, and the weakest model sits {margin:.2f} nats below its "
                      "unigram model's loss.") if f["margin"] >= 0 else
                    _("These runs are too weak to judge: {seeds} (the rule asks for {min_seeds}), {plateaus} of "
                      "{n_runs} runs stopped on a plateau, and the weakest model sits {margin:.2f} nats above its "
                      "unigram model's loss."))
            return weak.format(seeds=seeds, min_seeds=t["min_seeds"], plateaus=plateaus,
                               n_runs=len(r.pre) + len(r.tuned), margin=abs(f["margin"]))
        names = {"small_lr": _("a slowed table"), "frozen": _("a frozen table")}
        fit_arm = max(("small_lr", "frozen"), key=lambda m: f[f"{m}_gain_lo"])
        keep_arm = max(("small_lr", "frozen"), key=lambda m: f[f"{m}_keep_lo"])
        fit = {1: _("{table} fitted the news better on every seed ({gain:.3f} nats on average)").format(
                  table=names[fit_arm], gain=f[fit_arm + "_gain"]),
               -1: _("full fine-tuning fitted the news best on every seed (by at least {gain:.3f} nats on "
                     "average)").format(gain=min(-f["small_lr_gain"], -f["frozen_gain"])),
               0: _("the fit to the news differed inside the seed spread")}[target]
        keep = ({1: _("{table} kept more of Wikipedia on every seed ({keep:.3f} nats on average)").format(
                     table=names[keep_arm], keep=f[keep_arm + "_keep"]),
                 -1: _("neither kept measurably more of Wikipedia on any seed"),
                 0: _("what they kept of Wikipedia differed inside the seed spread")}[kept] if premise else
                _("full fine-tuning did not clearly raise the Wikipedia loss, so there was nothing to keep"))
        close = {CONFIRMED: _("the practice buys something here."),
                 REFUTED: _("neither practice bought anything here."),
                 INCONCLUSIVE: _("the two readings point opposite ways.") if {target, kept} == {1, -1}
                 else _("nothing stands out from the seed spread.")}[v]
        return _("Over {seeds}, {fit}; {keep}: {close}").format(seeds=seeds, fit=fit, keep=keep, close=close)

    return claims.judge("C30", f, evidence, strength, finding=finding)


# The article speaks of one (multilingual) model's space; the miniature below aligns two separately trained
# models after the fact, a different setting. The joint-model half is decided from these studies.
C48_SOURCES = (
    claims.Source("pires2019multilingual",
                  "Pires et al. (2019): multilingual BERT, trained on monolingual Wikipedias in 104 languages with no "
                  "parallel data, transfers zero-shot across languages, even across scripts, and finds translation "
                  "pairs; transfer is weaker between typologically distant languages",
                  "abstract; the zero-shot transfer and translation-retrieval experiments",
                  supports=("aligned_without_parallel",)),
    claims.Source("wu2019beto",
                  "Wu & Dredze (2019): the same model is competitive with cross-lingual embeddings on zero-shot "
                  "transfer in 5 tasks and 39 languages", "abstract; results per task",
                  supports=("aligned_without_parallel",)),
    claims.Source("conneau2020emerging",
                  "Conneau et al. (2020): jointly trained masked language models transfer even with no shared "
                  "vocabulary and text from different domains, as long as the top layers share parameters; separately "
                  "trained monolingual BERTs can be aligned post hoc", "abstract; the ablations of shared vocabulary "
                  "and parameters", supports=("aligned_without_parallel",)),
    claims.Source("conneau2019xlm",
                  "Conneau & Lample (2019): adding translation language modelling, a masked-LM objective on parallel "
                  "sentence pairs, to multilingual masked language modelling improves zero-shot cross-lingual "
                  "transfer (XNLI)", "abstract; the XNLI results, MLM against MLM + TLM",
                  supports=("parallel_improves",)),
    claims.Source("cao2020multilingual",
                  "Cao et al. (2020): multilingual BERT is somewhat aligned out of the box, and aligning it on parallel "
                  "sentences makes translations' contextual vectors much closer and improves zero-shot transfer",
                  "abstract; Figure 1 (English–German before and after alignment)",
                  supports=("aligned_without_parallel", "parallel_improves")),
    claims.Source("wu2020explicit",
                  "Wu & Dredze (2020): explicit alignment objectives on bitext do not robustly improve multilingual "
                  "encoders once runs are repeated over seeds on four tasks; a better base model gains more",
                  "abstract; results with means and standard deviations over seeds",
                  contradicts=("parallel_improves",)),
)
C48_COUNTED = {"lit_joint": "aligned_without_parallel", "lit_parallel": "parallel_improves"}
C48_LITERATURE = claims.Literature(
    sources=C48_SOURCES,
    search=claims.Search(
        queries=("multilingual BERT cross-lingual alignment without parallel data weaker for distant languages "
                 "improved by parallel corpus alignment",),
        corpora=("pages",), date="2026-12-01"),
    strongest_against=(
        "For the article, on the half the correction keeps: Wu & Dredze (2020) find that adding parallel-data "
        "alignment objectives does not robustly improve multilingual encoders, so even 'parallel data improves the "
        "alignment' is contested downstream. Against the correction: the alignment that arises without parallel "
        "data is partial, weaker between distant languages (Pires et al. 2019), and parallel data does tighten it "
        "(Cao et al. 2020)."),
)
_C48_NONE = claims.Source("conneau2020emerging", "hypothetical: jointly trained models without parallel data do not "
                          "transfer across languages", "hypothetical table", contradicts=("aligned_without_parallel",))


@claims.rule(
    "C48",
    quantity="the cited studies of jointly trained multilingual models (aligned without parallel data? improved by "
    "it?), and, measured here for a different setting (post-hoc alignment of two separately trained models): "
    "precision@5 of translating held-out Chinese dictionary words into English among the most frequent GloVe words, "
    "after an orthogonal map fitted on the other dictionary pairs only (no parallel corpus), in each of k folds, "
    "against a map fitted on shuffled pairs; before the map, separate spaces are unaligned by construction, so "
    "that figure is shown, not decided on",
    inputs={
        "lit_joint": "cited studies finding a jointly trained multilingual model aligned without parallel data",
        "lit_parallel": "cited studies finding that parallel data improves that alignment",
        "k": "folds",
        "p5_after_lo": "smallest precision@5 after the map, over folds",
        "p5_after_hi": "largest precision@5 after the map, over folds",
        "gain_lo": "smallest per-fold precision@5 gain of the map over the shuffled-pairs control",
    },
    thresholds={"fails_max": 0.02, "works_min": 0.10, "min_folds": 3},
    basis=claims.LITERATURE,
    outcomes={
        CONFIRMED: "no cited study finds alignment without parallel data, and the dictionary map fails too (below "
        "fails_max in every fold): alignment comes only with parallel data",
        CORRECTED: "a cited study finds that parallel data improves alignment, but alignment also arises without it: "
        "a cited study finds jointly trained models aligned without parallel data, or the dictionary map aligns the "
        "separate models here (at least works_min in every one of at least min_folds folds, above the control)",
        REFUTED: "no cited study finds that parallel data improves alignment, and alignment arises without it (as "
        "above)",
        INCONCLUSIVE: "anything else",
    },
    examples={
        CONFIRMED: claims.source_set(_C48_NONE, C48_SOURCES[3], k=3, p5_after_lo=0.0, p5_after_hi=0.01, gain_lo=0.0),
        CORRECTED: claims.source_set(*C48_SOURCES, k=3, p5_after_lo=0.18, p5_after_hi=0.23, gain_lo=0.18),
        REFUTED: claims.source_set(*C48_SOURCES[:3], C48_SOURCES[5], k=3, p5_after_lo=0.18, p5_after_hi=0.23,
                                   gain_lo=0.18),
        INCONCLUSIVE: claims.source_set(C48_SOURCES[3], k=3, p5_after_lo=0.04, p5_after_hi=0.12, gain_lo=0.03),
    },
    literature=C48_LITERATURE,
    counted=C48_COUNTED,
)
def _c48(f, t):
    map_works = f["k"] >= t["min_folds"] and f["p5_after_lo"] >= t["works_min"] and f["gain_lo"] > 0
    without = f["lit_joint"] >= 1 or map_works
    if without:
        return CORRECTED if f["lit_parallel"] >= 1 else REFUTED
    if f["p5_after_hi"] < t["fails_max"]:
        return CONFIRMED
    return INCONCLUSIVE


@claims.check("C48")
def check_c48(r: CrossLingual) -> claims.Verdict:
    """Settle C48 from the cited studies (:data:`C48_LITERATURE`) and :func:`run_alignment`."""
    t = claims.rule_of("C48").thresholds
    after = [a.p5_after for a in r.folds]
    gains = stats.seed_effect(after, [a.p5_shuffled for a in r.folds])
    lit = claims.rule_of("C48").literature
    f = {"lit_parallel_against": lit.count("parallel_improves", claims.CONTRADICTS), "k": r.k, "p5_before": r.p5_before, "p5_after_lo": min(after), "p5_after_hi": max(after), "gain_lo": gains.lo,
         "p1_after": r.p1_after, "p5_after": r.p5_after, "cos_before": r.cos_before, "cos_after": r.cos_after}
    map_works = r.k >= t["min_folds"] and min(after) >= t["works_min"] and gains.lo > 0

    def measured() -> str:
        head = _(
            "Measured here, in a different setting (two separately trained models, so the spaces are unaligned by "
            "construction): Chinese skip-gram vectors from People's Daily ({zh_tokens:,} tokens) and English GloVe "
            "retrieve a held-out translation among the 5 nearest of {n_candidates:,} English words for "
            "{p5_before:.1%} of pairs (mean cosine of translation pairs {cos_before:+.3f}); a rotation fitted on about "
            "{fit_pairs} dictionary pairs, no parallel text, gives {lo:.1%}–{hi:.1%} over {k} "
            "folds (precision@1 {p1_after:.1%}), against {p5_shuffled:.1%} fitted on shuffled pairs: "
        ).format(zh_tokens=r.zh_tokens, n_candidates=r.n_candidates, p5_before=r.p5_before, cos_before=r.cos_before,
                 fit_pairs=r.fit_pairs(), lo=min(after), hi=max(after), k=r.k, p1_after=r.p1_after,
                 p5_shuffled=r.p5_shuffled)
        tail = (_("post-hoc alignment works without a parallel corpus (Mikolov et al. 2013; Smith et al. 2017).")
                if map_works else
                _("that does not reach {works_min:.0%} in every fold above the control, so post-hoc alignment is not "
                  "shown to work here.").format(works_min=t["works_min"]))
        return head + tail

    def evidence(v: str) -> str:
        helps = (_("The article is right that parallel data helps: translation language modelling on parallel "
                   "sentences improves cross-lingual transfer (Conneau & Lample 2019; Cao et al. 2020), though not "
                   "robustly once runs are repeated over seeds (Wu & Dredze 2020).")
                 if f["lit_parallel_against"] else
                 _("The article is right that parallel data helps: translation language modelling on parallel "
                   "sentences improves cross-lingual transfer (Conneau & Lample 2019; Cao et al. 2020)."))
        lit = {
            CORRECTED: helps + _(" But alignment does not depend on it: "
                                 "multilingual BERT, trained with no parallel data, transfers across languages and "
                                 "scripts and finds translation pairs (Pires et al. 2019; Wu & Dredze 2019), and "
                                 "jointly trained models align without even a shared vocabulary, given shared upper "
                                 "layers (Conneau et al. 2020). The alignment is partial: transfer is weaker between "
                                 "distant languages (Pires et al. 2019). "),
            REFUTED: _("No cited study finds that parallel data improves alignment, and alignment arises without it. "),
            CONFIRMED: _("No cited study finds alignment without parallel data, and a dictionary does not bring the "
                         "spaces together. "),
            INCONCLUSIVE: _("Neither the cited studies nor the measurement settle whether alignment needs parallel "
                            "data. "),
        }[v]
        return lit + measured()

    strength = _(
        "Basis: literature for the article's setting, one multilingual model's space (the cited studies of jointly "
        "trained models with and without parallel data); the miniature measures only "
        "post-hoc alignment of separately trained models: {k}-fold cross-validation over {n_usable} usable "
        "dictionary pairs (each held out once), {n_candidates:,} candidates (chance precision@5 "
        "{chance:.3%}), a shuffled-pairs control, one Chinese model (deterministic: one worker, seed 0). "
        "Rule revised after an external audit of the first build (was: decided on the two separate models alone, "
        "where 'unaligned before the map' holds by construction and the refutation could not occur). Since a later "
        "review, the literature counts come from the source list (they were typed), with Cao et al. (2020) and Wu & "
        "Dredze (2020) added; the rule is unchanged."
    ).format(k=r.k, n_usable=r.n_usable, n_candidates=r.n_candidates, chance=5 / r.n_candidates)

    def finding(v: str) -> str:
        lead = {CORRECTED: _("Parallel data helps but is not needed: the cited studies find multilingual models "
                             "aligned without it."),
                REFUTED: _("The cited studies find alignment without parallel data, and none finds that it helps."),
                CONFIRMED: _("No cited study finds alignment without parallel data."),
                INCONCLUSIVE: _("Neither the cited studies nor the measurement settle it.")}[v]
        return _("{lead} Here a rotation fitted on about {fit_pairs} dictionary pairs, no parallel text, puts "
                 "{p5_after:.1%} of held-out translations among the 5 nearest English words (shuffled pairs: "
                 "{p5_shuffled:.1%}).").format(lead=lead, fit_pairs=r.fit_pairs(), p5_after=r.p5_after,
                                               p5_shuffled=r.p5_shuffled)

    return claims.judge("C48", f, evidence, strength, finding=finding)
