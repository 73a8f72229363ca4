"""Chapter 15: Practical choices: fine-tuning and languages.

What you build in plain torch: freezing and slowing the table; an orthogonal (Procrustes) map; one fine-tuning run
with early stopping.

Its files: ``15_practice.ipynb`` (the lesson), ``15_audit.ipynb`` (its audit page: the claims decided),
``measure.py`` (its measurements), ``claims.py`` (its claims: register entries, rules, sources, checks),
``test_ch15.py`` (its tests), ``zh.po`` (its Chinese).
"""
