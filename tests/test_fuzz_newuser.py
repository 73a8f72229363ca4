"""Regression tests for the new-user review (REVIEW.md §3): every bad input to a library function gets a
clear exception that names the problem and the fix, and legitimate extreme inputs get the right answer."""

from __future__ import annotations

import importlib.util
import math
import os
import sys

import numpy as np
import pytest
import torch

from embedbook import data, stats

needs_tokenizers = pytest.mark.skipif(importlib.util.find_spec("tokenizers") is None, reason="needs tokenizers")


# --- finding 3, 13: tokenize ----------------------------------------------------------------------------

@needs_tokenizers
def test_train_bpe_huge_vocab_is_refused_not_a_process_kill():
    from embedbook import tokenize
    with pytest.raises(ValueError, match="above the limit"):
        tokenize.train_bpe(["the cat sat on the mat"] * 5, 10**9)


@needs_tokenizers
def test_train_bpe_large_request_on_small_corpus_stops_short_cheaply():
    from embedbook import tokenize
    tok = tokenize.train_bpe(["the cat sat on the mat"] * 5, tokenize.MAX_BPE_VOCAB)
    assert 257 <= tok.get_vocab_size() < 300


@needs_tokenizers
@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_train_bpe_min_frequency_checked(bad):
    from embedbook import tokenize
    with pytest.raises(ValueError, match="min_frequency"):
        tokenize.train_bpe(["the cat sat on the mat"] * 3, 300, min_frequency=bad)


@needs_tokenizers
def test_train_bpe_and_count_tokens_refuse_lone_surrogate():
    from embedbook import tokenize
    with pytest.raises(ValueError, match="not valid Unicode"):
        tokenize.train_bpe(["a\ud800b"] * 3, 300)
    tok = tokenize.train_bpe(["the cat sat on the mat"] * 3, 300)
    with pytest.raises(ValueError, match="not valid Unicode"):
        tokenize.count_tokens(tok, ["a\ud800b"])


def test_count_tokens_refuses_a_tiktoken_like_encoding():
    from embedbook import tokenize

    class FakeEncoding:  # tiktoken.Encoding has encode_batch and n_vocab, no get_vocab_size
        n_vocab = 10

        def encode_batch(self, texts):
            return [[1] for _ in texts]

    with pytest.raises(TypeError, match="tiktoken"):
        tokenize.count_tokens(FakeEncoding(), ["abc"])


def test_split_of_blanks_has_infinite_chars_per_token():
    from embedbook import tokenize
    assert tokenize.Split("   ", [], [], []).chars_per_token == math.inf


# --- finding 4, 14: lm ----------------------------------------------------------------------------------

def _tiny_lm():
    from embedbook import lm
    torch.manual_seed(0)
    model = lm.TinyLM(lm.LMConfig(10, d_model=8, context=4, n_layers=1, n_heads=1))
    ids = torch.randint(0, 10, (200,))
    return lm, model, ids[:150], ids[150:]


@pytest.mark.parametrize("clip", [0, -1, 0.0, math.nan, math.inf, True, "1"])
def test_train_refuses_clip_that_is_not_a_positive_norm(clip):
    lm, model, tr, va = _tiny_lm()
    with pytest.raises(ValueError, match="clip must be"):
        lm.train(model, tr, va, steps=3, batch_size=4, eval_every=2, progress=False, clip=clip)


def test_train_eval_batches_names_its_own_argument():
    lm, model, tr, va = _tiny_lm()
    with pytest.raises(ValueError, match="eval_batches"):
        lm.train(model, tr, va, steps=3, batch_size=4, eval_every=2, progress=False, eval_batches=0)


def test_train_clip_none_and_positive_still_train():
    lm, model, tr, va = _tiny_lm()
    hist = lm.train(model, tr, va, steps=2, batch_size=4, eval_every=1, progress=False, clip=None)
    assert len(hist.val_loss) >= 2


def test_vocab_build_skips_literal_specials_and_decode_checks_ids():
    from embedbook import lm
    v = lm.Vocab.build([["<unk>", "<eol>", "x"]], 5)
    assert v.itos == ["<unk>", "<eol>", "x"] and v.stoi["x"] == 2 and v.stoi["<unk>"] == 0
    assert v.decode([2, 0]) == ["x", "<unk>"] and v.decode(torch.tensor([2])) == ["x"]
    with pytest.raises(ValueError, match="outside this vocabulary"):
        v.decode([999])
    with pytest.raises(ValueError, match="outside this vocabulary"):
        v.decode([-1])
    with pytest.raises(TypeError, match="integers"):
        v.decode([2.0])
    with pytest.raises(ValueError, match="duplicated"):
        lm.Vocab(["<unk>", "<eol>", "a", "a"], [0, 0, 1, 1])


def test_lr_at_refuses_negative_step_and_warmup():
    from embedbook import lm
    with pytest.raises(ValueError, match="step"):
        lm.lr_at(-1, 1e-3, 0)
    with pytest.raises(ValueError, match="warmup"):
        lm.lr_at(5, 1e-3, -3)
