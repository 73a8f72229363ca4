"""The Chinese edition's catalogs: which English units each one must translate, and reading and writing them.

One gettext catalog per chapter, ``locale/zh/<chapter>.po``, holds the units of that chapter: its
notebook's Markdown blocks and visible code comments, the ``_("...")`` templates of its notebook and of
its experiments module, and the declared words of its claims (paraphrase, rule, sources). Every other
page has its own (``intro.po``, ``using.po``, ``api_index.po``, …), and ``book.po`` holds the table of
contents and the templates of the book's own modules (claims, book, i18n, sphinxext).
``tools/i18n.py`` updates and fills them; ``tests/test_i18n.py`` holds them to the English (:func:`drift`).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import yaml

from embedbook import book, i18n

BOOK = "book"  # the catalog of everything that is not a chapter
PAGES = ("book/intro.md", "book/bibliography.md", "book/api/index.md", "book/16_verdicts.ipynb",
         "book/claims.ipynb", "book/status.ipynb", "book/using.ipynb")
MODULES = ("embedbook/claims.py", "embedbook/book.py", "embedbook/i18n.py", "embedbook/sphinxext.py")


def _markdown_units(text: str) -> list[str]:
    return [b for b in i18n.blocks(text) if i18n.needs_translation(b)]


def notebook_units(path: Path) -> list[tuple[str, str]]:
    """(unit, kind) of a notebook or Markdown page: kind is ``markdown``, ``comment`` or ``template``."""
    path = Path(path)
    if path.suffix == ".md":
        return [(b, "markdown") for b in _markdown_units(path.read_text(encoding="utf-8"))]
    out = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            out += [(b, "markdown") for b in _markdown_units(src)]
        elif cell["cell_type"] == "code":
            if not i18n.HIDDEN & set(cell.get("metadata", {}).get("tags", [])):
                out += [(c, "comment") for _, _, c in i18n.comments(src)]
            out += [(t, "template") for t in i18n.templates(src)]
    return out


def module_units(path: Path) -> list[tuple[str, str]]:
    return [(t, "template") for t in i18n.templates(Path(path).read_text(encoding="utf-8"))]


def claim_units(chapter: str) -> list[tuple[str, str]]:
    """The declared words of the claims a chapter settles: paraphrase, the rule's quantity, outcomes and
    revision, and a literature rule's sources and strongest evidence against."""
    from embedbook import claims

    out = []
    for cid, c in claims.CLAIMS.items():
        if c.chapter != chapter:
            continue
        out.append((c.paraphrase, "declared"))
        r = claims.rule_of(cid)
        if r is None:
            continue
        out += [(r.quantity, "declared")] + [(cond, "declared") for cond in r.outcomes.values()]
        if r.revised:
            out.append((r.revised, "declared"))
        if r.literature is not None:
            for s in r.literature.sources:
                out += [(s.finding, "declared"), (s.where, "declared")]
            out.append((r.literature.strongest_against, "declared"))
            out += [(note, "declared") for note in r.literature.search.notes()]
    return [(u, k) for u, k in out if i18n.needs_translation(u)]


def toc_units(root: Path) -> list[tuple[str, str]]:
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    out = [(p["caption"], "toc") for p in toc.get("parts", []) if p.get("caption")]
    out += [(config["title"], "toc"), (config["html"]["extra_footer"], "toc")]
    return out


def catalogs(root: Path | None = None) -> dict[str, list[tuple[str, str]]]:
    """Catalog name → its units (each once, in order of first appearance)."""
    root = Path(root or book.root())
    out: dict[str, list[tuple[str, str]]] = {}
    for name in book.chapters(root):
        if name == "16_verdicts":
            continue
        units = notebook_units(book.chapter_path(name, root))
        module = root / "embedbook" / "experiments" / f"ch{name}.py"
        if module.exists():
            importlib.import_module(f"embedbook.experiments.ch{name}")
            units += module_units(module)
        units += claim_units(name)
        out[name] = units
    for page in PAGES:
        out[page_catalog(page)] = notebook_units(root / page)
    shared = toc_units(root)
    for module in MODULES:
        shared += module_units(root / module)
    out[BOOK] = shared
    return {name: list(dict.fromkeys((u, k) for u, k in units if u.strip())) for name, units in out.items()}


def page_catalog(page: str) -> str:
    """The catalog of a page that is not a chapter: ``book/api/index.md`` → ``api_index``."""
    return Path(page).with_suffix("").as_posix().removeprefix("book/").replace("/", "_")


# --- the .po files -----------------------------------------------------------------------------------------


def po_path(name: str, root: Path | None = None) -> Path:
    return Path(root or book.root()) / "locale" / "zh" / f"{name}.po"


def read(name: str, root: Path | None = None) -> dict[str, dict]:
    """msgid → {"zh": msgstr, "kind": ..., "fuzzy": bool, "obsolete": bool} of a catalog (empty if none)."""
    from babel.messages.pofile import read_po

    path = po_path(name, root)
    if not path.exists():
        return {}
    with path.open("rb") as f:
        cat = read_po(f)
    out = {}
    for m in cat:
        if m.id:
            out[m.id] = {"zh": m.string or "", "kind": (m.auto_comments or [""])[0], "fuzzy": "fuzzy" in m.flags,
                         "obsolete": False}
    for m in cat.obsolete.values():
        out[m.id] = {"zh": m.string or "", "kind": "", "fuzzy": False, "obsolete": True}
    return out


def write(name: str, entries: list[tuple[str, str, str]], root: Path | None = None) -> Path:
    """Write catalog ``name`` from (msgid, kind, zh) in order."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    cat = Catalog(locale="zh_Hans_CN", project="embedbook", charset="utf-8", fuzzy=False)
    for msgid, kind, zh in entries:
        cat.add(msgid, zh, auto_comments=[kind])
    path = po_path(name, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, cat, width=0, omit_header=False, sort_output=False, no_location=True)
    return path


def update(root: Path | None = None, names: list[str] | None = None) -> dict[str, tuple[int, int]]:
    """Rewrite every catalog (or those in ``names``) with its current units, keeping the translations of those that stay;
    obsolete entries are dropped. Returns name → (units, untranslated)."""
    out = {}
    for name, units in catalogs(root).items():
        if names and name not in names:
            continue
        old = read(name, root)
        entries = [(u, k, old.get(u, {}).get("zh", "")) for u, k in units]
        write(name, entries, root)
        out[name] = (len(entries), sum(not zh for _, _, zh in entries))
    i18n.reload()
    return out


def drift(root: Path | None = None) -> list[str]:
    """Every way the catalogs differ from the English: a unit without a current translation, an entry no
    unit needs (obsolete), a fuzzy entry, a translation that changes glue keys, references, links, math,
    code, directives, numbers or placeholders, and one English unit translated two ways."""
    out = []
    seen: dict[str, tuple[str, str]] = {}
    for name, units in catalogs(root).items():
        cat = read(name, root)
        wanted = {u for u, _ in units}
        for unit, kind in units:
            entry = cat.get(unit)
            if entry is None or entry["obsolete"] or not entry["zh"].strip():
                out.append(f"{name}.po: no Chinese for the {kind} {unit[:80]!r}")
                continue
            if entry["fuzzy"]:
                out.append(f"{name}.po: the translation of {unit[:80]!r} is marked fuzzy")
            for p in i18n.problems(unit, entry["zh"], template=kind == "template"):
                out.append(f"{name}.po: {unit[:60]!r}: {p}")
            if unit in seen and seen[unit][1] != entry["zh"]:
                out.append(f"{name}.po and {seen[unit][0]}.po translate {unit[:60]!r} differently")
            seen.setdefault(unit, (name, entry["zh"]))
        for msgid, entry in cat.items():
            if msgid not in wanted:
                out.append(f"{name}.po: obsolete entry {msgid[:80]!r} (no English unit has it any more; run "
                           "`python tools/i18n.py extract`)")
    return out
