"""The book's chapters: where the book is, its chapters and their parameters, running a chapter with
papermill, glue, typed results that glue themselves, and the record of each claim's verdict.

Part of the book's layer, not of the library. Used by the CLI (``embedbook list | run``), the tests and
every chapter.

A chapter declares its parameters in the one cell tagged ``parameters`` (full-size defaults, with
``SMOKE = False``) and its smoke sizes in the one cell tagged ``smoke`` right after it (``if SMOKE: ...``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
import re
import time
import warnings
from pathlib import Path
from typing import Any

import yaml

# tqdm's notebook bar needs ipywidgets; where it is absent (Colab without it, a plain kernel) tqdm falls back to
# a text bar and warns on stderr, a warning the reader did not cause. Every chapter imports this module first.
warnings.filterwarnings("ignore", message="IProgress not found")

KERNEL = "python3"
CELL_TIMEOUT = 900  # seconds for any one cell: a hang fails loudly instead of stalling CI
_PACKAGE_PARENT = Path(__file__).resolve().parents[2]  # the checkout, when installed from one


def root(start: Path | None = None) -> Path:
    """The book's checkout: ``$EMBEDBOOK_ROOT``, else the first folder holding ``_toc.yml`` at or above
    ``start`` (default: the current directory), else the checkout this package was installed from.

    Raises ``FileNotFoundError`` with what to do when none is found: the chapters are not part of the
    installed package.
    """
    env = os.environ.get("EMBEDBOOK_ROOT")
    if env:
        if not (Path(env) / "_toc.yml").exists():
            raise FileNotFoundError(f"EMBEDBOOK_ROOT={env} has no _toc.yml: point it at a checkout of the book")
        return Path(env).resolve()
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").exists() and (folder / "book").is_dir():
            return folder
    if (_PACKAGE_PARENT / "_toc.yml").exists():
        return _PACKAGE_PARENT
    raise FileNotFoundError(
        "no book found: the chapters are not installed with the package. Run this inside a clone of "
        "https://github.com/embedbook/embedbook, or set EMBEDBOOK_ROOT to one."
    )


def toc_files(book_root: Path | None = None) -> list[str]:
    """Every page of the table of contents (``_toc.yml``), as its path without suffix, in order."""
    base = Path(book_root) if book_root else root()
    toc = base / "_toc.yml"
    if not toc.exists():
        raise FileNotFoundError(f"{toc} not found: point at a checkout of the book")
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if key in node:
                    files.append(str(node[key]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(toc.read_text(encoding="utf-8")))
    return files


AUDIT = "audit"  # a chapter's second page: ``chapters/chNN_name/NN_audit.ipynb``, its verdicts' evidence


def notebooks(book_root: Path | None = None) -> list[str]:
    """Every chapter notebook in table-of-contents order, lessons and audits: ``["01_tokens", "01_audit", ...]``.
    These are what the build executes and ``make test`` runs; the reference pages (:data:`PAGES`) are not."""
    base = Path(book_root) if book_root else root()
    return [Path(f).name for f in toc_files(base)
            if re.fullmatch(r"\d\d_\w+", Path(f).name) and (base / f"{f}.ipynb").exists()]


def chapters(book_root: Path | None = None) -> list[str]:
    """Chapter names in table-of-contents order: the lessons (``chapters/chNN_name/NN_name.ipynb``). A chapter's
    audit page (:func:`audit_name`) is part of it, not a chapter of its own.

    Reference pages (the claims register, the status page) are executed by the build but are not
    chapters: they take no parameters.
    """
    return [n for n in notebooks(book_root) if not is_audit(n)]


def is_audit(name: str) -> bool:
    """Whether notebook ``name`` is a chapter's audit page (``"04_audit"``)."""
    return str(name).endswith(f"_{AUDIT}")


def audit_name(name: str | int, book_root: Path | None = None) -> str | None:
    """The audit page of chapter ``name`` (``"04_tying"`` → ``"04_audit"``), or None where it has none."""
    stem = resolve(name, book_root)
    audit = f"{stem[:2]}_{AUDIT}"
    return audit if (chapter_dir(stem, book_root) / f"{audit}.ipynb").exists() else None


def chapter_of(name: str | int, book_root: Path | None = None) -> str:
    """The chapter a notebook belongs to: a lesson is its own, ``"04_audit"`` → ``"04_tying"``."""
    return resolve(str(name).removesuffix(f"_{AUDIT}") if is_audit(str(name)) else name, book_root)


def pages_of(name: str | int, book_root: Path | None = None) -> list[str]:
    """A chapter's notebooks: its lesson, then its audit if it has one."""
    stem = resolve(name, book_root)
    return [stem] + [a for a in [audit_name(stem, book_root)] if a]


def recording_notebook(name: str | int, book_root: Path | None = None) -> str:
    """The notebook that decides and records a chapter's verdicts: its audit, or the lesson where it has none."""
    return audit_name(name, book_root) or resolve(name, book_root)


def resolve(name: str | int, book_root: Path | None = None) -> str:
    """A chapter's name from its number or any of its names: ``4``, ``"04"``, ``"04_tying"``, ``"ch04_tying"``,
    ``"04_tying.ipynb"`` → ``"04_tying"``. An unknown one raises ``ValueError`` listing the chapters."""
    known = chapters(book_root)
    text = Path(str(name)).stem.removeprefix("ch")
    if text.isdigit():
        text = f"{int(text):02d}"
    found = [n for n in known if n == text or n[:2] == text]
    if len(found) != 1:
        raise ValueError(f"unknown chapter {name!r}; the chapters are {', '.join(known)} (a number is enough: 04)")
    return found[0]


def chapter_dir(name: str | int, book_root: Path | None = None) -> Path:
    """The folder that holds everything chapter ``name`` owns: ``chapters/chNN_name/``."""
    base = Path(book_root) if book_root else root()
    return base / "chapters" / f"ch{resolve(name, base)}"


def chapter_path(name: str | int, book_root: Path | None = None) -> Path:
    """Path of chapter ``name``'s notebook (``"02_lookup"``, ``"02"`` or its file name; ``"02_audit"`` its audit);
    an unknown name raises with the known ones."""
    if is_audit(Path(str(name)).stem):
        chapter = chapter_of(Path(str(name)).stem, book_root)
        audit = audit_name(chapter, book_root)
        if audit is None:
            raise ValueError(f"chapter {chapter} has no audit page ({Path(str(name)).stem}.ipynb)")
        return chapter_dir(chapter, book_root) / f"{audit}.ipynb"
    stem = resolve(name, book_root)
    return chapter_dir(stem, book_root) / f"{stem}.ipynb"


def notebook_path(name: str, book_root: Path | None = None) -> Path:
    """The notebook of a page of the table of contents by its name (``"status"``, ``"16_verdicts"``,
    ``"04_audit"``; a chapter also by its number, ``"04"``)."""
    base = Path(book_root) if book_root else root()
    if str(name)[:2].isdigit() or str(name).startswith("ch"):
        return chapter_path(name, base)
    for f in toc_files(base):
        if Path(f).name == name and (base / f"{f}.ipynb").exists():
            return base / f"{f}.ipynb"
    raise ValueError(f"no notebook {name!r} in {base / '_toc.yml'}")


def chapter_title(name: str, book_root: Path | None = None) -> str:
    """A chapter's title: the first ``# `` heading of its first markdown cell (the file stem if none)."""
    nb = json.loads(chapter_path(name, book_root).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for line in _source(cell).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
            break
    return name


def _tagged(nb: dict, tag: str) -> list[int]:
    return [i for i, c in enumerate(nb["cells"]) if tag in c.get("metadata", {}).get("tags", [])]


def _source(cell: dict) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def parameters(path: Path, smoke: bool = False) -> dict[str, Any]:
    """The names and values a chapter declares in its cell tagged ``parameters``; with ``smoke=True``,
    after its cell tagged ``smoke`` has applied the smoke sizes."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    cells = _tagged(nb, "parameters")
    if len(cells) != 1:
        raise ValueError(f"{Path(path).name} must have exactly one cell tagged 'parameters', found {len(cells)}")
    namespace: dict[str, Any] = {}
    exec(_source(nb["cells"][cells[0]]), {}, namespace)  # noqa: S102 - our own notebooks' literal defaults
    declared = {k: v for k, v in namespace.items() if not k.startswith("_")}
    if smoke:
        namespace["SMOKE"] = True
        for i in _tagged(nb, "smoke"):
            exec(_source(nb["cells"][i]), {}, namespace)  # noqa: S102
        declared = {k: namespace[k] for k in declared}
    return declared


def _same_kind(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return default is None or isinstance(value, type(default))


def check_params(path: Path, params: dict[str, Any]) -> None:
    """Refuse a parameter the chapter does not declare, or a value of another type than its default."""
    declared = parameters(path)
    unknown = sorted(set(params) - set(declared))
    if unknown:
        raise ValueError(f"chapter {Path(path).stem} has no parameter(s) {unknown}; it declares {sorted(declared)}")
    for name, value in params.items():
        if not _same_kind(declared[name], value):
            raise ValueError(
                f"parameter {name} of chapter {Path(path).stem} takes a {type(declared[name]).__name__} "
                f"(default {declared[name]!r}), got {value!r}"
            )


class _KnownParameters(logging.Filter):
    """Drop papermill's "Passed unknown parameter" warning: :func:`check_params` has already refused
    unknown ones, and papermill only looks at the cell it injects after (the smoke cell)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Passed unknown parameter" not in record.getMessage()


def run_chapter(
    name: str,
    smoke: bool = True,
    params: dict[str, Any] | None = None,
    out_dir: Path | None = None,
    progress: bool = True,
) -> tuple[Path, float]:
    """Execute a chapter with papermill; return ``(output notebook, seconds)``.

    ``params`` must name parameters the chapter declares, with values of the same type as their
    defaults, or a ``ValueError`` is raised. They win over the smoke sizes: the smoke sizes are resolved
    here, and papermill injects every value after the chapter's ``smoke`` cell. The output goes to ``out_dir`` (default ``_build/papermill`` in the book).
    """
    import nbformat
    import papermill

    path = chapter_path(name)  # a lesson or an audit page
    params = dict(params or {})
    check_params(path, params)
    nb = nbformat.read(path, as_version=4)
    smoke_cells = _tagged(nb, "smoke")
    if smoke_cells:  # inject after the smoke cell, so that explicit parameters win over the smoke sizes
        for cell in nb.cells:
            tags = cell.metadata.get("tags", [])
            if "parameters" in tags:
                cell.metadata["tags"] = [t for t in tags if t != "parameters"]
        nb.cells[smoke_cells[-1]].metadata.setdefault("tags", []).append("parameters")
    # papermill injects one cell of assignments; with the smoke sizes resolved here, it carries every value
    given = {**(parameters(path, smoke=True) if smoke else {}), "SMOKE": smoke, **params}
    out_dir = Path(out_dir or root() / "_build" / "papermill")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / path.name
    start = time.perf_counter()
    logging.getLogger("papermill").addFilter(_KnownParameters())
    papermill.execute_notebook(
        nb,
        str(out),
        parameters=given,
        kernel_name=KERNEL,
        cwd=str(path.parent),
        progress_bar=progress,
        execution_timeout=CELL_TIMEOUT,
    )
    return out, time.perf_counter() - start


def cache_path() -> Path:
    """The jupyter-cache the book's one execution fills and both editions' builds read."""
    return root() / "_build" / ".jupyter_cache"


def execution_seconds(cache_dir: Path | None = None) -> dict[str, float]:
    """Each notebook's execution time in the book's last full-size run, by name, from the build's cache (empty
    where there is none): the README's ``full`` column (tools/readme.py)."""
    folder = Path(cache_dir or cache_path())
    if not folder.exists():
        return {}
    from jupyter_cache import get_cache

    return {Path(r.uri).stem: r.data["execution_seconds"] for r in get_cache(str(folder)).list_cache_records()
            if "execution_seconds" in r.data}


PAGES = ("16_verdicts", "claims", "status", "using")  # notebooks that read the chapters' results, run after them


# --- glue ----------------------------------------------------------------------------------------------


def is_timing(name: str) -> bool:
    """Whether a glue name marks a timing-dependent value: ``bench_…``, or a claim figure ``C01_bench_…``."""
    return name.startswith("bench_") or "_bench_" in name


GLUE_PREFIX = "application/papermill.record/"  # the mime prefix myst-nb's glue writes and its build reads


def glue(name: str, value: Any, display: bool = False, verbatim: bool = False) -> None:
    """Glue ``value`` under ``name`` so the prose can show it with ``{glue:text}`name:fmt```.

    Writes exactly what ``myst_nb.glue`` writes (a display record under :data:`GLUE_PREFIX` with the
    name in its ``scrapbook`` metadata) without importing myst-nb, which loads Sphinx: seconds per chapter.
    Names of timing-dependent values start with ``bench_`` (see :func:`is_timing`); they are excluded
    from the determinism checks. A bool is refused: glue the words the sentence needs instead.

    Words are glued once per language the run writes (:func:`embedbook.book.i18n.languages`): an
    :class:`~embedbook.book.i18n.Msg` (``_("...").format(...)``) carries its Chinese; another string must
    have a catalog entry, or be data that reads the same in both editions (a word list, a model's name:
    ``verbatim=True``).
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display as ipy_display

    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()  # numpy / torch scalars → Python numbers, so format specs work
    if isinstance(value, bool):
        raise TypeError(f"glue {name!r}: a bool reads as True/False in prose; glue the words instead")
    prefix = "" if display else GLUE_PREFIX
    if isinstance(value, str) and not verbatim:
        # words: one record per language the run writes, each tagged (each edition's build keeps its own)
        msg = value if isinstance(value, i18n.Msg) else None
        for lang in i18n.languages():
            if msg is not None:
                text = getattr(msg, lang)
            elif lang == "en":
                text = value
            else:
                text = i18n.translate_text(value)
                i18n.refuse_english(text, f"the glued value {name!r}")
            bundle, metadata = format_display_data(str(text))
            metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
            if i18n.bilingual():
                metadata[i18n.META] = {"lang": lang}
            ipy_display({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)
        return
    bundle, metadata = format_display_data(value)
    metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
    ipy_display({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)


class Result:
    """Base of the experiments' typed results (dataclasses): ``result.glue()`` glues every scalar field
    (numbers and strings) under its name, plus whatever :meth:`extra_glue` adds.

    Fields whose names start with ``bench_`` are timings (see :func:`is_timing`). String fields named in
    ``verbatim`` are data (words, names) glued as they are in both editions; any other string is words
    and needs its Chinese (see :func:`glue`).
    """

    verbatim: tuple[str, ...] = ()

    def extra_glue(self) -> dict[str, Any]:
        """Derived values to glue besides the scalar fields (override in a result)."""
        return {}

    def glued(self) -> dict[str, Any]:
        """Everything :meth:`glue` publishes, by name."""
        out = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
                value = value.item()
            if isinstance(value, (int, float, str)) and not isinstance(value, bool):
                out[f.name] = value
        out.update(self.extra_glue())
        return out

    def glue(self, prefix: str = "") -> None:
        """Glue every value of :meth:`glued` as ``prefix + name``."""
        for name, value in self.glued().items():
            glue(prefix + name, value, verbatim=name in self.verbatim)


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
            if output.get("metadata", {}).get("embedbook", {}).get("lang", "en") != "en":
                continue  # the Chinese record of the same value: the English one is the reference
            if record.get("name"):
                prefix = record.get("mime_prefix", "")
                out[record["name"]] = output.get("data", {}).get(f"{prefix}text/plain", "")
    sidecar = executed.with_suffix(".glue.json")
    if sidecar.exists():
        for name, output in json.loads(sidecar.read_text(encoding="utf-8")).items():
            out[name] = output.get("data", {}).get("text/plain", "")
    return out


def plain_decimal(x: float, digits: int = 2) -> str:
    """A number for a sentence, never in scientific notation: "exactly 0", a small value with ``digits``
    significant digits ("0.0000003", "0.00000012"), a large one with thousands separators."""
    if x == 0:
        return str(i18n._("exactly 0"))
    if abs(x) >= 1e4:
        return f"{x:,.0f}"
    if abs(x) >= 1e-3:
        return f"{x:.4g}"
    places = -math.floor(math.log10(abs(x))) + digits - 1
    return f"{x:.{places}f}".rstrip("0").rstrip(".")


def device_words(device: str) -> str:
    """The processor a result was measured on, for prose: "cpu" → "the CPU", "cuda" → "the GPU"."""
    from embedbook.book.i18n import _

    words = {"cpu": _("the CPU"), "cuda": _("the GPU"), "mps": _("the Apple GPU")}
    return words[device] if device in words else _("the {device} device").format(device=device)


def _code_of(path: Path) -> str:
    """The Python of a module, or of a notebook's code cells (IPython's ``%`` and ``!`` lines read as ``pass``)."""
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = "\n".join(_source(c) for c in cells if c["cell_type"] == "code")
    return "\n".join(line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(("%", "!")) else line
                     for line in code.splitlines())


def _embedbook_imports(path: Path) -> frozenset[str]:
    """The modules of ``embedbook`` (library, book, chapters) that a module or notebook imports by name. Parsing
    is most of a digest's cost, so each file is parsed once for as long as it is unchanged (size and mtime)."""
    stat = path.stat()
    return _parsed_imports(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=None)
def _parsed_imports(path: Path, size: int, mtime_ns: int) -> frozenset[str]:
    import ast

    out = set()
    for node in ast.walk(ast.parse(_code_of(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "embedbook"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "embedbook":
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}  # `from embedbook import lm`: a module
    return frozenset(out)


def _module_file(name: str) -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):  # a name imported from a module, not a module
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def inputs(name: str, book_root: Path | None = None) -> list[Path]:
    """Every file a chapter's (or page's) results depend on: its notebook, the chapter's own modules (not its
    tests), every module of ``embedbook`` they import, followed from import to import (so a library table
    such as ``sizing.MODELS`` is in), the package's resources where a module of those reads them, the
    Chinese catalogs its outputs are written from, and for an audit page the rule ledger."""
    base = Path(book_root) if book_root else root()
    nb = notebook_path(name, base)
    start = [nb] + sorted(p for p in nb.parent.glob("*.py") if not p.name.startswith("test_")) \
        if nb.parent.name.startswith("ch") else [nb]
    files, todo = [], list(start)
    while todo:
        path = todo.pop()
        if path in files:
            continue
        files.append(path)
        if path.suffix in (".py", ".ipynb"):
            todo += [f for m in sorted(_embedbook_imports(path)) if (f := _module_file(m)) and f not in files]
    if any("resources" in f.read_text(encoding="utf-8") for f in files if f.suffix == ".py"):
        files += sorted((Path(__file__).resolve().parents[1] / "resources").glob("*"))
    files += [p for p in (nb.parent / "zh.po", base / "locale" / "zh" / "book.po") if p.exists()]
    if is_audit(nb.stem):  # its claim boxes print each rule's history from the rule ledger
        files += [p for p in (base / "chapters" / "ledger.json",) if p.exists()]
    return sorted(set(files))


def inputs_digest(name: str, book_root: Path | None = None) -> str:
    """SHA-256 over :func:`inputs` (their paths and contents): a result made from other inputs is stale."""
    base = Path(book_root) if book_root else root()
    h = hashlib.sha256()
    for path in inputs(name, base):
        h.update(str(path.relative_to(base) if path.is_relative_to(base) else path.name).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def chapter_digest(chapter: str) -> str:
    """The digest a chapter's verdict records carry (:func:`inputs_digest` of the notebook that records them, its
    audit page where it has one): a record made from an older version of that notebook, the chapter's code or
    anything they import is stale."""
    return inputs_digest(recording_notebook(chapter))


from embedbook.book import i18n  # noqa: E402  (i18n reads the catalogs under root())

i18n.install()  # a notebook that writes both editions publishes each figure, table and Markdown output twice
