"""Chapter 04, "Weight tying": parameter counts, tied against untied language models trained to a
plateau on little and on more data (C08), and what the literature says about tying at very large
vocabularies (C09).

Their rules and checks are in the chapter's claims.py."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from embedbook import data, lm, similarity, stats, tokenize
from embedbook import device as _device
from embedbook.book import Result, claims
from embedbook.book.i18n import _

# --- parameter counts ---------------------------------------------------------------------------------


@dataclass
class ParamCount(Result):
    """Parameters of one TinyLM shape built tied and untied (a shared tensor counted once)."""

    vocab: int
    d_model: int
    tied: int
    untied: int
    tied_embedding: int  # the one shared table
    untied_embedding: int  # input table + output head

    def extra_glue(self) -> dict:
        return {"saved": self.untied - self.tied, "share_tied": self.tied_embedding / self.tied,
                "share_untied": self.untied_embedding / self.untied}


def param_counts(vocab_size: int, d_model: int, **cfg) -> ParamCount:
    """Build :class:`embedbook.lm.TinyLM` once tied and once untied and count their parameters.

    Args:
        vocab_size, d_model: the model's vocabulary and width.
        **cfg: any other :class:`embedbook.lm.LMConfig` field (``n_layers``, ``n_heads``, ``context``…)
            except ``tie``: both settings are built.

    Returns:
        a :class:`ParamCount`.

    Raises:
        ValueError: ``tie`` was passed, or :class:`~embedbook.lm.LMConfig` refuses a setting.
    """
    if "tie" in cfg:
        raise ValueError("param_counts builds the model both tied and untied: leave out tie=")
    models = {tie: lm.TinyLM(lm.LMConfig(vocab_size, d_model=d_model, tie=tie, **cfg)) for tie in (True, False)}
    return ParamCount(
        vocab=vocab_size, d_model=d_model,
        tied=models[True].num_params(), untied=models[False].num_params(),
        tied_embedding=models[True].num_params("embedding"), untied_embedding=models[False].num_params("embedding"),
    )


# --- the corpus: Lee news, cut by a byte-level BPE trained on its training part --------------------------


@dataclass
class Corpus:
    """A BPE-encoded corpus: the training id stream (documents separated by ``<|endoftext|>``), the
    validation stream (the last documents), and the encoder (documents → one id stream) for other text."""

    vocab_size: int
    train: torch.Tensor
    val: torch.Tensor
    encode: Callable[[list[str]], torch.Tensor]


def lee_bpe(vocab_size: int = 512, val_fraction: float = 0.1) -> Corpus:
    """The Lee corpus cut into byte-level BPE tokens.

    Args:
        vocab_size: ids of the BPE, trained on the training documents only.
        val_fraction: share of the documents, the last ones, held out for validation.

    Returns:
        a :class:`Corpus`.

    Raises:
        ValueError: ``vocab_size`` below 257 (from :func:`embedbook.tokenize.train_bpe`).
    """
    docs = [" ".join(words) for words in data.lee_corpus()]
    return bpe_corpus(docs, docs, vocab_size, val_fraction)


def bpe_corpus(train_docs: list[str], val_docs: list[str] | None, vocab_size: int,
               val_fraction: float = 0.1) -> Corpus:
    """Encode documents with a byte-level BPE trained on the training documents.

    Args:
        train_docs: the documents the BPE is trained on.
        val_docs: the validation documents; pass ``train_docs`` itself (the same list) to hold out its
            last ``val_fraction`` instead.
        vocab_size: ids of the BPE.
        val_fraction: used only when ``val_docs is train_docs``.

    Returns:
        a :class:`Corpus` whose streams separate documents with ``<|endoftext|>``.

    Raises:
        ValueError: empty documents or ``vocab_size`` below 257 (from :func:`embedbook.tokenize.train_bpe`).
    """
    if val_docs is train_docs:
        cut = len(train_docs) - max(1, int(round(val_fraction * len(train_docs))))
        train_docs, val_docs = train_docs[:cut], train_docs[cut:]
    tok = tokenize.train_bpe(train_docs, vocab_size)
    eot = tok.token_to_id("<|endoftext|>")
    enc = lambda docs: torch.tensor([i for e in tok.encode_batch(docs) for i in [*e.ids, eot]], dtype=torch.long)
    return Corpus(tok.get_vocab_size(), enc(train_docs), enc(val_docs), enc)


# --- C08: tied against untied, trained to a plateau, on little and on more data -----------------------------


@dataclass
class Run:
    """One training run: its validation curve, best point and whether it stopped on a plateau."""

    tie: bool
    seed: int
    n_train: int
    steps: list[int]
    val_loss: list[float]
    train_loss: list[float]
    best_step: int
    best_val_loss: float
    train_at_best: float
    plateau: bool
    tokens_per_s: float


@dataclass
class Tying(Result):
    """Tied and untied TinyLMs on two training-set sizes, every seed, each trained to a plateau."""

    vocab: int
    d_model: int
    n_layers: int
    context: int
    batch_size: int
    lr: float
    eval_every: int
    patience: int
    min_delta: float
    small_tokens: int
    large_tokens: int
    n_val: int
    n_seeds: int
    unigram_small: float  # validation loss of a unigram model estimated on each training set (nats)
    unigram_large: float
    params_tied: int
    params_untied: int
    params_embedding: int  # one V × d table
    runs: list[Run] = field(default_factory=list)
    io_overlap: float = 0.0  # untied models: shared share of 10 nearest neighbours, input vs output table
    io_overlap_chance: float = 0.0
    bench_tokens_per_s: float = 0.0

    def arm(self, n_train: int, tie: bool) -> list[Run]:
        """The runs of one training-set size and tying setting, in seed order."""
        return sorted((r for r in self.runs if r.n_train == n_train and r.tie == tie), key=lambda r: r.seed)

    def gap(self, n_train: int) -> stats.SeedEffect:
        """Per seed, best validation loss untied − tied (nats): positive means tying helps."""
        return stats.seed_effect([r.best_val_loss for r in self.arm(n_train, False)],
                                 [r.best_val_loss for r in self.arm(n_train, True)])

    def extra(self) -> stats.SeedEffect:
        """Per seed, the small-data gap minus the larger-data gap: positive means tying helps more with little data."""
        return stats.seed_effect(list(self.gap(self.small_tokens).diffs), list(self.gap(self.large_tokens).diffs))

    def margin(self) -> float:
        """The smallest margin (nats) by which any run's best validation loss beats the unigram model."""
        uni = {self.small_tokens: self.unigram_small, self.large_tokens: self.unigram_large}
        return min(uni[r.n_train] - r.best_val_loss for r in self.runs)

    def mean_best(self, n_train: int, tie: bool) -> float:
        """Mean best validation loss over seeds (nats)."""
        return float(np.mean([r.best_val_loss for r in self.arm(n_train, tie)]))

    def extra_glue(self) -> dict:
        out = {"plateaus": sum(r.plateau for r in self.runs), "n_runs": len(self.runs), "margin": self.margin(),
               "saved": self.params_untied - self.params_tied,
               "share_untied": 2 * self.params_embedding / self.params_untied,
               "share_tied": self.params_embedding / self.params_tied,
               "ratio": self.large_tokens / self.small_tokens}
        for name, n in (("small", self.small_tokens), ("large", self.large_tokens)):
            g = self.gap(n)
            out |= {f"{name}_gap": g.mean, f"{name}_gap_lo": g.lo, f"{name}_gap_hi": g.hi,
                    f"{name}_tied_ppl": math.exp(self.mean_best(n, True)),
                    f"{name}_untied_ppl": math.exp(self.mean_best(n, False)),
                    f"{name}_tied_gen": float(np.mean([r.best_val_loss - r.train_at_best for r in self.arm(n, True)])),
                    f"{name}_untied_gen": float(np.mean([r.best_val_loss - r.train_at_best for r in self.arm(n, False)])),
                    f"{name}_steps_tied": float(np.mean([r.best_step for r in self.arm(n, True)])),
                    f"{name}_steps_untied": float(np.mean([r.best_step for r in self.arm(n, False)]))}
        out |= {"unigram_small_ppl": math.exp(self.unigram_small), "unigram_large_ppl": math.exp(self.unigram_large),
                "finding": self.finding()}
        return out

    def finding(self) -> str:
        """One sentence saying what the runs showed, per training-set size (for the chapter's summary)."""
        s, g = self.gap(self.small_tokens), self.gap(self.large_tokens)
        return _("with {small:,} training tokens {small_direction} ({s_lo:+.3f} to {s_hi:+.3f} nats, untied − "
                 "tied), and with {large:,} {large_direction} ({g_lo:+.3f} to {g_hi:+.3f} nats)").format(
            small=self.small_tokens, small_direction=_direction(s), s_lo=s.lo, s_hi=s.hi, large=self.large_tokens,
            large_direction=_direction(g), g_lo=g.lo, g_hi=g.hi)


def run_one(corpus: Corpus, n_train: int, *, tie: bool, seed: int, d_model: int, n_layers: int, context: int,
            batch_size: int, lr: float, max_steps: int, eval_every: int, patience: int, min_delta: float,
            device: torch.device | str | None = None) -> tuple[Run, lm.TinyLM]:
    """Train one TinyLM on the last ``n_train`` training tokens (the text right before the validation
    part) until the validation loss reaches a plateau.

    Args:
        corpus: the token streams.
        n_train: training tokens used.
        tie: tie the output layer to the input table.
        seed: fixes the initial weights, the batches and the dropout masks.
        d_model, n_layers, context: the model (``n_heads`` is ``d_model // 16``).
        batch_size, lr, max_steps, eval_every, patience, min_delta: :func:`embedbook.lm.train`'s.
        device: where to train (default: CPU); the weights are drawn on the CPU first.

    Returns:
        ``(run, model)``: the :class:`Run` and the model at its best point.

    The chapter writes this run's loop out in plain torch and checks it against this function.
    """
    _device.seed_everything(seed)
    cfg = lm.LMConfig(corpus.vocab_size, d_model=d_model, n_layers=n_layers, n_heads=max(1, d_model // 16),
                      context=context, tie=tie)
    model = lm.TinyLM(cfg).to(device or "cpu")  # built on the CPU first: the same weights on any device
    hist = lm.train(model, corpus.train[-n_train:], corpus.val, steps=max_steps, batch_size=batch_size, lr=lr,
                    eval_every=eval_every, seed=seed, progress=False, patience=patience, min_delta=min_delta)
    at = hist.steps.index(hist.best_step)
    run = Run(tie=tie, seed=seed, n_train=n_train, steps=hist.steps, val_loss=hist.val_loss,
              train_loss=hist.train_loss, best_step=hist.best_step, best_val_loss=hist.best_val_loss,
              train_at_best=hist.train_loss[at], plateau=hist.plateau, tokens_per_s=hist.tokens_per_s)
    return run, model


def run_tying(small_tokens: int, large_tokens: int, seeds: int, *, vocab_size: int = 512,
              d_model: int = 32, n_layers: int = 1, context: int = 32, batch_size: int, lr: float = 5e-3,
              max_steps: int, eval_every: int, patience: int = 4, min_delta: float = 0.01,
              first_seed: int = 0, device: torch.device | str | None = None) -> Tying:
    """Train tied and untied TinyLMs on ``small_tokens`` and on ``large_tokens`` BPE tokens of the Lee
    corpus, ``seeds`` seeds each, every run until its validation loss (the whole validation part)
    stops improving by ``min_delta`` for ``patience`` evaluations; the best weights count.

    A seed fixes the initial weights and the batch order, so the tied and the untied run of a seed see
    the same batches. The patience is generous (100 steps by default) because a tied model sits at the
    unigram model's loss for a while before it learns from context: a shorter patience stops it there.

    Args:
        small_tokens, large_tokens: training tokens of the two sizes (the text right before the
            validation part).
        seeds: seeds per arm: ``first_seed``, ``first_seed + 1``, …
        vocab_size: ids of the byte-level BPE.
        d_model, n_layers, context: the model's width, blocks and context.
        batch_size, lr, max_steps, eval_every, patience, min_delta: the training loop
            (:func:`embedbook.lm.train`); ``max_steps`` is a ceiling.
        first_seed: the first seed.
        device: where the models train (default: CPU).

    Returns:
        a :class:`Tying` with every run and the figures the checks read.

    Raises:
        ValueError: the sizes are not increasing, exceed the training part, or ``seeds`` is not positive.
    """
    if not 0 < small_tokens < large_tokens:
        raise ValueError(f"need 0 < small_tokens < large_tokens, got {small_tokens} and {large_tokens}")
    if not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be a positive int, got {seeds!r}")
    corpus = lee_bpe(vocab_size)
    if large_tokens > len(corpus.train):
        raise ValueError(f"large_tokens={large_tokens} exceeds the {len(corpus.train):,} training tokens")
    kw = dict(d_model=d_model, n_layers=n_layers, context=context, batch_size=batch_size, lr=lr,
              max_steps=max_steps, eval_every=eval_every, patience=patience, min_delta=min_delta, device=device)
    runs, untied_large = [], []
    for n in (small_tokens, large_tokens):
        for seed in range(first_seed, first_seed + seeds):
            for tie in (True, False):
                run, model = run_one(corpus, n, tie=tie, seed=seed, **kw)
                runs.append(run)
                if n == large_tokens and not tie:
                    untied_large.append(model)
    # Do the two tables of an untied model organise the tokens alike? (Press & Wolf 2017 compare them too.)
    counts = torch.bincount(corpus.train[-large_tokens:], minlength=corpus.vocab_size)
    queries = counts.argsort(descending=True)[:200].tolist()  # the 200 most frequent tokens
    overlap = float(np.mean([similarity.neighbour_overlap(m.embed.weight, m.head.weight, queries, k=10).mean()
                             for m in untied_large]))
    pc = param_counts(corpus.vocab_size, d_model, n_layers=n_layers, n_heads=max(1, d_model // 16), context=context)
    return Tying(
        vocab=corpus.vocab_size, d_model=d_model, n_layers=n_layers, context=context, batch_size=batch_size, lr=lr,
        eval_every=eval_every, patience=patience, min_delta=min_delta, small_tokens=small_tokens,
        large_tokens=large_tokens, n_val=len(corpus.val), n_seeds=seeds,
        unigram_small=lm.unigram_loss(corpus.train[-small_tokens:], corpus.val, corpus.vocab_size),
        unigram_large=lm.unigram_loss(corpus.train[-large_tokens:], corpus.val, corpus.vocab_size),
        params_tied=pc.tied, params_untied=pc.untied, params_embedding=pc.tied_embedding, runs=runs,
        io_overlap=overlap, io_overlap_chance=10 / (corpus.vocab_size - 1),
        bench_tokens_per_s=float(np.mean([r.tokens_per_s for r in runs])),
    )


def _direction(e: stats.SeedEffect) -> str:
    if e.n < 3:
        return (_("{n} seeds cannot decide") if e.n != 1 else _("{n} seed cannot decide")).format(n=e.n)
    if e.lo > 0:
        return _("tying lowered the loss on every seed")
    if e.hi < 0:
        return _("untying lowered the loss on every seed")
    return _("the seeds disagreed on the sign")

C09_SOURCES = (
    claims.Source("chung2021rethinking", "Chung et al. (ICLR 2021) decoupled the input and output embeddings of "
                  "multilingual BERT-style encoders (vocabularies of 120K–250K) and found the decoupled models better, "
                  "with the parameters saved on the input side better spent elsewhere",
                  "abstract; §3, decoupled against coupled embeddings", supports=("untying_helps_large_vocab",)),
    claims.Source("liu2024mobilellm", "Liu et al. (MobileLLM, ICML 2024) measure a cost of tying, 0.2 points of "
                  "average zero-shot accuracy, in a 125M-parameter model with a 32K vocabulary, and keep tying because "
                  "the 16M parameters it saves buy more as extra layers; they name no cost at large vocabularies",
                  "§2.2, embedding sharing, and its ablation table", supports=("icml2024_tying", "tying_cost_measured")),
    claims.Source("bertolotti2024tying", "Bertolotti & Cazzola (ICML 2024) relate tying to the distributional "
                  "hypothesis and advise it only where that hypothesis holds for the data; they name no vocabulary "
                  "size", "abstract; conclusions", supports=("icml2024_tying",)),
    claims.Source("chowdhery2022palm", "PaLM, with a 256K vocabulary, shares its input and output embeddings",
                  "§2, model architecture: shared input-output embeddings; vocabulary", supports=("tied_at_256k",)),
    claims.Source("gemma2024", "Gemma, with a 256K vocabulary, shares its input and output embeddings",
                  "§2, model architecture", supports=("tied_at_256k",)),
)
C09_COUNTED = {"studies_untying_helps_large_vocab": "untying_helps_large_vocab",
               "studies_threshold_256k": "cost_at_256k", "tied_models_256k": "tied_at_256k"}
C09_LITERATURE = claims.Literature(
    sources=C09_SOURCES,
    search=claims.Search(
        queries=("MobileLLM embedding sharing 125M ablation accuracy drop",
                 "MobileLLM 30-layer 125M sharing input and output embeddings reduces parameters by 16M 11.8% 0.2 "
                 "points drop average accuracy",
                 "weight tying large vocabulary 256K ICML 2024 performance loss"),
        corpora=("pages", "docs"), date="2026-12-01"),
    strongest_against=(
        "MobileLLM is an ICML 2024 study that does measure a cost of tying, so it may be the study the article "
        "means; but it measures it at a 32K vocabulary and a 125M model, the opposite end from 256K, and its "
        "authors tie anyway. Chung et al.'s gain from untying is at 120K–250K, close to the article's threshold, "
        "but not an ICML 2024 paper and not a located threshold."),
)


@dataclass
class TyingLiterature(Result):
    """The published figures C09's rule reads (basis: literature), with the miniature's input/output
    table comparison beside them as an illustration."""

    studies_untying_helps_large_vocab: int  # studies measuring a gain from untying at vocabularies >= 120K
    studies_threshold_256k: int  # studies placing a cost of tying at 256K and above
    tied_models_256k: int  # published models with a vocabulary of 256K or more that tie
    io_overlap: float  # miniature: neighbour agreement of the untied models' two tables
    io_overlap_chance: float


def literature_c09(tying: Tying | None = None) -> TyingLiterature:
    """The published counts C09's rule reads, counted from :data:`C09_LITERATURE`.

    Args:
        tying: the chapter's runs, for the illustration (the untied models' input/output neighbour
            agreement); None leaves it out.

    Returns:
        a :class:`TyingLiterature`.
    """
    f = C09_LITERATURE.figures(C09_COUNTED)
    return TyingLiterature(
        studies_untying_helps_large_vocab=f["studies_untying_helps_large_vocab"],
        studies_threshold_256k=f["studies_threshold_256k"],
        tied_models_256k=f["tied_models_256k"],
        io_overlap=tying.io_overlap if tying else float("nan"),
        io_overlap_chance=tying.io_overlap_chance if tying else float("nan"),
    )
