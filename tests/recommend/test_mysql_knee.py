"""The DES knee search (issue 10): the highest of the analytic knee and its 7 % steps down at which
every server meets the SLO in the event simulation, found with fewer simulations than a scan down
the steps but the same answer; a server is simulated at a load only where the servers before it
passed. The event simulation is replaced here by a p99 curve, so the search itself is what is
tested (tests/recommend/test_verified.py checks the real DES knee of the main job)."""

import math
from typing import Any

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.layout.cost import monthly_usd
from advisor.layout.model import resolve
from recommend import mysql_search
from recommend.mysql_search import KNEE_STEPS, Candidate, _des_knee, knee_grid
from recommend.request import MysqlSizeRequest
from recommend.result import DesLoad

REQ = MysqlSizeRequest(tps=627, reads=3.25)  # p99 SLO 10 ms, headroom load 815.1 tps


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


def _server(catalog: Catalog, role: str) -> Candidate:
    layout = resolve("c5.large:gp3:100GiB", catalog)
    c = Candidate(layout=layout, role=role, monthly_usd=monthly_usd(layout))
    c.stage, c.ok = "verified", True
    return c


def _p99_curve(capacity: float, spread: float = 0.5) -> Any:
    """p99 of an M/M/1-like queue: 2 ms at no load, a pole at `capacity` (convex in the load)."""
    def p99(tps: float) -> tuple[float, float, float]:
        mid = 2.0 / max(1e-9, 1 - tps / capacity) if tps < capacity else 1e6
        return mid, max(0.0, mid - spread), mid + spread
    return p99


def _fake_des(monkeypatch: pytest.MonkeyPatch, curves: dict[int, Any],
              calls: list[tuple[str, float]]) -> None:
    def fake(c: Candidate, catalog: Catalog, req: MysqlSizeRequest, replicas: int, tps: float,
             measured: Any, label: str) -> DesLoad:
        key = (replicas, tps)
        if key not in c._des:
            calls.append((c.role, tps))
            mid, lo, hi = curves[id(c)](tps)
            c._des[key] = DesLoad(load=label, tps=tps, p99_ms=mid, p99_ci95_ms=(lo, hi),
                                  requests=6000, replications=2, background_lag_s=0.0,
                                  passed=hi <= req.p99_ms)
        return c._des[key]
    monkeypatch.setattr(mysql_search, "_des_load", fake)


def _scan(servers: list[Candidate], analytic: float, curves: dict[int, Any]) -> float:
    """The answer of the scan down the grid that the search must reproduce."""
    for tps in knee_grid(analytic, REQ.target_tps):
        if all(curves[id(c)](tps)[2] <= REQ.p99_ms for c in servers):
            return tps
    return REQ.target_tps


def _headroom_checked(c: Candidate, curves: dict[int, Any]) -> None:
    """The headroom check the verdict ran before the knee search (it passed)."""
    mid, lo, hi = curves[id(c)](REQ.target_tps)
    assert hi <= REQ.p99_ms
    c._des[(1, REQ.target_tps)] = DesLoad(
        load="headroom", tps=REQ.target_tps, p99_ms=mid, p99_ci95_ms=(lo, hi), requests=6000,
        replications=2, background_lag_s=0.0, passed=True)


def test_the_search_finds_the_scan_s_answer_with_fewer_simulations(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """For a true knee anywhere from below the lowest step to above the analytic knee, the search
    returns what stepping down 7 % at a time returns; it simulates at most 2 + log2(steps) = 5
    loads where the scan needs up to KNEE_STEPS = 6, and fewer than the scan over the cases."""
    analytic = 1500.0
    grid = knee_grid(analytic, REQ.target_tps)
    assert len(grid) == KNEE_STEPS
    searched = scanned = 0
    # The curve meets 10 ms up to 0.79 x its capacity: 1100 puts the true knee below the lowest
    # step (1,043 tps), 2500 above the analytic knee, the others between the steps.
    for capacity in (1100, 1350, 1450, 1550, 1650, 1750, 1900, 2500):
        m = _server(catalog, "master")
        curves = {id(m): _p99_curve(capacity)}
        calls: list[tuple[str, float]] = []
        _fake_des(monkeypatch, curves, calls)
        _headroom_checked(m, curves)
        knee = _des_knee(REQ, catalog, [m], 1, None, analytic)
        want = _scan([m], analytic, curves)
        assert knee == want, capacity
        assert len(calls) <= 2 + math.ceil(math.log2(len(grid))), (capacity, calls)
        searched += len(calls)
        scanned += grid.index(want) + 1 if want in grid else len(grid)
    assert searched < scanned, (searched, scanned)


def test_the_knee_is_a_load_every_server_passed(catalog: Catalog,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Master and replica: the knee is a grid load where both passed in the (fake) DES, the
    next load up failed for one of them, and the replica was simulated only at loads where the
    master (the server with the lower analytic knee, listed first) had passed."""
    m, r = _server(catalog, "master"), _server(catalog, "replica")
    curves = {id(m): _p99_curve(1600), id(r): _p99_curve(1500)}
    calls: list[tuple[str, float]] = []
    _fake_des(monkeypatch, curves, calls)
    _headroom_checked(m, curves)
    _headroom_checked(r, curves)
    analytic = 1500.0
    knee = _des_knee(REQ, catalog, [m, r], 1, None, analytic)
    assert knee == _scan([m, r], analytic, curves)
    assert m._des[(1, knee)].passed
    assert r._des[(1, knee)].passed
    grid = knee_grid(analytic, REQ.target_tps)
    above = grid[grid.index(knee) - 1]
    assert not all(c._des[(1, above)].passed for c in (m, r) if (1, above) in c._des)
    for role, tps in calls:
        if role == "replica":
            assert m._des[(1, tps)].passed, tps


def test_the_knee_falls_to_the_headroom_load_only_for_verified_servers(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing on the grid passes: a server verified at the headroom load has its knee there;
    one that was not verified gets 0, not a load the DES never passed it at."""
    m = _server(catalog, "master")
    curves = {id(m): _p99_curve(1100)}
    _fake_des(monkeypatch, curves, [])
    _headroom_checked(m, curves)
    assert _des_knee(REQ, catalog, [m], 1, None, 1500.0) == REQ.target_tps
    u = _server(catalog, "master")
    u.stage = "screened"
    curves[id(u)] = _p99_curve(1100)
    assert _des_knee(REQ, catalog, [u], 1, None, 1500.0) == 0.0
