"""Tests for embedbook.contextual: measures on synthetic data with known answers, the real
MiniLM's word alignment and layer-0 attention, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from embedbook import claims, contextual as cx, data


@pytest.fixture(scope="module")
def enc():
    return data.load_encoder("minilm")


# --- measures on synthetic data ---------------------------------------------------------------------


def test_identical_vectors_give_self_similarity_and_mev_one():
    x = np.tile(np.arange(1.0, 6.0), (4, 1))
    assert cx.self_similarity(x) == pytest.approx(1.0)
    assert cx.mev(x) == pytest.approx(1.0)
    assert cx.intra_similarity(x) == pytest.approx(1.0)


def test_orthogonal_vectors():
    x = np.eye(5) * 3.0
    assert cx.self_similarity(x) == pytest.approx(0.0)
    assert cx.mev(x) == pytest.approx(1 / 5)  # uncentred: 5 equal singular values
    # centred: rank 4 with equal eigenvalues -> exactly the floor 1/(n-1)
    assert cx.mev(x, center=True) == pytest.approx(cx.mev_floor(5, 5)) == pytest.approx(1 / 4)


def test_self_similarity_matches_pairwise_loop():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 10))
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    pairs = [u[i] @ u[j] for i in range(7) for j in range(7) if i != j]
    assert cx.self_similarity(x) == pytest.approx(np.mean(pairs))


def test_mev_matches_pca_and_respects_floor():
    rng = np.random.default_rng(1)
    for n in (2, 5, 30):
        x = rng.normal(size=(n, 16))
        c = x - x.mean(0)
        s = np.linalg.svd(c, compute_uv=False) ** 2
        assert cx.mev(x, center=True) == pytest.approx(s[0] / s.sum())
        assert cx.mev(x, center=True) >= cx.mev_floor(n, 16) - 1e-12
    assert cx.mev_floor(5, 384) == 0.25 and cx.mev_floor(5, 384, center=False) == 0.2
    assert cx.mev_floor(1000, 384) == 1 / 384


def test_measure_layers_known_answers():
    # layer 0: every word has one fixed vector (static); layer 1: pure noise
    rng = np.random.default_rng(2)
    vocab = rng.normal(size=(6, 8))
    sents = [rng.integers(0, 6, size=5) for _ in range(40)]
    states = [np.stack([vocab[s], rng.normal(size=(5, 8))]) for s in sents]
    occ = cx.occurrences([[str(w) for w in s] for s in sents], min_contexts=5)
    m = cx.measure_layers(states, occ, n_random=200)
    assert m.self_sim[0] == pytest.approx(1.0)
    assert m.mev_raw[0] == pytest.approx(1.0)
    assert abs(m.self_sim[1]) < 0.2
    assert m.mev_centred[1] >= m.mev_floor - 1e-12
    assert m.table().shape == (2, 9)
    again = cx.measure_layers(states, occ, n_random=200)
    assert np.array_equal(again.base_cos, m.base_cos)  # seeded: deterministic


def test_occurrences_and_windows():
    sents = [["a", "b", "a"], ["a", "c"], ["b", "a"]]
    occ = cx.occurrences(sents, min_contexts=3)
    assert occ == {"a": [(0, 0), (1, 0), (2, 1)]}  # one occurrence per sentence
    assert len(cx.occurrences(sents, min_contexts=2, max_contexts=2)["a"]) == 2
    assert cx.windows([list("abcdefg")], 3) == [list("abc"), list("def")]


def test_loo_accuracy_ties_are_chance():
    u = np.ones((6, 3)) / np.sqrt(3)
    assert cx._loo_centroid_accuracy(u, np.array([0, 0, 0, 1, 1, 1])) == 0.5


def test_attention_flops():
    f = cx.attention_flops(10, 4)
    assert f == {"projections": 640, "scores_and_mix": 800}


# --- bad input ---------------------------------------------------------------------------------------


def test_bad_input_measures():
    with pytest.raises(ValueError, match="at least 2 contexts"):
        cx.self_similarity(np.ones((1, 3)))
    with pytest.raises(ValueError, match="at least 2 contexts"):
        cx.mev(np.ones((1, 3)))
    with pytest.raises(ValueError, match="identical"):
        cx.mev(np.ones((3, 3)), center=True)
    with pytest.raises(ValueError, match="NaN"):
        cx.self_similarity(np.array([[1.0, np.nan], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="zero vector"):
        cx.self_similarity(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="absent from every sentence"):
        cx.word_matrix([np.zeros((1, 2, 3))], [], 0)
    with pytest.raises(ValueError, match="no word occurs"):
        cx.occurrences([["a"], ["b"]], min_contexts=2)
    with pytest.raises(ValueError, match="at least 2"):
        cx.occurrences([["a"]], min_contexts=1)
    with pytest.raises(ValueError, match="n >= 2"):
        cx.mev_floor(1, 5)
    with pytest.raises(TypeError, match="list of word lists"):
        cx.word_states("a sentence", None, None)
    with pytest.raises(ValueError, match="kind"):
        cx.with_table(torch.nn.Linear(2, 2), "sorted")


def test_missing_model_folder():
    with pytest.raises(FileNotFoundError, match="does not exist"):
        data.load_encoder("./no/such/model")


# --- the real model ---------------------------------------------------------------------------------


def test_word_states_shapes_and_piece_mean(enc):
    tok, model = enc
    sents = [["the", "unaffordable", "apple"], ["apple"]]
    states = cx.word_states(sents, tok, model, progress=False)
    assert states[0].shape == (7, 3, 384) and states[1].shape == (7, 1, 384)
    # 'unaffordable' splits into several pieces: its vector is their mean
    e = tok(sents[0], is_split_into_words=True, return_tensors="pt")
    with torch.inference_mode():
        h = model(**e, output_hidden_states=True).hidden_states
    idx = [t for t, w in enumerate(e.word_ids(0)) if w == 1]
    assert len(idx) > 1
    np.testing.assert_allclose(states[0][:, 1], torch.stack(h)[:, 0, idx].mean(1).numpy(), atol=1e-5)
    again = cx.word_states(sents, tok, model, progress=False)
    assert np.array_equal(again[0], states[0])


def test_local_folder_goes_through_same_path():
    # "bert-base-uncased" (online) takes the hub branch of the same loader; offline we test a folder path
    tok, model = data.load_encoder(str(data.minilm_path()))
    states = cx.word_states([["a", "cat"]], tok, model, progress=False)
    assert states[0].shape == (model.config.num_hidden_layers + 1, 2, model.config.hidden_size)


def test_too_long_sentence_raises(enc):
    tok, model = enc
    with pytest.raises(ValueError, match="positions"):
        cx.word_states([["word"] * 600], tok, model, progress=False)


def test_layer0_attention_reproduced_exactly(enc):
    tok, model = enc
    sentence = "the bank raised its interest rate"
    _, att = cx.model_attentions(tok, model, sentence)
    mine = cx.layer0_qkv(tok, model, sentence)
    assert mine["Q"].shape == (12, len(mine["tokens"]), 32)
    assert torch.allclose(mine["probs"], att[0], atol=1e-5)
    plain = cx.layer0_qkv(tok, model, sentence, article_form=True)
    assert not torch.allclose(plain["probs"], att[0], atol=1e-3)
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


def test_sense_study_lookup_is_static(enc):
    tok, model = enc
    r = cx.sense_study(tok, model, a=cx.FRUIT[:3], b=cx.COMPANY[:3])
    assert r["lookup_identical"] and r["lookup_acc"] == 0.5
    assert len(r["across"]) == 7
    with pytest.raises(ValueError, match="does not occur"):
        cx.sense_study(tok, model, word="pear", a=cx.FRUIT[:2], b=cx.COMPANY[:2])


def test_checks_registered_and_decide_from_numbers():
    assert all(claims.has_check(c) for c in ("C10", "C11", "C24", "C46"))
    good = {"diff_full": 1e-7, "diff_article": 0.9, "d": 384, "heads": 12, "has_bias": True}
    assert claims.run("C24", result=good).verdict == claims.CORRECTED
    assert claims.run("C24", result={**good, "diff_full": 0.5}).verdict == claims.REFUTED
    assert claims.run("C24", result={**good, "diff_article": 1e-7}).verdict == claims.CONFIRMED


def test_attention_shift_and_paraphrases(enc):
    p = torch.softmax(torch.randn(2, 3, 3), -1)
    assert cx.attention_shift(p, p) == 0.0
    one_hot = torch.eye(3).expand(2, 3, 3)
    assert cx.attention_shift(one_hot, one_hot.roll(1, -1)) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="shapes differ"):
        cx.attention_shift(p, p[:1])
    tok, model = enc
    assert cx.paraphrase_accuracy(tok, model, cx.PARAPHRASES[:4]) > 0.9
    with pytest.raises(ValueError, match="at least 2"):
        cx.paraphrase_accuracy(tok, model, cx.PARAPHRASES[:1])


def _fake_measures(adj_mev: float) -> cx.LayerMeasures:
    z = np.zeros(3)
    return cx.LayerMeasures(
        self_sim=z, intra_sim=z, mev_raw=z, mev_centred=z + 0.3 + adj_mev, base_cos=z, base_mev_raw=z,
        base_mev_centred=z + 0.3, mev_floor=0.25, n_words=10, n_contexts=50, n_sentences=20,
        per_word_mev_centred=np.zeros((10, 3)),
    )


def test_c11_c46_rules():
    assert claims.run("C11", result=_fake_measures(0.01)).verdict == claims.CORRECTED
    assert claims.run("C11", result=_fake_measures(0.10)).verdict == claims.REFUTED
    r = {"loo_acc": [0.6, 0.8, 1.0], "lookup_acc": 0.5, "flops_per_token": 4e7, "seq_len": 12}
    assert claims.run("C46", result=r).verdict == claims.CONFIRMED
    assert claims.run("C46", result={**r, "flops_per_token": 1e3}).verdict == claims.REFUTED
    assert claims.run("C46", result={**r, "loo_acc": [0.6, 0.6, 0.6]}).verdict == claims.REFUTED


def test_forward_flops_per_token(enc):
    tok, model = enc
    dense = sum(p.numel() for n, p in model.named_parameters() if "embeddings" not in n)
    assert cx.forward_flops_per_token(model, 10) == 2 * dense + model.config.num_hidden_layers * 4 * 10 * model.config.hidden_size
    with pytest.raises(ValueError):
        cx.forward_flops_per_token(model, 0)


def test_table_swap_effects_kinds(enc):
    tok, model = enc
    with pytest.raises(ValueError, match="unknown table kind"):
        cx.table_swap_effects(tok, model, "a cat", kinds=["sorted"])
    r = cx.table_swap_effects(tok, model, "a cat sat", kinds=["shuffled"])
    assert set(r) == {"original", "shuffled"}
    assert r["original"]["shift_l0"] == 0.0 and r["original"]["final_cos"] == pytest.approx(1.0)
    assert r["shuffled"]["shift_l0"] > 0.01
