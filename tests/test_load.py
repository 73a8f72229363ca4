"""No verdict depends on how busy the machine is: every claim whose rule reads a timing (``timed=True``)
is decided once on an idle machine and once while two busy loops occupy both cores, and must reach the
same verdict both times. Each chapter's claims module provides a smoke-size run of its timed claims as
``LOAD_PROBES``."""

import importlib
import subprocess
import sys

import pytest

from embedbook.book import claims

MODULES = [importlib.import_module(claims.claims_module(cid)) for cid in claims.CLAIMS]
PROBES = {cid: fn for mod in MODULES for cid, fn in getattr(mod, "LOAD_PROBES", {}).items()}
TIMED = [cid for cid in claims.CLAIMS if (r := claims.rule_of(cid)) is not None and r.timed]


def test_every_timed_claim_has_a_probe():
    assert TIMED, "no rule is marked timed: this test would check nothing"
    missing = [cid for cid in TIMED if cid not in PROBES]
    assert not missing, f"timed claims without a LOAD_PROBES entry in their chapter's claims.py: {missing}"


@pytest.fixture
def busy_machine():
    """Two processes spinning at 100 % (the CI machine has two cores)."""
    spin = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for p in spin:
        p.kill()
        p.wait()


@pytest.fixture(scope="module")
def idle_verdicts():
    return {cid: PROBES[cid]().verdict for cid in TIMED if cid in PROBES}


@pytest.mark.parametrize("cid", TIMED)
def test_busy_machine_gives_the_same_verdict(cid, idle_verdicts, busy_machine):
    if cid not in PROBES:
        pytest.fail(f"{cid} has no load probe")
    loaded = PROBES[cid]().verdict
    assert loaded == idle_verdicts[cid], f"{cid}: {idle_verdicts[cid]!r} on an idle machine, {loaded!r} on a busy one"
