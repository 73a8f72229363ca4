"""Chapter 06, "Initialisation": the measurements behind C21, C22 and C23 (their rules and checks: claims.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from embedbook import data, init, lm, stats
from embedbook.book import Result
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED
from embedbook.book.i18n import _

MARGIN = 0.3  # nats below the unigram baseline a trained model must reach before its runs may decide a claim
LITERAL, READING = "var_inv_sqrt_d", "std_inv_sqrt_d"  # the article's N(0, 1/√d), (mean, variance) and (mean, std)

_CORPUS: dict = {}


def lee(vocab_size: int) -> tuple[lm.Vocab, torch.Tensor, torch.Tensor]:
    """``(vocab, train_ids, val_ids)`` of the Lee corpus (about 60,000 tokens; validation: the last tenth)."""
    if vocab_size not in _CORPUS:
        sents = data.lee_corpus()
        vocab = lm.Vocab.build(sents, vocab_size)
        _CORPUS[vocab_size] = (vocab, *lm.split_ids(vocab.encode(sents)))
    return _CORPUS[vocab_size]


# --- C21: the scale of activations at step 0 ---------------------------------------------------------------


@dataclass
class Step0(Result):
    """Scale at step 0 of a one-layer TinyLM whose token table uses each init scheme, on validation text: RMS of
    the looked-up rows, standard deviation of the logits and the initial loss (tied head; means over seeds), and
    the initial loss with an untied head, by scheme and width."""

    vocab: int
    val_tokens: int
    ln_v: float
    n_seeds: int
    dims: list[int] = field(default_factory=list)
    stats: dict[str, dict[int, dict[str, float]]] = field(default_factory=dict)

    def rows(self) -> list[dict]:
        """One row per scheme and width (for a table)."""
        return [{"scheme": name, "d": d, "σ": init.std_of(name, self.vocab, d), **s}
                for name, by_d in self.stats.items() for d, s in by_d.items()]

    def extra_glue(self) -> dict:
        out = {"d_min": min(self.dims), "d_max": max(self.dims)}
        for name, key in ((LITERAL, "literal"), (READING, "reading"), ("torch_default", "default"),
                          ("normal_0.02", "small_std"), ("xavier_normal", "xavier")):
            if name not in self.stats:
                continue
            for d in self.dims:
                for stat in ("emb_rms", "logit_std", "loss0", "loss0_untied"):
                    out[f"{key}_{stat}_{d}"] = self.stats[name][d][stat]
                    if d == min(self.dims):
                        out[f"{key}_{stat}_dmin"] = self.stats[name][d][stat]
        return out


@torch.no_grad()
def _step0(name: str, vocab: int, d: int, val_ids: torch.Tensor, context: int, windows: int, seed: int, tie: bool,
           device) -> dict[str, float]:
    torch.manual_seed(seed)
    model = lm.TinyLM(lm.LMConfig(vocab, d_model=d, n_layers=1, context=context, tie=tie, init=name,
                                  dropout=0.0)).to(device).eval()
    n = min((len(val_ids) - 1) // context, windows)
    x = val_ids[: n * context].view(n, context).to(device)
    y = val_ids[1: n * context + 1].view(n, context).to(device)
    logits = model(x)
    return {"emb_rms": float(model.embed(x).pow(2).mean().sqrt()), "logit_std": float(logits.std()),
            "loss0": float(F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1)))}


def run_step0(vocab_size: int, dims: tuple[int, ...], seeds: tuple[int, ...],
              context: int = 32, *, windows: int, schemes: tuple[str, ...] | None = None,
              device: str | torch.device = "cpu") -> Step0:
    """Measure :class:`Step0` for every scheme (default: all of :func:`embedbook.init.known`) at each width, on the
    first ``windows`` windows of the validation split (the untied head at the first seed only)."""
    vocab, _, val_ids = lee(vocab_size)
    V = len(vocab)
    n_tokens = min((len(val_ids) - 1) // context, windows) * context
    out = Step0(vocab=V, val_tokens=n_tokens, ln_v=math.log(V), n_seeds=len(seeds), dims=list(dims))
    for name in schemes or init.known():
        out.stats[name] = {}
        for d in dims:
            tied = [_step0(name, V, d, val_ids, context, windows, s, True, device) for s in seeds]
            untied = [_step0(name, V, d, val_ids, context, windows, s, False, device) for s in seeds[:1]]
            mean = {k: float(np.mean([r[k] for r in tied])) for k in tied[0]}
            mean["loss0_untied"] = float(np.mean([r["loss0"] for r in untied]))
            out.stats[name][d] = mean
    return out


# --- C22: starting from pretrained vectors -------------------------------------------------------------------


@dataclass
class Pretrained(Result):
    """Untied TinyLMs (d = 50) whose token table starts from GloVe or from a random table of GloVe's scale,
    trained to a plateau on little and on more data, over seeds.

    ``runs[regime][kind][i]`` holds seed ``seeds[i]``'s run: ``steps``, ``val`` (validation curve, whole split),
    ``best_val``, ``best_step``, ``plateau``.
    """

    vocab: int
    coverage: float
    glove_std: float
    val_tokens: int
    eval_every: int
    seeds: list[int] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=dict)  # regime -> training tokens
    unigram: dict[str, float] = field(default_factory=dict)
    runs: dict[str, dict[str, list[dict]]] = field(default_factory=dict)

    def speed(self, regime: str) -> dict[str, list]:
        """Per seed: the random start's best step and loss, the first step at which GloVe's start reaches that
        loss (None if never), the speed-up (random steps / GloVe steps; 0 if never) and the gain in best loss."""
        out: dict[str, list] = {"steps_random": [], "steps_glove": [], "speedup": [], "gain": []}
        for g, r in zip(self.runs[regime]["glove"], self.runs[regime]["random"]):
            reach = next((s for s, v in zip(g["steps"], g["val"]) if v <= r["best_val"]), None)
            out["steps_random"].append(r["best_step"])
            out["steps_glove"].append(reach)
            out["speedup"].append(0.0 if not reach else r["best_step"] / reach)
            out["gain"].append(r["best_val"] - g["best_val"])
        return out

    def extra_glue(self) -> dict:
        out = {"n_seeds": len(self.seeds)}
        for regime in self.runs:
            sp = self.speed(regime)
            out[f"{regime}_tokens"] = self.tokens[regime]
            out[f"{regime}_unigram"] = self.unigram[regime]
            out[f"{regime}_speedup_min"], out[f"{regime}_speedup_max"] = min(sp["speedup"]), max(sp["speedup"])
            out[f"{regime}_gain_min"], out[f"{regime}_gain_max"] = min(sp["gain"]), max(sp["gain"])
            for kind in ("glove", "random"):
                out[f"{regime}_{kind}_best"] = float(np.mean([x["best_val"] for x in self.runs[regime][kind]]))
        return out


def glove_tables(vocab: lm.Vocab, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, float, float]:
    """``(pretrained, random, coverage, std)``: a random table with the per-entry std of the GloVe rows the
    vocabulary finds, and the same table with those rows replaced by GloVe's (:func:`embedbook.init.load_vectors`)."""
    kv = data.glove()
    hits = np.stack([kv[w] for w in vocab.itos if w in kv.key_to_index])
    std = float(hits.std())
    rnd = torch.randn(len(vocab), kv.vector_size, generator=torch.Generator().manual_seed(seed)) * std
    pre = rnd.clone()
    coverage = init.load_vectors(pre, vocab.itos, kv)
    return pre, rnd, coverage, std


def run_pretrained(vocab_size: int, small_tokens: int, *, seeds: tuple[int, ...],
                   context: int = 32, batch_size: int = 16, lr: float = 3e-3, max_steps: int,
                   eval_every: int = 10, patience: int = 4, min_delta: float = 1e-3,
                   device: str | torch.device = "cpu") -> Pretrained:
    """Train GloVe-initialised and random-initialised untied TinyLMs on the last ``small_tokens`` training tokens
    of the Lee corpus (the text just before the validation tail) and on the whole training split."""
    vocab, train_ids, val_ids = lee(vocab_size)
    regimes = {"small": train_ids[-small_tokens:], "large": train_ids}
    out = Pretrained(vocab=len(vocab), coverage=0.0, glove_std=0.0, val_tokens=len(val_ids), eval_every=eval_every,
                     seeds=list(seeds), tokens={k: len(v) for k, v in regimes.items()},
                     unigram={k: lm.unigram_loss(v, val_ids, len(vocab)) for k, v in regimes.items()})
    tables = {s: glove_tables(vocab, seed=s) for s in seeds}
    out.coverage, out.glove_std = tables[seeds[0]][2], tables[seeds[0]][3]
    for regime, ids in regimes.items():
        out.runs[regime] = {"glove": [], "random": []}
        for s in seeds:
            for kind, table in (("glove", tables[s][0]), ("random", tables[s][1])):
                torch.manual_seed(s)
                model = lm.TinyLM(lm.LMConfig(len(vocab), d_model=table.shape[1], n_heads=2, n_layers=1,
                                              context=context, tie=False, dropout=0.0))
                with torch.no_grad():
                    model.embed.weight.copy_(table)
                model.to(device)
                h = lm.train(model, ids, val_ids, steps=max_steps, batch_size=batch_size, lr=lr, eval_every=eval_every,
                             patience=patience, min_delta=min_delta, seed=s, progress=False)
                out.runs[regime][kind].append({"steps": list(h.steps), "val": list(h.val_loss),
                                               "best_val": h.best_val_loss, "best_step": h.best_step,
                                               "plateau": int(h.plateau)})
    return out


# --- C23: nn.Embedding's default, and what the first optimizer step does with it -----------------------------

# How reference language models initialise their token table (the bib key of each source).
INIT_SURVEY: list[tuple[str, str, float | None, str]] = [  # (model, distribution as Markdown math, std, bib key)
    ("GPT-2", r"$\mathcal N(0, 0.02^2)$", 0.02, "radford2019gpt2"),
    ("BERT", _(r"truncated $\mathcal N(0, 0.02^2)$"), 0.02, "devlin2019bert"),
    ("OPT", r"$\mathcal N(0, 0.006^2)$", 0.006, "zhang2022opt"),
    ("fairseq Transformer", r"$\mathcal N(0, 1/d)$", None, "ott2019fairseq"),
    ("T5", r"$\mathcal N(0, 1)$", 1.0, "raffel2020t5"),
]


@dataclass
class DefaultStart(Result):
    """The std of a fresh ``nn.Embedding``, and how far the first AdamW step of a tied TinyLM moves its token
    table (‖ΔE‖ / ‖E‖) when the table starts from N(0, 1) and from N(0, 0.02²); means over seeds."""

    default_std: float
    n_entries: int
    lr: float
    n_seeds: int
    step_default: float
    step_small: float
    loss0_default: float
    loss0_small: float
    ln_v: float
    # share of the table's entries the first step moved by at least half the learning rate (Adam moves an entry by
    # about the learning rate when its gradient is well above Adam's eps, 1e-8, and barely at all below it)
    share_default: float = 0.0
    share_small: float = 0.0
    survey: list[tuple[str, str, float | None, str]] = field(default_factory=list)

    def extra_glue(self) -> dict:
        return {"n_surveyed": len(self.survey), "n_unit": sum(s == 1.0 for _, _, s, _ in self.survey)}


def _first_step(name: str, vocab: int, train_ids: torch.Tensor, seed: int, lr: float, d: int, context: int,
                batch_size: int, device) -> tuple[float, float, float]:
    torch.manual_seed(seed)
    model = lm.TinyLM(lm.LMConfig(vocab, d_model=d, n_layers=1, context=context, tie=True, init=name,
                                  dropout=0.0)).to(device)
    opts = lm.make_optimizers(model, "adamw", lr)
    gen = torch.Generator().manual_seed(seed)
    starts = torch.randint(0, len(train_ids) - context, (batch_size,), generator=gen)
    win = torch.stack([train_ids[s: s + context + 1] for s in starts.tolist()]).to(device)
    before = model.embed.weight.detach().clone()
    logits = model(win[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, vocab), win[:, 1:].reshape(-1))
    loss.backward()
    for o in opts:
        o.step()
    delta = model.embed.weight.detach() - before
    share = (delta.abs() >= lr / 2).float().mean()
    return float(delta.norm() / before.norm()), float(loss.detach()), float(share)


def run_default(vocab_size: int, d: int = 64, *, seeds: tuple[int, ...], lr: float = 3e-3,
                context: int = 32, batch_size: int = 16, device: str | torch.device = "cpu") -> DefaultStart:
    """Measure a fresh ``nn.Embedding(V, d)``'s std and the first AdamW step's relative move of a tied TinyLM's
    token table under torch's default and under std 0.02."""
    vocab, train_ids, _ = lee(vocab_size)
    V = len(vocab)
    torch.manual_seed(seeds[0])
    w = torch.nn.Embedding(V, d).weight.detach()
    steps = {n: [_first_step(n, V, train_ids, s, lr, d, context, batch_size, device) for s in seeds]
             for n in ("torch_default", "normal_0.02")}
    mean = {n: [float(np.mean([x[i] for x in v])) for i in range(3)] for n, v in steps.items()}
    return DefaultStart(default_std=float(w.std()), n_entries=w.numel(), lr=lr, n_seeds=len(seeds),
                        step_default=mean["torch_default"][0], step_small=mean["normal_0.02"][0],
                        loss0_default=mean["torch_default"][1], loss0_small=mean["normal_0.02"][1], ln_v=math.log(V),
                        share_default=mean["torch_default"][2], share_small=mean["normal_0.02"][2],
                        survey=list(INIT_SURVEY))
WARMUP_LRS = (3e-3, 1e-2)  # the two learning rates the warm-up sweep uses: the chapter's, and one ~3× higher
WARMUP_INITS = ("torch_default", "normal_0.02")  # nn.Embedding's N(0, 1), and GPT-2/BERT's std 0.02


@dataclass
class WarmupSweep(Result):
    """TinyLMs (width ``d``) on the Lee corpus, token table from N(0, 1) or N(0, 0.02²), trained to a
    validation plateau with and without a linear warm-up of ``warmup`` steps, at each learning rate, over seeds;
    with :class:`DefaultStart` (the default's std and the first step). ``tie``: whether the output head is the
    token table (then two learning rates, "slow" and "fast"); ``untied``: the same sweep with an untied head
    (one learning rate), held by the tied sweep.

    ``runs[init][lr][warm][i]``: seed ``seeds[i]``'s run (``best_val``, ``best_step``, ``plateau``), ``warm`` 0 or 1.
    """

    start: DefaultStart
    d: int
    warmup: int
    max_steps: int
    unigram: float
    val_tokens: int
    lrs: list[float] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    runs: dict[str, dict[float, dict[int, list[dict]]]] = field(default_factory=dict)
    tie: bool = True
    untied: WarmupSweep | None = None

    def keys(self) -> tuple[str, ...]:
        """The figures' name for each of ``lrs``: "slow" and "fast" with a tied head, "untied" without."""
        return ("slow", "fast") if self.tie else ("untied",)

    def gain(self, init_name: str, lr: float) -> stats.SeedEffect:
        """Per seed, best validation loss without warm-up − with it (nats): positive means warm-up helped."""
        arm = self.runs[init_name][lr]
        return stats.seed_effect([x["best_val"] for x in arm[0]], [x["best_val"] for x in arm[1]])

    def lr_ok(self, lr: float) -> bool:
        """Every run at ``lr`` stopped on its plateau and ended at least :data:`MARGIN` nats below the unigram model."""
        runs = [x for by_lr in self.runs.values() for arm in by_lr[lr].values() for x in arm]
        return all(x["plateau"] for x in runs) and min(self.unigram - x["best_val"] for x in runs) >= MARGIN

    def extra_glue(self) -> dict:
        out = {"n_seeds": len(self.seeds)}
        for key, lr in zip(self.keys(), self.lrs):
            out[f"{key}_lr"] = lr
            for name, short in zip(WARMUP_INITS, ("unit", "small")):
                for warm in (0, 1):
                    out[f"{key}_{short}_{'warm' if warm else 'cold'}"] = float(
                        np.mean([x["best_val"] for x in self.runs[name][lr][warm]]))
        return out


def run_warmup_arm(init_name: str, lr: float, seed: int, *, warm: bool = True, vocab_size: int, d: int = 64,
                   warmup: int, context: int = 32, batch_size: int = 16, max_steps: int,
                   eval_every: int = 20, patience: int = 4, min_delta: float = 1e-3,
                   device: str | torch.device = "cpu", tie: bool = True) -> tuple[lm.TinyLM, lm.History]:
    """One run of :func:`run_warmup`'s sweep: a one-layer TinyLM (width ``d``, no dropout) built from ``seed`` with
    its token table drawn by ``init_name``, trained with AdamW at ``lr`` (with ``warmup`` steps of linear warm-up if
    ``warm``) on the whole Lee training split until the whole validation split's loss stops improving, never before
    ``2 * warmup`` steps (with or without warm-up: a warmed-up model sits on the unigram plateau while its
    learning rate is still small). Returns the model (best weights restored) and its :class:`~embedbook.lm.History`."""
    vocab, train_ids, val_ids = lee(vocab_size)
    torch.manual_seed(seed)
    model = lm.TinyLM(lm.LMConfig(len(vocab), d_model=d, n_layers=1, context=context, tie=tie, init=init_name,
                                  dropout=0.0)).to(device)
    h = lm.train(model, train_ids, val_ids, steps=max_steps, batch_size=batch_size, lr=lr,
                 warmup=warmup if warm else 0, eval_every=eval_every, patience=patience, min_delta=min_delta,
                 min_steps=min(2 * warmup, max_steps), seed=seed, progress=False)
    return model, h


def run_warmup(start: DefaultStart, vocab_size: int, d: int = 64, *, seeds: tuple[int, ...],
               lrs: tuple[float, ...] = WARMUP_LRS, warmup: int, context: int = 32, batch_size: int = 16,
               max_steps: int, eval_every: int = 20, patience: int = 4, min_delta: float = 1e-3,
               device: str | torch.device = "cpu", tie: bool = True,
               untied_lrs: tuple[float, ...] = (WARMUP_LRS[1],)) -> WarmupSweep:
    """Train a TinyLM (head tied to the table if ``tie``) from each of :data:`WARMUP_INITS` with and without
    ``warmup`` steps of linear warm-up, at each learning rate of ``lrs`` (two if tied, one if not), on the whole Lee
    training split; every run stops on a plateau of the whole validation split's loss (not before ``2 * warmup``
    steps, with or without warm-up; or at ``max_steps``) and keeps its best weights. A tied sweep also runs the
    untied one at ``untied_lrs`` (everything else alike) into ``untied``; pass ``untied_lrs=()`` to skip it."""
    if len(lrs) != (2 if tie else 1) or not warmup > 0:
        raise ValueError(f"run_warmup needs two learning rates with a tied head (one untied) and warmup > 0 steps, "
                         f"got lrs={lrs}, tie={tie}, warmup={warmup}")
    vocab, train_ids, val_ids = lee(vocab_size)
    V = len(vocab)
    out = WarmupSweep(start=start, d=d, warmup=warmup, max_steps=max_steps, val_tokens=len(val_ids),
                      unigram=lm.unigram_loss(train_ids, val_ids, V), lrs=list(lrs), seeds=list(seeds), tie=tie)
    for name in WARMUP_INITS:
        out.runs[name] = {}
        for lr in lrs:
            out.runs[name][lr] = {0: [], 1: []}
            for warm in (0, 1):
                for s in seeds:
                    _, h = run_warmup_arm(name, lr, s, warm=bool(warm), vocab_size=vocab_size, d=d, warmup=warmup,
                                          context=context, batch_size=batch_size, max_steps=max_steps,
                                          eval_every=eval_every, patience=patience, min_delta=min_delta,
                                          device=device, tie=tie)
                    out.runs[name][lr][warm].append({"best_val": h.best_val_loss, "best_step": h.best_step,
                                                     "plateau": int(h.plateau)})
    if tie and untied_lrs:
        out.untied = run_warmup(start, vocab_size, d, seeds=seeds, lrs=tuple(untied_lrs), warmup=warmup,
                                context=context, batch_size=batch_size, max_steps=max_steps, eval_every=eval_every,
                                patience=patience, min_delta=min_delta, device=device, tie=False)
    return out


# --- one line per claim and outcome, for the chapter's summary ------------------------------------------------

SUMMARY: dict[str, dict[str, str]] = {
    "C21": {CONFIRMED: _("The article's formula, read as written, keeps a tied model's logits in that range at every "
                       "width measured."),
            CORRECTED: _("The article's formula does that only when its square root of d is read as the standard "
                       "deviation; read as written, the logits' spread grows with the width. It is a fan-in rule, "
                       "not Xavier's."),
            REFUTED: _("Neither reading of the article's formula keeps a tied model's logits in that range.")},
    "C22": {CONFIRMED: _("GloVe rows made a small model converge sooner, and more so with little data, by both the "
                       "speed-up and the gain in final loss."),
            CORRECTED: _("GloVe rows made a small model converge sooner, but less so with little data, by both the "
                       "speed-up and the gain in final loss."),
            REFUTED: _("GloVe rows made a small model converge more slowly."),
            INCONCLUSIVE: _("Whether GloVe rows help a small model especially with little data stays open: the runs "
                          "were too weak, or the speed-up and the gain in final loss disagreed.")},
    "C23": {REFUTED: _("Either nn.Embedding does not start from a standard normal, or warm-up helped neither table "
                     "measurably, with a tied head or an untied one."),
            CONFIRMED: _("nn.Embedding starts from a standard normal, and warm-up lowered that model's final loss on "
                       "every seed, tied and untied, while a table at std 0.02 gained much less."),
            CORRECTED: _("nn.Embedding starts from a standard normal, and warm-up helped with either head, but a table "
                       "at std 0.02 just as much: not especially because of the default."),
            INCONCLUSIVE: _("nn.Embedding does start from a standard normal, but what that means for warm-up stays "
                          "open: the runs were too weak, or the tied and the untied model disagreed.")},
}
