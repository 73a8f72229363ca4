"""embedbook.init on a GPU: schemes drawn on the table's own device, a CUDA generator, the padding row."""

import pytest
import torch
from torch import nn

from embedbook import init

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


@pytest.mark.parametrize("name", init.known())
def test_apply_on_cuda(name):
    emb = nn.Embedding(2000, 64, padding_idx=0).cuda()
    w = init.apply(emb, name, generator=torch.Generator(device="cuda").manual_seed(0))
    assert w.device.type == "cuda" and w is emb.weight
    assert torch.equal(w[0], torch.zeros(64, device="cuda"))
    assert w[1:].std().item() == pytest.approx(init.std_of(name, 2000, 64), rel=0.03)


def test_cpu_generator_for_a_cuda_table_is_refused():
    with pytest.raises(ValueError, match="torch.Generator\\(device='cuda'\\)"):
        init.apply(torch.empty(10, 4, device="cuda"), "normal_0.02", generator=torch.Generator())


def test_load_vectors_on_cuda():
    table = torch.zeros(3, 2, device="cuda")
    assert init.load_vectors(table, ["a", "b", "c"], {"b": [1.0, 2.0]}) == pytest.approx(1 / 3)
    assert table[1].tolist() == [1.0, 2.0] and table.device.type == "cuda"
