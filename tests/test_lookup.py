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


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_one_hot_paths_take_the_table_dtype(table, dtype):
    """Finding 14: linear_lookup(ids, table.half()) used to end in a raw dtype error."""
    ids = torch.tensor([1, 2, 3])
    t = table.to(dtype)
    assert torch.equal(lookup.linear_lookup(ids, t), t[ids]) and torch.equal(lookup.one_hot_matmul(ids, t), t[ids])


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


@pytest.mark.parametrize("bad, err", [(torch.zeros(3), ValueError), (torch.zeros(3, 0), ValueError),
                                      (torch.zeros(3, 2, dtype=torch.long), TypeError), ("table", ValueError)])
def test_bad_tables_get_clear_errors(bad, err):
    with pytest.raises(err):
        lookup.gather(torch.tensor([0]), bad)


def test_lookup_reuses_its_buffer_on_cpu(table):
    lk = lookup.Lookup(table)
    assert lk.path == "reused buffer"
    first = lk(torch.tensor([1, 2, 3]))
    assert torch.equal(first, table[[1, 2, 3]])
    second = lk(torch.tensor([[4, 5]]))
    assert second.shape == (1, 2, 8) and torch.equal(second[0], table[[4, 5]])
    assert second.data_ptr() == first.data_ptr()  # same memory: no new allocation


def test_lookup_on_a_table_that_requires_grad(table):
    """Finding 14: Lookup(table_requiring_grad)(ids) used to fail inside index_select(out=...)."""
    t = table.clone().requires_grad_()
    out = lookup.Lookup(t)(torch.tensor([1, 1, 2]))
    out.sum().backward()
    assert t.grad[1].eq(2).all() and t.grad[0].eq(0).all()
    with torch.no_grad():
        assert torch.equal(lookup.Lookup(t)(torch.tensor([3])), table[[3]])


def test_lookup_refuses_ids_on_another_device(table):
    if not torch.cuda.is_available():
        pytest.skip("needs a second device")
    with pytest.raises(ValueError, match="device"):
        lookup.Lookup(table)(torch.tensor([1]).cuda())


def test_one_hot_bytes():
    assert lookup.one_hot_bytes(10, 100) == 4000
    assert lookup.one_hot_bytes(10, 100, torch.float16) == 2000
    for bad in [(0, 100), (10, -1), (1.5, 10), (True, 10)]:
        with pytest.raises(ValueError):
            lookup.one_hot_bytes(*bad)
    assert lookup.one_hot_bytes(1, 1, "fp32") == lookup.one_hot_bytes(1, 1, "float32") == 4  # sizing.dtype_name
    with pytest.raises(TypeError, match="torch.dtype"):
        lookup.one_hot_bytes(1, 1, None)


def test_bandwidth_reports_fractions():
    r = lookup.bandwidth(n_tokens=1024, d=64, vocab_size=1000, reps=1, device="cpu")
    assert r.copy_gbps > 0 and r.plain_fraction > 0 and r.ours_fraction > 0 and r.device == "cpu"
    assert "cache" in r.note  # 256 KiB buffers stay in the caches: the result says so


@pytest.mark.parametrize("kwargs", [{"reps": 0}, {"d": 0}, {"vocab_size": 0}, {"n_tokens": -1}, {"reps": 1.5}])
def test_bandwidth_refuses_bad_sizes(kwargs):
    """Finding 6: reps=0 gave NaN, d=0 'copy 0.0 GB/s', vocab=0 a torch traceback."""
    with pytest.raises(ValueError, match="positive int"):
        lookup.bandwidth(**{"n_tokens": 256, "d": 8, "vocab_size": 100, "reps": 1, **kwargs})


def test_vocab_parallel_equals_single_process(table):
    ids = torch.randint(0, 50, (3, 7), generator=torch.Generator().manual_seed(1))
    assert torch.equal(lookup.vocab_parallel_lookup(ids, table, world_size=2), table[ids])
    with pytest.raises(ValueError, match="world_size"):
        lookup.vocab_parallel_lookup(ids, table, world_size=0)
