"""Sequential streams on RAID 0: a log stays on one member for a whole chunk.

A sequential stream (a redo log, a binlog, a relay log: small writes one after another in a file)
writes a chunk's worth of bytes to one member before it moves to the next, round robin: with a
512 KiB chunk and 4 KiB log writes, 128 writes in a row, tenths of a second at a few hundred
commits/s. `waits.limit_waits` spreads every I/O over the members at random, so each member
limit sees the stream's average share, 1 / members of it. In fact a member carries all of it
for one dwell (chunk / the stream's bytes per second) and none for the next members - 1 dwells;
with several streams at independent places (files sit at unrelated offsets) a member carries
each with chance 1 / members, independently, and its load moves between those states.

How much of that the queue feels depends on how fast it follows its load: its relaxation time
tau = v / (1 - u)^2 of reflected Brownian motion (v the variance rate, from `LimitWait.corr_s`).
As a first-order lag with time constant tau, the queue follows a stream's on/off square wave (on
for T, off for (M - 1) T) with the swing (1 - a)(1 - a^(M-1)) / (1 - a^M) of it, a = exp(-T /
tau): all of it when the dwell is long against tau (the quasi-static limit: each state's queue
as if it lasted), none when short (the average). tau is the state's own, at the utilisation the
queue follows there (a fixed point): a state near saturation fills its queue slowly, so it is
followed less, and the mix does not blow up as a quasi-static one would. Each state's wait is
then `limit_waits` at the state's load (the same mix at a scaled rate, so the limit carries the
state's utilisation). Only with no relaxation time to go by can a state overload the member; its
I/Os then wait the fluid backlog of a dwell, uniform from 0 to (u - 1) x the dwell.

A stream's phase against the chunk boundaries is fixed for as long as its file is, so each array
(each event simulation's run) spends its time in its own mix of those states (`placed`): its
p99 is taken per placement and averaged over placements (`vincentized`).

Measured against the event simulation in docs/analytic-vs-des.md; no constant is fitted.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from advisor.layout.raid import RAID0
from advisor.sim.analytic.dist import KEEP_EDGES, KEEP_MASS, ZERO, Dist, bin_rows, grid, mixture
from advisor.sim.analytic.mix import IoPart, Mix
from advisor.sim.plan import SimPlan

if TYPE_CHECKING:
    from advisor.sim.analytic.waits import LimitWait

MAX_STREAMS = 6  # at most 203 groupings of them; more streams than this are not met in MySQL


@dataclass(frozen=True, slots=True)
class Stream:
    """A sequential stream of small writes: its share of every limit's load (its I/Os per
    request x cost, averaged over members, as `Mix.cost`) and how long it stays on a member."""

    cost: NDArray[np.float64]  # units of each limiter per request, averaged over the members
    dwell_s: float


def streams(plan: SimPlan, mix: Mix, x: float) -> list[Stream]:
    """The sequential streams whose writes land on one RAID 0 member at a time, at `x`
    requests/s: log writes (commits) of every class and sequential background writes, each
    smaller than a chunk (a write spanning every member does not alternate)."""
    if plan.raid != RAID0 or plan.members < 2 or plan.chunk_bytes <= 0:
        return []
    found: list[tuple[float, IoPart]] = []  # (I/Os per request, part)
    for c in mix.classes:
        for io in c.ios:
            if io.op == 2 and io.rate > 0:
                found.append((c.probability * io.rate, io))
    for io in mix.background:  # a replica's applier: its relay log, binlog and redo writes
        if (io.op == 2 or (io.op == 1 and not io.random)) and io.rate > 0:
            found.append((io.rate, io))
    out = []
    for per_request, io in found:
        if io.member_ios != 1 or io.size_bytes <= 0 or io.size_bytes >= plan.chunk_bytes:
            continue
        bytes_per_s = x * per_request * io.size_bytes  # the stream's file grows this fast
        if bytes_per_s <= 0:
            continue
        out.append(Stream(cost=per_request * io.cost, dwell_s=plan.chunk_bytes / bytes_per_s))
    return out[:MAX_STREAMS]


def swing(dwell_s: float, tau_s: float, members: int) -> float:
    """The share of a stream's on/off swing (on for one dwell of `members`) that a queue with
    relaxation time tau follows, as a first-order lag."""
    if tau_s <= 0:
        return 1.0
    a = math.exp(-dwell_s / tau_s)
    return (1 - a) * (1 - a ** (members - 1)) / (1 - a**members)


def followed(rho: float, loads: list[float], dwells: list[float], tau_s: float, members: int,
             on: tuple[int, ...]) -> float:
    """The utilisation the queue follows on a member carrying the streams `on` marks (1: on
    it) and not the others: the swing of each stream's on/off load from the average `rho`,
    with the relaxation time of the state it is in, v / (1 - u)^2 (v the variance rate, from
    `tau_s` at `rho`): self-consistent, so a state near saturation, whose queue would take long
    to fill, is followed less."""
    v = tau_s * (1 - rho) ** 2
    u = rho
    for _ in range(60):  # damped: the swing falls as u rises, a decreasing map
        tau = v / max(1e-6, 1 - u) ** 2
        target = rho + sum(r * swing(t, tau, members) * (members * o - 1)
                           for r, t, o in zip(loads, dwells, on, strict=True))
        if abs(target - u) < 1e-7:
            break
        u = (u + target) / 2
    return u


def fluid_backlog(excess: float, dwell_s: float) -> Dist:
    """The wait in a backlog growing at `excess` (utilisation - 1) for one dwell, arriving at a
    uniform time in it: uniform from 0 to excess x dwell."""
    top = excess * dwell_s
    if top <= 0:
        return ZERO
    values = grid() * top
    return Dist(values, np.full(values.size, 1.0 / values.size), top / 2)


def mixed(parts: list[tuple[float, Dist]]) -> Dist:
    return parts[0][1] if len(parts) == 1 else mixture(parts)


# Placements. A stream's file sits where it sits: its phase against the chunk boundaries is fixed
# for as long as the file is (streams of one rate keep their phases apart for good), so one array
# spends its time in its own mix of the member states, and the streams' relative phases decide
# which: two logs in phase share a member always, half a chunk apart never. A p99 is one array's,
# over its own run (the event simulation's replications draw each stream's place anew, and their
# p99s are averaged), so the tail is each placement's p99 averaged over placements, not the p99 of
# the states mixed as if every placement were every other.
PLACEMENTS = 64  # placements averaged over: a rank-1 lattice of the streams' relative phases
PHASE_POINTS = 2048  # times at which a placement's assignment of streams to members is read
PHASE_CYCLES = 4  # ... over this many cycles of the longest dwell round the members


@dataclass(frozen=True, slots=True)
class Placed:
    """The time states of a RAID 0 array's streams, each with the limits' waits an I/O meets
    then (at a member picked at random), and the share of each placement's time in each."""

    states: list[list["LimitWait"]]
    shares: NDArray[np.float64]  # (placements, states), rows summing to 1


def _lattice(dims: int, count: int) -> NDArray[np.float64]:
    """`count` points of [0, 1)^dims spread evenly (the R_d rank-1 lattice: steps of the inverse
    powers of the root of x^(dims+1) = x + 1), at their cells' middles."""
    g = 2.0
    for _ in range(64):
        g = (1 + g) ** (1 / (dims + 1))
    alpha = g ** -np.arange(1, dims + 1)
    out: NDArray[np.float64] = ((np.arange(count)[:, None] + 0.5) * alpha[None, :]) % 1.0
    return out


def _blocks(mem: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each row's streams grouped by the member they are on, members unlabelled: each stream's
    block numbered in order of first appearance along the row."""
    n, k = mem.shape
    label = np.zeros((n, k), dtype=np.int64)
    used = np.ones(n, dtype=np.int64)
    for j in range(1, k):
        lab = np.full(n, -1, dtype=np.int64)
        for i in range(j - 1, -1, -1):  # the first stream on the same member names the block
            lab = np.where(mem[:, j] == mem[:, i], label[:, i], lab)
        new = lab < 0
        lab[new] = used[new]
        used += new
        label[:, j] = lab
    return label


@lru_cache(maxsize=256)
def placement_shares(dwells: tuple[float, ...], members: int,
                     ) -> tuple[tuple[tuple[int, ...], ...], NDArray[np.float64]]:
    """(each grouping of the streams by member, as each stream's block; the share of each of
    PLACEMENTS placements' time in each grouping). Stream i is on member floor((t + phi_i) /
    T_i) mod members, round robin; phase 0 of the first stream, the others' from `_lattice`."""
    k = len(dwells)
    period = np.array(dwells, dtype=np.float64)
    horizon = members * float(period.max()) * PHASE_CYCLES
    t = (np.arange(PHASE_POINTS) + 0.5) / PHASE_POINTS * horizon
    count = PLACEMENTS if k > 1 else 1
    phases = np.zeros((count, k))
    if k > 1:
        phases[:, 1:] = _lattice(k - 1, count) * members * period[None, 1:]
    mem = np.floor((t[None, :, None] + phases[:, None, :]) / period[None, None, :])
    labels = _blocks((mem.astype(np.int64) % members).reshape(-1, k))
    keys = labels @ (k ** np.arange(k))
    found, inverse = np.unique(keys, return_inverse=True)
    shares = np.zeros((count, found.size))
    np.add.at(shares, (np.repeat(np.arange(count), PHASE_POINTS), inverse.ravel()), 1.0)
    shares /= PHASE_POINTS
    groupings = tuple(tuple(int(key) // k**i % k for i in range(k)) for key in found)
    return groupings, shares


def placed(plan: SimPlan, mix: Mix, x: float, rates: list[float], waits: list["LimitWait"],
           waits_at: Callable[[float], list["LimitWait"]]) -> Placed | None:
    """`waits` in each time state of the array's streams (None: no stream moves a member
    limit): a member carrying the streams `on` waits as at the utilisation it follows there
    (`followed`; `waits_at(k)`: the limits' waits at k x the request rate), and an I/O meets a
    member picked at random. States alike in every member limit's utilisations are one."""
    found = streams(plan, mix, x)
    if not found:
        return None
    m = plan.members
    dwells = [s.dwell_s for s in found]
    moved: list[tuple[LimitWait, list[float]]] = []
    for w in waits:
        l = w.limit
        if plan.limit_scope[l] == "instance" or rates[l] <= 0:
            continue
        loads = [x * float(s.cost[l]) / rates[l] for s in found]
        if max(r * swing(t, w.corr_s, m) for r, t in zip(loads, dwells, strict=True)) \
                * (m - 1) >= 1e-3:
            moved.append((w, loads))
    if not moved:
        return None
    longest = max(dwells)  # the shares are the same at every time scale
    groupings, shares = placement_shares(tuple(round(d / longest, 6) for d in dwells), m)
    member_waits: dict[tuple[int, float], Dist] = {}

    def member_wait(w: "LimitWait", u: float) -> Dist:
        key = (w.limit, round(u, 9))
        if key not in member_waits:
            if u >= 1:  # only with no relaxation time to go by: the quasi-static overload
                member_waits[key] = fluid_backlog(u - 1, min(dwells))
            else:
                at = next((v for v in waits_at(u / w.rho) if v.limit == w.limit), None)
                member_waits[key] = ZERO if at is None else at.wait_dist()
        return member_waits[key]

    index: dict[tuple[tuple[float, ...], ...], int] = {}
    out: list[list[LimitWait]] = []
    column = []
    for blocks in groupings:
        ons = [tuple(int(b == member) for b in blocks) for member in range(m)]
        us = [[followed(w.rho, loads, dwells, w.corr_s, m, on) for on in ons]
              for w, loads in moved]
        key = tuple(tuple(sorted(round(u, 9) for u in row)) for row in us)
        if key not in index:
            index[key] = len(out)
            state = {}
            for (w, _), row in zip(moved, us, strict=True):
                dist = mixed([(1 / m, member_wait(w, u)) for u in row])
                busy = float(dist.weights[dist.values > 0].sum() / dist.weights.sum())
                state[w.limit] = w if busy <= 0 else replace(w, dist=dist, p=busy,
                                                              theta_s=dist.mean / busy)
            out.append([state.get(w.limit, w) for w in waits])
        column.append(index[key])
    merged = np.zeros((shares.shape[0], len(out)))
    for i, c in enumerate(column):
        merged[:, c] += shares[:, i]
    return Placed(states=out, shares=merged)


def vincentized(shares: NDArray[np.float64], dists: list[Dist]) -> Dist:
    """The distribution each of whose quantiles is that quantile of a placement's mixture of
    `dists` (with its row of `shares`), averaged over the placements; its mean is the mean
    over them."""
    if len(dists) == 1 or all(d is dists[0] for d in dists):
        return dists[0]
    values = np.concatenate([d.values for d in dists])
    order = np.argsort(values, kind="stable")
    values = values[order]
    base = [d.weights / d.weights.sum() for d in dists]
    each = np.concatenate([col[:, None] * b[None, :]
                           for col, b in zip(shares.T, base, strict=True)], axis=1)[:, order]
    total = bin_rows(values, each, KEEP_EDGES).sum(axis=0)
    means = np.array([d.mean for d in dists])
    return Dist(total / shares.shape[0], KEEP_MASS.copy(), float(shares.mean(axis=0) @ means))
