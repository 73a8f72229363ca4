"""Chapter 13, "Quantising the table": the measurements behind C28, C29 and C49 (their rules and checks: claims.py).

- :func:`run_memory` (C28): the bytes an int8 / int4 table really takes, scales counted, at the
  article's size (V = 32,000, d = 4,096), for GloVe and MiniLM, and across widths.
- :func:`run_neighbours` (C49): how many of each word's nearest neighbours survive quantisation, and
  how often their order changes, set against the gaps between neighbours' cosines.
- :func:`run_robustness` (C29): quantise only MiniLM's word table or only its attention projections,
  at the same bit width and with the same scheme, and measure how far each moves the sentence vectors.
- :func:`run_throughput`: :class:`~embedbook.quantize.QuantizedEmbedding` against ``nn.Embedding``
  (an illustration; no verdict reads it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import torch

from embedbook import contextual, data, similarity, stats, timing
from embedbook import quantize as Q
from embedbook.book import Result
from embedbook.book.i18n import _

ARTICLE_VOCAB, ARTICLE_DIM = 32_000, 4_096  # the long article's example table (C05)
WIDTHS = (16, 32, 50, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192)
BLOCK = 32  # values per block in block-wise formats with an fp16 scale (llama.cpp's Q8_0 / Q4_0)


def _slug(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


# --- C28: bytes, scales counted ---------------------------------------------------------------------


@dataclass
class Memory(Result):
    """Bytes of int8 / int4 tables against float32: the article's table, real tables, a sweep of widths."""

    vocab: int
    dim: int
    fp32_bytes: int
    int8_bytes: int  # row-wise: codes + one float32 scale per row
    int4_bytes: int
    int8_ratio: float
    int4_ratio: float
    int8_tensor_ratio: float  # one scale for the whole table
    int4_tensor_ratio: float
    int8_fused_ratio: float  # QuantizedEmbedding's fused CPU layout (a float32 offset per row as well)
    block_int8_ratio: float  # counted: blocks of 32 values with an fp16 scale (8.5 / 4.5 bits a value)
    block_int4_ratio: float
    table_names: list[str] = field(default_factory=list)
    table_dims: list[int] = field(default_factory=list)
    table_int8: list[float] = field(default_factory=list)
    table_int4: list[float] = field(default_factory=list)
    widths: list[int] = field(default_factory=list)
    width_int8: list[float] = field(default_factory=list)
    width_int4: list[float] = field(default_factory=list)

    def extra_glue(self) -> dict:
        out = {"fp32_mb": self.fp32_bytes / 1e6, "int8_mb": self.int8_bytes / 1e6, "int4_mb": self.int4_bytes / 1e6,
               "int8_vs_bf16": self.fp32_bytes / 2 / self.int8_bytes, "int4_vs_bf16": self.fp32_bytes / 2 / self.int4_bytes}
        for name, d, r8, r4 in zip(self.table_names, self.table_dims, self.table_int8, self.table_int4):
            out |= {f"{_slug(name)}_dim": d, f"{_slug(name)}_int8": r8, f"{_slug(name)}_int4": r4}
        return out

    def rows(self) -> list[dict]:
        """One row per table (for a table on the page)."""
        table, int8, int4 = _("table"), _("int8 ratio"), _("int4 ratio")
        rows = [{table: _("the article's ({vocab:,} × {dim:,})").format(vocab=self.vocab, dim=self.dim), "d": self.dim,
                 int8: self.int8_ratio, int4: self.int4_ratio}]
        rows += [{table: n, "d": d, int8: r8, int4: r4}
                 for n, d, r8, r4 in zip(self.table_names, self.table_dims, self.table_int8, self.table_int4)]
        return rows


def run_memory(tables: Mapping[str, torch.Tensor] | None = None, *, vocab: int, dim: int,
               widths: Sequence[int] = WIDTHS, seed: int = 0, device: str | torch.device = "cpu") -> Memory:
    """Quantise a random ``vocab × dim`` table (the article's size by default) and count the bytes stored.

    Also the row-wise ratios of the real ``tables`` (name → ``[V, d]`` float table) and of a 64-row table
    at each of ``widths`` (row-wise ratios do not depend on the number of rows).
    """
    dev = torch.device(device)
    gen = torch.Generator(dev).manual_seed(seed)
    table = torch.randn(vocab, dim, generator=gen, device=dev)
    q8, q4 = Q.quantize(table, 8), Q.quantize(table, 4)
    t8, t4 = Q.quantize(table, 8, "tensor"), Q.quantize(table, 4, "tensor")
    try:  # the fused CPU layout: codes, then a float32 scale and a float32 offset per row
        fused_bytes = Q.QuantizedEmbedding(q8, fused=True).nbytes
    except ValueError:  # a PyTorch without the quantized ops: count the layout instead
        fused_bytes = vocab * (dim + 8)
    del table
    names, dims, r8s, r4s = [], [], [], []
    for name, t in (tables or {}).items():
        names.append(name)
        dims.append(int(t.shape[1]))
        r8s.append(Q.quantize(t, 8).ratio)
        r4s.append(Q.quantize(t, 4).ratio)
    w8, w4 = [], []
    for d in widths:
        small = torch.randn(64, d, generator=torch.Generator().manual_seed(seed))
        w8.append(Q.quantize(small, 8).ratio)
        w4.append(Q.quantize(small, 4).ratio)
    fp32 = vocab * dim * 4
    return Memory(
        vocab=vocab, dim=dim, fp32_bytes=fp32, int8_bytes=q8.nbytes, int4_bytes=q4.nbytes,
        int8_ratio=q8.ratio, int4_ratio=q4.ratio, int8_tensor_ratio=t8.ratio, int4_tensor_ratio=t4.ratio,
        int8_fused_ratio=fp32 / fused_bytes,
        block_int8_ratio=BLOCK * 4 / (BLOCK + 2), block_int4_ratio=BLOCK * 4 / (BLOCK // 2 + 2),
        table_names=names, table_dims=dims, table_int8=r8s, table_int4=r4s,
        widths=list(widths), width_int8=w8, width_int4=w4,
    )


# --- C49: neighbours after quantisation --------------------------------------------------------------


@dataclass
class Neighbours(Result):
    """Top-k neighbours (cosine) of query rows before and after int8 / int4 row-wise quantisation, per table."""

    k: int
    n_queries: int
    names: list[str]
    rel_error_8: list[float]  # ||E - Ê|| / ||E||
    rel_error_4: list[float]
    overlap_8: list[float]  # mean share of the top-k kept (similarity.neighbour_overlap)
    overlap_4: list[float]
    changed_8: list[float]  # share of queries whose ordered top-k list changed
    changed_4: list[float]
    gap: list[float]  # median cosine gap between neighbours ranked r and r+1 (r = 1..k)
    dcos_8: list[float]  # median |change| of a query–neighbour cosine
    dcos_4: list[float]
    blurred_8: list[float]  # share of those gaps smaller than the median change
    blurred_4: list[float]
    sample_gaps: list[float] = field(default_factory=list)  # the first table's gaps and changes, for a figure
    sample_dcos_8: list[float] = field(default_factory=list)
    sample_dcos_4: list[float] = field(default_factory=list)

    def extra_glue(self) -> dict:
        out = {}
        for i, name in enumerate(self.names):
            s = _slug(name)
            for key in ("rel_error_8", "rel_error_4", "overlap_8", "overlap_4", "changed_8", "changed_4", "gap",
                        "dcos_8", "dcos_4", "blurred_8", "blurred_4"):
                out[f"{s}_{key}"] = getattr(self, key)[i]
        return out

    def rows(self) -> list[dict]:
        """One row per table and bit width."""
        table, bits, error = _("table"), _("bits"), _("relative error")
        kept, reordered = _("top-{k} kept").format(k=self.k), _("lists reordered")
        return [{table: n, bits: b, error: getattr(self, f"rel_error_{b}")[i],
                 kept: getattr(self, f"overlap_{b}")[i],
                 reordered: getattr(self, f"changed_{b}")[i]}
                for i, n in enumerate(self.names) for b in Q.BITS]


def _ordered(unit: np.ndarray, queries: list[int], k: int) -> tuple[np.ndarray, np.ndarray]:
    return similarity.knn(unit[queries], unit, k, exclude=[[i] for i in queries])


def run_neighbours(tables: Mapping[str, torch.Tensor], queries: Mapping[str, Sequence[int]], k: int = 10) -> Neighbours:
    """For each table (name → ``[V, d]``) and its query rows, compare the top-``k`` cosine neighbours of the
    float table with those of its int8 and int4 row-wise round trips."""
    if set(tables) != set(queries) or not tables:
        raise ValueError("give one list of query rows per table")
    out: dict[str, list] = {key: [] for key in ("rel_error_8", "rel_error_4", "overlap_8", "overlap_4", "changed_8",
                                                  "changed_4", "gap", "dcos_8", "dcos_4", "blurred_8", "blurred_4")}
    samples: dict[str, list[float]] = {}
    n = {len(q) for q in queries.values()}
    for name, table in tables.items():
        t = table.detach().float().cpu()
        q = [int(i) for i in queries[name]]
        u0 = stats.unit_rows(t.numpy(), zero="keep")
        ids0, cos0 = _ordered(u0, q, k + 1)
        gaps = (cos0[:, :-1] - cos0[:, 1:]).ravel()
        out["gap"].append(float(np.median(gaps)))
        for b in Q.BITS:
            approx = Q.roundtrip(t, b)
            u1 = stats.unit_rows(approx.numpy(), zero="keep")
            ids1, _ = _ordered(u1, q, k)
            cos1 = np.einsum("qd,qkd->qk", u1[q], u1[ids0[:, :k]])
            dcos = np.abs(cos1 - cos0[:, :k]).ravel()
            out[f"rel_error_{b}"].append(Q.relative_error(t, approx))
            out[f"overlap_{b}"].append(float(similarity.neighbour_overlap(t, approx, q, k).mean()))
            out[f"changed_{b}"].append(float(np.mean([not np.array_equal(a[:k], c) for a, c in zip(ids0, ids1)])))
            out[f"dcos_{b}"].append(float(np.median(dcos)))
            out[f"blurred_{b}"].append(float(np.mean(gaps < np.median(dcos))))
            if not samples.get(f"dcos_{b}"):
                samples[f"dcos_{b}"] = dcos.tolist()
        samples.setdefault("gaps", gaps.tolist())
    return Neighbours(k=k, n_queries=min(n), names=list(tables), sample_gaps=samples["gaps"],
                      sample_dcos_8=samples["dcos_8"], sample_dcos_4=samples["dcos_4"], **out)


# --- C29: the word table or the attention projections -------------------------------------------------


def lee_sentences(n: int, words: int = 24) -> list[str]:
    """The openings (first ``words`` words) of the first ``n`` Lee-corpus news stories."""
    docs = data.lee_corpus()
    if not 2 <= n <= len(docs):
        raise ValueError(f"n must be in [2, {len(docs)}], got {n}")
    return [" ".join(d[:words]) for d in docs[:n]]


def _token_states(tokenizer, model, sentences: Sequence[str]) -> torch.Tensor:
    """The last hidden state of every real (non-padding) token of ``sentences``, stacked: ``[n_tokens, d]``."""
    dev = next(model.parameters()).device
    enc = tokenizer(list(sentences), padding=True, truncation=True, return_tensors="pt").to(dev)
    with torch.inference_mode():
        h = model(**enc).last_hidden_state
    return h[enc["attention_mask"].bool()].float()


@dataclass
class Robustness(Result):
    """How far quantising one part of MiniLM moves its (unit-length) sentence vectors, sentence by sentence."""

    n_sentences: int
    n_blocks: int
    emb_params: int
    att_params: int
    block_params: int
    emb_dist_8: list[float]  # per sentence: ||v_quantised - v_float||, only the word table quantised
    att_dist_8: list[float]  # only the attention projections of all blocks
    block_dist_8: list[list[float]]  # [block][sentence]: only that block's attention projections
    emb_dist_4: list[float]
    att_dist_4: list[float]
    block_dist_4: list[list[float]]
    wins_all_8: float  # share of sentences the table moved less than all attention projections did
    wins_all_4: float
    wins_layer_8: float  # share of sentences it moved less than a typical single block (median of the blocks)
    wins_layer_4: float
    emb_median_8: float
    att_median_8: float
    layer_median_8: float  # median over sentences of the per-sentence median over blocks
    emb_median_4: float
    att_median_4: float
    layer_median_4: float
    blocks_worse_8: int  # blocks that, quantised alone, move the median sentence more than the whole table
    blocks_worse_4: int
    emb_spearman_8: float  # rank correlation of all pairwise sentence similarities with the float model's
    att_spearman_8: float
    emb_spearman_4: float
    att_spearman_4: float
    swap_max_diff: float  # QuantizedEmbedding swapped into the model vs the fake-quantised table (int8)
    n_tokens: int  # real (non-padding) tokens in the sentences
    tok_wins_all_8: float  # per token, unpooled: share of tokens whose last hidden state the table moved less
    tok_wins_all_4: float  # (relative move ||h_q - h|| / ||h||) than all attention projections did
    tok_wins_layer_8: float  # the same against a typical single block (per token, the median of the blocks)
    tok_wins_layer_4: float
    tok_emb_median_8: float  # median relative move of a token's last hidden state, only the table quantised
    tok_att_median_8: float
    tok_layer_median_8: float
    tok_emb_median_4: float
    tok_att_median_4: float
    tok_layer_median_4: float
    tok_emb_move_8: list[float] = field(default_factory=list)  # per token: relative move, only the table quantised
    tok_att_move_8: list[float] = field(default_factory=list)  # only all attention projections
    tok_block_move_8: list[list[float]] = field(default_factory=list)  # [block][token]: only that block's
    tok_emb_move_4: list[float] = field(default_factory=list)
    tok_att_move_4: list[float] = field(default_factory=list)
    tok_block_move_4: list[list[float]] = field(default_factory=list)

    def extra_glue(self) -> dict:
        return {"ratio_8": self.att_median_8 / self.emb_median_8, "ratio_4": self.att_median_4 / self.emb_median_4,
                "params_ratio": self.emb_params / self.att_params, "block_share": self.block_params / self.emb_params}


def run_robustness(tokenizer, model, sentences: Sequence[str]) -> Robustness:
    """Quantise (row-wise, INT8 then INT4) only the word table, only all attention projections, or one
    attention block at a time, and measure each sentence vector's move from the float model's."""
    sentences = list(sentences)
    if len(sentences) < 3:
        raise ValueError(f"need at least 3 sentences to compare rankings of their similarities, got {len(sentences)}")
    ref = contextual.sentence_vectors(tokenizer, model, sentences)
    ref_tok = _token_states(tokenizer, model, sentences)
    iu = torch.triu_indices(len(sentences), len(sentences), 1)

    def pairs(v: torch.Tensor) -> np.ndarray:
        return (v @ v.T)[iu[0], iu[1]].cpu().double().numpy()

    def moved(part: str, bits: int, layers=None) -> tuple[np.ndarray, float, int, np.ndarray]:
        with Q.fake_quantized(model, part, bits, layers) as n_params:
            v = contextual.sentence_vectors(tokenizer, model, sentences)
            h = _token_states(tokenizer, model, sentences)
        tok_move = ((h - ref_tok).norm(dim=1) / ref_tok.norm(dim=1)).cpu().double().numpy()
        return (v - ref).norm(dim=1).cpu().double().numpy(), stats.spearman(pairs(ref), pairs(v)), n_params, tok_move

    n_blocks = len(Q.attention_linears(model)) // 4
    f: dict = {}
    for b in Q.BITS:
        e, f[f"emb_spearman_{b}"], f["emb_params"], te = moved("embedding", b)
        a, f[f"att_spearman_{b}"], f["att_params"], ta = moved("attention", b)
        blocks = [moved("attention", b, [i]) for i in range(n_blocks)]
        f["block_params"] = blocks[0][2]
        per_block = np.stack([x[0] for x in blocks])  # [block, sentence]
        typical = np.median(per_block, axis=0)  # a typical single layer, per sentence
        tok_blocks = np.stack([x[3] for x in blocks])  # [block, token]
        tok_typical = np.median(tok_blocks, axis=0)  # per token
        f[f"tok_emb_move_{b}"], f[f"tok_att_move_{b}"] = te.tolist(), ta.tolist()
        f[f"tok_block_move_{b}"] = tok_blocks.tolist()
        f[f"tok_wins_all_{b}"], f[f"tok_wins_layer_{b}"] = float(np.mean(te < ta)), float(np.mean(te < tok_typical))
        f[f"tok_emb_median_{b}"], f[f"tok_att_median_{b}"] = float(np.median(te)), float(np.median(ta))
        f[f"tok_layer_median_{b}"] = float(np.median(tok_typical))
        f["n_tokens"] = int(len(te))
        f[f"emb_dist_{b}"], f[f"att_dist_{b}"], f[f"block_dist_{b}"] = e.tolist(), a.tolist(), per_block.tolist()
        f[f"wins_all_{b}"], f[f"wins_layer_{b}"] = float(np.mean(e < a)), float(np.mean(e < typical))
        f[f"emb_median_{b}"], f[f"att_median_{b}"] = float(np.median(e)), float(np.median(a))
        f[f"layer_median_{b}"] = float(np.median(typical))
        f[f"blocks_worse_{b}"] = int((np.median(per_block, axis=1) > np.median(e)).sum())
    # the same INT8 table as a real QuantizedEmbedding inside the model: the values it feeds are identical
    table = model.get_input_embeddings()
    try:
        model.set_input_embeddings(Q.QuantizedEmbedding.from_float(table.weight, 8))
        swapped = contextual.sentence_vectors(tokenizer, model, sentences)
    finally:
        model.set_input_embeddings(table)
    with Q.fake_quantized(model, "embedding", 8):
        fake = contextual.sentence_vectors(tokenizer, model, sentences)
    f["swap_max_diff"] = float((swapped - fake).abs().max())
    return Robustness(n_sentences=len(sentences), n_blocks=n_blocks, **f)


# --- throughput (an illustration: no verdict reads it) --------------------------------------------------


@dataclass
class Throughput(Result):
    """Lookup time of nn.Embedding (float32) and QuantizedEmbedding (int8, int4) on one table, timed in turn."""

    verbatim = ("device",)  # data: the device's type ("cpu", "cuda"), the same in both editions

    device: str
    n_ids: int
    vocab: int
    dim: int
    int8_fused: int  # 1 if the int8 (and int4) lookups used PyTorch's fused CPU kernels
    int8_exact: int  # 1 if its rows equal dequantize(table)[ids] exactly
    int8_mem_ratio: float
    int4_mem_ratio: float
    bench_fp32_ms: float
    bench_int8_ms: float
    bench_int4_ms: float
    bench_int8_speed: float  # fp32 time / int8 time (> 1: the quantised lookup is faster)
    bench_int4_speed: float


def run_throughput(table: torch.Tensor, n_ids: int, reps: int, seed: int = 0,
                   device: str | torch.device = "cpu") -> Throughput:
    """Time ``nn.Embedding`` and int8 / int4 :class:`~embedbook.quantize.QuantizedEmbedding` lookups of
    ``n_ids`` random ids (best of ``reps`` interleaved runs, :func:`embedbook.timing.interleaved`)."""
    dev = torch.device(device)
    t = table.detach().float().to(dev)
    fp = torch.nn.Embedding.from_pretrained(t)
    q8, q4 = Q.QuantizedEmbedding.from_float(t, 8), Q.QuantizedEmbedding.from_float(t, 4)
    ids = torch.randint(0, t.shape[0], (n_ids,), generator=torch.Generator().manual_seed(seed)).to(dev)
    with torch.no_grad():
        exact = torch.equal(q8(ids), Q.dequantize(q8.table)[ids])
        best = timing.interleaved({"fp32": lambda: fp(ids), "int8": lambda: q8(ids), "int4": lambda: q4(ids)},
                                  reps=reps, device=dev)
    ms = {k: v.best * 1e3 for k, v in best.items()}
    return Throughput(
        device=dev.type, n_ids=n_ids, vocab=int(t.shape[0]), dim=int(t.shape[1]),
        int8_fused=int(q8.fused and dev.type == "cpu" and Q._HAS_FUSED),
        int8_exact=int(exact), int8_mem_ratio=q8.ratio, int4_mem_ratio=q4.ratio,
        bench_fp32_ms=ms["fp32"], bench_int8_ms=ms["int8"], bench_int4_ms=ms["int4"],
        bench_int8_speed=ms["fp32"] / ms["int8"], bench_int4_speed=ms["fp32"] / ms["int4"],
    )
