"""Chapter 08, "Measuring similarity": the measurements behind C40 and C41 (their rules and checks: claims.py)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import torch

from embedbook import book, similarity, stats, timing
from embedbook.book import Result, i18n
from embedbook.book.i18n import _
from embedbook.similarity import Space


def upper_bound(x: float, floor: float) -> float:
    """A float-rounding difference as a power-of-ten bound: ``floor`` if ``x <= floor``, else the next power of
    ten above ``x``. Rounding differences at 1e-7 depend on how the BLAS kernel meets the data in memory, so they
    vary between runs; their bound does not."""
    return floor if x <= floor else float(10 ** math.ceil(math.log10(x)))


def bound_text(bound: float) -> str:
    """A bound from :func:`upper_bound` for a sentence: a power of ten as "10⁻¹²" (a decimal such as
    0.000000000001 is hard to read), anything else with one significant digit."""
    if bound == 0:
        return _("exactly 0")
    k = round(math.log10(bound))
    if k >= 0 or not math.isclose(bound, 10.0 ** k):
        return f"{bound:.1g}" if bound < 1 else f"{bound:,.0f}"
    return "10" + str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


device_words = book.device_words  # kept under this name for the tests


def space_label(name: str) -> str:
    """A space's name (:attr:`LengthFrequency.name`) for a reader: "MiniLM input" translated, the names of
    models as they are in both editions."""
    return _("MiniLM input") if name == "MiniLM input" else i18n.verbatim(name)


def neighbour_table(space: Space, words: list[str], k: int,
                    measures: tuple[str, ...] = ("cosine", "dot", "euclidean")):
    """The ``k`` nearest words of each of ``words`` under each measure: a DataFrame whose columns are
    (word, measure) and whose rows are the ranks 1…k (hide its index)."""
    import pandas as pd

    # the words are data, shown as they are in both editions; the measures' names are translated
    found = {i18n.verbatim(w): {m: [i18n.verbatim(x) for x, _s in similarity.neighbours(space, w, k, m)]
                                for m in measures} for w in words}
    label = {"cosine": _("cosine"), "dot": _("dot"), "euclidean": _("euclidean")}  # equal to the measure's name
    return pd.concat({w: pd.DataFrame({label.get(m, m): col for m, col in cols.items()}) for w, cols in found.items()},
                     axis=1)


# --- three measures, three neighbour lists -------------------------------------------------------------


@dataclass
class MetricAgreement(Result):
    """How the top-k under the dot product and Euclidean distance compare with cosine's, and where their
    neighbours sit among all vector lengths (0 = the shortest vector, 1 = the longest)."""

    n_words: int
    k: int
    overlap_dot: float  # mean share of cosine's top-k that the dot product also returns
    overlap_euclidean: float
    pct_cosine: float  # mean length percentile of the neighbours each measure returns
    pct_dot: float
    pct_euclidean: float

    def extra_glue(self) -> dict:
        longer = self.pct_dot - self.pct_cosine
        says = (_("with the lengths left in, longer vectors win") if longer >= 0.05 else
                _("here the dot product does not favour longer vectors") if longer > -0.05 else
                _("here the dot product even favours shorter vectors"))
        return {"dot_says": says}


def run_metric_agreement(space: Space, n_words: int, k: int, top: int = 10_000, seed: int = 0) -> MetricAgreement:
    """Compare the three measures' top-``k`` for ``n_words`` query words drawn from the ``top`` most frequent."""
    rng = np.random.default_rng(seed)
    words = [space.words[i] for i in rng.choice(min(top, len(space)), n_words, replace=False)]
    lengths = np.sqrt(space.sq_norms)
    pct = np.argsort(np.argsort(lengths)) / (len(lengths) - 1)  # length percentile of every word
    out: dict[str, list[float]] = defaultdict(list)
    for w in words:
        best = {m: [x for x, _ in similarity.neighbours(space, w, k, m)] for m in ("cosine", "dot", "euclidean")}
        for m in ("dot", "euclidean"):
            out[f"overlap_{m}"].append(len(set(best[m]) & set(best["cosine"])) / k)
        for m, ws in best.items():
            out[f"pct_{m}"].append(float(np.mean([pct[space.index[x]] for x in ws])))
    return MetricAgreement(n_words=n_words, k=k, **{key: float(np.mean(v)) for key, v in out.items()})


# --- C40: does a vector's length carry the word's frequency? ----------------------------------------------


@dataclass
class LengthFrequency:
    """One space: each word's vector length against its (log) frequency."""

    name: str
    frequency: str  # what the frequency is, for an axis label
    lengths: np.ndarray
    log_freq: np.ndarray
    rho: float  # Spearman correlation of length with log frequency
    anisotropy: float  # mean cosine of random pairs of words

    def binned(self, bins: int = 20) -> tuple[np.ndarray, np.ndarray]:
        """Mean length relative to the space's mean, in ``bins`` equal-count bins of frequency; returns
        ``(frequency percentile of each bin's centre, relative mean length)``."""
        order = np.argsort(self.log_freq, kind="stable")
        parts = np.array_split(order, bins)
        starts = np.cumsum([0] + [len(p) for p in parts[:-1]])
        centre = np.array([(s + len(p) / 2) / len(order) for s, p in zip(starts, parts)])
        rel = np.array([self.lengths[p].mean() for p in parts]) / self.lengths.mean()
        return centre, rel


def length_frequency(name: str, space: Space, log_freq, frequency: str, n_pairs: int = 10_000) -> LengthFrequency:
    """Spearman correlation of vector length with ``log_freq`` (one value per word), and the anisotropy."""
    log_freq = np.asarray(log_freq, dtype=np.float64)
    if log_freq.shape != (len(space),):
        raise ValueError(f"need one frequency per word: {log_freq.shape} for {len(space)} words")
    lengths = np.sqrt(space.sq_norms.astype(np.float64))
    return LengthFrequency(name, frequency, lengths, log_freq, stats.spearman(lengths, log_freq),
                           similarity.anisotropy(space.vectors, n_pairs))


@dataclass
class Norms(Result):
    """Length against frequency in three spaces, and a check that cosine ignores length."""

    spaces: list[LengthFrequency] = field(default_factory=list)
    scale_err: float = 0.0  # bound on the largest |cos(s·a, b) − cos(a, b)| over random pairs and scales s
    rho_glove_top: float = float("nan")  # GloVe's correlation within its most frequent words only
    glove_top: int = 100_000

    def rho(self, name: str) -> float:
        """The correlation of the space called ``name``."""
        return next(s.rho for s in self.spaces if s.name == name)

    def extra_glue(self) -> dict:
        out = {}
        for s in self.spaces:
            key = s.name.split()[0].lower()
            out.update({f"rho_{key}": s.rho, f"aniso_{key}": s.anisotropy, f"n_{key}": len(s.lengths)})
        return out

    def rows(self) -> list[dict]:
        """One row per space (for a table); a frequency's source stays on one line (no-break spaces), or the
        table squeezes its column to half its width."""
        return [{_("space"): space_label(s.name), _("words"): len(s.lengths),
                 _("frequency from"): _one_line(s.frequency),
                 _("Spearman ρ (length, log frequency)"): s.rho, _("anisotropy"): s.anisotropy} for s in self.spaces]


def _one_line(text: str) -> str:
    """``text`` (a message in both languages, or plain) with no-break spaces, registered for the Chinese table."""
    nbsp = (lambda t: t.replace(" ", "\u00a0"))
    if isinstance(text, i18n.Msg):
        return i18n.Msg(nbsp(text.en), nbsp(text.zh)).format()  # format() records the pair for the zh edition
    return nbsp(str(text))


def run_norms(glove: Space, w2v_model, minilm: Space, glove_top: int = 100_000, n_pairs: int = 10_000,
              seed: int = 0) -> Norms:
    """C40's measurements: GloVe (frequency = its row order), a Word2Vec model (its corpus counts) and MiniLM's
    input table (whole words, wordfreq's Zipf frequency; words wordfreq does not know are left out)."""
    from embedbook import data, word2vec

    spaces = [length_frequency("GloVe", glove, -np.log1p(np.arange(len(glove))), _("−log(1 + frequency rank)"),
                               n_pairs)]
    spaces.append(length_frequency("Word2Vec", word2vec.as_space(w2v_model), np.log(word2vec.counts(w2v_model)),
                                   _("log corpus count"), n_pairs))
    zipf = np.array([data.zipf(w) for w in minilm.words])
    known = zipf > 0
    mini = Space([w for w, k in zip(minilm.words, known) if k], minilm.vectors[known])
    spaces.append(length_frequency("MiniLM input", mini, zipf[known], _("Zipf frequency (wordfreq)"), n_pairs))
    top = min(glove_top, len(glove))
    rho_top = stats.spearman(np.sqrt(glove.sq_norms[:top]), -np.log1p(np.arange(top)))
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, len(glove), (2, 1000))
    ok = ~glove.zero[i] & ~glove.zero[j]
    err = 0.0
    for a, b in zip(glove.vectors[i[ok]].astype(np.float64), glove.vectors[j[ok]].astype(np.float64)):
        base = similarity.cosine(a, b)
        err = max(err, *(abs(similarity.cosine(s * a, b) - base) for s in (0.01, 3.0, 1000.0)))
    return Norms(spaces=spaces, scale_err=upper_bound(err, 1e-12), rho_glove_top=rho_top, glove_top=top)


# --- C41: normalise once, then inner products -------------------------------------------------------------


@dataclass
class Retrieval(Result):
    """Top-k cosine retrieval over a whole table by two routes: a table normalised once in advance, then one
    matrix-vector product per query; or the cosine computed at query time, row lengths included."""

    n_rows: int
    dim: int
    k: int
    n_queries: int
    batch: int  # queries per search call (1: one query at a time)
    device: str
    max_score_diff: float  # bound on the largest |score difference| between the routes over all top-k lists
    same_topk: int  # queries whose top-k lists are identical
    work_normalised: int  # arithmetic operations per search call, counted
    work_on_the_fly: int
    work_cached: int  # cosine with the row lengths computed once and kept
    bench_ms_normalised: float  # median ms per query, the routes timed in turn
    bench_ms_on_the_fly: float
    bench_ms_cached: float
    bench_ratio: float  # on-the-fly / normalised time, median over the interleaved rounds
    bench_ratio_cached: float
    reps: int = 0  # timed rounds
    query_rows: np.ndarray | None = None  # the table rows used as queries, in order
    routes: tuple[str, ...] = ()  # the routes, in the order they took turns
    top_ids: dict = field(default_factory=dict)  # route → (n_queries, k) row ids of its top-k, best first
    top_scores: dict = field(default_factory=dict)  # route → their cosines
    verbatim = ("device",)  # "cpu", "cuda": data (device_text is the words)

    @property
    def work_ratio(self) -> float:
        """Counted work of the on-the-fly cosine over that of the normalised route."""
        return self.work_on_the_fly / self.work_normalised

    def extra_glue(self) -> dict:
        return {"work_ratio": self.work_ratio, "work_ratio_cached": self.work_cached / self.work_normalised,
                "max_score_diff_text": bound_text(self.max_score_diff),
                "device_text": device_words(self.device),
                "saving": 1 - self.work_normalised / self.work_on_the_fly,
                "saving_cached": 1 - self.work_normalised / self.work_cached}


def retrieval_work(n: int, d: int, batch: int = 1) -> dict[str, int]:
    """Arithmetic operations of one search call with ``batch`` queries over an ``(n, d)`` table, by route.

    normalised: ``batch·n·d`` multiply-adds (one dot product per row and query). on the fly: the same, plus
    ``n·d`` for the rows' squared lengths, ``n`` square roots, ``batch·d`` for the queries' lengths, and a
    product and a division per score (``2·batch·n``). cached: the lengths are kept from an earlier pass.
    """
    dots = batch * n * d
    return {"normalised": dots, "on_the_fly": dots + n * d + n + batch * d + 2 * batch * n,
            "cached": dots + batch * d + 2 * batch * n}


def run_retrieval(table, n_queries: int, k: int, batch: int = 1, *, reps: int, seed: int = 0,
                  device: str | torch.device = "cpu") -> Retrieval:
    """Time and count the two routes (and the cached-length cosine) on ``n_queries`` rows of ``table`` as
    queries, ``batch`` queries per call, the routes timed in turn (:func:`embedbook.timing.interleaved`).

    On a CPU the routes run on one thread while they are timed: one query's search is small, and on a
    shared machine a multi-threaded small kernel measures its threads waiting for each other more than
    its work."""
    if n_queries % batch:
        raise ValueError(f"n_queries={n_queries} must be a multiple of batch={batch}")
    dev = torch.device(device)
    t = torch.as_tensor(np.asarray(table, dtype=np.float32)).to(dev)
    gen = torch.Generator().manual_seed(seed)
    rows = torch.randperm(len(t), generator=gen)[:n_queries]
    q = t[rows.to(dev)]
    unit = t / t.norm(dim=1, keepdim=True)  # the index: built once, outside the timing
    lengths = t.norm(dim=1)
    qu = q / q.norm(dim=1, keepdim=True)
    blocks = list(range(0, n_queries, batch))

    def normalised():
        return [torch.topk(qu[i:i + batch] @ unit.T, k) for i in blocks]

    def on_the_fly():
        return [torch.topk((q[i:i + batch] @ t.T) / (q[i:i + batch].norm(dim=1, keepdim=True) * t.norm(dim=1)), k)
                for i in blocks]

    def cached():
        return [torch.topk((q[i:i + batch] @ t.T) / (q[i:i + batch].norm(dim=1, keepdim=True) * lengths), k)
                for i in blocks]

    routes = {"normalised": normalised, "on_the_fly": on_the_fly, "cached": cached}
    answers = {name: fn() for name, fn in routes.items()}
    ids = {name: torch.cat([x.indices for x in a]).cpu() for name, a in answers.items()}
    scores = {name: torch.cat([x.values for x in a]).cpu() for name, a in answers.items()}
    ids_a, ids_b, sc_a, sc_b = ids["normalised"], ids["on_the_fly"], scores["normalised"], scores["on_the_fly"]
    with timing.one_cpu_thread(dev):
        times = timing.interleaved(routes, reps=reps, device=dev)
    ratios = [f / n for f, n in zip(times["on_the_fly"].times, times["normalised"].times)]
    ratios_cached = [c / n for c, n in zip(times["cached"].times, times["normalised"].times)]
    work = retrieval_work(len(t), t.shape[1], batch)
    per_query = {name: 1000 * tm.median / n_queries for name, tm in times.items()}
    return Retrieval(
        n_rows=len(t), dim=t.shape[1], k=k, n_queries=n_queries, batch=batch, device=dev.type,
        max_score_diff=upper_bound(float((sc_a - sc_b).abs().max()), 1e-6), same_topk=int((ids_a == ids_b).all(dim=1).sum()),
        work_normalised=work["normalised"], work_on_the_fly=work["on_the_fly"], work_cached=work["cached"],
        bench_ms_normalised=per_query["normalised"], bench_ms_on_the_fly=per_query["on_the_fly"],
        bench_ms_cached=per_query["cached"], bench_ratio=float(np.median(ratios)),
        bench_ratio_cached=float(np.median(ratios_cached)),
        reps=reps, query_rows=rows.numpy(), routes=tuple(routes), top_ids={name: x.numpy() for name, x in ids.items()},
        top_scores={name: x.numpy() for name, x in scores.items()},
    )
