"""Chapter 04: Weight tying.

What you build in plain torch: one table as input and output; the two gradients summed; one training run with early
stopping.

Its files: ``04_tying.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch04.py`` (its tests), ``zh.po`` (its Chinese).
"""
