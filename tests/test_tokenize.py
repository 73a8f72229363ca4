import pytest

from embedbook import data, tokenize


def test_gpt2_roundtrip_and_bytes():
    s = tokenize.gpt2_split("苹果")
    assert len(s.ids) >= 2  # two characters, six UTF-8 bytes: more than one token
    pieces = tokenize.gpt2_split(" embeddings").pieces
    assert len(pieces) >= 2 and "".join(pieces) == " embeddings"
    assert s.spans[0][0] == 0 and s.spans[-1][1] == len("苹果".encode()) and s.unknown == 0


def test_spans_cover_the_bytes_in_order():
    for name in tokenize.TOKENIZERS:
        s = tokenize.split("tokens 不是 words", name)
        assert all(a < b for a, b in s.spans) and all(s.spans[i][1] <= s.spans[i + 1][0] for i in range(len(s.spans) - 1))


def test_wordpiece_split():
    s = tokenize.wordpiece_split("embeddings")
    assert s.pieces == ["em", "##bed", "##ding", "##s"] and s.unknown == 0
    assert tokenize.wordpiece_split("🙂").unknown == 1


def test_multilingual_bpe_knows_chinese_characters():
    s = tokenize.multilingual_split("中国")
    assert data.gpt2_encoding().n_vocab == 50257 and tokenize.multilingual_encoding().n_vocab == 50258
    assert len(s.ids) < len(tokenize.gpt2_split("中国").ids)


def test_character_cuts():
    cuts = tokenize.character_cuts(tokenize.gpt2_split("苹果 a"), keep=tokenize.is_cjk)
    assert cuts.total == 2 and cuts.split >= 1
    wp = tokenize.character_cuts(tokenize.wordpiece_split("公司"), keep=tokenize.is_cjk)
    assert wp.single == 2 and wp.share("single") == 1.0
    merged = tokenize.character_cuts(tokenize.gpt2_split(" the"))
    assert merged.merged == 4  # the space and three letters share one token
    with pytest.raises(TypeError):
        tokenize.character_cuts("text")
    with pytest.raises(ValueError, match="unknown kind"):
        wp.share("odd")


def test_is_cjk():
    assert tokenize.is_cjk("果") and not tokenize.is_cjk("a") and not tokenize.is_cjk("。")
    with pytest.raises(ValueError, match="exactly one character"):  # cold review 8: was a silent False
        tokenize.is_cjk("果果")


def test_split_names():
    assert tokenize.split("hi", "gpt2").ids == tokenize.gpt2_split("hi").ids
    with pytest.raises(ValueError, match="unknown tokenizer"):
        tokenize.split("hi", "sentencepiece")


def test_empty_text_rejected():
    with pytest.raises(ValueError, match="empty"):
        tokenize.gpt2_split("")
    with pytest.raises(TypeError):
        tokenize.wordpiece_split(3)
    with pytest.raises(ValueError, match="empty"):
        tokenize.multilingual_split("")


def test_train_bpe_is_deterministic_and_validated():
    texts = ["the cat sat on the mat"] * 50 + ["a dog ate the hat"] * 50
    a, b = tokenize.train_bpe(texts, 300), tokenize.train_bpe(texts, 300)
    assert a.get_vocab() == b.get_vocab()
    assert a.decode(a.encode("the cat").ids) == "the cat"
    with pytest.raises(ValueError, match="vocab_size"):
        tokenize.train_bpe(texts, 100)
    with pytest.raises(ValueError, match="empty"):
        tokenize.train_bpe([], 300)
    with pytest.raises(TypeError, match="list of strings"):
        tokenize.train_bpe("the cat", 300)


def test_bigger_vocab_fewer_tokens():
    texts = ["the quick brown fox jumps over the lazy dog"] * 30 + ["embedding tables map ids to vectors"] * 30
    small, big = tokenize.train_bpe(texts, 260), tokenize.train_bpe(texts, 300)
    assert tokenize.count_tokens(big, texts[:5]) <= tokenize.count_tokens(small, texts[:5])
    assert tokenize.tokens_per_char(big, texts[:5]) == tokenize.count_tokens(big, texts[:5]) / sum(map(len, texts[:5]))
    with pytest.raises(TypeError, match="tokenizers.Tokenizer"):
        tokenize.count_tokens(object(), texts)


def test_wordpiece_greedy():
    vocab = {"play": 0, "##ing": 1, "playing": 2, "p": 3, "##l": 4}
    assert tokenize.wordpiece_greedy("playing", vocab) == ["playing"]
    assert tokenize.wordpiece_greedy("playing", vocab, exclude_whole=True) == ["play", "##ing"]
    assert tokenize.wordpiece_greedy("xyz", vocab) is None
    with pytest.raises(ValueError, match="one non-empty word"):
        tokenize.wordpiece_greedy("two words", vocab)


def test_wordpiece_greedy_matches_the_real_tokenizer():
    vocab = data.minilm_tokenizer().get_vocab()
    for w in ["embeddings", "tokenization", "unhappiness", "photosynthesis", "the"]:
        assert tokenize.wordpiece_greedy(w, vocab) == tokenize.wordpiece_split(w).pieces


def test_partial_spearman_used_by_c34():
    """stats.partial_spearman (added for C34): a correlation that a shared cause explains vanishes."""
    import numpy as np

    from embedbook import stats

    rng = np.random.default_rng(0)
    z = rng.normal(size=3000)
    x, y = z + rng.normal(size=3000), z + rng.normal(size=3000)
    assert stats.spearman(x, y) > 0.3 and abs(stats.partial_spearman(x, y, [z])) < 0.05
    with pytest.raises(ValueError, match="at least one control"):
        stats.partial_spearman(x, y, [])
    with pytest.raises(ValueError, match="non-constant"):
        stats.partial_spearman(x, y, [np.ones(3000)])
    with pytest.raises(ValueError, match="entirely"):
        stats.partial_spearman(x, y, [x])


def test_wordpiece_pieces_of_one_hangul_syllable_share_its_span():
    s = tokenize.split("찰 가", "wordpiece")
    assert s.spans[:3] == [(0, 3)] * 3 and s.spans[3:] == [(4, 7)] * 2
    assert tokenize.character_cuts(s).split == 2  # each syllable counted once, as cut into pieces


def test_bpe_works_without_openai_whisper():
    """Issue 18: GPT-2's and Whisper's BPE needed a manual `pip install --no-deps openai-whisper`; the ranks now
    ship inside the package. A fresh process in which `whisper` cannot be found or imported."""
    import subprocess
    import sys

    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "whisper":
            raise ImportError("whisper blocked")
sys.meta_path.insert(0, Block())
from embedbook import tokenize
from embedbook.book import claims
print(tokenize.gpt2_split("hello world").ids, len(tokenize.multilingual_split("中国").ids))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("]")[0] + "]" == "[31373, 995]"  # GPT-2's published ids for "hello", " world"
