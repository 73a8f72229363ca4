"""Looking rows up in an embedding table: gather, the same lookup as a one-hot matrix product and as a
bias-free ``Linear``, a checked lookup that can gather into a buffer of your own (``out=``), its
bandwidth against a memory copy, and a vocab-parallel lookup over ``torch.distributed``. (The speed of
:class:`Lookup` and of quantised tables against ``F.embedding`` is :func:`embedbook.quantize.speed_ratios`.)

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
    "MAX_ONE_HOT_BYTES",
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
#: The largest one-hot matrix :func:`one_hot_matmul` and :func:`linear_lookup` build: 8 GiB.
MAX_ONE_HOT_BYTES = 8 * 2**30


def validate_ids(ids: torch.Tensor, vocab_size: int, values: bool = True) -> torch.Tensor:
    """Check that ``ids`` is a non-empty integer tensor with values in ``[0, vocab_size)``.

    Args:
        ids: token ids, any shape, any integer dtype.
        vocab_size: number of rows of the table.
        values: check the range too (one pass over the ids); ``False`` leaves it to a CPU kernel that
            checks every id itself (``F.embedding``, ``index_select``, the fused quantised kernels): the
            caller re-runs this check with ``values=True`` if the kernel refuses, for the same clear error.
            Not for GPUs, where an id out of range is a device-side assert that ruins the CUDA context.

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
    if not values:
        return ids.long()
    lo, hi = (int(x) for x in torch.aminmax(ids))  # one pass over the ids
    if lo < 0:
        raise IndexError(f"negative token id {lo}: ids must lie in [0, {vocab_size})")
    if hi >= vocab_size:
        raise IndexError(f"token id {hi} is out of range for a vocabulary of {vocab_size} rows")
    return ids.long()


_KERNEL_IDS = (torch.int64, torch.int32)  # the id dtypes torch's gathers take as they are


def _check_table(table: torch.Tensor, ids: torch.Tensor | None = None) -> None:
    if not isinstance(table, torch.Tensor):
        fix = "; convert it with torch.from_numpy(table)" if type(table).__module__ == "numpy" else ""
        raise TypeError(f"table must be a torch.Tensor of shape (vocab_size, dim), got a {type(table).__name__}{fix}")
    if table.dim() != 2:
        raise ValueError(f"table must be a 2-D tensor of shape (vocab_size, dim), got shape {tuple(table.shape)}")
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
    """The ``ids.numel() × V`` one-hot matrix in the table's dtype, after checking that it fits."""
    ids = validate_ids(ids, table.shape[0])
    need = ids.numel() * table.shape[0] * max(8, table.element_size())  # F.one_hot builds int64 first
    if need > MAX_ONE_HOT_BYTES:
        raise ValueError(f"a one-hot matrix of {ids.numel():,} ids × {table.shape[0]:,} rows needs {need / 2**30:,.1f} GiB, "
                         f"above the limit of {MAX_ONE_HOT_BYTES / 2**30:.0f} GiB; look the rows up with gather(ids, table) "
                         "(the same result without the one-hot), or pass fewer ids at a time")
    return F.one_hot(ids, table.shape[0]).to(table.dtype)


def one_hot_matmul(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """``one_hot(ids) @ table``: the lookup written as a matrix product (it materialises ``V``-wide rows).

    Same arguments, result and errors as :func:`gather`; the one-hot rows take the table's dtype, so
    fp16 and bf16 tables work too. A one-hot matrix above :data:`MAX_ONE_HOT_BYTES` (counted at 8 bytes
    an entry, as ``F.one_hot`` builds it) is refused with a ``ValueError`` before anything is allocated.
    """
    _check_table(table, ids)
    return _one_hot(ids, table) @ table


def linear_lookup(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """A bias-free ``nn.Linear(V, d)`` whose weight is ``table.T``, applied to one-hot inputs.

    Same arguments, result and errors as :func:`gather` (and the one-hot size limit of
    :func:`one_hot_matmul`). The layer is built in the table's dtype and on its device; no gradient is
    recorded.
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
    """An embedding lookup with its inputs checked, and an optional output buffer of your own.

    ``Lookup(table)(ids)`` returns a fresh tensor on every call: ``F.embedding(ids, table)``, the fastest
    way to a new output on the CPU and the GPU alike, with gradients when the table requires them.

    ``Lookup(table)(ids, out=buffer)`` gathers into ``buffer`` instead (``torch.index_select(...,
    out=buffer)``) and returns it. On the CPU that is where a large batch gains: a fresh output of
    ``tokens × d`` values is memory new to the process, and ``F.embedding`` spends most of its time
    page-faulting it in (the kernel zero-fills every page) rather than copying rows; a buffer reused from
    call to call has its pages already. The buffer's contents are overwritten by every call that is given
    it: keep a result by passing a different buffer, or by copying it. No gradient can flow through
    ``out=`` (as with every ``out=`` in PyTorch).

    The ids are checked as by :func:`validate_ids`; on the CPU their range is checked by the gather
    kernel itself as it runs (see :func:`validate_ids`'s ``values``), which keeps a small batch as fast as a bare
    ``F.embedding`` call, with the same clear errors.

    Args:
        table: ``(V, d)`` float tensor on any device.

    Raises:
        ValueError, TypeError: the table is not a non-empty 2-D float tensor.
    """

    def __init__(self, table: torch.Tensor):
        self.table = table

    @property
    def table(self) -> torch.Tensor:
        """The ``[V, d]`` float table rows are gathered from."""
        return self._table

    @table.setter
    def table(self, table: torch.Tensor) -> None:
        _check_table(table)
        self._table, self._on_cpu, self._dim = table, table.device.type == "cpu", table.shape[1]

    def __call__(self, ids: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        """Rows ``table[ids]``, shape ``ids.shape + (d,)``.

        Args:
            ids: integer token ids of any shape, on the table's device.
            out: ``None`` (a fresh tensor), or a contiguous tensor of shape ``ids.shape + (d,)`` with the
                table's dtype and device, written and returned.

        Raises:
            as :func:`validate_ids`; ``TypeError`` / ``ValueError``: an ``out`` that does not fit (the
                message names what it must be); ``RuntimeError``: ``out`` for a table that records
                gradients.
        """
        table, on_cpu = self._table, self._on_cpu
        if not (on_cpu and type(ids) is torch.Tensor and ids.is_cpu and ids.dtype in _KERNEL_IDS
                and ids.numel()):  # the fast path's conditions, checked in as few steps as possible
            _check_table(table, ids)
            ids = validate_ids(ids, table.shape[0], values=not on_cpu)
        if out is not None and on_cpu and type(out) is torch.Tensor and ids.dim() == 1 and out.dim() == 2 \
                and out.shape[0] == ids.shape[0] and out.shape[1] == self._dim and out.is_contiguous():
            # a flat batch into a buffer of its shape: the CPU kernel itself refuses another dtype or device, a
            # buffer that overlaps the table and a table that records gradients; the full check then names the fix
            try:
                return torch.index_select(table, 0, ids, out=out)
            except (IndexError, RuntimeError):
                self._check_out(ids, out)
                validate_ids(ids, table.shape[0])
                raise
        if out is not None:
            self._check_out(ids, out)
        try:  # on the CPU the kernel checks every id's range as it gathers (validate_ids names a refused id)
            if out is None:
                return torch.embedding(table, ids)  # what F.embedding calls, without its Python layer
            if ids.dim() == 1:  # no views to make for the common flat batch: a small gather is mostly overhead
                torch.index_select(table, 0, ids, out=out)
            else:
                torch.index_select(table, 0, ids.reshape(-1), out=out.view(-1, table.shape[1]))
            return out
        except (IndexError, RuntimeError):
            validate_ids(ids, table.shape[0])
            raise

    def _check_out(self, ids: torch.Tensor, out: torch.Tensor) -> None:
        shape, t = (*ids.shape, self.table.shape[1]), self.table
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"out must be a torch.Tensor of shape {shape}, got {type(out).__name__}; "
                            f"make one with torch.empty({shape}, dtype={t.dtype}, device='{t.device}')")
        if tuple(out.shape) != shape or out.dtype != t.dtype or out.device != t.device or not out.is_contiguous():
            raise ValueError(f"out must be a contiguous {t.dtype} tensor of shape {shape} on {t.device}, got "
                             f"{'a contiguous' if out.is_contiguous() else 'a non-contiguous'} {out.dtype} tensor of "
                             f"shape {tuple(out.shape)} on {out.device}; make one with torch.empty({shape}, "
                             f"dtype={t.dtype}, device='{t.device}')")
        if t.requires_grad and torch.is_grad_enabled():
            raise RuntimeError("out= cannot record gradients, and this table requires them: call without out=, "
                               "or inside torch.no_grad()")
        if _overlap(out, t):
            raise ValueError("out shares memory with the table (a view or slice of it): gathering into it would "
                             "overwrite rows while they are read; pass a separate buffer, e.g. "
                             f"torch.empty({shape}, dtype={t.dtype}, device='{t.device}')")


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the bytes ``a`` spans and those ``b`` spans share any memory (same storage, ranges intersect)."""
    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return False

    def span(x: torch.Tensor) -> tuple[int, int]:
        extent = 1 + sum((n - 1) * abs(st) for n, st in zip(x.shape, x.stride()))
        return x.data_ptr(), x.data_ptr() + extent * x.element_size()

    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 < b1 and b0 < a1


@dataclass(frozen=True)
class Bandwidth:
    """One bandwidth measurement (:func:`bandwidth`): throughputs as fractions of a same-run copy."""

    device: str
    n_tokens: int
    dim: int
    vocab_size: int
    copy_gbps: float  # read + write, GB/s
    plain_fraction: float  # F.embedding's throughput / the copy's
    ours_fraction: float  # Lookup's throughput / the copy's, gathering into a reused buffer (out=)
    fresh_output_share: float  # share of F.embedding's time that allocating + touching its output takes
    threads: int
    note: str  # a caveat when the sizes make the copy a poor reference, else ""


#: Below this many bytes a CPU buffer or table may sit in the caches, and a bandwidth figure says little.
_CACHE_BYTES = 8 * 2**20


def _refuse_above_limit(need: int, what: str, fix: str) -> None:
    """A benchmark's buffers must fit :data:`MAX_BANDWIDTH_BYTES`: refuse before allocating, naming the sizes."""
    if need > MAX_BANDWIDTH_BYTES:
        raise ValueError(f"{what} need about {need / 2**30:,.1f} GiB, above the limit of "
                         f"{MAX_BANDWIDTH_BYTES / 2**30:.0f} GiB; {fix}")


def _positive_int(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


def _cache_note(dev: torch.device, buffer_bytes: int, table_bytes: int) -> str:
    """The caveat of :func:`bandwidth` when its buffers or its table are small enough to stay in the CPU's caches."""
    notes = []
    if dev.type == "cpu" and buffer_bytes < _CACHE_BYTES:
        notes.append(
            f"each buffer is {buffer_bytes / 2**20:.1f} MiB, small enough to stay in the CPU's caches: the copy and the "
            f"lookup measure cache speed and call overhead, not memory bandwidth; use at least {_CACHE_BYTES // 2**20} "
            "MiB per buffer"
        )
    if dev.type == "cpu" and table_bytes < _CACHE_BYTES:
        notes.append(
            f"the table is {table_bytes / 2**20:.2f} MiB, small enough to stay in the CPU's caches: the lookup reads "
            "its rows from cache while the copy reads its source from memory, so the lookup can pass 100% of the "
            f"copy; use a table of at least {_CACHE_BYTES // 2**20} MiB (vocab_size × d × 4 bytes) to compare memory "
            "traffic"
        )
    return "; ".join(notes)


def bandwidth(
    n_tokens: int = 65536, d: int = 1024, vocab_size: int = 50000, reps: int = 10, device: str | torch.device | None = None,
    seed: int = 0,
) -> Bandwidth:
    """Lookup throughput as a fraction of a plain memory copy of the same bytes, timed in one run.

    Both move ``n_tokens × d`` fp32 values in and out: the copy reads a contiguous block and writes it
    to an existing buffer; the lookup reads the selected rows and writes them: ``F.embedding`` into a
    fresh output, :class:`Lookup` into a reused one (``out=``). The four operations
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
    _refuse_above_limit(need, f"n_tokens={n_tokens:,}, d={d:,}, vocab_size={vocab_size:,}",
                        "use smaller sizes (a few hundred MiB per buffer already measures memory bandwidth)")
    dev = pick(device)
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(vocab_size, d, generator=gen).to(dev)
    ids = torch.randint(0, vocab_size, (n_tokens,), generator=gen).to(dev)
    src = torch.randn(n_tokens, d, generator=gen).to(dev)
    dst = torch.zeros_like(src)
    lookup, buffer = Lookup(table), torch.empty(n_tokens, d, device=dev)
    t = timing.interleaved(
        {
            "copy": lambda: dst.copy_(src),
            "plain": lambda: F.embedding(ids, table),
            "ours": lambda: lookup(ids, out=buffer),
            # the suspected culprit on its own: allocate an output of the same size and touch every page
            "fresh": lambda: torch.empty(n_tokens, d, device=dev).fill_(0),
        },
        reps=reps,
        warmup=2,
        device=dev,
    )
    if not torch.equal(lookup(ids, out=buffer), F.embedding(ids, table)):
        raise AssertionError("Lookup and F.embedding disagree")
    moved = 2 * n_tokens * d * table.element_size()
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
        note=_cache_note(dev, moved // 2, table.numel() * table.element_size()),
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


_NO_MAIN_GUARD = ("vocab_parallel_lookup starts its workers with the 'spawn' method, which re-imports the main "
                  "script in each worker; in a script, call it under  if __name__ == \"__main__\":  so that the "
                  "workers do not call it again")


def vocab_parallel_lookup(ids: torch.Tensor, table: torch.Tensor, world_size: int = 2) -> torch.Tensor:
    """Look ``ids`` up in ``table`` split row-wise over ``world_size`` processes (Megatron-style).

    Each process holds ``V / world_size`` rows, looks up the ids it owns, zeros the rest, and an
    all-reduce sums the partial results. Uses gloo on CPU and nccl when there are enough GPUs.

    The worker processes are started with the *spawn* method, which re-imports the main script in each
    of them: in a script, call this under ``if __name__ == "__main__":`` (notebooks and ``python -c`` need
    nothing). Without the guard, each worker would call it again while starting; that is detected, the
    worker stops with one line naming the fix, and this call raises a ``RuntimeError`` saying the same.

    Args:
        ids: integer ids; table: ``(V, d)`` float tensor; world_size: processes (1 … V).

    Returns:
        ``table[ids]`` on the CPU.

    Raises:
        ValueError: ``world_size`` out of range; errors of :func:`validate_ids`. RuntimeError: a worker
            failed to start (the usual cause: the missing ``__main__`` guard above).
    """
    import multiprocessing

    import torch.multiprocessing as mp

    if getattr(multiprocessing.current_process(), "_inheriting", False):  # a spawned worker re-running the script
        raise SystemExit(_NO_MAIN_GUARD)

    _check_table(table)
    validate_ids(ids, table.shape[0])
    if not isinstance(world_size, int) or world_size < 1 or world_size > table.shape[0]:
        raise ValueError(f"world_size must be an int between 1 and the number of rows ({table.shape[0]})")
    with tempfile.TemporaryDirectory() as tmp:
        init_file, out_file = os.path.join(tmp, "init"), os.path.join(tmp, "out.pt")
        try:
            mp.spawn(_shard_worker, args=(world_size, init_file, table.cpu(), ids.cpu(), out_file), nprocs=world_size,
                     join=True)
        except mp.ProcessExitedException as err:
            raise RuntimeError(f"a worker process of vocab_parallel_lookup exited while starting (exit code "
                               f"{err.exit_code}). {_NO_MAIN_GUARD}") from None
        return torch.load(out_file)
