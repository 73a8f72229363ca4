"""Tokens are ids, not words: real tokenizers, BPEs trained here, and what ids do (not) mean.

Used by chapter 01 (Tokens are ids) and chapter 15 (Practical choices, ``train_bpe``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from embedbook import claims, data


@dataclass(frozen=True)
class Split:
    """How one tokenizer cuts one text."""

    text: str
    pieces: list[str]
    ids: list[int]

    @property
    def chars_per_token(self) -> float:
        return len(self.text) / max(len(self.ids), 1)


def _check_text(text: str) -> None:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not text:
        raise ValueError("text is empty: there is nothing to tokenize")


def gpt2_split(text: str) -> Split:
    """Cut ``text`` with the real GPT-2 byte-level BPE; pieces are shown as decoded bytes."""
    _check_text(text)
    enc = data.gpt2_encoding()
    ids = enc.encode(text, disallowed_special=())
    pieces = [enc.decode_single_token_bytes(i).decode("utf-8", errors="backslashreplace") for i in ids]
    return Split(text, pieces, ids)


def wordpiece_split(text: str) -> Split:
    """Cut ``text`` with MiniLM's uncased WordPiece (without ``[CLS]``/``[SEP]``)."""
    _check_text(text)
    enc = data.minilm_tokenizer().encode(text, add_special_tokens=False)
    return Split(text, list(enc.tokens), list(enc.ids))


def train_bpe(texts: list[str], vocab_size: int, *, min_frequency: int = 2):
    """Train a byte-level BPE (HuggingFace ``tokenizers``) with ``vocab_size`` ids on ``texts``.

    Deterministic for a given input. Byte-level means no text is ever out of vocabulary.
    """
    tokenizers = data._need("tokenizers")
    if not texts or not any(t.strip() for t in texts):
        raise ValueError("texts is empty: give at least one non-blank training text")
    if not isinstance(vocab_size, int) or vocab_size < 257:
        raise ValueError(f"vocab_size must be an int ≥ 257 (256 bytes + 1 special), got {vocab_size!r}")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer, length=len(texts))
    return tok


def tokens_per_char(tok, texts: list[str]) -> float:
    """Tokens produced per character of ``texts`` by a ``tokenizers.Tokenizer``."""
    if not texts:
        raise ValueError("texts is empty")
    n_tok = sum(len(e.ids) for e in tok.encode_batch(texts))
    n_chr = sum(len(t) for t in texts)
    return n_tok / n_chr


def vocab_sweep(train: list[str], test: list[str], sizes: list[int], d: int) -> list[dict]:
    """Train one BPE per vocabulary size; measure tokens on held-out ``test`` and embedding parameters V·d."""
    rows = []
    for v in sizes:
        tok = train_bpe(train, v)
        n_tokens = sum(len(e.ids) for e in tok.encode_batch(test))
        rows.append(
            {
                "vocab": tok.get_vocab_size(),
                "requested": v,
                "tokens": n_tokens,
                "chars_per_token": sum(map(len, test)) / n_tokens,
                "embedding_params": tok.get_vocab_size() * d,
            }
        )
    return rows


def id_vs_meaning(words: list[str], seed: int = 0, pairs: int = 20000) -> dict[str, float]:
    """Correlation between ``abs(id_i - id_j)`` in GPT-2's vocabulary and GloVe cosine distance of the words.

    Uses words that are a single GPT-2 token (with a leading space, as mid-sentence) and are in GloVe.
    Returns Spearman's rho, the number of words and of sampled pairs.
    """
    from scipy.stats import spearmanr

    enc, kv = data.gpt2_encoding(), data.glove()
    keep = [(w, enc.encode(" " + w)[0]) for w in words if w in kv.key_to_index and len(enc.encode(" " + w)) == 1]
    if len(keep) < 10:
        raise ValueError(f"only {len(keep)} usable words: need ≥ 10 single-token words that GloVe knows")
    ids = np.array([i for _, i in keep])
    vec = np.stack([kv[w] for w, _ in keep])
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, len(keep), size=(2, pairs))
    ok = a != b
    a, b = a[ok], b[ok]
    id_dist = np.abs(ids[a] - ids[b])
    cos_dist = 1.0 - np.sum(vec[a] * vec[b], axis=1)
    rho = spearmanr(id_dist, cos_dist).statistic
    # neighbours in id space vs random pairs: is the adjacent id any closer in meaning?
    order = np.argsort(ids)
    adj = 1.0 - np.sum(vec[order[:-1]] * vec[order[1:]], axis=1)
    return {
        "spearman": float(rho),
        "words": len(keep),
        "pairs": int(ok.sum()),
        "adjacent_cos_dist": float(adj.mean()),
        "random_cos_dist": float(cos_dist.mean()),
    }


# --- checks -----------------------------------------------------------------------------------------

RARE_WORDS = ["embeddings", "tokenization", "unhappiness", "photosynthesis", "cryptocurrency", "hyperparameter"]
ZH_SAMPLE = "苹果公司发布了新手机，我吃了一个很甜的苹果。人工智能正在改变世界。"
EN_SAMPLE = "Looking up one row of the embedding matrix costs the same whatever the vocabulary size."


def _pieces_table(words: list[str]) -> list[dict]:
    return [
        {"word": w, "gpt2": gpt2_split(" " + w).pieces, "wordpiece": wordpiece_split(w).pieces} for w in words
    ]


@claims.check("C31")
def check_c31(smoke: bool = False, words: list[str] | None = None) -> claims.Verdict:
    """Settle C31: a BPE never needs [UNK] — every unseen word is split into known pieces."""
    words = words or RARE_WORDS + ["qwertyuiopasdf", "苹果手机", "🙂"]
    enc = data.gpt2_encoding()
    roundtrip = all(enc.decode(gpt2_split(w).ids) == w for w in words)
    wp = data.minilm_tokenizer()
    unk_id = wp.token_to_id("[UNK]")
    wp_unk = [w for w in words if unk_id in wordpiece_split(w).ids]
    verdict = claims.CONFIRMED if roundtrip else claims.REFUTED
    if roundtrip and wp_unk:
        verdict = claims.CORRECTED
    text = (
        f"GPT-2's byte-level BPE encoded all {len(words)} test strings (rare words, gibberish, Chinese, an emoji) "
        f"into known pieces and decoded them back exactly. "
    )
    if wp_unk:
        text += (
            f"MiniLM's WordPiece, a subword vocabulary too, still mapped {len(wp_unk)} of them to [UNK] "
            f"({', '.join(wp_unk)}): subwords alone do not guarantee coverage; byte-level fallback does. "
            "Whether the pieces' embeddings are 'meaningful' is another matter (see C47)."
        )
    return claims.Verdict("C31", verdict, text, {"n_words": len(words), "wordpiece_unk": len(wp_unk)})


@claims.check("C32")
def check_c32(smoke: bool = False, rows: list[dict] | None = None) -> claims.Verdict:
    """Settle C32: tokens per text fall and embedding parameters grow linearly as the BPE vocabulary grows."""
    if rows is None:
        lee = [" ".join(s) for s in data.lee_corpus()]
        train, test = lee[: len(lee) * 4 // 5], lee[len(lee) * 4 // 5 :]
        rows = vocab_sweep(train, test, [300, 1000, 4000] if smoke else [300, 1000, 4000, 16000], d=512)
    tokens = [r["tokens"] for r in rows]
    params = [r["embedding_params"] for r in rows]
    vocab = [r["vocab"] for r in rows]
    fewer = all(a > b for a, b in zip(tokens, tokens[1:]))
    linear = np.allclose(np.array(params) / np.array(vocab), params[0] / vocab[0])
    verdict = claims.CONFIRMED if fewer and linear else claims.REFUTED
    drop = 1 - tokens[-1] / tokens[0]
    text = (
        f"Going from {vocab[0]:,} to {vocab[-1]:,} ids ({vocab[-1] / vocab[0]:.0f}× the vocabulary) cut the held-out "
        f"text from {tokens[0]:,} to {tokens[-1]:,} tokens ({drop:.0%} fewer) while V·d grew exactly in proportion "
        f"to V: the saving in tokens is sub-linear, the cost in parameters linear."
    )
    return claims.Verdict("C32", verdict, text, {"token_drop": drop, "vocab_ratio": vocab[-1] / vocab[0]})


@claims.check("C33")
def check_c33(smoke: bool = False) -> claims.Verdict:
    """Settle C33: Chinese characters vs tokens, English words split into pieces, context counted in tokens."""
    zh, en = gpt2_split(ZH_SAMPLE), gpt2_split(EN_SAMPLE)
    zh_wp = wordpiece_split(ZH_SAMPLE)
    pieces = [len(gpt2_split(" " + w).ids) for w in RARE_WORDS]
    zh_cpt, en_cpt = zh.chars_per_token, en.chars_per_token
    multi = sum(p >= 2 for p in pieces)
    ok = zh_cpt != 1.0 and multi > 0
    verdict = claims.CORRECTED if ok else claims.REFUTED
    text = (
        f"GPT-2's BPE gives {zh_cpt:.2f} Chinese characters per token on our sample: most characters take "
        f"more than one token (UTF-8 bytes), few merge — the article's 'one character or several merged' "
        f"misses the common case of one character split into 2–3 byte tokens. MiniLM's WordPiece gives "
        f"{zh_wp.chars_per_token:.2f} characters per token (one per character). English prose runs at "
        f"{en_cpt:.2f} characters per token, and {multi} of {len(pieces)} rarer English words split into "
        f"{min(pieces)}–{max(pieces)} pieces. So a 32K-token context holds about {32768 * zh_cpt:,.0f} Chinese "
        f"characters with GPT-2's tokenizer but {32768 * en_cpt:,.0f} English characters."
    )
    return claims.Verdict("C33", verdict, text, {"zh_chars_per_token": zh_cpt, "en_chars_per_token": en_cpt})


@claims.check("C34")
def check_c34(smoke: bool = False, result: dict | None = None) -> claims.Verdict:
    """Settle C34: id distance says nothing about meaning distance."""
    result = result or id_vs_meaning(data.top_words(2000 if smoke else 10000, "en"))
    rho, adj, rnd = result["spearman"], result["adjacent_cos_dist"], result["random_cos_dist"]
    neighbours_unrelated = adj >= 0.95 * rnd  # adjacent ids are (almost) as far apart as random pairs
    if not neighbours_unrelated:
        verdict = claims.REFUTED
    else:
        verdict = claims.CONFIRMED if abs(rho) < 0.1 else claims.CORRECTED
    text = (
        f"Words with adjacent GPT-2 ids are on average {adj:.2f} apart in GloVe cosine distance, against "
        f"{rnd:.2f} for random pairs ({result['words']:,} single-token words, {result['pairs']:,} random pairs): "
        f"nearby ids are not nearby meanings. "
    )
    if verdict == claims.CORRECTED:
        text += (
            f"But ids are not free of magnitude: the Spearman correlation between id distance and meaning distance "
            f"is {rho:.2f}, because BPE ids follow merge order, which tracks frequency, and frequent words sit "
            f"closer together in GloVe. The id is a rank of sorts, not a coordinate of meaning."
        )
    return claims.Verdict("C34", verdict, text, {"spearman": rho})


@claims.check("C47")
def check_c47(smoke: bool = False) -> claims.Verdict:
    """Settle C47: a word assembled from subword pieces (mean of MiniLM input vectors) vs its own vector."""
    import torch

    tok, model = data.load_encoder()
    table = model.embeddings.word_embeddings.weight.detach()
    vocab = tok.get_vocab()
    # words that have their own WordPiece id; rebuild them from their pieces as if they were unseen
    cand = [w for w in data.top_words(3000 if smoke else 20000, "en") if w in vocab and w.isalpha() and len(w) >= 6]
    rows = []
    for w in cand:
        pieces = _greedy_pieces_without(w, vocab)
        if pieces is None or len(pieces) < 2:
            continue
        own = table[vocab[w]]
        built = table[[vocab[p] for p in pieces]].mean(0)
        cos = torch.nn.functional.cosine_similarity(own, built, dim=0).item()
        rank = _rank_of(table, built, vocab[w])
        rows.append((w, cos, rank))
        if len(rows) >= (40 if smoke else 400):
            break
    cos = np.array([r[1] for r in rows])
    top10 = np.mean([r[2] < 10 for r in rows])
    verdict = claims.CONFIRMED if 0 < cos.mean() < 0.9 else claims.REFUTED
    text = (
        f"For {len(rows)} words that MiniLM's WordPiece knows whole, we rebuilt each from the pieces it would "
        f"be cut into without its own id (mean of the piece vectors): cosine to the word's own vector averages "
        f"{cos.mean():.2f}, and the word itself is among the 10 nearest rows for only {top10:.0%} of them — "
        f"usable (positive similarity), not precise."
    )
    return claims.Verdict("C47", verdict, text, {"mean_cos": float(cos.mean()), "top10_rate": float(top10)})


def _greedy_pieces_without(word: str, vocab: dict[str, int]) -> list[str] | None:
    """WordPiece's greedy longest-match split of ``word`` with the whole word itself forbidden."""
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            sub = word[start:end] if start == 0 else "##" + word[start:end]
            if sub in vocab and not (start == 0 and end == len(word)):
                pieces.append(sub)
                break
            end -= 1
        if end == start:
            return None
        start = end
    return pieces


def _rank_of(table, query, target: int) -> int:
    import torch

    sims = torch.nn.functional.cosine_similarity(table, query[None, :], dim=1)
    return int((sims > sims[target]).sum().item())
