"""Command line: ``embedbook list | run CHAPTER [--smoke] | build | bench``.

Run from a checkout of the repository (the chapters live in ``book/``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from embedbook import book


def _list(_args) -> int:
    for i, name in enumerate(book.chapters(), 1):
        params = book.parameters(book.chapter_path(name))
        print(f"{i:2d}. {name:<16} parameters: {', '.join(params)}")
    return 0


def _parse_params(pairs: list[str]) -> dict:
    import ast

    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"error: parameter {pair!r} must look like NAME=VALUE")
        key, value = pair.split("=", 1)
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value  # a bare string
    return out


def _run(args) -> int:
    try:
        out, seconds = book.run_chapter(args.chapter, smoke=args.smoke, params=_parse_params(args.param))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{args.chapter}: executed in {seconds:.1f} s → {out}")
    return 0


def _build(_args) -> int:
    return subprocess.call(["jupyter-book", "build", str(book.ROOT), "-W", "--keep-going"])


def _bench(args) -> int:
    from embedbook import lookup

    r = lookup.bandwidth(args.tokens, args.dim, args.vocab, device=args.device)
    print(
        f"{r['device']}: copy {r['copy_gbps']:.1f} GB/s; F.embedding {r['plain_fraction']:.0%} of copy bandwidth; "
        f"embedbook.lookup.Lookup {r['ours_fraction']:.0%} ({r['threads']} threads)"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="embedbook", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the chapters and their parameters").set_defaults(fn=_list)
    run = sub.add_parser("run", help="execute one chapter with papermill")
    run.add_argument("chapter")
    run.add_argument("--smoke", action="store_true", help="tiny sizes: runs in seconds")
    run.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE")
    run.set_defaults(fn=_run)
    sub.add_parser("build", help="execute every chapter and build the HTML book").set_defaults(fn=_build)
    bench = sub.add_parser("bench", help="lookup bandwidth as a fraction of a memory copy")
    bench.add_argument("--tokens", type=int, default=65536)
    bench.add_argument("--dim", type=int, default=1024)
    bench.add_argument("--vocab", type=int, default=50000)
    bench.add_argument("--device", default=None)
    bench.set_defaults(fn=_bench)
    args = parser.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
