"""Chapter 10, "Word2Vec and learned embeddings": the measurements behind C39 (their rules and checks: claims.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import torch

from embedbook import similarity, stats, word2vec
from embedbook.book import Result, i18n
from embedbook.book.i18n import _
from embedbook.similarity import Space


def token_slices(corpus: list[list[str]], n_tokens: int, parts: int = 1) -> list[list[list[str]]]:
    """``parts`` consecutive, disjoint samples of ``n_tokens`` tokens each from ``corpus`` (documents cut
    where a sample is full)."""
    out, current, total = [], [], 0
    for doc in corpus:
        while doc and len(out) < parts:
            take = doc[: n_tokens - total]
            current.append(take)
            total += len(take)
            doc = doc[len(take):]
            if total == n_tokens:
                out.append(current)
                current, total = [], 0
    if len(out) < parts:
        raise ValueError(f"the corpus holds fewer than {parts} × {n_tokens:,} tokens")
    return out


def epoch_improvement(losses: list[float]) -> float:
    """Relative drop of the training loss over the last two epochs: ``1 − mean(last two) / mean(two before)``
    (0 on a plateau)."""
    if len(losses) < 4:
        raise ValueError(f"need the losses of at least 4 epochs, got {len(losses)}")
    return float(1 - np.mean(losses[-2:]) / np.mean(losses[-4:-2]))


@dataclass
class SkipGram(Result):
    """Skip-gram with negative sampling trained pair by pair in torch (:func:`run_skipgram`)."""

    n_pairs: int  # (centre, context) pairs per epoch
    loss_first: float  # mean loss of the first epoch
    loss_last: float  # mean loss of the last epoch
    words: list = field(default_factory=list)  # the vocabulary, most frequent first (ties: first seen first)
    losses: list = field(default_factory=list)  # mean loss per epoch
    w_in: torch.Tensor = field(default=None, repr=False)  # (V, d) centre-word vectors: the embedding
    w_out: torch.Tensor = field(default=None, repr=False)  # (V, d) context-word vectors


def run_skipgram(corpus: list[list[str]], dim: int, window: int = 2, negative: int = 5, epochs: int = 2,
                 lr: float = 0.025, min_count: int = 2, seed: int = 0) -> SkipGram:
    """Skip-gram with negative sampling with word2vec.c's start, noise and learning-rate schedule, one
    :func:`embedbook.word2vec.sgns_step` per (centre, context) pair: words seen at least ``min_count`` times, most frequent first; the pairs of every
    document in order (each position, then each context word within ``window``, rare words dropped first);
    centre vectors uniform in [−0.5/d, 0.5/d), context vectors zero; ``negative`` noise words per pair drawn
    from the counts to the power 0.75 (one draw per epoch, ``torch.multinomial``); a learning rate falling
    linearly from ``lr`` to ``lr``·1e-4. One ``torch.Generator`` seeded with ``seed`` draws the start, then each
    epoch's noise. Plain SGD, on the CPU; no subsampling of frequent words and a fixed window (gensim adds
    both)."""
    for name, v in (("dim", dim), ("window", window), ("negative", negative), ("epochs", epochs),
                    ("min_count", min_count)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    corpus = word2vec._sentences(corpus)  # checked, and read once
    counts = Counter(w for doc in corpus for w in doc)
    words = [w for w, c in counts.most_common() if c >= min_count]
    if not words:
        raise ValueError(f"no word occurs min_count={min_count} times; lower min_count or use a bigger corpus")
    index = {w: i for i, w in enumerate(words)}
    pairs = []
    for doc in corpus:
        ids = [index[w] for w in doc if w in index]
        for i, c in enumerate(ids):
            pairs += [(c, ids[j]) for j in range(max(0, i - window), min(len(ids), i + window + 1)) if j != i]
    if not pairs:
        raise ValueError("the corpus gives no (centre, context) pair; use longer documents or a lower min_count")
    noise_p = torch.tensor([counts[w] for w in words], dtype=torch.float) ** 0.75
    g = torch.Generator().manual_seed(seed)
    w_in = (torch.rand(len(words), dim, generator=g) - 0.5) / dim
    w_out = torch.zeros(len(words), dim)
    losses, total = [], epochs * len(pairs)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # rows of d floats: a second thread only waits (and spins when the cores are busy)
    try:
        for epoch in range(epochs):
            noise = torch.multinomial(noise_p, len(pairs) * negative, replacement=True,
                                      generator=g).view(-1, negative)
            summed = 0.0
            for i, (c, o) in enumerate(pairs):
                step_lr = lr * max(1 - (epoch * len(pairs) + i) / total, 1e-4)
                summed += word2vec.sgns_step(w_in, w_out, c, o, noise[i], lr=step_lr)
            losses.append(summed / len(pairs))
    finally:
        torch.set_num_threads(threads)
    return SkipGram(n_pairs=len(pairs), loss_first=losses[0], loss_last=losses[-1], words=words, losses=losses,
                    w_in=w_in, w_out=w_out)


@dataclass
class Usage(Result):
    """Skip-gram on three English corpora of equal size — Lee news, a Wikipedia sample, and a second, disjoint
    Wikipedia sample — with three seeds each: how far the words' neighbours agree between seeds on one corpus,
    between two samples of one source, and between the two sources."""

    n_tokens: int
    k: int
    n_words: int  # query words, frequent in all three corpora
    n_pool: int  # words all three vocabularies share: where neighbours are searched
    epochs: int
    seeds: int
    overlap_seed: float  # mean over rounds of the lower same-corpus, two-seed overlap
    overlap_split: float  # Wikipedia sample A vs sample B, same seed
    overlap_across: float  # Lee vs Wikipedia sample A, same seed
    effect_seed: float  # mean over rounds of overlap_seed − overlap_across
    effect_seed_lo: float
    effect_seed_hi: float
    effect_split: float  # mean over rounds of overlap_split − overlap_across
    effect_split_lo: float
    effect_split_hi: float
    worst_improvement: float  # largest relative loss drop over the last two epochs, over all models
    plateau: int  # 1 if every model's loss dropped by less than the rule's threshold over its last two epochs
    words: list = field(default_factory=list)
    per_word: dict = field(default_factory=dict)  # "seed" / "split" / "across" → overlap per word, round 0
    losses: dict = field(default_factory=dict)  # (corpus, seed) → training loss per epoch
    spaces: dict = field(default_factory=dict)  # (corpus, seed) → Space restricted to the shared pool

    def examples(self, n: int = 3, min_seed: float = 0.3) -> list[str]:
        """``n`` query words whose neighbours two seeds agree on (≥ ``min_seed``) while Lee and Wikipedia differ
        most, leaving out function words (gensim's English stop-word list)."""
        from gensim.parsing.preprocessing import STOPWORDS

        rows = [(self.per_word["across"][i], i, w) for i, w in enumerate(self.words)
                if w not in STOPWORDS and self.per_word["seed"][i] >= min_seed]
        return [w for _, _, w in sorted(rows)[:n]]

    def extra_glue(self) -> dict:
        source = self.effect_split_lo >= 0.05
        return {"sampling_sentence": (
            _("Two samples of the same source agree clearly more than Lee and Wikipedia do in every round: the kind "
              "of text moves the neighbours beyond its sampling.") if source else
            _("Two samples of the same source agree hardly more than Lee and Wikipedia do in some round: at this "
              "size, a change of text and another sample of the same text cannot be told apart, so this comparison "
              "cannot say whether usage or sampling moves the neighbours."))}


def run_usage(lee: list[list[str]], wiki: list[list[str]], n_words: int, k: int, epochs: int,
              seeds: int = 3, *, n_tokens: int | None, min_count: int = 5, query_count: int = 20,
              dim: int = 50, plateau_max: float = 0.02) -> Usage:
    """Train skip-gram on Lee and on two disjoint Wikipedia samples of Lee's size, ``seeds`` seeds each, and
    compare the top-``k`` neighbours of up to ``n_words`` words seen at least ``query_count`` times in each
    corpus, searching only the words all three vocabularies (``min_count``) share. ``n_tokens`` cuts every
    corpus to that many tokens (default: all of Lee)."""
    if seeds < 2:
        raise ValueError("need at least two seeds to measure the seed noise")
    if epochs < 4:
        raise ValueError("need at least 4 epochs: the plateau check compares the last two epochs with the two before")
    n_tokens = n_tokens or sum(map(len, lee))
    (lee,) = token_slices(lee, n_tokens)
    wiki_a, wiki_b = token_slices(wiki, n_tokens, parts=2)
    corpora = {"lee": lee, "wiki A": wiki_a, "wiki B": wiki_b}
    models = {(name, s): word2vec.train(c, sg=True, vector_size=dim, min_count=min_count, epochs=epochs, seed=s,
                                        compute_loss=True)
              for name, c in corpora.items() for s in range(seeds)}
    full = {key: word2vec.as_space(m) for key, m in models.items()}
    pool = [w for w in full[("lee", 0)].words if all(w in full[(n, 0)].index for n in corpora)]
    spaces = {key: Space(pool, sp.vectors[[sp.index[w] for w in pool]]) for key, sp in full.items()}
    seen = {name: models[(name, 0)].wv for name in corpora}
    queries = [i for i, w in enumerate(pool) if len(w) > 2 and w.isalpha()
               and all(seen[n].get_vecattr(w, "count") >= query_count for n in corpora)][:n_words]

    def overlap(x, y) -> np.ndarray:
        return similarity.neighbour_overlap(spaces[x].vectors, spaces[y].vectors, queries, k)

    same, split, across, first = [], [], [], {}
    for s in range(seeds):
        nxt = (s + 1) % seeds
        o_seed = np.minimum(overlap(("lee", s), ("lee", nxt)), overlap(("wiki A", s), ("wiki A", nxt)))
        o_split = overlap(("wiki A", s), ("wiki B", s))
        o_across = overlap(("lee", s), ("wiki A", s))
        same.append(float(o_seed.mean()))
        split.append(float(o_split.mean()))
        across.append(float(o_across.mean()))
        if s == 0:
            first = {"seed": o_seed, "split": o_split, "across": o_across}
    e_seed, e_split = stats.seed_effect(same, across), stats.seed_effect(split, across)
    worst = max(epoch_improvement(m.epoch_losses) for m in models.values())
    return Usage(
        n_tokens=n_tokens, k=k, n_words=len(queries), n_pool=len(pool), epochs=epochs, seeds=seeds,
        overlap_seed=float(np.mean(same)), overlap_split=float(np.mean(split)), overlap_across=float(np.mean(across)),
        effect_seed=e_seed.mean, effect_seed_lo=e_seed.lo, effect_seed_hi=e_seed.hi,
        effect_split=e_split.mean, effect_split_lo=e_split.lo, effect_split_hi=e_split.hi,
        worst_improvement=worst, plateau=int(worst < plateau_max),
        words=[pool[i] for i in queries], per_word=first,
        losses={key: list(m.epoch_losses) for key, m in models.items()}, spaces=spaces,
    )


def plant(corpus: list[list[str]], token: str, a: str, b: str, p: float, n: int, window: int = 5,
          seed: int = 0) -> list[list[str]]:
    """Contexts for a made-up word: ``n`` short documents, each a copy of the ``window`` words either side of
    one occurrence of ``a`` (with probability ``p``: exactly ``round(p·n)`` of them) or of ``b`` (the rest),
    with that occurrence replaced by ``token``. Occurrences are drawn at random (``seed``), without repetition
    while there are enough. The corpus itself is left as it is; add the documents to it."""
    if not 0 <= p <= 1:
        raise ValueError(f"p is a probability, got {p}")
    where = {a: [], b: []}
    for i, doc in enumerate(corpus):
        for j, w in enumerate(doc):
            if w in where:
                where[w].append((i, j))
    missing = [w for w, occ in where.items() if not occ]
    if missing:
        raise ValueError(f"the corpus never contains {missing}: choose words it has")
    rng = np.random.default_rng(seed)
    out = []
    for w, count in ((a, round(p * n)), (b, n - round(p * n))):
        occ = where[w]
        for k in rng.choice(len(occ), size=count, replace=count > len(occ)):
            i, j = occ[k]
            doc = corpus[i]
            out.append(doc[max(0, j - window): j] + [token] + doc[j + 1: j + 1 + window])
    return out


def lean(space: Space, word: str, group_a: list[str], group_b: list[str]) -> float:
    """Mean cosine of ``word`` to the words of ``group_a`` minus its mean cosine to those of ``group_b``
    (words the space lacks are left out): > 0 when ``word`` leans towards ``group_a``."""
    have_a, have_b = [w for w in group_a if w in space], [w for w in group_b if w in space]
    if word not in space or not have_a or not have_b:
        raise ValueError(f"the space lacks {word!r} or every word of a group")
    v = space.vectors[space.index[word]]
    cos = lambda ws: float(np.mean([similarity.cosine(v, space.vectors[space.index[w]]) for w in ws]))  # noqa: E731
    return cos(have_a) - cos(have_b)


def lean_phrase(word: str, value: float | None, a: str = "fruit", b: str = "technology") -> str:
    """A sentence for a :func:`lean` value: which group ``word`` leans towards, or that the space lacks it
    (an :class:`~embedbook.book.i18n.Msg`: pass ``word`` as one too where it holds words)."""
    if value is None:
        return _("{word} is not in this vocabulary (the corpus is cut too short)").format(word=word)
    group = a if value > 0 else b
    group = {"fruit": _("fruit"), "technology": _("technology")}.get(group, group)
    return _("{word} leans towards the {group} words ({value:+.2f})").format(word=word, group=group, value=value)


@dataclass
class Planted(Result):
    """Skip-gram on one corpus plus planted contexts of made-up words: each made-up word takes the place of
    ``a`` in a share ``p`` of its ``n_planted`` occurrences and of ``b`` in the rest; its lean is
    cos(word, a) − cos(word, b), per p and seed."""

    verbatim = ("a", "b")  # words: the same in both editions
    a: str
    b: str
    n_tokens: int
    n_planted: int  # occurrences of each made-up word
    epochs: int
    seeds: int
    rise: float  # mean over seeds of lean(p = highest) − lean(p = lowest)
    rise_lo: float  # its smallest seed
    rise_hi: float  # its largest seed
    monotone_seeds: int  # seeds in which the lean grows with p at every step
    spread: float  # largest range of the lean over seeds at one p
    worst_improvement: float
    plateau: int
    ps: list = field(default_factory=list)
    leans: dict = field(default_factory=dict)  # p → lean per seed

    def extra_glue(self) -> dict:
        mean = [float(np.mean(self.leans[p])) for p in self.ps]
        return {"lean_first": mean[0], "lean_last": mean[-1], "p_first": self.ps[0], "p_last": self.ps[-1]}


def planted_leans(corpus: list[list[str]], a: str = "fire", b: str = "company", ps=(0.2, 0.5, 0.8), *, n: int,
                  epochs: int, dim: int = 50, seed: int) -> tuple[dict, float]:
    """One seed of the planted test: one skip-gram model on ``corpus`` plus, for each p in ``ps``, the
    :func:`plant`-ed contexts of a made-up word ``usage_k``. Returns ``({p: lean towards a rather than b},
    the model's :func:`epoch_improvement`)``."""
    extra = [d for k, p in enumerate(ps) for d in plant(corpus, f"usage_{k}", a, b, p, n, seed=100 * seed + k)]
    m = word2vec.train(corpus + extra, sg=True, vector_size=dim, epochs=epochs, seed=seed, compute_loss=True)
    sp = word2vec.as_space(m)
    return {p: lean(sp, f"usage_{k}", [a], [b]) for k, p in enumerate(ps)}, epoch_improvement(m.epoch_losses)


LEAN_RISE = 0.10  # a smaller move from the smallest share to the largest is no visible move (C39's rise_min)


@dataclass
class PlantedOnce(Result):
    """The planted test on one seed (:func:`run_planted_once`): the lesson's single draw."""

    verbatim = ("a", "b")
    a: str
    b: str
    seed: int
    n_planted: int
    ps: list = field(default_factory=list)
    leans: list = field(default_factory=list)  # the lean at each p, in order

    def extra_glue(self) -> dict:
        parts = [_("{lean:+.2f} at p = {p:g}").format(lean=x, p=p) for p, x in zip(self.ps, self.leans)]
        sep = _(", ")
        values = i18n.Msg(sep.en.join(x.en for x in parts), sep.zh.join(x.zh for x in parts))
        rise = self.leans[-1] - self.leans[0]
        monotone = all(x < y for x, y in zip(self.leans, self.leans[1:])) and rise >= LEAN_RISE
        if monotone:
            how = _("it grows with the share of '{a}' contexts at every step. Nothing but that share differs between "
                    "the made-up words, so the mix of contexts set their lean: the article's map of usage, in a "
                    "controlled form")
        elif rise >= LEAN_RISE:
            how = _("it is higher at the largest share of '{a}' contexts than at the smallest, but not at every "
                    "step, so on this seed the mix of contexts sets the lean only roughly")
        elif rise > -LEAN_RISE:
            how = _("it barely moves with the share of '{a}' contexts (by {rise:+.2f} from the smallest share to the "
                    "largest), so on this seed the mix of contexts did not visibly set the lean")
        else:
            how = _("it does not grow with the share of '{a}' contexts, so on this seed the mix of contexts did "
                    "not set the lean")
        summary = (_("With everything else held fixed, the mix of a word's contexts set which way it leant (on one "
                     "seed, {first:+.2f} at p = {p_first:g} and {last:+.2f} at p = {p_last:g}): a map of usage.")
                   if monotone else
                   _("On one seed, the mix of a made-up word's contexts did not set its lean step by step "
                     "({first:+.2f} at p = {p_first:g}, {last:+.2f} at p = {p_last:g}); the audit's seeds decide."))
        return {"lean_words": _("On seed {seed} the lean is {values}: {how}.").format(
                    seed=self.seed, values=values, how=how.format(a=self.a, rise=rise)),
                "summary": summary.format(first=self.leans[0], last=self.leans[-1], p_first=self.ps[0],
                                          p_last=self.ps[-1])}


def run_planted_once(corpus: list[list[str]], a: str = "fire", b: str = "company", ps=(0.2, 0.5, 0.8), *, n: int,
                     epochs: int, dim: int = 50, n_tokens: int | None, seed: int = 0) -> PlantedOnce:
    """The planted test on one seed, as :func:`run_planted` runs each of its seeds (``corpus`` cut to ``n_tokens``)."""
    ps = sorted(ps)
    if n_tokens:
        (corpus,) = token_slices(corpus, n_tokens)
    leans, _improvement = planted_leans(corpus, a, b, ps, n=n, epochs=epochs, dim=dim, seed=seed)
    return PlantedOnce(a=a, b=b, seed=seed, n_planted=n, ps=list(ps), leans=[leans[p] for p in ps])


def run_planted(corpus: list[list[str]], a: str = "fire", b: str = "company", ps=(0.2, 0.5, 0.8), *, n: int,
                seeds: int = 3, epochs: int, dim: int = 50, n_tokens: int | None,
                plateau_max: float = 0.02) -> Planted:
    """For each seed, one skip-gram model on ``corpus`` (cut to ``n_tokens``) plus, for each p in ``ps``, the
    :func:`plant`-ed contexts of a made-up word ``usage_p``; its lean towards ``a`` rather than ``b``
    (:func:`planted_leans`; seed 0 is the lesson's :func:`run_planted_once`)."""
    if seeds < 2 or len(ps) < 2:
        raise ValueError("need at least two seeds and two values of p")
    ps = sorted(ps)
    if n_tokens:
        (corpus,) = token_slices(corpus, n_tokens)
    leans, worst = {p: [] for p in ps}, 0.0
    for s in range(seeds):
        one, improvement = planted_leans(corpus, a, b, ps, n=n, epochs=epochs, dim=dim, seed=s)
        worst = max(worst, improvement)
        for p in ps:
            leans[p].append(one[p])
    rises = stats.seed_effect(leans[ps[-1]], leans[ps[0]])
    monotone = sum(all(leans[p][s] < leans[q][s] for p, q in zip(ps, ps[1:])) for s in range(seeds))
    return Planted(
        a=a, b=b, n_tokens=sum(map(len, corpus)), n_planted=n, epochs=epochs, seeds=seeds,
        rise=rises.mean, rise_lo=rises.lo, rise_hi=rises.hi, monotone_seeds=int(monotone),
        spread=float(max(max(v) - min(v) for v in leans.values())), worst_improvement=worst,
        plateau=int(worst < plateau_max), ps=list(ps), leans=leans,
    )


# --- tables and the map of the chapter's later sections ---------------------------------------------------


def neighbour_table(spaces: dict[str, tuple[Space, str]], k: int = 8):
    """The ``k`` nearest words of one word per column: ``spaces`` maps a column title to (space, word);
    columns whose word the space lacks are left out. A DataFrame without a meaningful index (hide it)."""
    import pandas as pd

    return pd.DataFrame({title: [x for x, _ in similarity.neighbours(sp, w, k)]
                         for title, (sp, w) in spaces.items() if w in sp})


def _name(name: str) -> i18n.Msg:
    """A space's name (a model's, "skip-gram (en)") in both editions: its Chinese from this run or the
    catalogs, else the name as it is."""
    return name if isinstance(name, i18n.Msg) else i18n.Msg(name, i18n.translate_text(name))


def run_benchmarks(spaces: dict[str, Space], reference: str, check: str):
    """WordSim-353 and SimLex-999 scored on every space of ``spaces`` (Spearman ρ between cosine and the
    human scores over the pairs each covers), plus the ``reference`` space scored again on exactly the pairs
    the ``check`` space covers. Returns a DataFrame with one row per (set, space): ``set``, ``space``,
    ``Spearman ρ`` and ``pairs covered`` ("covered/total")."""
    import pandas as pd

    from embedbook import data

    rows = []
    for set_name, pairs in (("WordSim-353", data.wordsim353()), ("SimLex-999", data.simlex999())):
        covered = [p for p in pairs if p[0] in spaces[check] and p[1] in spaces[check]]
        scored = [(name, sp, pairs) for name, sp in spaces.items()]
        scored.append((_("{reference}, {check}'s pairs").format(reference=_name(reference), check=_name(check)),
                       spaces[reference], covered))
        for name, sp, ps in scored:
            r = similarity.similarity_benchmark(sp, ps)
            rows.append({_("set"): set_name, _("space"): name, "Spearman ρ": r["spearman"],
                         _("pairs covered"): f"{r['covered']:,}/{r['total']:,}"})
    return pd.DataFrame(rows)


def run_agreement(spaces: dict[str, Space], n_words: int, k: int):
    """The share of top-``k`` neighbours each pair of ``spaces`` agrees on, over the ``n_words`` most frequent
    shared words longer than two letters (in the first space's order), searching only the words both know
    (:func:`embedbook.similarity.common_rows`). A symmetric DataFrame with 1.0 on the diagonal."""
    import pandas as pd

    names = list(spaces)
    agree = pd.DataFrame(1.0, index=names, columns=names)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared, ta, tb = similarity.common_rows(spaces[a], spaces[b])
            queries = [j for j, w in enumerate(shared) if len(w) > 2][:n_words]
            agree.loc[a, b] = agree.loc[b, a] = float(similarity.neighbour_overlap(ta, tb, queries, k).mean())
    return agree


MAP_GROUPS = {"country, capital": "capital-world", "family word": "family",
              "adjective, comparative": "gram3-comparative", "verb, past tense": "gram7-past-tense",
              "noun, plural": "gram8-plural"}


def map_label(group: str) -> str:
    """A :data:`MAP_GROUPS` label as the map's legend shows it (an :class:`~embedbook.book.i18n.Msg`)."""
    return {"country, capital": _("country, capital"), "family word": _("family word"),
            "adjective, comparative": _("adjective, comparative"), "verb, past tense": _("verb, past tense"),
            "noun, plural": _("noun, plural")}.get(group, group)


def map_points(space: Space, n_words: int, groups: dict[str, str] = MAP_GROUPS):
    """Words of a few sections of the analogy set (``n_words`` in all, evenly over ``groups``: label →
    section) and their first two principal components in ``space``. Returns (words, group labels, xy)."""
    secs = similarity.read_analogies()
    words, labels = [], []
    for label, sec in groups.items():
        seen = list(dict.fromkeys(w for q in secs[sec] for w in q if w in space and w not in words))
        take = seen[: n_words // len(groups)]
        words += take
        labels += [label] * len(take)
    X = space.vectors[[space.id(w) for w in words]].astype(np.float64)
    X -= X.mean(axis=0)
    xy = X @ np.linalg.svd(X, full_matrices=False)[2][:2].T
    return words, labels, xy


def neighbours_sentence(table, n: int = 3) -> str:
    """One sentence naming the first ``n`` neighbours of each column of a :func:`neighbour_table` (an
    :class:`~embedbook.book.i18n.Msg`)."""
    parts = [_("{column}: {words}").format(column=_name(col), words=", ".join(str(x) for x in table[col][:n]))
             for col in table.columns]
    if not parts:
        return _("None of these words is in this vocabulary (the corpus is cut too short).")
    joined = i18n.Msg("; ".join(p.en for p in parts), _("; ").zh.join(p.zh for p in parts))
    return _("The {n} nearest words — {parts}.").format(n=n, parts=joined)


# --- what the pages show, built here so that their cells call no translation ---------------------------------------


def english_models(wiki: list[list[str]], dim: int, epochs: int) -> dict:
    """Skip-gram and CBOW trained on ``wiki`` with :func:`embedbook.word2vec.train` (seed 0, one worker), keyed by
    their names in the current edition ("skip-gram (en)", "CBOW (en)": :class:`~embedbook.book.i18n.Msg`, equal to
    the English name)."""
    return {_("skip-gram (en)"): word2vec.train(wiki, sg="skipgram", vector_size=dim, epochs=epochs, seed=0),
            _("CBOW (en)"): word2vec.train(wiki, sg="cbow", vector_size=dim, epochs=epochs, seed=0)}


def zh_glove_table(zh: Space, glove: Space, words: list[str], k: int = 8):
    """:func:`neighbour_table` of ``words`` in the Chinese space, and of *apple* in GloVe (its column named in the
    current edition)."""
    columns = {w: (zh, w) for w in words}
    columns[_("apple (GloVe)")] = (glove, "apple")
    return neighbour_table(columns, k=k)


def examples_table(usage: Usage, n: int = 3, k: int = 6):
    """The ``k`` nearest words of :meth:`Usage.examples` in Lee and in the first Wikipedia sample (seed 0), one
    column per (word, corpus), titled in the current edition; the index hidden (a pandas Styler)."""
    corpora = {"lee": _("lee"), "wiki A": _("wiki A")}
    columns = {_("{word} — {corpus}").format(word=w, corpus=name): (usage.spaces[(corpus, 0)], w)
               for w in usage.examples(n) for corpus, name in corpora.items()}
    return neighbour_table(columns, k=k).style.hide(axis="index")


def _label_spots(ax, xy: np.ndarray, candidates: list[int], words: list[str], per_group: int,
                 groups: np.ndarray, **text) -> list:
    """Name up to ``per_group`` points of each group among ``candidates`` (in order of preference) where a label
    overlaps no label already drawn and covers no point but its own: four spots are tried around each point
    (right, left, above, below), measured in display pixels; a point with no free spot is left unnamed."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    pts = ax.transData.transform(xy)
    inside = ax.get_window_extent(renderer).shrunk(0.98, 0.98)  # labels stay within the axes
    legend = ax.get_legend()
    boxes = [legend.get_window_extent(renderer)] if legend else []  # ... and off the legend
    drawn, named = [], {g: 0 for g in dict.fromkeys(groups.tolist())}
    for i in candidates:
        if named[groups[i]] >= per_group:
            continue
        for dx, dy, ha, va in ((5, 0, "left", "center"), (-5, 0, "right", "center"), (0, 5, "center", "bottom"),
                               (0, -5, "center", "top")):
            t = ax.annotate(words[i], xy[i], xytext=(dx, dy), textcoords="offset points", ha=ha, va=va, **text)
            box = t.get_window_extent(renderer).expanded(1.08, 1.15)
            others = np.delete(pts, i, axis=0)
            covers = ((others[:, 0] > box.x0) & (others[:, 0] < box.x1) & (others[:, 1] > box.y0)
                      & (others[:, 1] < box.y1)).any()
            within = inside.x0 < box.x0 and box.x1 < inside.x1 and inside.y0 < box.y0 and box.y1 < inside.y1
            if within and not covers and not any(box.overlaps(b) for b in boxes):
                boxes.append(box)
                drawn.append(t)
                named[groups[i]] += 1
                break
            t.remove()
    return drawn


def map_chart(words: list[str], groups: list[str], xy: np.ndarray, per_group: int = 3):
    """The map of :func:`map_points`: one colour per group, and up to ``per_group`` words of each named where a
    label has room (the points farthest from the middle first, so that the named words spread over the map)."""
    from matplotlib import patheffects

    from embedbook import plotting

    groups = np.array(groups)
    fig, ax = plotting.subplots(figsize=(7.5, 6))
    for g in dict.fromkeys(groups.tolist()):
        m = groups == g
        ax.scatter(xy[m, 0], xy[m, 1], s=12, alpha=0.55, label=map_label(g))
    ax.set_xlabel(_("principal component 1"))
    ax.set_ylabel(_("principal component 2"))
    ax.set_title(_("{n} GloVe words, first two principal components (a few named per group)").format(n=len(words)))
    ax.legend(fontsize=9, loc="best")
    order = list(np.argsort(-np.linalg.norm(xy - xy.mean(axis=0), axis=1)))
    _label_spots(ax, xy, order, words, per_group, groups, fontsize=9,
                 path_effects=[patheffects.withStroke(linewidth=3, foreground="white")])
    return fig
