"""Chapter 02, "Lookup is a matrix product": the measurements and the checks of C01–C04 and C37."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from embedbook import claims, lookup, timing
from embedbook.book import Result
from embedbook.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED

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


@claims.rule(
    "C02",
    quantity="the largest absolute difference between table[ids] and one_hot(ids) @ table on a random batch",
    inputs={"max_diff": "largest |gather − one-hot matmul| over all outputs"},
    thresholds={"rounding": 1e-6},
    outcomes={
        CONFIRMED: "the difference is exactly 0 (bit-identical)",
        CORRECTED: "it is not 0 but at most the rounding threshold (equal up to floating-point rounding)",
        REFUTED: "it is larger than the rounding threshold",
    },
    examples={CONFIRMED: {"max_diff": 0.0}, CORRECTED: {"max_diff": 2e-7}, REFUTED: {"max_diff": 0.3}},
)
def _c02(f, t):
    if f["max_diff"] == 0.0:
        return CONFIRMED
    return CORRECTED if f["max_diff"] <= t["rounding"] else REFUTED


@claims.check("C02")
def check_c02(r: Exactness) -> claims.Verdict:
    """Settle C02 from :func:`run_exactness`."""

    def evidence(v: str) -> str:
        how = {
            CONFIRMED: "bit-for-bit equal: each output is one product 1·E[i, j] plus exact zeros",
            CORRECTED: "equal up to floating-point rounding, not bit-for-bit",
            REFUTED: "not the same vectors",
        }[v]
        return (
            f"On {r.n_ids} random ids into a {r.vocab:,}×{r.dim} table the largest difference between the gather and "
            f"one_hot(i) @ E is {r.max_diff_matmul:.1e}: {how}. The article's Eᵀ·one_hot(i) is the same vector "
            "written as a column."
        )

    return claims.judge("C02", {"max_diff": r.max_diff_matmul}, evidence, strength="exact arithmetic on one batch; no randomness in the outcome")


@claims.rule(
    "C03",
    quantity="the largest difference between the lookup and a bias-free nn.Linear(V, d) with weight Eᵀ on one-hot "
    "inputs, forward and in the weight gradient",
    inputs={"max_diff": "largest |gather − Linear(one-hot)|", "max_diff_grad": "largest |embedding grad − Linear grad ᵀ|"},
    thresholds={"tolerance": 1e-5},
    outcomes={
        CONFIRMED: "both differences are at most the tolerance",
        REFUTED: "either exceeds it",
    },
    examples={CONFIRMED: {"max_diff": 0.0, "max_diff_grad": 0.0}, REFUTED: {"max_diff": 0.0, "max_diff_grad": 0.5}},
)
def _c03(f, t):
    return CONFIRMED if max(f["max_diff"], f["max_diff_grad"]) <= t["tolerance"] else REFUTED


@claims.check("C03")
def check_c03(r: Exactness) -> claims.Verdict:
    """Settle C03 from :func:`run_exactness`."""

    def evidence(v: str) -> str:
        same = "reproduces" if v == CONFIRMED else "does not reproduce"
        return (
            f"nn.Linear(V, d, bias=False) with weight Eᵀ applied to one-hot rows {same} the lookup (largest difference "
            f"{r.max_diff_linear:.1e}; in the weight gradient {r.max_diff_grad:.1e}). In both, only the "
            f"{r.rows_with_grad} rows of the {r.distinct_ids} distinct ids in the batch receive gradient."
        )

    figures = {"max_diff": r.max_diff_linear, "max_diff_grad": r.max_diff_grad}
    return claims.judge("C03", figures, evidence, strength="exact arithmetic on one batch, forward and backward")


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
            {"V": v, "lookup (µs)": g * 1e6, "one-hot @ E (µs)": m * 1e6, "one-hot batch (MiB)": b / 2**20}
            for v, g, m, b in zip(self.vocab_sizes, self.gather_s, self.matmul_s, self.one_hot_bytes)
        ]


def run_cost(
    vocab_sizes: list[int], dim: int = 256, n_tokens: int = 512, reps: int = 7, seed: int = 0,
    gather_tokens: int = 16384, device: str | torch.device = "cpu",
) -> LookupCost:
    """Time the gather and the one-hot matmul at each vocabulary size.

    Each kind is timed at every size in turn (:func:`embedbook.timing.interleaved`), so a busy machine
    slows every size alike and the growth ratios stay meaningful. The gather is timed on
    ``gather_tokens`` ids (long enough to time reliably) and scaled to ``n_tokens``.
    """
    if len(vocab_sizes) < 2 or sorted(vocab_sizes) != list(vocab_sizes):
        raise ValueError("give at least two vocabulary sizes in increasing order")
    gen = torch.Generator().manual_seed(seed)
    dev = torch.device(device)
    tables = {v: torch.randn(v, dim, generator=gen).to(dev) for v in vocab_sizes}
    few = {v: torch.randint(0, v, (n_tokens,), generator=gen).to(dev) for v in vocab_sizes}
    many = {v: torch.randint(0, v, (gather_tokens,), generator=gen).to(dev) for v in vocab_sizes}
    g = timing.interleaved({v: (lambda v=v: F.embedding(many[v], tables[v])) for v in vocab_sizes}, reps=reps, device=dev)
    m = timing.interleaved(
        {v: (lambda v=v: F.one_hot(few[v], v).float() @ tables[v]) for v in vocab_sizes}, reps=reps, device=dev
    )
    gather_s = [g[v].best * n_tokens / gather_tokens for v in vocab_sizes]
    matmul_s = [m[v].best for v in vocab_sizes]
    return LookupCost(
        vocab_sizes=list(vocab_sizes),
        dim=dim,
        n_tokens=n_tokens,
        gather_s=gather_s,
        matmul_s=matmul_s,
        one_hot_bytes=[lookup.one_hot_bytes(n_tokens, v) for v in vocab_sizes],
        bench_gather_growth=gather_s[-1] / gather_s[0],
        bench_matmul_growth=matmul_s[-1] / matmul_s[0],
        v_ratio=vocab_sizes[-1] / vocab_sizes[0],
        bytes_read_per_token=dim * 4,
    )


@claims.rule(
    "C01",
    quantity="how much the time of a batch of lookups grows when V grows from the smallest to the largest size, "
    "against the one-hot matmul's growth over the same sizes (both timed in turn, best of several runs)",
    inputs={
        "bench_gather_growth": "lookup time at the largest V / at the smallest",
        "bench_matmul_growth": "one-hot matmul time at the largest V / at the smallest",
        "v_ratio": "largest V / smallest V",
    },
    thresholds={"flat_max": 8.0, "linear_share": 0.25},
    outcomes={
        CONFIRMED: "the lookup grows less than flat_max-fold while the matmul grows by at least linear_share × v_ratio "
        "(so the measurement does see growth in V)",
        REFUTED: "the lookup itself grows by at least linear_share × v_ratio, like a cost linear in V",
        INCONCLUSIVE: "anything else (the lookup grows more than flat_max-fold but less than linearly, or the matmul "
        "does not grow either)",
    },
    examples={
        CONFIRMED: {"bench_gather_growth": 1.6, "bench_matmul_growth": 95.0, "v_ratio": 128.0},
        REFUTED: {"bench_gather_growth": 60.0, "bench_matmul_growth": 110.0, "v_ratio": 128.0},
        INCONCLUSIVE: {"bench_gather_growth": 12.0, "bench_matmul_growth": 90.0, "v_ratio": 128.0},
    },
    timed=True,
)
def _c01(f, t):
    linear = t["linear_share"] * f["v_ratio"]
    if f["bench_gather_growth"] >= linear:
        return REFUTED
    if f["bench_gather_growth"] < t["flat_max"] and f["bench_matmul_growth"] >= linear:
        return CONFIRMED
    return INCONCLUSIVE


@claims.check("C01")
def check_c01(r: LookupCost) -> claims.Verdict:
    """Settle C01 from :func:`run_cost`."""

    def evidence(v: str) -> str:
        head = (
            f"From V = {r.vocab_sizes[0]:,} to {r.vocab_sizes[-1]:,} ({r.v_ratio:.0f}× more rows) the lookup's time "
            f"grew {r.bench_gather_growth:.1f}-fold and the one-hot matmul's {r.bench_matmul_growth:.0f}-fold. "
        )
        return head + {
            CONFIRMED: (
                f"The lookup reads {r.bytes_read_per_token:,} bytes per token whatever V is; what growth there is comes "
                "from a larger table no longer fitting in the caches, not from more work. The matmul does V·d "
                "multiply-adds per token."
            ),
            REFUTED: "The lookup's time grew in proportion to V, which a constant-cost row fetch cannot do.",
            INCONCLUSIVE: "That is neither flat nor linear in V, so this run cannot tell.",
        }[v]

    figures = {"bench_gather_growth": r.bench_gather_growth, "bench_matmul_growth": r.bench_matmul_growth, "v_ratio": r.v_ratio}
    strength = (
        "both operations timed at every size in turn (best of several runs), so load on the machine slows all sizes "
        "alike; the thresholds leave a factor of two or more on each side"
    )
    return claims.judge("C01", figures, evidence, strength)


# --- C04: what a one-hot batch costs, and what PyTorch runs ----------------------------------------------


@dataclass
class OneHotMemory(Result):
    """Bytes of a batch as ids, as one-hot rows and as the table; and the operators nn.Embedding runs."""

    n_tokens: int
    vocab: int
    dim: int
    ids_bytes: int
    one_hot_bytes: int
    table_bytes: int
    torch_ops: list[str] = field(default_factory=list)  # aten operators of one nn.Embedding forward
    torch_matmul: int = 0  # 1 if any of them is a matrix multiply

    def extra_glue(self) -> dict:
        return {"one_hot_gib": self.one_hot_bytes / 2**30, "table_gib": self.table_bytes / 2**30,
                "one_hot_over_ids": self.one_hot_bytes / self.ids_bytes, "torch_ops_text": ", ".join(self.torch_ops)}


def run_one_hot_memory(n_tokens: int = 2048 * 8, vocab: int = 128256, dim: int = 4096) -> OneHotMemory:
    """Count the bytes of a batch of ``n_tokens`` as int64 ids, as fp32 one-hot rows and the fp32 table,
    and profile which operators one forward pass of ``nn.Embedding`` runs."""
    from torch.profiler import ProfilerActivity, profile

    emb = torch.nn.Embedding(1000, 16)
    ids = torch.randint(0, 1000, (4, 8), generator=torch.Generator().manual_seed(0))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        emb(ids)
    ops = sorted({e.key for e in prof.key_averages() if e.key.startswith("aten::")})
    matmul = any(op in ops for op in ("aten::mm", "aten::matmul", "aten::addmm", "aten::bmm", "aten::linear"))
    return OneHotMemory(
        n_tokens=n_tokens,
        vocab=vocab,
        dim=dim,
        ids_bytes=n_tokens * 8,
        one_hot_bytes=lookup.one_hot_bytes(n_tokens, vocab),
        table_bytes=vocab * dim * 4,
        torch_ops=ops,
        torch_matmul=int(matmul),
    )


@claims.rule(
    "C04",
    quantity="the bytes of a batch as fp32 one-hot rows against the same batch as int64 ids, and whether "
    "PyTorch's nn.Embedding runs a matrix multiply (its operators, recorded by the profiler)",
    inputs={"one_hot_over_ids": "one-hot bytes / id bytes", "torch_matmul": "1 if nn.Embedding ran a matmul, else 0"},
    thresholds={"waste_min": 100.0},
    outcomes={
        CONFIRMED: "one-hot rows take at least waste_min times the bytes of the ids and nn.Embedding runs no matmul",
        CORRECTED: "the memory waste holds but PyTorch's embedding does run a matmul",
        REFUTED: "one-hot rows take less than waste_min times the bytes of the ids",
    },
    examples={
        CONFIRMED: {"one_hot_over_ids": 64128.0, "torch_matmul": 0},
        CORRECTED: {"one_hot_over_ids": 64128.0, "torch_matmul": 1},
        REFUTED: {"one_hot_over_ids": 8.0, "torch_matmul": 0},
    },
)
def _c04(f, t):
    if f["one_hot_over_ids"] < t["waste_min"]:
        return REFUTED
    return CORRECTED if f["torch_matmul"] else CONFIRMED


@claims.check("C04")
def check_c04(r: OneHotMemory) -> claims.Verdict:
    """Settle C04 from :func:`run_one_hot_memory`."""

    def evidence(v: str) -> str:
        ops = ", ".join(op.removeprefix("aten::") for op in r.torch_ops)
        runs = "a matrix multiply" if r.torch_matmul else "no matrix multiply"
        return (
            f"A batch of {r.n_tokens:,} tokens over a {r.vocab:,}-id vocabulary is {r.ids_bytes / 2**10:,.0f} KiB of int64 "
            f"ids but {r.one_hot_bytes / 2**30:,.1f} GiB as fp32 one-hot rows ({r.one_hot_bytes / r.ids_bytes:,.0f}×), "
            f"{'more' if r.one_hot_bytes > r.table_bytes else 'less'} than the {r.table_bytes / 2**30:.1f} GiB fp32 table "
            f"itself at d = {r.dim:,}. PyTorch's nn.Embedding ran {runs} (operators: {ops}). \"Every framework\" is "
            "measured here for PyTorch only, the framework installed; TensorFlow's tf.nn.embedding_lookup and JAX's "
            "jnp.take (used by Flax's nn.Embed) are documented gathers too — cited, not measured."
        )

    figures = {"one_hot_over_ids": r.one_hot_bytes / r.ids_bytes, "torch_matmul": r.torch_matmul}
    return claims.judge("C04", figures, evidence, strength="byte counts are exact; the operator list is PyTorch's own record")


# --- C37: positions are a separate table ------------------------------------------------------------------


@dataclass
class Positions(Result):
    """What MiniLM does with the word 'dog' at two positions."""

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


def run_positions(tokenizer, model, word: str = "dog") -> Positions:
    """Feed "the dog bit the man" and "the man bit the dog" to the encoder and compare ``word``'s rows."""
    emb = model.embeddings
    dev = next(model.parameters()).device
    batch = tokenizer(["the dog bit the man", "the man bit the dog"], return_tensors="pt").to(dev)
    with torch.no_grad():
        out = model(**batch, output_hidden_states=True)
    wid = int(tokenizer.convert_tokens_to_ids(word))
    pos_a = int((batch["input_ids"][0] == wid).nonzero()[0])
    pos_b = int((batch["input_ids"][1] == wid).nonzero()[0])
    table = emb.word_embeddings.weight
    layer0 = out.hidden_states[0]
    widths = {h.shape[-1] for h in out.hidden_states}
    return Positions(
        word=word,
        word_id=wid,
        pos_a=pos_a,
        pos_b=pos_b,
        vocab=table.shape[0],
        width=table.shape[1],
        n_positions=emb.position_embeddings.weight.shape[0],
        n_hidden=len(out.hidden_states),
        same_row=int(torch.equal(table[batch["input_ids"][0, pos_a]], table[batch["input_ids"][1, pos_b]])),
        layer0_differs=int(not torch.allclose(layer0[0, pos_a], layer0[1, pos_b])),
        constant_width=int(widths == {table.shape[1]}),
        separate_table=int(emb.position_embeddings.weight.data_ptr() != table.data_ptr()),
    )


@claims.rule(
    "C37",
    quantity="in MiniLM: whether one word at two positions gets the identical row of the word table but different "
    "layer-0 vectors, whether the position table is a separate parameter, and whether every layer keeps the width",
    inputs={"same_row": "1/0", "layer0_differs": "1/0", "separate_table": "1/0", "constant_width": "1/0"},
    outcomes={
        CONFIRMED: "all four hold",
        REFUTED: "any of them fails",
    },
    examples={
        CONFIRMED: {"same_row": 1, "layer0_differs": 1, "separate_table": 1, "constant_width": 1},
        REFUTED: {"same_row": 1, "layer0_differs": 0, "separate_table": 1, "constant_width": 1},
    },
)
def _c37(f, t):
    return CONFIRMED if all(f[k] for k in ("same_row", "layer0_differs", "separate_table", "constant_width")) else REFUTED


@claims.check("C37")
def check_c37(r: Positions) -> claims.Verdict:
    """Settle C37 from :func:`run_positions`."""

    def evidence(v: str) -> str:
        row = "the identical" if r.same_row else "a different"
        layer0 = "different" if r.layer0_differs else "identical"
        width = f"All {r.n_hidden} hidden states have width {r.width}" if r.constant_width else "The hidden states change width"
        return (
            f"In MiniLM the word table ({r.vocab:,}×{r.width}) and the position table ({r.n_positions}×{r.width}) are "
            f"{'separate parameters' if r.separate_table else 'one tensor'}. '{r.word}' (id {r.word_id}) at positions "
            f"{r.pos_a} and {r.pos_b} gets {row} word row and {layer0} layer-0 vectors once positions are added. "
            f"{width}: the layers change values, not the dimension."
        )

    figures = {k: getattr(r, k) for k in ("same_row", "layer0_differs", "separate_table", "constant_width")}
    return claims.judge("C37", figures, evidence, strength="read off the real model's parameters and one forward pass")


# Smoke-size runs of the timed claims, for tests/test_load.py: a busy machine must give the same verdict.
LOAD_PROBES = {"C01": lambda: check_c01(run_cost([1000, 8000, 64000], n_tokens=256, reps=3))}
