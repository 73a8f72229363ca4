"""The book's chapters, one folder each, found by its number: ``chapters/chNN_name/`` holds the chapter's
notebook (``NN_name.ipynb``), its measurements (``measure.py``), its claims — register entries, declared rules,
sources and checks — (``claims.py``), its tests (``test_chNN.py``) and its Chinese (``zh.po``).

Installed as :mod:`embedbook.chapters` (the wheel carries the Python, so a chapter runs on Colab); part of the
book's layer, never imported by the library.
"""
