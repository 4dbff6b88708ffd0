"""The MySQL screen judges a server's p99 over weeks, with its volumes' slow episodes, as the
result's variability estimate states it (`recommend.variability`): the usual state and the state
with one volume slowed, mixed by their shares of time (`mysql_search.long_run`). Before, the
screen judged the usual state alone, so a gp2 array whose usual p99 met 5 ms, but not its p99
over weeks, could reach the event simulation and be the answer (issue 10, item 4)."""

import pytest

from advisor.catalog.model import Catalog
from advisor.layout.cost import monthly_usd
from advisor.layout.model import resolve
from advisor.sim.analytic.mix import device_key, logical_service
from advisor.sim.plan import episode_share, steady, with_member_slow
from recommend import mysql_search as ms
from recommend.request import MysqlSizeRequest
from recommend.result import MysqlSizeResult
from tests.recommend.conftest import MAIN_JOB

LATENCY_BOUND = MysqlSizeRequest(tps=627, reads=3.25, data_gb=500, p99_ms=5)


def _candidate(catalog: Catalog, spec: str, role: str = "master") -> ms.Candidate:
    layout = resolve(spec, catalog)
    return ms.Candidate(layout=layout, role=role, monthly_usd=monthly_usd(layout))


def test_one_slowed_member_is_one_i_o_in_members_on_the_analytic_device(
        catalog: Catalog) -> None:
    """Members alike keep one device model (every plan the catalog compiles); with one member
    of a RAID 0 slowed, a random read lands on it one time in `members`: its service time is the
    members' mixture, mean for mean, and the single volume slowed alike is the slow part."""
    plan = ms.Candidate(layout=resolve("c5.large:raid0:2xgp3:60GiB", catalog), role="master",
                        monthly_usd=0.0).plan(catalog)
    assert device_key(plan).rows == ()
    assert device_key(steady(plan)) == device_key(plan)
    slowed = with_member_slow(plan, 0.5, member=1)
    assert len(device_key(slowed).rows) == 2
    size = 16 * 1024.0  # within a chunk: one member
    usual = logical_service(device_key(plan), 0, size)[0]
    mixed = logical_service(device_key(slowed), 0, size)[0]
    one = ms.Candidate(layout=resolve("c5.large:gp3:120GiB", catalog), role="master",
                       monthly_usd=0.0).plan(catalog)
    slow_one = logical_service(device_key(with_member_slow(one, 0.5)), 0, size)[0]
    assert logical_service(device_key(one), 0, size)[0].mean == pytest.approx(usual.mean)
    assert mixed.mean == pytest.approx((usual.mean + slow_one.mean) / 2, rel=1e-6)
    assert slow_one.mean > 1.9 * usual.mean  # latency x 2, transfer time x 2
    assert usual.quantile(0.5) < mixed.quantile(0.5) < slow_one.quantile(0.5)


def test_the_screen_refuses_a_server_that_misses_the_slo_over_weeks(catalog: Catalog) -> None:
    """The latency-bound request's RAID 0 of four gp2 on r6g.xlarge: its usual p99 at the
    headroom load meets 5 ms, but one of its four volumes is in a slow episode ~3.9 % of the
    time, and over weeks its p99 is well over 5 ms. The screen says so, with both states."""
    c = _candidate(catalog, "r6g.xlarge:raid0:4xgp2:334GiB")
    plan = c.plan(catalog)
    reason = ms._screen(c, plan, LATENCY_BOUND, 1, None)
    assert c.at_headroom is not None
    assert c.at_headroom.p99_s * 1000 <= LATENCY_BOUND.p99_ms
    server = ms.server_for(LATENCY_BOUND, c.layout, "master", 1, LATENCY_BOUND.target_tps, None)
    weeks = ms.long_run(plan, server, LATENCY_BOUND)
    assert weeks is not None
    assert weeks.usual_p99_s == pytest.approx(c.at_headroom.p99_s, rel=1e-9)
    assert weeks.share == pytest.approx(episode_share(plan.profile.slow_share, 4))
    assert weeks.usual_p99_s < weeks.p99_s < weeks.episode_p99_s
    assert weeks.p99_s * 1000 > 1.1 * LATENCY_BOUND.p99_ms
    assert reason is not None
    assert reason.startswith(f"master p99 over weeks {weeks.p99_s * 1000:,.1f} ms > 5 ms at "
                             "headroom load 815 tps with its volumes' slow episodes")
    assert "one of its 4 volumes" in reason
    assert "ebs-gp2" in reason
    assert c.details["p99_ms_long_run"] == pytest.approx(weeks.p99_s * 1000, abs=1e-3)


def test_a_server_without_episodes_or_transactions_has_no_long_run(catalog: Catalog) -> None:
    """Instance store has no slow episodes in its device model: its p99 over weeks is the
    usual one, and the screen does not compute another."""
    c = _candidate(catalog, "m5d.large:store")
    plan = c.plan(catalog)
    assert not plan.variable
    server = ms.server_for(MAIN_JOB, c.layout, "master", 1, MAIN_JOB.target_tps, None)
    assert ms.long_run(plan, server, MAIN_JOB) is None
    assert ms._screen(c, plan, MAIN_JOB, 1, None) is None
    assert "p99_ms_long_run" not in c.details


@pytest.mark.slow
def test_the_screens_long_run_agrees_with_the_event_simulations(
        main_job_sized: MysqlSizeResult, catalog: Catalog) -> None:
    """The main job's answer (RAID 0 of two gp3 for both roles): the screen's p99 in an episode
    and over weeks against the event simulation's (`variability`: the headroom check re-run
    without episodes and EPISODE_STRATA forced-episode runs), within issue 10's 10 %. Measured
    2026-11-30: episode 20.61 ms vs 19.55 (+5.4 %), over weeks 8.09 vs 8.81 (-8.2 %) on the
    master; 4.65 vs 4.35 (+6.9 %) and 1.48 vs 1.44 (+2.6 %) on the replica
    (bench/long_run_screen.py has the answers of six requests)."""
    rec = main_job_sized.recommendation
    assert rec.variability is not None
    for s in rec.variability.servers:
        spec = rec.master if s.role == "master" else rec.replicas[0]
        c = _candidate(catalog, spec, s.role)
        server = ms.server_for(MAIN_JOB, c.layout, s.role, 1, MAIN_JOB.target_tps, None)
        weeks = ms.long_run(c.plan(catalog), server, MAIN_JOB)
        assert weeks is not None
        assert s.p99_ms_episode
        assert s.p99_ms_long_run
        assert weeks.share == pytest.approx(s.episode_share, abs=1e-6)
        assert weeks.episode_p99_s * 1000 == pytest.approx(s.p99_ms_episode, rel=0.10), s.role
        assert weeks.p99_s * 1000 == pytest.approx(s.p99_ms_long_run, rel=0.10), s.role


def test_the_episode_nodes_are_gauss_legendre_over_the_speed_loss(catalog: Catalog) -> None:
    """`episode_nodes` is numpy's Gauss-Legendre rule (computed without numpy.polynomial's
    import) mapped onto the model's uniform speed loss from 0 to 1 - 1 / slow_factor, with
    weights summing to 1: for count 4 as the screen uses them."""
    import numpy as np

    from advisor.sim.plan import episode_nodes

    plan = _candidate(catalog, "c5.large:gp3:120GiB").plan(catalog)
    largest = 1 - 1 / plan.profile.slow_factor
    for count in (1, 2, 3, ms.EPISODE_NODES, 8):
        x, w = np.polynomial.legendre.leggauss(count)
        nodes = episode_nodes(plan, count)
        assert [loss for loss, _ in nodes] == pytest.approx(list(largest * (x + 1) / 2))
        assert [weight for _, weight in nodes] == pytest.approx(list(w / 2))
        assert sum(weight for _, weight in nodes) == pytest.approx(1.0)


def test_an_answer_the_event_simulation_refuses_over_weeks_gives_way_to_the_next(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the event simulation's p99 over weeks (`variability`) misses the SLO for a server
    of the cheapest verified deployment, that server is rejected with the event simulation's
    figures and the next verified deployment is the answer (here the first answer's master is
    made to miss by 1 ms: the screen and the event simulation agree on the real ones)."""
    from dataclasses import replace

    from recommend import size as sz
    from recommend.result import Variability

    real = sz.variability
    seen: list[str] = []

    def variability(servers: list[ms.Candidate], *args: object, **kw: object) -> Variability:
        got = real(servers, *args, **kw)
        assert got is not None
        seen.append(servers[0].spec)
        if len(seen) > 1:
            return got
        slow = MAIN_JOB.p99_ms + 1.0
        rows = tuple(replace(s, p99_ms_long_run=slow) if s.role == "master" else s
                     for s in got.servers)
        return replace(got, servers=rows, p99_ms_long_run=slow, meets_slo_long_run=False)

    monkeypatch.setattr(sz, "variability", variability)
    res = sz.size_mysql(MAIN_JOB, catalog)
    assert len(seen) == 2
    refused = seen[0]
    assert res.recommendation.master != refused
    assert res.recommendation.variability is not None
    assert res.recommendation.variability.meets_slo_long_run
    assert res.search.long_run_rejected == 1
    why = next(r for r in res.rejected if r.deployment == f"master {refused}")
    assert why.stage == "verified"
    assert why.reason.startswith(f"master p99 over weeks {MAIN_JOB.p99_ms + 1:,.2f} ms > 10 ms "
                                 "at headroom load 815 tps in the event simulation")
    assert all(a.master != refused for a in res.alternatives)


def test_the_usual_state_composed_beside_the_episode_nodes_is_the_screens(
        catalog: Catalog) -> None:
    """`phase_dists` with the usual mix among the others gives, for it, the very distribution
    the screen's steady state reads its p99 from (`phase_latency`): the waits taken once and
    each class's summed waits reused change nothing, on a single volume and on RAID 0 (where
    the request times are averaged over the streams' placements)."""
    from advisor.sim.analytic import phase_dists, phase_latency, steady_phase

    for spec in ("m6g.large:gp3:120GiB", "m6g.large:raid0:2xgp3:60GiB"):
        c = _candidate(catalog, spec)
        plan = c.plan(catalog)
        server = ms.server_for(MAIN_JOB, c.layout, "master", 1, MAIN_JOB.target_tps, None)
        judged, mix = ms._judged_mix(steady(plan), server, MAIN_JOB)
        rate = server.rate_tps
        last = steady_phase(judged, mix, rate=rate, duration_s=MAIN_JOB.peak_hours * 3600)
        lat = phase_latency(judged, mix, last, rate)
        usual, same = phase_dists(judged, mix, [mix, mix], last, rate)
        assert usual.quantile(0.99) == pytest.approx(lat.p99_s, rel=1e-12)
        assert usual.quantile(0.5) == pytest.approx(lat.p50_s, rel=1e-12)
        assert usual.mean == pytest.approx(lat.mean_s, rel=1e-12)
        assert (same.values == usual.values).all()
        assert ms.evaluate(plan, server, MAIN_JOB).p99_s == pytest.approx(lat.p99_s, rel=1e-12)


@pytest.mark.parametrize(("spec", "op", "fan", "size"), [
    ("m6g.2xlarge:raid1:2xgp3:120GiB", 1, 2, 16384),  # a mirrored write: both members
    ("m6g.2xlarge:raid10:4xgp3:60GiB", 1, 2, 16384),  # one pair of two
    ("m6g.2xlarge:raid10:4xgp3:60GiB", 1, 4, 262144),  # two chunks: both pairs
    ("m6g.2xlarge:raid0:4xgp3:30GiB", 0, 2, 262144),  # two chunks: two members in a row
])
def test_an_i_o_on_several_members_one_slowed_meets_them_as_the_kernel_maps_it(
        catalog: Catalog, spec: str, op: int, fan: int, size: int) -> None:
    """With member 1 slowed (speed loss 60 %), an I/O on `fan` members completes with the
    slowest of those the kernel maps it to (`_submit_py`): its first chunk on any data slot
    alike, its pieces on the slots after it, a mirrored write on the whole pair or array.
    Against a Monte Carlo of that mapping from the same device model (400,000 draws)."""
    import numpy as np

    from advisor.sim.analytic.mix import _service_dist
    from advisor.sim.plan import compile_plan

    plan = with_member_slow(compile_plan(resolve(spec, catalog), catalog), 0.6, member=1)
    m, n = plan.members, 400_000
    rng = np.random.default_rng(3)

    def draws(k: int) -> np.ndarray:
        body = np.exp(plan.dev_mu[k, op] + plan.dev_sigma[k, op] * rng.standard_normal(n))
        lo, hi = plan.dev_tail_lo[k, op], plan.dev_tail_hi[k, op]
        tail = np.exp(lo + rng.random(n) * (hi - lo))
        return (np.where(rng.random(n) < plan.dev_ptail[k, op], tail, body)
                + size / plan.dev_xfer_bps[k])

    each = [draws(k) for k in range(m)]
    if ":raid1:" in spec:
        took = np.max(each, axis=0)
    elif ":raid10:" in spec:
        first = rng.integers(0, m // 2, n)
        took = np.max([np.choose(2 * ((first + j) % (m // 2)) + k, each)
                       for j in range(fan // 2) for k in (0, 1)], axis=0)
    else:
        first = rng.integers(0, m, n)
        took = np.max([np.choose((first + j) % m, each) for j in range(fan)], axis=0)
    d = _service_dist(device_key(plan), op, float(size), fan, False)
    assert d.mean == pytest.approx(float(took.mean()), rel=0.01)
    for q in (0.5, 0.9, 0.99):
        assert d.quantile(q) == pytest.approx(float(np.quantile(took, q)), rel=0.01), q
