"""Input embeddings beyond one row per token: an n-gram table kept in host memory, and adaptive input.

- :class:`NgramIndex` — the most frequent n-grams of a training id stream, each given a table row;
  row 0 means "no indexed n-gram ends here".
- :class:`NgramEmbedding` — a token embedding plus an n-gram embedding gathered per position from a
  table that stays in CPU memory when the model moves to an accelerator (the storage idea of SCONE,
  Yu et al. 2025, with a plain trained table in place of SCONE's contextualised f-gram embeddings).
- :class:`AdaptiveInput` — frequency bands of the vocabulary with dimensions d, d/factor, d/factor², …,
  each projected to d (Baevski and Auli, 2019), or the reverse assignment.

Both embeddings map ids ``[batch, time]`` to ``[batch, time, d]`` and plug into
:class:`embedbook.lm.TinyLM` through ``LMConfig(embedding=..., tie=False)``.
"""

from __future__ import annotations

import math
import operator

import torch
from torch import nn

__all__ = ["AdaptiveInput", "NgramEmbedding", "NgramIndex"]


def _check_ids(ids, vocab_size: int, dims: int | None, what: str = "ids") -> None:
    if not isinstance(ids, torch.Tensor) or ids.dtype != torch.long:
        raise TypeError(f"{what} must be a LongTensor of token ids, got {type(ids).__name__}"
                        + (f" of dtype {ids.dtype}" if isinstance(ids, torch.Tensor) else ""))
    if dims is not None and ids.dim() != dims:
        raise ValueError(f"{what} must be {dims}-D, got shape {tuple(ids.shape)}")
    if ids.numel() == 0:
        raise ValueError(f"{what} is empty: pass at least one id")
    lo, hi = int(ids.min()), int(ids.max())
    if lo < 0 or hi >= vocab_size:
        raise ValueError(f"{what} must lie in [0, {vocab_size}), got ids from {lo} to {hi}")


def _positive_int(name: str, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


class NgramIndex:
    """The most frequent ``n``-grams of an id stream, each mapped to a table row (1 … ``len(index)``).

    An n-gram of ids ``(t_1, …, t_n)`` is stored as one integer key ``t_1·V^(n-1) + … + t_n``; the
    keys are kept sorted so that a batch is mapped to rows with one ``searchsorted``.

    Attributes:
        keys: sorted int64 keys of the indexed n-grams (CPU).
        counts: how often each indexed n-gram occurred in the stream it was built from.
        n: the n-gram length.
        vocab_size: the token vocabulary size ``V`` the keys are computed with.
    """

    def __init__(self, keys: torch.Tensor, counts: torch.Tensor, n: int, vocab_size: int) -> None:
        self.keys, self.counts, self.n, self.vocab_size = keys, counts, n, vocab_size

    @classmethod
    def build(cls, ids: torch.Tensor, vocab_size: int, size: int, n: int = 2) -> "NgramIndex":
        """Count the n-grams of the 1-D id stream ``ids`` and keep the ``size`` most frequent.

        Ties in frequency are broken by the smaller key, so the index is deterministic.

        Args:
            ids: a 1-D LongTensor of token ids (e.g. from :meth:`embedbook.lm.Vocab.encode`), any device.
            vocab_size: the vocabulary size ``V``; every id must lie in ``[0, V)``.
            size: how many n-grams to keep (fewer if the stream has fewer distinct ones; 0 gives an
                empty index that maps every position to row 0).
            n: the n-gram length (2 for bigrams).

        Returns:
            the index (its tensors live on the CPU).

        Raises:
            TypeError: ``ids`` is not a 1-D LongTensor.
            ValueError: ``n`` < 2, ``V**n`` too large for int64 keys, ``size`` < 0, fewer than ``n``
                ids, or an id outside ``[0, V)``.
        """
        if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype != torch.long:
            raise TypeError("ids must be a 1-D LongTensor (for example from lm.Vocab.encode)")
        _positive_int("vocab_size", vocab_size)
        if not isinstance(n, int) or n < 2 or vocab_size ** n >= 2 ** 62:
            raise ValueError(f"n must be an int >= 2 and vocab_size**n must fit in int64; got n={n}, V={vocab_size}")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"size must be an int >= 0, got {size!r}")
        if len(ids) < n:
            raise ValueError(f"ids must hold at least n={n} ids, got {len(ids)}")
        _check_ids(ids, vocab_size, 1)
        keys = cls._keys(ids.cpu().unsqueeze(0), n, vocab_size)[0, n - 1:]
        uniq, counts = torch.unique(keys, return_counts=True)  # sorted by key
        order = torch.argsort(counts, descending=True, stable=True)[:size]  # equal counts: smaller key first
        keep = torch.sort(uniq[order])
        return cls(keep.values, counts[order][keep.indices], n, vocab_size)

    @staticmethod
    def _keys(ids: torch.Tensor, n: int, V: int) -> torch.Tensor:
        """Key of the n-gram ending at each position of ``ids [B, T]`` (the first n-1 positions: -1)."""
        key = ids.clone()
        for j in range(1, n):
            prev = torch.full_like(ids, -1)
            prev[:, j:] = ids[:, :-j]
            key = torch.where((prev >= 0) & (key >= 0), prev * V ** j + key, torch.full_like(key, -1))
        return key

    def __len__(self) -> int:
        return len(self.keys)

    def row(self, ngram: tuple[int, ...]) -> int:
        """Table row of one n-gram.

        Args:
            ngram: ``n`` token ids.

        Returns:
            its row, from 1 to ``len(self)``.

        Raises:
            ValueError: ``ngram`` does not hold ``n`` ids.
            KeyError: the n-gram is not indexed (:meth:`rows_for` maps such positions to row 0).
        """
        if len(ngram) != self.n:
            raise ValueError(f"this index holds {self.n}-grams, got {len(ngram)} ids")
        key = sum(int(t) * self.vocab_size ** (self.n - 1 - j) for j, t in enumerate(ngram))
        pos = int(torch.searchsorted(self.keys, torch.tensor(key)))
        if pos == len(self.keys) or int(self.keys[pos]) != key:
            raise KeyError(f"n-gram {tuple(ngram)} is not among the {len(self)} indexed n-grams "
                           "(rows_for maps such positions to row 0, the zero vector)")
        return pos + 1

    def rows_for(self, ids: torch.Tensor) -> torch.Tensor:
        """Row of the n-gram ending at each position of ``ids``.

        Args:
            ids: a ``[batch, time]`` LongTensor of token ids in ``[0, vocab_size)``, any device.

        Returns:
            a ``[batch, time]`` LongTensor on the CPU (where the n-gram table lives): the row of the
            indexed n-gram ending at each position, 0 where none is indexed (and at the first ``n - 1``
            positions, which no n-gram ends at).

        Raises:
            TypeError, ValueError: ``ids`` is not a 2-D LongTensor of ids in range.
        """
        _check_ids(ids, self.vocab_size, 2)
        keys = self._keys(ids.cpu(), self.n, self.vocab_size)
        if len(self.keys) == 0:
            return torch.zeros_like(keys)
        pos = torch.searchsorted(self.keys, keys).clamp(max=len(self.keys) - 1)
        hit = (self.keys[pos] == keys) & (keys >= 0)
        return torch.where(hit, pos + 1, torch.zeros_like(pos))


class NgramEmbedding(nn.Module):
    """Token embedding (follows the model to its device) + n-gram embedding (stays in CPU memory).

    For each position, the row of the indexed n-gram ending there (:meth:`NgramIndex.rows_for`) is
    gathered from the n-gram table on the CPU and only those rows are copied to the token embedding's
    device, so the accelerator holds the token table and one batch of rows whatever the size of the
    n-gram table. Row 0 ("no indexed n-gram ends here") is a zero vector and receives no gradient.

    ``.to(device)``, ``.cuda()``, ``.half()`` and the like reach the token table only; convert the
    n-gram table yourself (``emb.ngram.to(...)``) if you mean to.

    Args:
        vocab_size: token vocabulary size ``V``.
        d: embedding width.
        index: the :class:`NgramIndex` whose rows the table holds (built with the same ``V``).
        std: standard deviation of the normal initialisation of both tables.

    Raises:
        ValueError: ``vocab_size`` or ``d`` not a positive int, ``std`` not positive, or an index built
            for another vocabulary size.
        TypeError: ``index`` is not an :class:`NgramIndex`.
    """

    def __init__(self, vocab_size: int, d: int, index: NgramIndex, std: float = 0.02) -> None:
        super().__init__()
        _positive_int("vocab_size", vocab_size)
        _positive_int("d", d)
        if not isinstance(index, NgramIndex):
            raise TypeError("index must be an NgramIndex (build one with NgramIndex.build)")
        if index.vocab_size != vocab_size:
            raise ValueError(f"the index was built for V={index.vocab_size}, this embedding has V={vocab_size}")
        if not std > 0:
            raise ValueError(f"std must be > 0, got {std}")
        self.token = nn.Embedding(vocab_size, d)
        self.ngram = nn.Embedding(len(index) + 1, d, padding_idx=0)
        nn.init.normal_(self.token.weight, 0.0, std)
        with torch.no_grad():
            self.ngram.weight.normal_(0.0, std)
            self.ngram.weight[0].zero_()
        self.index = index
        self.vocab_size, self.d = vocab_size, d

    def _apply(self, fn, recurse: bool = True):
        self.token._apply(fn, recurse)  # only the token table follows .to(device); the n-gram table stays home
        return self

    def device_bytes(self) -> int:
        """Bytes of the token table: what must live on the accelerator."""
        return self.token.weight.numel() * self.token.weight.element_size()

    def host_bytes(self) -> int:
        """Bytes of the n-gram table: what stays in CPU memory."""
        return self.ngram.weight.numel() * self.ngram.weight.element_size()

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Embeddings ``[batch, time, d]``: token row + n-gram row, on the token table's device (``ids`` may
        live anywhere).

        Raises:
            TypeError, ValueError: ``ids`` is not a 2-D LongTensor of ids in ``[0, V)``.
        """
        _check_ids(ids, self.vocab_size, 2)
        rows = self.index.rows_for(ids)
        tok = self.token(ids.to(self.token.weight.device))
        return tok + self.ngram(rows).to(device=tok.device, dtype=tok.dtype)


class AdaptiveInput(nn.Module):
    """Adaptive input embedding: vocabulary bands with widths d, d/factor, d/factor², … each projected to d.

    Ids must be ordered by frequency (the most frequent band first), as :class:`embedbook.lm.Vocab`
    orders them. Band ``i`` holds ids ``edges[i] … edges[i+1]-1`` in a table of width ``dims[i]`` and a
    bias-free projection ``dims[i] → d``. ``reverse=True`` gives the most frequent band the *smallest*
    width instead.

    Args:
        vocab_size: vocabulary size ``V``.
        d: output width.
        cutoffs: the band edges strictly inside ``(0, V)``, increasing (e.g. ``[200, 1000]`` → three bands).
        factor: each band is ``factor`` times narrower than the one before.
        reverse: give the frequent band the narrowest table.

    Attributes:
        edges: ``[0, *cutoffs, V]``.
        dims: the width of each band's table.

    Raises:
        ValueError: ``vocab_size``, ``d`` or ``factor`` not a positive int, cutoffs not strictly
            increasing inside ``(0, V)``, or ``d`` too small for the bands (a width below 1).
        TypeError: ``cutoffs`` is not a sequence of ints.
    """

    def __init__(self, vocab_size: int, d: int, cutoffs: list[int], factor: int = 4, reverse: bool = False) -> None:
        super().__init__()
        _positive_int("vocab_size", vocab_size)
        _positive_int("d", d)
        _positive_int("factor", factor)
        try:
            cuts = [operator.index(c) for c in cutoffs]
        except TypeError:
            raise TypeError(f"cutoffs must be a list of int band edges, e.g. [200, 1000]; got {cutoffs!r}") from None
        edges = [0, *cuts, vocab_size]
        if any(b <= a for a, b in zip(edges, edges[1:])):
            raise ValueError(f"cutoffs must increase strictly inside (0, {vocab_size}), got {list(cutoffs)}")
        dims = [d // factor ** i for i in range(len(edges) - 1)]
        if min(dims) < 1:
            raise ValueError(f"d={d} is too small for {len(dims)} bands with factor {factor}: use fewer cutoffs")
        if reverse:
            dims = dims[::-1]
        self.edges, self.dims, self.d, self.vocab_size = edges, dims, d, vocab_size
        self.tables = nn.ModuleList(nn.Embedding(b - a, k) for a, b, k in zip(edges, edges[1:], dims))
        self.projs = nn.ModuleList(nn.Linear(k, d, bias=False) for k in dims)
        for t, k in zip(self.tables, dims):
            nn.init.normal_(t.weight, 0.0, 1.0 / math.sqrt(k))
        for p in self.projs:
            nn.init.normal_(p.weight, 0.0, 0.02)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Embeddings ``[*ids.shape, d]`` on the device and in the dtype of the projections.

        Raises:
            TypeError, ValueError: ``ids`` is not a LongTensor of ids in ``[0, V)``.
        """
        _check_ids(ids, self.vocab_size, None)
        w = self.projs[0].weight
        out = torch.zeros(*ids.shape, self.d, device=w.device, dtype=w.dtype)
        ids = ids.to(w.device)
        for (a, b), table, proj in zip(zip(self.edges, self.edges[1:]), self.tables, self.projs):
            mask = (ids >= a) & (ids < b)
            if mask.any():
                out[mask] = proj(table(ids[mask] - a))
        return out
