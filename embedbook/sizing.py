"""Parameters and memory: embedding sizes from model configurations, bytes per dtype measured from
real tensors, the 12·L·d² rule, head divisibility and vocabulary sizes.

The configuration table below is input data copied from each model's published configuration
(source given per row); every derived number is computed from it.

Used by chapter 03 (Parameters and memory) and referred to by 04 (tying) and 07 (dimension).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from embedbook import claims


@dataclass(frozen=True)
class ModelConfig:
    """A published model configuration (vocabulary, width, depth, heads, total parameters)."""

    name: str
    vocab: int
    d: int
    layers: int
    heads: int
    params: float  # total parameters as published
    tied: bool
    multilingual: bool
    year: int
    source: str  # bib key of the paper or model card
    head_dim: int | None = None  # when it is not d / heads

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.d

    @property
    def embedding_share(self) -> float:
        """Share of all parameters in the input table (twice that if the output head is untied)."""
        return self.embedding_params * (1 if self.tied else 2) / self.params


# fmt: off
MODELS: list[ModelConfig] = [
    ModelConfig("BERT-base", 30522, 768, 12, 12, 110e6, True, False, 2018, "devlin2019bert"),
    ModelConfig("mBERT (base, multilingual)", 119547, 768, 12, 12, 178e6, True, True, 2018, "devlin2019bert"),
    ModelConfig("XLM-R base", 250002, 768, 12, 12, 278e6, True, True, 2019, "conneau2020xlmr"),
    ModelConfig("MiniLM-L6 (bundled)", 30522, 384, 6, 12, 22.7e6, True, False, 2020, "wang2020minilm"),
    ModelConfig("GPT-2 small", 50257, 768, 12, 12, 124e6, True, False, 2019, "radford2019gpt2"),
    ModelConfig("GPT-2 XL", 50257, 1600, 48, 25, 1558e6, True, False, 2019, "radford2019gpt2"),
    ModelConfig("GPT-3 Small", 50257, 768, 12, 12, 125e6, True, False, 2020, "brown2020gpt3"),
    ModelConfig("GPT-3 XL", 50257, 2048, 24, 24, 1.3e9, True, False, 2020, "brown2020gpt3", head_dim=128),
    ModelConfig("GPT-3 175B", 50257, 12288, 96, 96, 175e9, True, False, 2020, "brown2020gpt3"),
    ModelConfig("LLaMA-7B", 32000, 4096, 32, 32, 6.7e9, False, False, 2023, "touvron2023llama"),
    ModelConfig("LLaMA-65B", 32000, 8192, 80, 64, 65.2e9, False, False, 2023, "touvron2023llama"),
    ModelConfig("Llama-2-70B", 32000, 8192, 80, 64, 70e9, False, False, 2023, "touvron2023llama2"),
    ModelConfig("Llama-3-8B", 128256, 4096, 32, 32, 8.0e9, False, True, 2024, "dubey2024llama3"),
    ModelConfig("Qwen2-7B", 152064, 3584, 28, 28, 7.6e9, False, True, 2024, "yang2024qwen2"),
    ModelConfig("Gemma-7B", 256000, 3072, 28, 16, 8.5e9, True, True, 2024, "gemma2024", head_dim=256),
]
ARTICLE_TABLE = {  # the long article's table: (model, V, d, the article's figure in millions)
    "BERT-base": (30522, 768, 23.4), "GPT-2": (50257, 1600, 80.4),
    "GPT-3 175B": (50257, 12288, 617.5), "LLaMA 65B": (32000, 8192, 262.1),
}
ARTICLE_WIDTH_TABLE = [(125e6, 12, 768), (1.3e9, 24, 2048), (7e9, 32, 4096), (70e9, 80, 8192), (175e9, 96, 12288)]
# fmt: on

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "int8": torch.int8}


def model(name: str) -> ModelConfig:
    """The configuration called ``name`` (see :data:`MODELS`)."""
    for m in MODELS:
        if m.name == name:
            return m
    raise KeyError(f"unknown model {name!r}; known: {', '.join(m.name for m in MODELS)}")


def embedding_params(vocab: int, d: int) -> int:
    """Parameters of a ``vocab × d`` table."""
    if vocab <= 0 or d <= 0:
        raise ValueError(f"vocab and d must be positive, got {vocab} and {d}")
    return vocab * d


def formula_bytes(params: int, dtype: str) -> float:
    """Bytes for ``params`` values of ``dtype`` by the formula (int4 is half a byte)."""
    per = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "int4": 0.5}
    if dtype not in per:
        raise ValueError(f"unknown dtype {dtype!r}; use one of {sorted(per)}")
    return params * per[dtype]


def measured_bytes(vocab: int, d: int, dtype: str) -> int:
    """Bytes of a real ``vocab × d`` tensor of ``dtype`` (int4: two values packed per uint8 byte)."""
    embedding_params(vocab, d)
    if dtype == "int4":
        if d % 2:
            raise ValueError(f"packed int4 needs an even d, got {d}")
        t = torch.empty(vocab, d // 2, dtype=torch.uint8)
    elif dtype in DTYPES:
        t = torch.empty(vocab, d, dtype=DTYPES[dtype])
    else:
        raise ValueError(f"unknown dtype {dtype!r}; use one of {sorted([*DTYPES, 'int4'])}")
    return t.untyped_storage().nbytes()


def approx_params(layers: int, d: int) -> float:
    """The rule N ≈ 12·L·d² (attention 4d² + MLP 8d² per layer; no embeddings, norms or biases)."""
    return 12 * layers * d * d


def width_for(params: float, layers: int) -> float:
    """The same rule inverted: d ≈ sqrt(N / (12·L))."""
    if not (math.isfinite(params) and params > 0 and layers > 0):
        raise ValueError(f"params must be a finite positive number and layers positive, got {params} and {layers}")
    return math.sqrt(params / (12 * layers))


def head_dim(d: int, heads: int) -> int:
    """Per-head width d / h; raises when ``heads`` does not divide ``d`` (as torch's attention does)."""
    if heads <= 0 or d <= 0:
        raise ValueError("d and heads must be positive")
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
        ValueError: ``n`` or ``d`` not a positive int.
    """
    for name, value in (("n", n), ("d", d)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    out = {"projections": 8 * n * d * d if project else 0, "scores": 2 * n * n * d, "mix": 2 * n * n * d}
    out["total"] = sum(out.values())
    return out


def count_parameters(module: torch.nn.Module) -> dict[str, int]:
    """Parameters of a torch module: total, and those of its input token table (``word_embeddings``)."""
    total = sum(p.numel() for p in module.parameters())
    emb = next((m.weight.numel() for n, m in module.named_modules() if n.endswith("word_embeddings")), 0)
    return {"total": total, "embedding": emb}


# --- checks -----------------------------------------------------------------------------------------


@claims.check("C05")
def check_c05(smoke: bool = False) -> claims.Verdict:
    """Settle C05: 32,000 × 4,096 parameters and their bytes in FP32 and FP16/BF16."""
    p = embedding_params(32000, 4096)
    fp32 = 32000 * 4 * measured_bytes(1, 4096, "fp32") // 4  # one real row, scaled: same bytes per value
    fp16 = formula_bytes(p, "fp16")
    ok = p == 131_072_000 and round(fp32 / 1e6) == 524 and round(fp16 / 1e6) == 262
    text = (
        f"32,000 × 4,096 = {p:,} parameters; at 4 bytes each (measured from a real fp32 tensor) that is "
        f"{fp32 / 1e6:.1f} MB, and {fp16 / 1e6:.1f} MB in fp16/bf16 — but {fp32 / 2**20:.0f} MiB and "
        f"{fp16 / 2**20:.0f} MiB in the binary units GPU tools report."
    )
    return claims.Verdict("C05", claims.CONFIRMED if ok else claims.REFUTED, text, {"params": p, "fp32_mib": fp32 / 2**20})


@claims.check("C06")
def check_c06(smoke: bool = False) -> claims.Verdict:
    """Settle C06: recompute the article's table of embedding sizes."""
    rows = {k: v[0] * v[1] / 1e6 for k, v in ARTICLE_TABLE.items()}
    off = {k: (rows[k], ARTICLE_TABLE[k][2]) for k in rows if round(rows[k], 1) != ARTICLE_TABLE[k][2]}
    verdict = claims.CONFIRMED if not off else claims.CORRECTED
    if max(abs(a - b) / b for a, b in (off.values() or [(1, 1)])) > 0.01:
        verdict = claims.REFUTED
    text = "Recomputed V·d: " + "; ".join(f"{k} {v:,.2f}M" for k, v in rows.items()) + ". "
    if off:
        text += "Rounding differs for " + ", ".join(f"{k} ({a:.2f}M, not {b}M)" for k, (a, b) in off.items()) + ". "
    text += "The 'GPT-2' row uses d = 1,600, which is GPT-2 XL; GPT-2 small has d = 768 (38.6M)."
    return claims.Verdict("C06", verdict, text, {"gpt3_m": rows["GPT-3 175B"]})


@claims.check("C07")
def check_c07(smoke: bool = False) -> claims.Verdict:
    """Settle C07's arithmetic: tying saves V·d parameters, about 600M at GPT-3 scale."""

    m = model("GPT-3 175B")
    lm = torch.nn.Module()
    lm.embed = torch.nn.Embedding(1000, 64)
    lm.head = torch.nn.Linear(64, 1000, bias=False)
    untied = sum(p.numel() for p in lm.parameters())
    lm.head.weight = lm.embed.weight
    tied = sum(p.numel() for p in lm.parameters())  # parameters() de-duplicates shared tensors
    ok = untied == 2 * tied and 550e6 < m.embedding_params < 650e6
    text = (
        f"A 1,000×64 toy model counts {untied:,} embedding+head parameters untied and {tied:,} tied (2Vd → Vd). "
        f"At GPT-3's V = {m.vocab:,}, d = {m.d:,} the saving is V·d = {m.embedding_params / 1e6:,.1f}M ≈ 600M, "
        "as stated — about 0.35% of 175B. (GPT-2 and GPT-3 do tie; LLaMA does not.)"
    )
    return claims.Verdict("C07", claims.CONFIRMED if ok else claims.REFUTED, text, {"saving_m": m.embedding_params / 1e6})


@claims.check("C19")
def check_c19(smoke: bool = False) -> claims.Verdict:
    """Settle C19: N ≈ 12·L·d² against the article's own size/depth/width table."""
    errs = [(approx_params(L, d) - n) / n for n, L, d in ARTICLE_WIDTH_TABLE]
    widths = [width_for(n, L) / d for n, L, d in ARTICLE_WIDTH_TABLE]
    worst = max(abs(e) for e in errs)
    verdict = claims.CONFIRMED if worst < 0.1 else claims.CORRECTED
    text = (
        "12·L·d² against N for the article's rows: "
        + ", ".join(f"{n / 1e9:g}B {e:+.0%}" for (n, _, _), e in zip(ARTICLE_WIDTH_TABLE, errs))
        + f". The rule undercounts small models (embeddings are left out: 50,257×768 = 38.6M of GPT-3 Small's 125M) "
        f"and is within {min(abs(e) for e in errs[2:]):.0%}–{max(abs(e) for e in errs[2:]):.0%} for 7B and up; "
        f"d ≈ sqrt(N/12L) recovers the listed widths to within {max(abs(w - 1) for w in widths):.0%}. "
        "It is a parameter count, not a scaling law that prescribes d."
    )
    return claims.Verdict("C19", verdict, text, {"worst_error": worst})


@claims.check("C20")
def check_c20(smoke: bool = False) -> claims.Verdict:
    """Settle C20: d divisible by the head count — torch's attention demands it, the architecture does not."""
    try:
        torch.nn.MultiheadAttention(100, 3)
        torch_requires = False
    except AssertionError:
        torch_requires = True
    divisible = [m for m in MODELS if m.d % m.heads == 0]
    decoupled = [m for m in MODELS if m.head_dim and m.head_dim * m.heads != m.d]
    verdict = claims.CORRECTED if decoupled else claims.CONFIRMED
    text = (
        f"{len(divisible)} of {len(MODELS)} configurations have d divisible by h (4096/32 = {head_dim(4096, 32)}), "
        f"and torch.nn.MultiheadAttention {'refuses' if torch_requires else 'accepts'} d=100 with 3 heads. "
        "But Q/K/V are d × (h·d_head) projections and the output projection maps back to d, so h·d_head need not "
        "equal d: " + ", ".join(f"{m.name} uses {m.heads}×{m.head_dim} = {m.heads * m.head_dim} with d = {m.d}" for m in decoupled)
        + ". It is a convention (and a constraint of some implementations), not a law; no extra layer is needed."
    )
    return claims.Verdict("C20", verdict, text, {"n_divisible": len(divisible)})


@claims.check("C27")
def check_c27(smoke: bool = False) -> claims.Verdict:
    """Settle C27: vocabulary sizes of mainstream models, by year."""
    recent = [m for m in MODELS if m.year >= 2024]
    outside = [m for m in recent if not 30_000 <= m.vocab <= 100_000]
    older = [m.vocab for m in MODELS if m.year <= 2023 and not m.multilingual]
    verdict = claims.CORRECTED if outside else claims.CONFIRMED
    text = (
        f"The monolingual models up to 2023 in our table use {min(older):,}–{max(older):,} ids, but "
        + ", ".join(f"{m.name} has {m.vocab:,}" for m in outside)
        + f": {len(outside)} of the {len(recent)} 2024 models are above 100K. The range was right for 2019–2023."
    )
    return claims.Verdict("C27", verdict, text, {"n_recent_above": len(outside)})


@claims.check("C35")
def check_c35(smoke: bool = False) -> claims.Verdict:
    """Settle C35: 100K × 1,000 = 100M, and the table's share of the whole model."""
    from embedbook import data

    p = embedding_params(100_000, 1000)
    _, enc = data.load_encoder()
    counts = count_parameters(enc)
    share = counts["embedding"] / counts["total"]
    big = model("LLaMA-65B").embedding_share
    verdict = claims.CORRECTED if big < 0.05 < share else claims.CONFIRMED
    text = (
        f"100,000 × 1,000 = {p:,}. Counted from its weights, the bundled MiniLM spends {counts['embedding']:,} of "
        f"{counts['total']:,} parameters ({share:.0%}) on its token table, BERT-base {model('BERT-base').embedding_share:.0%}; "
        f"but LLaMA-65B only {big:.1%} (input and output tables together). 'A sizeable share' holds for small models "
        "and fades with scale, since the table grows with d and the layers with d²."
    )
    return claims.Verdict("C35", verdict, text, {"minilm_share": share, "llama65_share": big})


@claims.check("C36")
def check_c36(smoke: bool = False) -> claims.Verdict:
    """Settle C36: multilingual models' tables are thicker."""
    mono, multi = model("BERT-base"), model("mBERT (base, multilingual)")
    xlmr = model("XLM-R base")
    ok = multi.embedding_params > mono.embedding_params and xlmr.embedding_share > mono.embedding_share
    text = (
        f"At the same width (768), BERT-base's table holds {mono.embedding_params / 1e6:.1f}M parameters "
        f"({mono.embedding_share:.0%} of the model), mBERT's {multi.embedding_params / 1e6:.1f}M "
        f"({multi.embedding_share:.0%}) and XLM-R's {xlmr.embedding_params / 1e6:.1f}M ({xlmr.embedding_share:.0%}): "
        "more languages need more ids."
    )
    return claims.Verdict("C36", claims.CONFIRMED if ok else claims.REFUTED, text, {"xlmr_share": xlmr.embedding_share})
