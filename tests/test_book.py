import json

import pytest

from embedbook import book, claims


def test_chapters_in_toc_order():
    names = book.chapters()
    assert names == sorted(names)
    assert all(book.chapter_path(n).exists() for n in names)


def test_unknown_chapter_names_known_ones():
    with pytest.raises(ValueError, match="01_tokens"):
        book.chapter_path("no_such_chapter")


def test_parameters_requires_exactly_one_cell(tmp_path):
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "x = 1"}], "metadata": {}}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    with pytest.raises(ValueError, match="exactly one cell tagged 'parameters'"):
        book.parameters(path)


def test_parameters_reads_defaults():
    params = book.parameters(book.chapter_path("03_sizing"))
    assert params["SMOKE"] is False and params["BYTES_D"] == 4096


def test_glued_values_reads_scrapbook_outputs(tmp_path):
    prefix = "application/papermill.record/"  # what myst_nb.glue writes
    cell = {"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {f"{prefix}text/plain": "3"},
                                              "metadata": {"scrapbook": {"name": "x", "mime_prefix": prefix}}}]}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": [cell]}))
    assert book.glued_values(path) == {"x": "3"}


def test_glued_values_of_an_executed_chapter():
    out = book.ROOT / "_build" / "papermill" / "03_sizing.ipynb"
    if not out.exists():
        out, _ = book.run_chapter("03_sizing", smoke=True, progress=False)
    values = book.glued_values(out)
    assert values["C05_verdict"].strip("'") in claims.VERDICTS and all(values.values())


def test_timing_names():
    assert book.is_timing("bench_copy_gbps") and book.is_timing("C01_bench_gather_growth")
    assert not book.is_timing("C01_verdict") and not book.is_timing("benchmark_words")


def test_glued_values_reads_the_build_sidecar(tmp_path):
    """Notebooks executed by the book build keep their glue in NAME.glue.json, not in the outputs."""
    (tmp_path / "ch.ipynb").write_text(json.dumps({"cells": []}))
    (tmp_path / "ch.glue.json").write_text(json.dumps({"y": {"data": {"text/plain": "'ok'"}}}))
    assert book.glued_values(tmp_path / "ch.ipynb") == {"y": "'ok'"}
