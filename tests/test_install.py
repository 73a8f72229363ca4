"""A new user's install works anywhere: the files pip and conda read hold plain version pins or bounds,
never a direct reference, a local path or a URL that exists only on the machine that wrote them."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = ["constraints.txt", "pyproject.toml", "environment.yml", "Makefile"]
# `name @ file://…`, `git+https://…`, `/tmp/…`, `C:\…`, a wheel file named directly
BAD = re.compile(r"@\s*(file|https?|git\+)|file://|git\+|https?://\S+\.(whl|tar\.gz|zip)|(^|[\s=\"'])/(tmp|root|work|home|opt|mnt)/|\.whl\b")


@pytest.mark.parametrize("name", FILES)
def test_no_direct_references(name):
    bad = [f"{i}: {line}" for i, line in enumerate((ROOT / name).read_text().splitlines(), 1)
           if not line.lstrip().startswith("#") and BAD.search(line)]
    assert not bad, f"{name} points at paths or URLs a fresh machine does not have:\n" + "\n".join(bad)


def test_constraints_are_plain_pins():
    lines = [ln for ln in (ROOT / "constraints.txt").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    odd = [ln for ln in lines if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+", ln)]
    assert not odd, f"constraints.txt must hold name==version lines only: {odd}"
    names = [ln.split("==")[0].lower().replace("_", "-") for ln in lines]
    assert len(names) == len(set(names)), "a package is pinned twice"
    assert "torch==2.13.0" in lines, "torch must stay pinned to the CPU build on disk"


def test_the_checker_catches_what_pip_freeze_writes():
    assert BAD.search("cvttf-NotoSansCJK-Regular @ file:///tmp/dl/cvttf.whl")
    assert BAD.search("pkg @ git+https://github.com/x/y")
    assert not BAD.search("cvttf-NotoSansCJK-Regular==1.0")


def test_ci_installs_like_a_new_user():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "PIP_NO_CACHE_DIR=1" in ci and "rm -rf .venv" in ci and "make test" in ci


def _project():
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _names(reqs):
    return {re.match(r"[A-Za-z0-9._-]+", r).group(0).lower() for r in reqs}


def test_required_dependencies_are_what_the_library_imports():
    """Issue 18: matplotlib and a 16 MB CJK font were required though only embedbook.plotting uses them."""
    project = _project()
    assert _names(project["dependencies"]) == {"numpy", "torch", "pyyaml", "tqdm"}
    assert _names(project["optional-dependencies"]["plot"]) == {"matplotlib", "cvttf-notosanscjk-regular"}
    assert any("plot" in r for r in project["optional-dependencies"]["book"])
    assert project["urls"]["Repository"] == "https://github.com/embedbook/embedbook"


def test_package_data_ships_every_resource():
    import fnmatch
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["embedbook"]
    files = [p.relative_to(ROOT / "embedbook").as_posix() for p in (ROOT / "embedbook" / "resources").iterdir()]
    assert "resources/gpt2.tiktoken" in files and "resources/NOTICE.txt" in files
    left_out = [f for f in files if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert not left_out, f"not in [tool.setuptools.package-data]: {left_out}"


def test_no_install_step_for_openai_whisper_left():
    """Issue 18: 19 files repeated `pip install --no-deps openai-whisper`."""
    files = [*FILES, "README.md", *(p.relative_to(ROOT).as_posix() for p in [*(ROOT / "book").glob("*.ipynb"), *(ROOT / "chapters").glob("*/*.ipynb")])]
    step = re.compile(r"install[^\n]*openai-whisper|openai-whisper==")
    bad = [name for name in files if step.search((ROOT / name).read_text(encoding="utf-8"))]
    assert not bad, bad


BLOCK_MATPLOTLIB = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("matplotlib", "cvttf_NotoSansCJK_Regular"):
            raise ImportError(f"{name} blocked")
sys.meta_path.insert(0, Block())
"""


def test_the_library_imports_without_matplotlib():
    """Every library module and the CLI import with matplotlib and the font blocked; plotting.setup() then
    raises one clear error naming the [plot] extra and a command that works."""
    import subprocess
    import sys

    code = BLOCK_MATPLOTLIB + """
import importlib
import embedbook
for name in [*embedbook.LIBRARY, "book.cli"]:
    importlib.import_module("embedbook." + name)
assert not [m for m in sys.modules if m.startswith("matplotlib")]
from embedbook import data, plotting
try:
    plotting.setup()
except data.MissingResource as err:
    print(err)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    msg = run.stdout.strip()
    assert "'matplotlib' is not installed" in msg and "pip install 'matplotlib>=" in msg and "[plot]" in msg, msg
    assert f"pip install -e '{ROOT}[plot]'" in msg, msg


def test_the_wheel_carries_each_chapters_code_and_not_its_tests(tmp_path):
    """A chapter runs from the wheel (Colab): every chapter's measure.py and claims.py install as
    embedbook.chapters.chNN_name; its tests, notebook and catalog stay in the checkout."""
    import shutil
    import subprocess
    import sys
    import zipfile

    from embedbook import book

    had_build = (ROOT / "build").exists()
    try:
        subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
                       check=True, capture_output=True, timeout=300)
    finally:
        if not had_build:  # setuptools builds in the checkout's build/
            shutil.rmtree(ROOT / "build", ignore_errors=True)
    names = zipfile.ZipFile(next(tmp_path.glob("embedbook-*.whl"))).namelist()
    for name in book.chapters():
        folder = f"embedbook/chapters/ch{name}/"
        assert folder + "__init__.py" in names, name
        if (book.chapter_dir(name) / "claims.py").exists():
            assert {folder + "measure.py", folder + "claims.py"} <= set(names), name
    assert not [n for n in names if n.rsplit("/", 1)[-1].startswith("test_") or n.endswith((".ipynb", ".po"))]
    assert "embedbook/resources/gpt2.tiktoken" in names
    assert "embedbook/chapters/ledger.json" in names  # the claim boxes' rule histories come from it
    assert "embedbook/py.typed" in names  # type checkers read the package's hints (PEP 561)


def test_every_library_module_declares_its_api():
    """Each library module lists its public names in __all__, and each name exists."""
    import importlib

    for path in sorted((ROOT / "embedbook").glob("*.py")):
        module = importlib.import_module(f"embedbook.{path.stem}" if path.stem != "__init__" else "embedbook")
        assert hasattr(module, "__all__"), f"{path.name} has no __all__"
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert not missing, f"{path.name}: __all__ names {missing}, which it does not define"
