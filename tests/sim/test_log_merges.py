"""bench/log_merges.py's model of a master's merged log writes (measured there against the event
simulation, not in the engine): its two formulas against the kernel's group-commit rules run
directly."""

import numpy as np
import pytest

from advisor.sim.analytic.dist import Dist
from tests.bench_modules import load_bench

log_merges = load_bench("log_merges")


@pytest.mark.parametrize(("rate", "others"), [(300.0, 1200.0), (1255.0, 1256.0), (2000.0, 500.0)])
def test_the_merged_shares_match_the_kernels_rules_run_directly(rate: float, others: float) -> None:
    """Poisson commits on the redo log, each reaching the binlog when its redo group's flush
    ends, Poisson other I/Os beside them, 0.8 ms flushes: the share of each log's writes charged
    right after the same log's previous one."""
    flush = Dist(np.array([8e-4]), np.array([1.0]))
    redo, binlog = log_merges.simulated_merges(rate, 8e-4, others, n=100_000)
    assert log_merges.merged_first(flush, rate, others) == pytest.approx(redo, rel=0.03)
    assert log_merges.merged_after(flush, rate, others) == pytest.approx(binlog, rel=0.03)


def test_a_commit_whose_own_read_came_during_the_flush_does_not_merge() -> None:
    """The committing request's own read issued after the flush started comes between the two
    writes: with such a read always just before the commit (S = 0), no write merges; with it
    always long before (S beyond any flush), the share is the plain one."""
    flush = Dist(np.array([8e-4]), np.array([1.0]))
    plain = log_merges.merged_first(flush, 500.0, 800.0)
    at_once = Dist(np.array([0.0]), np.array([1.0]))
    long_before = Dist(np.array([5e-3]), np.array([1.0]))
    assert log_merges.merged_first(flush, 500.0, 800.0, (1.0, at_once)) == pytest.approx(0.0)
    assert log_merges.merged_first(flush, 500.0, 800.0, (1.0, long_before)) == plain
    assert 0 < log_merges.merged_first(flush, 500.0, 800.0, (0.5, at_once)) < plain
