"""Group commit's log writes per commit (advisor.sim.analytic.commit) against a direct
simulation of one log: one write + flush at a time, commits arriving meanwhile share the next."""

import numpy as np
import pytest

from advisor.sim.analytic.commit import flushes_per_commit
from advisor.sim.analytic.dist import Dist


def simulated_flushes_per_commit(rate: float, flush_s: float, n: int = 200_000) -> float:
    arrivals = np.cumsum(np.random.default_rng(7).exponential(1 / rate, n))
    flushes, done, next_done = 0, -1.0, -1.0
    for t in arrivals:
        if next_done >= 0 and t > done:  # the forming group's flush has started
            done, next_done = next_done, -1.0
        if next_done >= 0:
            continue  # joins the forming group
        flushes += 1
        if t >= done:
            done = t + flush_s
        else:
            next_done = done + flush_s
    return flushes / n


@pytest.mark.parametrize("rate", [10.0, 200.0, 1000.0, 5000.0])
def test_matches_a_simulated_log(rate: float) -> None:
    """With a 1 ms flush, from light load (every commit its own write) to 5x the flush rate."""
    flush = Dist(np.array([1e-3]), np.array([1.0]))
    want = simulated_flushes_per_commit(rate, 1e-3)
    assert flushes_per_commit(flush, rate) == pytest.approx(want, rel=0.03)


def test_no_commits_charge_a_whole_write() -> None:
    """At no load there is no group to share: one write per commit."""
    assert flushes_per_commit(Dist(np.array([1e-3]), np.array([1.0])), 0.0) == 1.0
