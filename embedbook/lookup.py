"""Lookup is a matrix product: gather vs one-hot matmul vs a bias-free Linear, their costs, a
bandwidth-bound lookup, and a vocab-parallel lookup over ``torch.distributed``.

Used by chapter 02 (Lookup is a matrix product).
"""

from __future__ import annotations

import os
import tempfile
import time

import torch
import torch.nn.functional as F

from embedbook import claims


def validate_ids(ids: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """Check that ``ids`` is a non-empty integer tensor with values in ``[0, vocab_size)``.

    Returns the ids as ``torch.long`` (torch's gather kernels accept no narrower integer type).
    """
    if not isinstance(ids, torch.Tensor):
        raise TypeError(f"ids must be a torch.Tensor of token ids, got {type(ids).__name__}")
    if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
        raise TypeError(f"ids must be integers (torch.long), got {ids.dtype}; convert with ids.long()")
    if ids.numel() == 0:
        raise ValueError("ids is empty: an empty batch has nothing to look up")
    lo, hi = int(ids.min()), int(ids.max())
    if lo < 0:
        raise IndexError(f"negative token id {lo}: ids must lie in [0, {vocab_size})")
    if hi >= vocab_size:
        raise IndexError(f"token id {hi} is out of range for a vocabulary of {vocab_size} rows")
    return ids.long()


def _check_table(table: torch.Tensor) -> None:
    if not isinstance(table, torch.Tensor) or table.dim() != 2:
        raise ValueError("table must be a 2-D tensor of shape (vocab_size, dim)")


def gather(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Rows ``table[ids]``: the embedding lookup itself (same as ``F.embedding``)."""
    _check_table(table)
    return F.embedding(validate_ids(ids, table.shape[0]), table)


def one_hot_matmul(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """``one_hot(ids) @ table``: the lookup written as a matrix product (materialises V-wide rows)."""
    _check_table(table)
    hot = F.one_hot(validate_ids(ids, table.shape[0]), table.shape[0]).to(table.dtype)
    return hot @ table


def linear_lookup(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """A bias-free ``nn.Linear(V, d)`` whose weight is ``table.T``, applied to one-hot inputs."""
    _check_table(table)
    layer = torch.nn.Linear(table.shape[0], table.shape[1], bias=False)
    with torch.no_grad():
        layer.weight.copy_(table.T)
    hot = F.one_hot(validate_ids(ids, table.shape[0]), table.shape[0]).to(table.dtype)
    with torch.no_grad():
        return layer(hot)


def one_hot_bytes(n_tokens: int, vocab_size: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes a materialised batch of ``n_tokens`` one-hot rows of width ``vocab_size`` occupies."""
    if n_tokens <= 0 or vocab_size <= 0:
        raise ValueError("n_tokens and vocab_size must be positive")
    return n_tokens * vocab_size * torch.empty((), dtype=dtype).element_size()


class Lookup:
    """A bandwidth-bound embedding lookup that writes into a reused, already-touched output buffer.

    ``F.embedding`` allocates a fresh output for every call; for a large batch that memory is new to
    the process, so the kernel spends most of its time page-faulting it in (zero-filling pages)
    rather than copying rows. Reusing one buffer pays that cost once. The returned tensor is a view
    of the buffer and is overwritten by the next call: copy it if you need to keep it.
    """

    def __init__(self, table: torch.Tensor):
        _check_table(table)
        self.table = table
        self._out: torch.Tensor | None = None

    def __call__(self, ids: torch.Tensor) -> torch.Tensor:
        flat = validate_ids(ids, self.table.shape[0]).reshape(-1)
        n, d = flat.numel(), self.table.shape[1]
        if self._out is None or self._out.shape[0] < n:
            self._out = torch.zeros(n, d, dtype=self.table.dtype, device=self.table.device)  # touched once
        out = self._out[:n]
        torch.index_select(self.table, 0, flat, out=out)
        return out.view(*ids.shape, d)


def _best_time(fn, reps: int, sync) -> float:
    fn()
    sync()
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return best


def _sync_for(device: torch.device):
    return torch.cuda.synchronize if device.type == "cuda" else (lambda: None)


def cost_vs_vocab(
    vocab_sizes: list[int], d: int = 256, n_tokens: int = 512, reps: int = 7, seed: int = 0, gather_tokens: int = 16384
) -> list[dict]:
    """Seconds per batch of gather vs one-hot matmul as the vocabulary grows (CPU, same run).

    The gather is timed on ``gather_tokens`` ids (a batch big enough to take milliseconds, so timer
    noise stays small) and the matmul on ``n_tokens``; each is the best of ``reps`` runs. What matters
    is how each grows with V, not their ratio.
    """
    gen = torch.Generator().manual_seed(seed)
    rows = []
    for v in vocab_sizes:
        table = torch.randn(v, d, generator=gen)
        ids = torch.randint(0, v, (n_tokens,), generator=gen)
        many = torch.randint(0, v, (gather_tokens,), generator=gen)
        gather_s = _best_time(lambda: F.embedding(many, table), reps, lambda: None)
        rows.append(
            {
                "vocab": v,
                "gather_s": gather_s * n_tokens / gather_tokens,  # per n_tokens, comparable with the matmul
                "matmul_s": _best_time(lambda: F.one_hot(ids, v).float() @ table, reps, lambda: None),
                "one_hot_bytes": one_hot_bytes(n_tokens, v),
            }
        )
    return rows


def bandwidth(
    n_tokens: int = 65536, d: int = 1024, vocab_size: int = 50000, reps: int = 5, device: str | None = None, seed: int = 0
) -> dict[str, float]:
    """Lookup throughput as a fraction of a plain memory copy of the same bytes, in one run.

    Both move ``n_tokens × d`` values in and out: the copy reads a contiguous block and writes it
    to a buffer; the lookup reads the selected rows and writes them. Reported: copy GB/s (read +
    write), the fraction of that reached by ``F.embedding`` and by :class:`Lookup`, and the share of
    ``F.embedding``'s time that allocating and touching a fresh output of the same size takes alone.
    """
    from embedbook.device import pick

    dev = pick(device)
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(vocab_size, d, generator=gen).to(dev)
    ids = torch.randint(0, vocab_size, (n_tokens,), generator=gen).to(dev)
    src = torch.randn(n_tokens, d, generator=gen).to(dev)
    dst = torch.zeros_like(src)
    sync = _sync_for(dev)
    lookup = Lookup(table)
    t_copy = _best_time(lambda: dst.copy_(src), reps, sync)
    t_plain = _best_time(lambda: F.embedding(ids, table), reps, sync)
    t_ours = _best_time(lambda: lookup(ids), reps, sync)
    # the suspected culprit on its own: allocate an output of the same size and touch every page
    t_fresh = _best_time(lambda: torch.empty(n_tokens, d, device=dev).fill_(0), reps, sync)
    if not torch.equal(lookup(ids), F.embedding(ids, table)):
        raise AssertionError("Lookup and F.embedding disagree")
    moved = 2 * n_tokens * d * table.element_size()
    return {
        "device": dev.type,
        "copy_gbps": moved / t_copy / 1e9,
        "plain_fraction": t_copy / t_plain,
        "ours_fraction": t_copy / t_ours,
        "fresh_output_share": t_fresh / t_plain,  # share of F.embedding's time a fresh, touched output costs
        "threads": torch.get_num_threads(),
    }


# --- vocab-parallel lookup over torch.distributed ------------------------------------------------


def _shard_worker(rank: int, world: int, init_file: str, table: torch.Tensor, ids: torch.Tensor, out_file: str) -> None:
    import torch.distributed as dist

    backend = "nccl" if torch.cuda.is_available() and torch.cuda.device_count() >= world else "gloo"
    dev = torch.device(f"cuda:{rank}") if backend == "nccl" else torch.device("cpu")
    dist.init_process_group(backend, init_method=f"file://{init_file}", rank=rank, world_size=world)
    try:
        rows = (table.shape[0] + world - 1) // world
        lo, hi = rank * rows, min((rank + 1) * rows, table.shape[0])
        shard, ids = table[lo:hi].to(dev), ids.to(dev)
        mine = (ids >= lo) & (ids < hi)
        local = torch.where(mine, ids - lo, torch.zeros_like(ids))  # foreign ids read row 0 ...
        part = F.embedding(local, shard) * mine.unsqueeze(-1)  # ... and are zeroed out
        dist.all_reduce(part)  # every id is owned by exactly one rank: the sum is the full lookup
        if rank == 0:
            torch.save(part.cpu(), out_file)
    finally:
        dist.destroy_process_group()


def vocab_parallel_lookup(ids: torch.Tensor, table: torch.Tensor, world_size: int = 2) -> torch.Tensor:
    """Look ``ids`` up in ``table`` split row-wise over ``world_size`` processes (Megatron-style).

    Each process holds ``V / world_size`` rows, looks up the ids it owns, zeros the rest, and an
    all-reduce sums the partial results. Uses gloo on CPU and nccl when there are enough GPUs.
    """
    import torch.multiprocessing as mp

    _check_table(table)
    validate_ids(ids, table.shape[0])
    if world_size < 1 or world_size > table.shape[0]:
        raise ValueError(f"world_size must be between 1 and the number of rows ({table.shape[0]})")
    with tempfile.TemporaryDirectory() as tmp:
        init_file, out_file = os.path.join(tmp, "init"), os.path.join(tmp, "out.pt")
        mp.spawn(_shard_worker, args=(world_size, init_file, table, ids, out_file), nprocs=world_size, join=True)
        return torch.load(out_file)


# --- checks -----------------------------------------------------------------------------------------


@claims.check("C01")
def check_c01(smoke: bool = False, rows: list[dict] | None = None) -> claims.Verdict:
    """Settle C01: the lookup's time stays flat as V grows (the matmul's grows).

    Decided from the fitted growth exponents over all vocabulary sizes. A gather from a table that no
    longer fits in cache gets somewhat slower (exponents of about 0 to 0.25 here), so the thresholds sit
    well away from both outcomes: flat below 0.5, growing with V above 0.8 (the matmul measures about 1).
    """
    rows = rows or cost_vs_vocab([1000, 8000, 64000] if smoke else [1000, 4000, 16000, 64000, 128000])
    vocab = [r["vocab"] for r in rows]
    g = scaling_exponent(vocab, [r["gather_s"] for r in rows])
    m = scaling_exponent(vocab, [r["matmul_s"] for r in rows])
    verdict = claims.CONFIRMED if g < 0.5 and m > 0.8 else claims.REFUTED
    text = (
        f"Over vocabularies of {vocab[0]:,} to {vocab[-1]:,} ids, the lookup's time grows like V^{g:.2f} and the "
        f"one-hot matmul's like V^{m:.2f}. The lookup's work depends on the tokens and d, not on V — O(1) per "
        "token in V is right — though a table too big for the cache makes each row a little slower to fetch; "
        "the matmul does V·d work per token."
    )
    return claims.Verdict("C01", verdict, text, {"bench_gather_exponent": g, "bench_matmul_exponent": m})


def _exactness(seed: int = 0) -> dict[str, float]:
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(1000, 64, generator=gen)
    ids = torch.randint(0, 1000, (8, 16), generator=gen)
    a, b, c = gather(ids, table), one_hot_matmul(ids, table), linear_lookup(ids, table)
    # gradients: the embedding's row-gradient vs the Linear weight's (transposed) gradient
    upstream = torch.randn(8, 16, 64, generator=gen)
    emb = torch.nn.Embedding.from_pretrained(table.clone(), freeze=False)
    (emb(ids) * upstream).sum().backward()
    lin = torch.nn.Linear(1000, 64, bias=False)
    with torch.no_grad():
        lin.weight.copy_(table.T)
    (lin(F.one_hot(ids, 1000).float()) * upstream).sum().backward()
    return {
        "max_diff_matmul": float((a - b).abs().max()),
        "max_diff_linear": float((a - c).abs().max()),
        "max_diff_grad": float((emb.weight.grad - lin.weight.grad.T).abs().max()),
        "rows_with_grad": int((emb.weight.grad.abs().sum(1) > 0).sum()),
        "distinct_ids": int(ids.unique().numel()),
    }


@claims.check("C02")
def check_c02(smoke: bool = False) -> claims.Verdict:
    """Settle C02: ``table[ids]`` equals ``one_hot(ids) @ table`` exactly."""
    r = _exactness()
    ok = r["max_diff_matmul"] == 0.0
    text = (
        f"On 128 random ids into a 1,000×64 table the largest difference between the gather and one_hot(i) @ E "
        f"is {r['max_diff_matmul']:.1e}: bit-for-bit equal, since each output is one product 1·E[i,j] plus zeros. "
        "The article's E^T·one_hot(i) is the same vector written as a column."
    )
    return claims.Verdict("C02", claims.CONFIRMED if ok else claims.REFUTED, text, {"max_diff": r["max_diff_matmul"]})


@claims.check("C03")
def check_c03(smoke: bool = False) -> claims.Verdict:
    """Settle C03: a bias-free Linear layer on one-hot inputs gives the same vectors."""
    r = _exactness()
    ok = r["max_diff_linear"] == 0.0 and r["max_diff_grad"] < 1e-5
    text = (
        f"nn.Linear(V, d, bias=False) with weight Eᵀ applied to one-hot rows reproduces the lookup with a "
        f"largest difference of {r['max_diff_linear']:.1e}, and its weight gradient matches the embedding's "
        f"to {r['max_diff_grad']:.1e}: in both, only the {r['rows_with_grad']} rows of the "
        f"{r['distinct_ids']} distinct ids in the batch receive gradient."
    )
    return claims.Verdict("C03", claims.CONFIRMED if ok else claims.REFUTED, text, {"max_diff": r["max_diff_linear"]})


@claims.check("C04")
def check_c04(smoke: bool = False, n_tokens: int = 2048 * 8, vocab_size: int = 128256) -> claims.Verdict:
    """Settle C04: a one-hot batch is V times larger than the ids; frameworks implement lookup as gather."""
    hot = one_hot_bytes(n_tokens, vocab_size)
    ids_bytes = n_tokens * 8
    table_bytes = vocab_size * 4096 * 4
    uses_gather = torch.nn.Embedding.forward.__code__.co_names.count("embedding") > 0
    verdict = claims.CONFIRMED if hot > table_bytes and uses_gather else claims.REFUTED
    text = (
        f"A batch of {n_tokens:,} tokens over a {vocab_size:,}-id vocabulary is {ids_bytes / 2**10:,.0f} KiB of "
        f"int64 ids but {hot / 2**30:,.1f} GiB as fp32 one-hot rows — more than the {table_bytes / 2**30:.1f} GiB "
        "fp32 table itself at d=4,096. torch.nn.Embedding.forward calls F.embedding, a gather; so do "
        "jax.numpy.take and tf.nn.embedding_lookup."
    )
    return claims.Verdict("C04", verdict, text, {"one_hot_gib": hot / 2**30, "table_gib": table_bytes / 2**30})


@claims.check("C37")
def check_c37(smoke: bool = False) -> claims.Verdict:
    """Settle C37: positions are a separate table added after the lookup; later layers keep the width."""
    from embedbook import data

    tok, model = data.load_encoder()
    emb = model.embeddings
    batch = tok(["the dog bit the man", "the man bit the dog"], return_tensors="pt")
    with torch.no_grad():
        out = model(**batch)
    ids = batch["input_ids"][0]
    dog = int(tok.convert_tokens_to_ids("dog"))
    pos_a = int((batch["input_ids"][0] == dog).nonzero()[0])
    pos_b = int((batch["input_ids"][1] == dog).nonzero()[0])
    word = emb.word_embeddings.weight
    same_row = torch.equal(word[batch["input_ids"][0, pos_a]], word[batch["input_ids"][1, pos_b]])
    layer0 = out.hidden_states[0]
    differs = not torch.allclose(layer0[0, pos_a], layer0[1, pos_b])
    widths = sorted({h.shape[-1] for h in out.hidden_states})
    separate = emb.position_embeddings.weight.shape[0] != word.shape[0]
    ok = same_row and differs and widths == [word.shape[1]] and separate
    text = (
        f"In MiniLM the word table ({word.shape[0]:,}×{word.shape[1]}) and the position table "
        f"({emb.position_embeddings.weight.shape[0]}×{emb.position_embeddings.weight.shape[1]}) are separate "
        f"parameters. 'dog' (id {dog}) at positions {pos_a} and {pos_b} gets the identical word row, and "
        f"different layer-0 vectors once positions are added. All {len(out.hidden_states)} hidden states "
        f"have width {widths[0]}: the layers change values, not the dimension. ({len(ids)} tokens per sentence.)"
    )
    return claims.Verdict("C37", claims.CONFIRMED if ok else claims.REFUTED, text, {"width": widths[0]})


def scaling_exponent(xs: list[float], ys: list[float]) -> float:
    """Slope of log y against log x (least squares): 0 for flat, 1 for linear growth."""
    import numpy as np

    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError("need at least two (x, y) points of equal length")
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


__all__ = [
    "Lookup",
    "bandwidth",
    "cost_vs_vocab",
    "gather",
    "linear_lookup",
    "one_hot_bytes",
    "one_hot_matmul",
    "scaling_exponent",
    "validate_ids",
    "vocab_parallel_lookup",
]

