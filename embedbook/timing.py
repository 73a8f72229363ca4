"""One timer for every measurement in the package and the book.

:func:`measure` times one function; :func:`interleaved` times several in turn (A, B, C, A, B, C, …) so
that whatever else the machine is doing slows them alike, and a ratio of their times stays meaningful
on a busy machine. Both run ``warmup`` untimed calls first (caches, lazy initialisation, the CUDA
context), synchronise the device around every call when it is a GPU (kernels run asynchronously, so
an unsynchronised timer measures only the launch), and report the best and the median of ``reps``
timed calls: the best is the least disturbed estimate of the cost, the median shows the typical one.

Wall-clock figures are illustrations: the book glues them under names starting with ``bench_`` and no
verdict or test outcome depends on them alone.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping

import torch

from embedbook.device import pick

__all__ = ["Timing", "interleaved", "measure", "synchronize"]


@dataclass(frozen=True)
class Timing:
    """Seconds per call: ``best`` and ``median`` of the timed ``times``."""

    best: float
    median: float
    times: tuple[float, ...]

    @property
    def reps(self) -> int:
        """How many timed calls."""
        return len(self.times)


def _device(device: torch.device | str | None) -> torch.device:
    """The checked device: None is the CPU; anything else goes through :func:`embedbook.device.pick`,
    which names an unknown or absent device and the fix."""
    return torch.device("cpu") if device is None else pick(device)


def synchronize(device: torch.device | str | None) -> None:
    """Wait for the device's queued work (CUDA, MPS); nothing to wait for on the CPU.

    Raises:
        ValueError: an unknown device name. RuntimeError: a device that is not present here.
    """
    dev = _device(device)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    elif dev.type == "mps":
        torch.mps.synchronize()


@contextlib.contextmanager
def one_cpu_thread(device: torch.device | str | None = None) -> Iterator[None]:
    """Run the block on one CPU thread (when ``device`` is the CPU), restoring the thread count after.

    For timings that must survive a busy machine: a multi-threaded operator waits for its slowest
    thread, so when another process takes a core single calls become arbitrarily slow; on one thread
    the load slows every call alike, and a ratio of interleaved times stays meaningful.
    """
    threads = torch.get_num_threads()
    if _device(device).type == "cpu":
        torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _check(reps: int, warmup: int) -> None:
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise ValueError(f"reps must be an int >= 1, got {reps!r}")
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0, got {warmup!r}")


def interleaved(
    fns: Mapping[str, Callable[[], object]], *, reps: int = 7, warmup: int = 1, device: torch.device | str | None = None
) -> dict[str, Timing]:
    """Time each function of ``fns`` ``reps`` times, taking turns, after ``warmup`` untimed rounds.

    Args:
        fns: name → zero-argument function to time.
        reps: timed calls per function (>= 1).
        warmup: untimed rounds first (>= 0).
        device: the device the functions compute on; a GPU is synchronised around every call.

    Returns:
        name → :class:`Timing`.

    Raises:
        TypeError: ``fns`` is not a mapping of names to functions.
        ValueError: no functions, ``reps`` / ``warmup`` out of range, or an unknown device name.
        RuntimeError: a device that is not present here (see :func:`embedbook.device.pick`).
    """
    _check(reps, warmup)
    if not isinstance(fns, Mapping):
        raise TypeError(f"fns must map names to functions, e.g. {{'a': f, 'b': g}}; got {type(fns).__name__}")
    if not fns:
        raise ValueError("nothing to time: pass at least one function")
    bad = [name for name, fn in fns.items() if not callable(fn)]
    if bad:
        raise TypeError(f"fns must map names to zero-argument functions; not callable: {bad}")
    device = _device(device)
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    synchronize(device)
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            synchronize(device)
            times[name].append(time.perf_counter() - start)
    return {name: Timing(min(t), statistics.median(t), tuple(t)) for name, t in times.items()}


def measure(fn: Callable[[], object], *, reps: int = 7, warmup: int = 1, device: torch.device | str | None = None) -> Timing:
    """Time ``fn`` alone: :func:`interleaved` with one function (same arguments, same errors)."""
    if not callable(fn):
        raise TypeError(f"fn must be a zero-argument function, got {type(fn).__name__}")
    return interleaved({"fn": fn}, reps=reps, warmup=warmup, device=device)["fn"]
