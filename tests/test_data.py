import pytest

from embedbook import data


def test_missing_package_names_the_extra():
    with pytest.raises(data.MissingResource, match=r"embedbook\[data\]"):
        data._need("no_such_package_xyz", "no-such-package")


def test_glove_is_400k_by_50():
    kv = data.glove()
    assert len(kv) == 400_000 and kv.vector_size == 50
    assert kv.index_to_key[0] == "the"
    assert len(data.glove(1000)) == 1000
    with pytest.raises(ValueError):
        data.glove(0)


def test_corpora_sizes():
    assert 50_000 < sum(map(len, data.lee_corpus())) < 70_000
    assert sum(map(len, data.peoples_daily())) > 1_000_000
    assert data.peoples_daily(with_pos=True)[0][0][1]


def test_evaluation_sets():
    assert len(data.wordsim353()) == 353
    assert len(data.simlex999()) == 999
    assert data.analogy_questions().exists()


def test_gpt2_encoding_is_the_real_one():
    enc = data.gpt2_encoding()
    assert enc.n_vocab == 50257
    assert enc.encode("Hello world") == [15496, 995]  # the published GPT-2 ids


def test_minilm_tokenizer_and_path():
    tok = data.minilm_tokenizer()
    assert tok.get_vocab_size() == 30522
    assert tok.encode("hello").tokens == ["[CLS]", "hello", "[SEP]"]
    assert (data.minilm_path() / "config.json").exists()


def test_load_encoder_rejects_missing_folder():
    with pytest.raises(FileNotFoundError, match="does not exist"):
        data.load_encoder("./no/such/model")


def test_word_frequencies():
    assert data.zipf("the") > data.zipf("embedding") > 0
    assert data.top_words(3, "zh")[0] == "的"
    with pytest.raises(ValueError):
        data.top_words(0)


def test_minilm_by_its_usual_names():
    """Finding 4: load_encoder("MiniLM") was taken for a hub id (46 s of network retries, then OSError)."""
    tok, model = data.load_encoder("MiniLM")
    assert data.load_encoder("all-MiniLM-L6-v2")[1] is model and model.config.hidden_size == 384


def test_uncached_hub_model_offline_fails_at_once(monkeypatch):
    import time

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.perf_counter()
    with pytest.raises(ConnectionError, match="bundled model"):
        data.load_encoder("bert-base-uncased-not-cached-anywhere")
    assert time.perf_counter() - start < 15


def test_absent_device_is_refused_before_loading(monkeypatch):
    """Finding 5: load_encoder(device="cuda") loaded the weights before failing."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("needs a machine without CUDA")
    called = []
    monkeypatch.setattr(data, "_load_encoder", lambda *a: called.append(a))
    with pytest.raises(RuntimeError, match="CUDA"):
        data.load_encoder("minilm", device="cuda")
    assert not called
