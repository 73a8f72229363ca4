"""Chapter 08: Measuring similarity: cosine, length and fast retrieval.

What you build in plain torch: cosine, unit rows, one matmul for all neighbours; the interleaved timing loop of
three routes.

Its files: ``08_similarity.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims:
register entries, rules, sources, checks), ``test_ch08.py`` (its tests), ``zh.po`` (its Chinese).
"""
