"""On RAID 0 a member carrying a log takes that log's writes whole (`striping.member_mix`), and a
commit waits at the member its log is on (`waits.Coupled`), at the chain's quantile of that
member's wait, not at a member picked at random."""

import numpy as np
import pytest

from advisor.layout.model import resolve
from advisor.sim.analytic import steady_phase
from advisor.sim.analytic.dist import Dist, exponential, mixture
from advisor.sim.analytic.striping import followed_shares, member_mix, streams
from advisor.sim.analytic.waits import _coupled, _hit, array_states, spaced_waits
from advisor.sim.plan import compile_plan, steady
from advisor.userfiles import load_catalog
from recommend import mysql_search as ms
from tests.recommend.conftest import MAIN_JOB


def _main_job_master() -> tuple:
    """The main job's master (m6g.large RAID 0 of 2 gp3) at its headroom load: plan, mix, its
    steady phase and the limits' waits."""
    catalog = load_catalog()
    layout = resolve("m6g.large:raid0:2xgp3:60GiB", catalog)
    plan = compile_plan(layout, catalog)
    server = ms.server_for(MAIN_JOB, layout, "master", 1, MAIN_JOB.target_tps, None)
    judged, mix = ms._judged_mix(steady(plan), server, MAIN_JOB)
    last = steady_phase(judged, mix, rate=server.rate_tps,
                        duration_s=MAIN_JOB.peak_hours * 3600)
    waits, mean_wait = spaced_waits(judged, mix, last.x, list(last.rates))
    return judged, mix, last, waits, mean_wait


def test_a_member_carrying_both_logs_takes_their_writes_whole() -> None:
    """In the state where one member carries the redo log and the binlog, each commit reaches
    it (its chance at that member 1, where the members' average is 1 / 2) and none reaches the
    other; the member's load per request is the one its utilisation follows, so it is the same
    load as the mix scaled to it, but in larger clusters: each transaction's commits whole."""
    plan, mix, last, waits, _ = _main_job_master()
    found = streams(plan, mix, last.x)
    assert [s.log for s in found] == [0, 1]
    iops = next(w for w in waits if plan.limit_names[w.limit] == "gp3 volume IOPS")
    l, rate = iops.limit, float(plan.rate_in_force(iops.limit, set()))
    loads = [last.x * float(s.cost[l]) / rate for s in found]
    dwells = [s.dwell_s for s in found]
    for on, hit in (((1, 1), 1.0), ((0, 0), 0.0)):
        u, factors = followed_shares(iops.rho, loads, dwells, iops.corr_s, plan.members, on)
        member = member_mix(mix, found, factors, plan.members)
        assert last.x * float(member.cost[l]) / rate == pytest.approx(u, rel=1e-9)
        commits = [io for c in member.classes for io in c.ios if io.op == 2]
        for io in commits:  # the swing is followed all but whole: dwells of ~0.5 s, tau of ms
            assert _hit(plan, l, io)[0] == pytest.approx(hit, abs=0.02)
        reads = [io for c in member.classes for io in c.ios if io.op == 0]
        assert all(_hit(plan, l, io)[0] == 0.5 for io in reads)  # reads spread as before
    assert u < iops.rho < followed_shares(iops.rho, loads, dwells, iops.corr_s, plan.members,
                                          (1, 1))[0]


def test_a_first_wait_coupled_to_a_member_has_that_members_law() -> None:
    """The chain's first wait, each point taken to the member's wait over its own ranks, has
    the member's mean exactly and its tail: a member busier than the mixture waits more, its
    atom at 0 included (the mixture's zero points above the member's own atom take its waits
    as their mean)."""
    zero = Dist(np.array([0.0]), np.array([1.0]))
    member = mixture([(0.8, zero), (0.2, exponential(2e-3))])
    calm = mixture([(0.96, zero), (0.04, exponential(1e-3))])
    source = mixture([(0.5, member), (0.5, calm)])  # a wait at a member picked at random
    got = Dist(_coupled(source, member, source.values, first=True), source.weights)
    assert float(np.dot(got.values, got.weights) / got.weights.sum()) == pytest.approx(
        member.mean, rel=1e-9)
    for q in (0.9, 0.99, 0.999):
        assert got.quantile(q) == pytest.approx(member.quantile(q), rel=0.03), q
    # The mixture's zero points whose ranks run past the member's atom (0.8 of 0.88) wait.
    assert float(got.values[source.values == 0].max()) > 0
    # A later I/O's wait keeps its rank: none stays none (a chain that died is redrawn), and a
    # wait moves up to the busier member's at the same quantile.
    w = np.array([0.0, source.quantile(0.95), source.quantile(0.99)])
    later = _coupled(source, member, w, first=False)
    assert later[0] == 0.0
    assert later[1] == pytest.approx(member.quantile(0.95), rel=0.03)
    assert later[2] == pytest.approx(member.quantile(0.99), rel=0.03)
    assert (later[1:] > w[1:]).all()


def test_a_raid0_masters_commits_wait_at_their_logs_member() -> None:
    """The main job's master at its headroom load: in each state of the array's streams the
    volume IOPS limit carries each log's member wait, and over the placements the member
    carrying a log waits longer than a member picked at random (its stream's writes are on
    it)."""
    plan, mix, last, waits, mean_wait = _main_job_master()
    states = array_states(plan, mix, last.x, list(last.rates), waits, mean_wait)
    assert states is not None
    share = states.shares.mean(axis=0)
    at_log = at_random = 0.0
    for p, state in zip(share, states.states, strict=True):
        coupled = [w for w in state if w.log_dists]
        assert coupled, "no limit carries the logs' members"
        for w in coupled:
            assert {log for log, _ in w.log_dists} == {0, 1}  # the redo log and the binlog
            at_log += p * float(np.mean([d.mean for _, d in w.log_dists]))
            at_random += p * w.wait_dist().mean
    assert at_log > 1.05 * at_random
