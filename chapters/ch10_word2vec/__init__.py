"""Chapter 10: Word2Vec: learned embeddings are a map of usage.

What you build in plain torch: one skip-gram negative-sampling step by hand; the skip-gram training loop.

Its files: ``10_word2vec.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch10.py`` (its tests), ``zh.po`` (its Chinese).
"""
