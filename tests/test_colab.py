"""Each chapter's first code cell installs the package on Colab only and does nothing elsewhere."""

import json
import sys
import types

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from embedbook import book
from embedbook.book import reader


def first_code_cell(name):
    nb = json.loads(book.chapter_path(name).read_text(encoding="utf-8"))
    return "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])


class FakeIPython:
    def __init__(self):
        self.calls = []

    def run_line_magic(self, magic, line):
        self.calls.append((magic, line))


def run_cell(source, on_colab, monkeypatch):
    shell = FakeIPython()
    if on_colab:
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    code = TransformerManager().transform_cell(source)
    exec(code, {"get_ipython": lambda: shell})
    return shell.calls


@pytest.mark.parametrize("name", book.notebooks())
def test_colab_cell_does_nothing_elsewhere(name, monkeypatch):
    assert run_cell(first_code_cell(name), on_colab=False, monkeypatch=monkeypatch) == []


@pytest.mark.parametrize("name", book.notebooks())
def test_colab_cell_installs_on_colab(name, monkeypatch):
    calls = run_cell(first_code_cell(name), on_colab=True, monkeypatch=monkeypatch)
    assert [c[0] for c in calls] == ["pip"]
    # the extras a chapter imports, not [book] (Sphinx, jupyter-book, papermill: the build's), from the one URL
    assert f"embedbook[{reader.EXTRAS}] @ git+{reader.repository_url()}" in calls[0][1]
    assert first_code_cell(name) == reader.install_cell_source()


@pytest.mark.parametrize("name", book.notebooks())
def test_colab_cell_has_no_manual_bpe_step(name):
    # GPT-2's and Whisper's BPE ranks ship inside the package (embedbook/resources), so no second install
    assert "openai-whisper" not in first_code_cell(name)
