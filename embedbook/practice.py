"""Practical choices: vocabulary size in LM bits per character, fine-tuning the embedding on shifted
data, and cross-lingual alignment of English GloVe with Chinese Word2Vec by an orthogonal map.

The seed dictionary (``resources/en_zh_seed.tsv``: common English–Chinese word pairs written for the
book, one translation each) is split into a fitting and a held-out part by a seeded permutation.

Used by chapter 15_practice (C30, C48; re-measures C32 with LM bits per character).
"""

from __future__ import annotations

import copy
import math
from importlib import resources

import numpy as np
import torch

from embedbook import claims, lm, ngram

# --- vocabulary size: bits per character --------------------------------------------------------------


def vocab_bits_per_char(train_texts: list[str], val_texts: list[str], sizes: list[int], *, d_model: int = 64,
                        context: int = 32, steps: int = 150, seed: int = 0) -> list[dict]:
    """For each BPE vocabulary size: tokens per character, embedding parameters and LM bits per character.

    A byte-level BPE is trained on ``train_texts`` (:func:`embedbook.tokenize.train_bpe`), a tied TinyLM on
    its ids; bits per character = validation nats per token × tokens / characters / ln 2, so models
    with different vocabularies are compared on the same text.
    """
    from embedbook.tokenize import train_bpe

    if not sizes or not train_texts or not val_texts:
        raise ValueError("sizes, train_texts and val_texts must be non-empty")
    rows = []
    for size in sizes:
        tok = train_bpe(train_texts, size)
        enc = lambda texts: torch.tensor([i for e in tok.encode_batch(texts) for i in e.ids], dtype=torch.long)
        tr, va = enc(train_texts), enc(val_texts)
        V = tok.get_vocab_size()
        torch.manual_seed(seed)
        model = lm.TinyLM(lm.LMConfig(V, d_model=d_model, context=context, n_heads=2))
        lm.train(model, tr, va, steps=steps, batch_size=16, eval_every=steps, seed=seed, progress=False,
                 eval_batches=5)
        nats = lm.evaluate(model, va, batch_size=16)
        chars = sum(map(len, val_texts))
        rows.append({"vocab": V, "tokens_per_char": len(va) / chars, "embedding_params": V * d_model,
                     "bits_per_char": nats * len(va) / chars / math.log(2)})
    return rows


# --- fine-tuning on shifted data (C30) ------------------------------------------------------------------

MODES = ("frozen", "small_lr", "full")


def finetune_modes(source: list[list[str]], target: list[list[str]], *, vocab_size: int = 3000,
                   d_model: int = 64, context: int = 32, pre_steps: int = 200, ft_steps: int = 80,
                   small_mult: float = 0.1, lr: float = 1e-3, seed: int = 0) -> dict:
    """Pre-train on ``source``, then fine-tune copies on ``target`` with the embedding frozen, at a
    ``small_mult`` learning rate, or fully trained. Returns target and source validation perplexity.

    The vocabulary comes from the source corpus (as in real fine-tuning); the head is untied so that
    freezing the input table does not freeze the output layer.
    """
    if small_mult <= 0 or small_mult >= 1:
        raise ValueError(f"small_mult must lie in (0, 1), got {small_mult}")
    src = ngram.small_lm_data(vocab_size, source)
    tgt_ids = src.vocab.encode(target)
    tgt_tr, tgt_va = lm.split_ids(tgt_ids)
    torch.manual_seed(seed)
    base = lm.TinyLM(lm.LMConfig(len(src.vocab), d_model=d_model, context=context, n_heads=2, tie=False))
    lm.train(base, src.train, src.val, steps=pre_steps, batch_size=16, eval_every=pre_steps, seed=seed,
             progress=False, eval_batches=5)
    ppl = lambda m, ids: math.exp(lm.evaluate(m, ids, batch_size=16, max_batches=20))
    out = {"pre_target": ppl(base, tgt_va), "pre_source": ppl(base, src.val),
           "unk_rate": float((tgt_ids == 0).float().mean())}
    for mode in MODES:
        model = copy.deepcopy(base)
        if mode == "frozen":
            model.embed.weight.requires_grad_(False)
        lm.train(model, tgt_tr, tgt_va, steps=ft_steps, batch_size=16, lr=lr, eval_every=ft_steps, seed=seed + 1,
                 emb_lr_mult=small_mult if mode == "small_lr" else 1.0, progress=False, eval_batches=5)
        out[f"{mode}_target"], out[f"{mode}_source"] = ppl(model, tgt_va), ppl(model, src.val)
    return out


@claims.check("C30", smoke_suffices=False)  # the smoke LMs are too small to tell the three regimes apart
def check_c30(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C30: does a frozen or slowed embedding beat full fine-tuning on the shifted target?"""
    if result is None:
        from embedbook import data

        wiki, lee = data.wiki_corpus(), data.lee_corpus()
        kw = dict(vocab_size=500, d_model=32, context=16, pre_steps=10, ft_steps=5) if smoke else {}
        result = finetune_modes(wiki, lee, **kw)
    full, frozen, small = result["full_target"], result["frozen_target"], result["small_lr_target"]
    best = min(frozen, small)
    if best < full * 0.99:
        verdict = claims.CONFIRMED
    elif best <= full * 1.01:
        verdict = claims.CORRECTED
    else:
        verdict = claims.REFUTED
    evidence = (f"After pre-training on Wikipedia and fine-tuning on Lee news, target validation perplexity is "
                f"{frozen:.1f} with the embedding frozen, {small:.1f} with a 10x smaller embedding learning rate "
                f"and {full:.1f} when it is trained fully (before fine-tuning: {result['pre_target']:.1f}). "
                f"Source perplexity afterwards: {result['frozen_source']:.1f} / {result['small_lr_source']:.1f} / "
                f"{result['full_source']:.1f}.")
    return claims.Verdict("C30", verdict, evidence, {"frozen": frozen, "small_lr": small, "full": full})


# --- cross-lingual alignment (C48) ----------------------------------------------------------------------


def seed_dictionary() -> list[tuple[str, str]]:
    """The book's English–Chinese seed dictionary as ``(en, zh)`` pairs."""
    text = resources.files("embedbook").joinpath("resources/en_zh_seed.tsv").read_text(encoding="utf-8")
    pairs = [tuple(line.split("\t")) for line in text.splitlines() if line and not line.startswith("#")]
    bad = [p for p in pairs if len(p) != 2]
    if bad:
        raise ValueError(f"malformed lines in en_zh_seed.tsv: {bad[:3]}")
    return pairs


def split_pairs(pairs: list[tuple[str, str]], test_fraction: float = 0.25, seed: int = 0):
    """Seeded split into ``(fit, held_out)`` pair lists."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    order = np.random.default_rng(seed).permutation(len(pairs))
    n_test = max(1, int(round(test_fraction * len(pairs))))
    return [pairs[i] for i in order[n_test:]], [pairs[i] for i in order[:n_test]]


def train_zh_vectors(sentences: list[list[str]], dim: int = 50, epochs: int = 5, seed: int = 0):
    """Chinese Word2Vec (skip-gram) trained here with gensim: one worker and a seed, so it is repeatable."""
    from gensim.models import Word2Vec

    if not sentences:
        raise ValueError("sentences is empty")
    model = Word2Vec(sentences, vector_size=dim, window=5, min_count=5, sg=1, workers=1, seed=seed,
                     epochs=epochs)
    return model.wv


def _normalise(x: np.ndarray) -> np.ndarray:
    """Unit length, mean-centred, unit length again (the usual preprocessing before Procrustes)."""
    x = x / np.linalg.norm(x, axis=1, keepdims=True).clip(1e-12)
    x = x - x.mean(0, keepdims=True)
    return x / np.linalg.norm(x, axis=1, keepdims=True).clip(1e-12)


def procrustes(src: np.ndarray, tgt: np.ndarray) -> np.ndarray:
    """Orthogonal W minimising ``||src @ W - tgt||`` (Schönemann's SVD solution)."""
    if src.shape != tgt.shape or src.ndim != 2 or len(src) < 2:
        raise ValueError(f"src and tgt must be matching [n, d] arrays with n >= 2, got {src.shape}, {tgt.shape}")
    u, _, vt = np.linalg.svd(src.T @ tgt)
    return u @ vt


def align(zh_kv, en_kv, pairs: list[tuple[str, str]], *, n_targets: int = 50000, test_fraction: float = 0.25,
          seed: int = 0, ks: tuple[int, ...] = (1, 5)) -> dict:
    """Translate held-out Chinese words into English before and after an orthogonal map fitted on the rest.

    English candidates are the ``n_targets`` most frequent GloVe words. Pairs with a word missing from
    either space are dropped (and counted). Returns precision@k before/after, pair cosines and counts.
    """
    if zh_kv.vector_size != en_kv.vector_size:
        raise ValueError(f"dimensions differ: zh {zh_kv.vector_size}, en {en_kv.vector_size}; train zh with dim={en_kv.vector_size}")
    en_words = en_kv.index_to_key[:n_targets]
    en_pos = {w: i for i, w in enumerate(en_words)}
    usable = [(e, z) for e, z in pairs if e in en_pos and z in zh_kv.key_to_index]
    fit, test = split_pairs(usable, test_fraction, seed)
    en_mat = _normalise(en_kv.vectors[:n_targets].astype(np.float64))
    zh_all = _normalise(zh_kv.vectors.astype(np.float64))
    zh_of = lambda ps: zh_all[[zh_kv.key_to_index[z] for _, z in ps]]
    en_of = lambda ps: en_mat[[en_pos[e] for e, _ in ps]]
    w = procrustes(zh_of(fit), en_of(fit))
    out = {"n_pairs": len(pairs), "n_usable": len(usable), "n_fit": len(fit), "n_test": len(test)}
    for name, m in (("before", np.eye(w.shape[0])), ("after", w)):
        mapped = zh_of(test) @ m
        sims = mapped @ en_mat.T
        gold = np.array([en_pos[e] for e, _ in test])
        rank = (sims > sims[np.arange(len(test)), gold][:, None]).sum(1)
        for k in ks:
            out[f"p{k}_{name}"] = float((rank < k).mean())
        out[f"cos_{name}"] = float(np.mean(np.sum(mapped * en_of(test), axis=1)))
    out["examples"] = [(z, e, en_words[int(np.argmax(zh_of([(e, z)]) @ w @ en_mat.T))]) for e, z in test[:8]]
    return out


@claims.check("C48", smoke_suffices=False)  # the smoke seed dictionary is too small for a stable precision
def check_c48(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C48: unaligned en/zh spaces vs an orthogonal map fitted on a small seed dictionary."""
    if result is None:
        from embedbook import data

        pd = data.peoples_daily()
        zh = train_zh_vectors(pd[:3000] if smoke else pd, epochs=1 if smoke else 3)
        result = align(zh, data.glove(limit=20000 if smoke else 50000), seed_dictionary(),
                       n_targets=20000 if smoke else 50000)
    far = result["p5_before"] < 0.05
    gained = result["p5_after"] > result["p5_before"] + 0.1
    verdict = claims.CORRECTED if far and gained else (claims.CONFIRMED if far else claims.REFUTED)
    evidence = (f"Unaligned, a Chinese word's English translation is in its 5 nearest GloVe words for "
                f"{result['p5_before']:.1%} of {result['n_test']} held-out pairs (mean cosine {result['cos_before']:.3f}). "
                f"An orthogonal map fitted on {result['n_fit']} dictionary pairs — no parallel corpus — raises "
                f"held-out precision@1 to {result['p1_after']:.1%} and precision@5 to {result['p5_after']:.1%}.")
    return claims.Verdict("C48", verdict, evidence,
                          {"p1_after": result["p1_after"], "p5_after": result["p5_after"],
                           "p5_before": result["p5_before"]})
