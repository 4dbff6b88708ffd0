"""Request times shared between instance types (`mysql_search._steady`): one storage layout and
server on instance types that differ in their EBS limits alone take the times of the first whose
instance limits added no wait, when theirs are no slower; every state so taken is the state
computed afresh, to the bit."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from advisor.catalog.model import Catalog, InstanceType
from advisor.layout import resolve
from advisor.memo import clear_all
from advisor.sim.analytic import SteadyState, steady_state
from advisor.sim.plan import SimPlan
from advisor.userfiles import load_catalog
from recommend import mysql_search
from recommend.mysql_search import Candidate, evaluate, server_for
from recommend.request import MysqlSizeRequest, size_request
from recommend.run import run_size
from workloads.mysql import MysqlServer

REQ = MysqlSizeRequest(tps=627, reads=3.25, data_gb=500, p99_ms=5)
# Far from every instance limit of a 16 GiB type: the io1 volumes bind, the p99 misses 5 ms.
STORAGE = "raid0:4xio1:150GiB:1000iops"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


def _fixed(inst: InstanceType, name: str, iops: float) -> InstanceType:
    """`inst` renamed, with EBS limits of `iops` IOPS (at 16 KiB) and 1,000 MB/s, no burst."""
    assert inst.ebs is not None
    return replace(inst, name=name, ebs=replace(
        inst.ebs, baseline_mbps=8000.0, max_mbps=8000.0, baseline_mbs=1000.0, max_mbs=1000.0,
        baseline_iops=iops, max_iops=iops, burst=False))


def _fresh(plan: SimPlan, server: MysqlServer, req: MysqlSizeRequest) -> SteadyState:
    """The steady state `evaluate` gives, computed afresh with no memo."""
    judged, _ = mysql_search._judged(plan, server, req, mysql_search.server_cost(plan, server))
    return steady_state(judged, mysql_search.server_mix(plan, server), rate=server.rate_tps,
                        duration_s=req.peak_hours * 3600)


def _state(catalog: Catalog, spec: str) -> tuple[SteadyState, SteadyState]:
    """(the search's state of `spec`'s master behind one replica at the headroom load, the
    same computed afresh)."""
    c = Candidate(layout=resolve(spec, catalog), role="master", monthly_usd=0.0)
    server = server_for(REQ, c.layout, "master", 1, REQ.target_tps, None)
    st = evaluate(c.plan(catalog), server, REQ)
    return st, _fresh(c.plan(catalog), server, REQ)


def test_a_type_no_slower_takes_the_times_and_a_slower_one_computes_its_own(
        catalog: Catalog) -> None:
    base = catalog.instance_types["r6g.large"]
    # Three types of r6g.large's vCPU and memory, their EBS IOPS (with no burst) far from the
    # load's ~3,400 IOPS, one of them faster, one slower.
    cat = replace(catalog, instance_types={
        **catalog.instance_types, "r6g.large": _fixed(base, "r6g.large", 20_000),
        "r7g.large": _fixed(base, "r7g.large", 40_000),
        "r6i.large": _fixed(base, "r6i.large", 16_000)})
    clear_all()
    shared = mysql_search.TIMES_SHARED.made
    first, fresh = _state(cat, f"r6g.large:{STORAGE}")
    assert first == fresh
    assert first.binding == "io1 volume IOPS"
    assert first.p99_s * 1000 > REQ.p99_ms
    assert mysql_search.TIMES_SHARED.made == shared  # nothing to take yet

    faster, fresh = _state(cat, f"r7g.large:{STORAGE}")
    assert mysql_search.TIMES_SHARED.made == shared + 1  # r6g.large's times
    assert faster == fresh  # to the bit
    assert faster.p99_s == first.p99_s

    slower, fresh = _state(cat, f"r6i.large:{STORAGE}")
    assert mysql_search.TIMES_SHARED.made == shared + 1  # its own: its limit is slower
    assert slower == fresh


def test_times_with_an_instance_limit_waiting_are_not_shared(catalog: Catalog) -> None:
    base = catalog.instance_types["r6g.large"]
    # The load's ~3,400 IOPS keep a 4,500-IOPS instance limit ~75 % busy: its I/Os wait there.
    cat = replace(catalog, instance_types={
        **catalog.instance_types, "r6g.large": _fixed(base, "r6g.large", 4_500),
        "r7g.large": _fixed(base, "r7g.large", 40_000)})
    clear_all()
    shared = mysql_search.TIMES_SHARED.made
    busy, fresh = _state(cat, f"r6g.large:{STORAGE}")
    assert busy == fresh
    idle, fresh = _state(cat, f"r7g.large:{STORAGE}")
    assert mysql_search.TIMES_SHARED.made == shared  # computed: r6g.large's include its wait
    assert idle == fresh
    assert idle.p99_s < busy.p99_s


@pytest.mark.slow  # over 5 s (7-9 s on a 2-core host)
def test_every_state_a_latency_bound_sizing_takes_is_the_state_computed_afresh(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    steady: Callable[..., SteadyState] = mysql_search._steady
    seen: list[tuple[str, SteadyState, SteadyState]] = []

    def checked(judged: SimPlan, mix: Any, server: MysqlServer, req: MysqlSizeRequest,
                key: bytes) -> SteadyState:
        st = steady(judged, mix, server, req, key)
        fresh = steady_state(judged, mix, rate=server.rate_tps, duration_s=req.peak_hours * 3600)
        seen.append((judged.layout, st, fresh))
        return st

    monkeypatch.setattr(mysql_search, "_steady", checked)
    clear_all()
    shared = mysql_search.TIMES_SHARED.made
    run_size(size_request({"workload": "mysql", "data_gb": 500, "p99_ms": 5}), catalog)
    assert [(layout, st) for layout, st, fresh in seen if st != fresh] == []
    # A third of the states or more are shared, whichever candidates the search reaches: 99 of
    # 177 on the built-in catalog on 2026-11-30 (21 of 45 with the ordered commit in the screen,
    # measured that day and not adopted: a cheaper master after fewer DES rejections).
    assert len(seen) >= 20
    assert mysql_search.TIMES_SHARED.made - shared >= len(seen) / 3
