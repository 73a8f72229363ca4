"""Command line: ``embedbook list | run CHAPTER [--smoke] [-p NAME=VALUE] [--out DIR] | page CHAPTER | execute | build | edition zh | bench``.

``list``, ``run``, ``page``, ``execute`` and ``build`` need the book's chapters: run them inside a clone of the repository (or
set ``EMBEDBOOK_ROOT``). ``bench`` needs only the package.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from embedbook import book, data
from embedbook.book import build

# what each command imports from the [book] extra: papermill and jupyter-cache execute, ipykernel is the kernel
BOOK_MODULES = {
    "run": ("nbformat", "papermill", "ipykernel"),
    "execute": ("nbformat", "jupyter_cache", "ipykernel"),
    "build": ("nbformat", "jupyter_cache", "ipykernel", "jupyter_book"),
    "edition": ("nbformat", "jupyter_cache", "jupyter_book"),
    "page": ("nbformat", "papermill", "ipykernel", "jupyter_book"),
}


def _check_book_extra(command: str) -> None:
    """Refuse a command whose [book] packages are missing with one line naming the install, before any import fails."""
    missing = [m for m in BOOK_MODULES.get(command, ()) if importlib.util.find_spec(m) is None]
    if missing:
        raise data.MissingResource(
            f"this command needs the [book] extra ({', '.join(missing)} not installed); install it with  "
            f"{data.extra_command('book')}"
        )


def _version() -> str:
    try:
        return importlib.metadata.version("embedbook")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that was never installed
        import embedbook

        return embedbook.__version__


def _list(_args) -> int:
    for i, name in enumerate(book.chapters(), 1):
        params = book.parameters(book.chapter_path(name))
        print(f"{i:2d}. {name:<16} parameters: {', '.join(f'{k}={v!r}' for k, v in params.items())}")
    return 0


def _parse_params(pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"parameter {pair!r} must look like NAME=VALUE")
        key, value = pair.split("=", 1)
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value  # a bare string; book.check_params refuses it where the default is not a string
    return out


def _run(args) -> int:
    params = _parse_params(args.param)
    book.check_params(book.chapter_path(args.chapter), params)
    out, seconds = book.run_chapter(args.chapter, smoke=args.smoke, params=params, out_dir=args.out)
    print(f"{args.chapter}: executed in {seconds:.1f} s → {out}")
    return 0


def _execute(_args) -> int:
    from embedbook.book import execute

    result = execute.execute_into_cache(fresh=getattr(_args, "fresh", False))
    for path in result["failed"]:
        print(f"failed: {path}", file=sys.stderr)
    print(f"executed {len(result['succeeded'])} notebooks into the build's cache, in both languages; "
          f"{len(result['skipped'])} unchanged since their last run here")
    return 1 if result["failed"] else 0


def _build(_args) -> int:
    if _execute(_args):
        return 1
    # --all: outputs come from the cache, which Sphinx does not watch, so no page may be taken as unchanged
    english = subprocess.call([build.jupyter_book(), "build", str(book.root()), "--all", "-W", "--keep-going"])
    return english or _edition(_args)


def _edition(_args) -> int:
    """Build the Chinese edition from the same executed notebooks into ``_build/html/zh``."""
    import shutil

    base = book.root()
    work = base / "_build" / "zh"
    code = build.build("zh", work)
    if code:
        return code
    target = base / "_build" / "html" / "zh"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(work / "_build" / "html", target)
    print(f"the Chinese edition is in {target}")
    return 0


def _page(args) -> int:
    from embedbook.book import page

    return page.main(args.chapter, checks=not args.no_checks)


def _bench(args) -> int:
    if args.huge_pages is not None:
        if "torch" in sys.modules:
            raise RuntimeError("--huge-pages must be decided before torch is imported; run `embedbook bench` in a fresh process")
        # PyTorch's CPU allocator reads this when it first allocates: 2 MiB pages for buffers >= 2 MiB
        os.environ["THP_MEM_ALLOC_ENABLE"] = "1" if args.huge_pages else "0"
    from embedbook import lookup, quantize

    if args.dim % 2 and not args.bandwidth_only:
        raise ValueError(f"--dim must be even for the speed ratios (INT4 packs two values a byte), got {args.dim}; "
                         "pass an even --dim, or --bandwidth-only")
    speeds = [] if args.bandwidth_only else quantize.speed_ratios(tuple(args.sizes), args.dim, args.vocab,
                                                                 reps=args.reps, device=args.device)
    r = lookup.bandwidth(args.tokens, args.dim, args.vocab, reps=args.reps, device=args.device)
    if args.json:  # the bandwidth's fields at the top level, the speed ratios (if measured) under "speed"
        print(json.dumps(dataclasses.asdict(r) | ({"speed": [dataclasses.asdict(s) for s in speeds]} if speeds else {})))
        return 0
    if speeds:
        _print_speeds(speeds)
    thp = os.environ.get("THP_MEM_ALLOC_ENABLE", "unset")
    print(f"\nBandwidth: {r.device}, {r.n_tokens:,} tokens × d = {r.dim} from a {r.vocab_size:,}-row table (fp32), "
          f"{r.threads} threads, THP_MEM_ALLOC_ENABLE={thp}")
    print(f"  memory copy        {r.copy_gbps:8.1f} GB/s (read + write): the reference")
    print(f"  F.embedding        {r.plain_fraction:8.0%} of the copy")
    print(f"  Lookup, out=       {r.ours_fraction:8.0%} of the copy")
    if r.note:
        print(f"  note: {r.note}")
    return 0


def _print_speeds(speeds) -> None:
    from embedbook.quantize import SPEED_NAMES

    first = speeds[0]
    print(f"Speed against F.embedding on a {first.vocab_size:,} × {first.dim} fp32 table ({first.device}, "
          f"{first.threads} thread{'s' if first.threads > 1 else ''}, timed in turn; a ratio and the reference time are medians over the rounds; above 1× is faster):")
    print(f"  {'tokens':<46}" + "".join(f"{s.n_tokens:>10,}" for s in speeds))
    print(f"  {'timed rounds':<46}" + "".join(f"{s.rounds:>10,}" for s in speeds))
    print(f"  {'F.embedding, fp32 (ms): the reference':<46}" + "".join(f"{s.fp32_ms:>10.3f}" for s in speeds))
    for key, words in SPEED_NAMES.items():
        if all(key in s.ratios for s in speeds):
            print(f"  {words:<46}" + "".join(f"{s.ratios[key]:>9.2f}×" for s in speeds))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    plain = __doc__.replace("``", "`").split("\n\n")  # --help prints plain text, not reST
    parser = argparse.ArgumentParser(prog="embedbook", description=plain[0], epilog=plain[1].strip())
    parser.add_argument("--version", action="version", version=f"embedbook {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the chapters and their parameters").set_defaults(fn=_list)
    run = sub.add_parser("run", help="execute one chapter with papermill")
    run.add_argument("chapter", help="chapter name, e.g. 02_lookup (see `embedbook list`)")
    run.add_argument("--smoke", action="store_true", help="tiny sizes: runs in seconds")
    run.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                     help="set a chapter parameter (repeatable); the value must have its default's type")
    run.add_argument("--out", type=Path, default=None, help="folder for the executed notebook (default: _build/papermill)")
    run.set_defaults(fn=_run)
    execute = sub.add_parser("execute", help="execute every chapter at full size into the build's cache, one per "
                             "core; a notebook whose inputs did not change since its last run is not run again")
    execute.add_argument("--fresh", action="store_true", help="empty the cache first: execute everything")
    execute.set_defaults(fn=_execute)
    sub.add_parser("build", help="execute every chapter and build the HTML book, both editions").set_defaults(fn=_build)
    edition = sub.add_parser("edition", help="build the Chinese edition (zh) into _build/html/zh from the "
                             "notebooks `execute` ran (after the English build)")
    edition.add_argument("lang", choices=["zh"])
    edition.set_defaults(fn=_edition)
    page = sub.add_parser("page", help="one chapter in minutes: run it at smoke size, build its page in both "
                          "editions into _build/page/NN_name/html, and check the built page")
    page.add_argument("chapter", help="the chapter's number or name: 04, 04_tying; or explore (the explorer page)")
    page.add_argument("--no-checks", dest="no_checks", action="store_true", help="build only; skip the page's checks")
    page.set_defaults(fn=_page)
    bench = sub.add_parser("bench", help="lookup speeds (quantised tables, Lookup) against F.embedding, and lookup "
                           "throughput as a fraction of a same-run memory copy")
    bench.add_argument("--sizes", type=_positive, nargs="+", default=[512, 4096, 65536], metavar="N",
                       help="batch sizes of the speed ratios, in tokens (default 512 4096 65536)")
    bench.add_argument("--tokens", type=_positive, default=65536, help="tokens per batch of the bandwidth run (default 65,536)")
    bench.add_argument("--bandwidth-only", dest="bandwidth_only", action="store_true",
                       help="measure only the bandwidth against a memory copy, not the speed ratios")
    bench.add_argument("--dim", type=_positive, default=1024, help="embedding width d (default 1,024)")
    bench.add_argument("--vocab", type=_positive, default=50000, help="rows in the table (default 50,000)")
    bench.add_argument("--reps", type=_positive, default=10, help="timed rounds (default 10; the speed ratios give batches under 65,536 tokens up to 10× more): the speed ratios keep the median round's ratio, the bandwidth the best time")
    bench.add_argument("--device", default=None, help="cpu, cuda, mps (default: the best available)")
    bench.add_argument("--json", action="store_true", help="print the measurement as JSON")
    bench.add_argument("--huge-pages", dest="huge_pages", action=argparse.BooleanOptionalAction, default=None,
                       help="set THP_MEM_ALLOC_ENABLE for this run: transparent huge pages for PyTorch's large CPU "
                       "buffers (default: leave the environment as it is)")
    bench.set_defaults(fn=_bench)
    args = parser.parse_args(argv)
    try:
        _check_book_extra(args.command)
        return args.fn(args)
    except (ValueError, RuntimeError, FileNotFoundError, LookupError, data.MissingResource) as err:
        print(f"embedbook {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
