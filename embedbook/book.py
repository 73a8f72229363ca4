"""The book's chapters: discovery from ``_toc.yml``, glue, and executing a chapter with papermill.

Used by the CLI (``embedbook list | run``), by ``tests/test_chapters.py`` and by every chapter
(``glue``).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
KERNEL = "python3"
CELL_TIMEOUT = 900  # seconds for any one cell: a hang fails loudly instead of stalling CI


def chapters(root: Path = ROOT) -> list[str]:
    """Chapter names in table-of-contents order: the numbered notebooks (``book/NN_name.ipynb``).

    Reference pages (the claims register, the status page) are executed by the build but are not
    chapters: they take no parameters.
    """
    toc = root / "_toc.yml"
    if not toc.exists():
        raise FileNotFoundError(f"{toc} not found: run from a checkout of the embedbook repository")
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(toc.read_text(encoding="utf-8")))
    return [Path(f).name for f in files if re.match(r"\d\d_", Path(f).name) and (root / f"{f}.ipynb").exists()]


def chapter_path(name: str, root: Path = ROOT) -> Path:
    """Path of chapter ``name``; an unknown name raises with the list of known ones."""
    known = chapters(root)
    stem = Path(name).stem
    if stem not in known:
        raise ValueError(f"unknown chapter {name!r}; known chapters: {', '.join(known)}")
    return root / "book" / f"{stem}.ipynb"


def parameters(path: Path) -> dict[str, Any]:
    """The names and defaults declared in a notebook's cell tagged ``parameters``."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise ValueError(f"{path.name} must have exactly one cell tagged 'parameters', found {len(cells)}")
    namespace: dict[str, Any] = {}
    exec("".join(cells[0]["source"]), {}, namespace)  # noqa: S102 - our own notebooks' literal defaults
    return {k: v for k, v in namespace.items() if not k.startswith("_")}


def run_chapter(
    name: str,
    smoke: bool = True,
    params: dict[str, Any] | None = None,
    out_dir: Path | None = None,
    progress: bool = True,
) -> tuple[Path, float]:
    """Execute a chapter with papermill; return ``(output notebook, seconds)``.

    ``params`` must name parameters the chapter declares, or a ``ValueError`` is raised (papermill
    itself would only warn and inject them).
    """
    import papermill

    path = chapter_path(name)
    declared = parameters(path)
    given = {"SMOKE": smoke, **(params or {})}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ValueError(f"chapter {path.stem} has no parameter(s) {unknown}; it declares {sorted(declared)}")
    out_dir = Path(out_dir or ROOT / "_build" / "papermill")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / path.name
    start = time.perf_counter()
    papermill.execute_notebook(
        str(path),
        str(out),
        parameters=given,
        kernel_name=KERNEL,
        cwd=str(path.parent),
        progress_bar=progress,
        execution_timeout=CELL_TIMEOUT,
    )
    return out, time.perf_counter() - start


def is_timing(name: str) -> bool:
    """Whether a glue name marks a timing-dependent value: ``bench_…``, or a claim figure ``C01_bench_…``."""
    return name.startswith("bench_") or "_bench_" in name


def glue(name: str, value: Any, display: bool = False) -> None:
    """Glue ``value`` under ``name`` so the prose can show it with ``{glue:text}`name:fmt```.

    Names of timing-dependent values start with ``bench_`` (see :func:`is_timing`); they are excluded
    from the determinism checks.
    """
    from myst_nb import glue as _glue

    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()  # numpy / torch scalars → Python numbers, so format specs work
    _glue(name, value, display=display)


def glued_values(executed: Path) -> dict[str, str]:
    """Every glued value (plain-text form) of an executed notebook, by name.

    Reads the glue records papermill leaves in the notebook's outputs and, for notebooks executed by
    the book build, the ``NAME.glue.json`` file myst-nb writes beside them (it moves the records there).
    """
    executed = Path(executed)
    nb = json.loads(executed.read_text(encoding="utf-8"))
    out = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook", {})
            if record.get("name"):
                prefix = record.get("mime_prefix", "")
                out[record["name"]] = output.get("data", {}).get(f"{prefix}text/plain", "")
    sidecar = executed.with_suffix(".glue.json")
    if sidecar.exists():
        for name, output in json.loads(sidecar.read_text(encoding="utf-8")).items():
            out[name] = output.get("data", {}).get("text/plain", "")
    return out
