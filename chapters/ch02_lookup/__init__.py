"""Chapter 02: Lookup is a matrix product.

What you build in plain torch: `E[ids]` = `one_hot(ids) @ E` = a bias-free `Linear`; the gradient of a lookup;
rotary positions; the interleaved timing loop.

Its files: ``02_lookup.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch02.py`` (its tests), ``zh.po`` (its Chinese).
"""
