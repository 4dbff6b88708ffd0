"""The backlog of a queue whose arrival rates depend on the backlog (level crossing,
`advisor.sim.analytic.level_crossing`), and the database logs that feed one: a log writes one
group at a time, so over a limit's tolerance its writes come rarer."""

import statistics

import numpy as np
import pytest

from advisor.layout import resolve
from advisor.sim.analytic.commit import flushes_per_commit, flushes_per_commit_waiting
from advisor.sim.analytic.dist import Dist
from advisor.sim.analytic.level_crossing import level_survival
from advisor.sim.jit import njit
from advisor.userfiles import load_catalog
from workloads.mysql import MysqlParams
from workloads.mysql_run import Deployment, simulate_mysql
from workloads.mysql_shape import shape_of

A = 1 / 3000  # one I/O at a 3,000 IOPS limit
LEVELS = np.array([0.0, 0.5e-3, 1e-3, 2e-3, 4e-3])


@njit(cache=True)
def _backlog_seen(gaps, pick, low, high, works, switch_s):  # type: ignore[no-untyped-def]
    """The backlog each candidate arrival finds: candidates at the highest total rate, each
    stream's job taken with its rate at the backlog found (`low` under `switch_s`, `high`
    above; thinning), the backlog draining at 1 in between."""
    seen = np.empty(gaps.size)
    v = 0.0
    for i in range(gaps.size):
        v = max(0.0, v - gaps[i])
        seen[i] = v
        rates = low if v < switch_s else high
        acc = 0.0
        for j in range(rates.size):
            acc += rates[j]
            if pick[i] < acc:
                v += works[j]
                break
    return seen


def _simulated(low: list[float], high: list[float], works: list[float],
               switch_s: float, n: int = 20_000_000) -> np.ndarray:
    """P(V > level) at LEVELS in a direct simulation of the backlog (by PASTA, the candidates
    see its time average)."""
    rng = np.random.default_rng(11)
    top = max(sum(low), sum(high))
    seen = _backlog_seen(rng.exponential(1 / top, n), rng.random(n) * top, np.array(low),
                         np.array(high), np.array(works), switch_s)
    return np.array([(seen > y).mean() for y in LEVELS])


def test_with_fixed_rates_it_is_the_simulated_queue() -> None:
    """The same streams at fixed rates: P(V > 0) = rho, and the tail of a simulated queue,
    which the M/G/1 lattice on its 4,096 cells shows low there (its cells of a 35 us span each
    round every job's residual down)."""
    works = np.array([A, A, 4 * A])
    rates = np.array([1000.0, 800.0, 200.0])
    got = level_survival(works, lambda v: np.repeat(rates[:, None], v.size, axis=1), LEVELS,
                         span_s=0.2)
    want = _simulated(rates.tolist(), rates.tolist(), works.tolist(), 1.0)
    assert got[0] == pytest.approx(float(rates @ works), rel=1e-6)
    assert got == pytest.approx(want, rel=0.01)


def test_a_rate_that_falls_with_the_backlog_matches_a_simulated_queue() -> None:
    """One stream of single I/Os at 1,500/s while the backlog is under 1 ms and 500/s above, beside
    a fixed 800/s: the backlog's law against a direct simulation of it."""
    works = np.array([A, A])

    def rate_at(v: np.ndarray) -> np.ndarray:
        return np.vstack([np.where(v < 1e-3, 1500.0, 500.0), np.full(v.size, 800.0)])

    got = level_survival(works, rate_at, LEVELS, span_s=0.2)
    want = _simulated([1500.0, 800.0], [500.0, 800.0], [A, A], 1e-3)
    assert got == pytest.approx(want, rel=0.02, abs=1e-5)
    # and it is not the fixed-rate answer at the rates below the switch (the test tells them
    # apart)
    fixed = _simulated([1500.0, 800.0], [1500.0, 800.0], [A, A], 1e-3)
    assert fixed[3] > 1.5 * got[3]


def test_a_waiting_flush_at_zero_wait_is_the_plain_share_to_the_bit() -> None:
    flush = Dist(np.array([0.6e-3, 1.0e-3, 2.5e-3]), np.array([0.5, 0.4, 0.1]))
    for rate in (50.0, 400.0, 3000.0):
        waits = np.array([0.0, 1e-3, 5e-3, 50e-3])
        share = flushes_per_commit_waiting(flush, rate, waits)
        assert share[0] == flushes_per_commit(flush, rate)
        assert np.all(np.diff(share) < 0)  # a longer hold groups more commits


@pytest.mark.slow
def test_a_busy_volume_with_two_logs_waits_as_the_event_simulation() -> None:
    """A gp3 volume 85 % busy with a master's page reads, page flushes and two logs (r5.xlarge,
    1,003 tps, no replica): the analytic engine's read and transaction p99 within 10 % of the
    event simulation's (seeds 1-3, 120 s: 4.63 and 16.35 ms). With every log write a Poisson
    arrival, as until 2026-11-30, the reads' p99 was +15 % (5.33 ms)."""
    catalog = load_catalog()
    dep = Deployment(master=resolve("r5.xlarge:gp3:70GiB", catalog), replica=None)
    params = MysqlParams(tps=1003.0, data_gb=50, replicas=0, shape=shape_of("point-rw"),
                         reads_per_write=3.25)

    def p99s(engine: str, seed: int = 1) -> tuple[float, float]:
        lat = simulate_mysql(dep, catalog, params, engine=engine, duration_s=120.0,
                             seed=seed).levels[0].latency_ms
        return lat.read.p99 or 0.0, lat.transaction.p99 or 0.0

    des = [p99s("des", s) for s in (1, 2, 3)]
    read, txn = (statistics.mean(x) for x in zip(*des, strict=True))
    a_read, a_txn = p99s("analytic")
    assert a_read == pytest.approx(read, rel=0.10)
    assert a_txn == pytest.approx(txn, rel=0.10)


def test_many_autocommitted_statements_write_one_stream_per_log() -> None:
    """300 statements each committing alone: 600 commit I/Os a transaction, 300 on each log,
    alike. They write as one stream at their summed rate (the rates are linear in it, so that is
    exact), not as 600 streams, each its own row of cells (1.4 GB for this server as tried)."""
    from advisor.sim.analytic import build_mix
    from advisor.sim.analytic.commit import with_group_commit
    from advisor.sim.analytic.waits import log_streams
    from advisor.sim.plan import compile_plan
    from workloads.mysql_run import build_servers

    catalog = load_catalog()
    layout = resolve("r5.xlarge:gp3:70GiB", catalog)
    plan = compile_plan(layout, catalog)
    params = MysqlParams(tps=1.0, data_gb=50, replicas=0, reads_per_write=0.1,
                         shape=shape_of("point-rw", write_txn="update=300,autocommit"))
    server = build_servers(Deployment(master=layout, replica=None), params, None)[0]
    mix = with_group_commit(build_mix(plan, server.request_classes(), server.background_specs()),
                            server.rate_tps)
    volume_iops = plan.limit_names.index("gp3 volume IOPS")
    streams = log_streams(plan, volume_iops, mix, server.rate_tps, 0.002,
                          float(plan.lim_burst[volume_iops]))
    assert streams is not None
    # the redo log's and the binlog's commits are alike here (one 4 KiB block, one rate)
    assert len(streams.logs) == 1
    (log,) = streams.logs
    per_log = 300 / 1.1  # commits/s on each log: 300 a write transaction, 1 / 1.1 of them
    assert log.commits == pytest.approx(per_log)
    assert log.rate == pytest.approx(2 * per_log * log.share)
