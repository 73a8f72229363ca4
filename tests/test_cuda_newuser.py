"""CUDA paths of the new-user review's fixes (REVIEW.md §3): devices named through device.pick, and the
rescaled norms on a GPU tensor. Run by the lead on a GPU machine."""

from __future__ import annotations

import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


def test_cuda_device_paths_run():
    from embedbook import dynamics, quantize, sizing, timing
    assert timing.measure(lambda: torch.ones(4, device="cuda").sum(), reps=2, device="cuda").reps == 2
    timing.synchronize("cuda:0")
    assert sizing.measured_bytes(10, 4, "fp32", "cuda") == 160
    drift = dynamics.absent_row_drift("sgd", steps=2, device="cuda")
    assert drift.absent_rows_moved == 0
    q = quantize.quantize(torch.randn(4, 8)).to("cuda")
    assert q.codes.device.type == "cuda" and q.scales.device.type == "cuda"


def test_cuda_index_out_of_range_is_a_clear_error():
    from embedbook import timing
    with pytest.raises(RuntimeError, match="CUDA device"):
        timing.synchronize(f"cuda:{torch.cuda.device_count()}")


def test_cuda_rescaled_norms():
    from embedbook import quantize, stats
    u = stats.unit_rows(torch.tensor([[1e20, 1e20], [1e-30, -1e-30]], device="cuda"))
    assert u.device.type == "cuda" and torch.allclose(u.norm(dim=1), torch.ones(2, device="cuda"))
    a = torch.full((2, 2), 3e38, device="cuda")
    assert quantize.relative_error(a, a * 0.5) == pytest.approx(0.5)
