"""Chapter 15, "Practical choices": fine-tuning a pre-trained LM on shifted data with its embedding frozen,
slowed or trained fully (C30), and English–Chinese word vectors before and after an orthogonal map fitted
on a seed dictionary (C48)."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import numpy as np
import torch

from embedbook import align, claims, data, device as _device, lm, stats, word2vec
from embedbook.book import Result
from embedbook.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED
from embedbook.experiments.ch04_tying import bpe_corpus
from embedbook.i18n import Msg, _

MODES = ("full", "small_lr", "frozen")  # how the input embedding is treated during fine-tuning

# --- C30: fine-tuning under a domain shift -------------------------------------------------------------------


@dataclass
class Pretrained:
    """One pre-training run on the source domain."""

    seed: int
    source_loss: float  # best source validation loss (nats)
    target_loss: float  # the same model on the target validation part, before fine-tuning
    best_step: int
    plateau: bool


@dataclass
class Tuned:
    """One fine-tuning run on the target domain."""

    mode: str
    seed: int
    target_loss: float  # best target validation loss (nats)
    source_loss: float  # source validation loss of that best model: what is left of pre-training
    best_step: int
    plateau: bool
    steps: list[int] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)


@dataclass
class FineTune(Result):
    """Pre-train on Wikipedia, fine-tune on Lee news three ways, every seed; all runs to a plateau."""

    vocab: int
    d_model: int
    n_layers: int
    source_tokens: int
    target_tokens: int
    n_source_val: int
    n_target_val: int
    n_seeds: int
    lr: float
    ft_lr: float
    small_mult: float
    unigram_source: float  # nats, estimated on the source training part, scored on the source validation part
    unigram_target: float  # estimated on the target training part
    target_pieces_per_word: float  # how finely the source BPE cuts the target text
    source_pieces_per_word: float
    pre: list[Pretrained] = field(default_factory=list)
    tuned: list[Tuned] = field(default_factory=list)

    def arm(self, mode: str) -> list[Tuned]:
        """The fine-tuning runs of one mode, in seed order."""
        return sorted((t for t in self.tuned if t.mode == mode), key=lambda t: t.seed)

    def target_gain(self, mode: str) -> stats.SeedEffect:
        """Per seed, target loss of full fine-tuning − of ``mode`` (nats): positive means ``mode`` is better."""
        return stats.seed_effect([t.target_loss for t in self.arm("full")], [t.target_loss for t in self.arm(mode)])

    def forgetting(self, mode: str) -> list[float]:
        """Per seed, how much the source loss rose during fine-tuning (nats)."""
        before = {p.seed: p.source_loss for p in self.pre}
        return [t.source_loss - before[t.seed] for t in self.arm(mode)]

    def retention(self, mode: str) -> stats.SeedEffect:
        """Per seed, forgetting of full fine-tuning − forgetting of ``mode``: positive means ``mode`` forgets less."""
        return stats.seed_effect(self.forgetting("full"), self.forgetting(mode))

    def pre_margin(self) -> float:
        """Smallest margin (nats) of a pre-trained model below the unigram model on the source domain."""
        return min(self.unigram_source - p.source_loss for p in self.pre)

    def extra_glue(self) -> dict:
        out = {"pre_margin": self.pre_margin(), "pre_source_ppl": math.exp(np.mean([p.source_loss for p in self.pre])),
               "pre_target_ppl": math.exp(np.mean([p.target_loss for p in self.pre])),
               "unigram_source_ppl": math.exp(self.unigram_source), "unigram_target_ppl": math.exp(self.unigram_target),
               "plateaus": sum(p.plateau for p in self.pre) + sum(t.plateau for t in self.tuned),
               "n_runs": len(self.pre) + len(self.tuned)}
        for mode in MODES:
            out[f"{mode}_target_ppl"] = math.exp(np.mean([t.target_loss for t in self.arm(mode)]))
            out[f"{mode}_source_ppl"] = math.exp(np.mean([t.source_loss for t in self.arm(mode)]))
            out[f"{mode}_forgetting"] = float(np.mean(self.forgetting(mode)))
        return out


@dataclass
class FineTuneData:
    """The token streams :func:`run_finetune` trains on: Wikipedia (source) and Lee news (target), both cut by
    one byte-level BPE trained on the source text only, as a pre-trained model's tokenizer is."""

    vocab_size: int
    src_train: torch.Tensor
    src_val: torch.Tensor
    tgt_train: torch.Tensor
    tgt_val: torch.Tensor
    source_pieces_per_word: float
    target_pieces_per_word: float  # how finely the source BPE cuts the target text


def finetune_data(source_tokens: int, target_tokens: int, *, source_val_tokens: int = 8_000,
                  target_val_tokens: int | None = None, vocab_size: int = 512) -> FineTuneData:
    """The source and target streams of :func:`run_finetune` (same arguments, same meaning).

    Raises:
        ValueError: sizes not positive, or larger than the corpora.
    """
    if not (source_tokens > 0 and target_tokens > 0 and source_val_tokens > 0):
        raise ValueError("source_tokens, target_tokens and source_val_tokens must be positive")
    wiki = [" ".join(a) for a in data.wiki_corpus()]
    lee = [" ".join(d) for d in data.lee_corpus()]
    # Wikipedia articles in order: enough for the source training part, then the next ones for its
    # validation part (a BPE cuts about 2.2–2.8 pieces per word; the streams are trimmed afterwards)
    bounds = np.cumsum([len(a.split()) for a in wiki])
    n_fit = int(np.searchsorted(bounds, source_tokens / 2.2)) + 1
    n_all = int(np.searchsorted(bounds, bounds[n_fit - 1] + source_val_tokens / 2.2)) + 1
    if n_all > len(wiki):
        raise ValueError(f"the Wikipedia sample is too small for source_tokens={source_tokens:,}")
    src = bpe_corpus(wiki[:n_fit], wiki[n_fit:n_all], vocab_size)
    lee_ids = src.encode(lee)  # the target text cut by the source's BPE: same tokenizer, another distribution
    n_val = int(0.1 * len(lee_ids))
    tgt_train, tgt_val = lee_ids[: len(lee_ids) - n_val][:target_tokens], lee_ids[len(lee_ids) - n_val:]
    tgt_val = tgt_val if target_val_tokens is None else tgt_val[:target_val_tokens]
    src_train, src_val = src.train[:source_tokens], src.val[:source_val_tokens]
    if len(src_train) < source_tokens or len(lee_ids) - n_val < target_tokens:
        raise ValueError(f"at most {len(src.train):,} source and {len(lee_ids) - n_val:,} target training tokens")
    words = lambda docs: sum(len(d.split()) for d in docs)
    return FineTuneData(
        vocab_size=src.vocab_size, src_train=src_train, src_val=src_val, tgt_train=tgt_train, tgt_val=tgt_val,
        source_pieces_per_word=(len(src.train) + len(src.val)) / (words(wiki[:n_all]) + n_all),
        target_pieces_per_word=len(lee_ids) / (words(lee) + len(lee)),
    )


def base_model(vocab_size: int, *, d_model: int = 32, n_layers: int = 1, context: int = 32, seed: int = 0,
               device: torch.device | str = "cpu") -> lm.TinyLM:
    """The untied TinyLM :func:`run_finetune` pre-trains for ``seed``: every RNG seeded, then built on ``device``."""
    _device.seed_everything(seed)
    cfg = lm.LMConfig(vocab_size, d_model=d_model, n_layers=n_layers, n_heads=max(1, d_model // 16),
                      context=context, tie=False)
    return lm.TinyLM(cfg).to(device)


def _train(model: lm.TinyLM, train_ids, val_ids, *, seed: int, lr: float, emb_lr_mult: float = 1.0, batch_size: int,
           max_steps: int, eval_every: int, patience: int, min_delta: float) -> lm.History:
    return lm.train(model, train_ids, val_ids, steps=max_steps, batch_size=batch_size, lr=lr, emb_lr_mult=emb_lr_mult,
                    eval_every=eval_every, seed=seed, progress=False, patience=patience, min_delta=min_delta)


def run_finetune(source_tokens: int = 256_000, target_tokens: int = 8_000, seeds: int = 3, *,
                 source_val_tokens: int = 8_000, target_val_tokens: int | None = None, vocab_size: int = 512,
                 d_model: int = 32, n_layers: int = 1, context: int = 32, batch_size: int = 32, lr: float = 1e-2,
                 ft_lr: float = 3e-3, small_mult: float = 0.1, max_steps: int = 3000, eval_every: int = 20,
                 patience: int = 3, min_delta: float = 0.01, first_seed: int = 0,
                 device: torch.device | str | None = None) -> FineTune:
    """Pre-train an untied TinyLM on Wikipedia text, then fine-tune copies on Lee news with the input
    embedding trained fully, at ``small_mult`` × the learning rate, or frozen.

    Every run stops on a plateau of its own validation loss (source for pre-training, target for
    fine-tuning) and keeps its best weights; each fine-tuned model is then scored on the source
    validation part too, to measure forgetting. The BPE is trained on the source text only, as a
    pre-trained model's tokenizer is; the head is untied, so freezing the input table leaves the
    output layer free. Each seed repeats the whole pipeline, pre-training included.

    Args:
        source_tokens: pre-training tokens (Wikipedia articles in order).
        target_tokens: fine-tuning tokens (the start of the Lee corpus).
        seeds: seeds ``first_seed``, ``first_seed + 1``, …
        source_val_tokens: source validation tokens (the articles after the training ones).
        target_val_tokens: target validation tokens; None scores the whole last tenth of the Lee corpus.
        vocab_size, d_model, n_layers, context: the BPE and the model.
        batch_size, lr, max_steps, eval_every, patience, min_delta: pre-training
            (:func:`embedbook.lm.train`); fine-tuning uses ``ft_lr`` instead of ``lr``.
        small_mult: the slowed embedding's share of the learning rate, in (0, 1).
        first_seed: the first seed.
        device: where to train (default: CPU).

    Returns:
        a :class:`FineTune`.

    Raises:
        ValueError: ``small_mult`` outside (0, 1), sizes not positive, or larger than the corpora.
    """
    if not 0 < small_mult < 1:
        raise ValueError(f"small_mult must lie in (0, 1), got {small_mult}")
    if not (isinstance(seeds, int) and seeds >= 1):
        raise ValueError(f"seeds must be a positive int, got {seeds!r}")
    d = finetune_data(source_tokens, target_tokens, source_val_tokens=source_val_tokens,
                      target_val_tokens=target_val_tokens, vocab_size=vocab_size)
    kw = dict(batch_size=batch_size, max_steps=max_steps, eval_every=eval_every, patience=patience, min_delta=min_delta)
    dev = device or "cpu"
    pre, tuned = [], []
    for seed in range(first_seed, first_seed + seeds):
        base = base_model(d.vocab_size, d_model=d_model, n_layers=n_layers, context=context, seed=seed, device=dev)
        h = _train(base, d.src_train, d.src_val, seed=seed, lr=lr, **kw)
        pre.append(Pretrained(seed, h.best_val_loss, lm.evaluate(base, d.tgt_val, batch_size=batch_size), h.best_step,
                              h.plateau))
        for mode in MODES:
            model = copy.deepcopy(base)
            if mode == "frozen":
                model.embed.weight.requires_grad_(False)
            h = _train(model, d.tgt_train, d.tgt_val, seed=seed + 1000, lr=ft_lr,
                       emb_lr_mult=small_mult if mode == "small_lr" else 1.0, **kw)
            tuned.append(Tuned(mode, seed, h.best_val_loss, lm.evaluate(model, d.src_val, batch_size=batch_size),
                               h.best_step, h.plateau, h.steps, h.val_loss))
    return FineTune(
        vocab=d.vocab_size, d_model=d_model, n_layers=n_layers, source_tokens=len(d.src_train),
        target_tokens=len(d.tgt_train), n_source_val=len(d.src_val), n_target_val=len(d.tgt_val), n_seeds=seeds,
        lr=lr, ft_lr=ft_lr, small_mult=small_mult,
        unigram_source=lm.unigram_loss(d.src_train, d.src_val, d.vocab_size),
        unigram_target=lm.unigram_loss(d.tgt_train, d.tgt_val, d.vocab_size),
        target_pieces_per_word=d.target_pieces_per_word, source_pieces_per_word=d.source_pieces_per_word,
        pre=pre, tuned=tuned,
    )


def _c30_figures(r: FineTune) -> dict:
    ft_margin = min(r.unigram_target - t.target_loss for t in r.tuned)
    plateau = all(p.plateau for p in r.pre) and all(t.plateau for t in r.tuned)
    forget = r.forgetting("full")
    out = {"n_seeds": r.n_seeds, "all_plateau": int(plateau), "margin": min(r.pre_margin(), ft_margin),
           "full_forget_lo": min(forget), "full_forget_hi": max(forget)}
    for mode in ("small_lr", "frozen"):
        g, k = r.target_gain(mode), r.retention(mode)
        out |= {f"{mode}_gain_lo": g.lo, f"{mode}_gain_hi": g.hi, f"{mode}_gain": g.mean,
                f"{mode}_keep_lo": k.lo, f"{mode}_keep_hi": k.hi, f"{mode}_keep": k.mean}
    return out


@claims.rule(
    "C30",
    basis=claims.MEASURED,
    revised="'confirmed' if the slowed or frozen table fitted the target better on every seed, 'confirmed with a "
    "correction' if neither did but one kept more of the source (a route added after full fine-tuning won on the "
    "target), 'refuted' only if neither fitted better nor kept more; with the table a third of the model, freezing "
    "always keeps more, so 'refuted' was out of reach. Now the two readings of what the practice buys are read "
    "separately and their disagreement is inconclusive",
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


def summary_c30(r: FineTune) -> str:
    """One sentence with the C30 figures for the chapter's summary, worded from their signs."""
    f = _c30_figures(r)
    arms = []
    for mode, name in (("small_lr", _("the table at {mult:g}× the rate").format(mult=r.small_mult)),
                       ("frozen", _("the frozen table"))):
        g, k = f[f"{mode}_gain"], f[f"{mode}_keep"]
        fit = (_("{name} fitted the news {gain:.3f} nats better on average (per seed {lo:+.3f} to {hi:+.3f})")
               if g > 0 else
               _("{name} fitted the news {gain:.3f} nats worse on average (per seed {lo:+.3f} to {hi:+.3f})"))
        keep = (_("kept {keep:.3f} nats more of Wikipedia ({lo:+.3f} to {hi:+.3f})") if k > 0 else
                _("kept {keep:.3f} nats less of Wikipedia ({lo:+.3f} to {hi:+.3f})"))
        arms.append(_("{fit} and {keep}").format(
            fit=fit.format(name=name, gain=abs(g), lo=f[mode + "_gain_lo"], hi=f[mode + "_gain_hi"]),
            keep=keep.format(keep=abs(k), lo=f[mode + "_keep_lo"], hi=f[mode + "_keep_hi"])))
    lo, hi = f["full_forget_lo"], f["full_forget_hi"]
    moved = (_("raised the Wikipedia loss by {lo:.3f} to {hi:.3f} nats").format(lo=lo, hi=hi) if lo > 0 else
             _("lowered the Wikipedia loss by {lo:.3f} to {hi:.3f} nats").format(lo=-hi, hi=-lo) if hi < 0 else
             _("changed the Wikipedia loss by {lo:+.3f} to {hi:+.3f} nats").format(lo=lo, hi=hi))
    seeds = _("{n} seeds").format(n=r.n_seeds) if r.n_seeds != 1 else _("one seed")
    return _("Over {seeds}, full fine-tuning {moved}; against it, {slowed}, and {frozen}.").format(
        seeds=seeds, moved=moved, slowed=arms[0], frozen=arms[1])


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


# --- C48: two languages, two spaces --------------------------------------------------------------------------


@dataclass
class CrossLingual(Result):
    """Chinese Word2Vec (People's Daily) and English GloVe, before and after an orthogonal map fitted on a seed
    dictionary, scored on held-out pairs in each of ``k`` folds."""

    zh_words: int
    zh_tokens: int
    dim: int
    n_candidates: int
    n_pairs: int
    n_usable: int
    k: int
    p1_before: float
    p5_before: float
    p1_after: float
    p5_after: float
    p5_shuffled: float
    cos_before: float
    cos_after: float
    folds: list[align.Alignment] = field(default_factory=list)
    # held-out (Chinese, gold English, the 5 nearest English words after the map, 1 if gold is among them)
    top5: list[tuple[str, str, list[str], int]] = field(default_factory=list, repr=False)

    def fit_pairs(self) -> int:
        """Dictionary pairs a fold's map is fitted on, on average over the folds (rounded)."""
        return round(float(np.mean([a.n_fit for a in self.folds])))

    def extra_glue(self) -> dict:
        return {"n_fit": self.fit_pairs(), "n_test": round(float(np.mean([a.n_test for a in self.folds]))),
                "chance_p5": 5 / self.n_candidates}

    def shown(self, hits: int = 6, misses: int = 6) -> list[tuple[str, str, str, str]]:
        """Up to ``hits`` held-out words whose translation is among the 5 nearest after the map and up to
        ``misses`` whose is not, in fold order: ``(Chinese, gold, the 5 nearest joined, "yes"/"no")``."""
        found = [e for e in self.top5 if e[3]][:hits]
        missed = [e for e in self.top5 if not e[3]][:misses]
        # the nearest words are data, listed as each edition lists words: "a, b" and "a、b"
        listed = lambda top: _("{nearest}").format(nearest=Msg(", ".join(top), "、".join(top)))
        return [(z, g, listed(top), _("yes") if hit else _("no")) for z, g, top, hit in found + missed]

    def examples(self) -> list[tuple[str, str, str]]:
        """Held-out ``(Chinese, gold English, best English guess after the map)`` triples from every fold."""
        return [e for a in self.folds for e in a.examples]


def run_alignment(zh_lines: int | None = None, *, epochs: int = 2, n_candidates: int = 50_000, k: int = 3,
                  seed: int = 0) -> CrossLingual:
    """Train Chinese skip-gram vectors on People's Daily with GloVe's dimension, then translate held-out
    dictionary words into English, in ``k`` folds of the seed dictionary (:func:`embedbook.align.folds`).

    Args:
        zh_lines: People's Daily lines to train on (None: all).
        epochs: Word2Vec epochs (one worker, seeded: deterministic).
        n_candidates: English candidates, GloVe's most frequent words.
        k: folds.
        seed: Word2Vec's seed and the folds' permutation.

    Returns:
        a :class:`CrossLingual` with every fold's :class:`embedbook.align.Alignment`.

    Raises:
        ValueError: ``k`` out of range, or too few dictionary words in the vocabularies.
    """
    lines = data.peoples_daily(limit=zh_lines)
    en = data.glove(limit=n_candidates)
    zh = word2vec.train(lines, sg=True, vector_size=en.vector_size, window=5, min_count=5, epochs=epochs, seed=seed).wv
    pairs = [(z, e) for e, z in align.seed_dictionary()]  # Chinese → English
    splits = align.folds(pairs, k, seed)
    results = [align.align(zh, en, fit=fit, test=test, n_candidates=n_candidates, seed=seed) for fit, test in splits]
    top5 = [e for (_, test), a in zip(splits, results) for e in _top5(zh, en, test, a, n_candidates)]
    mean = lambda name: float(np.mean([getattr(a, name) for a in results]))
    return CrossLingual(
        zh_words=len(zh.index_to_key), zh_tokens=sum(map(len, lines)), dim=en.vector_size,
        n_candidates=results[0].n_candidates, n_pairs=len(pairs), n_usable=sum(a.n_test for a in results), k=k,
        p1_before=mean("p1_before"), p5_before=mean("p5_before"), p1_after=mean("p1_after"),
        p5_after=mean("p5_after"), p5_shuffled=mean("p5_shuffled"), cos_before=mean("cos_before"),
        cos_after=mean("cos_after"), folds=results, top5=top5,
    )


def _top5(zh, en, test, a: align.Alignment, n_candidates: int, limit: int = 40):
    """The 5 nearest English words after ``a``'s map for up to ``limit`` held-out pairs, prepared as
    :func:`embedbook.align.align` prepares them."""
    words = list(en.index_to_key[:n_candidates])
    pos = {w: i for i, w in enumerate(words)}
    rows = [(z, e) for z, e in test if e in pos and z in zh.key_to_index][:limit]
    cands = align.prepare(np.asarray(en.vectors[: len(words)], dtype=np.float32))
    src = align.prepare(np.asarray(zh.vectors, dtype=np.float32))
    mapped = src[[zh.key_to_index[z] for z, _ in rows]] @ a.map
    near = np.argsort(-(mapped @ cands.T), axis=1)[:, :5]
    return [(z, e, [words[int(i)] for i in top], int(pos[e] in top)) for (z, e), top in zip(rows, near)]


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
    revised="after an external audit of the first build: decided on the two separately trained models alone, "
    "'refuted' if the unaligned spaces already retrieved translations (which cannot happen by construction), "
    "'corrected' if they failed and the dictionary map worked; since a later review it counts the literature figures from the "
    "source list (they were typed)",
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
