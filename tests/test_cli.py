from embedbook.book import cli


def test_list_prints_chapters(capsys):
    assert cli.main(["list"]) == 0
    assert "02_lookup" in capsys.readouterr().out


def test_run_unknown_chapter_fails_clearly(capsys):
    assert cli.main(["run", "no_such_chapter", "--smoke"]) == 2
    assert "unknown chapter" in capsys.readouterr().err


def test_run_unknown_parameter_fails_clearly(capsys):
    assert cli.main(["run", "03_sizing", "--smoke", "-p", "NOPE=1"]) == 2
    assert "no parameter" in capsys.readouterr().err


def test_run_refuses_a_value_of_the_wrong_type(capsys):
    """Finding 2: `-p BYTES_V=abc` ended in a 50-line PapermillExecutionError."""
    assert cli.main(["run", "02_lookup", "--smoke", "-p", "BW_TOKENS=abc"]) == 2
    assert "BW_TOKENS" in capsys.readouterr().err


def test_explicit_parameter_wins_over_smoke(tmp_path, monkeypatch):
    """Finding 2: `run 03_sizing --smoke -p BYTES_V=6400` ran with the smoke value 3200."""
    import json

    from embedbook import book

    (tmp_path / "book").mkdir()
    (tmp_path / "chapters" / "ch01_demo").mkdir(parents=True)
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n  - file: chapters/ch01_demo/01_demo\n")
    cells = [("parameters", "SMOKE = False\nN = 1000\nM = 10"), ("smoke", "if SMOKE:\n    N, M = 5, 2"),
             (None, "print(N, M)")]
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": [t]} if t else {}, "source": src, "outputs": [],
                     "execution_count": None} for t, src in cells],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "chapters" / "ch01_demo" / "01_demo.ipynb").write_text(json.dumps(nb))
    monkeypatch.setenv("EMBEDBOOK_ROOT", str(tmp_path))
    out, _ = book.run_chapter("01_demo", smoke=True, params={"N": 64}, out_dir=tmp_path / "out", progress=False)
    printed = json.loads(out.read_text())["cells"][-1]["outputs"][0]["text"]
    assert "".join(printed).split() == ["64", "2"]  # the explicit N wins, the other smoke size stays


def test_run_writes_where_asked(tmp_path, monkeypatch):
    """Finding 11: run always wrote into the checkout."""
    from embedbook import book

    seen = {}
    monkeypatch.setattr(book, "run_chapter", lambda name, smoke, params, out_dir: seen.update(out=out_dir) or (out_dir, 0.0))
    assert cli.main(["run", "02_lookup", "--smoke", "--out", str(tmp_path)]) == 0
    assert seen["out"] == tmp_path


def test_list_works_from_any_folder_of_the_checkout(capsys, monkeypatch):
    """Finding 11: 'FileNotFoundError: _toc.yml not found' even inside a checkout."""
    from embedbook import book

    monkeypatch.delenv("EMBEDBOOK_ROOT", raising=False)
    monkeypatch.chdir(book.root() / "tests")
    assert cli.main(["list"]) == 0


def test_outside_a_checkout_the_error_says_what_to_do(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("EMBEDBOOK_ROOT", str(tmp_path))
    assert cli.main(["list"]) == 2
    assert "EMBEDBOOK_ROOT" in capsys.readouterr().err


def test_bench_refuses_bad_sizes_with_help(capsys):
    """Finding 6: `--dim 0` printed 'copy 0.0 GB/s', `--vocab 0` a torch traceback; the options had no help."""
    import pytest

    for arg in (["--dim", "0"], ["--vocab", "0"], ["--reps", "x"]):
        with pytest.raises(SystemExit):
            cli.main(["bench", *arg])
        err = capsys.readouterr().err
        assert "must be positive" in err or "whole number" in err
    with pytest.raises(SystemExit):
        cli.main(["bench", "--help"])
    assert "tokens per batch" in capsys.readouterr().out


def test_bench_json(capsys):
    assert cli.main(["bench", "--tokens", "512", "--dim", "16", "--vocab", "100", "--reps", "1", "--device", "cpu", "--json"]) == 0
    import json

    r = json.loads(capsys.readouterr().out)
    assert r["device"] == "cpu" and r["plain_fraction"] > 0 and "cache" in r["note"]


def test_version_comes_from_the_installed_metadata(capsys):
    import importlib.metadata

    import pytest

    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"embedbook {importlib.metadata.version('embedbook')}"


def test_help_texts_have_no_rest_markup(capsys):
    """Issue 18: --help showed reST double backticks."""
    import pytest

    for argv in (["--help"], *([name, "--help"] for name in ("list", "run", "execute", "build", "bench"))):
        with pytest.raises(SystemExit):
            cli.main(argv)
        out = capsys.readouterr().out
        assert "usage: embedbook" in out and "``" not in out, argv


def _without(monkeypatch, *blocked):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a, **k: None if name in blocked else real(name, *a, **k))


def test_book_commands_without_the_book_extra_say_what_to_install(capsys, monkeypatch):
    """Issue 18: `embedbook run` / `build` without [book] gave a raw ModuleNotFoundError."""
    from embedbook import book

    _without(monkeypatch, "papermill", "jupyter_cache")
    ran = []
    monkeypatch.setattr(book, "run_chapter", lambda *a, **k: ran.append(a))
    from embedbook.book import execute

    monkeypatch.setattr(execute, "execute_into_cache", lambda *a, **k: ran.append(a))
    for argv, missing in ((["run", "02_lookup", "--smoke"], "papermill"), (["execute"], "jupyter_cache"),
                          (["build"], "jupyter_cache")):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert "needs the [book] extra" in err and missing in err and "[book]" in err, err
        assert "pip install -e '" in err or "@ git+" in err, err  # a command that works, not pip install 'embedbook[book]'
        assert "Traceback" not in err
    assert ran == []  # refused before anything started


def test_bench_and_list_need_no_book_extra(capsys, monkeypatch):
    _without(monkeypatch, "papermill", "jupyter_cache", "jupyter_book", "nbformat", "ipykernel")
    assert cli.main(["list"]) == 0
    assert cli.main(["bench", "--tokens", "64", "--dim", "8", "--vocab", "50", "--reps", "1", "--device", "cpu", "--json"]) == 0
