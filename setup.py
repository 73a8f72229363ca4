"""The packages, which pyproject.toml cannot list without typing each chapter: the library and the book's layer
(``embedbook/``), and every chapter's folder (``chapters/chNN_name/``) installed as ``embedbook.chapters.chNN_name``,
so that a chapter's measurements and claims run wherever the package is installed (Colab included). Everything
else is in pyproject.toml."""

from setuptools import find_packages, setup

chapters = ["embedbook.chapters"] + [f"embedbook.chapters.{name}" for name in find_packages("chapters")]
setup(packages=find_packages(include=["embedbook", "embedbook.*"]) + chapters,
      package_dir={"embedbook.chapters": "chapters"})
