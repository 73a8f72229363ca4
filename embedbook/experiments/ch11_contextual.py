"""Chapter 11, "Static vs contextual": the measurements and the checks of C10, C11 and C46."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from embedbook import claims, contextual, data, timing
from embedbook.book import Result
from embedbook.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED

# Hand-written contexts for the two senses of "apple" (the articles' 苹果 example).
FRUIT = [
    "i ate a fresh apple for lunch",
    "she peeled the apple and cut it into slices",
    "he baked an apple pie with cinnamon",
    "the apple was sweet and juicy",
    "we picked a ripe apple from the tree in the orchard",
    "a green apple and a banana were in the fruit bowl",
    "my grandmother makes apple juice every autumn",
    "the horse happily ate the apple from her hand",
]
COMPANY = [
    "apple released a new iphone at its launch event",
    "shares of apple rose after strong quarterly earnings",
    "the apple store in the mall sells laptops and phones",
    "apple and google compete in the smartphone market",
    "tim cook is the chief executive of apple",
    "developers write apps for apple devices using swift",
    "apple announced record revenue from its services business",
    "the new apple laptop has a faster chip",
]

# --- C10, C46: one word, two senses -------------------------------------------------------------------


@dataclass
class Senses(Result):
    """"apple" in fruit and company sentences: per-layer cosines and separability, and what the lookup
    and the embedding output hand out for repeated tokens in one batched forward pass."""

    word: str
    n_fruit: int
    n_company: int
    within_fruit: list[float]
    within_company: list[float]
    across: list[float]
    accuracy: list[float]  # leave-one-out nearest-centroid accuracy per layer (0 = embedding output)
    acc_lookup: float  # the same on the rows the token table handed out
    lookup_across: float  # mean cosine between the looked-up rows of the two senses
    acc_l0: float
    acc_top: float
    top_layer: int
    across_l0: float
    across_top: float
    max_row_diff: float  # largest difference between looked-up rows of the same token id, any two occurrences
    repeated_tokens: int  # token ids seen at least twice in the batch
    token_occurrences: int  # their occurrences
    max_layer0_diff: float  # largest difference between layer-0 vectors of the same token at the same position
    same_position_pairs: int  # (token, position) groups seen in at least two sentences


def run_senses(tokenizer, model, word: str = "apple", fruit: list[str] = FRUIT, company: list[str] = COMPANY) -> Senses:
    """The sense study (:func:`embedbook.contextual.sense_study`) plus, from one batched forward pass over
    all the sentences, the rows the token table handed out for every repeated token and the layer-0
    vectors of every token seen at the same position in two or more sentences."""
    study = contextual.sense_study(tokenizer, model, fruit, company, word=word)
    dev = next(model.parameters()).device
    enc = tokenizer(list(fruit) + list(company), padding=True, return_tensors="pt").to(dev)
    captured = {}
    hook = model.get_input_embeddings().register_forward_hook(lambda m, i, o: captured.setdefault("rows", o.detach()))
    try:
        with torch.inference_mode():
            layer0 = model(**enc, output_hidden_states=True).hidden_states[0]
    finally:
        hook.remove()
    ids, mask = enc["input_ids"], enc["attention_mask"].bool()
    rows = captured["rows"]
    max_row, repeated, occurrences = 0.0, 0, 0
    for tid in ids[mask].unique():
        where = (ids == tid) & mask
        if int(where.sum()) >= 2:
            r = rows[where]
            max_row = max(max_row, float((r - r[0]).abs().max()))
            repeated += 1
            occurrences += int(where.sum())
    max_l0, groups = 0.0, 0
    for pos in range(ids.shape[1]):
        col = mask[:, pos]
        for tid in ids[col, pos].unique():
            where = col & (ids[:, pos] == tid)
            if int(where.sum()) >= 2:
                v = layer0[where, pos]
                max_l0 = max(max_l0, float((v - v[0]).abs().max()))
                groups += 1
    top = len(study.accuracy) - 1
    return Senses(
        word=word, n_fruit=len(fruit), n_company=len(company), within_fruit=study.within_a,
        within_company=study.within_b, across=study.across, accuracy=study.accuracy,
        acc_lookup=study.lookup_accuracy, lookup_across=study.lookup_across, acc_l0=study.accuracy[0],
        acc_top=study.accuracy[top], top_layer=top,
        across_l0=study.across[0], across_top=study.across[top], max_row_diff=max(max_row, study.lookup_max_diff),
        repeated_tokens=repeated, token_occurrences=occurrences, max_layer0_diff=max_l0, same_position_pairs=groups,
    )


@claims.rule(
    "C10",
    quantity="in one batched forward pass of MiniLM over the 16 'apple' sentences: the largest difference between "
    "the rows the token table handed out for the same token id in different sentences, and between the layer-0 "
    "vectors (after positions are added) of the same token at the same position in different sentences",
    inputs={"max_row_diff": "largest |row − row| over repeated token ids", "max_layer0_diff":
            "largest |layer-0 − layer-0| for the same token at the same position"},
    thresholds={"rounding": 1e-5},
    outcomes={
        CONFIRMED: "the looked-up rows are bit-for-bit identical and the layer-0 vectors agree up to rounding: "
        "nothing of the context reaches a token before attention",
        REFUTED: "the rows differ, or layer-0 vectors at the same position differ beyond rounding (the input "
        "layer itself depends on the context, as n-gram input embeddings do)",
    },
    examples={
        CONFIRMED: {"max_row_diff": 0.0, "max_layer0_diff": 0.0},
        REFUTED: {"max_row_diff": 0.42, "max_layer0_diff": 0.8},
    },
)
def _c10(f, t):
    return CONFIRMED if f["max_row_diff"] == 0.0 and f["max_layer0_diff"] <= t["rounding"] else REFUTED


@claims.check("C10")
def check_c10(r: Senses) -> claims.Verdict:
    """Settle C10 from :func:`run_senses`."""

    def evidence(v: str) -> str:
        rows = ("bit-for-bit identical" if r.max_row_diff == 0 else f"different (largest difference {r.max_row_diff:.2g})")
        head = (
            f"Across the {r.n_fruit + r.n_company} sentences, the {r.repeated_tokens} token ids that occur more than once "
            f"({r.token_occurrences} occurrences, '{r.word}' among them) got {rows} rows from the table. The same token "
            f"at the same position in different sentences ({r.same_position_pairs} such groups) had "
            + ("identical layer-0 vectors. " if r.max_layer0_diff == 0 else
               f"layer-0 vectors that differ by at most {r.max_layer0_diff:.1e}. ")
        )
        return head + {
            CONFIRMED: (
                "What enters the first attention layer depends on the token and its position only. What changes with "
                f"position is a second table, added after the lookup ({{doc}}`02_lookup`); the context arrives "
                f"with attention: at layer {r.top_layer} the fruit and company 'apple' vectors have a mean cosine of "
                f"{r.across_top:.2f} across senses."
            ),
            REFUTED: "The input representation of a token depends on its context here, before any attention layer.",
        }[v]

    figures = {"max_row_diff": r.max_row_diff, "max_layer0_diff": r.max_layer0_diff}
    return claims.judge("C10", figures, evidence, strength="exact comparison of every repeated token in one real "
                        "batched forward pass; deterministic")


# --- C46: the price of context -----------------------------------------------------------------------


@dataclass
class Cost(Result):
    """Work per token: the lookup (copies d numbers, no arithmetic) against the forward pass (counted FLOPs),
    a same-run timing of both on one padded batch (an illustration), and what each tells of the senses
    (from :func:`run_senses`)."""

    word: str
    n_sentences: int
    top_layer: int
    acc_lookup: float
    acc_l0: float
    acc_top: float
    dim: int
    tokens: int  # tokens in the counted forward passes
    flops_per_token: float  # counted by torch's flop counter (eager attention)
    flops_per_token_formula: float  # contextual.forward_flops_per_token at the mean sentence length
    lookup_flops_per_token: int
    lookup_bytes_per_token: int
    cost_ratio: float  # forward FLOPs per number the lookup copies
    bench_tokens: int
    bench_lookup_tok_s: float
    bench_forward_tok_s: float
    bench_ratio: float  # forward time / lookup time, same batch, interleaved

    def extra_glue(self) -> dict:
        return {"mflops_per_token": self.flops_per_token / 1e6}


def run_cost(
    tokenizer, model, senses: Senses, sentences: list[str] = FRUIT + COMPANY, copies: int = 4, reps: int = 5
) -> Cost:
    """Count the forward pass's FLOPs per token over ``sentences`` (each on its own, no padding), and time
    the lookup and the forward pass on one padded batch of ``copies`` copies of them, in turn; ``senses``
    (from :func:`run_senses`) supplies what the lookup and the layers tell of the two senses."""
    if copies < 1:
        raise ValueError(f"copies must be >= 1, got {copies}")
    flops, tokens = contextual.count_forward_flops(tokenizer, model, sentences)
    d = model.config.hidden_size
    dev = next(model.parameters()).device
    batch = tokenizer(list(sentences) * copies, padding=True, return_tensors="pt").to(dev)
    table = model.get_input_embeddings()

    def lookup():
        with torch.inference_mode():
            table(batch["input_ids"])

    def forward():
        with torch.inference_mode():
            model(**batch)

    t = timing.interleaved({"lookup": lookup, "forward": forward}, reps=reps, device=dev)
    n = int(batch["attention_mask"].sum())
    mean_len = round(tokens / len(sentences))
    return Cost(
        word=senses.word, n_sentences=senses.n_fruit + senses.n_company, top_layer=senses.top_layer,
        acc_lookup=senses.acc_lookup, acc_l0=senses.acc_l0, acc_top=senses.acc_top, dim=d, tokens=tokens, flops_per_token=flops / tokens,
        flops_per_token_formula=contextual.forward_flops_per_token(model, mean_len),
        lookup_flops_per_token=0, lookup_bytes_per_token=d * table.weight.element_size(),
        cost_ratio=flops / tokens / d, bench_tokens=n, bench_lookup_tok_s=n / t["lookup"].best,
        bench_forward_tok_s=n / t["forward"].best, bench_ratio=t["forward"].best / t["lookup"].best,
    )


@claims.rule(
    "C46",
    quantity="leave-one-out nearest-centroid accuracy of telling fruit 'apple' from company 'apple' (8 + 8 "
    "sentences) on the looked-up rows and on the last layer; and the forward pass's floating-point operations per "
    "token (torch's flop counter) per number the lookup copies",
    inputs={"acc_lookup": "accuracy on the looked-up rows", "acc_top": "accuracy on the last layer",
            "cost_ratio": "forward FLOPs per token / d (numbers the lookup copies per token)"},
    thresholds={"chance": 0.5, "separates": 0.9, "fails": 0.75, "cost_min": 1000.0},
    outcomes={
        CONFIRMED: "the looked-up rows do no better than chance, the last layer reaches the 'separates' accuracy, "
        "and the network does at least cost_min operations per number the lookup copies (more than any current "
        "chip's ratio of arithmetic to memory bandwidth, so the network costs more time than the lookup "
        "wherever it runs)",
        REFUTED: "the looked-up rows already beat chance (the static table resolves the senses), or the last layer "
        "stays below the 'fails' accuracy, or the network costs fewer than cost_min operations per copied number",
        INCONCLUSIVE: "the last layer's accuracy falls between 'fails' and 'separates'",
    },
    examples={
        CONFIRMED: {"acc_lookup": 0.5, "acc_top": 1.0, "cost_ratio": 55000.0},
        REFUTED: {"acc_lookup": 0.5, "acc_top": 1.0, "cost_ratio": 560.0},
        INCONCLUSIVE: {"acc_lookup": 0.5, "acc_top": 0.8125, "cost_ratio": 55000.0},
    },
)
def _c46(f, t):
    if f["acc_lookup"] > t["chance"] or f["acc_top"] < t["fails"] or f["cost_ratio"] < t["cost_min"]:
        return REFUTED
    return CONFIRMED if f["acc_top"] >= t["separates"] else INCONCLUSIVE


def _count(x: float) -> str:
    return f"{x / 1e6:,.1f} million" if x >= 1e6 else f"{x:,.0f}"


@claims.check("C46")
def check_c46(c: Cost) -> claims.Verdict:
    """Settle C46 from :func:`run_cost`."""
    t = claims.rule_of("C46").thresholds

    def evidence(v: str) -> str:
        head = (
            f"Telling fruit from company '{c.word}' by the nearest centroid (leave one out): {c.acc_lookup:.0%} on the "
            f"rows the table hands out, {c.acc_l0:.0%} on the layer-0 output (where only the position differs), "
            f"{c.acc_top:.0%} at layer {c.top_layer}. Torch's flop counter puts the forward pass at "
            f"{_count(c.flops_per_token)} operations per token, {c.cost_ratio:,.0f} for each of the {c.dim} "
            f"numbers the lookup copies (it does no arithmetic at all). "
        )
        return head + {
            CONFIRMED: (
                "Only the network's output tells the senses apart, and it costs orders of magnitude more work per "
                f"token than the lookup: in this run the forward pass took {c.bench_ratio:,.0f} times the lookup's "
                "time on the same batch (a timing, shown as an illustration only)."
            ),
            REFUTED: "Here " + "; ".join(reason for reason, failed in [
                ("the table's rows already tell the senses apart", c.acc_lookup > t["chance"]),
                (f"the last layer does not reach {t['fails']:.0%}", c.acc_top < t["fails"]),
                (f"the network costs fewer than {t['cost_min']:,.0f} operations per copied number",
                 c.cost_ratio < t["cost_min"]),
            ] if failed) + ".",
            INCONCLUSIVE: "The last layer separates the senses only partly; sixteen sentences cannot decide it.",
        }[v]

    figures = {"acc_lookup": c.acc_lookup, "acc_top": c.acc_top, "cost_ratio": c.cost_ratio,
               "acc_l0": c.acc_l0, "mflops_per_token": c.flops_per_token / 1e6}
    strength = (f"{c.n_sentences} hand-written sentences, leave-one-out (one misclassified sentence moves the "
                f"accuracy by {1 / c.n_sentences:.1%}); the cost is an exact count, not a timing")
    return claims.judge("C46", figures, evidence, strength)


# --- C11: how contextual (Ethayarajh 2019) ------------------------------------------------------------


def corpus_windows(n_lee: int, n_wiki: int = 0, window: int = 24) -> list[list[str]]:
    """``n_lee`` + ``n_wiki`` windows of ``window`` words, evenly spaced over the Lee and Wikipedia corpora
    (evenly spaced rather than the first ones, to spread the contexts over many documents)."""
    if n_lee < 0 or n_wiki < 0 or n_lee + n_wiki == 0:
        raise ValueError(f"ask for a positive number of windows, got n_lee={n_lee}, n_wiki={n_wiki}")
    out = []
    for n, docs in ((n_lee, data.lee_corpus), (n_wiki, data.wiki_corpus)):
        if n:
            all_w = contextual.windows(docs(), window)
            if n > len(all_w):
                raise ValueError(f"asked for {n} windows but the corpus has only {len(all_w)}")
            out += [all_w[i] for i in np.linspace(0, len(all_w) - 1, n).round().astype(int)]
    return out


@dataclass
class Contextuality(Result):
    """Ethayarajh's measures per layer on corpus windows, the authors' way and our variants, with a bootstrap
    over words of the decisive figure."""

    measures: contextual.LayerMeasures = field(repr=False)
    n_sentences: int
    n_words: int
    n_contexts: int
    n_random: int
    window: int
    min_contexts: int
    max_contexts: int
    n_layers: int  # contextual layers (1..n_layers)
    dim: int
    mev_floor: float
    released_adj: list[float]  # per layer 0..L: the paper's statistic as its code computes it, minus its baseline
    paper_adj: list[float]  # the paper's formula (uncentred), minus its baseline
    centred_adj: list[float]  # centred PCA, minus the rank-matched baseline
    released_adj_mean: float  # mean over layers 1..L
    released_adj_max: float
    released_adj_max_layer: int
    layers_over: int  # layers 1..L at or above 5%
    ci_low: float  # bootstrap 95% interval of released_adj_mean, resampling words
    ci_high: float
    paper_adj_mean: float
    paper_adj_min: float
    centred_adj_mean: float
    centred_adj_min: float
    centred_adj_max: float

    def extra_glue(self) -> dict:
        m, adj = self.measures, self.measures.adjusted()
        top = self.n_layers
        out = {"floor_n5": contextual.mev_floor(5, self.dim), "released_adj_top": self.released_adj[top],
               "released_adj_l1": self.released_adj[1], "paper_adj_top": self.paper_adj[top],
               "paper_adj_l1": self.paper_adj[1], "base_cos_max_layer": int(np.argmax(m.base_cos[1:]) + 1),
               "base_cos_max": float(m.base_cos[1:].max())}
        for name, arr in [("selfsim", m.self_sim), ("intra", m.intra_sim), ("randcos", m.base_cos),
                          ("selfsim_adj", adj["self_sim"]), ("intra_adj", adj["intra_sim"]),
                          ("released_mev", m.mev["released"]), ("released_base", m.base_mev["released"]),
                          ("paper_mev", m.mev["paper"]), ("paper_base", m.base_mev["paper"])]:
            out[f"{name}_l1"], out[f"{name}_top"] = float(arr[1]), float(arr[top])
        return out


def run_contextuality(
    tokenizer, model, n_lee: int = 200, n_wiki: int = 100, window: int = 24, min_contexts: int = 5,
    max_contexts: int = 30, n_random: int = 1000, boot: int = 2000, seed: int = 0, progress: bool = False,
) -> Contextuality:
    """Encode corpus windows, measure every layer (:func:`embedbook.contextual.measure_layers`) and bootstrap
    the layer-average of the released-code MEV (adjusted) over words."""
    sents = corpus_windows(n_lee, n_wiki, window)
    occ = contextual.occurrences(sents, min_contexts=min_contexts, max_contexts=max_contexts, seed=seed)
    states = contextual.word_states(sents, tokenizer, model, progress=progress)
    m = contextual.measure_layers(states, occ, n_random=n_random, seed=seed)
    adj = m.adjusted()
    L = m.n_layers - 1
    per_word = m.adjusted_per_word("released")[:, 1:].mean(1)  # each word's mean over layers 1..L
    rng = np.random.default_rng(seed)
    means = per_word[rng.integers(0, len(per_word), (boot, len(per_word)))].mean(1)
    rel = adj["mev_released"]
    return Contextuality(
        measures=m, n_sentences=m.n_sentences, n_words=m.n_words, n_contexts=m.n_contexts, n_random=m.n_random,
        window=window, min_contexts=min_contexts, max_contexts=max_contexts, n_layers=L, dim=m.dim,
        mev_floor=m.mev_floor, released_adj=rel.tolist(), paper_adj=adj["mev_paper"].tolist(),
        centred_adj=adj["mev_centred"].tolist(), released_adj_mean=float(rel[1:].mean()),
        released_adj_max=float(rel[1:].max()), released_adj_max_layer=int(np.argmax(rel[1:]) + 1),
        layers_over=int((rel[1:] >= 0.05).sum()), ci_low=float(np.quantile(means, 0.025)),
        ci_high=float(np.quantile(means, 0.975)), paper_adj_mean=float(adj["mev_paper"][1:].mean()),
        paper_adj_min=float(adj["mev_paper"][1:].min()), centred_adj_mean=float(adj["mev_centred"][1:].mean()),
        centred_adj_min=float(adj["mev_centred"][1:].min()), centred_adj_max=float(adj["mev_centred"][1:].max()),
    )


@claims.rule(
    "C11",
    quantity="Ethayarajh's (2019) maximum explainable variance computed as the paper's released code computes it "
    "(the share scikit-learn's TruncatedSVD reports for the first component), averaged over words seen in at least "
    "5 contexts, minus the same statistic on random words from different sentences (the paper's anisotropy "
    "baseline), then averaged over the model's contextual layers (1–6 in MiniLM)",
    inputs={"mev_adj": "the adjusted MEV, mean over layers 1..L (share of variance)",
            "ci_low": "lower end of its bootstrap 95% interval (words resampled)",
            "n_words": "words averaged over"},
    thresholds={"share": 0.05, "min_words": 1000},
    outcomes={
        CORRECTED: "the adjusted MEV is below the paper's 5% (the finding holds here; the correction is the "
        "attribution: Ethayarajh 2019, not the BERT paper, and a word's own first principal component, not Word2Vec)",
        REFUTED: "its whole bootstrap interval lies at or above 5% and it averages over at least min_words words "
        "(evidence on the scale of the paper's)",
        INCONCLUSIVE: "it is at or above 5% but on fewer words, or its interval reaches below 5%",
    },
    examples={
        CORRECTED: {"mev_adj": 0.033, "ci_low": 0.025, "n_words": 177},
        REFUTED: {"mev_adj": 0.12, "ci_low": 0.1, "n_words": 2500},
        INCONCLUSIVE: {"mev_adj": 0.09, "ci_low": 0.07, "n_words": 177},
    },
)
def _c11(f, t):
    if f["mev_adj"] < t["share"]:
        return CORRECTED
    if f["ci_low"] >= t["share"] and f["n_words"] >= t["min_words"]:
        return REFUTED
    return INCONCLUSIVE


@claims.check("C11")
def check_c11(r: Contextuality) -> claims.Verdict:
    """Settle C11 from :func:`run_contextuality`."""

    def evidence(v: str) -> str:
        head = (
            "The experiment is not in the BERT paper (Devlin et al. 2019); it is Ethayarajh's (2019), and it asks how "
            "much of a word's contextual vectors their own first principal component explains, not Word2Vec. "
            f"On {r.n_words} words in {r.n_contexts:,} contexts ({r.n_sentences} windows of {r.window} words), the "
            f"paper's statistic, computed as its released code does and adjusted by its random-word baseline, averages "
            f"{r.released_adj_mean:.1%} over layers 1–{r.n_layers} (bootstrap 95% interval {r.ci_low:.1%} to "
            f"{r.ci_high:.1%}). "
        )
        over = [layer for layer in range(1, r.n_layers + 1) if r.released_adj[layer] >= 0.05]
        if over:
            intra = r.measures.adjusted()["intra_sim"][1:]
            reached = ", ".join(f"layer {layer}: {r.released_adj[layer]:.1%}" for layer in over)
            per_layer = (f"The paper states it for every layer; here {r.n_layers - len(over)} of {r.n_layers} layers stay "
                         f"under 5% and {len(over)} {'does' if len(over) == 1 else 'do'} not ({reached}). ")
            if r.n_layers in over and int(np.argmax(intra)) + 1 == r.n_layers:
                per_layer += (
                    f"In the last layer the words of a window are also closest to their window's mean (adjusted "
                    f"intra-sentence similarity {intra[-1]:.2f}, the highest of any layer): MiniLM was fine-tuned to "
                    "make that mean a sentence embedding, which BERT-base was not. "
                )
        else:
            per_layer = f"The paper states it for every layer; here all {r.n_layers} layers stay under 5%. "
        variants = (
            f"Two other readings give other numbers: the paper's written formula (σ₁²/Σσᵢ² of the uncentred "
            f"matrix) gives {r.paper_adj_min:.0%} or more in every layer, because it mostly measures the direction "
            f"all of a word's vectors share; centred PCA with a rank-matched baseline gives {r.centred_adj_min:.1%} "
            f"to {r.centred_adj_max:.1%}. The 5% belongs to the first statistic only."
        )
        return head + {
            CORRECTED: "That is under the paper's 5%. " + per_layer + variants,
            REFUTED: "That is above 5% on as many words as the paper's evidence. " + per_layer + variants,
            INCONCLUSIVE: "That is at or above 5%, but on too few words (or too wide an interval) to overturn a "
            "published result. " + per_layer + variants,
        }[v]

    figures = {"mev_adj": r.released_adj_mean, "ci_low": r.ci_low, "n_words": r.n_words,
               "mev_adj_max": r.released_adj_max, "paper_formula_adj_mean": r.paper_adj_mean,
               "centred_adj_mean": r.centred_adj_mean}
    strength = (
        f"{r.n_words} words (the paper: every word seen in 5 or more of the SemEval STS 2012–2016 sentences), one "
        f"6-layer model fine-tuned for sentence embeddings against the paper's BERT-base, ELMo and GPT-2; the baseline "
        f"averages 5 draws of {r.n_random} random words; the interval resamples words"
    )
    return claims.judge("C11", figures, evidence, strength)
