"""The backlog of a queue whose arrival rates depend on the backlog (level crossing,
`advisor.sim.analytic.level_crossing`)."""

import numpy as np
import pytest

from advisor.sim.analytic.level_crossing import level_survival
from advisor.sim.jit import njit

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
