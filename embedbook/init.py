"""Initialisation schemes for an embedding table, by name, each with its source.

``apply(embedding, "normal_0.02")`` fills an ``nn.Embedding`` (or a bare weight tensor) in place.
The language model of :mod:`embedbook.lm` picks its scheme through ``LMConfig.init``.

Used by the chapters "Initialisation" (06_init) and "Weight tying" (04_tying), and by every chapter
that trains :class:`embedbook.lm.TinyLM`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from embedbook import claims


@dataclass(frozen=True)
class Scheme:
    """One named initialisation: a description, its source, and the std it gives for ``(V, d)``."""

    name: str
    description: str
    source: str
    std: Callable[[int, int], float]  # (num_embeddings, dim) -> standard deviation of the entries
    uniform: bool = False  # draw from U(-a, a) with a = std * sqrt(3) instead of a normal


SCHEMES: dict[str, Scheme] = {
    s.name: s
    for s in [
        Scheme("torch_default", "N(0, 1): what torch.nn.Embedding does when left alone",
               "PyTorch documentation of torch.nn.Embedding (weight initialised from N(0, 1))",
               lambda v, d: 1.0),
        Scheme("normal_0.02", "N(0, 0.02^2), the GPT-2 / BERT convention",
               "GPT-2 and BERT reference code (initializer_range = 0.02)",
               lambda v, d: 0.02),
        Scheme("std_inv_sqrt_d", "N(0, 1/d): standard deviation 1/sqrt(d)",
               "fairseq's Transformer Embedding helper (std = embedding_dim ** -0.5)",
               lambda v, d: d ** -0.5),
        Scheme("var_inv_sqrt_d", "N(0, 1/sqrt(d)): the article's formula read literally, std = d^(-1/4)",
               "the source article's initialisation section, taken at its word",
               lambda v, d: d ** -0.25),
        Scheme("xavier_normal", "Xavier/Glorot normal: std = sqrt(2 / (V + d))",
               "Glorot and Bengio 2010; torch.nn.init.xavier_normal_",
               lambda v, d: math.sqrt(2.0 / (v + d))),
        Scheme("small", "U(-1e-4, 1e-4): a tiny 'small init' embedding",
               "RWKV's small-init embedding (Peng et al. 2023), uniform in [-1e-4, 1e-4]",
               lambda v, d: 1e-4 / math.sqrt(3.0), uniform=True),
    ]
}


def known() -> list[str]:
    """Names of the known schemes, in a stable order."""
    return list(SCHEMES)


def scheme(name: str) -> Scheme:
    """The :class:`Scheme` called ``name``; an unknown name raises ``KeyError`` listing the known ones."""
    if not isinstance(name, str):
        raise TypeError(f"an init scheme is named by a string, got {type(name).__name__}")
    try:
        return SCHEMES[name]
    except KeyError:
        raise KeyError(f"unknown init scheme {name!r}; known schemes: {', '.join(SCHEMES)}") from None


def std_of(name: str, num_embeddings: int, dim: int) -> float:
    """Standard deviation of the entries that scheme ``name`` draws for a ``num_embeddings x dim`` table."""
    if num_embeddings <= 0 or dim <= 0:
        raise ValueError(f"table shape must be positive, got ({num_embeddings}, {dim})")
    return float(scheme(name).std(num_embeddings, dim))


def apply(embedding: torch.nn.Module | torch.Tensor, name: str,
          generator: torch.Generator | None = None) -> torch.Tensor:
    """Fill an embedding table in place with scheme ``name`` and return its weight.

    Args:
        embedding: an ``nn.Embedding`` (or any module with a 2-D ``weight``) or a 2-D tensor.
        name: one of :func:`known`.
        generator: optional ``torch.Generator`` for reproducible draws (default: torch's global RNG).
    """
    s = scheme(name)
    weight = embedding.weight if isinstance(embedding, torch.nn.Module) else embedding
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise TypeError("apply needs an nn.Embedding or a 2-D weight tensor of shape (V, d)")
    if not weight.is_floating_point():
        raise TypeError(f"embedding weight must be floating point, got {weight.dtype}")
    std = std_of(name, weight.shape[0], weight.shape[1])
    with torch.no_grad():
        if s.uniform:
            a = std * math.sqrt(3.0)
            weight.uniform_(-a, a, generator=generator)
        else:
            weight.normal_(0.0, std, generator=generator)
    return weight


# --- measurements for the Initialisation chapter -----------------------------------------------------

# Full-size settings: the whole chapter runs in about two minutes on two CPU cores.
FULL = dict(vocab=2000, d_model=64, n_layers=2, context=32, batch_size=16, steps=100, warmup=25,
            eval_every=10, eval_batches=4, lr=3e-3, seeds=(0, 1), step0_dims=(64, 256),
            small_tokens=15_000, glove_steps=100)
SMOKE = dict(FULL, steps=8, warmup=3, eval_every=4, eval_batches=2, seeds=(0,), step0_dims=(64,),
             small_tokens=3_000, glove_steps=8)
WARMUP_SCHEMES = ("torch_default", "normal_0.02")  # the pair C23 compares over every seed


def _settings(smoke: bool, overrides: dict) -> dict:
    unknown = set(overrides) - set(FULL)
    if unknown:
        raise KeyError(f"unknown setting(s) {sorted(unknown)}; known: {sorted(FULL)}")
    return dict(SMOKE if smoke else FULL, **overrides)


@torch.no_grad()
def step0_stats(name: str, vocab_size: int, d_model: int, ids: torch.Tensor, *, tie: bool = True,
                context: int = 32, seed: int = 0) -> dict[str, float]:
    """Scale at step 0 of a TinyLM whose embedding uses scheme ``name``: RMS of the embedding output,
    standard deviation of the logits, and the initial loss (nats) next to ln V, on the ids ``ids``."""
    from embedbook import device, lm

    device.seed_everything(seed)
    model = lm.TinyLM(lm.LMConfig(vocab_size, d_model=d_model, context=context, tie=tie, init=name)).eval()
    n = (len(ids) - 1) // context
    if n < 1:
        raise ValueError(f"need more than {context} ids to measure step-0 statistics, got {len(ids)}")
    n = min(n, 32)
    x = ids[: n * context].view(n, context)
    y = ids[1 : n * context + 1].view(n, context)
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab_size), y.reshape(-1))
    return {"emb_rms": model.embed(x).pow(2).mean().sqrt().item(), "logit_std": logits.std().item(),
            "loss0": loss.item(), "ln_v": math.log(vocab_size)}


def _train(train_ids, val_ids, vocab_size: int, s: dict, *, seed: int, init_name: str = "normal_0.02",
           warmup: int = 0, tie: bool = True, table: torch.Tensor | None = None, steps: int | None = None):
    from embedbook import device, lm

    device.seed_everything(seed)
    cfg = lm.LMConfig(vocab_size, d_model=s["d_model"] if table is None else table.shape[1],
                      n_heads=4 if table is None else 2, n_layers=s["n_layers"], context=s["context"],
                      tie=tie, init=init_name)
    model = lm.TinyLM(cfg)
    if table is not None:
        with torch.no_grad():
            model.embed.weight.copy_(table)
    return lm.train(model, train_ids, val_ids, steps=steps or s["steps"], batch_size=s["batch_size"], lr=s["lr"],
                    warmup=warmup, eval_every=s["eval_every"], eval_batches=s["eval_batches"], seed=seed,
                    progress=False)


def glove_table(vocab, dim: int = 50, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, float]:
    """``(pretrained, random, coverage)``: GloVe rows for the vocabulary's words (words GloVe lacks get
    random rows), a purely random table with the same per-entry standard deviation, and the share of
    the vocabulary GloVe covers."""
    from embedbook import data

    kv = data.glove()
    if dim != kv.vector_size:
        raise ValueError(f"the bundled GloVe vectors have {kv.vector_size} dimensions, not {dim}")
    found = [w in kv.key_to_index for w in vocab.itos]
    hits = torch.tensor(np.stack([kv[w] for w, f in zip(vocab.itos, found) if f]))
    std = hits.std().item()
    gen = torch.Generator().manual_seed(seed)
    random = torch.randn(len(vocab), dim, generator=gen) * std
    pretrained = random.clone()
    pretrained[torch.tensor(found)] = hits
    return pretrained, random, sum(found) / len(found)


def steps_to(curve_steps: list[int], losses: list[float], target: float) -> int | None:
    """First evaluation step at which ``losses`` is at or below ``target`` (None if never)."""
    if len(curve_steps) != len(losses):
        raise ValueError("steps and losses must have the same length")
    return next((s for s, x in zip(curve_steps, losses) if x <= target), None)


def measure_init(smoke: bool = False, **overrides) -> dict:
    """Run the Initialisation chapter's experiments and return their numbers.

    Keys: ``settings``; ``default_std`` (std of a fresh ``nn.Embedding``); ``step0`` (scheme → d →
    tied/untied :func:`step0_stats`); ``curves`` (scheme → warm-up steps → list over seeds of validation
    losses; every scheme with seed 0, the ``WARMUP_SCHEMES`` with every seed); ``steps``; ``glove``
    (regime → ``{"pretrained": [...], "random": [...]}`` loss curves per seed, plus ``coverage``);
    ``tokens_per_s`` (training throughput of every run).
    """
    from embedbook import device, lm

    s = _settings(smoke, overrides)
    vocab, train_ids, val_ids = lm.english_corpus(s["vocab"])
    V = len(vocab)
    device.seed_everything(0)
    out: dict = {"settings": s, "vocab_size": V,
                 "default_std": torch.nn.Embedding(V, s["d_model"]).weight.std().item()}
    out["tokens_per_s"] = []
    out["step0"] = {name: {d: {tie: step0_stats(name, V, d, val_ids, tie=tie, context=s["context"])
                               for tie in (True, False)} for d in s["step0_dims"]} for name in SCHEMES}
    curves: dict = {name: {0: [], s["warmup"]: []} for name in SCHEMES}
    for name in SCHEMES:
        seeds = s["seeds"] if name in WARMUP_SCHEMES else s["seeds"][:1]
        for warm in (0, s["warmup"]):
            for seed in seeds:
                hist = _train(train_ids, val_ids, V, s, seed=seed, init_name=name, warmup=warm)
                curves[name][warm].append(hist.val_loss)
                out["tokens_per_s"].append(hist.tokens_per_s)
                out["steps"] = hist.steps
    out["curves"] = curves
    pretrained, random, coverage = glove_table(vocab)
    small = train_ids[-s["small_tokens"]:]
    out["glove"] = {"coverage": coverage, "steps": None}
    for regime, ids in (("small", small), ("large", train_ids)):
        runs: dict = {"pretrained": [], "random": []}
        for seed in s["seeds"]:
            for kind, table in (("pretrained", pretrained), ("random", random)):
                hist = _train(ids, val_ids, V, s, seed=seed, tie=False, table=table, steps=s["glove_steps"])
                runs[kind].append(hist.val_loss)
                out["tokens_per_s"].append(hist.tokens_per_s)
                out["glove"]["steps"] = hist.steps
        out["glove"][regime] = runs
    return out


def _mean_curve(runs: list[list[float]]) -> list[float]:
    return [sum(col) / len(col) for col in zip(*runs)]


def glove_speedup(result: dict, regime: str) -> dict[str, float | None]:
    """Steps for pretrained and random init to reach the random init's final mean validation loss,
    their ratio (``speedup`` > 1: GloVe gets there sooner), the final mean losses and the per-seed final
    gains ``random - pretrained`` (``gain_min``, ``gain_max``; positive: GloVe ends lower)."""
    g = result["glove"][regime]
    steps = result["glove"]["steps"]
    rnd, pre = _mean_curve(g["random"]), _mean_curve(g["pretrained"])
    target = rnd[-1]
    sr, sp = steps_to(steps, rnd, target), steps_to(steps, pre, target)
    speedup = (sr / sp) if (sp and sr) else (0.0 if sp is None else float("inf"))
    gains = [r[-1] - q[-1] for r, q in zip(g["random"], g["pretrained"])]
    return {"target": target, "steps_random": sr, "steps_pretrained": sp, "speedup": speedup,
            "final_random": rnd[-1], "final_pretrained": pre[-1], "gain_min": min(gains), "gain_max": max(gains)}


@claims.check("C21")
def check_c21(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C21: does N(0, 1/sqrt(d)) keep activations in a sane range, and is it a Xavier variant?

    Rule (tied model, smallest d measured): a reading passes if its initial loss is within 0.5 nats of
    ln V and its final loss (no warm-up) within 0.05 nats of the best scheme's. Confirmed if the literal
    reading (variance 1/sqrt(d)) passes; confirmed with a correction if only the std 1/sqrt(d) reading
    passes; refuted if neither.
    """
    result = result or measure_init(smoke=smoke)
    d = min(result["settings"]["step0_dims"])
    V = result["vocab_size"]
    st = {n: result["step0"][n][d][True] for n in SCHEMES}
    final = {n: result["curves"][n][0][0][-1] for n in SCHEMES}
    best = min(final.values())

    def passes(n: str) -> bool:
        return st[n]["loss0"] - st[n]["ln_v"] < 0.5 and final[n] - best < 0.05

    literal, reading = "var_inv_sqrt_d", "std_inv_sqrt_d"
    verdict = (claims.CONFIRMED if passes(literal) else claims.CORRECTED if passes(reading) else claims.REFUTED)
    evidence = (
        f"Tied TinyLM, d={d}, V={V:,}, ln V = {st[literal]['ln_v']:.2f}. Variance 1/√d (std {d ** -0.25:.3f}, "
        f"the formula as written): logit std {st[literal]['logit_std']:.2f}, initial loss "
        f"{st[literal]['loss0']:.2f}, final loss {final[literal]:.3f}. Std 1/√d ({d ** -0.5:.3f}): logit std "
        f"{st[reading]['logit_std']:.2f}, initial loss {st[reading]['loss0']:.2f}, final {final[reading]:.3f}. "
        f"Best final loss of all schemes {best:.3f}. Neither is Xavier: Glorot's rule for a {V:,}×{d} table gives "
        f"std {std_of('xavier_normal', V, d):.4f}."
    )
    figures = {"literal_loss0": st[literal]["loss0"], "reading_loss0": st[reading]["loss0"],
               "ln_v": st[literal]["ln_v"], "literal_logit_std": st[literal]["logit_std"],
               "reading_logit_std": st[reading]["logit_std"]}
    return claims.Verdict("C21", verdict, evidence, figures=figures)


@claims.check("C22", smoke_suffices=False)  # smoke runs are too short to separate the two starts
def check_c22(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C22: does GloVe initialisation reach a target validation loss sooner, more so on small data?

    In a regime GloVe *helps* if it reaches the target sooner (speed-up > 1) and ends lower on every
    seed; it helps *clearly* if the speed-up is also at least 1.25 (a quarter fewer steps).
    Rule: confirmed if GloVe clearly helps on small data, at least as much as on the larger data;
    confirmed with a correction if it helps in some regime but not clearly on small data (or more on the
    larger data); refuted if it helps in neither.
    """
    result = result or measure_init(smoke=smoke)
    sm, lg = glove_speedup(result, "small"), glove_speedup(result, "large")

    def helps(r: dict) -> bool:
        return r["speedup"] > 1 and r["gain_min"] > 0

    if helps(sm) and sm["speedup"] >= 1.25 and sm["speedup"] >= lg["speedup"]:
        verdict = claims.CONFIRMED
    elif helps(sm) or helps(lg):
        verdict = claims.CORRECTED
    else:
        verdict = claims.REFUTED

    def fmt(x):
        return "never" if x is None else f"{x}"

    n = len(result["glove"]["small"]["random"])
    evidence = (
        f"GloVe 50d covers {result['glove']['coverage']:.0%} of the vocabulary; mean of {n} seed(s). Target = the "
        f"random init's final validation loss. Small data: random reaches {sm['target']:.3f} at step "
        f"{fmt(sm['steps_random'])}, GloVe at step {fmt(sm['steps_pretrained'])} (speed-up {sm['speedup']:.2f}×; "
        f"final {sm['final_pretrained']:.3f} vs {sm['final_random']:.3f}, per-seed gain {sm['gain_min']:+.3f} to "
        f"{sm['gain_max']:+.3f} nats). Larger data: random reaches {lg['target']:.3f} at step "
        f"{fmt(lg['steps_random'])}, GloVe at step {fmt(lg['steps_pretrained'])} (speed-up {lg['speedup']:.2f}×; "
        f"final {lg['final_pretrained']:.3f} vs {lg['final_random']:.3f}, per-seed gain {lg['gain_min']:+.3f} to "
        f"{lg['gain_max']:+.3f} nats)."
    )
    figures = {"small_speedup": sm["speedup"], "large_speedup": lg["speedup"],
               "small_final_gain": sm["final_random"] - sm["final_pretrained"],
               "large_final_gain": lg["final_random"] - lg["final_pretrained"]}
    return claims.Verdict("C22", verdict, evidence, figures=figures)


@claims.check("C23")
def check_c23(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C23: nn.Embedding starts from N(0, 1), and that makes warm-up matter.

    Rule: refuted if a fresh ``nn.Embedding``'s std is not within 0.05 of 1. Otherwise confirmed if, on
    every seed, warm-up lowers the final loss of the N(0, 1) model by more than it lowers the
    N(0, 0.02²) model's; confirmed with a correction if not (the remedy is the scale, not warm-up).
    """
    result = result or measure_init(smoke=smoke)
    warm = result["settings"]["warmup"]
    c = result["curves"]

    def gains(name: str) -> list[float]:
        return [a[-1] - b[-1] for a, b in zip(c[name][0], c[name][warm])]

    g_default, g_small = gains("torch_default"), gains("normal_0.02")
    std = result["default_std"]
    if abs(std - 1.0) > 0.05:
        verdict = claims.REFUTED
    elif all(a > b for a, b in zip(g_default, g_small)) and min(g_default) > 0:
        verdict = claims.CONFIRMED
    else:
        verdict = claims.CORRECTED
    fin = {n: [r[-1] for r in c[n][w]] for n in WARMUP_SCHEMES for w in [0]}
    evidence = (
        f"A fresh nn.Embedding has entry std {std:.3f} (N(0, 1), as torch documents). Final validation loss "
        f"without warm-up: N(0, 1) {min(fin['torch_default']):.3f}–{max(fin['torch_default']):.3f}, std 0.02 "
        f"{min(fin['normal_0.02']):.3f}–{max(fin['normal_0.02']):.3f} over {len(g_default)} seed(s). A {warm}-step "
        f"warm-up changes the final loss by {-max(g_default):+.3f} to {-min(g_default):+.3f} nats for N(0, 1) "
        f"and {-max(g_small):+.3f} to {-min(g_small):+.3f} for std 0.02 (negative = warm-up helps)."
    )
    figures = {"default_std": std, "warmup_gain_default": sum(g_default) / len(g_default),
               "warmup_gain_small": sum(g_small) / len(g_small)}
    return claims.Verdict("C23", verdict, evidence, figures=figures)
