"""The Chinese edition's catalogs (locale/zh/*.po), from the command line.

    python tools/i18n.py extract [NAME...]    these catalogs (default: every one) updated from the English units (new ones empty,
                                              obsolete ones dropped, translations kept)
    python tools/i18n.py todo NAME            NAME's untranslated units as JSON {english: ""} (NAME: 08_similarity, book)
    python tools/i18n.py fill NAME FILE.json  set translations from {english: chinese}; each is checked first
    python tools/i18n.py check [NAME]         every drift problem (what tests/test_i18n.py fails on)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from embedbook import i18n, translations  # noqa: E402


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "extract":
        for name, (n, missing) in translations.update(names=rest or None).items():
            print(f"{name:<16} {n:5d} units, {missing:5d} untranslated")
        return 0
    if cmd == "todo":
        units = translations.catalogs()[rest[0]]
        cat = translations.read(rest[0])
        todo = {u: "" for u, _ in units if not cat.get(u, {}).get("zh")}
        print(json.dumps(todo, ensure_ascii=False, indent=1))
        return 0
    if cmd == "fill":
        name, given = rest[0], json.loads(Path(rest[1]).read_text(encoding="utf-8"))
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
            cat.setdefault(en, {})["zh"] = zh
        translations.write(name, [(u, k, cat.get(u, {}).get("zh", "")) for u, k in units])
        left = sum(not cat.get(u, {}).get("zh") for u, _ in units)
        print(f"{name}: {len(given) - bad} set, {bad} refused, {left} of {len(units)} still untranslated")
        return 1 if bad else 0
    if cmd == "check":
        probs = [p for p in translations.drift() if not rest or p.startswith(rest[0] + ".po")]
        print("\n".join(probs) or "no drift")
        return 1 if probs else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
