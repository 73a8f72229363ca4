"""Chapter 01, "Tokens are ids, not words": the measurements behind C31, C32, C33, C34 and C47 (their rules and checks: claims.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from embedbook import data, stats, tokenize
from embedbook.book import Result, claims, i18n
from embedbook.book.claims import CONFIRMED, CORRECTED, INCONCLUSIVE, REFUTED
from embedbook.book.i18n import _

TOKENIZER_NAMES = {"gpt2": _("GPT-2 BPE").en, "multilingual": _("Whisper multilingual BPE").en,
                   "wordpiece": _("MiniLM WordPiece").en}
LANGS = ("en", "de", "fr", "ru", "el", "ar", "he", "hi", "zh", "ja", "ko")  # C31's test: wordfreq's word lists


def _data(text: str) -> str:
    """A table cell that is data (pieces, words), shown as it is in both editions."""
    i18n.verbatim(text.strip())  # a table's cell is looked up without its surrounding spaces
    return i18n.verbatim(text)


def chinese_texts(n_lines: int) -> list[str]:
    """The first ``n_lines`` non-empty lines of People's Daily (January 1998), words joined back into
    running text (:func:`embedbook.data.peoples_daily` reads only those lines)."""
    return ["".join(words) for words in data.peoples_daily(limit=n_lines)]


def english_texts(n_lines: int | None = None) -> list[str]:
    """Lines of the Lee news corpus (lower-cased words joined by spaces); all of them by default."""
    lines = [" ".join(s) for s in data.lee_corpus()]
    return lines if n_lines is None else lines[:n_lines]


# --- tables of pieces, for the page ------------------------------------------------------------------------


def split_table(sentence: str):
    """A table (pandas Styler, no index) of how each tokenizer in :data:`tokenize.TOKENIZERS` cuts
    ``sentence``: the number of tokens and every piece, joined with " | " (nothing cut off)."""
    import pandas as pd

    rows = []
    for name in tokenize.TOKENIZERS:
        s = tokenize.split(sentence, name)
        rows.append({_("tokenizer").en: TOKENIZER_NAMES[name], _("tokens").en: len(s.ids),
                     _("pieces").en: _data(" | ".join(s.pieces))})
    # the tokenizer's name on one line: the long pieces column wraps instead of squeezing it
    return pd.DataFrame(rows).style.set_uuid("split").hide(axis="index").set_properties(
        subset=[_("tokenizer").en, _("tokens").en], **{"white-space": "nowrap"})


def pieces_table(words: list[str]):
    """A table (pandas Styler, no index) of the pieces GPT-2's BPE (the word after a space, as in running
    text) and MiniLM's WordPiece cut each of ``words`` into, with the number of pieces of each."""
    import pandas as pd

    rows = []
    for w in words:
        bpe, wp = tokenize.gpt2_split(" " + w).pieces, tokenize.wordpiece_split(w).pieces
        rows.append({_("word").en: _data(w), _("GPT-2 BPE").en: _data(" | ".join(bpe)), _("BPE pieces").en: len(bpe),
                     _("MiniLM WordPiece").en: _data(" | ".join(wp)), _("WordPiece pieces").en: len(wp)})
    return pd.DataFrame(rows).style.hide(axis="index")


# --- C33: how tokenizers cut Chinese characters and English words ------------------------------------------


@dataclass
class Cuts(Result):
    """How three real tokenizers cut the Chinese characters of a People's Daily sample, and how GPT-2's BPE
    cuts the running words of an English sample."""

    zh_chars: int  # Chinese characters in the sample
    en_words: int  # running English words in the sample
    rows: list[dict] = field(default_factory=list)  # one per tokenizer
    en_split_share: float = 0.0  # share of English words GPT-2 cuts into 2 or more pieces
    en_23_share: float = 0.0  # among those, the share cut into 2 or 3 pieces
    en_max_pieces: int = 0
    split_share_max: float = 0.0  # largest share of Chinese characters split over several tokens, any tokenizer
    merged_share_max: float = 0.0  # largest share merged with neighbours into one token, any tokenizer
    gpt2_zh_split: float = 0.0
    gpt2_zh_chars_per_token: float = 0.0
    multilingual_zh_split: float = 0.0
    multilingual_zh_merged: float = 0.0
    multilingual_zh_chars_per_token: float = 0.0
    gpt2_en_chars_per_token: float = 0.0

    def extra_glue(self) -> dict:
        ctx = 32768
        return {"ctx_zh_gpt2": round(ctx * self.gpt2_zh_chars_per_token),
                "ctx_zh_multilingual": round(ctx * self.multilingual_zh_chars_per_token),
                "ctx_en_gpt2": round(ctx * self.gpt2_en_chars_per_token)}


def run_cuts(zh_texts: list[str], en_texts: list[str]) -> Cuts:
    """Cut ``zh_texts`` with GPT-2's BPE, Whisper's multilingual BPE and MiniLM's WordPiece and classify every
    Chinese character (one token, merged with neighbours, split over several tokens, unknown); cut every
    running word of ``en_texts`` with GPT-2's BPE (with its leading space, as mid-sentence)."""
    zh = "".join(zh_texts)
    en_words = " ".join(en_texts).split()
    en_chars = sum(len(t) for t in en_texts)
    rows = []
    for name in tokenize.TOKENIZERS:
        s = tokenize.split(zh, name)
        c = tokenize.character_cuts(s, keep=tokenize.is_cjk)
        n_en = sum(len(tokenize.split(t, name).ids) for t in en_texts)
        rows.append({"tokenizer": TOKENIZER_NAMES[name], "key": name, "single": c.share("single"),
                     "merged": c.share("merged"), "split": c.share("split"), "unknown": c.share("unknown"),
                     "zh_chars_per_token": len(zh) / len(s.ids), "en_chars_per_token": en_chars / n_en,
                     "zh_cjk": c.total})
    pieces: dict[str, int] = {}
    for w in set(en_words):
        pieces[w] = len(tokenize.gpt2_split(" " + w).ids)
    counts = np.array([pieces[w] for w in en_words])
    multi = counts >= 2
    by = {r["key"]: r for r in rows}
    return Cuts(
        zh_chars=by["gpt2"]["zh_cjk"],
        en_words=len(en_words),
        rows=rows,
        en_split_share=float(multi.mean()),
        en_23_share=float(((counts >= 2) & (counts <= 3)).sum() / max(int(multi.sum()), 1)),
        en_max_pieces=int(counts.max()),
        split_share_max=max(r["split"] for r in rows),
        merged_share_max=max(r["merged"] for r in rows),
        gpt2_zh_split=by["gpt2"]["split"],
        gpt2_zh_chars_per_token=by["gpt2"]["zh_chars_per_token"],
        multilingual_zh_split=by["multilingual"]["split"],
        multilingual_zh_merged=by["multilingual"]["merged"],
        multilingual_zh_chars_per_token=by["multilingual"]["zh_chars_per_token"],
        gpt2_en_chars_per_token=by["gpt2"]["en_chars_per_token"],
    )


# --- C31: does a subword vocabulary cover every word? ---------------------------------------------------

# New coinages (2019 on) and slang, whole strings unlikely to be in any of the tokenizers' vocabularies.
COINED = {
    "en": ["doomscrolling", "enshittification", "rizzler", "finfluencer", "vibecoding", "deepfaked"],
    "de": ["Klimakleber", "Coronamüdigkeit"], "fr": ["divulgâcher", "mégabassine"],
    "ru": ["зумерский", "хайпануть"], "zh": ["躺平", "内卷", "绝绝子", "凡尔赛文学"],
    "ja": ["推し活", "ググる"], "ko": ["킹받네", "갓생"],
}


def unseen_strings(lang: str, n: int = 20) -> list[str]:
    """Strings of language ``lang`` that no tokenizer here has as one piece: misspellings of its most frequent
    words (the 2nd and 3rd characters swapped, kept only if the result is not itself among its 5,000 most
    frequent words and is more than one token of Whisper's multilingual BPE), then the coinages in
    :data:`COINED`."""
    enc = tokenize.multilingual_encoding()
    common = set(data.top_words(5000, lang))
    shortest = 2 if lang in ("zh", "ja", "ko") else 4
    out = []
    for w in data.top_words(400, lang):
        if len(w) < shortest:
            continue
        typo = w[0] + w[2] + w[1] + w[3:] if len(w) >= 3 else w[::-1]
        if typo != w and typo not in common and len(enc.encode(typo)) > 1 and typo not in out:
            out.append(typo)
        if len(out) >= n:
            break
    return out + COINED.get(lang, [])


def _fragments(enc, ids: list[int]) -> int:
    """Tokens among ``ids`` whose bytes do not decode to whole characters on their own."""
    n = 0
    for i in ids:
        try:
            enc.decode_single_token_bytes(i).decode("utf-8")
        except UnicodeDecodeError:
            n += 1
    return n


@dataclass
class Coverage(Result):
    """Whether byte-level BPEs and MiniLM's WordPiece cover frequent words and unseen strings (misspellings,
    coinages) of many languages, and how many of the pieces are fragments of a character."""

    n_words: int  # frequent words, over all languages
    n_novel: int  # unseen strings, over all languages
    n_langs: int
    bpe_failures: int  # strings GPT-2's or Whisper's byte-level BPE does not give back exactly
    wordpiece_unk_words: int  # frequent words MiniLM's WordPiece maps (partly) to [UNK]
    wordpiece_unk_share: float
    wordpiece_unk_novel: int  # unseen strings it maps (partly) to [UNK]
    wordpiece_unk_novel_share: float
    fragment_tokens: int  # GPT-2 tokens of the frequent words that are not whole UTF-8 characters
    gpt2_tokens: int
    fragment_share: float
    novel_fragment_tokens: int  # Whisper-BPE tokens of the unseen strings that are not whole characters
    novel_tokens: int
    novel_fragment_share: float
    verbatim = ("novel_fragment_max_lang",)  # a language code, data
    novel_fragment_max_lang: str = ""  # the language with the largest such share
    novel_fragment_max_share: float = 0.0
    rows: list[dict] = field(default_factory=list)  # per language
    examples: list[dict] = field(default_factory=list)  # a few unseen strings and their pieces


def run_coverage(words_per_lang: int, langs: tuple[str, ...] = LANGS, novel_per_lang: int = 20) -> Coverage:
    """For each language in ``langs``: encode and decode its ``words_per_lang`` most frequent words (wordfreq)
    with GPT-2's BPE and about ``novel_per_lang`` unseen strings (:func:`unseen_strings`) with GPT-2's and
    Whisper's byte-level BPEs; count the strings MiniLM's WordPiece maps to ``[UNK]``, and the tokens that
    are fragments of a character (GPT-2's for the frequent words, Whisper's for the unseen strings)."""
    gpt2, multi = data.gpt2_encoding(), tokenize.multilingual_encoding()
    rows, examples = [], []
    t = dict(fails=0, unk=0, unk_novel=0, frag=0, tok=0, nfrag=0, ntok=0, n=0, novel=0)
    for lang in langs:
        words = data.top_words(words_per_lang, lang)
        novel = unseen_strings(lang, novel_per_lang)
        l_fail = l_unk = l_frag = l_tok = l_unk_novel = l_nfrag = l_ntok = 0
        for w in words:
            s = tokenize.gpt2_split(w)
            l_fail += gpt2.decode(s.ids) != w
            l_unk += tokenize.wordpiece_split(w).unknown > 0
            l_frag += _fragments(gpt2, s.ids)
            l_tok += len(s.ids)
        for w in novel:
            ids = multi.encode(w)
            l_fail += (multi.decode(ids) != w) + (gpt2.decode(gpt2.encode(w)) != w)
            l_unk_novel += tokenize.wordpiece_split(w).unknown > 0
            l_nfrag += _fragments(multi, ids)
            l_ntok += len(ids)
        for w in (novel[0], *COINED.get(lang, [])[:1]) if novel else ():
            examples.append({_("language").en: lang, _("unseen string").en: _data(w),
                             _("Whisper BPE").en: _data(" | ".join(tokenize.multilingual_split(w).pieces)),
                             _("MiniLM WordPiece").en: _data(" | ".join(tokenize.wordpiece_split(w).pieces))})
        rows.append({_("language").en: lang, _("frequent words").en: len(words), _("unseen strings").en: len(novel),
                     _("WordPiece [UNK], frequent").en: l_unk, _("WordPiece [UNK], unseen").en: l_unk_novel,
                     _("GPT-2 fragment tokens, frequent").en: l_frag / l_tok,
                     _("Whisper fragment tokens, unseen").en: l_nfrag / max(l_ntok, 1)})
        for k, v in dict(fails=l_fail, unk=l_unk, unk_novel=l_unk_novel, frag=l_frag, tok=l_tok, nfrag=l_nfrag,
                         ntok=l_ntok, n=len(words), novel=len(novel)).items():
            t[k] += v
    worst = max(rows, key=lambda r: r["Whisper fragment tokens, unseen"])
    return Coverage(
        n_words=t["n"], n_novel=t["novel"], n_langs=len(langs), bpe_failures=t["fails"],
        wordpiece_unk_words=t["unk"], wordpiece_unk_share=t["unk"] / t["n"],
        wordpiece_unk_novel=t["unk_novel"], wordpiece_unk_novel_share=t["unk_novel"] / max(t["novel"], 1),
        fragment_tokens=t["frag"], gpt2_tokens=t["tok"], fragment_share=t["frag"] / t["tok"],
        novel_fragment_tokens=t["nfrag"], novel_tokens=t["ntok"], novel_fragment_share=t["nfrag"] / max(t["ntok"], 1),
        novel_fragment_max_lang=worst["language"], novel_fragment_max_share=worst["Whisper fragment tokens, unseen"],
        rows=rows, examples=examples,
    )


# --- C32: vocabulary size against tokens and parameters ----------------------------------------------------


@dataclass
class VocabSweep(Result):
    """Byte-level BPEs trained at several vocabulary sizes: tokens on held-out text and table parameters."""

    requested: list[int]
    vocab: list[int]  # sizes reached (a small corpus can stop short of the request)
    tokens: list[int]  # tokens of the held-out text
    chars_per_token: list[float]
    table_params: list[int]  # parameters of an nn.Embedding(V, d), counted from the module
    d: int
    held_out_chars: int
    n_steps: int  # steps up in the vocabulary reached (a request the corpus cannot reach adds no step)
    n_fewer: int  # of those, the steps that gave fewer tokens
    token_drop: float  # 1 - tokens at the largest V / tokens at the smallest
    vocab_ratio: float
    params_exact: int  # 1 if every table has exactly V·d parameters
    tokens_exponent: float  # slope of log tokens against log V

    def extra_glue(self) -> dict:
        return {"v_min": self.vocab[0], "v_max": self.vocab[-1], "tokens_min_v": self.tokens[0],
                "tokens_max_v": self.tokens[-1], "params_ratio": self.table_params[-1] / self.table_params[0]}

    def table(self) -> list[dict]:
        """One row per size (for a table)."""
        return [{_("requested V").en: q, _("V reached").en: v, _("held-out tokens").en: n,
                 _("characters per token").en: c, _("table parameters (V·d)").en: p}
                for q, v, n, c, p in zip(self.requested, self.vocab, self.tokens, self.chars_per_token, self.table_params)]


def run_vocab_sweep(train: list[str], test: list[str], sizes: list[int], d: int) -> VocabSweep:
    """Train one byte-level BPE per size in ``sizes`` on ``train``; count the tokens of ``test`` and the
    parameters of an ``nn.Embedding(V, d)`` built on the meta device (no memory)."""
    if len(sizes) < 2 or sorted(sizes) != list(sizes):
        raise ValueError("give at least two vocabulary sizes in increasing order")
    vocab, tokens, params = [], [], []
    for v in sizes:
        tok = tokenize.train_bpe(train, v)
        vocab.append(tok.get_vocab_size())
        tokens.append(tokenize.count_tokens(tok, test))
        table = torch.nn.Embedding.from_pretrained(torch.empty(vocab[-1], d, device="meta"))  # no memory, no init
        params.append(sum(p.numel() for p in table.parameters()))
    chars = sum(len(t) for t in test)
    return VocabSweep(
        requested=list(sizes), vocab=vocab, tokens=tokens, chars_per_token=[chars / n for n in tokens],
        table_params=params, d=d, held_out_chars=chars,
        n_steps=sum(vb > va for va, vb in zip(vocab, vocab[1:])),
        n_fewer=sum(nb < na for va, vb, na, nb in zip(vocab, vocab[1:], tokens, tokens[1:]) if vb > va),
        token_drop=1 - tokens[-1] / tokens[0], vocab_ratio=vocab[-1] / vocab[0],
        params_exact=int(all(p == v * d for p, v in zip(params, vocab))),
        tokens_exponent=stats.power_law_exponent(vocab, tokens) if len(set(vocab)) > 1 else 0.0,
    )


# --- C34: do nearby ids mean nearby things? --------------------------------------------------------------


@dataclass
class IdsVsMeaning(Result):
    """GPT-2 ids of frequent English words that are one token, against their GloVe vectors and frequencies."""

    n_words: int
    n_pairs: int
    spearman: float  # |id_i − id_j| against cosine distance, over random pairs
    adjacent_cos_dist: float  # mean cosine distance of words next to each other in id order
    random_cos_dist: float  # mean over random pairs
    adjacent_ratio: float
    median_gap: int  # median id gap between words next to each other in id order
    spearman_id_freq: float  # id against the word's Zipf frequency
    partial_spearman: float  # id distance against meaning distance, both words' frequencies held fixed
    gap_bins: list[float] = field(default_factory=list)  # geometric mean id gap per bin (for a figure)
    gap_cos: list[float] = field(default_factory=list)  # mean cosine distance per bin


def run_ids_vs_meaning(words: list[str], pairs: int = 20000, seed: int = 0) -> IdsVsMeaning:
    """Keep the ``words`` that are a single GPT-2 token (with a leading space, as mid-sentence) and in GloVe;
    compare id distance with GloVe cosine distance over ``pairs`` random pairs and over neighbours in id
    order, and measure how ids follow frequency (wordfreq's Zipf scale)."""
    enc, kv = data.gpt2_encoding(), data.glove()
    keep = []
    for w in words:
        ids = enc.encode(" " + w)
        if len(ids) == 1 and w in kv.key_to_index:
            keep.append((w, ids[0]))
    if len(keep) < 10:
        raise ValueError(f"only {len(keep)} usable words: need at least 10 single-token words that GloVe knows")
    ids = np.array([i for _, i in keep])
    vec = stats.unit_rows(np.stack([kv[w] for w, _ in keep]))
    zipf = np.array([data.zipf(w) for w, _ in keep])
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, len(keep), size=(2, pairs))
    ok = a != b
    a, b = a[ok], b[ok]
    gap = np.abs(ids[a] - ids[b]).astype(float)
    cos_dist = 1.0 - np.sum(vec[a] * vec[b], axis=1)
    order = np.argsort(ids)
    adj = 1.0 - np.sum(vec[order[:-1]] * vec[order[1:]], axis=1)
    edges = np.unique(np.geomspace(1, gap.max() + 1, 12).astype(int))
    which = np.digitize(gap, edges)
    bins = [(float(np.exp(np.log(gap[which == k]).mean())), float(cos_dist[which == k].mean()))
            for k in np.unique(which) if (which == k).sum() >= 30]
    return IdsVsMeaning(
        n_words=len(keep), n_pairs=int(ok.sum()),
        spearman=stats.spearman(gap, cos_dist),
        adjacent_cos_dist=float(adj.mean()), random_cos_dist=float(cos_dist.mean()),
        adjacent_ratio=float(adj.mean() / cos_dist.mean()),
        median_gap=int(np.median(np.diff(ids[order]))),
        spearman_id_freq=stats.spearman(ids, zipf),
        partial_spearman=stats.partial_spearman(gap, cos_dist, [zipf[a] + zipf[b], np.abs(zipf[a] - zipf[b])]),
        gap_bins=[g for g, _ in bins], gap_cos=[c for _, c in bins],
    )


# --- C47: a word assembled from pieces ---------------------------------------------------------------


@dataclass
class Assembled(Result):
    """Words MiniLM knows whole, fed to it as the pieces WordPiece would cut them into if it did not."""

    n_words: int
    top1: float  # piece-built vector's nearest whole-word vector is the word itself
    top10: float
    chance_top10: float
    mean_cos: float
    baseline_cos: float  # mean cosine between the whole-word vectors of different words
    static_top1: float  # the same with the input table only (mean of the piece rows)
    static_top10: float
    static_mean_cos: float
    examples: list[dict] = field(default_factory=list)


def _word_vectors(model, batches: list[list[int]], spans: list[tuple[int, int]], device) -> torch.Tensor:
    """Last-layer states of ``[CLS] ids [SEP]`` for each id list, averaged over the word's positions."""
    width = max(map(len, batches))
    ids = torch.zeros(len(batches), width, dtype=torch.long)
    mask = torch.zeros(len(batches), width, dtype=torch.long)
    for k, row in enumerate(batches):
        ids[k, : len(row)] = torch.tensor(row)
        mask[k, : len(row)] = 1
    with torch.no_grad():
        out = model(input_ids=ids.to(device), attention_mask=mask.to(device)).last_hidden_state.float().cpu()
    return torch.stack([out[k, a:b].mean(0) for k, (a, b) in enumerate(spans)])


def _ranks(built: torch.Tensor, whole: torch.Tensor) -> torch.Tensor:
    sims = stats.unit_rows(built) @ stats.unit_rows(whole).T
    return (sims > sims.diagonal()[:, None]).sum(1)


def run_assembled(tokenizer, model, words: list[str], n_words: int, device=None) -> Assembled:
    """For up to ``n_words`` of ``words`` that MiniLM's WordPiece has as one id (alphabetic, 6+ letters), cut
    each into the pieces WordPiece would use without that id (:func:`embedbook.tokenize.wordpiece_greedy`),
    run ``[CLS] word [SEP]`` and ``[CLS] pieces [SEP]`` through the model and compare the last-layer vectors
    (mean over the word's positions); also the input table alone (the word's row against the mean of the
    pieces' rows). Each built vector is ranked against the whole-word vectors of all the words."""
    vocab = tokenizer.get_vocab()
    chosen = []
    for w in words:
        if w in vocab and w.isascii() and w.isalpha() and len(w) >= 6:
            pieces = tokenize.wordpiece_greedy(w, vocab, exclude_whole=True)
            if pieces and len(pieces) >= 2:
                chosen.append((w, pieces))
        if len(chosen) >= n_words:
            break
    if len(chosen) < 10:
        raise ValueError(f"only {len(chosen)} usable words; give more frequent English words")
    dev = device or next(model.parameters()).device
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    whole_ids = [[cls, vocab[w], sep] for w, _ in chosen]
    piece_ids = [[cls, *(vocab[p] for p in ps), sep] for _, ps in chosen]
    whole = _word_vectors(model, whole_ids, [(1, 2)] * len(chosen), dev)
    built = _word_vectors(model, piece_ids, [(1, 1 + len(ps)) for _, ps in chosen], dev)
    table = model.embeddings.word_embeddings.weight.detach().float().cpu()
    s_whole = table[[vocab[w] for w, _ in chosen]]
    s_built = torch.stack([table[[vocab[p] for p in ps]].mean(0) for _, ps in chosen])
    ranks, s_ranks = _ranks(built, whole), _ranks(s_built, s_whole)
    cos = (stats.unit_rows(built) * stats.unit_rows(whole)).sum(1)
    s_cos = (stats.unit_rows(s_built) * stats.unit_rows(s_whole)).sum(1)
    unit = stats.unit_rows(whole)
    off = (unit @ unit.T)[~torch.eye(len(chosen), dtype=torch.bool)]
    examples = [{_("word").en: _data(w), _("pieces").en: _data(" ".join(ps)), _("cosine").en: float(c),
                 _("rank").en: int(k) + 1}
                for (w, ps), c, k in list(zip(chosen, cos, ranks))[:8]]
    n = len(chosen)
    return Assembled(
        n_words=n, top1=float((ranks == 0).float().mean()), top10=float((ranks < 10).float().mean()),
        chance_top10=min(10 / n, 1.0), mean_cos=float(cos.mean()), baseline_cos=float(off.mean()),
        static_top1=float((s_ranks == 0).float().mean()), static_top10=float((s_ranks < 10).float().mean()),
        static_mean_cos=float(s_cos.mean()), examples=examples,
    )


# --- the figures (the lesson and the audit draw the same ones) ----------------------------------------------


def figure_cuts(cuts: Cuts):
    """Stacked bars: how each tokenizer of :func:`run_cuts` cuts the Chinese characters (one token, merged,
    split into bytes, unknown)."""
    from embedbook import plotting

    kinds = [("single", _("一个 token · one token")), ("merged", _("与邻字合并 · merged")),
             ("split", _("拆成字节 · split into bytes")), ("unknown", "[UNK]")]
    names = [row["tokenizer"] for row in cuts.rows]  # English; each edition translates the figure
    fig, ax = plotting.subplots(figsize=(7.5, 3.4))
    left = [0.0] * len(cuts.rows)
    for k, (col, label) in enumerate(kinds):
        width = [row[col] * 100 for row in cuts.rows]
        ax.barh(names, width, left=left, label=label, color=plotting.PALETTE[k])
        left = [a + b for a, b in zip(left, width)]
    ax.set_xlabel(_("% of the Chinese characters in the sample"))
    ax.set_xlim(0, 100)
    ax.invert_yaxis()
    ax.set_title(_("一个汉字是几个 token？ · how three tokenizers cut Chinese characters"))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=4, fontsize=9, frameon=False)
    return fig


def figure_sweep(sweep: VocabSweep):
    """Tokens per 1,000 held-out characters (left axis) and the table's parameters (right axis) against the
    vocabulary size, all three axes linear: the parameters are a straight line."""
    from matplotlib.ticker import FuncFormatter

    from embedbook import plotting

    fig, ax = plotting.subplots(figsize=(7, 4))
    ax.plot(sweep.vocab, [1000 * n / sweep.held_out_chars for n in sweep.tokens], "o-",
            label=_("tokens per 1,000 characters (left)"))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:,.0f}"))
    ax.set_xlim(0, sweep.vocab[-1] * 1.05)
    ax.set_xlabel(_("vocabulary size V (ids, linear scale)"))
    ax.set_ylabel(_("tokens per 1,000 held-out characters"))
    ax.set_ylim(0, None)
    right = ax.twinx()
    right.plot(sweep.vocab, [p / 1e6 for p in sweep.table_params], "s--", color=plotting.PALETTE[1],
               label=_("table parameters $V \\cdot d$, $d$ = {d} (right)").format(d=sweep.d))
    right.set_ylabel(_("table parameters (millions)"))
    right.set_ylim(0, None)
    right.grid(False)
    right.spines["right"].set_visible(True)  # a spine, so tick marks don't read as minus signs
    lines = ax.get_lines() + right.get_lines()
    ax.legend(lines, [line.get_label() for line in lines], loc="upper center", fontsize=9)
    ax.set_title(_("词表越大，token 越少，参数越多 · a bigger vocabulary: fewer tokens, more parameters"))
    return fig


def figure_ids(r: IdsVsMeaning):
    """GloVe cosine distance of random pairs against their GPT-2 id gap (log scale), with all random pairs and
    the neighbours in id order."""
    from matplotlib.ticker import FuncFormatter

    from embedbook import plotting

    fig, ax = plotting.subplots(figsize=(7, 4))
    ax.plot(r.gap_bins, r.gap_cos, "o-", label=_("random pairs, by id gap"))
    ax.axhline(r.random_cos_dist, color="grey", ls="--", lw=1, label=_("all random pairs"))
    ax.plot([r.median_gap], [r.adjacent_cos_dist], "D", color=plotting.PALETTE[1], ms=8,
            label=_("neighbours in id order"))
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:,.0f}"))
    ax.set_xlabel(_("distance between the two GPT-2 ids (log scale)"))
    ax.set_ylabel(_("GloVe cosine distance (0 = same direction)"))
    ax.set_ylim(0, 1.1)
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title(_("编号接近 ≠ 意思接近 · nearby ids, nearby meanings?"))
    return fig


# --- the chapter's summary: one sentence per claim, chosen by the verdict -------------------------------

HEADLINES = {
    "C31": {
        REFUTED: _("Some strings did not survive a byte-level BPE: subwords did not cover everything."),
        CORRECTED: _("Byte-level BPEs turned every frequent word and unseen string into known pieces, but a known "
                     "piece need not have a meaningful row: trained vocabularies contain under-trained tokens."),
        CONFIRMED: _("Byte-level BPEs turned every unseen string into known pieces, nearly all whole characters or more "
                     "({novel_fragment_share:.0%} fragments)."),
    },
    "C32": {
        REFUTED: _("A larger vocabulary did not shorten the text."),
        CORRECTED: _("A larger vocabulary shortened the text overall ({token_drop:.0%}), not at every step; the table "
                     "grew with V."),
        CONFIRMED: _("Every larger vocabulary shortened the held-out text (by {token_drop:.0%} over the range) while the "
                     "table's parameters grew exactly in step with V."),
    },
    "C33": {
        REFUTED: _("The tokenizers did not cut characters and words the way the article says."),
        CORRECTED: _("A Chinese character can be one token, merge with its neighbours or split into byte tokens, as "
                     "the article says; but only {en_23_share:.0%} of the cut English words took 2–3 pieces."),
        CONFIRMED: _("A Chinese character can be one token, merge with its neighbours or split into byte tokens; "
                     "{en_split_share:.0%} of English words are cut, {en_23_share:.0%} of those into 2–3 pieces."),
    },
    "C34": {
        REFUTED: _("Words with nearby ids were nearby in meaning."),
        CORRECTED: _("Nearby ids are not nearby meanings, but ids are not pure names: id distance and meaning distance "
                     "correlate weakly (ρ = {spearman:+.2f})."),
        CONFIRMED: _("Nearby ids are not nearby meanings, and id distance says next to nothing (ρ = {spearman:+.2f})."),
        # the held-out word list disagreed with the first (claims.run's replication)
        INCONCLUSIVE: _("Nearby ids are not nearby meanings; whether id distance still tracks meaning a little "
                        "(ρ = {spearman:+.2f} on the first word list) did not hold on a held-out list."),
    },
    "C47": {
        REFUTED: _("A vector built from pieces was not a usable stand-in for the word's own."),
        CORRECTED: _("A vector built from pieces was as good as the word's own ({top1:.0%} nearest)."),
        CONFIRMED: _("A vector built from pieces is usable ({top10:.0%} find the word among the 10 nearest) but not "
                     "precise ({top1:.0%} nearest)."),
    },
}


def headline(v: claims.Verdict, table: dict = HEADLINES) -> str:
    """The summary sentence for verdict ``v``: the one its outcome selects, filled in with its figures."""
    return table[v.claim_id][v.verdict].format(**v.figures)


def glue_headlines(verdicts: list[claims.Verdict]) -> None:
    """Glue ``<claim>_headline`` for each verdict (the chapter's summary pastes them)."""
    from embedbook import book

    for v in verdicts:
        book.glue(f"{v.claim_id}_headline", headline(v))
