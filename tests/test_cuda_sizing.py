"""The sizing functions on a GPU: bytes of real CUDA tensors, and parameter counts of a model on the GPU."""

import pytest
import torch

from embedbook import lm, sizing

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


def test_measured_bytes_on_cuda():
    for name in ["fp32", "fp16", "bf16", "int8", "int4"]:
        assert sizing.measured_bytes(1000, 64, name, device="cuda") == sizing.formula_bytes(1000 * 64, name)
    with pytest.raises(ValueError, match="meta"):
        sizing.measured_bytes(10**7, 10**5, "fp32", device="cuda")


def test_count_parameters_on_cuda():
    model = lm.TinyLM(lm.LMConfig(1000, 64)).to("cuda")
    c = sizing.count_parameters(model)
    assert c.tables == {"pos": 64 * 64, "embed": 1000 * 64} and c.tied_heads == ("head",)
    assert c.total == model.num_params("all")


def test_piece_vectors_agree_on_cpu_and_cuda():
    from embedbook import data
    from embedbook.chapters.ch01_tokens import measure as ch01

    words = data.top_words(3000, "en")
    tok, cpu_model = data.load_encoder(device="cpu")
    on_cpu = ch01.run_assembled(tok, cpu_model, words, n_words=40)
    tok, gpu_model = data.load_encoder(device="cuda")
    on_gpu = ch01.run_assembled(tok, gpu_model, words, n_words=40)
    assert on_gpu.n_words == on_cpu.n_words
    assert abs(on_gpu.mean_cos - on_cpu.mean_cos) < 1e-3 and abs(on_gpu.top10 - on_cpu.top10) <= 1 / 40
