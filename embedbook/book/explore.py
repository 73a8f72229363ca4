"""The tables behind the book's "Explore the space" page (``book/explore.md``), exported at build time.

Each table is written as a small JavaScript file, ``_static/explore/<lang>.js``, that assigns its words and
vectors to ``window.EXPLORE_TABLES[lang]``: a ``<script src>`` works when the book is opened from disk
(``file://``), where a browser refuses ``fetch()``. The vectors are stored as float16, little-endian, in base64
(half the weight of float32); the page and the parity test (``tests/after_book/test_explore.py``) both compute
from exactly these float16 values, widened to float32. Words are lower-cased and NFKC-normalised (full-width
characters to half-width), as the page normalises what a reader types; a word that normalises to one already
kept is dropped with its row.

- ``en``: GloVe 6B 50d, the :data:`N_EN` most frequent words (:func:`embedbook.data.glove`).
- ``zh``: CBOW Word2Vec (d = 50, 3 epochs, seed 0) trained on People's Daily 1998, as chapter 10 trains it,
  the :data:`N_ZH` most frequent words. Training takes about a minute: the result is kept in
  ``_build/explore`` and reused while this module and the recipe are unchanged.

:func:`export` writes both; the Sphinx extension (:mod:`embedbook.book.sphinxext`) calls it after a build that
holds the page.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import unicodedata
from pathlib import Path

import numpy as np

N_EN = 30_000
N_ZH = 20_000
DIM = 50
NAMES = {"en": "GloVe 6B 50d", "zh": "Word2Vec CBOW, People's Daily 1998"}
ZH_RECIPE = {"sg": "cbow", "vector_size": DIM, "epochs": 3, "seed": 0}  # chapter 10's Chinese model
_ASSIGN = re.compile(r"^\(window\.EXPLORE_TABLES = window\.EXPLORE_TABLES \|\| \{\}\)\[\"(\w+)\"\] = (.*);\s*$", re.S)


def normalise(word: str) -> str:
    """A word as the page looks it up: NFKC (full-width to half-width), lower case, no outer spaces."""
    return unicodedata.normalize("NFKC", word).lower().strip()


def prepare(words, vectors, n: int) -> tuple[list[str], np.ndarray]:
    """The first ``n`` words, normalised (:func:`normalise`; a word normalising to one already kept, or to
    nothing, is dropped with its row), and their vectors as float16.

    Raises:
        ValueError: ``n`` not a positive int, rows and words of different counts, or vectors beyond float16's
            range (about 65,504) or not finite.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"n must be a positive int (the words to keep), got {n!r}")
    vectors = np.asarray(vectors)
    if vectors.ndim != 2 or len(words) != len(vectors):
        raise ValueError(f"need one vector row per word: {len(words)} words, vectors of shape {vectors.shape}")
    if not np.isfinite(vectors).all() or np.abs(vectors).max(initial=0) > np.finfo(np.float16).max:
        raise ValueError("the vectors hold NaN, infinity or values beyond float16's range (65,504); rescale them")
    kept, rows, seen = [], [], set()
    for i, w in enumerate(words):
        key = normalise(w)
        if key and key not in seen and "\n" not in key:
            seen.add(key)
            kept.append(key)
            rows.append(i)
            if len(kept) == n:
                break
    return kept, vectors[rows].astype(np.float16)


def to_js(lang: str, name: str, words: list[str], half: np.ndarray) -> str:
    """The JavaScript file of one table: words joined by newlines, float16 rows little-endian in base64."""
    blob = base64.b64encode(np.ascontiguousarray(half, dtype="<f2").tobytes()).decode("ascii")
    meta = {"lang": lang, "name": name, "n": len(words), "d": int(half.shape[1]), "dtype": "float16",
            "words": "\n".join(words), "vectors": blob}
    return f'(window.EXPLORE_TABLES = window.EXPLORE_TABLES || {{}})["{lang}"] = ' \
           f"{json.dumps(meta, ensure_ascii=False)};\n"


def read_js(path: str | Path) -> tuple[dict, list[str], np.ndarray]:
    """A table file written by :func:`to_js`: its header (lang, name, n, d, dtype), its words and its vectors
    as float32 (exactly the page's values).

    Raises:
        ValueError: the file is not such a table.
    """
    text = Path(path).read_text(encoding="utf-8")
    m = _ASSIGN.match(text)
    if not m:
        raise ValueError(f"{path} is not an explorer table (written by embedbook.book.explore.to_js)")
    meta = json.loads(m.group(2))
    words = meta.pop("words").split("\n")
    half = np.frombuffer(base64.b64decode(meta.pop("vectors")), dtype="<f2").reshape(meta["n"], meta["d"])
    return meta, words, half.astype(np.float32)


def _cache_dir() -> Path:
    from embedbook import book

    return book.root() / "_build" / "explore"


def _key(lang: str) -> str:
    recipe = {"lang": lang, "n": N_EN if lang == "en" else N_ZH, "zh": ZH_RECIPE,
              "code": Path(__file__).read_text(encoding="utf-8")}
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


def source(lang: str) -> tuple[list[str], np.ndarray]:
    """The words and float32 vectors a table is cut from, most frequent first (GloVe, or the Chinese CBOW)."""
    from embedbook import data

    if lang == "en":
        kv = data.glove(N_EN * 2)  # room for the words that normalise to one already kept
        return list(kv.index_to_key), kv.vectors
    if lang == "zh":
        from embedbook import word2vec

        model = word2vec.train(data.peoples_daily(), **ZH_RECIPE)
        return list(model.wv.index_to_key), model.wv.vectors
    raise ValueError(f"unknown table {lang!r}: use 'en' or 'zh'")


def table(lang: str, cache: Path | None = None) -> tuple[list[str], np.ndarray]:
    """Table ``lang``'s normalised words and float16 vectors, from the cache when its recipe is unchanged."""
    cache = cache or _cache_dir()
    path = cache / f"{lang}-{_key(lang)}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as f:
            return [str(w) for w in f["words"]], f["half"]
    words, half = prepare(*source(lang), N_EN if lang == "en" else N_ZH)
    cache.mkdir(parents=True, exist_ok=True)
    for old in cache.glob(f"{lang}-*.npz"):
        old.unlink()
    np.savez(path, words=np.array(words, dtype=str), half=half)
    return words, half


def export(dest: str | Path, cache: Path | None = None) -> dict[str, int]:
    """Write ``en.js`` and ``zh.js`` into ``dest`` (``_static/explore`` of a built edition). Returns each
    file's size in bytes."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    sizes = {}
    for lang in ("en", "zh"):
        words, half = table(lang, cache)
        path = dest / f"{lang}.js"
        path.write_text(to_js(lang, NAMES[lang], words, half), encoding="utf-8")
        sizes[path.name] = path.stat().st_size
    return sizes
