import pytest
import torch

from embedbook import lookup


@pytest.fixture
def table():
    return torch.randn(50, 8, generator=torch.Generator().manual_seed(0))


def test_three_views_agree(table):
    ids = torch.tensor([[0, 3, 49], [3, 3, 1]])
    a = lookup.gather(ids, table)
    assert torch.equal(a, lookup.one_hot_matmul(ids, table))
    assert torch.equal(a, lookup.linear_lookup(ids, table))
    assert a.shape == (2, 3, 8)


@pytest.mark.parametrize(
    "ids, err, msg",
    [
        (torch.tensor([50]), IndexError, "out of range"),
        (torch.tensor([-1]), IndexError, "negative"),
        (torch.tensor([1.0]), TypeError, "integers"),
        (torch.tensor([], dtype=torch.long), ValueError, "empty"),
        ([1, 2], TypeError, "torch.Tensor"),
    ],
)
def test_bad_ids_get_clear_errors(table, ids, err, msg):
    with pytest.raises(err, match=msg):
        lookup.gather(ids, table)
    with pytest.raises(err, match=msg):
        lookup.Lookup(table)(ids)


def test_lookup_reuses_its_buffer(table):
    lk = lookup.Lookup(table)
    first = lk(torch.tensor([1, 2, 3]))
    assert torch.equal(first, table[[1, 2, 3]])
    second = lk(torch.tensor([[4, 5]]))
    assert second.shape == (1, 2, 8) and torch.equal(second[0], table[[4, 5]])
    assert second.data_ptr() == first.data_ptr()  # same memory: no new allocation


def test_one_hot_bytes():
    assert lookup.one_hot_bytes(10, 100) == 4000
    with pytest.raises(ValueError):
        lookup.one_hot_bytes(0, 100)


def test_scaling_exponent():
    assert lookup.scaling_exponent([1, 10, 100], [2, 20, 200]) == pytest.approx(1.0)
    assert lookup.scaling_exponent([1, 10, 100], [5, 5, 5]) == pytest.approx(0.0, abs=1e-9)


def test_bandwidth_reports_fractions():
    r = lookup.bandwidth(n_tokens=1024, d=64, vocab_size=1000, reps=1, device="cpu")
    assert r["copy_gbps"] > 0 and r["plain_fraction"] > 0 and r["ours_fraction"] > 0


def test_vocab_parallel_equals_single_process(table):
    ids = torch.randint(0, 50, (3, 7), generator=torch.Generator().manual_seed(1))
    assert torch.equal(lookup.vocab_parallel_lookup(ids, table, world_size=2), table[ids])
    with pytest.raises(ValueError, match="world_size"):
        lookup.vocab_parallel_lookup(ids, table, world_size=0)
