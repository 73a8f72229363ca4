"""embedbook.dynamics on a GPU: rows touched and moved, optimizer drift, per-position losses."""

import pytest
import torch
from torch import nn

from embedbook import dynamics, lm

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


def test_touched_and_moved_rows_on_cuda():
    emb = nn.Embedding(10, 4).cuda()
    emb(torch.tensor([[2, 5, 5, 7]], device="cuda")).pow(2).sum().backward()
    mask = dynamics.touched_rows(emb.weight)
    assert mask.device.type == "cuda" and mask.nonzero().flatten().tolist() == [2, 5, 7]
    before = emb.weight.detach().clone()
    torch.optim.Adam(emb.parameters(), lr=0.1).step()
    assert dynamics.moved_rows(before, emb.weight).tolist() == mask.tolist()  # first Adam step: gradient rows only


def test_absent_row_drift_on_cuda_matches_the_rule():
    adam = dynamics.absent_row_drift("adam", steps=3, device="cuda")
    sgd = dynamics.absent_row_drift("sgd", steps=3, device="cuda")
    assert adam.absent_rows_moved == adam.absent_rows and sgd.absent_rows_moved == 0


def test_one_step_rows_and_position_losses_on_cuda():
    torch.manual_seed(0)
    model = lm.TinyLM(lm.LMConfig(50, d_model=8, n_layers=1, n_heads=2, context=6, tie=False, dropout=0.0)).cuda()
    batch = torch.tensor([[1, 2, 3, 4, 5, 6, 7]], device="cuda")
    rows = dynamics.one_step_rows(model, batch)
    assert rows.touched == rows.in_batch == 6
    losses, inputs = dynamics.position_losses(model, torch.arange(40) % 50, 6)
    assert losses.device.type == "cpu" and torch.isfinite(losses).all() and len(inputs) == len(losses)
    dist = dynamics.distance_from_init(model.embed.weight.detach().clone(), model.embed.weight)
    assert dist.device.type == "cuda" and float(dist.max()) == 0.0
