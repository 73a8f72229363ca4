"""Chapter 11, "Static vs contextual": the measurements behind C10, C11 and C46 (their rules and checks: claims.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from embedbook import contextual, data, stats, timing
from embedbook.book import Result
from embedbook.book.i18n import _

# Hand-written contexts for the two senses of "apple" (the articles' 苹果 example), 40 of each: the first 8 of
# each were written for the first build, the other 32 after an audit asked for more (one sentence was 6% of 16).
FRUIT = [
    "i ate a fresh apple for lunch",
    "she peeled the apple and cut it into slices",
    "he baked an apple pie with cinnamon",
    "the apple was sweet and juicy",
    "we picked a ripe apple from the tree in the orchard",
    "a green apple and a banana were in the fruit bowl",
    "my grandmother makes apple juice every autumn",
    "the horse happily ate the apple from her hand",
    "she sliced an apple into the salad",
    "an apple a day keeps the doctor away",
    "he threw the apple core into the compost",
    "the apple tree in our garden blossomed in spring",
    "this apple is too sour to eat raw",
    "she dipped a slice of apple in honey",
    "the farmer sells apple cider at the market",
    "i packed an apple and a sandwich for the hike",
    "the worm crawled out of the apple",
    "we made apple sauce from the windfalls",
    "a baked apple with raisins is a cosy dessert",
    "the child bit into a crunchy red apple",
    "grate the apple and mix it with the oats",
    "the recipe calls for one large apple and two eggs",
    "she kept an apple in her bag for the afternoon",
    "the apple had a bruise on one side",
    "a deer came into the orchard to nibble a fallen apple",
    "caramel apple stalls were busy at the autumn fair",
    "he polished the apple on his sleeve before eating it",
    "the smell of apple crumble filled the kitchen",
    "a ripe apple will fall from the branch on its own",
    "the teacher found an apple on her desk",
    "cut the apple in half and remove the seeds",
    "my favourite snack is apple with peanut butter",
    "the apple blossom attracts bees in may",
    "she planted an apple seed in a small pot",
    "the apple turned brown after it was cut",
    "he juggled a lemon and an apple at the picnic",
    "the pie filling needs apple and a pinch of nutmeg",
    "a wild apple is small and very tart",
    "we bobbed for an apple at the halloween party",
    "the cider is pressed from one apple variety grown nearby",
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
    "apple said on tuesday that sales had slowed in china",
    "the lawsuit accused apple of limiting competition in its app store",
    "investors wait for apple to report results next week",
    "apple hired thousands of engineers to design its own chips",
    "the regulator fined apple over its treatment of developers",
    "he has worked at apple for ten years as a designer",
    "apple opened a new office in london last year",
    "analysts expect apple to unveil a headset at the conference",
    "the union represents workers at an apple retail shop",
    "apple pays a dividend to its shareholders every quarter",
    "my old apple computer still boots after twenty years",
    "apple was founded in a garage in california",
    "the court ruled that apple must change its payment rules",
    "apple sells more watches than any other company",
    "a former apple executive now runs a startup",
    "the music service from apple has millions of subscribers",
    "apple moved some production from china to india",
    "the chief of apple met the president at the white house",
    "apple has a huge campus in cupertino",
    "the contract with apple made the supplier rich",
    "apple cut the price of its cheapest tablet",
    "she sold her apple stock before the market crashed",
    "apple released a software update to fix the bug",
    "critics say apple charges too much for repairs",
    "the new operating system from apple arrives in the autumn",
    "apple bought a small company that makes maps",
    "engineers at apple built a new camera sensor",
    "apple warned that supply problems would hurt revenue",
    "the tax ruling required apple to pay billions to ireland",
    "apple and samsung fought over patents for years",
    "apple announced that it will stop selling the old model",
    "the advert for apple won an award at cannes",
]

# --- C10, C46: one word, two senses -------------------------------------------------------------------


@dataclass
class Senses(Result):
    """"apple" in fruit and company sentences: per-layer cosines and separability, and what the lookup
    and the embedding output hand out for repeated tokens in one batched forward pass."""

    verbatim = ("word",)  # data: the word studied, the same in both editions
    word: str
    n_fruit: int
    n_company: int
    within_fruit: list[float]
    within_company: list[float]
    across: list[float]
    accuracy: list[float]  # leave-one-out nearest-centroid accuracy per layer (0 = embedding output)
    acc_lookup: float  # the same on the rows the token table handed out
    acc_context_bag: float  # the same on a static bag of context: the mean table row of the sentence's other tokens
    lookup_across: float  # mean cosine between the looked-up rows of the two senses
    acc_l0: float
    acc_top: float
    top_layer: int
    across_l0: float
    across_top: float
    max_row_diff: float  # largest difference between looked-up rows of the same token id, any two occurrences
    word_row_diff: float  # the same for the word's own rows only (its 80 occurrences)
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
    # a static bag of context: the mean of the table rows of the sentence's other tokens (no [CLS]/[SEP], not the word)
    skip = set(tokenizer.all_special_ids) | set(tokenizer(word, add_special_tokens=False)["input_ids"])
    keep = mask & ~torch.isin(ids, torch.tensor(sorted(skip), device=ids.device))
    bag = ((rows * keep.unsqueeze(-1)).sum(1) / keep.sum(1, keepdim=True)).float().cpu().numpy()
    labels = np.array([0] * len(fruit) + [1] * len(company))
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
        acc_lookup=study.lookup_accuracy, acc_context_bag=contextual.nearest_centroid_accuracy(bag, labels),
        lookup_across=study.lookup_across, acc_l0=study.accuracy[0],
        acc_top=study.accuracy[top], top_layer=top,
        across_l0=study.across[0], across_top=study.across[top], max_row_diff=max(max_row, study.lookup_max_diff),
        word_row_diff=study.lookup_max_diff,
        repeated_tokens=repeated, token_occurrences=occurrences, max_layer0_diff=max_l0, same_position_pairs=groups,
    )


# --- C46: the price of context -----------------------------------------------------------------------


@dataclass
class Cost(Result):
    """Work per token: the lookup (copies d numbers, no arithmetic) against the forward pass (counted FLOPs),
    a same-run timing of both on one padded batch (an illustration), and what each tells of the senses
    (from :func:`run_senses`)."""

    verbatim = ("word",)  # data: the word studied, the same in both editions
    word: str
    n_sentences: int
    top_layer: int
    acc_lookup: float
    acc_context_bag: float
    acc_l0: float
    acc_top: float
    word_row_diff: float  # largest difference between the rows the table handed out for the word, any two sentences
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
    tokenizer, model, senses: Senses, sentences: list[str] = FRUIT[:8] + COMPANY[:8], *, copies: int, reps: int
) -> Cost:
    """Count the forward pass's FLOPs per token over ``sentences`` (each on its own, no padding), and time
    the lookup and the forward pass on one padded batch of ``copies`` copies of them, in turn (the cost per
    token hardly depends on which sentences: the first 8 of each sense keep it quick); ``senses``
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
        acc_lookup=senses.acc_lookup, acc_context_bag=senses.acc_context_bag, acc_l0=senses.acc_l0, acc_top=senses.acc_top,
        word_row_diff=senses.word_row_diff, dim=d, tokens=tokens, flops_per_token=flops / tokens,
        flops_per_token_formula=contextual.forward_flops_per_token(model, mean_len),
        lookup_flops_per_token=0, lookup_bytes_per_token=d * table.weight.element_size(),
        cost_ratio=flops / tokens / d, bench_tokens=n, bench_lookup_tok_s=n / t["lookup"].best,
        bench_forward_tok_s=n / t["forward"].best, bench_ratio=t["forward"].best / t["lookup"].best,
    )


# --- C11: how contextual (Ethayarajh 2019) ------------------------------------------------------------

# What the authors' released files (kawine/contextual, initial commit 84d2f97: bert/self_similarity.csv,
# bert/variance_explained.csv, bert/embedding_space_stats.json) hold for BERT-base, averaged over their
# 8,159 words: literature figures, quoted, not measured here.
BERT_RELEASED = {
    "words": 8159,
    "selfsim_l1": 0.921,  # mean self-similarity at layer 1
    "randcos_l1": 0.168,  # mean cosine of random words at layer 1 (their anisotropy baseline)
    "selfsim_min": 0.731,  # lowest layer mean of self-similarity over layers 1-12 (layer 8)
    "mev_l1": 0.010,  # mean TruncatedSVD explained_variance_ratio_[0] at layer 1
    "mev_max": 0.040,  # highest layer mean of that statistic over layers 1-12 (layer 12)
}

CALIBRATION_NOISE = (0.01, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)


def static_share(x) -> float:
    """The share of a word's occurrence vectors' energy that its single best static vector explains:
    ``n·|x̄|² / Σ|xᵢ|²`` for an ``(n, d)`` matrix ``x``.

    The best single vector c minimises ``Σ|xᵢ − c|²`` at c = x̄, leaving ``Σ|xᵢ|² − n|x̄|²``, so this is the
    variance one static vector explains, with no upper-bound problem: Ethayarajh's σ₁²/Σσᵢ² lets each
    occurrence take its own multiple of one direction and is never smaller. Raises ``ValueError`` for fewer
    than 2 rows, a non-finite value or an all-zero matrix.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"need an (n, d) matrix with n >= 2 occurrences, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("the occurrence matrix holds NaN or inf")
    energy = float((x * x).sum())
    if energy == 0:
        raise ValueError("every occurrence vector is zero: no share to explain")
    total = x.sum(axis=0)
    return float(total @ total) / (len(x) * energy)


def corpus_windows(n_lee: int, n_wiki: int, window: int) -> list[list[str]]:
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
class Calibration(Result):
    """Synthetic words with a known answer, scored by each MEV reading (:func:`embedbook.contextual.mev`).

    A *static* word's occurrences are one fixed vector c ~ N(0, I_d) plus noise σ·N(0, I_d): at σ = 0.01
    one static vector explains them all but for 0.01% of their energy. A *random* word's occurrences are
    unrelated vectors: nothing static to explain beyond what any set of random words shares. The words
    have the context counts of the chapter's real words.
    """

    dim: int
    n_words: int  # synthetic words per noise level
    noise: list[float]
    self_sim: list[float]  # mean self-similarity of the static words at each noise level
    scores: dict[str, list[float]]  # method -> mean score of the static words at each noise level
    static: dict[str, float]  # method -> mean score at the smallest noise (a static word)
    random_matched: dict[str, float]  # method -> random word minus a baseline of as many random vectors
    random_paper: dict[str, float]  # method -> random word minus a baseline of n_random random vectors
    n_random: int
    mean_static: float = float("nan")  # static_share of the static words at the smallest noise
    mean_random: float = float("nan")  # static_share of random words minus a baseline of as many random vectors

    def extra_glue(self) -> dict:
        out = {"noise_min": self.noise[0], "selfsim_static": self.self_sim[0], "mean_static": self.mean_static,
               "mean_random": self.mean_random}
        for m in contextual.MEV_METHODS:
            out[f"static_{m}"] = self.static[m]
            out[f"random_matched_{m}"] = self.random_matched[m]
            out[f"random_paper_{m}"] = self.random_paper[m]
        return out


def run_calibration(contexts, dim: int, n_random: int, noise=CALIBRATION_NOISE, words: int = 40,
                    seed: int = 0) -> Calibration:
    """Score synthetic static and random words (see :class:`Calibration`) by the three MEV readings.

    Args:
        contexts: context counts to give the synthetic words (the real words'; ``words`` of them, evenly
            spaced, are used).
        dim: vector dimension.
        n_random: size of the paper-style random-word baseline.
        noise: noise levels σ of the static words (the first is the 'static' one).
        words: synthetic words per noise level.
        seed: seed of the draws.
    """
    contexts = np.asarray(contexts)
    if contexts.ndim != 1 or len(contexts) == 0 or contexts.min() < 2:
        raise ValueError("contexts must be a non-empty list of context counts, each >= 2")
    rng = np.random.default_rng(seed)
    ns = contexts[np.linspace(0, len(contexts) - 1, min(words, len(contexts))).round().astype(int)]
    scores = {m: [] for m in contextual.MEV_METHODS}
    self_sim, mean_static = [], []
    for sigma in noise:
        acc = {m: [] for m in contextual.MEV_METHODS}
        sims = []
        for n in ns:
            x = rng.normal(size=dim) + sigma * rng.normal(size=(int(n), dim))
            sims.append(contextual.self_similarity(x))
            if sigma == noise[0]:
                mean_static.append(static_share(x))
            for m in contextual.MEV_METHODS:
                acc[m].append(contextual.mev(x, m))
        self_sim.append(float(np.mean(sims)))
        for m in contextual.MEV_METHODS:
            scores[m].append(float(np.mean(acc[m])))
    randoms = [rng.normal(size=(int(n), dim)) for n in ns]
    matched = [rng.normal(size=(int(n), dim)) for n in ns]
    paper_base = [rng.normal(size=(n_random, dim)) for _ in range(3)]
    random_matched, random_paper = {}, {}
    for m in contextual.MEV_METHODS:
        word = np.mean([contextual.mev(x, m) for x in randoms])
        random_matched[m] = float(word - np.mean([contextual.mev(x, m) for x in matched]))
        random_paper[m] = float(word - np.mean([contextual.mev(x, m) for x in paper_base]))
    mean_random = float(np.mean([static_share(x) for x in randoms]) - np.mean([static_share(x) for x in matched]))
    return Calibration(dim=dim, n_words=len(ns), noise=list(noise), self_sim=self_sim, scores=scores,
                       static={m: scores[m][0] for m in scores}, random_matched=random_matched,
                       random_paper=random_paper, n_random=n_random, mean_static=float(np.mean(mean_static)),
                       mean_random=mean_random)


def _random_occurrences(states, k: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``k`` word occurrences from ``k`` different random windows, one uniform word from each."""
    sents = rng.choice(len(states), k, replace=False)
    return [(int(s), int(rng.integers(states[s].shape[1]))) for s in sents]


@dataclass
class Contextuality(Result):
    """Ethayarajh's measures per layer on corpus windows: the published statistic the authors' way, the
    calibration of the three MEV readings, and the paper's written formula with a rank-matched baseline
    and a bootstrap interval per layer (words resampled)."""

    measures: contextual.LayerMeasures = field(repr=False)
    calibration: Calibration = field(repr=False)
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
    # the published statistic, the authors' way: TruncatedSVD (initial commit), minus n_random random words
    released_adj: list[float]  # per layer 0..L
    released_adj_mean: float  # mean over layers 1..L
    released_ci_low: float  # bootstrap 95% interval of that mean, resampling words
    released_ci_high: float
    released_layers_under: int  # layers 1..L under 5%
    # the deciding statistic: the paper's formula, each word minus as many random words as it has contexts
    matched_adj: list[float]  # per layer 0..L
    matched_ci_low: list[float]
    matched_ci_high: list[float]
    matched_adj_min: float  # over layers 1..L
    matched_adj_max: float
    layers_below: int  # layers 1..L whose whole interval lies below 5%
    layers_above: int  # ... above 5%
    # the other readings, for the comparison
    paper_adj: list[float]  # the paper's formula minus n_random random words
    centred_adj: list[float]  # centred PCA minus the rank-matched baseline
    centred_adj_min: float
    centred_adj_max: float
    # the deciding statistic (third round): the share one static vector, the word's mean, explains
    # (static_share), each word minus as many random words as it has contexts; interval by stats.bootstrap_mean_ci
    mean_adj: list[float] = field(default_factory=list)  # per layer 0..L
    mean_ci_low: list[float] = field(default_factory=list)
    mean_ci_high: list[float] = field(default_factory=list)
    mean_raw: list[float] = field(default_factory=list)  # per layer, the words' own share before the baseline
    mean_base: list[float] = field(default_factory=list)  # per layer, the random words' share

    @property
    def mean_layers_below(self) -> int:
        """Contextual layers whose whole interval of the mean-vector share lies below 5%."""
        return sum(h < 0.05 for h in self.mean_ci_high[1:])

    @property
    def mean_layers_above(self) -> int:
        """... whose whole interval lies above 5%."""
        return sum(lo > 0.05 for lo in self.mean_ci_low[1:])

    def extra_glue(self) -> dict:
        m, adj = self.measures, self.measures.adjusted()
        top = self.n_layers
        out = {"floor_n5": contextual.mev_floor(5, self.dim), "released_adj_top": self.released_adj[top],
               "released_adj_l1": self.released_adj[1], "paper_adj_top": self.paper_adj[top],
               "paper_adj_l1": self.paper_adj[1], "matched_adj_l1": self.matched_adj[1],
               "matched_adj_top": self.matched_adj[top], "base_cos_max_layer": int(np.argmax(m.base_cos[1:]) + 1),
               "base_cos_max": float(m.base_cos[1:].max())}
        if self.mean_adj:
            out.update({"mean_adj_l1": self.mean_adj[1], "mean_adj_top": self.mean_adj[top],
                        "mean_adj_min": min(self.mean_adj[1:]), "mean_adj_max": max(self.mean_adj[1:])})
        for name, arr in [("selfsim", m.self_sim), ("intra", m.intra_sim), ("randcos", m.base_cos),
                          ("selfsim_adj", adj["self_sim"]), ("intra_adj", adj["intra_sim"]),
                          ("released_mev", m.mev["released"]), ("released_base", m.base_mev["released"]),
                          ("paper_mev", m.mev["paper"]), ("paper_base", m.base_mev["paper"])]:
            out[f"{name}_l1"], out[f"{name}_top"] = float(arr[1]), float(arr[top])
        return out


def run_contextuality(
    tokenizer, model, n_lee: int, n_wiki: int, window: int, min_contexts: int,
    max_contexts: int, n_random: int, boot: int, seed: int = 0, progress: bool = False,
) -> Contextuality:
    """Encode corpus windows, measure every layer (:func:`embedbook.contextual.measure_layers`), calibrate
    the MEV readings on synthetic words with the real words' context counts, and bootstrap over words."""
    sents = corpus_windows(n_lee, n_wiki, window)
    occ = contextual.occurrences(sents, min_contexts=min_contexts, max_contexts=max_contexts, seed=seed)
    states = contextual.word_states(sents, tokenizer, model, progress=progress)
    m = contextual.measure_layers(states, occ, n_random=n_random, seed=seed)
    adj = m.adjusted()
    L = m.n_layers - 1
    # the paper's formula, each word against as many random words (from different windows) as it has contexts
    rng = np.random.default_rng(seed + 1)
    matched = np.zeros((m.n_words, m.n_layers))
    share_word, share_rand = np.zeros((m.n_words, m.n_layers)), np.zeros((m.n_words, m.n_layers))
    for i, w in enumerate(m.words):
        rand = _random_occurrences(states, len(occ[w]), rng)
        for layer in range(m.n_layers):
            rand_x = contextual.word_matrix(states, rand, layer)
            matched[i, layer] = contextual.mev(rand_x, "paper")
            share_word[i, layer] = static_share(contextual.word_matrix(states, occ[w], layer))
            share_rand[i, layer] = static_share(rand_x)
    share_diff = share_word - share_rand  # (words, layers)
    share_ci = [stats.bootstrap_mean_ci(share_diff[:, layer], reps=boot, seed=seed) for layer in range(m.n_layers)]
    per_word = m.per_word_mev["paper"] - matched  # (words, layers)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, m.n_words, (boot, m.n_words))
    boot_matched = per_word[idx].mean(1)  # (boot, layers)
    lo, hi = np.quantile(boot_matched, 0.025, axis=0), np.quantile(boot_matched, 0.975, axis=0)
    released_word = m.adjusted_per_word("released")[:, 1:].mean(1)  # each word's mean over layers 1..L
    released_boot = released_word[idx].mean(1)
    rel, mat = adj["mev_released"], per_word.mean(0)
    cal = run_calibration(m.contexts, m.dim, m.n_random, seed=seed)
    return Contextuality(
        measures=m, calibration=cal, n_sentences=m.n_sentences, n_words=m.n_words, n_contexts=m.n_contexts,
        n_random=m.n_random, window=window, min_contexts=min_contexts, max_contexts=max_contexts, n_layers=L,
        dim=m.dim, mev_floor=m.mev_floor, released_adj=rel.tolist(), released_adj_mean=float(rel[1:].mean()),
        released_ci_low=float(np.quantile(released_boot, 0.025)),
        released_ci_high=float(np.quantile(released_boot, 0.975)),
        released_layers_under=int((rel[1:] < 0.05).sum()), matched_adj=mat.tolist(), matched_ci_low=lo.tolist(),
        matched_ci_high=hi.tolist(), matched_adj_min=float(mat[1:].min()), matched_adj_max=float(mat[1:].max()),
        layers_below=int((hi[1:] < 0.05).sum()), layers_above=int((lo[1:] > 0.05).sum()),
        paper_adj=adj["mev_paper"].tolist(), centred_adj=adj["mev_centred"].tolist(),
        centred_adj_min=float(adj["mev_centred"][1:].min()), centred_adj_max=float(adj["mev_centred"][1:].max()),
        mean_adj=share_diff.mean(0).tolist(), mean_ci_low=[lo for lo, _ in share_ci],
        mean_ci_high=[hi for _, hi in share_ci], mean_raw=share_word.mean(0).tolist(),
        mean_base=share_rand.mean(0).tolist(),
    )


def _layers(r: Contextuality, which: list[int]) -> str:
    return _(", ").join(_("layer {k}: {mean:.1%} ({low:.1%} to {high:.1%})").format(
        k=k, mean=r.matched_adj[k], low=r.matched_ci_low[k], high=r.matched_ci_high[k]) for k in which)
