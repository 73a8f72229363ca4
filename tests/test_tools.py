"""The maintainer's tools keep what they are given: the README's generated parts match the book
(tools/readme.py), a notebook survives a round trip through text unchanged (tools/nbtext.py), and a chapter's
cross-references point at pages that exist (what a one-page build cannot check)."""

import json
import subprocess
import sys

import pytest

from embedbook import book
from embedbook.book import page

ROOT = book.root()
sys.path.insert(0, str(ROOT / "tools"))
import nbtext  # noqa: E402
import readme  # noqa: E402


def test_readme_is_what_the_book_says():
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "readme.py"), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, "README.md differs from what tools/readme.py writes; run it:\n" + run.stdout[-3000:]


def test_readme_check_sees_a_typed_count():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.written(text, from_cache=False) == text
    from embedbook.book import claims

    typed = readme.COUNT.sub(f"<!-- n_claims -->{len(claims.CLAIMS) + 1}<!-- /n_claims -->", text)
    assert readme.written(typed, from_cache=False) != typed
    row = next(line for line in text.splitlines() if line.startswith("| 4 |"))
    assert readme.written(text.replace(row, row.replace("C08, C09", "C08")), from_cache=False) == text


def test_claim_ranges_are_read_as_written():
    assert readme.ids(["C31", "C32", "C33", "C34", "C47"]) == "C31–C34, C47"
    assert readme.ids(["C08", "C09"]) == "C08, C09"
    assert readme.duration(91) == "1 min 31 s" and readme.duration(7.4) == "7 s"


@pytest.mark.parametrize("path", sorted([*(ROOT / "chapters").glob("*/*.ipynb"), *(ROOT / "book").glob("*.ipynb")]),
                         ids=lambda p: p.name)
def test_notebook_round_trip_changes_nothing(path, tmp_path):
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    nb = nbtext.load(nbtext.dump(str(copy)), json.loads(copy.read_text(encoding="utf-8")))
    assert json.dumps(nb, ensure_ascii=False, indent=1) + "\n" == path.read_text(encoding="utf-8")


def test_edited_notebook_keeps_its_other_cells(tmp_path):
    path = book.chapter_path("04")
    old = json.loads(path.read_text(encoding="utf-8"))
    text = nbtext.dump(str(path)).replace("# Weight tying", "# Weight tying, edited", 1)
    text += "\n%% markdown\nA new cell.\n"
    new = nbtext.load(text, old)
    assert [c["id"] for c in new["cells"][:-1]] == [c["id"] for c in old["cells"]]
    assert new["cells"][-1]["id"] not in {c["id"] for c in old["cells"]}
    with pytest.raises(SystemExit, match="used twice"):
        nbtext.load(text + f"\n%% markdown id={old['cells'][0]['id']}\ncopied\n", old)


@pytest.mark.parametrize("name", book.chapters())
def test_cross_references_point_at_pages(name):
    assert not page.dangling_references(name)


def test_a_dangling_reference_is_found(monkeypatch):
    src = book._source
    monkeypatch.setattr(book, "_source", lambda cell: src(cell) + " {doc}`/chapters/ch99_none/99_none`")
    assert any("99_none" in d for d in page.dangling_references("04"))
