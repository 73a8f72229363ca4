"""Chapter 06: Initialisation.

What you build in plain torch: five schemes in one line each; their logit scale; one warm-up run with early
stopping.

Its files: ``06_init.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch06.py`` (its tests), ``zh.po`` (its Chinese).
"""
