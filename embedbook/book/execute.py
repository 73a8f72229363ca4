"""Executing the book: every notebook at full size into the jupyter-cache that both editions' builds read,
again only where its inputs changed. Used by ``embedbook execute`` and ``embedbook build`` (``make book``); a
one-page build (``make page``) runs its chapter at smoke size instead (:mod:`embedbook.book.page`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from embedbook.book import (CELL_TIMEOUT, PAGES, cache_path, chapter_of, claims, i18n, inputs_digest, notebook_path,
                            notebooks, recording_notebook, root)


def execute_into_cache(cache_dir: Path | None = None, timeout: int = CELL_TIMEOUT, fresh: bool = False) -> dict:
    """Execute the book's notebooks at full size into the jupyter-cache both editions' builds read
    (``execute_notebooks: off`` in ``_config.yml``; :mod:`embedbook.book.sphinxext` merges the outputs in):
    the chapters' lessons and audit pages, one per core at a time, then the pages that read their results (:data:`PAGES`). Kernels
    write both languages (``EMBEDBOOK_LANGS=en,zh``).

    A notebook runs again only when its inputs changed since it last ran here (:func:`inputs_digest`: the
    notebook, the chapter's own code, every module they import, their catalogs) or its recorded verdicts are
    missing; the pages that read the chapters run again whenever a chapter did. ``fresh=True`` (or an empty
    cache, as on CI) executes everything.

    Returns:
        ``{"succeeded": [...], "failed": [...], "skipped": [...]}`` notebook paths; the build then warns about
        each failed one (it has no outputs) and fails.
    """
    from jupyter_cache import get_cache
    from jupyter_cache.executors import load_executor

    base = root()
    os.environ["EMBEDBOOK_LANGS"] = ",".join(i18n.LANGS)  # inherited by the kernels
    folder = Path(cache_dir or cache_path())
    cache = get_cache(str(folder))
    ledger = folder / "embedbook-inputs.json"  # notebook → the inputs digest it last ran with, here
    ran_with = json.loads(ledger.read_text(encoding="utf-8")) if ledger.exists() and not fresh else {}
    if fresh:
        cache.clear_cache()
        for nb in cache.list_project_records():
            cache.remove_nb_from_project(nb.uri)
    succeeded, failed, skipped = [], [], []
    chapters_first = [n for n in notebooks(base) if n not in PAGES]
    for group, parallel in ((chapters_first, (os.cpu_count() or 1) > 1), (list(PAGES), False)):
        due = []
        for name in group:
            path = notebook_path(name, base)
            if needs_run(name, ran_with, base) or (group is not chapters_first and succeeded):
                due.append(str(path))
            else:
                skipped.append(str(path))
        for uri in due:
            cache.add_nb_to_project(uri)
            _forget(cache, uri)
        if not due:
            continue
        executor = load_executor("local-parallel" if parallel else "local-serial", cache=cache)
        result = executor.run_and_cache(filter_uris=due, timeout=timeout)
        succeeded += list(result.succeeded)
        failed += list(result.excepted) + list(result.errored)
        for uri in result.succeeded:
            ran_with[Path(uri).stem] = inputs_digest(Path(uri).stem, base)
        for uri in failed:
            ran_with.pop(Path(uri).stem, None)
    folder.mkdir(parents=True, exist_ok=True)
    ledger.write_text(json.dumps(ran_with, indent=1, sort_keys=True), encoding="utf-8")
    return {"succeeded": succeeded, "failed": failed, "skipped": skipped}


def _forget(cache, uri: str) -> None:
    """Drop the cached outputs of notebook ``uri``, so that the executor runs it again. (jupyter-cache matches a
    notebook by its cells alone, so an unchanged notebook whose code changed would count as executed; and its
    parallel executor ignores ``force``.)"""
    import nbformat

    try:
        record = cache.match_cache_notebook(nbformat.read(uri, as_version=4))
    except KeyError:  # never cached
        return
    cache.remove_cache(record.pk)


def needs_run(name: str, ran_with: dict[str, str], base: Path | None = None) -> bool:
    """Whether notebook ``name`` must run: its inputs are not those it last ran with here (``ran_with``: name →
    :func:`inputs_digest`), or a claim it settles has no full-size record from its current inputs."""
    digest = inputs_digest(name, base)
    return ran_with.get(name) != digest or not _records_complete(name, digest)


def _records_complete(name: str, digest: str) -> bool:
    """Whether every claim notebook ``name`` decides (a chapter's audit page, or a lesson without one) has a
    full-size record made from its current inputs (whose digest is ``digest``). A lesson records nothing."""
    if name in PAGES or recording_notebook(chapter_of(name)) != name:
        return True
    chapter = chapter_of(name)
    store = claims.verdict_store(smoke=False)
    for cid, c in claims.CLAIMS.items():
        if c.chapter != chapter:
            continue
        path = store / f"{cid}.json" if store else None
        if path is None or not path.exists():
            return False
        if json.loads(path.read_text(encoding="utf-8")).get("chapter_sha256") != digest:
            return False
    return True
