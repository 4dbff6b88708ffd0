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


# The analytic knee (`_server_knee`): bounded first by the checks that need no latency, then the
# p99's crossing of the SLO by interpolation. The engine is replaced by a p99 curve and a limit.
class _State:
    """What `_meets` and the knee read of a steady state."""

    def __init__(self, p99_ms: float) -> None:
        self.p99_s, self.backlog, self.utilisation = p99_ms / 1000, False, 0.5


def _analytic(monkeypatch: pytest.MonkeyPatch, curve: Any, cap: float) -> list[float]:
    """Latency evaluations (their loads) of a server whose p99 follows `curve` and whose limits
    hold up to `cap` tps."""
    calls: list[float] = []

    def state(c: Candidate, plan: Any, req: MysqlSizeRequest, replicas: int, tps: float,
              measured: Any) -> tuple[Any, Any]:
        if (replicas, tps) not in c._states:
            calls.append(tps)
            server = mysql_search.server_for(req, c.layout, c.role, replicas, tps, measured)
            c._states[(replicas, tps)] = (server, _State(curve(tps)))
        return c._states[(replicas, tps)]

    monkeypatch.setattr(mysql_search, "_state", state)
    monkeypatch.setattr(mysql_search, "_within_limits", lambda c, plan, req, r, tps, m: tps <= cap)
    monkeypatch.setattr(mysql_search, "cpu_utilisation", lambda server, layout: 0.0)
    return calls


def _bisection_probes(ok: Any) -> int:
    """Latency evaluations of the plain bisection the knee search replaced (one per probe)."""
    n, lo, hi = 0, 0.0, REQ.tps
    while ok(hi):
        n, lo, hi = n + 1, hi, hi * 2
    n += 1
    while hi - lo > max(1.0, 0.005 * hi):
        mid = (lo + hi) / 2
        n += 1
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return n


@pytest.mark.parametrize("capacity", [700.0, 1100.0, 2600.0, 9000.0])
def test_the_analytic_knee_is_the_p99_crossing_to_its_tolerance(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch, capacity: float) -> None:
    """An M/M/1-like p99 (2 ms / (1 - tps / capacity)) crosses the 10 ms SLO at 80 % of the
    capacity, under the limits (95 %): the knee lies within 0.5 % below the crossing, from
    fewer latency evaluations than a bisection takes."""
    curve = _p99_curve(capacity)
    calls = _analytic(monkeypatch, lambda tps: curve(tps)[0], cap=0.95 * capacity)
    c = _server(catalog, "master")
    knee = mysql_search._server_knee(REQ, catalog, c, 1, None)
    crossing = 0.8 * capacity
    assert knee <= crossing
    assert crossing - knee <= max(1.0, mysql_search.KNEE_TOLERANCE * crossing)
    assert len(calls) < _bisection_probes(lambda tps: tps <= crossing)
    assert len(calls) <= 5


def test_a_knee_bound_by_a_limit_takes_one_latency_evaluation(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """The p99 stays 3 ms up to the limits' bound (1,234 tps): the knee is that bound, to
    0.5 %, found by the checks without latency, and its latency is evaluated once, there."""
    calls = _analytic(monkeypatch, lambda tps: 3.0, cap=1234.0)
    knee = mysql_search._server_knee(REQ, catalog, _server(catalog, "master"), 1, None)
    assert 1234.0 * (1 - mysql_search.KNEE_TOLERANCE) <= knee <= 1234.0
    assert calls == [knee]


def test_a_knee_on_a_p99_that_dips_still_brackets_a_crossing(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A p99 that is not monotone near the SLO (the analytic engine's regimes: 9.1 ms, then
    8.4, then 11.3 within 1 %): the knee meets the SLO and a load at most 0.5 % above it was
    evaluated and failed, as with a bisection."""
    def curve(tps: float) -> float:
        return 4.0 + 5.1 * (tps - 815) / 252 if tps < 1067 else 8.4 if tps < 1077 else 11.3
    calls = _analytic(monkeypatch, curve, cap=1160.0)
    c = _server(catalog, "master")
    knee = mysql_search._server_knee(REQ, catalog, c, 1, None)
    assert curve(knee) <= REQ.p99_ms
    above = [t for t in calls if t > knee]
    assert above
    assert min(above) - knee <= max(1.0, mysql_search.KNEE_TOLERANCE * min(above))
    assert curve(min(above)) > REQ.p99_ms
