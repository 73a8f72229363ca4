"""One chapter, checked in minutes (``make page NN``, ``embedbook page NN``): the chapter's lesson and its audit
page run at smoke size, both pages are built in both editions from that run into ``_build/page/NN_name/html`` (the
Chinese one in ``html/zh``),
and the built-page checks of ``make check-html`` run on it (visible words, both editions, claim boxes, links,
the browser). A link to another page reads as that page's title, unlinked, in a one-page build;
:func:`dangling_references` checks that its target exists."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from embedbook import book
from embedbook.book import build, claims

_DOC = re.compile(r"\{\{?doc\}?\}`(?:[^`<]*<)?([^`>]+)>?`")  # {doc}`x`, and {{doc}}`x` in a code template
_CLAIM_REF = re.compile(r"\{ref\}`(?:[^`<]*<)?(claim-c\d\d)>?`")


def dangling_references(name: str) -> list[str]:
    """The ``{doc}`` targets of a chapter (its notebooks' Markdown and its modules' texts) that are no page of
    the book, and its ``{ref}`` to claim boxes of claims that are not in the register."""
    import json

    path = book.chapter_path(name)
    text = ""
    for page in book.pages_of(name):
        cells = json.loads(book.chapter_path(page).read_text(encoding="utf-8"))["cells"]
        text += "\n".join(book._source(c) for c in cells if c["cell_type"] == "markdown") + "\n"
    text += "\n".join(m.read_text(encoding="utf-8") for m in sorted(path.parent.glob("*.py"))
                      if not m.name.startswith("test_"))
    base = book.root()
    pages = {f.lstrip("/") for f in book.toc_files(base)}
    out = []
    for target in _DOC.findall(text):
        resolved = target.lstrip("/") if target.startswith("/") else (path.parent.relative_to(base) / target).as_posix()
        if resolved not in pages:
            out.append(f"{{doc}}`{target}`: no such page in _toc.yml")
    anchors = {claims.anchor(c) for c in claims.CLAIMS}
    out += [f"{{ref}}`{t}`: no such claim" for t in _CLAIM_REF.findall(text) if t not in anchors]
    return out


EXPLORE = "book/explore"  # the explorer page: in every one-page build (the chapters link it), and `embedbook page explore`


def build_explore() -> Path:
    """The explorer page alone (``embedbook page explore``), both editions, into ``_build/page/explore/html``: it
    runs nothing; its tables are exported by the build (:mod:`embedbook.book.explore`)."""
    out = book.root() / "_build" / "page" / "explore"
    shutil.rmtree(out, ignore_errors=True)
    toc = {"format": "jb-book", "root": EXPLORE, "chapters": [{"file": "book/bibliography"}]}
    html = out / "html"
    for lang in ("en", "zh"):
        if build.build(lang, out / lang, toc, {"embedbook_executed": str(out / "executed")}):
            raise RuntimeError(f"the {lang} build of the explorer page failed (its warnings are above)")
        shutil.copytree(out / lang / "_build" / "html", html / "zh" if lang == "zh" else html)
    return html


def docname(name: str) -> str:
    """A chapter's page as Sphinx names it: ``chapters/ch04_tying/04_tying`` (``"04_audit"``: its audit page)."""
    return book.chapter_path(name).relative_to(book.root()).with_suffix("").as_posix()


def build_page(name: str) -> Path:
    """Run chapter ``name``'s audit page, then its lesson, at smoke size and build both pages in both editions;
    return the English HTML folder (``_build/page/NN_name/html``, the Chinese edition in its ``zh/``). The audit
    runs first: the lesson's closing table reads the verdicts it records."""
    name = book.resolve(name)
    base = book.root()
    out = base / "_build" / "page" / name
    shutil.rmtree(out, ignore_errors=True)
    os.environ["EMBEDBOOK_LANGS"] = "en,zh"  # both editions from the one run, as in the book
    os.environ["EMBEDBOOK_VERDICTS"] = str(out / "verdicts")  # its records apart from make test's and make book's
    for page in reversed(book.pages_of(name)):
        start = time.perf_counter()
        book.run_chapter(page, smoke=True, out_dir=out / "executed", progress=False)
        print(f"{page}: ran at smoke size in {time.perf_counter() - start:.0f} s", flush=True)
    toc = {"format": "jb-book", "root": docname(name),
           "chapters": [{"file": docname(p)} for p in book.pages_of(name)[1:]] + [{"file": "book/bibliography"},
                                                                                   {"file": EXPLORE}]}
    # links to the pages this build leaves out read as their titles (sphinxext); dangling_references() checks
    # that they exist
    sphinx = {"embedbook_executed": str(out / "executed")}
    html = out / "html"
    for lang in ("en", "zh"):
        start = time.perf_counter()
        if build.build(lang, out / lang, toc, sphinx):
            raise RuntimeError(f"the {lang} build of {name} failed (its warnings are above)")
        shutil.copytree(out / lang / "_build" / "html", html / "zh" if lang == "zh" else html)
        print(f"{name}: {lang} page built in {time.perf_counter() - start:.0f} s", flush=True)
    return html


def main(name: str, checks: bool = True) -> int:
    """``embedbook page NAME``: build the page, then check it. Returns the exit code."""
    start = time.perf_counter()
    if name == "explore":
        html = build_explore()
        env = {**os.environ, "EMBEDBOOK_HTML": str(html), "EMBEDBOOK_PAGE": EXPLORE}
        code = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                str(book.root() / "tests" / "after_book")], env=env, cwd=book.root()) if checks else 0
        print(f"explore: {'checked' if checks else 'built'} in {time.perf_counter() - start:.0f} s: {html / EXPLORE}.html")
        return code
    name = book.resolve(name)
    dangling = dangling_references(name)
    if dangling:
        print(f"{name}: references to nothing:\n  " + "\n  ".join(dangling), file=sys.stderr)
        return 1
    html = build_page(name)
    code = 0
    if checks:
        pages = ",".join(docname(p) for p in book.pages_of(name))
        env = {**os.environ, "EMBEDBOOK_HTML": str(html), "EMBEDBOOK_PAGE": pages}
        code = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                str(book.root() / "tests" / "after_book")], env=env, cwd=book.root())
    print(f"{name}: {'checked' if checks else 'built'} in {time.perf_counter() - start:.0f} s; its pages are "
          + ", ".join(f"{html / docname(p)}.html" for p in book.pages_of(name)))
    return code
