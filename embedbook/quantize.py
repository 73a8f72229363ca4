"""Quantising an embedding table: int8 and packed int4, row-wise or per-tensor scales.

:func:`quantize` turns a float ``[V, d]`` table into a :class:`QuantizedTable` (integer codes plus
float32 scales, with exact byte accounting), :func:`dequantize` turns it back, and
:class:`QuantizedEmbedding` is a drop-in replacement for ``nn.Embedding`` that stores the codes and
dequantises only the rows it looks up, on the CPU or a GPU. :func:`fake_quantized` swaps chosen
weights of a model for their quantised round trip for the length of a ``with`` block.

Scheme: symmetric absmax. A row (or the whole table) with largest magnitude ``m`` gets the scale
``m / qmax`` with ``qmax`` = 127 (int8) or 7 (int4); an int4 scale is then rounded to fp16's precision
(11 significant bits, any exponent: a relative change of at most ``2**-11``), so that PyTorch's fused
4-bit kernel, which reads fp16 scales, reproduces the values exactly. The codes are ``round(x / scale)``,
clamped to ``[-qmax, qmax]``; dequantised, a value is ``code * scale``, at most half a step (``scale / 2``)
from the original. An all-zero row gets scale 0 and codes 0, so it comes back as exact zeros.
int4 codes are stored as unsigned nibbles (code + 8), two per byte, so ``d`` must be even.

Everything runs on the device its inputs live on.
"""

from __future__ import annotations

import contextlib
import functools
import re
import statistics
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np
import torch
import torch.nn.functional as F

from embedbook.device import pick
from embedbook import lookup, timing
from embedbook.lookup import validate_ids

__all__ = [
    "BITS", "QMAX", "SCHEMES", "SPEED_NAMES", "QuantizedEmbedding", "QuantizedTable", "SpeedRatios",
    "attention_linears", "dequantize", "fake_quantized", "pack_int4", "quantize", "relative_error", "roundtrip",
    "speed_ratios", "unpack_int4",
]

BITS = (8, 4)
SCHEMES = ("row", "tensor", "affine")  # affine: per row, min/max with an offset (a zero point)
QMAX = {8: 127, 4: 7}
_CHUNK = 1 << 18  # elements quantised at a time: temporaries stay at ~1 MB whatever the table's size


@dataclass
class QuantizedTable:
    """A quantised ``[V, d]`` table: integer codes, float32 scales, how they were made, the shape.

    Attributes:
        codes: ``int8 [V, d]`` for 8 bits; ``uint8 [V, d/2]`` for 4 bits (two nibbles a byte).
        scales: float32, ``[V]`` (row-wise: one scale per row) or ``[1]`` (per-tensor); int4 scales carry
            fp16's precision (11 significant bits).
        bits: 8 or 4.
        scheme: ``"row"`` (symmetric: ``code * scale``), ``"tensor"`` (one symmetric scale) or ``"affine"``
            (per row, from the row's minimum and maximum: ``code * scale + offset``).
        shape: ``(V, d)`` of the float table.
        offsets: float32 ``[V]`` for ``"affine"`` (the value code 0 stands for), else None.

    Raises:
        TypeError, ValueError: fields that do not fit together (wrong dtype or shape), when built by hand.
    """

    codes: torch.Tensor
    scales: torch.Tensor
    bits: int
    scheme: str
    shape: tuple[int, int]
    offsets: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if self.bits not in BITS:
            raise ValueError(f"bits must be one of {BITS}, got {self.bits!r}")
        if self.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {SCHEMES}, got {self.scheme!r}")
        if not isinstance(self.codes, torch.Tensor) or not isinstance(self.scales, torch.Tensor):
            raise TypeError("codes and scales must be torch tensors; build a QuantizedTable with quantize(table)")
        v, d = self.shape
        want = (torch.int8, (v, d)) if self.bits == 8 else (torch.uint8, (v, d // 2))
        if self.codes.dtype != want[0] or tuple(self.codes.shape) != want[1]:
            raise ValueError(f"int{self.bits} codes for a {v}×{d} table must be {want[0]} of shape {want[1]}, "
                             f"got {self.codes.dtype} {tuple(self.codes.shape)}")
        if (self.offsets is not None) != (self.scheme == "affine"):
            raise ValueError("an 'affine' table has one float32 offset a row (the value of code 0), and only an affine "
                             f"one; got scheme {self.scheme!r} with offsets {'given' if self.offsets is not None else 'None'}")
        if self.offsets is not None and (not isinstance(self.offsets, torch.Tensor) or self.offsets.dtype != torch.float32
                                         or tuple(self.offsets.shape) != (v,) or self.offsets.device != self.codes.device):
            raise ValueError(f"affine offsets must be float32 of shape ({v},) on the codes' device")
        n_scales = 1 if self.scheme == "tensor" else v
        if self.scales.dtype != torch.float32 or tuple(self.scales.shape) != (n_scales,):
            raise ValueError(f"{self.scheme} scales must be float32 of shape ({n_scales},), "
                             f"got {self.scales.dtype} {tuple(self.scales.shape)}")
        if self.scales.device != self.codes.device:
            raise ValueError(f"codes are on {self.codes.device} but scales on {self.scales.device}")
        if self.scales.device.type != "meta" and not (torch.isfinite(self.scales).all() and (self.scales >= 0).all()):
            raise ValueError("scales must be finite and >= 0 (a row's largest magnitude / QMAX); build a "
                             "QuantizedTable with quantize(table)")

    @property
    def device(self) -> torch.device:
        """Where the codes and scales live."""
        return self.codes.device

    @property
    def nbytes(self) -> int:
        """Bytes actually stored: codes plus scales (and an affine table's offsets)."""
        return sum(t.numel() * t.element_size() for t in (self.codes, self.scales, self.offsets) if t is not None)

    @property
    def fp32_bytes(self) -> int:
        """Bytes of the same table in float32."""
        return self.shape[0] * self.shape[1] * 4

    @property
    def ratio(self) -> float:
        """Memory reduction against float32 (the articles' "4× / 8×"), scales counted."""
        return self.fp32_bytes / self.nbytes

    def to(self, device: torch.device | str) -> "QuantizedTable":
        """The same table with its codes and scales on ``device`` (a new object; ``self`` is unchanged).

        Raises:
            ValueError: an unknown device name. RuntimeError: a device that is not present here (see
                :func:`embedbook.device.pick`).
        """
        dev = pick(device)
        return QuantizedTable(self.codes.to(dev), self.scales.to(dev), self.bits, self.scheme, self.shape,
                              None if self.offsets is None else self.offsets.to(dev))


def _as_table(table) -> torch.Tensor:
    """A validated 2-D float tensor (same device, no copy when already a tensor)."""
    if isinstance(table, torch.nn.Embedding):
        raise TypeError("pass the embedding's weight (embedding.weight), or use QuantizedEmbedding.from_float(embedding)")
    if isinstance(table, np.ndarray):
        if not np.issubdtype(table.dtype, np.floating):
            raise TypeError(f"table must hold floats, got a {table.dtype} array; convert it with .astype(np.float32)")
        table = torch.from_numpy(np.ascontiguousarray(table))
    if not isinstance(table, torch.Tensor):
        raise TypeError(f"table must be a 2-D float torch.Tensor or NumPy array [V, d], got {type(table).__name__}")
    if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0:
        raise ValueError(f"table must be a non-empty 2-D [V, d] array, got shape {tuple(table.shape)}")
    if table.device.type == "meta":
        raise ValueError("the table is on the meta device, which holds no values; build it on a real device "
                         "(for sizes alone, see embedbook.sizing)")
    if not table.is_floating_point():
        raise TypeError(f"table must be floating point, got {table.dtype}; convert it with .float()")
    return table.detach()


def _absmax(x: torch.Tensor, first_row: int) -> torch.Tensor:
    """Largest magnitude of each row of ``x``; raises if a row holds NaN or infinity (max propagates both)."""
    m = x.abs().amax(dim=1)
    if not torch.isfinite(m).all():
        bad = int((~torch.isfinite(m)).nonzero()[0, 0])
        raise ValueError(f"table contains NaN or infinity (first in row {first_row + bad}); "
                         "clean or clip the table before quantising")
    top = torch.finfo(torch.float32).max
    if x.dtype.itemsize > 4 and bool((m > top).any()):  # finite in float64, infinite once in float32
        bad = int((m > top).nonzero()[0, 0])
        raise ValueError(f"table holds values beyond float32's range (|x| = {float(m[bad]):.3g} > {top:.3g}, first "
                         f"in row {first_row + bad}); the scales are float32: rescale the table (divide it by a "
                         "constant) before quantising")
    return m.float()


def pack_int4(codes: torch.Tensor) -> torch.Tensor:
    """Pack signed int4 codes, two per byte.

    Args:
        codes: integer tensor ``[..., d]`` with values in ``[-8, 7]`` and an even last dimension.

    Returns:
        ``uint8 [..., d/2]``: element ``2j`` in the low nibble and ``2j+1`` in the high one, each stored as
        ``code + 8``.

    Raises:
        TypeError: not an integer tensor. ValueError: an odd last dimension, or a code outside ``[-8, 7]``.
    """
    if not isinstance(codes, torch.Tensor) or codes.is_floating_point() or codes.dtype == torch.bool:
        raise TypeError("codes must be an integer torch.Tensor")
    if codes.ndim == 0 or codes.shape[-1] % 2:
        raise ValueError(f"packed int4 needs an even last dimension, got shape {tuple(codes.shape)}; "
                         "pad the table by one column")
    if codes.numel() and (codes.min() < -8 or codes.max() > 7):
        raise ValueError("int4 codes must lie in [-8, 7]")
    u = (codes.to(torch.int16) + 8).to(torch.uint8)
    return u[..., 0::2] | (u[..., 1::2] << 4)


def unpack_int4(packed: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`pack_int4`.

    Args:
        packed: ``uint8 [..., d/2]``.

    Returns:
        ``int8 [..., d]`` codes in ``[-8, 7]``.

    Raises:
        TypeError: not a uint8 tensor.
    """
    if not isinstance(packed, torch.Tensor):
        raise TypeError(f"packed must be a uint8 torch tensor, got a {type(packed).__name__}"
                        + ("; convert it with torch.from_numpy(...)" if isinstance(packed, np.ndarray) else ""))
    if packed.dtype != torch.uint8:
        raise TypeError(f"packed must be a uint8 tensor, got {packed.dtype}")
    lo = (packed & 0x0F).to(torch.int8) - 8
    hi = (packed >> 4).to(torch.int8) - 8
    return torch.stack((lo, hi), dim=-1).flatten(-2)


def quantize(table: torch.Tensor | np.ndarray, bits: int = 8, scheme: str = "row") -> QuantizedTable:
    """Quantise a float ``[V, d]`` table to int8 or packed int4 codes with float32 scales.

    A scale is the row's (or table's) largest magnitude over 127 (int8) or 7 (int4); int4 scales are
    rounded to fp16's 11 significant bits (see the module's docstring). The ``"affine"`` scheme uses each row's
    range instead: ``scale = (max - min) / 255`` (int8) or ``/ 15`` (int4), and an offset so that the codes
    span the row from its minimum to its maximum (the min/max scheme of ``torch.ao.quantization``: every code
    is used, so a row whose values are not centred on 0 loses less; it costs 4 bytes a row for the offset).

    Works on the table's device, a block of rows at a time, so a table of any size needs little
    memory beyond its codes.

    Args:
        table: float tensor (any float dtype, any device) or NumPy array, shape ``[V, d]``.
        bits: 8 or 4.
        scheme: ``"row"`` (one scale per row: a large-norm row cannot crush the small ones),
            ``"tensor"`` (one scale for the whole table) or ``"affine"`` (per row, min/max with an offset).

    Returns:
        a :class:`QuantizedTable` on the table's device.

    Raises:
        ValueError: other bit widths or schemes, NaN or infinity in the table, an empty or non-2-D
            table, or an odd ``d`` with 4 bits. TypeError: not a float tensor or array.
    """
    if isinstance(bits, bool) or not isinstance(bits, int) or bits not in BITS:  # 8.0 is not a bit width
        raise ValueError(f"bits must be one of {BITS} (an int), got {bits!r}")
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    t = _as_table(table)
    v, d = (int(n) for n in t.shape)
    if bits == 4 and d % 2:
        raise ValueError(f"packed int4 needs an even dimension, got d={d}; pad the table by one column")
    qmax = QMAX[bits]
    step = max(1, _CHUNK // d)
    if scheme == "affine":
        return _quantize_affine(t, bits, step)
    blocks = [(s, min(s + step, v)) for s in range(0, v, step)]
    if scheme == "tensor":  # one pass for the global absmax first
        absmax = torch.zeros((), device=t.device)
        for s, e in blocks:
            absmax = torch.maximum(absmax, _absmax(t[s:e], s).amax())
        scales = (absmax / qmax).reshape(1)
        if bits == 4:
            scales = _to_half_precision(scales)
    else:
        scales = torch.empty(v, device=t.device)
    codes = torch.empty((v, d if bits == 8 else d // 2), dtype=torch.int8 if bits == 8 else torch.uint8, device=t.device)
    for s, e in blocks:
        if scheme == "row":  # absmax in the table's own dtype, so that a float64 beyond float32's range is named
            scales[s:e] = _absmax(t[s:e], s) / qmax
            if bits == 4:
                scales[s:e] = _to_half_precision(scales[s:e])
            div = scales[s:e, None]
        else:
            div = scales
        x = t[s:e].float()
        div = torch.where(div > 0, div, torch.ones_like(div))  # zero rows: divide by 1, the codes stay 0
        c = torch.div(x, div).round_().clamp_(-qmax, qmax).to(torch.int8)
        codes[s:e] = c if bits == 8 else pack_int4(c)
    return QuantizedTable(codes, scales.float(), bits, scheme, (v, d))


def _quantize_affine(t: torch.Tensor, bits: int, step: int) -> QuantizedTable:
    """Per row: codes ``c`` in ``[-2^(b-1), 2^(b-1) - 1]`` with ``x ≈ c * scale + offset``, where the lowest code
    stands for the row's minimum and the highest for its maximum."""
    v, d = (int(n) for n in t.shape)
    low, levels = -(QMAX[bits] + 1), 2 ** bits - 1  # codes -128..127 (255 steps) or -8..7 (15 steps)
    scales, offsets = torch.empty(v, device=t.device), torch.empty(v, device=t.device)
    codes = torch.empty((v, d if bits == 8 else d // 2), dtype=torch.int8 if bits == 8 else torch.uint8, device=t.device)
    for s in range(0, v, step):
        e = min(s + step, v)
        _absmax(t[s:e], s)  # names NaN, infinity or float64 beyond float32 first
        x = t[s:e].float()
        lo, hi = x.amin(dim=1), x.amax(dim=1)
        scale = (hi - lo) / levels
        scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # a constant row: every code stands for it
        offset = lo - low * scale  # code `low` stands for the row's minimum
        c = ((x - offset[:, None]) / scale[:, None]).round_().clamp_(low, -low - 1).to(torch.int8)
        scales[s:e], offsets[s:e] = torch.where(hi > lo, scale, torch.zeros_like(scale)), offset
        offsets[s:e] = torch.where(hi > lo, offset, lo)  # a constant row: scale 0, every code stands for the value
        codes[s:e] = c if bits == 8 else pack_int4(c)
    return QuantizedTable(codes, scales, bits, "affine", (v, d), offsets)


def _rows(q: QuantizedTable, ids: torch.Tensor) -> torch.Tensor:
    """Dequantise the rows ``ids`` (any shape, on the table's device) to float32 ``[*ids.shape, d]``."""
    codes = q.codes[ids]
    if q.bits == 4:
        codes = unpack_int4(codes)
    scale = q.scales[0] if q.scheme == "tensor" else q.scales[ids].unsqueeze(-1)
    if q.offsets is not None:
        return torch.addcmul(q.offsets[ids].unsqueeze(-1), codes.float(), scale)
    return codes.float() * scale


def dequantize(q: QuantizedTable) -> torch.Tensor:
    """The float32 ``[V, d]`` table that ``q`` stands for: ``code * scale`` for every value (``+ offset`` for an
    affine table).

    Args:
        q: a :class:`QuantizedTable`.

    Returns:
        float32 ``[V, d]`` on ``q``'s device.

    Raises:
        TypeError: ``q`` is not a :class:`QuantizedTable`.
    """
    if not isinstance(q, QuantizedTable):
        raise TypeError(f"dequantize takes a QuantizedTable (from quantize), got {type(q).__name__}")
    return _rows(q, torch.arange(q.shape[0], device=q.device))


def roundtrip(table: torch.Tensor | np.ndarray, bits: int = 8, scheme: str = "row") -> torch.Tensor:
    """``dequantize(quantize(table, bits, scheme))``: the table as the quantised model sees it.

    Args:
        table, bits, scheme: as :func:`quantize`.

    Returns:
        float32 ``[V, d]`` on the table's device.

    Raises:
        as :func:`quantize`.
    """
    return dequantize(quantize(table, bits, scheme))


def relative_error(table: torch.Tensor | np.ndarray, approx: torch.Tensor | np.ndarray) -> float:
    """Frobenius-norm relative error ``||A - B|| / ||A||`` (0 whenever ``B`` equals a table ``A`` that is not all
    zeros; an all-zero ``A`` has no relative error, even against itself, and is refused).

    Args:
        table: the original ``[V, d]`` table ``A``.
        approx: its approximation ``B`` (e.g. :func:`roundtrip`), same shape and device.

    Returns:
        the relative error, a float ``>= 0``.

    Raises:
        ValueError: shapes or devices differ, NaN/infinity, or an all-zero ``A``.
        TypeError: not float tensors or arrays.
    """
    a, b = _as_table(table).float(), _as_table(approx).float()
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}")
    if a.device != b.device:
        raise ValueError(f"the table is on {a.device} but the approximation on {b.device}; move one with .to(...)")
    if not (torch.isfinite(a).all() and torch.isfinite(b).all()):
        raise ValueError("NaN or infinity in a table: the error is undefined")
    # rescale by the largest magnitude first, so that values near float32's limit neither overflow nor underflow
    if not a.any():
        raise ValueError("the table is all zeros: a relative error against it is undefined (0/0 even against an "
                         "all-zero approximation); compare absolute errors, e.g. (approx - table).abs().max()")
    scale = torch.maximum(a.abs().max(), b.abs().max())
    return float((a / scale - b / scale).norm()) / float((a / scale).norm())


def _to_half_precision(scales: torch.Tensor) -> torch.Tensor:
    """Non-negative float32 ``scales`` rounded to nearest (ties to even) with fp16's 11 significant bits.

    Every exponent is kept, so the result is a float32 within a relative ``2**-11`` of the input; in fp16's
    normal range it equals ``scales.half().float()``. Float32 subnormals (below ``2**-126``), which have
    fewer bits than that already, are left unchanged (rounding them could give 0).
    """
    scales = scales.float().contiguous()
    bits = scales.view(torch.int32)
    rounded = ((bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF).view(torch.float32)
    return torch.where(scales >= torch.finfo(torch.float32).tiny, rounded, scales)  # subnormals stay as they are


def _fits_half(scales: torch.Tensor) -> bool:
    """Whether every scale and its offset ``-8 * scale`` is exactly an fp16 value (what the 4-bit kernel reads)."""
    both = torch.cat([scales, -8 * scales])
    return bool(torch.equal(both.half().float(), both))


def _bytes_as(raw: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``[n, k]`` uint8 bytes read as ``[n]`` of ``dtype`` (a fresh copy: the view needs an aligned start)."""
    return raw.clone(memory_format=torch.contiguous_format).view(dtype).reshape(-1)


def _pack(q: QuantizedTable) -> torch.Tensor:
    """``q`` in the layout of PyTorch's fused row-wise kernels: ``uint8 [V, row bytes]``, per row the codes as
    unsigned integers (int8: ``code + 128``; int4: the packed nibbles, ``code + 8``) and then the scale and the
    offset (``-128 * scale`` / ``-8 * scale``): float32 for int8, float16 for int4."""
    scale = q.scales[:, None].contiguous()
    if q.bits == 8:
        unsigned, dtype = (q.codes.to(torch.int16) + 128).to(torch.uint8), torch.float32
    else:
        unsigned, dtype = q.codes, torch.float16
    offset = -(QMAX[q.bits] + 1) * scale
    return torch.cat([unsigned, scale.to(dtype).view(torch.uint8), offset.to(dtype).view(torch.uint8)], 1)


def _unpack(packed: torch.Tensor, bits: int, shape: tuple[int, int]) -> tuple[torch.Tensor, torch.Tensor]:
    """Codes and float32 scales of a row-wise table stored by :func:`_pack`."""
    width = shape[1] if bits == 8 else shape[1] // 2
    dtype = torch.float32 if bits == 8 else torch.float16
    codes = packed[:, :width]
    codes = (codes.to(torch.int16) - 128).to(torch.int8) if bits == 8 else codes.contiguous()
    scales = _bytes_as(packed[:, width:width + dtype.itemsize], dtype).float()
    return codes, scales


_KERNEL_NAMES = {8: "embedding_bag_byte_rowwise_offsets", 4: "embedding_bag_4bit_rowwise_offsets"}
_HAS_FUSED = all(hasattr(torch.ops.quantized, name) for name in _KERNEL_NAMES.values())
#: bits -> PyTorch's fused row-wise kernel (looked up once: resolving torch.ops costs microseconds a call)
_KERNELS = {bits: getattr(torch.ops.quantized, name) for bits, name in _KERNEL_NAMES.items()} if _HAS_FUSED else {}


@functools.cache
def _kernel_is_exact(bits: int) -> bool:
    """Whether this PyTorch's fused kernel gives ``code * scale`` bit for bit, checked once on a random table.

    The int4 kernel always does (both products are exact in float32 with fp16-precision scales). The int8
    one computes ``scale * (code + 128) + (-128 * scale)``: exact when evaluated as one fused multiply-add,
    as FBGEMM does, since the exact result ``scale * code`` is then rounded once; evaluated with two
    roundings, most values would differ in the last bit. A build that rounds twice uses the plain path.
    """
    g = torch.Generator().manual_seed(0)
    t = torch.randn(64, 32, generator=g) * torch.rand(64, 1, generator=g).mul(6).sub(3).exp()
    q, ids = quantize(t, bits), torch.arange(64)
    return torch.equal(_KERNELS[bits](_pack(q), ids, ids, False, 0, False, None, None, False), dequantize(q))


class QuantizedEmbedding(torch.nn.Module):
    """Drop-in replacement for ``nn.Embedding`` that stores int8/int4 codes and dequantises on lookup.

    Call it with integer ids of any shape and integer dtype; it returns ``[*ids.shape, d]`` rows equal to
    ``dequantize(table)[ids]``, in float32 unless the module was converted (``.half()``, ``.bfloat16()``,
    ``.to(torch.float16)``, ``.double()``: the rows are computed in float32 and then rounded to that dtype;
    the codes and scales themselves never change). It works on whatever device its buffers live on
    (``.to("cuda")`` moves it); ids must be on the same device.

    A row-wise table is stored by default in the layout of PyTorch's fused row-wise kernels
    (``torch.ops.quantized.embedding_bag_byte_rowwise_offsets`` and ``..._4bit_rowwise_offsets``): one
    ``uint8`` buffer ``packed`` with, per row, the codes as unsigned integers, then the scale and an offset
    (``-128 * scale`` for int8, ``-8 * scale`` for int4), float32 for int8 and float16 for int4 (int4 scales
    have fp16 precision from :func:`quantize`, so nothing is rounded). On the CPU the kernel gathers and
    dequantises in one pass; on any other device the same buffer is gathered and dequantised with plain
    tensor operations, so a state dict moves between devices unchanged. The int8 layout costs 4 more bytes
    a row than :class:`QuantizedTable` (``nbytes`` counts them); the int4 layout costs none. The values are
    exactly ``code * scale``: for int4 both products are exact in float32; for int8 the kernel computes
    ``fma(scale, code + 128, -128 * scale)``, one rounding of the exact ``scale * code`` (checked once per
    process; a PyTorch whose kernel rounds twice takes the plain path instead).

    The plain layout (``fused=False``: buffers ``codes`` and ``scales``, as in the :class:`QuantizedTable`)
    serves per-tensor tables and int4 tables whose scales fall outside fp16's range. A state dict of one
    layout loads into a module of the other (:meth:`load_state_dict` converts).

    Where it is, and is not, an ``nn.Embedding``: it has ``num_embeddings``, ``embedding_dim``, ``padding_idx``
    and a read-only ``weight`` (the dequantised table, computed on each access: assigning to it or training it
    raises, since the stored table is codes); it moves with ``.to()`` (``"meta"`` included); it has no
    ``max_norm``, ``sparse`` or gradient (it is frozen), and it is not TorchScript: ``torch.jit.script`` refuses
    it with a message (a traced copy fails inside PyTorch's alias analysis, torch 2.13); use it in eager mode.

    Args:
        q: a :class:`QuantizedTable` (from :func:`quantize`); to start from floats use :meth:`from_float`.
        fused: use the fused layout; ``None`` (default) uses it wherever it can: row-wise tables whose
            scales the kernel can read exactly (every int8 one; int4 ones with scales in fp16's range).
        padding_idx: as ``nn.Embedding``'s: the row it names is returned as stored (an ``nn.Embedding``'s zero
            padding row quantises to exact zeros); ``None`` for none. Negative values count from the end.

    Raises:
        TypeError: ``q`` is not a :class:`QuantizedTable`, or ``fused`` is not a bool or None. ValueError:
            ``fused=True`` for a table the fused layout cannot hold (per-tensor scales, or int4 scales outside
            fp16's range), or a ``padding_idx`` outside the table.
    """

    def __init__(self, q: QuantizedTable, fused: bool | None = None, padding_idx: int | None = None):
        super().__init__()
        if not isinstance(q, QuantizedTable):
            raise TypeError(f"QuantizedEmbedding takes a QuantizedTable, got {type(q).__name__}; "
                            "to start from a float table use QuantizedEmbedding.from_float(table, bits)")
        if fused is not None and not isinstance(fused, bool):
            raise TypeError(f"fused must be True, False or None (use the fused layout where it can), got {fused!r}")
        self.bits, self.scheme, self.shape = q.bits, q.scheme, q.shape
        self.num_embeddings, self.embedding_dim = q.shape
        if padding_idx is not None:
            if isinstance(padding_idx, bool) or not isinstance(padding_idx, (int, np.integer)) or \
                    not -q.shape[0] <= padding_idx < q.shape[0]:
                raise ValueError(f"padding_idx must be None or a row of the table (-{q.shape[0]} .. {q.shape[0] - 1}), "
                                 f"got {padding_idx!r}")
            padding_idx = int(padding_idx) % q.shape[0]
        self.padding_idx = padding_idx
        can_fuse = q.scheme == "row" and (q.bits == 8 or _fits_half(q.scales))  # an affine table stays plain
        if fused and not can_fuse:
            raise ValueError("the fused layout holds row-wise tables only, and int4 ones only with scales in fp16's "
                             "range; pass fused=None or False")
        self.fused = can_fuse if fused is None else fused
        if self.fused:
            self.register_buffer("packed", _pack(q))
        else:
            self.register_buffer("codes", q.codes)
            self.register_buffer("scales", q.scales)
            if q.offsets is not None:
                self.register_buffer("offsets", q.offsets)
        # an empty float tensor that .half() / .to(dtype) convert like a weight: its dtype is the output's
        self.register_buffer("_out", torch.empty(0, device=q.device), persistent=False)
        self._dtype = torch.float32  # _out's dtype, kept where forward reads it fast; _apply updates it
        self._offsets = torch.arange(0)  # one bag per id for the fused kernel; grown on demand, not state

    @classmethod
    def from_float(cls, weight: torch.Tensor | np.ndarray | torch.nn.Embedding, bits: int = 8, scheme: str = "row",
                   fused: bool | None = None) -> "QuantizedEmbedding":
        """Quantise a float table (or an ``nn.Embedding``'s weight) and wrap it.

        Args:
            weight: ``[V, d]`` float tensor or array, or an ``nn.Embedding``; the module lives on its device.
            bits, scheme: as :func:`quantize`.
            fused: as the class.

        Returns:
            the module.

        Raises:
            as :func:`quantize` and the class.
        """
        w = weight.weight if isinstance(weight, torch.nn.Embedding) else weight
        padding = weight.padding_idx if isinstance(weight, torch.nn.Embedding) else None
        return cls(quantize(w.detach() if isinstance(w, torch.Tensor) else w, bits, scheme), fused=fused,
                   padding_idx=padding)

    def _buffer(self) -> torch.Tensor:
        return self.packed if self.fused else self.codes

    @property
    def dtype(self) -> torch.dtype:
        """The dtype of the rows a call returns (float32 unless converted with ``.half()`` etc.)."""
        return self._dtype

    @property
    def weight(self) -> torch.Tensor:
        """The dequantised table, ``[V, d]`` in :attr:`dtype`: a copy computed on each access, read-only in effect
        (the module stores codes; quantise a new table with :meth:`from_float` to change it)."""
        return dequantize(self.table).to(self._dtype)

    @weight.setter
    def weight(self, value) -> None:
        raise AttributeError("QuantizedEmbedding.weight is the dequantised table, computed from the stored codes; it "
                             "cannot be set. Build a new module: QuantizedEmbedding.from_float(new_table, bits)")

    def __prepare_scriptable__(self):
        raise TypeError("torch.jit.script cannot compile QuantizedEmbedding (its lookup picks PyTorch's fused "
                        "quantised kernel or a plain path in Python, per device); use the module in eager mode")

    @property
    def table(self) -> QuantizedTable:
        """The stored codes and scales as a :class:`QuantizedTable` (on the module's device)."""
        if self.fused:
            return QuantizedTable(*_unpack(self.packed, self.bits, self.shape), self.bits, "row", self.shape)
        return QuantizedTable(self.codes, self.scales, self.bits, self.scheme, self.shape, self._buffers.get("offsets"))

    @property
    def nbytes(self) -> int:
        """Bytes of the stored table: codes and scales (and, in the fused layout, the per-row offsets)."""
        return sum(b.numel() * b.element_size() for b in self.buffers())

    @property
    def ratio(self) -> float:
        """Memory reduction of the stored buffers against a float32 table."""
        return self.shape[0] * self.shape[1] * 4 / self.nbytes

    def extra_repr(self) -> str:
        dtype = "" if self.dtype == torch.float32 else f", dtype={self.dtype}"
        padding = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return (f"{self.num_embeddings}, {self.embedding_dim}{padding}, bits={self.bits}, scheme={self.scheme!r}, "
                f"fused={self.fused}{dtype}")

    def to(self, *args, **kwargs) -> "QuantizedEmbedding":
        """``nn.Module.to``, with the device checked by :func:`embedbook.device.pick` first: an unknown or absent
        device is a clear error naming the fix (not torch's "Torch not compiled with CUDA enabled")."""
        device = kwargs.get("device", args[0] if args else None)
        meta = isinstance(device, (str, torch.device)) and str(device).strip().lower().startswith("meta")
        if isinstance(device, (str, int, torch.device)) and not isinstance(device, bool) and not meta:
            pick(torch.device("cuda", device) if isinstance(device, int) else device)
        return super().to(*args, **kwargs)

    def cuda(self, device: int | torch.device | None = None) -> "QuantizedEmbedding":
        """``nn.Module.cuda``, with the device checked as in :meth:`to`."""
        pick(torch.device("cuda", device) if isinstance(device, int) else device or "cuda")
        return super().cuda(device)

    def _apply(self, fn, recurse=True):
        scales = self._buffers.get("scales")
        super()._apply(fn, recurse)
        if scales is not None:  # float32 scales are part of the stored table: .half() must not round them
            self._buffers["scales"] = scales.to(self._buffers["scales"].device)
        offsets = self._buffers.get("offsets")
        if offsets is not None and offsets.dtype != torch.float32:
            self._buffers["offsets"] = offsets.float()
        self._dtype = self._out.dtype
        return self

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        """Load a state dict of either layout: convert a plain one (``codes``, ``scales``) into the fused layout
        or a fused one (``packed``) into the plain layout before the usual loading."""
        codes, scales, packed = (prefix + k for k in ("codes", "scales", "packed"))
        self._check_saved_size(state_dict.get(codes), state_dict.get(scales), state_dict.get(packed),
                               state_dict.get(prefix + "offsets"))
        if self.fused and packed not in state_dict and codes in state_dict and scales in state_dict:
            q = QuantizedTable(state_dict.pop(codes), state_dict.pop(scales), self.bits, self.scheme, self.shape)
            if q.scheme != "row" or (q.bits == 4 and not _fits_half(q.scales)):
                raise ValueError("this state dict's table cannot be held in the fused layout (per-tensor scales, or "
                                 "int4 scales outside fp16's range); load it into a module built with fused=False")
            state_dict[packed] = _pack(q)
        elif not self.fused and packed in state_dict:
            state_dict[codes], state_dict[scales] = _unpack(state_dict.pop(packed), self.bits, self.shape)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def _check_saved_size(self, codes, scales, packed, offsets=None) -> None:
        """Refuse a state dict whose table has another shape, bit width or scheme than this module, naming what it
        holds and the module to build for it (instead of torch's "size mismatch for packed")."""
        (v, d), bits = self.shape, self.bits
        fix = "Build the module for the saved table, e.g. QuantizedEmbedding(quantize(torch.zeros({}), bits={}{})), and load into that"
        if isinstance(packed, torch.Tensor) and packed.dim() == 2:
            if tuple(packed.shape) != (v, (d if bits == 8 else d // 2) + (8 if bits == 8 else 4)):
                n, r = packed.shape
                # a fused row is d code bytes + an 8-byte scale (int8) or d/2 bytes + a 4-byte scale (int4): name only
                # the readings that give a table with columns
                readings = [(width, b) for width, b in ((r - 8, 8), (2 * (r - 4), 4)) if width > 0]
                if not readings:
                    raise ValueError(f"this state dict holds a fused table of {n} rows × {r} bytes, too narrow for any "
                                     f"table (a row needs more than 8 bytes at 8 bits, 4 at 4 bits); this module is "
                                     f"{v} × {d} at {bits} bits")
                held = " or ".join(f"a {n} × {width} table at {b} bits" for width, b in readings)
                builds = " or ".join(fix.format(f"{n}, {width}", b, "").split(", and load")[0] for width, b in readings)
                raise ValueError(f"this state dict holds a fused table of {n} rows × {r} bytes ({held}); this module is "
                                 f"{v} × {d} at {bits} bits. {builds}, and load into that")
        elif isinstance(codes, torch.Tensor) and codes.dim() == 2 and isinstance(scales, torch.Tensor):
            saved_bits = 8 if codes.dtype == torch.int8 else 4
            n, saved_d = codes.shape[0], codes.shape[1] * (1 if saved_bits == 8 else 2)
            scheme = ("affine" if offsets is not None else "tensor" if scales.numel() == 1 and n > 1
                      else self.scheme if n == 1 and self.scheme != "affine" else "row")
            if (n, saved_d, saved_bits, scheme) != (v, d, bits, self.scheme):
                raise ValueError(f"this state dict holds a {n} × {saved_d} table at {saved_bits} bits ({scheme} scales); "
                                 f"this module is {v} × {d} at {bits} bits ({self.scheme} scales). "
                                 + fix.format(f"{n}, {saved_d}", saved_bits, f", scheme={scheme!r}"))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Rows for ``ids``.

        Args:
            ids: non-empty integer tensor of any shape, values in ``[0, V)``, on the module's device.

        Returns:
            ``[*ids.shape, d]`` in the module's :attr:`dtype` (float32 unless converted).

        Raises:
            TypeError: not a tensor, or not integers. ValueError: empty, or on another device than the
                table. IndexError: an id out of range.
        """
        stored = self._buffers["packed" if self.fused else "codes"]  # (no nn.Module.__getattr__: this runs per call)
        kernel = self.fused and stored.device.type == "cpu" and _HAS_FUSED and _kernel_is_exact(self.bits)
        if not (kernel and type(ids) is torch.Tensor and ids.dtype == torch.int64 and ids.device == stored.device
                and ids.numel()):  # the fast path's conditions, in as few steps as possible
            # the fused kernel checks every id itself; a meta tensor has no values to check (shapes only)
            ids = validate_ids(ids, self.num_embeddings, values=not kernel and stored.device.type != "meta")
            if ids.device != stored.device:
                raise ValueError(f"ids are on {ids.device} but the table is on {stored.device}; move one with .to(...)")
        flat = ids.reshape(-1)
        n = flat.shape[0]
        if kernel:
            if self._offsets.shape[0] != n:  # a bag of one row is that row; kept for the next call of this size
                self._offsets = torch.arange(n)
            try:  # the kernel checks every id's range; validate_ids names a refused one
                out = _KERNELS[self.bits](stored, flat, self._offsets, False, 0, False, None, None, False)
            except RuntimeError:
                validate_ids(ids, self.num_embeddings)
                raise
        else:
            out = self._plain_rows(flat)
        if self._dtype != torch.float32:
            out = out.to(self._dtype)
        return out.view(*ids.shape, self.embedding_dim)

    def _plain_rows(self, flat: torch.Tensor) -> torch.Tensor:
        """Gather and dequantise with plain tensor operations (any device): float32 ``code * scale``."""
        if not self.fused:
            return _rows(self.table, flat)
        codes, scales = _unpack(self.packed.index_select(0, flat), self.bits, self.shape)
        if self.bits == 4:
            codes = unpack_int4(codes)
        return codes.float() * scales[:, None]


# --- quantising parts of a model ---------------------------------------------------------------------

_ATTENTION = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense")


# --- speed: the quantised lookups against an fp32 F.embedding, in one run -----------------------------


@dataclass(frozen=True)
class SpeedRatios:
    """Quantised and fp32 lookup speeds against ``F.embedding`` on an fp32 table, timed in one run (:func:`speed_ratios`)."""

    device: str
    n_tokens: int
    dim: int
    vocab_size: int
    threads: int
    fp32_ms: float  # F.embedding's median time, the reference
    ratios: dict[str, float]  # name -> median over rounds of F.embedding's time / its time: above 1 is faster
    rounds: int  # timed rounds the medians are over


#: What :func:`speed_ratios` times against ``F.embedding`` (fp32), by name.
SPEED_NAMES = {
    "int8": "QuantizedEmbedding, INT8 row-wise",
    "int4": "QuantizedEmbedding, INT4 row-wise",
    "int8_kernel": "torch's fused INT8 kernel, called directly",
    "int4_kernel": "torch's fused INT4 kernel, called directly",
    "lookup": "Lookup, a fresh output",
    "lookup_out": "Lookup, out= a reused buffer",
}


_ROUND_TOKENS = 65536  # speed_ratios: a batch below this many tokens gets more rounds ...
_MAX_EXTRA_ROUNDS = 10  # ... up to this many times reps


def speed_ratios(
    sizes: tuple[int, ...] = (512, 4096, 65536), d: int = 1024, vocab_size: int = 50000, reps: int = 10,
    device: str | torch.device | None = None, seed: int = 0,
) -> list[SpeedRatios]:
    """Speeds of INT8 / INT4 ``QuantizedEmbedding``, torch's fused kernels and :class:`embedbook.lookup.Lookup` (fresh and with
    ``out=``) against ``F.embedding`` on the fp32 table, as same-run ratios, at each batch size of ``sizes``.

    On the CPU everything runs on one thread (:func:`embedbook.timing.one_cpu_thread`). The contenders are
    timed in turn, one round after another (:func:`embedbook.timing.interleaved`); each ratio is the median
    over the rounds of that round's ratio, so a busy spell shifts both sides of a ratio alike instead of
    landing on one contender's best time. A batch of ``n`` tokens gets ``reps × min(10, 65536 // n)`` rounds
    (at least ``reps``): a small batch's calls are short and noisy, and its extra rounds cost little next to
    the largest batch's.
    The fused kernels are CPU kernels: on another device their entries are missing. Before timing, every
    contender's rows are checked against the exact values (``dequantize(q)[ids]``, ``table[ids]``).

    Args:
        sizes: batch sizes in tokens (positive ints), or one size as an int.
        d, vocab_size: width (even, for INT4) and rows of the table (positive ints).
        reps: timed rounds at 65,536 tokens and above, each calling every contender once (>= 1); smaller
            batches get more (see above).
        device: where to run (default :func:`embedbook.device.pick`).
        seed: seeds the table and the ids.

    Returns:
        one :class:`SpeedRatios` per size; its ``ratios`` keys are those of :data:`SPEED_NAMES`.

    Raises:
        TypeError: ``sizes`` is neither an int nor a sequence.
        ValueError: a size or ``reps`` that is not a positive int, no sizes, an odd ``d``, sizes above
            :data:`embedbook.lookup.MAX_BANDWIDTH_BYTES`, a device that is absent.
    """
    sizes = (sizes,) if isinstance(sizes, int) and not isinstance(sizes, bool) else sizes
    if not isinstance(sizes, (tuple, list, range)):
        raise TypeError(f"sizes must be a batch size in tokens or a sequence of them, e.g. (512, 4096), got "
                        f"{type(sizes).__name__}")
    sizes = tuple(sizes)
    if not sizes:
        raise ValueError("sizes is empty: give at least one batch size, e.g. (512, 4096, 65536)")
    for name, value in (("d", d), ("vocab_size", vocab_size), ("reps", reps), *(("a size", n) for n in sizes)):
        lookup._positive_int(name, value)
    if d % 2:
        raise ValueError(f"d must be even (INT4 packs two values a byte), got {d}")
    need = 4 * vocab_size * d * 3 // 2 + 8 * 4 * max(sizes) * d  # the table, its codes, the outputs alive at once
    lookup._refuse_above_limit(need, f"sizes up to {max(sizes):,}, d={d:,}, vocab_size={vocab_size:,}", "use smaller sizes")
    dev = pick(device)
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(vocab_size, d, generator=gen).to(dev)
    q8, q4 = (QuantizedEmbedding.from_float(table, bits) for bits in (8, 4))
    exact = {8: dequantize(q8.table), 4: dequantize(q4.table), 32: table}
    kernels = {}
    if dev.type == "cpu" and q8.fused and q4.fused and _HAS_FUSED:
        kernels = {bits: (_KERNELS[bits], emb) for bits, emb in ((8, q8), (4, q4))}
    lk = lookup.Lookup(table)
    results = []
    for n in sizes:
        ids = torch.randint(0, vocab_size, (n,), generator=gen).to(dev)
        offsets, buffer = torch.arange(n, device=dev), torch.empty(n, d, device=dev)
        fns = {"fp32": lambda: F.embedding(ids, table), "int8": lambda: q8(ids), "int4": lambda: q4(ids),
               "lookup": lambda: lk(ids), "lookup_out": lambda: lk(ids, out=buffer)}
        for bits, (kernel, emb) in kernels.items():
            fns[f"int{bits}_kernel"] = lambda k=kernel, e=emb: k(e.packed, ids, offsets, False, 0, False, None, None, False)
        for name, fn in fns.items():
            bits = 8 if name.startswith("int8") else 4 if name.startswith("int4") else 32
            if not torch.equal(fn(), exact[bits][ids]):
                raise AssertionError(f"{name} does not give the exact rows")
        with timing.one_cpu_thread(dev):
            threads = torch.get_num_threads()
            t = timing.interleaved(fns, reps=reps * min(_MAX_EXTRA_ROUNDS, max(1, _ROUND_TOKENS // n)), warmup=1,
                                   device=dev)
        ref = t.pop("fp32")
        ratios = {k: statistics.median(r / x for r, x in zip(ref.times, t[k].times)) for k in SPEED_NAMES if k in t}
        results.append(SpeedRatios(device=dev.type, n_tokens=n, dim=d, vocab_size=vocab_size, threads=threads,
                                   fp32_ms=ref.median * 1e3, ratios=ratios, rounds=ref.reps))
    return results


def attention_linears(model: torch.nn.Module, layers: Iterable[int] | None = None) -> dict[str, torch.nn.Linear]:
    """The query, key, value and output projections of a BERT-style model's attention blocks.

    Args:
        model: a Hugging Face BERT-style encoder (modules named ``…layer.<i>.attention.self.query`` etc.).
        layers: block indices to keep (``None``: all).

    Returns:
        module name → ``nn.Linear``, in model order.

    Raises:
        ValueError: no such projections in the model, or a requested block it does not have.
    """
    found = {name: m for name, m in model.named_modules()
             if isinstance(m, torch.nn.Linear) and name.endswith(_ATTENTION)}
    if not found:
        raise ValueError("no BERT-style attention projections (…attention.self.query …) found in this model")
    if layers is None:
        return found
    block = {name: int(m.group(1)) for name in found if (m := re.search(r"layer\.(\d+)\.attention", name))}
    want = {int(i) for i in layers}
    missing = sorted(want - set(block.values()))
    if missing:
        raise ValueError(f"the model has no attention block(s) {missing}; it has {sorted(set(block.values()))}")
    return {name: m for name, m in found.items() if block.get(name) in want}


def _weights(model: torch.nn.Module, part: str, layers: Iterable[int] | None) -> list[torch.nn.Parameter]:
    if part == "embedding":
        if layers is not None:
            raise ValueError("layers applies to part='attention' only")
        if not callable(getattr(model, "get_input_embeddings", None)):
            raise TypeError(f"part='embedding' needs a transformers model with get_input_embeddings(), got "
                            f"{type(model).__name__}; for a bare table use roundtrip(table)")
        return [model.get_input_embeddings().weight]
    if part == "attention":
        return [lin.weight for lin in attention_linears(model, layers).values()]
    raise ValueError(f"part must be 'embedding' or 'attention', got {part!r}")


@contextlib.contextmanager
def fake_quantized(model: torch.nn.Module, part: str = "embedding", bits: int = 8,
                   layers: Iterable[int] | None = None) -> Iterator[int]:
    """Inside the ``with`` block, ``part`` of ``model`` holds its row-wise quantise-dequantise round trip.

    The weights are overwritten in place (on their device) and restored when the block ends, even
    on an error. A tied output head shares the input table, so it is quantised with it.

    Args:
        model: a BERT-style model (``get_input_embeddings()``; attention named as in :func:`attention_linears`).
        part: ``"embedding"`` (the input word table) or ``"attention"`` (the Q/K/V/output projections).
        bits: 8 or 4, row-wise scales (for a ``Linear`` weight a row is an output channel).
        layers: with ``part="attention"``, only these blocks.

    Yields:
        the number of parameters quantised.

    Raises:
        ValueError: an unknown part, bit width or block, or NaN/infinity in a weight.
    """
    if bits not in BITS:
        raise ValueError(f"bits must be one of {BITS}, got {bits!r}")
    params = list({id(p): p for p in _weights(model, part, layers)}.values())
    saved = [p.detach().clone() for p in params]
    try:
        with torch.no_grad():
            for p in params:
                p.copy_(roundtrip(p, bits, "row").to(p.dtype))
        yield sum(p.numel() for p in params)
    finally:
        with torch.no_grad():
            for p, s in zip(params, saved):
                p.copy_(s)
