"""Chapter 05, "How embeddings learn": the measurements and the checks of C12–C16 and C38."""

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

from embedbook import claims, data, dynamics, i18n, lm, stats
from embedbook.book import Result
from embedbook.i18n import _, tr
from embedbook.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, LITERATURE, REFUTED

MARGIN = 0.3  # nats below the unigram baseline a trained model must reach before its runs may decide a claim
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


def _and_all(words: list[str]) -> str:
    """``" and ".join(words)`` in the language being written."""
    return i18n.chain(words, _("{first} and {last}"))


def _or_all(words: list[str]) -> str:
    """``" or ".join(words)`` in the language being written."""
    return i18n.chain(words, _("{first} or {last}"))


def _semicolons(parts) -> str:
    """``"; ".join(parts)``, with the full-width semicolon in Chinese."""
    return ("；" if i18n.current() == "zh" else "; ").join(str(p) for p in parts)


def _commas(parts) -> str:
    """``", ".join(parts)``, with the full-width comma in Chinese."""
    return ("，" if i18n.current() == "zh" else ", ").join(str(p) for p in parts)


def _concat(*parts: str) -> i18n.Msg:
    """Messages (and language-neutral strings) joined into one message, both languages kept."""
    side = lambda p, lang: getattr(p, lang) if isinstance(p, i18n.Msg) else p
    return i18n.Msg("".join(side(p, "en") for p in parts), "".join(side(p, "zh") for p in parts))


def _code(text: str) -> i18n.Msg:
    """A message of the library's own (torch's error text): as it is in English, as inline code in Chinese."""
    return i18n.Msg(text, f"`{text}`" if text else text)

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


def run_touched(vocab: int = 2000, d: int = 32, batch: int = 8, context: int = 32, seed: int = 0,
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


@claims.rule(
    "C12",
    basis=claims.ARITHMETIC,
    quantity="both halves of the article's words (收到梯度更新; its example: 其余行的梯度为零, its figure: 其他行 不更新). "
    "The gradient: the rows of a small Transformer LM's input token table with a non-zero gradient after one "
    "backward pass on a random batch, against the distinct ids in the batch, with the table used only as the input "
    "lookup (an untied output matrix), as the article describes the embedding layer. The update: how many rows "
    "absent from every batch moved over 20 steps under AdamW, the optimizer modern LMs train their tables with "
    "(C13's measurement, embedbook.dynamics.absent_row_drift). Reported beside it, not deciding: the same count "
    "under plain SGD, SGD with momentum, Adam and SparseAdam, and the gradient count with the output head tied "
    "to the table",
    inputs={
        "in_batch": "distinct input ids in the batch",
        "touched_untied": "rows with gradient, untied head",
        "touched_absent_untied": "rows with gradient whose id is not in the batch, untied head",
        "present_untouched_untied": "ids in the batch whose row got no gradient, untied head",
        "adamw_absent_rows_moved": "rows absent from every batch that moved under AdamW",
    },
    outcomes={
        CONFIRMED: "the rows with gradient are exactly the ids in the batch, and no absent row moved under AdamW",
        CORRECTED: "the rows with gradient are exactly the ids in the batch, but absent rows moved under AdamW: "
        "only the gradient is confined to the batch's rows, not the update",
        REFUTED: "a row absent from the batch gets gradient, or a row in it gets none",
    },
    examples={
        # the update count of a lazy optimizer (SparseAdam's, or plain SGD's) in AdamW's place
        CONFIRMED: {"in_batch": 240, "touched_untied": 240, "touched_absent_untied": 0, "present_untouched_untied": 0,
                    "adamw_absent_rows_moved": 0},
        # what AdamW does: weight decay and momentum move every absent row
        CORRECTED: {"in_batch": 240, "touched_untied": 240, "touched_absent_untied": 0, "present_untouched_untied": 0,
                    "adamw_absent_rows_moved": 32},
        # what the count gives when the table also receives gradient elsewhere (a tied head does exactly this)
        REFUTED: {"in_batch": 240, "touched_untied": 2000, "touched_absent_untied": 1760, "present_untouched_untied": 0,
                  "adamw_absent_rows_moved": 32},
    },
    revised="'confirmed' only if a tied output head also kept the gradient to the batch's rows, else 'confirmed "
    "with a correction'; a later review's first version judged the untied gradient alone ('confirmed' if exactly the "
    "batch's rows got gradient, else 'refuted'). Revised again after a second reading, with every count "
    "known, to judge the update half too",
)
def _c12(f, t):
    exact = f["touched_untied"] == f["in_batch"] and f["touched_absent_untied"] == 0 and f["present_untouched_untied"] == 0
    if not exact:
        return REFUTED
    return CONFIRMED if f["adamw_absent_rows_moved"] == 0 else CORRECTED


@claims.check("C12")
def check_c12(r: RowsTouched) -> claims.Verdict:
    """Settle C12 from :func:`run_touched`."""

    d = r.drift

    def evidence(v: str) -> str:
        head = _("The gradient: one step of a small Transformer LM on a batch holding {in_batch} distinct ids of a "
                 "{vocab:,}-row table used only as the input lookup: {touched} rows got a non-zero gradient").format(
                     in_batch=r.in_batch, vocab=r.vocab, touched=r.touched_untied)
        moved = _("The update: over {steps} steps in which they were absent from every batch, {adamw} of {absent} "
                  "absent rows moved under AdamW, {adam} under Adam, {sgd_momentum} under SGD with momentum, and {sgd} "
                  "under plain SGD and {sparse_adam} under SparseAdam. ").format(
                      steps=C12_DRIFT_STEPS, adamw=d["adamw"].absent_rows_moved, absent=d["adamw"].absent_rows,
                      adam=d["adam"].absent_rows_moved, sgd_momentum=d["sgd_momentum"].absent_rows_moved,
                      sgd=d["sgd"].absent_rows_moved, sparse_adam=d["sparse_adam"].absent_rows_moved)
        tied = _("Context, not deciding: a table that is also the output head (weight tying, which the article treats "
                 "separately) got gradient in {tied:,} of {vocab:,} rows ({absent:,} of them absent from the batch), "
                 "because the softmax scores every word of the vocabulary with the same matrix.").format(
                     tied=r.touched_tied, vocab=r.vocab, absent=r.touched_absent_tied)
        exact = _(", exactly the ids in the batch and no other, as the article says. ")
        return head + {
            CONFIRMED: exact + moved
                       + _("No absent row moved under AdamW either, so the update too stays with the batch's rows. ")
                       + tied,
            CORRECTED: exact + moved
                       + _("So the other rows' gradient is zero, but they are not left un-updated under the optimizer "
                           "LMs use: only plain SGD (no momentum, no weight decay) or a lazy optimizer such as "
                           "SparseAdam updates the batch's rows alone. ") + tied,
            REFUTED: _(", {absent} of them for ids absent from the batch and {untouched} ids in the batch without "
                       "one. ").format(absent=r.touched_absent_untied, untouched=r.present_untouched_untied)
                     + moved + tied,
        }[v]

    figures = {"in_batch": r.in_batch, "touched_untied": r.touched_untied, "touched_absent_untied": r.touched_absent_untied,
               "present_untouched_untied": r.present_untouched_untied,
               "adamw_absent_rows_moved": d["adamw"].absent_rows_moved, "absent_rows": d["adamw"].absent_rows,
               "sgd_absent_rows_moved": d["sgd"].absent_rows_moved, "adam_absent_rows_moved": d["adam"].absent_rows_moved,
               "touched_absent_tied": r.touched_absent_tied, "touched_tied": r.touched_tied, "vocab": r.vocab}
    def finding(v: str) -> str:
        if v == REFUTED:
            return _("One backward pass gave gradient to {absent} rows absent from the batch and left {untouched} rows "
                     "in it without one.").format(absent=r.touched_absent_untied, untouched=r.present_untouched_untied)
        lazy = _join([_("plain SGD") if o == "sgd" else OPTIMIZER_LABELS[o] for o, dr in d.items()
                      if dr.absent_rows_moved == 0]) or _("none")
        moved = d["adamw"].absent_rows_moved
        update = (_("and AdamW moved none of the {absent} rows absent from every batch").format(
                      absent=d["adamw"].absent_rows) if moved == 0
                  else _("but AdamW then moved {moved} of {absent} rows absent from every batch; only {lazy} left "
                         "them").format(moved=moved, absent=d["adamw"].absent_rows, lazy=lazy))
        return _("A backward pass gave gradient to exactly the {n} rows of the batch's ids, {update}.").format(
            n=r.in_batch, update=update)

    return claims.judge(
        "C12", figures, evidence, finding=finding,
        strength=_("exact: the gradient of one backward pass, read row by row, and row distances after a fixed "
        "sequence of optimizer steps. Rule revised twice in a later review, each time after measuring. Before "
        "that review it was 'confirmed' only if a tied head also kept the gradient to the batch's rows, which a softmax "
        "head never does. A later review's first version judged the untied input lookup's gradient alone ('confirmed'). "
        "A second reading then pointed out that the article says the rows receive gradient *updates* (its figure: the "
        "other rows 不更新, not updated), so the rule now judges both halves: the gradient, and whether absent rows "
        "move under AdamW. That reading, and AdamW as the optimizer that decides, were chosen after all these "
        "counts were known (the update counts were already in C13's box); the tied head is reported as context."))


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


def run_optimizers(drift_steps: int = 20, seed: int = 0) -> Optimizers:
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


@claims.rule(
    "C13",
    basis=claims.MEASURED,
    quantity="in PyTorch (the framework whose optimizer names the article uses): whether torch.optim.Adam accepts "
    "the sparse gradient of nn.Embedding(sparse=True), and whether SparseAdam and plain SGD each accept it and lower "
    "the loss of such a table in 20 steps. 'Sparse gradient' is read as the sparse tensor format, the sense of "
    "torch's own message ('Adam does not support sparse gradients, please consider SparseAdam instead'), which the "
    "sentence follows. Reported beside it, not deciding: every other torch.optim optimizer on the same gradient, "
    "and dense Adam on a default nn.Embedding, whose gradient is a dense tensor with zero rows",
    inputs={"adam_refused": "1 if Adam raised on the sparse gradient",
            "sparse_adam_trains": "1 if SparseAdam accepted it and lowered the loss",
            "sgd_trains": "1 if plain SGD accepted it and lowered the loss"},
    outcomes={
        CONFIRMED: "Adam refuses the sparse gradient, and SparseAdam and SGD both train the table",
        CORRECTED: "Adam refuses it, but only one of SparseAdam and SGD trains the table",
        REFUTED: "Adam accepts the sparse gradient, or neither SparseAdam nor SGD trains the table",
    },
    examples={
        CONFIRMED: {"adam_refused": 1, "sparse_adam_trains": 1, "sgd_trains": 1},
        # SGD with weight decay refuses a sparse gradient in torch 2.x (add(sparse, dense) is not supported)
        CORRECTED: {"adam_refused": 1, "sparse_adam_trains": 1, "sgd_trains": 0},
        REFUTED: {"adam_refused": 0, "sparse_adam_trains": 1, "sgd_trains": 1},
    },
    revised="'confirmed' only if dense Adam could not train a default nn.Embedding either, which no real "
    "torch does; otherwise 'confirmed with a correction'. Revised in a later review with those results known",
)
def _c13(f, t):
    if not f["adam_refused"] or not (f["sparse_adam_trains"] or f["sgd_trains"]):
        return REFUTED
    return CONFIRMED if f["sparse_adam_trains"] and f["sgd_trains"] else CORRECTED


@claims.check("C13")
def check_c13(r: Optimizers) -> claims.Verdict:
    """Settle C13 from :func:`run_optimizers`."""
    d = r.drift

    def evidence(v: str) -> str:
        said = _('raised "{error}"').format(error=_code(r.adam_error)) if r.adam_refused else _("accepted it")
        works = [n for n, ok in (("SparseAdam", r.sparse_adam_trains), ("SGD", r.sgd_trains)) if ok]
        head = (_("Handed the gradient of nn.Embedding(sparse=True), torch.optim.Adam {said}; {works} trained the "
                  "table. ").format(said=said, works=_and_all(works)) if works else
                _("Handed the gradient of nn.Embedding(sparse=True), torch.optim.Adam {said}; neither SparseAdam nor "
                  "SGD trained the table. ").format(said=said))
        others = [n for n in r.sparse_accepting if n not in ("SparseAdam", "SGD")]
        extra = _("{sentence}. ").format(sentence=_concat(
            _("Of the {n} optimizers in torch.optim, {refusing} refuse it").format(
                n=len(r.sparse_accepting) + len(r.sparse_refusing), refusing=len(r.sparse_refusing)),
            _(" and {others} also train it").format(others=_and_all(others)) if others else "",
            _('; SGD with weight decay refuses it too ("{error}")').format(error=_code(r.sgd_decay_error))
            if r.sgd_decay_error else ""))
        dense = _("The restriction applies only when sparse gradients are asked for: a default nn.Embedding's gradient "
                  "is an ordinary dense tensor with zero rows, and dense Adam took its loss from {before:.3f} to "
                  "{after:.3f} in 20 steps. ").format(before=r.dense_loss_before, after=r.dense_loss_after)
        moved = _("What differs is what happens to rows absent from the batch: over {steps} steps without them, {adam} "
                  "of {absent} absent rows moved under Adam (mean distance {adam_distance:.3f}, through its momentum), "
                  "{adamw} under AdamW (momentum and weight decay), {sgd_momentum} under SGD with momentum, and "
                  "{sparse_adam} under SparseAdam and {sgd} under plain SGD.").format(
                      steps=r.drift_steps, adam=d["adam"].absent_rows_moved, absent=r.absent_rows,
                      adam_distance=d["adam"].absent_moved, adamw=d["adamw"].absent_rows_moved,
                      sgd_momentum=d["sgd_momentum"].absent_rows_moved, sparse_adam=d["sparse_adam"].absent_rows_moved,
                      sgd=d["sgd"].absent_rows_moved)
        return head + {
            CONFIRMED: _("So SparseAdam or SGD is needed for sparse gradients, as the article says. "),
            CORRECTED: _("So only {way} is a way out here. ").format(way=works[0] if works else _("one of them")),
            REFUTED: "",
        }[v] + extra + dense + moved

    figures = {"adam_refused": r.adam_refused, "sparse_adam_trains": r.sparse_adam_trains, "sgd_trains": r.sgd_trains,
               "dense_adam_trains": int(r.dense_loss_after < r.dense_loss_before),
               "adam_absent": d["adam"].absent_moved, "sparse_adam_absent": d["sparse_adam"].absent_moved}
    def finding(v: str) -> str:
        works = [n for n, ok in (("SparseAdam", r.sparse_adam_trains), ("SGD", r.sgd_trains)) if ok]
        trains = (_("{works} both train such a table").format(works=_and_all(works)) if len(works) == 2 else
                  _("{works} trains such a table").format(works=works[0]) if works else
                  _("neither SparseAdam nor SGD trains such a table"))
        dense = (_("and Adam trains it") if r.dense_loss_after < r.dense_loss_before else _("and Adam failed to train it"))
        return (_("Adam refuses a sparse gradient; {trains}. But gradients are sparse only on request: a default "
                  "table's is dense, {dense}.") if r.adam_refused else
                _("Adam accepts a sparse gradient; {trains}. But gradients are sparse only on request: a default "
                  "table's is dense, {dense}.")).format(trains=trains, dense=dense)

    return claims.judge(
        "C13", figures, evidence, finding=finding,
        strength=_("exact: torch's own error messages and losses, and row distances after a fixed sequence of steps, "
        "in the installed torch. Rule revised in a later review, after measuring: it was 'confirmed' only if "
        "dense Adam could not train a default table either, which no real torch does, so 'confirmed' was "
        "unreachable and the rule gave 'confirmed with a correction'. It now tests the sentence's two halves "
        "(Adam refuses; SparseAdam or SGD trains) in the sense of torch's message, which the sentence follows "
        "nearly word for word; the dense-gradient reading (a default table, which Adam trains) is reported "
        "beside it, and the reading was chosen on that text with both results already known."))


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


def _hypothetical(model, lm_, cite):
    """A HYPOTHETICAL record, not a source: the kind of record that would support the article's explanation (a
    paper stating that it trains with SGD because dense Adam does not accept its sparse embedding gradients).
    No such paper was found; the rule test uses it to show the outcome is reachable."""
    return TrainingRecord(f"hypothetical: {model}", "SGD", True, True,
                          "hypothetical: dense Adam does not accept its sparse embedding gradients", lm_, cite,
                          "hypothetical record, not a source: the kind of record that would confirm",
                          reason_is_sparse=True).source()


_C14_ADAM = tuple(s for r, s in zip(TRAINING_RECORDS, C14_LITERATURE.sources) if r.language_model and not r.sgd_family)
_C14_REAL = C14_LITERATURE.sources


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


@claims.rule(
    "C14",
    quantity="the article's explanation, that sparse embedding gradients (which dense Adam refuses) are the reason "
    "some large models train with SGD, read from the reasons the sources state. Per large model, from its paper "
    "or reference implementation: the optimizer, whether its embedding gradients were sparse, and the reason "
    "stated for the optimizer (nine large language models, Baevski and Auli's adaptive-input WikiText-103 LM, and "
    "DLRM, a recommendation model); and Li et al. on the optimizers of sparse tables at scale. A source supports "
    "the explanation if it states sparse embedding gradients as the reason a large model used SGD; it contradicts "
    "it if it reports a large model trained with SGD on dense embedding gradients, or adaptive optimizers used on "
    "sparse tables at scale. SGD on sparse tables with no reason stated decides nothing. 'Large models' (大模型) is "
    "read as large language models, the article's own use of the word (当前主流大模型的词表); a stated reason in a "
    "large model of another kind can only correct",
    inputs={
        "n_lm_reason": "sources stating sparse embedding gradients as the reason a large LM used SGD",
        "n_other_reason": "the same for a large model of another kind (e.g. a recommender)",
        "n_against": "sources contradicting it: a large model trained with SGD on dense embedding gradients, or "
        "adaptive optimizers on sparse tables at scale",
        "n_unstated": "large models stepping sparse tables with SGD, no reason stated (context, not deciding)",
        "n_lm_sgd": "large LMs trained with an SGD-family optimizer (context)",
        "n_lm_adam": "large LMs trained with Adam, AdamW or Adafactor",
    },
    thresholds={"min_models": 5},
    literature=C14_LITERATURE,
    counted=C14_COUNTED,
    outcomes={
        CONFIRMED: "a source states sparse embedding gradients as the reason a large LM used SGD",
        CORRECTED: "none does for a language model, but one does for a large model of another kind: the explanation "
        "holds there, not for language models",
        INCONCLUSIVE: "no source states that reason, and fewer than min_models large LMs were surveyed or no source "
        "contradicts it",
        REFUTED: "no source states that reason, at least min_models large LMs were surveyed, and a source "
        "contradicts it",
    },
    examples={
        # HYPOTHETICAL records, labelled so (see _hypothetical): the kind of record that would decide
        CONFIRMED: claims.source_set(*_C14_REAL, _hypothetical("a large LM's paper", True, "baevski2019adaptive")),
        CORRECTED: claims.source_set(*_C14_REAL, _hypothetical("a recommender's paper", False, "naumov2019dlrm")),
        INCONCLUSIVE: claims.source_set(*_C14_ADAM[:3]),
        REFUTED: claims.source_set(*_C14_REAL),
    },
    basis=LITERATURE,
    revised="'confirmed' if any surveyed large LM was trained with SGD, 'refuted' if none of at least five was. "
    "A later review's first version: 'confirmed' if a large LM trained with SGD on sparse embedding gradients, 'confirmed "
    "with a correction' if only a model of another kind did (DLRM's code). Revised again after a second "
    "audit, with the sources known, to count the stated reasons and Li et al.",
)
def _c14(f, t):
    if f["n_lm_reason"] >= 1:
        return CONFIRMED
    if f["n_other_reason"] >= 1:
        return CORRECTED
    if f["n_lm_sgd"] + f["n_lm_adam"] < t["min_models"] or f["n_against"] == 0:
        return INCONCLUSIVE
    return REFUTED


@claims.check("C14")
def check_c14(r: Survey) -> claims.Verdict:
    """Settle C14 from the training records and Li et al. (:data:`C14_LITERATURE`); ``r`` is their count."""
    sgd_lms = [x.model for x in r.records if x.language_model and x.sgd_family]
    unstated = [x.model for x in r.records if x.sgd_family and x.sparse_embedding_grads and not x.reason_is_sparse]

    def evidence(v: str) -> str:
        names = lambda models: _commas(i18n.here(m) for m in models)
        head = (_("Of {n_models} large language models whose papers state the optimizer, {n_adam} used Adam, AdamW or "
                  "Adafactor, with dense embedding gradients, and {n_sgd} an SGD-family optimizer").format(
                      n_models=r.n_models, n_adam=r.n_adam_family, n_sgd=r.n_sgd)
                + ((_(" ({models}), with sparse embedding gradients and no reason stated for it") if r.n_sgd_sparse
                    else _(" ({models}), with dense embedding gradients and no reason stated for it")).format(
                        models=names(sgd_lms)) if sgd_lms else "")
                + (_(". {n} sources state sparse embedding gradients as the reason a large model used SGD; ")
                   if r.n_reason != 1 else
                   _(". {n} source states sparse embedding gradients as the reason a large model used SGD; ")).format(
                       n=r.n_reason)
                + (_("{n} contradicts it (SGD on dense embedding gradients, or Li et al.: adaptive optimizers dominate "
                     "the sparse tables of industrial-scale recommenders and SGD 'has struggled to keep up'). ")
                   if r.n_against == 1 else
                   _("{n} contradict it (SGD on dense embedding gradients, or Li et al.: adaptive optimizers dominate "
                     "the sparse tables of industrial-scale recommenders and SGD 'has struggled to keep up'). ")).format(
                       n=r.n_against))
        context = (_("Context, not deciding: {models} steps sparse tables with plain SGD in its reference "
                     "implementation, with no reason given; one implementation's choice, not the practice of "
                     "recommendation models. ").format(models=names(unstated)) if unstated else "")
        return (head + {
            CONFIRMED: _("A source gives sparse gradients as the reason a large language model trained with SGD, as "
                         "the article explains. ") + context,
            CORRECTED: _("No language model's source gives that reason, but a large model of another kind's does: the "
                         "explanation holds there, not for language models. ") + context,
            INCONCLUSIVE: _("The sources do not settle whether sparse gradients are why (too few models surveyed, or "
                            "nothing either way). ") + context,
            REFUTED: _("No source gives sparse gradients as the reason for SGD, and the sources that bear on it say "
                       "otherwise: the SGD-trained language model had dense gradients, which dense Adam accepts (as "
                       "measured above), and at scale sparse tables are trained with adaptive optimizers. ") + context,
        }[v]).rstrip()

    strength = _(
        "{n} training records and one study, each cited with where it says so; a sample of the "
        "best-known large LMs, not a census. Rule revised twice in a later review, each time with these sources known: "
        "first from 'confirmed if any surveyed LLM used SGD' (which asks whether SGD was used, not why) to whether "
        "a large model used SGD on sparse gradients, which DLRM's code alone turned into 'confirmed with a "
        "correction'; then, after a second reading, to the reasons the sources state, with Li et al. added. The reading "
        "of 大模型 as language models is the rule's from its first version."
    ).format(n=len(r.records))
    def finding(v: str) -> str:
        why = ((_("{n} sources give sparse gradients as the reason a large model trained with SGD") if r.n_reason != 1
                else _("{n} source gives sparse gradients as the reason a large model trained with SGD")).format(
                    n=r.n_reason) if r.n_reason else
               _("No source gives sparse gradients as the reason a large model trained with SGD"))
        return _("{why}; {n_adam} of {n_models} large language models trained with Adam, AdamW or Adafactor, on dense "
                 "gradients.").format(why=why, n_adam=r.n_adam_family, n_models=r.n_models)

    return claims.judge("C14", {}, evidence, strength, finding=finding)


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


def run_lr_study(sentences: list[list[str]] | None = None, *, vocab_size: int = 2000, d: int = 32, context: int = 32,
                 batch_size: int = 16, lr: float = 3e-3, mult: float = 10.0, seeds: tuple[int, ...] = (0, 1, 2),
                 max_steps: int = 3000, eval_every: int = 20, patience: int = 4, min_delta: float = 1e-3,
                 rare_max: int = 10, sgd_lr: float = SGD_LR, device: str | torch.device = "cpu") -> LrStudy:
    """Train one untied one-layer TinyLM per (multiplier, seed) on ``sentences`` (default: the Lee corpus) to a
    plateau, scoring the whole validation split; record per-position losses and, for the 1× runs, how far
    each token's row moved from its initial value. Then train the other arms of :data:`C15_ARMS` (1×, same
    protocol; SGD at ``sgd_lr``) and record the same for them."""
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
    for key, opt, init in C15_ARMS[1:]:
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


def _weak(f: dict, t: dict) -> bool:
    return f["n_seeds"] < t["min_seeds"] or not f["plateau_all"] or f["margin_min"] < t["margin"]


def _weak_reason(cid: str, f: dict, otherwise: str) -> str:
    """Why a rule gave 'inconclusive here': the evidence-strength conditions that failed, else ``otherwise``."""
    t = claims.rule_of(cid).thresholds
    why = []
    if f["n_seeds"] < t["min_seeds"]:
        why.append((_("only {n} seeds, where the rule asks for {min_seeds}") if f["n_seeds"] != 1 else
                    _("only {n} seed, where the rule asks for {min_seeds}")).format(n=f["n_seeds"],
                                                                                   min_seeds=t["min_seeds"]))
    if not f["plateau_all"]:
        why.append(_("not every run reached its validation plateau"))
    if f["margin_min"] < t["margin"]:
        why.append(_("a run ended only {margin:.2f} nats below the unigram baseline, where the rule asks for "
                     "{least:g}").format(margin=f["margin_min"], least=t["margin"]))
    return _("The runs are too weak to judge: {why}.").format(why=_semicolons(why)) if why else otherwise


_STRENGTH_INPUTS = {
    "n_seeds": "seeds per arm",
    "plateau_all": "1 if every run stopped at its validation plateau (early stopping), else 0",
    "margin_min": "smallest margin (nats) of a run's best validation loss below the unigram baseline",
}


def _c15_arm_inputs() -> dict:
    out = {}
    for key, _, _ in C15_ARMS:
        label = C15_ARM_LABELS[key].en  # a rule's declared words stay English
        out[f"{key}_rare_cos_min"] = f"{label}: smallest (over seeds) median cosine of a rare row with its initial row"
        out[f"{key}_rare_cos_max"] = f"{label}: largest of those medians"
        out[f"{key}_rho_min"] = f"{label}: smallest Spearman correlation of training count and relative distance"
    return out


def _c15_example(small: tuple[float, float, float], unit: tuple[float, float, float], sgd: tuple[float, float, float],
                 plateau: int = 1) -> dict:
    ex = {"n_seeds": 3, "plateau_all": plateau, "margin_min": 0.55}
    for key, (lo, hi, rho) in zip(("adamw_small", "adamw_unit", "sgd_small"), (small, unit, sgd)):
        ex.update({f"{key}_rare_cos_min": lo, f"{key}_rare_cos_max": hi, f"{key}_rho_min": rho})
    return ex


def _c15_state(f: dict, key: str, t: dict) -> str:
    """An arm 'holds' if on every seed rare rows stay near their start and frequent rows move further, 'fails'
    if on every seed rare rows end away from their start, else 'unclear'."""
    if f[f"{key}_rare_cos_min"] >= t["near_cos"] and f[f"{key}_rho_min"] > t["ordered"]:
        return "holds"
    if f[f"{key}_rare_cos_max"] < t["near_cos"]:
        return "fails"
    return "unclear"


@claims.rule(
    "C15",
    basis=claims.MEASURED,
    quantity="for untied small LMs trained to a plateau, the cosine between each token's final row and its initial "
    "row (scale-free: cos² is the share of the final row still along its random start), for tokens seen 1–3 "
    "times in training, and the rank correlation of training count with the relative distance travelled; in three "
    "arms that each change one thing: AdamW from std 0.02 (the book's TinyLM default), AdamW from N(0, 1) "
    "(nn.Embedding's default) and SGD with momentum from std 0.02",
    inputs={**_c15_arm_inputs(), **_STRENGTH_INPUTS},
    thresholds={"near_cos": 0.9, "ordered": 0.2, "margin": MARGIN, "min_seeds": 3},
    seeds=3,
    outcomes={
        INCONCLUSIVE: "fewer than min_seeds seeds, a run without a plateau, or a model less than `margin` nats below "
        "the unigram baseline; or an arm whose seeds disagree (neither 'holds' nor 'fails' below)",
        CONFIRMED: "in every arm the claim holds: on every seed the median rare row keeps a cosine of at least "
        "`near_cos` with its initial row, and frequent tokens move further (Spearman above `ordered`)",
        CORRECTED: "it holds in some arms and fails in others (on every seed the median rare row's cosine with its "
        "initial row is below `near_cos`): whether rare rows stay near their start depends on the optimizer or the "
        "init scale, which the evidence names",
        REFUTED: "it fails in every arm",
    },
    examples={
        INCONCLUSIVE: _c15_example((0.2, 0.25, 0.4), (0.98, 0.99, 0.45), (0.3, 0.35, 0.6), plateau=0),
        CONFIRMED: _c15_example((0.92, 0.95, 0.4), (0.98, 0.99, 0.45), (0.93, 0.96, 0.6)),
        CORRECTED: _c15_example((0.2, 0.25, 0.4), (0.98, 0.99, 0.45), (0.3, 0.35, 0.6)),
        REFUTED: _c15_example((0.2, 0.25, 0.4), (0.5, 0.6, 0.45), (0.3, 0.35, 0.6)),
    },
    full_size_only=True,
    revised="AdamW from std 0.02 only, with 'near' as a relative distance below 0.25; that gave 'confirmed with a "
    "correction' (changed after a review of the first build)",
)
def _c15(f, t):
    if _weak(f, t):
        return INCONCLUSIVE
    states = {_c15_state(f, key, t) for key, _, _ in C15_ARMS}
    if "unclear" in states:
        return INCONCLUSIVE
    if states == {"holds"}:
        return CONFIRMED
    return REFUTED if states == {"fails"} else CORRECTED


def _strength(r: LrStudy, arms: list[int]) -> str:
    plat = sum(r.plateau[a][i] for a in arms for i in range(r.n_seeds))
    worst = max(r.best_val[a][i] for a in arms for i in range(r.n_seeds))
    return _("{n_seeds} seeds per arm; {plat} of {runs} runs stopped at their validation plateau (best step "
             "{lo}–{hi}); every run at least {margin:.2f} nats below the unigram baseline ({unigram:.2f}); the whole "
             "validation split ({tokens:,} tokens) scored").format(
                 n_seeds=r.n_seeds, plat=plat, runs=len(arms) * r.n_seeds, lo=min(min(r.best_step[a]) for a in arms),
                 hi=max(max(r.best_step[a]) for a in arms), margin=r.unigram - worst, unigram=r.unigram,
                 tokens=r.val_tokens)


def _figures_strength(r: LrStudy, arms: list[int]) -> dict:
    return {"n_seeds": r.n_seeds, "plateau_all": int(all(r.plateau[a][i] for a in arms for i in range(r.n_seeds))),
            "margin_min": r.unigram - max(r.best_val[a][i] for a in arms for i in range(r.n_seeds))}


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


def _c15_strength(r: LrStudy) -> str:
    runs = [(a, i) for a in r.drift_arms for i in range(len(a.best_val))]
    plat = sum(a.plateau[i] for a, i in runs)
    worst = max(a.best_val[i] for a, i in runs)
    return _("{n_seeds} seeds in each of {n_arms} arms; {plat} of {runs} runs stopped at their validation plateau "
             "(best step {lo}–{hi}); every run at least {margin:.2f} nats below the unigram baseline ({unigram:.2f}); "
             "the whole validation split ({tokens:,} tokens) scored. One small model on one small corpus, one "
             "learning rate per optimizer.").format(
                 n_seeds=r.n_seeds, n_arms=len(r.drift_arms), plat=plat, runs=len(runs),
                 lo=min(min(a.best_step) for a in r.drift_arms), hi=max(max(a.best_step) for a in r.drift_arms),
                 margin=r.unigram - worst, unigram=r.unigram, tokens=r.val_tokens)


def _where_it_holds(figures: dict, keys: list[str], near: float) -> str:
    cos = ", ".join(f"{figures[k + '_frequent_cos']:.2f}" for k in keys)
    if all(figures[k + "_frequent_cos"] >= near for k in keys):
        return _("Where it holds, frequent rows also kept a cosine of {cos} (mean over seeds) with their start: the "
                 "whole table stays near its initialisation, rare rows only a little nearer.").format(cos=cos)
    return _("Where it holds, frequent rows turned further away (cosine {cos}, mean over seeds).").format(cos=cos)


@claims.check("C15")
def check_c15(r: LrStudy) -> claims.Verdict:
    """Settle C15 from the arms of :func:`run_lr_study`."""
    summ = arm_summaries(r)
    runs = [(a, i) for a in r.drift_arms for i in range(len(a.best_val))]
    figures: dict = {"n_seeds": min(len(a.best_val) for a in r.drift_arms),
                     "plateau_all": int(all(a.plateau[i] for a, i in runs)),
                     "margin_min": r.unigram - max(a.best_val[i] for a, i in runs)}
    for sm in summ:
        figures.update({f"{sm.key}_rare_cos_min": min(sm.rare_cos), f"{sm.key}_rare_cos_max": max(sm.rare_cos),
                        f"{sm.key}_rho_min": min(sm.rho), f"{sm.key}_frequent_cos": float(np.mean(sm.frequent_cos)),
                        f"{sm.key}_rare_drift": float(np.mean(sm.rare_drift))})
    t = claims.rule_of("C15").thresholds
    state = {sm.key: _c15_state(figures, sm.key, t) for sm in summ}
    holds = [C15_ARM_LABELS[k] for k, v in state.items() if v == "holds"]
    fails = [C15_ARM_LABELS[k] for k, v in state.items() if v == "fails"]

    def arm_text(sm: ArmSummary) -> str:
        return _("{arm}: cosine {rare_lo:.2f}–{rare_hi:.2f} for rare rows and {frequent_lo:.2f}–{frequent_hi:.2f} for "
                 "frequent ones (relative distance {rare_drift_lo:.2f}–{rare_drift_hi:.2f} and "
                 "{frequent_drift_lo:.2f}–{frequent_drift_hi:.2f}; Spearman {rho_lo:.2f}–{rho_hi:.2f})").format(
                     arm=C15_ARM_LABELS[sm.key], rare_lo=min(sm.rare_cos), rare_hi=max(sm.rare_cos),
                     frequent_lo=min(sm.frequent_cos), frequent_hi=max(sm.frequent_cos),
                     rare_drift_lo=min(sm.rare_drift), rare_drift_hi=max(sm.rare_drift),
                     frequent_drift_lo=min(sm.frequent_drift), frequent_drift_hi=max(sm.frequent_drift),
                     rho_lo=min(sm.rho), rho_hi=max(sm.rho))

    def evidence(v: str) -> str:
        head = (_("Median over the {n_rare} tokens seen 1–3 times and the {n_frequent} seen at least 100 times, range "
                  "over {n_seeds} seeds. ").format(n_rare=summ[0].n_rare, n_frequent=summ[0].n_frequent,
                                                   n_seeds=r.n_seeds)
                + _("{arms}. ").format(arms=_semicolons(arm_text(sm) for sm in summ)))
        return head + {
            CONFIRMED: _("In every arm the rare rows kept their random direction while frequent rows moved further."),
            CORRECTED: (_("Rare rows stayed near their random start with {holds}, but not with {fails}. The arms differ "
                          "only in the optimizer or in the scale of the initial table, so it is those choices, not "
                          "rarity alone, that decide whether a rare row still looks random at the end. ").format(
                              holds=_and_all(holds), fails=_or_all(fails))
                        + _where_it_holds(figures, [k for k, v in state.items() if v == "holds"], t["near_cos"])),
            REFUTED: _("In no arm did rare rows stay near their random start: even a few updates turned them away "
                       "from it."),
            INCONCLUSIVE: _weak_reason("C15", figures, _("In at least one arm the seeds disagree on whether rare rows "
                                                         "stay near their start.")),
        }[v]

    def finding(v: str) -> str:
        spans = _commas(str(_("{span} ({arm})").format(span=_span(min(sm.rare_cos), max(sm.rare_cos)),
                                                         arm=C15_ARM_LABELS[sm.key])) for sm in summ)
        said = {CONFIRMED: _("Rare rows stayed near their start in every arm."),
                CORRECTED: _("So it holds only with {arms}: optimizer and init scale decide.").format(
                    arms=_join([C15_ARM_LABELS[k] for k, x in state.items() if x == 'holds'])),
                REFUTED: _("In no arm did rare rows stay near their start."),
                INCONCLUSIVE: _("Too weak, or the seeds disagree, to judge.")}[v]
        return _("Median cosine of a rare row with its random start: {spans}; near is {near:g} or more. {said}").format(
            spans=spans, near=t["near_cos"], said=said)

    return claims.judge("C15", figures, evidence, strength=_c15_strength(r), finding=finding)


def _span(lo: float, hi: float) -> str:
    """``0.94`` when the seeds agree to two decimals, else ``0.91–0.94``."""
    a, b = f"{lo:.2f}", f"{hi:.2f}"
    return a if a == b else f"{a}–{b}"


def _signed_span(lo: float, hi: float) -> str:
    """``+0.037`` when the seeds agree to three decimals, else ``-0.012 to +0.020``."""
    a, b = f"{lo:+.3f}", f"{hi:+.3f}"
    return a if a == b else str(_("{lo} to {hi}").format(lo=a, hi=b))


def _join(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``, in the language being written."""
    words = [i18n.here(w) for w in words]
    if len(words) < 3:
        return _and_all(words)
    return str(_("{first} and {last}").format(first=", ".join(words[:-1]), last=words[-1]))


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


@claims.rule(
    "C16",
    basis=claims.MEASURED,
    quantity="the validation loss (nats) at positions whose input token was seen 1–10 times in training, for an untied "
    "small LM trained to a plateau with the embedding learning rate at 1× and 10× the rest, paired by seed (positive "
    "gain = 10× lower)",
    inputs={
        "rare_gain_mean": "mean over seeds of rare-input loss at 1× − at 10×",
        "rare_gain_lo": "smallest per-seed gain", "rare_gain_hi": "largest per-seed gain",
        "overall_gain_mean": "mean gain over all validation positions",
        **_STRENGTH_INPUTS,
    },
    thresholds={"min_gain": 0.02, "margin": MARGIN, "min_seeds": 3},
    seeds=3,
    outcomes={
        INCONCLUSIVE: "fewer than min_seeds seeds, a run without a plateau or less than `margin` nats below the unigram "
        "baseline, or a gain inside the seed spread (the seeds disagree on its sign) or smaller than min_gain",
        CONFIRMED: "10× lowers the rare-input loss on every seed, by at least min_gain on average, and by at least as "
        "much as it lowers the loss over all positions",
        CORRECTED: "10× lowers the rare-input loss on every seed by at least min_gain on average, but less than it "
        "lowers the loss everywhere: a general effect, not a remedy for rare tokens",
        REFUTED: "10× raises the rare-input loss on every seed, by at least min_gain on average",
    },
    examples={
        INCONCLUSIVE: {"rare_gain_mean": 0.004, "rare_gain_lo": -0.01, "rare_gain_hi": 0.02, "overall_gain_mean": 0.0,
                       "n_seeds": 3, "plateau_all": 1, "margin_min": 0.7},
        CONFIRMED: {"rare_gain_mean": 0.08, "rare_gain_lo": 0.05, "rare_gain_hi": 0.1, "overall_gain_mean": 0.03,
                    "n_seeds": 3, "plateau_all": 1, "margin_min": 0.7},
        CORRECTED: {"rare_gain_mean": 0.04, "rare_gain_lo": 0.02, "rare_gain_hi": 0.06, "overall_gain_mean": 0.09,
                    "n_seeds": 3, "plateau_all": 1, "margin_min": 0.7},
        REFUTED: {"rare_gain_mean": -0.05, "rare_gain_lo": -0.07, "rare_gain_hi": -0.03, "overall_gain_mean": -0.01,
                  "n_seeds": 3, "plateau_all": 1, "margin_min": 0.7},
    },
    full_size_only=True,
)
def _c16(f, t):
    if _weak(f, t):
        return INCONCLUSIVE
    if f["rare_gain_lo"] > 0 and f["rare_gain_mean"] >= t["min_gain"]:
        return CONFIRMED if f["rare_gain_mean"] >= f["overall_gain_mean"] else CORRECTED
    if f["rare_gain_hi"] < 0 and f["rare_gain_mean"] <= -t["min_gain"]:
        return REFUTED
    return INCONCLUSIVE


@claims.check("C16")
def check_c16(r: LrStudy) -> claims.Verdict:
    """Settle C16 from :func:`run_lr_study` (arm 0: 1×, arm 1: the multiplier)."""
    rare = stats.seed_effect(r.rare_loss[0], r.rare_loss[1])
    overall = stats.seed_effect(r.best_val[0], r.best_val[1])
    figures = {"rare_gain_mean": rare.mean, "rare_gain_lo": rare.lo, "rare_gain_hi": rare.hi,
               "overall_gain_mean": overall.mean, "overall_gain_lo": overall.lo, "overall_gain_hi": overall.hi,
               **_figures_strength(r, [0, 1])}

    def evidence(v: str) -> str:
        head = _("No 2018 study making this claim could be identified; the closest 2018 work on rare-word embeddings "
                 "(FRAGE) uses adversarial training, not a learning-rate multiplier. Related published prescriptions "
                 "point both ways and none is about rare tokens: µP (Yang et al. 2022, Tensor Programs V) gives the "
                 "input embedding a learning rate that does not shrink with width under Adam, so relative to hidden "
                 "layers it is larger the wider the model; GLM-130B (Zeng et al. 2023) shrinks the embedding layer's "
                 "gradient to 0.1× to keep training stable. Measured here: with the embedding learning rate at "
                 "{mult:g}× the rest, the loss at the {positions:,} validation positions whose input token was seen "
                 "1–{rare_max} times in training changed by {rare_lo:+.3f} to {rare_hi:+.3f} nats over {n} seeds "
                 "(negative = better); over all positions by {all_lo:+.3f} to {all_hi:+.3f}. ").format(
                     mult=r.mult, positions=r.rare_positions, rare_max=r.rare_max, rare_lo=-rare.hi, rare_hi=-rare.lo,
                     n=rare.n, all_lo=-overall.hi, all_hi=-overall.lo)
        return head + {
            CONFIRMED: _("The larger embedding learning rate helped rare tokens on every seed, at least as much as the "
                         "rest."),
            CORRECTED: _("It helped rare tokens on every seed, but less than it helped everywhere: a faster or better "
                         "model overall, not a remedy aimed at rare tokens."),
            REFUTED: _("It hurt rare tokens on every seed."),
            INCONCLUSIVE: _weak_reason("C16", figures, (
                _("At the plateau the seeds disagree on the sign of the effect on rare inputs: no effect can be claimed "
                  "either way.") if rare.lo < 0 < rare.hi
                else _("At the plateau the effect on rare inputs is smaller than the rule's minimum: no effect can be "
                       "claimed either way."))),
        }[v]

    def finding(v: str) -> str:
        said = {CONFIRMED: _("It helped rare inputs on every seed, at least as much as the rest."),
                CORRECTED: _("It helped rare inputs on every seed, but less than the rest."),
                REFUTED: _("It hurt rare inputs on every seed."),
                INCONCLUSIVE: _("No effect can be claimed either way.")}[v]
        return (_("No 2018 study making the claim was found. At {mult:g}× the embedding learning rate, the loss at rare "
                  "inputs changed by {span} nats over {n} seeds (negative is better). {said}") if rare.n != 1 else
                _("No 2018 study making the claim was found. At {mult:g}× the embedding learning rate, the loss at rare "
                  "inputs changed by {span} nats over {n} seed (negative is better). {said}")).format(
                    mult=r.mult, span=_signed_span(-rare.hi, -rare.lo), n=rare.n, said=said)

    return claims.judge("C16", figures, evidence, strength=_strength(r, [0, 1]), finding=finding)


# --- C38: shared contexts pull two words together --------------------------------------------------------------

FRUIT_CONTEXTS = [["很", "甜"], ["多少钱", "一斤"], ["是", "水果"], ["熟", "了"]]
PHONE_CONTEXTS = [["发布会", "开始", "了"], ["屏幕", "很", "大"], ["充电", "很", "快"], ["是", "电子", "产品"]]
PAIRS = (("苹果", "香蕉"), ("苹果", "手机"))


def fruit_corpus(n_sentences: int = 2000, seed: int = 0) -> list[list[str]]:
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


def run_pull(n_sentences: int = 2000, *, d: int = 16, context: int = 8, batch_size: int = 32, lr: float = 3e-3,
             seeds: tuple[int, ...] = (0, 1, 2), max_steps: int = 2000, eval_every: int = 10, patience: int = 4,
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


@claims.rule(
    "C38",
    basis=claims.CONSTRUCTED,
    quantity="the cosine of the input rows of 苹果 and 香蕉 (which never share a sentence but are followed by the same "
    "contexts) from initialisation to the validation plateau, against the control pair 苹果–手机, over seeds",
    inputs={
        "rise_min": "smallest rise of the 苹果–香蕉 cosine from initialisation to the plateau over the seeds",
        "gap_lo": "smallest (苹果–香蕉 cosine − 苹果–手机 cosine) at the plateau over the seeds",
        "gap_hi": "largest of those differences",
        **_STRENGTH_INPUTS,
    },
    thresholds={"rise": 0.2, "margin": MARGIN, "min_seeds": 3},
    seeds=3,
    outcomes={
        INCONCLUSIVE: "fewer than min_seeds seeds, a run without a plateau or less than `margin` nats below the unigram "
        "baseline, or a pattern that differs between seeds",
        CONFIRMED: "on every seed the 苹果–香蕉 cosine rose by at least `rise` and ends above the control pair's",
        REFUTED: "on every seed the 苹果–香蕉 cosine ends below the control pair's",
    },
    examples={
        INCONCLUSIVE: {"rise_min": 0.5, "gap_lo": -0.1, "gap_hi": 0.4, "n_seeds": 3, "plateau_all": 1, "margin_min": 1.5},
        CONFIRMED: {"rise_min": 0.6, "gap_lo": 0.3, "gap_hi": 0.6, "n_seeds": 3, "plateau_all": 1, "margin_min": 1.5},
        REFUTED: {"rise_min": 0.0, "gap_lo": -0.5, "gap_hi": -0.2, "n_seeds": 3, "plateau_all": 1, "margin_min": 1.5},
    },
    full_size_only=True,
)
def _c38(f, t):
    if _weak(f, t):
        return INCONCLUSIVE
    if f["rise_min"] >= t["rise"] and f["gap_lo"] > 0:
        return CONFIRMED
    if f["gap_hi"] < 0:
        return REFUTED
    return INCONCLUSIVE


@claims.check("C38")
def check_c38(r: Pull) -> claims.Verdict:
    """Settle C38 from :func:`run_pull`."""
    fruit_start = [s[0] for s in r.start]
    fruit, phone = [b[0] for b in r.best], [b[1] for b in r.best]
    gap = stats.seed_effect(fruit, phone)
    rise = [b - a for a, b in zip(fruit_start, fruit)]
    figures = {"rise_min": min(rise), "gap_lo": gap.lo, "gap_hi": gap.hi, "n_seeds": len(r.seeds),
               "plateau_all": int(all(r.plateau)), "margin_min": r.unigram - max(r.best_val),
               "cos_fruit_start": float(np.mean(fruit_start)), "cos_fruit_end": float(np.mean(fruit)),
               "cos_phone_end": float(np.mean(phone))}

    def evidence(v: str) -> str:
        head = _("On a controlled synthetic corpus ({n_sentences:,} sentences; 苹果 and 香蕉 never in one sentence, but "
                 "followed by the same contexts) the cosine of their input rows went from {start_lo:+.2f}…"
                 "{start_hi:+.2f} at initialisation to {end_lo:+.2f}…{end_hi:+.2f} at the plateau over {n_seeds} seeds, "
                 "while the control 苹果–手机 ended at {phone_lo:+.2f}…{phone_hi:+.2f}. ").format(
                     n_sentences=r.n_sentences, start_lo=min(fruit_start), start_hi=max(fruit_start),
                     end_lo=min(fruit), end_hi=max(fruit), n_seeds=len(r.seeds), phone_lo=min(phone),
                     phone_hi=max(phone))
        return head + {
            CONFIRMED: _("Predicting the same next words pulled the two rows together on every seed: the similarity is "
                         "a by-product of next-token prediction, since nothing else connects the two words. This is a "
                         "constructed demonstration: the corpus was built so that only shared contexts link them, so "
                         "it shows that the objective can pull such rows together, not how much of the closeness of "
                         "real words it explains."),
            REFUTED: _("Sharing contexts did not pull the two rows closer than the control pair."),
            INCONCLUSIVE: _weak_reason("C38", figures, _("The seeds disagree.")),
        }[v]

    strength = _("{n_seeds} seeds; {plat} of {n_runs} runs stopped at their validation plateau (best step {lo}–{hi}); "
                 "best validation loss at least {margin:.2f} nats below the unigram baseline ({unigram:.2f}); a "
                 "synthetic corpus, so the verdict is about the mechanism, not about real Chinese text").format(
                     n_seeds=len(r.seeds), plat=sum(r.plateau), n_runs=len(r.seeds), lo=min(r.best_step),
                     hi=max(r.best_step), margin=figures["margin_min"], unigram=r.unigram)
    def finding(v: str) -> str:
        said = {CONFIRMED: _("Shared next words alone pulled the two rows together, on every seed."),
                REFUTED: _("Shared next words did not pull them closer than the control pair."),
                INCONCLUSIVE: _("Too weak, or the seeds disagree, to judge.")}[v]
        def over_seeds(x: list[float]) -> str:
            lo, hi = f"{min(x):+.2f}", f"{max(x):+.2f}"
            return lo if lo == hi else f"{lo}…{hi}"

        return (_("The cosine of the 苹果 and 香蕉 rows went from {start} at the start to {end} at the plateau (range over "
                  "seeds); the control pair 苹果–手机 ended at {phone}. {said}") if len(r.seeds) > 1 else
                _("The cosine of the 苹果 and 香蕉 rows went from {start} at the start to {end} at the plateau; the control "
                  "pair 苹果–手机 ended at {phone}. {said}")).format(
                    start=over_seeds(fruit_start), end=over_seeds(fruit), phone=over_seeds(phone), said=said)

    return claims.judge("C38", figures, evidence, strength=strength, finding=finding)


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
