"""The package beside the libraries a user would otherwise call, on the same answers, timed side by side in one
run: interleaved rounds on one CPU thread (embedbook.timing.interleaved), each printed as a ratio of medians
against the peer (below 1.0x: embedbook is faster). The answers are compared before anything is timed.

    python tools/peers.py            every comparison (needs the [data] extra and sentence-transformers)
    python tools/peers.py --quick    fewer sentences, questions and rounds (a minute)

- sentence vectors: embedbook.contextual.sentence_vectors against sentence-transformers' encode, all-MiniLM-L6-v2
  from the bundled folder, at each one's default batch size;
- analogies and neighbours: embedbook.similarity.solve_analogy / neighbours / most_similar against gensim's
  KeyedVectors.most_similar on GloVe's most frequent words (one query at a time, and all at once);
- lookups: embedbook.lookup.Lookup(out=) against F.embedding at the sizes `embedbook bench` runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from embedbook import timing  # noqa: E402


def _ratio(t: dict, ours: str, peer: str) -> float:
    return t[ours].median / t[peer].median


def sentences(n: int, reps: int) -> list[tuple[str, float, str]]:
    from sentence_transformers import SentenceTransformer

    from embedbook import contextual, data

    tok, enc = data.load_encoder("minilm", device="cpu")
    st = SentenceTransformer(str(data.minilm_path()), device="cpu")
    docs = [" ".join(w) for w in contextual.windows(data.lee_corpus(), 12)]
    rng = np.random.default_rng(0)  # sentences of mixed lengths, as real input has
    text = [" ".join(docs[i:i + int(k)]) for i, k in zip(rng.integers(0, len(docs) - 8, n), rng.integers(1, 8, n))]
    ours = contextual.sentence_vectors(tok, enc, text)
    theirs = torch.as_tensor(st.encode(text, normalize_embeddings=True))
    gap = float((ours - theirs).abs().max())
    if gap > 1e-4:
        raise AssertionError(f"sentence vectors differ from sentence-transformers' by {gap:.1e}")
    t = timing.interleaved({"ours": lambda: contextual.sentence_vectors(tok, enc, text),
                            "peer": lambda: st.encode(text, normalize_embeddings=True)}, reps=reps, warmup=1)
    return [(f"sentence_vectors vs SentenceTransformer.encode ({n} sentences; max difference {gap:.1e})",
             _ratio(t, "ours", "peer"), "sentence-transformers")]


def analogies(n_words: int, n_questions: int, reps: int) -> list[tuple[str, float, str]]:
    from embedbook import data, similarity

    kv = data.glove(limit=n_words)
    space = similarity.Space.from_keyed(kv)
    qs = [q for qs in similarity.read_analogies().values() for q in qs]
    qs = [q for q in qs if all(w in space for w in q[:3])]
    qs = [qs[i] for i in np.random.default_rng(0).choice(len(qs), n_questions, replace=False)]
    for a, b, c, _ in qs[:20]:  # the same answers first
        ours = [w for w, _ in similarity.solve_analogy(space, a, b, c, k=5)]
        theirs = [w for w, _ in kv.most_similar(positive=[b, c], negative=[a], topn=5)]
        if ours != theirs:
            raise AssertionError(f"{a}:{b}::{c}: {ours} against gensim's {theirs}")
    words = [q[0] for q in qs]
    t = timing.interleaved({
        "analogy": lambda: [similarity.solve_analogy(space, a, b, c, k=5) for a, b, c, _ in qs],
        "analogy_peer": lambda: [kv.most_similar(positive=[b, c], negative=[a], topn=5) for a, b, c, _ in qs],
        "analogies": lambda: similarity.solve_analogies(space, qs, k=5),
        "neighbours": lambda: [similarity.neighbours(space, w, k=10) for w in words],
        "neighbours_peer": lambda: [kv.most_similar(w, topn=10) for w in words],
    }, reps=reps, warmup=1)
    label = f"{n_questions} queries on {len(space):,} GloVe words"
    return [(f"solve_analogy vs most_similar(positive, negative), one at a time ({label})",
             _ratio(t, "analogy", "analogy_peer"), "gensim"),
            (f"solve_analogies (all at once) vs most_similar(positive, negative) in a loop ({label})",
             _ratio(t, "analogies", "analogy_peer"), "gensim"),
            (f"neighbours vs most_similar(word), one at a time ({label})",
             _ratio(t, "neighbours", "neighbours_peer"), "gensim")]


def lookups(sizes: tuple[int, ...], reps: int) -> list[tuple[str, float, str]]:
    import torch.nn.functional as F

    from embedbook import lookup

    table = torch.randn(50_000, 1024)
    out = []
    for n in sizes:
        ids = torch.randint(0, 50_000, (n,), generator=torch.Generator().manual_seed(0))
        look = lookup.Lookup(table)
        buf = torch.empty(n, 1024)
        assert torch.equal(look(ids, out=buf), F.embedding(ids, table))
        t = timing.interleaved({"ours": lambda: look(ids, out=buf), "peer": lambda: F.embedding(ids, table)},
                               reps=reps * 5, warmup=2)
        out.append((f"Lookup(out=) vs F.embedding, {n:,} tokens × 1,024", _ratio(t, "ours", "peer"), "torch"))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    rows = []
    with timing.one_cpu_thread():
        rows += lookups((512, 4096, 65536), 3 if args.quick else 7)
        rows += analogies(100_000, 30 if args.quick else 100, 3 if args.quick else 7)
        rows += sentences(100 if args.quick else 500, 2 if args.quick else 5)
    print("embedbook beside its peers: median time ratio, ours / peer's (below 1.0x: embedbook is faster); "
          "one CPU thread, interleaved rounds")
    for what, ratio, peer in rows:
        print(f"  {ratio:5.2f}x  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
