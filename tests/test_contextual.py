"""Tests for embedbook.contextual: Ethayarajh's measures on synthetic data with known answers, the three
MEV readings against reference implementations, the real MiniLM's word alignment, pooling, FLOP counts and
layer-0 attention, and bad input; plus the chapter experiments' checks on the real model."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from embedbook import contextual as cx, data
from embedbook.book import claims


# --- measures on synthetic data ---------------------------------------------------------------------


def test_identical_vectors():
    x = np.tile(np.arange(1.0, 6.0), (4, 1))
    assert cx.self_similarity(x) == pytest.approx(1.0)
    assert cx.intra_similarity(x) == pytest.approx(1.0)
    for method in cx.MEV_METHODS:  # a static vector: one direction explains everything
        assert cx.mev(x, method) == pytest.approx(1.0)


def test_orthogonal_vectors():
    x = np.eye(5) * 3.0
    assert cx.self_similarity(x) == pytest.approx(0.0)
    assert cx.mev(x) == pytest.approx(1 / 5)  # the paper's formula: 5 equal singular values
    # centred: rank 4 with equal eigenvalues -> exactly the floor 1/(n-1)
    assert cx.mev(x, "centred") == pytest.approx(cx.mev_floor(5, 5)) == pytest.approx(1 / 4)


def test_self_similarity_matches_pairwise_loop():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 10))
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    pairs = [u[i] @ u[j] for i in range(7) for j in range(7) if i != j]
    assert cx.self_similarity(x) == pytest.approx(np.mean(pairs), abs=1e-6)


@pytest.mark.parametrize("shape", [(2, 16), (5, 16), (30, 384), (400, 50)])
def test_three_mev_readings_match_reference_implementations(shape):
    rng = np.random.default_rng(1)
    x = rng.normal(size=shape) + 2.0  # a shared offset, as anisotropic vectors have
    s = np.linalg.svd(x, compute_uv=False) ** 2
    assert cx.mev(x, "paper") == pytest.approx(s[0] / s.sum())
    # scikit-learn's TruncatedSVD: var(X v1) / total variance about the mean
    vt = np.linalg.svd(x, full_matrices=False)[2]
    assert cx.mev(x, "released") == pytest.approx((x @ vt[0]).var() / x.var(0).sum())
    c = np.linalg.svd(x - x.mean(0), compute_uv=False) ** 2
    assert cx.mev(x, "centred") == pytest.approx(c[0] / c.sum())
    # PCA's first component maximises variance: the released reading can never exceed it
    assert cx.mev(x, "released") <= cx.mev(x, "centred") + 1e-12
    assert cx.mev(x, "centred") >= cx.mev_floor(shape[0], shape[1]) - 1e-12


def test_shared_offset_fools_only_the_uncentred_formula():
    x = np.random.default_rng(2).normal(size=(16, 384)) + 3.0
    assert cx.mev(x, "paper") > 0.85
    assert cx.mev(x, "released") < 0.05
    assert cx.mev(x, "centred") < 0.2


def test_mev_floor():
    assert cx.mev_floor(5, 384) == 0.25 and cx.mev_floor(5, 384, center=False) == 0.2
    assert cx.mev_floor(1000, 384) == 1 / 384


def _synthetic():
    # layer 0: every word has one fixed vector (static); layer 1: pure noise
    rng = np.random.default_rng(2)
    vocab = rng.normal(size=(6, 8)) + 1.0
    sents = [rng.integers(0, 6, size=5) for _ in range(40)]
    states = [np.stack([vocab[s], rng.normal(size=(5, 8))]).astype(np.float32) for s in sents]
    occ = cx.occurrences([[str(w) for w in s] for s in sents], min_contexts=5)
    return states, occ


def test_measure_layers_known_answers():
    states, occ = _synthetic()
    m = cx.measure_layers(states, occ, n_random=30)
    assert m.self_sim[0] == pytest.approx(1.0)
    assert m.mev["paper"][0] == pytest.approx(1.0) and m.mev["released"][0] == 1.0
    assert abs(m.self_sim[1]) < 0.2
    assert m.mev["centred"][1] >= m.mev_floor - 1e-12
    assert m.n_words == len(occ) and m.n_contexts == sum(len(v) for v in occ.values())
    assert m.n_random == 30 and m.n_sentences == 40 and m.dim == 8
    adj = m.adjusted()
    assert set(adj) == {"self_sim", "intra_sim", "mev_paper", "mev_released", "mev_centred"}
    np.testing.assert_allclose(m.adjusted_per_word("paper").mean(0), adj["mev_paper"])
    np.testing.assert_allclose(m.adjusted_per_word("centred").mean(0), adj["mev_centred"])
    assert m.table().shape == (2, 5 + 3 * 3)
    again = cx.measure_layers(states, occ, n_random=30)
    assert np.array_equal(again.base_cos, m.base_cos)  # seeded: deterministic
    with pytest.raises(ValueError, match="unknown MEV method"):
        m.adjusted_per_word("pca")


def test_measure_layers_caps_the_baseline_at_the_sentences():
    states, occ = _synthetic()
    assert cx.measure_layers(states, occ, n_random=1000).n_random == len(states)


def test_occurrences_and_windows():
    sents = [["a", "b", "a"], ["a", "c"], ["b", "a"]]
    occ = cx.occurrences(sents, min_contexts=3)
    assert occ == {"a": [(0, 0), (1, 0), (2, 1)]}  # one occurrence per sentence
    assert len(cx.occurrences(sents, min_contexts=2, max_contexts=2)["a"]) == 2
    assert cx.windows([list("abcdefg")], 3) == [list("abc"), list("def")]
    assert cx.windows([list("abcdefg")], 2, limit=1) == [list("ab")]


def test_nearest_centroid_accuracy():
    u = np.ones((6, 3))
    assert cx.nearest_centroid_accuracy(u, [0, 0, 0, 1, 1, 1]) == 0.5  # identical vectors: ties, chance
    sep = np.vstack([np.tile([1.0, 0.1], (3, 1)), np.tile([0.1, 1.0], (3, 1))])
    assert cx.nearest_centroid_accuracy(sep, [0, 0, 0, 1, 1, 1]) == 1.0
    with pytest.raises(ValueError, match="at least 2"):
        cx.nearest_centroid_accuracy(sep, [0, 1, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="one label per vector"):
        cx.nearest_centroid_accuracy(sep, [0, 1])


def test_attention_shift():
    p = torch.softmax(torch.randn(2, 3, 3), -1)
    assert cx.attention_shift(p, p) == 0.0
    one_hot = torch.eye(3).expand(2, 3, 3)
    assert cx.attention_shift(one_hot, one_hot.roll(1, -1)) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="shapes differ"):
        cx.attention_shift(p, p[:1])


# --- bad input ---------------------------------------------------------------------------------------


def test_bad_input_measures():
    with pytest.raises(ValueError, match="at least 2 contexts"):
        cx.self_similarity(np.ones((1, 3)))
    with pytest.raises(ValueError, match="at least 2 contexts"):
        cx.mev(np.ones((1, 3)))
    with pytest.raises(ValueError, match="unknown MEV method"):
        cx.mev(np.eye(3), "pca")
    with pytest.raises(ValueError, match="NaN"):
        cx.self_similarity(np.array([[1.0, np.nan], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="zero vector"):
        cx.self_similarity(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"\(n, d\)"):
        cx.mev(np.ones(3))
    with pytest.raises(ValueError, match="absent from every sentence"):
        cx.word_matrix([np.zeros((1, 2, 3))], [], 0)
    with pytest.raises(ValueError, match="layer must be"):
        cx.word_matrix([np.zeros((1, 2, 3))], [(0, 0)], 5)
    with pytest.raises(ValueError, match="outside the encoded sentences"):
        cx.word_matrix([np.zeros((1, 2, 3))], [(3, 0)], 0)
    with pytest.raises(ValueError, match="no word occurs"):
        cx.occurrences([["a"], ["b"]], min_contexts=2)
    with pytest.raises(ValueError, match="min_contexts"):
        cx.occurrences([["a"]], min_contexts=1)
    with pytest.raises(ValueError, match="max_contexts"):
        cx.occurrences([["a"], ["a"]], min_contexts=2, max_contexts=1)
    with pytest.raises(ValueError, match="n >= 2"):
        cx.mev_floor(1, 5)
    with pytest.raises(ValueError, match="window size"):
        cx.windows([["a", "b"]], 1)
    with pytest.raises(TypeError, match="list of word lists"):
        cx.word_states("a sentence", None, None)
    states, occ = _synthetic()
    with pytest.raises(ValueError, match="n_random"):
        cx.measure_layers(states, occ, n_random=1)
    with pytest.raises(ValueError, match="occ is empty"):
        cx.measure_layers(states, {})
    with pytest.raises(ValueError, match="kind"):
        cx.with_table(torch.nn.Linear(2, 2), "sorted")


def test_bad_input_model_side(enc):
    tok, model = enc
    with pytest.raises(TypeError, match="single string|list of strings"):
        cx.sentence_vectors(tok, model, "one sentence")
    with pytest.raises(ValueError, match="empty"):
        cx.sentence_vectors(tok, model, [])
    with pytest.raises(ValueError, match="empty sentence"):
        cx.sentence_vectors(tok, model, ["a cat", "  "])
    with pytest.raises(ValueError, match="batch_size"):
        cx.sentence_vectors(tok, model, ["a cat"], batch_size=0)
    with pytest.raises(ValueError, match="batch_size"):
        cx.word_states([["a"]], tok, model, batch_size=0)
    with pytest.raises(ValueError, match="non-empty string"):
        cx.layer0_qkv(tok, model, "")
    with pytest.raises(ValueError, match="non-empty string"):
        cx.model_attentions(tok, model, "   ")
    with pytest.raises(TypeError, match="non-empty list"):
        cx.count_forward_flops(tok, model, "a sentence")
    with pytest.raises(ValueError, match="seq_len"):
        cx.forward_flops_per_token(model, 0)
    with pytest.raises(TypeError, match="BERT-style"):
        cx.layer0_qkv(tok, torch.nn.Linear(2, 2), "a cat")
    with pytest.raises(ValueError, match="at least 2 paraphrase"):
        cx.paraphrase_accuracy(tok, model, [("a", "b")])
    with pytest.raises(ValueError, match="does not occur"):
        cx.sense_study(tok, model, ["a pear", "the pear"], ["an apple", "apple pie"], word="pear")
    with pytest.raises(ValueError, match="at least 2 sentences"):
        cx.sense_study(tok, model, "an apple", ["apple pie", "apple inc"])


def test_missing_model_folder():
    with pytest.raises(FileNotFoundError, match="does not exist"):
        data.load_encoder("./no/such/model")


# --- the real model ---------------------------------------------------------------------------------


def test_word_states_shapes_and_piece_mean(enc):
    tok, model = enc
    sents = [["the", "unaffordable", "apple"], ["apple"]]
    states = cx.word_states(sents, tok, model)
    assert states[0].shape == (7, 3, 384) and states[1].shape == (7, 1, 384)
    # 'unaffordable' splits into several pieces: its vector is their mean
    e = tok(sents[0], is_split_into_words=True, return_tensors="pt")
    with torch.inference_mode():
        h = model(**e, output_hidden_states=True).hidden_states
    idx = [t for t, w in enumerate(e.word_ids(0)) if w == 1]
    assert len(idx) > 1
    np.testing.assert_allclose(states[0][:, 1], torch.stack(h)[:, 0, idx].mean(1).numpy(), atol=1e-5)
    again = cx.word_states(sents, tok, model, batch_size=1)
    np.testing.assert_allclose(again[0], states[0], atol=1e-5)


def test_local_folder_goes_through_same_path():
    tok, model = data.load_encoder(str(data.minilm_path()), device="cpu")
    states = cx.word_states([["a", "cat"]], tok, model)
    assert states[0].shape == (model.config.num_hidden_layers + 1, 2, model.config.hidden_size)


def test_too_long_sentence_raises(enc):
    tok, model = enc
    with pytest.raises(ValueError, match="positions"):
        cx.word_states([["word"] * 600], tok, model)


def test_sentence_vectors_mean_pool_and_unit_length(enc):
    tok, model = enc
    sents = ["a cat sat on the mat", "dogs bark", "the stock market fell sharply today"]
    v = cx.sentence_vectors(tok, model, sents)
    assert v.shape == (3, 384) and v.device == next(model.parameters()).device
    assert torch.allclose(v.norm(dim=1), torch.ones(3), atol=1e-5)
    e = tok(sents[1], return_tensors="pt")  # one sentence, no padding: a plain mean over its tokens
    with torch.inference_mode():
        mean = model(**e).last_hidden_state[0].mean(0)
    assert torch.allclose(v[1], torch.nn.functional.normalize(mean, dim=0), atol=1e-5)
    assert torch.allclose(cx.sentence_vectors(tok, model, sents, batch_size=1), v, atol=1e-5)  # padding-free
    short = cx.sentence_vectors(tok, model, sents, max_length=4)
    assert not torch.allclose(short[2], v[2], atol=1e-3)


def test_layer0_attention_reproduced_exactly(enc):
    tok, model = enc
    sentence = "the bank raised its interest rate"
    tokens, att = cx.model_attentions(tok, model, sentence)
    mine = cx.layer0_qkv(tok, model, sentence)
    assert mine.Q.shape == (12, len(mine.tokens), 32) and mine.tokens == tokens
    assert torch.allclose(mine.probs, att[0], atol=1e-5)
    plain = cx.layer0_qkv(tok, model, sentence, article_form=True)
    assert not torch.allclose(plain.probs, att[0], atol=1e-3)
    assert model.config._attn_implementation == "sdpa"  # restored after the eager switch


def test_with_table_leaves_original(enc):
    tok, model = enc
    before = model.get_input_embeddings().weight.clone()
    shuffled = cx.with_table(model, "shuffled").get_input_embeddings().weight
    random = cx.with_table(model, "random").get_input_embeddings().weight
    assert not torch.equal(shuffled, before) and not torch.equal(random, before)
    assert torch.equal(model.get_input_embeddings().weight, before)
    norms = before.norm(dim=1)
    assert torch.equal(shuffled.norm(dim=1).sort().values, norms.sort().values)  # same rows, new places


def test_flop_count_matches_the_formula(enc):
    tok, model = enc
    sents = ["the apple was sweet and juicy", "a cat", "the new apple laptop has a faster chip"]
    flops, tokens = cx.count_forward_flops(tok, model, sents)
    one_by_one = [cx.count_forward_flops(tok, model, [s]) for s in sents]
    assert flops == sum(f for f, _ in one_by_one) and tokens == sum(t for _, t in one_by_one)
    for s, (f, t) in zip(sents, one_by_one):
        pooler = 2 * model.config.hidden_size ** 2  # the pooler runs once per sentence, on [CLS]
        assert f == pytest.approx(cx.forward_flops_per_token(model, t) * t + pooler, rel=1e-6)
    assert model.config._attn_implementation == "sdpa"


def _cost(acc_top, bag, ratio=55000.0, row_diff=0.0):
    from embedbook.chapters.ch11_contextual import measure as ch11

    return ch11.Cost(word="apple", n_sentences=80, top_layer=6, acc_lookup=0.5, acc_context_bag=bag, acc_l0=0.6,
                     acc_top=acc_top, word_row_diff=row_diff, dim=384, tokens=200, flops_per_token=ratio * 384, flops_per_token_formula=ratio * 384,
                     lookup_flops_per_token=0, lookup_bytes_per_token=1536, cost_ratio=ratio, bench_tokens=200,
                     bench_lookup_tok_s=1e7, bench_forward_tok_s=1e4, bench_ratio=1000.0)


@pytest.mark.parametrize("acc_top, bag, ratio, verdict, phrase", [
    (0.95, 0.55, 55000.0, claims.CONFIRMED, "The word's own row cannot tell the senses apart"),
    (0.95, 0.95, 55000.0, claims.CONFIRMED, "The word's own row cannot tell the senses apart"),  # the bag is context
    (0.80, 0.55, 55000.0, claims.INCONCLUSIVE, "separates the senses only partly"),
    (0.60, 0.55, 55000.0, claims.REFUTED, "the last layer does not reach 75%"),
    (0.95, 0.55, 500.0, claims.REFUTED, "fewer than 1,000 operations"),
])
def test_c46_evidence_follows_the_outcome(acc_top, bag, ratio, verdict, phrase):

    v = claims.run("C46", _cost(acc_top, bag, ratio))
    assert v.verdict == verdict and phrase in v.evidence
    assert "static bag of context" in v.evidence and "WiC" in v.evidence  # reported beside the rule, with its limit
    assert "Rule revised after measuring" in v.strength and "constructed demonstration" in v.strength
    assert "an identity, not a probe" in v.evidence


def test_c46_bag_of_context_does_not_decide():
    rule = claims.rule_of("C46")
    assert "acc_context_bag" not in rule.inputs and "acc_lookup" not in rule.inputs  # chance by construction
    assert rule.basis == claims.CONSTRUCTED  # hand-written, cue-rich sentences
    assert rule({"word_row_diff": 0.0, "acc_top": 0.95, "cost_ratio": 55000.0}) == claims.CONFIRMED


def test_c46_row_leg_is_an_identity_check():

    v = claims.run("C46", _cost(0.95, 0.55, row_diff=0.3))  # an input layer that read its context
    assert v.verdict == claims.REFUTED and "the word's rows differ between sentences" in v.evidence
    assert "rows that differ between sentences by up to 0.3" in v.evidence
    assert "*Why it last changed:* a probe on the word's row" in claims.verdict_markdown(v)


def _calibration(static_paper=0.9999, random_paper=0.0, mean_static=0.9999, mean_random=0.0):
    from embedbook.chapters.ch11_contextual import measure as ch11

    static = {"paper": static_paper, "released": 0.0026, "centred": 0.17}
    return ch11.Calibration(
        dim=384, n_words=40, noise=[0.01, 1.0], self_sim=[1.0, 0.5], scores={k: [v, v / 2] for k, v in static.items()},
        static=static, random_matched={"paper": random_paper, "released": 0.0, "centred": 0.0},
        random_paper={"paper": 0.14, "released": 0.14, "centred": 0.16}, n_random=300,
        mean_static=mean_static, mean_random=mean_random)


def _contextuality(matched, ci_half=0.01, calibration=None, paper=None):
    from embedbook.chapters.ch11_contextual import measure as ch11

    states, occ = _synthetic()
    m = cx.measure_layers([np.concatenate([s] * 3) for s in states], occ, n_random=30)  # 6 layers: 0..5
    mat = [0.0, *matched]
    lo, hi = [x - ci_half for x in mat], [x + ci_half for x in mat]
    pap = [0.0, *(paper or [0.6] * len(matched))]  # the paper's formula: an upper bound, reported
    rel = [0.0, 0.01, 0.02, 0.03, 0.04, 0.17][: len(mat)]
    return ch11.Contextuality(
        measures=m, calibration=calibration or _calibration(), n_sentences=300, n_words=177, n_contexts=2122,
        n_random=300, window=24, min_contexts=5, max_contexts=30, n_layers=len(matched), dim=8, mev_floor=0.15,
        released_adj=rel, released_adj_mean=float(np.mean(rel[1:])), released_ci_low=0.028, released_ci_high=0.035,
        released_layers_under=sum(x < 0.05 for x in rel[1:]), matched_adj=pap,
        matched_ci_low=[x - 0.01 for x in pap], matched_ci_high=[x + 0.01 for x in pap],
        matched_adj_min=min(pap[1:]), matched_adj_max=max(pap[1:]),
        layers_below=sum(x + 0.01 < 0.05 for x in pap[1:]), layers_above=sum(x - 0.01 > 0.05 for x in pap[1:]),
        paper_adj=[0.6] * len(mat), centred_adj=[0.08] * len(mat), centred_adj_min=0.04, centred_adj_max=0.13,
        mean_adj=mat, mean_ci_low=lo, mean_ci_high=hi, mean_raw=[x + 0.3 for x in mat], mean_base=[0.3] * len(mat),
    )


@pytest.mark.parametrize("matched, ci_half, calibration, verdict, phrase", [
    ([0.64, 0.55, 0.50, 0.49, 0.34], 0.01, None, claims.REFUTED, "Every layer lies above 5%"),
    ([0.01, 0.02, 0.01, 0.0, 0.02], 0.01, None, claims.CORRECTED, "Every layer lies below 5%"),
    ([0.01, 0.02, 0.3, 0.4, 0.5], 0.01, None, claims.CORRECTED, "Layers 1, 2 lie below 5% and layers 3, 4, 5 above"),
    ([0.3, 0.3, 0.3, 0.3, 0.06], 0.03, None, claims.INCONCLUSIVE, "interval of layer 5 reaches across 5%"),
    ([0.64, 0.55, 0.50, 0.49, 0.34], 0.01, "static", claims.INCONCLUSIVE, "failed its own calibration"),
    ([0.64, 0.55, 0.50, 0.49, 0.34], 0.01, "random", claims.INCONCLUSIVE, "failed its own calibration"),
])
def test_c11_evidence_follows_the_outcome(matched, ci_half, calibration, verdict, phrase):

    cal = {None: None, "static": _calibration(mean_static=0.3), "random": _calibration(mean_random=0.05)}[calibration]
    v = claims.run("C11", _contextuality(matched, ci_half, cal))
    assert v.verdict == verdict
    assert phrase in v.evidence
    assert "Ethayarajh" in v.evidence and "BERT paper" in v.evidence
    assert "Rule revised after measuring" in v.strength and "upper bound" in v.strength
    # the published statistic, judged by the same rule, cannot decide: it fails the calibration
    assert "would give 'inconclusive here'" in v.evidence


def test_c11_decides_on_the_mean_vector_not_the_upper_bound():

    # the paper's formula above 5% everywhere, the word's own mean vector below it: the mean vector decides
    v = claims.run("C11", _contextuality([0.01, 0.02, 0.01, 0.0, 0.02], paper=[0.6, 0.5, 0.5, 0.4, 0.3]))
    assert v.verdict == claims.CORRECTED and v.figures["paper_layers_above"] == 5


# --- issue 18: what a new user meets ----------------------------------------------------------------


def test_self_and_intra_similarity_stay_within_one():
    # float32 unit rows are unit only to ~1e-7: identical rows summed gave 1.0000000008 before the clamp
    x = np.tile(np.random.default_rng(2).normal(size=(1, 384)).astype(np.float32), (7, 1))
    u = cx.stats.unit_rows(x).astype(np.float64)
    s = u.sum(0)
    assert (s @ s - 7) / 42 > 1.0  # the unclamped formula overshoots on this input
    assert cx.self_similarity(x) == 1.0 and cx.intra_similarity(x) <= 1.0
    assert cx.self_similarity(-x[:1].repeat(2, 0) * np.array([[1.0], [-1.0]])) >= -1.0


def test_wrong_objects_in_the_tokenizer_and_model_places_say_what_to_pass(enc):
    tok, model = enc
    with pytest.raises(TypeError, match=r"bare `tokenizers` tokenizer.*data\.load_encoder\(\)"):
        cx.sentence_vectors(data.minilm_tokenizer(), model, ["a cat"])
    with pytest.raises(TypeError, match=r"\(tokenizer, model\), in that order"):
        cx.sentence_vectors(model, tok, ["a cat"])
    with pytest.raises(TypeError, match="model must be a Hugging Face BERT-style torch encoder"):
        cx.word_states([["a", "cat"]], tok, "minilm")
    for call in (lambda: cx.model_attentions(None, model, "a cat"), lambda: cx.layer0_qkv(None, model, "a cat"),
                 lambda: cx.count_forward_flops(None, model, ["a cat"]),
                 lambda: cx.paraphrase_accuracy(None, model, [("a", "b"), ("c", "d")]),
                 lambda: cx.sense_study(None, model, ["an apple", "apple pie"], ["apple inc", "apple stock"])):
        with pytest.raises(TypeError, match="tokenizer must be a Hugging Face tokenizer"):
            call()


def test_too_long_input_gives_only_the_clear_error(enc, caplog, capsys):
    tok, model = enc
    tok.deprecation_warnings.pop("sequence-length-is-longer-than-the-specified-maximum", None)  # it warns once
    for call in (lambda: cx.model_attentions(tok, model, "word " * 1000),
                 lambda: cx.layer0_qkv(tok, model, "word " * 1000),
                 lambda: cx.count_forward_flops(tok, model, ["word " * 1000]),  # was a raw torch size error
                 lambda: cx.word_states([["word"] * 1000], tok, model)):
        with pytest.raises(ValueError, match="1002 pieces but the model has 512 positions"):
            call()
    out = capsys.readouterr()
    assert "Token indices sequence length" not in out.out + out.err + caplog.text


def _text_of(tok, pieces: int) -> str:
    """Lee-corpus words until the text tokenizes to about ``pieces`` WordPiece pieces."""
    words = [w for s in data.lee_corpus() for w in s]
    n = pieces
    while len(tok(" ".join(words[:n]), verbose=False)["input_ids"]) > pieces:
        n -= 10
    return " ".join(words[:n])


def test_sentence_vectors_match_sentence_transformers_encode_short_and_long(enc):
    st = pytest.importorskip("sentence_transformers")
    tok, model = enc
    long_text = _text_of(tok, 400)
    assert 350 < len(tok(long_text, verbose=False)["input_ids"]) <= 400  # past the model's 256, within its 512
    texts = ["a kitten naps on the couch", long_text]
    ref = st.SentenceTransformer(str(data.minilm_path()), device="cpu").encode(texts, convert_to_tensor=True)
    got = cx.sentence_vectors(tok, model, texts)
    cos = torch.nn.functional.cosine_similarity(ref.cpu().float(), got.cpu(), dim=1)
    assert (cos > 0.9999).all(), cos
    assert cx._pooling_length(tok, model) == 256  # read from sentence_bert_config.json
    at_512 = cx.sentence_vectors(tok, model, texts, max_length=512)  # what it did before: a different vector
    assert torch.nn.functional.cosine_similarity(ref[1:].cpu().float(), at_512[1:].cpu(), dim=1).item() < 0.999


def test_sentence_vectors_batched_by_length_come_back_in_order(enc):
    """Length-sorted batches (the default) give the rows of in-order batches, in the order given."""
    tok, model = enc
    texts = ["a cat", "the dog chased the cat across the whole garden and back", "rain", "birds sing at dawn"]
    sorted_ = cx.sentence_vectors(tok, model, texts, batch_size=2)
    plain = cx.sentence_vectors(tok, model, texts, batch_size=2, sort_by_length=False)
    assert torch.allclose(sorted_, plain, atol=1e-5)
    raw = cx.sentence_vectors(tok, model, texts, normalize=False)
    assert torch.allclose(torch.nn.functional.normalize(raw, dim=-1), sorted_, atol=1e-5)
    assert not torch.allclose(raw.norm(dim=-1), torch.ones(4))
    with pytest.raises(TypeError, match="sort_by_length must be True or False"):
        cx.sentence_vectors(tok, model, texts, sort_by_length="yes")
