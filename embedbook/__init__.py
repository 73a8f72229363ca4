"""embedbook: the embedding layer of language models, re-derived and re-measured.

The library (what you import into your own work), one module per topic:

- :mod:`embedbook.lookup` — gather vs one-hot matmul vs bias-free Linear, a device-aware fast lookup,
  bandwidth against a memory copy, a vocab-parallel lookup;
- :mod:`embedbook.sizing` — parameter and byte counts of embedding tables and published models;
- :mod:`embedbook.tokenize` — the real GPT-2 BPE and MiniLM WordPiece, offline; training a BPE;
- :mod:`embedbook.lm` — a small Transformer language model (tied or untied, any init, adaptive or
  n-gram inputs) and a training loop with early stopping;
- :mod:`embedbook.init`, :mod:`embedbook.dynamics`, :mod:`embedbook.similarity`,
  :mod:`embedbook.word2vec`, :mod:`embedbook.contextual`, :mod:`embedbook.quantize`,
  :mod:`embedbook.ngram` — initialisation schemes, training dynamics, similarity and analogies,
  Word2Vec, contextual states and Q/K/V, quantised tables, n-gram and adaptive embeddings;
- :mod:`embedbook.data` (offline models, vectors and corpora), :mod:`embedbook.device`,
  :mod:`embedbook.timing`, :mod:`embedbook.stats`, :mod:`embedbook.plotting`.

The book's own layer sits on top and is never imported by the library: :mod:`embedbook.book` (the chapter
runner and glue, with :mod:`~embedbook.book.claims` the claims machinery, :mod:`~embedbook.book.i18n` and
:mod:`~embedbook.book.translations` the two editions, :mod:`~embedbook.book.sphinxext` the build's extension,
:mod:`~embedbook.book.cli` the ``embedbook`` command) and :mod:`embedbook.chapters` (one package per chapter:
its measurements and its claims, installed from the checkout's ``chapters/`` folder).

Every module is importable as an attribute after ``import embedbook`` (loaded on first use).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

LIBRARY = (
    "align", "contextual", "data", "device", "dynamics", "init", "lm", "lookup", "ngram", "plotting", "quantize",
    "similarity", "sizing", "stats", "timing", "tokenize", "word2vec",
)
BOOK = ("book", "chapters")
__all__ = [*LIBRARY, *BOOK]


def __getattr__(name: str):
    if name in __all__:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'embedbook' has no attribute {name!r}; its modules are {', '.join(__all__)}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
