"""Property-based tests (hypothesis) of embedbook.ngram: any id stream, table size, n and batch. The index
agrees with a brute-force count, maps every position to the right row (0 where no indexed n-gram ends), and
AdaptiveInput gives each id its band's row times its band's projection; bad input gives a ValueError or
TypeError with a message, never another exception."""

from collections import Counter

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedbook import ngram
from tests.conftest import FUZZ_COUNTS

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tried(name):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + 1


@SETTINGS
@given(data=st.data(), V=st.integers(1, 12), n=st.integers(2, 3), size=st.integers(0, 20))
def test_index_matches_brute_force(data, V, n, size):
    tried("ngram index")
    stream = data.draw(st.lists(st.integers(0, V - 1), min_size=n, max_size=60))
    idx = ngram.NgramIndex.build(torch.tensor(stream, dtype=torch.long), V, size, n=n)
    grams = Counter(tuple(stream[i:i + n]) for i in range(len(stream) - n + 1))
    key = lambda g: sum(t * V ** (n - 1 - j) for j, t in enumerate(g))
    want = sorted(grams, key=lambda g: (-grams[g], key(g)))[:size]
    assert len(idx) == len(want)
    assert sorted(idx.counts.tolist()) == sorted(grams[g] for g in want)
    batch = data.draw(st.lists(st.lists(st.integers(0, V - 1), min_size=1, max_size=8), min_size=1, max_size=3)
                      .filter(lambda rows: len({len(r) for r in rows}) == 1))
    rows = idx.rows_for(torch.tensor(batch, dtype=torch.long))
    for b, seq in enumerate(batch):
        for t in range(len(seq)):
            g = tuple(seq[t - n + 1:t + 1]) if t >= n - 1 else None
            assert int(rows[b, t]) == (idx.row(g) if g in want else 0)


@SETTINGS
@given(data=st.data(), V=st.integers(2, 40), d=st.sampled_from([1, 4, 16, 32]), factor=st.integers(1, 4),
       reverse=st.booleans())
def test_adaptive_input_is_band_row_times_projection(data, V, d, factor, reverse):
    tried("adaptive input")
    cutoffs = sorted(data.draw(st.sets(st.integers(1, V - 1), max_size=3))) if V > 1 else []
    try:
        ada = ngram.AdaptiveInput(V, d, cutoffs, factor=factor, reverse=reverse)
    except ValueError as err:
        assert "too small" in str(err)
        return
    ids = torch.tensor(data.draw(st.lists(st.integers(0, V - 1), min_size=1, max_size=10)), dtype=torch.long)
    out = ada(ids)
    assert out.shape == (len(ids), d) and torch.isfinite(out).all()
    for i, t in enumerate(ids.tolist()):
        band = max(j for j, e in enumerate(ada.edges[:-1]) if t >= e)
        want = ada.tables[band].weight[t - ada.edges[band]] @ ada.projs[band].weight.T
        assert torch.allclose(out[i], want, atol=1e-6)


@SETTINGS
@given(ids=st.one_of(
    st.lists(st.integers(-5, 20), min_size=0, max_size=6).map(lambda v: torch.tensor(v, dtype=torch.long)),
    st.lists(st.floats(-3, 3), min_size=1, max_size=6).map(torch.tensor),
    st.just(torch.zeros(0, 3, dtype=torch.long)),
    st.just([1, 2, 3]),
))
def test_bad_ids_give_clear_errors(ids):
    tried("ngram bad ids")
    idx = ngram.NgramIndex.build(torch.tensor([1, 2, 3, 1, 2], dtype=torch.long), 10, 3)
    emb = ngram.NgramEmbedding(10, 4, idx)
    ada = ngram.AdaptiveInput(10, 8, [3])
    for fn in (emb, ada, idx.rows_for):
        batch = ids.unsqueeze(0) if isinstance(ids, torch.Tensor) and ids.dim() == 1 else ids
        try:
            out = fn(batch)
        except (ValueError, TypeError) as err:
            assert str(err)
        else:
            assert isinstance(batch, torch.Tensor) and batch.numel() > 0
            assert int(batch.min()) >= 0 and int(batch.max()) < 10 and not batch.is_floating_point()
            assert out.shape[:2] == batch.shape[:2]
