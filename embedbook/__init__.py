"""embedbook: the embedding layer of language models, re-derived and re-measured.

The package behind the embedbook Jupyter Book. One module per topic; each public function names the
chapters that use it. Start with :mod:`embedbook.data` (offline models, vectors, corpora) and
:mod:`embedbook.claims` (the articles' claims and their verdicts).
"""

__version__ = "0.1.0"
