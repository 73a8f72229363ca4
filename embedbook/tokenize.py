"""Text to ids with real tokenizers, offline: GPT-2's byte-level BPE, Whisper's multilingual byte-level
BPE and MiniLM's WordPiece; how a tokenizer cuts each character of a text; WordPiece's greedy split;
and training a byte-level BPE of any vocabulary size.

Used by chapter 01 (Tokens are ids, not words) and chapter 15 (Practical choices, :func:`train_bpe`).
"""

from __future__ import annotations

import functools
import itertools
import unicodedata
from dataclasses import dataclass
from typing import Callable

from embedbook import data

__all__ = [
    "TOKENIZERS", "CharacterCuts", "Split", "character_cuts", "count_tokens", "gpt2_split", "is_cjk",
    "MAX_BPE_VOCAB", "multilingual_encoding", "multilingual_split", "split", "tokens_per_char", "train_bpe", "wordpiece_greedy",
    "wordpiece_split",
]


@dataclass(frozen=True)
class Split:
    """How one tokenizer cuts one text.

    Attributes:
        text: the text.
        pieces: each token as text (a byte-level token that is part of a character shows its bytes,
            e.g. ``\\xe8``).
        ids: each token's id.
        spans: each token's ``(start, end)`` in the text's UTF-8 bytes, in order; tokens cut from one
            character share its span (WordPiece decomposes a Hangul syllable such as 찰 into three jamo).
        unknown: how many tokens are the tokenizer's unknown token (``[UNK]``); 0 for byte-level BPEs.
    """

    text: str
    pieces: list[str]
    ids: list[int]
    spans: list[tuple[int, int]]
    unknown: int = 0

    @property
    def chars_per_token(self) -> float:
        """Characters of the text per token (``inf`` when the tokenizer made no token, e.g. of blanks)."""
        return len(self.text) / len(self.ids) if self.ids else float("inf")


def _check_text(text: str) -> None:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not text:
        raise ValueError("text is empty: there is nothing to tokenize")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:  # a lone surrogate, e.g. from a badly decoded file
        raise ValueError(f"text is not valid Unicode at position {err.start} ({text[err.start]!r}): "
                         "decode the source with errors='replace' first") from None


def _tiktoken_split(enc, text: str) -> Split:
    ids = enc.encode(text, disallowed_special=())
    raw = [enc.decode_single_token_bytes(i) for i in ids]
    ends = list(itertools.accumulate(len(b) for b in raw))
    spans = [(e - len(b), e) for b, e in zip(raw, ends)]
    pieces = [b.decode("utf-8", errors="backslashreplace") for b in raw]
    return Split(text, pieces, ids, spans)


def gpt2_split(text: str) -> Split:
    """Cut ``text`` with the real GPT-2 byte-level BPE (50,257 ids; :func:`embedbook.data.gpt2_encoding`).

    Args:
        text: a non-empty string; special-token strings such as ``<|endoftext|>`` are cut as plain text.

    Returns:
        A :class:`Split`.

    Raises:
        TypeError: ``text`` is not a str.
        ValueError: ``text`` is empty.
        embedbook.data.MissingResource: ``tiktoken`` is not installed.
    """
    _check_text(text)
    return _tiktoken_split(data.gpt2_encoding(), text)


@functools.lru_cache(maxsize=1)
def multilingual_encoding():
    """Whisper's multilingual byte-level BPE (50,257 byte-level tokens and ``<|endoftext|>``; GPT-2's scheme
    trained on text in ~100 languages) as a ``tiktoken.Encoding``. The ranks ship inside the package
    (``embedbook/resources/multilingual.tiktoken``, from openai-whisper's assets, MIT); only ``tiktoken`` is needed.

    Returns:
        A ``tiktoken.Encoding``; cached.

    Raises:
        embedbook.data.MissingResource: ``tiktoken`` is not installed, or the ranks file is missing or damaged.
    """
    return data.tiktoken_encoding("whisper-multilingual", "multilingual.tiktoken")


def multilingual_split(text: str) -> Split:
    """Cut ``text`` with Whisper's multilingual byte-level BPE (:func:`multilingual_encoding`).

    Args:
        text: a non-empty string.

    Returns:
        A :class:`Split`.

    Raises:
        TypeError: ``text`` is not a str.
        ValueError: ``text`` is empty.
        embedbook.data.MissingResource: ``tiktoken`` is not installed.
    """
    _check_text(text)
    return _tiktoken_split(multilingual_encoding(), text)


def wordpiece_split(text: str) -> Split:
    """Cut ``text`` with MiniLM's uncased WordPiece (30,522 ids), without ``[CLS]`` and ``[SEP]``.

    Args:
        text: a non-empty string (lower-cased and stripped of accents by the tokenizer itself).

    Returns:
        A :class:`Split`; ``unknown`` counts the ``[UNK]`` tokens.

    Raises:
        TypeError: ``text`` is not a str.
        ValueError: ``text`` is empty.
        embedbook.data.MissingResource: ``tokenizers`` or the bundled MiniLM package is missing.
    """
    _check_text(text)
    tok = data.minilm_tokenizer()
    enc = tok.encode(text, add_special_tokens=False)
    starts = [0, *itertools.accumulate(len(ch.encode("utf-8")) for ch in text)]  # char offset → byte offset
    spans = [(starts[a], starts[b]) for a, b in enc.offsets]
    unk = tok.token_to_id("[UNK]")
    return Split(text, list(enc.tokens), list(enc.ids), spans, unknown=sum(i == unk for i in enc.ids))


TOKENIZERS: dict[str, Callable[[str], Split]] = {
    "gpt2": gpt2_split, "multilingual": multilingual_split, "wordpiece": wordpiece_split,
}


def split(text: str, tokenizer: str = "gpt2") -> Split:
    """Cut ``text`` with the tokenizer called ``tokenizer`` (a key of :data:`TOKENIZERS`).

    Args:
        text: a non-empty string.
        tokenizer: ``"gpt2"``, ``"multilingual"`` or ``"wordpiece"``.

    Returns:
        A :class:`Split`.

    Raises:
        ValueError: an unknown tokenizer name, or an empty text.
        TypeError: ``text`` is not a str.
    """
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenizer!r}; use one of {list(TOKENIZERS)}")
    return TOKENIZERS[tokenizer](text)


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is one CJK unified ideograph (a Chinese character, also used in Japanese and Korean).

    Raises:
        TypeError: ``ch`` is not a string. ValueError: ``ch`` is not exactly one character (to test a text,
            use e.g. ``all(map(is_cjk, text))``).
    """
    if not isinstance(ch, str):
        raise TypeError(f"ch must be a one-character str, got {type(ch).__name__}")
    if len(ch) != 1:
        raise ValueError(f"ch must be exactly one character, got {len(ch)} ({ch!r}); for a text use "
                         "all(map(is_cjk, text)) or any(map(is_cjk, text))")
    return "CJK UNIFIED IDEOGRAPH" in unicodedata.name(ch, "")


@dataclass(frozen=True)
class CharacterCuts:
    """How a tokenizer cut the characters of a text.

    Attributes:
        single: characters that are exactly one token.
        merged: characters inside a token that also holds other characters.
        split: characters whose bytes are spread over two or more tokens.
        unknown: characters inside an unknown token (``[UNK]``).
        missing: characters no token covers (e.g. whitespace WordPiece drops).
    """

    single: int
    merged: int
    split: int
    unknown: int = 0
    missing: int = 0

    @property
    def total(self) -> int:
        """All characters counted."""
        return self.single + self.merged + self.split + self.unknown + self.missing

    def share(self, kind: str) -> float:
        """Share of the counted characters in ``kind`` (``"single"``, ``"merged"``, ``"split"``, …)."""
        if kind not in ("single", "merged", "split", "unknown", "missing"):
            raise ValueError(f"unknown kind {kind!r}; use single, merged, split, unknown or missing")
        return getattr(self, kind) / self.total if self.total else 0.0


def character_cuts(cut: Split, keep: Callable[[str], bool] | None = None, unk_piece: str = "[UNK]") -> CharacterCuts:
    """For each character of ``cut.text`` (or each one ``keep`` accepts), whether the tokenizer made it one
    token, merged it with neighbours into one token, or split its bytes over several tokens.

    Args:
        cut: a :class:`Split` (from any tokenizer here).
        keep: which characters to count, e.g. :func:`is_cjk`; default all.
        unk_piece: the piece text of the unknown token.

    Returns:
        A :class:`CharacterCuts`.

    Raises:
        TypeError: ``cut`` is not a :class:`Split`.
    """
    if not isinstance(cut, Split):
        raise TypeError(f"character_cuts takes a Split, got {type(cut).__name__}")
    counts = dict(single=0, merged=0, split=0, unknown=0, missing=0)
    spans = cut.spans
    pos, t = 0, 0
    for ch in cut.text:
        a, z = pos, pos + len(ch.encode("utf-8"))
        pos = z
        if keep is not None and not keep(ch):
            continue
        while t < len(spans) and spans[t][1] <= a:
            t += 1
        over = list(itertools.takewhile(lambda k: spans[k][0] < z, range(t, len(spans))))
        if not over:
            counts["missing"] += 1
        elif len(over) > 1:
            counts["split"] += 1
        elif cut.pieces[over[0]] == unk_piece:
            counts["unknown"] += 1
        elif spans[over[0]] == (a, z):
            counts["single"] += 1
        else:
            counts["merged"] += 1
    return CharacterCuts(**counts)


def wordpiece_greedy(word: str, vocab: dict[str, int], exclude_whole: bool = False) -> list[str] | None:
    """WordPiece's greedy longest-match-first split of one lower-case ``word`` into pieces of ``vocab``
    (continuations carry ``##``).

    With ``exclude_whole=True`` the word itself is not allowed as a piece: this is how WordPiece would cut
    the word if its vocabulary lacked it (an unseen word with a known answer).

    Args:
        word: one word, no spaces.
        vocab: piece → id (e.g. ``data.minilm_tokenizer().get_vocab()``).
        exclude_whole: forbid the whole word as a piece.

    Returns:
        The pieces, or None when some part of the word matches no piece (WordPiece then gives ``[UNK]``).

    Raises:
        ValueError: ``word`` is empty or contains whitespace.
    """
    if not isinstance(word, str) or not word or any(c.isspace() for c in word):
        raise ValueError(f"word must be one non-empty word without spaces, got {word!r}")
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            sub = word[start:end] if start == 0 else "##" + word[start:end]
            if sub in vocab and not (exclude_whole and start == 0 and end == len(word)):
                pieces.append(sub)
                break
            end -= 1
        if end == start:
            return None
        start = end
    return pieces


def _check_texts(texts) -> list[str]:
    if isinstance(texts, str) or not isinstance(texts, (list, tuple)):
        raise TypeError(f"texts must be a list of strings, got {type(texts).__name__}")
    if not all(isinstance(t, str) for t in texts):
        raise TypeError("texts must be a list of strings")
    if not any(t.strip() for t in texts):
        raise ValueError("texts is empty: give at least one non-blank text")
    for i, t in enumerate(texts):
        try:
            t.encode("utf-8")
        except UnicodeEncodeError as err:  # a lone surrogate, e.g. from a badly decoded file
            raise ValueError(f"texts[{i}] is not valid Unicode at position {err.start} ({t[err.start]!r}): "
                             "decode the source with errors='replace' first") from None
    return list(texts)


#: The largest ``vocab_size`` :func:`train_bpe` accepts (2**21 ids, eight times today's largest
#: vocabularies); the trainer reserves memory in proportion to the request, so a huge one would kill the process.
MAX_BPE_VOCAB = 2**21


def train_bpe(texts: list[str], vocab_size: int, *, min_frequency: int = 2):
    """Train a byte-level BPE (HuggingFace ``tokenizers``) with up to ``vocab_size`` ids on ``texts``.

    Byte-level means no text is ever out of vocabulary. Deterministic for a given input. On a small
    corpus the vocabulary can stop short of ``vocab_size`` (no pair occurs ``min_frequency`` times any
    more): read the size reached with ``get_vocab_size()``.

    Args:
        texts: training texts.
        vocab_size: the most ids, an int from 257 (256 bytes and one special token) to
            :data:`MAX_BPE_VOCAB`.
        min_frequency: how often a pair must occur to be merged, an int ``>= 0``.

    Returns:
        A trained ``tokenizers.Tokenizer``.

    Raises:
        TypeError: ``texts`` is not a list of strings.
        ValueError: all texts blank, a text that is not valid Unicode, ``vocab_size`` not an int from 257 to
            :data:`MAX_BPE_VOCAB`, or ``min_frequency`` not an int ``>= 0``.
        embedbook.data.MissingResource: ``tokenizers`` is not installed.
    """
    tokenizers = data._need("tokenizers")
    texts = _check_texts(texts)
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 257:
        raise ValueError(f"vocab_size must be an int ≥ 257 (256 bytes + 1 special), got {vocab_size!r}")
    if vocab_size > MAX_BPE_VOCAB:
        raise ValueError(f"vocab_size={vocab_size:,} is above the limit of {MAX_BPE_VOCAB:,} ids (the trainer "
                         "reserves memory for every requested id); ask for fewer")
    if not isinstance(min_frequency, int) or isinstance(min_frequency, bool) or min_frequency < 0:
        raise ValueError(f"min_frequency must be an int ≥ 0, got {min_frequency!r}")
    # no corpus can merge more pairs than it has bytes: asking for more only costs memory
    vocab_size = min(vocab_size, 257 + sum(len(t.encode("utf-8")) for t in texts))
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


def count_tokens(tok, texts: list[str]) -> int:
    """Tokens a ``tokenizers.Tokenizer`` (e.g. from :func:`train_bpe`) makes of ``texts``.

    Args:
        tok: a ``tokenizers.Tokenizer``.
        texts: the texts.

    Returns:
        The number of tokens, an int.

    Raises:
        TypeError: ``tok`` is not a ``tokenizers.Tokenizer``, or ``texts`` is not a list of strings.
        ValueError: all texts are blank, or a text is not valid Unicode.
    """
    if not (hasattr(tok, "encode_batch") and hasattr(tok, "get_vocab_size")):
        hint = " (for a tiktoken Encoding, count len(enc.encode(text)) instead)" if hasattr(tok, "n_vocab") else ""
        raise TypeError(f"tok must be a tokenizers.Tokenizer, got {type(tok).__name__}{hint}")
    return sum(len(e.ids) for e in tok.encode_batch(_check_texts(texts)))


def tokens_per_char(tok, texts: list[str]) -> float:
    """Tokens per character that a ``tokenizers.Tokenizer`` makes of ``texts``.

    Args:
        tok: a ``tokenizers.Tokenizer``.
        texts: the texts.

    Returns:
        ``count_tokens(tok, texts) / characters``.

    Raises:
        TypeError, ValueError: as :func:`count_tokens`.
    """
    n = count_tokens(tok, texts)
    return n / sum(len(t) for t in texts)
