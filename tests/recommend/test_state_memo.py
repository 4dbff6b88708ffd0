"""Steady states kept by what they are computed from (`mysql_search.evaluate`): two instance
types alike in vCPU, memory and EBS limits share one state, which names each one's own binding
limit, and a state taken from the memo is the state computed afresh, to the bit."""

from dataclasses import replace

import pytest

from advisor.catalog.model import Catalog
from advisor.layout import resolve
from advisor.memo import Memo, clear_all
from advisor.sim.analytic import SteadyState
from advisor.userfiles import load_catalog
from recommend import mysql_search
from recommend.mysql_search import Candidate, evaluate, server_for
from recommend.request import MysqlSizeRequest


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


def _state(catalog: Catalog, spec: str, req: MysqlSizeRequest, tps: float) -> SteadyState:
    c = Candidate(layout=resolve(spec, catalog), role="master", monthly_usd=0.0)
    server = server_for(req, c.layout, "master", 1, tps, None)
    return evaluate(c.plan(catalog), server, req)


def test_alike_instance_types_share_one_state_named_their_own(catalog: Catalog) -> None:
    a, b = catalog.instance_types["m6i.large"], catalog.instance_types["m7i.large"]
    assert (a.vcpu, a.memory_gib, a.ebs) == (b.vcpu, b.memory_gib, b.ebs)  # the premise
    req = MysqlSizeRequest(tps=627, reads=3.25)
    storage = "io1:200GiB:10000iops"
    for tps, binding in ((800.0, "io1 volume IOPS"), (1200.0, "{} instance EBS IOPS")):
        clear_all()
        first = _state(catalog, f"m6i.large:{storage}", req, tps)
        held = len(mysql_search._STATES)
        second = _state(catalog, f"m7i.large:{storage}", req, tps)
        assert len(mysql_search._STATES) == held  # taken from the memo, not computed again
        assert (first.binding, second.binding) == (binding.format("m6i.large"),
                                                   binding.format("m7i.large"))
        assert replace(second, binding=first.binding) == first
        clear_all()
        assert _state(catalog, f"m7i.large:{storage}", req, tps) == second  # afresh, to the bit


def test_a_memo_empties_when_full_and_with_every_other() -> None:
    memo: Memo[int, str] = Memo(2)
    memo.put(1, "a")
    memo.put(2, "b")
    assert memo.get(1) == "a"
    assert len(memo) == 2
    memo.put(3, "c")  # full: emptied first
    assert memo.get(1) is None
    assert memo.get(3) == "c"
    assert len(memo) == 1
    clear_all()
    assert len(memo) == 0


def test_a_memo_counts_what_it_made_across_emptying() -> None:
    memo: Memo[int, str] = Memo(2)
    for k, value in ((1, "1"), (2, "2"), (1, "x"), (3, "3")):  # 1 again: held, not made
        memo.kept(k, lambda value=value: value)  # type: ignore[misc]
    assert memo.get(1) is None  # emptied when full, at the third value
    assert memo.get(3) == "3"
    assert memo.made == 3
    clear_all()
    memo.kept(1, lambda: "1")
    assert memo.made == 4
