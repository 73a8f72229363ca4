"""Chapter 07, "Choosing the dimension": the width sweep (C17), the cost of attention counted (C18) and the
widths published models use (C42).

Their rules and checks are in the chapter's claims.py."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.utils.flop_counter import FlopCounterMode

from embedbook import data, lm, sizing, stats, timing
from embedbook.book import Result, i18n
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED
from embedbook.book.i18n import _

# --- C17: a sweep over the width ------------------------------------------------------------------------


@dataclass
class Sweep(Result):
    """One small LM per width and seed, each trained to its validation plateau on the same small corpus."""

    widths: list[int]
    seeds: list[int]
    n_docs: int
    vocab: int
    train_tokens: int
    val_tokens: int
    unigram: float  # validation loss (nats) of the add-one unigram model: the trivial baseline
    best_loss: list[list[float]]  # [width][seed] best validation loss (nats), whole validation split
    best_step: list[list[int]]
    steps_run: list[list[int]]
    plateau: list[list[int]]  # 1 if early stopping found the plateau
    curves: list[list[tuple[list[int], list[float]]]]  # [width][seed] (steps, validation loss)
    params: list[int]  # all parameters of the model at each width (the tied table counted once)
    emb_params: list[int]
    flops_per_token: list[int]  # forward FLOPs per token at each width (two per weight multiplied, plus attention)
    min_steps: int = 0  # no run stopped before this step
    context: int = 32  # tokens per scored validation window (the bootstrap's block)
    val_token_loss: list[list[list[float]]] = field(default_factory=list)  # [width][seed][token] at the best weights
    bench_tokens_per_s: list[float] = field(default_factory=list)  # training throughput (illustration)

    def mean_loss(self) -> list[float]:
        """Mean best validation loss over seeds, per width."""
        return [float(np.mean(r)) for r in self.best_loss]

    def opt_index(self) -> int:
        """Index of the width with the lowest mean best validation loss."""
        return int(np.argmin(self.mean_loss()))

    def effect(self, i: int) -> stats.SeedEffect:
        """Per-seed loss of width ``i`` minus that of the best width; for the best width itself, minus the
        runner-up (negative: it beats the runner-up)."""
        j = self.opt_index()
        if i == j:
            means = self.mean_loss()
            j = min((k for k in range(len(self.widths)) if k != i), key=lambda k: means[k])
        return stats.seed_effect(self.best_loss[i], self.best_loss[j])

    def token_effect_ci(self, i: int, reps: int = 2000) -> tuple[float, float]:
        """95 % block-bootstrap interval (blocks = the scored validation windows) of the mean per-token loss
        difference, averaged over seeds, between width ``i`` and the width :meth:`effect` compares it with: the
        sampling error of the validation text, which the seed spread does not see."""
        j = self.opt_index()
        if i == j:
            means = self.mean_loss()
            j = min((k for k in range(len(self.widths)) if k != i), key=lambda k: means[k])
        a, b = np.mean(self.val_token_loss[i], axis=0), np.mean(self.val_token_loss[j], axis=0)
        return stats.bootstrap_mean_ci(a - b, block=self.context, reps=reps)

    def extra_glue(self) -> dict:
        m = self.mean_loss()
        j = self.opt_index()
        return {
            "d_min": self.widths[0], "d_max": self.widths[-1], "d_opt": self.widths[j], "n_seeds": len(self.seeds),
            "ppl_min": math.exp(m[0]), "ppl_opt": math.exp(m[j]), "ppl_max": math.exp(m[-1]),
            "ppl_unigram": math.exp(self.unigram), "params_min": self.params[0], "params_max": self.params[-1],
            "params_ratio": self.params[-1] / self.params[0],
            "flops_ratio": self.flops_per_token[-1] / self.flops_per_token[0],
            "steps_min": min(min(r) for r in self.steps_run), "steps_max": max(max(r) for r in self.steps_run),
        }


def forward_flops_per_token(model: lm.TinyLM) -> int:
    """Forward FLOPs per token of a :class:`~embedbook.lm.TinyLM`: two per weight of every matrix the token is
    multiplied by (the block's projections and MLP, the output head), plus attention's ``4·T·d`` per layer over
    a full window of ``T`` tokens (the table lookup itself multiplies nothing)."""
    weights = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))
    return 2 * weights + 4 * model.cfg.n_layers * model.cfg.context * model.cfg.d_model


def run_jobs(fn, jobs: list, workers: int = 1) -> list:
    """``[fn(job) for job in jobs]``, spread over ``workers`` fresh processes when ``workers > 1``.

    Each worker is spawned (not forked), runs torch on one thread and takes the next job when it is free.
    Every job seeds itself, so the results are the same, bit for bit, as in one process; only the wall time
    changes. ``fn`` must be a module-level function (workers import it by name).
    """
    if workers <= 1 or len(jobs) <= 1:
        return [fn(job) for job in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=torch.set_num_threads,
                             initargs=(1,)) as pool:
        return list(pool.map(fn, jobs))


@torch.no_grad()
def token_losses(model: lm.TinyLM, ids: torch.LongTensor) -> list[float]:
    """Next-token loss (nats) of every scored position of ``ids``, in the consecutive non-overlapping windows that
    :func:`embedbook.lm.evaluate` scores (their mean is its result)."""
    T, dev = model.cfg.context, next(model.parameters()).device
    starts = range(0, len(ids) - T, T)
    x = torch.stack([ids[s : s + T] for s in starts]).to(dev)
    y = torch.stack([ids[s + 1 : s + T + 1] for s in starts]).to(dev)
    was = model.training
    model.eval()
    logits = model(x)
    model.train(was)
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                             reduction="none").cpu().tolist()


def lee_docs(n_docs: int, vocab_size: int = 1000) -> tuple[lm.Vocab, torch.Tensor, torch.Tensor]:
    """``(vocab, train_ids, val_ids)`` of the first ``n_docs`` documents of the Lee corpus (validation: the last
    tenth), the sweep's deliberately small corpus."""
    sents = data.lee_corpus()[:n_docs]
    vocab = lm.Vocab.build(sents, vocab_size)
    return (vocab, *lm.split_ids(vocab.encode(sents)))


def _fit(job: dict) -> tuple[lm.TinyLM, lm.History]:
    """Build the job's TinyLM from its seed and train it to its plateau (best weights restored)."""
    torch.manual_seed(job["seed"])
    model = lm.TinyLM(lm.LMConfig(**job["config"])).to(job["device"])
    h = lm.train(model, job["train_ids"], job["val_ids"], seed=job["seed"], progress=False, **job["train"])
    return model, h


def _train_width(job: dict) -> dict:
    """Train one tied TinyLM of ``job['d']`` from ``job['seed']`` to its plateau; a job of :func:`run_sweep`."""
    model, h = _fit(job)
    return {"loss": h.best_val_loss, "step": h.best_step, "run": h.steps_run, "plateau": int(h.plateau),
            "curve": (list(h.steps), list(h.val_loss)), "params": model.num_params(),
            "emb": model.num_params("embedding"), "flops": forward_flops_per_token(model), "speed": h.tokens_per_s,
            "tokens": token_losses(model, job["val_ids"])}


def _jobs(widths: list[int], seeds: list[int], n_docs: int, vocab_size: int, context: int, n_layers: int,
          n_heads: int, batch_size: int, lr: float, eval_every: int, patience: int, min_steps: int, max_steps: int,
          device) -> tuple[list[dict], lm.Vocab, torch.Tensor, torch.Tensor]:
    """One job per width and seed (the widest first, which keeps the workers busy), and the corpus they share."""
    vocab, train_ids, val_ids = lee_docs(n_docs, vocab_size)
    train = dict(steps=max_steps, batch_size=batch_size, lr=lr, eval_every=eval_every, patience=patience,
                 min_steps=min_steps)
    jobs = [dict(d=d, seed=seed, device=torch.device(device), train_ids=train_ids, val_ids=val_ids, train=train,
                 config=dict(vocab_size=len(vocab), d_model=d, n_layers=n_layers, n_heads=n_heads, context=context,
                             dropout=0.0))
            for d in reversed(widths) for seed in seeds]
    return jobs, vocab, train_ids, val_ids


def run_width(d: int, seed: int, *, n_docs: int, vocab_size: int = 1000, context: int = 32, n_layers: int = 1,
              n_heads: int = 2, batch_size: int = 16, lr: float = 3e-3, eval_every: int = 20, patience: int = 3,
              min_steps: int, max_steps: int, device: str | torch.device = "cpu") -> tuple[lm.TinyLM, lm.History]:
    """One run of :func:`run_sweep`: the tied TinyLM of width ``d`` built from ``seed`` and trained on the first
    ``n_docs`` Lee documents to its validation plateau, exactly as the sweep trains it. Returns the model (best
    weights restored) and its :class:`~embedbook.lm.History`."""
    jobs, *_ = _jobs([d], [seed], n_docs, vocab_size, context, n_layers, n_heads, batch_size, lr, eval_every,
                     patience, min_steps, max_steps, device)
    return _fit(jobs[0])


def run_sweep(widths: list[int], seeds: list[int], *, n_docs: int, vocab_size: int = 1000,
              context: int = 32, n_layers: int = 1, n_heads: int = 2, batch_size: int = 16, lr: float = 3e-3,
              eval_every: int = 20, patience: int = 3, min_steps: int, max_steps: int,
              device: str | torch.device = "cpu", workers: int = 1) -> Sweep:
    """Train a tied :class:`~embedbook.lm.TinyLM` (no dropout, so nothing masks overfitting) at each width
    and seed on the first ``n_docs`` documents of the Lee corpus, each to its validation plateau
    (early stopping restores the best weights; the whole validation split is scored at every evaluation).
    Each run is :func:`run_width`'s. ``workers`` CPU processes share the runs (:func:`run_jobs`; on a GPU the runs
    stay in this process).
    """
    if len(widths) < 3 or sorted(widths) != list(widths):
        raise ValueError("give at least three widths in increasing order")
    jobs, vocab, train_ids, val_ids = _jobs(widths, seeds, n_docs, vocab_size, context, n_layers, n_heads, batch_size,
                                            lr, eval_every, patience, min_steps, max_steps, device)
    dev = torch.device(device)
    out = run_jobs(_train_width, jobs, workers if dev.type == "cpu" else 1)
    runs = {(j["d"], j["seed"]): o for j, o in zip(jobs, out)}
    table = {k: [[runs[d, s][k] for s in seeds] for d in widths]
             for k in ("loss", "step", "run", "plateau", "curve", "tokens")}
    first = [runs[d, seeds[0]] for d in widths]
    return Sweep(
        widths=list(widths), seeds=list(seeds), n_docs=n_docs, vocab=len(vocab), train_tokens=len(train_ids),
        val_tokens=len(val_ids), unigram=lm.unigram_loss(train_ids, val_ids, len(vocab)), best_loss=table["loss"],
        best_step=table["step"], steps_run=table["run"], plateau=table["plateau"], curves=table["curve"],
        params=[r["params"] for r in first], emb_params=[r["emb"] for r in first],
        flops_per_token=[r["flops"] for r in first], min_steps=min_steps,
        bench_tokens_per_s=[r["speed"] for r in first], context=context, val_token_loss=table["tokens"],
    )


# --- C18: the cost of attention, counted ------------------------------------------------------------------


def counted_attention_flops(n: int, d: int, project: bool = True) -> int:
    """FLOPs of one single-head self-attention layer over ``n`` tokens of width ``d``, counted by torch's
    ``FlopCounterMode`` while it runs (on the CPU): Q, K, V and output projections when ``project``, the
    scores ``Q Kᵀ`` and the mix ``A V``."""
    x = torch.zeros(n, d)
    w = torch.zeros(d, d)
    with FlopCounterMode(display=False) as counter:
        q, k, v = (x @ w, x @ w, x @ w) if project else (x, x, x)
        a = torch.softmax(q @ k.T / math.sqrt(d), dim=-1) @ v
        if project:
            a @ w
    return int(counter.get_total_flops())


@dataclass
class AttentionCost(Result):
    """Counted FLOPs of attention over sequence lengths and widths, fitted exponents, and the share of the
    projections in a whole layer at the sizes the article has in mind."""

    ns: list[int]
    ds: list[int]
    n_fixed: int
    d_fixed: int
    flops_n: list[int]  # QKᵀ and AV only, over ns at d_fixed
    flops_d: list[int]  # the same over ds at n_fixed
    exp_n: float
    exp_d: float
    counter_matches: int  # 1 if torch's count equals sizing.attention_flops at every size, with and without projections
    article_n: int
    article_d: int
    proj_share_article: float  # projections' share of a layer at (article_n, article_d), by the confirmed formula
    crossover_d: float  # d above which the projections outweigh the n²·d terms at article_n (= n / 2)
    contexts: list[int] = field(default_factory=list)  # the declared context lengths (PUBLISHED_CONTEXTS)
    context_shares: list[float] = field(default_factory=list)  # projections' share of a layer at each, d = article_d
    n_proj_dominant: int = 0  # contexts at which the projections are more than half of the layer
    bench_ns: list[int] = field(default_factory=list)
    bench_seconds: list[float] = field(default_factory=list)  # best time of softmax(QKᵀ)V per bench n (illustration)
    bench_exp_n: float = 0.0

    def extra_glue(self) -> dict:
        out = {"crossover_n": 2 * self.article_d, "n_contexts": len(self.contexts)}
        if self.contexts:
            out.update(share_short=self.context_shares[0], share_long=self.context_shares[-1],
                       context_min=self.contexts[0], context_max=self.contexts[-1])
        if self.bench_ns:
            out.update(timed_n_min=self.bench_ns[0], timed_n_max=self.bench_ns[-1])
        return out


# The context lengths C18 is judged over, declared before counting: the training contexts of the decoder models in
# the book's configuration table that state one (model, context, bib key).
PUBLISHED_CONTEXTS: list[tuple[str, int, str]] = [
    ("LLaMA-7B", 2048, "touvron2023llama"), ("Llama-2-70B", 4096, "touvron2023llama2"),
    ("Mistral-7B", 8192, "jiang2023mistral"), ("Qwen2-7B", 32768, "yang2024qwen2"),
    ("Llama-3.1-8B", 131072, "dubey2024llama3"),
]


def run_attention_cost(ns: list[int], ds: list[int], n_fixed: int, d_fixed: int, *, article_n: int = 2048,
                       article_d: int = 4096, bench_ns: list[int] | None, bench_d: int = 64,
                       reps: int = 5) -> AttentionCost:
    """Count attention FLOPs with torch over ``ns`` (at ``d_fixed``) and ``ds`` (at ``n_fixed``), fit the
    exponents, compare every count with :func:`embedbook.sizing.attention_flops`, and time the score-and-mix
    part at ``bench_ns`` (an illustration: timings decide nothing here)."""
    flops_n = [counted_attention_flops(n, d_fixed, project=False) for n in ns]
    flops_d = [counted_attention_flops(n_fixed, d, project=False) for d in ds]
    pairs = [(n, d_fixed) for n in ns] + [(n_fixed, d) for d in ds]
    matches = all(
        counted_attention_flops(n, d, project=p) == sizing.attention_flops(n, d, project=p)["total"]
        for n, d in pairs for p in (False, True)
    )
    art = sizing.attention_flops(article_n, article_d)
    contexts = sorted(n for _, n, _ in PUBLISHED_CONTEXTS)
    shares = [sizing.attention_flops(n, article_d) for n in contexts]
    shares = [p["projections"] / p["total"] for p in shares]
    out = AttentionCost(
        ns=list(ns), ds=list(ds), n_fixed=n_fixed, d_fixed=d_fixed, flops_n=flops_n, flops_d=flops_d,
        exp_n=stats.power_law_exponent(ns, flops_n), exp_d=stats.power_law_exponent(ds, flops_d),
        counter_matches=int(matches), article_n=article_n, article_d=article_d,
        proj_share_article=art["projections"] / art["total"], crossover_d=article_n / 2,
        contexts=contexts, context_shares=shares, n_proj_dominant=sum(x > 0.5 for x in shares),
    )
    if bench_ns:
        gen = torch.Generator().manual_seed(0)
        xs = {n: torch.randn(n, bench_d, generator=gen) for n in bench_ns}
        fns = {n: (lambda x=xs[n]: torch.softmax(x @ x.T / math.sqrt(bench_d), dim=-1) @ x) for n in bench_ns}
        t = timing.interleaved(fns, reps=reps)
        out.bench_ns, out.bench_seconds = list(bench_ns), [t[n].best for n in bench_ns]
        out.bench_exp_n = stats.power_law_exponent(bench_ns, out.bench_seconds)
    return out


# --- C42: the widths real models use ----------------------------------------------------------------------

# Static word-vector sets and their released widths: (name, d, bib key). The language models come from
# embedbook.sizing.MODELS; the installed MiniLM's width is read from its config file.
STATIC_VECTORS: list[tuple[str, int, str]] = [
    ("word2vec GoogleNews", 300, "mikolov2013distributed"),
    ("GloVe 6B 50d (the book's vectors)", 50, "pennington2014glove"),
    ("GloVe 6B 100d", 100, "pennington2014glove"),
    ("GloVe 6B 200d", 200, "pennington2014glove"),
    ("GloVe 6B 300d", 300, "pennington2014glove"),
]


@dataclass
class Widths(Result):
    """Model and vector widths from published configurations (MiniLM's from its installed config)."""

    rows: list[tuple[str, int, str]]  # (name, d, source)
    lo: int
    hi: int
    n_models: int
    n_in_range: int
    share_in_range: float
    minilm_d: int  # read from the installed config.json

    def outside(self) -> list[tuple[str, int, str]]:
        """The rows outside ``[lo, hi)``."""
        return [r for r in self.rows if not self.lo <= r[1] < self.hi]


C42_LO, C42_HI = 100, 10_000  # 几百到几千: hundreds to thousands


def width_label(name: str) -> str:
    """A width's name for a reader (the C42 figure, the box): the descriptive names translated, the names of
    models and vector sets as they are in both editions."""
    described = {"GloVe 6B 50d (the book's vectors)": _("GloVe 6B 50d (the book's vectors)"),
                 "MiniLM-L6 (installed config)": _("MiniLM-L6 (installed config)")}
    return described[name] if name in described else i18n.verbatim(name)


def run_widths(lo: int = C42_LO, hi: int = C42_HI) -> Widths:
    """Collect the widths of :data:`embedbook.sizing.MODELS`, the static vector sets and the installed
    MiniLM, and count how many lie in ``[lo, hi)`` (the default range is C42's, counted from its sources)."""
    cfg = json.loads((data.minilm_path() / "config.json").read_text(encoding="utf-8"))
    minilm_d = int(cfg["hidden_size"])
    rows = [(m.name, m.d, m.source) for m in sizing.MODELS if not m.name.startswith("MiniLM")]
    rows += [("MiniLM-L6 (installed config)", minilm_d, "wang2020minilm"), *STATIC_VECTORS]
    rows.sort(key=lambda r: r[1])
    inside = sum(lo <= d < hi for _, d, _ in rows)
    return Widths(rows=rows, lo=lo, hi=hi, n_models=len(rows), n_in_range=inside, share_in_range=inside / len(rows),
                  minilm_d=minilm_d)


# --- the chapter's summary: one line per claim and outcome, chosen by the verdict ----------------------------

SUMMARY: dict[str, dict[str, str]] = {  # messages (_()): each edition glues its own
    "C17": {
        CONFIRMED: _("On little text the narrowest model lost to a wider one on every seed, beyond the validation "
        "text's sampling error: too small a dimension limits a model."),
        REFUTED: _("On little text the narrowest model was the best on every seed: too small a dimension did not limit "
        "it here."),
        INCONCLUSIVE: _("On little text the sweep did not settle whether the narrowest model is limited: a run fell "
        "short of its plateau, the margin over the unigram model was too small, or the difference stayed inside "
        "the seed spread or the validation text's sampling error."),
    },
    "C18": {
        CONFIRMED: _("The counts grow as the square of the length and linearly in the width, and the projections stay "
        "minor at every published context length."),
        CORRECTED: _("The article's cost is right for the attention products, but a whole layer also pays for its "
        "projections, and at the shorter published context lengths (shorter than twice the width) they are most "
        "of it."),
        REFUTED: _("The counted growth is not the one the article states."),
        INCONCLUSIVE: _("Torch's counter and the formula disagreed, so the count is in doubt."),
    },
    "C42": {
        CONFIRMED: _("The bulk of published widths lie between a hundred and ten thousand; small static vectors fall "
        "below and the widest language models above."),
        CORRECTED: _("Most, but not the bulk, of published widths lie between a hundred and ten thousand."),
        REFUTED: _("Most published widths lie outside a hundred to ten thousand."),
        INCONCLUSIVE: _("Too few widths were listed to say which are common."),
    },
}
