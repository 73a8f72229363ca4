"""The packages, which pyproject.toml cannot list without typing each chapter: the library and the book's layer
(``embedbook/``), and every chapter's folder (``chapters/chNN_name/``) installed as ``embedbook.chapters.chNN_name``,
so that a chapter's measurements and claims run wherever the package is installed (Colab included). A chapter's
tests stay out of the wheel. Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


class WithoutTests(build_py):
    """A chapter's ``test_chNN.py`` is neither a module of the wheel nor its data."""

    def find_package_modules(self, package, package_dir):
        return [m for m in super().find_package_modules(package, package_dir) if not m[1].startswith("test_")]

    def exclude_data_files(self, package, src_dir, files):
        return [f for f in super().exclude_data_files(package, src_dir, files) if not Path(f).name.startswith("test_")]


chapters = ["embedbook.chapters"] + [f"embedbook.chapters.{name}" for name in find_packages("chapters")]
setup(packages=find_packages(include=["embedbook", "embedbook.*"]) + chapters,
      package_dir={"embedbook.chapters": "chapters"}, cmdclass={"build_py": WithoutTests})
