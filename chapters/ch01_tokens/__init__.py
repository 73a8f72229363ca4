"""Chapter 01: Tokens are ids, not words.

What you build in plain torch: a byte-level BPE merge loop; renumbering a vocabulary.

Its files: ``01_tokens.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch01.py`` (its tests), ``zh.po`` (its Chinese).
"""
