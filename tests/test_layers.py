"""The package's two layers: the library (what a reader imports) never imports the book's layer (the
claims register, the chapter runner, the CLI, the experiments), and no module imports another in a
circle. Read from the source, function-level imports included."""

import ast
from pathlib import Path

import embedbook

PKG = Path(embedbook.__file__).parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("embedbook")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("embedbook"):
            found.add(node.module)
            for a in node.names:  # `from embedbook import lookup` imports the module embedbook.lookup
                if (PKG.parent / node.module.replace(".", "/") / f"{a.name}.py").exists() or (
                    PKG.parent / node.module.replace(".", "/") / a.name / "__init__.py"
                ).exists():
                    found.add(f"{node.module}.{a.name}")
    return {m for m in found if m != "embedbook"}


GRAPH = {_module_name(p): _imports(p) for p in PKG.rglob("*.py")}


def _layer(module: str) -> str:
    top = module.split(".")[1] if module.count(".") else ""
    return "library" if top in embedbook.LIBRARY else "book"


def test_every_module_is_in_a_layer():
    tops = {m.split(".")[1] for m in GRAPH if m.count(".")}
    assert tops <= set(embedbook.LIBRARY) | set(embedbook.BOOK), tops - set(embedbook.LIBRARY) - set(embedbook.BOOK)


def test_library_never_imports_the_book_layer():
    bad = {m: sorted(i for i in deps if _layer(i) == "book") for m, deps in GRAPH.items() if _layer(m) == "library"}
    bad = {m: d for m, d in bad.items() if d}
    assert not bad, f"library modules importing the book's layer (claims, book, cli, experiments): {bad}"


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
    """The reader of imports works: ch02's experiments import the library and the register."""
    assert {"embedbook.lookup", "embedbook.claims"} <= GRAPH["embedbook.experiments.ch02_lookup"]


def test_every_module_is_an_attribute_after_import():
    for name in embedbook.LIBRARY:
        assert getattr(embedbook, name).__name__ == f"embedbook.{name}"
