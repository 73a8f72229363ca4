"""Chapter 06's claims (C21, C22, C23): the article's words (register entries), each claim's
declared rule, its sources and its check.

The measurements they read are in :mod:`embedbook.chapters.ch06_init.measure`.
"""

from __future__ import annotations

from embedbook import init, stats
from embedbook.book import claims, i18n
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, LONG, REFUTED, Claim
from embedbook.book.i18n import _
from embedbook.chapters.ch06_init.measure import LITERAL, MARGIN, READING, WARMUP_INITS, Pretrained, Step0, WarmupSweep

# --- the register entries: the articles' words this chapter settles ------------------------------------

claims.declare(
    __name__,
    Claim("C21", LONG, "初始化策略", "这是Xavier初始化的变体，确保前向传播时激活值的方差保持在合理范围",
          "this is a variant of Xavier initialisation, which keeps the variance of activations in the forward pass within a reasonable range",
          "$E_{ij} \\sim \\mathcal{N}(0, 1/\\sqrt{d})$, 'a variant of Xavier', keeps forward activations in a sane range.", "init"),
    Claim("C22", LONG, "初始化策略", "一些工作建议使用预训练的静态词向量（如Word2Vec或GloVe）初始化Embedding层，这能加速收敛，特别是在小数据场景",
          "some work suggests initialising the embedding layer with pretrained static word vectors (such as Word2Vec or GloVe); this speeds up convergence, especially with little data",
          "Some work suggests initialising from pretrained Word2Vec/GloVe vectors; this speeds up convergence, especially on small data.", "init"),
    Claim("C23", LONG, "初始化策略", "PyTorch的nn.Embedding默认使用标准正态分布 $\\mathcal{N}(0, 1)$ 初始化，而非Xavier初始化。这意味着在实际训练中，学习率warmup对Embedding层的稳定训练尤为重要",
          "PyTorch's nn.Embedding initialises from the standard normal distribution $\\mathcal{N}(0, 1)$ by default, not with Xavier initialisation. This means that in practice a learning-rate warm-up matters especially for training the embedding layer stably",
          "PyTorch's nn.Embedding initialises with $\\mathcal{N}(0, 1)$, not Xavier, so warm-up matters especially for training the embedding layer stably.", "init"),
)


def _semicolons(parts) -> str:
    """``"; ".join(parts)``, with the full-width semicolon in Chinese."""
    return ("；" if i18n.current() == "zh" else "; ").join(str(p) for p in parts)


def _joined(parts, en: str = "; ", zh: str = "；") -> i18n.Msg:
    """Messages (and language-neutral strings) joined into one message, both languages kept."""
    side = lambda p, lang: getattr(p, lang) if isinstance(p, i18n.Msg) else p
    return i18n.Msg(en.join(side(p, "en") for p in parts), zh.join(side(p, "zh") for p in parts))


def _commas(parts) -> str:
    """``", ".join(parts)``, with the full-width comma in Chinese."""
    return ("，" if i18n.current() == "zh" else ", ").join(str(p) for p in parts)


def _spaced(parts) -> str:
    """Sentences joined by a space in English, with nothing between them in Chinese."""
    return ("" if i18n.current() == "zh" else " ").join(str(p) for p in parts)


@claims.rule(
    "C21",
    basis=claims.ARITHMETIC,
    quantity="at step 0 of a small LM whose output head is tied to the token table (so the table's scale reaches the "
    "logits), the standard deviation of the logits at every width measured; for the article's N(0, 1/√d) read as "
    "(mean, variance), i.e. std $d^{-1/4}$, and read as (mean, std), i.e. std 1/√d",
    inputs={
        "literal_logit_std": "largest logit std over the widths, variance 1/√d",
        "reading_logit_std": "largest logit std over the widths, std 1/√d",
    },
    thresholds={"logit_std_max": 2.0},
    outcomes={
        CONFIRMED: "the formula as written (variance 1/√d) keeps the logit std at most logit_std_max at every width",
        CORRECTED: "it does not, but read with 1/√d as the standard deviation (variance 1/d) it does",
        REFUTED: "neither reading does",
    },
    examples={
        CONFIRMED: {"literal_logit_std": 1.2, "reading_logit_std": 1.0},
        CORRECTED: {"literal_logit_std": 4.4, "reading_logit_std": 1.0},
        REFUTED: {"literal_logit_std": 4.4, "reading_logit_std": 3.0},
    },
)
def _c21(f, t):
    if f["literal_logit_std"] <= t["logit_std_max"]:
        return CONFIRMED
    return CORRECTED if f["reading_logit_std"] <= t["logit_std_max"] else REFUTED


@claims.check("C21")
def check_c21(r: Step0) -> claims.Verdict:
    """Settle C21 from :func:`run_step0`."""
    lit, rea = r.stats[LITERAL], r.stats[READING]
    figures = {
        "literal_logit_std": max(lit[d]["logit_std"] for d in r.dims),
        "reading_logit_std": max(rea[d]["logit_std"] for d in r.dims),
        "literal_excess": max(lit[d]["loss0"] for d in r.dims) - r.ln_v,
        "reading_excess": max(rea[d]["loss0"] for d in r.dims) - r.ln_v,
    }
    d0, d1 = min(r.dims), max(r.dims)
    xav = init.std_of("xavier_normal", r.vocab, d0)
    limit = claims.rule_of("C21").thresholds["logit_std_max"]
    over = [d for d in r.dims if lit[d]["logit_std"] > limit]

    def at(stats: dict, key: str, fmt: str) -> str:
        return i18n.chain([str(_("{value} at d = {d}").format(value=format(stats[d][key], fmt), d=d)) for d in r.dims],
                      _("{first} and {last}"))

    def evidence(v: str) -> str:
        head = _(
            "Tied head, V = {vocab:,}, ln V = {ln_v:.2f}. Variance 1/√d (std $d^{{-1/4}}$, {std0:.3f} at d = {d0}): "
            "logit std {literal}; initial loss up to {literal_excess:.1f} nats above ln V. "
            "Std 1/√d (variance 1/d): logit std {reading}; initial loss up to "
            "{reading_excess:.2f} nats above ln V. "
        ).format(vocab=r.vocab, ln_v=r.ln_v, std0=d0 ** -0.25, d0=d0, literal=at(lit, "logit_std", ".2f"),
                 literal_excess=figures["literal_excess"], reading=at(rea, "logit_std", ".2f"),
                 reading_excess=figures["reading_excess"])
        tail = _(
            "A tied logit is the dot product of a unit-scale hidden state with a row, so its spread is σ√d: only "
            "σ = 1/√d keeps it near 1 at every width. That is Glorot's forward condition (variance 1/fan-in) with the "
            "fan-in d of the output side; Glorot's compromise for the whole {vocab:,}×{d0} table, √(2/(V+d)), would "
            "give σ = {xavier:.3f}, so the formula is a fan-in rule rather than Xavier's."
        ).format(vocab=r.vocab, d0=d0, xavier=xav)
        untied = [by_d[d]["loss0_untied"] for by_d in r.stats.values() for d in r.dims]
        cond = _("The measurement is conditional on the tie: with an untied head (initialised at std 0.02) every scheme "
                 "starts at {lo:.2f}–{hi:.2f} nats, about ln V, because the LayerNorms rescale whatever the table feeds "
                 "in; only a tied head carries the table's scale to the logits. ").format(lo=min(untied), hi=max(untied))
        tail = cond + tail
        return head + {
            CONFIRMED: _("The formula as written keeps the logits in range. ") + tail,
            CORRECTED: (_("Read as written the formula lets the logit spread grow like $d^{{1/4}}$, past {limit:g} at "
                          "d = {over}; read with 1/√d as the standard deviation it keeps the logits below {limit:g} at "
                          "every width. ").format(limit=limit, over=", ".join(str(d) for d in over)) + tail),
            REFUTED: _("Neither reading keeps the logits in range. ") + tail,
        }[v]

    def finding(v: str) -> str:
        lit, rea = figures["literal_logit_std"], figures["reading_logit_std"]
        return {
            CONFIRMED: _("Read as written, with variance $1/\\sqrt d$, the formula keeps a tied model's logit spread at "
                         "{literal:.2f} or less at every width measured, within the limit of {limit:g}."),
            CORRECTED: _("Read as written, with variance $1/\\sqrt d$, the formula spreads a tied model's logits up to "
                         "{literal:.1f}, past the limit of {limit:g}; with $1/\\sqrt d$ as the standard deviation they "
                         "stay at {reading:.2f} or less at every width. That is a fan-in rule, not Xavier's."),
            REFUTED: _("Neither reading keeps a tied model's logits in range: their spread reaches {literal:.1f} with "
                       "variance $1/\\sqrt d$ and {reading:.1f} with standard deviation $1/\\sqrt d$, past the limit "
                       "of {limit:g}."),
        }[v].format(literal=lit, reading=rea, limit=limit)

    strength = (_("forward passes over {tokens:,} validation tokens, mean over {n} seeds; no training involved, so the "
                  "outcome is arithmetic, not a trend; it holds for a tied head only (untied, every scheme starts near "
                  "ln V)") if r.n_seeds != 1 else
                _("forward passes over {tokens:,} validation tokens, mean over {n} seed; no training involved, so the "
                  "outcome is arithmetic, not a trend; it holds for a tied head only (untied, every scheme starts near "
                  "ln V)")).format(tokens=r.val_tokens, n=r.n_seeds)
    return claims.judge("C21", figures, evidence, finding=finding, strength=strength)


@claims.rule(
    "C22",
    basis=claims.MEASURED,
    quantity="for an untied small LM whose token table starts from GloVe against the same model started from a random "
    "table of GloVe's scale, per seed, on a small slice of the training text and on all of it, every run trained to "
    "its plateau: (1) the speed-up, the random start's steps to its best validation loss over the steps GloVe's start "
    "needs to reach that loss; (2) the gain, the random start's best validation loss minus GloVe's (nats). 'Especially "
    "with little data' is read on both: the per-seed difference, little data minus more data, of each",
    inputs={
        "small_speedup_min": "smallest speed-up over the seeds, little data",
        "small_speedup_max": "largest, little data",
        "large_speedup_min": "smallest speed-up over the seeds, more data",
        "large_speedup_max": "largest, more data",
        "speedup_diff_lo": "smallest per-seed (speed-up with little data − with more data)",
        "speedup_diff_hi": "largest per-seed (speed-up with little data − with more data)",
        "gain_diff_lo": "smallest per-seed (gain with little data − with more data), nats",
        "gain_diff_hi": "largest per-seed (gain with little data − with more data), nats",
        "n_seeds": "seeds per arm",
        "plateau_all": "1 if every run stopped at its validation plateau, else 0",
        "margin_min": "smallest margin (nats) of a random-start run's best validation loss below the unigram baseline",
    },
    thresholds={"clear": 1.25, "margin": MARGIN, "min_seeds": 3},
    seeds=3,
    outcomes={
        REFUTED: "the evidence is strong (at least `min_seeds` seeds, every run on its plateau, every random-start "
        "model `margin` nats below the unigram baseline) and GloVe's start is slower (speed-up below 1) on every seed "
        "in both regimes",
        CONFIRMED: "strong evidence; GloVe's start is at least `clear` times faster on every seed in some regime; and "
        "both the speed-up and the gain are larger with little data than with more on every seed",
        CORRECTED: "strong evidence; GloVe's start is at least `clear` times faster on every seed in some regime; and "
        "both the speed-up and the gain are smaller with little data than with more on every seed",
        INCONCLUSIVE: "otherwise: weak evidence, speed-ups that neither clear `clear` nor fall below 1 on every seed, "
        "or the two measures of 'especially with little data' disagree or stay inside the seed spread",
    },
    examples={
        INCONCLUSIVE: {"small_speedup_min": 1.47, "small_speedup_max": 1.6, "large_speedup_min": 1.81,
                       "large_speedup_max": 2.04, "speedup_diff_lo": -0.57, "speedup_diff_hi": -0.34,
                       "gain_diff_lo": -0.004, "gain_diff_hi": 0.03, "n_seeds": 3, "plateau_all": 1,
                       "margin_min": 0.39},
        CONFIRMED: {"small_speedup_min": 2.0, "small_speedup_max": 2.5, "large_speedup_min": 1.3,
                    "large_speedup_max": 1.5, "speedup_diff_lo": 0.4, "speedup_diff_hi": 1.1, "gain_diff_lo": 0.05,
                    "gain_diff_hi": 0.09, "n_seeds": 3, "plateau_all": 1, "margin_min": 0.4},
        CORRECTED: {"small_speedup_min": 1.4, "small_speedup_max": 1.6, "large_speedup_min": 1.8,
                    "large_speedup_max": 2.1, "speedup_diff_lo": -0.6, "speedup_diff_hi": -0.3, "gain_diff_lo": -0.06,
                    "gain_diff_hi": -0.02, "n_seeds": 3, "plateau_all": 1, "margin_min": 0.4},
        REFUTED: {"small_speedup_min": 0.5, "small_speedup_max": 0.8, "large_speedup_min": 0.6,
                  "large_speedup_max": 0.9, "speedup_diff_lo": -0.2, "speedup_diff_hi": 0.1, "gain_diff_lo": -0.1,
                  "gain_diff_hi": -0.05, "n_seeds": 3, "plateau_all": 1, "margin_min": 0.4},
    },
    full_size_only=True,
)
def _c22(f, t):
    if f["n_seeds"] < t["min_seeds"] or not f["plateau_all"] or f["margin_min"] < t["margin"]:
        return INCONCLUSIVE
    if f["small_speedup_max"] < 1 and f["large_speedup_max"] < 1:
        return REFUTED
    if not (f["small_speedup_min"] >= t["clear"] or f["large_speedup_min"] >= t["clear"]):
        return INCONCLUSIVE
    sign = lambda lo, hi: 1 if lo > 0 else -1 if hi < 0 else 0
    speed, gain = sign(f["speedup_diff_lo"], f["speedup_diff_hi"]), sign(f["gain_diff_lo"], f["gain_diff_hi"])
    if speed == gain == 1:
        return CONFIRMED
    if speed == gain == -1:
        return CORRECTED
    return INCONCLUSIVE


@claims.check("C22")
def check_c22(r: Pretrained) -> claims.Verdict:
    """Settle C22 from :func:`run_pretrained`."""
    sm, lg = r.speed("small"), r.speed("large")
    speed_diff = stats.seed_effect(sm["speedup"], lg["speedup"])
    gain_diff = stats.seed_effect(sm["gain"], lg["gain"])
    runs = [x for regime in r.runs.values() for kind in regime.values() for x in kind]
    margin = min(r.unigram[reg] - x["best_val"] for reg in r.runs for x in r.runs[reg]["random"])
    figures = {"small_speedup_min": min(sm["speedup"]), "small_speedup_max": max(sm["speedup"]),
               "large_speedup_min": min(lg["speedup"]), "large_speedup_max": max(lg["speedup"]),
               "speedup_diff_lo": speed_diff.lo, "speedup_diff_hi": speed_diff.hi,
               "gain_diff_lo": gain_diff.lo, "gain_diff_hi": gain_diff.hi, "n_seeds": len(r.seeds),
               "plateau_all": int(all(x["plateau"] for x in runs)), "margin_min": margin,
               "small_gain_min": min(sm["gain"]), "large_gain_min": min(lg["gain"]), "coverage": r.coverage}
    t = claims.rule_of("C22").thresholds

    def fmt(sp: dict) -> str:
        per = _commas(str(_("{random} vs {glove}").format(random=a, glove=_("never") if b is None else b))
                        for a, b in zip(sp["steps_random"], sp["steps_glove"]))
        return _("speed-up {lo:.2f}–{hi:.2f}× (random's best step vs the step GloVe reached the same loss: {per}); "
                 "GloVe's best loss lower by {gain_lo:+.3f} to {gain_hi:+.3f} nats").format(
                     lo=min(sp["speedup"]), hi=max(sp["speedup"]), per=per, gain_lo=min(sp["gain"]),
                     gain_hi=max(sp["gain"]))

    def direction(e: stats.SeedEffect, unit: str) -> str:
        where = (_("larger with little data on every seed") if e.lo > 0 else _("larger with more data on every seed")
                 if e.hi < 0 else _("larger with little data on some seeds and with more data on others"))
        return _("{where} (little − more, per seed: {lo} to {hi})").format(
            where=where, lo=format(e.lo, f"+.{unit}"), hi=format(e.hi, f"+.{unit}"))

    def evidence(v: str) -> str:
        head = _("GloVe (50d) covers {coverage:.0%} of the {vocab:,}-word vocabulary; the control is a random table "
                 "with GloVe's per-entry std ({std:.2f}). With {small:,} training tokens: {small_runs}. With {large:,}: "
                 "{large_runs}. 'Especially with little data', read two ways: the speed-up is {speed}; the gain in final "
                 "loss is {gain}. ").format(
                     coverage=r.coverage, vocab=r.vocab, std=r.glove_std, small=r.tokens["small"], small_runs=fmt(sm),
                     large=r.tokens["large"], large_runs=fmt(lg), speed=direction(speed_diff, "2f"),
                     gain=direction(gain_diff, "3f"))
        weak = []
        if figures["n_seeds"] < t["min_seeds"]:
            weak.append((_("only {n} seeds") if figures["n_seeds"] != 1 else _("only {n} seed")).format(
                n=figures["n_seeds"]))
        if not figures["plateau_all"]:
            weak.append(_("not every run reached its plateau"))
        if margin < t["margin"]:
            weak.append(_("a random-start model ended only {margin:.2f} nats below the unigram baseline").format(
                margin=margin))
        fast = figures["small_speedup_min"] >= t["clear"] or figures["large_speedup_min"] >= t["clear"]
        return head + {
            CONFIRMED: _("Pretrained vectors sped convergence, and both measures say more so with little data."),
            CORRECTED: _("Pretrained vectors sped convergence, but both measures say less so with little data than "
                         "with more. Both sizes here are tiny; in translation, Qi et al. (2018) found pretrained "
                         "embeddings most useful with little, but not too little, data."),
            REFUTED: _("Pretrained vectors slowed convergence on every seed in both regimes."),
            INCONCLUSIVE: _("The runs are too weak to judge: {why}.").format(why=_semicolons(weak)) if weak else
            (_("Pretrained vectors sped convergence on every seed in at least one regime; whether more so with little "
               "data, the two measures do not agree (or stay inside the seed spread), and the rule declared neither "
               "to decide alone: the speed-up has a ceiling with little data, where both starts share their first "
               "steps and the random start reaches its best loss early.") if fast else
             _("The speed-ups differ between seeds too much to call.")),
        }[v]

    def finding(v: str) -> str:
        speed = _("GloVe's start reached the random start's best loss {small_lo:.1f}–{small_hi:.1f}× sooner on {small:,} "
                  "tokens and {large_lo:.1f}–{large_hi:.1f}× on {large:,}").format(
                      small_lo=min(sm["speedup"]), small_hi=max(sm["speedup"]), small=r.tokens["small"],
                      large_lo=min(lg["speedup"]), large_hi=max(lg["speedup"]), large=r.tokens["large"])
        fast = figures["small_speedup_min"] >= t["clear"] or figures["large_speedup_min"] >= t["clear"]
        strong = figures["n_seeds"] >= t["min_seeds"] and figures["plateau_all"] and margin >= t["margin"]
        return {
            CONFIRMED: _("{speed}. Both that speed-up and the gain in final loss were larger with little data, on every "
                         "seed.").format(speed=speed),
            CORRECTED: _("{speed}. Both that speed-up and the gain in final loss were smaller with little data, on every "
                         "seed.").format(speed=speed),
            REFUTED: _("GloVe's start was slower than the random start on every seed: speed-up {small_lo:.1f}–"
                       "{small_hi:.1f}× on {small:,} tokens and {large_lo:.1f}–{large_hi:.1f}× on {large:,}.").format(
                           small_lo=min(sm["speedup"]), small_hi=max(sm["speedup"]), small=r.tokens["small"],
                           large_lo=min(lg["speedup"]), large_hi=max(lg["speedup"]), large=r.tokens["large"]),
            INCONCLUSIVE: (_("{speed}. Whether more so with little data, the speed-up and the gain in final loss "
                             "disagree or stay inside the seed spread.") if strong and fast else
                           _("{speed}; the runs are too weak or too spread to judge.")).format(speed=speed),
        }[v]

    strength = _("{n_seeds} seeds per arm; {plat} of {runs} runs stopped at their validation plateau; random-start "
                 "models at least {margin:.2f} nats below the unigram baseline; the whole validation split ({tokens:,} "
                 "tokens) scored every {every} steps, so step counts are read to ±{every}, coarse next to crossings at "
                 "a few hundred steps. The 'more data' regime is {large:,} tokens, {ratio:.1f}× the small one: a "
                 "contrast between two small corpora, not the article's contrast with large-scale pretraining. One "
                 "control only (a random table at GloVe's scale); a control at std 0.02 was not run here, to keep the "
                 "chapter's time").format(
                     n_seeds=len(r.seeds), plat=sum(x["plateau"] for x in runs), runs=len(runs), margin=margin,
                     tokens=r.val_tokens, every=r.eval_every, large=r.tokens["large"],
                     ratio=r.tokens["large"] / r.tokens["small"])
    return claims.judge("C22", figures, evidence, strength=strength, finding=finding)


# The studies of warm-up the box cites as context (not deciding: the sweep below decides), in the shape of
# claims.Source: (who, bib key, what it reports, where it says so).
WARMUP_CONTEXT: list[tuple[str, str, str, str]] = [
    ("Xiong et al. 2020", "xiong2020layernorm", _("warm-up is needed because of large gradients near the output of "
     "Post-LN Transformers at initialisation; Pre-LN (as TinyLM) trains without it"),
     _("§3, Theorem 1 and §4 experiments")),
    ("Liu et al. 2020", "liu2020radam", _("warm-up is needed because Adam's adaptive learning rate has a large variance "
     "in the first steps, estimated from too few gradients; RAdam rectifies it"), _("§3 and §5")),
    ("Huang et al. 2020", "huang2020tfixup", _("T-Fixup trains encoder-decoder Transformers without warm-up or LayerNorm "
     "by changing the initialisation: input embeddings from $\\mathcal N(0, d^{-1/2})$, scaled by $(9N)^{-1/4}$ with the "
     "other blocks' weights"), _("§3, the T-Fixup initialisation; §4, training without warm-up")),
]


def _c23_figures(r: WarmupSweep) -> dict:
    if r.untied is None:
        raise ValueError("C23 needs the untied sweep too: run_warmup with untied_lrs")
    f = {"default_std": r.start.default_std, "n_seeds": min(len(r.seeds), len(r.untied.seeds))}
    for sweep in (r, r.untied):
        for key, lr in zip(sweep.keys(), sweep.lrs):
            f[f"{key}_ok"] = int(sweep.lr_ok(lr))
            for name, short in zip(WARMUP_INITS, ("unit", "small")):
                g = sweep.gain(name, lr)
                f |= {f"{key}_{short}_lo": g.lo, f"{key}_{short}_hi": g.hi, f"{key}_{short}_mean": g.mean}
    return f


def _c23_example(slow: tuple, fast: tuple, untied: tuple, **over) -> dict:
    """Figures for the rule's examples: per learning rate and head (ok, (unit lo, hi, mean), (small lo, hi, mean))."""
    f = {"default_std": 1.0, "n_seeds": 3}
    for key, (ok, unit, small) in (("slow", slow), ("fast", fast), ("untied", untied)):
        f[f"{key}_ok"] = ok
        for short, (lo, hi, mean) in (("unit", unit), ("small", small)):
            f |= {f"{key}_{short}_lo": lo, f"{key}_{short}_hi": hi, f"{key}_{short}_mean": mean}
    return f | over


_QUIET = (-0.004, 0.006, 0.001)  # warm-up changes nothing: every seed within ±0.01 nats


def _c23_reading(f, t, keys: tuple[str, ...]) -> str:
    """One model's outcome (tied: ``("slow", "fast")``; untied: ``("untied",)``) from its learning rates' gains."""
    deciding = [k for k in keys if f[f"{k}_ok"]]
    if not deciding:
        return INCONCLUSIVE
    helps = lambda k, s: f[f"{k}_{s}_lo"] >= t["min_effect"]
    for k in deciding:
        if helps(k, "unit") and (not helps(k, "small") or f[f"{k}_small_mean"] <= t["much_less"] * f[f"{k}_unit_mean"]):
            return CONFIRMED
    if any(helps(k, "small") for k in deciding):
        return CORRECTED
    if all(f[f"{k}_{s}_hi"] < t["min_effect"] for k in deciding for s in ("unit", "small")):
        return REFUTED
    return INCONCLUSIVE


_AUDIT_UNTIED = (1, (-0.015, 0.008, -0.003), (0.008, 0.018, 0.013))  # the cold audit's untied re-run at lr 1e-2


@claims.rule(
    "C23",
    basis=claims.MEASURED,
    quantity="the standard deviation of a freshly built nn.Embedding; and, for a small LM (d = 64, the whole "
    "Lee training split) whose token table starts from N(0, 1) or from N(0, 0.02²), the best validation loss "
    "without warm-up minus with a linear warm-up (nats, per seed: the warm-up's gain), every run trained to its "
    "validation plateau; read twice: with the head tied to the table (two learning rates) and untied (the higher one)",
    inputs={
        "default_std": "std of the entries of a new nn.Embedding",
        "n_seeds": "seeds per arm",
        "slow_ok": "tied head, lower learning rate: 1 if every run stopped on its plateau at least `margin` nats "
        "below the unigram model (only then may that learning rate decide)",
        "slow_unit_lo": "tied, lower learning rate, N(0, 1) table: smallest per-seed gain from warm-up",
        "slow_unit_hi": "largest", "slow_unit_mean": "mean",
        "slow_small_lo": "tied, lower learning rate, std-0.02 table: smallest per-seed gain", "slow_small_hi": "largest",
        "slow_small_mean": "mean",
        "fast_ok": "the same gate, tied head, higher learning rate",
        "fast_unit_lo": "tied, higher learning rate, N(0, 1) table: smallest per-seed gain", "fast_unit_hi": "largest",
        "fast_unit_mean": "mean",
        "fast_small_lo": "tied, higher learning rate, std-0.02 table: smallest per-seed gain", "fast_small_hi": "largest",
        "fast_small_mean": "mean",
        "untied_ok": "the same gate, untied head (higher learning rate)",
        "untied_unit_lo": "untied, N(0, 1) table: smallest per-seed gain", "untied_unit_hi": "largest",
        "untied_unit_mean": "mean",
        "untied_small_lo": "untied, std-0.02 table: smallest per-seed gain", "untied_small_hi": "largest",
        "untied_small_mean": "mean",
    },
    thresholds={"tolerance": 0.05, "min_seeds": 3, "margin": MARGIN, "min_effect": 0.01, "much_less": 0.5},
    seeds=3,
    outcomes={
        REFUTED: "the default std differs from 1 by more than `tolerance`; or, in both the tied and the untied "
        "model, at every learning rate that may decide, no seed of either table gains `min_effect` nats from "
        "warm-up (warm-up helps neither)",
        INCONCLUSIVE: "fewer than `min_seeds` seeds; a model (tied or untied) with no learning rate whose runs all "
        "plateaued `margin` below the unigram model, or with gains inside the seed spread; or the tied and the "
        "untied readings reach different outcomes (neither was declared the deciding one)",
        CONFIRMED: "the default is N(0, 1), and in both the tied and the untied model, at some deciding learning "
        "rate, warm-up lowers the N(0, 1) model's loss by at least `min_effect` on every seed while the std-0.02 "
        "model does not gain that on every seed, or gains on average at most `much_less` times as much",
        CORRECTED: "the default is N(0, 1), and in both the tied and the untied model warm-up lowers the std-0.02 "
        "model's loss by at least `min_effect` on every seed at some deciding learning rate, about as much as (or "
        "more than) the N(0, 1) model's: warm-up matters, but not especially for the N(0, 1) table",
    },
    examples={
        REFUTED: _c23_example((1, _QUIET, _QUIET), (1, _QUIET, (-0.02, 0.004, -0.006)), (1, _QUIET, _QUIET)),
        INCONCLUSIVE: _c23_example((1, _QUIET, _QUIET), (1, (0.018, 0.496, 0.194), (-0.003, 0.012, 0.004)),
                                   _AUDIT_UNTIED),
        CONFIRMED: _c23_example((1, _QUIET, _QUIET), (1, (0.018, 0.496, 0.194), (-0.003, 0.012, 0.004)),
                                (1, (0.015, 0.06, 0.03), (-0.004, 0.008, 0.002))),
        CORRECTED: _c23_example((1, _QUIET, _QUIET), (1, (0.02, 0.05, 0.03), (0.03, 0.06, 0.045)),
                                (1, _QUIET, (0.012, 0.03, 0.02))),
    },
    full_size_only=True,
)
def _c23(f, t):
    if abs(f["default_std"] - 1.0) > t["tolerance"]:
        return REFUTED
    if f["n_seeds"] < t["min_seeds"]:
        return INCONCLUSIVE
    readings = {_c23_reading(f, t, keys) for keys in (("slow", "fast"), ("untied",))}
    return readings.pop() if len(readings) == 1 else INCONCLUSIVE


@claims.check("C23")
def check_c23(r: WarmupSweep) -> claims.Verdict:
    """Settle C23 from :func:`run_warmup` (which holds :func:`run_default`'s result)."""
    f = _c23_figures(r)
    s0 = r.start
    t = claims.rule_of("C23").thresholds

    u = r.untied
    arms = [(r, lr, "tied") for lr in r.lrs] + [(u, lr, "untied") for lr in u.lrs]
    keys = dict(zip([(w, lr) for _, lr, w in arms], r.keys() + u.keys()))

    def arm(sw: WarmupSweep, lr: float, name: str) -> str:
        cold = [x["best_val"] for x in sw.runs[name][lr][0]]
        warm = [x["best_val"] for x in sw.runs[name][lr][1]]
        g = sw.gain(name, lr)
        return _("{cold} → {warm} nats (gain {lo:+.3f} to {hi:+.3f})").format(
            cold="/".join(f"{x:.3f}" for x in cold), warm="/".join(f"{x:.3f}" for x in warm), lo=g.lo, hi=g.hi)

    def per_lr() -> str:
        out = []
        for sw, lr, which in arms:
            text = (_("Tied head, lr {lr:g}: N(0, 1) {unit}; std 0.02 {small}") if which == "tied" else
                    _("Untied head, lr {lr:g}: N(0, 1) {unit}; std 0.02 {small}")).format(
                        lr=lr, unit=arm(sw, lr, WARMUP_INITS[0]), small=arm(sw, lr, WARMUP_INITS[1]))
            out.append((_("{arm}.") if sw.lr_ok(lr) else
                        _("{arm} — not every run reached a plateau clear of the unigram model, so this learning rate "
                          "cannot decide.")).format(arm=text))
        return _spaced(out)

    def helped(sw: WarmupSweep, lr: float, which: str) -> str:
        every = [short for name, short in zip(WARMUP_INITS, ("N(0, 1)", "std-0.02")) if sw.gain(name, lr).lo > 0]
        big = [short for name, short in zip(WARMUP_INITS, ("N(0, 1)", "std-0.02"))
               if sw.gain(name, lr).lo >= t["min_effect"]]
        tied = which == "tied"
        if big:
            return (_("tied, lr {lr:g}: warm-up lowered the {models} model's loss by {least:g} nats or more on every "
                      "seed") if tied else
                    _("untied, lr {lr:g}: warm-up lowered the {models} model's loss by {least:g} nats or more on every "
                      "seed")).format(lr=lr, models=i18n.chain(big, _("{first} and the {last}")), least=t["min_effect"])
        if every:
            return (_("tied, lr {lr:g}: warm-up lowered the {models} model's loss on every seed, but by less than "
                      "{least:g} nats on some") if tied else
                    _("untied, lr {lr:g}: warm-up lowered the {models} model's loss on every seed, but by less than "
                      "{least:g} nats on some")).format(lr=lr, models=i18n.chain(every, _("{first} and the {last}")),
                                                         least=t["min_effect"])
        return (_("tied, lr {lr:g}: it lowered neither model's loss on every seed") if tied else
                _("untied, lr {lr:g}: it lowered neither model's loss on every seed")).format(lr=lr)

    # each learning rate and head read alone by the rule's own test (the tied lrs may disagree with each other)
    def alone() -> str:
        return _semicolons((_("tied at lr {lr:g}: {reading}") if which == "tied" else
                            _("untied at lr {lr:g}: {reading}")).format(
                                lr=lr, reading=claims.verdict_word(_c23_reading(f, t, (keys[(which, lr)],))))
                           for _sw, lr, which in arms)
    tied_v, untied_v = _c23_reading(f, t, r.keys()), _c23_reading(f, t, u.keys())

    def evidence(v: str) -> str:
        head = _("A new nn.Embedding has entry std {std:.3f} over {entries:,} entries; in a tied small LM that start "
                 "gives an initial loss of {loss_default:.1f} nats (ln V = {ln_v:.2f}; std 0.02: {loss_small:.2f}), and "
                 "its first AdamW step (lr {lr:g}, no warm-up) moves the table by {step_default:.2%} of its size (std "
                 "0.02: {step_small:.1%}; mean of {n_seeds} seeds). Best validation loss without → with {warmup} "
                 "warm-up steps, seeds {seeds}: {per_lr} In short ({helped}). Each read alone by the rule: {alone}; the "
                 "tied model (either learning rate may decide) reads {tied}, the untied one {untied}. ").format(
                     std=s0.default_std, entries=s0.n_entries, loss_default=s0.loss0_default, ln_v=s0.ln_v,
                     loss_small=s0.loss0_small, lr=s0.lr, step_default=s0.step_default, step_small=s0.step_small,
                     n_seeds=s0.n_seeds, warmup=r.warmup, seeds=", ".join(str(s) for s in r.seeds), per_lr=per_lr(),
                     helped=_semicolons(helped(sw, lr, which) for sw, lr, which in arms), alone=alone(),
                     tied=claims.verdict_word(tied_v), untied=claims.verdict_word(untied_v))
        if v == INCONCLUSIVE and tied_v != untied_v and f["n_seeds"] >= t["min_seeds"]:
            return head + _("The two readings of 'the embedding layer' disagree: with a tied head the table is also "
                            "the output layer, untied it is only the input, and neither was declared the deciding "
                            "reading before measuring, so the claim is not settled here.")
        return head + {
            REFUTED: (_("The default is not N(0, 1).") if abs(f["default_std"] - 1) > t["tolerance"] else
                      _("Warm-up helped neither table by a measurable amount at any learning rate that could decide.")),
            INCONCLUSIVE: _("Neither head gives a warm-up effect outside the seed spread that the rule can read."),
            CONFIRMED: _("With a tied and with an untied head, warm-up lowered the N(0, 1) model's loss on every seed "
                         "at some learning rate and did not do as much for the std-0.02 model: with the default "
                         "table, warm-up matters, as the article says, and a small initial scale (GPT-2's, BERT's) "
                         "makes it matter much less."),
            CORRECTED: _("With a tied and with an untied head, warm-up helped the std-0.02 model about as much as (or "
                         "more than) the N(0, 1) one: it matters here, but not especially because of nn.Embedding's "
                         "default."),
        }[v]

    def finding(v: str) -> str:
        std = f["default_std"]
        if v == REFUTED and abs(std - 1) > t["tolerance"]:
            return _("A new nn.Embedding does not start from $\\mathcal N(0, 1)$: its entries have std {std:.3f}.").format(
                std=std)
        start = _("nn.Embedding starts from $\\mathcal N(0, 1)$ (std {std:.3f}).").format(std=std)
        if f["n_seeds"] < t["min_seeds"]:
            return (_("{start} With {n} seeds per arm, too few, warm-up stays open.") if f["n_seeds"] != 1 else
                    _("{start} With {n} seed per arm, too few, warm-up stays open.")).format(start=start,
                                                                                          n=f["n_seeds"])
        # the tied learning rate that gives the tied reading (the higher one if none does alone)
        k = next((k for k in r.keys() if _c23_reading(f, t, (k,)) == tied_v), r.keys()[-1])
        lr_of = dict(zip(r.keys(), r.lrs)) | {"untied": u.lrs[0]}
        gain = lambda k: _("{lo:+.2f} to {hi:+.2f} nats at lr {lr:g}").format(lo=f[f"{k}_unit_lo"], hi=f[f"{k}_unit_hi"],
                                                                            lr=lr_of[k])
        return _("{start} Warm-up's gain for that table: {tied} per seed with the head tied, {untied} untied; "
                 "{outcome}").format(start=start, tied=gain(k), untied=gain("untied"), outcome={
                     CONFIRMED: _("a std-0.02 table gained less, or not on every seed."),
                     CORRECTED: _("a std-0.02 table gained as much."),
                     REFUTED: _("neither table gained measurably."),
                     INCONCLUSIVE: (_("the two models disagree, so the claim stays open.") if tied_v != untied_v
                                    else _("no effect clears the seed spread; the claim stays open.")),
                 }[v])

    runs = [x for sw in (r, u) for by_lr in sw.runs.values() for arm_ in by_lr.values() for w in arm_.values()
            for x in w]
    context = _joined([_("{who}: {finding} ({where})").format(who=who, finding=finding, where=where)
                       for who, _key, finding, where in WARMUP_CONTEXT])
    strength = _("{n_seeds} seeds per arm; {plat} of {runs} runs stopped at their validation plateau (not before step "
                 "{min_step:,}, cap {cap:,}); the first full-size sweep let early stopping end two std-0.02 runs with "
                 "warm-up at steps 60–80, on the unigram plateau while their learning rate was still ramping up (the "
                 "margin gate caught them), so the stopping rule now waits for twice the warm-up length in every arm; "
                 "the whole validation split ({tokens:,} tokens) scored; unigram model {unigram:.2f} nats. A one-layer "
                 "Pre-LN model, tied (two learning rates) and untied (one), one warm-up length. Context from the "
                 "literature, not deciding: {context}").format(
                     n_seeds=len(r.seeds), plat=sum(x["plateau"] for x in runs), runs=len(runs),
                     min_step=min(2 * r.warmup, r.max_steps), cap=r.max_steps, tokens=r.val_tokens, unigram=r.unigram,
                     context=context)
    return claims.judge("C23", f, evidence, strength=strength, finding=finding)
