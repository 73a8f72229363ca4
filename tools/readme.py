"""The parts of README.md that the book already knows, written from the book: the chapter table (each chapter's
title from its notebook, what you build from its package's docstring, its claims from the register, the full-size
times of its lesson and of its audit page from the last `make book`) and the count of claims. Nothing there is
typed twice.

    python tools/readme.py           rewrite README.md (a chapter's time: from the build's execution cache where
                                     it ran, else the README's own)
    python tools/readme.py --check   exit 1, printing the difference, where README.md is not what it would write
                                     (tests/test_tools.py runs this)
"""

from __future__ import annotations

import difflib
import importlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from embedbook import book  # noqa: E402
from embedbook.book import claims  # noqa: E402

TABLE = re.compile(r"(<!-- chapters: .*? -->\n)(.*?)(<!-- /chapters -->)", re.S)
COUNT = re.compile(r"<!-- n_claims -->\d+<!-- /n_claims -->")
BUILD = re.compile(r"What you build in plain torch: (.+?)\n\n", re.S)


def ids(cids: list[str]) -> str:
    """``C31, C32, C33, C34, C47`` → ``C31–C34, C47`` (a run of three or more as a range)."""
    nums, out = sorted(int(c[1:]) for c in cids), []
    for n in nums:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(f"C{a:02d}–C{b:02d}" if b - a >= 2 else ", ".join(f"C{n:02d}" for n in range(a, b + 1))
                     for a, b in out)


def duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60} s"


def table(times: dict[str, str]) -> str:
    rows = ["| # | chapter | what you build in plain torch | claims | lesson | audit |", "|---|---|---|---|---|---|"]
    for name in book.chapters():
        title = book.chapter_title(name)
        doc = importlib.import_module(f"embedbook.chapters.ch{name}").__doc__
        built = " ".join(BUILD.search(doc).group(1).split()).rstrip(".")
        settled = [cid for cid, c in claims.CLAIMS.items() if c.chapter == name]
        which = ids(settled) if settled else f"all {len(claims.CLAIMS)}"
        audit = book.audit_name(name)
        rows.append(f"| {int(name[:2])} | {title} (`{name}`) | {built} | {which} | {times.get(name, '?')} | "
                    f"{times.get(audit, '?') if audit else '—'} |")
    return "\n".join(rows) + "\n"


def written(readme: str, from_cache: bool = True) -> str:
    """README.md as this tool writes it; ``from_cache=False`` keeps the README's own times (what --check
    compares, so that the check does not depend on the last build)."""
    old = TABLE.search(readme)
    if old is None:
        raise SystemExit("README.md has no <!-- chapters: ... --> ... <!-- /chapters --> block")
    times = {}
    for m in re.finditer(r"\(`(\d\d_\w+)`\) \|.*\| ([^|]+) \| ([^|]+) \|$", old.group(2), re.M):
        times[m.group(1)] = m.group(2).strip()
        times[f"{m.group(1)[:2]}_{book.AUDIT}"] = m.group(3).strip()
    if from_cache:
        times |= {name: duration(s) for name, s in book.execution_seconds().items() if name in book.notebooks()}
    readme = readme[:old.start(2)] + table(times) + readme[old.end(2):]
    return COUNT.sub(f"<!-- n_claims -->{len(claims.CLAIMS)}<!-- /n_claims -->", readme)


def main(argv: list[str]) -> int:
    path = ROOT / "README.md"
    readme = path.read_text(encoding="utf-8")
    if argv == ["--check"]:
        ours = written(readme, from_cache=False)
        if ours != readme:
            sys.stdout.writelines(difflib.unified_diff(readme.splitlines(True), ours.splitlines(True), "README.md",
                                                       "what tools/readme.py writes"))
            return 1
        return 0
    if argv:
        raise SystemExit(__doc__)
    path.write_text(written(readme), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
