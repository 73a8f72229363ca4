"""What every chapter's notebook must look like, read without executing it.

- stored clean (no outputs), one ``parameters`` cell with ``SMOKE = False``, at most one ``smoke`` cell
  after it, the Python 3 kernel;
- plumbing out of sight: no visible code cell glues, installs or switches on ``SMOKE`` (the Colab install
  cell, the smoke sizes, the set-up and glue carry ``remove-cell``); the parameters are on the page
  collapsed (``hide-input``), since the exercises ask the reader to change them;
- teach first: at least one visible ``mechanism`` cell in plain torch / numpy (no call into the package),
  and a visible ``check`` cell that compares the package with it (``torch.equal``, ``allclose`` or an
  ``assert``);
- a lesson's shape: it opens by saying what it answers and assumes, every Chinese quote has its English
  beside it, and it closes with 2–4 exercises.

The verdicts chapter (16) is the book's summary, not a lesson: only the first two rules apply to it.
"""

from __future__ import annotations

import json
import re

import pytest

from embedbook import book

CHAPTERS = book.notebooks()  # lessons and audit pages
LESSONS = [n for n in book.chapters() if n != "16_verdicts"]
HIDDEN = {"remove-cell", "remove-input"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def cells(name):
    return json.loads(book.chapter_path(name).read_text(encoding="utf-8"))["cells"]


def source(cell):
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def visible_code(name):
    return [(i, c) for i, c in enumerate(cells(name)) if c["cell_type"] == "code" and not tags(c) & HIDDEN]


def package_names(name) -> set[str]:
    """Names the chapter binds to the package: ``from embedbook import a, b as c`` and ``import embedbook``."""
    names = {"embedbook"}
    for c in cells(name):
        for m in re.finditer(r"from embedbook(?:\.\w+)* import ([\w ,]+)", source(c)):
            for part in m.group(1).split(","):
                names.add(part.split(" as ")[-1].strip())
    return names - {""}


@pytest.mark.parametrize("name", CHAPTERS)
def test_stored_clean(name):
    nb = json.loads(book.chapter_path(name).read_text(encoding="utf-8"))
    dirty = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, f"{name}: cells {dirty} have stored outputs; strip them before committing"
    assert book.parameters(book.chapter_path(name)).get("SMOKE") is False, f"{name}: the parameters cell must set SMOKE = False"
    assert nb["metadata"]["kernelspec"]["name"] == book.KERNEL
    params = [i for i, c in enumerate(nb["cells"]) if "parameters" in tags(c)]
    smoke = [i for i, c in enumerate(nb["cells"]) if "smoke" in tags(c)]
    assert len(smoke) <= 1 and all(s > params[0] for s in smoke), f"{name}: one smoke cell, after the parameters"


@pytest.mark.parametrize("name", CHAPTERS)
def test_plumbing_is_out_of_sight(name):
    for i, c in visible_code(name):
        src = source(c)
        assert not re.search(r"(^|[\s.])glue\(", src), f"{name}: visible cell {i} calls glue; tag it remove-cell"
        assert "google.colab" not in src and "%pip" not in src, f"{name}: the install cell {i} is visible"
        assert "if SMOKE" not in src, f"{name}: visible cell {i} switches on SMOKE"
        assert "smoke" not in tags(c), f"{name}: the smoke cell {i} is visible"
        if "parameters" in tags(c):
            assert "hide-input" in tags(c), f"{name}: the parameters cell {i} must be collapsed (hide-input)"


@pytest.mark.parametrize("name", LESSONS)
def test_parameters_are_on_the_page_collapsed_and_set_up_is_removed(name):
    """The exercises point at the parameters, so a reader can open them (collapsed, hide-input); the set-up
    cell (imports, seeds, device) is plumbing and is removed (the intro says which names it defines)."""
    params = [i for i, c in enumerate(cells(name)) if "parameters" in tags(c)]
    assert params and "hide-input" in tags(cells(name)[params[0]]), f"{name}: tag the parameters cell hide-input"
    shown_imports = [i for i, c in visible_code(name) if "hide-input" in tags(c)
                     and re.search(r"^(from embedbook|import torch)", source(c), re.M)]
    assert not shown_imports, f"{name}: the set-up cell {shown_imports} must be removed (remove-cell)"


@pytest.mark.parametrize("name", LESSONS)
def test_mechanism_first_in_plain_torch(name):
    pkg = package_names(name)
    mech = [(i, source(c)) for i, c in visible_code(name) if "mechanism" in tags(c)]
    assert mech, f"{name}: no visible cell tagged 'mechanism' builds the idea in plain torch / numpy"
    assert any(re.search(r"\btorch\.|\bnp\.|\bF\.|@|\bnn\.", s) for _, s in mech), f"{name}: the mechanism cells use no torch / numpy"
    for i, s in mech:
        used = sorted(n for n in pkg if re.search(rf"(?<![\w.]){re.escape(n)}\.", s))  # not torch's nn.init.
        assert not used or used == ["data"] or set(used) <= {"data", "device"}, (
            f"{name}: mechanism cell {i} calls the package ({used}); build it in plain torch and check the package after"
        )


@pytest.mark.parametrize("name", LESSONS)
def test_package_checked_against_the_mechanism(name):
    pkg = package_names(name) - {"data", "device", "plotting", "book", "claims"}
    checks = [(i, source(c)) for i, c in visible_code(name) if "check" in tags(c)]
    assert checks, f"{name}: no visible cell tagged 'check' compares the package with the mechanism"
    ok = [s for _, s in checks if re.search(r"torch\.equal|allclose|array_equal|\bassert\b", s)
          and any(re.search(rf"(?<![\w.]){re.escape(n)}\.", s) for n in pkg)]
    assert ok, f"{name}: the check cells must call the package and compare (torch.equal / allclose / assert)"


@pytest.mark.parametrize("name", LESSONS)
def test_opens_with_what_it_answers_and_assumes(name):
    first = source(cells(name)[0])
    assert "This chapter answers" in first and "assumes" in first, f"{name}: say what the chapter answers and assumes"


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_chinese_quote_has_its_english(name):
    for i, c in enumerate(cells(name)):
        if c["cell_type"] != "markdown":
            continue
        for block in re.findall(r"(?:^>.*\n?)+", source(c), flags=re.M):
            lines = [ln.lstrip("> ").strip() for ln in block.splitlines()]
            quoted = [ln for ln in lines if CJK.search(ln) and not ln.startswith("—")]
            english = [ln for ln in lines if ln and not CJK.search(ln) and len(re.findall(r"[A-Za-z]+", ln)) >= 5]
            assert not quoted or english, f"{name}: the quote in markdown cell {i} has no English rendering"


@pytest.mark.parametrize("name", LESSONS)
def test_closes_with_exercises(name):
    md = "\n".join(source(c) for c in cells(name) if c["cell_type"] == "markdown")
    assert "## Summary" in md, f"{name}: no '## Summary'"
    tail = md.split("## Exercises")
    assert len(tail) == 2, f"{name}: needs one '## Exercises' section at the end"
    items = re.findall(r"^\d+\. ", tail[1].split("```")[0], flags=re.M)
    assert 2 <= len(items) <= 4, f"{name}: 2–4 numbered exercises, found {len(items)}"
    if book.audit_name(name):  # then the articles' claims, each verdict linked to its box on the audit page
        said = tail[1].split("## What the articles said")
        assert len(said) == 2 and "```{articles-said}" in said[1], (
            f"{name}: after the exercises, '## What the articles said' with the {{articles-said}} table")


# The chapters whose main result comes from a loop (training, timing, skip-gram, per-layer measurement,
# quantise-and-rank): that loop is on the page once, in plain torch / numpy, before the package repeats it.
CORE = ["02_lookup", "04_tying", "05_learning", "06_init", "07_dimension", "08_similarity", "09_analogies", "10_word2vec",
        "11_contextual", "13_quantize", "15_practice"]


@pytest.mark.parametrize("name", CORE)
def test_main_result_core_loop_on_the_page(name):
    pkg = package_names(name) - {"data", "device"}
    code = visible_code(name)
    core = [(i, source(c)) for i, c in code if "core" in tags(c)]
    assert core, f"{name}: no visible cell tagged 'core' shows the main experiment's loop in plain torch / numpy"
    for i, s in core:
        assert re.search(r"\bfor\b|\bwhile\b", s), f"{name}: core cell {i} has no loop"
        used = sorted(n for n in pkg if re.search(rf"(?<![\w.]){re.escape(n)}\.", s))
        assert not used, f"{name}: core cell {i} calls the package ({used}); write the loop in plain torch"
    after = [source(c) for i, c in code if i > core[0][0] and "check" in tags(c)]
    assert any(re.search(r"torch\.equal|allclose|array_equal|\bassert\b", s) and re.search(r"\brun_\w+\(", s)
               for s in after), (f"{name}: after the core loop, a visible 'check' cell must run the package's run_* "
                                 "on one seed or setting and compare it with the loop (equal / allclose / assert)")


MAX_CODE_LINE = 88  # characters: what the code box holds at the book's code font (embedbook.css) without wrapping


@pytest.mark.parametrize("name", CHAPTERS)
def test_visible_code_fits_the_column(name):
    long = [(i, len(line)) for i, c in visible_code(name) for line in source(c).splitlines() if len(line) > MAX_CODE_LINE]
    assert not long, (f"{name}: visible code lines over {MAX_CODE_LINE} characters wrap mid-line on the page "
                      f"(cell, length): {long[:5]}; break them or move the comment above")


# --- a chapter's sizes are declared once: in its parameters cell ------------------------------------------------


def _calls_into_chapter_code(path):
    """(function, call) for every call of a chapter module's function (``chNN.run_x(...)``) in a notebook."""
    import ast
    import importlib

    code = book._code_of(path)
    aliases = {alias: importlib.import_module(f"embedbook.chapters.{pkg}.{mod}") for pkg, mod, alias in
               re.findall(r"from embedbook\.chapters\.(ch\d\d_\w+) import (measure|claims) as (\w+)", code)}
    for call in ast.walk(ast.parse(code)):
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                and call.func.value.id in aliases and callable(getattr(aliases[call.func.value.id], call.func.attr, None))):
            yield getattr(aliases[call.func.value.id], call.func.attr), call


def _from_parameters(path) -> set[str]:
    """The parameters cell's names, and every name the notebook assigns from them by arithmetic alone
    (``max_steps = MAX_STEPS // 2``; a name a function returns is a result, not a size)."""
    import ast

    names = set(book.parameters(path))
    tree = ast.parse(book._code_of(path))
    grew = True
    while grew:
        grew = False
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and not any(isinstance(n, ast.Call) for n in ast.walk(node.value))
                    and {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} & names):
                new = {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)} - names
                names |= new
                grew = grew or bool(new)
    return names


# defaults that are no size the notebook also holds: "all of it", and one worker process (a machine setting)
SEMANTIC_DEFAULTS = {("english_texts", "n_lines"), ("run_sweep", "workers"), ("run_scaling", "workers")}


@pytest.mark.parametrize("name", [n for n in CHAPTERS if n != "16_verdicts"])
def test_sizes_are_declared_once(name):
    """A size the notebook passes from its parameters cell has no default in the chapter's code (it would be a second
    copy that nothing ties to the first), and every call binds to its function's signature."""
    import ast
    import inspect

    params = _from_parameters(book.chapter_path(name))
    twice, unbound = [], []
    for fn, call in _calls_into_chapter_code(book.chapter_path(name)):
        sig = inspect.signature(fn)
        if not any(isinstance(a, ast.Starred) for a in call.args) and all(k.arg for k in call.keywords):
            try:
                bound = sig.bind(*call.args, **{k.arg: k.value for k in call.keywords})
            except TypeError as err:
                unbound.append(f"{fn.__name__}: {err}")
                continue
            for arg, value in bound.arguments.items():
                names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} if isinstance(value, ast.AST) else set()
                default = sig.parameters[arg].default
                if names & params and default is not inspect.Parameter.empty and (fn.__name__, arg) not in SEMANTIC_DEFAULTS:
                    twice.append(f"{fn.__name__}({arg}=...) has the default {default!r}; the notebook passes {sorted(names & params)}")
    assert not unbound, unbound
    assert not twice, f"{name}: sizes held twice (remove the default in its module):\n" + "\n".join(twice)
