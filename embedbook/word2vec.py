"""Word2Vec trained in the book (gensim), similarity benchmarks and neighbour comparisons.

Training is deterministic: a fixed seed, one worker thread and a fixed corpus order give the
same vectors on every run (gensim's multi-threaded training does not).

Used by chapters 08_similarity (a Word2Vec space for the norm-frequency plot), 09_analogies (the
People's Daily model for Chinese analogies) and 10_word2vec (training, benchmarks, the usage map;
claim C39).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from embedbook import claims
from embedbook.similarity import Space, spearman


def train(
    corpus: Sequence[Sequence[str]],
    sg: bool = True,
    vector_size: int = 100,
    window: int = 5,
    min_count: int = 5,
    epochs: int = 5,
    seed: int = 0,
    negative: int = 5,
):
    """Train gensim Word2Vec (skip-gram when ``sg`` else CBOW) with one worker and a fixed seed.

    Returns the gensim ``Word2Vec`` model; its ``wv`` lists words most frequent first.
    """
    from embedbook.data import _need

    models = _need("gensim.models", "gensim")
    if not corpus or not any(corpus):
        raise ValueError("the corpus is empty; pass a list of token lists, e.g. data.lee_corpus()")
    if isinstance(corpus[0], str):
        raise TypeError("the corpus must be a list of token lists, not a list of strings; split each text first")
    for name, v in (("vector_size", vector_size), ("window", window), ("min_count", min_count), ("epochs", epochs)):
        if not isinstance(v, int) or v <= 0:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    sentences = [list(sent) for sent in corpus]
    model = models.Word2Vec(
        vector_size=vector_size, window=window, min_count=min_count,
        sg=int(bool(sg)), negative=negative, epochs=epochs, seed=seed, workers=1,
    )
    model.build_vocab(sentences)
    if len(model.wv) == 0:
        raise ValueError(f"no word occurs min_count={min_count} times; lower min_count or use a bigger corpus")
    model.train(sentences, total_examples=model.corpus_count, epochs=epochs)
    return model


def as_space(model) -> Space:
    """The model's vectors as a :class:`~embedbook.similarity.Space` (most frequent word first)."""
    return Space(model.wv.index_to_key, model.wv.vectors)


def counts(model) -> np.ndarray:
    """Corpus count of each word, in the model's vocabulary order."""
    return np.array([model.wv.get_vecattr(w, "count") for w in model.wv.index_to_key])


def minilm_input_space() -> Space:
    """MiniLM's input embedding table restricted to whole-word alphabetic tokens (no ``##`` pieces).

    The WordPiece vocabulary is not frequency ordered, so use wordfreq for frequencies.
    """
    from embedbook import data

    tok, model = data.load_encoder()
    table = model.embeddings.word_embeddings.weight.detach().cpu().numpy()
    vocab = tok.get_vocab()
    keep = sorted((i, w) for w, i in vocab.items() if w.isalpha() and w.isascii())
    return Space([w for _, w in keep], table[[i for i, _ in keep]])


def similarity_benchmark(space: Space, pairs: Sequence[tuple[str, str, float]]) -> dict[str, float]:
    """Spearman correlation between cosine and human scores over the pairs the space covers.

    Returns ``{"spearman", "covered", "total"}``; pairs with an unknown word are left out (and
    counted), as is usual, so always report coverage next to the correlation.
    """
    if not pairs:
        raise ValueError("no word pairs given; use data.wordsim353() or data.simlex999()")
    model, human = [], []
    for a, b, score in pairs:
        if a in space and b in space:
            model.append(float(space.unit[space.id(a)] @ space.unit[space.id(b)]))
            human.append(score)
    if len(model) < 3:
        raise ValueError(f"the space covers only {len(model)} of {len(pairs)} pairs; too few to correlate")
    return {"spearman": spearman(model, human), "covered": len(model), "total": len(pairs)}


def top_neighbours(space: Space, word: str, k: int, allowed: np.ndarray | None = None) -> list[str]:
    """The ``k`` nearest words to ``word`` by cosine, searching only rows where ``allowed`` is True."""
    i = space.id(word)
    sims = (space.unit @ space.unit[i]).astype(np.float64)
    if allowed is not None:
        sims[~allowed] = -np.inf
    sims[i] = -np.inf
    if k <= 0 or k >= np.isfinite(sims).sum():
        raise ValueError(f"k={k} must be positive and below the number of searchable words")
    part = np.argpartition(-sims, k - 1)[:k]
    order = part[np.lexsort((part, -sims[part]))]  # by score, ties by row: deterministic
    return [space.words[j] for j in order]


def neighbour_overlap(s1: Space, s2: Space, words: Sequence[str], k: int = 10) -> np.ndarray:
    """For each word, the share of its top-``k`` neighbours that two spaces agree on.

    Neighbours are searched only among words both spaces know, so a smaller vocabulary does not
    by itself lower the overlap.
    """
    if not words:
        raise ValueError("no words to compare")
    shared = sorted(set(s1.words) & set(s2.words), key=s1.index.get)  # s1's order: deterministic
    # search within the shared words only: a smaller table, and the same candidates for both spaces
    sub1 = Space(shared, s1.vectors[[s1.index[w] for w in shared]])
    sub2 = Space(shared, s2.vectors[[s2.index[w] for w in shared]])
    out = []
    for w in words:
        n1 = set(top_neighbours(sub1, w, k))
        n2 = set(top_neighbours(sub2, w, k))
        out.append(len(n1 & n2) / k)
    return np.array(out)


# --- claim C39: usage, not dictionary meaning ---------------------------------------------------


def measure_usage(smoke: bool = False, k: int = 10, min_count: int = 20, seed: int = 0) -> dict:
    """Train skip-gram on two English corpora of equal size, twice each (two seeds); compare neighbours.

    Corpus A is the Lee news corpus; corpus B is as many tokens of the Wikipedia sample. For the
    words frequent in both, the top-``k`` neighbour overlap across seeds (same corpus) is the
    noise floor; the overlap across corpora (same seed) shows what the corpus changes.
    """
    from embedbook import data

    lee = data.lee_corpus()
    n_tokens = sum(map(len, lee))
    wiki, total = [], 0
    for art in data.wiki_corpus():
        if total >= n_tokens:
            break
        wiki.append(art[: n_tokens - total])
        total += len(wiki[-1])
    epochs = 5 if smoke else 20
    spaces = {
        (name, s): as_space(train(corp, sg=True, vector_size=50, min_count=min_count, epochs=epochs, seed=seed + s))
        for name, corp in (("lee", lee), ("wiki", wiki)) for s in (0, 1)
    }
    common = [w for w in spaces[("lee", 0)].words if w in spaces[("wiki", 0)].index]
    words = [w for w in common if len(w) > 2][: (30 if smoke else 200)]
    same_lee = neighbour_overlap(spaces[("lee", 0)], spaces[("lee", 1)], words, k)
    same_wiki = neighbour_overlap(spaces[("wiki", 0)], spaces[("wiki", 1)], words, k)
    across = neighbour_overlap(spaces[("lee", 0)], spaces[("wiki", 0)], words, k)
    return {
        "words": words, "k": k, "n_tokens": n_tokens, "spaces": spaces,
        "same_lee": same_lee, "same_wiki": same_wiki, "across": across,
    }


@claims.check("C39")
def check_c39(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C39: do a word's neighbours depend on the corpus beyond training noise?"""
    r = result or measure_usage(smoke=smoke)
    floor = float(min(r["same_lee"].mean(), r["same_wiki"].mean()))
    across = float(r["across"].mean())
    lower = float((r["across"] < np.minimum(r["same_lee"], r["same_wiki"])).mean())
    verdict = claims.CONFIRMED if across < 0.5 * floor and lower > 0.5 else (
        claims.CORRECTED if across < floor else claims.REFUTED)
    evidence = (
        f"Skip-gram trained on two English corpora of {r['n_tokens']:,} tokens each (Lee news, Wikipedia sample): "
        f"for {len(r['words'])} words frequent in both, the two corpora share {across:.0%} of their top-{r['k']} "
        f"neighbours, while retraining on the same corpus with another seed keeps at least {floor:.0%}. "
        f"For {lower:.0%} of the words the cross-corpus overlap is below both same-corpus overlaps: the corpus, "
        "not the word's dictionary meaning, decides its neighbours."
    )
    return claims.Verdict("C39", verdict, evidence,
                          figures={"overlap_across": across, "overlap_same": floor, "share_lower": lower})
