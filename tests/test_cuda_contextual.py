"""embedbook.contextual on a GPU: every function runs where the model lives and agrees with the CPU.

Skipped where CUDA is absent. The CPU and CUDA models are two objects (``load_encoder`` caches by device).
Tolerances allow for the GPU's kernels (SDPA, reduction order), not for a different computation.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from embedbook import contextual as cx, data
from embedbook.book import claims

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

SENTENCES = ["the apple was sweet and juicy", "the apple store in the mall sells laptops and phones", "dogs bark"]


@pytest.fixture(scope="module")
def cpu():
    return data.load_encoder("minilm", device="cpu")


@pytest.fixture(scope="module")
def gpu():
    tok, model = data.load_encoder("minilm", device="cuda")
    assert next(model.parameters()).is_cuda
    return tok, model


def test_word_states_on_cuda_match_cpu(cpu, gpu):
    words = [s.split() for s in SENTENCES]
    a = cx.word_states(words, *cpu)
    b = cx.word_states(words, *gpu)
    for x, y in zip(a, b):
        assert isinstance(y, np.ndarray) and y.dtype == np.float32
        np.testing.assert_allclose(y, x, atol=2e-3, rtol=1e-3)


def test_sentence_vectors_stay_on_the_device(cpu, gpu):
    v = cx.sentence_vectors(*gpu, SENTENCES)
    assert v.is_cuda and v.shape == (3, 384)
    assert torch.allclose(v.norm(dim=1), torch.ones(3, device="cuda"), atol=1e-4)
    assert torch.allclose(v.cpu(), cx.sentence_vectors(*cpu, SENTENCES), atol=2e-3)


def test_layer0_rebuilt_on_cuda(gpu):
    tok, model = gpu
    tokens, att = cx.model_attentions(tok, model, SENTENCES[0])
    mine = cx.layer0_qkv(tok, model, SENTENCES[0])
    assert att.is_cuda and mine.probs.is_cuda and mine.X.is_cuda
    assert torch.allclose(mine.probs, att[0], atol=1e-4)
    plain = cx.layer0_qkv(tok, model, SENTENCES[0], article_form=True)
    assert not torch.allclose(plain.probs, att[0], atol=1e-3)
    assert model.config._attn_implementation != "eager"  # restored


def test_flop_count_is_the_same_on_cuda(cpu, gpu):
    assert cx.count_forward_flops(*gpu, SENTENCES) == cx.count_forward_flops(*cpu, SENTENCES)


def test_sense_study_and_swaps_on_cuda(gpu):
    from embedbook.chapters.ch11_contextual.measure import COMPANY, FRUIT
    from embedbook.chapters.ch12_qkv.measure import PARAPHRASES

    tok, model = gpu
    s = cx.sense_study(tok, model, FRUIT[:3], COMPANY[:3])
    assert s.lookup_max_diff == 0.0 and s.lookup_accuracy == 0.5
    for kind in ("shuffled", "random"):
        clone = cx.with_table(model, kind)
        assert clone.get_input_embeddings().weight.is_cuda
        assert cx.paraphrase_accuracy(tok, clone, PARAPHRASES[:4]) >= 0.0
    p = torch.softmax(torch.randn(2, 3, 3, device="cuda"), -1)
    assert cx.attention_shift(p, p) == 0.0


def test_chapter_checks_reach_the_cpu_verdicts_on_cuda(cpu, gpu):
    from embedbook.chapters.ch11_contextual import measure as ch11
    from embedbook.chapters.ch12_qkv import measure as ch12

    senses = ch11.run_senses(*gpu)
    assert claims.run("C10", senses).verdict == claims.run("C10", ch11.run_senses(*cpu)).verdict == claims.CONFIRMED
    cost = ch11.run_cost(*gpu, senses, copies=1, reps=2)
    assert cost.flops_per_token == ch11.run_cost(*cpu, ch11.run_senses(*cpu), copies=1, reps=1).flops_per_token
    assert claims.run("C24", ch12.run_qkv(*gpu, ch12.SENTENCE)).verdict == claims.CORRECTED
    ctx = ch11.run_contextuality(*gpu, n_lee=40, n_wiki=0, n_random=200, boot=200)
    ref = ch11.run_contextuality(*cpu, n_lee=40, n_wiki=0, n_random=200, boot=200)
    assert ctx.n_words == ref.n_words
    np.testing.assert_allclose(ctx.released_adj, ref.released_adj, atol=5e-3)
    np.testing.assert_allclose(ctx.matched_adj, ref.matched_adj, atol=5e-3)
    assert claims.run("C11", ctx).verdict == claims.run("C11", ref).verdict
    cpu_senses = ch11.run_senses(*cpu)
    assert abs(senses.acc_context_bag - cpu_senses.acc_context_bag) <= 1 / 80  # float sums may break one tie
    assert claims.run("C46", cost).verdict == claims.run("C46", ch11.run_cost(*cpu, cpu_senses, copies=1, reps=1)).verdict
