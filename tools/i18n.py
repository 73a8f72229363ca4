"""The Chinese edition's catalogs (chapters/chNN_name/zh.po, locale/zh/*.po), from the command line.

    python tools/i18n.py extract [NAME...]    these catalogs (default: every one) updated from the English units:
                                              translations kept; a changed unit keeps its old Chinese as fuzzy, with
                                              the old English beside it; new units empty; units gone dropped
    python tools/i18n.py todo NAME            what NAME needs, as JSON: {english: ""} for a new unit,
                                              {english: {"zh": old Chinese, "previous": old English}} for a changed
                                              one (NAME: a chapter's number or name, 08, 08_similarity; or book, intro)
    python tools/i18n.py fill NAME FILE.json  set translations from {english: chinese} (or the todo form with "zh"
                                              filled in); each is checked first, and a revised fuzzy entry is cleared
    python tools/i18n.py check [NAME]         every drift problem (what tests/test_i18n.py fails on)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from embedbook import book  # noqa: E402
from embedbook.book import i18n, translations  # noqa: E402


def _name(text: str) -> str:
    """A catalog's name: a chapter by its number or name (``8``, ``08``, ``08_similarity``), else as given."""
    try:
        return book.resolve(text)
    except ValueError:
        return text


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "extract":
        for name, (n, missing, fuzzy) in translations.update(names=[_name(r) for r in rest] or None).items():
            print(f"{name:<16} {n:5d} units, {missing:5d} untranslated, {fuzzy:5d} to revise (fuzzy)")
        return 0
    if cmd == "todo":
        name = _name(rest[0])
        units = translations.catalogs()[name]
        cat = translations.read(name)
        todo: dict = {}
        for u, _ in units:
            entry = cat.get(u, {})
            if entry.get("fuzzy"):
                todo[u] = {"zh": entry["zh"], "previous": entry["previous"]}
            elif not entry.get("zh"):
                todo[u] = ""
        print(json.dumps(todo, ensure_ascii=False, indent=1))
        return 0
    if cmd == "fill":
        name, given = _name(rest[0]), json.loads(Path(rest[1]).read_text(encoding="utf-8"))
        given = {en: zh["zh"] if isinstance(zh, dict) else zh for en, zh in given.items()}
        units = translations.catalogs()[name]
        kinds = dict(units)
        cat = translations.read(name)
        bad = 0
        for en, zh in given.items():
            if en not in kinds:
                print(f"not a unit of {name}: {en[:80]!r}")
                bad += 1
                continue
            probs = i18n.problems(en, zh, template=kinds[en] == "template") if zh else []
            if probs:
                print(f"refused {en[:70]!r}: {'; '.join(probs)}")
                bad += 1
                continue
            if zh:  # a revised fuzzy entry is current again
                cat[en] = {**cat.get(en, {}), "zh": zh, "fuzzy": False, "previous": ""}
        entries = [(u, k, cat.get(u, {})) for u, k in units]
        translations.write(name, [translations.Entry(u, k, e.get("zh", ""), e.get("fuzzy", False),
                                                     e.get("previous", "")) for u, k, e in entries])
        left = sum(not cat.get(u, {}).get("zh") for u, _ in units)
        print(f"{name}: {len(given) - bad} set, {bad} refused, {left} of {len(units)} still untranslated")
        return 1 if bad else 0
    if cmd == "check":
        where = str(translations.po_path(_name(rest[0])).relative_to(book.root())) if rest else ""
        # a catalog's own problems, and a clash with another catalog (one English unit translated two ways)
        probs = [p for p in translations.drift() if not rest or where in p or f"{_name(rest[0])}.po" in p]
        print("\n".join(probs) or "no drift")
        return 1 if probs else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
