"""Chapter 13's claims (C28, C29, C49): the article's words (register entries), each claim's
declared rule, its sources and its check.

The measurements they read are in :mod:`embedbook.chapters.ch13_quantize.measure`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from embedbook import quantize as Q
from embedbook.book import claims
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, LONG, REFUTED, SHORT, Claim
from embedbook.book.i18n import _, tr
from embedbook.chapters.ch13_quantize.measure import BLOCK, Memory, Neighbours, Robustness

# --- the register entries: the articles' words this chapter settles ------------------------------------

claims.declare(
    __name__,
    Claim("C28", LONG, "实践中的考量", "将FP32 Embedding量化为INT8或INT4，能将内存占用减少4-8倍",
          "quantising FP32 embeddings to INT8 or INT4 cuts their memory 4- to 8-fold",
          "INT8 / INT4 quantisation cuts embedding memory 4x / 8x.", "quantize"),
    Claim("C29", LONG, "实践中的考量", "研究表明，Embedding层对量化相对鲁棒——相比于Attention层，量化的精度损失更小",
          "research shows that embedding layers are relatively robust to quantisation: compared with attention layers, they lose less accuracy",
          "Embedding layers are more robust to quantisation than attention layers.", "quantize"),
    Claim("C49", SHORT, "一张矩阵解决不了的事", "显存省了，向量的细微差别也被抹平，近邻排序可能变化",
          "memory is saved, but the fine differences between vectors are smoothed away too, and the order of nearest neighbours may change",
          "Quantising the embedding matrix blurs fine differences and can reorder nearest neighbours.", "quantize"),
)


@claims.rule(
    "C28",
    basis=claims.ARITHMETIC,
    quantity="the bytes of an FP32 table divided by the bytes of its INT8 / INT4 copy, counting everything "
    "stored (the codes, INT4 packed two to a byte, and a float32 scale for every row), at the article's "
    "size V = 32,000, d = 4,096",
    inputs={"int8_ratio": "FP32 bytes / INT8 bytes (row-wise scales)", "int4_ratio": "FP32 bytes / INT4 bytes"},
    thresholds={"tolerance": 0.05, "int8_floor": 3.0, "int4_floor": 6.0},
    outcomes={
        CONFIRMED: "the INT8 ratio is within the tolerance of 4 and the INT4 ratio within it of 8",
        CORRECTED: "both exceed their floors (3× and 6×) but at least one misses 4× / 8× by more than the "
        "tolerance: the scales eat a visible share",
        REFUTED: "either ratio is below its floor (e.g. INT4 codes stored one to a byte save no more than INT8)",
    },
    examples={
        CONFIRMED: {"int8_ratio": 3.996, "int4_ratio": 7.984},
        CORRECTED: {"int8_ratio": 3.704, "int4_ratio": 6.897},  # d = 50, GloVe's width
        REFUTED: {"int8_ratio": 3.996, "int4_ratio": 3.996},  # unpacked INT4
    },
)
def _c28(f, t):
    if f["int8_ratio"] < t["int8_floor"] or f["int4_ratio"] < t["int4_floor"]:
        return REFUTED
    near = abs(f["int8_ratio"] / 4 - 1) <= t["tolerance"] and abs(f["int4_ratio"] / 8 - 1) <= t["tolerance"]
    return CONFIRMED if near else CORRECTED


@claims.check("C28")
def check_c28(r: Memory) -> claims.Verdict:
    """Settle C28 from :func:`run_memory`."""

    def evidence(v: str) -> str:
        head = _(
            "The article's {vocab:,} × {dim:,} table takes {fp32_mb:,.1f} MB in FP32, "
            "{int8_mb:,.1f} MB in INT8 and {int4_mb:,.1f} MB in INT4 with a float32 scale per "
            "row: {int8_ratio:.3f}× and {int4_ratio:.3f}× smaller. "
        ).format(vocab=r.vocab, dim=r.dim, fp32_mb=r.fp32_bytes / 1e6, int8_mb=r.int8_bytes / 1e6,
                 int4_mb=r.int4_bytes / 1e6, int8_ratio=r.int8_ratio, int4_ratio=r.int4_ratio)
        small = ""
        if r.table_names:
            small = _("Narrower rows pay more for their scales: {tables}. ").format(tables=_(", ").join(
                _("{name} (d = {d}) {a:.2f}× / {b:.2f}×").format(name=n, d=d, a=a, b=b)
                for n, d, a, b in zip(r.table_names, r.table_dims, r.table_int8, r.table_int4)
            ))
        tail = _(
            "One scale for the whole table gives {int8_tensor:.3f}× / {int4_tensor:.3f}×; the fused "
            "CPU layout of QuantizedEmbedding (an offset per row as well) {int8_fused:.3f}×; block formats "
            "with an fp16 scale per {block} values {block_int8:.2f}× / {block_int4:.2f}×."
        ).format(int8_tensor=r.int8_tensor_ratio, int4_tensor=r.int4_tensor_ratio, int8_fused=r.int8_fused_ratio,
                 block=BLOCK, block_int8=r.block_int8_ratio, block_int4=r.block_int4_ratio)
        verdict = {
            CONFIRMED: _("At the article's width the per-row scales cost a tenth of a percent: 4× and 8× hold. "),
            CORRECTED: _("The scales take a visible share at this width: the saving is below 4× / 8×. "),
            REFUTED: _("That is far short of 4× / 8×. "),
        }[v]
        return head + verdict + small + tail

    def finding(v: str) -> str:
        t = claims.rule_of("C28").thresholds
        tol = t["tolerance"]
        head = _("With a float32 scale per row, INT8 and INT4 make the article's {vocab:,} × {dim:,} table "
                 "{int8_ratio:.3f}× and {int4_ratio:.3f}× smaller than FP32").format(
            vocab=r.vocab, dim=r.dim, int8_ratio=r.int8_ratio, int4_ratio=r.int4_ratio)
        tail = {CONFIRMED: _(", within {tol:.0%} of 4× and 8×.").format(tol=tol),
                CORRECTED: _(", more than {tol:.0%} short of 4× or 8×.").format(tol=tol),
                REFUTED: _(", below the floor of {int8_floor:g}× or {int4_floor:g}×.").format(
                    int8_floor=t["int8_floor"], int4_floor=t["int4_floor"])}[v]
        narrow = "".join(_(" Row scales cost more when narrow: at {name}'s width of {d}, {a:.2f}× and {b:.2f}×.").format(
                             name=n, d=d, a=a, b=b)
                         for n, d, a, b in zip(r.table_names, r.table_dims, r.table_int8, r.table_int4)
                         if d == min(r.table_dims))
        return head + tail + narrow

    return claims.judge(
        "C28", {"int8_ratio": r.int8_ratio, "int4_ratio": r.int4_ratio}, evidence,
        strength=_("exact byte counts of the tensors actually stored; no randomness can change them"), finding=finding,
    )


@claims.rule(
    "C49",
    basis=claims.MEASURED,
    quantity="on two real tables (GloVe's 50-d word vectors, MiniLM's WordPiece table), for each query word: "
    "its top-10 cosine neighbours before and after row-wise INT8 / INT4 quantisation; the share of queries whose "
    "ordered list changed (a swap of places or a neighbour replaced), taken on the table where it is smaller. The "
    "share of neighbours replaced outright (1 − similarity.neighbour_overlap) is reported beside it: the article "
    "says only that the order may change, so a replaced neighbour is more than it claims, not a condition of it",
    inputs={
        "changed_8": "share of queries whose ordered top-10 changed after INT8", "changed_4": "the same after INT4",
    },
    thresholds={"min_share": 0.05},
    outcomes={
        CONFIRMED: "at INT8 or INT4 the ordered list changes for at least min_share of the queries on both tables",
        REFUTED: "at neither bit width: the lists stay as they were for all but a few queries",
    },
    examples={
        CONFIRMED: {"changed_8": 0.19, "changed_4": 0.93},
        REFUTED: {"changed_8": 0.0, "changed_4": 0.03},
    },
)
def _c49(f, t):
    return CONFIRMED if max(f["changed_8"], f["changed_4"]) >= t["min_share"] else REFUTED


@claims.check("C49")
def check_c49(r: Neighbours) -> claims.Verdict:
    """Settle C49 from :func:`run_neighbours`."""
    figures = {"changed_8": min(r.changed_8), "changed_4": min(r.changed_4),
               "lost_8": 1 - max(r.overlap_8), "lost_4": 1 - max(r.overlap_4)}
    min_lost = 0.01  # a replaced share worth naming in the text (the rule does not read it)

    def evidence(v: str) -> str:
        per = _("; ").join(
            _("{name}: INT8 keeps {o8:.1%} of the top-{k} and reorders {c8:.0%} of the lists, INT4 keeps {o4:.1%} and "
              "reorders {c4:.0%}").format(name=n, o8=o8, k=r.k, c8=c8, o4=o4, c4=c4)
            for n, o8, c8, o4, c4 in zip(r.names, r.overlap_8, r.changed_8, r.overlap_4, r.changed_4)
        )
        why = _(
            "The blur is visible in the cosines: on {name} neighbours ranked next to each other differ by a "
            "median {gap:.4f}, while quantisation moves a query–neighbour cosine by a median {dcos_8:.4f} "
            "(INT8) or {dcos_4:.4f} (INT4); {blurred_8:.0%} and {blurred_4:.0%} of those gaps are "
            "smaller than that typical change."
        ).format(name=r.names[0], gap=r.gap[0], dcos_8=r.dcos_8[0], dcos_4=r.dcos_4[0], blurred_8=r.blurred_8[0],
                 blurred_4=r.blurred_4[0])
        worst = max(figures["lost_8"], figures["lost_4"])
        replaced = (
            _(" More than the article says: on both tables some neighbours are replaced outright, not only reordered "
              "(at least {worst:.1%} of them at {bits}).").format(
                worst=worst, bits='INT4' if figures['lost_4'] >= figures['lost_8'] else 'INT8')
            if worst >= min_lost else
            _(" The neighbours themselves stay: quantisation swaps places among them, and on one of the tables it "
              "replaces at most {worst:.1%} of them.").format(worst=worst)
        )
        lead = {
            CONFIRMED: _("The order of the nearest neighbours changes, as the article says ({n_queries} query words "
                         "per table).{replaced} ").format(n_queries=r.n_queries, replaced=replaced),
            REFUTED: _("The neighbour lists barely change. "),
        }[v]
        return _("{lead}{per}. {why}").format(lead=lead, per=per, why=why)

    def finding(v: str) -> str:
        # the figures are the smaller of the two tables' shares: name the table each comes from
        at8 = r.names[list(r.changed_8).index(figures["changed_8"])]
        at4 = r.names[list(r.changed_4).index(figures["changed_4"])]
        where = (_("even on {name}'s table a word's ordered top-{k} list changed for").format(name=at8, k=r.k)
                 if at8 == at4 else
                 _("even on the steadier table ({at8} at INT8, {at4} at INT4) a word's ordered top-{k} list changed "
                   "for").format(at8=at8, at4=at4, k=r.k))
        said = _("{where} {changed_8:.0%} of the query words after INT8 and {changed_4:.0%} after INT4").format(
            where=where, changed_8=figures['changed_8'], changed_4=figures['changed_4'])
        if v == REFUTED:
            return _("The neighbour lists barely change: {said}.").format(said=said)
        worst = max(figures["lost_8"], figures["lost_4"])
        return (_("Quantisation reorders nearest neighbours: {said}. ").format(said=said)
                + (_("On both tables at least {worst:.1%} of the neighbours are replaced outright at "
                     "{bits}.").format(worst=worst, bits='INT4' if figures['lost_4'] >= figures['lost_8'] else 'INT8')
                   if worst >= min_lost else _("Hardly any are replaced outright (at most {worst:.1%}).").format(
                       worst=worst)))

    return claims.judge(
        "C49", figures, evidence, finding=finding,
        strength=_("{n_queries} frequent query words on each of two tables; quantisation is deterministic, so there "
                   "is no seed spread, and the rule takes the table where the effect is smaller. Rule revised after an "
                   "external audit of the first build (was: 'corrected' when the order changed but the neighbours "
                   "stayed, 'confirmed' only when neighbours were replaced; the article claims only the change of "
                   "order).").format(n_queries=r.n_queries),
    )


@claims.rule(
    "C29",
    basis=claims.MEASURED,
    quantity="how far MiniLM's last hidden states move, token by token (relative distance ||h_q − h|| / ||h|| from "
    "the float model's state of the same token, unpooled), when only its word-embedding table is quantised, against "
    "(a) only the query/key/value/output projections of all its attention blocks and (b) only those of one block, "
    "the typical one (per token, the median of the blocks: one layer against one layer) — same bit width, same "
    "row-wise scheme, same sentences; per token, which moved it less. The same shares over mean-pooled sentence "
    "vectors are shown beside them but do not decide: pooling averages out the table's independent per-row errors "
    "(about 1/√n over n tokens), while a projection's error is shared by every token, so pooling favours the table",
    inputs={
        "tok_wins_all_8": "share of tokens moved less by an INT8 table than by INT8 projections in all blocks",
        "tok_wins_all_4": "the same at INT4",
        "tok_wins_layer_8": "share of tokens moved less by an INT8 table than by a typical single INT8 block",
        "tok_wins_layer_4": "the same at INT4",
    },
    thresholds={"agree": 0.9},
    outcomes={
        CONFIRMED: "both readings of 'the attention layers' — all of them together, and one block against one "
        "block — find the table more robust at INT8 and at INT4 (all four shares reach agree)",
        CORRECTED: "both readings agree, and find the table more robust at one bit width but not at the other",
        REFUTED: "both readings agree, and find the table more robust at neither width, with attention more "
        "robust at one at least (a share at most 1 − agree)",
        INCONCLUSIVE: "the two readings disagree, or both find every share between 1 − agree and agree (no "
        "difference beyond the spread over tokens). No reading was declared before measuring: the article's "
        "'Attention层' can mean either, so where they part the verdict is not decided here",
    },
    examples={
        CONFIRMED: {"tok_wins_all_8": 1.0, "tok_wins_all_4": 0.99, "tok_wins_layer_8": 0.95, "tok_wins_layer_4": 0.92},
        CORRECTED: {"tok_wins_all_8": 1.0, "tok_wins_all_4": 0.6, "tok_wins_layer_8": 0.95, "tok_wins_layer_4": 0.3},
        REFUTED: {"tok_wins_all_8": 0.3, "tok_wins_all_4": 0.05, "tok_wins_layer_8": 0.2, "tok_wins_layer_4": 0.0},
        INCONCLUSIVE: {"tok_wins_all_8": 0.999, "tok_wins_all_4": 0.993, "tok_wins_layer_8": 0.5,
                       "tok_wins_layer_4": 0.06},
    },
)
def _c29(f, t):
    readings = [_c29_reading(f[f"tok_wins_{key}_8"], f[f"tok_wins_{key}_4"], t["agree"]) for key in ("all", "layer")]
    return readings[0] if readings[0] == readings[1] else INCONCLUSIVE


def _c29_reading(share_8: float, share_4: float, agree: float) -> str:
    """What one reading of 'the attention layers' says, from its INT8 and INT4 shares of tokens the table moved less."""
    wins = [s >= agree for s in (share_8, share_4)]
    if all(wins):
        return CONFIRMED
    if any(wins):
        return CORRECTED
    return REFUTED if any(s <= 1 - agree for s in (share_8, share_4)) else INCONCLUSIVE


def _reading_words(reading: str) -> str:
    """What one reading of 'the attention layers' makes of the table, in words."""
    return {CONFIRMED: _("the more robust part at INT8 and at INT4"), CORRECTED: _("the more robust part at one "
            "bit width only"), REFUTED: _("not the more robust part (attention is, at one width at least)"),
            INCONCLUSIVE: _("level with it (no part moves the tokens less consistently)")}[reading]


def _and(words: Sequence[str]) -> str:
    """``" and ".join(words)`` in the language being written."""
    out = ""
    for w in words:
        out = str(w) if not out else str(_("{first} and {second}").format(first=out, second=w))
    return out


# What the literature says of the embedding table's sensitivity: context for the box, not deciding (the
# measurement decides C29). Search: "Q-BERT Hessian based ultra low precision quantization embedding layer more
# sensitive", "Q-BERT ablation quantizing different modules word embedding position embedding" (corpus: pages).
QBERT = claims.Source(
    cite="shen2020qbert",
    finding=_("Q-BERT quantises BERT-base module by module and reports the embedding layer as more sensitive to "
              "quantisation than the encoder's weights, the position embeddings most of all; it therefore keeps the "
              "embedding table at 8 bits (4× smaller) while the encoder's weights go down to 2–4 bits (up to 13×)"),
    where=_("Shen et al. 2020 (AAAI), the ablation of quantisation effects at different modules (the embedding's "
            "word / position bits) and the abstract's 13× / 4× figures"),
    contradicts=("embedding_more_robust",),
)


def _dec(x: float) -> str:
    """A small positive number as a plain decimal with two significant digits (0.0047, 0.088, 0.25)."""
    if x == 0:
        return "0"
    digits = max(0, 1 - int(np.floor(np.log10(abs(x)))))
    return f"{x:.{digits}f}"


@claims.check("C29")
def check_c29(r: Robustness) -> claims.Verdict:
    """Settle C29 from :func:`run_robustness` (token-level shares decide; the pooled ones are shown)."""
    agree = claims.rule_of("C29").thresholds["agree"]

    def sides() -> str:
        groups: dict[str, list[str]] = {"the table": [], "attention": [], "neither part consistently": []}
        for what, key in ((_("all of attention at INT{bits}"), "all"), (_("a typical single block at INT{bits}"), "layer")):
            for b in Q.BITS:
                share = getattr(r, f"tok_wins_{key}_{b}")
                who = "the table" if share >= agree else "attention" if share <= 1 - agree else "neither part consistently"
                groups[who].append(str(what.format(bits=b)))
        said = []
        if groups["the table"]:
            said.append(_("the table is more robust than {parts}").format(parts=_and(groups["the table"])))
        if groups["attention"]:
            n = len(groups["attention"])
            said.append((_("{parts} is more robust than the table") if n == 1 else
                         _("{parts} are more robust than the table")).format(parts=_and(groups["attention"])))
        if groups["neither part consistently"]:
            said.append(_("the comparison with {parts} is a tie (no part moves the tokens less consistently)").format(
                parts=_and(groups["neither part consistently"])))
        return _("Token by token, {said}. ").format(said=_("; ").join(said))

    all_says, layer_says = (_c29_reading(getattr(r, f"tok_wins_{k}_8"), getattr(r, f"tok_wins_{k}_4"), agree)
                            for k in ("all", "layer"))

    def evidence(v: str) -> str:
        tokens = _(
            "Over {n_tokens:,} tokens of {n_sentences} sentences, a token's last hidden state moved a median "
            "{emb_8:.2%} (INT8) and {emb_4:.1%} (INT4) of its length with only the word "
            "table quantised ({emb_params:,} weights); {att_8:.2%} and {att_4:.1%} "
            "with only the attention projections of all {n_blocks} blocks ({att_params:,} weights); "
            "{layer_8:.2%} and {layer_4:.1%} with only a typical single block "
            "({block_params:,} weights). Against all of attention the table moved {wins_all_8:.0%} (INT8) "
            "and {wins_all_4:.0%} (INT4) of the tokens less; against one block, {wins_layer_8:.0%} "
            "and {wins_layer_4:.0%}. "
        ).format(n_tokens=r.n_tokens, n_sentences=r.n_sentences, emb_8=r.tok_emb_median_8, emb_4=r.tok_emb_median_4,
                 emb_params=r.emb_params, att_8=r.tok_att_median_8, att_4=r.tok_att_median_4, n_blocks=r.n_blocks,
                 att_params=r.att_params, layer_8=r.tok_layer_median_8, layer_4=r.tok_layer_median_4,
                 block_params=r.block_params, wins_all_8=r.tok_wins_all_8, wins_all_4=r.tok_wins_all_4,
                 wins_layer_8=r.tok_wins_layer_8, wins_layer_4=r.tok_wins_layer_4)
        pooled = _(
            "Mean-pooled sentence vectors favour the table, because pooling averages out its independent per-row "
            "errors while a projection's error is shared by every token: there the table moved "
            "{wins_all_8:.0%} and {wins_all_4:.0%} of the sentences less than all of attention, and "
            "{wins_layer_8:.0%} and {wins_layer_4:.0%} less than one block (median move "
            "{emb_8} and {emb_4} for the table, {layer_8} and "
            "{layer_4} for one block). "
        ).format(wins_all_8=r.wins_all_8, wins_all_4=r.wins_all_4, wins_layer_8=r.wins_layer_8,
                 wins_layer_4=r.wins_layer_4, emb_8=_dec(r.emb_median_8), emb_4=_dec(r.emb_median_4),
                 layer_8=_dec(r.layer_median_8), layer_4=_dec(r.layer_median_4))
        lead = {
            CONFIRMED: _("The embedding table is the more robust part in every comparison. "),
            CORRECTED: _("Both readings of 'the attention layers' agree that the table is the more robust part at one "
                         "bit width only. "),
            REFUTED: _("The attention projections are the more robust part here. "),
            INCONCLUSIVE: (_("The two readings of 'the attention layers' disagree: against all of attention the table "
                             "is {all_says}, against one block {layer_says}; no reading "
                             "was declared before measuring, so the claim is not decided here. ").format(
                               all_says=_reading_words(all_says), layer_says=_reading_words(layer_says))
                           if all_says != layer_says else _("Neither part is consistently more robust across tokens. ")),
        }[v]
        tail = _(
            "{blocks_worse_8} of the {n_blocks} blocks, quantised alone, move the median sentence more than the "
            "whole table at INT8, {blocks_worse_4} at INT4. Sentence-similarity rankings keep a Spearman correlation "
            "of {emb_spearman:.4f} (table) and {att_spearman:.4f} (all attention) with the float model's at INT4."
        ).format(blocks_worse_8=r.blocks_worse_8, n_blocks=r.n_blocks, blocks_worse_4=r.blocks_worse_4,
                 emb_spearman=r.emb_spearman_4, att_spearman=r.att_spearman_4)
        return (lead + tokens + sides() + pooled + tail
                + _(" The literature, for context (not deciding): {finding} ({where}).").format(
                    finding=tr(QBERT.finding), where=tr(QBERT.where)))

    figures = {k: getattr(r, k) for k in ("tok_wins_all_8", "tok_wins_all_4", "tok_wins_layer_8", "tok_wins_layer_4",
                                          "wins_all_8", "wins_all_4", "wins_layer_8", "wins_layer_4")}
    shares = [figures[k] for k in ("tok_wins_all_8", "tok_wins_all_4", "tok_wins_layer_8", "tok_wins_layer_4")]
    second = (CONFIRMED if all(x >= agree for x in shares) else CORRECTED if any(x >= agree for x in shares)
              else REFUTED if any(x <= 1 - agree for x in shares) else INCONCLUSIVE)  # the second round's rule

    def finding(v: str) -> str:
        moved = _("Quantised alone, the table moved a token's state less than all {n_blocks} attention "
                  "blocks did for {wins_all_8:.0%} (INT8) and {wins_all_4:.0%} (INT4) of {n_tokens:,} "
                  "tokens, and less than one typical block for {wins_layer_8:.0%} and "
                  "{wins_layer_4:.0%}. ").format(n_blocks=r.n_blocks, wins_all_8=r.tok_wins_all_8,
                                                 wins_all_4=r.tok_wins_all_4, n_tokens=r.n_tokens,
                                                 wins_layer_8=r.tok_wins_layer_8, wins_layer_4=r.tok_wins_layer_4)
        lead = {CONFIRMED: _("Both comparisons find the table more robust at both widths."),
                CORRECTED: _("Both find the table more robust at one width only."),
                REFUTED: _("Both comparisons find attention the more robust part."),
                INCONCLUSIVE: _("The two comparisons disagree: the claim is not decided here.")
                if all_says != layer_says else _("Neither part moves the tokens less consistently.")}[v]
        return moved + lead

    return claims.judge(
        "C29", figures, evidence, finding=finding,
        strength=_("{n_tokens:,} tokens in {n_sentences} sentences, paired (each token measured under every part); "
                   "one model (MiniLM-L6), weight-only quantisation without calibration, and a move of the hidden "
                   "states rather than a task's accuracy; deterministic, so the spread is over tokens, not seeds. Rule "
                   "revised after measuring, in a later review of the book: the two readings of 'the attention layers' "
                   "are judged apart and their disagreement is 'inconclusive here', because no reading was declared "
                   "before measuring (the first build's rule already measured both and declared neither); the second "
                   "round's rule gave 'confirmed with a correction' whenever one share but not all four reached agree, "
                   "and would give '{second}' here. In the second round the shares moved from mean-pooled sentence "
                   "vectors, which average out the table's per-row errors, to tokens.").format(
            n_tokens=r.n_tokens, n_sentences=r.n_sentences, second=claims.verdict_word(second)),
    )
