"""The Chinese edition's catalogs: which English units each one must translate, and reading and writing them.

One gettext catalog per chapter, ``chapters/chNN_name/zh.po``, holds the units of that chapter: its
notebook's Markdown blocks and visible code comments, the ``_("...")`` templates of its notebook and of
its modules (``measure.py``, ``claims.py``), and the declared words of its claims (paraphrase, rule,
sources). Every other page has its own in ``locale/zh/`` (``intro.po``, ``using.po``, ``api_index.po``, …),
and ``locale/zh/book.po`` holds the table of contents and the templates of the book's own modules (claims,
book, i18n, sphinxext).

A changed English unit keeps its previous Chinese as a *fuzzy* entry with the previous English beside it
(``#| msgid``), for the translator to revise; the drift check fails until it is. Writing a catalog whose
entries did not change rewrites nothing, header dates included.
``tools/i18n.py`` updates and fills them; ``tests/test_i18n.py`` holds them to the English (:func:`drift`).
"""

from __future__ import annotations

import importlib
import json
import re
from itertools import takewhile
from pathlib import Path
from typing import NamedTuple

import yaml

from embedbook import book
from embedbook.book import i18n

BOOK = "book"  # the catalog of everything that is not a chapter
PAGES = ("book/intro.md", "book/bibliography.md", "book/glossary.md", "book/api/index.md", "book/claims.ipynb",
         "book/status.ipynb", "book/using.ipynb", "book/explore.md")
MODULES = ("embedbook/book/claims.py", "embedbook/book/__init__.py", "embedbook/book/i18n.py",
           "embedbook/book/sphinxext.py")


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
    the explanations of its changes in the rule ledger, and a literature rule's sources and strongest evidence against."""
    from embedbook.book import claims, ledger

    out = []
    for cid, c in claims.CLAIMS.items():
        if c.chapter != chapter:
            continue
        out.append((c.paraphrase, "declared"))
        r = claims.rule_of(cid)
        if r is None:
            continue
        out += [(r.quantity, "declared")] + [(cond, "declared") for cond in r.outcomes.values()]
        if r.replication:
            out.append((r.replication, "declared"))
        out += [(v["why"], "declared") for v in ledger.load().get(cid, []) if v.get("why")]
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
        folder = book.chapter_dir(name, root)
        units = [u for page in book.pages_of(name, root) for u in notebook_units(book.chapter_path(page, root))]
        for module in ("measure", "claims"):
            if (folder / f"{module}.py").exists():
                importlib.import_module(f"embedbook.chapters.{folder.name}.{module}")
                units += module_units(folder / f"{module}.py")
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
    """A catalog's file: a chapter's is ``chapters/chNN_name/zh.po``, any other ``locale/zh/<name>.po``."""
    root = Path(root or book.root())
    if re.fullmatch(r"\d\d_\w+", name):
        return book.chapter_dir(name, root) / "zh.po"
    return root / "locale" / "zh" / f"{name}.po"


def _read_po(name: str, root: Path | None = None):
    from babel.messages.pofile import read_po

    path = po_path(name, root)
    if not path.exists():
        return None
    with path.open("rb") as f:
        return read_po(f)


def _previous_ids(path: Path) -> dict[str, str]:
    """msgid → the previous msgid of each fuzzy entry (its ``#| msgid`` lines, which Babel's reader skips)."""
    from babel.messages.pofile import denormalize

    out = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        lines = block.splitlines()
        previous = [line[3:].removeprefix("msgid ") for line in lines if line.startswith("#| ")]
        start = next((i for i, line in enumerate(lines) if line.startswith("msgid ")), None)
        if previous and start is not None:  # the msgid: its first line and the quoted lines that continue it
            msgid = [lines[start][6:], *takewhile(lambda line: line.startswith('"'), lines[start + 1:])]
            out[denormalize("\n".join(msgid))] = denormalize("\n".join(previous))
    return out


def read(name: str, root: Path | None = None) -> dict[str, dict]:
    """msgid → {"zh", "kind", "fuzzy", "previous" (the English it translated, for a fuzzy entry), "obsolete"}
    of a catalog (empty if none)."""
    cat = _read_po(name, root)
    if cat is None:
        return {}
    out = {}
    previous = _previous_ids(po_path(name, root))
    for m in cat:
        if m.id:
            out[m.id] = {"zh": m.string or "", "kind": (m.auto_comments or [""])[0], "fuzzy": "fuzzy" in m.flags,
                         "previous": previous.get(m.id, ""), "obsolete": False}
    for m in cat.obsolete.values():
        out[m.id] = {"zh": m.string or "", "kind": "", "fuzzy": False, "previous": "", "obsolete": True}
    return out


class Entry(NamedTuple):
    """One catalog entry as written: a fuzzy one carries the English it translated before (``previous``)."""

    msgid: str
    kind: str
    zh: str
    fuzzy: bool = False
    previous: str = ""


def _po_bytes(entries: list[Entry], created, revised) -> bytes:
    import io

    from babel.messages.catalog import Catalog
    from babel.messages.pofile import normalize, write_po

    cat = Catalog(locale="zh_Hans_CN", project="embedbook", charset="utf-8", fuzzy=False, creation_date=created,
                  revision_date=revised)
    for e in entries:
        cat.add(e.msgid, e.zh, auto_comments=[e.kind], flags=["fuzzy"] if e.fuzzy else [])
    out = io.BytesIO()
    write_po(out, cat, width=0, omit_header=False, sort_output=False, no_location=True)
    # the previous English of a fuzzy entry, as msgmerge writes it (Babel would wrap it at 76 columns, mid-string)
    blocks = out.getvalue().decode("utf-8").split("\n\n")
    for i, e in enumerate(entries, start=1):
        if e.previous:
            quoted = normalize(e.previous, width=0).splitlines()
            lines = blocks[i].splitlines()
            at = next(k for k, line in enumerate(lines) if line.startswith("msgid "))
            lines[at:at] = ["#| msgid " + quoted[0]] + ["#| " + q for q in quoted[1:]]
            blocks[i] = "\n".join(lines)
    return "\n\n".join(blocks).encode("utf-8")


def write(name: str, entries: list[Entry], root: Path | None = None) -> Path:
    """Write catalog ``name`` from its entries (:class:`Entry`, or plain tuples of its fields) in order. A catalog
    whose entries are unchanged is left as it is (no new date in its header)."""
    import datetime

    entries = [Entry(*e) for e in entries]
    path = po_path(name, root)
    old = _read_po(name, root)
    now = datetime.datetime.now(datetime.timezone.utc).replace(second=0, microsecond=0)
    if old is not None:
        same = _po_bytes(entries, old.creation_date, old.revision_date)
        if path.read_bytes() == same:
            return path
        # the header says when the units last changed, not when the tool last ran
        units_same = [m.id for m in old if m.id] == [e.msgid for e in entries]
        data = _po_bytes(entries, old.creation_date if units_same else now, now)
    else:
        data = _po_bytes(entries, now, now)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def remembered(units: list[tuple[str, str]], old: dict[str, dict]) -> list[Entry]:
    """The entries of a catalog's current units, from its old entries: a unit kept keeps its Chinese (and a
    fuzzy mark it had); a new unit close to an English unit that left (a sentence edited) gets that unit's
    Chinese as a fuzzy entry with the previous English beside it, for the translator to revise; any other
    new unit is empty."""
    import difflib

    wanted = {u for u, _ in units}
    gone = {m: e for m, e in old.items() if m not in wanted and e["zh"].strip()}
    entries: list[Entry] = []
    for unit, kind in units:
        entry = old.get(unit)
        if entry is not None and not entry["obsolete"]:
            entries.append(Entry(unit, kind, entry["zh"], entry["fuzzy"], entry["previous"]))
            continue
        close = difflib.get_close_matches(unit, list(gone), n=1, cutoff=0.6)
        if close:
            previous = gone.pop(close[0])
            entries.append(Entry(unit, kind, previous["zh"], True, close[0]))
        else:
            entries.append(Entry(unit, kind, ""))
    return entries


def update(root: Path | None = None, names: list[str] | None = None) -> dict[str, tuple[int, int, int]]:
    """Rewrite every catalog (or those in ``names``) with its current units (:func:`remembered`); entries no
    unit needs are dropped. Returns name → (units, untranslated, fuzzy)."""
    out = {}
    for name, units in catalogs(root).items():
        if names and name not in names:
            continue
        entries = remembered(units, read(name, root))
        write(name, entries, root)
        out[name] = (len(entries), sum(not e.zh for e in entries), sum(e.fuzzy for e in entries))
    i18n.reload()
    return out


def drift(root: Path | None = None) -> list[str]:
    """Every way the catalogs differ from the English: a unit without a current translation, an entry no
    unit needs (obsolete), a fuzzy entry, a translation that changes glue keys, references, links, math,
    code, directives, numbers or placeholders, and one English unit translated two ways."""
    out = []
    seen: dict[str, tuple[str, str]] = {}
    root = Path(root or book.root())
    for name, units in catalogs(root).items():
        cat = read(name, root)
        where = po_path(name, root).relative_to(root)
        wanted = {u for u, _ in units}
        for unit, kind in units:
            entry = cat.get(unit)
            if entry is None or entry["obsolete"] or not entry["zh"].strip():
                out.append(f"{where}: no Chinese for the {kind} {unit[:80]!r}")
                continue
            if entry["fuzzy"]:
                out.append(f"{where}: the translation of "
                           f"{unit[:80]!r} is fuzzy: its English changed; revise the Chinese (`python tools/i18n.py "
                           f"todo {name}`)")
            for p in i18n.problems(unit, entry["zh"], template=kind == "template"):
                out.append(f"{where}: {unit[:60]!r}: {p}")
            if unit in seen and seen[unit][1] != entry["zh"]:
                out.append(f"{where} and {seen[unit][0]} translate {unit[:60]!r} differently")
            seen.setdefault(unit, (where, entry["zh"]))
        for msgid, entry in cat.items():
            if msgid not in wanted:
                out.append(f"{where}: obsolete entry {msgid[:80]!r} (no English unit has it any more; run "
                           "`python tools/i18n.py extract`)")
    return out
