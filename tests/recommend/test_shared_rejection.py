"""A candidate whose whole event-simulation check has already run in the sizing, on another
instance type alike in what the check reads, is rejected with that check's figure before it is
screened (`recommend.mysql_search._shared_rejection`): the verdict `passes_des` would give it,
to the bit, with no new simulation."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from advisor.catalog.model import Catalog
from advisor.layout.cost import monthly_usd
from advisor.layout.model import resolve
from recommend import mysql_search as ms
from recommend.request import MysqlSizeRequest

# Latency-bound: RAID 0 of four gp2 volumes misses 5 ms at the headroom load in the event
# simulation (~5.2 ms without slow episodes, bench/README.md), though the screen passes it.
REQ = MysqlSizeRequest(tps=627, reads=3.25, data_gb=500, p99_ms=5.0, seed=1)
STORAGE = "raid0:4xgp2:334GiB"


@contextmanager
def _sizing() -> Iterator[dict[str, Any]]:
    """A fresh sizing's shared runs (`run_size` sets them), no memo."""
    runs: dict[str, Any] = {}
    token = ms.DES_RUNS.set(runs)
    try:
        yield runs
    finally:
        ms.DES_RUNS.reset(token)


def _checked(catalog: Catalog, instance: str) -> ms.Candidate:
    """The master candidate on `instance`, through the hard-limit precheck (which gives it the
    plan the screen and the event simulation judge it on)."""
    layout = resolve(f"{instance}:{STORAGE}", catalog)
    c = ms.Candidate(layout=layout, role="master", monthly_usd=monthly_usd(layout))
    server = ms.server_for(REQ, layout, "master", 1, REQ.target_tps, None)
    assert ms._precheck(c, catalog, server, REQ) is None
    c.ok = True  # as the search leaves a candidate its screen passes
    return c


def _simulations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the event simulations run (seeds), whatever answers them."""
    import advisor.sim.des as des

    seeds: list[int] = []
    real = des.run_des

    def counted(*args: Any, **kwargs: Any) -> Any:
        seeds.append(kwargs["seed"])
        return real(*args, **kwargs)

    monkeypatch.setattr(des, "run_des", counted)
    return seeds


@pytest.mark.parametrize("twin", ["r7g.large", "r6i.large"])
def test_a_twin_of_a_rejected_candidate_is_rejected_alike(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch, twin: str) -> None:
    """r6g.large fails the check; the same storage on another 2-vCPU, 16-GiB type whose EBS
    limits are no lower is rejected with the same words and figures, running nothing, and its
    reason is the one its own check gives in a sizing that never saw r6g.large."""
    seeds = _simulations(monkeypatch)
    stats = {"verified": 0}
    with _sizing():
        first = _checked(catalog, "r6g.large")
        assert not ms.passes_des(first, catalog, REQ, 1, None, stats)
        assert seeds, "the first candidate ran its replications"
        ran = len(seeds)
        other = _checked(catalog, twin)
        shared = ms._shared_rejection(other, catalog, REQ, 1, None)
        assert len(seeds) == ran, "the shared check ran no simulation"
    assert shared is not None
    assert shared == first.reason
    loads = other.details["des_loads"]
    assert loads[0].load == "headroom"
    assert not loads[-1].passed
    with _sizing():
        own = _checked(catalog, twin)
        assert ms._verify(own, catalog, REQ, 1, None, confirm=True) == shared
    assert len(seeds) > ran, "its own check ran its replications"


def test_an_unknown_check_leaves_the_candidate_as_it_was(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no run to share, the question runs nothing, answers None and leaves no trace on
    the candidate: the search screens and verifies it as before."""
    seeds = _simulations(monkeypatch)
    with _sizing():
        c = _checked(catalog, "r6g.large")
        assert ms._shared_rejection(c, catalog, REQ, 1, None) is None
    assert seeds == []
    assert "des_loads" not in c.details
    assert c._des == {}
    assert c.stage == "priced"


def test_a_different_server_shares_nothing(catalog: Catalog,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The same storage on a type with more memory (another buffer pool, other I/O per
    transaction) is a different simulation: not rejected on r6g.large's runs."""
    _simulations(monkeypatch)
    stats = {"verified": 0}
    with _sizing():
        first = _checked(catalog, "r6g.large")
        assert not ms.passes_des(first, catalog, REQ, 1, None, stats)
        bigger = _checked(catalog, "r6g.xlarge")
        assert ms._shared_rejection(bigger, catalog, REQ, 1, None) is None
    assert "des_loads" not in bigger.details


@pytest.mark.slow
@pytest.mark.usefixtures("optimistic_screen")
def test_the_sizing_is_the_same_with_and_without_sharing(catalog: Catalog,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The latency-bound request with an optimistic screen (conftest.OPTIMISM), where many
    candidates the event simulation sees fail it:
    the same recommendation and alternatives, and every candidate the search rejected on shared
    runs is one it rejects without them too (unscreened: the screen's words give way to the
    event simulation's)."""
    from advisor.serial import to_json
    from recommend.run import run_size

    # 4.5 ms: at 5 ms the event simulation passes the cheap candidates since its binlog takes
    # a redo group whole (2026-11-29), and no rejection is left to share.
    req = replace(REQ, p99_ms=4.5)
    on = to_json(run_size(req, catalog))
    monkeypatch.setattr(ms, "_shared_rejection", lambda *args: None)
    off = to_json(run_size(req, catalog))
    assert on["search"].get("des_shared", 0) > 0
    assert "des_shared" not in off["search"]
    for key in ("recommendation", "alternatives"):
        assert on[key] == off[key], key
    assert on["search"]["verified"] < off["search"]["verified"]
    assert on["search"]["des_rejected"] == off["search"]["des_rejected"]
    assert on["rejected_total"] == off["rejected_total"]
