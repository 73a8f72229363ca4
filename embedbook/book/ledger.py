"""The rule ledger: every rule a claim has had, read from the source by the machine, never typed.

A rule's *fingerprint* is a hash of its declared content as the source states it: the ``@claims.rule``
keywords (quantity, inputs, outcomes, thresholds, seeds, basis, counted; not the examples, the sources' list
or any prose about revisions) with every module constant they name resolved to its value, and its decide
function without its docstring. Before rules were declared as data (the first builds), a claim was decided
inside its ``@claims.check`` function: there the fingerprint covers the statements the verdict depends on.

The same function reads today's files and every commit's (``tools/ledger.py rebuild`` walks the history), so
a changed rule always shows up as a new fingerprint.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Callable
from typing import Any

__all__ = ["declarations", "fingerprint", "load", "versions", "replay", "changes", "unledgered"]

# Names kept as symbols, not resolved to their strings: a verdict's display words may change, its identity not.
SYMBOLS = {"CONFIRMED", "CORRECTED", "REFUTED", "INCONCLUSIVE", "NOT_HERE", "PENDING",
           "MEASURED", "CONSTRUCTED", "ARITHMETIC", "LITERATURE"}
# Keywords that are not the rule: realistic figures for the rule test, the prose of a revision, the source list
# a literature rule counts (evidence; its counting, ``counted``, is the rule), and whether a figure is timed.
NOT_RULE = {"examples", "revised", "example_sources", "literature", "timed"}

Reader = Callable[[str], "str | None"]  # a repository path → its text, or None where there is no such file


def _module_path(module: str) -> list[str]:
    parts = module.split(".")
    if parts[:2] == ["embedbook", "chapters"]:
        base = "/".join(["chapters"] + parts[2:])
    else:
        base = "/".join(parts)
    return [base + ".py", base + "/__init__.py"]


class _Modules:
    """Module-level constants and imports of the files a reader can read (one commit's tree)."""

    def __init__(self, read: Reader):
        self.read = read
        self._cache: dict[str, tuple[dict[str, ast.expr], dict[str, tuple[str, str | None]]]] = {}

    def parse(self, text: str) -> tuple[dict[str, ast.expr], dict[str, tuple[str, str | None]]]:
        tree = ast.parse(text)
        consts: dict[str, ast.expr] = {}
        imports: dict[str, tuple[str, str | None]] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                consts[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                consts[node.target.id] = node.value
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    imports[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    imports[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else
                                                                         alias.name.split(".")[0], None)
        return consts, imports

    def module(self, name: str):
        if name not in self._cache:
            self._cache[name] = ({}, {})
            for path in _module_path(name):
                text = self.read(path)
                if text is not None:
                    try:
                        self._cache[name] = self.parse(text)
                    except SyntaxError:
                        pass
                    break
        return self._cache[name]


class _Resolve(ast.NodeTransformer):
    """Replace the names a declaration uses by their literal values, verdict names by bare symbols, and
    ``_("…")`` by its text; what cannot be resolved stays as written."""

    def __init__(self, consts, imports, modules: _Modules, depth: int = 0, local: frozenset[str] = frozenset()):
        self.consts, self.imports, self.modules, self.depth, self.local = consts, imports, modules, depth, local

    def _value(self, consts, imports, name: str) -> ast.expr | None:
        if self.depth > 4:
            return None
        if name in consts:
            node = consts[name]
            return _Resolve(consts, imports, self.modules, self.depth + 1).visit(ast.parse(ast.unparse(node),
                                                                                          mode="eval").body)
        if name in imports:
            module, attr = imports[name]
            if attr is None:
                return None
            c, i = self.modules.module(module)
            return _Resolve(c, i, self.modules, self.depth + 1)._value(c, i, attr)
        return None

    def _literal(self, node: ast.expr | None) -> ast.expr | None:
        if node is None:
            return None
        try:
            ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in SYMBOLS:
            return ast.Name(node.id, ast.Load())
        if isinstance(node.ctx, ast.Load) and node.id not in self.local:
            value = self._literal(self._value(self.consts, self.imports, node.id))
            if value is not None:
                return value
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if node.attr in SYMBOLS and isinstance(node.value, ast.Name):
            return ast.Name(node.attr, ast.Load())
        if isinstance(node.value, ast.Name) and node.value.id in self.imports:
            module, attr = self.imports[node.value.id]
            target = f"{module}.{attr}" if attr else module
            c, i = self.modules.module(target)
            value = self._literal(_Resolve(c, i, self.modules, self.depth + 1)._value(c, i, node.attr))
            if value is not None:
                return value
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if isinstance(node.func, ast.Name) and node.func.id in ("_", "tr") and len(node.args) == 1:
            return self.visit(node.args[0])
        return self.generic_visit(node)


def _text(node: ast.expr) -> str:
    return " ".join(ast.unparse(node).split())


def _strip_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:] or [ast.Pass()]
    return body


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _assigned(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(node):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(
            n, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        for t in targets:
            out |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
    return out


def _decision_slice(fn: ast.FunctionDef) -> list[ast.stmt]:
    """The statements of a first-build check function that its verdict depends on (a backward slice over the
    top-level statements), ending with the verdict expression."""
    body = _strip_docstring(fn.body)
    verdict: ast.expr | None = None
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", "")) == "Verdict" \
                and len(n.args) >= 2:
            verdict = n.args[1]
    if verdict is None:
        return body
    needed = _names(verdict)
    kept: list[ast.stmt] = [ast.Expr(verdict)]
    for stmt in reversed(body):
        if isinstance(stmt, ast.Return):
            continue
        if _assigned(stmt) & needed:
            kept.insert(0, stmt)
            needed |= _names(stmt)
    return kept


# Declared but not what decides: the kind of evidence is a label on the rule (shown in the box), not the rule.
NOT_FINGERPRINTED = {"basis"}


def fingerprint(declared: dict[str, str], decide: str) -> str:
    """The 12-hex-digit hash of a rule's declared content (less its basis label) and decide code."""
    kept = {k: v for k, v in sorted(declared.items()) if k not in NOT_FINGERPRINTED}
    blob = json.dumps({"declared": kept, "decide": decide}, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def _claim_of(dec: ast.expr, kind: str) -> str | None:
    if not isinstance(dec, ast.Call) or not dec.args or not isinstance(dec.args[0], ast.Constant):
        return None
    name = getattr(dec.func, "attr", getattr(dec.func, "id", None))
    return dec.args[0].value if name == kind and isinstance(dec.args[0].value, str) else None


def declarations(text: str, read: Reader, modules: _Modules | None = None) -> dict[str, dict[str, Any]]:
    """Every claim rule (``era: "rule"``) and first-build check (``era: "check"``) declared in one file's
    ``text``: claim id → ``{era, declared, decide, fingerprint}``. ``read`` gives the other files of the same
    tree, for the constants a declaration imports. A claim with a rule is fingerprinted by its rule."""
    modules = modules or _Modules(read)
    consts, imports = modules.parse(text)
    out: dict[str, dict[str, Any]] = {}
    checks: dict[str, dict[str, Any]] = {}
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.FunctionDef):
            continue
        local = frozenset(a.arg for a in node.args.args) | frozenset(_assigned(node))
        for dec in node.decorator_list:
            for kind, era in (("rule", "rule"), ("check", "check")):
                cid = _claim_of(dec, kind)
                if cid is None:
                    continue
                resolve = _Resolve(consts, imports, modules, local=local)
                if era == "rule":
                    declared = {kw.arg: _text(resolve.visit(kw.value)) for kw in dec.keywords
                                if kw.arg and kw.arg not in NOT_RULE}
                    body = _strip_docstring(node.body)
                else:
                    declared, body = {}, _decision_slice(node)
                fn = ast.FunctionDef("decide", node.args, [resolve.visit(s) for s in body], [], None, None)
                ast.fix_missing_locations(fn)
                code = ast.unparse(fn)
                entry = {"era": era, "declared": declared, "decide": code, "fingerprint": fingerprint(declared, code)}
                (out if era == "rule" else checks)[cid] = entry
    for cid, entry in checks.items():
        out.setdefault(cid, entry)
    return out


# --- the committed ledger ------------------------------------------------------------------------------

def _ledger_file():
    from importlib import resources

    return resources.files("embedbook.chapters") / "ledger.json"


_LOADED: dict[str, list[dict[str, Any]]] | None = None


def load() -> dict[str, list[dict[str, Any]]]:
    """The committed ledger (``chapters/ledger.json``): claim id → its rule versions, oldest first, each
    ``{era, declared, decide, fingerprint, commit, date, first_verdict}`` (and ``why`` where the change that
    made it was explained)."""
    global _LOADED
    if _LOADED is None:
        f = _ledger_file()
        if not f.is_file():
            raise FileNotFoundError(f"the rule ledger {f} is missing; it ships with the package (chapters/ledger.json "
                                    "in a checkout): reinstall embedbook, or run `python tools/ledger.py rebuild`")
        _LOADED = json.loads(f.read_text(encoding="utf-8"))
    return _LOADED


def versions(cid: str, current: str | None = None) -> list[dict[str, Any]]:
    """Claim ``cid``'s rule versions, oldest first, ending at the one with fingerprint ``current`` (the rule
    in force; versions recorded after it, on another branch of history, are left out). Raises ``LookupError``
    when ``current`` is not in the ledger: a rule changed without its change being recorded."""
    found = load().get(cid, [])
    if current is None:
        return list(found)
    for i, entry in enumerate(found):
        if entry["fingerprint"] == current:
            return list(found[:i + 1])
    raise LookupError(f"{cid}'s rule (fingerprint {current}) is not in the rule ledger: a rule was changed without "
                      "recording it. Run `python tools/ledger.py add` and commit chapters/ledger.json with the change")


def replay(entry: dict[str, Any], figures: dict[str, Any], symbols: dict[str, Any]) -> str | None:
    """The verdict an earlier rule version gives on ``figures`` (today's), or None where it cannot be replayed:
    a first-build check decided on figures no record keeps, or a rule needs inputs today's check does not
    measure. ``symbols`` gives the values of the :data:`SYMBOLS` its code names (the claims module's verdicts,
    passed in so that this module does not import it back)."""
    if entry["era"] != "rule":
        return None
    try:
        inputs = ast.literal_eval(entry["declared"].get("inputs", "{}"))
        thresholds = ast.literal_eval(entry["declared"].get("thresholds", "{}"))
    except (ValueError, SyntaxError):
        return None
    if not set(inputs) <= set(figures):
        return None
    space: dict[str, Any] = {name: symbols[name] for name in SYMBOLS if name in symbols}
    space.update(math=__import__("math"))
    try:
        exec(entry["decide"], space)  # the version's own code, as the ledger keeps it from the repository
        verdict = space["decide"](dict(figures), thresholds)
    except Exception:  # noqa: BLE001 — an old rule that no longer runs on today's figures is "cannot replay"
        return None
    return verdict if isinstance(verdict, str) else None


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed from one version to the next: declared fields and, if so, ``"decide"`` (the code)."""
    if before["era"] != after["era"]:
        return ["form"]
    keys = sorted(set(before["declared"]) | set(after["declared"]))
    out = [k for k in keys if k not in NOT_FINGERPRINTED and before["declared"].get(k) != after["declared"].get(k)]
    if before["decide"] != after["decide"]:
        out.append("decide")
    return out


def unledgered(today: dict[str, dict[str, Any]]) -> list[str]:
    """The claims whose rule in ``today`` (claim id → declaration) has a fingerprint the ledger lacks."""
    book = load()
    return [cid for cid, e in today.items() if e["fingerprint"] not in {v["fingerprint"] for v in book.get(cid, [])}]


def read_tree(root) -> dict[str, dict[str, Any]]:
    """Every claim's declaration in the chapters' ``claims.py`` files under ``root`` (a checkout)."""
    from pathlib import Path

    root = Path(root)

    def read(path: str) -> str | None:
        f = root / path
        return f.read_text(encoding="utf-8") if f.exists() else None

    found: dict[str, dict[str, Any]] = {}
    for f in sorted((root / "chapters").glob("ch*/claims.py")):
        found.update(declarations(f.read_text(encoding="utf-8"), read))
    return found


_CURRENT: dict[str, dict[str, dict[str, Any]]] = {}


def current(cid: str, source_file: str) -> dict[str, Any]:
    """Claim ``cid``'s declaration as the installed ``source_file`` (its chapter's ``claims.py``) states it now:
    the same reading the ledger made of every commit, so the two fingerprints compare."""
    from pathlib import Path

    import embedbook
    import embedbook.chapters

    package = Path(embedbook.__file__).resolve().parent
    chapters = Path(embedbook.chapters.__file__).resolve().parent

    def read(path: str) -> str | None:
        f = chapters / path[len("chapters/"):] if path.startswith("chapters/") else package.parent / path
        return f.read_text(encoding="utf-8") if f.is_file() else None

    if source_file not in _CURRENT:
        _CURRENT[source_file] = declarations(Path(source_file).read_text(encoding="utf-8"), read)
    if cid not in _CURRENT[source_file]:
        raise LookupError(f"{source_file} declares no rule for {cid}")
    return _CURRENT[source_file][cid]
