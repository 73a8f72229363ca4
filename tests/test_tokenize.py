import pytest

from embedbook import tokenize


def test_gpt2_roundtrip_and_bytes():
    s = tokenize.gpt2_split("苹果")
    assert len(s.ids) >= 2  # two characters, six UTF-8 bytes: more than one token
    pieces = tokenize.gpt2_split(" embeddings").pieces
    assert len(pieces) >= 2 and "".join(pieces) == " embeddings"


def test_wordpiece_split():
    assert tokenize.wordpiece_split("embeddings").pieces == ["em", "##bed", "##ding", "##s"]


def test_empty_text_rejected():
    with pytest.raises(ValueError, match="empty"):
        tokenize.gpt2_split("")
    with pytest.raises(TypeError):
        tokenize.wordpiece_split(3)


def test_train_bpe_is_deterministic_and_validated():
    texts = ["the cat sat on the mat"] * 50 + ["a dog ate the hat"] * 50
    a, b = tokenize.train_bpe(texts, 300), tokenize.train_bpe(texts, 300)
    assert a.get_vocab() == b.get_vocab()
    assert a.decode(a.encode("the cat").ids) == "the cat"
    with pytest.raises(ValueError, match="vocab_size"):
        tokenize.train_bpe(texts, 100)
    with pytest.raises(ValueError, match="empty"):
        tokenize.train_bpe([], 300)


def test_bigger_vocab_fewer_tokens():
    texts = ["the quick brown fox jumps over the lazy dog"] * 30 + ["embedding tables map ids to vectors"] * 30
    rows = tokenize.vocab_sweep(texts, texts[:5], [260, 300], d=8)
    assert rows[1]["tokens"] <= rows[0]["tokens"]
    assert rows[1]["embedding_params"] == rows[1]["vocab"] * 8


def test_greedy_pieces_without_whole_word():
    vocab = {"play": 0, "##ing": 1, "playing": 2, "p": 3, "##l": 4}
    assert tokenize._greedy_pieces_without("playing", vocab) == ["play", "##ing"]
    assert tokenize._greedy_pieces_without("xyz", vocab) is None
