"""bench/chain_stats.py's pieces that its figures rest on: the run with the volume's IOPS limit out
of the way, and the variance of the work reaching a limit in a window (bench/README.md, issue 10's
chain of waits measured one step at a time)."""

import math
from typing import Any

import numpy as np
import pytest

from advisor.layout import resolve
from advisor.sim.analytic import waits
from advisor.userfiles import load_catalog
from tests.bench_modules import load_bench

chain_stats = load_bench("chain_stats")


@pytest.mark.parametrize(("spec", "raised"), [
    ("c5.large:io1:650GiB:10000iops", "c5.large:io1:650GiB:32000iops"),
    ("r5.xlarge:io2:650GiB:5000iops", "r5.xlarge:io2:650GiB:32000iops"),
    ("c5.large:gp3:650GiB", "c5.large:gp3:650GiB:16000iops"),
])
def test_the_unlimited_run_raises_the_volumes_iops(spec: str, raised: str) -> None:
    """A provisioned volume's IOPS are replaced, not given twice (the layout parser refuses
    that), and the raised layout is a valid one."""
    assert chain_stats.unlimited(spec) == raised
    resolve(raised, load_catalog())


def test_the_windowed_variance_runs_from_single_ios_to_whole_requests() -> None:
    """Var A(t) of the work reaching c5.large gp3 650 GiB's IOPS limit (a master without a
    replica at 314 tps): over a window far shorter than a request's I/O spacing each request
    puts at most one I/O in it, so Var A(t) / t is every I/O's own second moment, sum r h a^2;
    over one far longer than a request, each request falls in it whole, sum r E[(a Bin(k, h))^2]
    (the singles' r w^2 in both). `waits._cluster_counts` places the windows at span / 256
    steps, so windows under a few of those (10-30 us here) are off by up to 12 %; the chain's
    windows (a spacing and more, 0.5 ms up) are not asked there."""
    plan, mix, rates, x = chain_stats._engine_input("c5.large:gp3:650GiB", 500.0, 314.0, 0)
    limits, mean_wait = waits.spaced_waits(plan, mix, x, rates)
    lw = next(w for w in limits if plan.limit_names[w.limit].endswith("volume IOPS"))
    singles, clus = chain_stats.limit_input(plan, mix, x, lw.limit, rates[lw.limit], mean_wait)
    var = chain_stats.windowed(singles, clus)
    bg = sum(r * w * w for r, w in singles)
    ones = bg + sum(cl.rate * p * len(offsets) * h * a * a
                    for cl, h, a, _ in clus for p, offsets in cl.shapes)
    whole = bg + sum(cl.rate * p * a * a * (k * h * (1 - h) + k * k * h * h)
                     for cl, h, a, _ in clus for p, offsets in cl.shapes
                     for k in [len(offsets)])
    assert whole > 1.5 * ones  # the requests' clustering counts here
    short = (waits.T_GRID >= 1e-4) & (waits.T_GRID <= 4e-4)  # under the 0.6 ms spacing
    assert short.sum() >= 3
    assert var[short] / waits.T_GRID[short] == pytest.approx(ones, rel=0.01)
    assert var[-1] / waits.T_GRID[-1] == pytest.approx(whole, rel=0.02)
    rate = var / waits.T_GRID
    assert np.all(np.diff(rate[waits.T_GRID >= 3e-4]) >= 0)  # rising in between


def _md1_over(x: float, rate: float, work: float) -> float:
    """P(V > x) of the M/D/1 workload (Erlang, as tests/sim/test_known_numerics.py)."""
    below = sum((rate * (k * work - x)) ** k / math.factorial(k)
                * math.exp(-rate * (k * work - x)) for k in range(int(x / work) + 1))
    return 1 - (1 - rate * work) * below


@pytest.mark.slow  # over 5 s (7-9 s on a 2-core host)
def test_the_closed_loop_limit_is_a_gcra_queue() -> None:
    """Single-I/O requests at Poisson times into the closed loop's GCRA limit (tolerance 2 ms,
    0.3 ms of work each, 75 % busy): each waits its arrival's backlog over the tolerance,
    (V - tau)^+, V from Lindley's recursion on the same times, and by PASTA the share that waits
    is the M/D/1 workload's P(V > tau) (Erlang)."""
    rng = np.random.default_rng(3)
    rate, work, tau, seconds = 2500.0, 3e-4, 2e-3, 400.0
    times = np.sort(rng.random(rng.poisson(rate * seconds)) * seconds)
    requests: list[Any] = [([work], [True], [], True, [0.0]) for _ in times]
    events = [(float(t), i, i, 0) for i, t in enumerate(times)]
    chain_stats.run_closed(events, requests, [], tau)
    w = np.array([r[4][0] for r in requests])
    before = np.arange(times.size) * work - times  # the work before each arrival, less the time
    backlog = before - np.minimum.accumulate(np.minimum(0.0, before))
    np.testing.assert_allclose(w, np.maximum(0.0, backlog - tau), atol=1e-9)
    assert (w > 0).mean() == pytest.approx(_md1_over(tau, rate, work), rel=0.05)


def test_a_request_issues_its_next_io_after_the_last_one_passed() -> None:
    """A 5 ms background job at t = 0 over a 2 ms tolerance: a request's first I/O, just after,
    waits 3 ms (it passes at TAT - tau; TAT is then 6 ms). Its second, issued 1 ms after the
    first passed (at 4 ms), finds TAT - tau = 4 ms and passes at once, where an open loop's
    fixed offset (1 ms after the first's arrival) would have had it wait 3 ms."""
    tau = 2e-3
    background = [5e-3]
    requests = [([1e-3, 1e-3], [True, True], [1e-3], True, [0.0, 0.0])]
    events = [(0.0, 0, -1, 0), (1e-9, 1, 0, 0)]
    chain_stats.run_closed(events, requests, background, tau)
    first, second = requests[0][4]
    assert first == pytest.approx(3e-3, abs=1e-8)
    assert second == pytest.approx(0.0, abs=1e-8)
