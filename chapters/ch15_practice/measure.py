"""Chapter 15, "Practical choices": fine-tuning a pre-trained LM on shifted data with its embedding frozen,
slowed or trained fully (C30), and English–Chinese word vectors before and after an orthogonal map fitted
on a seed dictionary (C48).

Their rules and checks are in the chapter's claims.py."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import numpy as np
import torch

from embedbook import align, data, lm, stats, word2vec
from embedbook import device as _device
from embedbook.book import Result
from embedbook.book.i18n import Msg, _
from embedbook.chapters.ch04_tying.measure import bpe_corpus

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


def run_finetune(source_tokens: int, target_tokens: int, seeds: int, *,
                 source_val_tokens: int, target_val_tokens: int | None, vocab_size: int = 512,
                 d_model: int = 32, n_layers: int = 1, context: int = 32, batch_size: int, lr: float = 1e-2,
                 ft_lr: float = 3e-3, small_mult: float = 0.1, max_steps: int, eval_every: int,
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


def run_alignment(zh_lines: int | None, *, epochs: int, n_candidates: int, k: int,
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
