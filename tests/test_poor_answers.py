"""The poor answers a new user met (issue 30), each reproduced and now answered well: a clear exception naming
the problem and the fix, or the right result; never a silent wrong answer or a raw error from deep inside."""

import numpy as np
import pytest
import torch

from embedbook import device, dynamics, lm, quantize, similarity, sizing, stats


def test_an_int4_state_into_an_int8_module_suggests_a_module_that_builds():
    q4 = quantize.QuantizedEmbedding.from_float(torch.randn(100, 8), bits=4)  # 8-byte rows: no int8 reading
    q8 = quantize.QuantizedEmbedding.from_float(torch.randn(100, 16), bits=8)
    with pytest.raises(ValueError, match=r"100 × 8 table at 4 bits") as err:
        q8.load_state_dict(q4.state_dict())
    assert "× 0" not in str(err.value) and "zeros(100, 0)" not in str(err.value)
    fix = str(err.value).split("e.g. ")[1].split(", and load")[0]
    target = eval(fix, {"QuantizedEmbedding": quantize.QuantizedEmbedding, "quantize": quantize.quantize, "torch": torch})
    target.load_state_dict(q4.state_dict())  # the suggested module takes the state
    assert torch.equal(target(torch.arange(100)), q4(torch.arange(100)))


@pytest.mark.parametrize("bits", [8.0, True, "8"])
def test_bits_must_be_an_int(bits):
    with pytest.raises(ValueError, match="bits must be one of"):
        quantize.quantize(torch.randn(4, 4), bits=bits)


def test_float64_beyond_float32_is_named_without_a_numpy_warning():
    words = [f"w{i}" for i in range(3)]
    big = np.array([[1e300, 0.0], [1.0, 2.0], [3.0, 4.0]])
    with np.errstate(over="raise"):  # no overflow on the way to the message
        with pytest.raises(ValueError, match=r"beyond float32's range .*'w0'"):
            similarity.Space(words, big)
    assert similarity.Space(words, big / 1e290).vectors.dtype == np.float32  # rescaled, it loads


def test_exclude_inputs_must_be_a_bool():
    space = similarity.Space(["a", "b", "c", "d"], np.eye(4, dtype=np.float32) + 0.1)
    with pytest.raises(TypeError, match="exclude_inputs must be True or False"):
        similarity.solve_analogy(space, "a", "b", "c", exclude_inputs="no")


@pytest.mark.parametrize("word", [3, None, 2.5])
def test_a_word_that_is_not_a_string_is_a_type_error(word):
    space = similarity.Space(["a", "b"], np.eye(2, dtype=np.float32))
    with pytest.raises(TypeError, match="a word is a string"):
        space.id(word)
    with pytest.raises(TypeError, match="a word is a string"):
        similarity.neighbours(space, word)


def test_a_bootstrap_too_large_is_refused_up_front():
    with pytest.raises(ValueError, match="above the limit"):
        stats.bootstrap_mean_ci(np.random.default_rng(0).random(10_000), reps=10**6)


def test_a_bootstrap_in_chunks_gives_the_one_draw_answer():
    x = np.random.default_rng(1).normal(size=3000)
    one = stats.bootstrap_mean_ci(x, reps=500)
    old = stats.CHUNK_DRAWS
    try:
        stats.CHUNK_DRAWS = 3000 * 7  # 7 resamples a chunk: many chunks
        assert stats.bootstrap_mean_ci(x, reps=500) == one
    finally:
        stats.CHUNK_DRAWS = old


def test_a_string_is_not_a_corpus():
    vocab = lm.Vocab.build([["a", "b", "c"]], 10)
    with pytest.raises(TypeError, match=r"\[\['a', 'b'\]\]"):
        vocab.encode("a b")


def test_unigram_loss_needs_a_vocabulary():
    with pytest.raises(ValueError, match="vocab_size must be a positive int"):
        lm.unigram_loss(torch.tensor([0, 1]), torch.tensor([0, 1]), 0)


def test_an_empty_device_name_is_refused():
    with pytest.raises(ValueError, match="empty device name"):
        device.pick("")


def test_absent_row_drift_refuses_an_endless_run():
    with pytest.raises(ValueError, match="beyond what this demonstration needs"):
        dynamics.absent_row_drift("sgd", steps=10**9)


def test_quantized_embedding_is_an_embedding_where_it_says_so():
    e = torch.nn.Embedding(50, 8, padding_idx=0)
    q = quantize.QuantizedEmbedding.from_float(e, bits=8)
    assert q.padding_idx == 0 and not q(torch.tensor([0])).any()  # the zero padding row stays exact zeros
    assert q.weight.shape == (50, 8) and torch.equal(q.weight, quantize.dequantize(q.table))
    with pytest.raises(AttributeError, match="cannot be set"):
        q.weight = torch.zeros(50, 8)
    meta = quantize.QuantizedEmbedding.from_float(e, bits=4).to("meta")
    assert meta(torch.tensor([1, 2], device="meta")).shape == (2, 8)
    with pytest.raises(TypeError, match="torch.jit.script cannot compile QuantizedEmbedding"):
        torch.jit.script(q)
    with pytest.raises(ValueError, match="padding_idx must be None or a row"):
        quantize.QuantizedEmbedding(quantize.quantize(torch.randn(5, 4)), padding_idx=5)


def test_count_parameters_knows_a_quantised_table():
    model = lm.TinyLM(lm.LMConfig(50, d_model=16, n_layers=1, n_heads=2, context=8, tie=False))
    before = sizing.count_parameters(model)
    model.embed = quantize.QuantizedEmbedding.from_float(model.embed)
    after = sizing.count_parameters(model)
    assert after.head == before.head == 50 * 16  # the head is still the head, not body
    assert (after.total, after.embedding, after.body) == (before.total, before.embedding, before.body)


def test_load_encoder_leaves_the_progress_bars_as_they_were():
    transformers = pytest.importorskip("transformers")
    from embedbook import data

    transformers.utils.logging.enable_progress_bar()
    data._load_encoder.cache_clear()  # a load from this process's cache would not touch the bars
    data.load_encoder("minilm")
    assert transformers.utils.logging.is_progress_bar_enabled()


def test_a_space_saves_and_loads_without_pickle(tmp_path):
    words = ["king", "queen", "北京", "man"]
    space = similarity.Space(words, np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32))
    path = space.save(tmp_path / "glove_small")
    assert path.suffix == ".npz"
    back = similarity.Space.load(path)
    assert back.words == words and np.array_equal(back.vectors, space.vectors)
    assert similarity.neighbours(back, "king", k=2) == similarity.neighbours(space, "king", k=2)
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="not a saved Space"):
        similarity.Space.load(tmp_path / "other.npz")
    np.savez(tmp_path / "pickled.npz", vectors=np.zeros((1, 2)), words=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="not a saved Space"):
        similarity.Space.load(tmp_path / "pickled.npz")
    with pytest.raises(FileNotFoundError, match="no saved Space"):
        similarity.Space.load(tmp_path / "missing.npz")


@pytest.mark.parametrize("bits", [8, 4])
def test_the_affine_scheme_loses_no_more_than_torchs_min_max(bits):
    """Per row min/max with an offset: at the same bytes (a code a value, a scale and an offset a row) its error
    is no worse than torch.ao's per-channel affine MinMax scheme (scale (max - min) / levels, an integer zero
    point), and clearly better than the symmetric scheme on rows not centred on 0."""
    g = torch.Generator().manual_seed(0)
    t = torch.randn(2000, 64, generator=g) + torch.rand(2000, 1, generator=g) * 2
    levels, low = 2**bits - 1, -(2 ** (bits - 1))
    lo, hi = t.amin(1, keepdim=True), t.amax(1, keepdim=True)
    scale = (hi - lo) / levels
    zero = (low - lo / scale).round()
    torch_minmax = ((t / scale + zero).round().clamp(low, -low - 1) - zero) * scale
    ours = quantize.roundtrip(t, bits, "affine")
    assert quantize.relative_error(t, ours) <= quantize.relative_error(t, torch_minmax)
    assert quantize.relative_error(t, ours) < 0.8 * quantize.relative_error(t, quantize.roundtrip(t, bits))
    module = quantize.QuantizedEmbedding.from_float(t, bits=bits, scheme="affine")
    assert torch.equal(module(torch.arange(2000)), ours) and not module.fused
    loaded = quantize.QuantizedEmbedding(quantize.quantize(torch.zeros(2000, 64), bits, "affine"))
    loaded.load_state_dict(module.state_dict())
    assert torch.equal(loaded(torch.arange(5)), module(torch.arange(5)))
    assert torch.equal(quantize.roundtrip(torch.full((2, 4), 2.5), bits, "affine"), torch.full((2, 4), 2.5))
