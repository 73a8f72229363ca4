"""Chapter 11: Static and contextual representations.

What you build in plain torch: the same row at layer 0, different vectors at layer 6; MEV on a synthetic word; the
per-layer share and one bootstrap draw.

Its files: ``11_contextual.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims:
register entries, rules, sources, checks), ``test_ch11.py`` (its tests), ``zh.po`` (its Chinese).
"""
