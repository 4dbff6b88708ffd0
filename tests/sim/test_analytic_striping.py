"""Sequential log streams on RAID 0 (`advisor.sim.analytic.striping`): a stream stays on one member
for a chunk, so a member's load moves between states; the queue follows them as a first-order
lag with its relaxation time."""

import math

import numpy as np
import pytest

from advisor.layout import resolve
from advisor.sim.analytic import build_mix
from advisor.sim.analytic.commit import with_group_commit
from advisor.sim.analytic.dist import Dist
from advisor.sim.analytic.striping import (
    PLACEMENTS,
    fluid_backlog,
    followed,
    placement_shares,
    streams,
    swing,
    vincentized,
)
from advisor.sim.plan import compile_plan
from advisor.userfiles import load_catalog
from tests.sim.test_analytic_tail import _p99s, server_p99s
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
    """Three alike streams on two members: 0-3 of them on this member. Dwells long against the
    queue's relaxation time: each state's full load (the quasi-static limit); short: all at the
    average; and the state nearest saturation, whose queue relaxes slowest, is followed less
    than the one below it."""
    ons = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1)]

    def us(dwell: float, tau: float) -> list[float]:
        return [followed(0.8, [0.04] * 3, [dwell] * 3, tau, 2, on) for on in ons]

    assert us(100.0, 1e-3) == pytest.approx([0.68, 0.76, 0.84, 0.92], abs=1e-4)
    assert all(u == pytest.approx(0.8, abs=1e-3) for u in us(1e-6, 1e-3))
    ups = [u - 0.8 for u in us(0.05, 0.02) if u > 0.8]
    assert len(ups) == 2
    assert ups[1] < 3 * ups[0]  # full swings would be 0.04 and 0.12


def test_two_logs_of_one_rate_share_a_member_for_a_share_fixed_by_their_phases() -> None:
    """Two streams of one rate on two members keep their phases apart: a placement in phase
    has them on one member all the time, half a chunk apart half the time, one chunk apart
    never; over placements that share spreads evenly from 0 to 1 (mean 1/2, as independent
    draws give). Every placement's time adds up, and one stream is on some member always."""
    groupings, shares = placement_shares((1.0, 1.0), 2)
    assert groupings == ((0, 0), (0, 1))
    assert shares.shape == (PLACEMENTS, 2)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
    together = np.sort(shares[:, 0])
    assert together.mean() == pytest.approx(0.5, abs=0.01)
    assert together[0] < 0.05
    assert together[-1] > 0.95
    np.testing.assert_allclose(together, (np.arange(PLACEMENTS) + 0.5) / PLACEMENTS, atol=0.02)
    one, alone = placement_shares((1.0,), 4)
    assert one == ((0,),)
    np.testing.assert_allclose(alone, [[1.0]])
    # Three on two members: all on one member, or two on one and the third on the other; the
    # share of time with all three together is 1/4 over placements, as independent draws give.
    groupings, shares = placement_shares((1.0, 1.0, 1.0), 2)
    assert sorted(groupings) == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)]
    assert shares[:, groupings.index((0, 0, 0))].mean() == pytest.approx(0.25, abs=0.02)


def test_each_quantile_is_the_placements_average() -> None:
    """Two placements, one all in a fast state, one all in a slow one: each quantile is the
    average of the two placements' (the p99 of the states mixed would be the slow state's
    p98), and the mean is the placements' mean."""
    fast = Dist(np.linspace(1e-3, 2e-3, 400), np.full(400, 1 / 400), 1.5e-3)
    slow = Dist(np.linspace(2e-3, 10e-3, 400), np.full(400, 1 / 400), 6e-3)
    d = vincentized(np.array([[1.0, 0.0], [0.0, 1.0]]), [fast, slow])
    for q in (0.5, 0.9, 0.99):
        assert d.quantile(q) == pytest.approx((fast.quantile(q) + slow.quantile(q)) / 2,
                                              rel=0.01)
    assert d.mean == pytest.approx(3.75e-3)
    assert float(np.dot(d.values, d.weights) / d.weights.sum()) == pytest.approx(3.75e-3,
                                                                                  rel=1e-3)
    mixed = vincentized(np.array([[0.5, 0.5], [0.5, 0.5]]), [fast, slow])
    assert mixed.quantile(0.99) == pytest.approx(slow.quantile(0.98), rel=0.01)


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


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "tps"), [
    pytest.param("c5.large:raid0:2xgp3:35GiB", 1013.0, id="c5.large-raid0-85%"),
    pytest.param("r5.xlarge:raid0:2xgp3:35GiB", 1870.0, id="r5.xlarge-raid0-85%"),
])
def test_a_replica_on_raid0_near_the_knee_is_within_10_percent(spec: str, tps: float) -> None:
    """A replica on RAID 0 of two gp3 at 85 % of the knee: its relay log, binlog and redo (one
    rate, 4 KiB per applied transaction each) keep their phases on the members for good, so
    each run has its own share of time with all three on one member; the replica's p99 spreads
    4.9-8.6 ms over 40 seeds on c5.large. The model's p99 of the states mixed was +12 / +15 %
    of the seeds' mean; averaged over placements it is within 10 % (docs/analytic-vs-des.md)."""
    analytic, des = server_p99s(spec, 50, tps, "replica", seeds=12)
    mean = float(np.mean(des))
    assert analytic == pytest.approx(mean, rel=0.10), (analytic, mean)
