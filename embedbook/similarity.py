"""Similarity in an embedding space: cosine, k-nearest neighbours, word-similarity benchmarks, analogies.

Everything works on a plain ``(n, d)`` float matrix plus a word list (a :class:`Space`), so the same code
serves GloVe, a Word2Vec model and a transformer's input table. Nearest-neighbour search is chunked over
the table and over the queries, so its memory stays bounded for any number of queries.

- :class:`Space` — words and their vectors, with the unit-length rows made once (by
  :func:`embedbook.stats.unit_rows`); refuses NaN and infinity, and knows which rows are all zeros;
- :func:`cosine`, :func:`anisotropy`, :func:`knn`, :func:`neighbours`, :func:`neighbour_overlap`,
  :func:`common_rows`;
- :func:`similarity_benchmark` — Spearman of cosines against human ratings (WordSim-353, SimLex-999);
- :func:`solve_analogy` (3CosAdd), :func:`read_analogies`, :func:`zh_analogies`, :func:`evaluate_analogies`;
- :func:`input_table_space` — a transformer's input table, whole-word tokens only, as a :class:`Space`.

Used by chapters 08_similarity, 09_analogies and 10_word2vec.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from embedbook.stats import spearman, unit_rows

__all__ = [
    "AnalogyResult", "MAX_BLOCK", "MAX_PAIRS", "Space", "anisotropy", "common_rows", "cosine", "evaluate_analogies",
    "input_table_space", "knn", "neighbour_overlap", "neighbours", "read_analogies", "similarity_benchmark",
    "solve_analogy", "solve_analogies", "zh_analogies",
]

MAX_BLOCK = 2**23  # most scores (floats) held at once by knn: 32 MiB in float32
#: The most random pairs :func:`anisotropy` averages (ten million: a few seconds; far more than its
#: standard error needs).
MAX_PAIRS = 10**7


def _array(x, name: str, ndim: int | tuple[int, ...], dtype=np.float32) -> np.ndarray:
    """``x`` (array, list or tensor on any device) as a finite NumPy array of ``ndim`` dimensions."""
    if hasattr(x, "detach"):
        x = x.detach().cpu()
        x = (x.double() if dtype == np.float64 else x.float()).numpy()  # bfloat16 has no NumPy dtype
    try:
        out = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers, got {type(x).__name__}") from None
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if out.ndim not in dims:
        raise ValueError(f"{name} must be {' or '.join(f'{d}-D' for d in dims)}, got shape {out.shape}")
    if not np.isfinite(out).all():
        raise ValueError(f"NaN or infinity in {name}; drop or repair those values first")
    return out


def _int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _rows(rows, n: int, what: str) -> list[int]:
    """``rows`` as a list of ints in ``[0, n)``; anything else is refused with ``what`` in the message."""
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"{what} must be a list of row numbers, got {type(rows).__name__} {rows!r}")
    rows = list(rows.tolist() if hasattr(rows, "tolist") else rows)
    bad = [r for r in rows if not _int(r)]
    if bad:
        raise TypeError(f"{what} must hold integer row numbers, got {bad[0]!r}")
    out = [int(r) for r in rows]
    if out and not (0 <= min(out) and max(out) < n):
        r = next(r for r in out if not 0 <= r < n)
        raise ValueError(f"{what} holds row {r}, outside the table's rows 0 .. {n - 1}")
    return out


def _check_space(space, name: str = "space") -> None:
    if not isinstance(space, Space):
        raise TypeError(f"{name} must be a similarity.Space, got {type(space).__name__}; make one with "
                        "Space(words, vectors) or Space.from_keyed(data.glove())")


# --- vocabulary ------------------------------------------------------------------------------------


class Space:
    """A word list and its vectors (rows), with the unit-length copy made once.

    Args:
        words: the vocabulary, each word once; most frequent first if frequency ranks are wanted.
        vectors: an ``(n, d)`` array (or tensor), one finite row per word. All-zero rows are allowed
            (the dot product and Euclidean distance are defined for them) but have no direction: they
            are never cosine neighbours, and asking for a zero row's cosine neighbours raises.

    Raises:
        ValueError: no words, a row count that differs from the word count, duplicate words, or NaN or
            infinity in a row (the message names the first such words).
        TypeError: ``words`` is a string or not a sequence (pass a list of words), or a word that is not
            a string.
    """

    def __init__(self, words: Sequence[str], vectors) -> None:
        if (isinstance(words, (str, bytes, Mapping)) or not hasattr(words, "__len__")
                or not hasattr(words, "__getitem__")):  # a list, tuple, array or pandas Series, in order
            raise TypeError(f"words must be a list of words, e.g. ['king', 'queen'], got {type(words).__name__}"
                            + (f" {words!r} (a string is not a word list: wrap it as [{words!r}] or split it)"
                               if isinstance(words, (str, bytes)) else ""))
        words = list(words)
        if hasattr(vectors, "detach"):
            vectors = vectors.detach().double().cpu().numpy()  # float64 beyond float32's range is named below
        try:
            wide = np.asarray(vectors)
            if wide.dtype.kind not in "fiub":
                wide = wide.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"vectors must be an (n, d) array of numbers, got {type(vectors).__name__}") from None
        # rows are held in float32: a finite value beyond its range (about 3.4e38) would become infinity, with
        # numpy's overflow warning, and then be reported as "NaN or infinity"
        with np.errstate(invalid="ignore"):
            beyond = np.isfinite(wide) & (np.abs(wide) > np.finfo(np.float32).max) if wide.dtype.kind == "f" else None
        if beyond is not None and beyond.ndim == 2 and len(words) == wide.shape[0] and beyond.any():
            rows = np.flatnonzero(beyond.any(axis=1))
            raise ValueError(f"{len(rows)} row(s) hold values beyond float32's range (|x| > 3.4e38; e.g. "
                             f"{', '.join(repr(words[i]) for i in rows[:5])}), which a Space stores as float32; "
                             "rescale the vectors (cosine does not change when a row is scaled) or drop those words")
        vectors = wide.astype(np.float32)
        if vectors.ndim != 2 or len(words) != vectors.shape[0]:
            raise ValueError(
                f"need one vector row per word: got {len(words)} words and an array of shape {vectors.shape}"
            )
        if not words:
            raise ValueError("the vocabulary is empty; pass at least one word and its vector")
        if vectors.shape[1] == 0:
            raise ValueError("the vectors have 0 dimensions; pass an (n, d) array with d >= 1")
        if not all(isinstance(w, str) for w in words):
            raise TypeError(f"words must be strings, got e.g. {next(w for w in words if not isinstance(w, str))!r}")
        finite = np.isfinite(vectors).all(axis=1)
        if not finite.all():
            bad = [words[i] for i in np.flatnonzero(~finite)[:5]]
            raise ValueError(
                f"{int((~finite).sum())} row(s) contain NaN or infinity (e.g. {', '.join(map(repr, bad))}); "
                "drop those words or repair their vectors"
            )
        self.words = words
        self.index = {w: i for i, w in enumerate(words)}
        if len(self.index) != len(words):
            raise ValueError("the word list has duplicates; each word must appear once")
        self.vectors = vectors
        self.unit = unit_rows(vectors, zero="keep")
        self.sq_norms = np.einsum("ij,ij->i", vectors, vectors)
        self.zero = ~self.unit.any(axis=1)  # rows without a direction: all zeros, or too short for float32
        self.zero_rows = np.flatnonzero(self.zero)

    @classmethod
    def from_keyed(cls, kv, limit: int | None = None) -> "Space":
        """A Space from gensim ``KeyedVectors`` (e.g. ``data.glove()`` or ``model.wv``).

        Args:
            kv: the keyed vectors.
            limit: keep only the first ``limit`` words (the most frequent, for gensim's sets).

        Raises:
            TypeError: ``kv`` is not gensim ``KeyedVectors`` (for a dict of vectors, use
                ``Space(list(d), np.stack(list(d.values())))``).
            ValueError: ``limit`` is not a positive integer.
        """
        if not (hasattr(kv, "index_to_key") and hasattr(kv, "vectors")):
            raise TypeError(f"kv must be gensim KeyedVectors (index_to_key, vectors), got {type(kv).__name__}; "
                            "for a dict word → vector use Space(list(d), np.stack(list(d.values())))")
        n = len(kv.index_to_key)
        if limit is not None:
            if not isinstance(limit, (int, np.integer)) or isinstance(limit, bool) or limit <= 0:
                raise ValueError(f"limit must be a positive integer, got {limit!r}")
            n = min(int(limit), n)
        return cls(kv.index_to_key[:n], kv.vectors[:n])

    def save(self, path: str | Path) -> Path:
        """Write the space to ``path`` (``.npz``: the vectors as float32 and the words as a unicode array; no
        pickle, so :meth:`load` never runs code from the file). Returns the path written (``.npz`` added if
        missing, as NumPy does)."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        np.savez(path, vectors=self.vectors, words=np.array(self.words, dtype=str))
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Space":
        """A space written by :meth:`save`.

        Raises:
            FileNotFoundError: no such file. ValueError: the file is not a saved Space (it must hold
                ``vectors`` and ``words``), or it would need pickle to read.
        """
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no saved Space at {path}; write one with space.save({str(path)!r})")
        try:
            with np.load(path, allow_pickle=False) as f:
                if not {"vectors", "words"} <= set(f.files):
                    raise ValueError(f"{path} is not a saved Space: it holds {sorted(f.files)}, not vectors and words")
                return cls([str(w) for w in f["words"]], f["vectors"])
        except (OSError, ValueError) as err:
            if "not a saved Space" in str(err):
                raise
            raise ValueError(f"{path} is not a saved Space (an .npz of vectors and words without pickle): {err}") from None

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def __repr__(self) -> str:
        return f"Space({len(self):,} words, d={self.vectors.shape[1]})"

    def id(self, word: str) -> int:
        """The row of ``word``.

        Returns:
            its index in :attr:`words` and :attr:`vectors`.

        Raises:
            KeyError: an unknown word; the message suggests close spellings, and says so when only the
                case differs (GloVe's vectors are lower-cased: ask for "king", not "King").
            TypeError: ``word`` is not a string (a row number, None).
        """
        if not isinstance(word, str):
            raise TypeError(f"a word is a string, e.g. 'king'; got {word!r} ({type(word).__name__}); for a row "
                            f"number use space.words[i]")
        try:
            return self.index[word]
        except KeyError:
            pass
        variants = [v for v in dict.fromkeys((word.lower(), word.capitalize(), word.upper(), word.title())) if v in self.index]
        if variants:
            lowered = all(w == w.lower() for w in self.words[:1000])
            how = "the vectors are lower-cased" if lowered else "case matters in this vocabulary"
            raise KeyError(f"{word!r} is not in the vocabulary ({how}); did you mean {variants[0]!r}?") from None
        close = difflib.get_close_matches(word.lower(), self.words[:50_000], n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise KeyError(f"{word!r} is not in the vocabulary ({len(self):,} words){hint}") from None

    def vec(self, word: str) -> np.ndarray:
        """The raw vector of ``word`` (a view into :attr:`vectors`).

        Returns:
            a ``(d,)`` float32 array.

        Raises:
            KeyError: an unknown word, as :meth:`id`.
        """
        return self.vectors[self.id(word)]


# --- basic measures ----------------------------------------------------------------------------------


def cosine(a, b) -> float:
    """Cosine of the angle between two vectors: ``a·b / (|a| |b|)``, in ``[-1, 1]``.

    Args:
        a, b: two 1-D vectors of the same length (arrays, lists or tensors).

    Returns:
        the cosine as a float (computed in float64).

    Raises:
        ValueError: shapes differ or are not 1-D, empty vectors, NaN or infinity, or a zero vector (it has no
            direction, so its cosine is undefined; NaN would be the silent answer).
    """
    a = _array(a, "a", 1, np.float64)
    b = _array(b, "b", 1, np.float64)
    if a.shape != b.shape:
        raise ValueError(f"cosine needs two 1-D vectors of the same length, got shapes {a.shape} and {b.shape}")
    if a.size == 0:
        raise ValueError("cosine is undefined for empty vectors (length 0); give two non-empty 1-D vectors")
    sa, sb = (float(np.abs(v).max()) if v.size else 0.0 for v in (a, b))
    if sa == 0 or sb == 0:
        raise ValueError("cosine is undefined for a zero vector; drop it or use the dot product")
    a, b = a / sa, b / sb  # rescale first: 1e200 or 1e-200 entries neither overflow nor underflow
    return float(np.clip(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)), -1.0, 1.0))


def anisotropy(matrix, n_pairs: int = 10_000, seed: int = 0) -> float:
    """Mean cosine of ``n_pairs`` random pairs of distinct rows: 0 for directions spread evenly, near 1
    when every vector points the same way.

    Args:
        matrix: an ``(n, d)`` array or tensor, ``n >= 2``; all-zero rows count as cosine 0.
        n_pairs: random pairs to average (a seeded sample), at most :data:`MAX_PAIRS`.
        seed: the sample's seed, an int ``>= 0``.

    Returns:
        the mean cosine, in ``[-1, 1]``.

    Raises:
        ValueError: fewer than two rows, ``n_pairs`` not an int from 1 to :data:`MAX_PAIRS`, a negative
            ``seed``, or NaN or infinity.
    """
    if not isinstance(n_pairs, (int, np.integer)) or isinstance(n_pairs, bool) or n_pairs <= 0:
        raise ValueError(f"n_pairs must be a positive integer, got {n_pairs!r}")
    if n_pairs > MAX_PAIRS:
        raise ValueError(f"n_pairs={n_pairs:,} is above the limit of {MAX_PAIRS:,} random pairs (it would need "
                         f"{16 * n_pairs / 2**30:,.1f} GiB for the pair indices alone); ask for fewer")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    m = unit_rows(_array(matrix, "matrix", 2), zero="keep")
    if len(m) < 2:
        raise ValueError("anisotropy needs at least two rows")
    rng = np.random.default_rng(seed)
    i = rng.integers(0, len(m), n_pairs)
    j = (i + rng.integers(1, len(m), n_pairs)) % len(m)  # j != i
    cos = np.empty(n_pairs, dtype=np.float64)
    step = max(1, MAX_BLOCK // max(m.shape[1], 1))  # pairs per block: bounded memory
    for p0 in range(0, n_pairs, step):
        ii, jj = i[p0 : p0 + step], j[p0 : p0 + step]
        cos[p0 : p0 + step] = np.einsum("ij,ij->i", m[ii].astype(np.float64), m[jj].astype(np.float64))
    return float(cos.mean())


# --- nearest neighbours ------------------------------------------------------------------------------


def _check_k(k: int, n: int) -> None:
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k <= 0:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if k > n:
        raise ValueError(f"k={k} is larger than the {n} rows that may be returned; pass k <= {n}")


def knn(
    queries,
    table,
    k: int,
    exclude: Sequence[Sequence[int]] | None = None,
    max_block: int = MAX_BLOCK,
) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` rows of ``table`` by inner product with each query, best first (ties: lower row first).

    With a row-normalised table and unit queries this is cosine retrieval. Work is done in blocks of at
    most ``max_block`` scores (queries × table rows), so memory is bounded however many queries are passed.

    Args:
        queries: ``(q, d)`` or ``(d,)`` (array or tensor).
        table: ``(n, d)``.
        k: neighbours per query, ``1 <= k <= n`` minus the rows excluded for that query.
        exclude: optional, per query, rows that may not be returned (e.g. the input words).
        max_block: most scores computed at once.

    Returns:
        ``(ids, scores)``, each ``(q, k)``.

    Raises:
        ValueError: widths differ, an empty table, NaN or infinity, a bad ``k``, or ``exclude`` without one
            list per query or with a row outside the table.
    """
    q = np.atleast_2d(_array(queries, "queries", (1, 2)))
    t = _array(table, "table", 2)
    if q.shape[1] != t.shape[1]:
        raise ValueError(f"queries of width {q.shape[1]} do not match a table of shape {t.shape}")
    if len(t) == 0:
        raise ValueError("the table is empty: there are no rows to search; pass a table with at least one row")
    if exclude is not None:
        if isinstance(exclude, (str, bytes)) or not hasattr(exclude, "__len__"):
            raise TypeError(f"exclude must hold one list of rows per query, got {type(exclude).__name__}")
        if len(exclude) != len(q):
            raise ValueError(f"exclude needs one list per query: {len(exclude)} lists for {len(q)} queries")
        exclude = [sorted(set(_rows(rows, len(t), "exclude"))) for rows in exclude]
    _check_k(k, len(t) - (max(map(len, exclude)) if exclude else 0))
    if not _int(max_block) or max_block <= 0:
        raise ValueError(f"max_block must be a positive integer, got {max_block!r}")
    bound = float(np.abs(q).max(initial=0)) * float(np.abs(t).max()) * q.shape[1]  # the largest score possible
    if bound > float(np.finfo(np.float32).max):
        raise ValueError("the inner products may overflow float32 (values up to "
                         f"{float(np.abs(q).max()):.3g} and {float(np.abs(t).max()):.3g}): scale the rows first, "
                         "e.g. with embedbook.stats.unit_rows for cosine retrieval")
    return _search(q, t, k, exclude, max_block)


def _search(q: np.ndarray, t: np.ndarray, k: int, exclude: list[list[int]] | None, max_block: int = MAX_BLOCK
            ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`knn`'s search, on inputs already checked (a :class:`Space`'s unit rows are checked once, when it is
    made: its analogies and neighbours do not scan the table again on every call)."""
    qb = max(1, min(len(q), max_block // max(len(t), 1)))  # queries per block
    tb = max(k, max_block // qb)  # table rows per block
    out_ids = np.empty((len(q), k), dtype=np.int64)
    out_sc = np.empty((len(q), k), dtype=np.float32)
    for q0 in range(0, len(q), qb):
        qs = q[q0 : q0 + qb]
        best_ids = np.empty((len(qs), 0), dtype=np.int64)
        best_sc = np.empty((len(qs), 0), dtype=np.float32)
        for t0 in range(0, len(t), tb):
            sc = qs @ t[t0 : t0 + tb].T
            if exclude is not None:
                for r, rows in enumerate(exclude[q0 : q0 + qb]):
                    for row in rows:
                        if t0 <= row < t0 + sc.shape[1]:
                            sc[r, row - t0] = -np.inf
            if k == 1:  # argmax is much cheaper than a partition
                part = sc.argmax(axis=1)[:, None]
            else:
                part = np.argpartition(-sc, min(k, sc.shape[1]) - 1, axis=1)[:, :k]
            # keep only this block's candidates, then merge them with the best so far
            best_sc = np.concatenate([best_sc, np.take_along_axis(sc, part, 1)], axis=1)
            best_ids = np.concatenate([best_ids, part + t0], axis=1)
            if best_sc.shape[1] > k:
                keep = np.argpartition(-best_sc, k - 1, axis=1)[:, :k]
                best_sc = np.take_along_axis(best_sc, keep, 1)
                best_ids = np.take_along_axis(best_ids, keep, 1)
        order = np.lexsort((best_ids, -best_sc), axis=1)  # by score, ties by row: deterministic
        out_ids[q0 : q0 + qb] = np.take_along_axis(best_ids, order, 1)
        out_sc[q0 : q0 + qb] = np.take_along_axis(best_sc, order, 1)
    return out_ids, out_sc


def neighbour_overlap(a, b, queries: Sequence[int], k: int = 10) -> np.ndarray:
    """For each query row, the share of its ``k`` nearest rows by cosine (itself excluded) that two tables
    with the same rows agree on: 1.0 means the same neighbours, 0.0 none in common.

    Args:
        a, b: ``(n, d_a)`` and ``(n, d_b)`` arrays or tensors whose row ``i`` stands for the same item (the
            same word, say: a table and its quantised copy, or two models' vectors for shared words; see
            :func:`common_rows`).
        queries: row indices to compare.
        k: neighbours per query, ``1 <= k < n``.

    Returns:
        one share per query, in ``[0, 1]``.

    Raises:
        ValueError: different numbers of rows, no queries, a query out of range, a bad ``k``, or NaN or
            infinity in a table.
    """
    a = a.detach().float().cpu().numpy() if hasattr(a, "detach") else np.asarray(a, dtype=np.float32)
    b = b.detach().float().cpu().numpy() if hasattr(b, "detach") else np.asarray(b, dtype=np.float32)
    if a.ndim != 2 or b.ndim != 2 or len(a) != len(b):
        raise ValueError(f"need two 2-D tables with the same rows, got shapes {a.shape} and {b.shape}")
    q = _rows(queries, len(a), "queries")
    if not q:
        raise ValueError("no queries to compare")
    _check_k(k, len(a) - 1)
    exclude = [[i] for i in q]
    ua, ub = unit_rows(a, zero="keep"), unit_rows(b, zero="keep")
    ia, _ = knn(ua[q], ua, k, exclude=exclude)
    ib, _ = knn(ub[q], ub, k, exclude=exclude)
    return np.array([len(set(x) & set(y)) / k for x, y in zip(ia.tolist(), ib.tolist())])


def common_rows(s1: Space, s2: Space) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The words two spaces share, in ``s1``'s order, and their rows in each: tables aligned row by row,
    ready for :func:`neighbour_overlap` (neighbours are then searched among the shared words only, so a
    smaller vocabulary does not by itself lower the overlap).

    Args:
        s1, s2: two spaces.

    Returns:
        ``(words, a, b)`` with ``a[i]`` and ``b[i]`` the vectors of ``words[i]`` in ``s1`` and ``s2``.

    Raises:
        ValueError: the spaces share fewer than two words. TypeError: not two :class:`Space` objects.
    """
    _check_space(s1, "s1")
    _check_space(s2, "s2")
    words = [w for w in s1.words if w in s2.index]
    if len(words) < 2:
        raise ValueError(f"the two spaces share {len(words)} word(s); neighbours need at least two")
    return words, s1.vectors[[s1.index[w] for w in words]], s2.vectors[[s2.index[w] for w in words]]


def neighbours(space: Space, word: str, k: int = 10, metric: str = "cosine") -> list[tuple[str, float]]:
    """The ``k`` nearest words to ``word``, itself excluded, best first (ties: lower row first).

    Args:
        space: the vectors.
        word: a word of ``space`` (case matters: GloVe is lower-cased).
        k: how many, ``1 <= k <`` the number of candidates.
        metric: ``"cosine"`` (all-zero rows are never returned), ``"dot"`` (the raw inner product) or
            ``"euclidean"`` (score = minus the distance).

    Returns:
        ``[(word, score), ...]``.

    Raises:
        KeyError: an unknown word (with suggestions). ValueError: an unknown metric, a bad ``k``, or the
            cosine neighbours of a word whose vector is all zeros (it has no direction). TypeError:
            ``space`` is not a :class:`Space`.
    """
    _check_space(space)
    i = space.id(word)
    if metric == "cosine":
        if space.zero[i]:
            raise ValueError(f"{word!r} has an all-zero vector (or one too short for float32): no direction, so "
                             "no cosine neighbours; use metric='dot' or 'euclidean'")
        scores = space.unit @ space.unit[i]  # float32, as the table: a cast of every score costs more than it buys
        scores[space.zero_rows] = -np.inf
        candidates = len(space) - 1 - int(space.zero.sum())
        if space.zero.any() and isinstance(k, (int, np.integer)) and k > candidates:
            raise ValueError(f"k={k} is larger than the {candidates} words with a direction ({int(space.zero.sum())} "
                             "all-zero rows are never cosine neighbours); pass a smaller k")
    elif metric == "dot":
        scores = (space.vectors @ space.vectors[i]).astype(np.float64)
        candidates = len(space) - 1
    elif metric == "euclidean":  # |x - q|^2 = |x|^2 - 2 x.q + |q|^2, without an (n, d) temporary
        sq = space.sq_norms.astype(np.float64)
        scores = -np.sqrt(np.maximum(sq - 2 * (space.vectors @ space.vectors[i]) + sq[i], 0))
        candidates = len(space) - 1
    else:
        raise ValueError(f"unknown metric {metric!r}: use 'cosine', 'dot' or 'euclidean'")
    _check_k(k, candidates)
    scores[i] = -np.inf
    return [(space.words[j], float(scores[j])) for j in _best(scores, k)]


def _best(scores: np.ndarray, k: int) -> np.ndarray:
    """The rows of the ``k`` highest scores, best first (ties: lower row first, so the order is deterministic)."""
    n = len(scores)
    part = np.argpartition(scores, n - k)[n - k:]
    return part[np.lexsort((part, -scores[part]))]


def similarity_benchmark(space: Space, pairs: Sequence[tuple[str, str, float]]) -> dict[str, float]:
    """Spearman correlation between cosine and human scores over the pairs the space covers.

    Pairs with an unknown word (or an all-zero vector) are left out and counted, as is usual, so always
    report coverage next to the correlation.

    Args:
        space: the vectors.
        pairs: ``(word1, word2, human score)``, e.g. ``data.wordsim353()`` or ``data.simlex999()``.

    Returns:
        ``{"spearman": rho, "covered": pairs scored, "total": pairs given}``.

    Raises:
        ValueError: no pairs, or fewer than three covered (too few to correlate), or the covered pairs' human
            scores (or cosines) all equal.
    """
    _check_space(space)
    if not pairs:
        raise ValueError("no word pairs given; use data.wordsim353() or data.simlex999()")
    if not all(isinstance(p, (tuple, list)) and len(p) == 3 for p in pairs):
        raise ValueError("each pair must be (word1, word2, human score), as data.wordsim353() gives")
    for p in pairs:
        if isinstance(p[2], (bool, np.bool_)) or not isinstance(p[2], (int, float, np.number)) or not np.isfinite(p[2]):
            raise ValueError(f"the human score of {p[0]!r}–{p[1]!r} must be a finite number, got {p[2]!r}; "
                             "drop or repair that pair")
    model, human = [], []
    for a, b, score in pairs:
        if a in space and b in space and not space.zero[space.index[a]] and not space.zero[space.index[b]]:
            model.append(float(space.unit[space.index[a]] @ space.unit[space.index[b]]))
            human.append(float(score))
    if len(model) < 3:
        raise ValueError(f"the space covers only {len(model)} of {len(pairs)} pairs; too few to correlate")
    if len(set(human)) == 1:
        raise ValueError(f"the human scores of the {len(model)} covered pairs are all equal ({human[0]}): a rank "
                         "correlation with them is undefined; use pairs whose scores differ")
    if len(set(model)) == 1:
        raise ValueError(f"the space gives every one of the {len(model)} covered pairs the same cosine "
                         f"({model[0]:.3g}): a rank correlation with it is undefined; check the vectors")
    return {"spearman": spearman(model, human), "covered": len(model), "total": len(pairs)}


def input_table_space(tokenizer, model) -> Space:
    """A transformer's input embedding table, whole-word tokens only, as a :class:`Space`.

    Keeps the tokens that are alphabetic ASCII words (no ``##`` continuation pieces, no punctuation or
    special tokens), in id order. A WordPiece vocabulary is not frequency ordered: take frequencies from
    elsewhere (``data.zipf``).

    Args:
        tokenizer: a Hugging Face tokenizer (``get_vocab()``).
        model: its model (``get_input_embeddings()``), e.g. from ``data.load_encoder()``.

    Returns:
        a :class:`Space` of the whole-word tokens and their rows.

    Raises:
        ValueError: no whole-word token in the vocabulary.
    """
    if not hasattr(tokenizer, "get_vocab") or not hasattr(model, "get_input_embeddings"):
        raise TypeError("need a Hugging Face tokenizer (get_vocab) and its model (get_input_embeddings), "
                        "e.g. tok, model = data.load_encoder()")
    table = model.get_input_embeddings().weight.detach().float().cpu().numpy()
    keep = sorted((i, w) for w, i in tokenizer.get_vocab().items() if w.isalpha() and w.isascii() and i < len(table))
    if not keep:
        raise ValueError("the tokenizer's vocabulary has no whole-word alphabetic tokens")
    return Space([w for _, w in keep], table[[i for i, _ in keep]])


# --- analogies -------------------------------------------------------------------------------------


def solve_analogy(
    space: Space, a: str, b: str, c: str, k: int = 5, exclude_inputs: bool = True
) -> list[tuple[str, float]]:
    """Solve ``a : b :: c : ?`` by 3CosAdd: the words nearest (cosine) to ``unit(b) - unit(a) + unit(c)``.

    ``king - man + woman`` is ``solve_analogy(space, "man", "king", "woman")``. With ``exclude_inputs=True``
    (the convention of word2vec's tool and gensim's ``most_similar``) the three input words are never
    returned; with ``False`` they may be, and often win.

    Args:
        space: the vectors.
        a, b, c: three words of ``space``.
        k: answers to return, best first.
        exclude_inputs: leave the three input words out of the answers.

    Returns:
        ``[(word, cosine with the target), ...]``.

    All-zero rows (no direction) are never returned as answers, as in :func:`neighbours`.

    Raises:
        ValueError: an empty word, an input word whose vector is all zeros, a target ``b - a + c`` of zero,
            or a bad ``k``. KeyError: an unknown word. TypeError: a word that is not a string, or an
            ``exclude_inputs`` that is not True or False.
    """
    _check_space(space)
    if not isinstance(exclude_inputs, (bool, np.bool_)):  # "no" is truthy: it would silently exclude them
        raise TypeError(f"exclude_inputs must be True or False, got {exclude_inputs!r}")
    q, (ia, ib, ic) = _analogy_query(space, a, b, c)
    excluded = sorted({ia, ib, ic}) if exclude_inputs else []
    _check_k(k, len(space) - len(excluded) - len(space.zero_rows))
    scores = space.unit @ q
    scores[space.zero_rows] = -np.inf
    scores[excluded] = -np.inf
    return [(space.words[i], float(scores[i])) for i in _best(scores, k)]


def _analogy_query(space: Space, a: str, b: str, c: str) -> tuple[np.ndarray, tuple[int, int, int]]:
    """The unit target ``unit(b) - unit(a) + unit(c)`` of an analogy and the rows of its three words, checked."""
    for pos, (name, w) in enumerate((("a", a), ("b", b), ("c", c)), 2):
        if not isinstance(w, str):
            raise TypeError(f"analogy word {name} (argument {pos}, after space) must be a string, got "
                            f"{type(w).__name__} {w!r}; pass three words, e.g. ('man', 'king', 'woman')")
        if not w.strip():
            raise ValueError(f"analogy word {name} is empty; pass three words, e.g. ('man', 'king', 'woman')")
    ia, ib, ic = space.id(a), space.id(b), space.id(c)
    for name, w, i in (("a", a, ia), ("b", b, ib), ("c", c, ic)):
        if space.zero[i]:
            raise ValueError(f"analogy word {name}={w!r} has an all-zero vector (or one too short for float32): "
                             "no direction, so no cosine analogy; pick another word")
    q = unit_rows((space.unit[ib] - space.unit[ia] + space.unit[ic])[None], zero="keep")[0]
    if not q.any():
        raise ValueError(f"the target unit({b!r}) - unit({a!r}) + unit({c!r}) is the zero vector: it has no "
                         "direction, so no word is nearest; pick other words")
    return q, (ia, ib, ic)


def solve_analogies(space: Space, questions: Sequence[Sequence[str]], k: int = 1, exclude_inputs: bool = True
                    ) -> list[list[tuple[str, float]]]:
    """:func:`solve_analogy` for many questions at once: one matrix product per block of questions (the
    batched form: much faster than a loop for hundreds of questions). Same answers, same order.

    Args:
        space: the vectors.
        questions: ``(a, b, c)`` or ``(a, b, c, expected)`` tuples, read as ``a : b :: c : ?``.
        k, exclude_inputs: as :func:`solve_analogy`.

    Returns:
        per question, ``[(word, cosine), ...]``, best first.

    Raises:
        as :func:`solve_analogy`, naming the question; ValueError: no questions.
    """
    _check_space(space)
    if isinstance(questions, (str, bytes)) or not hasattr(questions, "__len__") or len(questions) == 0:
        raise ValueError("questions must be a non-empty list of (a, b, c) word triples")
    if not isinstance(exclude_inputs, (bool, np.bool_)):
        raise TypeError(f"exclude_inputs must be True or False, got {exclude_inputs!r}")
    queries, excluded = [], []
    for n, question in enumerate(questions):
        if isinstance(question, (str, bytes)) or len(question) not in (3, 4):
            raise ValueError(f"question {n} must be (a, b, c) or (a, b, c, expected), got {question!r}")
        a, b, c = question[:3]
        try:
            solve = _analogy_query(space, a, b, c)
        except (KeyError, TypeError, ValueError) as err:
            raise type(err)(f"question {n} {tuple(question[:3])}: {err.args[0] if err.args else err}") from None
        queries.append(solve[0])
        excluded.append(sorted(set(solve[1]) if exclude_inputs else set()) + space.zero_rows.tolist())
    _check_k(k, len(space) - max(map(len, excluded)))
    ids, sc = _search(np.stack(queries), space.unit, k, excluded)
    return [[(space.words[i], float(x)) for i, x in zip(row_ids, row_sc)] for row_ids, row_sc in zip(ids, sc)]


Question = tuple[str, str, str, str]


def read_analogies(path: str | Path | None = None, lower: bool = True) -> dict[str, list[Question]]:
    """Read an analogy file in the ``questions-words.txt`` format: ``: section`` lines, then ``a b c d``.

    Args:
        path: the file; default Mikolov et al.'s English set (19,544 questions, 14 sections).
        lower: lower-case the words (GloVe is lower-cased).

    Returns:
        section → questions ``(a, b, c, d)`` ("a is to b as c is to d").

    Raises:
        FileNotFoundError: no such file. ValueError: a line that is neither a section nor four words, or
            no questions at all.
    """
    from embedbook import data

    if path is not None and not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a file path, got {type(path).__name__}")
    path = Path(path) if path is not None else data.analogy_questions()
    if not path.exists():
        raise FileNotFoundError(f"analogy file {path} does not exist")
    if not path.is_file():
        raise ValueError(f"{path} is not a file; pass the analogy file inside it")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text (byte {err.start}); convert it to UTF-8 first") from None
    out: dict[str, list[Question]] = {}
    section = None
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith(":"):
            section = line[1:].strip()
            out.setdefault(section, [])
            continue
        words = line.lower().split() if lower else line.split()
        if len(words) != 4 or section is None:
            raise ValueError(f"{path.name}:{n}: expected ': section' or four words, got {line!r}")
        out[section].append(tuple(words))
    if not any(out.values()):
        raise ValueError(f"{path} holds no analogy questions")
    return out


def zh_analogies() -> dict[str, list[Question]]:
    """The small Chinese analogy set written for this book (``embedbook/resources/zh_analogies.txt``):
    countries and capitals, provinces and capitals, male and female family words.

    Returns:
        section → questions, as :func:`read_analogies`.

    Raises:
        FileNotFoundError: the package was installed without its resource files.
    """
    ref = resources.files("embedbook") / "resources" / "zh_analogies.txt"
    return read_analogies(Path(str(ref)), lower=False)


@dataclass
class AnalogyResult:
    """Per-question outcomes of an analogy evaluation, made by :func:`evaluate_analogies` (questions with
    unknown words are skipped and counted).

    Attributes:
        questions: the questions answered, ``(a, b, c, d)``.
        sections: the section of each.
        pred_excl, pred_incl, pred_base: the answer of 3CosAdd with the inputs excluded, with them allowed,
            and of the nearest word to ``c`` (inputs excluded).
        skipped: questions left out.
        max_rank: per question, the row of its rarest word.
    """

    questions: list[Question]
    sections: list[str]
    pred_excl: list[str]  # 3CosAdd, input words excluded (the usual convention)
    pred_incl: list[str]  # 3CosAdd, input words allowed
    pred_base: list[str]  # Linzen's baseline: nearest neighbour of c alone, inputs excluded
    skipped: int
    max_rank: list[int] = field(default_factory=list)  # row of the rarest of the four words

    def correct(self, which: str = "excl") -> np.ndarray:
        """Whether each question was answered right under one convention.

        Args:
            which: ``"excl"``, ``"incl"`` or ``"base"``.

        Returns:
            a boolean array, one entry per question.

        Raises:
            ValueError: an unknown convention.
        """
        preds = {"excl": self.pred_excl, "incl": self.pred_incl, "base": self.pred_base}
        if which not in preds:
            raise ValueError(f"unknown convention {which!r}: use 'excl', 'incl' or 'base'")
        return np.array([p == q[3] for p, q in zip(preds[which], self.questions)], dtype=bool)

    def accuracy(self, which: str = "excl", mask: np.ndarray | None = None) -> float:
        """Share of questions answered right.

        Args:
            which: ``"excl"``, ``"incl"`` or ``"base"``.
            mask: optional, a boolean array selecting the questions to score.

        Returns:
            the share, in ``[0, 1]``.

        Raises:
            ValueError: an unknown convention, a mask of the wrong length, or an empty selection.
        """
        ok = self.correct(which)
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != ok.shape:
                raise ValueError(f"mask must hold one flag per question ({len(ok)}), got shape {mask.shape}")
            ok = ok[mask]
        if len(ok) == 0:
            raise ValueError("no questions to score: the selection is empty")
        return float(ok.mean())

    def by_section(self) -> dict[str, dict[str, float]]:
        """Accuracy per section.

        Returns:
            section → ``{"n": questions, "excl": accuracy, "incl": accuracy, "base": accuracy}``.
        """
        secs = np.array(self.sections)
        out = {}
        for s in dict.fromkeys(self.sections):
            m = secs == s
            out[s] = {"n": int(m.sum()), **{w: self.accuracy(w, m) for w in ("excl", "incl", "base")}}
        return out


def evaluate_analogies(
    space: Space,
    questions: dict[str, list[Question]],
    restrict: int | None = 100_000,
    per_section: int | None = None,
    seed: int = 0,
) -> AnalogyResult:
    """Answer every question by 3CosAdd under both conventions, and by Linzen's (2016) baseline.

    Args:
        space: the vectors (most frequent words first when ``restrict`` is used).
        questions: section → ``(a, b, c, d)``, read by :func:`read_analogies`.
        restrict: search only the first ``restrict`` words and skip questions outside them, as gensim's
            ``evaluate_word_analogies`` does (``None``: the whole vocabulary).
        per_section: keep at most this many questions per section (a seeded sample; for smoke runs).
        seed: the sample's seed.

    Returns:
        an :class:`AnalogyResult`.

    Questions with an all-zero vector among their words, or whose target ``b - a + c`` is zero, have no
    cosine answer: they are skipped and counted. All-zero rows are never predicted.

    Raises:
        ValueError: no questions, a question that is not four words, a bad ``restrict``, ``per_section`` or
            ``seed``, ``restrict`` leaving fewer than four words with a direction, or every question skipped.
        TypeError: ``space`` is not a :class:`Space`.
    """
    _check_space(space)
    if not isinstance(questions, dict):
        raise TypeError(f"questions must map section → [(a, b, c, d), ...], as read_analogies() returns; "
                        f"got {type(questions).__name__}")
    if not questions or not any(questions.values()):
        raise ValueError("no analogy questions given; read some with read_analogies()")
    for sec, qs in questions.items():
        for q in qs:
            if isinstance(q, str) or len(q) != 4 or not all(isinstance(w, str) for w in q):
                raise ValueError(f"each question must be four words (a, b, c, d), got {q!r} in section {sec!r}")
    if restrict is not None and (not _int(restrict) or restrict <= 0):
        raise ValueError(f"restrict must be a positive integer or None, got {restrict!r}")
    if per_section is not None and (not _int(per_section) or per_section <= 0):
        raise ValueError(f"per_section must be a positive integer or None, got {per_section!r}")
    if not _int(seed) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    n = len(space) if restrict is None else min(int(restrict), len(space))
    if n < 4:
        raise ValueError(f"restrict={restrict} leaves fewer than four words to search")
    zero = space.zero[:n]
    if n - int(zero.sum()) < 4:
        raise ValueError(f"only {n - int(zero.sum())} of the {n} searched words have a direction (the rest are "
                         "all-zero rows); search more words (raise restrict)")
    rng = np.random.default_rng(seed)
    kept: list[Question] = []
    secs: list[str] = []
    skipped = 0
    for sec, qs in questions.items():
        if per_section is not None and len(qs) > per_section:
            qs = [qs[i] for i in sorted(rng.choice(len(qs), per_section, replace=False))]
        for q in qs:
            if all(w in space.index and space.index[w] < n and not zero[space.index[w]] for w in q):
                kept.append(q)
                secs.append(sec)
            else:
                skipped += 1
    if not kept:
        raise ValueError("every question has a word outside the searched vocabulary (or an all-zero vector); "
                         "raise restrict")
    unit = space.unit[:n]
    ids = np.array([[space.index[w] for w in q] for q in kept])
    target = unit_rows(unit[ids[:, 1]] - unit[ids[:, 0]] + unit[ids[:, 2]], zero="keep")
    has_dir = target.any(axis=1)
    if not has_dir.all():  # b - a + c = 0: no direction, no nearest word
        skipped += int((~has_dir).sum())
        kept = [q for q, h in zip(kept, has_dir) if h]
        secs = [sc_ for sc_, h in zip(secs, has_dir) if h]
        ids, target = ids[has_dir], target[has_dir]
        if not kept:
            raise ValueError("every question's target b - a + c is the zero vector; no question can be answered")
    zero_cols = np.flatnonzero(zero)
    # one matrix product per block of questions serves both conventions: the best word, then the best
    # once the three inputs are struck out (argmax returns the lowest row among ties, as knn does)
    incl = np.empty(len(kept), dtype=np.int64)
    excl = np.empty(len(kept), dtype=np.int64)
    qb = max(1, MAX_BLOCK // n)
    for q0 in range(0, len(kept), qb):
        sc = target[q0 : q0 + qb] @ unit.T
        sc[:, zero_cols] = -np.inf  # all-zero rows are never cosine answers
        incl[q0 : q0 + qb] = sc.argmax(axis=1)
        sc[np.arange(len(sc))[:, None], ids[q0 : q0 + qb, :3]] = -np.inf
        excl[q0 : q0 + qb] = sc.argmax(axis=1)
    # Linzen's baseline: the nearest word to c that is none of a, b, c (c's top four always hold one)
    cs, inverse = np.unique(ids[:, 2], return_inverse=True)
    top_c, _ = knn(unit[cs], unit, 4, exclude=[zero_cols.tolist()] * len(cs))
    base = np.array([next(int(r) for r in top_c[j] if r not in row[:3]) for j, row in zip(inverse.ravel(), ids)])
    words = space.words
    return AnalogyResult(
        kept, secs,
        [words[i] for i in excl], [words[i] for i in incl], [words[i] for i in base],
        skipped, ids.max(axis=1).tolist(),
    )
