"""A RAID 0 member's backlog through its sequential streams' cycle, as reflected Brownian motion.

On RAID 0 a sequential stream (a replica's relay log, redo log, binlog) writes one chunk to a
member and moves on, round robin (`advisor.sim.analytic.striping`): a member's load is a square
wave, and with several streams of one rate it runs through a cycle of levels (one while it
carries all of them, another while it carries none, ...), in an order set by the streams'
relative phases. `striping.followed_shares` takes each level as a steady state at the
utilisation the queue would follow in it, which holds where the backlog settles within a dwell.
Near saturation it does not: at a level just under 1 the backlog has not reached its steady tail
when the streams move on (the steady state over-waits), and at a level over 1 it grows for the
whole dwell, while a steady state cannot exceed 1 (it under-waits). In the event simulation of a
replica on RAID 0 2xgp3 35 GiB at 1,870 tps, a member carrying its three logs is offered 1.02 of
its IOPS for tenths of a second at a time, and what the member after a busy state finds is the
backlog that state left.

Here the backlog V (seconds of the limit's work) is reflected Brownian motion whose drift is the
level's utilisation less 1 and whose variance rate is fitted to the level's steady wait (the
rate its tail decays at, 2 (1 - u) / v), run through each placement's cycle of levels to its
periodic state (the transition over a time step is exact: Harrison's formula for the reflected
process). The time-average of P(V > x) over each state of the streams, times the level's steady
wait over the same process's own steady state (`steady_shaped`), is the state's wait: the steady
wait's shape (the M/G/1 lattice, clusters, the idle chance) stands where the level settles, and
only its slow dynamics change. Checked against the event simulation's own I/Os replayed through
the members (bench/member_cycle.py; tests/sim/test_member_cycle.py). Nothing is fitted.
"""

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

CELLS = 160  # cells of the backlog's grid
STEPS_PER_DWELL = 16  # time steps per dwell (the transition over a step is exact)
MAX_CYCLES = 40  # cycles run at most to the periodic state
PERIODIC_TOL = 1e-7  # ... stopping once a cycle changes no cell's mass by more than this

_erfc = np.frompyfunc(math.erfc, 1, 1)


def _normal_cdf(z: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = 0.5 * np.asarray(_erfc(-z / math.sqrt(2.0)), dtype=np.float64)
    return out


def _log_normal_cdf(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """log Phi(z), finite far into the lower tail (Mills' ratio below -8)."""
    far = z < -8.0
    zz = np.where(far, z, -8.0)
    tail = -zz**2 / 2 - np.log(-zz * math.sqrt(2 * math.pi)) + np.log1p(-1 / zz**2)
    with np.errstate(divide="ignore"):
        near = np.log(_normal_cdf(np.where(far, 0.0, z)))
    out: NDArray[np.float64] = np.where(far, tail, near)
    return out


def kernel(drift: float, var: float, dt: float, h: float, n: int) -> NDArray[np.float64]:
    """(n, n) transition matrix over `dt` of reflected Brownian motion (drift, variance rate
    var) between cells of width h: from each cell's middle to each cell, the last cell taking
    everything above it. P(X_t <= y | X_0 = x) = Phi((y - x - m) / s) - exp(2 drift y / var)
    Phi((-y - x - m) / s), m = drift dt, s = sqrt(var dt) (Harrison). On the grid y - x and
    y + x take a few values each (in half cells), so Phi is evaluated on those alone."""
    m, s = drift * dt, math.sqrt(var * dt)
    i = np.arange(n)[:, None]
    j = np.arange(1, n)[None, :]  # the inner edges y = j h, from the cells' middles (i + 1/2) h
    halves = np.arange(-2 * n, 4 * n + 1)  # y - x and y + x in half cells
    first = _normal_cdf((halves * h / 2 - m) / s)[2 * (j - i) - 1 + 2 * n]
    log_second = _log_normal_cdf((-halves * h / 2 - m) / s)[2 * (j + i) + 1 + 2 * n]
    second = np.exp(np.minimum(2 * drift * (j * h) / var + log_second, 700.0))
    cdf = np.clip(first - second, 0.0, 1.0)
    cdf = np.maximum.accumulate(cdf, axis=1)
    full = np.concatenate((np.zeros((n, 1)), cdf, np.ones((n, 1))), axis=1)
    out: NDArray[np.float64] = np.diff(full, axis=1)
    return out


@dataclass(frozen=True, slots=True)
class Cycle:
    """A member's time-average backlog survival by (state, member level), on the cell edges
    `edges`."""

    edges: NDArray[np.float64]
    survival: dict[tuple[int, float], NDArray[np.float64]]
    # Each level's steady survival on the same grid (below saturation): what the same process
    # settles at if the level lasts, discretisation and all.
    steady: dict[float, NDArray[np.float64]]

    def steady_over(self, level: float, levels: NDArray[np.float64]) -> NDArray[np.float64] | None:
        """The steady P(V > level) at `level` of utilisation on the grid, or None."""
        got = self.steady.get(level)
        if got is None:
            return None
        out: NDArray[np.float64] = np.interp(levels, self.edges, got, right=0.0)
        return out

    def backlog_over(self, key: tuple[int, float], levels: NDArray[np.float64],
                     ) -> NDArray[np.float64] | None:
        """The time-average P(V > level) in `key` at each of `levels` (0 above the grid); None
        where the cycle never met `key`."""
        got = self.survival.get(key)
        if got is None:
            return None
        out: NDArray[np.float64] = np.interp(levels, self.edges, got, right=0.0)
        return out

    @property
    def keys(self) -> tuple[tuple[int, float], ...]:
        """The (state, member level) pairs the cycle met."""
        return tuple(self.survival)


def cycle(levels: NDArray[np.float64], states: NDArray[np.int64], members: int, dwell_s: float,
          variance: dict[float, float], base: float) -> Cycle:
    """Run member 0's backlog through its cycle for each placement (rows of `levels`: the
    member's utilisation at each of STEPS_PER_DWELL x members times of one cycle; `states`: the
    array's state then, the same shape), to its periodic state, and average each member's
    survival over the times of each (state, the member's level) (member k is member 0 k dwells
    later: round robin). `variance`: the variance rate at each level; `base` the average
    utilisation (where it starts)."""
    count, q = levels.shape
    dt = members * dwell_s / q
    hi = float(levels.max())
    var_hi = max(variance.values())
    widest = max((v / (2 * (1 - u)) for u, v in variance.items() if u < 1),
                 default=0.0)  # the largest steady mean backlog
    # The grid reaches past what a dwell at the highest level can pile up (its fluid backlog and
    # its spread over the dwell) and 12 steady means at the highest level under saturation.
    fluid = max(0.0, hi - 1.0) * members * dwell_s
    spread = 6 * math.sqrt(var_hi * dwell_s) if hi >= 1 else 0.0
    span = fluid + spread + 12 * min(widest, 1.0)
    h = span / CELLS
    kernels = {float(u): kernel(float(u) - 1, variance[float(u)], dt, h, CELLS)
               for u in np.unique(levels)}
    mids = (np.arange(CELLS) + 0.5) * h
    start = np.exp(-mids / max(widest, h))  # a steady state's shape to start from
    x = np.tile(start / start.sum(), (count, 1))
    snaps = np.zeros((q, count, CELLS))
    groups = []  # each step's placements by level: (kernel, their rows)
    for step in range(q):
        col = levels[:, step]
        groups.append([(kernels[float(u)], np.flatnonzero(col == u)) for u in np.unique(col)])
    for _ in range(MAX_CYCLES):
        before = x.copy()
        for step, parts in enumerate(groups):
            if len(parts) == 1:
                x = x @ parts[0][0]
            else:
                for kern, rows in parts:
                    x[rows] = x[rows] @ kern
            snaps[step] = x
        if float(np.abs(x - before).max()) < PERIODIC_TOL:
            break
    # P(V > edge j): the mass of the cells from j up (each cell's mass spread evenly over it)
    tail = np.cumsum(snaps[..., ::-1], axis=-1)[..., ::-1]
    surv = np.concatenate((tail, np.zeros((q, count, 1))), axis=-1)
    per_member = q // members
    # Member k at each time is member 0 k dwells earlier (round robin): its levels and survival
    # are member 0's shifted by k dwells; each (state, level) key averages what it met.
    level_ids, level_of = np.unique(levels, return_inverse=True)
    level_of = level_of.reshape(levels.shape)
    state_t = states.T  # (time, placement)
    keyed: list[NDArray[np.int64]] = []
    seen: list[NDArray[np.float64]] = []
    for k in range(members):
        shift = k * per_member
        keyed.append((state_t * level_ids.size + np.roll(level_of.T, shift, axis=0)).ravel())
        seen.append(np.roll(surv, shift, axis=0).reshape(-1, CELLS + 1))
    found, inverse = np.unique(np.concatenate(keyed), return_inverse=True)
    onehot = np.zeros((found.size, inverse.size))
    onehot[inverse, np.arange(inverse.size)] = 1.0
    sums = onehot @ np.concatenate(seen)
    counts = onehot.sum(axis=1)
    acc = {(int(key) // level_ids.size, float(level_ids[int(key) % level_ids.size])):
           sums[i] / counts[i] for i, key in enumerate(found)}
    steady: dict[float, NDArray[np.float64]] = {}
    for u, kern in kernels.items():
        if u < 1:  # the kernel's fixed point: m (K - I) = 0, sum m = 1
            a = np.vstack(((kern - np.eye(CELLS)).T[:-1], np.ones(CELLS)))
            b = np.zeros(CELLS)
            b[-1] = 1.0
            m = np.maximum(np.linalg.solve(a, b), 0.0)
            steady[u] = np.concatenate((np.cumsum(m[::-1])[::-1], [0.0]))
    edges = np.arange(CELLS + 1, dtype=np.float64) * float(h)
    return Cycle(edges=edges, survival=acc, steady=steady)


def tail_rate(ys: NDArray[np.float64], surv: NDArray[np.float64]) -> float | None:
    """The exponential decay rate (1/s) of a wait's survival `surv` at `ys` between a tenth and
    a thousandth of its chance to wait at all (an M/G/1 wait's tail is exponential there);
    None where it does not reach that far."""
    p = float(surv[0])
    if p <= 0:
        return None
    logs = np.log(np.maximum(surv / p, 1e-300))
    a = float(np.interp(math.log(0.1), logs[::-1], ys[::-1]))
    b = float(np.interp(math.log(1e-3), logs[::-1], ys[::-1]))
    if not b > a:
        return None
    return math.log(100.0) / (b - a)


def steady_shaped(backlog: NDArray[np.float64], steady: NDArray[np.float64] | None,
                  process: NDArray[np.float64] | None) -> NDArray[np.float64]:
    """A wait's survival from the cycle's time-average backlog survival `backlog` (at the
    tolerance + each wait), shaped as the member's steady wait: times that steady wait's
    survival `steady` over the cycle's process's own steady survival at the same level
    `process`, which near the atom at 0 and in the body carries what the diffusion leaves out
    (each job's work, the chance the limit is idle). The ratio is held where the steady wait's
    survival falls under a thousandth of its chance to wait. Without both: the backlog's own."""
    if steady is None or process is None or steady[0] <= 0:
        return backlog
    ratio = np.where(process > 0, steady / np.maximum(process, 1e-300), 1.0)
    deep = (steady < steady[0] * 1e-3) | (process <= 0)
    if deep.any():
        first = int(np.argmax(deep))
        ratio[first:] = ratio[max(0, first - 1)]
    out: NDArray[np.float64] = backlog * ratio
    return out
