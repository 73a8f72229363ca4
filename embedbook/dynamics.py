"""How an embedding table learns: which rows a step touches, which rows an optimizer moves, how far each
row travels from its initialisation, and the loss at each position of a text by how often its token
was seen.

- :func:`touched_rows` — rows with a non-zero gradient after a backward pass (dense or sparse).
- :func:`moved_rows` — rows that differ between two snapshots of a table.
- :func:`one_step_rows` — one forward/backward pass of a next-token model: rows touched, rows present.
- :func:`absent_row_drift` — how far rows absent from the batches still move, per optimizer.
- :func:`distance_from_init` — per-row distance between two snapshots (relative to the initial norm).
- :func:`drift_by_frequency` — that distance against how often each token was seen (rank correlation,
  medians of rare and frequent tokens).
- :func:`position_losses`, :func:`loss_by_count` — next-token loss at every position, and its mean over
  positions whose input token was seen a given number of times.

Used by the chapter "How embeddings learn" (05_learning).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from embedbook.device import pick
from embedbook.stats import spearman

__all__ = [
    "DRIFT_OPTIMIZERS", "Drift", "FrequencyDrift", "StepRows", "absent_row_drift", "distance_from_init",
    "drift_by_frequency", "loss_by_count", "moved_rows", "one_step_rows", "position_losses", "touched_rows",
]

DRIFT_OPTIMIZERS = ("sgd", "sgd_momentum", "adam", "adamw", "sparse_adam")


def _table(weight, what: str = "weight") -> torch.Tensor:
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise TypeError(f"{what} must be a 2-D tensor (an embedding table), got {type(weight).__name__}"
                        + (f" of shape {tuple(weight.shape)}" if isinstance(weight, torch.Tensor) else ""))
    return weight


# --- rows touched and rows moved -----------------------------------------------------------------


def touched_rows(weight: torch.Tensor) -> torch.Tensor:
    """Which rows of an embedding table received a non-zero gradient.

    Args:
        weight: the table (``nn.Embedding.weight``) after ``loss.backward()``; its gradient may be dense
            or sparse (``nn.Embedding(..., sparse=True)``).

    Returns:
        a boolean mask ``[V]`` on the table's device.

    Raises:
        TypeError: not a 2-D tensor. ValueError: it has no gradient yet.
    """
    _table(weight)
    if weight.grad is None:
        raise ValueError("weight has no gradient: run loss.backward() first")
    g = weight.grad
    if g.is_sparse:
        g = g.coalesce().to_dense()
    return g.abs().sum(dim=1) > 0


def moved_rows(before: torch.Tensor, after: torch.Tensor) -> torch.Tensor:
    """Which rows differ between two snapshots of a table (an optimizer step, a training run).

    Args:
        before, after: 2-D tensors of the same shape.

    Returns:
        a boolean mask ``[V]``: True where any entry of the row changed.

    Raises:
        TypeError: not 2-D tensors. ValueError: different shapes, or NaN/infinity in either (NaN differs from
            everything, itself included, so every such row would count as moved).
    """
    _table(before, "before"), _table(after, "after")
    if before.shape != after.shape:
        raise ValueError(f"before and after must have the same shape, got {tuple(before.shape)} and {tuple(after.shape)}")
    for name, t in (("before", before), ("after", after)):
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            row = int((~torch.isfinite(t)).any(dim=1).nonzero()[0, 0])
            raise ValueError(f"{name} holds NaN or infinity (first in row {row}): which rows moved is undefined; "
                             "the training diverged or the snapshot is broken, check it before comparing")
    return (before.detach() != after.detach().to(before.device)).any(dim=1)


@dataclass(frozen=True)
class StepRows:
    """Rows of a table after one forward/backward pass on a batch.

    Attributes:
        vocab: rows in the table.
        in_batch: distinct ids among the inputs.
        touched: rows with a non-zero gradient.
        touched_absent: rows with a gradient although their id is not among the inputs.
        present_untouched: input ids whose row got no gradient.
    """

    vocab: int
    in_batch: int
    touched: int
    touched_absent: int
    present_untouched: int

    @property
    def untouched(self) -> int:
        """Rows without gradient."""
        return self.vocab - self.touched


def one_step_rows(model: nn.Module, batch: torch.Tensor, weight: torch.Tensor | None = None) -> StepRows:
    """One next-token forward/backward pass of ``model`` on ``batch``; count the table's rows touched.

    Args:
        model: maps ids ``[B, T]`` to logits ``[B, T, V]`` (e.g. :class:`embedbook.lm.TinyLM`).
        batch: a LongTensor ``[B, T + 1]`` on the model's device: inputs and their next tokens.
        weight: the table to inspect (default ``model.embed.weight``).

    Returns:
        a :class:`StepRows`. The model's gradients are left in place (zeroed before the pass).

    Raises:
        TypeError: a batch that is not a 2-D LongTensor with at least two columns, or no table to inspect.
    """
    if not isinstance(batch, torch.Tensor) or batch.dtype != torch.long or batch.dim() != 2 or batch.shape[1] < 2:
        raise TypeError("batch must be a LongTensor [batch, time + 1] (inputs and their next tokens)")
    if weight is None:
        embed = getattr(model, "embed", None)
        weight = getattr(embed, "weight", None)
        if weight is None:
            raise TypeError("the model has no embed.weight: pass the table as weight=")
    _table(weight)
    model.zero_grad(set_to_none=True)
    x, y = batch[:, :-1], batch[:, 1:]
    logits = model(x)
    F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1)).backward()
    mask = touched_rows(weight)
    present = torch.zeros_like(mask)
    present[x.unique()] = True
    return StepRows(vocab=int(mask.numel()), in_batch=int(present.sum()), touched=int(mask.sum()),
                    touched_absent=int((mask & ~present).sum()), present_untouched=int((present & ~mask).sum()))


# --- what optimizers do to rows that are not in the batch -------------------------------------------


@dataclass(frozen=True)
class Drift:
    """How far rows moved during steps in which they were absent from every batch.

    Attributes:
        optimizer: its name (one of :data:`DRIFT_OPTIMIZERS`).
        absent_moved: mean L2 distance moved by the absent rows.
        present_moved: mean L2 distance moved by the rows that were in the batches.
        absent_rows_moved: how many absent rows moved at all.
        absent_rows: how many rows were absent.
    """

    optimizer: str
    absent_moved: float
    present_moved: float
    absent_rows_moved: int
    absent_rows: int


def _optimizer(name: str, params, lr: float) -> torch.optim.Optimizer:
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr)
    if name == "sgd_momentum":
        return torch.optim.SGD(params, lr=lr, momentum=0.9)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=0.1)
    return torch.optim.SparseAdam(params, lr=lr)


MAX_DRIFT_STEPS = 100_000  # absent_row_drift's limits: seconds to a minute of work on a laptop CPU
MAX_DRIFT_CELLS = 10**7


def absent_row_drift(optimizer: str, vocab_size: int = 64, d: int = 16, steps: int = 20, lr: float = 1e-2,
                     seed: int = 0, device: str | torch.device | None = None) -> Drift:
    """How far rows move while they are absent from the batch, under one optimizer.

    An ``nn.Embedding`` with a fixed random read-out (so only the table learns) takes one step on every
    id, so that every row has a gradient and the optimizer builds state for it; then ``steps`` steps on
    batches drawn from the first half of the vocabulary only. What the second half moves during those
    steps is the optimizer's doing, not its gradient's (which is exactly zero).

    Args:
        optimizer: ``sgd``, ``sgd_momentum`` (momentum 0.9), ``adam``, ``adamw`` (weight decay 0.1) or
            ``sparse_adam`` (``SparseAdam`` on a ``sparse=True`` embedding).
        vocab_size: rows in the table (at least 4).
        d: width of the table.
        steps: steps with half the rows absent.
        lr: learning rate (> 0).
        seed: fixes the table, the read-out and the batches.
        device: where to compute (default :func:`embedbook.device.pick`).

    Returns:
        a :class:`Drift`.

    Raises:
        ValueError: an unknown optimizer, a bad size, step count or learning rate, more than
            :data:`MAX_DRIFT_STEPS` steps or :data:`MAX_DRIFT_CELLS` table entries, or an unknown device.
        RuntimeError: a device that is not present here.
    """
    if optimizer not in DRIFT_OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}; use one of {DRIFT_OPTIMIZERS}")
    for what, n, low in (("vocab_size", vocab_size, 4), ("d", d, 1), ("steps", steps, 1)):
        if isinstance(n, bool) or not isinstance(n, int) or n < low:
            raise ValueError(f"{what} must be an int >= {low}, got {n!r}")
    if steps > MAX_DRIFT_STEPS or vocab_size * d > MAX_DRIFT_CELLS:  # refused up front, not after hours
        raise ValueError(f"steps={steps:,} on a {vocab_size:,} x {d} table is beyond what this demonstration needs "
                         f"(at most {MAX_DRIFT_STEPS:,} steps and {MAX_DRIFT_CELLS:,} table entries): an absent row's "
                         "drift shows within tens of steps")
    if not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr > 0):
        raise ValueError(f"lr must be a positive finite number, got {lr!r}")
    dev = pick(device)
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    emb = nn.Embedding(vocab_size, d, sparse=optimizer == "sparse_adam").to(dev)
    head = (torch.randn(vocab_size, d, generator=gen) / math.sqrt(d)).to(dev)
    opt = _optimizer(optimizer, emb.parameters(), lr)
    half = vocab_size // 2

    def step(ids: torch.Tensor) -> None:
        target = torch.randint(0, vocab_size, ids.shape, generator=gen).to(dev)
        opt.zero_grad()
        F.cross_entropy(emb(ids.to(dev)) @ head.T, target).backward()
        opt.step()

    step(torch.arange(vocab_size))
    start = emb.weight.detach().clone()
    for _ in range(steps):
        step(torch.randint(0, half, (32,), generator=gen))
    moved = (emb.weight.detach() - start).norm(dim=1).cpu()
    return Drift(optimizer=optimizer, absent_moved=float(moved[half:].mean()), present_moved=float(moved[:half].mean()),
                 absent_rows_moved=int((moved[half:] > 0).sum()), absent_rows=vocab_size - half)


# --- how far rows travel, by frequency -----------------------------------------------------------------


def distance_from_init(init: torch.Tensor, now: torch.Tensor, relative: bool = True) -> torch.Tensor:
    """Per-row L2 distance between two snapshots of a table.

    Args:
        init: the table at initialisation.
        now: the table later (same shape; moved to ``init``'s device).
        relative: divide each distance by the length of the initial row.

    Returns:
        a float tensor ``[V]``.

    Raises:
        TypeError: not tensors. ValueError: shapes differ or are not 2-D, or (``relative``) an initial row
            is all zeros.
    """
    if not isinstance(init, torch.Tensor) or not isinstance(now, torch.Tensor):
        raise TypeError("init and now must be tensors")
    if init.shape != now.shape or init.dim() != 2:
        raise ValueError(f"init and now must be 2-D and the same shape, got {tuple(init.shape)} and {tuple(now.shape)}")
    a = init.detach().float()
    dist = (now.detach().float().to(a.device) - a).norm(dim=1)
    if relative:
        norm = a.norm(dim=1)
        if (norm == 0).any():
            raise ValueError("an initial row is all zeros: use relative=False")
        dist = dist / norm
    return dist


@dataclass(frozen=True)
class FrequencyDrift:
    """Distance travelled from initialisation against how often each token was seen.

    Attributes:
        rho: Spearman rank correlation of count and distance over the tokens seen at least once.
        median_rare: median distance of tokens seen 1..``rare_max`` times.
        median_frequent: median distance of tokens seen at least ``frequent_min`` times.
        max_unseen: largest distance of a token never seen (0 when no gradient and no decay reached it;
            NaN when every token was seen).
        n_rare, n_frequent, n_unseen: how many tokens of each kind.
        rare_max, frequent_min: the bands' limits.
    """

    rho: float
    median_rare: float
    median_frequent: float
    max_unseen: float
    n_rare: int
    n_frequent: int
    n_unseen: int
    rare_max: int
    frequent_min: int


def drift_by_frequency(counts: Sequence[float], drift: Sequence[float], rare_max: int = 3,
                       frequent_min: int = 100) -> FrequencyDrift:
    """Summarise per-token distance from initialisation by how often each token was seen in training.

    Args:
        counts: per-token training counts.
        drift: per-token distance (e.g. from :func:`distance_from_init`), same length.
        rare_max: "rare" means seen 1..``rare_max`` times.
        frequent_min: "frequent" means seen at least this many times (> ``rare_max``).

    Returns:
        a :class:`FrequencyDrift` (its rank correlation from :func:`embedbook.stats.spearman`).

    Raises:
        ValueError: lengths differ, bad bands, no rare or no frequent token, NaN in the inputs, or fewer
            than three seen tokens.
    """
    c, dr = np.asarray(counts, dtype=float), np.asarray(drift, dtype=float)
    if c.shape != dr.shape or c.ndim != 1:
        raise ValueError(f"counts and drift must be 1-D and equally long, got {c.shape} and {dr.shape}")
    if not (np.isfinite(c).all() and np.isfinite(dr).all()):
        raise ValueError("counts and drift must be finite numbers")
    if rare_max < 1 or frequent_min <= rare_max:
        raise ValueError(f"need 1 <= rare_max < frequent_min, got {rare_max} and {frequent_min}")
    seen = c > 0
    rare, freq = seen & (c <= rare_max), c >= frequent_min
    if not rare.any() or not freq.any():
        raise ValueError(f"no token seen 1..{rare_max} times or none seen >= {frequent_min} times: change the bands")
    return FrequencyDrift(
        rho=spearman(c[seen], dr[seen]), median_rare=float(np.median(dr[rare])),
        median_frequent=float(np.median(dr[freq])),
        max_unseen=float(dr[~seen].max()) if (~seen).any() else float("nan"),
        n_rare=int(rare.sum()), n_frequent=int(freq.sum()), n_unseen=int((~seen).sum()),
        rare_max=int(rare_max), frequent_min=int(frequent_min),
    )


# --- loss by how often the input token was seen -----------------------------------------------------------


@torch.no_grad()
def position_losses(model: nn.Module, ids: torch.Tensor, context: int,
                    batch_size: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    """Next-token loss at every position of consecutive non-overlapping windows of ``ids``.

    Args:
        model: maps ids ``[B, T]`` to logits ``[B, T, V]``; evaluated in eval mode, its mode restored.
        ids: a 1-D LongTensor (e.g. a validation split).
        context: window length ``T`` (the model's context).
        batch_size: windows per forward pass.

    Returns:
        ``(losses, inputs)`` on the CPU: ``losses[i]`` in nats, and ``inputs[i]`` the token read from the
        table at that position (the one whose row the prediction started from).

    Raises:
        TypeError: ``ids`` is not a 1-D LongTensor. ValueError: ``context`` < 1, fewer than
            ``context + 1`` ids, or ``batch_size`` < 1.
    """
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype != torch.long:
        raise TypeError("ids must be a 1-D LongTensor")
    if context < 1 or len(ids) < context + 1:
        raise ValueError(f"need context >= 1 and at least context + 1 ids, got context={context} and {len(ids)} ids")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    dev = next(model.parameters()).device
    was = model.training
    model.eval()
    starts = list(range(0, len(ids) - context, context))
    losses, inputs = [], []
    for i in range(0, len(starts), batch_size):
        win = torch.stack([ids[s: s + context + 1] for s in starts[i: i + batch_size]]).to(dev)
        logits = model(win[:, :-1])
        losses.append(F.cross_entropy(logits.reshape(-1, logits.shape[-1]), win[:, 1:].reshape(-1), reduction="none").cpu())
        inputs.append(win[:, :-1].reshape(-1).cpu())
    model.train(was)
    return torch.cat(losses), torch.cat(inputs)


def loss_by_count(losses: torch.Tensor, inputs: torch.Tensor, train_counts: torch.Tensor,
                  low: int = 1, high: int = 10) -> tuple[float, int]:
    """Mean loss over the positions whose input token was seen ``low``..``high`` times in training.

    Args:
        losses, inputs: from :func:`position_losses`.
        train_counts: per-token counts in the training split (``torch.bincount(train_ids, minlength=V)``).
        low, high: the band of counts (inclusive).

    Returns:
        ``(mean loss in nats, number of positions)``.

    Raises:
        TypeError: not torch tensors, or ``inputs`` / ``train_counts`` not integers.
        ValueError: shapes differ, ``low > high``, an input id outside ``train_counts``, NaN or infinite
            losses, or no position falls in the band.
    """
    for name, x in (("losses", losses), ("inputs", inputs), ("train_counts", train_counts)):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}; wrap it with torch.as_tensor(...)")
    if inputs.is_floating_point() or train_counts.is_floating_point():
        raise TypeError("inputs and train_counts must hold integers (ids and counts)")
    if train_counts.dim() != 1:
        raise ValueError(f"train_counts must be 1-D (one count per token id), got shape {tuple(train_counts.shape)}")
    if inputs.numel() and (int(inputs.min()) < 0 or int(inputs.max()) >= len(train_counts)):
        raise ValueError(f"an input id ({int(inputs.max())}) is outside train_counts' {len(train_counts)} tokens; "
                         "count with torch.bincount(train_ids, minlength=vocab_size)")
    if not torch.isfinite(losses).all():
        raise ValueError("losses contain NaN or infinity")
    if losses.shape != inputs.shape:
        raise ValueError(f"losses and inputs must have the same shape, got {tuple(losses.shape)} and {tuple(inputs.shape)}")
    if low > high:
        raise ValueError(f"low must be <= high, got {low} and {high}")
    c = train_counts.cpu()[inputs.cpu()]
    mask = (c >= low) & (c <= high)
    if not mask.any():
        raise ValueError(f"no position has an input token seen {low}..{high} times in training")
    return float(losses[mask].mean()), int(mask.sum())
