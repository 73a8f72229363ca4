"""Unit tests for embedbook.word2vec (the skip-gram step in torch; gensim training on a tiny corpus, in
seconds) and for the helpers of chapter 10's experiment."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from embedbook.book import claims
from embedbook import word2vec as W
from embedbook.chapters.ch10_word2vec import measure as ch10


# --- the objective in torch -------------------------------------------------------------------------------------


def test_sgns_loss_matches_the_formula():
    g = torch.Generator().manual_seed(0)
    v, u, n = torch.randn(4, generator=g), torch.randn(4, generator=g), torch.randn(3, 4, generator=g)
    want = -torch.log(torch.sigmoid(u @ v)) - torch.log(torch.sigmoid(-(n @ v))).sum()
    assert torch.allclose(W.sgns_loss(v, u, n), want)


def test_sgns_step_is_a_gradient_step_on_the_touched_rows_only():
    g = torch.Generator().manual_seed(1)
    w_in, w_out = torch.randn(6, 4, generator=g), torch.randn(6, 4, generator=g)
    c, o, noise, lr = 0, 2, torch.tensor([4, 5]), 0.3
    a_in, a_out = w_in.clone().requires_grad_(), w_out.clone().requires_grad_()
    W.sgns_loss(a_in[c], a_out[o], a_out[noise]).backward()
    new_in, new_out = w_in.clone(), w_out.clone()
    loss = W.sgns_step(new_in, new_out, c, o, noise, lr=lr)
    assert loss == pytest.approx(float(W.sgns_loss(w_in[c], w_out[o], w_out[noise])))
    assert torch.allclose(new_in, w_in - lr * a_in.grad) and torch.allclose(new_out, w_out - lr * a_out.grad)
    untouched = [1, 3]
    assert torch.equal(new_out[untouched], w_out[untouched]) and torch.equal(new_in[1:], w_in[1:])


def test_sgns_step_repeated_noise_word_counts_twice():
    g = torch.Generator().manual_seed(2)
    w_in, w_out = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)
    a_in, a_out = w_in.clone().requires_grad_(), w_out.clone().requires_grad_()
    W.sgns_loss(a_in[0], a_out[1], a_out[[3, 3]]).backward()
    W.sgns_step(w_in, w_out, 0, 1, [3, 3], lr=1.0)
    assert torch.allclose(w_out, a_out.detach() - a_out.grad)


def test_sgns_shared_contexts_pull_rows_together():
    g = torch.Generator().manual_seed(0)
    w_in, w_out = 0.5 * torch.randn(7, 8, generator=g), 0.5 * torch.randn(7, 8, generator=g)
    pairs = [(0, 3), (0, 4), (1, 3), (1, 4), (2, 5), (2, 6)]
    for step in range(300):
        c, o = pairs[step % len(pairs)]
        W.sgns_step(w_in, w_out, c, o, torch.randint(3, 7, (2,), generator=g), lr=0.2)
    assert F.cosine_similarity(w_in[0], w_in[1], dim=0) > 0.8 > F.cosine_similarity(w_in[0], w_in[2], dim=0)


def test_sgns_bad_input():
    t = torch.zeros(4, 3)
    with pytest.raises(ValueError, match="lie in"):
        W.sgns_step(t, t.clone(), 0, 9, [1])
    with pytest.raises(ValueError, match="lr"):
        W.sgns_step(t, t.clone(), 0, 1, [2], lr=0)
    with pytest.raises(ValueError, match="integer"):
        W.sgns_step(t, t.clone(), 0, 1, [])
    with pytest.raises(ValueError, match="integer word ids"):
        W.sgns_step(t, t.clone(), 1.5, 1, [2])
    with pytest.raises(ValueError, match="boolean"):
        W.sgns_step(t, t.clone(), 0, 1, torch.tensor([True, False]))
    with pytest.raises(ValueError, match="one shape"):
        W.sgns_step(t, torch.zeros(5, 3), 0, 1, [2])
    with pytest.raises(TypeError, match="float tensor"):
        W.sgns_step(np.zeros((4, 3)), t, 0, 1, [2])
    with pytest.raises(ValueError, match="negatives"):
        W.sgns_loss(torch.zeros(3), torch.zeros(3), torch.zeros(3))
    with pytest.raises(TypeError):
        W.sgns_loss(torch.zeros(3, dtype=torch.long), torch.zeros(3), torch.zeros(1, 3))


# --- training with gensim -------------------------------------------------------------------------------------------


def test_train_is_deterministic(corpus):
    a = W.train(corpus, vector_size=10, min_count=1, epochs=3, seed=1)
    b = W.train(corpus, vector_size=10, min_count=1, epochs=3, seed=1)
    assert np.array_equal(a.wv.vectors, b.wv.vectors)
    sp = W.as_space(a)
    assert sp.words == a.wv.index_to_key
    c = W.counts(a)
    assert (np.diff(c) <= 0).all()  # most frequent first


def test_architecture_by_name(corpus):
    cbow = W.train(corpus, sg="cbow", vector_size=10, min_count=1, epochs=2, seed=0)
    assert cbow.sg == 0  # sg="cbow" used to train skip-gram (a non-empty string is true)
    assert W.train(corpus, sg=False, vector_size=10, min_count=1, epochs=2, seed=0).wv.vectors.tolist() == cbow.wv.vectors.tolist()
    assert W.train(corpus, sg="skip-gram", vector_size=10, min_count=1, epochs=1).sg == 1
    for bad in ("glove", 2, None, 0.5):
        with pytest.raises(ValueError, match="skipgram|cbow"):
            W.train(corpus, sg=bad)


def test_train_takes_a_generator(corpus):
    from_list = W.train(corpus, vector_size=10, min_count=1, epochs=2, seed=0)
    from_gen = W.train((s for s in corpus), vector_size=10, min_count=1, epochs=2, seed=0)
    assert np.array_equal(from_list.wv.vectors, from_gen.wv.vectors)
    assert W.train(iter([("a", "b")] * 5), vector_size=4, min_count=1, epochs=1).wv.index_to_key


def test_train_bad_input():
    with pytest.raises(ValueError, match="empty"):
        W.train([])
    with pytest.raises(ValueError, match="empty"):
        W.train([[], []])
    with pytest.raises(TypeError, match="token"):
        W.train(["a sentence"])
    with pytest.raises(TypeError, match="iterable"):
        W.train(42)
    with pytest.raises(TypeError, match="not a string"):
        W.train([["a", 3]])
    with pytest.raises(ValueError, match="epochs"):
        W.train([["a", "b"]], epochs=0)
    with pytest.raises(ValueError, match="vector_size"):
        W.train([["a", "b"]], vector_size=2.5)
    with pytest.raises(ValueError, match="seed"):
        W.train([["a", "b"]], seed=-1)
    with pytest.raises(ValueError, match="min_count"):
        W.train([["a", "b"]], min_count=5)
    with pytest.raises(TypeError, match="Word2Vec"):
        W.as_space("model")
    with pytest.raises(TypeError, match="Word2Vec"):
        W.counts(None)


def test_epoch_losses(corpus):
    m = W.train(corpus, vector_size=10, min_count=1, epochs=4, seed=0, compute_loss=True)
    assert len(m.epoch_losses) == 4 and all(x > 0 for x in m.epoch_losses)
    assert not hasattr(W.train(corpus, vector_size=10, min_count=1, epochs=1), "epoch_losses")


def _planted(leans, plateau=1):
    ps = [0.2, 0.5, 0.8]
    rise = [leans[2][s] - leans[0][s] for s in range(3)]
    return ch10.Planted(a="fire", b="company", n_tokens=1000, n_planted=40, epochs=10, seeds=3,
                        rise=float(np.mean(rise)), rise_lo=min(rise), rise_hi=max(rise),
                        monotone_seeds=sum(leans[0][s] < leans[1][s] < leans[2][s] for s in range(3)),
                        spread=max(max(v) - min(v) for v in leans), worst_improvement=0.01, plateau=plateau,
                        ps=ps, leans=dict(zip(ps, leans)))


def test_c39_finding_reads_for_each_outcome():
    conf = claims.run("C39", _planted([[0.0, 0.05, 0.1], [0.3, 0.35, 0.4], [0.6, 0.65, 0.7]]))
    assert conf.verdict == claims.CONFIRMED and "all 3 seeds" in conf.finding and "+0.60" in conf.finding
    ref = claims.run("C39", _planted([[0.0, 0.01, 0.02], [0.0, 0.02, 0.01], [0.01, 0.02, 0.03]]))
    assert ref.verdict == claims.REFUTED and "did not move" in ref.finding
    unsettled = claims.run("C39", _planted([[0.0, 0.05, 0.1], [0.3, 0.35, 0.4], [0.6, 0.65, 0.7]], plateau=0))
    assert unsettled.verdict == claims.INCONCLUSIVE and "still learning" in unsettled.finding
    for v in (conf, ref, unsettled):
        assert "C39" not in v.finding and "rise_min" not in v.finding
