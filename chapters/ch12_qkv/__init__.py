"""Chapter 12: From embeddings to Q, K and V.

What you build in plain torch: MiniLM's layer-0 attention rebuilt from its weights.

Its files: ``12_qkv.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch12.py`` (its tests), ``zh.po`` (its Chinese).
"""
