"""Small statistics used across the package and the book, one home each: a power-law fit, a rank
correlation, unit-length rows, and the effect of a change measured over several seeds.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

__all__ = ["SeedEffect", "partial_spearman", "power_law_exponent", "seed_effect", "spearman", "unit_rows",
           "wilson_interval", "bootstrap_mean_ci"]


def _vector(values: Sequence[float], name: str) -> np.ndarray:
    try:
        out = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of numbers") from None
    if out.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {out.shape}")
    if not np.isfinite(out).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return out


def power_law_exponent(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Exponent ``b`` of the least-squares fit ``y ≈ a·x^b`` (the slope on a log–log plot).

    0 means flat, 1 linear, 2 quadratic growth.

    Raises:
        ValueError: lengths differ, fewer than two points, fewer than two distinct ``xs``, or a value
            that is not positive and finite (a logarithm needs one).
    """
    x, y = _vector(xs, "xs"), _vector(ys, "ys")
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"need at least two (x, y) points of equal length, got {len(x)} and {len(y)}")
    if (x <= 0).any() or (y <= 0).any():
        raise ValueError("a power law is fitted on logarithms: every x and y must be positive")
    if np.unique(x).size < 2:
        raise ValueError("need at least two distinct x values to fit a slope")
    lx, ly = np.log(x), np.log(y)
    lx0 = lx - lx.mean()
    return float((lx0 * (ly - ly.mean())).sum() / (lx0 * lx0).sum())


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks of a 1-D array, ties getting the average of their ranks (as ``scipy.stats.rankdata``)."""
    order = np.argsort(values, kind="mergesort")
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(values))
    ordered = values[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    dense = first.cumsum()[inverse]
    bounds = np.r_[np.flatnonzero(first), len(values)]
    return 0.5 * (bounds[dense] + bounds[dense - 1] + 1)


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    return float(np.clip((a @ b) / math.sqrt((a @ a) * (b @ b)), -1.0, 1.0))


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (average ranks for ties) of two equally long 1-D sequences: the Pearson
    correlation of their ranks (plain NumPy; equal to ``scipy.stats.spearmanr``).

    Raises:
        ValueError: shapes differ, fewer than three points, NaN or infinity, or a constant sequence
            (it has no ranks to correlate; NaN would be the silent answer).
    """
    a, b = _vector(x, "x"), _vector(y, "y")
    if a.shape != b.shape or len(a) < 3:
        raise ValueError(f"need two 1-D sequences of equal length >= 3, got lengths {len(a)} and {len(b)}")
    for name, v in (("x", a), ("y", b)):
        if np.ptp(v) == 0:
            raise ValueError(f"spearman is undefined for a constant sequence: every value of {name} is {v[0]:g}; "
                             "a rank correlation needs values that differ")
    return _pearson(_ranks(a), _ranks(b))


def partial_spearman(x: Sequence[float], y: Sequence[float], controls: Sequence[Sequence[float]]) -> float:
    """Spearman correlation of ``x`` and ``y`` with ``controls`` held fixed: the Pearson correlation of the
    ranks of ``x`` and ``y`` after each is regressed (least squares, with an intercept) on the ranks of
    every control.

    Raises:
        ValueError: as :func:`spearman`, for ``x``, ``y`` or any control; no controls given; or nothing
            left of ``x`` or ``y`` once the controls are regressed out.
    """
    rankdata = _ranks
    spearman(x, y)  # validates x and y
    if not len(controls):
        raise ValueError("give at least one control; without one, use spearman")
    ranked = []
    for i, c in enumerate(controls):
        c = _vector(c, f"control {i}")
        if len(c) != len(x) or np.ptp(c) == 0:
            raise ValueError(f"control {i} must be a non-constant sequence of {len(x)} values, got {len(c)} values")
        ranked.append(rankdata(c))
    design = np.column_stack([np.ones(len(x)), *ranked])

    def residual(v):
        r = rankdata(_vector(v, "values"))
        return r - design @ np.linalg.lstsq(design, r, rcond=None)[0]

    rx, ry = residual(x), residual(y)
    if np.allclose(rx, 0) or np.allclose(ry, 0):
        raise ValueError("the controls explain x or y entirely: no partial correlation is left to measure")
    return _pearson(rx, ry)


def unit_rows(matrix, zero: str = "raise"):
    """Rows scaled to unit length: a NumPy array (float32) or a torch tensor (same dtype and device).

    Each row is first divided by its largest absolute value, so rows of huge (``1e20``) or tiny
    (``1e-30``) values still come out at unit length instead of overflowing or underflowing.

    Args:
        matrix: an ``(n, d)`` array or tensor.
        zero: all-zero rows have no direction: ``"raise"`` (default) or ``"keep"`` (they stay zero,
            so every cosine with them is 0).

    Raises:
        ValueError: not 2-D, NaN or infinity in a row, a zero row with ``zero="raise"``, or an unknown
            ``zero``.
    """
    if zero not in ("raise", "keep"):
        raise ValueError(f"zero must be 'raise' or 'keep', got {zero!r}")
    if isinstance(matrix, torch.Tensor):
        if matrix.dim() != 2 or not matrix.is_floating_point():
            raise ValueError(f"unit_rows needs a 2-D float tensor, got shape {tuple(matrix.shape)}, {matrix.dtype}")
        if not torch.isfinite(matrix).all():
            raise ValueError("the matrix contains NaN or infinity")
        scale = matrix.abs().amax(dim=1, keepdim=True) if matrix.shape[1] else matrix.new_zeros(len(matrix), 1)
        zeros = scale == 0
        if zeros.any() and zero == "raise":
            raise ValueError(f"{int(zeros.sum())} zero row(s) have no direction; pass zero='keep' to leave them at 0")
        scaled = matrix / torch.where(zeros, torch.ones_like(scale), scale)
        norms = scaled.norm(dim=1, keepdim=True)
        return scaled / torch.where(zeros, torch.ones_like(norms), norms)
    try:
        m = np.asarray(matrix)
        if m.dtype != np.float64:  # float32 work, except that float64 input is scaled before it is narrowed
            m = m.astype(np.float32, copy=False)
    except (TypeError, ValueError):
        raise TypeError(f"unit_rows needs a 2-D matrix of numbers, got {type(matrix).__name__}") from None
    if m.ndim != 2:
        raise ValueError(f"unit_rows needs a 2-D matrix, got shape {m.shape}")
    if not np.isfinite(m).all():
        raise ValueError("the matrix contains NaN or infinity")
    scale = np.abs(m).max(axis=1, keepdims=True) if m.shape[1] else np.zeros((len(m), 1), m.dtype)
    zeros = scale == 0
    if zeros.any() and zero == "raise":
        raise ValueError(f"{int(zeros.sum())} zero row(s) have no direction; pass zero='keep' to leave them at 0")
    m = m / np.where(zeros, 1, scale)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return (m / np.where(zeros, 1, norms)).astype(np.float32, copy=False)


@dataclass(frozen=True)
class SeedEffect:
    """The paired difference ``a - b`` of one quantity measured with and without a change, per seed."""

    diffs: tuple[float, ...]

    @property
    def n(self) -> int:
        """Number of seeds."""
        return len(self.diffs)

    @property
    def mean(self) -> float:
        """Mean difference over seeds."""
        return float(np.mean(self.diffs))

    @property
    def lo(self) -> float:
        """Smallest per-seed difference."""
        return float(min(self.diffs))

    @property
    def hi(self) -> float:
        """Largest per-seed difference."""
        return float(max(self.diffs))

    @property
    def sd(self) -> float:
        """Standard deviation of the differences over seeds (0 for one seed)."""
        return float(np.std(self.diffs, ddof=1)) if self.n > 1 else 0.0

    @property
    def decisive(self) -> bool:
        """At least three seeds and every seed agrees on the sign: zero lies outside the range of the
        per-seed differences, so the effect is not inside the seed spread."""
        return self.n >= 3 and (self.lo > 0 or self.hi < 0)

    @property
    def sign(self) -> int:
        """+1 or -1 when :attr:`decisive`, else 0."""
        return (1 if self.lo > 0 else -1) if self.decisive else 0


def seed_effect(a: Sequence[float], b: Sequence[float]) -> SeedEffect:
    """Per-seed differences ``a[i] - b[i]`` of two equally long lists of one measurement per seed.

    Raises:
        ValueError: the lists differ in length, are empty, or hold NaN or infinity.
    """
    x, y = _vector(a, "a"), _vector(b, "b")
    if len(x) != len(y) or len(x) == 0:
        raise ValueError(f"need one value per seed in each arm, got {len(x)} and {len(y)}")
    return SeedEffect(tuple(float(v) for v in x - y))


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n`` (95 % for the default ``z``).

    Raises:
        ValueError: ``n`` is not a positive int, ``successes`` is not an int in ``[0, n]``, or ``z`` is not a
            positive finite number.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"n must be a positive int, got {n!r}")
    if not isinstance(successes, int) or isinstance(successes, bool) or not 0 <= successes <= n:
        raise ValueError(f"successes must be an int in [0, {n}], got {successes!r}")
    if not isinstance(z, numbers.Real) or isinstance(z, bool) or not math.isfinite(z) or z <= 0:
        raise ValueError(f"z must be a positive finite number (1.96 for 95 %, 2.58 for 99 %), got {z!r}")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


MAX_DRAWS = 10**9  # block draws a bootstrap may make in all (reps x blocks)
CHUNK_DRAWS = 2**22  # block draws held in memory at once (32 MiB of indices)


def _resampled_means(rng: np.random.Generator, sums: np.ndarray, sizes: np.ndarray, reps: int) -> np.ndarray:
    idx = rng.integers(0, len(sums), size=(reps, len(sums)))
    return sums[idx].sum(axis=1) / sizes[idx].sum(axis=1)


def bootstrap_mean_ci(values: Sequence[float], *, block: int = 1, reps: int = 2000, level: float = 0.95,
                      seed: int = 0, groups: Sequence | None = None) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of ``values``, resampling consecutive blocks of ``block``
    values with replacement (a block bootstrap: neighbouring values, e.g. the tokens of one window, move together),
    or, with ``groups``, the values that share a label (a cluster bootstrap: e.g. the questions of one word).

    Args:
        values: the measurements, e.g. per-token loss differences; finite numbers.
        block: values per block (the last block may be shorter); 1 is the ordinary bootstrap.
        groups: one label per value; the values of a label form one block, in place of ``block``.
        reps: bootstrap resamples.
        level: coverage of the interval, in (0, 1).
        seed: seed of the resampling (the interval is deterministic for a given seed).

    Returns:
        ``(lo, hi)``.

    Raises:
        ValueError: fewer than two blocks (or groups), a non-finite value, groups of another length, a bad
            ``block``, ``reps`` or ``level``, or more than :data:`MAX_DRAWS` block draws in all.
    """
    x = _vector(values, "values")
    if not isinstance(block, int) or block < 1 or not isinstance(reps, int) or reps < 1 or not 0 < level < 1:
        raise ValueError(f"need block >= 1, reps >= 1 and 0 < level < 1; got {block}, {reps}, {level}")
    if groups is not None:
        labels = np.asarray(groups)
        if labels.shape != x.shape:
            raise ValueError(f"groups needs one label per value ({len(x)}), got shape {labels.shape}")
        code = np.unique(labels, return_inverse=True)[1].ravel()
        sums, sizes = np.bincount(code, weights=x), np.bincount(code)
        if len(sums) < 2:
            raise ValueError(f"the {len(x)} values share one group label; a cluster bootstrap needs two groups or more")
    else:
        sums = np.add.reduceat(x, np.arange(0, len(x), block))
        sizes = np.diff(np.append(np.arange(0, len(x), block), len(x)))
    if len(sums) < 2:
        raise ValueError(f"{len(x)} values make fewer than two blocks of {block}; use a smaller block")
    if reps * len(sums) > MAX_DRAWS:
        raise ValueError(f"reps={reps:,} resamples of {len(sums):,} blocks is {reps * len(sums):,} draws, above the "
                         f"limit of {MAX_DRAWS:,} (minutes of work); 2,000 to 10,000 resamples are enough for a 95% "
                         "interval: ask for fewer")
    rng = np.random.default_rng(seed)
    rows = max(1, CHUNK_DRAWS // len(sums))  # resamples per chunk: memory stays bounded however many are asked
    means = np.concatenate([_resampled_means(rng, sums, sizes, min(rows, reps - start))
                            for start in range(0, reps, rows)])
    alpha = (1 - level) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))
