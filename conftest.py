"""Shared test setup for both test trees (``tests/``: the library and the book's layer; ``chapters/*/``: each
chapter's own tests): offline model loading, repeatable property-based inputs, and the fixtures both use."""

import dataclasses
import os

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from hypothesis import settings  # noqa: E402

# The property-based tests draw the same inputs on every run (a suite that passes on one run passes on the
# next); HYPOTHESIS_PROFILE=explore draws fresh ones, to hunt for new failures.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture
def swap_sources(monkeypatch):
    """``swap_sources(cid, *sources)``: claim ``cid``'s rule reads only ``sources`` for the rest of the test (its
    check counts them as usual; nothing is typed)."""
    from embedbook.book import claims

    def swap(cid, *sources):
        rule = claims.rule_of(cid)
        lit = dataclasses.replace(rule.literature, sources=tuple(sources))
        monkeypatch.setitem(claims._RULES, cid, dataclasses.replace(rule, literature=lit))

    return swap


# --- fixtures of the library's tests and the chapters' tests alike ----------------------------------------


@pytest.fixture(scope="module")
def enc():
    """MiniLM, the bundled contextual encoder, on the CPU (loaded once per module)."""
    from embedbook import data

    return data.load_encoder("minilm", device="cpu")


@pytest.fixture
def space():
    """A toy word space: 48 random 8-d rows, with woman − man = queen − king planted."""
    from embedbook import similarity as S

    rng = np.random.default_rng(0)
    words = ["man", "woman", "king", "queen", "apple", "banana", "car", "road"] + [f"w{i}" for i in range(40)]
    vecs = rng.normal(size=(len(words), 8)).astype(np.float32)
    gender = rng.normal(size=8)
    vecs[1] = vecs[0] + gender  # woman = man + gender
    vecs[3] = vecs[2] + gender  # queen = king + gender
    return S.Space(words, vecs)


@pytest.fixture(scope="module")
def corpus():
    """A toy corpus of 300 four-word sentences from two topics (fruit, vehicles) with their own contexts."""
    rng = np.random.default_rng(0)
    fruit, cars = ["apple", "banana", "pear"], ["car", "truck", "bus"]
    out = []
    for _ in range(300):
        grp = fruit if rng.random() < 0.5 else cars
        ctx = ["sweet", "eat", "ripe"] if grp is fruit else ["drive", "road", "engine"]
        out.append([str(rng.choice(ctx)), str(rng.choice(grp)), str(rng.choice(ctx)), str(rng.choice(ctx))])
    return out
