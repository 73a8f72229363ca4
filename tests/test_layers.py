"""The package's two layers: the library (what a reader imports) never imports the book's layer
(:mod:`embedbook.book`: the claims machinery, the chapter runner, the two editions, the CLI; and
:mod:`embedbook.chapters`: each chapter's measurements and claims), and no module imports another in a
circle. Read from the source, function-level imports included."""

import ast
from pathlib import Path

import embedbook
import embedbook.chapters

PKG = Path(embedbook.__file__).parent
CHAPTERS = Path(embedbook.chapters.__file__).parent  # the checkout's chapters/, installed as embedbook.chapters


def _module_name(path: Path) -> str:
    base, prefix = (CHAPTERS, ["embedbook", "chapters"]) if path.is_relative_to(CHAPTERS) else (PKG, ["embedbook"])
    parts = prefix + list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _file(module: str) -> Path:
    parts = module.split(".")
    base, rest = (CHAPTERS, parts[2:]) if parts[:2] == ["embedbook", "chapters"] else (PKG, parts[1:])
    return base.joinpath(*rest)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("embedbook")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("embedbook"):
            found.add(node.module)
            for a in node.names:  # `from embedbook import lookup` imports the module embedbook.lookup
                target = _file(f"{node.module}.{a.name}")
                if target.with_suffix(".py").exists() or (target / "__init__.py").exists():
                    found.add(f"{node.module}.{a.name}")
    return {m for m in found if m != "embedbook" and m != _module_name(path)}  # a package's __init__ imports its submodules


GRAPH = {_module_name(p): _imports(p) for p in [*PKG.rglob("*.py"), *CHAPTERS.rglob("*.py")]
         if not p.name.startswith("test_")}


def _layer(module: str) -> str:
    top = module.split(".")[1] if module.count(".") else ""
    return "library" if top in embedbook.LIBRARY else "book"


def test_every_module_is_in_a_layer():
    tops = {m.split(".")[1] for m in GRAPH if m.count(".")}
    assert tops <= set(embedbook.LIBRARY) | set(embedbook.BOOK), tops - set(embedbook.LIBRARY) - set(embedbook.BOOK)


def test_library_never_imports_the_book_layer():
    bad = {m: sorted(i for i in deps if _layer(i) == "book") for m, deps in GRAPH.items() if _layer(m) == "library"}
    bad = {m: d for m, d in bad.items() if d}
    assert not bad, f"library modules importing the book's layer (embedbook.book, embedbook.chapters): {bad}"


def test_no_import_cycles():
    state: dict[str, int] = {}
    cycles = []

    def visit(m, stack):
        state[m] = 1
        for n in sorted(GRAPH.get(m, ())):
            if n not in GRAPH:
                continue
            if state.get(n) == 1:
                cycles.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n, stack + [n])
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles: " + "; ".join(" → ".join(c) for c in cycles)


def test_the_graph_sees_imports():
    """The reader of imports works: ch02's measurements import the library and the claims machinery."""
    assert {"embedbook.lookup", "embedbook.book.claims"} <= GRAPH["embedbook.chapters.ch02_lookup.measure"]


def test_every_module_is_an_attribute_after_import():
    for name in embedbook.LIBRARY:
        assert getattr(embedbook, name).__name__ == f"embedbook.{name}"
