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

Measured against the event simulation in docs/analytic-vs-des.md; no constant is fitted.
"""

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from advisor.layout.raid import RAID0
from advisor.sim.analytic.dist import ZERO, Dist, grid, mixture
from advisor.sim.analytic.mix import IoPart, Mix
from advisor.sim.plan import SimPlan

if TYPE_CHECKING:
    from advisor.sim.analytic.waits import LimitWait

MAX_STREAMS = 6  # 2^6 member states at most; more streams than this are not met in MySQL


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


def states(rho: float, loads: list[float], dwells: list[float], tau_s: float,
           members: int) -> list[tuple[float, float]]:
    """(probability, utilisation the queue follows) of each distinct member state: each stream
    on this member with chance 1 / members (its full load there, none elsewhere), the queue
    following the swing from the average `rho` with the relaxation time of the state it is
    in, v / (1 - u)^2 (v the variance rate, from `tau_s` at `rho`): self-consistent, so a
    state near saturation, whose queue would take long to fill, is followed less."""
    v = tau_s * (1 - rho) ** 2
    acc: dict[float, float] = {}
    on_p = 1 / members
    for on in itertools.product((0, 1), repeat=len(loads)):
        p = math.prod(on_p if o else 1 - on_p for o in on)
        u = rho
        for _ in range(60):  # damped: the swing falls as u rises, a decreasing map
            tau = v / max(1e-6, 1 - u) ** 2
            target = rho + sum(r * swing(t, tau, members) * (members * o - 1)
                               for r, t, o in zip(loads, dwells, on, strict=True))
            if abs(target - u) < 1e-7:
                break
            u = (u + target) / 2
        key = round(u, 9)
        acc[key] = acc.get(key, 0.0) + p
    return sorted(((p, u) for u, p in acc.items()), key=lambda x: x[1])


def fluid_backlog(excess: float, dwell_s: float) -> Dist:
    """The wait in a backlog growing at `excess` (utilisation - 1) for one dwell, arriving at a
    uniform time in it: uniform from 0 to excess x dwell."""
    top = excess * dwell_s
    if top <= 0:
        return ZERO
    values = grid() * top
    return Dist(values, np.full(values.size, 1.0 / values.size), top / 2)


def striped(plan: SimPlan, mix: Mix, x: float, rates: list[float], waits: list["LimitWait"],
            waits_at: Callable[[float], list["LimitWait"]]) -> list["LimitWait"]:
    """`waits` with each RAID 0 member limit's wait mixed over the member's stream states;
    `waits_at(k)` gives the limits' waits with the request rate scaled by k."""
    found = streams(plan, mix, x)
    if not found:
        return waits
    m = plan.members
    out = []
    for w in waits:
        l = w.limit
        if plan.limit_scope[l] == "instance" or rates[l] <= 0:
            out.append(w)
            continue
        loads = [x * float(s.cost[l]) / rates[l] for s in found]
        dwells = [s.dwell_s for s in found]
        if max(r * swing(t, w.corr_s, m) for r, t in zip(loads, dwells, strict=True)) \
                * (m - 1) < 1e-3:
            out.append(w)
            continue
        dwell = min(dwells)
        parts: list[tuple[float, Dist]] = []
        for p, u in states(w.rho, loads, dwells, w.corr_s, m):
            if u >= 1:  # only with no relaxation time to go by: the quasi-static overload
                parts.append((p, fluid_backlog(u - 1, dwell)))
                continue
            at = next((v for v in waits_at(u / w.rho) if v.limit == l), None)
            one = ZERO if at is None else at.wait_dist()
            parts.append((p, one))
        dist = mixed(parts)
        busy = float(dist.weights[dist.values > 0].sum() / dist.weights.sum())
        if busy <= 0:
            out.append(w)
            continue
        out.append(replace(w, dist=dist, p=busy, theta_s=dist.mean / busy))
    return out


def mixed(parts: list[tuple[float, Dist]]) -> Dist:
    return parts[0][1] if len(parts) == 1 else mixture(parts)
