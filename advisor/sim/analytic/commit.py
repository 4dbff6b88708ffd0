"""Group commit's share of the limits: a log flushes one group at a time, so at `x` requests/s
fewer log writes than commits reach the device (`advisor.sim.kernel._group_commit` sends one
write + flush per group).

The count comes from the group-commit model of `advisor.sim.analytic.waits.group_commit`: with
Poisson commits at rate lambda on a log whose flush takes F, a flush is followed by another when
a commit arrived during it (q = 1 - E[exp(-lambda F)]), so a busy period holds 1 / (1 - q)
flushes and starts with a commit that found the log idle (chance 1 - pi, pi the log's busy
share): (1 - pi) / (1 - q) flushes per commit. At a light load it is 1; near a flush's rate it
falls towards 1 / (lambda E[F]).
"""

from dataclasses import replace

import numpy as np

from advisor.sim.analytic.dist import Dist
from advisor.sim.analytic.mix import ClassParts, Mix

COMMIT = 2  # IoSpec.op of a log write + flush


def log_busy(flush: Dist, rate: float) -> tuple[float, float]:
    """(q, pi) of a log with Poisson commits at `rate`/s (> 0), one flush `flush` at a time: the
    chance a commit arrives during a flush, and the share of time the log is busy."""
    w = flush.weights / flush.weights.sum()
    q = min(1.0 - float(np.dot(w, np.exp(-rate * flush.values))), 1.0 - 1e-9)
    busy = flush.mean / (1 - q)
    return q, busy / (busy + 1 / rate)


def flushes_per_commit(flush: Dist, rate: float) -> float:
    """Log writes per commit with Poisson commits at `rate`/s, one flush `flush` at a time."""
    if rate <= 0 or flush.mean <= 0:
        return 1.0
    q, pi = log_busy(flush, rate)
    return min(1.0, (1 - pi) / (1 - q))


def commit_rates(mix: Mix, x: float) -> dict[int, float]:
    """Commits/s on each log at `x` requests/s, every class's together: one log per commit
    size (the redo log's commits are of one size, the binlog's another)."""
    rates: dict[int, float] = {}
    for c in mix.classes:
        for io in c.ios:
            if io.op == COMMIT:
                rates[io.size_bytes] = rates.get(io.size_bytes, 0.0) + x * c.probability * io.rate
    return rates


def with_group_commit(mix: Mix, x: float) -> Mix:
    """The mix at `x` requests/s with each commit charged its group's share of one log write:
    the limits' cost (and its second moment: whole flushes, fewer of them) per request."""
    rates = commit_rates(mix, x)
    if not rates:
        return mix
    cost = mix.cost.copy()
    cost_sq = mix.cost_sq.copy() if mix.cost_sq is not None else None
    classes = []
    for c in mix.classes:
        ios = []
        for io in c.ios:
            if io.op == COMMIT and io.rate > 0:
                g = flushes_per_commit(io.service, rates[io.size_bytes])
                cost -= c.probability * io.rate * io.cost * (1 - g)
                if cost_sq is not None:
                    cost_sq -= c.probability * io.rate * io.cost * io.cost * (1 - g)
                part_cost = io.cost * g
                part_cost.flags.writeable = False
                io = replace(io, cost=part_cost)
            ios.append(io)
        classes.append(ClassParts(probability=c.probability, kind=c.kind, ios=tuple(ios),
                                  service=c.service))
    cost = np.maximum(cost, 0.0)
    cost.flags.writeable = False
    if cost_sq is not None:
        cost_sq = np.maximum(cost_sq, 0.0)
        cost_sq.flags.writeable = False
    return replace(mix, cost=cost, cost_sq=cost_sq, classes=tuple(classes))
