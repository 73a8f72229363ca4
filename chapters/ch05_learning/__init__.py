"""Chapter 05: How embeddings learn.

What you build in plain torch: the rows a step touches; SGD vs Adam on untouched rows; the 苹果/香蕉 training run with
early stopping.

Its files: ``05_learning.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch05.py`` (its tests), ``zh.po`` (its Chinese).
"""
