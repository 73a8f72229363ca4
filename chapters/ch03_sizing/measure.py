"""Chapter 03, "Parameters and memory": the measurements behind C05, C06, C07, C19, C20, C27, C35
and C36 (their rules and checks: claims.py)."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F

from embedbook import sizing, stats
from embedbook.book import Result, claims, i18n
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED
from embedbook.book.i18n import _

# The long article's tables, as printed (input data: the article's own figures).
ARTICLE_TABLE = [  # (model as named, V, d, the article's embedding parameters in millions)
    ("BERT-base", 30522, 768, 23.4), ("GPT-2", 50257, 1600, 80.4),
    ("GPT-3 175B", 50257, 12288, 617.5), ("LLaMA 65B", 32000, 8192, 262.1),
]
ARTICLE_WIDTH_TABLE = [(125e6, 12, 768), (1.3e9, 24, 2048), (7e9, 32, 4096), (70e9, 80, 8192), (175e9, 96, 12288)]
DTYPE_NAMES = ("fp32", "fp16", "bf16", "int8", "int4")


def markdown_table(rows: list[dict], columns: dict[str, tuple[str, str | Callable[[Any], str]]]) -> str:
    """The chapter's tables as Markdown (the book scrolls a Markdown table in its own container where it is
    wider than the text column, and typesets math in its headers). ``columns`` maps each header to the row key
    and a format: a ``str.format`` spec such as ``"{:,}"``, or a function of the value. Numbers are
    right-aligned."""
    if not rows or not columns:
        raise ValueError("markdown_table needs at least one row and one column")
    missing = sorted({key for key, _ in columns.values()} - set(rows[0]))
    if missing:
        raise KeyError(f"markdown_table: the rows have no {missing}; they have {sorted(rows[0])}")

    def side(text: Any, lang: str) -> Any:  # a message (_()) in ``lang``; data (names, numbers) as it is
        return getattr(text, lang) if isinstance(text, i18n.Msg) else text

    def cell(value: Any, fmt: str | Callable[[Any], str], lang: str) -> str:
        value = side(value, lang)
        text = side(fmt(value), lang) if callable(fmt) else fmt.format(value)
        return str(text).replace("|", "\\|")

    def header(name: str, lang: str) -> str:
        if isinstance(name, i18n.Msg) or lang == "en":
            return str(side(name, lang))
        return i18n.translate_text(name)

    numeric = [isinstance(rows[0][key], (int, float)) for key, _fmt in columns.values()]

    def table(lang: str) -> str:
        lines = ["| " + " | ".join(header(h, lang) for h in columns) + " |",
                 "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
        lines += ["| " + " | ".join(cell(row[key], fmt, lang) for key, fmt in columns.values()) + " |"
                  for row in rows]
        return "\n".join(lines)

    # both editions' tables: a Markdown output of this text is published in each (i18n.install)
    return i18n.Msg(table("en"), table("zh")) if "zh" in i18n.languages() else table("en")


def verbatim(text: str) -> str:
    """``text`` as it is in both editions: data (model names) a figure or a table shows as a label."""
    return i18n.Msg(text, text).format() if "{" not in text and "}" not in text else text


# --- C05: bytes of the article's table ---------------------------------------------------------------


@dataclass
class TableBytes(Result):
    """Bytes of a ``vocab × d`` table per dtype: from torch tensors and from the formula."""

    vocab: int
    d: int
    params: int  # numel() of the tensor
    real_rows: int  # rows of the table actually allocated on the CPU to check the bytes
    real_matches: int  # 1 if every allocated tensor's storage has numel × element_size bytes
    rows: list[dict] = field(default_factory=list)  # one per dtype
    fp32_mb: float = 0.0
    fp16_mb: float = 0.0
    bf16_mb: float = 0.0
    fp32_mib: float = 0.0
    fp16_mib: float = 0.0


def run_bytes(vocab: int = 32000, d: int = 4096, *, real_rows: int) -> TableBytes:
    """Bytes of a ``vocab × d`` table in each dtype, from a meta-device tensor (no memory) and from the
    formula; and, for ``real_rows`` rows, from a tensor really allocated on the CPU."""
    rows, ok = [], True
    for name in DTYPE_NAMES:
        meta = sizing.measured_bytes(vocab, d, name)  # meta device: nothing allocated
        real = sizing.measured_bytes(real_rows, d, name, device="cpu")
        ok &= real == sizing.formula_bytes(real_rows * d, name)
        rows.append({"dtype": name, "bytes": meta, "MB": meta / 1e6, "MiB": meta / 2**20,
                     "bytes per value": meta / (vocab * d)})
    by = {r["dtype"]: r["bytes"] for r in rows}
    t = torch.empty(vocab, d, device="meta")
    return TableBytes(vocab=vocab, d=d, params=t.numel(), real_rows=real_rows, real_matches=int(ok), rows=rows,
                      fp32_mb=by["fp32"] / 1e6, fp16_mb=by["fp16"] / 1e6, bf16_mb=by["bf16"] / 1e6,
                      fp32_mib=by["fp32"] / 2**20, fp16_mib=by["fp16"] / 2**20)


# --- C06: the article's table of embedding sizes -----------------------------------------------------


def _norm(name: str) -> str:
    return name.lower().replace("-", " ").replace("_", " ")


@dataclass
class ArticleTable(Result):
    """The article's table of embedding sizes, recomputed, and each row's width against the published models its
    name can denote."""

    rows: list[dict] = field(default_factory=list)
    worst_rel_err: float = 0.0
    n_rounding_off: int = 0  # rows whose figure is not V·d rounded to 0.1M
    n_ambiguous: int = 0  # rows whose name covers published models of different widths (information, not a defect)


def run_article_table() -> ArticleTable:
    """Recompute V·d for each row of the article's table; list the published configurations each row's name can
    denote (the exact name, or every model of that name's family) and which of them has the row's width."""
    rows = []
    for name, v, d, stated in ARTICLE_TABLE:
        exact = v * d
        family = [m for m in sizing.MODELS if _norm(m.name) == _norm(name) or _norm(m.name).startswith(_norm(name) + " ")]
        holder = next((m.name for m in family if m.d == d), None)
        rows.append({"model (article)": name, "V": v, "d": d, "article (M)": stated, "V·d": exact,
                     "V·d (M)": exact / 1e6, "gap": stated / (exact / 1e6) - 1,
                     "rounds to": round(exact / 1e6, 1), "rounding ok": int(round(exact / 1e6, 1) == stated),
                     "published widths": ", ".join(f"{m.name} {m.d:,}" for m in family),
                     "ambiguous": int(len({m.d for m in family}) > 1), "width belongs to": holder or "—"})
    return ArticleTable(rows=rows, worst_rel_err=max(abs(r["gap"]) for r in rows),
                        n_rounding_off=sum(1 - r["rounding ok"] for r in rows),
                        n_ambiguous=sum(r["ambiguous"] for r in rows))


# --- C07: what tying saves ----------------------------------------------------------------------------


@dataclass
class TyingCount(Result):
    """Embedding-related parameters of a model at GPT-3's V and d, untied and tied, counted on the meta device."""

    vocab: int
    d: int
    untied: int  # input table + output head, two tensors
    tied: int  # one tensor
    saving: int
    claimed_saving: float = 600e6

    def extra_glue(self) -> dict:
        return {"saving_m": self.saving / 1e6, "ratio": self.untied / self.tied}


def run_tying(vocab: int = 50257, d: int = 12288) -> TyingCount:
    """Build a token table and an output head of GPT-3's sizes on the meta device (no memory), count the
    parameters with :func:`embedbook.sizing.count_parameters`, tie the head to the table, count again."""
    lm = torch.nn.Module()
    lm.embed = torch.nn.Embedding.from_pretrained(torch.empty(vocab, d, device="meta"), freeze=False)  # no init
    lm.head = torch.nn.Linear(d, vocab, bias=False, device="meta")
    before = sizing.count_parameters(lm)
    lm.head.weight = lm.embed.weight
    after = sizing.count_parameters(lm)
    untied, tied = before.embedding + before.head, after.embedding + after.head
    return TyingCount(vocab=vocab, d=d, untied=untied, tied=tied, saving=untied - tied)


@dataclass
class WidthRule(Result):
    """The article's table of model sizes, depths and widths against N ≈ 12·L·d², and one real layer counted."""

    rows: list[dict] = field(default_factory=list)
    layer_d: int = 4096
    layer_params: int = 0  # parameters of one torch TransformerEncoderLayer(d, 4d MLP), biases and norms included
    layer_ratio: float = 0.0  # layer_params / 12d²
    worst_large_err: float = 0.0  # largest |error| of 12·L·d² for models of 7B and more
    worst_err: float = 0.0
    small_err_with_table: float = 0.0  # the 125M row with the token table (GPT-3's V) added

    def extra_glue(self) -> dict:
        return {"small_err": self.rows[0]["error"] if self.rows else 0.0}


def run_width_rule(layer_d: int, heads: int = 32, vocab: int = 50257) -> WidthRule:
    """Count one ``torch.nn.TransformerEncoderLayer(layer_d, heads, 4·layer_d)`` on the meta device, and
    compare 12·L·d² and sqrt(N/12L) with each row of the article's table."""
    layer = torch.nn.TransformerEncoderLayer(layer_d, heads, dim_feedforward=4 * layer_d, device="meta")
    n_layer = sum(p.numel() for p in layer.parameters())
    rows = []
    for n, L, d in ARTICLE_WIDTH_TABLE:
        approx = sizing.approx_params(L, d)
        rows.append({"N": n, "L": L, "d (article)": d, "12·L·d²": approx, "error": approx / n - 1,
                     "sqrt(N/12L)": sizing.width_for(n, L), "width error": sizing.width_for(n, L) / d - 1,
                     "error with V·d": (approx + vocab * d) / n - 1})
    large = [r for r in rows if r["N"] >= 7e9]
    return WidthRule(rows=rows, layer_d=layer_d, layer_params=n_layer, layer_ratio=n_layer / (12 * layer_d**2),
                     worst_large_err=max(abs(r["error"]) for r in large), worst_err=max(abs(r["error"]) for r in rows),
                     small_err_with_table=rows[0]["error with V·d"])


# --- C20: heads and the width ---------------------------------------------------------------------------


@dataclass
class Heads(Result):
    """Head counts and widths: torch's MultiheadAttention, a hand-written attention with h·d_head ≠ d, and the
    published configurations."""

    torch_refuses: int  # 1 if nn.MultiheadAttention(100, 3) raises
    decoupled_runs: int  # 1 if the hand-written attention with d = 100, 3 heads of 32 returns width 100
    decoupled_matrices: int  # projection matrices it uses (Q, K, V, output)
    n_configs: int
    n_divisible: int  # configurations with d divisible by the head count
    n_decoupled: int  # configurations whose heads are not d / h wide
    decoupled_names: list[str] = field(default_factory=list)

    def extra_glue(self) -> dict:
        return {"divisible_share": self.n_divisible / self.n_configs}


# A configuration-table literature record (C20, C27, C35, and C42 in chapter 07): each published configuration of
# embedbook.sizing.MODELS is a source, its figures read from the model's paper or released config.json and its
# tags computed from those figures. The list is the book's table, compiled for this chapter, not a fresh search.
CONFIG_WHERE = "the paper's model table or the released config.json, as copied into embedbook.sizing.MODELS"
CONFIG_SEARCH = claims.Search(
    queries=("no new search: every row of the book's configuration table (embedbook.sizing.MODELS), compiled for "
             "chapter 03 from each model's paper or released configuration",),
    corpora=("embedbook.sizing.MODELS (each row cited)",), date="2026-12-01")


def config_source(m: sizing.ModelConfig, finding: str, **holds: bool) -> claims.Source:
    """Published configuration ``m`` as a source: ``finding`` (read off its figures), supporting each tag of
    ``holds`` that is True and contradicting each that is False."""
    return claims.Source(cite=m.source, finding=f"{m.name}: {finding}", where=CONFIG_WHERE,
                         supports=tuple(t for t, h in holds.items() if h),
                         contradicts=tuple(t for t, h in holds.items() if not h))


DIVISIBLE, DECOUPLED = "d_divisible_by_heads", "heads_not_d_wide"  # C20's tags


def heads_source(m: sizing.ModelConfig) -> claims.Source:
    """C20: configuration ``m``'s width, heads and head width, and whether the heads split d."""
    finding = (f"d = {m.d:,}, {m.heads} heads of {m.attention_width // m.heads} (together {m.attention_width:,}); "
               f"d is {'' if m.d_divisible else 'not '}divisible by the head count")
    return config_source(m, finding, **{DIVISIBLE: m.d_divisible, DECOUPLED: m.decoupled})


C20_SOURCES = tuple(heads_source(m) for m in sizing.MODELS)
C20_COUNTED = {"n_divisible": DIVISIBLE, "n_not_divisible": (DIVISIBLE, claims.CONTRADICTS), "n_decoupled": DECOUPLED}
C20_LITERATURE = claims.Literature(
    sources=C20_SOURCES, search=CONFIG_SEARCH,
    strongest_against=(
        "Every mainstream implementation (torch.nn.MultiheadAttention, Hugging Face's BERT and GPT-2 code) asserts "
        "that d divides by the head count, and most configurations in the table obey it: for a reader of those "
        "implementations divisibility is a requirement in practice, and the decoupled 2024 models (Gemma, Mistral NeMo, "
        "DeepSeek-V3) each declare an explicit head_dim to escape it."),
)


def decoupled_attention(x: torch.Tensor, weights: dict[str, torch.Tensor], heads: int) -> torch.Tensor:
    """Self-attention whose ``heads`` heads together are ``W_q.shape[1]`` wide, whatever the width of ``x``."""
    n, width = x.shape[0], weights["q"].shape[1]
    q, k, v = ((x @ weights[w]).view(n, heads, width // heads).transpose(0, 1) for w in "qkv")
    return F.scaled_dot_product_attention(q, k, v).transpose(0, 1).reshape(n, width) @ weights["o"]


def run_heads(d: int = 100, heads: int = 3, head_width: int = 32) -> Heads:
    """Ask torch for a ``d``-wide attention with ``heads`` heads; run a hand-written one whose heads are
    ``head_width`` wide; count the published configurations in :data:`embedbook.sizing.MODELS`."""
    try:
        torch.nn.MultiheadAttention(d, heads)
        refuses = 0
    except (AssertionError, ValueError):
        refuses = 1
    gen = torch.Generator().manual_seed(0)
    w = {k: torch.randn(d, heads * head_width, generator=gen) for k in "qkv"}
    w["o"] = torch.randn(heads * head_width, d, generator=gen)
    out = decoupled_attention(torch.randn(5, d, generator=gen), w, heads)
    f = C20_LITERATURE.figures(C20_COUNTED)
    return Heads(torch_refuses=refuses, decoupled_runs=int(out.shape == (5, d)), decoupled_matrices=len(w),
                 n_configs=f["n_divisible"] + f["n_not_divisible"], n_divisible=f["n_divisible"],
                 n_decoupled=f["n_decoupled"], decoupled_names=[m.name for m in sizing.MODELS if m.decoupled])


# --- C27: vocabulary sizes --------------------------------------------------------------------------------


@dataclass
class Vocabularies(Result):
    """Vocabulary sizes of the decoder language models in :data:`embedbook.sizing.MODELS`, by year."""

    low: int = 30_000
    high: int = 100_000
    n_recent: int = 0  # released 2024 or later (the article cites 2024 and 2025 work: "current" models)
    n_older: int = 0
    n_recent_in_range: int = 0
    n_recent_above: int = 0  # current models with more than 100K ids
    recent_in_range: float = 0.0
    recent_ci_lo: float = 0.0  # 95 % Wilson interval of the recent share
    recent_ci_hi: float = 0.0
    older_in_range: float = 0.0
    recent_min: int = 0
    recent_max: int = 0
    since: int = 2024
    recent: list[str] = field(default_factory=list)


C27_SINCE = 2024  # the article cites 2024 and 2025 work: models released from then on are its "current" ones
CURRENT_IN, EARLIER_IN = "vocab_30k_100k_current", "vocab_30k_100k_earlier"  # C27's tags


def vocab_source(m: sizing.ModelConfig, since: int = C27_SINCE) -> claims.Source:
    """C27: decoder configuration ``m``'s vocabulary, and whether it lies in 30K–100K ids (a tag of the current
    models if released from ``since`` on, else of the earlier ones)."""
    inside = 30_000 <= m.vocab <= 100_000
    return config_source(m, f"vocabulary {m.vocab:,} (vocab_size), released {m.year}; "
                         f"{'inside' if inside else 'outside'} 30K–100K",
                         **{CURRENT_IN if m.year >= since else EARLIER_IN: inside})


def vocab_sources(since: int = C27_SINCE) -> tuple[claims.Source, ...]:
    """C27's sources: every decoder language model of :data:`embedbook.sizing.MODELS`."""
    return tuple(vocab_source(m, since) for m in sizing.MODELS if m.kind == "decoder")


C27_COUNTED = {"n_current_in": CURRENT_IN, "n_current_out": (CURRENT_IN, claims.CONTRADICTS),
               "n_earlier_in": EARLIER_IN, "n_earlier_out": (EARLIER_IN, claims.CONTRADICTS)}


def _vocab_shares(f: dict) -> tuple[float, float, float, float]:
    """C27's current share in range, its 95 % Wilson interval, and the earlier share, from the counts."""
    n_cur = f["n_current_in"] + f["n_current_out"]
    lo, hi = stats.wilson_interval(f["n_current_in"], n_cur)
    return f["n_current_in"] / n_cur, lo, hi, f["n_earlier_in"] / (f["n_earlier_in"] + f["n_earlier_out"])


def run_vocabularies(since: int = C27_SINCE) -> Vocabularies:
    """Share of the table's decoder models within 30K–100K ids, released from ``since`` on and before, with a 95 %
    Wilson interval for the recent share (:func:`embedbook.stats.wilson_interval`), counted from their sources
    (:func:`vocab_sources`)."""
    f = claims.tally(vocab_sources(since), C27_COUNTED)
    share, lo, hi, older = _vocab_shares(f)
    recent = [m for m in sizing.MODELS if m.kind == "decoder" and m.year >= since]
    return Vocabularies(n_recent=len(recent), n_older=f["n_earlier_in"] + f["n_earlier_out"],
                        n_recent_in_range=f["n_current_in"], recent_in_range=share,
                        n_recent_above=sum(m.vocab > 100_000 for m in recent),
                        recent_ci_lo=lo, recent_ci_hi=hi, older_in_range=older,
                        recent_min=min(m.vocab for m in recent), recent_max=max(m.vocab for m in recent), since=since,
                        recent=[f"{m.name} {m.vocab:,}" for m in recent])


# --- C35: the table's share of the model --------------------------------------------------------------------


@dataclass
class Shares(Result):
    """The short article's 100K × 1,000 example, and the token tables' share of published models."""

    product: int
    example_share: float  # 100K × 1,000 table against 12·L·d² with L = example_layers
    example_layers: int
    minilm_table: int  # the bundled MiniLM's word table, counted from its weights
    minilm_total: int
    minilm_share: float
    median_small: float  # median share of the models below 10B parameters
    median_large: float  # median share from 10B up
    n_small: int
    n_large: int
    n_small_sizeable: int = 0  # models below 10B whose table(s) hold at least 10 % of the parameters
    n_large_sizeable: int = 0
    rows: list[dict] = field(default_factory=list)

    def extra_glue(self) -> dict:
        return {"frac_small": self.n_small_sizeable / self.n_small if self.n_small else 0.0}


C35_SPLIT, SIZEABLE = 10e9, 0.1  # the article's scale (below 10B parameters); a sizeable share of the parameters
SIZEABLE_SMALL, SIZEABLE_LARGE = "table_sizeable_below_10B", "table_sizeable_from_10B"  # C35's tags


def share_source(m: sizing.ModelConfig) -> claims.Source:
    """C35: configuration ``m``'s token table(s) against its published parameter count, and whether they hold at
    least :data:`SIZEABLE` of it (a tag of the models below or from :data:`C35_SPLIT`)."""
    tables = f"{m.tables} tables" if m.tables > 1 else "1 table (tied)"
    finding = (f"{m.vocab:,} × {m.d:,}, {tables}, of {m.params / 1e9:,.2f}B parameters: "
               f"{m.embedding_share:.1%} in the token table(s)")
    return config_source(m, finding, **{SIZEABLE_SMALL if m.params < C35_SPLIT else SIZEABLE_LARGE:
                                        m.embedding_share >= SIZEABLE})


C35_SOURCES = tuple(share_source(m) for m in sizing.MODELS)
C35_COUNTED = {"n_small_sizeable": SIZEABLE_SMALL, "n_small_not": (SIZEABLE_SMALL, claims.CONTRADICTS)}


def run_shares(encoder: torch.nn.Module, example_layers: int = 24, split: float = C35_SPLIT) -> Shares:
    """Count ``encoder``'s parameters (:func:`embedbook.sizing.count_parameters`); compute the token tables' share
    of every published configuration, and of a model of the example's size (V = 100,000, d = 1,000)."""
    counts = sizing.count_parameters(encoder)
    word = max(counts.tables.values())  # the token table is the largest
    product = sizing.embedding_params(100_000, 1000)
    rows = [{"model": m.name, "parameters": m.params, "share": m.embedding_share, "tables": m.tables,
             "multilingual": m.multilingual} for m in sizing.MODELS]
    small = [r["share"] for r in rows if r["parameters"] < split]
    large = [r["share"] for r in rows if r["parameters"] >= split]
    f = claims.tally(C35_SOURCES, {**C35_COUNTED, "large": SIZEABLE_LARGE})  # the sources' counts (the rule reads them)
    return Shares(product=product, example_layers=example_layers,
                  example_share=product / (product + sizing.approx_params(example_layers, 1000)),
                  minilm_table=word, minilm_total=counts.total, minilm_share=word / counts.total,
                  median_small=statistics.median(small), median_large=statistics.median(large),
                  n_small=f["n_small_sizeable"] + f["n_small_not"], n_large=len(large),
                  n_small_sizeable=f["n_small_sizeable"], n_large_sizeable=f["large"], rows=rows)


def _small_share(f: dict) -> float:
    """C35: the share of the models below 10B with a sizeable table, from the counts."""
    return f["n_small_sizeable"] / (f["n_small_sizeable"] + f["n_small_not"])


# --- C36: multilingual tables ---------------------------------------------------------------------------------


def same_width_pairs(models: list[sizing.ModelConfig] | None = None) -> list[tuple[str, str]]:
    """The pairing rule of C36, declared before counting: every pair of one primarily-English (not multilingual) and
    one multilingual model in ``models`` (default :data:`embedbook.sizing.MODELS`) of the same width ``d`` and the
    same kind (encoder or decoder)."""
    ms = sizing.MODELS if models is None else models
    return [(a.name, b.name) for a in ms if not a.multilingual for b in ms
            if b.multilingual and a.d == b.d and a.kind == b.kind]


# C36's deciding pairs, declared in round 3 before their ratios were computed: each English model and the
# multilingual counterpart its authors built on it (same architecture and width; only the languages and the
# vocabulary change), with where the source says so.
SIBLING_PAIRS: list[tuple[str, str, str]] = [
    ("BERT-base", "mBERT (base, multilingual)", "the multilingual BERT-base released with BERT"),
    ("RoBERTa-base", "XLM-R base", "§3: XLM-R follows RoBERTa's training, in 100 languages"),
    ("MiniLM-L6 (bundled)", "Multilingual MiniLM-L12",
     "multilingual MiniLM-L12-H384, the 384-wide MiniLM with XLM-R's vocabulary"),
    ("T5-base", "mT5-base", "§2: mT5 follows T5 (T5.1.1) and changes the data and the vocabulary"),
    ("BART-large", "mBART-large-cc25", "§2: mBART is BART's objective and architecture on 25 languages"),
]


@dataclass
class Multilingual(Result):
    """Token tables of English models and their multilingual siblings (C36's deciding comparison), and of every
    primarily-English and multilingual pair of the same width in the configuration table."""

    rows: list[dict] = field(default_factory=list)  # same-width pairs
    sibling_rows: list[dict] = field(default_factory=list)
    n_pairs: int = 0
    n_thicker: int = 0
    n_widths: int = 0  # distinct widths the pairs come from
    width_share: float = 0.0  # the share of thicker pairs at each width, averaged over widths (each width once)
    n_siblings: int = 0
    n_sib_thicker: int = 0
    min_ratio: float = 0.0
    big_monolingual: list[str] = field(default_factory=list)  # primarily-English models with 100K+ ids

    def extra_glue(self) -> dict:
        return {"thicker_share": self.n_thicker / self.n_pairs if self.n_pairs else 0.0,
                "sibling_share": self.n_sib_thicker / self.n_siblings if self.n_siblings else 0.0}


def _pair_row(mono: str, multi: str, pairing: str) -> dict:
    a, b = sizing.model(mono), sizing.model(multi)
    if a.d != b.d:
        raise ValueError(f"{mono} and {multi} differ in width ({a.d} and {b.d}); compare models of the same d")
    return {"pairing": pairing, "monolingual": mono, "multilingual": multi, "d": a.d,
            "mono table (M)": a.embedding_params / 1e6, "multi table (M)": b.embedding_params / 1e6,
            "ratio": b.embedding_params / a.embedding_params, "mono share": a.embedding_share,
            "multi share": b.embedding_share}


def width_share(rows: list[dict]) -> float:
    """The share of pairs whose multilingual table is larger, taken at each width and averaged over the widths,
    so that a width with many pairs counts once."""
    by_width: dict[int, list[bool]] = {}
    for row in rows:
        by_width.setdefault(row["d"], []).append(row["ratio"] > 1)
    return sum(sum(v) / len(v) for v in by_width.values()) / len(by_width)


def run_multilingual(pairs: list[tuple[str, str]] | None = None,
                     siblings: list[tuple[str, str, str]] = SIBLING_PAIRS) -> Multilingual:
    """Compare the token tables of each English model with its multilingual sibling (:data:`SIBLING_PAIRS`), and
    of each (primarily-English, multilingual) pair of the same width; by default every such pair in the
    configuration table (:func:`same_width_pairs`)."""
    pairs = same_width_pairs() if pairs is None else pairs
    if not pairs or not siblings:
        raise ValueError("C36 needs at least one same-width pair and one sibling pair to compare")
    rows = [_pair_row(mono, multi, "same width") for mono, multi in pairs]
    sib = [_pair_row(mono, multi, "sibling") for mono, multi, _ in siblings]
    big = [f"{m.name} ({m.vocab:,})" for m in sizing.MODELS if not m.multilingual and m.vocab >= 100_000]
    return Multilingual(rows=rows, sibling_rows=sib, n_pairs=len(rows), n_thicker=sum(r["ratio"] > 1 for r in rows),
                        n_widths=len({r["d"] for r in rows}), width_share=width_share(rows), n_siblings=len(sib),
                        n_sib_thicker=sum(r["ratio"] > 1 for r in sib), min_ratio=min(r["ratio"] for r in sib),
                        big_monolingual=big)
# --- the figures ----------------------------------------------------------------------------------------------

# the few models the lesson's share figure names (the audit's figure names every one)
SHARE_NAMED = ("MiniLM-L6 (bundled)", "XLM-R base", "GPT-2 small", "Llama-3.1-8B", "GPT-3 175B")


def figure_share_scatter(r: Shares, named: tuple[str, ...] = SHARE_NAMED):
    """The token tables' share against the model's parameters (log scale), one point per configuration,
    multilingual models in the second colour; only the models in ``named`` are labelled."""
    from matplotlib.ticker import FuncFormatter

    from embedbook import plotting

    fig, ax = plotting.subplots(figsize=(7, 4))
    for multi, label in ((False, _("mainly one language")), (True, _("multilingual · 多语言"))):
        pts = [row for row in r.rows if row["multilingual"] == multi]
        ax.scatter([row["parameters"] for row in pts], [100 * row["share"] for row in pts], s=28, zorder=3,
                   color=plotting.PALETTE[1 if multi else 0], label=label)
    for row in r.rows:
        if row["model"] in named:
            right = row["parameters"] < 3e11  # the largest model's label to the left of its point
            ax.annotate(verbatim(row["model"]), (row["parameters"], 100 * row["share"]), fontsize=8,
                        textcoords="offset points", xytext=(6 if right else -6, 4), ha="left" if right else "right")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x / 1e9:g}B" if x >= 1e9 else f"{x / 1e6:g}M"))
    ax.axhline(10, color="grey", ls="--", lw=1)
    ax.set_ylim(0, 90)
    ax.set_xlabel(_("parameters of the model (log scale)"))
    ax.set_ylabel(_("% of all parameters in the token table(s)"))
    ax.legend(loc="upper right", fontsize=9)
    ax.set_title(_("嵌入层占比 · the token table's share of the model"))
    return fig


def figure_share_bars(r: Shares):
    """Every configuration's token-table share, one labelled bar each, smallest model at the top."""
    from embedbook import plotting

    order = sorted(r.rows, key=lambda row: row["parameters"])
    fig, ax = plotting.subplots(figsize=(7.5, 0.3 * len(order) + 1.6))
    colors = [plotting.PALETTE[1] if row["multilingual"] else plotting.PALETTE[0] for row in order]
    ax.barh([verbatim(row["model"]) for row in order], [100 * row["share"] for row in order], color=colors,
            height=0.7)
    ax.axvline(10, color="grey", ls="--", lw=1)
    ax.set_xlabel(_("% of all parameters in the token table(s)"))
    ax.set_ylabel(_("model, smallest at the top"))
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.tick_params(axis="y", labelsize=9)
    ax.bar(0, 0, color=plotting.PALETTE[0], label=_("mainly one language"))
    ax.bar(0, 0, color=plotting.PALETTE[1], label=_("multilingual · 多语言"))
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title(_("嵌入层占比 · the token table's share of the model"))
    return fig


def figure_vocabularies(low: int = 30_000, high: int = 100_000):
    """The vocabularies of the decoder language models of :data:`embedbook.sizing.MODELS`: one labelled bar per
    model, grouped by year of release (oldest at the top), the article's range shaded."""
    from embedbook import plotting

    decoders = sorted((m for m in sizing.MODELS if m.kind == "decoder"), key=lambda m: (m.year, m.vocab))
    fig, ax = plotting.subplots(figsize=(7.5, 0.3 * len(decoders) + 1.6))
    ax.axvspan(low / 1000, high / 1000, color="grey", alpha=0.15, label=_("30K–100K (the article)"))
    ax.barh([verbatim(f"{m.name} ({m.year})") for m in decoders], [m.vocab / 1000 for m in decoders], height=0.7,
            color=[plotting.PALETTE[1] if m.multilingual else plotting.PALETTE[0] for m in decoders])
    for i in range(1, len(decoders)):  # a thin line between two years
        if decoders[i].year != decoders[i - 1].year:
            ax.axhline(i - 0.5, color="grey", lw=0.6)
    ax.set_ylim(len(decoders) - 0.5, -0.5)
    ax.tick_params(axis="y", labelsize=9)
    ax.bar(0, 0, color=plotting.PALETTE[0], label=_("mainly one language"))
    ax.bar(0, 0, color=plotting.PALETTE[1], label=_("multilingual · 多语言"))
    ax.set_xlabel(_("vocabulary (thousands of ids)"))
    ax.legend(loc="center right", fontsize=9)  # beside the short bars of 2023-2024, clear of the long ones
    ax.set_title(_("词表大小 · vocabularies of decoder language models, by year"))
    return fig


# --- the chapter's summary: one sentence per claim, chosen by the verdict -------------------------------

HEADLINES = {
    "C05": {
        CONFIRMED: _("The article's 524 MB (fp32) and 262 MB (fp16, bf16) are right, in decimal megabytes."),
        CORRECTED: _("The article's sizes are off by up to {worst_rel_err:.1%}."),
        REFUTED: _("The article's sizes are wrong (off by up to {worst_rel_err:.0%})."),
    },
    "C06": {
        CONFIRMED: _("The article's table of embedding sizes is right."),
        CORRECTED: lambda f: (
            _("The article's table of embedding sizes is right to within {err:.1%}, but one of its figures is "
              "rounded wrongly.") if f["n_rounding_off"] == 1 else
            _("The article's table of embedding sizes is right to within {err:.1%}, but {n} of its figures are "
              "rounded wrongly.")).format(err=f["worst_rel_err"], n=f["n_rounding_off"]),
        REFUTED: _("The article's table is off by up to {worst_rel_err:.0%}."),
    },
    "C07": {
        CONFIRMED: _("Tying halves the embedding parameters; at GPT-3's size it saves about 600M, as stated."),
        CORRECTED: _("Tying halves the embedding parameters, but the saving at GPT-3's size is not about 600M."),
        REFUTED: _("Tying did not halve the embedding parameters."),
    },
    "C19": {
        CONFIRMED: _("Counting the layers alone fits every model in the article's table to within 10%."),
        CORRECTED: _("Counting the layers alone fits the article's models from 7B up to within {worst_large_err:.0%}, "
                     "but misses small ones by up to {worst_err:.0%}."),
        REFUTED: _("Counting the layers alone does not fit the article's models."),
    },
    "C20": {
        CONFIRMED: _("Every configuration splits its width evenly over its heads."),
        CORRECTED: lambda f: _("{share:.0%} of the configurations split their width evenly over the heads, but "
                               "{n_decoupled} use heads of another total width: divisibility is a convention, "
                               "not a requirement.").format(
            share=f["n_divisible"] / (f["n_divisible"] + f["n_not_divisible"]), n_decoupled=f["n_decoupled"]),
        REFUTED: _("Most configurations do not split their width evenly over their heads."),
    },
    "C27": {
        CONFIRMED: _("Current vocabularies still lie in 30K–100K."),
        CORRECTED: lambda f: _("30K–100K described the models before 2024 ({3:.0%} of them in the table), not the "
                               "current ones ({0:.0%} of them, 95 % interval {1:.0%}–{2:.0%}).").format(
            *_vocab_shares(f)),
        REFUTED: _("30K–100K describes neither the current nor the earlier models."),
        INCONCLUSIVE: _("Too few current models in the table to tell whether 30K–100K still describes them."),
    },
    "C35": {
        CONFIRMED: lambda f: _("The token table is often a sizeable share of models at the article's scale "
                               "({share:.0%} of the models below 10B spend at least 10% on it).").format(
            share=_small_share(f)),
        CORRECTED: lambda f: _("The token table is sometimes, not often, a sizeable share "
                               "({share:.0%} of the models below 10B spend at least 10% on it).").format(
            share=_small_share(f)),
        REFUTED: lambda f: _("The token table is rarely a sizeable share of these models ({share:.0%} below "
                             "10B).").format(share=_small_share(f)),
    },
    "C36": {
        CONFIRMED: lambda f: _("Made multilingual, a model usually gets the thicker token table "
                               "({n_thicker} of {n} English models against "
                               "their multilingual siblings).").format(
            n_thicker=f["n_sib_thicker"], n=f["n_sib_thicker"] + f["n_sib_not"]),
        CORRECTED: lambda f: _("Made multilingual, a model gets the thicker table in {n_thicker} of "
                               "{n} sibling pairs: more often than not, not "
                               "'usually'.").format(n_thicker=f["n_sib_thicker"], n=f["n_sib_thicker"] + f["n_sib_not"]),
        REFUTED: lambda f: _("Made multilingual, models do not usually get thicker tables "
                             "({n_thicker} of {n} sibling pairs).").format(
            n_thicker=f["n_sib_thicker"], n=f["n_sib_thicker"] + f["n_sib_not"]),
    },
}


def headline(v: claims.Verdict, table: dict = HEADLINES) -> str:
    """The summary sentence for verdict ``v``: the one its outcome selects, filled in with its figures."""
    entry = table[v.claim_id][v.verdict]
    return entry(v.figures) if callable(entry) else entry.format(**v.figures)


def glue_headlines(verdicts: list[claims.Verdict]) -> None:
    """Glue ``<claim>_headline`` for each verdict (the chapter's summary pastes them)."""
    from embedbook import book

    for v in verdicts:
        book.glue(f"{v.claim_id}_headline", headline(v))
