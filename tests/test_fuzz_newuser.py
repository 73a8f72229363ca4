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
