"""Chapter 02's experiments (embedbook.chapters.ch02_lookup.measure): the cited surveys, rotary positions and
the summary headlines."""

import pytest
import torch

from embedbook import sizing
from embedbook.book import claims
from embedbook.chapters.ch02_lookup import measure as ch02


def test_headlines_cover_every_outcome():
    for cid, table in ch02.HEADLINES.items():
        rule = claims.rule_of(cid)
        assert set(table) == set(rule.outcomes), cid
        for outcome, figures in rule.examples.items():
            assert ch02.headline(claims.Verdict(cid, outcome, "", dict(figures)))


def test_every_configured_model_has_a_cited_position_scheme():
    names = {m.name for m in sizing.MODELS}
    rows = {s.model: s for s in ch02.POSITION_SCHEMES}
    assert names <= set(rows), sorted(names - set(rows))
    bib = open("book/references.bib", encoding="utf-8").read()
    for s in ch02.POSITION_SCHEMES:
        assert s.adds_vector == (s.scheme == "learned absolute"), s.model
        assert "{" + s.source + "," in bib, s.source
    for s in ch02.LOOKUP_SURVEY:
        assert "{" + s.source + "," in bib, s.source
        assert not s.one_hot_by_default or s.offers_one_hot, s.name


def test_rotary_depends_on_the_offset_only():
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 16, generator=gen, dtype=torch.float64)
    assert torch.allclose(ch02.rotary(q, 7) @ ch02.rotary(k, 3), ch02.rotary(q, 1007) @ ch02.rotary(k, 1003))
    assert not torch.allclose(ch02.rotary(q, 7) @ ch02.rotary(k, 3), ch02.rotary(q, 7) @ ch02.rotary(k, 6))
    assert torch.allclose(ch02.rotary(q, 0), q)
    assert torch.allclose(ch02.rotary(q, 5).norm(), q.norm())  # a rotation keeps the length
    many = ch02.rotary(torch.stack([q, q]), torch.tensor([0, 5]))  # a position per row
    assert torch.allclose(many[1], ch02.rotary(q, 5))
    with pytest.raises(ValueError, match="even width"):
        ch02.rotary(torch.randn(5), 1)


def test_one_hot_survey_counts():
    r = ch02.run_one_hot_memory(n_tokens=64, vocab=1000, dim=8)
    assert r.torch_matmul == 0 and r.n_surveyed == len(ch02.LOOKUP_SURVEY)
    assert r.n_one_hot == sum(s.offers_one_hot for s in ch02.LOOKUP_SURVEY)
    assert claims.run("C04", r).verdict == claims.CORRECTED
    assert r.n_one_hot_default == claims.rule_of("C04").literature.count(ch02.ONE_HOT_DEFAULT)  # counted, not typed


def test_c04_refuses_a_profile_that_disagrees_with_its_pytorch_source():
    import dataclasses

    r = ch02.run_one_hot_memory(n_tokens=64, vocab=1000, dim=8)
    with pytest.raises(ValueError, match="PyTorch row"):
        claims.run("C04", dataclasses.replace(r, torch_ops=["aten::mm"], torch_matmul=1))


def test_huge_pages_run_gives_a_bandwidth_from_a_fresh_process():
    r = ch02.run_huge_pages(512, 64, 1000, reps=1)
    assert r.device == "cpu" and r.n_tokens == 512 and r.dim == 64
    assert r.plain_fraction > 0 and r.ours_fraction > 0


def test_exact_differences_read_as_words():
    assert ch02._amount(0.0) == "exactly 0"
    assert ch02._amount(1.2e-7) == "$1.2\\times10^{-7}$"  # math, not a run of zeros
    assert ch02._amount(3e-12) == "$3.0\\times10^{-12}$"


def test_cost_contenders_are_what_run_cost_times():
    fns = ch02.cost_contenders([100, 400], dim=8, n_tokens=16, gather_tokens=64, seed=3)
    assert list(fns) == ["lookup", "one-hot matmul"] and all(list(f) == [100, 400] for f in fns.values())
    for v in (100, 400):  # the two contenders compute the same rows (on different batches of ids)
        assert fns["lookup"][v]().shape == (64, 8) and fns["one-hot matmul"][v]().shape == (16, 8)
    again = ch02.cost_contenders([100, 400], dim=8, n_tokens=16, gather_tokens=64, seed=3)
    assert torch.equal(fns["one-hot matmul"][400](), again["one-hot matmul"][400]())  # seeded
    with pytest.raises(ValueError, match="increasing order"):
        ch02.cost_contenders([400, 100])
    r = ch02.run_cost([100, 400], dim=8, n_tokens=16, reps=2, gather_tokens=64)
    assert r.vocab_sizes == [100, 400] and len(r.gather_s) == 2 and r.v_ratio == 4


def test_c01_finding_reads_for_every_outcome():
    import dataclasses

    base = ch02.run_cost([100, 400], dim=8, n_tokens=16, reps=1, gather_tokens=64)
    for outcome, f in claims.rule_of("C01").examples.items():
        r = dataclasses.replace(base, **f)
        v = claims.run("C01", r)
        assert v.verdict == outcome and f"{f['bench_gather_growth']:.1f}-fold" in v.finding
        assert len(v.finding.split()) <= claims.FINDING_WORDS


# --- the lesson's exercise answers: each runs the exercise's modified code and checks what the answer says -----


def test_exercise1_the_one_hot_product_grows_with_v_the_lookup_does_not():
    import time

    import torch.nn.functional as F

    ids = torch.tensor([3, 1, 3])

    def best(fn, n=20):
        times = []
        for _ in range(n):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    small, large = torch.randn(10, 4), torch.randn(50_000, 4)
    one_hot_small, one_hot_large = F.one_hot(ids, 10).float(), F.one_hot(ids, 50_000).float()
    assert torch.equal(one_hot_large @ large, large[ids])
    assert one_hot_large.numel() * 4 // (one_hot_small.numel() * 4) == 5_000  # the answer's "5,000 times more work"
    grew = best(lambda: one_hot_large @ large) / best(lambda: one_hot_small @ small)
    assert grew > 5  # the product grew (by far more than this floor: 50,000 × 4 multiply-adds per row)
    assert best(lambda: large[ids]) < 1e-3  # the lookup stays at microseconds


def test_exercise2_a_float32_one_hot_cannot_multiply_a_half_table():
    import torch.nn.functional as F

    E = torch.randn(10, 4, generator=torch.Generator().manual_seed(0)).half()
    ids = torch.tensor([3, 1, 3])
    with pytest.raises(RuntimeError):
        F.one_hot(ids, num_classes=10).float() @ E
    assert torch.equal(F.one_hot(ids, num_classes=10).to(E.dtype) @ E, E[ids])


def test_exercise3_a_repeated_id_gets_one_gradient_per_occurrence():
    E = torch.randn(10, 4, generator=torch.Generator().manual_seed(0))
    emb = torch.nn.Embedding.from_pretrained(E.clone(), freeze=False)
    emb(torch.tensor([0, 0, 0])).sum().backward()
    assert emb.weight.grad.abs().sum(1).nonzero().flatten().tolist() == [0]
    assert torch.equal(emb.weight.grad[0], torch.full((4,), 3.0))


def test_exercise4_small_buffers_stay_in_the_caches():
    from embedbook import lookup

    r = lookup.bandwidth(4096, 128, 50000, reps=2, device="cpu")
    assert "2.0 MiB" in r.note and "caches" in r.note
