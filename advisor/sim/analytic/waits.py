"""The open-loop tail of multi-I/O requests (database transactions): every device I/O of a
request queues at every limit on its path (the instance's and one member's), and a commit joins
its log's group commit.

A limit is a FIFO pacer with a burst tolerance tau (GCRA, `advisor.sim.kernel._lim_pass`): its
theoretical arrival time runs ahead of the clock by V, the unfinished work of a single-server
queue whose service time is an I/O's cost / rate, and an I/O arriving then waits (V - tau)^+.

1. Were every I/O a Poisson arrival, V would be the M/G/1 workload, computed exactly (Benes'
   series on a lattice, `_mg1_survival`).
2. A transaction's I/Os come in a cluster, one after another, about a service time apart. The
   clusters' effect is taken from large deviations: -log P(V > x) ~ inf_t sup_g [g (x + t) -
   log E exp(g A(t))], with log E exp(g A(t)) of the Poisson clusters from Campbell's theorem
   (the count of a cluster's I/Os inside a window of length t, `_cluster_counts`); P(V > x) of
   step 1 is multiplied by exp(I_poisson(x) - I_clustered(x)), unless step 1's value is the
   lattice's round-off (EXACT_FLOOR), where P(V > 0) exp(-I_clustered(x)) stands.
3. Waits of one request are correlated while the unfinished work lasts: the relaxation time of
   reflected Brownian motion with the same drift and variance rate, v / (1 - rho)^2; a sum of k
   waits keeps its mean and gets the variance of k waits correlated r^m at lag m
   (`correlated_sum`). The reads' waits are correlated so; the commits' (after the CPU step)
   are taken as independent (correlating them too measured worse: 96 instead of 103 of the 162
   loads within 10 %).

Group commit (`advisor.sim.kernel._group_commit`): one log write + flush F at a time; a commit
arriving while one is in progress waits for its residual (F's equilibrium distribution) and then
for its own group's. With Poisson commits at rate lambda, a flush is followed by another when a
commit arrived during it (q = 1 - E[exp(-lambda F)]), so busy periods last E[F] / (1 - q) and the
log is busy pi = B / (B + 1 / lambda) of the time, the chance a commit finds it so (PASTA).

Measured against the event simulation in docs/analytic-vs-des.md (bench/analytic_grid.py). Known
limits: step 2 treats clusters as open-loop input, while a transaction whose I/O waits issues
its next one later (a closed loop that regulates itself), so long clusters (sysbench shapes) and
loads near the knee come out high; RAID 0 near the knee comes out low.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from advisor.sim.analytic.dist import (
    ZERO,
    Dist,
    Pmf,
    atom_or,
    convolve,
    exponential,
    gamma,
    grid,
    mixture,
    pmf_mean,
    repeat,
    repeat_pmf,
    resample,
)
from advisor.sim.analytic.mix import ClassParts, IoPart, Mix
from advisor.sim.plan import SimPlan

DEVICE_OPS = (0, 1, 2)
U_POINTS = 256  # window positions per cluster (the cumulant's integral over them)
T_GRID = np.geomspace(1e-5, 1.0, 28)  # window lengths (s) of the large-deviation bound
G_GRID = np.geomspace(1.0, 1e6, 64)  # exponents (1/s)
LATTICE = 4096  # cells of the M/G/1 workload lattice
# Waits (s) at which the survival function is evaluated: 0, then 1 us to 1 s
Y_GRID = np.concatenate(([0.0], np.geomspace(1e-6, 1.0, 48)))
MIN_WAIT_P = 1e-4  # a limit whose I/Os wait less often than this adds no wait
# The M/G/1 lattice's round-off (FFT of 2 x LATTICE cells, then a running sum): tail values
# below this are noise.
EXACT_FLOOR = 1e-10
SPACING_SHARE = 0.02  # mean waits below this share of the I/Os' spacing leave it as it is


@dataclass(frozen=True, slots=True)
class LimitWait:
    """An I/O's wait at one limit: with probability p, exponential with mean theta_s."""

    limit: int
    rho: float
    p: float
    theta_s: float
    # Time over which the unfinished work stays correlated: the relaxation time v / (1 - rho)^2
    # of reflected Brownian motion with drift -(1 - rho) and variance rate v.
    corr_s: float = 0.0
    dist: Dist | None = None  # the wait's distribution (else: p and an exponential)


def _hit(plan: SimPlan, l: int, part: IoPart) -> tuple[float, float]:
    """(chance one logical I/O reaches one instance of limit l, its work there in seconds per
    unit of rate): a volume limit is one per member, an instance limit sees every member I/O."""
    if plan.limit_scope[l] == "instance":
        return 1.0, float(part.cost[l])
    share = 1.0 / plan.members
    hit = min(1.0, part.member_ios * share)
    return hit, float(part.cost[l]) / hit if hit > 0 else 0.0


def _pair_sum(pmf: Pmf, t: float, d: float) -> float:
    """E sum_{m=1}^{K-1} (K - m)(t - m d)^+ for K distributed as pmf."""
    out = 0.0
    for k, p in pmf:
        if k < 2:
            continue
        m = np.arange(1, k)
        out += p * float(np.dot(k - m, np.maximum(0.0, t - m * d)))
    return out


@dataclass(frozen=True, slots=True)
class _Cluster:
    rate: float  # clusters (requests of the class) per second
    pmf: Pmf  # device I/Os per request
    spacing_s: float  # between successive I/Os of a request


def class_clusters(mix: Mix, x: float, wait_mean_s: float) -> list[_Cluster]:
    out = []
    for c in mix.classes:
        dev = [io for io in c.ios if io.op in DEVICE_OPS]
        if not dev:
            continue
        pmf: Pmf = ((0, 1.0),)
        for io in dev:
            pmf = _add_pmf(pmf, io.pmf)
        n = sum(k * p for k, p in pmf)
        if n <= 0:
            continue
        # The request's own time spread over its device I/Os (CPU steps included).
        span = c.service.mean + n * wait_mean_s
        out.append(_Cluster(rate=x * c.probability, pmf=pmf, spacing_s=span / n))
    return out


def _add_pmf(a: Pmf, b: Pmf) -> Pmf:
    acc: dict[int, float] = {}
    for ka, pa in a:
        for kb, pb in b:
            acc[ka + kb] = acc.get(ka + kb, 0.0) + pa * pb
    return tuple(sorted(acc.items()))


@lru_cache(maxsize=4096)
def _cluster_counts(k: int, d: float) -> NDArray[np.float64]:
    """For windows of every length t in T_GRID (rows) sliding over k points d apart (the
    positions where they hold any): the length of positions at which one holds n points, n =
    0..k (columns)."""
    t = T_GRID[:, None]
    span = (k - 1) * d + t  # (T, 1)
    u = -t + (np.arange(U_POINTS) + 0.5)[None, :] / U_POINTS * span  # (T, U)
    j = np.arange(k) * d
    n = ((j[None, None, :] >= u[:, :, None])
         & (j[None, None, :] <= u[:, :, None] + t[:, :, None])).sum(axis=2)  # (T, U)
    out = np.zeros((T_GRID.size, k + 1))
    np.add.at(out, (np.repeat(np.arange(T_GRID.size), U_POINTS), n.ravel()), 1.0)
    out *= span / U_POINTS
    return out


@dataclass(frozen=True, slots=True)
class _Work:
    """The work arriving at one limit instance: Poisson single I/Os (background) and clusters
    (requests' serial I/Os)."""

    singles: list[tuple[float, float]]  # (I/Os per s, work s)
    bg_rate: float
    clusters: list[tuple["_Cluster", float, float]]  # (cluster, chance it reaches, work s)

    def cumulants(self) -> NDArray[np.float64]:
        """log E exp(g A(t)) of the work A(t) arriving in a window of length t, for g in G_GRID
        (rows) and t in T_GRID (columns)."""
        g = G_GRID
        out = np.zeros((g.size, T_GRID.size))
        if self.singles:
            r = np.array([x for x, _ in self.singles])
            w = np.array([x for _, x in self.singles])
            z = r @ np.exp(np.minimum(np.outer(w, g), 50.0)) / self.bg_rate
            out += np.outer(self.bg_rate * (z - 1), T_GRID)
        for cl, h, a in self.clusters:
            e = 1 - h + h * np.exp(np.minimum(g * a, 50.0))  # one I/O, thinned
            for k, p in cl.pmf:
                if k > 0:
                    lengths = _cluster_counts(k, cl.spacing_s)
                    powers = np.expm1(np.minimum(np.log(e)[:, None] * np.arange(k + 1), 700.0))
                    out += cl.rate * p * (powers @ lengths.T)
        return out


def _mg1_survival(jobs: list[tuple[float, float]],
                  levels: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(V > level) for the unfinished work V of an M/G/1 queue fed by Poisson streams of
    (rate /s, work s): Benes' series (1 - rho) sum_n rho^n R^{*n}, R the work's equilibrium
    residual (with weight rate x work, uniform on (0, work)), on a lattice by FFT."""
    rates = np.array([r for r, _ in jobs])
    works = np.array([w for _, w in jobs])
    keep = (rates > 0) & (works > 0)
    rates, works = rates[keep], works[keep]
    rho = float(np.dot(rates, works))
    if rho <= 0:
        return np.zeros_like(levels)
    if rho >= 1:
        return np.ones_like(levels)
    mean_v = float(np.dot(rates, works**2)) / (2 * (1 - rho))  # Pollaczek-Khinchine
    biggest = float(works.max())
    span = max(min(float(levels[-1]), 60 * mean_v / rho + biggest), 4 * biggest,
               4 * float(levels[0]) + 1e-6)
    h = span / LATTICE
    edges = np.arange(LATTICE + 1) * h
    cdf = np.zeros(LATTICE + 1)
    for r, w in zip(rates, works, strict=True):
        cdf += r * w / rho * np.minimum(edges / w, 1.0)
    f = np.fft.rfft(np.diff(cdf), 2 * LATTICE)  # zero padding against wrap-around
    v = np.maximum(np.fft.irfft((1 - rho) / (1 - rho * f), 2 * LATTICE)[:LATTICE], 0.0)
    # P(V > x) at the cell edges: rho at 0 (past the atom), then the mass of the cells above
    tail = np.concatenate(([rho], 1 - np.cumsum(v)))
    out: NDArray[np.float64] = np.interp(levels, edges, np.maximum(tail, 0.0), right=0.0)
    return np.minimum(out, rho)


def _ld_rates(cumulants: NDArray[np.float64], levels: NDArray[np.float64]) -> NDArray[np.float64]:
    """-log P(V > level) / P(V > 0) for every level, large deviations: the infimum over windows
    t of the supremum over g of g (level + t) - log E exp(g A(t))."""
    val = (G_GRID[None, :, None] * (levels[:, None, None] + T_GRID[None, None, :])
           - cumulants[None, :, :])
    val = np.where(np.isfinite(val), val, -np.inf)
    out: NDArray[np.float64] = np.min(np.maximum(np.max(val, axis=1), 0.0), axis=1)
    return out


def limit_waits(plan: SimPlan, mix: Mix, x: float, rates: list[float],
                wait_mean_s: float = 0.0) -> list[LimitWait]:
    """The wait of one device I/O at each limit, at `x` requests/s with the limits' rates in
    force `rates` (open loop below saturation)."""
    clusters = class_clusters(mix, x, wait_mean_s)
    dev_classes = [c for c in mix.classes if _has_device(c)]
    out = []
    # An I/O passes the limits of one member (and the instance's): the members are alike.
    for l in (int(x) for x in plan.chain[0] if x >= 0):
        rate = rates[l]
        if mix.cost[l] <= 0 or rate <= 0:
            continue
        rho = x * float(mix.cost[l]) / rate
        if rho <= 0 or rho >= 1:
            continue
        # Poisson streams (background): (I/Os per s reaching the limit, work s)
        singles = [(x * io.rate * hit, work / rate) for io in mix.background
                   for hit, work in [_hit(plan, l, io)] if io.rate > 0 and hit > 0]
        clus = []  # (cluster, chance an I/O reaches this limit, mean work s)
        for c, cl in zip(dev_classes, clusters, strict=True):
            dev = [io for io in c.ios if io.op in DEVICE_OPS and io.rate > 0]
            n = sum(io.rate for io in dev)
            hw = [(_hit(plan, l, io), io.rate / n) for io in dev]
            h = sum(share * hit for (hit, _), share in hw)
            a = sum(share * hit * work for (hit, work), share in hw) / max(h, 1e-12) / rate
            if h > 0 and a > 0:
                clus.append((cl, h, a))
        if not singles and not clus:
            continue
        bg_rate = sum(r for r, _ in singles)

        tau = float(plan.tolerance_s[l])
        levels = tau + Y_GRID
        # The foreground's I/Os one by one as if Poisson: the M/G/1 workload, exactly.
        fg_jobs = [(c.probability * x * io.rate * hit, work / rate)
                   for c in dev_classes for io in c.ios if io.op in DEVICE_OPS and io.rate > 0
                   for hit, work in [_hit(plan, l, io)] if hit > 0]
        exact = _mg1_survival(singles + fg_jobs, levels)
        # Clustering (a transaction's I/Os one after another) as the large-deviations ratio
        # of the clustered work to the same I/Os arriving as Poisson.
        clustered = _Work(singles=singles, bg_rate=bg_rate, clusters=clus).cumulants()
        poisson = singles + [(cl.rate * pmf_mean(cl.pmf) * h, a) for cl, h, a in clus]
        as_poisson = _Work(singles=poisson, bg_rate=sum(r for r, _ in poisson),
                           clusters=[]).cumulants()
        first = _clustered_tail(exact[:1], rho, _ld_rates(as_poisson, levels[:1]),
                                _ld_rates(clustered, levels[:1]))
        if min(rho, float(first[0])) < MIN_WAIT_P:
            continue  # its I/Os (almost) never wait
        tail = _clustered_tail(exact, rho, _ld_rates(as_poisson, levels),
                               _ld_rates(clustered, levels))
        # P(wait > y) = P(V > tau + y), on a grid of y
        surv = np.minimum.accumulate(np.minimum(rho, tail))
        p = float(surv[0])
        if p < MIN_WAIT_P:
            continue
        dist = _wait_dist(surv)
        theta = dist.mean / p
        # Variance rate of the Brownian approximation with this conditional mean wait, and its
        # relaxation time v / (1 - rho)^2.
        v = 2 * rho * (1 - rho) * theta
        out.append(LimitWait(limit=l, rho=rho, p=p, theta_s=theta, corr_s=v / (1 - rho) ** 2,
                             dist=dist))
    return out


def _clustered_tail(exact: NDArray[np.float64], rho: float, i_poisson: NDArray[np.float64],
                    i_clustered: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(V > level) of the clustered work: the exact M/G/1 value times the large-deviations
    ratio exp(I_poisson - I_clustered); where the lattice's value is round-off (below
    EXACT_FLOOR) the ratio would multiply noise by up to e^50, so the large-deviations estimate
    itself, P(V > 0) exp(-I_clustered), stands."""
    ratio = np.exp(np.minimum(50.0, i_poisson - i_clustered))
    out: NDArray[np.float64] = np.where(exact > EXACT_FLOOR, exact * ratio,
                                        rho * np.exp(-i_clustered))
    return out


def _wait_dist(surv: NDArray[np.float64]) -> Dist:
    """The wait with survival function `surv` on Y_GRID (surv[0] = P(wait > 0)): 0 with
    probability 1 - surv[0], else the quantiles of the conditional survival."""
    p = float(surv[0])
    cond = surv / p  # decreasing from 1
    u = grid()  # conditional quantile levels
    # y at which the conditional survival falls to 1 - u (log-linear between grid points)
    logs = np.log(np.maximum(cond, 1e-300))
    ys = np.interp(-np.log1p(-u), -logs, Y_GRID)
    values = np.concatenate(([0.0], ys))
    weights = np.concatenate(([1 - p], np.full(u.size, p / u.size)))
    return Dist(values, weights)


def _has_device(c: ClassParts) -> bool:
    dev = [io for io in c.ios if io.op in DEVICE_OPS]
    return bool(dev) and sum(io.rate for io in dev) > 0


def io_wait(waits: list[LimitWait]) -> Dist:
    """One device I/O's total wait over the limits on its path."""
    out = ZERO
    for w in waits:
        if w.p >= MIN_WAIT_P:
            one = w.dist if w.dist is not None else atom_or(w.p, exponential(w.theta_s))
            out = convolve(out, one)
    return out


def equilibrium(d: Dist) -> Dist:
    """The residual of a draw in progress at a random time: U x (length-biased draw)."""
    w = d.weights * d.values
    if w.sum() <= 0:
        return ZERO
    biased = Dist(d.values, w)
    u = (np.arange(20) + 0.5) / 20
    vals = np.sort((resample(biased, 50)[:, None] * u[None, :]).ravel())
    mean = float(np.dot(d.values**2, d.weights) / np.dot(d.values, d.weights)) / 2
    return Dist(vals, np.full(vals.size, 1.0 / vals.size), mean)


def group_commit(flush: Dist, rate: float) -> Dist:
    """A commit's time on a log with Poisson commits at `rate`/s, one flush `flush` at a time."""
    if rate <= 0:
        return flush
    w = flush.weights / flush.weights.sum()
    q = 1.0 - float(np.dot(w, np.exp(-rate * flush.values)))
    if q >= 1.0:
        q = 1.0 - 1e-9
    busy = flush.mean / (1 - q)
    pi = busy / (busy + 1 / rate)
    if pi < MIN_WAIT_P:
        return flush
    return mixture([(1 - pi, flush), (pi, convolve(flush, equilibrium(flush)))])


def correlated_sum(wait: Dist, k: int, r: float) -> Dist:
    """Sum S of k waits with correlation r^m between waits m apart, as n = k / (1 + 2 sum_{m<k}
    (1 - m/k) r^m) independent ones scaled by k / n (the same mean, k^2 Var W / n the same
    variance): zero when all n are, P = P(W = 0)^n, otherwise a gamma with S's moments."""
    if k <= 0:
        return ZERO
    w = wait.weights / wait.weights.sum()
    p0 = float(w[wait.values <= 0].sum())
    mean = wait.mean
    var = max(0.0, float(np.dot(w, wait.values**2)) - float(np.dot(w, wait.values)) ** 2)
    if mean <= 0 or p0 >= 1:
        return ZERO
    m = np.arange(1, k)
    n = k / (1 + 2 * float(np.dot(1 - m / k, r**m))) if r > 0 and k > 1 else float(k)
    q = 1 - p0**n
    s1, s2 = k * mean, k * k * var / n + (k * mean) ** 2
    return atom_or(q, gamma(s1 / q, max(s2 / q - (s1 / q) ** 2, 0.0)))


def _reads(io: IoPart, wait: Dist, r: float) -> Dist:
    """A random number of serial device I/Os, each waiting, the waits correlated."""
    parts = [(p, convolve(io.repeated(k), correlated_sum(wait, k, r))) for k, p in io.pmf]
    return parts[0][1] if len(parts) == 1 else mixture(parts)


def class_latency(mix: Mix, cls: ClassParts, x: float, wait: Dist, corr_s: float = 0.0) -> Dist:
    """One class's request time at `x` requests/s, its device I/Os each waiting `wait`."""
    total = ZERO
    n_dev = sum(io.rate for io in cls.ios if io.op in DEVICE_OPS)
    spacing = cls.service.mean / n_dev + wait.mean if n_dev > 0 else 0.0
    r = math.exp(-spacing / corr_s) if corr_s > 0 and spacing > 0 else 0.0
    commit_rates: dict[int, float] = {}
    commits: dict[int, Dist] = {}
    for io in cls.ios:  # commits of one log share it: one log per commit size
        if io.op == 2:
            commit_rates[io.size_bytes] = (commit_rates.get(io.size_bytes, 0.0)
                                           + x * cls.probability * io.rate)
    for io in cls.ios:
        if io.rate <= 0:
            continue
        if io.op in (0, 1):
            total = convolve(total, _reads(io, wait, r))
        elif io.op == 2:
            if io.size_bytes not in commits:  # the same log's commits take the same time
                commits[io.size_bytes] = group_commit(convolve(io.service, wait),
                                                      commit_rates[io.size_bytes])
            total = convolve(total, repeat_pmf(commits[io.size_bytes], io.pmf))
        else:
            total = convolve(total, repeat(io.service, io.rate))
    return total


def request_latency(plan: SimPlan, mix: Mix, x: float,
                    rates: list[float]) -> tuple[Dist, Dist, Dist]:
    """(all, read, write) request times of a database mix at `x` requests/s in open loop."""
    waits = limit_waits(plan, mix, x, rates)
    # The spacing of a request's I/Os includes their waits: one more pass with them, unless
    # they hardly move it.
    mean_wait = sum(w.p * w.theta_s for w in waits)
    spacing = min((c.service.mean / n for c in mix.classes
                   for n in [sum(io.rate for io in c.ios if io.op in DEVICE_OPS)] if n > 0),
                  default=0.0)
    if mean_wait > SPACING_SHARE * spacing:
        waits = limit_waits(plan, mix, x, rates, mean_wait)
    wait = io_wait(waits)
    top = max(waits, key=lambda w: w.p * w.theta_s, default=None)
    corr_s = top.corr_s if top is not None and top.p >= MIN_WAIT_P else 0.0
    by_kind: dict[int, list[tuple[float, Dist]]] = {0: [], 1: []}
    parts = []
    for cls in mix.classes:
        d = class_latency(mix, cls, x, wait, corr_s).shifted(mix.extra_latency_s)
        parts.append((cls.probability, d))
        by_kind[cls.kind].append((cls.probability, d))
    return (mixture(parts), mixture(by_kind[0]) if by_kind[0] else ZERO,
            mixture(by_kind[1]) if by_kind[1] else ZERO)
