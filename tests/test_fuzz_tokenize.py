"""Property-based tests (hypothesis) of the tokenizers: any text gives spans that tile its bytes (byte-level
BPEs) or stay inside them (WordPiece), every character is classified exactly once, and the greedy WordPiece
split agrees with the real tokenizer."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedbook import data, tokenize
from tests.conftest import FUZZ_COUNTS

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
texts = st.text(alphabet=st.sampled_from(list("ab c中国人果。🙂é\n")) | st.characters(), min_size=1, max_size=30)


def tried(name):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + 1


@SETTINGS
@given(text=texts, name=st.sampled_from(list(tokenize.TOKENIZERS)))
def test_spans_and_cuts(text, name):
    tried("tokenize spans/cuts")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: refused with a clear message
        with pytest.raises(ValueError, match="not valid Unicode"):
            tokenize.split(text, name)
        return
    s = tokenize.split(text, name)
    n_bytes = len(text.encode("utf-8"))
    assert len(s.ids) == len(s.pieces) == len(s.spans)
    assert all(0 <= a < b <= n_bytes for a, b in s.spans)
    # in order, not overlapping, except that the pieces WordPiece cuts from one character (it decomposes a
    # Hangul syllable into its jamo) all share that character's span
    assert all(s.spans[i][1] <= s.spans[i + 1][0] or s.spans[i] == s.spans[i + 1] for i in range(len(s.spans) - 1))
    if name != "wordpiece":  # byte-level: the tokens tile the text exactly
        assert s.spans[0][0] == 0 and s.spans[-1][1] == n_bytes and s.unknown == 0
        assert all(s.spans[i][1] == s.spans[i + 1][0] for i in range(len(s.spans) - 1))
    cuts = tokenize.character_cuts(s)
    assert cuts.total == len(text)
    if name != "wordpiece":
        assert cuts.missing == 0 and cuts.unknown == 0
    cjk = tokenize.character_cuts(s, keep=tokenize.is_cjk)
    assert cjk.total == sum(map(tokenize.is_cjk, text))


@SETTINGS
@given(word=st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14))
def test_greedy_wordpiece_matches_the_tokenizer(word):
    tried("tokenize wordpiece_greedy")
    vocab = data.minilm_tokenizer().get_vocab()
    pieces = tokenize.wordpiece_greedy(word, vocab)
    real = tokenize.wordpiece_split(word)
    if pieces is None:
        assert real.pieces == ["[UNK]"]
    elif len(word) <= 100:
        assert pieces == real.pieces
    without = tokenize.wordpiece_greedy(word, vocab, exclude_whole=True)
    assert without is None or "".join(p.removeprefix("##") for p in without) == word
    if word in vocab and without is not None:
        assert without != [word]


@SETTINGS
@given(word=st.one_of(st.just(""), st.text(min_size=1, max_size=5).filter(lambda w: any(c.isspace() for c in w))))
def test_greedy_wordpiece_refuses_non_words(word):
    tried("tokenize bad words")
    with pytest.raises(ValueError, match="one non-empty word"):
        tokenize.wordpiece_greedy(word, {"a": 0})
