"""Edit a notebook as plain text and turn it back into a notebook (outputs are never stored).

    python tools/nbtext.py dump chapters/ch02_lookup/02_lookup.ipynb > 02.txt     # notebook -> text
    python tools/nbtext.py load 02.txt chapters/ch02_lookup/02_lookup.ipynb        # text -> notebook

The text form is a sequence of cells, each starting with a marker line:

    %% markdown id=c004
    %% code id=c005 tags=parameters,remove-cell
    %% code

Everything up to the next marker line is the cell's source (trailing blank lines dropped). A cell keeps the
id its marker names, so a round trip changes only the cells you edited; a cell written without an id (a new
one) gets a fresh one. Loading onto an existing notebook keeps its metadata (kernel, language, anything
Jupyter added).
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path

MARKER = re.compile(r"^%% (markdown|code)(?: id=([\w-]+))?(?: tags=([\w,-]+))?\s*$")
KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}


def dump(path: str) -> str:
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        head = f"%% {cell['cell_type']}" + (f" id={cell['id']}" if cell.get("id") else "")
        head += f" tags={','.join(tags)}" if tags else ""
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        out.append(head + "\n" + src.rstrip("\n") + "\n")
    return "\n".join(out)


def load(text: str, old: dict | None = None) -> dict:
    """The notebook for ``text``; ``old`` (the notebook it replaces) lends its metadata and each kept cell's
    own metadata besides tags."""
    cells, current = [], None
    for line in text.splitlines():
        m = MARKER.match(line)
        if m:
            current = {"cell_type": m.group(1), "id": m.group(2), "tags": m.group(3).split(",") if m.group(3) else [],
                       "lines": []}
            cells.append(current)
        elif current is None:
            if line.strip():
                raise SystemExit(f"text before the first cell marker: {line!r}")
        else:
            current["lines"].append(line)
    before = {c.get("id"): c for c in (old or {}).get("cells", []) if c.get("id")}
    ids = [c["id"] for c in cells if c["id"]]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise SystemExit(f"cell ids used twice: {twice}; a copied cell needs its id line removed (it gets a new one)")
    nb_cells = []
    for c in cells:
        src = "\n".join(c["lines"]).rstrip("\n")
        cell_id = c["id"] or uuid.uuid4().hex[:8]
        meta = {k: v for k, v in before.get(cell_id, {}).get("metadata", {}).items() if k != "tags"}
        if c["tags"]:
            meta["tags"] = c["tags"]
        cell = dict(before.get(cell_id, {}))  # a kept cell keeps its keys' order: its diff is its edit alone
        cell.update(cell_type=c["cell_type"], metadata=meta, source=src)
        if c["cell_type"] == "code":
            cell.update(execution_count=None, outputs=[])
        else:
            cell.pop("execution_count", None), cell.pop("outputs", None)
        cell["id"] = cell_id
        nb_cells.append(cell)
    return {
        "cells": nb_cells,
        "metadata": (old or {}).get("metadata") or {"kernelspec": KERNEL, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": max(5, (old or {}).get("nbformat_minor", 5)),
    }


def main(argv: list[str]) -> None:
    if len(argv) == 2 and argv[0] == "dump":
        sys.stdout.write(dump(argv[1]))
    elif len(argv) == 3 and argv[0] == "load":
        target = Path(argv[2])
        old = json.loads(target.read_text(encoding="utf-8")) if target.exists() else None
        nb = load(Path(argv[1]).read_text(encoding="utf-8"), old)
        target.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
