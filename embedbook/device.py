"""Where computation runs (cuda → mps → cpu) and how to make it repeatable.

Used by every chapter: ``device.pick()`` for tensors and models, ``device.seed_everything()``
once per chapter, ``device.describe()`` on the status page.
"""

from __future__ import annotations

import os
import platform
import random

import numpy as np
import torch

__all__ = [
    "pick",
    "seed_everything",
    "describe",
]

_KNOWN = ("cuda", "mps", "cpu")


def pick(prefer: str | torch.device | None = None) -> torch.device:
    """The device to compute on: ``prefer``, else ``$EMBEDBOOK_DEVICE``, else the best available
    (``cuda``, then ``mps``, then ``cpu``).

    Args:
        prefer: ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"`` or a ``torch.device``; None picks.

    Returns:
        a ``torch.device``.

    Raises:
        ValueError: an unknown device name. RuntimeError: a device that is not present here (asking
            for one never silently falls back to another).
    """
    if isinstance(prefer, torch.device):
        prefer = str(prefer)
    if prefer is not None and not isinstance(prefer, str):
        raise TypeError(f"prefer must be a device name or torch.device, got {type(prefer).__name__}")
    if prefer is not None:
        prefer = prefer.strip().lower()  # 'CPU', ' cuda ' name the same devices
        if not prefer:  # "" is a name left blank, not a request to choose: say so rather than pick silently
            raise ValueError("prefer is an empty device name; pass 'cpu', 'cuda', 'cuda:1' or 'mps', or None to pick "
                             "the best available")
    env = os.environ.get("EMBEDBOOK_DEVICE")
    if env is not None:
        env = env.strip().lower()
    want = prefer or env
    if want:
        source = f"device {want!r}" if prefer else f"EMBEDBOOK_DEVICE={want!r}"
        fix = "pick another device" if prefer else "unset EMBEDBOOK_DEVICE or set it to 'cpu'"
        kind = want.split(":")[0]
        if kind not in _KNOWN:
            raise ValueError(f"unknown {source}: use one of {_KNOWN} (optionally with an index, e.g. 'cuda:0')")
        if kind == "cuda":
            if not torch.cuda.is_available():
                raise RuntimeError(f"{source} asks for CUDA, which is not available here; {fix}")
            index = want.split(":")[1] if ":" in want else "0"
            if not index.isdigit() or int(index) >= torch.cuda.device_count():
                raise RuntimeError(f"{source}: there are {torch.cuda.device_count()} CUDA device(s) here; {fix}")
        if kind == "mps" and not torch.backends.mps.is_available():
            raise RuntimeError(f"{source} asks for MPS, which is not available here; {fix}")
        return torch.device(want)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def seed_everything(seed: int = 0) -> torch.Generator:
    """Seed Python, NumPy and torch (all devices) and return a CPU generator seeded the same way.

    Raises:
        ValueError: ``seed`` is not an int in ``0 .. 2**63 - 1`` (torch's range).
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an int in 0 .. 2**63 - 1, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def describe() -> dict[str, str]:
    """Facts about this machine for the status page: Python, torch, device, threads.

    A bad ``EMBEDBOOK_DEVICE`` is reported in the ``device`` entry instead of raising.
    """
    try:
        dev = pick()
    except (ValueError, RuntimeError) as err:
        device = f"none: {err}"
    else:
        name = torch.cuda.get_device_name(0) if dev.type == "cuda" else platform.processor() or platform.machine()
        device = f"{dev.type} ({name})"
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": device,
        "cpu threads": str(torch.get_num_threads()),
        "platform": platform.platform(),
    }
