"""The p99 floor (issue 14 item 6): a latency-bound sizing refuses candidates by the screen's
own request time with no wait at any limit, before the queueing model. It must refuse nothing
the screen would pass: every candidate it refused is re-screened here at the target load."""

from typing import Any

import pytest

from advisor.catalog.model import Catalog
from advisor.userfiles import load_catalog
from recommend.mysql_search import (
    UTILISATION_LIMIT,
    Candidate,
    _state,
    search_role,
)
from recommend.request import MysqlSizeRequest


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


@pytest.mark.slow
@pytest.mark.parametrize("fields", [
    {"data_gb": 500, "p99_ms": 5},
    {"tps": 300, "p99_ms": 3},
    {"tps": 2000, "p99_ms": 4, "data_gb": 50},
], ids=["500GB-5ms", "300tps-3ms", "2000tps-4ms"])
def test_the_floor_refuses_nothing_the_screen_would_pass(catalog: Catalog,
                                                        fields: dict[str, Any]) -> None:
    req = MysqlSizeRequest(**fields)
    stats = {"considered": 0, "pruned": 0, "screened": 0, "verified": 0}
    refused = 0
    for role in ("master", "replica"):
        for c in search_role(req, catalog, role, 1, ebs=True, store=False, measured=None,
                             stats=stats, verify=0, want=10):
            if "p99_floor_ms" not in c.details:
                continue
            refused += 1
            fresh = Candidate(layout=c.layout, role=role, monthly_usd=c.monthly_usd)
            _, st = _state(fresh, c.plan(catalog), req, 1, req.tps, None)
            assert (st.backlog or st.utilisation > UTILISATION_LIMIT
                    or st.p99_s * 1000 > req.p99_ms), (
                f"{c.spec} refused by its floor {c.details['p99_floor_ms']:.3f} ms, but the "
                f"screen's p99 at {req.tps:g} tps is {st.p99_s * 1000:.3f} ms <= {req.p99_ms} ms")
    assert refused >= 10  # the floor was exercised
