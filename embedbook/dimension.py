"""Choosing the embedding dimension: a sweep over d, the cost of attention in n and d, and the
dimensions real models use.

- :func:`dimension_sweep` — validation perplexity, overfitting gap and word-similarity Spearman
  of a small LM for each d, against parameters and bytes.
- :func:`similarity_spearman` — Spearman of a table's cosines against human ratings (wordsim353, SimLex-999).
- :func:`attention_flops`, :func:`attention_seconds`, :func:`fit_exponent` — the O(n²·d) term counted and timed.
- :data:`COMMON_DIMS`, :func:`common_dims` — model widths from configs and papers.
- Checks for claims C17, C18 and C42.

Used by the chapter "Choosing the dimension" (07_dimension).
"""

from __future__ import annotations

import json
import math
import time
from typing import Sequence

import numpy as np
import torch

from embedbook import claims
from embedbook.device import seed_everything

# Widths of published models: (model, d_model, source bib key). MiniLM and GloVe are read from the
# installed files by :func:`common_dims`; the rest are from the papers.
COMMON_DIMS: list[tuple[str, int, str]] = [
    ("word2vec (Google News)", 300, "mikolov2013distributed"),
    ("BERT-base", 768, "devlin2019bert"),
    ("BERT-large", 1024, "devlin2019bert"),
    ("GPT-2 small", 768, "radford2019gpt2"),
    ("GPT-2 XL", 1600, "radford2019gpt2"),
    ("GPT-3 175B", 12288, "brown2020gpt3"),
    ("LLaMA 7B", 4096, "touvron2023llama"),
    ("LLaMA 65B", 8192, "touvron2023llama"),
]


# --- a sweep over d ---------------------------------------------------------------------------------


def similarity_spearman(weight: torch.Tensor, stoi: dict[str, int], pairs: list[tuple[str, str, float]]) -> tuple[float, int]:
    """Spearman between the cosine of two words' rows and human scores, over pairs both in ``stoi``.

    Returns ``(rho, n_pairs)``; ``rho`` is NaN-free: fewer than 5 covered pairs raises ValueError.
    """
    from scipy.stats import spearmanr

    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise TypeError("weight must be a 2-D tensor")
    kept = [(stoi[a], stoi[b], s) for a, b, s in pairs if a in stoi and b in stoi]
    if len(kept) < 5:
        raise ValueError(f"only {len(kept)} pairs are covered by the vocabulary; need at least 5")
    w = torch.nn.functional.normalize(weight.detach().float(), dim=1)
    cos = [float(w[i] @ w[j]) for i, j, _ in kept]
    return float(spearmanr(cos, [s for *_, s in kept]).statistic), len(kept)


def dimension_sweep(sentences: list[list[str]], dims: Sequence[int] = (16, 32, 64, 128, 256), *, vocab_size: int = 2000,
                    steps: int = 250, eval_every: int = 50, context: int = 32, lr: float = 3e-3, seed: int = 0,
                    eval_batches: int = 6, n_layers: int = 1, dropout: float = 0.0) -> list[dict]:
    """Train one tied ``TinyLM`` (``n_layers`` blocks, 4 heads) per d and record size, perplexity and word similarity.

    Dropout defaults to 0 so that overfitting on small data is not masked by regularisation.

    Each row: ``d``, ``params`` (all), ``emb_params``, ``bytes_fp32``, ``best_val_ppl``, ``final_val_ppl``,
    ``final_train_ppl``, ``overfit`` (final minus best validation loss, nats), ``steps``/``val_loss`` curve,
    ``ws353`` and ``simlex`` Spearman with their pair counts, ``tokens_per_s``.
    """
    from embedbook import data, lm

    dims = list(dims)
    if not dims or any(not isinstance(d, int) or d < 4 or d % 4 for d in dims):
        raise ValueError(f"dims must be positive multiples of 4 (4 heads), got {dims}")
    vocab = lm.Vocab.build(sentences, vocab_size)
    train_ids, val_ids = lm.split_ids(vocab.encode(sentences))
    rows = []
    for d in dims:
        seed_everything(seed)
        model = lm.TinyLM(lm.LMConfig(len(vocab), d_model=d, n_layers=n_layers, context=context, dropout=dropout))
        h = lm.train(model, train_ids, val_ids, steps=steps, lr=lr, seed=seed, progress=False, eval_every=eval_every,
                     eval_batches=eval_batches)
        ws, n_ws = similarity_spearman(model.embed.weight, vocab.stoi, data.wordsim353())
        sl, n_sl = similarity_spearman(model.embed.weight, vocab.stoi, data.simlex999())
        n = model.num_params()
        rows.append({"d": d, "params": n, "emb_params": model.num_params("embedding"), "bytes_fp32": 4 * n,
                     "best_val_ppl": math.exp(min(h.val_loss)), "final_val_ppl": math.exp(h.val_loss[-1]),
                     "final_train_ppl": math.exp(h.train_loss[-1]), "overfit": h.val_loss[-1] - min(h.val_loss),
                     "steps": h.steps, "val_loss": h.val_loss, "train_loss": h.train_loss,
                     "ws353": ws, "n_ws353": n_ws, "simlex": sl, "n_simlex": n_sl, "tokens_per_s": h.tokens_per_s})
    return rows


@claims.check("C17")
def check_c17(smoke: bool = False, result: list[dict] | None = None) -> claims.Verdict:
    """Settle C17: does a small d underfit, a large d bring no gain, and does a large d overfit small data?"""
    if result is None:
        from embedbook import data

        result = dimension_sweep(data.lee_corpus()[:100], (8, 32) if smoke else (16, 32, 64, 128, 256),
                                 vocab_size=500 if smoke else 1000, steps=20 if smoke else 250,
                                 eval_every=10 if smoke else 50, eval_batches=2 if smoke else 6)
    rows = sorted(result, key=lambda r: r["d"])
    best = min(rows, key=lambda r: r["best_val_ppl"])
    small, large = rows[0], rows[-1]
    small_worse = small["best_val_ppl"] > best["best_val_ppl"]
    large_no_gain = large["best_val_ppl"] > best["best_val_ppl"]
    overfits = large["overfit"] > 0.01
    verdict = claims.CONFIRMED if small_worse and large_no_gain and overfits else (
        claims.CORRECTED if small_worse or large_no_gain else claims.REFUTED)
    ev = (f"Small LM on a small corpus: d={small['d']} reached a best validation perplexity of "
          f"{small['best_val_ppl']:.1f}, d={best['d']} the lowest at {best['best_val_ppl']:.1f}, and d={large['d']}, "
          f"with {large['params'] / small['params']:.0f}x the parameters of d={small['d']}, reached "
          f"{large['best_val_ppl']:.1f} (train perplexity {large['final_train_ppl']:.1f}). "
          + (f"Its validation loss ended {large['overfit']:.3f} nats above its best: it overfits. " if overfits else
             "Its validation loss was still falling at the end of training: within this budget the wide model "
             "gained nothing from its extra parameters, but did not (yet) overfit. ")
          + f"Word-similarity Spearman on the {rows[0]['n_ws353']} covered wordsim353 pairs ranged from "
          f"{min(r['ws353'] for r in rows):+.2f} to {max(r['ws353'] for r in rows):+.2f} across widths: too few pairs "
          f"and too little text for this metric to rank the widths.")
    return claims.Verdict("C17", verdict, ev, figures={"best_d": best["d"], "ppl_small_d": small["best_val_ppl"],
                                                       "ppl_best_d": best["best_val_ppl"], "ppl_large_d": large["best_val_ppl"],
                                                       "overfit_large_d": large["overfit"]})


# --- attention cost ---------------------------------------------------------------------------------


def _attention(x: torch.Tensor, wq: torch.Tensor, wk: torch.Tensor, wv: torch.Tensor, project: bool) -> torch.Tensor:
    q, k, v = (x @ wq, x @ wk, x @ wv) if project else (x, x, x)
    scores = q @ k.transpose(-1, -2) / math.sqrt(x.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def _check_nd(n: int, d: int) -> None:
    if not isinstance(n, int) or not isinstance(d, int) or n < 1 or d < 1:
        raise ValueError(f"n and d must be positive ints, got n={n!r}, d={d!r}")


def attention_flops(n: int, d: int, project: bool = False) -> int:
    """Floating-point operations of one single-head self-attention over ``n`` tokens of width ``d``.

    Counted by ``torch.utils.flop_counter`` (matrix products only). ``project=True`` adds the
    three d×d projections to Q, K, V (the n·d² term).
    """
    from torch.utils.flop_counter import FlopCounterMode

    _check_nd(n, d)
    x = torch.zeros(1, n, d)
    w = torch.zeros(d, d)
    with FlopCounterMode(display=False) as counter:
        _attention(x, w, w, w, project)
    return int(counter.get_total_flops())


def attention_seconds(n: int, d: int, repeats: int = 5) -> float:
    """Median wall time (s) of the score-and-mix part of single-head attention, ``softmax(QKᵀ)V``."""
    _check_nd(n, d)
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(1, n, d, generator=gen)
    _attention(x, None, None, None, False)  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _attention(x, None, None, None, False)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def fit_exponent(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Slope of log(y) against log(x): the exponent k in y ∝ x^k."""
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    if xs.shape != ys.shape or len(xs) < 2:
        raise ValueError("need two sequences of the same length >= 2")
    if (xs <= 0).any() or (ys <= 0).any():
        raise ValueError("all values must be positive to fit a power law")
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def attention_cost(ns: Sequence[int] = (128, 256, 512, 1024), ds: Sequence[int] = (32, 64, 128, 256),
                   n_fixed: int = 512, d_fixed: int = 64, time_it: bool = True) -> dict:
    """Counted FLOPs (and optionally timings) over ``ns`` at ``d_fixed`` and over ``ds`` at ``n_fixed``,
    with fitted exponents, and the share of projection FLOPs in a full layer at each (n, d_fixed)."""
    out = {"ns": list(ns), "ds": list(ds), "n_fixed": n_fixed, "d_fixed": d_fixed}
    out["flops_n"] = [attention_flops(n, d_fixed) for n in ns]
    out["flops_d"] = [attention_flops(n_fixed, d) for d in ds]
    out["exp_n"], out["exp_d"] = fit_exponent(ns, out["flops_n"]), fit_exponent(ds, out["flops_d"])
    out["proj_share"] = [1 - attention_flops(n_fixed, d) / attention_flops(n_fixed, d, project=True) for d in ds]
    if time_it:
        out["sec_n"] = [attention_seconds(n, d_fixed) for n in ns]
        out["sec_d"] = [attention_seconds(n_fixed, d) for d in ds]
        out["time_exp_n"], out["time_exp_d"] = fit_exponent(ns, out["sec_n"]), fit_exponent(ds, out["sec_d"])
    return out


@claims.check("C18")
def check_c18(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C18 from counted FLOPs (deterministic); timings are shown in the chapter, not used here."""
    r = result or attention_cost(time_it=False)  # counting FLOPs is cheap: smoke uses the full sizes
    quadratic = abs(r["exp_n"] - 2) < 0.1 and abs(r["exp_d"] - 1) < 0.1
    proj_big = max(r["proj_share"]) > 0.25
    verdict = (claims.CORRECTED if proj_big else claims.CONFIRMED) if quadratic else claims.REFUTED
    ev = (f"Counted FLOPs of softmax(QK^T)V grow as n^{r['exp_n']:.2f} at d={r['d_fixed']} and as d^{r['exp_d']:.2f} "
          f"at n={r['n_fixed']}: O(n^2 d) holds for the score-and-mix part. A whole attention layer also projects "
          f"X to Q, K, V, an O(n d^2) term that was {min(r['proj_share']):.0%}-{max(r['proj_share']):.0%} of its FLOPs "
          f"at n={r['n_fixed']} for d from {r['ds'][0]} to {r['ds'][-1]}; it outweighs the n^2 d part (6nd^2 > 4n^2 d) "
          f"once d exceeds 2n/3.")
    return claims.Verdict("C18", verdict, ev, figures={"exp_n": r["exp_n"], "exp_d": r["exp_d"],
                                                       "proj_share_max": max(r["proj_share"])})


# --- common dimensions ------------------------------------------------------------------------------


def common_dims() -> list[tuple[str, int, str]]:
    """:data:`COMMON_DIMS` plus the widths read from the installed MiniLM config and GloVe vectors."""
    from embedbook import data

    cfg = json.loads((data.minilm_path() / "config.json").read_text(encoding="utf-8"))
    return [("MiniLM-L6 (installed config)", int(cfg["hidden_size"]), "wang2020minilm"),
            ("GloVe 6B (installed vectors)", int(data.glove().vector_size), "pennington2014glove"),
            *COMMON_DIMS]


@claims.check("C42")
def check_c42(smoke: bool = False, result: list[tuple[str, int, str]] | None = None) -> claims.Verdict:
    """Settle C42: are common widths between a hundred and a few thousand?"""
    rows = result or common_dims()
    dims = [d for _, d, _ in rows]
    inside = [d for d in dims if 100 <= d < 10_000]
    share = len(inside) / len(dims)
    verdict = claims.CONFIRMED if share == 1 else (claims.CORRECTED if share >= 0.5 else claims.REFUTED)
    outside = [f"{m} ({d})" for m, d, _ in rows if not 100 <= d < 10_000]
    ev = (f"{len(inside)} of {len(dims)} models listed have a width between 100 and 10,000 "
          f"(from {min(dims)} to {max(dims)} overall)"
          + (f"; outside that range: {', '.join(outside)}." if outside else "."))
    return claims.Verdict("C42", verdict, ev, figures={"share_in_range": share, "min_d": min(dims), "max_d": max(dims)})
