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
