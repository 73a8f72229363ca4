"""Static vs contextual representations, and the road from embeddings to Q, K and V.

Word vectors per layer from a BERT-style encoder (a word's vector is the mean of its WordPiece
pieces), Ethayarajh's (2019) three measures (self-similarity, intra-sentence similarity, maximum
explainable variance) with their random-word anisotropy baselines, the price of context
(static lookup vs forward pass), and layer 0's attention rebuilt by hand from W_Q, W_K, W_V.

Used by chapters ``11_contextual`` (static vs contextual; C10, C11, C46) and ``12_qkv``
(embeddings to Q, K, V; C24).
"""

from __future__ import annotations

import contextlib
import copy
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np
import torch

from embedbook import claims, data

MODEL = data.MINILM  # the bundled MiniLM-L6; "bert-base-uncased" works through the same code path

# Hand-written contexts for the two senses of "apple" (the articles' 苹果 example).
FRUIT = [
    "i ate a fresh apple for lunch",
    "she peeled the apple and cut it into slices",
    "he baked an apple pie with cinnamon",
    "the apple was sweet and juicy",
    "we picked a ripe apple from the tree in the orchard",
    "a green apple and a banana were in the fruit bowl",
    "my grandmother makes apple juice every autumn",
    "the horse happily ate the apple from her hand",
]
COMPANY = [
    "apple released a new iphone at its launch event",
    "shares of apple rose after strong quarterly earnings",
    "the apple store in the mall sells laptops and phones",
    "apple and google compete in the smartphone market",
    "tim cook is the chief executive of apple",
    "developers write apps for apple devices using swift",
    "apple announced record revenue from its services business",
    "the new apple laptop has a faster chip",
]


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
    progress: bool = True,
) -> list[np.ndarray]:
    """Every word's vector at every layer, one ``(layers + 1, n_words, d)`` float32 array per sentence.

    A sentence is a list of words (a plain string is split on spaces). A word's vector is the mean
    of its WordPiece pieces' hidden states; ``[CLS]``/``[SEP]`` are dropped. Layer 0 is the
    embedding output (token + position + segment embeddings after LayerNorm).

    A sentence longer than the model's positions (512 for BERT) raises ``ValueError`` instead of
    being truncated, because truncation would silently drop words whose vectors were asked for.
    """
    sents = _check_sentences(sentences)
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    if not getattr(tokenizer, "is_fast", False):
        raise TypeError("a fast (Rust) tokenizer is needed for word alignment; load it with AutoTokenizer")
    limit = model.config.max_position_embeddings
    dev = next(model.parameters()).device
    out: list[np.ndarray] = []
    batches = range(0, len(sents), batch_size)
    if progress:
        from tqdm import tqdm  # plain text bar: no ipywidgets needed

        batches = tqdm(batches, desc="encoding", unit="batch")
    for start in batches:
        chunk = sents[start : start + batch_size]
        enc = tokenizer(chunk, is_split_into_words=True, padding=True, truncation=False, return_tensors="pt")
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
        assign = assign / counts.clamp(min=1)
        with torch.inference_mode():
            hidden = model(**{k: v.to(dev) for k, v in enc.items()}, output_hidden_states=True).hidden_states
        stacked = torch.stack(hidden, 1).float().cpu()  # (batch, layers+1, tokens, d)
        words = torch.einsum("bwt,bltd->blwd", assign, stacked)
        out.extend(words[b, :, : len(s)].numpy().copy() for b, s in enumerate(chunk))
    return out


def windows(docs: Sequence[Sequence[str]], size: int, limit: int | None = None) -> list[list[str]]:
    """Cut documents (lists of words) into consecutive non-overlapping windows of ``size`` words.

    The shipped corpora carry no punctuation, so these windows stand in for sentences. Only full
    windows are kept; ``limit`` caps how many are returned (in corpus order).
    """
    if size < 2:
        raise ValueError(f"window size must be at least 2 words, got {size}")
    out = [list(d[i : i + size]) for d in docs for i in range(0, len(d) - size + 1, size)]
    if not out:
        raise ValueError(f"no document has {size} words; use a smaller window")
    return out[:limit] if limit is not None else out


def occurrences(
    sentences: Sequence[Sequence[str]], min_contexts: int = 5, max_contexts: int | None = None, seed: int = 0
) -> dict[str, list[tuple[int, int]]]:
    """``word -> [(sentence index, position), ...]`` for words seen in at least ``min_contexts`` sentences.

    One occurrence per sentence is kept (the first), so every occurrence is a different context.
    Words with more than ``max_contexts`` contexts are subsampled (seeded), bounding the cost.
    """
    if min_contexts < 2:
        raise ValueError(f"min_contexts must be at least 2 (similarity needs two contexts), got {min_contexts}")
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
    """The ``(n, d)`` matrix of one word's vectors at ``layer`` over its occurrences ``occ``."""
    if len(occ) == 0:
        raise ValueError("the word has no occurrences: it is absent from every sentence")
    return np.stack([states[s][layer, w] for s, w in occ])


# --- Ethayarajh's measures -----------------------------------------------------------------------


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"expected an (n, d) matrix of vectors, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("the vectors contain NaN or inf")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("a zero vector has no direction: cosine similarity is undefined")
    return x / norms


def self_similarity(x: np.ndarray) -> float:
    """Mean cosine between a word's vectors in different contexts (rows of ``x``, n >= 2).

    Vectorised: with unit rows u_i, the sum over pairs i != j of u_i.u_j equals the squared norm
    of the sum of all u_i, minus n.
    """
    u = _unit(x)
    n = len(u)
    if n < 2:
        raise ValueError(f"self-similarity needs at least 2 contexts, got {n}")
    s = u.sum(0)
    return float((s @ s - n) / (n * n - n))


def intra_similarity(x: np.ndarray) -> float:
    """Mean cosine between each word vector of one sentence (rows of ``x``) and their mean."""
    u = _unit(x)
    mean = x.mean(0, keepdims=True)
    return float((u @ _unit(mean).T).mean())


def mev(x: np.ndarray, center: bool = False) -> float:
    """Maximum explainable variance: the first singular value's share, sigma_1^2 / sum sigma_i^2.

    ``center=False`` uses the raw occurrence matrix (the paper's definition through its singular
    values); ``center=True`` subtracts the mean first (PCA, as scikit-learn's ``PCA`` does). The
    centred value can never fall below ``mev_floor(n, d)``.
    """
    x = np.asarray(x, dtype=np.float64)
    _unit(x)  # validates shape, finiteness and non-zero rows
    if len(x) < 2:
        raise ValueError(f"MEV needs at least 2 contexts, got {len(x)}")
    if center:
        x = x - x.mean(0, keepdims=True)
    eig = np.linalg.eigvalsh(x @ x.T)  # n x n Gram matrix: its eigenvalues are sigma_i^2
    total = eig.sum()
    if total <= 0:
        raise ValueError("all vectors are identical: centred variance is zero, MEV is undefined")
    return float(eig[-1] / total)


def mev_floor(n: int, d: int, center: bool = True) -> float:
    """Smallest possible MEV for ``n`` vectors in ``d`` dimensions: 1 / rank.

    Centring leaves rank at most ``min(n - 1, d)``; the largest of r eigenvalues is at least their
    mean, so MEV >= 1/min(n - 1, d) (1/min(n, d) without centring).
    """
    if n < 2 or d < 1:
        raise ValueError(f"need n >= 2 vectors and d >= 1 dimensions, got n={n}, d={d}")
    return 1.0 / min(n - 1 if center else n, d)


def _random_occurrences(states: Sequence[np.ndarray], k: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``k`` word occurrences from ``k`` different random sentences (one uniform word each)."""
    if k > len(states):
        raise ValueError(f"cannot draw {k} occurrences from different sentences out of {len(states)}")
    sents = rng.choice(len(states), k, replace=False)
    return [(int(s), int(rng.integers(states[s].shape[1]))) for s in sents]


@dataclass
class LayerMeasures:
    """Ethayarajh's measures per layer (index = layer, 0 = embedding output) and their baselines."""

    self_sim: np.ndarray
    intra_sim: np.ndarray
    mev_raw: np.ndarray
    mev_centred: np.ndarray
    base_cos: np.ndarray
    base_mev_raw: np.ndarray
    base_mev_centred: np.ndarray
    mev_floor: float
    n_words: int
    n_contexts: int
    n_sentences: int
    per_word_mev_centred: np.ndarray = field(repr=False)  # (words, layers)

    def adjusted(self) -> dict[str, np.ndarray]:
        """Anisotropy-adjusted measures: each minus its random-word baseline."""
        return {
            "self_sim": self.self_sim - self.base_cos,
            "intra_sim": self.intra_sim - self.base_cos,
            "mev_raw": self.mev_raw - self.base_mev_raw,
            "mev_centred": self.mev_centred - self.base_mev_centred,
        }

    def table(self):
        """A pandas DataFrame, one row per layer, of the measures, baselines and adjusted values."""
        import pandas as pd

        adj = self.adjusted()
        return pd.DataFrame(
            {
                "self-sim": self.self_sim,
                "intra-sim": self.intra_sim,
                "random cos": self.base_cos,
                "self-sim adj": adj["self_sim"],
                "intra-sim adj": adj["intra_sim"],
                "MEV raw": self.mev_raw,
                "MEV raw base": self.base_mev_raw,
                "MEV centred": self.mev_centred,
                "MEV centred base": self.base_mev_centred,
            },
            index=pd.RangeIndex(len(self.self_sim), name="layer"),
        ).round(4)


def measure_layers(
    states: Sequence[np.ndarray], occ: dict[str, list[tuple[int, int]]], n_random: int = 1000, seed: int = 0
) -> LayerMeasures:
    """Self-similarity, intra-sentence similarity and MEV per layer, with random-word baselines.

    Word-level values are averaged over words (self-similarity, MEV) or over sentences (intra).
    Baselines, per layer: the mean cosine between ``n_random`` pairs of random words from
    different sentences; for MEV, the MEV of as many random words (from different sentences) as the
    word itself has contexts, averaged over words, so baseline and measure share the rank floor.
    """
    if not occ:
        raise ValueError("no words to measure: occ is empty")
    if n_random < 1:
        raise ValueError(f"n_random must be positive, got {n_random}")
    if len(states) < 2:
        raise ValueError("the random-word baseline needs at least 2 sentences")
    n_layers, d = states[0].shape[0], states[0].shape[2]
    rng = np.random.default_rng(seed)
    words = sorted(occ)
    self_sim = np.zeros(n_layers)
    raw = np.zeros((len(words), n_layers))
    cen = np.zeros((len(words), n_layers))
    braw = np.zeros((len(words), n_layers))
    bcen = np.zeros((len(words), n_layers))
    rand = {w: _random_occurrences(states, len(occ[w]), rng) for w in words}
    pairs = [_random_occurrences(states, 2, rng) for _ in range(n_random)]
    for layer in range(n_layers):
        sims = []
        for i, w in enumerate(words):
            x = word_matrix(states, occ[w], layer)
            sims.append(self_similarity(x))
            raw[i, layer], cen[i, layer] = mev(x), mev(x, center=True)
            r = word_matrix(states, rand[w], layer)
            braw[i, layer], bcen[i, layer] = mev(r), mev(r, center=True)
        self_sim[layer] = np.mean(sims)
    intra = np.array([np.mean([intra_similarity(s[layer]) for s in states if s.shape[1] > 1]) for layer in range(n_layers)])
    base = np.array(
        [np.mean([self_similarity(word_matrix(states, p, layer)) for p in pairs]) for layer in range(n_layers)]
    )
    return LayerMeasures(
        self_sim=self_sim,
        intra_sim=intra,
        mev_raw=raw.mean(0),
        mev_centred=cen.mean(0),
        base_cos=base,
        base_mev_raw=braw.mean(0),
        base_mev_centred=bcen.mean(0),
        mev_floor=float(np.mean([mev_floor(len(occ[w]), d) for w in words])),
        n_words=len(words),
        n_contexts=sum(len(occ[w]) for w in words),
        n_sentences=len(states),
        per_word_mev_centred=cen,
    )


# --- senses and the price of context --------------------------------------------------------------


def sense_study(tokenizer, model, word: str = "apple", a: Sequence[str] = FRUIT, b: Sequence[str] = COMPANY) -> dict:
    """How one word's vectors in two senses relate, layer by layer.

    Returns per layer the mean cosine within sense a, within sense b, across senses, and the
    leave-one-out nearest-centroid accuracy of telling the senses apart; plus whether the rows the
    embedding table hands out for ``word`` are bitwise identical in every sentence.
    """
    sents = [s.split() for s in list(a) + list(b)]
    for s in sents:
        if word not in s:
            raise ValueError(f"{word!r} does not occur in the sentence {' '.join(s)!r}")
    if len(a) < 2 or len(b) < 2:
        raise ValueError("each sense needs at least 2 sentences")
    states = word_states(sents, tokenizer, model, progress=False)
    occ = [(i, s.index(word)) for i, s in enumerate(sents)]
    labels = np.array([0] * len(a) + [1] * len(b))
    # the raw lookup: the token-embedding rows for the word's pieces in every sentence
    rows = []
    table = model.get_input_embeddings().weight.detach().cpu()
    for s in sents:
        enc = tokenizer([s], is_split_into_words=True)
        pieces = [t for t, w in zip(enc["input_ids"][0], enc.word_ids(0)) if w == s.index(word)]
        rows.append(table[pieces].mean(0).numpy())
    identical = all(np.array_equal(rows[0], r) for r in rows[1:])
    lookup = _unit(np.stack(rows))
    out = {"within_a": [], "within_b": [], "across": [], "loo_acc": [], "lookup_identical": identical}
    out["lookup_acc"] = _loo_centroid_accuracy(lookup, labels)
    for layer in range(states[0].shape[0]):
        u = _unit(word_matrix(states, occ, layer))
        c = u @ u.T
        ia, ib = labels == 0, labels == 1
        out["within_a"].append(float(c[np.ix_(ia, ia)][~np.eye(ia.sum(), dtype=bool)].mean()))
        out["within_b"].append(float(c[np.ix_(ib, ib)][~np.eye(ib.sum(), dtype=bool)].mean()))
        out["across"].append(float(c[np.ix_(ia, ib)].mean()))
        out["loo_acc"].append(_loo_centroid_accuracy(u, labels))
    out["lookup_cos"] = float(np.mean(lookup @ lookup.T))
    return out


def _loo_centroid_accuracy(u: np.ndarray, labels: np.ndarray) -> float:
    """Leave-one-out nearest-centroid accuracy (cosine); a tie earns half credit, so identical vectors score 0.5."""
    right = 0.0
    for i in range(len(u)):
        keep = np.arange(len(u)) != i
        cents = [u[keep & (labels == k)].mean(0) for k in (0, 1)]
        sims = [float(u[i] @ c / np.linalg.norm(c)) for c in cents]
        if abs(sims[0] - sims[1]) <= 1e-9:
            right += 0.5
        elif int(np.argmax(sims)) == labels[i]:
            right += 1
    return right / len(u)


def bench_lookup_vs_forward(tokenizer, model, sentences: Sequence[Sequence[str]], repeats: int = 3) -> dict:
    """Tokens per second of a static lookup (embedding-table gather) vs a full forward pass, same run.

    Both process the same padded batch of token ids; after one untimed warm-up call, the fastest
    of ``repeats`` forward passes and of ``10 * repeats`` lookups is kept.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be positive, got {repeats}")
    sents = _check_sentences(sentences)
    enc = tokenizer(sents, is_split_into_words=True, padding=True, truncation=True, return_tensors="pt")
    dev = next(model.parameters()).device
    enc = {k: v.to(dev) for k, v in enc.items()}
    n_tokens = int(enc["attention_mask"].sum())
    table = model.get_input_embeddings()

    def best(fn, runs: int) -> float:
        with torch.inference_mode():
            fn()  # warm-up, not timed: first calls pay one-off allocation costs
        times = []
        for _ in range(runs):
            if dev.type == "cuda":
                torch.cuda.synchronize()
            t = time.perf_counter()
            with torch.inference_mode():
                fn()
            if dev.type == "cuda":
                torch.cuda.synchronize()
            times.append(time.perf_counter() - t)
        return min(times)

    # the lookup is cheap: more runs, so that one descheduled run cannot dominate
    t_lookup = best(lambda: table(enc["input_ids"]), 10 * repeats)
    t_forward = best(lambda: model(**enc), repeats)
    return {
        "tokens": n_tokens,
        "lookup_tok_s": n_tokens / t_lookup,
        "forward_tok_s": n_tokens / t_forward,
        "ratio": t_forward / t_lookup,
    }


# --- Q, K, V ------------------------------------------------------------------------------------


@contextlib.contextmanager
def eager_attention(model) -> Iterator:
    """Temporarily switch ``model`` to eager attention (SDPA returns no attention probabilities)."""
    before = model.config._attn_implementation
    model.set_attn_implementation("eager")
    try:
        yield model
    finally:
        model.set_attn_implementation(before)


def model_attentions(tokenizer, model, sentence: str) -> tuple[list[str], torch.Tensor]:
    """The model's own attention probabilities: ``(tokens, (layers, heads, n, n))`` for one sentence."""
    if not isinstance(sentence, str) or not sentence.strip():
        raise ValueError("sentence must be a non-empty string")
    enc = tokenizer(sentence, return_tensors="pt")
    with eager_attention(model), torch.inference_mode():
        att = model(**enc, output_attentions=True).attentions
    return tokenizer.convert_ids_to_tokens(enc["input_ids"][0]), torch.stack([a[0] for a in att]).float()


def layer0_qkv(tokenizer, model, sentence: str, article_form: bool = False) -> dict[str, torch.Tensor]:
    """Layer 0's Q, K, V and attention probabilities rebuilt by hand from the weights.

    ``X = LayerNorm(token + position + segment embeddings)``; ``Q = X W_Q^T + b_Q`` (likewise K, V;
    ``nn.Linear`` stores W transposed), split into h heads of d/h columns; attention =
    softmax(Q_h K_h^T / sqrt(d/h)). With ``article_form=True``, X is the plain sum token + position
    and the biases are dropped: the article's Q = X W_Q, for comparison.
    """
    if not isinstance(sentence, str) or not sentence.strip():
        raise ValueError("sentence must be a non-empty string")
    emb, attn = model.embeddings, model.encoder.layer[0].attention.self
    enc = tokenizer(sentence, return_tensors="pt")
    ids = enc["input_ids"][0]
    n, h = len(ids), model.config.num_attention_heads
    with torch.no_grad():
        pos = emb.position_embeddings.weight[:n]
        x = emb.word_embeddings.weight[ids] + pos
        if not article_form:
            x = emb.LayerNorm(x + emb.token_type_embeddings.weight[enc["token_type_ids"][0]])
        proj = {}
        for name, lin in (("Q", attn.query), ("K", attn.key), ("V", attn.value)):
            y = x @ lin.weight.T + (0 if article_form else lin.bias)
            proj[name] = y.view(n, h, -1).transpose(0, 1)  # (h, n, d/h)
        dh = proj["Q"].shape[-1]
        probs = torch.softmax(proj["Q"] @ proj["K"].transpose(1, 2) / math.sqrt(dh), dim=-1)
    return {"X": x, **proj, "probs": probs, "tokens": tokenizer.convert_ids_to_tokens(ids)}


def with_table(model, kind: str, seed: int = 0):
    """A deep copy of ``model`` whose token-embedding table is ``"shuffled"`` (rows permuted) or ``"random"``.

    The random table draws N(0, s^2) with s the original table's standard deviation, so only the
    content of the rows changes, not their scale. The original model is left untouched.
    """
    if kind not in ("shuffled", "random"):
        raise ValueError(f"kind must be 'shuffled' or 'random', got {kind!r}")
    g = torch.Generator().manual_seed(seed)
    clone = copy.deepcopy(model)
    w = clone.get_input_embeddings().weight
    with torch.no_grad():
        if kind == "shuffled":
            w.copy_(w[torch.randperm(w.shape[0], generator=g)])
        else:
            w.copy_(torch.randn(w.shape, generator=g) * w.std())
    return clone


def sentence_vectors(tokenizer, model, sentences: Sequence[str]) -> torch.Tensor:
    """Mean-pooled last-layer vectors (the pooling all-MiniLM-L6-v2 was trained with), unit length."""
    if isinstance(sentences, str) or len(sentences) == 0:
        raise TypeError("sentences must be a non-empty list of strings")
    enc = tokenizer(list(sentences), padding=True, return_tensors="pt")
    with torch.inference_mode():
        last = model(**enc).last_hidden_state
    m = enc["attention_mask"].unsqueeze(-1).float()
    v = (last * m).sum(1) / m.sum(1)
    return torch.nn.functional.normalize(v, dim=-1)


PARAPHRASES = [
    ("the cat is sleeping on the sofa", "a kitten naps on the couch"),
    ("he bought a new car yesterday", "yesterday he purchased a new vehicle"),
    ("the meeting was cancelled because of the storm", "bad weather forced them to call off the meeting"),
    ("she is learning to play the piano", "she takes piano lessons"),
    ("the stock market fell sharply today", "share prices dropped steeply today"),
    ("the children are playing football in the park", "kids kick a ball around in the park"),
    ("i need to see a doctor", "i should visit a physician"),
    ("the restaurant serves excellent italian food", "that place makes great pasta and pizza"),
]


def attention_shift(p: torch.Tensor, q: torch.Tensor) -> float:
    """Mean total-variation distance between two stacks of attention distributions (last axis sums to 1).

    0 means identical attention, 1 means disjoint; averaged over heads and query positions.
    """
    if p.shape != q.shape:
        raise ValueError(f"attention shapes differ: {tuple(p.shape)} vs {tuple(q.shape)}")
    return float(0.5 * (p - q).abs().sum(-1).mean())


def paraphrase_accuracy(tokenizer, model, pairs: Sequence[tuple[str, str]] = PARAPHRASES) -> float:
    """Share of (i, j != i) comparisons in which sentence a_i is closer to its paraphrase b_i than to b_j."""
    if len(pairs) < 2:
        raise ValueError("need at least 2 paraphrase pairs to compare against")
    a = sentence_vectors(tokenizer, model, [p[0] for p in pairs])
    b = sentence_vectors(tokenizer, model, [p[1] for p in pairs])
    sims = (a @ b.T).numpy()
    own = np.diag(sims)[:, None]
    off = ~np.eye(len(pairs), dtype=bool)
    return float((own > sims)[off].mean())


def table_swap_effects(
    tokenizer, model, sentence: str, seed: int = 0, kinds: Sequence[str] = ("shuffled", "random")
) -> dict[str, dict[str, float]]:
    """What a shuffled or random token-embedding table does to attention and to the outputs.

    For the ``"original"`` table and each of ``kinds`` (see ``with_table``): the attention shift (total variation)
    from the original at layer 0 and at the last layer, the mean cosine between the original and the new
    last-layer token vectors, and the paraphrase accuracy of the mean-pooled sentence vectors.
    """
    bad = [k for k in kinds if k not in ("shuffled", "random")]
    if bad:
        raise ValueError(f"unknown table kind(s) {bad}; use 'shuffled' and/or 'random'")
    _, base = model_attentions(tokenizer, model, sentence)
    enc = tokenizer(sentence, return_tensors="pt")
    with torch.inference_mode():
        base_last = model(**enc).last_hidden_state[0]
    out = {}
    for kind in ("original", *kinds):
        m = model if kind == "original" else with_table(model, kind, seed)
        _, att = model_attentions(tokenizer, m, sentence)
        with torch.inference_mode():
            last = m(**enc).last_hidden_state[0]
        out[kind] = {
            "shift_l0": attention_shift(att[0], base[0]),
            "shift_last": attention_shift(att[-1], base[-1]),
            "final_cos": float(torch.nn.functional.cosine_similarity(last, base_last, dim=-1).mean()),
            "paraphrase_acc": paraphrase_accuracy(tokenizer, m),
        }
    return out


def attention_flops(n: int, d: int) -> dict[str, int]:
    """Multiply-adds of one self-attention layer for n tokens of width d: projections vs scores."""
    if n < 1 or d < 1:
        raise ValueError(f"n and d must be positive, got n={n}, d={d}")
    return {"projections": 4 * n * d * d, "scores_and_mix": 2 * n * n * d}


# --- claim checks ---------------------------------------------------------------------------------


def _small_encoder():
    return data.load_encoder(MODEL)


def measure_senses(smoke: bool = False, bench: bool = True) -> dict:
    """The sense study (C10) plus, with ``bench``, the static-vs-forward benchmark (C46)."""
    tok, model = _small_encoder()
    res = _with_cost(sense_study(tok, model))
    if not bench:
        return res
    sents = [s.split() for s in FRUIT + COMPANY] * (1 if smoke else 4)
    res["bench"] = bench_lookup_vs_forward(tok, model, sents, repeats=2 if smoke else 3)
    return res


@claims.check("C10")
def check_c10(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C10: the lookup hands every occurrence the same row; only later layers tell senses apart."""
    r = result or measure_senses(smoke, bench=False)
    top = len(r["across"]) - 1
    gap0 = min(r["within_a"][0], r["within_b"][0]) - r["across"][0]
    ok = r["lookup_identical"] and r["lookup_cos"] > 1 - 1e-6
    verdict = claims.CONFIRMED if ok else claims.REFUTED
    ev = (
        f"The token-embedding rows for 'apple' were {'bitwise identical' if r['lookup_identical'] else 'NOT identical'} "
        f"in all {len(FRUIT) + len(COMPANY)} sentences (mean cosine {r['lookup_cos']:.4f}). The layer-0 output, which adds "
        f"position embeddings and LayerNorm, already differs slightly by position (across-sense cosine "
        f"{r['across'][0]:.3f}, within-minus-across gap {gap0:.3f}); at layer {top} the across-sense cosine is "
        f"{r['across'][top]:.3f} against {r['within_a'][top]:.3f} (fruit) and {r['within_b'][top]:.3f} (company)."
    )
    return claims.Verdict(
        "C10", verdict, ev, figures={"across_top": r["across"][top], "across_l0": r["across"][0], "lookup_cos": r["lookup_cos"]}
    )


def forward_flops_per_token(model, seq_len: int) -> float:
    """Floating-point operations one token costs in a forward pass of a BERT-style encoder.

    Every weight outside the embedding tables is used once per token in a multiply-add (2 FLOPs), and
    each layer's attention adds ``QK^T`` and ``AV`` over ``seq_len`` positions: ``4 · seq_len · d``.
    The lookup itself costs no arithmetic: it copies ``d`` numbers.
    """
    if seq_len <= 0:
        raise ValueError(f"seq_len must be positive, got {seq_len}")
    emb = sum(p.numel() for p in model.get_input_embeddings().parameters())
    emb += sum(p.numel() for n, p in model.named_parameters() if "embeddings" in n and "word_embeddings" not in n)
    dense = sum(p.numel() for p in model.parameters()) - emb
    cfg = model.config
    return 2.0 * dense + cfg.num_hidden_layers * 4.0 * seq_len * cfg.hidden_size


def _with_cost(res: dict) -> dict:
    """Add the forward pass's FLOPs per token for the sense-study sentences (the longest of them)."""
    if "flops_per_token" in res:
        return res
    tok, model = _small_encoder()
    seq_len = max(len(tok(s)["input_ids"]) for s in FRUIT + COMPANY)
    return {**res, "seq_len": seq_len, "flops_per_token": forward_flops_per_token(model, seq_len)}


@claims.check("C46")
def check_c46(smoke: bool = False, result: dict | None = None, min_flops: float = 1e6) -> claims.Verdict:
    """Settle C46: senses separate only after the network ran, and the network costs far more than a lookup.

    The cost side is decided from the forward pass's arithmetic per token (deterministic), against a lookup
    that does none; the measured tokens/s of both are reported in the chapter as timing figures only.
    """
    r = _with_cost(result or measure_senses(smoke, bench=False))
    top = len(r["loo_acc"]) - 1
    separates = r["loo_acc"][top] >= 0.9 and r["lookup_acc"] <= 0.5
    flops = r["flops_per_token"]
    costly = flops >= min_flops
    verdict = claims.CONFIRMED if separates and costly else claims.REFUTED
    ev = (
        f"Leave-one-out nearest-centroid accuracy at telling fruit from company 'apple': "
        f"{r['lookup_acc']:.2f} (chance) on the looked-up rows, {r['loo_acc'][0]:.2f} on the layer-0 output (where only "
        f"the position differs), {r['loo_acc'][top]:.2f} at layer {top}. "
        f"The price: each token costs the network {flops / 1e6:,.1f} million floating-point operations "
        f"(2 per weight outside the embedding tables, plus attention over {r['seq_len']} positions), while the "
        "lookup does no arithmetic at all — it copies one row. (Measured speeds are in the chapter.)"
    )
    return claims.Verdict(
        "C46", verdict, ev, figures={"acc_lookup": r["lookup_acc"], "acc_l0": r["loo_acc"][0], "acc_top": r["loo_acc"][top],
                                     "mflops_per_token": flops / 1e6},
    )


def corpus_windows(n_lee: int, n_wiki: int = 0, window: int = 24) -> list[list[str]]:
    """``n_lee`` + ``n_wiki`` windows of ``window`` words, evenly spaced over the Lee and Wikipedia corpora.

    Even spacing (rather than the first windows) spreads the contexts over many documents.
    """
    if n_lee < 0 or n_wiki < 0 or n_lee + n_wiki == 0:
        raise ValueError(f"ask for a positive number of windows, got n_lee={n_lee}, n_wiki={n_wiki}")
    out = []
    for n, docs in ((n_lee, data.lee_corpus), (n_wiki, data.wiki_corpus)):
        if n:
            all_w = windows(docs(), window)
            if n > len(all_w):
                raise ValueError(f"asked for {n} windows but the corpus has only {len(all_w)}")
            out += [all_w[i] for i in np.linspace(0, len(all_w) - 1, n).round().astype(int)]
    return out


def measure_corpus(
    smoke: bool = False, n_lee: int = 200, n_wiki: int = 100, window: int = 24, max_contexts: int = 30
) -> tuple[LayerMeasures, dict]:
    """Encode corpus windows and measure all layers: ``(LayerMeasures, occurrences)``."""
    if smoke:
        n_lee, n_wiki = min(n_lee, 60), 0
    tok, model = _small_encoder()
    sents = corpus_windows(n_lee, n_wiki, window)
    occ = occurrences(sents, min_contexts=5, max_contexts=max_contexts)
    states = word_states(sents, tok, model, progress=False)
    return measure_layers(states, occ, n_random=300 if smoke else 1000), occ


@claims.check("C11")
def check_c11(smoke: bool = False, result: LayerMeasures | None = None) -> claims.Verdict:
    """Settle C11: the "< 5%" is Ethayarajh (2019)'s; test it on our model's contextual layers.

    The paper's statistic is anisotropy-adjusted MEV (measure minus its random-word baseline); we
    decide on the centred version (what the released code's PCA computes) with a rank-matched baseline.
    """
    m = result or measure_corpus(smoke)[0]
    adj = m.adjusted()["mev_centred"][1:]
    holds = bool(np.all(adj < 0.05))
    # as stated (the BERT paper, vs Word2Vec) the claim is misattributed; the number decides the rest
    verdict = claims.CORRECTED if holds else claims.REFUTED
    ev = (
        "The result is not from the BERT paper (Devlin et al. 2019) but from Ethayarajh (2019), and it compares a "
        "word's contextual vectors with their own first principal component, not with Word2Vec. "
        f"On {m.n_words} words in {m.n_contexts} contexts, the anisotropy-adjusted MEV of our model's layers 1 to "
        f"{len(adj)} ranges from {adj.min():.3f} to {adj.max():.3f}: the under-5% finding "
        f"{'holds' if holds else 'does not hold in every layer'} here. Unadjusted, centred MEV averages "
        f"{m.mev_centred[1:].mean():.3f}, above the rank floor of {m.mev_floor:.3f} that centring alone imposes."
    )
    return claims.Verdict("C11", verdict, ev, figures={"adj_mev_max": float(adj.max()), "adj_mev_min": float(adj.min())})


def measure_qkv(sentence: str = "the cat sat on the mat because it was tired", tokenizer=None, model=None) -> dict:
    """Max absolute differences between hand-built and model layer-0 attention, full and article forms.

    ``tokenizer``/``model`` default to the bundled encoder (``MODEL``).
    """
    if (tokenizer is None) != (model is None):
        raise ValueError("pass both tokenizer and model, or neither (to use the bundled encoder)")
    tok, model = (tokenizer, model) if model is not None else _small_encoder()
    _, att = model_attentions(tok, model, sentence)
    full = layer0_qkv(tok, model, sentence)
    plain = layer0_qkv(tok, model, sentence, article_form=True)
    return {
        "diff_full": float((full["probs"] - att[0]).abs().max()),
        "diff_article": float((plain["probs"] - att[0]).abs().max()),
        "d": model.config.hidden_size,
        "heads": model.config.num_attention_heads,
        "has_bias": model.encoder.layer[0].attention.self.query.bias is not None,
    }


@claims.check("C24")
def check_c24(smoke: bool = False, result: dict | None = None, tol: float = 1e-5) -> claims.Verdict:
    """Settle C24: does Q = X W_Q (and K, V) on position-added embeddings reproduce layer 0's attention?"""
    r = result or measure_qkv()
    exact, plain = r["diff_full"] < tol, r["diff_article"] < tol
    if plain:
        verdict = claims.CONFIRMED
    elif exact:
        verdict = claims.CORRECTED
    else:
        verdict = claims.REFUTED
    ev = (
        f"Rebuilt from the weights, layer 0's attention matches the model's own to {r['diff_full']:.1e} (max abs "
        f"difference) when X is LayerNorm(token + position + segment) and each projection keeps its bias; the "
        f"article's bare form X W_Q on token + position misses by {r['diff_article']:.2f}. The projections are "
        f"{r['d']}x{r['d']} as stated, but split into {r['heads']} heads of {r['d'] // r['heads']} columns each."
    )
    return claims.Verdict("C24", verdict, ev, figures={"diff_full": r["diff_full"], "diff_article": r["diff_article"]})
