"""Chapter 14, "Scaling the embedding layer": an n-gram table kept in host memory (C25, decided from the SCONE
paper with our miniature as an illustration) and adaptive input embeddings (C26, measured).

Their rules and checks are in the chapter's claims.py."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import nn

from embedbook import data, lm, ngram, stats
from embedbook.book import Result, claims
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED
from embedbook.book.i18n import _
from embedbook.chapters.ch07_dimension.measure import run_jobs  # the runs, shared over worker processes

ARMS = ("full", "adaptive", "reversed", "ngram")
LABELS = {
    "full": _("full table (every id $d$ wide)"),
    "adaptive": _("adaptive, frequent ids wide"),
    "reversed": _("adaptive, frequent ids narrow"),
    "ngram": _("full table + bigram table"),
}


@dataclass
class Scaling(Result):
    """Small LMs that differ only in their input embedding, each trained to its validation plateau per seed."""

    seeds: list[int]
    n_docs: int
    vocab: int
    d_model: int
    train_tokens: int
    val_tokens: int
    unigram: float  # validation loss (nats) of the add-one unigram model
    cutoffs: list[int]
    dims: list[int]  # band widths of the adaptive input (frequent band first)
    ngram_rows: int  # rows of the bigram table (the zero row not counted)
    ngram_coverage: float  # share of validation positions whose bigram is in the table
    best_loss: dict[str, list[float]]  # arm -> per-seed best validation loss (nats), whole validation split
    steps_run: dict[str, list[int]]
    plateau: dict[str, list[int]]
    curves: dict[str, list[tuple[list[int], list[float]]]]  # arm -> per seed (steps, validation loss)
    input_params: dict[str, int]  # parameters of each input embedding (the untied output head is the same for all)
    table_sizes: list[int] = field(default_factory=list)  # n-gram table sizes whose bytes are counted
    device_bytes: list[int] = field(default_factory=list)  # token table (accelerator side) at each size
    host_bytes: list[int] = field(default_factory=list)  # n-gram table (CPU side) at each size

    def mean(self, arm: str) -> float:
        """Mean best validation loss of ``arm`` over seeds."""
        return sum(self.best_loss[arm]) / len(self.best_loss[arm])

    def effect(self, arm: str, against: str = "full") -> stats.SeedEffect:
        """Per-seed loss of ``arm`` minus that of ``against`` (nats; negative: ``arm`` is better)."""
        return stats.seed_effect(self.best_loss[arm], self.best_loss[against])

    def extra_glue(self) -> dict:
        out = {"n_seeds": len(self.seeds), "ppl_unigram": math.exp(self.unigram),
               "saving": self.input_params["full"] / self.input_params["adaptive"],
               "device_kb": self.device_bytes[-1] / 1e3 if self.device_bytes else 0.0,
               "host_kb_max": self.host_bytes[-1] / 1e3 if self.host_bytes else 0.0,
               "table_rows_max": self.table_sizes[-1] if self.table_sizes else 0}
        for arm in self.best_loss:
            out[f"ppl_{arm}"] = math.exp(self.mean(arm))
            out[f"params_{arm}"] = self.input_params[arm]
        for arm in ("adaptive", "reversed", "ngram"):
            if arm in self.best_loss:
                e = self.effect(arm)
                out[f"{arm}_lo"], out[f"{arm}_hi"] = e.lo, e.hi
        return out


def _embedding(arm: str, V: int, d: int, cutoffs: list[int], index: ngram.NgramIndex | None) -> nn.Module | None:
    if arm == "full":
        return None  # TinyLM's own table
    if arm in ("adaptive", "reversed"):
        return ngram.AdaptiveInput(V, d, cutoffs, reverse=arm == "reversed")
    if arm == "ngram":
        return ngram.NgramEmbedding(V, d, index)
    raise ValueError(f"unknown arm {arm!r}; use one of {ARMS}")


def _train_arm(job: dict) -> dict:
    """Train one small LM with input embedding ``job['arm']`` from ``job['seed']`` to its plateau."""
    torch.manual_seed(job["seed"])
    emb = _embedding(job["arm"], job["vocab"], job["d_model"], job["cutoffs"], job["index"])
    cfg = lm.LMConfig(job["vocab"], d_model=job["d_model"], n_layers=1, n_heads=job["n_heads"], context=job["context"],
                      tie=False, dropout=0.0, embedding=emb)
    model = lm.TinyLM(cfg).to(job["device"])
    h = lm.train(model, job["train_ids"], job["val_ids"], seed=job["seed"], progress=False, **job["train"])
    return {"loss": h.best_val_loss, "run": h.steps_run, "plateau": int(h.plateau),
            "curve": (list(h.steps), list(h.val_loss)), "params": sum(p.numel() for p in model.embed.parameters())}


def run_scaling(seeds: list[int], *, n_docs: int, vocab_size: int, d_model: int,
                context: int = 32, cutoffs: tuple[int, ...], ngram_rows: int,
                table_sizes: tuple[int, ...], arms: tuple[str, ...] = ARMS,
                n_heads: int = 2, batch_size: int = 16, lr: float = 3e-3, eval_every: int = 20, patience: int = 3,
                min_steps: int, max_steps: int, device: str | torch.device = "cpu",
                workers: int = 1) -> Scaling:
    """Train one small LM per input embedding (``arms``) and seed on the first ``n_docs`` Lee documents, each
    to its validation plateau; the models differ only in the input embedding (same untied output head, same
    body). Also count the accelerator-side and host-side bytes of n-gram tables of ``table_sizes`` rows (at
    most as many as distinct bigrams occur in the training text). ``workers`` CPU processes share the runs
    (:func:`embedbook.chapters.ch07_dimension.measure.run_jobs`; on a GPU they stay in this process)."""
    sents = data.lee_corpus()[:n_docs]
    vocab = lm.Vocab.build(sents, vocab_size)
    train_ids, val_ids = lm.split_ids(vocab.encode(sents))
    V = len(vocab)
    index = ngram.NgramIndex.build(train_ids, V, ngram_rows)
    dev = torch.device(device)
    train = dict(steps=max_steps, batch_size=batch_size, lr=lr, eval_every=eval_every, patience=patience,
                 min_steps=min_steps)
    jobs = [dict(arm=arm, seed=seed, vocab=V, d_model=d_model, cutoffs=list(cutoffs), index=index, n_heads=n_heads,
                 context=context, device=dev, train_ids=train_ids, val_ids=val_ids, train=train)
            for arm in arms for seed in seeds]
    out = run_jobs(_train_arm, jobs, workers if dev.type == "cpu" else 1)
    runs = {(j["arm"], j["seed"]): o for j, o in zip(jobs, out)}
    table = {k: {a: [runs[a, s][k] for s in seeds] for a in arms} for k in ("loss", "run", "plateau", "curve")}
    val_rows = index.rows_for(val_ids.unsqueeze(0))[0, 1:]
    probes = [ngram.NgramEmbedding(V, d_model, ngram.NgramIndex.build(train_ids, V, k)) for k in table_sizes]
    ada = ngram.AdaptiveInput(V, d_model, list(cutoffs))
    return Scaling(
        seeds=list(seeds), n_docs=n_docs, vocab=V, d_model=d_model, train_tokens=len(train_ids),
        val_tokens=len(val_ids), unigram=lm.unigram_loss(train_ids, val_ids, V), cutoffs=list(cutoffs),
        dims=list(ada.dims), ngram_rows=len(index), ngram_coverage=float((val_rows > 0).float().mean()),
        best_loss=table["loss"], steps_run=table["run"], plateau=table["plateau"], curves=table["curve"],
        input_params={a: runs[a, seeds[0]]["params"] for a in arms},
        table_sizes=[len(p.index) for p in probes], device_bytes=[p.device_bytes() for p in probes],
        host_bytes=[p.host_bytes() for p in probes],
    )


# --- the chapter's summary: one line per claim and outcome, chosen by the verdict ----------------------------

SUMMARY: dict[str, dict[str, str]] = {
    "C25": {
        CONFIRMED: _("The SCONE paper keeps n-gram embeddings off the accelerator at fixed inference-time accelerator "
        "cost, and its reported perplexities at equal inference FLOPs give a 3–5% cut."),
        CORRECTED: _("SCONE does keep its n-gram embeddings in host memory at fixed inference-time accelerator cost, but "
        "its reported perplexities at equal inference FLOPs give a cut outside 3–5%."),
        REFUTED: _("The SCONE paper does not keep its n-gram embeddings off the accelerator at fixed cost."),
        INCONCLUSIVE: _("SCONE does keep its n-gram embeddings in host memory at fixed inference-time accelerator cost "
        "(training compute grows), but whether perplexity falls by 3–5% at that budget is not settled: the perplexities "
        "the paper plots were not read here."),
    },
    "C26": {
        CONFIRMED: _("Adaptive input saves memory without loss (Baevski and Auli; the saving counted here), and the "
        "article's assignment, frequent words in the fewest dimensions, lost no more than the tolerance here."),
        CORRECTED: _("Adaptive input saves memory without loss (Baevski and Auli; the saving counted here), but with the "
        "frequent words in the widest band, the other way round from the article: giving them the narrowest lost on "
        "every seed here."),
        REFUTED: _("The adaptive input saved too few parameters to matter, or the cited paper reports a loss."),
        INCONCLUSIVE: _("The runs did not settle which band the frequent words need (a run short of its plateau, too "
        "small a margin over the unigram baseline, too few seeds, or a difference inside the tolerance)."),
    },
}


def summary_line(v: claims.Verdict) -> str:
    """The summary line for verdict ``v`` of C25 or C26."""
    return SUMMARY[v.claim_id][v.verdict]
