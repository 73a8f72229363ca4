"""Chapter 09: King − man + woman: what analogies show, and where they break.

What you build in plain torch: 3CosAdd in five lines, with and without excluding the inputs.

Its files: ``09_analogies.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch09.py`` (its tests), ``zh.po`` (its Chinese).
"""
