"""Shared test setup: offline model loading, and a summary of chapter execution times."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

CHAPTER_TIMES: dict[str, float] = {}


def pytest_terminal_summary(terminalreporter):
    if CHAPTER_TIMES:
        terminalreporter.section("chapter execution times (SMOKE=True)")
        for name, seconds in CHAPTER_TIMES.items():
            terminalreporter.write_line(f"{name:<16} {seconds:6.1f} s")
        terminalreporter.write_line(f"{'total':<16} {sum(CHAPTER_TIMES.values()):6.1f} s")
