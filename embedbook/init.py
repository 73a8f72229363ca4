"""Initialisation schemes for an embedding table, by name, each with its source.

- :data:`SCHEMES`, :func:`known`, :func:`scheme` — the named schemes (a description, a source, the
  standard deviation each gives a ``V x d`` table).
- :func:`std_of` — that standard deviation, for a given table shape.
- :func:`apply` — fill an ``nn.Embedding`` (or a bare 2-D weight) in place with a scheme; a padding row
  stays zero, as ``nn.Embedding``'s own initialisation leaves it.
- :func:`load_vectors` — copy pretrained word vectors (GloVe, Word2Vec, any ``word -> vector`` mapping)
  into the rows of the words they cover.

``apply(embedding, "normal_0.02")`` is what :class:`embedbook.lm.TinyLM` calls for its ``LMConfig.init``.
This module imports nothing else of the package (:mod:`embedbook.lm` imports it).

Used by the chapters "Initialisation" (06_init) and "Weight tying" (04_tying), and by every chapter
that trains :class:`embedbook.lm.TinyLM`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import torch

__all__ = ["SCHEMES", "Scheme", "apply", "known", "load_vectors", "scheme", "std_of"]


@dataclass(frozen=True)
class Scheme:
    """One named initialisation.

    Attributes:
        name: the name :func:`apply` takes.
        description: the distribution, in words.
        source: where the scheme comes from.
        std: ``(num_embeddings, dim) -> standard deviation`` of the entries.
        uniform: draw from U(-a, a) with ``a = std * sqrt(3)`` instead of a normal distribution.
    """

    name: str
    description: str
    source: str
    std: Callable[[int, int], float]
    uniform: bool = False


SCHEMES: dict[str, Scheme] = {
    s.name: s
    for s in [
        Scheme("torch_default", "N(0, 1): what torch.nn.Embedding does when left alone",
               "PyTorch documentation of torch.nn.Embedding (weight initialised from N(0, 1))",
               lambda v, d: 1.0),
        Scheme("normal_0.02", "N(0, 0.02²), the GPT-2 / BERT convention",
               "GPT-2 and BERT reference code (initializer_range = 0.02)",
               lambda v, d: 0.02),
        Scheme("std_inv_sqrt_d", "N(0, 1/d): standard deviation 1/√d",
               "fairseq's Transformer Embedding helper (std = embedding_dim ** -0.5)",
               lambda v, d: d ** -0.5),
        Scheme("var_inv_sqrt_d", "N(0, 1/√d) read as (mean, variance): standard deviation d^(-1/4)",
               "the source article's initialisation section, taken at its word",
               lambda v, d: d ** -0.25),
        Scheme("xavier_normal", "Xavier/Glorot normal: std = √(2 / (V + d))",
               "Glorot and Bengio 2010; torch.nn.init.xavier_normal_",
               lambda v, d: math.sqrt(2.0 / float(d + v))),
        Scheme("xavier_uniform", "Xavier/Glorot uniform: U(-a, a), a = √(6 / (V + d))",
               "Glorot and Bengio 2010; torch.nn.init.xavier_uniform_",
               lambda v, d: math.sqrt(2.0 / float(d + v)), uniform=True),
        Scheme("small", "U(-1e-4, 1e-4): a tiny 'small init' embedding",
               "RWKV's small-init embedding (Peng et al. 2023), uniform in [-1e-4, 1e-4]",
               lambda v, d: 1e-4 / math.sqrt(3.0), uniform=True),
    ]
}


def known() -> list[str]:
    """Names of the known schemes, in a stable order.

    Returns:
        the keys of :data:`SCHEMES`.
    """
    return list(SCHEMES)


def scheme(name: str) -> Scheme:
    """The :class:`Scheme` called ``name``.

    Args:
        name: one of :func:`known`.

    Returns:
        the scheme.

    Raises:
        TypeError: ``name`` is not a string. KeyError: an unknown name (the message lists the known ones).
    """
    if not isinstance(name, str):
        raise TypeError(f"an init scheme is named by a string, got {type(name).__name__}")
    try:
        return SCHEMES[name]
    except KeyError:
        raise KeyError(f"unknown init scheme {name!r}; known schemes: {', '.join(SCHEMES)}") from None


def std_of(name: str, num_embeddings: int, dim: int) -> float:
    """Standard deviation of the entries that scheme ``name`` draws for a ``num_embeddings x dim`` table.

    Args:
        name: one of :func:`known`.
        num_embeddings: rows of the table (V).
        dim: columns of the table (d).

    Returns:
        the standard deviation (for a uniform scheme, that of its U(-a, a)).

    Raises:
        KeyError: an unknown scheme. ValueError: a shape that is not two positive ints.
    """
    for what, n in (("num_embeddings", num_embeddings), ("dim", dim)):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
            raise ValueError(f"{what} must be a positive int, got {n!r}")
    return float(scheme(name).std(int(num_embeddings), int(dim)))


def _weight_of(embedding: Any) -> tuple[torch.Tensor, int | None]:
    if isinstance(embedding, torch.nn.Module):
        weight = getattr(embedding, "weight", None)
        if not isinstance(weight, torch.Tensor):
            raise TypeError(f"{type(embedding).__name__} has no weight tensor: pass an nn.Embedding or a 2-D tensor")
        return weight, getattr(embedding, "padding_idx", None)
    if isinstance(embedding, torch.Tensor):
        return embedding, None
    raise TypeError(f"expected an nn.Embedding or a 2-D weight tensor (V, d), got {type(embedding).__name__}")


def _check_padding(padding_idx: Any, rows: int) -> int | None:
    if padding_idx is None:
        return None
    if isinstance(padding_idx, bool) or not isinstance(padding_idx, (int, np.integer)):
        raise TypeError(f"padding_idx must be an int or None, got {padding_idx!r}")
    if not -rows <= padding_idx < rows:
        raise ValueError(f"padding_idx {padding_idx} is outside a table of {rows} rows")
    return int(padding_idx) % rows


def apply(embedding: torch.nn.Module | torch.Tensor, name: str, generator: torch.Generator | None = None,
          padding_idx: int | None = None) -> torch.Tensor:
    """Fill an embedding table in place with scheme ``name`` and return its weight.

    The draw is the one torch itself makes (``weight.normal_(0, std)`` or ``weight.uniform_(-a, a)``),
    so with the same generator state it gives the same numbers as the one line of torch for the
    scheme. The padding row (``nn.Embedding(..., padding_idx=i)`` or ``padding_idx=i`` here) is set to
    zero afterwards, as ``nn.Embedding`` leaves it: that row is never trained.

    Args:
        embedding: an ``nn.Embedding`` (or any module with a 2-D ``weight``) or a 2-D floating-point tensor,
            on any device.
        name: one of :func:`known`.
        generator: optional ``torch.Generator`` on the table's device, for reproducible draws (default:
            torch's global RNG).
        padding_idx: a row to keep at zero; default: the module's own ``padding_idx`` (None for a tensor).

    Returns:
        the filled weight (the same tensor object).

    Raises:
        KeyError: an unknown scheme. TypeError: not an embedding or a 2-D floating-point tensor, a
            ``generator`` that is not a ``torch.Generator``, a non-int ``padding_idx``. ValueError: an
            empty table, a generator on another device than the table, a ``padding_idx`` outside it.
    """
    s = scheme(name)
    weight, own_padding = _weight_of(embedding)
    if weight.dim() != 2:
        raise TypeError(f"apply needs a 2-D weight of shape (V, d), got shape {tuple(weight.shape)}")
    if not weight.is_floating_point():
        raise TypeError(f"embedding weight must be floating point, got {weight.dtype}")
    if weight.shape[0] == 0 or weight.shape[1] == 0:
        raise ValueError(f"cannot initialise an empty table of shape {tuple(weight.shape)}")
    if generator is not None:
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
        if generator.device.type != weight.device.type:
            raise ValueError(
                f"the generator is on {generator.device.type} but the table on {weight.device.type}: "
                f"make it with torch.Generator(device={weight.device.type!r})"
            )
    pad = _check_padding(padding_idx if padding_idx is not None else own_padding, weight.shape[0])
    std = std_of(name, weight.shape[0], weight.shape[1])
    with torch.no_grad():
        if s.uniform:
            a = math.sqrt(3.0) * std
            weight.uniform_(-a, a, generator=generator)
        else:
            weight.normal_(0.0, std, generator=generator)
        if pad is not None:
            weight[pad].zero_()
    return weight


def load_vectors(embedding: torch.nn.Module | torch.Tensor, words: Sequence[str], vectors: Any) -> float:
    """Copy pretrained vectors into the rows of the words they cover; other rows keep their values.

    Args:
        embedding: an ``nn.Embedding`` or a 2-D floating-point tensor with one row per word of ``words``.
        words: the word of each row (e.g. ``vocab.itos``).
        vectors: a ``word -> vector`` mapping supporting ``in`` and ``[]`` (gensim ``KeyedVectors``, a dict
            of arrays), each vector of length ``d``.

    Returns:
        the share of rows that received a pretrained vector (0 to 1). The padding row, if any, is left
        alone.

    Raises:
        TypeError: a bad table or mapping, or ``words`` a single string. ValueError: an empty table,
            ``words`` and the table differ in length, a vector that is not 1-D of length ``d``, or a
            vector holding NaN or infinity.
    """
    weight, padding = _weight_of(embedding)
    if weight.dim() != 2 or not weight.is_floating_point():
        raise TypeError(f"load_vectors needs a 2-D floating-point table, got {tuple(weight.shape)}, {weight.dtype}")
    if isinstance(words, str):
        raise TypeError("words must be a list of words, one per row (e.g. vocab.itos), not a single string")
    if weight.shape[0] == 0:
        raise ValueError("the table has no rows: there is nothing to load vectors into")
    if len(words) != weight.shape[0]:
        raise ValueError(f"give one word per row: {weight.shape[0]} rows, got {len(words)} words")
    if isinstance(vectors, (str, list, tuple, np.ndarray, torch.Tensor)) or not (
            hasattr(vectors, "__contains__") and hasattr(vectors, "__getitem__")):
        raise TypeError("vectors must map words to vectors (gensim KeyedVectors or a dict)")
    pad = _check_padding(padding, weight.shape[0])
    rows, found = [], []
    for i, w in enumerate(words):
        if i != pad and w in vectors:
            v = np.asarray(vectors[w], dtype=np.float32)
            if v.shape != (weight.shape[1],):
                raise ValueError(f"the vector of {w!r} has shape {v.shape}, but the table's rows have "
                                 f"{weight.shape[1]} dimensions: give one 1-D vector of length {weight.shape[1]} per word")
            rows.append(i)
            found.append(v)
    if found:
        table = np.stack(found)
        if not np.isfinite(table).all():
            raise ValueError("a pretrained vector holds NaN or infinity")
        with torch.no_grad():
            weight[torch.tensor(rows, device=weight.device)] = torch.from_numpy(table).to(weight.device, weight.dtype)
    return len(rows) / weight.shape[0]
