"""The sizing search does each thing once (issue 13): a deployment's knee is computed once per
sizing however often it is asked for, and the knee's bisection reuses the steady states the
screen already evaluated."""

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from recommend import mysql_search
from recommend.mysql_search import Candidate, max_tps_at_slo, search_role
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
