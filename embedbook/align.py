"""Cross-lingual alignment of two word-vector spaces with an orthogonal map.

Two embedding tables trained separately, one per language, have axes that mean nothing to each
other. A seed dictionary of translation pairs is enough to fit a rotation that carries one space onto
the other (Mikolov et al. 2013; Smith et al. 2017): the orthogonal Procrustes solution, one SVD of
the pairs' cross-covariance.

- :func:`seed_dictionary` — the book's English–Chinese word pairs (``resources/en_zh_seed.tsv``).
- :func:`split_pairs`, :func:`folds` — seeded held-out splits of a dictionary.
- :func:`prepare` — unit length, mean-centred, unit length again (the usual preprocessing).
- :func:`procrustes` — the orthogonal ``W`` minimising ``||src @ W - tgt||`` (NumPy or torch, on the
  inputs' device).
- :func:`translation_ranks`, :func:`precision_at` — retrieval of held-out translations among a
  table of candidates.
- :func:`align` — the whole experiment: fit on some pairs, score the others before and after.

Used by the chapter "Practical choices" (15_practice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Sequence

import numpy as np
import torch

from embedbook import stats

__all__ = ["Alignment", "align", "folds", "precision_at", "prepare", "procrustes", "seed_dictionary",
           "split_pairs", "translation_ranks"]

Pair = tuple[str, str]


def seed_dictionary() -> list[Pair]:
    """The book's English–Chinese seed dictionary: common words, one translation each.

    Returns:
        ``(english, chinese)`` pairs, the Chinese words segmented as in People's Daily (1998).

    Raises:
        ValueError: a line of the packaged file does not hold exactly two tab-separated words.
    """
    text = resources.files("embedbook").joinpath("resources/en_zh_seed.tsv").read_text(encoding="utf-8")
    pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not all(p.strip() for p in parts):
            raise ValueError(f"en_zh_seed.tsv line {number} is not 'english<TAB>chinese': {line!r}")
        pairs.append((parts[0].strip(), parts[1].strip()))
    return pairs


def _check_pairs(pairs: Sequence[Pair], need: int = 2) -> list[Pair]:
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__len__"):
        raise TypeError("pairs must be a list of (source word, target word) tuples")
    out = []
    for p in pairs:
        if not (isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(w, str) for w in p)):
            raise TypeError(f"every pair must be a (str, str) tuple, got {p!r}")
        out.append((p[0], p[1]))
    if len(out) < need:
        raise ValueError(f"need at least {need} pairs, got {len(out)}")
    return out


def _check_seed(seed) -> None:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")


def split_pairs(pairs: Sequence[Pair], test_fraction: float = 0.25, seed: int = 0) -> tuple[list[Pair], list[Pair]]:
    """Split a dictionary into a fitting part and a held-out part by a seeded permutation.

    Args:
        pairs: ``(source, target)`` word pairs.
        test_fraction: share held out, in (0, 1); at least one pair is held out and one kept.
        seed: the permutation's seed (the same seed gives the same split).

    Returns:
        ``(fit, held_out)``, disjoint lists of pairs.

    Raises:
        ValueError: ``test_fraction`` outside (0, 1) or fewer than two pairs. TypeError: not pairs of strings.
    """
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    _check_seed(seed)
    pairs = _check_pairs(pairs)
    order = np.random.default_rng(seed).permutation(len(pairs))
    n_test = min(len(pairs) - 1, max(1, int(round(test_fraction * len(pairs)))))
    return [pairs[i] for i in order[n_test:]], [pairs[i] for i in order[:n_test]]


def folds(pairs: Sequence[Pair], k: int = 3, seed: int = 0) -> list[tuple[list[Pair], list[Pair]]]:
    """``k``-fold cross-validation splits: every pair is held out exactly once.

    Args:
        pairs: ``(source, target)`` word pairs.
        k: number of folds, at least 2 and at most the number of pairs.
        seed: seed of the permutation that assigns pairs to folds.

    Returns:
        ``k`` tuples ``(fit, held_out)``.

    Raises:
        ValueError: ``k`` < 2 or larger than the number of pairs. TypeError: not pairs of strings.
    """
    pairs = _check_pairs(pairs)
    _check_seed(seed)
    if not isinstance(k, int) or isinstance(k, bool) or not 2 <= k <= len(pairs):
        raise ValueError(f"k must be an int between 2 and the number of pairs ({len(pairs)}), got {k!r}")
    order = np.random.default_rng(seed).permutation(len(pairs))
    parts = np.array_split(order, k)
    out = []
    for i in range(k):
        held = set(parts[i].tolist())
        out.append(([pairs[j] for j in order if j not in held], [pairs[j] for j in parts[i]]))
    return out


def prepare(vectors):
    """Unit length, mean-centred, unit length again: the usual preprocessing before Procrustes
    (Artetxe et al. 2016). NumPy in, NumPy out (float32); a torch tensor stays on its device.

    Args:
        vectors: an ``(n, d)`` array or floating tensor, no zero rows.

    Returns:
        the prepared rows, same shape.

    Raises:
        ValueError: not 2-D, fewer than two rows, NaN or infinity, a zero row, or a row that is zero
            once centred (it points the same way as the rows' mean: e.g. all rows parallel).
    """
    x = stats.unit_rows(vectors, zero="keep")
    zero = ~(x != 0).any(1)
    if zero.any():
        rows = zero.nonzero().ravel().tolist() if isinstance(x, torch.Tensor) else np.flatnonzero(zero).tolist()
        raise ValueError(f"{len(rows)} row(s) are all zeros (e.g. row {rows[0]}): a zero vector has no direction "
                         "to align; drop those rows (and their pairs) before prepare")
    if x.shape[0] < 2:
        raise ValueError("prepare needs at least two rows: centring one row leaves nothing")
    x = x - x.mean(0, keepdims=True) if isinstance(x, np.ndarray) else x - x.mean(0, keepdim=True)
    zero = ~(x != 0).any(1)
    if zero.any():
        raise ValueError(f"{int(zero.sum())} row(s) are zero once centred (they equal the rows' mean direction, "
                         "e.g. all rows parallel): no direction is left to align; drop them or use other vectors")
    return stats.unit_rows(x)


def procrustes(src, tgt):
    """The orthogonal ``W`` minimising ``||src @ W - tgt||`` (Schönemann 1966): with
    ``U S Vᵀ = svd(srcᵀ tgt)``, ``W = U Vᵀ``.

    Args:
        src, tgt: matching ``(n, d)`` NumPy arrays or torch tensors (row ``i`` of ``src`` should map to
            row ``i`` of ``tgt``), at least two rows. Tensors stay on their device.

    Returns:
        ``W``, ``(d, d)``, orthogonal (``W @ W.T`` is the identity), of the inputs' kind.

    Raises:
        TypeError: one array and one tensor, or a non-float tensor. ValueError: shapes differ, not 2-D,
        fewer than two rows, NaN / infinity, or values so large that the cross-covariance overflows.
    """
    if isinstance(src, torch.Tensor) != isinstance(tgt, torch.Tensor):
        raise TypeError("give src and tgt as the same kind: both NumPy arrays or both torch tensors")
    if isinstance(src, torch.Tensor):
        if not (src.is_floating_point() and tgt.is_floating_point()):
            raise TypeError(f"procrustes needs floating tensors, got {src.dtype} and {tgt.dtype}")
        if src.device != tgt.device:
            raise ValueError(f"src is on {src.device} and tgt on {tgt.device}: move them to one device")
        finite = bool(torch.isfinite(src).all() and torch.isfinite(tgt).all())
    else:
        src, tgt = np.asarray(src, dtype=np.float64), np.asarray(tgt, dtype=np.float64)
        finite = bool(np.isfinite(src).all() and np.isfinite(tgt).all())
    if src.ndim != 2 or tuple(src.shape) != tuple(tgt.shape) or src.shape[0] < 2:
        raise ValueError(
            f"src and tgt must be matching (n, d) matrices with n >= 2, got {tuple(src.shape)} and {tuple(tgt.shape)}"
        )
    if not finite:
        raise ValueError("src or tgt contains NaN or infinity")
    if isinstance(src, torch.Tensor):
        cov = src.T @ tgt
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # reported below as a ValueError
            cov = src.T @ tgt
    if not bool(torch.isfinite(cov).all() if isinstance(cov, torch.Tensor) else np.isfinite(cov).all()):
        raise ValueError("src.T @ tgt overflows: the values are too large; scale the rows first (e.g. with prepare)")
    u, _, vt = torch.linalg.svd(cov) if isinstance(cov, torch.Tensor) else np.linalg.svd(cov)
    return u @ vt


def translation_ranks(queries, candidates, gold: Sequence[int]) -> np.ndarray:
    """Rank of each query's gold translation among all candidates, by cosine (0 = nearest).

    Args:
        queries: ``(q, d)`` mapped source vectors.
        candidates: ``(n, d)`` target vectors (the search space).
        gold: for each query, the row of its translation in ``candidates``.

    Returns:
        ``q`` integer ranks; a tie with the gold row counts in the gold row's favour.

    Raises:
        ValueError: dimensions differ, ``gold`` has the wrong length or an out-of-range row, NaN or zero rows.
    """
    q, c = np.asarray(queries, dtype=np.float32), np.asarray(candidates, dtype=np.float32)
    if q.ndim != 2 or c.ndim != 2 or q.shape[1] != c.shape[1]:
        raise ValueError(f"queries {q.shape} and candidates {c.shape} must be 2-D with the same number of dimensions")
    for name, m in (("queries", q), ("candidates", c)):
        zero = ~(m != 0).any(1)
        if zero.any():
            raise ValueError(f"{int(zero.sum())} row(s) of {name} are all zeros (e.g. row {int(np.flatnonzero(zero)[0])}): "
                             "a zero vector has no direction, so no cosine rank; drop those rows first")
    q, c = stats.unit_rows(q), stats.unit_rows(c)
    raw = np.asarray(gold)
    if raw.size and not np.issubdtype(raw.dtype, np.integer):
        raise ValueError(f"gold must hold integer rows of candidates, got {raw.dtype} values such as {raw.ravel()[0]!r}")
    gold = raw.astype(np.int64)
    if gold.shape != (len(q),):
        given = gold.shape[0] if gold.ndim else 0
        raise ValueError(f"give one gold row per query: {len(q)} queries, {given} gold rows")
    if len(gold) and (gold.min() < 0 or gold.max() >= len(c)):
        raise ValueError(f"gold rows must lie in [0, {len(c)})")
    sims = q @ c.T
    return (sims > sims[np.arange(len(q)), gold][:, None]).sum(1)


def precision_at(ranks: Sequence[int], k: int) -> float:
    """Share of queries whose gold translation is among the ``k`` nearest candidates.

    Raises:
        ValueError: no ranks, a rank that is not an int ``>= 0`` (0: the gold word is the nearest), or
            ``k`` < 1.
    """
    ranks = np.asarray(ranks)
    if ranks.size == 0:
        raise ValueError("no ranks: score at least one query")
    if ranks.dtype.kind not in "iu" or (ranks < 0).any():
        raise ValueError(f"ranks must be ints >= 0 (0: the gold word is the nearest), got {ranks.dtype} values "
                         f"from {ranks.min()} to {ranks.max()}")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}")
    return float((ranks < k).mean())


@dataclass
class Alignment:
    """What :func:`align` measured on one split of the dictionary.

    Attributes:
        n_pairs, n_usable, n_fit, n_test: pairs given, pairs with both words in their spaces, pairs
            fitted, pairs held out.
        n_candidates: target words searched.
        p1_before, p5_before, p1_after, p5_after: held-out precision@1 and @5 with the identity map and
            with the fitted map.
        cos_before, cos_after: mean cosine of held-out pairs, before and after.
        p1_shuffled, p5_shuffled: precision@1 and @5 after a map fitted on the same words with the
            translations shuffled (a control: what the fitting alone gives without correct pairs).
        examples: up to eight ``(source, gold, best guess after)`` held-out triples.
        map: the fitted orthogonal map.
    """

    n_pairs: int
    n_usable: int
    n_fit: int
    n_test: int
    n_candidates: int
    p1_before: float
    p5_before: float
    p1_after: float
    p5_after: float
    cos_before: float
    cos_after: float
    p1_shuffled: float
    p5_shuffled: float
    examples: list[tuple[str, str, str]] = field(default_factory=list)
    map: np.ndarray | None = None


def _keyed(kv, name: str) -> None:
    for attr in ("index_to_key", "key_to_index", "vectors"):
        if not hasattr(kv, attr):
            raise TypeError(
                f"{name} must be word vectors like gensim's KeyedVectors (index_to_key, key_to_index, vectors)"
            )


def align(src_kv, tgt_kv, pairs: Sequence[Pair] | None = None, *, fit: Sequence[Pair] | None = None,
          test: Sequence[Pair] | None = None, n_candidates: int = 50_000, test_fraction: float = 0.25,
          seed: int = 0) -> Alignment:
    """Translate held-out source words into the target language before and after an orthogonal map
    fitted on the other dictionary pairs.

    Pairs are ``(source word, target word)``; to translate Chinese into English with
    :func:`seed_dictionary`, swap its ``(english, chinese)`` pairs. Give either ``pairs`` (split with
    :func:`split_pairs`) or both ``fit`` and ``test``. Pairs with a word missing from its space, or whose
    target word is not among the ``n_candidates`` most frequent target words, are dropped.

    Args:
        src_kv, tgt_kv: gensim ``KeyedVectors`` (or anything with ``index_to_key``, ``key_to_index``,
            ``vectors``) of the same dimension; the target's words most frequent first.
        pairs: the dictionary to split, or None when ``fit`` and ``test`` are given.
        fit, test: an explicit split.
        n_candidates: how many of the most frequent target words are searched.
        test_fraction, seed: passed to :func:`split_pairs`.

    Returns:
        an :class:`Alignment`.

    Raises:
        TypeError: not word vectors. ValueError: dimensions differ, fewer than two usable fitting pairs
        or no usable held-out pair, or neither ``pairs`` nor ``fit`` and ``test``.
    """
    _keyed(src_kv, "src_kv")
    _keyed(tgt_kv, "tgt_kv")
    if src_kv.vectors.shape[1] != tgt_kv.vectors.shape[1]:
        raise ValueError(
            f"dimensions differ: source {src_kv.vectors.shape[1]}, target {tgt_kv.vectors.shape[1]}; "
            "train the source vectors with the target's dimension"
        )
    if not isinstance(n_candidates, int) or n_candidates < 2:
        raise ValueError(f"n_candidates must be an int >= 2, got {n_candidates!r}")
    if (fit is None) != (test is None):
        raise ValueError("give both fit and test, or neither (then pairs is split)")
    if fit is not None and pairs is not None:
        raise ValueError("give either pairs (to be split) or fit and test, not both: pairs would be ignored")
    cand_words = list(tgt_kv.index_to_key[:n_candidates])
    cand_pos = {w: i for i, w in enumerate(cand_words)}
    usable = lambda ps: [(s, t) for s, t in _check_pairs(ps, need=1) if t in cand_pos and s in src_kv.key_to_index]
    if fit is None:
        if pairs is None:
            raise ValueError("give pairs, or fit and test")
        given = _check_pairs(pairs, need=1)
        kept = usable(given)
        if len(kept) < 3:
            raise ValueError(
                f"only {len(kept)} of {len(given)} pairs have both words in their spaces: too few to fit and test"
            )
        fit, test = split_pairs(kept, test_fraction, seed)
        n_pairs = len(given)
    else:
        n_pairs = len(fit) + len(test)
        fit, test = usable(fit), usable(test)
    if len(fit) < 2 or not test:
        raise ValueError(f"{len(fit)} fitting and {len(test)} held-out pairs have both words in their spaces: too few")
    cands = prepare(np.asarray(tgt_kv.vectors[: len(cand_words)], dtype=np.float32))
    src_all = np.asarray(src_kv.vectors, dtype=np.float32)
    src_rows = lambda ps: [src_kv.key_to_index[s] for s, _ in ps]
    src = prepare(src_all)  # centre over the whole source vocabulary, as the candidates are
    x_fit, y_fit = src[src_rows(fit)], cands[[cand_pos[t] for _, t in fit]]
    w = procrustes(x_fit, y_fit).astype(np.float32)
    shuffled = y_fit[np.random.default_rng(seed + 1).permutation(len(fit))]
    w_shuffled = procrustes(x_fit, shuffled).astype(np.float32)
    x_test, gold = src[src_rows(test)], np.array([cand_pos[t] for _, t in test])
    out = {}
    for name, m in (("before", np.eye(w.shape[0], dtype=np.float32)), ("after", w), ("shuffled", w_shuffled)):
        mapped = x_test @ m
        ranks = translation_ranks(mapped, cands, gold)
        out[f"p1_{name}"], out[f"p5_{name}"] = precision_at(ranks, 1), precision_at(ranks, 5)
        out[f"cos_{name}"] = float(np.mean(np.sum(stats.unit_rows(mapped, zero="keep") * cands[gold], axis=1)))
    best = np.argmax((x_test[:8] @ w) @ cands.T, axis=1)
    return Alignment(
        n_pairs=n_pairs, n_usable=len(fit) + len(test), n_fit=len(fit), n_test=len(test),
        n_candidates=len(cand_words), p1_before=out["p1_before"], p5_before=out["p5_before"],
        p1_after=out["p1_after"], p5_after=out["p5_after"], cos_before=out["cos_before"],
        cos_after=out["cos_after"], p1_shuffled=out["p1_shuffled"], p5_shuffled=out["p5_shuffled"],
        examples=[(s, t, cand_words[int(b)]) for (s, t), b in zip(test[:8], best)], map=w,
    )
