import json
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from embedbook import lookup, quantize
from embedbook.book import cli


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
        (torch.tensor([50]), IndexError, "token id 50 is out of range for a vocabulary of 50 rows"),
        (torch.tensor([3, 2**40], dtype=torch.int64), IndexError, "token id 1099511627776 is out of range"),
        (torch.tensor([[1, -1]], dtype=torch.int32), IndexError, "negative token id -1"),
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
        lookup.Lookup(table)(ids)  # on the CPU the kernel checks the range; the message is still ours
    if isinstance(ids, torch.Tensor) and ids.numel():
        with pytest.raises(err, match=msg):
            lookup.Lookup(table)(ids, out=torch.empty(*ids.shape, 8))


@pytest.mark.parametrize("bad, err, msg", [(torch.zeros(3), ValueError, "2-D"), (torch.zeros(3, 0), ValueError, "at least"),
                                           (torch.zeros(3, 2, dtype=torch.long), TypeError, "floats"),
                                           ("table", TypeError, "got a str")])
def test_bad_tables_get_clear_errors(bad, err, msg):
    for fn in (lookup.gather, lookup.one_hot_matmul, lookup.linear_lookup):
        with pytest.raises(err, match=msg):
            fn(torch.tensor([0]), bad)
    with pytest.raises(err, match=msg):
        lookup.Lookup(bad)


def test_a_numpy_table_is_named_with_the_fix():
    """Issue 18: gather(ids, numpy_table) said "must be a 2-D tensor" for a 2-D array. Like the ids (a list is refused
    with "wrap it with torch.tensor"), a table must be a tensor, and the message names the type and the conversion."""
    table = np.zeros((5, 3), dtype=np.float32)
    for fn in (lookup.gather, lookup.one_hot_matmul, lookup.linear_lookup, lambda i, t: lookup.Lookup(t)(i)):
        with pytest.raises(TypeError, match=r"got a ndarray; convert it with torch\.from_numpy\(table\)"):
            fn(torch.tensor([0]), table)


def test_one_hot_size_is_checked_before_allocating():
    """Issue 18: one_hot_matmul with 200,000 ids × 50,000 rows reached the allocator (80 GB)."""
    table, ids = torch.zeros(50_000, 1), torch.zeros(200_000, dtype=torch.long)
    for fn in (lookup.one_hot_matmul, lookup.linear_lookup):
        with pytest.raises(ValueError, match=r"200,000 ids × 50,000 rows needs 74\.5 GiB.*gather\(ids, table\).*fewer ids"):
            fn(ids, table)
    assert torch.equal(lookup.gather(ids, table), table[ids])  # the fix the message names works


def test_lookup_returns_a_fresh_tensor_by_default(table):
    """Issue 18: the result was a buffer the next call overwrote. Now each call returns new memory."""
    lk = lookup.Lookup(table)
    first = lk(torch.tensor([1, 2, 3]))
    second = lk(torch.tensor([4, 5, 6]))
    assert torch.equal(first, table[[1, 2, 3]]) and torch.equal(second, table[[4, 5, 6]])
    assert first.data_ptr() != second.data_ptr()


def test_lookup_with_out_writes_into_the_buffer_given(table):
    lk = lookup.Lookup(table)
    buf = torch.empty(2, 3, 8)
    ids = torch.tensor([[0, 3, 49], [3, 3, 1]])
    got = lk(ids, out=buf)
    assert got is buf and torch.equal(buf, table[ids])
    again = lk(torch.tensor([[1, 1, 1], [2, 2, 2]]), out=buf)
    assert again.data_ptr() == got.data_ptr() and torch.equal(buf[1], table[[2, 2, 2]])  # the same memory, reused


@pytest.mark.parametrize("out, err, msg", [
    (np.zeros((3, 8), dtype=np.float32), TypeError, "torch.Tensor"),
    (torch.empty(4, 8), ValueError, r"shape \(3, 8\)"),
    (torch.empty(3, 8, dtype=torch.float64), ValueError, "float32"),
    (torch.empty(8, 3).T, ValueError, "non-contiguous"),
])
def test_lookup_refuses_an_out_that_does_not_fit(table, out, err, msg):
    with pytest.raises(err, match=msg):
        lookup.Lookup(table)(torch.tensor([1, 2, 3]), out=out)


def test_lookup_on_a_table_that_requires_grad(table):
    """Finding 14: Lookup(table_requiring_grad)(ids) used to fail inside index_select(out=...)."""
    t = table.clone().requires_grad_()
    out = lookup.Lookup(t)(torch.tensor([1, 1, 2]))
    out.sum().backward()
    assert t.grad[1].eq(2).all() and t.grad[0].eq(0).all()
    with torch.no_grad():
        assert torch.equal(lookup.Lookup(t)(torch.tensor([3])), table[[3]])
        assert torch.equal(lookup.Lookup(t)(torch.tensor([3]), out=torch.empty(1, 8)), table[[3]])
    with pytest.raises(RuntimeError, match="no_grad"):
        lookup.Lookup(t)(torch.tensor([3]), out=torch.empty(1, 8))


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


def test_speed_ratios_report_every_contender_with_exact_rows():
    rs = quantize.speed_ratios((64, 256), d=16, vocab_size=300, reps=1, device="cpu")
    assert [r.n_tokens for r in rs] == [64, 256]
    for r in rs:
        assert r.device == "cpu" and r.threads == 1 and r.dim == 16 and r.fp32_ms > 0
        assert set(r.ratios) == set(quantize.SPEED_NAMES) and all(v > 0 for v in r.ratios.values())
    for bad in ({"sizes": ()}, {"sizes": (0,)}, {"d": 15}, {"reps": 0}):
        with pytest.raises(ValueError):
            quantize.speed_ratios(**{"sizes": (8,), "d": 4, "vocab_size": 10, "reps": 1, **bad})


def test_bench_reports_the_ratios_at_each_size(capsys):
    argv = ["bench", "--sizes", "32", "128", "--tokens", "256", "--dim", "8", "--vocab", "100", "--reps", "1",
            "--device", "cpu"]
    assert cli.main([*argv, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["plain_fraction"] > 0 and [s["n_tokens"] for s in r["speed"]] == [32, 128]
    assert all(set(s["ratios"]) == set(quantize.SPEED_NAMES) and s["threads"] == 1 for s in r["speed"])
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    for words in (*quantize.SPEED_NAMES.values(), "F.embedding, fp32 (ms)", "memory copy", "Lookup, out="):
        assert words in text
    assert len(re.findall(r"\d\.\d\d×", text)) == len(quantize.SPEED_NAMES) * 2  # a ratio per contender and size
    assert cli.main([*argv, "--bandwidth-only", "--json"]) == 0
    assert "speed" not in json.loads(capsys.readouterr().out)  # what chapter 02's huge-pages run reads


def test_vocab_parallel_lookup_without_a_main_guard_says_so(tmp_path):
    """Issue 18: a script calling vocab_parallel_lookup without `if __name__ == "__main__":` gave a 145-line
    multiprocessing traceback."""
    script = tmp_path / "no_guard.py"
    script.write_text("import torch\nfrom embedbook import lookup\n"
                      "lookup.vocab_parallel_lookup(torch.tensor([1, 2]), torch.randn(10, 4))\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode != 0
    assert 'if __name__ == "__main__":' in run.stderr and "RuntimeError" in run.stderr
    assert len(run.stderr.splitlines()) < 20 and "bootstrapping" not in run.stderr


def test_vocab_parallel_equals_single_process(table):
    ids = torch.randint(0, 50, (3, 7), generator=torch.Generator().manual_seed(1))
    assert torch.equal(lookup.vocab_parallel_lookup(ids, table, world_size=2), table[ids])
    with pytest.raises(ValueError, match="world_size"):
        lookup.vocab_parallel_lookup(ids, table, world_size=0)


# --- cold review (issue 18, part 3 follow-up) -----------------------------------------------------


def test_lookup_refuses_an_out_that_overlaps_the_table():
    """Finding 1: out=T[:2] gave torch's 'refer to a single memory location' error."""
    table = torch.randn(5, 3)
    for out in (table[:2], table[3:5]):
        with pytest.raises(ValueError, match="shares memory with the table"):
            lookup.Lookup(table)(torch.tensor([1, 2]), out=out)
    other = torch.randn(7, 3)  # a slice of another tensor is fine
    assert torch.equal(lookup.Lookup(table)(torch.tensor([1, 2]), out=other[:2]), table[[1, 2]])


def test_speed_ratios_take_one_int_size_and_refuse_other_types():
    """Finding 2: sizes=512 gave "'int' object is not iterable"."""
    (r,) = quantize.speed_ratios(8, d=4, vocab_size=10, reps=1, device="cpu")
    assert r.n_tokens == 8
    with pytest.raises(TypeError, match="sizes must be a batch size"):
        quantize.speed_ratios("512", d=4, vocab_size=10, reps=1, device="cpu")


def test_speed_ratios_are_the_median_of_per_round_ratios(monkeypatch):
    """Finding 17: a ratio of best times lets one lucky call decide; the median of each round's ratio does not.
    In round 1 the reference alone runs 10× faster than in the other rounds (a lucky call)."""
    from embedbook import timing
    asked = []

    def fake(fns, *, reps, **_):
        asked.append(reps)
        times = {"fp32": (1.0, 10.0, 10.0)}
        return {k: timing.Timing(min(t), sorted(t)[1], t) for k, t in
                ((k, times.get(k, (5.0, 10.0, 10.0))) for k in fns)}

    monkeypatch.setattr(timing, "interleaved", fake)
    rs = quantize.speed_ratios((8, 8192, 65536, 131072), d=4, vocab_size=10, reps=3, device="cpu")
    assert rs[0].ratios["lookup"] == pytest.approx(1.0)  # the ratio of best times would be 0.2
    assert rs[0].fp32_ms == pytest.approx(10.0e3) and rs[0].rounds == 3
    assert asked == [30, 24, 3, 3]  # small batches get more rounds (8 × reps at 8,192 tokens), at most 10 × reps


def test_bandwidth_notes_a_table_that_fits_in_cache():
    """Finding 16: a tiny table made Lookup out= pass the copy (111-131 %) without a note."""
    cpu, mib = torch.device("cpu"), 2**20
    assert "table is 0.39 MiB" in lookup._cache_note(cpu, 16 * mib, 100 * 1024 * 4)
    assert "buffer is" not in lookup._cache_note(cpu, 16 * mib, 100 * 1024 * 4)
    assert "buffer is 1.0 MiB" in lookup._cache_note(cpu, mib, 16 * mib)
    assert lookup._cache_note(cpu, 16 * mib, 16 * mib) == "" == lookup._cache_note(torch.device("cuda"), 1, 1)
    r = lookup.bandwidth(n_tokens=64, d=8, vocab_size=100, reps=1, device="cpu")  # the note reaches the result
    assert "table is 0.00 MiB" in r.note and "buffer is 0.0 MiB" in r.note


def test_bench_names_dim_when_it_is_odd(capsys):
    """Finding 14: `embedbook bench --dim 7` said 'd must be even'."""
    assert cli.main(["bench", "--dim", "7", "--sizes", "8", "--tokens", "8", "--vocab", "10", "--reps", "1",
                     "--device", "cpu"]) == 2
    assert "--dim must be even" in capsys.readouterr().err
