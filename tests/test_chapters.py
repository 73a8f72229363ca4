"""Every chapter in _toc.yml: well-formed (one parameters cell, no stored outputs), rejects unknown
parameters, and executes with SMOKE=True through papermill (output notebooks under _build/papermill)."""

import json
import re

import pytest

from embedbook import book
from tests.conftest import CHAPTER_TIMES

CHAPTERS = book.chapters()


def test_toc_lists_chapters():
    assert len(CHAPTERS) >= 3, CHAPTERS


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_is_stored_clean(name):
    nb = json.loads(book.chapter_path(name).read_text(encoding="utf-8"))
    dirty = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, f"{name}: cells {dirty} have stored outputs; strip them before committing"
    params = book.parameters(book.chapter_path(name))
    assert params.get("SMOKE") is False, f"{name}: the parameters cell must set SMOKE = False"
    assert nb["metadata"]["kernelspec"]["name"] == book.KERNEL


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_rejects_unknown_parameter(name):
    with pytest.raises(ValueError, match="no parameter"):
        book.run_chapter(name, params={"NOT_A_PARAMETER": 1})


@pytest.mark.chapters
@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_executes_smoke(name):
    out, seconds = book.run_chapter(name, smoke=True, progress=False)
    CHAPTER_TIMES[name] = seconds
    print(f"{name}: {seconds:.1f} s")
    executed = json.loads(out.read_text(encoding="utf-8"))
    errors = [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    glued = book.glued_values(out)
    assert glued, f"{name} glued no values"
    # every value the prose pastes must be glued by the chapter (the build would warn otherwise)
    prose = "".join("".join(c["source"]) for c in executed["cells"] if c["cell_type"] == "markdown")
    wanted = set(re.findall(r"\{glue(?::\w+)?\}`([^`:]+)", prose))
    missing = sorted(wanted - set(glued))
    assert not missing, f"{name}: the prose pastes glue names that were never glued: {missing}"
