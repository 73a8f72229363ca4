"""Edit a chapter as plain text and turn it back into a notebook (outputs are never stored).

    python tools/nbtext.py dump book/02_lookup.ipynb > 02.txt     # notebook -> text
    python tools/nbtext.py load 02.txt book/02_lookup.ipynb        # text -> notebook

The text form is a sequence of cells, each starting with a marker line:

    %% markdown
    %% code
    %% code tags=parameters,remove-cell

Everything up to the next marker line is the cell's source (trailing blank lines dropped).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

MARKER = re.compile(r"^%% (markdown|code)(?: tags=([\w,-]+))?\s*$")
KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}


def dump(path: str) -> str:
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        head = f"%% {cell['cell_type']}" + (f" tags={','.join(tags)}" if tags else "")
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        out.append(head + "\n" + src.rstrip("\n") + "\n")
    return "\n".join(out)


def load(text: str) -> dict:
    cells, current = [], None
    for line in text.splitlines():
        m = MARKER.match(line)
        if m:
            current = {"cell_type": m.group(1), "tags": m.group(2).split(",") if m.group(2) else [], "lines": []}
            cells.append(current)
        elif current is None:
            if line.strip():
                raise SystemExit(f"text before the first cell marker: {line!r}")
        else:
            current["lines"].append(line)
    nb_cells = []
    for c in cells:
        src = "\n".join(c["lines"]).rstrip("\n")
        meta = {"tags": c["tags"]} if c["tags"] else {}
        cell = {"cell_type": c["cell_type"], "metadata": meta, "source": src}
        if c["cell_type"] == "code":
            cell.update(execution_count=None, outputs=[])
        nb_cells.append(cell)
    return {
        "cells": nb_cells,
        "metadata": {"kernelspec": KERNEL, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def main(argv: list[str]) -> None:
    if len(argv) == 2 and argv[0] == "dump":
        sys.stdout.write(dump(argv[1]))
    elif len(argv) == 3 and argv[0] == "load":
        nb = load(Path(argv[1]).read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            cell["id"] = f"c{i:03d}"
        Path(argv[2]).write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
