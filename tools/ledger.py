"""Rebuild the rule ledger from git history, or list what today's rules add to it.

    python tools/ledger.py rebuild   # walk every commit, oldest first; write chapters/ledger.json
    python tools/ledger.py check     # today's rules against the ledger (exit 1 on an unledgered rule)
    python tools/ledger.py add       # append today's changed rules, dated today, with their full-size verdict

Every commit's files that declare a claim rule or check are read (``embedbook.book.ledger.declarations``);
a claim gets a new ledger entry each time its fingerprint changes, with the commit and its date. The verdict
a rule gave when it was first measured is not in git (builds of that time kept no record): an entry rebuilt
from history says so (``first_verdict: null``). ``add`` records it for a new rule from the full-size record
(``_build/verdicts/full``) when one exists. A rebuild keeps each entry's ``first_verdict`` and ``why`` (the
explanation of a change, written by whoever made it) by fingerprint.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from embedbook.book import ledger  # noqa: E402

LEDGER = ROOT / "chapters" / "ledger.json"
PATTERN = r"claims\.(rule|check)\(|@(rule|check)\("


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def at_commit(commit: str) -> dict[str, dict]:
    """Every claim's declaration at ``commit``."""
    blobs: dict[str, str | None] = {}

    def read(path: str) -> str | None:
        if path not in blobs:
            try:
                blobs[path] = git("show", f"{commit}:{path}")
            except subprocess.CalledProcessError:
                blobs[path] = None
        return blobs[path]

    try:
        files = git("grep", "-lE", PATTERN, commit, "--", "*.py").split()
    except subprocess.CalledProcessError:
        return {}
    found: dict[str, dict] = {}
    for item in files:
        path = item.split(":", 1)[1]
        if path.startswith("tests/") or Path(path).name.startswith("test_"):
            continue
        try:
            found.update(ledger.declarations(read(path) or "", read))
        except SyntaxError:
            continue
    return found


def _kept() -> dict[str, dict]:
    """What a rebuild cannot read from git, by fingerprint: first verdicts and explanations of changes."""
    if not LEDGER.exists():
        return {}
    old = json.loads(LEDGER.read_text())
    return {v["fingerprint"]: {k: v[k] for k in ("first_verdict", "why") if v.get(k) is not None}
            for versions in old.values() for v in versions}


def rebuild() -> dict:
    kept = _kept()
    history: dict[str, list[dict]] = {}
    for line in git("log", "--reverse", "--format=%H %cs", "HEAD").splitlines():
        commit, date = line.split()
        for cid, entry in at_commit(commit).items():
            versions = history.setdefault(cid, [])
            if not versions or versions[-1]["fingerprint"] != entry["fingerprint"]:
                versions.append({**entry, "commit": commit[:10], "date": date, "first_verdict": None,
                                 **kept.get(entry["fingerprint"], {})})
    return {cid: history[cid] for cid in sorted(history, key=lambda c: int(c[1:]))}


def add() -> list[str]:
    """Append every rule of today's tree whose fingerprint the ledger lacks, dated today."""
    import datetime

    book = json.loads(LEDGER.read_text())
    full = ROOT / "_build" / "verdicts" / "full"
    added = []
    for cid, entry in ledger.read_tree(ROOT).items():
        if entry["fingerprint"] in {v["fingerprint"] for v in book.get(cid, [])}:
            continue
        record = full / f"{cid}.json"
        kept = json.loads(record.read_text()) if record.exists() else {}
        # a record made under this very rule (its fingerprint) gives the first verdict; an older one does not
        first = kept.get("verdict") if kept.get("fingerprint") == entry["fingerprint"] else None
        book.setdefault(cid, []).append({**entry, "commit": "", "date": datetime.date.today().isoformat(),
                                         "first_verdict": first})
        added.append(cid)
    LEDGER.write_text(json.dumps(book, indent=1, ensure_ascii=False) + "\n")
    return added


def main(argv: list[str]) -> int:
    if argv[:1] == ["rebuild"]:
        book = rebuild()
        LEDGER.write_text(json.dumps(book, indent=1, ensure_ascii=False) + "\n")
        print(f"{LEDGER.relative_to(ROOT)}: {len(book)} claims, {sum(len(v) for v in book.values())} rule versions")
        return 0
    if argv[:1] == ["check"]:
        missing = ledger.unledgered(ledger.read_tree(ROOT))
        print("unledgered rules: " + (", ".join(missing) or "none"))
        return 1 if missing else 0
    if argv[:1] == ["add"]:
        print("added: " + (", ".join(add()) or "none"))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
