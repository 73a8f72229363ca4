"""A small decoder-only Transformer language model with a configurable embedding, and its training loop.

- :class:`Vocab` — word-level vocabulary (the ``size`` most frequent words + ``<unk>`` + ``<eol>``).
- :func:`split_ids` — contiguous train/validation split of one id stream.
- :class:`LMConfig`, :class:`TinyLM` — token embedding + learned positions → pre-LN blocks → LayerNorm
  → output head; tied or untied head, init scheme by name (:mod:`embedbook.init`), optional sparse
  embedding gradients, optional replacement embedding module, optional extra input features.
- :func:`train`, :func:`evaluate` — deterministic for a seed; progress bar; tokens/s.

Used by the chapters "Weight tying" (04_tying), "How embeddings learn" (05_learning),
"Initialisation" (06_init), "Choosing the dimension" (07_dimension) and the later chapters on
quantisation, n-gram and adaptive embeddings.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from embedbook import init as _init  # the init schemes by name (a library module; it imports nothing of ours)

__all__ = [
    "Vocab",
    "split_ids",
    "LMConfig",
    "Block",
    "TinyLM",
    "History",
    "make_optimizers",
    "evaluate",
    "lr_at",
    "train",
    "unigram_loss",
    "english_corpus",
]

UNK, EOL = "<unk>", "<eol>"
OPTIMIZERS = ("adamw", "adam", "sgd", "sparse_adam")


# --- vocabulary ------------------------------------------------------------------------------------


class Vocab:
    """Word-level vocabulary: ``<unk>`` (id 0), ``<eol>`` (id 1), then words by falling frequency.

    Attributes:
        itos: id → token.
        stoi: token → id.
        counts: ``counts[id]`` is the token's corpus frequency (for ``<unk>``: occurrences of
            out-of-vocabulary words; for ``<eol>``: number of lines).
    """

    def __init__(self, itos: list[str], counts: list[int]) -> None:
        if len(itos) != len(counts) or itos[:2] != [UNK, EOL]:
            raise ValueError("a Vocab starts with '<unk>', '<eol>' and has one count per token")
        if len(set(itos)) != len(itos):
            dup = sorted({w for w in itos if itos.count(w) > 1})
            raise ValueError(f"a Vocab lists each token once; duplicated: {dup[:5]}")
        self.itos = list(itos)
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.counts = list(counts)

    @classmethod
    def build(cls, sentences: list[list[str]], size: int) -> "Vocab":
        """The ``size`` most frequent words of ``sentences`` (ties broken alphabetically) + the two specials."""
        if not isinstance(size, int) or size <= 0:
            raise ValueError(f"vocabulary size must be a positive int, got {size!r}")
        _check_sentences(sentences)
        freq = Counter(w for s in sentences for w in s)
        literal_unk = freq.pop(UNK, 0)  # the specials keep ids 0 and 1; a literal '<unk>' counts as unknown
        freq.pop(EOL, None)
        if not freq and not literal_unk:
            raise ValueError("the corpus has no tokens: pass a non-empty list of token lists")
        words = sorted(freq, key=lambda w: (-freq[w], w))[:size]
        kept = set(words)
        unk = literal_unk + sum(c for w, c in freq.items() if w not in kept)
        lines = sum(1 for s in sentences if s)
        return cls([UNK, EOL, *words], [unk, lines, *(freq[w] for w in words)])

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, sentences: list[list[str]]) -> torch.LongTensor:
        """One flat id stream: each non-empty sentence's ids followed by the ``<eol>`` id; unknown words → 0."""
        _check_sentences(sentences)
        ids: list[int] = []
        get = self.stoi.get
        for s in sentences:
            if s:
                ids.extend(get(w, 0) for w in s)
                ids.append(1)
        if not ids:
            raise ValueError("nothing to encode: every sentence is empty")
        return torch.tensor(ids, dtype=torch.long)

    def decode(self, ids) -> list[str]:
        """Tokens for a sequence of ids (ints in ``0 .. len(self) - 1``).

        Raises:
            TypeError: an id that is not an integer. ValueError: an id outside the vocabulary.
        """
        if isinstance(ids, torch.Tensor):
            if ids.is_floating_point() or ids.is_complex():
                raise TypeError(f"ids must be integers, got a {ids.dtype} tensor")
            ids = ids.reshape(-1).tolist()
        out = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"ids must be integers, got {i!r} ({type(i).__name__})")
            if not 0 <= i < len(self.itos):
                raise ValueError(f"id {int(i)} is outside this vocabulary of {len(self.itos)} tokens (0 .. {len(self.itos) - 1})")
            out.append(self.itos[int(i)])
        return out


def _check_sentences(sentences) -> None:
    if isinstance(sentences, str):  # a text, not sentences: "a b" would read as nothing
        raise TypeError(f"pass a list of token lists, e.g. [{sentences.split()!r}], not a string ({sentences[:40]!r})")
    if not isinstance(sentences, (list, tuple)) or not sentences:
        raise ValueError("the corpus is empty: pass a non-empty list of sentences (lists of tokens)")
    if isinstance(sentences[0], str):
        raise TypeError("pass a list of token lists (e.g. [['the', 'cat'], ...]), not a list of strings")


def split_ids(ids: torch.LongTensor, val_fraction: float = 0.1) -> tuple[torch.LongTensor, torch.LongTensor]:
    """Split an id stream into a leading training part and a trailing validation part (contiguous, no shuffle)."""
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype != torch.long:
        raise TypeError("ids must be a 1-D LongTensor (from Vocab.encode)")
    if not 0.0 < val_fraction < 1.0:
        raise ValueError(f"val_fraction must be in (0, 1), got {val_fraction}")
    n_val = int(round(len(ids) * val_fraction))
    if n_val < 2 or len(ids) - n_val < 2:
        raise ValueError(f"{len(ids)} ids are too few to split with val_fraction={val_fraction}")
    return ids[: len(ids) - n_val], ids[len(ids) - n_val :]


# --- model -----------------------------------------------------------------------------------------


@dataclass
class LMConfig:
    """Shape and embedding options of :class:`TinyLM`.

    ``embedding`` is an optional replacement input embedding (a module mapping ids ``[B, T]`` to
    ``[B, T, d_model]``); with it, ``tie`` must be False. ``sparse`` makes the embedding produce
    sparse gradients (needs ``tie=False`` and an optimizer that accepts them: ``sgd`` or ``sparse_adam``).
    """

    vocab_size: int
    d_model: int = 128
    n_layers: int = 2
    n_heads: int = 4
    context: int = 64
    tie: bool = True
    init: str = "normal_0.02"
    dropout: float = 0.1
    embedding: nn.Module | None = None
    sparse: bool = False
    head_init: str = "normal_0.02"  # init of an untied output head (same names as ``init``)

    def __post_init__(self) -> None:
        for name in ("vocab_size", "d_model", "n_layers", "n_heads", "context"):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"LMConfig.{name} must be a positive int, got {value!r}")
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        _init.scheme(self.init)
        _init.scheme(self.head_init)
        if self.embedding is not None:
            if self.tie:
                raise ValueError("tie=True cannot be combined with a replacement embedding: set tie=False")
            if not isinstance(self.embedding, nn.Module):
                raise TypeError("LMConfig.embedding must be an nn.Module mapping ids [B,T] to [B,T,d_model]")
            if self.sparse:
                raise ValueError("sparse=True applies to the built-in embedding only, not a replacement one")
        if self.sparse and self.tie:
            raise ValueError("sparse=True needs tie=False: a tied output head makes the gradient dense")


class Block(nn.Module):
    """Pre-LayerNorm Transformer block: causal self-attention then a 4x MLP, each with a residual."""

    def __init__(self, d: int, n_heads: int, dropout: float) -> None:
        super().__init__()
        self.n_heads, self.dropout = n_heads, dropout
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (t.view(B, T, self.n_heads, d // self.n_heads).transpose(1, 2) for t in (q, k, v))
        p = self.dropout if self.training else 0.0
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
        x = x + self.drop(self.proj(a.transpose(1, 2).reshape(B, T, d)))
        return x + self.drop(self.mlp(self.ln2(x)))


class TinyLM(nn.Module):
    """Decoder-only Transformer LM: token embedding + learned positions → blocks → LayerNorm → head.

    When ``cfg.tie`` is True, ``head.weight`` *is* ``embed.weight`` (one tensor, counted once).
    The token embedding is initialised with ``cfg.init``; other linear layers with N(0, 0.02²), zero bias.
    """

    def __init__(self, cfg: LMConfig) -> None:
        super().__init__()
        if not isinstance(cfg, LMConfig):
            raise TypeError("TinyLM takes an LMConfig")
        self.cfg = cfg
        d, V = cfg.d_model, cfg.vocab_size
        self.pos = nn.Embedding(cfg.context, d)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(d, cfg.n_heads, cfg.dropout) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, V, bias=False)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0.0, 0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
        nn.init.normal_(self.pos.weight, 0.0, 0.02)
        if cfg.embedding is not None:
            self.embed = cfg.embedding
        else:
            self.embed = nn.Embedding(V, d, sparse=cfg.sparse)
            _init.apply(self.embed, cfg.init)
        if cfg.tie:
            self.head.weight = self.embed.weight
        else:
            _init.apply(self.head.weight, cfg.head_init)

    def num_params(self, part: str = "all") -> int:
        """Parameter count (shared tensors once): ``all``, ``embedding`` (input table + head) or ``body``."""
        seen, total, emb = set(), 0, 0
        emb_ids = {id(p) for p in self.embed.parameters()} | {id(self.head.weight)}
        for p in self.parameters():  # nn.Module.parameters() already yields a shared tensor once
            if id(p) in seen:
                continue
            seen.add(id(p))
            total += p.numel()
            emb += p.numel() if id(p) in emb_ids else 0
        parts = {"all": total, "embedding": emb, "body": total - emb}
        if part not in parts:
            raise ValueError(f"unknown part {part!r}; use one of {list(parts)}")
        return parts[part]

    def forward(self, ids: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """Logits ``[B, T, V]`` for ids ``[B, T]``; ``extra`` ``[B, T, d]`` is added to the input embeddings."""
        if not isinstance(ids, torch.Tensor) or ids.dtype != torch.long or ids.dim() != 2:
            raise TypeError("ids must be a LongTensor of shape [batch, time]")
        B, T = ids.shape
        if T == 0 or B == 0:
            raise ValueError("empty batch: ids must have at least one row and one position")
        if T > self.cfg.context:
            raise ValueError(f"sequence length {T} exceeds the model's context {self.cfg.context}")
        if ids.min() < 0 or ids.max() >= self.cfg.vocab_size:
            raise ValueError(f"ids must lie in [0, {self.cfg.vocab_size}), got [{int(ids.min())}, {int(ids.max())}]")
        x = self.embed(ids)
        if x.shape != (B, T, self.cfg.d_model):
            raise ValueError(f"the embedding returned shape {tuple(x.shape)}, expected {(B, T, self.cfg.d_model)}")
        if extra is not None:
            if extra.shape != x.shape:
                raise ValueError(f"extra must have shape {tuple(x.shape)}, got {tuple(extra.shape)}")
            x = x + extra.to(x.dtype)
        x = self.drop(x + self.pos(torch.arange(T, device=ids.device)))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

    def param_groups(self, lr: float, emb_lr_mult: float = 1.0, weight_decay: float = 0.0) -> list[dict]:
        """Optimizer groups: ``embed`` (token embedding, tied head included; lr × ``emb_lr_mult``, no decay),
        ``head`` (untied head; base lr, decay), ``decay`` (other matrices) and ``no_decay`` (biases,
        LayerNorms, positions). Each group carries its ``name``; empty groups are left out."""
        if not lr > 0:
            raise ValueError(f"lr must be > 0, got {lr}")
        if not emb_lr_mult > 0:
            raise ValueError(f"emb_lr_mult must be > 0 (1.0 = same rate as the rest), got {emb_lr_mult}")
        if weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0, got {weight_decay}")
        emb = list(self.embed.parameters())
        emb_ids = {id(p) for p in emb}
        head = [] if id(self.head.weight) in emb_ids else [self.head.weight]
        taken = emb_ids | {id(p) for p in head}
        rest = [(n, p) for n, p in self.named_parameters() if id(p) not in taken]
        decay = [p for n, p in rest if p.dim() >= 2 and not n.startswith("pos.")]
        no_decay = [p for n, p in rest if not (p.dim() >= 2 and not n.startswith("pos."))]
        groups = [
            {"name": "embed", "params": emb, "lr": lr * emb_lr_mult, "weight_decay": 0.0},
            {"name": "head", "params": head, "lr": lr, "weight_decay": weight_decay},
            {"name": "decay", "params": decay, "lr": lr, "weight_decay": weight_decay},
            {"name": "no_decay", "params": no_decay, "lr": lr, "weight_decay": 0.0},
        ]
        return [g for g in groups if g["params"]]


# --- training --------------------------------------------------------------------------------------


@dataclass
class History:
    """What :func:`train` recorded: losses in nats at each evaluation step, early stopping, throughput.

    Attributes:
        steps, train_loss, val_loss: one entry per evaluation (step 0 included).
        best_step, best_val_loss: the evaluation with the lowest validation loss; with early stopping
            the model's weights are restored to it.
        plateau: True when training stopped because the validation loss had not improved by
            ``min_delta`` for ``patience`` evaluations — the model reached its plateau. False when it
            ran out of steps first (or early stopping was off): it may still have been improving.
        tokens_per_s: training throughput (a timing: an illustration, not a result).
    """

    steps: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    best_step: int = 0
    best_val_loss: float = math.inf
    plateau: bool = False
    tokens_per_s: float = 0.0

    @property
    def val_ppl(self) -> list[float]:
        """Validation perplexity ``exp(val_loss)`` at each evaluation step."""
        return [math.exp(v) for v in self.val_loss]

    @property
    def steps_run(self) -> int:
        """Optimizer steps taken before training stopped."""
        return self.steps[-1] if self.steps else 0


def _check_ids(ids, context: int, what: str) -> None:
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype != torch.long:
        raise TypeError(f"{what} must be a 1-D LongTensor (from Vocab.encode / split_ids)")
    if len(ids) < context + 1:
        raise ValueError(f"{what} has {len(ids)} ids; at least context + 1 = {context + 1} are needed")


def make_optimizers(model: TinyLM, name: str, lr: float, emb_lr_mult: float = 1.0,
                    weight_decay: float = 0.0) -> list[torch.optim.Optimizer]:
    """Optimizer(s) for ``model``: ``adamw``, ``adam``, ``sgd`` (momentum 0.9) or ``sparse_adam``
    (``SparseAdam`` on a sparse embedding, ``AdamW`` on the rest). Dense ``adam``/``adamw`` refuse a
    sparse embedding, as torch does."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}; known optimizers: {', '.join(OPTIMIZERS)}")
    groups = model.param_groups(lr, emb_lr_mult, weight_decay)
    sparse = model.cfg.sparse
    if name == "sparse_adam":
        if not sparse:
            raise ValueError("optimizer 'sparse_adam' needs LMConfig(sparse=True, tie=False)")
        emb = [g for g in groups if g["name"] == "embed"]
        rest = [g for g in groups if g["name"] != "embed"]
        return [torch.optim.SparseAdam(emb[0]["params"], lr=emb[0]["lr"]), torch.optim.AdamW(rest, lr=lr)]
    if sparse and name != "sgd":
        raise ValueError(f"optimizer {name!r} does not accept sparse gradients; use 'sgd' or 'sparse_adam'")
    if name == "sgd":
        return [torch.optim.SGD(groups, lr=lr, momentum=0.9)]
    if name == "adam":
        for g in groups:
            g["weight_decay"] = 0.0  # plain Adam: no decoupled decay
        return [torch.optim.Adam(groups, lr=lr)]
    return [torch.optim.AdamW(groups, lr=lr)]


def _batch(ids: torch.Tensor, starts: torch.Tensor, T: int) -> tuple[torch.Tensor, torch.Tensor]:
    window = torch.stack([ids[s : s + T + 1] for s in starts.tolist()])
    return window[:, :-1], window[:, 1:]


def _loss(model: TinyLM, x: torch.Tensor, y: torch.Tensor, extra_fn) -> torch.Tensor:
    extra = extra_fn(x) if extra_fn is not None else None
    logits = model(x, extra)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


@torch.no_grad()
def evaluate(model: TinyLM, ids: torch.LongTensor, *, batch_size: int = 32, max_batches: int | None = None,
             extra_fn: Callable[[torch.Tensor], torch.Tensor] | None = None) -> float:
    """Mean next-token loss (nats) over consecutive non-overlapping windows of ``ids`` (deterministic)."""
    T = model.cfg.context
    _check_ids(ids, T, "ids")
    if batch_size <= 0 or (max_batches is not None and max_batches <= 0):
        raise ValueError("batch_size and max_batches must be positive")
    dev = next(model.parameters()).device
    starts = torch.arange(0, len(ids) - T, T)
    if max_batches is not None:
        starts = starts[: batch_size * max_batches]
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for i in range(0, len(starts), batch_size):
        x, y = _batch(ids, starts[i : i + batch_size], T)
        total += _loss(model, x.to(dev), y.to(dev), extra_fn).item() * y.numel()
        count += y.numel()
    model.train(was_training)
    return total / count


def lr_at(step: int, lr: float, warmup: int) -> float:
    """Learning rate at ``step`` (0-based): linear warm-up over ``warmup`` steps, then constant."""
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise ValueError(f"step must be an int >= 0 (0-based), got {step!r}")
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0 (0: none), got {warmup!r}")
    return lr * min(1.0, (step + 1) / warmup) if warmup > 0 else lr


def train(model: TinyLM, train_ids: torch.LongTensor, val_ids: torch.LongTensor, *, steps: int,
          batch_size: int = 32, lr: float = 3e-3, optimizer: str = "adamw", emb_lr_mult: float = 1.0,
          warmup: int = 0, eval_every: int = 50, seed: int = 0, progress: bool = True,
          extra_fn: Callable[[torch.Tensor], torch.Tensor] | None = None, weight_decay: float = 0.0,
          clip: float | None = 1.0, eval_batches: int | None = None, patience: int | None = None,
          min_delta: float = 0.0, on_eval: Callable[[int, "TinyLM"], None] | None = None,
          min_steps: int = 0) -> History:
    """Train ``model`` on random windows of ``train_ids``, evaluating on ``val_ids`` at step 0, every
    ``eval_every`` steps and at the end.

    Args:
        model: the :class:`TinyLM` to train (in place, on the device its parameters live on).
        train_ids, val_ids: 1-D LongTensors of token ids (from :meth:`Vocab.encode` / :func:`split_ids`).
        steps: the most optimizer steps to take.
        batch_size: windows of ``model.cfg.context`` tokens per step.
        lr, optimizer, emb_lr_mult, weight_decay: see :func:`make_optimizers`.
        warmup: steps of linear learning-rate warm-up (0: none).
        eval_every: steps between evaluations.
        seed: fixes the batch order and the dropout masks (the initial weights come from the RNG state
            when the model was built).
        progress: show a progress bar and print a summary line.
        extra_fn: optional ``ids -> [B, T, d]`` features added to the input embeddings.
        clip: gradient-norm clipping, a finite norm > 0 (None: off).
        eval_batches: validation batches per evaluation; None (default) scores the whole split.
        patience: early stopping: stop once the validation loss has not improved by ``min_delta`` for
            ``patience`` evaluations, and restore the best weights (None: train all ``steps``).
        min_delta: the improvement (nats) that counts for early stopping.
        min_steps: early stopping never stops before this many steps (a small model can sit on the
            unigram plateau for a while before it learns to use the context; 0: no minimum).
        on_eval: optional ``on_eval(step, model)`` called after each evaluation (step 0 included), e.g. to
            record a statistic of the weights along the way.

    Returns:
        the :class:`History` (losses, best step, whether a plateau was reached, throughput).

    Raises:
        TypeError, ValueError: bad model, ids or settings. FloatingPointError: the loss became
        non-finite (lower ``lr``, add warm-up or clipping).
    """
    if not isinstance(model, TinyLM):
        raise TypeError("train expects a TinyLM")
    T = model.cfg.context
    _check_ids(train_ids, T, "train_ids")
    _check_ids(val_ids, T, "val_ids")
    for name, value in (("steps", steps), ("batch_size", batch_size), ("eval_every", eval_every)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0, got {warmup!r}")
    if patience is not None and (not isinstance(patience, int) or patience < 1):
        raise ValueError(f"patience must be a positive int (evaluations without improvement) or None, got {patience!r}")
    if not min_delta >= 0:
        raise ValueError(f"min_delta must be >= 0, got {min_delta}")
    if not isinstance(min_steps, int) or isinstance(min_steps, bool) or min_steps < 0:
        raise ValueError(f"min_steps must be an int >= 0, got {min_steps!r}")
    if clip is not None and (isinstance(clip, bool) or not isinstance(clip, (int, float))
                             or not math.isfinite(clip) or clip <= 0):
        raise ValueError(f"clip must be a finite gradient norm > 0 (e.g. 1.0), or None to switch clipping off; "
                         f"got {clip!r} (0 stops training, a negative value reverses the gradient)")
    if eval_batches is not None and (not isinstance(eval_batches, int) or isinstance(eval_batches, bool)
                                     or eval_batches <= 0):
        raise ValueError(f"eval_batches must be a positive int, or None to score the whole split; got {eval_batches!r}")
    opts = make_optimizers(model, optimizer, lr, emb_lr_mult, weight_decay)
    base = [[g["lr"] for g in o.param_groups] for o in opts]
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # dropout masks
    dev = next(model.parameters()).device
    hist = History()
    best_state: dict | None = None
    stale = 0

    def record(step: int, train_loss: float) -> None:
        nonlocal best_state, stale
        val = evaluate(model, val_ids, batch_size=batch_size, max_batches=eval_batches, extra_fn=extra_fn)
        hist.steps.append(step)
        hist.train_loss.append(train_loss)
        hist.val_loss.append(val)
        if val < hist.best_val_loss - min_delta:
            hist.best_step, hist.best_val_loss, stale = step, val, 0
            if patience is not None:
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            stale += 1
        if on_eval is not None:
            on_eval(step, model)

    model.train()
    record(0, evaluate(model, train_ids, batch_size=batch_size, max_batches=eval_batches or 20, extra_fn=extra_fn))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=steps, desc="train", leave=False)
    spent, running = 0.0, []
    for step in range(steps):
        t0 = time.perf_counter()
        factor = lr_at(step, 1.0, warmup)
        for o, lrs in zip(opts, base):
            for g, g_lr in zip(o.param_groups, lrs):
                g["lr"] = g_lr * factor
        starts = torch.randint(0, len(train_ids) - T, (batch_size,), generator=gen)
        x, y = _batch(train_ids, starts, T)
        loss = _loss(model, x.to(dev), y.to(dev), extra_fn)
        if not torch.isfinite(loss):
            raise FloatingPointError(f"loss became {loss.item()} at step {step}: lower lr, add warm-up or clip")
        for o in opts:
            o.zero_grad(set_to_none=True)
        loss.backward()
        if clip is not None:
            dense = [p for p in model.parameters() if p.grad is not None and not p.grad.is_sparse]
            torch.nn.utils.clip_grad_norm_(dense, clip)
        for o in opts:
            o.step()
        spent += time.perf_counter() - t0
        running.append(loss.item())
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{running[-1]:.3f}")
        if (step + 1) % eval_every == 0 or step + 1 == steps:
            record(step + 1, sum(running) / len(running))
            running = []
            if patience is not None and stale >= patience and step + 1 >= min_steps:
                hist.plateau = True
                break
    if bar is not None:
        bar.close()
    if best_state is not None:
        model.load_state_dict(best_state)
    hist.tokens_per_s = hist.steps_run * batch_size * T / max(spent, 1e-9)
    if progress:
        how = f"plateau at step {hist.best_step}" if hist.plateau else f"no plateau within {steps} steps"
        print(f"trained {hist.steps_run} steps ({how}): best val loss {hist.best_val_loss:.3f}")
    return hist


def unigram_loss(train_ids: torch.LongTensor, val_ids: torch.LongTensor, vocab_size: int) -> float:
    """Validation loss (nats) of an add-one-smoothed unigram model estimated on ``train_ids``: the
    score a language model reaches by learning word frequencies alone (a baseline for short runs)."""
    for name, ids in (("train_ids", train_ids), ("val_ids", val_ids)):
        if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype != torch.long or len(ids) == 0:
            raise TypeError(f"{name} must be a non-empty 1-D LongTensor")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive int (the number of token ids), got {vocab_size!r}")
    if int(max(train_ids.max(), val_ids.max())) >= vocab_size or int(min(train_ids.min(), val_ids.min())) < 0:
        raise ValueError(f"ids must lie in [0, {vocab_size})")
    counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1.0
    logp = counts.log() - counts.sum().log()
    return float(-logp[val_ids].mean())


# --- the shared English corpus -------------------------------------------------------------------------


_CORPUS_CACHE: dict = {}


def english_corpus(vocab_size: int = 2000, val_fraction: float = 0.1) -> tuple[Vocab, torch.Tensor, torch.Tensor]:
    """``(vocab, train_ids, val_ids)`` for the Lee + Wikipedia sample (Lee first, then Wikipedia).

    The vocabulary is built from the whole text; the validation part is the contiguous tail. Cached.

    Args:
        vocab_size: how many of the most frequent words get their own id.
        val_fraction: share of the ids kept for validation (the tail).

    Returns:
        ``(vocab, train_ids, val_ids)``: ``vocab`` holds ``vocab_size + 2`` entries (fewer only if the text has
        fewer distinct words), the ``vocab_size`` most frequent words and two specials, ``<unk>`` (id 0, every
        other word) and ``<eol>`` (id 1, the end of each sentence): a model on it needs ``len(vocab)`` rows, not
        ``vocab_size``.
    """
    key = (vocab_size, val_fraction)
    if key not in _CORPUS_CACHE:
        from embedbook import data

        sents = data.lee_corpus() + data.wiki_corpus()
        vocab = Vocab.build(sents, vocab_size)
        _CORPUS_CACHE[key] = (vocab, *split_ids(vocab.encode(sents), val_fraction))
    return _CORPUS_CACHE[key]
