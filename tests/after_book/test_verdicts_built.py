"""After `make test` (smoke size) and `make book` (full size): every claim whose rule does not say
``full_size_only`` must reach the same verdict at both sizes, or its smoke run is not a test of it."""

import pytest

from embedbook.book import claims
from tests.after_book.built import PAGE

STORES = {size: claims.verdict_store(smoke=size == "smoke") for size in ("smoke", "full")}
pytestmark = pytest.mark.skipif(
    PAGE is not None or not all(s is not None and s.exists() for s in STORES.values()),
    reason="needs the verdicts of both `make test` (smoke) and `make book` (full)",
)


@pytest.fixture(scope="module")
def records():
    return {size: claims.recorded_verdicts(smoke=size == "smoke") for size in STORES}


@pytest.mark.parametrize("cid", list(claims.CLAIMS))
def test_smoke_reaches_the_full_verdict(cid, records):
    rule = claims.rule_of(cid)
    if rule.full_size_only:
        pytest.skip(f"{cid} is decided at full size only")
    smoke, full = records["smoke"][cid]["verdict"], records["full"][cid]["verdict"]
    assert smoke == full, f"{cid}: smoke {smoke!r}, full {full!r}; shrink less, or mark the rule full_size_only"
