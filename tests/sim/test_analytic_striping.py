"""Sequential log streams on RAID 0 (`advisor.sim.analytic.striping`): a stream stays on one member
for a chunk, so a member's load moves between states; the queue follows them as a first-order
lag with its relaxation time."""

import math

import numpy as np
import pytest

from advisor.layout import resolve
from advisor.sim.analytic import build_mix
from advisor.sim.analytic.commit import with_group_commit
from advisor.sim.analytic.striping import fluid_backlog, states, streams, swing
from advisor.sim.plan import compile_plan
from advisor.userfiles import load_catalog
from tests.sim.test_analytic_tail import _p99s
from workloads.mysql import MysqlParams
from workloads.mysql_run import Deployment, build_servers


@pytest.mark.parametrize("members", [2, 3, 4])
def test_the_swing_is_all_of_it_for_long_dwells_and_none_for_short(members: int) -> None:
    """A dwell long against the relaxation time: the queue follows the whole swing (the
    quasi-static limit); short: none of it (the average); two members: tanh(T / 2 tau), the
    first-order lag's response to a square wave."""
    assert swing(100.0, 1e-3, members) == pytest.approx(1.0)
    assert swing(1e-6, 1.0, members) == pytest.approx(0.0, abs=1e-5)
    values = [swing(t, 0.01, members) for t in (0.001, 0.01, 0.1)]
    assert values == sorted(values)
    assert swing(0.02, 0.01, 2) == pytest.approx(math.tanh(1.0))


def test_member_states_follow_the_swing_less_near_saturation() -> None:
    """Three alike streams on two members: 0-3 of them on this member with chances 1/8, 3/8,
    3/8, 1/8. Dwells long against the queue's relaxation time: each state's full load (the
    quasi-static limit); short: all at the average; and the state nearest saturation, whose
    queue relaxes slowest, is followed less than the one below it."""
    long = states(0.8, [0.04] * 3, [100.0] * 3, 1e-3, 2)
    assert [p for p, _ in long] == pytest.approx([1 / 8, 3 / 8, 3 / 8, 1 / 8])
    assert [u for _, u in long] == pytest.approx([0.68, 0.76, 0.84, 0.92], abs=1e-4)
    short = states(0.8, [0.04] * 3, [1e-6] * 3, 1e-3, 2)
    assert all(u == pytest.approx(0.8, abs=1e-3) for _, u in short)
    mid = states(0.8, [0.04] * 3, [0.05] * 3, 0.02, 2)
    ups = [u - 0.8 for _, u in mid if u > 0.8]
    assert len(ups) == 2
    assert ups[1] < 3 * ups[0]  # full swings would be 0.04 and 0.12


def test_an_overloaded_dwell_builds_a_fluid_backlog() -> None:
    """Utilisation 1.1 for 0.3 s: the backlog grows to 30 ms, an I/O arriving meanwhile waits
    half of that on average."""
    d = fluid_backlog(0.1, 0.3)
    assert d.mean == pytest.approx(0.015)
    assert float(d.values.max()) <= 0.03 + 1e-12
    assert float(np.dot(d.values, d.weights) / d.weights.sum()) == pytest.approx(0.015, rel=0.01)


def _mix(spec: str, tps: float, replicas: int):  # type: ignore[no-untyped-def]
    catalog = load_catalog()
    layout = resolve(spec, catalog)
    dep = Deployment(master=layout, replica=layout if replicas else None)
    params = MysqlParams(tps=tps, data_gb=50, replicas=replicas)
    out = []
    for srv in build_servers(dep, params, None):
        plan = compile_plan(layout, catalog)
        mix = with_group_commit(build_mix(plan, srv.request_classes(),
                                          srv.background_specs()), srv.rate_tps)
        out.append((srv, plan, mix))
    return out


def test_the_streams_are_the_logs_and_dwell_a_chunk_each() -> None:
    """On RAID 0 the master's redo log and binlog (4 KiB per commit) are the streams, each on
    a member for chunk / (commits/s x 4 KiB); the replica adds its applier's relay log, binlog
    and redo; one volume has none."""
    (master, plan, mix), (replica, rplan, rmix) = _mix("c5.large:raid0:2xgp3:35GiB", 1000.0, 1)
    found = streams(plan, mix, master.rate_tps)
    assert len(found) == 2
    commits_per_s = master.params.write_tps
    for s in found:
        assert s.dwell_s == pytest.approx(plan.chunk_bytes / (commits_per_s * 4096), rel=1e-6)
    assert len(streams(rplan, rmix, replica.rate_tps)) == 3
    (single, splan, smix), = _mix("c5.large:gp3:70GiB", 300.0, 0)
    assert streams(splan, smix, single.rate_tps) == []


@pytest.mark.slow
def test_raid0_near_the_knee_agrees_with_the_event_simulation() -> None:
    """c5.large, RAID 0 of two gp3, 85 % of the knee (1,064 tps): the members' alternating logs
    put the p99 at ~22 ms in the event simulation; the analytic p99 within 10 % of it (it was
    19 % low with every I/O spread over the members at random). Over eight seeds: one run's p99
    here spreads 18-26 ms, so three seeds' mean (this was an expected failure at -10.4 % on
    seeds 1-3) is itself ~7 % uncertain; over eight the analytic 21.7 ms is 2 % from it."""
    analytic, mean = _p99s("c5.large:raid0:2xgp3:35GiB", 50, 0, 1064.0, seeds=8)
    assert analytic == pytest.approx(mean, rel=0.10), (analytic, mean)
