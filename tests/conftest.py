"""Shared test setup: offline model loading, and a summary of chapter execution times."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from hypothesis import settings  # noqa: E402

# The property-based tests draw the same inputs on every run (a suite that passes on one run passes on the
# next); HYPOTHESIS_PROFILE=explore draws fresh ones, to hunt for new failures.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

CHAPTER_TIMES: dict[str, float] = {}
FUZZ_COUNTS: dict[str, int] = {}


def pytest_terminal_summary(terminalreporter):
    if FUZZ_COUNTS:
        terminalreporter.section("property-based inputs tried (hypothesis)")
        for name, n in FUZZ_COUNTS.items():
            terminalreporter.write_line(f"{name:<22} {n:6d}")
        terminalreporter.write_line(f"{'total':<22} {sum(FUZZ_COUNTS.values()):6d}")
    if CHAPTER_TIMES:
        terminalreporter.section("chapter execution times (SMOKE=True)")
        for name, seconds in CHAPTER_TIMES.items():
            terminalreporter.write_line(f"{name:<16} {seconds:6.1f} s")
        terminalreporter.write_line(f"{'total':<16} {sum(CHAPTER_TIMES.values()):6.1f} s")


import dataclasses  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture
def swap_sources(monkeypatch):
    """``swap_sources(cid, *sources)``: claim ``cid``'s rule reads only ``sources`` for the rest of the test (its
    check counts them as usual; nothing is typed)."""
    from embedbook import claims

    def swap(cid, *sources):
        rule = claims.rule_of(cid)
        lit = dataclasses.replace(rule.literature, sources=tuple(sources))
        monkeypatch.setitem(claims._RULES, cid, dataclasses.replace(rule, literature=lit))

    return swap
