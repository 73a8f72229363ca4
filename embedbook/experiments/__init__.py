"""The book's experiments and claim checks, one module per chapter (``chNN_name``).

Each module holds the chapter's measurements (``run_*``, returning typed results — subclasses of
:class:`embedbook.book.Result` — that glue themselves), the declared rule of each claim the chapter
settles (:func:`embedbook.claims.rule`) and its check (``check_cNN(result) -> Verdict``).

Experiments import the library (``embedbook.<topic>``) and the claims register; the library imports
neither (``tests/test_layers.py`` reads the imports and fails otherwise). These modules are not part of
the API reference: they are the book's lab notebooks in code.
"""
