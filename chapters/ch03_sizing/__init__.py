"""Chapter 03: Parameters and memory.

What you build in plain torch: V·d on the meta device; a Transformer layer's 12·d² counted.

Its files: ``03_sizing.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch03.py`` (its tests), ``zh.po`` (its Chinese).
"""
