"""Chapter 02, "Lookup is a matrix product": the measurements behind C01–C04 and C37 (their rules and checks: claims.py)."""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F

from embedbook import lookup, sizing, timing
from embedbook.book import Result, claims
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED
from embedbook.book.i18n import _


def _amount(x: float) -> str:
    """A difference for a sentence: "exactly 0", or the value in math with a power of ten
    (``$1.2\\times10^{-7}$``), never a decimal with a run of zeros."""
    if x == 0:
        return _("exactly 0")
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"${mantissa}\\times10^{{{int(exponent)}}}$"


# --- C02, C03: three ways to the same rows -------------------------------------------------------------


@dataclass
class Exactness(Result):
    """Gather vs one-hot matmul vs bias-free Linear on one random batch, forward and backward."""

    vocab: int
    dim: int
    n_ids: int
    distinct_ids: int
    max_diff_matmul: float
    max_diff_linear: float
    max_diff_grad: float
    rows_with_grad: int


def run_exactness(vocab: int = 1000, dim: int = 64, shape: tuple[int, int] = (8, 16), seed: int = 0) -> Exactness:
    """Compare the three lookups on ``shape`` random ids, and the embedding's row gradient with the
    bias-free Linear's weight gradient for the same upstream gradient."""
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(vocab, dim, generator=gen)
    ids = torch.randint(0, vocab, shape, generator=gen)
    a = lookup.gather(ids, table)
    b = lookup.one_hot_matmul(ids, table)
    c = lookup.linear_lookup(ids, table)
    upstream = torch.randn(*shape, dim, generator=gen)
    emb = torch.nn.Embedding.from_pretrained(table.clone(), freeze=False)
    (emb(ids) * upstream).sum().backward()
    lin = torch.nn.Linear(vocab, dim, bias=False)
    with torch.no_grad():
        lin.weight.copy_(table.T)
    (lin(F.one_hot(ids, vocab).float()) * upstream).sum().backward()
    return Exactness(
        vocab=vocab,
        dim=dim,
        n_ids=ids.numel(),
        distinct_ids=int(ids.unique().numel()),
        max_diff_matmul=float((a - b).abs().max()),
        max_diff_linear=float((a - c).abs().max()),
        max_diff_grad=float((emb.weight.grad - lin.weight.grad.T).abs().max()),
        rows_with_grad=int((emb.weight.grad.abs().sum(1) > 0).sum()),
    )


# --- C01: cost as the vocabulary grows ----------------------------------------------------------------------


@dataclass
class LookupCost(Result):
    """Seconds per batch of gather and of one-hot matmul at each vocabulary size, timed in turn."""

    vocab_sizes: list[int]
    dim: int
    n_tokens: int
    gather_s: list[float]  # per batch of n_tokens (timed on gather_tokens ids, scaled)
    matmul_s: list[float]
    one_hot_bytes: list[int]
    bench_gather_growth: float  # time at the largest V / time at the smallest V
    bench_matmul_growth: float
    v_ratio: float  # largest V / smallest V
    bytes_read_per_token: int  # the gather reads one row of d floats whatever V is

    def extra_glue(self) -> dict:
        return {"v_min": self.vocab_sizes[0], "v_max": self.vocab_sizes[-1]}

    def rows(self) -> list[dict]:
        """One row per vocabulary size (for a table)."""
        return [
            {"V": v, _("lookup (µs)").en: g * 1e6, _("one-hot @ E (µs)").en: m * 1e6,
             _("one-hot batch (MiB)").en: b / 2**20}
            for v, g, m, b in zip(self.vocab_sizes, self.gather_s, self.matmul_s, self.one_hot_bytes)
        ]


def cost_contenders(
    vocab_sizes: list[int], dim: int = 256, n_tokens: int = 512, seed: int = 0, gather_tokens: int = 16384,
    device: str | torch.device = "cpu",
) -> dict[str, dict[int, Callable[[], torch.Tensor]]]:
    """What :func:`run_cost` times: ``{"lookup": {V: fn}, "one-hot matmul": {V: fn}}``, one zero-argument
    function per kind and vocabulary size, in the order they are timed. The tables and ids are drawn from one
    generator seeded with ``seed``: every table, then ``n_tokens`` ids per size (for the matmul), then
    ``gather_tokens`` ids per size (for the lookup, long enough to time reliably)."""
    if len(vocab_sizes) < 2 or sorted(vocab_sizes) != list(vocab_sizes):
        raise ValueError("give at least two vocabulary sizes in increasing order")
    gen = torch.Generator().manual_seed(seed)
    dev = torch.device(device)
    tables = {v: torch.randn(v, dim, generator=gen).to(dev) for v in vocab_sizes}
    few = {v: torch.randint(0, v, (n_tokens,), generator=gen).to(dev) for v in vocab_sizes}
    many = {v: torch.randint(0, v, (gather_tokens,), generator=gen).to(dev) for v in vocab_sizes}
    # the names are shown as table labels (chapter 02's check of its own timing loop)
    return {_("lookup").en: {v: (lambda v=v: F.embedding(many[v], tables[v])) for v in vocab_sizes},
            _("one-hot matmul").en: {v: (lambda v=v: F.one_hot(few[v], v).float() @ tables[v]) for v in vocab_sizes}}


def run_cost(
    vocab_sizes: list[int], dim: int = 256, *, n_tokens: int, reps: int, seed: int = 0,
    gather_tokens: int = 16384, device: str | torch.device = "cpu",
) -> LookupCost:
    """Time the gather and the one-hot matmul at each vocabulary size (:func:`cost_contenders`).

    Each kind is timed at every size in turn (:func:`embedbook.timing.interleaved`), so a busy machine
    slows every size alike and the growth ratios stay meaningful. The gather is timed on
    ``gather_tokens`` ids (long enough to time reliably) and scaled to ``n_tokens``.
    """
    dev = torch.device(device)
    fns = cost_contenders(vocab_sizes, dim, n_tokens, seed, gather_tokens, dev)
    with timing.one_cpu_thread(dev):  # a busy machine then slows every size alike
        g = timing.interleaved(fns["lookup"], reps=reps, device=dev)
        m = timing.interleaved(fns["one-hot matmul"], reps=reps, device=dev)
    gather_s = [g[v].best * n_tokens / gather_tokens for v in vocab_sizes]
    matmul_s = [m[v].best for v in vocab_sizes]
    small, large = vocab_sizes[0], vocab_sizes[-1]

    def growth(t: dict) -> float:  # median over rounds of (largest V / smallest V), each timed in the same round
        return statistics.median(b / a for a, b in zip(t[small].times, t[large].times))

    return LookupCost(
        vocab_sizes=list(vocab_sizes),
        dim=dim,
        n_tokens=n_tokens,
        gather_s=gather_s,
        matmul_s=matmul_s,
        one_hot_bytes=[lookup.one_hot_bytes(n_tokens, v) for v in vocab_sizes],
        bench_gather_growth=growth(g),
        bench_matmul_growth=growth(m),
        v_ratio=vocab_sizes[-1] / vocab_sizes[0],
        bytes_read_per_token=dim * 4,
    )


# --- C04: what a one-hot batch costs, and what PyTorch runs ----------------------------------------------


@dataclass(frozen=True)
class LookupImplementation:
    """How a framework or a reference implementation turns ids into rows (a fact from its source code)."""

    name: str
    default: str  # what it runs unless told otherwise
    offers_one_hot: bool  # True if it has a one-hot matmul path (an option or its own rule)
    one_hot_by_default: bool  # True if its own code takes that path on its main accelerator without a flag
    source: str  # key in references.bib
    where: str  # the function and argument

    def as_source(self) -> claims.Source:
        """This implementation as a :class:`claims.Source` for C04's rule (tags: :data:`ONE_HOT_PATH`,
        :data:`ONE_HOT_DEFAULT`, each supported or contradicted)."""
        holds = {ONE_HOT_PATH: self.offers_one_hot, ONE_HOT_DEFAULT: self.one_hot_by_default}
        return claims.Source(self.source, f"{self.name}: {self.default}", self.where,
                             supports=tuple(t for t, h in holds.items() if h),
                             contradicts=tuple(t for t, h in holds.items() if not h))


ONE_HOT_PATH, ONE_HOT_DEFAULT = "has_one_hot_matmul_path", "one_hot_matmul_by_default"  # C04's tags

# fmt: off
LOOKUP_SURVEY: list[LookupImplementation] = [
    LookupImplementation(_("PyTorch nn.Embedding").en, "gather (measured: the profiler's operators)", False, False,
                         "paszke2019pytorch", "F.embedding → aten::embedding → index_select"),
    LookupImplementation(_("TensorFlow / Keras").en, "gather", False, False, "abadi2016tensorflow",
                         "tf.nn.embedding_lookup, keras.layers.Embedding (tf.gather)"),
    LookupImplementation(_("Flax linen nn.Embed").en, "gather", False, False, "heek2023flax", "nn.Embed.__call__: jnp.take"),
    LookupImplementation(_("Megatron-LM").en, "gather per shard", False, False, "shoeybi2019megatron",
                         "VocabParallelEmbedding: F.embedding on the shard's ids, then all-reduce"),
    LookupImplementation(_("Haiku hk.Embed").en, "gather", True, False, "hennigan2020haiku",
                         "lookup_style=ARRAY_INDEX (default) or ONE_HOT"),
    LookupImplementation(_("TF Model Garden OnDeviceEmbedding").en, "gather", True, False, "tfmodelgarden2020",
                         "use_one_hot=False (default) or True: tf.one_hot then matmul"),
    LookupImplementation(_("Flaxformer / T5X Embed").en, "gather", True, False, "roberts2022t5x",
                         "one_hot=False (default) or True: a one-hot contraction, for SPMD partitioning"),
    LookupImplementation(_("Praxis (Pax) Embedding").en, "gather", True, False, "praxis2022",
                         "lookup_style='index' (default) or 'matmul'"),
    LookupImplementation(_("Google's reference BERT").en, "one-hot matmul on TPU, gather elsewhere", True, True,
                         "googlebert2018", "modeling.embedding_lookup(use_one_hot_embeddings=...); "
                         "run_pretraining.py passes use_one_hot_embeddings=FLAGS.use_tpu"),
    LookupImplementation(_("tensor2tensor").en, "one-hot matmul when compiled by XLA (TPU), gather elsewhere", True, True,
                         "vaswani2018tensor2tensor", "common_layers.gather: tf.matmul(tf.one_hot(ids, V), params)"),
]
# fmt: on
C04_SOURCES = tuple(impl.as_source() for impl in LOOKUP_SURVEY)
C04_COUNTED = {"n_one_hot": ONE_HOT_PATH, "n_gather_only": (ONE_HOT_PATH, claims.CONTRADICTS),
               "n_one_hot_default": ONE_HOT_DEFAULT}
C04_LITERATURE = claims.Literature(
    sources=C04_SOURCES,
    search=claims.Search(
        queries=("no new search for the list itself: the frameworks a reader is likely to meet, plus the reference "
                 "implementations known to use one-hot lookups, each read in its own source code (compiled after "
                 "the first build's audit)",
                 "embedding lookup one_hot matmul TPU use_one_hot_embeddings"),
        corpora=("each implementation's source code", "code"), date="2026-12-01"),
    strongest_against=(
        "The two implementations that take the one-hot matmul by default are Google's TPU reference code of 2018 "
        "(BERT, tensor2tensor); the others offer it only as an option, and TensorFlow's own TPU embedding API "
        "(tf.tpu.experimental.embedding.TPUEmbedding, found by the search) looks rows up in a dedicated engine, not "
        "by a one-hot product. Read as 'what frameworks run unless told otherwise', the article's 'every framework "
        "gathers' holds for every general-purpose framework listed."),
)


@dataclass
class OneHotMemory(Result):
    """Bytes of a batch as ids, as one-hot rows and as the table; the operators nn.Embedding runs; and how
    the surveyed frameworks and reference implementations look rows up (:data:`LOOKUP_SURVEY`)."""

    n_tokens: int
    vocab: int
    dim: int
    ids_bytes: int
    one_hot_bytes: int
    table_bytes: int
    torch_ops: list[str] = field(default_factory=list)  # aten operators of one nn.Embedding forward
    torch_matmul: int = 0  # 1 if any of them is a matrix multiply
    n_surveyed: int = 0  # implementations in the survey
    n_one_hot: int = 0  # of them, those with a one-hot matmul path (an option or their own rule)
    n_one_hot_default: int = 0  # of them, those whose own code takes it on their main accelerator
    survey: list[dict] = field(default_factory=list)  # one row per implementation, for a table
    verbatim = ("torch_ops_text",)  # operator names, data

    def extra_glue(self) -> dict:
        return {"one_hot_gib": self.one_hot_bytes / 2**30, "table_gib": self.table_bytes / 2**30,
                "one_hot_over_ids": self.one_hot_bytes / self.ids_bytes, "torch_ops_text": ", ".join(self.torch_ops)}


@contextlib.contextmanager
def _quiet_native_stderr():
    """Discard what native code writes to the process's stderr while the block runs (some PyTorch builds' profiler
    prints a start and a stop line there, which a notebook would show under the cell); Python exceptions pass."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def run_one_hot_memory(n_tokens: int = 2048 * 8, vocab: int = 128256, dim: int = 4096) -> OneHotMemory:
    """Count the bytes of a batch of ``n_tokens`` as int64 ids, as fp32 one-hot rows and the fp32 table,
    profile which operators one forward pass of ``nn.Embedding`` runs (PyTorch's row of the survey is
    checked against its source below), and count the one-hot paths of :data:`LOOKUP_SURVEY` as sources
    (:data:`C04_LITERATURE`)."""
    from torch.profiler import ProfilerActivity, profile

    emb = torch.nn.Embedding(1000, 16)
    ids = torch.randint(0, 1000, (4, 8), generator=torch.Generator().manual_seed(0))
    with _quiet_native_stderr(), profile(activities=[ProfilerActivity.CPU]) as prof:
        emb(ids)
    ops = sorted({e.key for e in prof.key_averages() if e.key.startswith("aten::")})
    matmul = any(op in ops for op in ("aten::mm", "aten::matmul", "aten::addmm", "aten::bmm", "aten::linear"))
    yes, no = _("yes").en, _("no").en
    survey = [{_("implementation").en: s.name, _("default").en: s.default,
               _("one-hot path").en: yes if s.offers_one_hot else no,
               _("one-hot by default").en: yes if s.one_hot_by_default else no, _("where").en: s.where,
               _("source").en: s.source}
              for s in LOOKUP_SURVEY]
    f = C04_LITERATURE.figures(C04_COUNTED)
    return OneHotMemory(
        n_tokens=n_tokens,
        vocab=vocab,
        dim=dim,
        ids_bytes=n_tokens * 8,
        one_hot_bytes=lookup.one_hot_bytes(n_tokens, vocab),
        table_bytes=vocab * dim * 4,
        torch_ops=ops,
        torch_matmul=int(matmul),
        n_surveyed=f["n_one_hot"] + f["n_gather_only"],
        n_one_hot=f["n_one_hot"],
        n_one_hot_default=f["n_one_hot_default"],
        survey=survey,
    )


# --- C37: positions are a separate table ------------------------------------------------------------------


@dataclass(frozen=True)
class PositionScheme:
    """How a published model tells positions apart (a fact from its paper or released configuration)."""

    model: str  # a name in embedbook.sizing.MODELS
    scheme: str  # "learned absolute", "rotary (RoPE)" or "ALiBi"
    adds_vector: bool  # True if a position vector is added to the token rows before the first layer
    source: str  # key in references.bib
    where: str  # where the source says so

    def as_source(self) -> claims.Source:
        """This scheme as a :class:`claims.Source` for C37's rule (tag :data:`ADDS_POSITION`)."""
        added = "a position vector added to the token rows" if self.adds_vector else "nothing added to the token rows"
        return claims.Source(self.source, f"{self.model}: {self.scheme}; {added}", self.where,
                             supports=(ADDS_POSITION,) if self.adds_vector else (),
                             contradicts=() if self.adds_vector else (ADDS_POSITION,))


ADDS_POSITION = "adds_position_vector"  # C37's tag
_LEARNED, _ROPE, _ALIBI = _("learned absolute").en, _("rotary (RoPE)").en, "ALiBi"
# fmt: off
POSITION_SCHEMES: list[PositionScheme] = [
    PositionScheme("BERT-base", _LEARNED, True, "devlin2019bert", "§3: token + segment + position embeddings, summed"),
    PositionScheme("mBERT (base, multilingual)", _LEARNED, True, "devlin2019bert", "the BERT architecture"),
    PositionScheme("XLM-R base", _LEARNED, True, "conneau2020xlmr", "the RoBERTa/BERT-base architecture"),
    PositionScheme("MiniLM-L6 (bundled)", _LEARNED, True, "wang2020minilm", "a BERT; measured below"),
    PositionScheme("Multilingual MiniLM-L12", _LEARNED, True, "wang2020minilm", "a BERT with XLM-R's vocabulary"),
    PositionScheme("GPT-2 small", _LEARNED, True, "radford2019gpt2", "§2.3: GPT-1's model (learned position embeddings)"),
    PositionScheme("GPT-2 XL", _LEARNED, True, "radford2019gpt2", "§2.3, as GPT-2 small"),
    PositionScheme("GPT-3 Small", _LEARNED, True, "brown2020gpt3", "§2.1: the same model and architecture as GPT-2"),
    PositionScheme("GPT-3 XL", _LEARNED, True, "brown2020gpt3", "§2.1, as GPT-3 Small"),
    PositionScheme("GPT-3 13B", _LEARNED, True, "brown2020gpt3", "§2.1, as GPT-3 Small"),
    PositionScheme("GPT-3 175B", _LEARNED, True, "brown2020gpt3", "§2.1, as GPT-3 Small"),
    PositionScheme("BLOOM-7B1", _ALIBI, False, "workshop2022bloom", "model architecture section: ALiBi positional embeddings"),
    PositionScheme("LLaMA-7B", _ROPE, False, "touvron2023llama", "§2.2: absolute embeddings removed, RoPE added"),
    PositionScheme("LLaMA-65B", _ROPE, False, "touvron2023llama", "§2.2, as LLaMA-7B"),
    PositionScheme("Llama-2-70B", _ROPE, False, "touvron2023llama2", "§2.2: LLaMA-1's architecture (RoPE)"),
    PositionScheme("Mistral-7B", _ROPE, False, "jiang2023mistral", "§2: a Llama-style transformer (rope_theta in its config)"),
    PositionScheme("Llama-3.1-8B", _ROPE, False, "dubey2024llama3", "§3.2: RoPE, base frequency 500,000"),
    PositionScheme("Qwen2-7B", _ROPE, False, "yang2024qwen2", "model architecture section: RoPE (with YARN for long contexts)"),
    PositionScheme("Gemma-7B", _ROPE, False, "gemma2024", "§2: rotary positional embeddings in each layer"),
    PositionScheme("DeepSeek-V3", _ROPE, False, "deepseek2024v3", "§2.1.1: decoupled RoPE inside multi-head latent attention"),
    PositionScheme("Mistral-7B-v0.3", _ROPE, False, "mistral2024v03", "released configuration: rope_theta"),
    PositionScheme("Phi-3-mini", _ROPE, False, "abdin2024phi3", "§2: Llama-2's block structure (RoPE)"),
    PositionScheme("OLMo-7B", _ROPE, False, "groeneveld2024olmo", "model architecture section: rotary embeddings"),
    PositionScheme("OLMo-2-7B", _ROPE, False, "olmo2024olmo2", "model architecture section: RoPE"),
    PositionScheme("Mistral-NeMo-12B", _ROPE, False, "mistral2024nemo", "released configuration: rope_theta"),
    PositionScheme("Gemma-2-9B", _ROPE, False, "gemma2024gemma2", "model architecture section: RoPE, as Gemma"),
    PositionScheme("Llama-3.2-3B", _ROPE, False, "meta2024llama32", "released configuration: rope_theta, as Llama 3"),
    PositionScheme("Qwen2.5-7B", _ROPE, False, "qwen2024qwen25", "model architecture section: RoPE, as Qwen2"),
]
# fmt: on
C37_SOURCES = tuple(p.as_source() for p in POSITION_SCHEMES)
C37_COUNTED = {"n_add": ADDS_POSITION, "n_not_add": (ADDS_POSITION, claims.CONTRADICTS)}
C37_LITERATURE = claims.Literature(
    sources=C37_SOURCES,
    search=claims.Search(
        queries=("no new search: the position scheme of every model in the book's configuration table "
                 "(embedbook.sizing.MODELS, compiled for chapter 03), each read in its paper or released "
                 "configuration",),
        corpora=("the models' papers and released configurations",), date="2026-12-01"),
    strongest_against=(
        "The table is not a sample chosen for this claim, but its mix decides the share: it holds eleven BERT- and "
        "GPT-2/3-style models, which all add a learned position vector, and one model per 2024 decoder family, "
        "all rotary. And 加进去 ('added in') can be read loosely: a rotary or ALiBi model also brings position in "
        "from outside the table, only inside attention rather than onto the token rows; under that reading every "
        "model listed fits the article."),
)


def rotary(x: torch.Tensor, pos: int | torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary position encoding (Su et al. 2021): turn each pair ``(x[2i], x[2i+1])`` of the last axis by
    the angle ``pos · base^(-2i/d)``. ``pos`` is an int or a tensor broadcasting against ``x[..., 0]``."""
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"rotary needs an even width, got {d}")
    pos = torch.as_tensor(pos, dtype=x.dtype, device=x.device)
    angle = pos[..., None] * base ** (-torch.arange(0, d, 2, dtype=x.dtype, device=x.device) / d)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * angle.cos() - x2 * angle.sin(), x1 * angle.sin() + x2 * angle.cos()], -1).flatten(-2)


@dataclass
class Positions(Result):
    """What MiniLM does with the word 'dog' at two positions; what a rotary layer does with it; and how the
    models of the book's configuration table encode positions."""

    word: str
    word_id: int
    pos_a: int
    pos_b: int
    vocab: int
    width: int
    n_positions: int
    n_hidden: int
    same_row: int  # 1 if the word table gives both occurrences the identical row
    layer0_differs: int  # 1 if the layer-0 vectors (word + position + type, normalised) differ
    constant_width: int  # 1 if every hidden state has the table's width
    separate_table: int  # 1 if the position table is its own parameter
    rope_input_same: int = 0  # rotary: 1 if the layer-0 input of the word is identical at both positions
    rope_offset_only: int = 0  # rotary: 1 if q·k is the same for the same offset at positions 100 apart
    rope_offset_matters: int = 0  # rotary: 1 if a different offset gives a different q·k
    n_models: int = 0  # models in embedbook.sizing.MODELS
    n_add: int = 0  # of them, models that add a position vector to the token rows
    n_rotary: int = 0
    n_alibi: int = 0
    n_recent: int = 0  # models released from 2022 on
    n_recent_add: int = 0
    schemes: list[dict] = field(default_factory=list)  # one row per model, for a table
    verbatim = ("word",)  # an English word, data

    def extra_glue(self) -> dict:
        return {"add_share": self.n_add / self.n_models if self.n_models else 0.0}


def run_positions(tokenizer, model, word: str = "dog", seed: int = 0) -> Positions:
    """Feed "the dog bit the man" and "the man bit the dog" to the encoder and compare ``word``'s rows;
    run the same two sentences through a rotary attention score (random projections, the encoder's word
    table); and count the position schemes of :data:`embedbook.sizing.MODELS` (:data:`POSITION_SCHEMES`)."""

    emb = model.embeddings
    dev = next(model.parameters()).device
    batch = tokenizer(["the dog bit the man", "the man bit the dog"], return_tensors="pt").to(dev)
    with torch.no_grad():
        out = model(**batch, output_hidden_states=True)
    ids = batch["input_ids"]
    wid = int(tokenizer.convert_tokens_to_ids(word))
    pos_a = int((ids[0] == wid).nonzero()[0])
    pos_b = int((ids[1] == wid).nonzero()[0])
    table = emb.word_embeddings.weight
    layer0 = out.hidden_states[0]
    widths = {h.shape[-1] for h in out.hidden_states}
    # a rotary layer on the same ids: its layer-0 input is the table row alone
    x = table.detach().float().cpu()[ids.cpu()]  # (2, n, d): nothing added
    gen = torch.Generator().manual_seed(seed)
    wq, wk = (torch.randn(x.shape[-1], x.shape[-1], generator=gen, dtype=torch.float64) for _ in range(2))
    q, k = x[0, pos_a].double() @ wq, x[0, pos_a].double() @ wk
    near = rotary(q, 5) @ rotary(k, 2)
    far = rotary(q, 105) @ rotary(k, 102)
    other = rotary(q, 5) @ rotary(k, 4)
    known = {m.name: m for m in sizing.MODELS}
    missing = sorted(set(known) - {s.model for s in POSITION_SCHEMES})
    if missing:
        raise ValueError(f"POSITION_SCHEMES lacks {missing}: add a cited row for every model in sizing.MODELS")
    yes, no = _("yes").en, _("no").en
    rows = [{_("model").en: s.model, _("year").en: known[s.model].year, _("positions").en: s.scheme,
             _("added to the token rows").en: yes if s.adds_vector else no, _("source").en: s.source,
             _("where").en: s.where}
            for s in POSITION_SCHEMES if s.model in known]
    recent = [r for r in rows if r["year"] >= 2022]
    counts = C37_LITERATURE.figures(C37_COUNTED)
    return Positions(
        word=word,
        word_id=wid,
        pos_a=pos_a,
        pos_b=pos_b,
        vocab=table.shape[0],
        width=table.shape[1],
        n_positions=emb.position_embeddings.weight.shape[0],
        n_hidden=len(out.hidden_states),
        same_row=int(torch.equal(table[ids[0, pos_a]], table[ids[1, pos_b]])),
        layer0_differs=int(not torch.allclose(layer0[0, pos_a], layer0[1, pos_b])),
        constant_width=int(widths == {table.shape[1]}),
        separate_table=int(emb.position_embeddings.weight.data_ptr() != table.data_ptr()),
        rope_input_same=int(torch.equal(x[0, pos_a], x[1, pos_b])),
        rope_offset_only=int(torch.allclose(near, far, rtol=1e-9, atol=1e-9)),
        rope_offset_matters=int(not torch.allclose(near, other)),
        n_models=counts["n_add"] + counts["n_not_add"],
        n_add=counts["n_add"],
        n_rotary=sum(r["positions"] == _ROPE for r in rows),
        n_alibi=sum(r["positions"] == _ALIBI for r in rows),
        n_recent=len(recent),
        n_recent_add=sum(r["added to the token rows"] == "yes" for r in recent),
        schemes=rows,
    )


# --- the bandwidth benchmark with transparent huge pages ---------------------------------------------------


def run_huge_pages(n_tokens: int, dim: int, vocab: int, reps: int) -> lookup.Bandwidth:
    """:func:`embedbook.lookup.bandwidth` on the CPU in a fresh Python process started with
    ``THP_MEM_ALLOC_ENABLE=1`` (PyTorch's CPU allocator reads it once, when it first allocates, so this
    process cannot switch it on for itself). Runs ``embedbook bench --huge-pages --bandwidth-only --json``; raises
    ``RuntimeError`` with the child's error output when that process fails."""
    import json
    import subprocess
    import sys

    args = [sys.executable, "-m", "embedbook.book.cli", "bench", "--tokens", str(n_tokens), "--dim", str(dim),
            "--vocab", str(vocab), "--reps", str(reps), "--device", "cpu", "--huge-pages", "--bandwidth-only", "--json"]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"the huge-pages benchmark process failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    return lookup.Bandwidth(**json.loads(out.stdout))


# --- the chapter's summary: one sentence per claim, chosen by the verdict -------------------------------

HEADLINES = {
    "C01": {
        CONFIRMED: _("As V grew {v_ratio:.0f}-fold the lookup's time grew only {bench_gather_growth:.1f}-fold and the "
                     "one-hot matmul's {bench_matmul_growth:.0f}-fold: one row read per token, against a product with "
                     "the whole table."),
        REFUTED: _("The lookup's time grew in proportion to V ({bench_gather_growth:.1f}-fold over a {v_ratio:.0f}-fold "
                   "range), against the counts."),
        INCONCLUSIVE: _("The timings could not tell whether the lookup's cost depends on V (lookup "
                        "{bench_gather_growth:.1f}-fold, matmul {bench_matmul_growth:.0f}-fold over a {v_ratio:.0f}-fold "
                        "range)."),
    },
    "C02": {
        CONFIRMED: _("A lookup and a one-hot matrix product gave the same vectors bit for bit."),
        CORRECTED: lambda f: _("A lookup and a one-hot matrix product agreed up to rounding ({amount}), not bit for "
                               "bit.").format(amount=_amount(f['max_diff'])),
        REFUTED: lambda f: _("A lookup and a one-hot matrix product gave different vectors ({amount} apart).").format(
            amount=_amount(f['max_diff'])),
    },
    "C03": {
        CONFIRMED: _("A bias-free Linear on one-hot inputs reproduced the lookup and its weight gradient."),
        REFUTED: _("A bias-free Linear on one-hot inputs did not reproduce the lookup or its gradient."),
    },
    "C04": {
        CONFIRMED: _("One-hot rows would take {one_hot_over_ids:,.0f}× the bytes of the ids, and every surveyed "
                     "framework gathers rows instead."),
        CORRECTED: lambda f: _("One-hot rows would take {ratio:,.0f}× the bytes of the ids, and most frameworks "
                               "gather; but {n_one_hot} of the {n} surveyed implementations can take the one-hot "
                               "product, the TPU's route.").format(
            ratio=f['one_hot_over_ids'], n_one_hot=f['n_one_hot'], n=f['n_one_hot'] + f['n_gather_only']),
        REFUTED: _("The one-hot route was not the memory waste, or not the exception, that the article says."),
    },
    "C37": {
        CONFIRMED: lambda f: _("Positions stay out of the word table and are added after the lookup in {n_add} of {n} "
                               "listed models; every later layer keeps the width.").format(
            n_add=f['n_add'], n=f['n_add'] + f['n_not_add']),
        CORRECTED: lambda f: _("Positions stay out of the word table, but only {n_add} of the {n} listed models add "
                               "them to the rows; rotary and ALiBi models bring position into attention.").format(
            n_add=f['n_add'], n=f['n_add'] + f['n_not_add']),
        REFUTED: _("Positions were not kept apart from the word table and added in, as the article says."),
    },
}


def headline(v: claims.Verdict) -> str:
    """The summary sentence for verdict ``v``: the one its outcome selects, filled in with its figures."""
    entry = HEADLINES[v.claim_id][v.verdict]
    return entry(v.figures) if callable(entry) else entry.format(**v.figures)


def glue_headlines(verdicts: list[claims.Verdict]) -> None:
    """Glue ``<claim>_headline`` for each verdict (the chapter's summary pastes them); a timed claim's
    sentence quotes timings, so it is glued as ``<claim>_bench_headline`` (a timing, which may differ
    between two runs)."""
    from embedbook import book

    for v in verdicts:
        timed = claims.rule_of(v.claim_id).timed
        book.glue(f"{v.claim_id}_bench_headline" if timed else f"{v.claim_id}_headline", headline(v))
