"""Parameters and memory: the size of an embedding table in parameters and bytes, published model
configurations, the 12·L·d² count of a Transformer's layers, head widths, attention FLOPs, and the
parameters of any torch module split into embedding tables and the rest.

The configuration table :data:`MODELS` is input data copied from each model's paper or released
configuration (the ``source`` of each row is a key of the book's ``references.bib``); every derived
number is computed from it.

Used by chapter 03 (Parameters and memory) and by the chapters on tying (04) and dimension (07).
"""

from __future__ import annotations

import difflib
import math
import operator
from dataclasses import dataclass, field

import numpy as np
import torch

from embedbook.device import pick

__all__ = [
    "BYTES_PER_VALUE", "DTYPES", "DTYPE_ALIASES", "MAX_ALLOC_BYTES", "MODELS", "ModelConfig", "SIBLINGS", "ParameterCount", "approx_params",
    "attention_flops", "count_parameters", "dtype_name", "embedding_params", "formula_bytes", "head_dim", "measured_bytes",
    "model", "width_for",
]


@dataclass(frozen=True)
class ModelConfig:
    """A published model configuration.

    Attributes:
        name: the model's name.
        vocab: rows of the token table (the configuration's ``vocab_size``; may include padding rows).
        d: model width (the table's columns).
        layers, heads: Transformer layers and attention heads.
        params: total parameters as published.
        tied: whether the output head shares the input table (from the paper or released configuration).
        multilingual: whether the model was trained and released for many languages.
        year: year of release.
        source: key of the paper or model card in ``references.bib``.
        head_dim: per-head width when the configuration gives one that is not ``d / heads``.
        kind: ``"encoder"`` (BERT-style), ``"decoder"`` (GPT-style language model) or ``"encoder-decoder"``
            (T5- and BART-style; only in :data:`SIBLINGS`).
    """

    name: str
    vocab: int
    d: int
    layers: int
    heads: int
    params: float
    tied: bool
    multilingual: bool
    year: int
    source: str
    head_dim: int | None = None
    kind: str = "decoder"

    def __post_init__(self) -> None:
        for name in ("vocab", "d", "layers", "heads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"ModelConfig {self.name!r}: {name} must be a positive int, got {value!r}")
        if self.head_dim is not None and (isinstance(self.head_dim, bool) or not isinstance(self.head_dim, int)
                                          or self.head_dim <= 0):
            raise ValueError(f"ModelConfig {self.name!r}: head_dim must be a positive int or None, got {self.head_dim!r}")
        if isinstance(self.params, bool) or not isinstance(self.params, (int, float)) or not self.params > 0:
            raise ValueError(f"ModelConfig {self.name!r}: params must be a positive number, got {self.params!r}")

    @property
    def embedding_params(self) -> int:
        """Parameters of the input token table, ``vocab × d``."""
        return self.vocab * self.d

    @property
    def tables(self) -> int:
        """Token tables the model stores: 1 when the output head is tied to the input table, else 2."""
        return 1 if self.tied else 2

    @property
    def embedding_share(self) -> float:
        """Share of all parameters in the token table(s): the input table, and the output head too when
        it is not tied."""
        return self.embedding_params * self.tables / self.params

    @property
    def attention_width(self) -> int:
        """``heads × per-head width``: the width Q, K and V are projected to (``d`` unless decoupled)."""
        return self.heads * (self.head_dim if self.head_dim is not None else self.d // self.heads)

    @property
    def d_divisible(self) -> bool:
        """Whether the head count divides ``d``."""
        return self.d % self.heads == 0

    @property
    def decoupled(self) -> bool:
        """Whether the heads' total width differs from ``d`` (or the head count does not divide ``d``)."""
        return not self.d_divisible or self.attention_width != self.d


# fmt: off
MODELS: list[ModelConfig] = [
    ModelConfig("BERT-base", 30522, 768, 12, 12, 110e6, True, False, 2018, "devlin2019bert", kind="encoder"),
    ModelConfig("mBERT (base, multilingual)", 119547, 768, 12, 12, 178e6, True, True, 2018, "devlin2019bert",
                kind="encoder"),
    ModelConfig("XLM-R base", 250002, 768, 12, 12, 278e6, True, True, 2019, "conneau2020xlmr", kind="encoder"),
    ModelConfig("MiniLM-L6 (bundled)", 30522, 384, 6, 12, 22.7e6, True, False, 2020, "wang2020minilm", kind="encoder"),
    ModelConfig("Multilingual MiniLM-L12", 250037, 384, 12, 12, 117e6, True, True, 2020, "wang2020minilm",
                kind="encoder"),
    ModelConfig("GPT-2 small", 50257, 768, 12, 12, 124e6, True, False, 2019, "radford2019gpt2"),
    ModelConfig("GPT-2 XL", 50257, 1600, 48, 25, 1558e6, True, False, 2019, "radford2019gpt2"),
    ModelConfig("GPT-3 Small", 50257, 768, 12, 12, 125e6, True, False, 2020, "brown2020gpt3"),
    ModelConfig("GPT-3 XL", 50257, 2048, 24, 24, 1.3e9, True, False, 2020, "brown2020gpt3", head_dim=128),
    ModelConfig("GPT-3 13B", 50257, 5140, 40, 40, 13.0e9, True, False, 2020, "brown2020gpt3", head_dim=128),
    ModelConfig("GPT-3 175B", 50257, 12288, 96, 96, 175e9, True, False, 2020, "brown2020gpt3"),
    ModelConfig("BLOOM-7B1", 250880, 4096, 30, 32, 7.07e9, True, True, 2022, "workshop2022bloom"),
    ModelConfig("LLaMA-7B", 32000, 4096, 32, 32, 6.7e9, False, False, 2023, "touvron2023llama"),
    ModelConfig("LLaMA-65B", 32000, 8192, 80, 64, 65.2e9, False, False, 2023, "touvron2023llama"),
    ModelConfig("Llama-2-70B", 32000, 8192, 80, 64, 70e9, False, False, 2023, "touvron2023llama2"),
    ModelConfig("Mistral-7B", 32000, 4096, 32, 32, 7.24e9, False, False, 2023, "jiang2023mistral"),
    ModelConfig("Llama-3.1-8B", 128256, 4096, 32, 32, 8.03e9, False, True, 2024, "dubey2024llama3"),
    ModelConfig("Qwen2-7B", 152064, 3584, 28, 28, 7.6e9, False, True, 2024, "yang2024qwen2"),
    # Gemma: "primarily-English data"; the released configuration has 256,000 rows (the paper's table: 256,128)
    ModelConfig("Gemma-7B", 256000, 3072, 28, 16, 8.5e9, True, False, 2024, "gemma2024", head_dim=256),
    # DeepSeek-V3: a mixture of experts (671B in total); multi-head latent attention, value heads of 128
    ModelConfig("DeepSeek-V3", 129280, 7168, 61, 128, 671e9, False, True, 2024, "deepseek2024v3", head_dim=128),
    # Added after the audit of the first build: one model per 2024 open-weights release of a decoder family (the
    # size nearest 7B), each read from its released configuration (config.json or the model card's table).
    ModelConfig("Mistral-7B-v0.3", 32768, 4096, 32, 32, 7.25e9, False, False, 2024, "mistral2024v03"),
    ModelConfig("Phi-3-mini", 32064, 3072, 32, 32, 3.8e9, False, False, 2024, "abdin2024phi3"),
    # OLMo-7B: vocab_size 50,280 (the table is padded to 50,304 rows: embedding_size); weight_tying false
    ModelConfig("OLMo-7B", 50280, 4096, 32, 32, 6.9e9, False, False, 2024, "groeneveld2024olmo"),
    ModelConfig("OLMo-2-7B", 100352, 4096, 32, 32, 7.3e9, False, False, 2024, "olmo2024olmo2"),
    # Mistral NeMo: 32 heads of 128 (4,096) on a 5,120-wide model
    ModelConfig("Mistral-NeMo-12B", 131072, 5120, 40, 32, 12.2e9, False, True, 2024, "mistral2024nemo", head_dim=128),
    # Gemma 2: "primarily-English data"; 16 heads of 256 (4,096) on a 3,584-wide model
    ModelConfig("Gemma-2-9B", 256000, 3584, 42, 16, 9.24e9, True, False, 2024, "gemma2024gemma2", head_dim=256),
    ModelConfig("Llama-3.2-3B", 128256, 3072, 28, 24, 3.21e9, True, True, 2024, "meta2024llama32"),
    ModelConfig("Qwen2.5-7B", 152064, 3584, 28, 28, 7.61e9, False, True, 2024, "qwen2024qwen25"),
]

# English models whose multilingual counterpart is in MODELS or below, and counterparts not in MODELS: the
# sibling pairs of C36 (chapter 03). Kept apart from MODELS, whose counts decide other claims (C20, C35,
# C37, C42). Each row from its paper's configuration table and the released config.json.
SIBLINGS: list[ModelConfig] = [
    ModelConfig("RoBERTa-base", 50265, 768, 12, 12, 125e6, True, False, 2019, "liu2019roberta", kind="encoder"),
    # T5: 12 encoder + 12 decoder layers; a 32,000-piece SentencePiece vocabulary, 32,128 rows as released
    ModelConfig("T5-base", 32128, 768, 12, 12, 220e6, True, False, 2020, "raffel2020t5", kind="encoder-decoder"),
    # mT5 follows T5.1.1 (untied head); 250,000 pieces, 250,112 rows as released
    ModelConfig("mT5-base", 250112, 768, 12, 12, 580e6, False, True, 2021, "xue2021mt5", kind="encoder-decoder"),
    ModelConfig("BART-large", 50265, 1024, 12, 16, 406e6, True, False, 2020, "lewis2020bart", kind="encoder-decoder"),
    ModelConfig("mBART-large-cc25", 250027, 1024, 12, 16, 680e6, True, True, 2020, "liu2020mbart",
                kind="encoder-decoder"),
]
# fmt: on

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "int8": torch.int8}
BYTES_PER_VALUE = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "int4": 0.5}  # int4: two values packed per byte
MAX_ALLOC_BYTES = 2**31  # measured_bytes allocates for real on a device only up to 2 GiB


def _positive_int(name: str, value, *, zero: bool = False) -> int:
    """``value`` as a Python int (NumPy and torch integers accepted: sizes often come out of arrays)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ValueError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    value = operator.index(value)
    if value < 0 or (value == 0 and not zero):
        raise ValueError(f"{name} must be {'>= 0' if zero else 'positive'}, got {value}")
    return value


#: Other spellings of each format (lower case): torch's and NumPy's names and the usual short ones.
DTYPE_ALIASES = {
    "fp32": ("float32", "float", "f32", "single"),
    "fp16": ("float16", "half", "f16"),
    "bf16": ("bfloat16",),
    "int8": ("i8",),
    "int4": ("i4", "uint4", "quint4x2"),
}
_DTYPE_LOOKUP = {alias: name for name, aliases in DTYPE_ALIASES.items() for alias in (name, *aliases)}


def dtype_name(dtype) -> str:
    """The format name this package uses (``"fp32"``, ``"fp16"``, ``"bf16"``, ``"int8"`` or ``"int4"``) for
    any usual spelling of it: a ``torch.dtype`` (``torch.float32``), a NumPy dtype (``np.float16``,
    ``np.dtype("int8")``) or a string (``"float32"``, ``"fp32"``, ``"float"``, ``"half"``, ``"bfloat16"``,
    ``"torch.bfloat16"``, …; case does not matter). Every function of the package that takes a dtype
    goes through it.

    Raises:
        TypeError: ``dtype`` is not a string, a torch dtype or a NumPy dtype.
        ValueError: a format the package does not size (e.g. float64), or an unknown name.
    """
    if isinstance(dtype, torch.dtype):
        text = str(dtype).removeprefix("torch.")
    elif isinstance(dtype, str):
        text = dtype.strip().lower().removeprefix("torch.").removeprefix("np.").removeprefix("numpy.")
    else:
        try:
            text = np.dtype(dtype).name if isinstance(dtype, (np.dtype, type)) else None
        except TypeError:
            text = None
        if text is None:
            raise TypeError(f"dtype must be a string such as 'fp32', a torch.dtype or a NumPy dtype, "
                            f"got {type(dtype).__name__} {dtype!r}")
    if text not in _DTYPE_LOOKUP:
        known = "; ".join(f"{n} ({', '.join(a)})" for n, a in DTYPE_ALIASES.items())
        raise ValueError(f"unknown dtype {dtype!r} (or one this package does not size); use one of {known}")
    return _DTYPE_LOOKUP[text]


def _folded(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def model(name: str) -> ModelConfig:
    """The published configuration called ``name``.

    Case, spaces and punctuation do not matter: ``"bert-base"``, ``"BERT base"`` and ``"bertbase"`` all
    name ``"BERT-base"``.

    Args:
        name: a name in :data:`MODELS` or :data:`SIBLINGS`, e.g. ``"BERT-base"``.

    Returns:
        Its :class:`ModelConfig`.

    Raises:
        TypeError: ``name`` is not a string.
        KeyError: no configuration has that name (the message suggests the closest names and lists the
            known ones).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a model name such as 'BERT-base', got {type(name).__name__} {name!r}")
    known = MODELS + SIBLINGS
    for m in known:
        if m.name == name:
            return m
    folded = {_folded(m.name): m for m in known}
    if _folded(name) in folded:
        return folded[_folded(name)]
    close = difflib.get_close_matches(_folded(name), list(folded), n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(folded[c].name for c in close)}? " if close else ""
    raise KeyError(f"unknown model {name!r}; {hint}known: {', '.join(m.name for m in known)}")


def embedding_params(vocab: int, d: int) -> int:
    """Parameters of a ``vocab × d`` token table.

    Args:
        vocab: rows (ids), a positive int.
        d: columns (the width), a positive int.

    Returns:
        ``vocab * d``.

    Raises:
        ValueError: ``vocab`` or ``d`` is not a positive int.
    """
    return _positive_int("vocab", vocab) * _positive_int("d", d)


def formula_bytes(params: int, dtype) -> int:
    """Bytes that ``params`` values of ``dtype`` take by the formula: 4 per value in fp32, 2 in fp16 and
    bf16, 1 in int8, one byte per two values in packed int4 (rounded up to whole bytes).

    Args:
        params: number of values, an int ``>= 0``.
        dtype: ``"fp32"``, ``"fp16"``, ``"bf16"``, ``"int8"`` or ``"int4"``, or any spelling
            :func:`dtype_name` accepts (``torch.float32``, ``np.float16``, ``"half"``, …).

    Returns:
        Bytes, an int.

    Raises:
        ValueError: ``params`` is not an int ``>= 0``, or the dtype is unknown. TypeError: ``dtype`` is
            not a string, torch dtype or NumPy dtype.
    """
    params = _positive_int("params", params, zero=True)
    dtype = dtype_name(dtype)
    if dtype == "int4":
        return (params + 1) // 2
    return params * int(BYTES_PER_VALUE[dtype])


def measured_bytes(vocab: int, d: int, dtype, device: str | torch.device = "meta") -> int:
    """Bytes of the storage of a real ``vocab × d`` tensor of ``dtype``, as torch reports them
    (``untyped_storage().nbytes()``); packed int4 is a ``vocab × d/2`` tensor of uint8.

    On the default ``"meta"`` device torch builds the tensor's metadata without allocating any memory,
    so any size can be asked for. On a real device the tensor is allocated (not filled) and freed.

    Args:
        vocab: rows, a positive int.
        d: columns, a positive int (even for int4).
        dtype: ``"fp32"``, ``"fp16"``, ``"bf16"``, ``"int8"`` or ``"int4"``, or any spelling
            :func:`dtype_name` accepts.
        device: ``"meta"`` (default) or a real device such as ``"cpu"`` or ``"cuda"``.

    Returns:
        Bytes, an int.

    Raises:
        ValueError: ``vocab`` or ``d`` not a positive int, an odd ``d`` for int4, an unknown dtype, an
            unknown device, or a real-device tensor above :data:`MAX_ALLOC_BYTES` (use the meta device for
            such sizes). TypeError: a dtype that is not a string, torch dtype or NumPy dtype. RuntimeError: a device that is not present here (see :func:`embedbook.device.pick`).
    """
    vocab, d = _positive_int("vocab", vocab), _positive_int("d", d)
    dtype = dtype_name(dtype)
    if dtype == "int4" and d % 2:
        raise ValueError(f"packed int4 stores two values per byte and needs an even d, got {d}")
    dev = torch.device("meta") if str(device) == "meta" else pick(device)
    if dev.type != "meta" and formula_bytes(vocab * d, dtype) > MAX_ALLOC_BYTES:
        raise ValueError(
            f"a {vocab:,} × {d:,} {dtype} tensor takes {formula_bytes(vocab * d, dtype) / 2**30:,.1f} GiB; "
            f"measured_bytes allocates at most {MAX_ALLOC_BYTES / 2**30:.0f} GiB on a real device: "
            "use device='meta' (the default), which allocates nothing"
        )
    if dtype == "int4":
        t = torch.empty(vocab, d // 2, dtype=torch.uint8, device=dev)
    else:
        t = torch.empty(vocab, d, dtype=DTYPES[dtype], device=dev)
    return int(t.untyped_storage().nbytes())


def approx_params(layers: int, d: int) -> int:
    """The count ``N ≈ 12·L·d²`` of a Transformer's layers: per layer four ``d × d`` attention
    projections (``4d²``) and an MLP ``d → 4d → d`` (``8d²``); embeddings, norms and biases left out.

    Args:
        layers: ``L``, a positive int.
        d: the width, a positive int.

    Returns:
        ``12 * layers * d * d``.

    Raises:
        ValueError: ``layers`` or ``d`` is not a positive int.
    """
    return 12 * _positive_int("layers", layers) * _positive_int("d", d) ** 2


def width_for(params: float, layers: int) -> float:
    """The same count solved for the width: ``d ≈ sqrt(N / (12·L))``.

    Args:
        params: ``N``, a finite positive number.
        layers: ``L``, a positive int.

    Returns:
        The width, a float.

    Raises:
        ValueError: ``params`` not finite and positive, or ``layers`` not a positive int.
    """
    if isinstance(params, bool) or not isinstance(params, (int, float)) or not (math.isfinite(params) and params > 0):
        raise ValueError(f"params must be a finite positive number, got {params!r}")
    return math.sqrt(params / (12 * _positive_int("layers", layers)))  # NumPy ints too, as everywhere here


def head_dim(d: int, heads: int) -> int:
    """Per-head width ``d / heads`` when the heads split ``d`` evenly (what ``torch.nn.MultiheadAttention``
    requires).

    Args:
        d: the width, a positive int.
        heads: the head count, a positive int.

    Returns:
        ``d // heads``.

    Raises:
        ValueError: either is not a positive int, or ``heads`` does not divide ``d`` (choose a head
            count that divides ``d``, or project Q, K and V to ``heads × head_dim`` columns yourself).
    """
    d, heads = _positive_int("d", d), _positive_int("heads", heads)
    if d % heads:
        raise ValueError(f"d={d} is not divisible by {heads} heads; choose a head count that divides d")
    return d // heads


def attention_flops(n: int, d: int, project: bool = True) -> dict[str, int]:
    """Floating-point operations (a multiply-add counts 2) of one self-attention layer over ``n`` tokens of
    width ``d``, by term; the number of heads does not change them.

    - ``projections``: Q, K, V and the output projection, four ``d × d`` matrices per token: ``8·n·d²``
      (0 with ``project=False``);
    - ``scores``: ``Q Kᵀ``, ``2·n²·d``;
    - ``mix``: the attention-weighted sum of V, ``2·n²·d``;
    - ``total``.

    Raises:
        ValueError: ``n`` or ``d`` not a positive int. TypeError: ``project`` is not a bool.
    """
    n, d = _positive_int("n", n), _positive_int("d", d)
    if not isinstance(project, (bool, np.bool_)):
        raise TypeError(f"project must be True or False, got {project!r}")
    out = {"projections": 8 * n * d * d if project else 0, "scores": 2 * n * n * d, "mix": 2 * n * n * d}
    out["total"] = sum(out.values())
    return out


@dataclass(frozen=True)
class ParameterCount:
    """A module's parameters, each tensor counted once however many modules share it.

    Attributes:
        total: every parameter.
        embedding: the weights of every ``nn.Embedding`` / ``nn.EmbeddingBag`` (token tables, position
            tables, …) and the entries of every :class:`embedbook.quantize.QuantizedEmbedding` (stored as codes,
            not trainable, counted as the ``V × d`` values they stand for); a tied output head shares one of these
            tensors and adds nothing.
        head: the untied output head, if the module has no tied one: the last ``nn.Linear`` whose
            weight has exactly the largest table's shape (``V × d``, the token table); else 0.
        tables: name → parameters of each embedding table.
        tied_heads: names of the ``nn.Linear`` modules whose weight *is* an embedding table.
    """

    total: int
    embedding: int
    head: int
    tables: dict[str, int] = field(default_factory=dict)
    tied_heads: tuple[str, ...] = ()

    @property
    def body(self) -> int:
        """Everything that is neither an embedding table nor an untied output head."""
        return self.total - self.embedding - self.head

    @property
    def share(self) -> float:
        """Share of all parameters in embedding tables and untied heads (0 for a module without any)."""
        return (self.embedding + self.head) / self.total if self.total else 0.0


def _is_quantized_table(m: torch.nn.Module) -> bool:
    """An :class:`embedbook.quantize.QuantizedEmbedding` (named, not imported: quantize imports lookup, which
    imports this module)."""
    return type(m).__name__ == "QuantizedEmbedding" and type(m).__module__ == "embedbook.quantize"


def count_parameters(module: torch.nn.Module) -> ParameterCount:
    """Count a module's parameters: in total, in its embedding tables, and in untied output heads.

    Every ``nn.Embedding``, ``nn.EmbeddingBag`` and :class:`embedbook.quantize.QuantizedEmbedding` (its ``V × d``
    entries, held as codes in buffers, count in ``total`` and ``embedding``) counts as an embedding table, whatever
    it is called
    (``word_embeddings`` in BERT, ``embed`` in :class:`embedbook.lm.TinyLM`, ``wte`` in GPT-2). A tied
    output head is the same tensor and is counted once; an untied head is recognised as the last
    ``nn.Linear`` whose weight has exactly the shape of the largest table (the token table, ``V × d``).
    Works on any device, ``"meta"`` included.

    Args:
        module: a ``torch.nn.Module``.

    Returns:
        A :class:`ParameterCount`.

    Raises:
        TypeError: ``module`` is not a ``torch.nn.Module``.
    """
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"count_parameters takes a torch.nn.Module, got {type(module).__name__}")
    total = sum(p.numel() for p in module.parameters())  # parameters() yields a shared tensor once
    tables, table_ids, largest = {}, set(), None
    for name, m in module.named_modules():
        if _is_quantized_table(m):  # the package's own table: its entries are buffers, not parameters
            shape = (m.num_embeddings, m.embedding_dim)
            tables[name or "(module)"] = shape[0] * shape[1]
            total += shape[0] * shape[1]
        elif isinstance(m, (torch.nn.Embedding, torch.nn.EmbeddingBag)) and id(m.weight) not in table_ids:
            table_ids.add(id(m.weight))
            tables[name or "(module)"] = m.weight.numel()
            shape = tuple(m.weight.shape)
        else:
            continue
        if largest is None or shape[0] > largest[0]:
            largest = shape
    tied, candidates = [], []
    for name, m in module.named_modules():
        if isinstance(m, torch.nn.Linear):
            if id(m.weight) in table_ids:
                tied.append(name)
            elif tuple(m.weight.shape) == largest:
                candidates.append(m.weight.numel())
    head = candidates[-1] if candidates and not tied else 0  # a model's head comes last
    return ParameterCount(total=total, embedding=sum(tables.values()), head=head, tables=tables,
                          tied_heads=tuple(tied))
