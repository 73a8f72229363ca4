"""Chapter 05, "How embeddings learn": the measurements behind C12–C16 and C38 (their rules and checks: claims.py)."""

from __future__ import annotations

import math
import random
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from embedbook import data, dynamics, lm
from embedbook.book import Result, claims, i18n
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED
from embedbook.book.i18n import _

SGD_LR = 1.0  # learning rate of the SGD (momentum 0.9) arm of C15
# C15's arms: (key, optimizer, init of the token table). The first is the 1x arm of the learning-rate study;
# each other arm changes one thing: the init scale (N(0, 1), torch's default) or the optimizer.
C15_ARMS: tuple[tuple[str, str, str], ...] = (
    ("adamw_small", "adamw", "normal_0.02"),
    ("adamw_unit", "adamw", "torch_default"),
    ("sgd_small", "sgd", "normal_0.02"),
)
C15_ARM_LABELS = {"adamw_small": _("AdamW, std 0.02"), "adamw_unit": _("AdamW, N(0, 1)"),
                  "sgd_small": _("SGD, std 0.02")}
# Readable names of :data:`embedbook.dynamics.DRIFT_OPTIMIZERS` (figure labels, prose).
OPTIMIZER_LABELS = {"sgd": "SGD", "sgd_momentum": _("SGD + momentum"), "adam": "Adam", "adamw": "AdamW",
                    "sparse_adam": "SparseAdam"}


def _concat(*parts: str) -> i18n.Msg:
    """Messages (and language-neutral strings) joined into one message, both languages kept."""
    side = lambda p, lang: getattr(p, lang) if isinstance(p, i18n.Msg) else p
    return i18n.Msg("".join(side(p, "en") for p in parts), "".join(side(p, "zh") for p in parts))

# --- the lesson's core: one step's gradient and update, row by row, under each optimizer ---------------------


@dataclass
class RowUpdates:
    """Per-row L2 norms of one step's gradient and of the update that step made, under each optimizer of
    :data:`embedbook.dynamics.DRIFT_OPTIMIZERS` (keyed by those names), on a small table that first took a step on
    ``warm`` (so the optimizer holds state for those rows) and then one on ``batch``."""

    vocab: int
    batch: list[int]
    warm: list[int]
    grad: dict[str, torch.Tensor] = field(default_factory=dict)  # optimizer -> [vocab], step 2's gradient
    update: dict[str, torch.Tensor] = field(default_factory=dict)  # optimizer -> [vocab], how far step 2 moved

    def rows_with_gradient(self, name: str) -> list[int]:
        return (self.grad[name] > 0).nonzero().flatten().tolist()

    def rows_moved(self, name: str) -> list[int]:
        return (self.update[name] > 0).nonzero().flatten().tolist()


def run_row_updates(batch: list[int], warm: list[int] | None = None, *, vocab: int = 10, d: int = 4,
                    lr: float = 0.1, seed: int = 0, head_seed: int = 1) -> RowUpdates:
    """The lesson's two steps for every optimizer: an ``nn.Embedding(vocab, d)`` built from ``seed`` (``sparse=True``
    for SparseAdam) and a fixed random read-out (from ``head_seed``; only the table learns) score each id's
    successor ``(id + 1) % vocab`` with a cross-entropy loss; step 1 on ``warm`` (default: every id), step 2 on
    ``batch``. The optimizers are built as :func:`embedbook.dynamics.absent_row_drift` builds them (SGD with
    momentum 0.9, AdamW with weight decay 0.1)."""
    warm_ids = torch.arange(vocab) if warm is None else torch.tensor(warm)
    ids = torch.tensor(batch)
    head = torch.randn(vocab, d, generator=torch.Generator().manual_seed(head_seed))

    def loss_of(emb: nn.Embedding, b: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(emb(b) @ head.T, (b + 1) % vocab)

    out = RowUpdates(vocab=vocab, batch=list(batch), warm=warm_ids.tolist())
    for name in dynamics.DRIFT_OPTIMIZERS:
        torch.manual_seed(seed)
        emb = nn.Embedding(vocab, d, sparse=name == "sparse_adam")
        opt = dynamics._optimizer(name, emb.parameters(), lr)
        loss_of(emb, warm_ids).backward()
        opt.step()
        opt.zero_grad()
        before = emb.weight.detach().clone()
        loss_of(emb, ids).backward()
        out.grad[name] = emb.weight.grad.to_dense().norm(dim=1)
        opt.step()
        out.update[name] = (emb.weight.detach() - before).norm(dim=1)
    return out


# --- C12: which rows one backward pass touches -----------------------------------------------------------

C12_DRIFT_STEPS = 20  # steps without the absent rows in C12's update count (C13's default, the same run)


@dataclass
class RowsTouched(Result):
    """Rows of a TinyLM's token table with a gradient after one step on one random batch, untied and tied."""

    vocab: int
    in_batch: int  # distinct input ids
    touched_untied: int
    touched_absent_untied: int
    present_untouched_untied: int
    touched_tied: int
    touched_absent_tied: int
    # the article's "updates": what the optimizers do to rows absent from the batches (C13's measurement,
    # :func:`embedbook.dynamics.absent_row_drift`, run here too)
    drift: dict[str, dynamics.Drift] = field(default_factory=dict)

    def extra_glue(self) -> dict:
        out = {"share_untied": self.touched_untied / self.vocab, "share_tied": self.touched_tied / self.vocab}
        for name, dr in self.drift.items():
            out[f"{name}_absent_rows_moved"] = dr.absent_rows_moved
        if self.drift:
            out["absent_rows"] = next(iter(self.drift.values())).absent_rows
        return out


def run_touched(vocab: int, d: int = 32, batch: int = 8, context: int = 32, seed: int = 0,
                device: str | torch.device = "cpu") -> RowsTouched:
    """One forward/backward pass of an untied and a tied :class:`~embedbook.lm.TinyLM` (same weights
    otherwise) on one random batch of ``batch × (context + 1)`` ids; count the rows with a gradient."""
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (batch, context + 1), generator=gen).to(device)
    rows = {}
    for tie in (False, True):
        torch.manual_seed(seed)
        model = lm.TinyLM(lm.LMConfig(vocab, d_model=d, n_layers=1, context=context, tie=tie, dropout=0.0)).to(device)
        rows[tie] = dynamics.one_step_rows(model, ids)
    u, t = rows[False], rows[True]
    return RowsTouched(vocab=vocab, in_batch=u.in_batch, touched_untied=u.touched, touched_absent_untied=u.touched_absent,
                       present_untouched_untied=u.present_untouched, touched_tied=t.touched,
                       touched_absent_tied=t.touched_absent,
                       drift={o: dynamics.absent_row_drift(o, steps=C12_DRIFT_STEPS, seed=seed)
                              for o in dynamics.DRIFT_OPTIMIZERS})


# --- C13: Adam, SparseAdam and rows that are not in the batch ----------------------------------------------


@dataclass
class Optimizers(Result):
    """What torch's optimizers do with embedding gradients: which accept the sparse gradient of
    ``nn.Embedding(sparse=True)`` and train it, dense Adam on a default (dense-gradient) table, and how far rows
    absent from the batches move under each optimizer."""

    verbatim = ("adam_error", "sgd_decay_error")  # torch's own messages: data, the same in both editions

    adam_error: str  # the message torch.optim.Adam raises on a sparse gradient ('' if none)
    adam_refused: int  # 1 if it raised
    sparse_adam_trains: int  # 1 if SparseAdam accepted the sparse gradient and lowered the loss
    sgd_trains: int  # the same for plain SGD
    sparse_accepting: list[str]  # every torch.optim optimizer that trained the sparse table
    sparse_refusing: list[str]  # those that raised
    sgd_decay_error: str  # what SGD with weight decay says to a sparse gradient ('' if it trained)
    dense_loss_before: float  # dense Adam on a default nn.Embedding: loss before and after training it
    dense_loss_after: float
    drift_steps: int
    absent_rows: int
    drift: dict[str, dynamics.Drift] = field(default_factory=dict)

    def extra_glue(self) -> dict:
        out = {}
        for name, dr in self.drift.items():
            out[f"{name}_absent"] = dr.absent_moved
            out[f"{name}_present"] = dr.present_moved
            out[f"{name}_absent_rows_moved"] = dr.absent_rows_moved
        return out

    def rows(self) -> list[dict]:
        """One row per optimizer (for a table or a figure)."""
        return [{"optimizer": n, "rows in the batches": d.present_moved, "rows absent from them": d.absent_moved,
                 "absent rows that moved": d.absent_rows_moved} for n, d in self.drift.items()]


def _table_task(sparse: bool, seed: int = 0) -> tuple[nn.Embedding, Callable[[], torch.Tensor]]:
    """A 64-row table, a fixed random read-out and targets: only the table learns."""
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    emb = nn.Embedding(64, 16, sparse=sparse)
    head = torch.randn(64, 16, generator=gen) / 4
    ids, y = torch.arange(0, 64, 2), torch.randint(0, 64, (32,), generator=gen)
    return emb, lambda: F.cross_entropy(emb(ids) @ head.T, y)


def train_table(optimizer: str, sparse: bool, steps: int = 20, seed: int = 0, **options) -> tuple[float, float, str]:
    """Train :func:`_table_task`'s table with ``torch.optim.<optimizer>(lr=0.05, **options)`` for ``steps`` steps;
    return the loss before and after, and the error torch raised ('' if none; then the losses are NaN)."""
    emb, loss_fn = _table_task(sparse, seed)
    if optimizer == "LBFGS":
        options.setdefault("max_iter", 1)  # one evaluation per step, like the others
    opt = getattr(torch.optim, optimizer)(emb.parameters(), lr=0.05, **options)
    losses = []
    try:
        with warnings.catch_warnings():  # Adagrad's sparse path warns about torch internals
            warnings.simplefilter("ignore", UserWarning)
            for _ in range(steps + 1):
                opt.zero_grad()
                loss = loss_fn()
                losses.append(loss.item())
                loss.backward()
                opt.step(loss_fn) if optimizer == "LBFGS" else opt.step()
    except RuntimeError as err:
        return math.nan, math.nan, str(err)
    return losses[0], losses[-1], ""


def torch_optimizers() -> list[str]:
    """The optimizer classes torch.optim offers (the installed version's)."""
    return sorted(n for n, o in vars(torch.optim).items()
                  if isinstance(o, type) and issubclass(o, torch.optim.Optimizer) and o is not torch.optim.Optimizer)


def _trains(optimizer: str, **options) -> int:
    before, after, err = train_table(optimizer, sparse=True, **options)
    return int(not err and after < before)


def run_optimizers(drift_steps: int, seed: int = 0) -> Optimizers:
    """Every torch.optim optimizer on the sparse gradient of ``nn.Embedding(sparse=True)``, dense Adam training a
    default table for 20 steps, and :func:`embedbook.dynamics.absent_row_drift` for every optimizer it knows."""
    before, after, _ = train_table("Adam", sparse=False, seed=seed)
    tried = {name: train_table(name, sparse=True, seed=seed) for name in torch_optimizers()}
    accepting = [n for n, (b, a, err) in tried.items() if not err and a < b]
    drift = {o: dynamics.absent_row_drift(o, steps=drift_steps, seed=seed) for o in dynamics.DRIFT_OPTIMIZERS}
    return Optimizers(adam_error=tried["Adam"][2], adam_refused=int(bool(tried["Adam"][2])),
                      sparse_adam_trains=int("SparseAdam" in accepting), sgd_trains=int("SGD" in accepting),
                      sparse_accepting=accepting, sparse_refusing=[n for n, t in tried.items() if t[2]],
                      sgd_decay_error=train_table("SGD", sparse=True, seed=seed, weight_decay=0.01)[2],
                      dense_loss_before=before, dense_loss_after=after, drift_steps=drift_steps,
                      absent_rows=drift["adam"].absent_rows, drift=drift)


# --- C14: what large models are trained with, and whether sparse gradients are why ------------------------


@dataclass(frozen=True)
class TrainingRecord:
    """What one large model's paper (or reference implementation) says about its optimizer: which optimizer,
    whether its embedding gradients were sparse, and the reason it gives for the optimizer, if any."""

    model: str
    optimizer: str  # as reported
    sgd_family: bool  # SGD, with or without (Nesterov) momentum
    sparse_embedding_grads: bool  # False: dense (an Adam-family optimizer keeps state for every row)
    reason: str  # the reason stated for the optimizer; "" where none is given
    language_model: bool
    cite: str
    where: str
    reason_is_sparse: bool = False  # the stated reason is that its embedding gradients are sparse

    def __post_init__(self) -> None:
        if self.reason_is_sparse and not (self.reason and self.sgd_family and self.sparse_embedding_grads):
            raise ValueError(f"{self.model}: a sparse-gradient reason needs its stated reason, an SGD-family "
                             "optimizer and sparse embedding gradients")

    def source(self) -> claims.Source:
        """This record as a :class:`claims.Source` for C14's rule. Tags: ``sgd_for_sparse_lm`` /
        ``sgd_for_sparse_other`` (supported by a stated sparse-gradient reason for SGD, in a language model or a
        model of another kind), ``sgd_for_sparse`` (contradicted by an SGD-trained model with dense embedding
        gradients), ``sgd_on_sparse_unstated`` (SGD on sparse tables, no reason stated: context) and ``lm_sgd``
        (supported by an SGD-trained language model, contradicted by an Adam-family one: context)."""
        supports, contradicts = [], []
        if self.language_model:
            (supports if self.sgd_family else contradicts).append("lm_sgd")
        if self.sgd_family and not self.sparse_embedding_grads:
            contradicts.append("sgd_for_sparse")
        elif self.sgd_family and self.reason_is_sparse:
            supports.append("sgd_for_sparse_lm" if self.language_model else "sgd_for_sparse_other")
        elif self.sgd_family:
            supports.append("sgd_on_sparse_unstated")
        grads = "sparse" if self.sparse_embedding_grads else "dense"
        why = f"stated reason: {self.reason}" if self.reason else "no reason stated for the optimizer"
        model, optimizer = _english(self.model), _english(self.optimizer)  # a declared source: its English words
        return claims.Source(self.cite, f"{model}: {optimizer}; {grads} embedding gradients; {why}",
                             self.where, supports=tuple(supports), contradicts=tuple(contradicts))


def _english(text: str) -> str:
    return text.en if isinstance(text, i18n.Msg) else text


_ADAM_DENSE = "dense gradients (an Adam-family optimizer keeps state for every row)"
# One record per model. The large language models first (each paper's training set-up), then the one model of
# another kind where sparse embedding gradients and SGD go together.
TRAINING_RECORDS: tuple[TrainingRecord, ...] = (
    TrainingRecord("GPT-3 (175B)", "Adam, β₂ = 0.95", False, False, "", True, "brown2020gpt3",
                   "Appendix B, details of model training"),
    TrainingRecord("Gopher (280B)", "Adam", False, False, "", True, "rae2021gopher", "§3 and Appendix C, training"),
    TrainingRecord("Chinchilla (70B)", "AdamW", False, False, "", True, "hoffmann2022chinchilla",
                   "§4.1 and Appendix (AdamW against Adam)"),
    TrainingRecord("PaLM (540B)", _("Adafactor without factorisation"), False, False, "", True, "chowdhery2022palm",
                   "§5, training set-up: optimizer"),
    TrainingRecord("OPT (175B)", "AdamW", False, False, "", True, "zhang2022opt", "§2.2, training set-up"),
    TrainingRecord("BLOOM (176B)", "Adam, β₂ = 0.95", False, False, "", True, "workshop2022bloom",
                   "training hyper-parameters"),
    TrainingRecord("LLaMA (7B–65B)", "AdamW, β₂ = 0.95", False, False, "", True, "touvron2023llama", "§2.2, optimizer"),
    TrainingRecord("Llama 2 (7B–70B)", "AdamW, β₂ = 0.95", False, False, "", True, "touvron2023llama2",
                   "§2.2, training details"),
    TrainingRecord("DeepSeek-V3 (671B)", "AdamW, β₂ = 0.95", False, False, "", True, "deepseek2024v3",
                   "§4.2, training hyper-parameters"),
    TrainingRecord(_("adaptive-input Transformer LM on WikiText-103 (247M)"),
                   _("Nesterov's accelerated gradient (NAG), an SGD with momentum"), True, False, "", True, "baevski2019adaptive",
                   "§4, optimization; fairseq's examples/language_model/README.adaptive_inputs.md trains it with "
                   "--optimizer nag; fairseq/modules/adaptive_input.py builds its bands from dense nn.Embedding"),
    TrainingRecord(_("DLRM (recommendation)"), "SGD", True, True, "", False, "naumov2019dlrm",
                   "reference implementation dlrm_s_pytorch.py: tables are nn.EmbeddingBag(..., sparse=True), "
                   "stepped by torch.optim.SGD by default; its --optimizer also offers Adagrad and row-wise sparse "
                   "Adagrad (rwsadagrad)"),
)
# A source that is not one model's training record: what adaptive optimizers and SGD do on sparse tables at scale.
C14_ADAPTIVE_AT_SCALE = claims.Source(
    "li2021frequency", "adaptive optimizers (Adagrad, Adam) give the state of the art on the sparse embedding tables "
    "of industrial-scale recommenders and of language models; SGD 'has struggled to keep up', converging more "
    "slowly to worse models. Its fix is a frequency-aware SGD, not sparse-gradient support",
    "§1, introduction (arXiv 2110.04844, ICLR 2022)", contradicts=("sgd_for_sparse",))
C14_COUNTED = {
    "n_lm_sgd": "lm_sgd", "n_lm_adam": ("lm_sgd", claims.CONTRADICTS),
    "n_lm_reason": "sgd_for_sparse_lm", "n_other_reason": "sgd_for_sparse_other",
    "n_against": ("sgd_for_sparse", claims.CONTRADICTS), "n_unstated": "sgd_on_sparse_unstated",
}
C14_LITERATURE = claims.Literature(
    sources=tuple(r.source() for r in TRAINING_RECORDS) + (C14_ADAPTIVE_AT_SCALE,),
    search=claims.Search(
        queries=("Adaptive input representations for neural language modeling Nesterov accelerated gradient "
                 "optimizer WikiText-103",
                 "fairseq transformer_lm_wiki103 adaptive inputs --optimizer nag --clip-norm 0.1",
                 "class AdaptiveInput(nn.Module)",
                 "DLRM deep learning recommendation model Naumov 2019 sparse embedding gradients SGD optimizer",
                 'EmbeddingBag(n, m, mode="sum", sparse=True)',
                 "large language model trained with SGD instead of Adam because of sparse embedding gradients",
                 "Frequency-aware SGD for Efficient Embedding Learning with Provable Benefits"),
        corpora=("pages", "docs", "code", "GitHub source (exact string)"), date="2026-12-01"),
    strongest_against=(
        "Against 'refuted': DLRM's reference implementation does step its sparse tables (nn.EmbeddingBag, "
        "sparse=True) with plain SGD, so sparse tables and SGD do meet in one large recommendation model; but "
        "neither its paper nor its code gives sparse gradients as the reason, and the survey found no source that "
        "does. The sample is the best-known large LMs, not a census: a large model whose paper gives that reason "
        "would change the verdict."),
)


@dataclass
class Survey(Result):
    """C14's training records (:data:`TRAINING_RECORDS`), counted."""

    n_models: int  # large language models surveyed
    n_sgd: int  # of them trained with an SGD-family optimizer
    n_adam_family: int  # Adam, AdamW or Adafactor
    n_sgd_sparse: int  # SGD-trained language models with sparse embedding gradients
    n_reason: int = 0  # sources stating sparse embedding gradients as the reason a large model used SGD
    n_against: int = 0  # sources contradicting it (SGD on dense gradients; adaptive optimizers on sparse tables)
    n_unstated: int = 0  # large models stepping sparse tables with SGD, no reason stated (context)
    records: list[TrainingRecord] = field(default_factory=list)

    def rows(self) -> list[dict]:
        """One row per record: model, optimizer, embedding gradients, stated reason, bib key."""
        return [{"model": r.model, "optimizer": r.optimizer,
                 "embedding gradients": _("sparse") if r.sparse_embedding_grads else _("dense"),
                 "reason stated": r.reason or _("none"), "cite": r.cite} for r in self.records]


def run_survey() -> Survey:
    """Count the records in :data:`TRAINING_RECORDS` (the language models among them)."""
    f = C14_LITERATURE.figures(C14_COUNTED)
    sparse_lm = sum(r.language_model and r.sgd_family and r.sparse_embedding_grads for r in TRAINING_RECORDS)
    return Survey(n_models=f["n_lm_sgd"] + f["n_lm_adam"], n_sgd=f["n_lm_sgd"], n_adam_family=f["n_lm_adam"],
                  n_sgd_sparse=sparse_lm, n_reason=f["n_lm_reason"] + f["n_other_reason"],
                  n_against=f["n_against"], n_unstated=f["n_unstated"], records=list(TRAINING_RECORDS))


# --- C15, C16: frequency, distance from init, and an embedding learning-rate multiplier ---------------------


@dataclass
class DriftArm:
    """One C15 arm: untied TinyLMs trained to a plateau with ``optimizer`` from a table initialised with
    ``init``; per seed the best validation loss, its step, the plateau flag, and per token id the relative
    distance of its row from the initial row and the cosine of the final row with the initial one."""

    key: str
    optimizer: str
    init: str
    lr: float
    best_val: list[float] = field(default_factory=list)
    best_step: list[int] = field(default_factory=list)
    plateau: list[int] = field(default_factory=list)
    drift: list[list[float]] = field(default_factory=list)
    cos: list[list[float]] = field(default_factory=list)


@dataclass
class LrStudy(Result):
    """Untied TinyLMs trained to a plateau with embedding learning-rate multipliers 1 and ``mult``, over seeds.

    ``arms[a]`` is the multiplier of arm ``a``; per arm and seed: the best validation loss (whole split),
    the step it was reached, whether training stopped at a plateau, the validation curve, and the mean loss
    at validation positions whose input token was seen 1..``rare_max`` times in training. The 1× runs also
    give each token's relative distance from its initial row (``drift[seed]``) against its training count.
    """

    vocab: int
    d: int
    train_tokens: int
    val_tokens: int
    unigram: float
    lr: float
    mult: float
    rare_max: int
    rare_positions: int
    seeds: list[int] = field(default_factory=list)
    arms: list[float] = field(default_factory=list)
    best_val: list[list[float]] = field(default_factory=list)
    best_step: list[list[int]] = field(default_factory=list)
    plateau: list[list[int]] = field(default_factory=list)
    rare_loss: list[list[float]] = field(default_factory=list)
    curves: list[list[tuple[list[int], list[float]]]] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)  # training count of each token id
    words: list[str] = field(default_factory=list)
    drift: list[list[float]] = field(default_factory=list)  # per seed, per token id (1x runs)
    drift_arms: list[DriftArm] = field(default_factory=list)  # C15's arms (the first: the 1x runs)

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    def extra_glue(self) -> dict:
        best = [min(v) for v in self.best_val]
        return {"n_seeds": self.n_seeds, "best_1x_min": best[0], "best_mult_min": best[1],
                "margin_min": self.unigram - max(max(v) for v in self.best_val),
                "steps_min": min(min(s) for s in self.best_step), "steps_max": max(max(s) for s in self.best_step)}


def run_lr_study(sentences: list[list[str]] | None = None, *, vocab_size: int, d: int, context: int = 32,
                 batch_size: int = 16, lr: float = 3e-3, mult: float, seeds: tuple[int, ...],
                 max_steps: int, eval_every: int = 20, patience: int = 4, min_delta: float = 1e-3,
                 rare_max: int = 10, sgd_lr: float = SGD_LR, other_arms: bool = True,
                 device: str | torch.device = "cpu") -> LrStudy:
    """Train one untied one-layer TinyLM per (multiplier, seed) on ``sentences`` (default: the Lee corpus) to a
    plateau, scoring the whole validation split; record per-position losses and, for the 1× runs, how far
    each token's row moved from its initial value. Then, unless ``other_arms`` is False (C16's held-out seeds
    need only the two multipliers), train the other arms of :data:`C15_ARMS` (1×, same protocol; SGD at
    ``sgd_lr``) and record the same for them."""
    sentences = data.lee_corpus() if sentences is None else sentences
    vocab = lm.Vocab.build(sentences, vocab_size)
    train_ids, val_ids = lm.split_ids(vocab.encode(sentences))
    counts = torch.bincount(train_ids, minlength=len(vocab))
    out = LrStudy(vocab=len(vocab), d=d, train_tokens=len(train_ids), val_tokens=len(val_ids),
                  unigram=lm.unigram_loss(train_ids, val_ids, len(vocab)), lr=lr, mult=mult, rare_max=rare_max,
                  rare_positions=0, seeds=list(seeds), arms=[1.0, float(mult)], counts=counts.tolist(),
                  words=list(vocab.itos))
    for m in out.arms:
        best, steps, plat, rare, curves = [], [], [], [], []
        for s in seeds:
            torch.manual_seed(s)
            model = lm.TinyLM(lm.LMConfig(len(vocab), d_model=d, n_layers=1, context=context, tie=False,
                                          dropout=0.0)).to(device)
            start = model.embed.weight.detach().clone()
            h = lm.train(model, train_ids, val_ids, steps=max_steps, batch_size=batch_size, lr=lr, emb_lr_mult=m,
                         eval_every=eval_every, patience=patience, min_delta=min_delta, seed=s, progress=False)
            losses, inputs = dynamics.position_losses(model, val_ids, context)
            rare_mean, n = dynamics.loss_by_count(losses, inputs, counts, 1, rare_max)
            out.rare_positions = n
            best.append(h.best_val_loss), steps.append(h.best_step), plat.append(int(h.plateau)), rare.append(rare_mean)
            curves.append((list(h.steps), list(h.val_loss)))
            if m == 1.0:
                out.drift.append(dynamics.distance_from_init(start, model.embed.weight).cpu().tolist())
                if not out.drift_arms:
                    key, opt, init = C15_ARMS[0]
                    out.drift_arms.append(DriftArm(key, opt, init, lr))
                _record_arm(out.drift_arms[0], h, start, model)
        out.best_val.append(best), out.best_step.append(steps), out.plateau.append(plat)
        out.rare_loss.append(rare), out.curves.append(curves)
    for key, opt, init in C15_ARMS[1:] if other_arms else ():
        arm = DriftArm(key, opt, init, sgd_lr if opt == "sgd" else lr)
        for s in seeds:
            torch.manual_seed(s)
            model = lm.TinyLM(lm.LMConfig(len(vocab), d_model=d, n_layers=1, context=context, tie=False, dropout=0.0,
                                          init=init)).to(device)
            start = model.embed.weight.detach().clone()
            h = lm.train(model, train_ids, val_ids, steps=max_steps, batch_size=batch_size, lr=arm.lr, optimizer=opt,
                         eval_every=eval_every, patience=patience, min_delta=min_delta, seed=s, progress=False)
            _record_arm(arm, h, start, model)
        out.drift_arms.append(arm)
    return out


def _record_arm(arm: DriftArm, h: lm.History, start: torch.Tensor, model: lm.TinyLM) -> None:
    final = model.embed.weight.detach()
    arm.best_val.append(h.best_val_loss), arm.best_step.append(h.best_step), arm.plateau.append(int(h.plateau))
    arm.drift.append(dynamics.distance_from_init(start, final).cpu().tolist())
    arm.cos.append(F.cosine_similarity(start.float(), final.float().to(start.device), dim=1).cpu().tolist())


def frequency_drift(r: LrStudy, rare_max: int = 3, frequent_min: int = 100) -> list[dynamics.FrequencyDrift]:
    """Per seed, :func:`embedbook.dynamics.drift_by_frequency` of the 1× runs (the two specials left out)."""
    return [dynamics.drift_by_frequency(r.counts[2:], drift[2:], rare_max, frequent_min) for drift in r.drift]


@dataclass(frozen=True)
class ArmSummary:
    """Per seed, for one C15 arm: rank correlation of count and relative distance, median relative distance and
    median cosine with the initial row of rare (seen 1–3 times) and frequent (≥ 100) tokens."""

    key: str
    rho: list[float]
    rare_drift: list[float]
    frequent_drift: list[float]
    rare_cos: list[float]
    frequent_cos: list[float]
    n_rare: int
    n_frequent: int


def arm_summaries(r: LrStudy, rare_max: int = 3, frequent_min: int = 100) -> list[ArmSummary]:
    """:func:`embedbook.dynamics.drift_by_frequency` of every C15 arm, on the relative distance and on the cosine
    with the initial row (the two specials left out)."""
    out = []
    for arm in r.drift_arms:
        dr = [dynamics.drift_by_frequency(r.counts[2:], x[2:], rare_max, frequent_min) for x in arm.drift]
        co = [dynamics.drift_by_frequency(r.counts[2:], x[2:], rare_max, frequent_min) for x in arm.cos]
        out.append(ArmSummary(arm.key, [x.rho for x in dr], [x.median_rare for x in dr], [x.median_frequent for x in dr],
                              [x.median_rare for x in co], [x.median_frequent for x in co], dr[0].n_rare,
                              dr[0].n_frequent))
    return out


def c15_reading(r: LrStudy) -> str:
    """The sentences for the page after the C15 figure (the box gives each arm's cosines): whether what the
    arms show is what AdamW's arithmetic (a step of about the learning rate per coordinate, next to a
    coordinate of size σ) leads one to expect, and how SGD differs."""
    near = claims.rule_of("C15").thresholds["near_cos"]
    summ = {sm.key: sm for sm in arm_summaries(r)}
    adamw = {arm.init: arm for arm in r.drift_arms if arm.optimizer == "adamw"}
    small, unit = adamw.get("normal_0.02"), adamw.get("torch_default")
    if small is None or unit is None:
        return _("An arm with AdamW from std 0.02 or from N(0, 1) is missing, so the two init scales cannot be "
                 "compared.")
    lr = small.lr
    arithmetic = _("AdamW moves each coordinate of a row by about its learning rate ({lr:g}) whenever the token "
                   "appears, whatever the gradient's size: {small:.0%} of a coordinate drawn at std 0.02, {unit:.1%} of "
                   "one at std 1. ").format(lr=lr, small=lr / 0.02, unit=lr)

    def state(key: str) -> str:
        cos = summ[key].rare_cos
        return "kept" if min(cos) >= near else "turned" if max(cos) < near else "mixed"

    pattern = (state("adamw_small"), state("adamw_unit"))
    seen = {
        ("turned", "kept"): _("So a few updates turn a small row and barely touch a unit-scale one: the scale of "
                              "the start, not rarity alone, keeps a row near it."),
        ("kept", "kept"): _("Even from std 0.02, the few updates of a rare row were too few to turn it here."),
        ("turned", "turned"): _("Even from std 1, the updates of a rare row added up to enough to turn it here, so "
                                "scale alone does not explain it."),
        ("kept", "turned"): _("Yet here the small rows kept their direction and the unit-scale ones did not: the "
                              "arithmetic does not explain this run."),
    }.get(pattern) or _("The seeds disagree in an AdamW arm, so this run cannot test that arithmetic.")
    sgd = (_(" SGD with momentum moves a row in proportion to its gradient instead.")
           if any(arm.optimizer == "sgd" for arm in r.drift_arms) else "")
    return _concat(arithmetic, seen, sgd)


# --- C38: shared contexts pull two words together --------------------------------------------------------------

FRUIT_CONTEXTS = [["很", "甜"], ["多少钱", "一斤"], ["是", "水果"], ["熟", "了"]]
PHONE_CONTEXTS = [["发布会", "开始", "了"], ["屏幕", "很", "大"], ["充电", "很", "快"], ["是", "电子", "产品"]]
PAIRS = (("苹果", "香蕉"), ("苹果", "手机"))


def fruit_corpus(n_sentences: int, seed: int = 0) -> list[list[str]]:
    """A controlled synthetic Chinese corpus: 苹果/香蕉 share fruit contexts, 手机/电脑 share device contexts.

    Each sentence is ``我 买 的 <word> <context…>``; no sentence holds two of the four words, so any pull
    between 苹果 and 香蕉 comes from their shared contexts alone.
    """
    if n_sentences < 4:
        raise ValueError(f"n_sentences must be >= 4, got {n_sentences}")
    rng = random.Random(seed)
    out = []
    for _ in range(n_sentences):
        word = rng.choice(["苹果", "香蕉", "手机", "电脑"])
        ctx = FRUIT_CONTEXTS if word in ("苹果", "香蕉") else PHONE_CONTEXTS
        out.append(["我", "买", "的", word, *rng.choice(ctx)])
    return out


def _cosines(weight: torch.Tensor, vocab: lm.Vocab) -> list[float]:
    w = weight.detach().float()
    return [float(F.cosine_similarity(w[vocab.stoi[a]], w[vocab.stoi[b]], dim=0)) for a, b in PAIRS]


@dataclass
class Pull(Result):
    """Cosine of the input rows of 苹果–香蕉 and of the control 苹果–手机 while an untied TinyLM learns the
    synthetic corpus to a plateau, per seed: the trajectory and the value at the best validation step."""

    n_sentences: int
    d: int
    unigram: float
    seeds: list[int] = field(default_factory=list)
    steps: list[list[int]] = field(default_factory=list)  # per seed, evaluation steps
    cos: list[list[list[float]]] = field(default_factory=list)  # per seed, per evaluation, per pair
    start: list[list[float]] = field(default_factory=list)  # per seed, per pair
    best: list[list[float]] = field(default_factory=list)  # per seed, per pair, at the restored best weights
    best_val: list[float] = field(default_factory=list)
    best_step: list[int] = field(default_factory=list)
    plateau: list[int] = field(default_factory=list)

    def extra_glue(self) -> dict:
        return {"n_seeds": len(self.seeds), "fruit_start": float(np.mean([s[0] for s in self.start])),
                "fruit_best": float(np.mean([b[0] for b in self.best])),
                "phone_best": float(np.mean([b[1] for b in self.best])), "margin_min": self.unigram - max(self.best_val)}


def run_pull(n_sentences: int, *, d: int = 16, context: int = 8, batch_size: int = 32, lr: float = 3e-3,
             seeds: tuple[int, ...], max_steps: int, eval_every: int = 10, patience: int = 4,
             min_delta: float = 1e-3, device: str | torch.device = "cpu") -> Pull:
    """Train one untied one-layer TinyLM per seed on :func:`fruit_corpus` (validation: its last tenth) to a
    plateau, recording the cosine of each pair's input rows at every evaluation."""
    corpus = fruit_corpus(n_sentences)
    vocab = lm.Vocab.build(corpus, 100)
    train_ids, val_ids = lm.split_ids(vocab.encode(corpus))
    out = Pull(n_sentences=n_sentences, d=d, unigram=lm.unigram_loss(train_ids, val_ids, len(vocab)), seeds=list(seeds))
    for s in seeds:
        torch.manual_seed(s)
        model = lm.TinyLM(lm.LMConfig(len(vocab), d_model=d, n_layers=1, n_heads=2, context=context, tie=False,
                                      dropout=0.0)).to(device)
        steps, cos = [], []

        def record(step: int, m: lm.TinyLM) -> None:
            steps.append(step), cos.append(_cosines(m.embed.weight, vocab))

        h = lm.train(model, train_ids, val_ids, steps=max_steps, batch_size=batch_size, lr=lr, eval_every=eval_every,
                     patience=patience, min_delta=min_delta, seed=s, progress=False, on_eval=record)
        out.steps.append(steps), out.cos.append(cos), out.start.append(cos[0])
        out.best.append(_cosines(model.embed.weight, vocab))
        out.best_val.append(h.best_val_loss), out.best_step.append(h.best_step), out.plateau.append(int(h.plateau))
    return out


# --- one take-away per claim and outcome, for the chapter's summary (full sentences, no claim codes) ----------

SUMMARY: dict[str, dict[str, str]] = {
    "C12": {CONFIRMED: _("Only the batch's rows get gradient through the lookup, and AdamW moved only those."),
            CORRECTED: _("Only the batch's rows get gradient through the lookup, yet AdamW, Adam and SGD with momentum "
                       "move the other rows too."),
            REFUTED: _("Rows outside the batch got gradient even without a tied output head.")},
    "C13": {CONFIRMED: _("Adam refuses sparse gradients and SparseAdam and SGD train them, but a table's gradient is "
                       "dense unless asked, and Adam trains it."),
            CORRECTED: _("Adam refuses sparse gradients, but only one of SparseAdam and SGD trained them here."),
            REFUTED: _("Adam accepted a sparse gradient, or neither SparseAdam nor SGD trained one.")},
    "C14": {CONFIRMED: _("A source gives sparse gradients as the reason a large language model trained with SGD."),
            CORRECTED: _("A large model of another kind gives sparse gradients as its reason for SGD; no language "
                       "model does."),
            REFUTED: _("Sparse gradients are not why large models pick an optimizer: large language models train "
                     "dense tables, nearly all with Adam-family optimizers."),
            INCONCLUSIVE: _("The sources surveyed do not say whether sparse gradients are why some models use SGD.")},
    "C15": {CONFIRMED: _("Rare rows keep their random direction in every arm, while frequent rows move further."),
            CORRECTED: _("Whether a rare row stays near its random start depends on the optimizer and the init scale, "
                       "not on rarity alone."),
            REFUTED: _("In no arm did rare rows stay near their random start."),
            INCONCLUSIVE: _("These runs cannot say whether rare rows stay near their random start.")},
    "C16": {CONFIRMED: _("A 10× embedding learning rate lowered the loss at rare inputs on every seed."),
            CORRECTED: _("A 10× embedding learning rate helped, but rare inputs no more than the rest."),
            REFUTED: _("A 10× embedding learning rate raised the loss at rare inputs on every seed."),
            INCONCLUSIVE: _("A 10× embedding learning rate showed no clear effect on rare inputs, and the cited study "
                          "could not be found.")},
    "C38": {CONFIRMED: _("Sharing next words alone pulled 苹果 and 香蕉 together, in a corpus built for the test."),
            REFUTED: _("Sharing next words did not pull 苹果 and 香蕉 together."),
            INCONCLUSIVE: _("These runs cannot say whether shared next words pull the rows together.")},
}


def and_all(words: list) -> i18n.Msg:
    """``words`` (messages or names) as one message, "a, b and c" in both languages."""
    msgs = [w if isinstance(w, i18n.Msg) else i18n.verbatim(w) for w in words]
    if not msgs:
        return i18n.verbatim("")
    head = msgs[0]
    for w in msgs[1:-1]:
        head = _("{first}, {last}").format(first=head, last=w)
    return head if len(msgs) == 1 else _("{first} and {last}").format(first=head, last=msgs[-1])
