"""Chapter 13: Quantising the table.

What you build in plain torch: row-wise INT8 in four lines; two INT4 values per byte; quantise-and-rank.

Its files: ``13_quantize.ipynb`` (the lesson), ``13_audit.ipynb`` (its audit page: the claims decided),
``measure.py`` (its measurements), ``claims.py`` (its claims: register entries, rules, sources, checks),
``test_ch13.py`` (its tests), ``zh.po`` (its Chinese).
"""
