"""A pass that follows another candidate's failure in the same sizing is confirmed on fresh
seeds (`recommend.mysql_search._verify(confirm=True)`): the search verifies candidates cheapest
first, and among many marginal ones one passes the first set of replications by chance."""

from typing import Any

import numpy as np
import pytest

from advisor.catalog.model import Catalog
from advisor.layout.cost import monthly_usd
from advisor.layout.model import resolve
from advisor.sim.stats import LatencyStats
from recommend import mysql_search as ms
from recommend.request import MysqlSizeRequest

REQ = MysqlSizeRequest(tps=627, reads=3.25, p99_ms=10.0, seed=1)
FRESH = REQ.seed + ms.DES_REPLICATIONS  # the confirmation's first seed


def _fake_replications(monkeypatch: pytest.MonkeyPatch, p99_ms_of_seed: Any) -> list[int]:
    """Replications whose requests take about `p99_ms_of_seed(seed)` (a few % of seed noise),
    recording the seeds asked for."""
    seeds: list[int] = []

    def replication(c: ms.Candidate, plan: Any, server: Any, seed: int,
                    measured_s: float) -> ms.Replication:
        seeds.append(seed)
        rng = np.random.default_rng(seed)
        stats = LatencyStats()
        scale = p99_ms_of_seed(seed) * rng.uniform(0.97, 1.03) / 1000
        stats.add(rng.uniform(0.0, scale / 0.99, 20_000))
        return ms.Replication(latency=stats, background_lag_s=0.0)

    _replace_replications(monkeypatch, replication)
    return seeds


def _replace_replications(monkeypatch: pytest.MonkeyPatch, replication: Any) -> None:
    """Every replication the search asks for, one at a time or side by side, from
    `replication` (its seeds recorded in the order the search asks for them)."""
    monkeypatch.setattr(ms, "_des_replication", replication)
    monkeypatch.setattr(ms, "_des_replications", lambda c, server, jobs, measured_s: [
        replication(c, plan, server, seed, measured_s) for plan, seed in jobs])


def _candidate(catalog: Catalog) -> ms.Candidate:
    layout = resolve("r6g.large:raid0:2xgp3:60GiB", catalog)
    return ms.Candidate(layout=layout, role="master", monthly_usd=monthly_usd(layout))


def test_a_chance_pass_is_not_confirmed(catalog: Catalog,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Low on the request's seeds, high on the next ones: one stage passes, the confirmed check
    fails on the fresh seeds and says so, with the first stage's loads kept beside."""
    seeds = _fake_replications(monkeypatch, lambda s: 4.0 if s < FRESH else 20.0)
    assert ms._verify(_candidate(catalog), catalog, REQ, 1, None) is None
    assert max(seeds) < FRESH
    seeds.clear()
    c = _candidate(catalog)
    reason = ms._verify(c, catalog, REQ, 1, None, confirm=True)
    assert reason is not None
    assert f"on fresh seeds {FRESH}-{FRESH + 1}" in reason  # 2 replications: clearly over
    assert "headroom load" in reason
    assert min(s for s in seeds if s >= FRESH) == FRESH
    labels = [x.load for x in c.details["des_loads"]]
    assert labels == ["headroom", "target", "headroom" + ms.CONFIRMING]
    check = ms.des_check(c, REQ)
    assert check is not None
    assert not check.passed


def test_a_sound_pass_is_confirmed_and_reported(catalog: Catalog,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Low on every seed: both stages pass at both loads, the check reports all four loads
    and passes; the confirmation's seeds do not overlap the first stage's."""
    seeds = _fake_replications(monkeypatch, lambda s: 4.0)
    c = _candidate(catalog)
    assert ms._verify(c, catalog, REQ, 1, None, confirm=True) is None
    loads = c.details["des_loads"]
    assert [x.load for x in loads] == ["headroom", "target", "headroom" + ms.CONFIRMING,
                                       "target" + ms.CONFIRMING]
    first = set(seeds[:loads[0].replications])
    assert first == set(range(REQ.seed, REQ.seed + loads[0].replications))
    assert all(x.passed and x.p99_ci95_ms[1] <= REQ.p99_ms for x in loads)
    check = ms.des_check(c, REQ)
    assert check is not None
    assert check.passed
    assert f"confirmed by 2 to {ms.CONFIRM_REPLICATIONS} fresh replications" in check.method


def test_only_a_pass_after_a_failure_is_confirmed(catalog: Catalog,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`passes_des`: the first candidate verified is not confirmed; once one has failed, the
    next pass is."""
    high = {"spec": ""}
    _fake_replications(monkeypatch, lambda s: 20.0 if high["spec"] else 4.0)
    stats = {"considered": 0, "pruned": 0, "screened": 0, "verified": 0}
    first = _candidate(catalog)
    first.ok, first.stage = True, "screened"
    assert ms.passes_des(first, catalog, REQ, 1, None, stats)
    assert not any(ms.CONFIRMING in x.load for x in first.details["des_loads"])
    high["spec"] = "failing"
    failing = _candidate(catalog)
    failing.ok, failing.stage = True, "screened"
    assert not ms.passes_des(failing, catalog, REQ, 1, None, stats)
    assert stats["des_rejected"] == 1
    high["spec"] = ""
    later = _candidate(catalog)
    later.ok, later.stage = True, "screened"
    assert ms.passes_des(later, catalog, REQ, 1, None, stats)
    assert [x.load for x in later.details["des_loads"]][2:] == [
        "headroom" + ms.CONFIRMING, "target" + ms.CONFIRMING]
    # The search's counts, as the result's `search` states them.
    assert stats["des_rejected"] == 1
    assert stats["confirmations"] == 1
    assert "confirmation_failures" not in stats


def test_a_varying_p99_is_confirmed_with_more_replications(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A p99 that varies from run to run (7 ms, 9.6 in a run with a slow episode, against 10 ms):
    four fresh replications leave the interval across the SLO, so the confirmation goes on until
    it clears it."""
    high = {FRESH + 1}
    _fake_replications(monkeypatch, lambda s: 9.6 if s in high else 7.0)
    c = _candidate(catalog)
    assert ms._verify(c, catalog, REQ, 1, None, confirm=True) is None
    head = next(x for x in c.details["des_loads"] if x.load == "headroom" + ms.CONFIRMING)
    assert 4 < head.replications <= ms.CONFIRM_REPLICATIONS
    assert head.p99_ci95_ms[1] <= REQ.p99_ms


def test_a_server_without_requests_is_confirmed_on_its_lag_in_four_runs(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replica of a write-only shape serves no requests: no interval to clear, its lag alone
    decides, so each stage runs LAG_REPLICATIONS replications."""
    def replication(c: ms.Candidate, plan: Any, server: Any, seed: int,
                    measured_s: float) -> ms.Replication:
        return ms.Replication(latency=LatencyStats(), background_lag_s=0.1)

    _replace_replications(monkeypatch, replication)
    c = _candidate(catalog)
    assert ms._verify(c, catalog, REQ, 1, None, confirm=True) is None
    assert [x.replications for x in c.details["des_loads"]] == [ms.LAG_REPLICATIONS] * 4
