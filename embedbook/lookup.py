"""Looking rows up in an embedding table: gather, the same lookup as a one-hot matrix product and as a
bias-free ``Linear``, a lookup that takes the fastest path for its device, its bandwidth against a
memory copy, and a vocab-parallel lookup over ``torch.distributed``.

Every function works on the device its inputs live on.

Used by chapter 02 (Lookup is a matrix product) and ``embedbook bench``.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from embedbook import sizing, timing

__all__ = [
    "MAX_BANDWIDTH_BYTES",
    "Bandwidth",
    "Lookup",
    "bandwidth",
    "gather",
    "linear_lookup",
    "one_hot_bytes",
    "one_hot_matmul",
    "validate_ids",
    "vocab_parallel_lookup",
]


#: The most memory :func:`bandwidth` allocates (table, ids, source, destination and outputs): 8 GiB.
MAX_BANDWIDTH_BYTES = 8 * 2**30


def validate_ids(ids: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """Check that ``ids`` is a non-empty integer tensor with values in ``[0, vocab_size)``.

    Args:
        ids: token ids, any shape, any integer dtype.
        vocab_size: number of rows of the table.

    Returns:
        the ids as ``torch.long`` (torch's gather kernels accept no narrower integer type).

    Raises:
        TypeError: not a tensor, or not integers. ValueError: empty, or ``vocab_size`` not a positive
            int. IndexError: an id out of range.
    """
    if isinstance(vocab_size, bool) or not hasattr(vocab_size, "__index__") or vocab_size <= 0:
        raise ValueError(f"vocab_size must be a positive int (the table's rows), got {vocab_size!r}")
    if not isinstance(ids, torch.Tensor):
        raise TypeError(f"ids must be a torch.Tensor of token ids, got {type(ids).__name__}; wrap it with torch.tensor(...)")
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


def _check_table(table: torch.Tensor, ids: torch.Tensor | None = None) -> None:
    if not isinstance(table, torch.Tensor) or table.dim() != 2:
        raise ValueError("table must be a 2-D tensor of shape (vocab_size, dim)")
    if not table.is_floating_point():
        raise TypeError(f"table must hold floats, got {table.dtype}; convert with table.float()")
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise ValueError(f"table has shape {tuple(table.shape)}: it needs at least one row and one column")
    if isinstance(ids, torch.Tensor) and ids.device != table.device:
        raise ValueError(f"ids are on {ids.device} but the table is on {table.device}; move one with .to(...)")


def gather(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Rows ``table[ids]``: the embedding lookup itself (what ``nn.Embedding`` and ``F.embedding`` do).

    Args:
        ids: integer token ids of any shape ``S``, on the table's device.
        table: ``(V, d)`` float tensor.

    Returns:
        a ``S + (d,)`` tensor.

    Raises:
        TypeError, ValueError, IndexError: see :func:`validate_ids`; a table that is not 2-D floats.
    """
    _check_table(table, ids)
    return F.embedding(validate_ids(ids, table.shape[0]), table)


def _one_hot(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return F.one_hot(validate_ids(ids, table.shape[0]), table.shape[0]).to(table.dtype)


def one_hot_matmul(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """``one_hot(ids) @ table``: the lookup written as a matrix product (it materialises ``V``-wide rows).

    Same arguments, result and errors as :func:`gather`; the one-hot rows take the table's dtype, so
    fp16 and bf16 tables work too.
    """
    _check_table(table, ids)
    return _one_hot(ids, table) @ table


def linear_lookup(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """A bias-free ``nn.Linear(V, d)`` whose weight is ``table.T``, applied to one-hot inputs.

    Same arguments, result and errors as :func:`gather`. The layer is built in the table's dtype and
    on its device; no gradient is recorded.
    """
    _check_table(table, ids)
    layer = torch.nn.Linear(table.shape[0], table.shape[1], bias=False, dtype=table.dtype, device=table.device)
    with torch.no_grad():
        layer.weight.copy_(table.T)
        return layer(_one_hot(ids, table))


def one_hot_bytes(n_tokens: int, vocab_size: int, dtype=torch.float32) -> int:
    """Bytes a materialised batch of ``n_tokens`` one-hot rows of width ``vocab_size`` occupies.

    ``dtype`` is any spelling :func:`embedbook.sizing.dtype_name` accepts (``torch.float16``, ``"fp16"``,
    ``"float32"``, ``np.float32``, …).

    Raises:
        ValueError: a count that is not a positive int, or an unknown dtype. TypeError: ``dtype`` is not a
            string, torch dtype or NumPy dtype.
    """
    for name, value in (("n_tokens", n_tokens), ("vocab_size", vocab_size)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    return sizing.formula_bytes(n_tokens * vocab_size, dtype)


class Lookup:
    """An embedding lookup that takes the fastest path for its table's device.

    On the CPU, ``F.embedding`` allocates a fresh output for every call; for a large batch that memory
    is new to the process, so the call spends most of its time page-faulting it in (the kernel
    zero-fills every page) rather than copying rows. ``Lookup`` keeps one output buffer, touched once,
    and gathers into it with ``torch.index_select(..., out=buffer)``. On a GPU, PyTorch's caching
    allocator already reuses freed blocks, and ``F.embedding``'s kernel is the faster one, so
    ``Lookup`` simply calls it.

    The CPU result is a view of the buffer that the next call overwrites: copy it to keep it. When the
    table requires grad and autograd is on, the lookup goes through ``F.embedding`` so that gradients
    flow (the buffer path cannot record them).

    Args:
        table: ``(V, d)`` float tensor on any device.

    Raises:
        ValueError, TypeError: the table is not a non-empty 2-D float tensor.
    """

    def __init__(self, table: torch.Tensor):
        _check_table(table)
        self.table = table
        self._out: torch.Tensor | None = None

    @property
    def path(self) -> str:
        """Which path a call takes here: ``"reused buffer"`` (CPU) or ``"F.embedding"``."""
        return "reused buffer" if self.table.device.type == "cpu" else "F.embedding"

    def __call__(self, ids: torch.Tensor) -> torch.Tensor:
        """Rows ``table[ids]`` (shape ``ids.shape + (d,)``); errors as in :func:`validate_ids`."""
        _check_table(self.table, ids)
        ids = validate_ids(ids, self.table.shape[0])
        if self.path != "reused buffer" or (self.table.requires_grad and torch.is_grad_enabled()):
            return F.embedding(ids, self.table)
        flat = ids.reshape(-1)
        n, d = flat.numel(), self.table.shape[1]
        if self._out is None or self._out.shape[0] < n or self._out.dtype != self.table.dtype:
            self._out = torch.zeros(n, d, dtype=self.table.dtype)  # touched once, here
        out = self._out[:n]
        torch.index_select(self.table, 0, flat, out=out)
        return out.view(*ids.shape, d)


@dataclass(frozen=True)
class Bandwidth:
    """One bandwidth measurement (:func:`bandwidth`): throughputs as fractions of a same-run copy."""

    device: str
    n_tokens: int
    dim: int
    vocab_size: int
    copy_gbps: float  # read + write, GB/s
    plain_fraction: float  # F.embedding's throughput / the copy's
    ours_fraction: float  # Lookup's throughput / the copy's
    fresh_output_share: float  # share of F.embedding's time that allocating + touching its output takes
    threads: int
    note: str  # a caveat when the sizes make the copy a poor reference, else ""


def _positive_int(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


def bandwidth(
    n_tokens: int = 65536, d: int = 1024, vocab_size: int = 50000, reps: int = 10, device: str | torch.device | None = None,
    seed: int = 0,
) -> Bandwidth:
    """Lookup throughput as a fraction of a plain memory copy of the same bytes, timed in one run.

    Both move ``n_tokens × d`` fp32 values in and out: the copy reads a contiguous block and writes it
    to an existing buffer; the lookup reads the selected rows and writes them. The four operations
    are timed in turn (:func:`embedbook.timing.interleaved`, best of ``reps``), so a busy machine slows
    them alike.

    Args:
        n_tokens, d, vocab_size: batch size, width, table rows (positive ints).
        reps: timed calls of each operation (>= 1).
        device: where to run (default :func:`embedbook.device.pick`).
        seed: seeds the table and the ids.

    Returns:
        a :class:`Bandwidth`.

    Raises:
        ValueError: a size or ``reps`` that is not a positive int; sizes that need more than
            :data:`MAX_BANDWIDTH_BYTES`; a device that is absent.
    """
    from embedbook.device import pick

    for name, value in (("n_tokens", n_tokens), ("d", d), ("vocab_size", vocab_size), ("reps", reps)):
        _positive_int(name, value)
    # the table, the ids, the source and destination and up to three outputs alive at once
    need = 4 * vocab_size * d + 8 * n_tokens + 5 * 4 * n_tokens * d
    if need > MAX_BANDWIDTH_BYTES:
        raise ValueError(f"n_tokens={n_tokens:,}, d={d:,}, vocab_size={vocab_size:,} need about {need / 2**30:,.1f} GiB, "
                         f"above the limit of {MAX_BANDWIDTH_BYTES / 2**30:.0f} GiB; use smaller sizes (a few hundred "
                         "MiB per buffer already measures memory bandwidth)")
    dev = pick(device)
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(vocab_size, d, generator=gen).to(dev)
    ids = torch.randint(0, vocab_size, (n_tokens,), generator=gen).to(dev)
    src = torch.randn(n_tokens, d, generator=gen).to(dev)
    dst = torch.zeros_like(src)
    lookup = Lookup(table)
    t = timing.interleaved(
        {
            "copy": lambda: dst.copy_(src),
            "plain": lambda: F.embedding(ids, table),
            "ours": lambda: lookup(ids),
            # the suspected culprit on its own: allocate an output of the same size and touch every page
            "fresh": lambda: torch.empty(n_tokens, d, device=dev).fill_(0),
        },
        reps=reps,
        warmup=2,
        device=dev,
    )
    if not torch.equal(lookup(ids), F.embedding(ids, table)):
        raise AssertionError("Lookup and F.embedding disagree")
    moved = 2 * n_tokens * d * table.element_size()
    note = ""
    if dev.type == "cpu" and moved / 2 < 8 * 2**20:
        note = (
            f"each buffer is {moved / 2 / 2**20:.1f} MiB, small enough to stay in the CPU's caches: the copy and the "
            "lookup measure cache speed and call overhead, not memory bandwidth; use at least 8 MiB per buffer"
        )
    return Bandwidth(
        device=dev.type,
        n_tokens=n_tokens,
        dim=d,
        vocab_size=vocab_size,
        copy_gbps=moved / t["copy"].best / 1e9,
        plain_fraction=t["copy"].best / t["plain"].best,
        ours_fraction=t["copy"].best / t["ours"].best,
        fresh_output_share=t["fresh"].best / t["plain"].best,
        threads=torch.get_num_threads(),
        note=note,
    )


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

    Args:
        ids: integer ids; table: ``(V, d)`` float tensor; world_size: processes (1 … V).

    Returns:
        ``table[ids]`` on the CPU.

    Raises:
        ValueError: ``world_size`` out of range; errors of :func:`validate_ids`.
    """
    import torch.multiprocessing as mp

    _check_table(table)
    validate_ids(ids, table.shape[0])
    if not isinstance(world_size, int) or world_size < 1 or world_size > table.shape[0]:
        raise ValueError(f"world_size must be an int between 1 and the number of rows ({table.shape[0]})")
    with tempfile.TemporaryDirectory() as tmp:
        init_file, out_file = os.path.join(tmp, "init"), os.path.join(tmp, "out.pt")
        mp.spawn(_shard_worker, args=(world_size, init_file, table.cpu(), ids.cpu(), out_file), nprocs=world_size, join=True)
        return torch.load(out_file)
