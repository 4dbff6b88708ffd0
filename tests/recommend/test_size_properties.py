"""Invariants of `size` (STYLE.md, property tests): more demand or a tighter SLO never gives a
cheaper recommendation, allowing instance store never a dearer one, and the recommendation always
holds the data with its 20 % margin.

Each example is a full catalog search (0.3-5 s), so the inputs come from small grids and every
distinct request is searched once (cached); "no layout meets the SLO" counts as infinitely dear.
"""

import math
from functools import cache
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.errors import InfeasibleSlo
from advisor.layout import resolve
from advisor.layout.describe import usable_capacity_gib
from advisor.serial import to_json
from recommend.request import FREE_SPACE_MARGIN, MysqlSizeRequest
from recommend.run import run_size as run_typed


def run_size(req: MysqlSizeRequest, catalog: Catalog) -> dict[str, Any]:
    """The sizing as its JSON (the contract these tests pin)."""
    return to_json(run_typed(req, catalog))  # type: ignore[no-any-return]

TPS = (100.0, 300.0, 627.0, 900.0, 1200.0, 1600.0, 2500.0)
P99_MS = (4.0, 5.0, 7.0, 10.0, 20.0)
DATA_GB = (1.0, 10.0, 50.0, 333.0, 1000.0, 4000.0)
SEARCH = settings(max_examples=10, deadline=None, derandomize=True, database=None)

pytestmark = pytest.mark.slow  # 8-20 s each: up to ten catalog searches per test


@cache
def catalog() -> Catalog:
    return builtin_catalog()


@cache
def _search(req: MysqlSizeRequest) -> dict[str, Any] | Exception | None:
    try:
        return run_size(req, catalog())["recommendation"]
    except InfeasibleSlo:
        return None
    except Exception as exc:  # kept, so that shrinking a failure does not search again
        return exc


def recommendation(req: MysqlSizeRequest) -> dict[str, Any] | None:
    """The recommendation for `req`, or None when no layout meets the SLO."""
    out = _search(req)
    if isinstance(out, Exception):
        raise out
    return out


def cost(req: MysqlSizeRequest) -> float:
    rec = recommendation(req)
    return math.inf if rec is None else float(rec["monthly_usd"])


def pair(values: tuple[float, ...]) -> st.SearchStrategy[tuple[float, float]]:
    """Two grid values, the smaller first."""
    return st.tuples(st.sampled_from(values), st.sampled_from(values)).map(
        lambda ab: (min(ab), max(ab)))


@SEARCH
@given(pair(TPS))
def test_raising_tps_never_yields_a_cheaper_recommendation(tps: tuple[float, float]) -> None:
    """size(tps=a) <= size(tps=b) for a <= b, everything else the default request."""
    low, high = tps
    assert cost(MysqlSizeRequest(tps=low)) <= cost(MysqlSizeRequest(tps=high))


@SEARCH
@given(pair(P99_MS))
def test_lowering_p99_never_yields_a_cheaper_recommendation(p99: tuple[float, float]) -> None:
    """A tighter latency bound never costs less: size(p99=a) >= size(p99=b) for a <= b."""
    tight, loose = p99
    assert cost(MysqlSizeRequest(p99_ms=tight)) >= cost(MysqlSizeRequest(p99_ms=loose))


@settings(max_examples=8, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(TPS[:5]), st.sampled_from((5.0, 10.0)))
def test_allowing_ephemeral_never_yields_a_dearer_recommendation(tps: float,
                                                                 p99_ms: float) -> None:
    """--allow-ephemeral only adds candidates: the answer is never dearer than EBS only."""
    ebs = MysqlSizeRequest(tps=tps, p99_ms=p99_ms)
    eph = MysqlSizeRequest(tps=tps, p99_ms=p99_ms, allow_ephemeral=True)
    assert cost(eph) <= cost(ebs)


@SEARCH
@given(st.sampled_from(DATA_GB), st.sampled_from((100.0, 627.0, 900.0)))
def test_recommendation_always_holds_the_data_plus_margin(data_gb: float, tps: float) -> None:
    """Master and every replica have usable capacity >= data x 1.2."""
    rec = recommendation(MysqlSizeRequest(tps=tps, data_gb=data_gb))
    assume(rec is not None)
    assert rec is not None
    needed = data_gb * (1 + FREE_SPACE_MARGIN)
    assert rec["capacity_gib"] >= needed
    for spec in [rec["master"], *rec["replicas"]]:
        assert usable_capacity_gib(resolve(spec, catalog())) >= needed, spec
