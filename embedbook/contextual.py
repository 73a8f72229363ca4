"""Contextual word vectors from a BERT-style encoder, how contextual they are, and layer 0's Q, K and V.

- Encoding: :func:`word_states` (every word's vector at every layer), :func:`sentence_vectors` (the one
  mean pooling of the package), :func:`windows` and :func:`occurrences` (contexts from a corpus).
- Ethayarajh's (2019) measures: :func:`self_similarity`, :func:`intra_similarity`, :func:`mev` (maximum
  explainable variance, three ways: the paper's formula, what its released code computes, and centred
  PCA), :func:`mev_floor`, and :func:`measure_layers` with the random-word baselines per layer.
- Senses and the price of context: :func:`sense_study`, :func:`nearest_centroid_accuracy`,
  :func:`count_forward_flops` (torch's FLOP counter) and :func:`forward_flops_per_token` (the same count
  from the weights).
- Q, K and V: :func:`layer0_qkv` rebuilds layer 0's attention from the weights, :func:`model_attentions`
  reads the model's own, :func:`eager_attention`, :func:`with_table`, :func:`attention_shift`,
  :func:`paraphrase_accuracy`.

Everything runs on the device the model lives on. Used by chapters ``11_contextual`` and ``12_qkv``.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import numpy as np
import torch

from embedbook import sizing, stats

__all__ = [
    "Layer0", "LayerMeasures", "MAX_DRAWS", "MAX_RANDOM", "MEV_METHODS", "SenseStudy", "attention_shift", "count_forward_flops",
    "eager_attention", "forward_flops_per_token", "intra_similarity", "layer0_qkv", "measure_layers", "mev",
    "mev_floor", "model_attentions", "nearest_centroid_accuracy", "occurrences", "paraphrase_accuracy",
    "self_similarity", "sense_study", "sentence_vectors", "windows", "with_table", "word_matrix", "word_states",
]

MEV_METHODS = ("paper", "released", "centred")


def _device(model) -> torch.device:
    try:
        return next(model.parameters()).device
    except (AttributeError, StopIteration):
        raise TypeError("model must be a torch encoder with parameters (load one with data.load_encoder)") from None


def _check_encoder(tokenizer, model) -> None:
    """Refuse anything but a Hugging Face tokenizer and its torch encoder, in that order, with what to pass."""
    how = "pass the pair that data.load_encoder() returns: tok, model = data.load_encoder(); f(tok, model, ...)"
    if isinstance(tokenizer, torch.nn.Module) and not isinstance(model, torch.nn.Module):
        raise TypeError(f"the model came first: the arguments are (tokenizer, model), in that order; {how}")
    if not (callable(tokenizer) and hasattr(tokenizer, "convert_ids_to_tokens")):
        hint = ""
        if type(tokenizer).__module__.startswith("tokenizers"):
            hint = (" (data.minilm_tokenizer() is the bare `tokenizers` tokenizer, for counting pieces; the encoder "
                    "needs the Hugging Face tokenizer)")
        raise TypeError(f"tokenizer must be a Hugging Face tokenizer (transformers), got "
                        f"{type(tokenizer).__module__}.{type(tokenizer).__name__}{hint}; {how}")
    if not isinstance(model, torch.nn.Module) or not hasattr(model, "config"):
        raise TypeError(f"model must be a Hugging Face BERT-style torch encoder (with .config), got "
                        f"{type(model).__module__}.{type(model).__name__}; {how}")


def _pooling_length(tokenizer, model) -> int:
    """The input length the sentence model was trained on: ``max_seq_length`` of sentence-transformers'
    ``sentence_bert_config.json`` in the model's folder (256 for all-MiniLM-L6-v2), else the tokenizer's
    ``model_max_length``, else the model's positions; never more than the positions."""
    positions = model.config.max_position_embeddings
    folder = getattr(model, "name_or_path", "") or getattr(model.config, "_name_or_path", "") or ""
    config = Path(folder) / "sentence_bert_config.json" if folder else None
    if config is not None and config.is_file():
        n = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            return min(n, positions)
    n = getattr(tokenizer, "model_max_length", None)
    if isinstance(n, int) and 0 < n < positions:  # transformers writes a huge number when it is unset
        return n
    return positions


def _check_length(n_pieces: int, model, what: str = "the sentence") -> None:
    """Refuse a sequence longer than the model's learned positions (torch would fail with a shape error)."""
    limit = getattr(getattr(model, "config", None), "max_position_embeddings", None)
    if isinstance(limit, int) and n_pieces > limit:
        raise ValueError(f"{what} has {n_pieces} pieces but the model has {limit} positions; "
                         "split it into shorter pieces before encoding")


# --- encoding ---------------------------------------------------------------------------------


def _check_sentences(sentences: Sequence[Sequence[str]]) -> list[list[str]]:
    if isinstance(sentences, str) or not isinstance(sentences, Sequence) or len(sentences) == 0:
        raise TypeError("sentences must be a non-empty list of word lists, e.g. [['the', 'cat'], ...]")
    out = []
    for i, s in enumerate(sentences):
        if isinstance(s, str):
            s = s.split()
        if len(s) == 0 or not all(isinstance(w, str) and w for w in s):
            raise ValueError(f"sentence {i} must be a non-empty list of non-empty strings, got {s!r}")
        out.append(list(s))
    return out


def word_states(
    sentences: Sequence[Sequence[str]],
    tokenizer,
    model,
    batch_size: int = 32,
    progress: bool = False,
) -> list[np.ndarray]:
    """Every word's vector at every layer of a BERT-style encoder.

    A word's vector is the mean of its WordPiece pieces' hidden states; ``[CLS]`` and ``[SEP]`` are
    dropped. Layer 0 is the embedding module's output (token + position + segment rows, then LayerNorm).
    The forward passes run on the model's device; the result comes back as NumPy arrays.

    Args:
        sentences: word lists (a plain string is split on spaces).
        tokenizer: the model's fast (Rust) tokenizer, e.g. from :func:`embedbook.data.load_encoder`.
        model: the encoder (``output_hidden_states`` is requested per call).
        batch_size: sentences per forward pass.
        progress: show a text progress bar.

    Returns:
        one float32 array of shape ``(layers + 1, words, d)`` per sentence.

    Raises:
        TypeError: ``sentences`` is not a list of word lists, or the tokenizer is not a fast one.
        ValueError: an empty sentence or word, ``batch_size`` < 1, a word that yields no pieces, or a
            sentence longer than the model's positions (it is not truncated: words would be lost).
    """
    sents = _check_sentences(sentences)
    if not isinstance(batch_size, int) or batch_size <= 0:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    _check_encoder(tokenizer, model)
    if not getattr(tokenizer, "is_fast", False):
        raise TypeError("a fast (Rust) tokenizer is needed for word alignment; load it with AutoTokenizer")
    limit = model.config.max_position_embeddings
    dev = _device(model)
    out: list[np.ndarray] = []
    batches = range(0, len(sents), batch_size)
    if progress:
        from tqdm import tqdm  # plain text bar: no ipywidgets needed

        batches = tqdm(batches, desc="encoding", unit="batch")
    for start in batches:
        chunk = sents[start : start + batch_size]
        enc = tokenizer(chunk, is_split_into_words=True, padding=True, truncation=False, return_tensors="pt",
                        verbose=False)  # a too-long sentence gets the clear error below, not transformers' warning
        if enc["input_ids"].shape[1] > limit:
            lengths = enc["attention_mask"].sum(1)
            bad = start + int(torch.argmax(lengths))
            raise ValueError(
                f"sentence {bad} has {int(lengths.max())} pieces but the model has {limit} positions; "
                "split it into shorter windows before encoding"
            )
        # assign[b, w, t] = 1/pieces(w) if piece t belongs to word w: word vector = assign @ hidden
        n_words = max(len(s) for s in chunk)
        assign = torch.zeros(len(chunk), n_words, enc["input_ids"].shape[1])
        for b in range(len(chunk)):
            for t, w in enumerate(enc.word_ids(b)):
                if w is not None:
                    assign[b, w, t] = 1.0
        counts = assign.sum(-1, keepdim=True)
        for b, s in enumerate(chunk):
            empty = (counts[b, : len(s), 0] == 0).nonzero()
            if len(empty):
                raise ValueError(f"word {s[int(empty[0])]!r} in sentence {start + b} produced no pieces")
        assign = (assign / counts.clamp(min=1)).to(dev)
        with torch.inference_mode():
            hidden = model(**{k: v.to(dev) for k, v in enc.items()}, output_hidden_states=True).hidden_states
            stacked = torch.stack(hidden, 1).float()  # (batch, layers+1, tokens, d)
            words = torch.einsum("bwt,bltd->blwd", assign, stacked).cpu()
        out.extend(words[b, :, : len(s)].numpy().copy() for b, s in enumerate(chunk))
    return out


def sentence_vectors(
    tokenizer, model, sentences: Sequence[str], batch_size: int = 32, max_length: int | None = None, *,
    sort_by_length: bool = True, normalize: bool = True, progress: bool = False,
) -> torch.Tensor:
    """Sentence embeddings: the last layer mean-pooled over the attention mask, scaled to unit length.

    This is the pooling all-MiniLM-L6-v2 was trained with (sentence-transformers' ``mean`` pooling),
    and the package's one mean pooling. A long sentence is truncated where sentence-transformers truncates
    it: at the model's own ``max_seq_length`` (256 pieces for all-MiniLM-L6-v2, read from
    ``sentence_bert_config.json`` in the model's folder), so the vectors match its ``encode``.

    Sentences are cut into pieces once and batched longest first (sentence-transformers orders them by
    characters; pieces are what a batch pads), so a batch pads to sentences of similar length (padding is
    most of the work otherwise); the rows come back in the order given. The mask makes padding irrelevant to
    the result, up to float rounding.

    Args:
        tokenizer: the model's Hugging Face tokenizer (``tok, model = data.load_encoder()``).
        model: the encoder.
        sentences: plain strings.
        batch_size: sentences per forward pass.
        max_length: truncate each sentence to this many pieces (default: the model's ``max_seq_length``,
            else the tokenizer's ``model_max_length``, else the model's positions).
        sort_by_length: batch sentences of similar length together (default); False batches them in order.
        normalize: scale each vector to unit length (default; cosine is then a dot product).
        progress: show a text progress bar over the batches.

    Returns:
        a float tensor ``(len(sentences), d)``, on the model's device; unit rows unless ``normalize=False``.

    Raises:
        TypeError: ``sentences`` is a single string or not a list of strings; a tokenizer or model that is
            not a Hugging Face tokenizer and encoder (the message says what to pass); a flag that is not a bool.
        ValueError: no sentences, an empty sentence, ``batch_size`` / ``max_length`` < 1, or a
            ``max_length`` above the model's positions.
    """
    _check_encoder(tokenizer, model)
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise TypeError("sentences must be a list of strings, e.g. ['a cat sat', 'dogs bark']")
    if len(sentences) == 0:
        raise ValueError("sentences is empty: pass at least one sentence")
    if not all(isinstance(s, str) for s in sentences):
        raise TypeError("every sentence must be a string")
    if any(not s.strip() for s in sentences):
        raise ValueError("an empty sentence has no tokens to pool")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    if max_length is not None and (not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 1):
        raise ValueError(f"max_length must be a positive int or None, got {max_length!r}")
    for name, flag in (("sort_by_length", sort_by_length), ("normalize", normalize), ("progress", progress)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    dev = _device(model)
    positions = model.config.max_position_embeddings
    if max_length is not None and max_length > positions:
        raise ValueError(f"max_length={max_length:,} is above the model's {positions} positions; pass "
                         f"max_length <= {positions}, or None to truncate at the model's own length")
    limit = max_length or _pooling_length(tokenizer, model)
    # every sentence cut into pieces once (one call of the fast tokenizer), then batched longest first, so that a
    # batch pads only to its own longest sentence
    pieces = tokenizer(list(sentences), truncation=True, max_length=limit)
    lengths = [len(ids) for ids in pieces["input_ids"]]
    order = sorted(range(len(sentences)), key=lambda i: -lengths[i]) if sort_by_length else list(range(len(sentences)))
    starts = range(0, len(sentences), batch_size)
    if progress:
        from tqdm.auto import tqdm

        starts = tqdm(starts, desc="sentence vectors", unit="batch")
    out = []
    for start in starts:
        rows = order[start : start + batch_size]
        enc = tokenizer.pad({k: [v[i] for i in rows] for k, v in pieces.items()}, return_tensors="pt").to(dev)
        with torch.inference_mode():  # the last layer only: the encoder is loaded to return every layer
            last = model(**enc, output_hidden_states=False).last_hidden_state.float()
        mask = enc["attention_mask"].unsqueeze(-1).to(last.dtype)
        out.append((last * mask).sum(1) / mask.sum(1))
    batched = torch.cat(out)
    pooled = torch.empty_like(batched)
    pooled[torch.tensor(order, device=pooled.device)] = batched  # back to the order given
    return torch.nn.functional.normalize(pooled, dim=-1) if normalize else pooled


def windows(docs: Sequence[Sequence[str]], size: int, limit: int | None = None) -> list[list[str]]:
    """Cut documents into consecutive, non-overlapping windows of ``size`` words.

    Corpora without sentence punctuation (the shipped ones) have no sentences; windows stand in.

    Args:
        docs: documents, each a list of words.
        size: words per window (>= 2); only full windows are kept.
        limit: keep at most this many windows, in corpus order.

    Returns:
        the windows, each a list of ``size`` words.

    Raises:
        ValueError: ``size`` < 2, ``limit`` not a positive int or None, or no document has ``size`` words.
        TypeError: a document is a string rather than a list of words.
    """
    if not isinstance(size, int) or isinstance(size, bool) or size < 2:
        raise ValueError(f"window size must be an int of at least 2 words, got {size!r}")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValueError(f"limit must be a positive int (windows to keep) or None (all), got {limit!r}")
    if isinstance(docs, str) or any(isinstance(d, str) for d in docs):
        raise TypeError("each document must be a list of words, not a string; split it first (doc.split())")
    out = [list(d[i : i + size]) for d in docs for i in range(0, len(d) - size + 1, size)]
    if not out:
        raise ValueError(f"no document has {size} words; use a smaller window")
    return out[:limit] if limit is not None else out


def occurrences(
    sentences: Sequence[Sequence[str]], min_contexts: int = 5, max_contexts: int | None = None, seed: int = 0
) -> dict[str, list[tuple[int, int]]]:
    """Where each word occurs: ``word -> [(sentence index, position), ...]``, one entry per sentence.

    Only the first occurrence in a sentence is kept, so every entry is a different context (as
    Ethayarajh counts contexts).

    Args:
        sentences: word lists (a plain string is split on spaces).
        min_contexts: keep words seen in at least this many sentences (>= 2; the paper uses 5).
        max_contexts: subsample words seen more often to this many contexts (seeded), bounding the cost.
        seed: seed of the subsampling.

    Returns:
        the mapping, words in sorted order.

    Raises:
        ValueError: ``min_contexts`` < 2, ``max_contexts`` < ``min_contexts``, or no word qualifies.
    """
    if not isinstance(min_contexts, int) or min_contexts < 2:
        raise ValueError(f"min_contexts must be an int >= 2 (similarity needs two contexts), got {min_contexts!r}")
    if max_contexts is not None and (not isinstance(max_contexts, int) or isinstance(max_contexts, bool)):
        raise ValueError(f"max_contexts must be an int or None, got {max_contexts!r}")
    if max_contexts is not None and max_contexts < min_contexts:
        raise ValueError(f"max_contexts ({max_contexts}) must be at least min_contexts ({min_contexts})")
    where: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for si, s in enumerate(_check_sentences(sentences)):
        seen = set()
        for wi, w in enumerate(s):
            if w not in seen:
                seen.add(w)
                where[w].append((si, wi))
    rng = np.random.default_rng(seed)
    out = {}
    for w in sorted(where):
        occ = where[w]
        if len(occ) < min_contexts:
            continue
        if max_contexts is not None and len(occ) > max_contexts:
            occ = [occ[i] for i in sorted(rng.choice(len(occ), max_contexts, replace=False))]
        out[w] = occ
    if not out:
        raise ValueError(f"no word occurs in {min_contexts} or more sentences; use more sentences or lower min_contexts")
    return out


def word_matrix(states: Sequence[np.ndarray], occ: Sequence[tuple[int, int]], layer: int) -> np.ndarray:
    """One word's occurrence matrix at one layer.

    Args:
        states: the output of :func:`word_states`.
        occ: the word's ``(sentence, position)`` pairs (from :func:`occurrences`).
        layer: 0 (embedding output) to the number of layers.

    Returns:
        an ``(len(occ), d)`` array, one row per occurrence.

    Raises:
        ValueError: no occurrences, or a layer, sentence or position out of range.
    """
    if len(occ) == 0:
        raise ValueError("the word has no occurrences: it is absent from every sentence")
    n_layers = states[0].shape[0]
    if not isinstance(layer, (int, np.integer)) or isinstance(layer, bool) or not 0 <= layer < n_layers:
        raise ValueError(f"layer must be an int in 0..{n_layers - 1}, got {layer!r}")
    for s, w in occ:
        if (not isinstance(s, (int, np.integer)) or not isinstance(w, (int, np.integer)) or isinstance(s, bool)
                or isinstance(w, bool) or s < 0 or w < 0):
            raise ValueError(f"occurrence {(s, w)!r} must be a pair of non-negative ints (sentence, position), "
                             "as occurrences() returns")
    try:
        return np.stack([states[s][layer, w] for s, w in occ])
    except IndexError:
        raise ValueError("an occurrence points outside the encoded sentences; use states and occ from the same sentences") from None


# --- Ethayarajh's measures -----------------------------------------------------------------------


def _matrix(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"expected an (n, d) matrix of vectors, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("the vectors contain NaN or inf")
    if not x.any(axis=1).all():  # not the norm: tiny rows (1e-200) would underflow to a false zero
        raise ValueError("a zero vector has no direction: cosine similarity is undefined")
    return x


def _cosine(value) -> float:
    """A mean of cosines as a float in [-1, 1]: unit rows are unit only to float precision, so a mean of
    identical directions can come out at 1.000000003; this is the one place such results are clamped."""
    return float(np.clip(value, -1.0, 1.0))


def self_similarity(x) -> float:
    """Ethayarajh's self-similarity: the mean cosine between a word's vectors in different contexts.

    With unit rows u_i, the sum over pairs i != j of u_i·u_j is ``|sum u_i|² − n``, so no pair loop is needed.

    Args:
        x: ``(n, d)`` vectors of one word, one row per context (n >= 2).

    Returns:
        the mean pairwise cosine, in [-1, 1] (1: the word's vector does not depend on context).

    Raises:
        ValueError: not 2-D, fewer than 2 rows, NaN or inf, or a zero row.
    """
    u = stats.unit_rows(_matrix(x)).astype(np.float64)
    n = len(u)
    if n < 2:
        raise ValueError(f"self-similarity needs at least 2 contexts, got {n}")
    s = u.sum(0)
    return _cosine((s @ s - n) / (n * n - n))


def intra_similarity(x) -> float:
    """Ethayarajh's intra-sentence similarity: the mean cosine between each word of a sentence and the
    sentence's mean vector.

    Args:
        x: ``(words, d)`` vectors of one sentence at one layer.

    Returns:
        the mean cosine, in [-1, 1].

    Raises:
        ValueError: not 2-D, NaN or inf, a zero row, or a zero mean vector.
    """
    m = _matrix(x)
    u = stats.unit_rows(m).astype(np.float64)
    mean = stats.unit_rows(_matrix(m.mean(0, keepdims=True))).astype(np.float64)
    return _cosine((u @ mean.T).mean())


def mev(x, method: str = "paper") -> float:
    """Maximum explainable variance: the share of a word's occurrence vectors one direction explains.

    Args:
        x: ``(n, d)`` occurrence matrix of one word (n >= 2).
        method: how the share is computed.

            - ``"paper"`` — Ethayarajh (2019)'s definition, σ₁² / Σσᵢ² of the singular values of the raw
              (uncentred) matrix. For vectors sharing a common direction it mostly measures that direction.
            - ``"released"`` — what the paper's released code (``analyze.py``) reports: scikit-learn
              ``TruncatedSVD``'s ``explained_variance_ratio_[0]``, the variance of the projections onto the
              first right singular vector of the raw matrix over the total variance about the mean.
            - ``"centred"`` — PCA: the largest eigenvalue's share after subtracting the mean (never below
              :func:`mev_floor`).

    Returns:
        the share, in [0, 1].

    Raises:
        ValueError: an unknown ``method``, fewer than 2 rows, NaN or inf, or a zero row.

    Only ``"paper"`` sees a static vector. For occurrences that are one fixed vector c plus noise,
    ``"paper"`` tends to 1 as the noise shrinks; ``"released"`` finds c's direction and reports the
    *noise's* variance along it over all the noise's variance, about 1/d however long c is; and
    ``"centred"`` subtracts c first and reports the noise's largest share (at least 1/min(n - 1, d)). A low
    ``"released"`` or ``"centred"`` value therefore does not mean that no static vector explains the word.
    Exactly identical rows make the last two 0/0; they return 1.0 by convention (one vector explains the
    rows exactly), which is not their limit as the noise vanishes.
    """
    if method not in MEV_METHODS:
        raise ValueError(f"unknown MEV method {method!r}; use one of {MEV_METHODS}")
    x = _matrix(x)
    if len(x) < 2:
        raise ValueError(f"MEV needs at least 2 contexts, got {len(x)}")
    x = x / np.abs(x).max()  # MEV is a ratio of variances: the scale drops out, and 1e300 cannot overflow
    if method == "paper":
        s2 = _squared_singular_values(x)
        return float(s2[-1] / s2.sum())
    total = float(x.var(0).sum())
    if total <= 1e-12 * float((x * x).sum()):
        return 1.0  # identical rows (a static vector): one vector explains them exactly
    if method == "released":
        return float((x @ _top_right_singular_vector(x)).var() / total)
    s2 = _squared_singular_values(x - x.mean(0, keepdims=True))
    return float(s2[-1] / s2.sum())


def _squared_singular_values(x: np.ndarray) -> np.ndarray:
    """σᵢ² in ascending order, from the smaller of the two Gram matrices (fast for few long rows)."""
    gram = x @ x.T if x.shape[0] <= x.shape[1] else x.T @ x
    return np.clip(np.linalg.eigvalsh(gram), 0.0, None)


def _top_right_singular_vector(x: np.ndarray) -> np.ndarray:
    """The first right singular vector v₁ of ``x`` (its sign does not matter here)."""
    if x.shape[0] <= x.shape[1]:
        _, u = np.linalg.eigh(x @ x.T)
        v = x.T @ u[:, -1]
        return v / np.linalg.norm(v)
    return np.linalg.eigh(x.T @ x)[1][:, -1]


def mev_floor(n: int, d: int, center: bool = True) -> float:
    """Smallest possible MEV of ``n`` vectors in ``d`` dimensions: 1 / rank.

    Centring leaves rank at most ``min(n - 1, d)``; the largest of r eigenvalues is at least their mean,
    so centred MEV >= 1/min(n - 1, d) (the paper's uncentred MEV >= 1/min(n, d)).

    Args:
        n: number of vectors (>= 2).
        d: their dimension (>= 1).
        center: the floor of centred MEV (True) or of the uncentred one.

    Returns:
        the floor.

    Raises:
        ValueError: ``n`` < 2 or ``d`` < 1.
    """
    if (not isinstance(n, (int, np.integer)) or not isinstance(d, (int, np.integer)) or isinstance(n, bool)
            or isinstance(d, bool) or n < 2 or d < 1):
        raise ValueError(f"need ints n >= 2 vectors and d >= 1 dimensions, got n={n!r}, d={d!r}")
    if not isinstance(center, (bool, np.bool_)):
        raise TypeError(f"center must be True or False, got {center!r}")
    return 1.0 / min(n - 1 if center else n, d)


def _random_occurrences(states: Sequence[np.ndarray], k: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``k`` word occurrences from ``k`` different random sentences (one uniform word each)."""
    if k > len(states):
        raise ValueError(f"cannot draw {k} occurrences from different sentences out of {len(states)}")
    sents = rng.choice(len(states), k, replace=False)
    return [(int(s), int(rng.integers(states[s].shape[1]))) for s in sents]


@dataclass
class LayerMeasures:
    """Ethayarajh's measures per layer (index = layer, 0 = the embedding output) and their baselines.

    Attributes:
        self_sim, intra_sim: word-averaged self-similarity, sentence-averaged intra-sentence similarity.
        base_cos: the mean cosine between random words from different sentences (anisotropy baseline).
        mev: method → word-averaged MEV per layer (see :func:`mev`).
        base_mev: method → the baseline per layer: for ``"paper"`` and ``"released"`` the MEV of
            ``n_random`` random words from different sentences (the paper's baseline; averaged over
            ``draws`` draws); for ``"centred"`` each word's own rank-matched baseline (as many random words
            as it has contexts), averaged over words, so that baseline and measure share the floor.
        per_word_mev: method → ``(words, layers)`` array.
        matched_base: ``(words, layers)``: each word's rank-matched centred baseline.
        words: the words measured, in row order of ``per_word_mev``.
        contexts: contexts per word, same order.
        mev_floor: the mean centred-MEV floor 1/min(n - 1, d) over the words.
    """

    self_sim: np.ndarray
    intra_sim: np.ndarray
    base_cos: np.ndarray
    mev: dict[str, np.ndarray]
    base_mev: dict[str, np.ndarray]
    per_word_mev: dict[str, np.ndarray] = field(repr=False)
    matched_base: np.ndarray = field(repr=False)
    words: list[str] = field(repr=False)
    contexts: list[int] = field(repr=False)
    mev_floor: float
    n_random: int
    n_sentences: int
    dim: int

    @property
    def n_words(self) -> int:
        """Number of words measured."""
        return len(self.words)

    @property
    def n_contexts(self) -> int:
        """Word-in-context vectors per layer."""
        return int(sum(self.contexts))

    @property
    def n_layers(self) -> int:
        """Layers including layer 0."""
        return len(self.self_sim)

    def adjusted(self) -> dict[str, np.ndarray]:
        """Anisotropy-adjusted measures (each minus its random-word baseline), per layer: ``self_sim``,
        ``intra_sim`` and ``mev_<method>`` for each MEV method."""
        out = {"self_sim": self.self_sim - self.base_cos, "intra_sim": self.intra_sim - self.base_cos}
        out.update({f"mev_{m}": self.mev[m] - self.base_mev[m] for m in self.mev})
        return out

    def adjusted_per_word(self, method: str) -> np.ndarray:
        """``(words, layers)``: each word's MEV by ``method`` minus its baseline (the layer's random-word
        baseline, or for ``"centred"`` the word's rank-matched one). Raises ``ValueError`` for an unknown method."""
        if method not in self.per_word_mev:
            raise ValueError(f"unknown MEV method {method!r}; use one of {tuple(self.per_word_mev)}")
        return self.per_word_mev[method] - (self.matched_base if method == "centred" else self.base_mev[method])

    def table(self):
        """A pandas DataFrame, one row per layer: the measures, their baselines and adjusted values.

        Raises ``embedbook.data.MissingResource`` (naming the extra) when pandas is not installed."""
        from embedbook import data

        pd = data._need("pandas")

        adj = self.adjusted()
        cols = {"self-sim": self.self_sim, "intra-sim": self.intra_sim, "random cos": self.base_cos,
                "self-sim adj": adj["self_sim"], "intra-sim adj": adj["intra_sim"]}
        for m in self.mev:
            cols[f"MEV {m}"] = self.mev[m]
            cols[f"MEV {m} base"] = self.base_mev[m]
            cols[f"MEV {m} adj"] = adj[f"mev_{m}"]
        return pd.DataFrame(cols, index=pd.RangeIndex(self.n_layers, name="layer"))


#: The most random words :func:`measure_layers` draws for a baseline (Ethayarajh used 1,000).
MAX_RANDOM = 20_000
#: The most independent draws of :func:`measure_layers`' MEV baseline.
MAX_DRAWS = 1_000


def measure_layers(
    states: Sequence[np.ndarray],
    occ: Mapping[str, Sequence[tuple[int, int]]],
    n_random: int = 1000,
    seed: int = 0,
    draws: int = 5,
) -> LayerMeasures:
    """Self-similarity, intra-sentence similarity and MEV (three ways) per layer, with random-word baselines.

    Following Ethayarajh (2019): self-similarity and MEV are averaged over words, intra-sentence
    similarity over sentences; the baselines come from random word occurrences, one per random sentence.
    The cosine baseline is the mean cosine of ``n_random`` such pairs; the MEV baseline is the MEV of
    ``min(n_random, sentences)`` random words (the paper uses 1,000), averaged over ``draws`` draws. The
    centred MEV also gets a rank-matched baseline per word (see :class:`LayerMeasures`).

    Args:
        states: the output of :func:`word_states`.
        occ: the output of :func:`occurrences` on the same sentences.
        n_random: random words in each baseline (2 to :data:`MAX_RANDOM`).
        seed: seed of the random words.
        draws: independent draws of the MEV baseline (1 to :data:`MAX_DRAWS`).

    Returns:
        a :class:`LayerMeasures`.

    Raises:
        ValueError: no words, fewer than 2 sentences, ``n_random`` outside 2 .. :data:`MAX_RANDOM` or
            ``draws`` outside 1 .. :data:`MAX_DRAWS`, or a word with more contexts than there are sentences.
    """
    if not occ:
        raise ValueError("no words to measure: occ is empty")
    if not isinstance(n_random, int) or isinstance(n_random, bool) or n_random < 2:
        raise ValueError(f"n_random must be an int >= 2, got {n_random!r}")
    if n_random > MAX_RANDOM:
        raise ValueError(f"n_random={n_random:,} is above the limit of {MAX_RANDOM:,} random words (Ethayarajh "
                         "used 1,000; each one costs a pass over every layer); ask for fewer")
    if not isinstance(draws, int) or isinstance(draws, bool) or draws < 1:
        raise ValueError(f"draws must be an int >= 1, got {draws!r}")
    if draws > MAX_DRAWS:
        raise ValueError(f"draws={draws:,} is above the limit of {MAX_DRAWS:,} draws of the MEV baseline (each is "
                         "an SVD per layer); ask for fewer")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    if isinstance(states, np.ndarray) or not isinstance(states, Sequence) or len(states) < 2:
        raise ValueError("the random-word baseline needs at least 2 sentences: pass the list word_states() returns")
    shapes = {np.shape(s)[::2] if np.ndim(s) == 3 else None for s in states}
    if None in shapes or len(shapes) != 1:
        raise ValueError("states must be what word_states() returns: one (layers + 1, words, d) array per sentence, "
                         f"all with the same layers and d; got shapes {sorted({np.shape(s) for s in states})[:3]}")
    n_layers, d = states[0].shape[0], states[0].shape[2]
    rng = np.random.default_rng(seed)
    words = sorted(occ)
    k = min(n_random, len(states))
    per = {m: np.zeros((len(words), n_layers)) for m in MEV_METHODS}
    matched = np.zeros((len(words), n_layers))
    self_sim = np.zeros((len(words), n_layers))
    rank_matched = {w: _random_occurrences(states, len(occ[w]), rng) for w in words}
    pairs = [_random_occurrences(states, 2, rng) for _ in range(n_random)]
    samples = [_random_occurrences(states, k, rng) for _ in range(draws)]
    base_mev = {m: np.zeros(n_layers) for m in ("paper", "released")}
    for layer in range(n_layers):
        for i, w in enumerate(words):
            x = word_matrix(states, occ[w], layer)
            self_sim[i, layer] = self_similarity(x)
            for m in MEV_METHODS:
                per[m][i, layer] = mev(x, m)
            matched[i, layer] = mev(word_matrix(states, rank_matched[w], layer), "centred")
        for m in base_mev:
            base_mev[m][layer] = np.mean([mev(word_matrix(states, s, layer), m) for s in samples])
    intra = np.array(
        [np.mean([intra_similarity(s[layer]) for s in states if s.shape[1] > 1]) for layer in range(n_layers)]
    )
    base_cos = np.array(
        [np.mean([self_similarity(word_matrix(states, p, layer)) for p in pairs]) for layer in range(n_layers)]
    )
    return LayerMeasures(
        self_sim=self_sim.mean(0),
        intra_sim=intra,
        base_cos=base_cos,
        mev={m: per[m].mean(0) for m in MEV_METHODS},
        base_mev={**base_mev, "centred": matched.mean(0)},
        per_word_mev=per,
        matched_base=matched,
        words=words,
        contexts=[len(occ[w]) for w in words],
        mev_floor=float(np.mean([mev_floor(len(occ[w]), d) for w in words])),
        n_random=k,
        n_sentences=len(states),
        dim=d,
    )


# --- senses and the price of context --------------------------------------------------------------


def nearest_centroid_accuracy(vectors, labels) -> float:
    """Leave-one-out nearest-centroid accuracy (cosine) of telling two classes apart.

    Each vector is assigned to the closer of the two class centroids computed without it. A tie earns
    half credit, so identical vectors score exactly 0.5 (chance).

    Args:
        vectors: ``(n, d)`` array, no zero or non-finite rows.
        labels: ``n`` labels, each 0 or 1, with at least 2 of each.

    Returns:
        the accuracy in [0, 1].

    Raises:
        ValueError: shapes disagree, labels other than 0/1, or fewer than 2 vectors of a class.
    """
    u = stats.unit_rows(_matrix(vectors)).astype(np.float64)
    labels = np.asarray(labels)
    if labels.shape != (len(u),):
        raise ValueError(f"need one label per vector: {len(u)} vectors, labels of shape {labels.shape}")
    if not set(labels.tolist()) <= {0, 1} or min((labels == 0).sum(), (labels == 1).sum()) < 2:
        raise ValueError("labels must be 0 or 1, with at least 2 vectors of each class")
    right = 0.0
    for i in range(len(u)):
        keep = np.arange(len(u)) != i
        cents = [u[keep & (labels == k)].mean(0) for k in (0, 1)]
        sims = [float(u[i] @ c / max(np.linalg.norm(c), 1e-30)) for c in cents]
        if abs(sims[0] - sims[1]) <= 1e-9:
            right += 0.5
        elif int(np.argmax(sims)) == labels[i]:
            right += 1
    return right / len(u)


@dataclass
class SenseStudy:
    """One word's vectors in two sets of sentences (two senses), layer by layer (index 0 = embedding output).

    Attributes:
        within_a, within_b: mean cosine between the word's vectors within each set, per layer.
        across: mean cosine between the two sets, per layer.
        accuracy: leave-one-out nearest-centroid accuracy of telling the sets apart, per layer.
        lookup_max_diff: the largest difference between the rows the token table handed out for the word
            in any two sentences (0.0: identical rows).
        lookup_accuracy: the same accuracy on those looked-up rows (0.5 when they are identical).
        lookup_across: mean cosine between the looked-up rows of the two sets (1.0 when they are identical).
        positions: the word's token position in each sentence.
    """

    word: str
    within_a: list[float]
    within_b: list[float]
    across: list[float]
    accuracy: list[float]
    lookup_max_diff: float
    lookup_accuracy: float
    lookup_across: float
    positions: list[int]
    n_a: int
    n_b: int


def sense_study(tokenizer, model, a: Sequence[str], b: Sequence[str], word: str = "apple") -> SenseStudy:
    """How a word's vectors in two senses relate at every layer, and what the token table hands out.

    Args:
        tokenizer: the model's fast tokenizer.
        model: the encoder (any device).
        a, b: sentences (plain strings) using ``word`` in one sense and in the other, at least 2 each.
        word: a single word that occurs, space-separated, in every sentence.

    Returns:
        a :class:`SenseStudy`.

    Raises:
        ValueError: fewer than 2 sentences in a set, or a sentence without ``word``.
    """
    _check_encoder(tokenizer, model)
    if isinstance(a, str) or isinstance(b, str) or len(a) < 2 or len(b) < 2:
        raise ValueError("each sense needs a list of at least 2 sentences")
    sents = [s.split() for s in list(a) + list(b)]
    for s in sents:
        if word not in s:
            raise ValueError(f"{word!r} does not occur in the sentence {' '.join(s)!r}")
    states = word_states(sents, tokenizer, model)
    occ = [(i, s.index(word)) for i, s in enumerate(sents)]
    labels = np.array([0] * len(a) + [1] * len(b))
    # the rows the forward pass looks up: capture the token table's output during a real forward pass
    dev = _device(model)
    enc = tokenizer(sents, is_split_into_words=True, padding=True, return_tensors="pt")
    looked_up = {}
    hook = model.get_input_embeddings().register_forward_hook(lambda m, i, o: looked_up.setdefault("rows", o.detach()))
    try:
        with torch.inference_mode():
            model(**{k: v.to(dev) for k, v in enc.items()})
    finally:
        hook.remove()
    rows, positions = [], []
    for k, (si, wi) in enumerate(occ):
        pieces = [t for t, w in enumerate(enc.word_ids(k)) if w == wi]
        positions.append(pieces[0])
        rows.append(looked_up["rows"][k, pieces].float().mean(0).cpu().numpy())
    rows = np.stack(rows)
    ia, ib = labels == 0, labels == 1
    ur = stats.unit_rows(_matrix(rows)).astype(np.float64)
    within_a, within_b, across, acc = [], [], [], []
    for layer in range(states[0].shape[0]):
        u = stats.unit_rows(word_matrix(states, occ, layer)).astype(np.float64)
        c = u @ u.T
        within_a.append(_cosine(c[np.ix_(ia, ia)][~np.eye(ia.sum(), dtype=bool)].mean()))
        within_b.append(_cosine(c[np.ix_(ib, ib)][~np.eye(ib.sum(), dtype=bool)].mean()))
        across.append(_cosine(c[np.ix_(ia, ib)].mean()))
        acc.append(nearest_centroid_accuracy(u, labels))
    return SenseStudy(
        word=word, within_a=within_a, within_b=within_b, across=across, accuracy=acc,
        lookup_max_diff=float(np.abs(rows - rows[0]).max()), lookup_accuracy=nearest_centroid_accuracy(rows, labels),
        lookup_across=_cosine((ur[ia] @ ur[ib].T).mean()), positions=positions, n_a=len(a), n_b=len(b),
    )


def count_forward_flops(tokenizer, model, sentences: Sequence[str]) -> tuple[int, int]:
    """Floating-point operations of the model's forward passes over ``sentences``, counted by torch.

    Sentences run in batches of equal length (no padding), with eager attention so that the attention
    products are counted too; ``torch.utils.flop_counter`` counts matrix products at 2 operations per multiply-add.

    Args:
        tokenizer: the model's tokenizer.
        model: the encoder (any device).
        sentences: plain strings.

    Returns:
        ``(flops, tokens)``: the total count and the number of tokens processed ([CLS] and [SEP] included).

    Raises:
        TypeError, ValueError: ``sentences`` is not a non-empty list of non-empty strings, a sentence is
            longer than the model's positions, or the tokenizer and model are not a Hugging Face pair.
    """
    from torch.utils.flop_counter import FlopCounterMode

    if isinstance(sentences, str) or not isinstance(sentences, Sequence) or len(sentences) == 0:
        raise TypeError("sentences must be a non-empty list of strings")
    if not all(isinstance(s, str) and s.strip() for s in sentences):
        raise ValueError("every sentence must be a non-empty string")
    _check_encoder(tokenizer, model)
    dev = _device(model)
    by_length: dict[int, list[str]] = defaultdict(list)  # sentences of one length batch without padding
    for i, s in enumerate(sentences):
        n = len(tokenizer(s, verbose=False)["input_ids"])
        _check_length(n, model, f"sentence {i}")
        by_length[n].append(s)
    tokens = 0
    with eager_attention(model), torch.inference_mode(), FlopCounterMode(display=False) as counter:
        for group in by_length.values():
            enc = tokenizer(group, return_tensors="pt").to(dev)
            model(**enc)
            tokens += int(enc["input_ids"].numel())
    return int(counter.get_total_flops()), tokens


def forward_flops_per_token(model, seq_len: int) -> float:
    """Floating-point operations one token costs in a forward pass of a BERT-style encoder, from its shapes.

    Every weight matrix outside the embedding tables and the pooler is used once per token in a multiply-add
    (2 operations); each layer's attention adds ``QKᵀ`` and the mix of V over ``seq_len`` positions
    (:func:`embedbook.sizing.attention_flops` without projections, per token). The lookup before it does
    no arithmetic: it copies ``d`` numbers. :func:`count_forward_flops` counts the same with torch.

    Args:
        model: a BERT-style encoder (``config.num_hidden_layers``, ``config.hidden_size``).
        seq_len: tokens in the sequence (>= 1).

    Returns:
        operations per token.

    Raises:
        ValueError: ``seq_len`` is not a positive int, or is beyond the model's ``max_position_embeddings``.
        TypeError: not a BERT-style encoder.
    """
    if not isinstance(seq_len, int) or isinstance(seq_len, bool) or seq_len <= 0:
        raise ValueError(f"seq_len must be a positive int, got {seq_len!r}")
    if not all(hasattr(getattr(model, "config", None), a) for a in ("num_hidden_layers", "hidden_size")):
        raise TypeError(f"model must be a BERT-style transformers encoder (config.num_hidden_layers, "
                        f"config.hidden_size), got {type(model).__name__}; load one with data.load_encoder")
    _check_length(seq_len, model, f"a sequence of seq_len={seq_len}")
    matrices = sum(
        p.numel() for n, p in model.named_parameters() if p.dim() == 2 and "embeddings" not in n and "pooler" not in n
    )
    cfg = model.config
    attention = sizing.attention_flops(seq_len, cfg.hidden_size, project=False)["total"] / seq_len
    return 2.0 * matrices + cfg.num_hidden_layers * attention


# --- Q, K, V ------------------------------------------------------------------------------------


@contextlib.contextmanager
def eager_attention(model) -> Iterator:
    """Switch ``model`` to eager attention for the ``with`` block (SDPA returns no attention probabilities).

    Args:
        model: a transformers model.

    Yields:
        the model; its previous attention implementation is restored afterwards.
    """
    if not (hasattr(getattr(model, "config", None), "_attn_implementation")
            and callable(getattr(model, "set_attn_implementation", None))):
        raise TypeError(f"model must be a transformers model (config, set_attn_implementation), got "
                        f"{type(model).__name__}; load one with data.load_encoder")
    before = model.config._attn_implementation
    model.set_attn_implementation("eager")
    try:
        yield model
    finally:
        model.set_attn_implementation(before)


def _check_sentence(sentence) -> None:
    if not isinstance(sentence, str) or not sentence.strip():
        raise ValueError("sentence must be a non-empty string")


def model_attentions(tokenizer, model, sentence: str) -> tuple[list[str], torch.Tensor]:
    """The model's own attention probabilities for one sentence.

    Args:
        tokenizer: the model's tokenizer.
        model: the encoder (any device).
        sentence: a plain string.

    Returns:
        ``(tokens, probs)``: the pieces ([CLS] and [SEP] included) and a float tensor
        ``(layers, heads, n, n)`` on the model's device (rows: queries; each row sums to 1).

    Raises:
        ValueError: an empty sentence, or one longer than the model's positions.
    """
    _check_sentence(sentence)
    _check_encoder(tokenizer, model)
    enc = tokenizer(sentence, return_tensors="pt", verbose=False).to(_device(model))  # length checked below
    _check_length(enc["input_ids"].shape[1], model)
    with eager_attention(model), torch.inference_mode():
        att = model(**enc, output_attentions=True).attentions
    return tokenizer.convert_ids_to_tokens(enc["input_ids"][0]), torch.stack([a[0] for a in att]).float()


@dataclass
class Layer0:
    """Layer 0's attention rebuilt from the weights: the input X, the per-head Q, K, V and probabilities."""

    tokens: list[str]
    X: torch.Tensor  # (n, d)
    Q: torch.Tensor  # (heads, n, d / heads)
    K: torch.Tensor
    V: torch.Tensor
    probs: torch.Tensor  # (heads, n, n)


def layer0_qkv(tokenizer, model, sentence: str, article_form: bool = False) -> Layer0:
    """Layer 0's Q, K, V and attention probabilities, rebuilt by hand from a BERT-style model's weights.

    ``X = LayerNorm(token + position + segment rows)``; ``Q = X W_Qᵀ + b_Q`` (likewise K and V;
    ``nn.Linear`` stores W transposed), split into h heads of d/h columns; attention =
    softmax(Q_h K_hᵀ / sqrt(d/h)). With ``article_form=True``: X is the plain sum token + position and the
    biases are dropped — the article's Q = X W_Q, for comparison.

    Args:
        tokenizer: the model's tokenizer.
        model: a BERT-style encoder (``embeddings``, ``encoder.layer[0].attention.self``), any device.
        sentence: a plain string.
        article_form: rebuild the article's form instead of the model's.

    Returns:
        a :class:`Layer0`, tensors on the model's device.

    Raises:
        ValueError: an empty sentence, or one longer than the model's positions. TypeError: a model
            without BERT's module layout.
    """
    _check_sentence(sentence)
    _check_encoder(tokenizer, model)
    try:
        emb, attn = model.embeddings, model.encoder.layer[0].attention.self
    except AttributeError:
        raise TypeError("layer0_qkv needs a BERT-style model (model.embeddings, model.encoder.layer[0])") from None
    dev = _device(model)
    enc = tokenizer(sentence, return_tensors="pt", verbose=False).to(dev)  # length checked below
    ids = enc["input_ids"][0]
    _check_length(len(ids), model)
    n, h = len(ids), model.config.num_attention_heads
    with torch.no_grad():
        x = emb.word_embeddings.weight[ids] + emb.position_embeddings.weight[:n]
        if not article_form:
            x = emb.LayerNorm(x + emb.token_type_embeddings.weight[enc["token_type_ids"][0]])
        proj = {}
        for name, lin in (("Q", attn.query), ("K", attn.key), ("V", attn.value)):
            y = x @ lin.weight.T + (0 if article_form or lin.bias is None else lin.bias)
            proj[name] = y.view(n, h, -1).transpose(0, 1)  # (h, n, d/h)
        dh = proj["Q"].shape[-1]
        probs = torch.softmax(proj["Q"] @ proj["K"].transpose(1, 2) / math.sqrt(dh), dim=-1)
    return Layer0(tokens=tokenizer.convert_ids_to_tokens(ids), X=x, probs=probs, **proj)


def with_table(model, kind: str, seed: int = 0):
    """A deep copy of ``model`` with its token-embedding table replaced; the original is left untouched.

    Args:
        model: a transformers model with ``get_input_embeddings()``.
        kind: ``"shuffled"`` (the rows permuted: every token gets another token's row) or ``"random"``
            (fresh N(0, s²) rows, s the original table's standard deviation, so only content changes).
        seed: seed of the permutation or the draw.

    Returns:
        the modified copy, on the model's device.

    Raises:
        ValueError: an unknown ``kind``.
    """
    if kind not in ("shuffled", "random"):
        raise ValueError(f"kind must be 'shuffled' or 'random', got {kind!r}")
    if not callable(getattr(model, "get_input_embeddings", None)):
        raise TypeError(f"model must be a transformers model with get_input_embeddings(), got {type(model).__name__}")
    g = torch.Generator().manual_seed(seed)
    clone = copy.deepcopy(model)
    w = clone.get_input_embeddings().weight
    with torch.no_grad():
        if kind == "shuffled":
            w.copy_(w[torch.randperm(w.shape[0], generator=g).to(w.device)])
        else:
            w.copy_(torch.randn(w.shape, generator=g).to(w.device, w.dtype) * w.std())
    return clone


def attention_shift(p: torch.Tensor, q: torch.Tensor) -> float:
    """Mean total-variation distance between two stacks of attention distributions.

    Args:
        p, q: tensors of the same shape whose last axis holds probability distributions.

    Returns:
        0 for identical attention, 1 for disjoint; averaged over every other axis.

    Raises:
        TypeError: not tensors. ValueError: the shapes differ, or a row that is not a probability
            distribution (negative, NaN or infinite entries, or not summing to 1).
    """
    if not isinstance(p, torch.Tensor) or not isinstance(q, torch.Tensor):
        raise TypeError("p and q must be torch tensors of attention probabilities")
    if p.shape != q.shape:
        raise ValueError(f"attention shapes differ: {tuple(p.shape)} vs {tuple(q.shape)}")
    for name, x in (("p", p), ("q", q)):
        x = x.double()
        if not (torch.isfinite(x).all() and (x >= 0).all() and torch.allclose(x.sum(-1), torch.ones((), dtype=x.dtype,
                                                                                                     device=x.device), atol=1e-2)):
            raise ValueError(f"{name} must hold probability distributions along its last axis (finite, >= 0, "
                             "each row summing to 1), e.g. the softmax of attention scores")
    return float(0.5 * (p - q.to(p.device)).abs().sum(-1).mean())


def paraphrase_accuracy(tokenizer, model, pairs: Sequence[tuple[str, str]]) -> float:
    """How often a sentence's vector is closer to its own paraphrase than to another sentence's.

    Sentence vectors come from :func:`sentence_vectors`; every a_i is compared with b_i against each b_j.

    Args:
        tokenizer: the model's tokenizer.
        model: the encoder.
        pairs: ``(sentence, paraphrase)`` pairs, at least 2.

    Returns:
        the share of (i, j ≠ i) comparisons won by the paraphrase (chance: 0.5).

    Raises:
        ValueError: fewer than 2 pairs, or a pair that is not two sentences.
    """
    if isinstance(pairs, str) or len(pairs) < 2:
        raise ValueError("need at least 2 paraphrase pairs to compare against")
    for i, pair in enumerate(pairs):
        if isinstance(pair, str) or len(pair) != 2:
            raise ValueError(f"pair {i} must be (sentence, paraphrase), two strings; got {pair!r}")
    _check_encoder(tokenizer, model)
    a = sentence_vectors(tokenizer, model, [p[0] for p in pairs])
    b = sentence_vectors(tokenizer, model, [p[1] for p in pairs])
    sims = (a @ b.T).float().cpu().numpy()
    own = np.diag(sims)[:, None]
    off = ~np.eye(len(pairs), dtype=bool)
    return float((own > sims)[off].mean())
