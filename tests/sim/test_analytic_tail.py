"""The analytic tail of multi-I/O transactions: the count distribution, group commit, limit
waits, and agreement with the event simulation on MySQL deployments (bench/analytic_grid.py
prints the whole grid into docs/analytic-vs-des.md)."""

import math

import numpy as np
import pytest

from advisor.sim.analytic.dist import (
    ZERO,
    Dist,
    atom_or,
    count_pmf,
    exponential,
    gamma,
    pmf_mean,
    repeat_pmf,
)
from advisor.sim.analytic.waits import (
    Chain,
    _chain_scale,
    _Cluster,
    _congested,
    class_clusters,
    correlated_sum,
    group_commit,
    regressed_sum,
)


def _var(d: Dist) -> float:
    w = d.weights / d.weights.sum()
    m = float(np.dot(w, d.values))
    return float(np.dot(w, (d.values - m) ** 2))


@pytest.mark.parametrize(("count", "trials"), [(3.88, 8), (0.97, 1), (7.5, 40), (250.0, 1000)])
def test_binomial_count_pmf_has_the_binomial_mean_and_variance(count: float,
                                                              trials: int) -> None:
    """Binomial(trials, count / trials): mean count, variance count (1 - count / trials)."""
    pmf = count_pmf(count, trials)
    assert sum(p for _, p in pmf) == pytest.approx(1.0)
    assert pmf_mean(pmf) == pytest.approx(count, rel=1e-3)
    var = sum(p * (k - count) ** 2 for k, p in pmf)
    assert var == pytest.approx(count * (1 - count / trials), rel=0.03)


def test_count_without_trials_keeps_the_expected_count() -> None:
    """No trials: the whole part always, the fractional part with that chance."""
    assert count_pmf(3.25, None) == ((3, 0.75), (4, 0.25))
    assert count_pmf(2.0, None) == ((2, 1.0),)
    assert count_pmf(0.0, 5) == ((0, 1.0),)


@pytest.mark.parametrize(("count", "trials"), [(3.88, 8), (5.0, 20), (0.9, 1)])
def test_service_of_a_binomial_count_of_ios_has_the_compound_moments(count: float,
                                                                     trials: int) -> None:
    """S = X_1 + ... + X_K, K ~ Binomial(n, p): E[S] = np E[X] and
    Var[S] = np Var[X] + np (1 - p) E[X]^2 (the law of total variance)."""
    x = gamma(0.4e-3, (0.15e-3) ** 2)  # one page read's service time
    s = repeat_pmf(x, count_pmf(count, trials))
    p = count / trials
    ex, vx = x.mean, _var(x)
    assert s.mean == pytest.approx(count * ex, rel=1e-9)
    assert _var(s) == pytest.approx(count * vx + count * (1 - p) * ex**2, rel=0.04)


def test_binomial_count_widens_the_tail_over_a_fixed_count() -> None:
    """With the same mean, a random count has a longer tail than a fixed one."""
    x = gamma(0.4e-3, (0.1e-3) ** 2)
    fixed = repeat_pmf(x, count_pmf(4.0, None))
    binom = repeat_pmf(x, count_pmf(4.0, 8))
    assert binom.mean == pytest.approx(fixed.mean)
    assert binom.quantile(0.99) > fixed.quantile(0.99) * 1.1


def test_group_commit_with_rare_commits_is_one_flush() -> None:
    """Commits far apart never find the log busy."""
    flush = Dist(np.array([1e-3]), np.array([1.0]))
    assert group_commit(flush, 1e-6).quantile(0.99) == pytest.approx(1e-3, rel=1e-3)


def test_group_commit_busy_chance_follows_the_flush_chain() -> None:
    """Deterministic flush F, Poisson commits at lambda: q = 1 - exp(-lambda F), busy periods
    F / (1 - q), and a commit finds the log busy pi = B / (B + 1 / lambda) of the time, then
    waits a uniform residual of F: mean F + pi F / 2."""
    f, lam = 1e-3, 400.0
    q = 1 - math.exp(-lam * f)
    busy = f / (1 - q)
    pi = busy / (busy + 1 / lam)
    d = group_commit(Dist(np.array([f]), np.array([1.0])), lam)
    assert d.mean == pytest.approx(f + pi * f / 2, rel=0.02)
    w = d.weights / d.weights.sum()
    assert float(w[d.values <= f * 1.0001].sum()) == pytest.approx(1 - pi, abs=0.01)


def test_correlated_waits_keep_the_mean_and_scale_the_variance() -> None:
    """k waits with correlation r^m between waits m apart: mean k E[W], variance
    k Var W (1 + 2 sum_{m<k} (1 - m/k) r^m), and no wait at all with P(W = 0)^n, n the
    equivalent number of independent waits; r = 0 is the independent sum, r -> 1 one wait
    taken k times."""
    w = atom_or(0.3, exponential(0.5e-3))  # a limit's wait: 70 % none
    p0, var_w = 0.7, _var(w)
    k = 6
    for r in (0.0, 0.5, 0.9, 0.999999):
        m = np.arange(1, k)
        factor = 1 + 2 * float(np.dot(1 - m / k, r**m))
        s = correlated_sum(w, k, r)
        assert s.mean == pytest.approx(k * w.mean, rel=1e-6)
        assert _var(s) == pytest.approx(k * var_w * factor, rel=0.05)
        zero = float(s.weights[s.values <= 0].sum() / s.weights.sum())
        assert zero == pytest.approx(p0 ** (k / factor), rel=0.01)
    assert correlated_sum(w, 0, 0.5) is ZERO


def test_congested_single_ios_keep_the_poisson_tail() -> None:
    """Requests of one I/O each are Poisson I/Os: the congested queue is the M/G/1 one (m = 1,
    second-moment rate unchanged)."""
    m, z = _congested([(300.0, 1e-3), (20.0, 4e-3)], [], 0.62)
    assert m == pytest.approx(1.0)
    assert z == pytest.approx(300.0 * 1e-6 + 20.0 * 16e-6)


def test_congested_long_requests_act_like_exponential_service() -> None:
    """Requests of K equal I/Os fed back through a delay (a Jackson network's long routes): the
    second-moment rate tends to twice the single I/Os' (an M/M/1 queue's), not K times (the
    whole request arriving at once); a request's queued I/O has half its I/Os to come."""
    k, a, rate = 50, 1e-3 / 3, 20.0
    cl = _Cluster(rate=rate, pmf=((k, 1.0),),
                  shapes=((1.0, tuple(5e-4 * j for j in range(k))),))
    m, z = _congested([], [(cl, 1.0, a, a * a)], 0.85)
    y = rate * k * a * a
    assert z == pytest.approx(2 * y * k / (k + 1))
    assert m == pytest.approx((1 + k) / 2)


def test_a_request_issues_its_device_ios_in_order_one_service_apart() -> None:
    """A transaction's page reads follow one another a read's service (and mean wait) apart,
    then its CPU step, then its commit: the cluster the limits see is where the I/Os fall, not
    the request's time spread evenly over its I/Os (which made two transactions reading at once
    look slower than a gp2 volume's IOPS limit they outrun)."""
    from advisor.layout import resolve
    from advisor.sim.analytic.mix import IoSpec, RequestClass, build_mix
    from advisor.sim.plan import compile_plan
    from advisor.userfiles import load_catalog

    catalog = load_catalog()
    plan = compile_plan(resolve("c5.large:gp2:650GiB", catalog), catalog)
    cls = RequestClass(probability=1.0, kind=1, ios=(
        IoSpec(op=0, size_bytes=16384, count=3.0),
        IoSpec(op=4, size_bytes=600, count=1.0),
        IoSpec(op=2, size_bytes=4096, count=1.0)))
    mix = build_mix(plan, (cls,), ())
    read, cpu, commit = mix.classes[0].ios
    wait = 1e-4
    (cl,) = class_clusters(mix, 50.0, wait)
    assert cl.rate == pytest.approx(50.0)
    assert cl.pmf == ((4, pytest.approx(1.0)),)
    (p, offsets), = cl.shapes
    r = read.service.mean + wait
    assert p == pytest.approx(1.0)
    assert offsets == pytest.approx((0.0, r, 2 * r, 3 * r + cpu.service.mean))
    # The reads come faster than the even spread would have them.
    even = (3 * read.service.mean + cpu.service.mean + commit.service.mean) / 4 + wait
    assert offsets[1] < even


def test_a_request_of_a_random_count_has_one_shape_per_count() -> None:
    """Binomial page reads: one cluster shape per count, with the count's probability."""
    from advisor.layout import resolve
    from advisor.sim.analytic.mix import IoSpec, RequestClass, build_mix
    from advisor.sim.plan import compile_plan
    from advisor.userfiles import load_catalog

    catalog = load_catalog()
    plan = compile_plan(resolve("c5.large:gp3:70GiB", catalog), catalog)
    cls = RequestClass(probability=0.5, kind=1, ios=(
        IoSpec(op=0, size_bytes=16384, count=1.5, trials=3),
        IoSpec(op=2, size_bytes=4096, count=1.0)))
    (cl,) = class_clusters(build_mix(plan, (cls,), ()), 10.0, 0.0)
    pmf = count_pmf(1.5, 3)
    assert dict(cl.pmf) == pytest.approx({k + 1: p for k, p in pmf})
    by_count = {len(o): p for p, o in cl.shapes}
    assert by_count == pytest.approx({k + 1: p for k, p in pmf})
    assert sum(p for p, _ in cl.shapes) == pytest.approx(1.0)


def _chain(rate: float, k: int, gap: float, op: int = 0) -> _Cluster:
    return _Cluster(rate=rate, pmf=((k, 1.0),), shapes=((1.0, tuple(gap * j for j in range(k))),),
                    ops=((op,) * k,))


def test_requests_of_one_io_are_poisson_ios() -> None:
    """No I/O is chained to another: the M/G/1 mean stands (scale 1)."""
    a = 30e-6
    assert _chain_scale([(2000.0, 1e-3)], [(_chain(20000.0, 1, 0.0), 1.0, a, a * a)],
                        0.8, 0.0) == 1.0


def test_small_chained_ios_see_a_shorter_queue_the_more_so_the_busier() -> None:
    """Reads of 30 us of device capacity, 160 us apart, behind 1 ms background writes: the later
    reads of a request arrive after the queue drained behind the first, so the mean backlog is
    below the M/G/1 value, and further below it near saturation than at a light load (where the
    queue forgets itself between two reads)."""
    a, gap = 30e-6, 160e-6

    def scale(load: float) -> float:
        big = (load * 100.0, 1e-3)  # 10 % of the device at load 1 from 1 ms writes
        cl = _chain(load * 4000.0, 6, gap)  # 72 % from six reads a request
        rho = big[0] * big[1] + cl.rate * 6 * a
        return _chain_scale([big], [(cl, 1.0, a, a * a)], rho, 0.0)

    light, busy = scale(0.35), scale(1.0)
    assert busy < light < 1.0  # the magnitude is checked against the DES: the store loads below


def test_commits_are_chained_and_large_ios_are_not_deflated() -> None:
    """A group's first commit goes out as its request reaches it, right after the request's
    I/O before it (its log was idle), and the binlog's after the redo log's: in the event
    simulation of instance-store masters at 85 % of the knee they see 0.76-0.80 of the mean
    backlog, as later reads do (0.81; `python bench/device_view.py`), so they are chained too.
    A write the device's cache takes ahead waits only beyond it, so the I/O after it finds
    the queue less drained: with the cache, the scale is nearer 1. Chained I/Os whose own work
    outweighs what the queue drains between them see a longer queue, not a shorter one: that
    regime is `_congested`'s, and the scale stays 1."""
    a = 30e-6
    commits = _chain(4000.0, 3, 100e-6, op=2)
    plain = _chain_scale([(100.0, 1e-3)], [(commits, 1.0, a, a * a)], 0.46, 0.0)
    cached = _chain_scale([(100.0, 1e-3)], [(commits, 1.0, a, a * a)], 0.46, 0.0, 1.5e-3)
    assert plain < cached < 1.0
    big = 400e-6
    heavy = _chain(300.0, 6, 100e-6)
    assert _chain_scale([(100.0, 1e-3)], [(heavy, 1.0, big, big * big)],
                        100.0 * 1e-3 + 300.0 * 6 * big, 0.0) == 1.0


def test_a_congested_chain_carries_each_wait_into_the_next() -> None:
    """While the limit stays congested, w' = carry w + step: k waits sum to w (1 - c^k) / (1 -
    c) + step x sum_j (1 - c^j) / (1 - c)."""
    w = Dist(np.array([1e-3, 4e-3]), np.array([0.5, 0.5]))
    c, step, k = 0.9, 2e-4, 5
    s = regressed_sum(w, k, Chain(carry=c, step_s=step, later=ZERO))
    g = (1 - c**k) / (1 - c)
    h = sum((1 - c**j) / (1 - c) for j in range(1, k))
    assert np.allclose(np.sort(s.values), w.values * g + step * h)


def test_a_chain_that_clears_waits_afresh() -> None:
    """A queue that drains between two I/Os of a request (carry 0, step < 0): each later I/O
    waits afresh, independently (mean k E[W], the atom P(W = 0)^k); with no chance to wait
    afresh, only the first I/O waits."""
    w = atom_or(0.3, exponential(2e-3))
    k = 4
    fresh = regressed_sum(w, k, Chain(carry=0.0, step_s=-1e-4))
    assert fresh.mean == pytest.approx(k * w.mean, rel=0.02)
    zero = float(fresh.weights[fresh.values <= 0].sum() / fresh.weights.sum())
    assert zero == pytest.approx(0.7**k, rel=0.02)
    once = regressed_sum(w, k, Chain(carry=0.0, step_s=-1e-4, later=ZERO))
    assert once.mean == pytest.approx(w.mean, rel=1e-3)  # the grid points' mean


def test_a_wait_met_later_starts_a_chain_of_its_own() -> None:
    """A request that meets no queue at its first I/O and then, at each later one, a wait w with
    chance q, which persists (carry 1, step 0) for the rest of it: the first later wait at the
    j-th I/O makes the sum (k - j) w, so P(sum = (k - j) w) = (1 - q)^(j - 1) q and P(0) = (1 -
    q)^(k - 1). Drawn independently instead, the sum would be w x Binomial(k - 1, q). (The sums
    are kept on probability bins, each at its mean: the mean exactly, the survival to about a
    bin's mass.)"""
    w, q, k = 1e-3, 0.2, 5
    later = Dist(np.array([0.0, w]), np.array([1 - q, q]))
    s = regressed_sum(ZERO, k, Chain(carry=1.0, step_s=0.0, later=later))
    p = {k - j: (1 - q) ** (j - 1) * q for j in range(1, k)}  # P(sum = n w), n = 1..k - 1
    assert s.mean == pytest.approx(sum(n * w * pn for n, pn in p.items()), rel=1e-9)
    mass = s.weights / s.weights.sum()
    for n in range(k - 1):
        above = float(mass[s.values > (n + 0.5) * w].sum())
        assert above == pytest.approx(sum(pn for m, pn in p.items() if m > n), abs=0.01)
    # four waits in a row: 0.2 here; independent draws give it q^4 = 0.0016
    assert float(mass[s.values > 3.5 * w].sum()) > 0.18


def test_a_chain_that_died_keeps_its_spread() -> None:
    """Two writes after a request's reads, each waiting only beyond a write-back cache that
    covers every backlog here, add nothing to its waits: the sum is the reads' own at every
    quantile. Chains that die at the writes used to be taken at their mean (with the fresh
    waits after them), which cut the reads' tail: on the m5d.large store master behind a
    replica at 60 % of its knee the write transactions' summed waits were 1.75 ms at p99 with
    the writes and 2.17 ms without them (the event simulation's: 2.25 ms)."""
    w = atom_or(0.5, exponential(1e-3))
    chain = Chain(carry=0.5, step_s=-5e-5, later=atom_or(0.6, exponential(1e-4)))
    reads = regressed_sum(w, 4, chain)
    with_writes = regressed_sum(w, 6, chain, writes=2, ahead_s=1.0)
    assert with_writes.mean == pytest.approx(reads.mean, rel=1e-6)
    for q in (0.5, 0.9, 0.99, 0.999):
        assert with_writes.quantile(q) == pytest.approx(reads.quantile(q), rel=0.02), q


# Deployments of the grid in docs/analytic-vs-des.md (bench/analytic_grid.py), at a load given
# as tps (the share of the knee it was in the grid): the analytic transaction p99 against the
# mean of three 120 s event simulations.
AGREE = [  # (layout, data GiB, replicas, tps)
    pytest.param("c5.large:gp3:70GiB", 50, 0, 186.0, id="c5.large-gp3-r0-30%"),
    pytest.param("c5.large:gp3:70GiB", 50, 0, 372.0, id="c5.large-gp3-r0-60%"),
    pytest.param("c5.large:raid0:2xgp3:35GiB", 50, 1, 715.0, id="c5.large-raid0-r1-60%",
                 marks=pytest.mark.slow),
    pytest.param("r5.xlarge:gp3:70GiB", 50, 1, 330.0, id="r5.xlarge-gp3-r1-30%",
                 marks=pytest.mark.slow),
    pytest.param("r5.xlarge:raid0:2xgp3:35GiB", 50, 1, 1320.0, id="r5.xlarge-raid0-r1-60%",
                 marks=pytest.mark.slow),
    # Instance-store NVMe: commits are acknowledged from the device's write cache and wait
    # only for the backlog beyond it, reads for all of it (17 % high when both waited alike).
    pytest.param("r6id.xlarge:store", 50, 1, 2861.0, id="r6id.xlarge-store-r1-30%",
                 marks=pytest.mark.slow),
    # Near the knee of an NVMe device, whose capacity every I/O waits through: a transaction's
    # later page reads see a shorter queue than Poisson reads would (14-16 % high without it).
    pytest.param("m5d.large:store", 50, 0, 4583.0, id="m5d.large-store-r0-85%",
                 marks=pytest.mark.slow),
    pytest.param("r6id.xlarge:store", 50, 0, 8813.0, id="r6id.xlarge-store-r0-85%",
                 marks=pytest.mark.slow),
    # Near the knee, where a congested limit's queue feeds back on its own requests.
    pytest.param("c5.large:gp2:70GiB", 50, 0, 527.0, id="c5.large-gp2-r0-85%",
                 marks=pytest.mark.slow),
    pytest.param("c5.large:gp3:70GiB", 50, 0, 527.0, id="c5.large-gp3-r0-85%",
                 marks=pytest.mark.slow),
    # The event simulation's binlog takes a redo group whole since 2026-11-29 (MySQL's ordered
    # commit), and this master's p99 fell 5.10 -> 4.86 ms on the grid; the model's group
    # commit took both logs as one at twice the commit rate (+10.2 %) until each log was keyed
    # by itself (2026-11-30).
    pytest.param("r5.xlarge:io1:650GiB:10000iops", 500, 1, 1707.0,
                 id="r5.xlarge-io1-r1-85%", marks=pytest.mark.slow),
]
P99_TOLERANCE = 0.10  # issue 10: screen and event simulation within 10 %


def _p99s(spec: str, data_gb: float, replicas: int, tps: float,
          preset: str = "point-rw", seeds: int = 3) -> tuple[float, float]:
    from advisor.layout import resolve
    from advisor.userfiles import load_catalog
    from workloads.mysql import MysqlParams
    from workloads.mysql_run import Deployment, simulate_mysql
    from workloads.mysql_shape import PRESETS, shape_of

    catalog = load_catalog()
    layout = resolve(spec, catalog)
    dep = Deployment(master=layout, replica=layout if replicas else None)
    params = MysqlParams(tps=tps, data_gb=data_gb, replicas=replicas, shape=shape_of(preset),
                         reads_per_write=PRESETS[preset].reads)
    analytic = simulate_mysql(dep, catalog, params, engine="analytic", duration_s=120.0)
    des = [simulate_mysql(dep, catalog, params, engine="des", duration_s=120.0, seed=seed)
           for seed in range(1, seeds + 1)]
    a = analytic.levels[0].latency_ms.transaction.p99
    d = [r.levels[0].latency_ms.transaction.p99 for r in des]
    assert a is not None
    assert all(x is not None for x in d)
    return float(a), float(np.mean([x for x in d if x is not None]))


def server_p99s(spec: str, data_gb: float, tps: float, role: str,
                seeds: int) -> tuple[float, list[float]]:
    """One server's transaction p99 (`role`: master or replica) of a master and one replica on
    `spec`: the analytic engine's, and each 120 s event simulation's on seeds 1..`seeds`."""
    from advisor.layout import resolve
    from advisor.userfiles import load_catalog
    from workloads.mysql import MysqlParams
    from workloads.mysql_run import Deployment, simulate_mysql
    from workloads.mysql_shape import shape_of

    catalog = load_catalog()
    layout = resolve(spec, catalog)
    dep = Deployment(master=layout, replica=layout)
    params = MysqlParams(tps=tps, data_gb=data_gb, replicas=1, shape=shape_of("point-rw"))
    i = 0 if role == "master" else 1
    a = simulate_mysql(dep, catalog, params, engine="analytic", duration_s=120.0)
    server = a.levels[0].servers[i]
    assert server.role == role
    des = [simulate_mysql(dep, catalog, params, engine="des", duration_s=120.0, seed=seed)
           .levels[0].servers[i].latency_ms.transaction.p99 for seed in range(1, seeds + 1)]
    analytic = server.latency_ms.transaction.p99
    assert analytic is not None
    assert all(x is not None for x in des)
    return float(analytic), [float(x) for x in des if x is not None]


@pytest.mark.parametrize(("spec", "data_gb", "replicas", "tps"), AGREE)
def test_analytic_p99_is_within_10_percent_of_the_event_simulation(
        spec: str, data_gb: float, replicas: int, tps: float) -> None:
    """Transactions of several serial I/Os (page reads, commits): the analytic p99 of the
    deployment within 10 % of the event simulation's (mean of seeds 1-3)."""
    analytic, des = _p99s(spec, data_gb, replicas, tps)
    assert analytic == pytest.approx(des, rel=P99_TOLERANCE), (analytic, des)


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "data_gb", "tps"), [
    pytest.param("c5.large:gp3:70GiB", 50, 358.0, id="c5.large-gp3-70GiB-60%"),
    pytest.param("r5.xlarge:gp3:650GiB", 500, 361.0, id="r5.xlarge-gp3-650GiB-60%"),
])
def test_a_master_behind_a_replica_is_within_10_percent(spec: str, data_gb: float,
                                                        tps: float) -> None:
    """A master behind a replica runs the write transactions alone (~4 page reads and 2 commits
    each) at 60 % of the knee, its volume's IOPS limit ~45 % busy. In the event simulation a
    wait met at a later I/O is followed by more; the model's later waits were draws by
    themselves, and its doublewrite-lifted throughput limit's fast drain was carried into the
    IOPS limit's waits: the master's p99 was 19 % low on both (docs/analytic-vs-des.md)."""
    analytic, des = server_p99s(spec, data_gb, tps, "master", seeds=3)
    mean = float(np.mean(des))
    assert analytic == pytest.approx(mean, rel=P99_TOLERANCE), (analytic, des)


@pytest.mark.slow
def test_a_read_only_transaction_of_many_page_reads_is_within_10_percent() -> None:
    """sysbench oltp_read_only on gp3 at 60 % of its knee: ~14 page reads a transaction, one
    read's service apart, so a few transactions at once outrun the volume's IOPS; spread evenly
    over the transaction they did not, and the analytic p99 was 13.5 % low."""
    analytic, des = _p99s("m5.2xlarge:gp3:650GiB", 500, 0, 448.0, "sysbench-oltp-ro")
    assert analytic == pytest.approx(des, rel=P99_TOLERANCE), (analytic, des)


def test_a_limit_the_clusters_cannot_fill_adds_no_wait() -> None:
    """sysbench oltp_read_only on gp3 at 60 % of its knee: the bandwidth limit runs at ~22 % with
    an 8 ms burst tolerance, which clusters of a few 16 KiB reads never fill. Its M/G/1 tail
    there is lattice round-off (~1e-16); the clusters' large-deviations ratio (up to e^50) must
    not turn that into a wait (it did: every fifth I/O waited 22 ms, p99 118 ms against the
    DES's 12). This load is about the round-off, not the tail's accuracy (-9 % in
    docs/analytic-vs-des.md), hence the bound of twice the DES's, not 10 %."""
    from advisor.layout import resolve
    from advisor.userfiles import load_catalog
    from workloads.mysql import MysqlParams
    from workloads.mysql_run import Deployment, simulate_mysql
    from workloads.mysql_shape import PRESETS, shape_of

    catalog = load_catalog()
    dep = Deployment(master=resolve("m5.2xlarge:gp3:650GiB", catalog), replica=None)
    params = MysqlParams(tps=448.0, data_gb=500, replicas=0, shape=shape_of("sysbench-oltp-ro"),
                         reads_per_write=PRESETS["sysbench-oltp-ro"].reads)
    a = simulate_mysql(dep, catalog, params, engine="analytic", duration_s=120.0)
    d = simulate_mysql(dep, catalog, params, engine="des", duration_s=60.0, seed=1)
    ap99 = a.levels[0].latency_ms.transaction.p99
    dp99 = d.levels[0].latency_ms.transaction.p99
    assert ap99 is not None
    assert dp99 is not None
    assert ap99 < 2 * dp99, (ap99, dp99)


def test_tied_values_keep_their_order_so_every_machine_gets_the_same_percentiles() -> None:
    """Points of equal value keep the order they came in (a stable sort). numpy's default sort
    orders ties differently on AVX-512 machines (x86-simd-sort) than elsewhere; tied points of
    different weights then moved a percentile (an HDD RAID 0 p50 read 10.314 ms on one machine,
    10.319 ms on another)."""
    from advisor.sim.analytic.dist import mixture

    rng = np.random.default_rng(7)
    values = rng.integers(0, 20, size=2000).astype(np.float64)  # many ties
    a = Dist(np.sort(values[:1000]), rng.random(1000))
    b = Dist(np.sort(values[1000:]), rng.random(1000))
    m = mixture([(0.3, a), (0.7, b)])
    both = np.concatenate([a.values, b.values])
    weights = np.concatenate([0.3 * a.weights / a.weights.sum(), 0.7 * b.weights / b.weights.sum()])
    order = np.lexsort((np.arange(both.size), both))  # by value, then by position
    assert np.array_equal(m.values, both[order])
    assert np.array_equal(m.weights, weights[order])


def test_a_sum_keeps_its_operands_rare_tails() -> None:
    """Eight I/Os, each 1 ms but 10 ms once in 500: one of the eight is slow for 1.6 % of the
    sums, so the sum's p99 is 17 ms. Equally likely quantile points (200 per operand) kept
    nothing above an operand's 99.75th percentile and gave 8 ms: a transaction's p99 is made of
    its I/Os' rarer tails (a c5.large gp3 master's read 6.4 ms against the event simulation's
    8.8-9.4 until its sums kept them)."""
    from advisor.sim.analytic.dist import mixture, repeat

    one = mixture([(0.998, Dist(np.array([1e-3]), np.array([1.0]))),
                   (0.002, Dist(np.array([10e-3]), np.array([1.0])))])
    total = repeat(one, 8)
    assert total.mean == pytest.approx(8 * one.mean, rel=1e-12)
    assert total.quantile(0.99) == pytest.approx(17e-3, rel=0.02)
    assert total.quantile(0.5) == pytest.approx(8e-3, rel=1e-6)
    w = total.weights / total.weights.sum()
    assert float(w[total.values > 9e-3].sum()) == pytest.approx(1 - 0.998**8, rel=0.05)


def test_a_sum_does_not_depend_on_the_order_of_tied_points() -> None:
    """Bins take the mean of the quantile function over them, which tied points of any order
    share: the same sum on every machine, whatever its sort does with ties."""
    from advisor.sim.analytic.dist import convolve

    rng = np.random.default_rng(3)
    values = np.sort(rng.integers(0, 5, size=300).astype(np.float64))
    weights = rng.random(300)
    a = Dist(values, weights)
    perm = np.lexsort((rng.random(300), values))  # ties shuffled, values still sorted
    b = Dist(values[perm], weights[perm])
    other = Dist(np.sort(rng.random(50)), rng.random(50))
    ab, bb = convolve(a, other), convolve(b, other)
    np.testing.assert_allclose(ab.values, bb.values, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(ab.weights, bb.weights)


def test_a_later_io_meets_a_backlog_only_if_it_rose_since_the_last_one() -> None:
    """`later_wait`: an I/O issued after one that passed freely waits past y only if the
    backlog rose over the tolerance since: P(W > y) - P(W > y + drained). An exponential wait
    gives an independent draw with chance 1 - exp(-drained / theta); a backlog lifted over the
    tolerance at once by a large job (uniformly deep, 0-6 ms) is met with chance p x drained /
    6 ms, far below the time average's p; a long gap gives the time average itself."""
    from advisor.sim.analytic.waits import later_wait, survival

    p, theta, h = 0.02, 1e-3, 0.4e-3
    exp_wait = atom_or(p, exponential(theta))
    later = later_wait(exp_wait, h)
    w = later.weights / later.weights.sum()
    held = float(w[later.values > 0].sum())
    assert held == pytest.approx(p * (1 - math.exp(-h / theta)), rel=0.02)
    assert later.mean / held == pytest.approx(theta, rel=0.05)
    deep = atom_or(p, Dist(np.linspace(0.0, 6e-3, 401)[1:], np.full(400, 1 / 400)))
    lw = later_wait(deep, h)
    ys = np.array([0.0, 1e-3, 3e-3])
    np.testing.assert_allclose(survival(lw, ys), p * h / 6e-3, rtol=0.05)
    far = later_wait(exp_wait, 1.0)
    np.testing.assert_allclose(survival(far, ys), survival(exp_wait, ys), rtol=0.02)


@pytest.mark.slow
def test_a_master_behind_a_replica_is_within_10_percent_per_server() -> None:
    """`advisor size` judges each role by itself: the master of c5.large gp2 70 GiB behind a
    replica at 60 % of its knee, write transactions only, against the mean of eight 120 s event
    simulations (docs/analytic-vs-des.md: 5.77 ms +-0.14 over 40 seeds). It read -14 % while
    sums dropped their operands' rare tails, +19 % once they kept them but a later I/O drew the
    volume bandwidth limit's time-average wait afresh (a doublewrite batch lifts that backlog
    far over its tolerance at once), +7 % now."""
    analytic, des = server_p99s("c5.large:gp2:70GiB", 50, 357.6, "master", seeds=8)
    d = float(np.mean(des))
    assert analytic == pytest.approx(d, rel=P99_TOLERANCE), (analytic, d)
