"""Chapter 14: Scaling the embedding layer: n-gram tables and adaptive input.

What you build in plain torch: a hashed bigram table; adaptive input bands.

Its files: ``14_scaling.ipynb`` (the lesson), ``14_audit.ipynb`` (its audit page: the claims decided),
``measure.py`` (its measurements), ``claims.py`` (its claims: register entries, rules, sources, checks),
``test_ch14.py`` (its tests), ``zh.po`` (its Chinese).
"""
