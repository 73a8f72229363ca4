"""Word2Vec: one skip-gram step with negative sampling in torch, and deterministic training with gensim.

- :func:`sgns_loss`, :func:`sgns_step` — the skip-gram objective with negative sampling (Mikolov et al.,
  2013) and one SGD step of it on two embedding tables, in plain torch on any device: what gensim and
  word2vec.c do for every (centre, context) pair;
- :func:`train` — gensim's Word2Vec, skip-gram or CBOW, with one worker thread and a fixed seed so the
  vectors are the same on every run (gensim's multi-threaded training is not repeatable); optionally the
  training loss of every epoch;
- :func:`as_space`, :func:`counts` — a trained model's vectors as a :class:`~embedbook.similarity.Space`,
  and its words' corpus counts.

Used by chapters 08_similarity, 09_analogies and 10_word2vec.
"""

from __future__ import annotations

import math

import operator
from collections.abc import Iterable

import numpy as np
import torch
import torch.nn.functional as F

from embedbook.similarity import Space

__all__ = ["ARCHITECTURES", "as_space", "counts", "sgns_loss", "sgns_step", "train"]

ARCHITECTURES = {"skipgram": 1, "skip-gram": 1, "sg": 1, "cbow": 0}


# --- the objective, in torch ------------------------------------------------------------------------


def _vectors(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError(f"{name} must be a float tensor, got {type(x).__name__}"
                        + (f" of {x.dtype}" if isinstance(x, torch.Tensor) else ""))
    return x


def sgns_loss(center: torch.Tensor, context: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
    """Skip-gram's loss with negative sampling for one (centre, context) pair:
    ``-log σ(u_o·v) - Σ_k log σ(-u_k·v)``.

    Args:
        center: ``(d,)``, the centre word's input vector ``v``.
        context: ``(d,)``, the context word's output vector ``u_o``.
        negatives: ``(K, d)``, the output vectors ``u_k`` of ``K`` sampled noise words.

    Returns:
        a scalar tensor (differentiable), on the inputs' device.

    Raises:
        TypeError: an input that is not a float tensor. ValueError: shapes that do not fit, devices
            that differ, or a loss that is not finite (NaN or infinity in a vector, or an overflow).
    """
    v, u, n = _vectors(center, "center"), _vectors(context, "context"), _vectors(negatives, "negatives")
    if v.dim() != 1 or u.shape != v.shape or n.dim() != 2 or n.shape[1] != v.shape[0]:
        raise ValueError(f"need center (d,), context (d,) and negatives (K, d); got {tuple(v.shape)}, "
                         f"{tuple(u.shape)} and {tuple(n.shape)}")
    if len({v.device, u.device, n.device}) > 1:
        raise ValueError(f"the vectors live on different devices: {v.device}, {u.device}, {n.device}")
    loss = -F.logsigmoid(u @ v) - F.logsigmoid(-(n @ v)).sum()
    if not torch.isfinite(loss.detach()):
        raise ValueError(f"the loss is {float(loss)}: NaN or infinity in a vector, or values so large that the dot "
                         "products overflow; repair or rescale the vectors")
    return loss


def sgns_step(
    w_in: torch.Tensor, w_out: torch.Tensor, center: int, context: int, negatives, lr: float = 0.025
) -> float:
    """One SGD step of skip-gram with negative sampling, in place, on the rows the pair touches.

    The gradients are the closed forms word2vec.c applies (with ``s = σ(u·v)``): for the centre row
    ``(s_o - 1)·u_o + Σ_k s_k·u_k``, for the context row ``(s_o - 1)·v``, for each noise row ``s_k·v``;
    all are computed from the values before the step.

    Args:
        w_in: ``(V, d)`` input (centre-word) vectors: the embedding table.
        w_out: ``(V, d)`` output (context-word) vectors, on the same device.
        center, context: word ids.
        negatives: ``K`` noise word ids (a list or an integer tensor).
        lr: the learning rate, ``> 0``.

    Returns:
        the pair's loss before the step.

    Raises:
        ValueError: tables of different shapes or devices, an id out of range, no negatives,
            ``lr <= 0``, NaN or infinity in a row the pair touches, or a step that would overflow (the
            tables are then left unchanged). TypeError: a table that is not a float tensor.
    """
    _vectors(w_in, "w_in")
    _vectors(w_out, "w_out")
    if w_in.dim() != 2 or w_in.shape != w_out.shape or w_in.device != w_out.device:
        raise ValueError(f"w_in and w_out must be (V, d) tables of one shape on one device, got "
                         f"{tuple(w_in.shape)} on {w_in.device} and {tuple(w_out.shape)} on {w_out.device}")
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or not lr > 0:
        raise ValueError(f"lr must be a positive finite number, got {lr!r}")
    try:
        neg = torch.as_tensor(negatives, device=w_in.device).reshape(-1)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"negatives must be a list or tensor of integer word ids, got {negatives!r}") from None
    if neg.numel() == 0 or neg.is_floating_point():
        raise ValueError("negatives must be one or more integer word ids")
    if neg.dtype == torch.bool:
        raise ValueError("negatives must be integer word ids, not a boolean mask")
    try:
        ids = [operator.index(center), operator.index(context), *neg.tolist()]
    except TypeError:
        raise ValueError(f"center and context must be integer word ids, got {center!r} and {context!r}") from None
    if min(ids) < 0 or max(ids) >= len(w_in):
        raise ValueError(f"word ids must lie in [0, {len(w_in)}), got {ids}")
    with torch.no_grad():
        v, u_o, u_n = w_in[center].clone(), w_out[context].clone(), w_out[neg].clone()
        for name, rows, which in (("w_in", v[None], [center]), ("w_out", u_o[None], [context]), ("w_out", u_n, neg.tolist())):
            bad = (~torch.isfinite(rows).all(dim=1)).nonzero()
            if len(bad):
                raise ValueError(f"{name} row {which[int(bad[0])]} holds NaN or infinity: the table is broken (a "
                                 "previous step diverged, or it was built that way); re-initialise it or lower lr")
        s_o, s_n = torch.sigmoid(u_o @ v), torch.sigmoid(u_n @ v)
        loss = float(-F.logsigmoid(u_o @ v) - F.logsigmoid(-(u_n @ v)).sum())
        d_in, d_out, d_neg = lr * ((s_o - 1) * u_o + s_n @ u_n), lr * (s_o - 1) * v, lr * s_n[:, None] * v
        if not (math.isfinite(loss) and all(bool(torch.isfinite(g).all()) for g in (d_in, d_out, d_neg))):
            raise ValueError(f"the step overflows (loss {loss}; the rows' values or lr={lr} are too large for "
                             f"{w_in.dtype}): the tables are left unchanged; lower lr or rescale the tables")
        w_in[center] -= d_in
        w_out[context] -= d_out
        w_out.index_add_(0, neg, -d_neg)  # a noise word drawn twice is updated twice
    return loss


# --- training with gensim ------------------------------------------------------------------------------


def _architecture(sg) -> int:
    if isinstance(sg, str):
        key = sg.strip().lower()
        if key not in ARCHITECTURES:
            raise ValueError(f"unknown architecture {sg!r}: use 'skipgram' or 'cbow' (or sg=True / False)")
        return ARCHITECTURES[key]
    if isinstance(sg, (bool, np.bool_)) or sg in (0, 1):
        return int(bool(sg))
    raise ValueError(f"sg must be True (skip-gram), False (CBOW), 'skipgram' or 'cbow'; got {sg!r}")


def _sentences(corpus) -> list[list[str]]:
    if isinstance(corpus, (str, bytes)) or not isinstance(corpus, Iterable):
        raise TypeError("the corpus must be an iterable of token lists, e.g. data.lee_corpus(); "
                        f"got {type(corpus).__name__}")
    out = []
    for n, sent in enumerate(corpus):  # any iterable, a generator included: read once, here
        if isinstance(sent, (str, bytes)) or not isinstance(sent, Iterable):
            raise TypeError(f"sentence {n} is a {type(sent).__name__}, not a list of tokens; split each text first")
        tokens = list(sent)
        if not all(isinstance(t, str) for t in tokens):
            raise TypeError(f"sentence {n} holds a token that is not a string: {next(t for t in tokens if not isinstance(t, str))!r}")
        out.append(tokens)
    if not any(out):
        raise ValueError("the corpus is empty; pass a list of token lists, e.g. data.lee_corpus()")
    return out


def train(
    corpus,
    sg=True,
    vector_size: int = 100,
    window: int = 5,
    min_count: int = 5,
    epochs: int = 5,
    seed: int = 0,
    negative: int = 5,
    compute_loss: bool = False,
):
    """Train gensim's Word2Vec with one worker thread and a fixed seed: the same vectors on every run.

    Args:
        corpus: an iterable of token lists (a list, or a generator: it is read once into memory).
        sg: the architecture: ``True`` or ``"skipgram"`` for skip-gram, ``False`` or ``"cbow"`` for CBOW.
        vector_size: the dimension ``d``.
        window: the largest distance between a centre word and a context word.
        min_count: words seen fewer times are dropped.
        epochs: passes over the corpus.
        seed: the seed of the initial vectors and the noise samples.
        negative: noise words per pair (negative sampling).
        compute_loss: record the training loss of every epoch as ``model.epoch_losses`` (a list).

    Returns:
        the gensim ``Word2Vec`` model; ``model.wv`` lists its words most frequent first.

    Raises:
        TypeError: a corpus that is not an iterable of token lists. ValueError: an empty corpus, an unknown
            architecture, a size that is not a positive integer, or no word seen ``min_count`` times.
        MissingResource: gensim is not installed.
    """
    from embedbook.data import _need

    models = _need("gensim.models", "gensim")
    callbacks = _need("gensim.models.callbacks", "gensim")
    arch = _architecture(sg)
    for name, v in (("vector_size", vector_size), ("window", window), ("min_count", min_count),
                    ("epochs", epochs), ("negative", negative)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an int in 0 .. 2**32 - 1 (gensim's range), got {seed!r}")
    sentences = _sentences(corpus)
    model = models.Word2Vec(
        vector_size=vector_size, window=window, min_count=min_count,
        sg=arch, negative=negative, epochs=epochs, seed=seed, workers=1,
    )
    model.build_vocab(sentences)
    if len(model.wv) == 0:
        raise ValueError(f"no word occurs min_count={min_count} times; lower min_count or use a bigger corpus")

    class _EpochLoss(callbacks.CallbackAny2Vec):
        """gensim keeps one running sum: read it and reset it after every epoch."""

        def __init__(self) -> None:
            self.losses: list[float] = []

        def on_epoch_end(self, m) -> None:
            self.losses.append(float(m.get_latest_training_loss()))
            m.running_training_loss = 0.0

    record = _EpochLoss()
    model.train(sentences, total_examples=model.corpus_count, epochs=epochs, compute_loss=compute_loss,
                callbacks=[record] if compute_loss else ())
    if compute_loss:
        model.epoch_losses = record.losses
    return model


def as_space(model) -> Space:
    """A trained model's vectors as a :class:`~embedbook.similarity.Space` (most frequent word first).

    Returns:
        the :class:`~embedbook.similarity.Space` of ``model.wv``.

    Raises:
        TypeError: not a gensim Word2Vec model (nothing at ``model.wv``).
    """
    if not hasattr(model, "wv"):
        raise TypeError(f"expected a gensim Word2Vec model (with .wv), got {type(model).__name__}")
    return Space(model.wv.index_to_key, model.wv.vectors)


def counts(model) -> np.ndarray:
    """Corpus count of each word, in the model's vocabulary order (most frequent first).

    Returns:
        an integer array, one count per word of ``model.wv``.

    Raises:
        TypeError: not a gensim Word2Vec model.
    """
    if not hasattr(model, "wv"):
        raise TypeError(f"expected a gensim Word2Vec model (with .wv), got {type(model).__name__}")
    return np.array([model.wv.get_vecattr(w, "count") for w in model.wv.index_to_key])
