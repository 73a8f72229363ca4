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

_KNOWN = ("cuda", "mps", "cpu")


def pick(prefer: str | None = None) -> torch.device:
    """The best available device: ``cuda``, then ``mps``, then ``cpu``.

    ``prefer`` (or the environment variable ``EMBEDBOOK_DEVICE``) forces one; asking for a device
    that is not present raises instead of silently falling back.
    """
    want = prefer or os.environ.get("EMBEDBOOK_DEVICE")
    if want:
        kind = want.split(":")[0]
        if kind not in _KNOWN:
            raise ValueError(f"unknown device {want!r}: use one of {_KNOWN}")
        if kind == "cuda" and not torch.cuda.is_available():
            raise RuntimeError(f"device {want!r} requested but CUDA is not available; unset EMBEDBOOK_DEVICE")
        if kind == "mps" and not torch.backends.mps.is_available():
            raise RuntimeError(f"device {want!r} requested but MPS is not available; unset EMBEDBOOK_DEVICE")
        return torch.device(want)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def seed_everything(seed: int = 0) -> torch.Generator:
    """Seed Python, NumPy and torch (all devices) and return a CPU generator seeded the same way."""
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def describe() -> dict[str, str]:
    """Facts about this machine for the status page: Python, torch, device, threads."""
    dev = pick()
    name = torch.cuda.get_device_name(0) if dev.type == "cuda" else platform.processor() or platform.machine()
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": f"{dev.type} ({name})",
        "cpu threads": str(torch.get_num_threads()),
        "platform": platform.platform(),
    }
