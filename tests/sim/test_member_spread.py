"""A closed loop's wait over RAID members (`advisor.sim.analytic.queues.member_spread`): the
product form's pieces against their definitions, and the spread keeping mean value analysis's
mean at every queue depth (the event-simulation comparison is tests/sim/test_engines_agree.py
and bench/raid_members.py)."""

import math

import numpy as np
import pytest

from advisor.layout import resolve
from advisor.sim.analytic.mix import pattern_mix
from advisor.sim.analytic.phases import run_phases
from advisor.sim.analytic.queues import (
    CACHED_QUANTUM,
    _cached_backlog,
    _found_waiting,
    _other_members,
)
from advisor.sim.plan import compile_plan
from advisor.sim.source import IoPattern
from advisor.userfiles import load_catalog


@pytest.mark.parametrize(("others", "k", "tokens"), [(20, 3, 2), (15, 4, 0), (30, 2, 5),
                                                      (10, 1, 3), (40, 8, 6)])
def test_other_members_ways_are_the_convolution_of_each_members(others: int, k: int,
                                                                tokens: int) -> None:
    """k - 1 members, each with its idle state counted tokens + 1 times: the (k - 1)-fold
    convolution of (tokens + 1, 1, 1, ...), scaled to its largest."""
    g = np.ones(others + 1)
    g[0] = tokens + 1
    ways = np.zeros(others + 1)
    ways[0] = 1.0
    for _ in range(k - 1):
        ways = np.convolve(ways, g)[:others + 1]
    np.testing.assert_allclose(_other_members(others, k, tokens), ways / ways.max(),
                               rtol=1e-9, atol=1e-15)


def test_two_members_without_a_delay_split_the_clients_evenly_at_random() -> None:
    """K = 2 FCFS members, no tolerance, the delay holding nobody (t -> 0): an arrival finds
    each of 0..M others at its member equally often (the symmetric walk's uniform law)."""
    p = _found_waiting(_other_members(31, 2, 0), 0, -40.0)
    np.testing.assert_allclose(p, np.full(32, 1 / 32), rtol=1e-9)


@pytest.mark.parametrize("depth", [64, 1024, 4096])
def test_the_spread_keeps_the_closed_loops_mean_wait(depth: int) -> None:
    """Mean value analysis's mean wait (Little's law) is the spread's mean, its median below
    it (a few members hold most of the queue), at every depth up to MAX_CLIENTS: at 4,096
    clients over 16 members the far cells of the product form are 1e-38 of the largest, which
    a convolution by FFT swamped with round-off (p50 537 ms against a mean of 85 ms)."""
    catalog = load_catalog()
    plan = compile_plan(resolve("r5b.12xlarge:raid0:16xgp3:100GiB", catalog), catalog)
    pattern = IoPattern(name="fio", read_fraction=1.0, random=True, block_bytes=16 * 1024,
                        concurrency=depth, span_bytes=2**30)
    phase = run_phases(plan, pattern_mix(plan, pattern), 60.0, open_rate=None,
                       concurrency=depth)[-1]
    spread = phase.wait_dist
    assert spread is not None
    w = spread.weights / spread.weights.sum()
    assert float(np.dot(spread.values, w)) == pytest.approx(phase.wait_s, rel=0.01)
    assert spread.quantile(0.5) < phase.wait_s < spread.quantile(0.99)


@pytest.mark.parametrize(("others", "stations"), [(31, 2), (63, 4)])
def test_cached_devices_without_writes_follow_the_members_law(others: int,
                                                               stations: int) -> None:
    """With reads alone (r = 1) every I/O of a device's backlog is a client waiting, so
    `_cached_backlog`'s law of the backlog an I/O finds is `member_spread`'s with no tolerance:
    P(c) from `_found_waiting` at the same delay/demand ratio (t = stations / a)."""
    log_a = -1.3
    step = 1.0 / CACHED_QUANTUM
    lgam = np.array([math.lgamma(x + 1) for x in np.arange(others * CACHED_QUANTUM + 1) * step])
    found = _cached_backlog(others, stations, 1.0, 0.5, log_a, step, lgam)
    w = found.weights / found.weights.sum()
    by_c = np.bincount(np.floor(found.values).astype(int) + (found.values > 0), weights=w,
                       minlength=others + 1)[:others + 1]
    law = _found_waiting(_other_members(others, stations, 0), 0, math.log(stations) - log_a)
    np.testing.assert_allclose(by_c, law, atol=1e-9)
