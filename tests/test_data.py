import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from embedbook import data

ROOT = Path(__file__).resolve().parents[1]
# `pip install 'embedbook[data]'`: embedbook is not on the package index, so this fails or installs someone else's
BARE = re.compile(r"""pip install\s+(-\S+\s+)*['"]?embedbook\[[^\]]*\]['"]?(?!\s*@)""")


def _declared(name):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [r for extra in project["optional-dependencies"].values() for r in extra] + project["dependencies"]
    return next(r for r in reqs if re.match(rf"{name}\b", r))


def test_missing_package_names_its_requirement_and_the_extra():
    with pytest.raises(data.MissingResource) as err:
        data._need("no_such_module_xyz", "gensim")
    msg = str(err.value)
    assert f"pip install '{_declared('gensim')}'" in msg  # the requirement pyproject.toml declares
    assert f"pip install -e '{ROOT}[data]'" in msg  # run from this checkout: the extra from the checkout
    assert not BARE.search(msg), msg


def test_outside_a_checkout_the_hint_names_the_packages(monkeypatch):
    """From a wheel: the extra's packages by name (what works from the package index), never a repository URL,
    which would swap the installed wheel for the repository's head (and fails offline)."""
    monkeypatch.setattr(data, "_checkout", lambda: None)
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    assert data.repository_url() == url == data.REPOSITORY  # kept in one place, for Colab and the docs
    command = data.extra_command("data")
    assert command.startswith("pip install '") and f"'{_declared('gensim')}'" in command and "git+" not in command
    msg = data.install_hint("tiktoken")
    assert f"pip install '{_declared('tiktoken')}'" in msg and "git+" not in msg and not BARE.search(msg)


def test_a_missing_dependency_of_an_installed_package_is_named(monkeypatch):
    """gensim installed but scipy missing: the message names scipy, not "'gensim.models' is not installed"."""
    import builtins

    real = builtins.__import__

    def no_scipy(name, *args, **kwargs):
        if name == "scipy" or name.startswith("scipy."):
            raise ModuleNotFoundError("No module named 'scipy'", name="scipy")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_scipy)
    monkeypatch.setattr(data.importlib, "import_module", lambda m: (_ for _ in ()).throw(
        ModuleNotFoundError("No module named 'scipy'", name="scipy")))
    with pytest.raises(data.MissingResource, match="needs 'scipy', which is not installed") as err:
        data._need("gensim.models")
    assert f"pip install '{_declared('scipy')}'" in str(err.value)


def test_the_bare_pattern_catches_what_it_must():
    assert BARE.search("install it with  pip install 'embedbook[data]'  (or")
    assert BARE.search('pip install -q "embedbook[book]"')
    assert not BARE.search("pip install 'embedbook[data] @ git+https://github.com/embedbook/embedbook'")
    assert not BARE.search("pip install -e '/src/embedbook[data]'")


def test_no_message_or_page_says_a_bare_pip_install_embedbook():
    files = [*(ROOT / "embedbook").rglob("*.py"), *(ROOT / "chapters").rglob("*.py"), ROOT / "README.md",
             *(ROOT / "book").glob("*.ipynb"), *(ROOT / "chapters").glob("*/*.ipynb"), *(ROOT / "book").glob("*.md")]
    bad = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in files for m in BARE.finditer(p.read_text(encoding="utf-8"))]
    assert not bad, bad


def test_bundled_bpe_ranks_are_checked(monkeypatch):
    assert len(data.bpe_ranks("gpt2.tiktoken")) == 50256
    with pytest.raises(ValueError, match="gpt2.tiktoken"):
        data.bpe_ranks("gpt3.tiktoken")
    monkeypatch.setitem(data.BPE_RANKS, "gpt2.tiktoken", "0" * 64)
    with pytest.raises(data.MissingResource, match="damaged"):
        data.bpe_ranks("gpt2.tiktoken")


def test_chinese_word_frequencies_print_nothing():
    """Issue 18: jieba printed 'Building prefix dict…' from data.zipf(..., "zh"); a fresh process, since jieba
    builds its dictionary once per process."""
    code = "from embedbook import data; print(data.zipf('中国', 'zh') > 5)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.strip() == "True"
    assert "prefix dict" not in run.stderr and "Loading model" not in run.stderr, run.stderr


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
