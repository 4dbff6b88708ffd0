"""`size` reports how the answer changes with variability (issue 11, item 5): the
recommendation's verified p99 at the headroom load with the volumes' slow episodes (the default)
beside the same check without them (same seeds and replications), and its p99 over weeks (the
usual state mixed with one volume in an episode by their shares of time), in the JSON, the table
and the report."""

import math
from dataclasses import replace

import numpy as np
import pytest

from advisor.catalog.model import Catalog
from advisor.layout.cost import monthly_usd
from advisor.layout.model import resolve
from advisor.serial import to_json
from advisor.sim.plan import steady, with_member_slow
from advisor.sim.stats import LatencyStats
from recommend.mysql_search import EPISODE_STRATA, Candidate, _verify, des_episode, des_steady
from recommend.request import MysqlSizeRequest
from recommend.result import MysqlSizeResult, load_size_result, variability_summary
from recommend.variability import episode_share, mixture_quantile_s, variability
from tests.recommend.conftest import MAIN_JOB

REQ = MAIN_JOB


@pytest.fixture(scope="module")
def sized(main_job_sized: MysqlSizeResult) -> MysqlSizeResult:
    return main_job_sized


def _checked(catalog: Catalog, spec: str, req: MysqlSizeRequest) -> Candidate:
    layout = resolve(spec, catalog)
    c = Candidate(layout=layout, role="master", monthly_usd=monthly_usd(layout))
    _verify(c, catalog, req, 1, None)
    return c


def test_the_recommendation_states_its_tail_with_and_without_slow_episodes(
        sized: MysqlSizeResult) -> None:
    rec = sized.recommendation
    v = rec.variability
    assert v is not None
    assert {s.role for s in v.servers} == set(rec.verified)
    for s in v.servers:
        head = next(x for x in rec.verified[s.role].loads if x.load == "headroom")
        assert s.p99_ms == head.p99_ms  # "with" is the verified check itself
        assert s.p99_ci95_ms == head.p99_ci95_ms
        assert s.replications == head.replications  # the same seeds
        assert 0 < s.episode_chance < 1 if s.variable else s.episode_chance == 0
    assert v.p99_ms == max(s.p99_ms for s in v.servers)
    assert v.p99_ms_steady == max(s.p99_ms_steady for s in v.servers)
    assert v.cost_ms == pytest.approx(v.p99_ms - v.p99_ms_steady, abs=1e-3)
    assert v.tps == pytest.approx(REQ.target_tps)
    assert f"{v.p99_ms:,.2f} ms" in v.text
    assert f"{v.p99_ms_steady:,.2f} ms" in v.text
    back = load_size_result(to_json(sized))
    assert isinstance(back, MysqlSizeResult)
    assert back.recommendation.variability == v


def test_the_long_run_p99_mixes_the_usual_and_the_episode_state(sized: MysqlSizeResult,
                                                                catalog: Catalog) -> None:
    """Each server of the main job's answer (EBS gp3 volumes: episodes on) states the share of
    time one of its volumes is slow, its p99 then, and the long-run p99 between the two states';
    the deployment's is its slowest server's, judged against the SLO."""
    v = sized.recommendation.variability
    assert v is not None
    assert v.p99_ms_long_run is not None
    assert any(s.variable for s in v.servers)
    for s in v.servers:
        assert s.p99_ms_long_run is not None
        assert s.episode_share is not None
        if not s.variable:
            assert s.episode_share == 0
            assert s.p99_ms_episode is None
            assert s.p99_ms_long_run == s.p99_ms
            continue
        assert s.p99_ms_episode is not None
        spec = sized.recommendation.master if s.role == "master" \
            else sized.recommendation.replicas[0]
        layout = resolve(spec, catalog)
        share = Candidate(layout=layout, role=s.role, monthly_usd=0.0).plan(
            catalog).profile.slow_share
        assert s.episode_share == pytest.approx(1 - (1 - share) ** layout.spec.count, abs=1e-6)
        # an episode slows a volume: its p99 is above the usual one, and the mix is between
        assert s.p99_ms_episode > s.p99_ms_steady
        assert s.p99_ms_steady < s.p99_ms_long_run < s.p99_ms_episode
    assert v.p99_ms_long_run == max(s.p99_ms_long_run or 0.0 for s in v.servers)
    assert v.meets_slo_long_run == (v.p99_ms_long_run <= REQ.p99_ms)
    assert f"~{v.p99_ms_long_run:,.2f} ms" in v.text
    assert f"long-run p99 at headroom {v.p99_ms_long_run:,.2f} ms" in variability_summary(v)


def _stats(rng: np.random.Generator, median_s: float, n: int) -> LatencyStats:
    st = LatencyStats()
    st.add(rng.lognormal(math.log(median_s), 0.3, n))
    return st


def test_the_mixture_p99_lies_between_the_states_and_weighs_them_by_share() -> None:
    """Weights are per request of each state, whatever its sample count: share 0 gives the usual
    p99, share 1 the episode's, and in between the p99 rises with the share."""
    rng = np.random.default_rng(1)
    usual, slow = _stats(rng, 0.002, 50_000), _stats(rng, 0.010, 7_000)
    lo, hi = usual.quantile_s(99), slow.quantile_s(99)
    assert mixture_quantile_s([(1.0, usual), (0.0, slow)], 99) == pytest.approx(lo, rel=1e-9)
    assert mixture_quantile_s([(0.0, usual), (1.0, slow)], 99) == pytest.approx(hi, rel=1e-9)
    last = lo
    for share in (0.001, 0.005, 0.01, 0.02, 0.1, 0.5):
        p99 = mixture_quantile_s([(1 - share, usual), (share, slow)], 99)
        assert lo < p99 < hi
        assert p99 > last
        last = p99
    # 2 % of the time at 5x: the mix's 99th percentile is where 1 % of the mass lies above,
    # read from the exact mixture of the two log-normals
    share = 0.02
    p99 = mixture_quantile_s([(1 - share, usual), (share, slow)], 99)
    big = np.concatenate([rng.lognormal(math.log(0.002), 0.3, 980_000),
                          rng.lognormal(math.log(0.010), 0.3, 20_000)])
    assert p99 == pytest.approx(float(np.quantile(big, 0.99)), rel=0.02)
    assert episode_share(0.01, 1) == pytest.approx(0.01)
    assert episode_share(0.01, 4) == pytest.approx(1 - 0.99 ** 4)


def test_a_member_slowed_for_the_whole_run(catalog: Catalog) -> None:
    """`with_member_slow` multiplies one member's service (latency draw and transfer) by
    1 / (1 - loss) and has no episodes of its own; loss 0 is the plan without episodes."""
    c = _checked(catalog, "c5.large:raid0:4xgp3:30GiB", REQ)
    plan = c.plan(catalog)
    assert plan.variable
    slow = with_member_slow(plan, 0.75, member=2)
    assert not slow.variable
    assert slow.dev_mu[2] == pytest.approx(plan.dev_mu[2] + math.log(4))
    assert slow.dev_tail_hi[2] == pytest.approx(plan.dev_tail_hi[2] + math.log(4))
    assert slow.dev_xfer_bps[2] == pytest.approx(plan.dev_xfer_bps[2] / 4)
    for m in (0, 1, 3):
        assert (slow.dev_mu[m] == plan.dev_mu[m]).all()
        assert slow.dev_xfer_bps[m] == plan.dev_xfer_bps[m]
    same = with_member_slow(plan, 0.0)
    base = steady(plan)
    assert (same.dev_mu == base.dev_mu).all()
    assert (same.dev_xfer_bps == base.dev_xfer_bps).all()
    with pytest.raises(ValueError, match="speed loss"):
        with_member_slow(plan, 1.0)
    with pytest.raises(ValueError, match="member 4"):
        with_member_slow(plan, 0.5, member=4)


def test_forcing_an_episode_raises_the_p99_on_ebs_ssd(catalog: Catalog) -> None:
    """The forced-episode run on a gp3 RAID 0: EPISODE_STRATA strata at the midpoints of the
    model's uniform speed loss, rotating over the members, as long together as the headroom
    check; each raises the p99 over the usual state's, the more the larger the loss."""
    req = MysqlSizeRequest(tps=627, reads=3.25, p99_ms=50.0)
    c = _checked(catalog, "c5.large:raid0:4xgp3:30GiB", req)
    usual: list[LatencyStats] = []
    off = des_steady(c, catalog, req, 1, None, keep=usual)
    assert off is not None
    assert len(usual) == off.replications
    runs = des_episode(c, catalog, req, 1, None)
    assert len(runs) == EPISODE_STRATA
    largest = 1 - 1 / catalog.latency_profiles["ebs-gp3"].slow_factor
    assert [r.loss for r in runs] == pytest.approx(
        [largest * (k + 0.5) / EPISODE_STRATA for k in range(EPISODE_STRATA)])
    assert [r.member for r in runs] == [k % 4 for k in range(EPISODE_STRATA)]
    assert sum(r.latency.n for r in runs) == pytest.approx(off.requests, rel=0.05)
    p99s = [r.latency.quantile_s(99) * 1000 for r in runs]
    assert p99s[-1] > 1.5 * off.p99_ms, (p99s, off.p99_ms)
    assert p99s[-1] > p99s[0]
    episode = mixture_quantile_s([(1 / len(runs), r.latency) for r in runs], 99) * 1000
    assert episode > off.p99_ms


def test_a_layout_without_episodes_keeps_its_p99_over_weeks(catalog: Catalog) -> None:
    """Instance store has no slow episodes: no extra run, share 0, the long-run p99 is the
    verified one."""
    req = MysqlSizeRequest(tps=627, reads=3.25, p99_ms=50.0)
    store = _checked(catalog, "m5d.2xlarge:store", req)
    assert des_episode(store, catalog, req, 1, None) == ()
    v = variability([store], req, catalog, 1, None)
    assert v is not None
    (s,) = v.servers
    assert not s.variable
    assert s.episode_share == 0
    assert s.p99_ms_episode is None
    assert v.p99_ms_long_run == s.p99_ms == v.p99_ms
    assert v.meets_slo_long_run
    assert "no slow episodes" in variability_summary(v)


def test_results_saved_before_the_long_run_figures_still_load_and_print(
        sized: MysqlSizeResult, capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.size_cmd import print_size
    from advisor.report.render import render_report

    data = to_json(sized)
    old = data["recommendation"]["variability"]
    for key in ("p99_ms_long_run", "meets_slo_long_run"):
        del old[key]
    for s in old["servers"]:
        for key in ("episode_share", "p99_ms_episode", "p99_ms_long_run"):
            s.pop(key, None)
    back = load_size_result(data)
    assert isinstance(back, MysqlSizeResult)
    v = back.recommendation.variability
    assert v is not None
    assert v.p99_ms_long_run is None
    assert v.meets_slo_long_run is None
    assert all(s.p99_ms_long_run is None for s in v.servers)
    assert to_json(back)["recommendation"]["variability"] == old  # absent stays absent
    print_size(back)
    text = " ".join(capsys.readouterr().out.split())
    assert f"p99 at headroom {v.p99_ms:,.2f} ms with slow episodes (default)" in text
    page = render_report(to_json(back))
    assert "p99 without slow episodes" in page


def test_without_slow_episodes_the_tail_is_shorter_when_they_are_common(
        catalog: Catalog) -> None:
    """A catalog whose gp3 volumes spend half their time in slow episodes: the steady re-run
    (same seeds) has a clearly lower p99 than the verified check; with the built-in share the
    run is made the same way, and a device model without episodes is not run again."""
    gp3 = catalog.latency_profiles["ebs-gp3"]
    slow = replace(catalog, latency_profiles={**catalog.latency_profiles,
                                              "ebs-gp3": replace(gp3, slow_share=0.5)})
    req = MysqlSizeRequest(tps=627, reads=3.25, p99_ms=50.0)
    c = _checked(slow, "c5.large:raid0:4xgp3:30GiB", req)
    head = next(x for x in c.details["des_loads"] if x.load == "headroom")
    off = des_steady(c, slow, req, 1, None)
    assert off is not None
    assert off is not head
    assert off.replications == head.replications
    assert off.p99_ms < 0.8 * head.p99_ms, (off.p99_ms, head.p99_ms)

    store = _checked(catalog, "m5d.2xlarge:store", req)
    assert not store.plan(catalog).variable
    same = des_steady(store, catalog, req, 1, None)
    assert same is next(x for x in store.details["des_loads"] if x.load == "headroom")


def test_an_unchecked_candidate_has_no_steady_check(catalog: Catalog) -> None:
    layout = resolve("c5.large:raid0:2xgp3:30GiB", catalog)
    c = Candidate(layout=layout, role="master", monthly_usd=monthly_usd(layout))
    assert des_steady(c, catalog, REQ, 1, None) is None


def test_the_table_and_the_report_say_it(sized: MysqlSizeResult,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.size_cmd import print_size
    from advisor.report.render import render_report

    v = sized.recommendation.variability
    assert v is not None
    print_size(sized)
    text = " ".join(capsys.readouterr().out.split())
    assert "variability" in text
    assert "· variability: over weeks, with the volumes' slow episodes" in text
    assert f"long-run p99 at headroom {v.p99_ms_long_run:,.2f} ms" in text
    page = render_report(to_json(sized))
    assert "long-run p99 (slow episodes)" in page
    assert "Variability: over weeks, with the volumes" in page


def test_a_forced_episode_is_the_kernels_own_episode(catalog: Catalog) -> None:
    """`with_member_slow` at the speed loss the event kernel draws for a member whose every slot
    is slow (share 1, one slot longer than the run) gives the same run, request for request: the
    forced episode is the model's episode, not a model of its own."""
    from advisor.sim.des import run_des
    from advisor.sim.kernel import _slow_factor
    from recommend.mysql_search import DES_WARMUP_S, server_for

    c = _checked(catalog, "c5.large:raid0:4xgp3:30GiB", REQ)
    plan = c.plan(catalog)
    largest = 1 - 1 / plan.profile.slow_factor
    rows = np.zeros_like(plan.dev_slow)
    rows[1] = (1e7, 1.0, largest)  # member 2: one slow slot for the whole run
    kernel_plan = replace(steady(plan), dev_slow=rows)
    assert kernel_plan.variable
    seed = 5
    devm = kernel_plan.packed()[3]
    devm[:, 11] = np.random.default_rng([seed, 11]).integers(1, 2**52, plan.members)  # as des
    seconds = 6.0
    factor = _slow_factor(1, 0.0, devm)
    assert factor == _slow_factor(1, DES_WARMUP_S + seconds, devm) > 1  # one slot, slow
    server = server_for(REQ, c.layout, "master", 1, REQ.target_tps, None)
    kernel, forced, usual = (
        run_des(p, server, duration_s=DES_WARMUP_S + seconds, seed=seed, warmup_s=DES_WARMUP_S,
                couple_background=True).request_latency["all"]
        for p in (kernel_plan, with_member_slow(plan, 1 - 1 / factor, member=1), steady(plan)))
    assert forced.n == kernel.n
    assert forced.mean_s == pytest.approx(kernel.mean_s, rel=1e-9)
    assert forced.quantile_s(99) == pytest.approx(kernel.quantile_s(99), rel=1e-9)
    assert forced.quantile_s(99) > usual.quantile_s(99)


def test_the_summary_names_episodes_when_only_a_steady_server_is_the_slowest() -> None:
    """An instance-store master (no episodes) slower over weeks than an EBS replica (episodes):
    the summary names the steady server as the slowest, and does not say the deployment has no
    slow episodes; with no variable server at all it says so."""
    from recommend.result import SteadyCheck, Variability, variability_summary

    def check(role: str, variable: bool, long_run: float) -> SteadyCheck:
        return SteadyCheck(role=role, p99_ms=long_run, p99_ci95_ms=(long_run, long_run),
                           p99_ms_steady=long_run, p99_ci95_ms_steady=(long_run, long_run),
                           replications=2, seconds=10.0, variable=variable,
                           episode_chance=0.1 if variable else 0.0, passed_steady=True,
                           episode_share=0.02 if variable else 0.0,
                           p99_ms_episode=long_run * 2 if variable else None,
                           p99_ms_long_run=long_run)

    mixed = Variability(tps=800.0, p99_ms=6.0, p99_ms_steady=6.0, cost_ms=0.0,
                        servers=(check("master", False, 6.0), check("replica", True, 2.0)),
                        text="", p99_ms_long_run=6.0, meets_slo_long_run=True)
    words = variability_summary(mixed)
    assert "no slow episodes in the device model" not in words
    assert "master, whose device model has no slow episodes" in words
    steady = Variability(tps=800.0, p99_ms=6.0, p99_ms_steady=6.0, cost_ms=0.0,
                         servers=(check("master", False, 6.0),), text="",
                         p99_ms_long_run=6.0, meets_slo_long_run=True)
    assert "no slow episodes in the device model" in variability_summary(steady)


def test_a_replica_of_a_write_only_load_has_no_latency_to_mix() -> None:
    """With no reads the replica runs no transactions: the variability note says so instead of
    mixing an empty run's latency ("0.00 ms usually, nan ms while its volume is in a slow
    episode")."""
    from advisor.catalog import builtin_catalog
    from recommend.size import size_mysql

    result = size_mysql(MysqlSizeRequest(tps=1, reads=0), builtin_catalog())
    v = result.recommendation.variability
    assert v is not None
    assert "nan" not in v.text
    assert "replica serves no transactions" in v.text
    assert {s.role for s in v.servers} == {"master"}
    assert all(math.isfinite(s.p99_ms_long_run or 0.0) for s in v.servers)
