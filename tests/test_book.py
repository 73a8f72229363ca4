import json
from dataclasses import dataclass

import pytest

from embedbook import book
from embedbook.book import claims


def test_chapters_in_toc_order():
    names = book.chapters()
    assert names == sorted(names)
    assert all(book.chapter_path(n).exists() for n in names)


def test_unknown_chapter_names_known_ones():
    with pytest.raises(ValueError, match="01_tokens"):
        book.chapter_path("no_such_chapter")


def test_root_found_from_a_subfolder(monkeypatch):
    monkeypatch.delenv("EMBEDBOOK_ROOT", raising=False)
    monkeypatch.chdir(book.root() / "book")
    assert (book.root() / "_toc.yml").exists()


def test_root_outside_a_checkout_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setenv("EMBEDBOOK_ROOT", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="EMBEDBOOK_ROOT"):
        book.root()


def _nb(tmp_path, *cells):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": list(cells), "metadata": {}}))
    return path


def test_parameters_requires_exactly_one_cell(tmp_path):
    path = _nb(tmp_path, {"cell_type": "code", "metadata": {}, "source": "x = 1"})
    with pytest.raises(ValueError, match="exactly one cell tagged 'parameters'"):
        book.parameters(path)


def test_parameters_with_and_without_smoke(tmp_path):
    path = _nb(
        tmp_path,
        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "SMOKE = False\nN = 100\nLR = 0.1"},
        {"cell_type": "code", "metadata": {"tags": ["smoke"]}, "source": "if SMOKE:\n    N = 5"},
    )
    assert book.parameters(path) == {"SMOKE": False, "N": 100, "LR": 0.1}
    assert book.parameters(path, smoke=True) == {"SMOKE": True, "N": 5, "LR": 0.1}


@pytest.mark.parametrize("value, ok", [(6400, True), (6400.0, False), ("abc", False), (True, False)])
def test_params_keep_their_declared_type(value, ok):
    path = book.chapter_path("03_sizing")
    declared = book.parameters(path)
    name = next(k for k, v in declared.items() if isinstance(v, int) and not isinstance(v, bool))
    if ok:
        book.check_params(path, {name: value})
    else:
        with pytest.raises(ValueError, match=f"parameter {name}"):
            book.check_params(path, {name: value})


def test_float_parameter_takes_an_int(tmp_path):
    path = _nb(tmp_path, {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "SMOKE = False\nLR = 0.1"})
    book.check_params(path, {"LR": 1})


def test_glued_values_reads_scrapbook_outputs(tmp_path):
    prefix = "application/papermill.record/"  # what myst_nb.glue writes
    cell = {"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {f"{prefix}text/plain": "3"},
                                              "metadata": {"scrapbook": {"name": "x", "mime_prefix": prefix}}}]}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": [cell]}))
    assert book.glued_values(path) == {"x": "3"}


def test_glued_values_reads_the_build_sidecar(tmp_path):
    """Notebooks executed by the book build keep their glue in NAME.glue.json, not in the outputs."""
    (tmp_path / "ch.ipynb").write_text(json.dumps({"cells": []}))
    (tmp_path / "ch.glue.json").write_text(json.dumps({"y": {"data": {"text/plain": "'ok'"}}}))
    assert book.glued_values(tmp_path / "ch.ipynb") == {"y": "'ok'"}


def test_timing_names():
    assert book.is_timing("bench_copy_gbps") and book.is_timing("C01_bench_gather_growth")
    assert not book.is_timing("C01_verdict") and not book.is_timing("benchmark_words")


def test_glue_refuses_a_bool():
    with pytest.raises(TypeError, match="words"):
        book.glue("flag", True)


def test_result_glues_its_scalar_fields(monkeypatch):
    seen = {}
    monkeypatch.setattr(book, "glue", lambda name, value, verbatim=False: seen.__setitem__(name, value))

    @dataclass
    class R(book.Result):
        n: int
        text: str
        rows: list
        flag: bool

        def extra_glue(self):
            return {"twice": 2 * self.n}

    R(3, "a", [1, 2], True).glue("r_")
    assert seen == {"r_n": 3, "r_text": "a", "r_twice": 6}


def test_verdict_records_round_trip(monkeypatch, tmp_path):
    monkeypatch.setenv("EMBEDBOOK_VERDICTS", str(tmp_path))
    v = claims.judge("C02", {"max_diff": 0.0}, lambda outcome: "evidence")
    path = claims.record_verdict(v, smoke=True)
    record = json.loads(path.read_text())
    assert record["verdict"] == claims.CONFIRMED and record["chapter"] == "02_lookup" and record["size"] == "smoke"
    with pytest.raises(RuntimeError, match="C01"):  # the other 48 are missing
        claims.recorded_verdicts(smoke=True)


def test_glue_writes_what_myst_nb_reads():
    """book.glue avoids importing myst-nb (it loads Sphinx); its record must stay the one myst-nb reads."""
    from myst_nb.ext.glue import GLUE_PREFIX

    assert book.GLUE_PREFIX == GLUE_PREFIX


def _one_claim_store(monkeypatch, tmp_path):
    """A verdict store holding C02's record only, with the register cut down to C02."""
    monkeypatch.setenv("EMBEDBOOK_VERDICTS", str(tmp_path))
    monkeypatch.setattr(claims, "CLAIMS", {"C02": claims.CLAIMS["C02"]})
    v = claims.judge("C02", {"max_diff": 0.0}, lambda outcome: "evidence")
    return claims.record_verdict(v, smoke=True)


def test_fresh_record_is_accepted(monkeypatch, tmp_path):
    _one_claim_store(monkeypatch, tmp_path)
    assert claims.recorded_verdicts(smoke=True)["C02"]["verdict"] == claims.CONFIRMED


def test_record_from_older_inputs_is_stale(monkeypatch, tmp_path):
    _one_claim_store(monkeypatch, tmp_path)
    monkeypatch.setattr(book, "chapter_digest", lambda chapter: "0" * 64)  # the sources changed since
    with pytest.raises(RuntimeError, match="C02 are stale"):
        claims.recorded_verdicts(smoke=True)


def test_inputs_are_everything_a_chapter_imports():
    """A verdict's digest covers the notebook, the chapter's own modules and every module they import, followed
    from import to import: chapter 03's sizes live in ``embedbook.sizing`` (its ``MODELS`` table), which its
    notebook imports; chapter 07 imports chapter 03's measurements. Its tests and other chapters' files are out."""
    root = book.root()
    names = {p.relative_to(root).as_posix() for p in book.inputs("03")}
    assert {"chapters/ch03_sizing/03_sizing.ipynb", "chapters/ch03_sizing/measure.py", "chapters/ch03_sizing/claims.py",
            "embedbook/sizing.py", "embedbook/book/claims.py", "chapters/ch03_sizing/zh.po",
            "locale/zh/book.po"} <= names
    assert not any(n.startswith("chapters/ch03_sizing/test_") for n in names)
    assert not any(n.startswith("chapters/ch04") for n in names)
    seven = {p.relative_to(root).as_posix() for p in book.inputs("07")}
    assert "chapters/ch03_sizing/measure.py" in seven


def test_digest_changes_with_a_library_table(monkeypatch):
    """Editing ``sizing.MODELS`` (a library module, not the chapter's own files) makes chapter 03's records stale."""
    from pathlib import Path

    before = book.chapter_digest("03_sizing")
    sizing = (book.root() / "embedbook" / "sizing.py").resolve()
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: real(self) + (b"# edited" if self.resolve() == sizing else b""))
    assert book.chapter_digest("03_sizing") != before
    assert book.chapter_digest("03") != before


def test_resolve_finds_a_chapter_by_its_number():
    assert book.resolve(4) == book.resolve("04") == book.resolve("ch04_tying") == "04_tying"
    assert book.chapter_dir("4").name == "ch04_tying"
    with pytest.raises(ValueError, match="a number is enough"):
        book.resolve("99")


def test_record_that_no_longer_follows_from_its_figures_is_refused(monkeypatch, tmp_path):
    path = _one_claim_store(monkeypatch, tmp_path)
    record = json.loads(path.read_text())
    record["verdict"] = claims.REFUTED  # as if the rule had been edited after the run
    path.write_text(json.dumps(record))
    with pytest.raises(RuntimeError, match="no longer follow from their figures"):
        claims.recorded_verdicts(smoke=True)


def test_a_notebook_runs_again_only_when_its_inputs_changed(monkeypatch):
    """`make book` after a one-chapter edit: the edited chapter runs again; a chapter whose notebook, code and
    imports are unchanged, with its records in place, does not."""
    from embedbook.book import execute

    monkeypatch.setattr(execute, "_records_complete", lambda name, digest: True)
    ran_with = {name: book.inputs_digest(name) for name in ("04_tying", "07_dimension")}
    assert not execute.needs_run("04_tying", ran_with) and not execute.needs_run("07_dimension", ran_with)
    assert execute.needs_run("03_sizing", ran_with)  # never ran here
    ran_with["04_tying"] = "0" * 64  # its notebook or code changed since
    assert execute.needs_run("04_tying", ran_with) and not execute.needs_run("07_dimension", ran_with)
    monkeypatch.setattr(execute, "_records_complete", lambda name, digest: name != "07_dimension")
    assert execute.needs_run("07_dimension", ran_with)  # its verdict records went missing


def test_a_notebook_due_again_loses_its_cached_outputs(tmp_path):
    """jupyter-cache matches a notebook by its cells, so a chapter whose code changed but whose notebook did not
    would count as executed (and its parallel executor ignores ``force``): its cached outputs are dropped first."""
    import nbformat
    from jupyter_cache import get_cache

    from embedbook.book import execute

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "demo.ipynb"
    nbformat.write(nb, path)
    cache = get_cache(str(tmp_path / "cache"))
    cache.cache_notebook_file(str(path), check_validity=False)
    assert cache.match_cache_notebook(nbformat.read(path, as_version=4))
    execute._forget(cache, str(path))
    with pytest.raises(KeyError):
        cache.match_cache_notebook(nbformat.read(path, as_version=4))
    execute._forget(cache, str(path))  # never cached (any more): nothing to drop
