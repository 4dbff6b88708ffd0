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
then `limit_waits` of the mix as that member sees it (`member_mix`): each stream's writes reach
it in the share it follows (all of them while it carries the stream, none otherwise), so a
member carrying a log takes each transaction's commit on it whole beside its share of the reads.
(Until 2026-11-30 the same mix was taken at a scaled rate, which carries the state's
utilisation in clusters of the average member's: the RAID 0 masters behind a replica were 10-16 %
low.) A commit waits at the member its log is on (`LimitWait.log_dists`, `waits.Coupled`).

Near saturation the steady states do not hold (`transient`): a member whose load in some state
reaches CYCLE_FROM does not settle within a dwell, and in a state that offers it more than its
capacity its backlog grows for the whole dwell. There, where the streams are background work at
fixed rates (a replica's logs), each member limit's backlog is run through the streams' cycle as
reflected Brownian motion and each state's wait is that backlog's time-average, shaped as the
steady wait of the same level (the replicas on RAID 0 2xgp3 35 GiB at 85 % of the knee: -43 %
with the steady states alone, their member carrying all three logs offered 1.02 of its IOPS).

A stream's phase against the chunk boundaries is fixed for as long as its file is, so where the
streams move in lockstep each array (each event simulation's run) spends its time in its own mix
of those states (`placed`): its p99 is taken per placement and averaged over placements
(`vincentized`). Streams whose writes come independently wander through the placements within a
run, and their states are taken as one mixture (`placed`'s comment on placements).

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
    from advisor.sim.analytic.transient import Cycle
    from advisor.sim.analytic.waits import LimitWait

MAX_STREAMS = 6  # at most 203 groupings of them; more streams than this are not met in MySQL


@dataclass(frozen=True, slots=True)
class Stream:
    """A sequential stream of small writes: its share of every limit's load (its I/Os per
    request x cost, averaged over members, as `Mix.cost`) and how long it stays on a member."""

    cost: NDArray[np.float64]  # units of each limiter per request, averaged over the members
    dwell_s: float
    at: tuple[int, int] = (-1, -1)  # its part in the mix: (class, I/O) or (-1, background I/O)
    log: int = -1  # a foreground commit's log (IoSpec.log); -1: a background stream


def streams(plan: SimPlan, mix: Mix, x: float) -> list[Stream]:
    """The sequential streams whose writes land on one RAID 0 member at a time, at `x`
    requests/s: log writes (commits) of every class and sequential background writes, each
    smaller than a chunk (a write spanning every member does not alternate)."""
    if plan.raid != RAID0 or plan.members < 2 or plan.chunk_bytes <= 0:
        return []
    found: list[tuple[float, IoPart, tuple[int, int]]] = []  # (I/Os per request, part, at)
    for ci, c in enumerate(mix.classes):
        for ii, io in enumerate(c.ios):
            if io.op == 2 and io.rate > 0:
                found.append((c.probability * io.rate, io, (ci, ii)))
    for bi, io in enumerate(mix.background):  # a replica's applier: relay log, binlog, redo
        if (io.op == 2 or (io.op == 1 and not io.random)) and io.rate > 0:
            found.append((io.rate, io, (-1, bi)))
    out = []
    for per_request, io, at in found:
        if io.member_ios != 1 or io.size_bytes <= 0 or io.size_bytes >= plan.chunk_bytes:
            continue
        bytes_per_s = x * per_request * io.size_bytes  # the stream's file grows this fast
        if bytes_per_s <= 0:
            continue
        out.append(Stream(cost=per_request * io.cost, dwell_s=plan.chunk_bytes / bytes_per_s,
                          at=at, log=io.log if at[0] >= 0 else -1))
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
    """`followed_shares`' utilisation."""
    return followed_shares(rho, loads, dwells, tau_s, members, on)[0]


def followed_shares(rho: float, loads: list[float], dwells: list[float], tau_s: float,
                    members: int, on: tuple[int, ...]) -> tuple[float, tuple[float, ...]]:
    """The utilisation the queue follows on a member carrying the streams `on` marks (1: on
    it) and not the others: the swing of each stream's on/off load from the average `rho`,
    with the relaxation time of the state it is in, v / (1 - u)^2 (v the variance rate, from
    `tau_s` at `rho`): self-consistent, so a state near saturation, whose queue would take long
    to fill, is followed less. With it, each stream's share of its writes on the member, as a
    multiple of the members' average: 1 + swing (members x on - 1) (all of them, `members`, on
    a member carrying it that follows the whole swing; none off it)."""
    v = tau_s * (1 - rho) ** 2

    def shares_at(u: float) -> list[float]:
        tau = v / max(1e-6, 1 - u) ** 2
        return [1 + swing(t, tau, members) * (members * o - 1)
                for t, o in zip(dwells, on, strict=True)]

    def excess_over(u: float) -> float:  # the swings' load at u, less u: decreasing in u
        return rho + sum(r * (f - 1) for r, f in zip(loads, shares_at(u), strict=True)) - u

    lo = rho - sum(loads) - 1e-9  # the least the swings can load the member
    hi = 1 - 1e-9
    if tau_s <= 0:  # no relaxation time to go by: the quasi-static load, overload and all
        u = rho + excess_over(rho)
    elif excess_over(hi) >= 0:
        u = hi
    else:
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excess_over(mid) > 0 else (lo, mid)
            if hi - lo < 1e-10:
                break
        u = (lo + hi) / 2
    shares = shares_at(u)
    excess = sum(r * (f - 1) for r, f in zip(loads, shares, strict=True))
    if abs(excess) > 1e-12:
        k = (u - rho) / excess
        shares = [1 + k * (f - 1) for f in shares]
    return u, tuple(shares)


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
# the states mixed as if every placement were every other. That holds for streams in lockstep (a
# master's binlog writes once per redo group). Streams whose writes come independently (a
# replica's relay log, redo log and binlog, each a Poisson stream of its own in the event
# simulation) do not keep their phases: the count of one's writes against another's wanders by
# sqrt(2 lambda t), at 240-440 writes/s per log 240-330 writes over a 120-s run, about a whole
# cycle round two members (256 writes of 4 KiB in 512 KiB chunks); so a run sees the placements
# mixed, and the states are taken as one mixture (the replicas on RAID 0 at 85 % of their knee:
# -7 to -11 % against the event simulation with the placements' p99s averaged, -2 to -6 % mixed).
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


def _carriers(period: NDArray[np.float64], members: int, t: NDArray[np.float64],
              count: int) -> NDArray[np.int64]:
    """(placement, time, stream): the member carrying each stream at each of the times `t` in
    each of `count` placements (round robin: stream i on member floor((t + phi_i) / T_i) mod
    members; phase 0 for the first stream, the others' from `_lattice`)."""
    k = period.size
    phases = np.zeros((count, k))
    if k > 1:
        phases[:, 1:] = _lattice(k - 1, count) * members * period[None, 1:]
    mem = np.floor((t[None, :, None] + phases[:, None, :]) / period[None, None, :])
    out: NDArray[np.int64] = mem.astype(np.int64) % members
    return out


def _grouping_keys(mem: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each row's grouping of the streams by member (`_blocks`) as one number, over the last
    axis of `mem` (the streams)."""
    k = mem.shape[-1]
    out: NDArray[np.int64] = _blocks(mem.reshape(-1, k)) @ (k ** np.arange(k))
    return out


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
    found, inverse = np.unique(_grouping_keys(_carriers(period, members, t, count)),
                               return_inverse=True)
    shares = np.zeros((count, found.size))
    np.add.at(shares, (np.repeat(np.arange(count), PHASE_POINTS), inverse.ravel()), 1.0)
    shares /= PHASE_POINTS
    groupings = tuple(tuple(int(key) // k**i % k for i in range(k)) for key in found)
    return groupings, shares


def placed(plan: SimPlan, mix: Mix, x: float, rates: list[float], waits: list["LimitWait"],
           waits_with: Callable[[Mix], list["LimitWait"]]) -> Placed | None:
    """`waits` in each time state of the array's streams (None: no stream moves a member
    limit): a member carrying the streams `on` waits as at the load it follows there
    (`followed_shares`), with each stream's writes on it in the share it follows: all of them
    on a member that carries the stream for long (`member_mix`; `waits_with(m)`: the limits'
    waits of the mix m), and an I/O meets a member picked at random. States alike in every
    member limit's loads are one."""
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
    member_waits: dict[tuple[int, float, tuple[float, ...]], Dist] = {}
    # Each member mix's waits at every limit, by the streams' shares: limits whose queues
    # follow the whole swing (tau far below the dwells) see one mix, taken once.
    mixes: dict[tuple[float, ...], list[LimitWait]] = {}

    # Streams alike (the same load everywhere and dwell: a master's redo log and binlog, a
    # replica's three logs) are interchangeable on a member: which of them it carries does not
    # change its mix's waits, so their shares are taken in one order.
    kinds: dict[tuple[bytes, float], list[int]] = {}
    for i, st in enumerate(found):
        kinds.setdefault((np.round(st.cost, 12).tobytes(), round(st.dwell_s, 9)), []).append(i)
    groups = [g for g in kinds.values() if len(g) > 1]

    def canonical(factors: tuple[float, ...]) -> tuple[float, ...]:
        out = list(factors)
        for g in groups:
            for i, f in zip(g, sorted(factors[i] for i in g), strict=True):
                out[i] = f
        return tuple(out)

    def member_wait(w: "LimitWait", u: float, factors: tuple[float, ...]) -> Dist:
        factors = canonical(factors)
        key = (w.limit, round(u, 9), tuple(round(f, 9) for f in factors))
        if key not in member_waits:
            if u >= 1:  # only with no relaxation time to go by: the quasi-static overload
                member_waits[key] = fluid_backlog(u - 1, min(dwells))
            else:
                if key[2] not in mixes:
                    mixes[key[2]] = waits_with(member_mix(mix, found, factors, m))
                at = next((v for v in mixes[key[2]] if v.limit == w.limit), None)
                member_waits[key] = ZERO if at is None else at.wait_dist()
        return member_waits[key]

    # The member each foreground log is on, by the stream's block (the first stream of a log).
    logs: dict[int, int] = {}
    for i, st in enumerate(found):
        if st.log >= 0:
            logs.setdefault(st.log, i)
    index: dict[tuple[object, ...], int] = {}
    firsts: list[tuple[list[tuple[int, ...]], list[list[tuple[float, tuple[float, ...]]]],
                       dict[int, int]]] = []
    column = []
    for blocks in groupings:
        ons = [tuple(int(b == member) for b in blocks) for member in range(m)]
        us = [[followed_shares(w.rho, loads, dwells, w.corr_s, m, on) for on in ons]
              for w, loads in moved]
        on_log = {log: blocks[i] for log, i in logs.items()}  # the log's member (its block)
        key = (tuple(tuple(sorted(tuple(round(v, 9) for v in (u, *f)) for u, f in row))
                     for row in us),
               tuple(tuple(round(row[b][0], 9) for b in on_log.values()) for row in us))
        if key not in index:
            index[key] = len(firsts)
            firsts.append((ons, us, on_log))
        column.append(index[key])

    def whole(w: "LimitWait") -> Callable[[tuple[int, ...]], Dist]:
        """The member's steady wait at limit w carrying the streams `on` whole."""
        return lambda on: member_wait(w, 0.0, tuple(float(m * o) for o in on))

    cycles = [_cycle(plan, found, w, loads, m, groupings, column, whole(w))
              for w, loads in moved]
    out: list[list[LimitWait]] = []
    for state_index, (ons, us, on_log) in enumerate(firsts):
        state = {}
        for (w, loads), row, cyc in zip(moved, us, cycles, strict=True):
            parts = []
            for on, (u, f) in zip(ons, row, strict=True):
                dist = member_wait(w, u, f)
                if cyc is not None:
                    dist = cyc.wait(state_index, _level(w.rho, loads, m, on), dist)
                parts.append((1 / m, dist))
            dist = mixed(parts)
            busy = float(dist.weights[dist.values > 0].sum() / dist.weights.sum())
            at_logs = tuple((log, member_wait(w, *row[b])) for log, b in on_log.items())
            state[w.limit] = w if busy <= 0 else replace(
                w, dist=dist, p=busy, theta_s=dist.mean / busy, log_dists=at_logs)
        out.append([state.get(w.limit, w) for w in waits])
    merged = np.zeros((shares.shape[0], len(out)))
    for i, c in enumerate(column):
        merged[:, c] += shares[:, i]
    if _independent(found):  # their phases wander (above)
        merged = merged.mean(axis=0, keepdims=True)
    return Placed(states=out, shares=merged)


# A member limit's backlog is run through the streams' cycle (`advisor.sim.analytic.transient`)
# where a member's load reaches this utilisation in some state: below it every state settles
# within a dwell and the steady states stand.
CYCLE_FROM = 0.9
CYCLE_PLACEMENTS = 32  # the placements' lattice's first points, each run through the cycle


def _independent(found: list[Stream]) -> bool:
    """Every stream is background work at a fixed rate (a replica's logs: the event simulation
    issues each as a stream of its own, none grouped with the foreground's commits)."""
    return all(st.at[0] < 0 for st in found)


def _level(rho: float, loads: list[float], members: int, on: tuple[int, ...]) -> float:
    """A member's utilisation carrying the streams `on` whole (and none of the others)."""
    return rho + sum(r * (members * o - 1) for r, o in zip(loads, on, strict=True))


def _cycle(plan: SimPlan, found: list[Stream], w: "LimitWait", loads: list[float], members: int,
           groupings: tuple[tuple[int, ...], ...], column: list[int],
           steady_at: Callable[[tuple[int, ...]], Dist]) -> "_Through | None":
    """The member limit's backlog through its streams' cycle (`transient.cycle`), where every
    stream is background work at a fixed rate (a replica's logs: the event simulation issues
    them as scheduled, they do not group as a foreground log's commits do), of one dwell, and a
    member's load reaches CYCLE_FROM in some state; else None. `steady_at(on)`: the member's
    steady wait carrying the streams `on` whole (below saturation)."""
    from advisor.sim.analytic.transient import STEPS_PER_DWELL, cycle, tail_rate
    from advisor.sim.analytic.waits import Y_GRID, survival

    k = len(found)
    dwell = found[0].dwell_s
    if not _independent(found) \
            or any(abs(st.dwell_s / dwell - 1) > 1e-6 for st in found) or w.corr_s <= 0:
        return None
    if _level(w.rho, loads, members, (1,) * k) < CYCLE_FROM:
        return None
    q = STEPS_PER_DWELL * members
    count = CYCLE_PLACEMENTS if k > 1 else 1
    t = (np.arange(q) + 0.5) / q * members * dwell
    mem = _carriers(np.full(k, dwell), members, t, count)
    on0 = (mem == 0).astype(np.int64)
    r = np.array(loads)
    levels = np.round(w.rho + ((members * on0 - 1) * r).sum(axis=2), 9)
    keys = _grouping_keys(mem)
    state_of = {sum(b * k**i for i, b in enumerate(g)): column[j]
                for j, g in enumerate(groupings)}
    states = np.array([state_of.get(int(key), -1) for key in keys]).reshape(count, q)
    # Each level's steady wait (below saturation) and the variance rate of the Brownian motion
    # whose steady tail decays as that wait's does: v = 2 (1 - u) / rate.
    tau = float(plan.tolerance_s[w.limit])
    flat = on0.reshape(-1, k)
    steady: dict[float, tuple[NDArray[np.float64] | None, float | None]] = {}
    for u in np.unique(levels):
        on = tuple(int(v) for v in flat[int(np.argmax(levels.ravel() == u))])
        surv = survival(steady_at(on), Y_GRID) if u < 1 else None
        steady[float(u)] = (surv, None if surv is None else tail_rate(Y_GRID, surv))
    base_v = w.corr_s * (1 - w.rho) ** 2 / w.rho  # per unit of utilisation, at rho
    fitted = {u: 2 * (1 - u) / rate for u, (_, rate) in steady.items() if rate}
    top = max(fitted, default=None)
    variance = {}
    for u in steady:
        if u in fitted:
            variance[u] = fitted[u]
        elif top is not None and u > top:  # over the highest fitted level: scaled from it
            variance[u] = fitted[top] * u / top
        else:
            variance[u] = base_v * max(u, 1e-3)
    return _Through(cycle=cycle(levels, states, members, dwell, variance, w.rho),
                    steady=steady, tau=tau)


@dataclass(frozen=True, slots=True)
class _Through:
    """A member limit's backlog through its streams' cycle and each level's steady wait."""

    cycle: "Cycle"
    steady: dict[float, tuple[NDArray[np.float64] | None, float | None]]
    tau: float

    def wait(self, state: int, level: float, fallback: Dist) -> Dist:
        """The wait of a member at `level` in `state` (`fallback` where the cycle never met
        them)."""
        from advisor.sim.analytic.transient import steady_shaped
        from advisor.sim.analytic.waits import Y_GRID, wait_from_survival

        level = round(level, 9)
        levels = self.tau + Y_GRID
        backlog = self.cycle.backlog_over((state, level), levels)
        if backlog is None:
            return fallback
        surv, _ = self.steady.get(level, (None, None))
        process = self.cycle.steady_over(level, levels)
        return wait_from_survival(steady_shaped(backlog, surv, process))


def member_mix(mix: Mix, found: list[Stream], factors: tuple[float, ...], members: int) -> Mix:
    """The mix as one member sees it: each stream's writes reach it `factor` times as often as
    the members' average (`IoPart.on_member`), and its load per request moves with them. A
    member carrying a log takes that log's writes whole, so a transaction's I/Os there hold its
    commits whole beside its share of the reads: a larger cluster than the same load at the
    average mix's rate, which is how the mix used to be scaled to a state's load."""
    if all(abs(f - 1) < 1e-12 for f in factors):
        return mix
    classes = [list(c.ios) for c in mix.classes]
    background = list(mix.background)
    cost = mix.cost.copy()
    for st, f in zip(found, factors, strict=True):
        ci, ii = st.at
        io = background[ii] if ci < 0 else classes[ci][ii]
        io = replace(io, on_member=min(1.0, f * io.member_ios / members))
        if ci < 0:
            background[ii] = io
        else:
            classes[ci][ii] = io
        cost += (f - 1) * st.cost
    cost = np.maximum(cost, 0.0)
    cost.flags.writeable = False
    return replace(mix, cost=cost, background=tuple(background),
                   classes=tuple(replace(c, ios=tuple(ios))
                                 for c, ios in zip(mix.classes, classes, strict=True)))


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
