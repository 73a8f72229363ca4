"""Reader notebooks (embedbook.book.reader): every chapter and book notebook, converted with stand-in glued values
(the stored notebooks have no outputs), renders under a CommonMark renderer with no MyST role or directive left."""

import json
import re

import pytest
from markdown_it import MarkdownIt

from embedbook import book
from embedbook.book import reader

ROOT = book.root()
NOTEBOOKS = sorted(p for p in list(ROOT.glob("chapters/*/*.ipynb")) + list(ROOT.glob("book/*.ipynb")))
# what a MyST role or directive looks like once CommonMark has rendered it
LEFT_OVER = re.compile(r"\{[a-z][\w:\-]*\}<code>|<code class=\"language-\{|\{[a-z][\w:\-]*\}`|^\([\w\-.:]+\)=$", re.M)
ROLE_NAMES = re.compile(r"\{[a-z][\w:\-]*\}`([^`]*)`")


def _stand_ins(nb: dict) -> dict:
    """An executed-looking copy: one glue record per name the prose uses, valued 0.85."""
    names = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            text = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            names |= {m.partition(":")[0] for m in re.findall(r"\{glue(?::text)?\}`([^`]*)`", text)}
    outputs = [{"output_type": "display_data", "metadata": {"scrapbook": {"name": n, "mime_prefix": book.GLUE_PREFIX}},
                "data": {book.GLUE_PREFIX + "text/plain": "0.85"}} for n in sorted(names)]
    fake = json.loads(json.dumps(nb))
    fake["cells"].append({"cell_type": "code", "metadata": {}, "source": "", "outputs": outputs, "execution_count": 1})
    return fake


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_reader_notebook_is_plain_commonmark(path, lang):
    nb = _stand_ins(json.loads(path.read_text(encoding="utf-8")))
    docname = path.relative_to(ROOT).with_suffix("").as_posix()
    out = reader.reader_notebook(nb, docname, lang)
    md = MarkdownIt("commonmark")
    for cell in out["cells"]:
        if cell["cell_type"] != "markdown":
            # the reader's run writes its own outputs; a page that reads the build's records keeps the book's
            assert not cell["outputs"] or docname in reader.READS_THE_BUILD
            continue
        html = md.render(cell["source"])
        left = LEFT_OVER.findall(html) + LEFT_OVER.findall(cell["source"])
        assert not left, f"{docname} ({lang}): MyST left in a cell: {left[:3]}\n{cell['source'][:300]}"
    if docname in reader.READS_THE_BUILD:
        assert "reads the verdicts the book's build recorded" in out["cells"][0]["source"] or lang == "zh"
        assert not reader.runs_on_colab(docname, path.read_text(encoding="utf-8"))
    if any(c["cell_type"] == "code" and "google.colab" in "".join(c["source"]) for c in nb["cells"]):
        first = next(c for c in out["cells"] if c["cell_type"] == "code")
        assert f"embedbook[{reader.EXTRAS}] @ git+{reader.repository_url()}" in first["source"]


def test_glued_values_written_in_as_the_page_shows_them():
    conv = reader.Converter("chapters/ch04_tying/04_tying", "en", {"acc": "0.8512", "word": "'king'"})
    text = conv.markdown("Accuracy {glue:text}`acc:.2f`, word {glue:text}`word`; see {doc}`../ch09_analogies/09_analogies` "
                         "and {doc}`the glossary </book/glossary>` ({cite:p}`devlin2019bert`).")
    assert "Accuracy 0.85, word king;" in text
    assert "](https://embedbook.github.io/embedbook/chapters/ch09_analogies/09_analogies.html)" in text
    assert "[the glossary](https://embedbook.github.io/embedbook/book/glossary.html)" in text
    assert "([Devlin et al. 2019](https://embedbook.github.io/embedbook/book/bibliography.html))" in text
    assert text.endswith(reader.NOTE["en"])


@pytest.mark.parametrize("value, spec, shown", [("64000", ",", "64,000"), ("0.551", ".0%", "55%"), ("'queen'", "s", "queen"),
                                                ("13042.7", ",.0f", "13,043"), ("7", "", "7")])
def test_glue_text_formats_as_myst_nb(value, spec, shown):
    assert reader.glue_text(value, spec) == shown


def test_admonition_becomes_a_quote_with_a_bold_title():
    conv = reader.Converter("chapters/ch04_tying/04_tying", "zh", {})
    text = conv.markdown("```{admonition} Answers\n:class: dropdown\n1. two\n2. three\n```")
    assert text == "> **Answers**\n>\n> 1. two\n> 2. three"


def test_missing_glue_is_named():
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "{glue:text}`nowhere`"}], "metadata": {}}
    with pytest.raises(LookupError, match="nowhere"):
        reader.reader_notebook(nb, "chapters/ch04_tying/04_tying", "en")
