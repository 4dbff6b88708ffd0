"""The sizing search does each thing once (issue 13): a deployment's knee is computed once per
sizing however often it is asked for, and the knee's bisection reuses the steady states the
screen already evaluated."""

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError
from advisor.layout import resolve
from advisor.layout.cost import monthly_usd
from recommend import mysql_search
from recommend.candidates import Demand, candidate_specs, instance_groups
from recommend.mysql_search import Candidate, _cheapest_first, max_tps_at_slo, search_role
from recommend.request import MysqlSizeRequest

REQ = MysqlSizeRequest(tps=627, reads=3.25)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


def _first_passing(catalog: Catalog, role: str) -> Candidate:
    stats = {"considered": 0, "pruned": 0, "screened": 0, "verified": 0}
    cands = search_role(REQ, catalog, role, 1, ebs=True, store=False, measured=None, stats=stats)
    return next(c for c in cands if c.ok)


def test_a_knee_asked_for_twice_is_computed_once(catalog: Catalog,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking again for a deployment's knee (the recommendation, an alternative, a report)
    returns the same figure and evaluates nothing; the bisection never re-evaluates a server
    at the loads the screen already did (the request's tps and its headroom load)."""
    master, replica = _first_passing(catalog, "master"), _first_passing(catalog, "replica")
    loads: list[float] = []
    evaluate = mysql_search.evaluate

    def counted(plan, server, req):  # type: ignore[no-untyped-def]
        loads.append(server.params.tps)
        return evaluate(plan, server, req)

    monkeypatch.setattr(mysql_search, "evaluate", counted)
    knee = max_tps_at_slo(REQ, catalog, master, replica, 1, None)
    evaluated = len(loads)
    assert knee >= REQ.target_tps
    assert evaluated > 0
    assert REQ.tps not in loads
    assert REQ.target_tps not in loads
    assert max_tps_at_slo(REQ, catalog, master, replica, 1, None) == knee
    assert len(loads) == evaluated


@pytest.mark.parametrize(("store", "iops", "gib"), [(False, 4000.0, 60.0), (True, 30000.0, 600.0)])
def test_candidates_come_cheapest_first_pricing_only_the_types_reached(
        catalog: Catalog, store: bool, iops: float, gib: float) -> None:
    """Issue 14 item 6: the search prices an instance type's layouts only when its instance
    hours could still beat the cheapest candidate not yet judged; the order is exactly that of
    pricing every candidate and sorting (price to the cent, devices, spec), and a search that
    stops after a few hundred prices a fraction of the space."""
    demand = Demand(iops=iops, mibps=40.0, capacity_gib=gib)
    everything = []
    for spec in candidate_specs(catalog, demand, ebs=True, store=store, min_vcpu=2):
        try:
            layout = resolve(spec, catalog)
        except AdvisorError:
            continue
        everything.append((round(monthly_usd(layout), 2), spec.count, str(spec)))
    everything.sort()
    stats = {"considered": 0}
    lazy = _cheapest_first(catalog, instance_groups(catalog, ebs=True, store=store, min_vcpu=2),
                           demand, "master", ebs=True, store=store, stats=stats)
    head = [(round(c.monthly_usd, 2), c.layout.spec.count, c.spec)
            for _, c in zip(range(300), lazy, strict=False)]
    assert head == everything[:300]
    assert stats["considered"] < len(everything) / 2, (stats, len(everything))
