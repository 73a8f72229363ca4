"""embedbook.quantize on a GPU: every function works on the device its inputs live on, and the CUDA path gives
exactly the numbers of the CPU path (the fused FBGEMM kernels there, plain gathers and multiplies of the same
stored layout here). Skipped where CUDA is absent."""

import pytest
import torch

from embedbook import quantize as Q

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


@pytest.fixture
def table():
    return torch.randn(1000, 64, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("bits,scheme", [(8, "row"), (8, "tensor"), (4, "row"), (4, "tensor")])
def test_quantize_on_cuda_equals_cpu(table, bits, scheme):
    cpu, gpu = Q.quantize(table, bits, scheme), Q.quantize(table.cuda(), bits, scheme)
    assert gpu.codes.is_cuda and gpu.scales.is_cuda and gpu.device.type == "cuda"
    assert torch.equal(gpu.codes.cpu(), cpu.codes) and torch.equal(gpu.scales.cpu(), cpu.scales)
    back = Q.dequantize(gpu)
    assert back.is_cuda and torch.equal(back.cpu(), Q.dequantize(cpu))
    assert torch.equal(Q.roundtrip(table.cuda(), bits, scheme).cpu(), Q.roundtrip(table, bits, scheme))
    assert gpu.nbytes == cpu.nbytes
    assert torch.equal(Q.dequantize(cpu.to("cuda")).cpu(), Q.dequantize(cpu))


def test_half_precision_table_on_cuda(table):
    assert torch.equal(Q.quantize(table.cuda().half(), 8).codes.cpu(), Q.quantize(table.half(), 8).codes)


def test_nan_on_cuda_raises(table):
    bad = table.cuda()
    bad[17, 3] = float("nan")
    with pytest.raises(ValueError, match="row 17"):
        Q.quantize(bad)


def test_the_issue_snippet_runs():
    """issue 11: QuantizedEmbedding.from_float(torch.randn(30522, 384, device="cuda"), bits=8)(ids_on_cuda)."""
    weight = torch.randn(30522, 384, device="cuda", generator=torch.Generator("cuda").manual_seed(0))
    emb = Q.QuantizedEmbedding.from_float(weight, bits=8)
    ids = torch.randint(0, 30522, (4, 128), device="cuda")
    out = emb(ids)
    assert out.is_cuda and out.shape == (4, 128, 384) and out.dtype == torch.float32
    assert emb.fused  # one layout on every device: the kernel's, read with plain tensor operations on a GPU
    cpu = Q.QuantizedEmbedding.from_float(weight.cpu(), bits=8)  # fused kernel on the CPU
    assert cpu.fused
    assert torch.equal(out.cpu(), cpu(ids.cpu()))


@pytest.mark.parametrize("bits", [8, 4])
def test_state_dicts_move_between_cpu_and_gpu(table, bits):
    """Issue 18: a CPU-built module's state dict did not load into a GPU-built one ("Missing key(s)")."""
    ids = torch.randint(0, 1000, (300,), generator=torch.Generator().manual_seed(4))
    cpu = Q.QuantizedEmbedding.from_float(table, bits)
    gpu = Q.QuantizedEmbedding.from_float(torch.randn(1000, 64, device="cuda"), bits)
    gpu.load_state_dict(cpu.state_dict())
    assert torch.equal(gpu(ids.cuda()).cpu(), cpu(ids))
    back = Q.QuantizedEmbedding.from_float(torch.randn(1000, 64), bits, fused=False)
    back.load_state_dict(gpu.state_dict())
    assert torch.equal(back(ids), cpu(ids))
    assert gpu.half()(ids.cuda()).dtype == torch.float16


@pytest.mark.parametrize("bits,scheme", [(8, "row"), (8, "tensor"), (4, "row"), (4, "tensor")])
def test_cuda_module_equals_cpu_module(table, bits, scheme):
    ids = torch.randint(0, 1000, (3, 50), generator=torch.Generator().manual_seed(1))
    on_cpu = Q.QuantizedEmbedding.from_float(table, bits, scheme)
    on_gpu = Q.QuantizedEmbedding.from_float(table.cuda(), bits, scheme)
    assert torch.equal(on_gpu(ids.cuda()).cpu(), on_cpu(ids))
    for dtype in (torch.int32, torch.int16, torch.uint8):
        small = ids.clamp(max=255).to(dtype)
        assert torch.equal(on_gpu(small.cuda()).cpu(), on_cpu(small))


def test_cpu_fused_module_moved_to_cuda(table):
    ids = torch.randint(0, 1000, (256,), generator=torch.Generator().manual_seed(2))
    emb = Q.QuantizedEmbedding.from_float(table, 8)
    assert emb.fused
    expected = emb(ids)
    emb = emb.to("cuda")  # the fused layout travels; on the GPU it is read with plain tensor operations
    out = emb(ids.cuda())
    assert out.is_cuda and torch.equal(out.cpu(), expected)
    assert emb.table.device.type == "cuda" and emb.nbytes == 1000 * (64 + 8)
    back = emb.to("cpu")
    assert torch.equal(back(ids), expected)


def test_cuda_module_bad_ids(table):
    emb = Q.QuantizedEmbedding.from_float(table.cuda(), 8)
    with pytest.raises(ValueError, match="cuda"):
        emb(torch.tensor([1, 2]))  # ids on the CPU, table on the GPU
    with pytest.raises(ValueError, match="empty"):
        emb(torch.tensor([], dtype=torch.long, device="cuda"))
    with pytest.raises(IndexError):
        emb(torch.tensor([1000], device="cuda"))
    with pytest.raises(TypeError):
        emb(torch.tensor([1.0], device="cuda"))


def test_relative_error_and_fake_quantized_on_cuda(table):
    gpu = table.cuda()
    assert Q.relative_error(gpu, Q.roundtrip(gpu, 4)) == pytest.approx(Q.relative_error(table, Q.roundtrip(table, 4)))
    with pytest.raises(ValueError, match="move one"):
        Q.relative_error(gpu, table)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.word = torch.nn.Embedding.from_pretrained(table.clone(), freeze=False)

        def get_input_embeddings(self):
            return self.word

    model = Model().cuda()
    with Q.fake_quantized(model, "embedding", 8) as n:
        assert n == table.numel()
        assert torch.equal(model.word.weight.cpu(), Q.roundtrip(table, 8))
    assert torch.equal(model.word.weight.cpu(), table)


def test_chapter_experiments_on_cuda(table):
    from embedbook.chapters.ch13_quantize import measure as ch13

    mem = ch13.run_memory({"t": table}, vocab=256, dim=4096, widths=(64, 4096), device="cuda")
    assert mem.int8_ratio == pytest.approx(4 * 4096 / 4100)
    speed = ch13.run_throughput(table, n_ids=4096, reps=2, device="cuda")
    assert speed.device == "cuda" and speed.int8_exact == 1 and speed.int8_fused == 0
