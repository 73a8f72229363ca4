from embedbook import cli


def test_list_prints_chapters(capsys):
    assert cli.main(["list"]) == 0
    assert "02_lookup" in capsys.readouterr().out


def test_run_unknown_chapter_fails_clearly(capsys):
    assert cli.main(["run", "no_such_chapter", "--smoke"]) == 2
    assert "unknown chapter" in capsys.readouterr().err


def test_run_unknown_parameter_fails_clearly(capsys):
    assert cli.main(["run", "03_sizing", "--smoke", "-p", "NOPE=1"]) == 2
    assert "no parameter" in capsys.readouterr().err
