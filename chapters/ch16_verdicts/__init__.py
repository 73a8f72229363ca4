"""Chapter 16: Verdicts: what the two articles got right, and where they did not.

What you build in plain torch: nothing: the page reads every chapter's recorded verdict.

Its files: ``16_verdicts.ipynb`` (the page), ``zh.po`` (its Chinese).
"""
