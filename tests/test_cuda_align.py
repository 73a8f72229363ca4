"""embedbook.align on a GPU: the Procrustes map of CUDA tensors stays on the GPU and equals the CPU one."""

import numpy as np
import pytest
import torch

from embedbook import align

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


def test_procrustes_on_cuda_matches_cpu():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(200, 50, generator=gen, dtype=torch.float64)
    q, _ = torch.linalg.qr(torch.randn(50, 50, generator=gen, dtype=torch.float64))
    y = x @ q
    w = align.procrustes(x.cuda(), y.cuda())
    assert w.device.type == "cuda"
    assert torch.allclose(w.cpu(), align.procrustes(x, y), atol=1e-8)
    assert torch.allclose(w.cpu(), q, atol=1e-8)


def test_prepare_on_cuda_stays_there():
    x = torch.randn(30, 8, device="cuda") + 3.0
    p = align.prepare(x)
    assert p.device.type == "cuda"
    assert np.allclose(p.cpu().numpy(), align.prepare(x.cpu().numpy()), atol=1e-5)


def test_procrustes_refuses_mixed_devices():
    with pytest.raises(ValueError, match="one device"):
        align.procrustes(torch.ones(3, 2, device="cuda"), torch.ones(3, 2))
