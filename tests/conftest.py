"""Summaries of the tests/ tree: property-based inputs tried and chapter execution times (the shared set-up is
the repository's conftest.py)."""

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
