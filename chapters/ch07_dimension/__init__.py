"""Chapter 07: Choosing the dimension.

What you build in plain torch: QKᵀ and AV shapes; FLOPs counted by PyTorch; one sweep run with early stopping.

Its files: ``07_dimension.ipynb`` (the page), ``measure.py`` (its measurements), ``claims.py`` (its claims: register
entries, rules, sources, checks), ``test_ch07.py`` (its tests), ``zh.po`` (its Chinese).
"""
