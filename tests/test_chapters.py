"""Every chapter in _toc.yml, executed at smoke size through papermill, twice, with outbound network
blocked inside the kernel: it runs without error, glues every value its prose pastes, glues the same
values both times (timings, ``bench_*``, aside), and records a verdict for each claim it settles.

The executions run two at a time in subprocesses (``embedbook run``), so the two cores of the CI machine
are both used; the verdicts chapter runs after the others, because it reads their recorded verdicts.
Output notebooks are kept under ``_build/papermill`` and ``_build/papermill-second``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from embedbook import book
from embedbook.book import claims
from tests.conftest import CHAPTER_TIMES

CHAPTERS = book.notebooks()  # lessons and audit pages
VERDICTS = "16_verdicts"
ROOT = book.root()
FIRST, SECOND = ROOT / "_build" / "papermill", ROOT / "_build" / "papermill-second"

# An IPython startup file: socket.connect and getaddrinfo refuse anything but loopback inside the kernel.
GUARD = '''
import socket
_LOCAL = ("127.", "::1", "localhost")
def _local(host):
    return not isinstance(host, str) or host.startswith(_LOCAL) or host == ""
_connect, _getaddrinfo = socket.socket.connect, socket.getaddrinfo
def _guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(address[0]):
        raise OSError(f"offline test: network access to {address} blocked")
    return _connect(self, address)
def _guarded_getaddrinfo(host, *args, **kwargs):
    if not _local(host):
        raise OSError(f"offline test: name lookup of {host!r} blocked")
    return _getaddrinfo(host, *args, **kwargs)
socket.socket.connect = _guarded_connect
socket.getaddrinfo = _guarded_getaddrinfo
'''


def _offline_env(tmp) -> dict:
    startup = tmp / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-offline.py").write_text(GUARD)
    return {**os.environ, "IPYTHONDIR": str(tmp), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def _execute(name: str, out_dir, env: dict) -> tuple[float, str]:
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "embedbook.book.cli", "run", name, "--smoke", "--out", str(out_dir)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{proc.stderr[-6000:]}")
    return time.perf_counter() - start, proc.stdout


@pytest.fixture(scope="session")
def executions(tmp_path_factory) -> dict[tuple[str, int], Future]:
    """Start every execution (two workers): each chapter twice, the verdicts chapter after the others."""
    env = _offline_env(tmp_path_factory.mktemp("ipython"))
    pool = ThreadPoolExecutor(max_workers=2)
    jobs: dict[tuple[str, int], Future] = {}
    others = [n for n in CHAPTERS if n != VERDICTS]
    for run, out in ((1, FIRST), (2, SECOND)):
        for name in others:
            jobs[(name, run)] = pool.submit(_execute, name, out, env)
    if VERDICTS in CHAPTERS:
        before = [jobs[(n, r)] for n in others for r in (1, 2)]

        def after_the_others(run, out):
            for f in before:
                f.exception()  # wait; a failed chapter fails its own test, and the verdicts chapter then too
            return _execute(VERDICTS, out, env)

        for run, out in ((1, FIRST), (2, SECOND)):
            jobs[(VERDICTS, run)] = pool.submit(after_the_others, run, out)
    yield jobs
    pool.shutdown(wait=True)


def test_toc_lists_chapters():
    assert len(CHAPTERS) >= 3, CHAPTERS


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_rejects_unknown_parameter(name):
    with pytest.raises(ValueError, match="no parameter"):
        book.check_params(book.chapter_path(name), {"NOT_A_PARAMETER": 1})


@pytest.mark.chapters
@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_executes_smoke(name, executions):
    seconds, _ = executions[(name, 1)].result()
    CHAPTER_TIMES[name] = seconds
    executed = json.loads((FIRST / f"{name}.ipynb").read_text(encoding="utf-8"))
    errors = [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    glued = book.glued_values(FIRST / f"{name}.ipynb")
    assert glued, f"{name} glued no values"
    # every value the prose pastes must be glued by the chapter (the build would warn otherwise)
    prose = "".join("".join(c["source"]) for c in executed["cells"] if c["cell_type"] == "markdown")
    wanted = set(re.findall(r"\{glue(?::\w+)?\}`([^`:]+)", prose))
    missing = sorted(wanted - set(glued))
    assert not missing, f"{name}: the prose pastes glue names that were never glued: {missing}"


@pytest.mark.chapters
@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_is_deterministic(name, executions):
    """The second execution glues exactly what the first did (timings aside)."""
    executions[(name, 1)].result()
    executions[(name, 2)].result()
    a = {k: v for k, v in book.glued_values(FIRST / f"{name}.ipynb").items() if not book.is_timing(k)}
    b = {k: v for k, v in book.glued_values(SECOND / f"{name}.ipynb").items() if not book.is_timing(k)}
    assert a, f"{name} glued no values"
    differ = {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
    assert not differ, f"{name}: glued values changed between two executions: {json.dumps(differ, ensure_ascii=False)[:800]}"


@pytest.mark.chapters
@pytest.mark.parametrize("name", [book.recording_notebook(n) for n in book.chapters() if n != VERDICTS])
def test_chapter_records_its_claims(name, executions):
    """The notebook that decides a chapter's claims (its audit page) records a verdict for each of them."""
    executions[(name, 1)].result()
    store = claims.verdict_store(smoke=True)
    mine = [c.id for c in claims.CLAIMS.values() if c.chapter == book.chapter_of(name)]
    missing = [cid for cid in mine if not (store / f"{cid}.json").exists()]
    assert not missing, f"{name} settles {mine} but recorded no verdict for {missing}"


@pytest.mark.parametrize("name", [n for n in book.chapters() if book.audit_name(n)])
def test_lesson_decides_no_claim(name):
    """A lesson teaches and ends on its ideas: its claims are decided, and their boxes shown, on its audit page."""
    code = book._code_of(book.chapter_path(name))
    assert "claims.run(" not in code and "claims.show(" not in code, (
        f"{name}: a lesson runs or shows a claim; move it to {book.audit_name(name)}.ipynb")


@pytest.mark.chapters
def test_verdicts_chapter_fails_without_a_verdict(executions, tmp_path):
    """Remove one chapter's verdict from a copy of the records: the verdicts chapter must fail, naming it."""
    if VERDICTS not in CHAPTERS:
        pytest.skip("no verdicts chapter")
    executions[(VERDICTS, 1)].result()
    shutil.copytree(claims.verdict_store(smoke=True), tmp_path / "smoke")
    (tmp_path / "smoke" / "C08.json").unlink()
    env = {**os.environ, "EMBEDBOOK_VERDICTS": str(tmp_path)}
    with pytest.raises(RuntimeError, match="C08"):
        _execute(VERDICTS, tmp_path / "out", env)
