"""Group commit's share of the limits: a log flushes one group at a time, so at `x` requests/s
fewer log writes than commits reach the device (`advisor.sim.kernel._group_commit` sends one
write + flush per group).

The count comes from the group-commit model of `advisor.sim.analytic.waits.group_commit`: with
Poisson commits at rate lambda on a log whose flush takes F, a flush is followed by another when
a commit arrived during it (q = 1 - E[exp(-lambda F)]), so a busy period holds 1 / (1 - q)
flushes and starts with a commit that found the log idle (chance 1 - pi, pi the log's busy
share): (1 - pi) / (1 - q) flushes per commit. At a light load it is 1; near a flush's rate it
falls towards 1 / (lambda E[F]).

Each log (`IoSpec.log`: a master's redo log and binlog) flushes its own groups at its own commit
rate, as the event simulation's kernel keeps one state per log; until 2026-11-30 the logs were
keyed by their write size, so a master's redo and binlog commits, both one 4 KiB block, were
taken as one log at twice the rate (0.55 log writes per commit at 4,250 tps against the event
simulation's 0.80: tests/sim/test_group_commit_share.py).
"""

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from advisor.sim.analytic.dist import Dist
from advisor.sim.analytic.mix import (
    ClassParts,
    IoSpec,
    Mix,
    RequestClass,
    _canonical,
    _cost,
    io_cost,
)
from advisor.sim.plan import SimPlan
from advisor.sim.source import OP_COMMIT

COMMIT = OP_COMMIT  # IoSpec.op of a log write + flush


def _busy(flush: Dist, rate: float,
          wait_s: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(q, pi) of a log with Poisson commits at `rate`/s (> 0), one flush `flush` at a time, each
    flush also waiting `wait_s` before it starts (for each wait): the chance a commit arrives
    during a flush, and the share of time the log is busy."""
    w = flush.weights / flush.weights.sum()
    laplace = float(np.dot(w, np.exp(-rate * flush.values)))
    q = np.minimum(1.0 - np.exp(-rate * wait_s) * laplace, 1.0 - 1e-9)
    busy = (flush.mean + wait_s) / (1 - q)
    return q, busy / (busy + 1 / rate)


def log_busy(flush: Dist, rate: float) -> tuple[float, float]:
    """(q, pi) of a log with Poisson commits at `rate`/s (> 0), one flush `flush` at a time."""
    q, pi = _busy(flush, rate, np.zeros(1))
    return float(q[0]), float(pi[0])


def flushes_per_commit(flush: Dist, rate: float) -> float:
    """Log writes per commit with Poisson commits at `rate`/s, one flush `flush` at a time."""
    if rate <= 0 or flush.mean <= 0:
        return 1.0
    q, pi = log_busy(flush, rate)
    return min(1.0, (1 - pi) / (1 - q))


def flushes_per_commit_waiting(flush: Dist, rate: float,
                               wait_s: NDArray[np.float64]) -> NDArray[np.float64]:
    """`flushes_per_commit` where each flush also waits `wait_s` before it starts (at a limit
    whose backlog is over its tolerance), for each wait: the log stays busy the longer, so more
    commits join each group (at a wait of 0, the same figures to the bit)."""
    if rate <= 0 or flush.mean <= 0:
        return np.ones_like(wait_s)
    q, pi = _busy(flush, rate, wait_s)
    out: NDArray[np.float64] = np.minimum(1.0, (1 - pi) / (1 - q))
    return out


class CommitTerm(NamedTuple):
    """A class's commits in a mix: what group commit needs of them."""

    probability: float  # of the class
    log: int  # which log (IoSpec.log): each flushes its own groups
    rate: float  # commits per request of the class
    cost: NDArray[np.float64]  # one log write at every limiter
    service: Dist  # one log write + flush


def _terms(classes: Iterable[ClassParts]) -> list[CommitTerm]:
    return [CommitTerm(c.probability, io.log, io.rate, io.cost, io.service)
            for c in classes for io in c.ios if io.op == COMMIT]


def _rates(terms: Sequence[CommitTerm], x: float) -> dict[int, float]:
    rates: dict[int, float] = {}
    for t in terms:
        rates[t.log] = rates.get(t.log, 0.0) + x * t.probability * t.rate
    return rates


def commit_rates(mix: Mix, x: float) -> dict[int, float]:
    """Commits/s on each log (`IoSpec.log`) at `x` requests/s, every class's together."""
    return _rates(_terms(mix.classes), x)


def _grouped(cost: NDArray[np.float64], cost_sq: NDArray[np.float64] | None,
             terms: Sequence[CommitTerm], x: float,
             ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None, list[float]]:
    """(cost, cost_sq, log writes per commit of each term) with each commit charged its group's
    share of one log write at `x` requests/s. The arrays are new and read-only."""
    rates = _rates(terms, x)
    cost = cost.copy()
    cost_sq = cost_sq.copy() if cost_sq is not None else None
    shares = []
    for t in terms:
        g = 1.0
        if t.rate > 0:
            g = flushes_per_commit(t.service, rates[t.log])
            cost -= t.probability * t.rate * t.cost * (1 - g)
            if cost_sq is not None:
                cost_sq -= t.probability * t.rate * t.cost * t.cost * (1 - g)
        shares.append(g)
    cost = np.maximum(cost, 0.0)
    cost.flags.writeable = False
    if cost_sq is not None:
        cost_sq = np.maximum(cost_sq, 0.0)
        cost_sq.flags.writeable = False
    return cost, cost_sq, shares


def with_group_commit(mix: Mix, x: float) -> Mix:
    """The mix at `x` requests/s with each commit charged its group's share of one log write:
    the limits' cost (and its second moment: whole flushes, fewer of them) per request."""
    terms = _terms(mix.classes)
    if not terms:
        return mix
    cost, cost_sq, shares = _grouped(mix.cost, mix.cost_sq, terms, x)
    g = iter(shares)
    classes = []
    for c in mix.classes:
        ios = []
        for io in c.ios:
            if io.op == COMMIT:
                share = next(g)
                if io.rate > 0:
                    part_cost = io.cost * share
                    part_cost.flags.writeable = False
                    io = replace(io, cost=part_cost)
            ios.append(io)
        classes.append(ClassParts(probability=c.probability, kind=c.kind, ios=tuple(ios),
                                  service=c.service))
    return replace(mix, cost=cost, cost_sq=cost_sq, classes=tuple(classes))


def grouped_cost(plan: SimPlan, classes: tuple[RequestClass, ...],
                 background: tuple[IoSpec, ...], x: float) -> NDArray[np.float64]:
    """`with_group_commit(build_mix(plan, classes, background), x).cost`, to the bit, without
    the mix's service times: what a capacity check at `x` requests/s reads."""
    classes = _canonical(classes)
    cost = _cost(plan, classes, background)
    terms = [CommitTerm(cls.probability, io.log, io.count,
                        *io_cost(plan, io.op, io.size_bytes, io.random)[:2])
             for cls in classes for io in cls.ios if io.op == COMMIT]
    if not terms:
        return cost
    return _grouped(cost, None, terms, x)[0]
