"""The open-loop tail of multi-I/O requests (database transactions): every device I/O of a
request queues at every limit on its path (the instance's and one member's), and a commit joins
its log's group commit.

A limit is a FIFO pacer with a burst tolerance tau (GCRA, `advisor.sim.kernel._lim_pass`): its
theoretical arrival time runs ahead of the clock by V, the unfinished work of a single-server
queue whose service time is an I/O's cost / rate, and an I/O arriving then waits (V - tau)^+.

1. Were every I/O a Poisson arrival, V would be the M/G/1 workload, computed exactly (Benes'
   series on a lattice, `mg1_survival`).
2. P(V > tau): a transaction's I/Os come in a cluster, one after another, about a service time
   apart. Their effect on the chance to wait at all is taken from large deviations: -log P(V >
   x) ~ inf_t sup_g [g (x + t) - log E exp(g A(t))], with log E exp(g A(t)) of the Poisson
   clusters from Campbell's theorem (`_cluster_counts`); P(V > tau) of step 1 is multiplied by
   exp(I_poisson(tau) - I_clustered(tau)) (or, where step 1's value is the lattice's round-off,
   EXACT_FLOOR, P(V > 0) exp(-I_clustered(tau)) stands). Background jobs larger than any of
   the requests' I/Os (doublewrite batches) reach tau by a way of their own, which large
   deviations, keeping only the likeliest way, would let swamp the ratio: they are counted
   apart (`_first_wait`).
3. Above tau the limit is congested, and there a cluster no longer arrives open-loop: a request
   whose I/O waits issues its next one only after it passed (a queue with feedback through a
   delay, as in a Jackson/BCMP network). Its remaining work is then an M/G/1 workload of whole
   requests, m times the queue's (`_congested`); the wait's shape above tau is the exact M/G/1
   tail with the requests' I/Os merged into fewer, larger jobs of the same second-moment rate.
   (Step 2's open-loop clusters over all levels overstated the tail: a gp3 IOPS limit at 85 %
   waited 0.94 ms on average in the old model, 0.50-0.56 ms in the event simulation.)
   Where an I/O waits for the whole backlog (tau = 0: an instance-store device's capacity) and
   a request's I/Os are small beside the gaps between them, the opposite holds: its later I/Os
   arrive after the queue drained behind the one before and see less than the time average,
   so the time average itself is lower than Poisson I/Os would make it (`_chain_scale`, from
   E[V] = sum_i lambda_i a_i E[V seen by i] + Y / 2; the M/G/1 shape is scaled to that mean).
4. A request's summed waits at a limit, but on RAID 0 (a single EBS volume's limits and the
   instance's, an instance-store device's with its write-back cache): what the limit alone in
   closed loop adds to the request's completion, each of its I/Os issued after the one before
   passed, a commit in its log's group commit (`ClosedLoop`, `advisor.sim.analytic.closed`:
   the event simulation's next wait after a wait is a draw, not a regression, and its chance to
   wait rises along a transaction, bench/README.md of 2026-12-01). The chain below stands for
   RAID 0's member states.
   A request's successive waits (`regressed_sum`, `Chain`): the first sees the time average
   (Poisson arrivals); while the limit stays congested, the next I/O finds the queue it left,
   its own work still in it, drained at (1 - rho) / m: w' = max(0, carry w + own - (1 -
   carry) d), d the delay between the request's I/Os (carry = 1 - (1 - rho) / m; measured in
   the event simulation on a gp3 volume at 85 %: next wait ~0.89 x the last + 0.28 ms, this
   gives 0.91 x + 0.28 ms). Once the chain's wait is 0, the next I/O, d after one that passed
   freely, waits past y only if the backlog is now over tau by y and was not over tau then:
   P(W > y) - P(W > y + d (1 - rho)) with the backlog draining steadily in between
   (`later_wait`). An independent draw of the time-average wait instead (with the chance the
   queue forgot its state in d, from the relaxation time of reflected Brownian motion, as it
   was until 2026-11-29) is the same for an exponential wait near rho = 0.5, but a backlog
   that a doublewrite batch lifts far over tau at once is met by a later I/O only if the lift
   came within d. A wait met there starts a chain of its own (until 2026-11-30 it was a draw
   by itself, so congestion met at a transaction's third I/O was not carried into its fourth
   to sixth). Reads, writes and commits of one request are one chain at each limit, and each
   limit that waits runs its own (`class_latency`).

Group commit (`advisor.sim.kernel._group_commit`): one log write + flush F at a time; a commit
arriving while one is in progress waits for its residual (F's equilibrium distribution) and then
for its own group's. With Poisson commits at rate lambda, a flush is followed by another when a
commit arrived during it (q = 1 - E[exp(-lambda F)]), so busy periods last E[F] / (1 - q) and the
log is busy pi = B / (B + 1 / lambda) of the time, the chance a commit finds it so (PASTA).
The same model gives the limits' share of a commit: (1 - pi) / (1 - q) log writes
(`advisor.sim.analytic.commit`). A master's commit on the redo log and then the binlog is MySQL's
ordered commit (`ordered_commit`): the binlog's sync in progress runs beside the next redo
group's flush, where two group commits one after the other were 10-14 % high at the p99.

Above a limit's tolerance a log's writes are not Poisson arrivals (`LogStreams`): a flush that
waits (V - tau) there holds its log, more commits join the group behind it, and the log writes
flushes_per_commit(F + V - tau) per commit, fewer as the backlog grows. The wait's shape above
the tolerance is the backlog's law with those rates (level crossing,
`advisor.sim.analytic.level_crossing`); below it, and the chance to reach it, nothing changes. On
a gp3 volume 85 % busy with a master's two logs (r5.xlarge, 1,003 tps) the reads' p99 was +15 %
of the event simulation's with every log write a Poisson arrival, +1 % with these streams.

A device with a write-back cache (instance-store NVMe, `LatencyProfile.write_cache_ms`) lets a
write start up to `ahead` seconds of flash work before its pacing (`_lim_pass`'s `ahead`): the
backlog V is the same workload (a write still adds its work), but a read waits (V - tau)^+ and a
write only (V - tau - ahead)^+ = ((V - tau)^+ - ahead)^+, the read's wait less the cache
(`ahead_of`). A request's chain follows the backlog a read would wait through and charges each of
its writes (a transaction's commits, after its page reads) only the part beyond the cache
(`regressed_sum`). Giving every I/O the read's wait made commits on r6id.xlarge store at 30 % of
the knee wait as long as page reads: transaction p99 17 % high.

On RAID 0 a sequential log stream stays on one member for a whole chunk (512 KiB: 128 4-KiB
log writes), so the members' loads alternate over tenths of a second, and the streams' phases,
fixed for as long as their files are, decide each array's share of time in each state: the
request times are taken in each state and their quantiles averaged over placements
(`advisor.sim.analytic.striping`).

Measured against the event simulation in docs/analytic-vs-des.md (bench/analytic_grid.py).
"""

import math
from collections.abc import Hashable
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from advisor.layout.raid import RAID0
from advisor.memo import Memo, tracked
from advisor.sim.analytic.commit import (
    COMMIT,
    commit_rates,
    flushes_per_commit,
    flushes_per_commit_waiting,
    log_busy,
)
from advisor.sim.analytic.dist import (
    KEEP_EDGES,
    KEEP_MASS,
    KEEP_MID,
    ZERO,
    Dist,
    Pmf,
    atom_or,
    bin_sorted,
    binned,
    convolve,
    exponential,
    gamma,
    mixture,
    pmf_mean,
    repeat,
    repeat_pmf,
    tail_edges,
)
from advisor.sim.analytic.mix import ClassParts, IoPart, Mix
from advisor.sim.analytic.striping import Placed, placed, vincentized
from advisor.sim.plan import KIND_DEVICE, SimPlan
from advisor.sim.source import OP_WRITE

DEVICE_OPS = (0, 1, 2)
U_POINTS = 256  # window positions per cluster (the cumulant's integral over them)
T_GRID = np.geomspace(1e-5, 1.0, 28)  # window lengths (s) of the large-deviation bound
G_GRID = np.geomspace(1.0, 1e6, 64)  # exponents (1/s)
LATTICE = 4096  # cells of the M/G/1 workload lattice
# Waits (s) at which the survival function is evaluated: 0, then 1 us to 1 s
Y_GRID = np.concatenate(([0.0], np.geomspace(1e-6, 1.0, 48)))
REDO_LOG, BINLOG = 0, 1  # IoSpec.log of a master's two logs (workloads.mysql._commit_ios)
MIN_WAIT_P = 1e-4  # a limit whose I/Os wait less often than this adds no wait
# The M/G/1 lattice's round-off (FFT of 2 x LATTICE cells, then a running sum): tail values
# below this are noise.
EXACT_FLOOR = 1e-10
SPACING_SHARE = 0.02  # mean waits below this share of the I/Os' spacing leave it as it is
# A wait met later in a request starts a chain of its own while at most this many of its I/Os
# are left (`regressed_sum`); with more left, their waits are independent draws. A chain's carry
# comes from heavy traffic (`_congested`): on long requests at a light load it over-persists (a
# master's write transaction of 14 page reads and 2 commits on c5.large gp3 70 GiB behind a
# replica at 100 tps, a limit 15 % busy, carry 0.87: its p99 +78 % of the event simulation's
# with every chain restarted, +11 % without), and restarting each of its chains would carry
# that into all of the request's later I/Os.
RESTART_IOS = 8
# Each operand of a sum of a chain that died and the fresh waits after it (`_regressed_sum`):
# 46 bins, 5 a decade in the upper tail (the operands of other sums: 151).
SUM_EDGES = tail_edges(20, 5)


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
    # While the limit is congested, the fraction of a request's wait its next I/O waits again
    # (the queue drains at (1 - rho) / m of its rate, `_congested`), and the request's own
    # work there per device I/O (the chance it reaches this instance x its work, seconds).
    carry: float = 0.0
    own_s: float = 0.0
    # A device's write-back cache (`advisor.sim.kernel._lim_pass`'s `ahead`): a write may start
    # this far ahead of the pacing, so it waits only for the backlog beyond it, (V - tau -
    # ahead)^+, while a read waits (V - tau)^+ (`ahead_of`).
    write_ahead_s: float = 0.0
    # On RAID 0, the wait at the member each foreground log's stream is on, by log
    # (`striping.placed`): a commit writes there, not at a member picked at random.
    log_dists: tuple[tuple[int, Dist], ...] = ()
    # A request's summed waits here from the limit alone in closed loop, by class (None: the
    # regressed chain's, on RAID 0 and where a write-back cache acknowledges writes ahead).
    closed: "ClosedLoop | None" = None

    def wait_dist(self) -> Dist:
        """The wait of a (read) I/O at this limit."""
        return self.dist if self.dist is not None else atom_or(self.p, exponential(self.theta_s))


def _hit(plan: SimPlan, l: int, part: IoPart) -> tuple[float, float]:
    """(chance one logical I/O reaches one instance of limit l, its work there in seconds per
    unit of rate): a volume limit is one per member, an instance limit sees every member I/O."""
    if plan.limit_scope[l] == "instance":
        return 1.0, float(part.cost[l])
    share = 1.0 / plan.members
    hit = min(1.0, part.member_ios * share)
    work = float(part.cost[l]) / hit if hit > 0 else 0.0
    return (hit if part.on_member is None else part.on_member), work


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
    # Where a request's device I/Os fall (seconds from its first), by how many of each kind it
    # holds: (probability, offsets).
    shapes: tuple[tuple[float, tuple[float, ...]], ...]
    # The op of each of those I/Os (`_chain_scale`: what the I/O before one waited).
    ops: tuple[tuple[int, ...], ...] = ()


def class_clusters(mix: Mix, x: float, wait_mean_s: float) -> list[_Cluster]:
    """Each class's requests as clusters of device I/Os in the order the request issues them:
    each device I/O one service (and mean wait) after the one before, other steps (CPU) in
    between. A transaction's page reads follow one another a read's service apart, faster than
    its I/Os spread evenly over the whole transaction (its CPU and commits included): a few
    transactions reading at once outrun an IOPS limit that the even spread would keep under."""
    out = []
    for c in mix.classes:
        if not any(io.op in DEVICE_OPS for io in c.ios):
            continue
        # offsets -> (probability, clock, ops) of every combination of counts, in request order
        shapes: dict[tuple[float, ...], tuple[float, float, tuple[int, ...]]] = {
            (): (1.0, 0.0, ())}
        for io in c.ios:
            if io.op not in DEVICE_OPS:  # a CPU step or a flush: the clock moves on
                step = io.service.mean * io.rate
                shapes = {pos: (p, clock + step, ops)
                          for pos, (p, clock, ops) in shapes.items()}
                continue
            step = io.service.mean + wait_mean_s
            grown: dict[tuple[float, ...], tuple[float, float, tuple[int, ...]]] = {}
            for pos, (p, clock, ops) in shapes.items():
                for k, q in io.pmf:
                    key = pos + tuple(clock + step * j for j in range(k))
                    old = grown.get(key, (0.0, clock + step * k, ops + (io.op,) * k))
                    grown[key] = (old[0] + p * q, old[1], old[2])
            shapes = grown
        counts: dict[int, float] = {}
        for pos, (p, _, _) in shapes.items():
            counts[len(pos)] = counts.get(len(pos), 0.0) + p
        pmf: Pmf = tuple(sorted(counts.items()))
        if sum(k * p for k, p in pmf) <= 0:
            continue
        kept = [(p, pos, ops) for pos, (p, _, ops) in shapes.items() if pos and p > 0]
        out.append(_Cluster(rate=x * c.probability, pmf=pmf,
                            shapes=tuple((p, pos) for p, pos, _ in kept),
                            ops=tuple(ops for _, _, ops in kept)))
    return out


def _add_pmf(a: Pmf, b: Pmf) -> Pmf:
    acc: dict[int, float] = {}
    for ka, pa in a:
        for kb, pb in b:
            acc[ka + kb] = acc.get(ka + kb, 0.0) + pa * pb
    return tuple(sorted(acc.items()))


@tracked
@lru_cache(maxsize=4096)
def _cluster_counts(offsets: tuple[float, ...]) -> NDArray[np.float64]:
    """For windows of every length t in T_GRID (rows) sliding over points at `offsets` (the
    positions where they hold any): the length of positions at which one holds n points, n =
    0..k (columns)."""
    k = len(offsets)
    j = np.asarray(offsets) - offsets[0]
    t = T_GRID[:, None]
    span = j[-1] + t  # (T, 1)
    u = -t + (np.arange(U_POINTS) + 0.5)[None, :] / U_POINTS * span  # (T, U)
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
            for p, offsets in cl.shapes:
                k = len(offsets)
                lengths = _cluster_counts(offsets)
                powers = np.expm1(np.minimum(np.log(e)[:, None] * np.arange(k + 1), 700.0))
                out += cl.rate * p * (powers @ lengths.T)
        return out


def _congested(singles: list[tuple[float, float]],
               clusters: list[tuple[_Cluster, float, float, float]],
               rho: float) -> tuple[float, float]:
    """(m, z): while a limit is congested, a request's next I/O joins its queue only once the
    last one has passed (feedback through a delay, as in a Jackson/BCMP network), so its
    remaining work U (an M/G/1 workload whose jobs are whole requests, second-moment rate X)
    is m times the queue's V, m = (1 + X / Y) / 2 (a queued I/O's request has on average half
    its I/Os still to come; Y = the same I/Os one by one). V = U / m is then a reflected
    Brownian motion with drift -(1 - rho) / m and variance rate X / m^2: an M/G/1 tail whose
    second-moment rate is z = 2 X Y / (X + Y), between Y (single I/Os, Poisson) and 2 Y
    (exponential-like: long requests, as in a Jackson network)."""
    y = sum(r * w * w for r, w in singles)
    x = y
    for cl, h, a, a2 in clusters:
        k1 = sum(k * p for k, p in cl.pmf)
        k2 = sum(k * (k - 1) * p for k, p in cl.pmf)
        y += cl.rate * k1 * h * a2
        x += cl.rate * (k1 * h * a2 + k2 * h * h * a * a)
    if y <= 0:
        return 1.0, 0.0
    return (1 + x / y) / 2, 2 * x * y / (x + y)


def _shifted_mean(v: float, p: float, b: float) -> float:
    """E[(V + b)^+] for V zero with chance 1 - p, else exponential, of mean v."""
    if b >= 0:
        return v + b
    if v <= 0 or p <= 0:
        return 0.0
    return v * math.exp(b * p / v)


def _chain_scale(singles: list[tuple[float, float]],
                 clusters: list[tuple[_Cluster, float, float, float]],
                 rho: float, wait_mean_s: float, ahead_s: float = 0.0) -> float:
    """E[V] of a limit that every I/O waits through whole (a device's capacity, tau = 0), with
    a request's later I/Os issued one after another, over E[V] with every I/O Poisson (the
    M/G/1 value `mg1_survival` starts from); at most 1.

    For any arrivals, E[V] = sum_i lambda_i a_i E[V seen by i] + Y / 2 (the generator of V^2:
    V drains at rate 1 while positive, an arrival adds its work a_i; Y the second-moment rate).
    Background I/Os and a request's first I/O arrive as Poisson and see E[V]. Each later read
    or write, and each commit (a group's first commit goes out as its request reaches it, its
    log idle; the binlog's after the redo log's), arrives once the one before has waited w (all
    it saw for a read, what lay beyond the device's write-back cache for a write) and been
    served (a gap g): it sees what that one saw plus its own work, less what the queue drained
    net of the others' arrivals, (v + h a - (1 - rho)(w + g))^+ (V taken as zero or
    exponential, as M/G/1's), for the share of its queue still remembered after w + g (the
    relaxation time 2 E[V] / (1 - rho) of the Brownian approximation); the rest of the queue
    is fresh and averages E[V]. A transaction's page reads on NVMe are small beside their gaps
    (30 us of the device's capacity, 160 us of latency), so its later reads see a shorter queue
    than the first, and E[V] is lower than Poisson I/Os would have it: on m5d.large at 85 % of
    the knee the event simulation's read waits are 0.38 ms on average, its M/G/1 value 0.45 ms,
    and the analytic p99 was 14 % high (docs/analytic-vs-des.md). The commits were taken as
    Poisson until 2026-11-30; in the event simulation they see 0.76-0.80 of E[V]
    (`bench/device_view.py`), and with them chained E[V] is the event simulation's within 9 %
    (r6id.xlarge and m6id.2xlarge masters at 85 %: 0.43 / 0.28 ms against 0.39 / 0.27; it was
    0.51 / 0.31). An IOPS or MiB/s limit with a burst tolerance keeps `_congested`'s model,
    validated there (`limit_waits`)."""
    y = sum(r * w * w for r, w in singles)
    rho_o = sum(r * w for r, w in singles)
    chains = []  # (rate x chance, h, a, gaps between the I/Os chained to the first, their ops)
    for cl, h, a, a2 in clusters:
        y += cl.rate * sum(k * p for k, p in cl.pmf) * h * a2
        for (p, offsets), ops in zip(cl.shapes, cl.ops, strict=True):
            rho_o += cl.rate * p * h * a  # its first I/O
            gaps = [max(0.0, offsets[j] - offsets[j - 1] - wait_mean_s)
                    for j in range(1, len(offsets))]
            if gaps:
                chains.append((cl.rate * p, h, a, gaps, ops[:-1]))
    if y <= 0 or rho_o >= 1 or not chains:
        return 1.0
    poisson = y / (2 * (1 - rho))
    ev = poisson
    for _ in range(30):
        seen = 0.0  # sum over the chained I/Os of lambda h a E[V seen]
        for rate, h, a, gaps, before in chains:
            v = ev
            for gap, op in zip(gaps, before, strict=True):
                # the I/O before waited all it saw (a read) or what lay beyond the write-back
                # cache (a write or commit)
                u = (v if op == 0 else _shifted_mean(v, rho, -ahead_s)) + gap
                kept = math.exp(-u * (1 - rho) / (2 * ev))
                v = kept * _shifted_mean(v, rho, h * a - (1 - rho) * u) + (1 - kept) * ev
                seen += rate * h * a * v
        new = (y / 2 + seen) / (1 - rho_o)
        done = abs(new - ev) <= 1e-6 * poisson
        ev = new
        if done:
            break
    return min(1.0, ev / poisson)


def _own_work(clusters: list[tuple[_Cluster, float, float, float]]) -> float:
    """A request's own work at the limit per device I/O (seconds, averaged over classes)."""
    n = sum(cl.rate * pmf_mean(cl.pmf) for cl, _, _, _ in clusters)
    if n <= 0:
        return 0.0
    return sum(cl.rate * pmf_mean(cl.pmf) * h * a for cl, h, a, _ in clusters) / n


def mg1_survival(jobs: list[tuple[float, float]],
                  levels: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(V > level) for the unfinished work V of an M/G/1 queue fed by Poisson streams of
    (rate /s, work s): Benes' series (1 - rho) sum_n rho^n R^{*n}, R the work's equilibrium
    residual (with weight rate x work, uniform on (0, work)), on a lattice by FFT. Read-only:
    the same streams and levels give the same array (a steady state asks for a limit's M/G/1
    tail again in its second pass, with the I/Os' spacing: ~1 call in 4 of the main job's)."""
    return _mg1_kept(tuple(jobs), np.asarray(levels, dtype=np.float64).tobytes())


@tracked
@lru_cache(maxsize=1024)
def _mg1_kept(jobs: tuple[tuple[float, float], ...], levels_bytes: bytes) -> NDArray[np.float64]:
    out = _mg1_lattice(jobs, np.frombuffer(levels_bytes, dtype=np.float64))
    out.setflags(write=False)
    return out


def _mg1_lattice(jobs: tuple[tuple[float, float], ...],
                 levels: NDArray[np.float64]) -> NDArray[np.float64]:
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
    # Each point holds the residual's mass of the cell around it (nearest point): at the cells'
    # lower edges a sum of n fell n h / 2 short, and over the wait grid at 85 % busy P(V > 2 ms)
    # came out ~10 % low (an M/D/1: 0.089 against Erlang's 0.098; tests/sim/test_known_numerics).
    edges = np.arange(LATTICE + 1) * h
    cuts = np.concatenate(([0.0], (np.arange(LATTICE) + 0.5) * h))  # each point's cell
    cdf = np.zeros(LATTICE + 1)
    for r, w in zip(rates, works, strict=True):
        cdf += r * w / rho * np.minimum(cuts / w, 1.0)
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
            a2 = sum(share * hit * work**2 for (hit, work), share in hw) / max(h, 1e-12) / rate**2
            if h > 0 and a > 0:
                clus.append((cl, h, a, a2))
        if not singles and not clus:
            continue
        bg_rate = sum(r for r, _ in singles)

        tau = float(plan.tolerance_s[l])
        ahead = write_ahead_s(plan, l)
        levels = tau + Y_GRID  # the backlog V above tau
        # The foreground's I/Os one by one as if Poisson: the M/G/1 workload, exactly.
        fg_ops = [(io.op, c.probability * x * io.rate * hit, work / rate)
                  for c in dev_classes for io in c.ios if io.op in DEVICE_OPS and io.rate > 0
                  for hit, work in [_hit(plan, l, io)] if hit > 0]
        fg_jobs = [(r, w) for _, r, w in fg_ops]
        exact = mg1_survival(singles + fg_jobs, levels)
        # Clustering (a transaction's I/Os one after another) as the large-deviations ratio
        # of the clustered work to the same I/Os arriving as Poisson.
        clustered = _Work(singles=singles, bg_rate=bg_rate,
                          clusters=[(cl, h, a) for cl, h, a, _ in clus]).cumulants()
        poisson = singles + [(cl.rate * pmf_mean(cl.pmf) * h, a) for cl, h, a, _ in clus]
        as_poisson = _Work(singles=poisson, bg_rate=sum(r for r, _ in poisson),
                           clusters=[]).cumulants()
        first = _first_wait(exact[:1], rho, singles, fg_jobs, as_poisson, clustered,
                            levels[:1])
        if min(rho, float(first[0])) < MIN_WAIT_P:
            continue  # its I/Os (almost) never wait
        # P(V > tau) from the clustered large deviations; above tau, the congested queue's
        # shape: the exact M/G/1 tail with the requests' I/Os merged into jobs s times larger
        # (s times rarer: the same rho) so that their second-moment rate is z.
        m, z = _congested(singles, clus, rho)
        y_bg = sum(r * w * w for r, w in singles)
        y_fg = sum(r * w * w for r, w in fg_jobs)
        s = max(1.0, (z - y_bg) / y_fg) if y_fg > 0 else 1.0
        # Where an I/O waits for the whole backlog (tau = 0), a request's later I/Os see a
        # shorter queue than Poisson ones would: the M/G/1 shape, scaled to the lower mean.
        scale = _chain_scale(singles, clus, rho, wait_mean_s, ahead) if tau <= 0 else 1.0
        if scale < 1.0:
            eff = mg1_survival(singles + fg_jobs, tau + Y_GRID / scale)
        else:
            # A log writes one group at a time: over the tolerance its writes come rarer.
            logs = log_streams(plan, l, mix, x, tau, rate)
            if logs is not None:
                eff = logs.survival(singles + [(r / s, w * s) for op, r, w in fg_ops
                                               if op != COMMIT], levels)
            else:
                eff = exact if s == 1.0 else mg1_survival(
                    singles + [(r / s, w * s) for r, w in fg_jobs], levels)
        if eff[0] > EXACT_FLOOR:
            shape = np.where(eff > EXACT_FLOOR, eff / float(eff[0]), 0.0)
        else:  # the lattice is round-off here: the large-deviations decay itself
            i_c = _ld_rates(clustered, levels)
            shape = np.exp(-(i_c - i_c[0]))
        tail = min(rho, float(first[0])) * np.minimum(1.0, shape)
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
        closed = None
        if plan.raid != RAID0:
            closed = ClosedLoop(plan, l, rate, mix, x, tuple(dev_classes), tuple(clusters),
                                tuple(singles), wait_mean_s, tau, ahead)
        out.append(LimitWait(limit=l, rho=rho, p=p, theta_s=theta, corr_s=v / (1 - rho) ** 2,
                             dist=dist, carry=max(0.0, 1 - (1 - rho) / m),
                             own_s=_own_work(clus), write_ahead_s=ahead, closed=closed))
    return out


class ClosedLoop:
    """A request's summed waits at one limit, each class's, from the limit alone in closed loop
    (`advisor.sim.analytic.closed`: its input as `limit_waits` builds it, each I/O issued after
    the one before passed, a commit in its log's group commit). Run when a class's latency first
    asks (`limit_wait_sum`), for every class at once: a steady state's first pass
    (`spaced_waits`) is then never run, its second is."""

    __slots__ = ("_args", "_sums")

    def __init__(self, plan: SimPlan, l: int, rate: float, mix: Mix, x: float,
                 classes: tuple[ClassParts, ...], clusters: tuple["_Cluster", ...],
                 singles: tuple[tuple[float, float], ...], wait_mean_s: float, tau: float,
                 ahead_s: float):
        self._args = (plan, l, rate, mix, x, classes, clusters, singles, wait_mean_s, tau,
                      ahead_s)
        self._sums: list[tuple[ClassParts, Dist | None]] | None = None

    def summed(self, cls: ClassParts) -> Dist | None:
        """`cls`'s summed waits (None: a class of one device I/O, or too few requests run)."""
        if self._sums is None:
            self._sums = _closed_sums(*self._args)
        return next((d for c, d in self._sums if c is cls), None)


def _closed_sums(plan: SimPlan, l: int, rate: float, mix: Mix, x: float,
                 classes: tuple[ClassParts, ...], clusters: tuple["_Cluster", ...],
                 singles: tuple[tuple[float, float], ...], wait_mean_s: float,
                 tau: float, ahead_s: float) -> list[tuple[ClassParts, Dist | None]]:
    from advisor.sim.analytic.closed import (
        ClassInput,
        Commit,
        Service,
        closed_sums,
        inputs_digest,
    )

    commits_per_s = commit_rates(mix, x)
    inputs = []
    for c, cl in zip(classes, clusters, strict=True):
        reach, service = op_reach(plan, l, rate, c), {}
        for op in reach:
            ios = [io for io in c.ios if io.op == op and io.rate > 0]
            n = sum(io.rate for io in ios)
            service[op] = Service(
                values=np.concatenate([io.service.values for io in ios]),
                weights=np.concatenate([io.rate / n * io.service.weights / io.service.weights.sum()
                                        for io in ios]),
                mean=sum(io.rate / n * io.service.mean for io in ios))
        commits = []
        for io in c.ios:
            if io.op != COMMIT or io.rate <= 0:
                continue
            hit, work = _hit(plan, l, io)
            # a commit's share of its group's write (`with_group_commit`): the whole write's work
            share = flushes_per_commit(io.service, commits_per_s.get(io.log, 0.0))
            one = Commit(log=int(io.log), work_s=hit * work / rate / max(share, 1e-12),
                         flush=Service(io.service.values, io.service.weights, io.service.mean))
            commits += [one] * max(k for k, _ in io.pmf)
        inputs.append(ClassInput(rate=cl.rate, reach=reach, service=service,
                                 commits=tuple(commits),
                                 shapes=tuple((p, pos, ops) for (p, pos), ops
                                              in zip(cl.shapes, cl.ops, strict=True))))
    several = tuple(max(k for k, _ in cl.pmf) >= 2 for cl in clusters)
    args = (singles, inputs, wait_mean_s, tau, COMMIT)
    key = (inputs_digest(*args, ahead_s=ahead_s, write_ops=(OP_WRITE,)), several)

    def run() -> tuple[Dist | None, ...]:
        sums = closed_sums(*args, ahead_s=ahead_s, write_ops=(OP_WRITE,))
        return tuple(_sample_dist(s) if many and s.size >= MIN_CLOSED_REQUESTS else None
                     for many, s in zip(several, sums, strict=True))

    return list(zip(classes, _CLOSED.kept(key, run), strict=True))


# The closed loops already run, by their input: a sizing asks for the same loop again where
# candidates are alike at a limit (27 % of the loops of `size --data-gb 500 --p99-ms 5`, 37 % of
# `--preset sysbench-oltp-rw`'s); each one ~0.15 s, its result a few KB.
_CLOSED: Memo[tuple[bytes, tuple[bool, ...]], tuple[Dist | None, ...]] = Memo(1024)


def op_reach(plan: SimPlan, l: int, rate: float, c: ClassParts) -> dict[int, tuple[float, float]]:
    """Per device op of class c: (the chance one of its I/Os reaches limit l, its work there in
    seconds, `rate` the limit's rate in force)."""
    out = {}
    for op in {io.op for io in c.ios if io.op in DEVICE_OPS and io.rate > 0}:
        ios = [io for io in c.ios if io.op == op and io.rate > 0]
        n = sum(io.rate for io in ios)
        hw = [(_hit(plan, l, io), io.rate / n) for io in ios]
        h = sum(share * hit for (hit, _), share in hw)
        out[op] = (h, sum(share * hit * work for (hit, work), share in hw) / max(h, 1e-12) / rate)
    return out


MIN_CLOSED_REQUESTS = 1000  # a class's requests in the closed loop to read its sums from


def _sample_dist(s: NDArray[np.float64]) -> Dist:
    """The distribution of the samples `s`: no wait an atom, the rest on KEEP_EDGES' bins."""
    v = np.sort(s)
    zero = v <= 0
    if zero.all():
        return ZERO
    bv, bm = bin_sorted(v[~zero], np.ones(int((~zero).sum())), KEEP_EDGES)
    p0 = float(zero.mean())
    if p0 <= 0:
        return Dist(bv, bm, float(v.mean()))
    return Dist(np.concatenate(([0.0], bv)), np.concatenate(([p0], (1 - p0) * bm)),
                float(v.mean()))


@dataclass(frozen=True, slots=True)
class LogStream:
    """One commit I/O's log writes at a limit: `rate` whole writes/s below the tolerance, each
    of `work` seconds there, falling as flushes_per_commit(flush + the wait) / `share` above it
    (`share`: the log's writes per commit below the tolerance, at `commits` commits/s)."""

    rate: float
    work: float
    flush: Dist
    commits: float
    share: float

    def kind(self) -> tuple[float, bytes, bytes, float, float, float]:
        """Everything but the rate: streams of one kind write as one, at their summed rate."""
        return (self.work, self.flush.values.tobytes(), self.flush.weights.tobytes(),
                self.flush.mean, self.commits, self.share)

    def key(self) -> tuple[float, tuple[float, bytes, bytes, float, float, float]]:
        return self.rate, self.kind()


# P(V > level) with the logs' writes, by everything it is computed from: a steady state asks
# again in its second pass (the I/Os' spacing) and for alike candidates (94 asks, 46 distinct,
# in the latency-bound main request).
_LOG_SURVIVAL: Memo[Hashable, NDArray[np.float64]] = Memo(2048)


@dataclass(frozen=True, slots=True)
class LogStreams:
    """The logs' writes at one limit as whole writes whose rate falls while the backlog is over
    the tolerance tau: a flush that waits there holds its log, so more commits
    join the group behind it (`commit.flushes_per_commit_waiting`). Below tau they are the
    Poisson streams `limit_waits` takes, the same work: a commit's share of one write at the
    commit rate there, one whole write at the log's write rate here."""

    logs: tuple[LogStream, ...]
    tau: float

    def rates_at(self, v: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each log's writes/s at backlog levels v (shape (logs, v.size))."""
        wait = np.maximum(0.0, v - self.tau)
        return np.vstack([s.rate * flushes_per_commit_waiting(s.flush, s.commits, wait) / s.share
                          for s in self.logs])

    def survival(self, jobs: list[tuple[float, float]],
                 levels: NDArray[np.float64]) -> NDArray[np.float64]:
        """P(V > level) with `jobs` (Poisson, fixed rates) beside the logs' writes
        (`level_crossing`), followed as far as the M/G/1 lattice would be. Read-only."""
        fixed = tuple((r, w) for r, w in jobs if r > 0 and w > 0)
        key = (fixed, tuple(s.key() for s in self.logs), self.tau, levels.tobytes())

        def make() -> "NDArray[np.float64]":  # quoted: not evaluated at every call
            out = self._survival(fixed, levels)
            out.setflags(write=False)
            return out

        return _LOG_SURVIVAL.kept(key, make)

    def _survival(self, fixed: tuple[tuple[float, float], ...],
                  levels: NDArray[np.float64]) -> NDArray[np.float64]:
        from advisor.sim.analytic.level_crossing import level_survival  # numba: only here

        works = np.array([w for _, w in fixed] + [s.work for s in self.logs])
        at_zero = np.array([r for r, _ in fixed] + [s.rate for s in self.logs])
        rho = float(np.dot(at_zero, works))
        mean_v = float(np.dot(at_zero, works**2)) / (2 * max(1e-9, 1 - rho))
        biggest = float(works.max())
        span = max(min(float(levels[-1]), 60 * mean_v / rho + biggest), 4 * biggest,
                   4 * float(levels[0]) + 1e-6)
        constant = np.array([r for r, _ in fixed])[:, None]

        def rate_at(v: NDArray[np.float64]) -> NDArray[np.float64]:
            return np.vstack([np.broadcast_to(constant, (len(fixed), v.size)), self.rates_at(v)])

        return level_survival(works, rate_at, levels, span)


def log_streams(plan: SimPlan, l: int, mix: Mix, x: float, tau: float,
                rate: float) -> LogStreams | None:
    """The log writes at limit l (rate: its rate in force) as `LogStreams`, or None when no
    commit reaches it. A commit's flush F, at a limit whose backlog is v, waits (v - tau)^+
    before it starts; its log then writes flushes_per_commit(F + that wait) per commit, at that
    log's commit rate (`commit_rates`). The background's commits (a replica's applier) stay
    Poisson streams: taken as log streams too, the replicas' loads fell from 73 to 69 of 81
    within 10 % on the grid of docs/analytic-vs-des.md (r5.xlarge RAID 0 2xgp3 35 GiB's replica
    at 85 % -59 %)."""
    per_log = commit_rates(mix, x)
    # One stream per log and flush: a transaction of many autocommitted statements has as many
    # commit I/Os on each log, alike, and they write as one stream (at their summed rate).
    logs: dict[tuple[float, bytes, bytes, float, float, float], LogStream] = {}
    for c in mix.classes:
        for io in c.ios:
            if io.op != COMMIT or io.rate <= 0:
                continue
            hit, work = _hit(plan, l, io)
            lam = per_log.get(io.log, 0.0)
            g0 = flushes_per_commit(io.service, lam)
            if hit <= 0 or work <= 0 or g0 <= 0:
                continue
            # whole writes at the log's write rate: the same work as its share at the commits'
            one = LogStream(rate=c.probability * x * io.rate * hit * g0, work=work / rate / g0,
                            flush=io.service, commits=lam, share=g0)
            kind = one.kind()
            same = logs.get(kind)
            logs[kind] = one if same is None else replace(same, rate=same.rate + one.rate)
    if not logs:
        return None
    return LogStreams(logs=tuple(logs.values()), tau=tau)


def _first_wait(exact: NDArray[np.float64], rho: float, singles: list[tuple[float, float]],
                fg_jobs: list[tuple[float, float]], as_poisson: NDArray[np.float64],
                clustered: NDArray[np.float64], levels: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(V > level) of the clustered work at `levels` (the tolerance tau): `_clustered_tail`,
    with the background I/Os larger than any of the requests' (a doublewrite batch: 1 MiB, 4 I/Os
    of a gp2 volume's at once) taken as a route of their own.

    Large deviations keep only the likeliest way to reach a level. With such jobs in the
    stream, that is one large job at the Poisson tilt, where the requests' clusters barely
    differ from Poisson I/Os, so the clustering ratio exp(I_poisson - I_clustered) falls towards
    1 and multiplies the whole tail, the large jobs' part included: adding the doublewrite's
    1 MiB writes to c5.large gp2 650 GiB with a replica at 60 % of the knee lowered the master's
    P(wait at the volume's IOPS) from 4.6 % to 3.9 %, when in the event simulation it rose from
    4.8 % to 5.1 % of I/Os held. The two ways are counted apart instead: the small I/Os (the
    requests' clusters and the background's I/Os no larger than theirs) with their own ratio,
    p_s; the large jobs' excess over them in the Poisson model, e = P_all - P_small there, is
    the chance they reach the level where the small ones do not, so on its own e / (1 -
    P_small); taken as independent of the small ones' way, P = p_s + e (1 - p_s) / (1 - P_small).
    Only above a positive tolerance: at tau = 0, P(V > 0) is the utilisation, whatever the
    arrivals."""
    cut = max((w for _, w in fg_jobs), default=0.0) * (1 + 1e-6)  # the requests' largest
    big = [(r, w) for r, w in singles if w > cut]
    if not big or cut <= 0 or float(levels[0]) <= 0:
        return _clustered_tail(exact, rho, _ld_rates(as_poisson, levels),
                               _ld_rates(clustered, levels))
    small = [(r, w) for r, w in singles if w <= cut]
    # The cumulants are additive over independent inputs: the large jobs' own, taken out.
    alone = _Work(singles=big, bg_rate=sum(r for r, _ in big), clusters=[]).cumulants()
    exact_small = mg1_survival(small + fg_jobs, levels)
    p_small = _clustered_tail(exact_small, rho - sum(r * w for r, w in big),
                              _ld_rates(as_poisson - alone, levels),
                              _ld_rates(clustered - alone, levels))
    excess = np.maximum(0.0, exact - exact_small) / np.maximum(1e-12, 1 - exact_small)
    out: NDArray[np.float64] = p_small + excess * (1 - np.minimum(p_small, 1.0))
    return out


def write_ahead_s(plan: SimPlan, l: int) -> float:
    """How far ahead of limit l's pacing a write may start: a device limit's write-back cache
    (seconds of its flash work; the members are alike), 0 for every other limit."""
    if plan.lim_kind[l] != KIND_DEVICE or plan.dev_wcache_s.size == 0:
        return 0.0
    return float(plan.dev_wcache_s[0])


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
    # y at which the conditional survival falls to 1 - u (log-linear between grid points), at
    # the middle of each of KEEP_EDGES' bins of conditional probability
    logs = np.log(np.maximum(cond, 1e-300))
    ys = np.interp(-np.log1p(-KEEP_MID), -logs, Y_GRID)
    values = np.concatenate(([0.0], ys))
    weights = np.concatenate(([1 - p], p * KEEP_MASS))
    return Dist(values, weights)


def wait_from_survival(surv: NDArray[np.float64]) -> Dist:
    """The wait with survival `surv` on Y_GRID, made a survival function (at most 1, never
    rising); none below MIN_WAIT_P."""
    surv = np.minimum.accumulate(np.minimum(surv, 1.0))
    if surv[0] < MIN_WAIT_P:
        return ZERO
    return _wait_dist(surv)


def _has_device(c: ClassParts) -> bool:
    dev = [io for io in c.ios if io.op in DEVICE_OPS]
    return bool(dev) and sum(io.rate for io in dev) > 0


def io_wait(waits: list[LimitWait]) -> Dist:
    """One device I/O's (a read's) total wait over the limits on its path."""
    out = ZERO
    for w in waits:
        if w.p >= MIN_WAIT_P:
            out = convolve(out, w.wait_dist())
    return out


def equilibrium(d: Dist) -> Dist:
    """The residual of a draw in progress at a random time: U x (length-biased draw)."""
    w = d.weights * d.values
    if w.sum() <= 0:
        return ZERO
    vb, wb = binned(Dist(d.values, w))  # the length-biased draw
    u = (np.arange(20) + 0.5) / 20
    vals = (vb[:, None] * u[None, :]).ravel()
    order = np.argsort(vals)
    values, mass = bin_sorted(vals[order], np.repeat(wb / u.size, u.size)[order], KEEP_EDGES)
    mean = float(np.dot(d.values**2, d.weights) / np.dot(d.values, d.weights)) / 2
    return Dist(values, mass, mean)


def group_commit(flush: Dist, rate: float) -> Dist:
    """A commit's time on a log with Poisson commits at `rate`/s, one flush `flush` at a time."""
    if rate <= 0:
        return flush
    _, pi = log_busy(flush, rate)
    if pi < MIN_WAIT_P:
        return flush
    return mixture([(1 - pi, flush), (pi, convolve(flush, equilibrium(flush)))])


def _cdf(d: Dist, at: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(D <= v) for each of the sorted points `at` (d's points sorted by value)."""
    cum = np.concatenate(([0.0], np.cumsum(d.weights))) / float(d.weights.sum())
    out: NDArray[np.float64] = cum[np.searchsorted(d.values, at, side="right")]
    return out


def _from_cdf(at: NDArray[np.float64], cdf: NDArray[np.float64]) -> Dist:
    """The distribution with P(D <= v) = cdf at the sorted points `at` (each step's mass at its
    upper point), on KEEP_EDGES' bins."""
    mass = np.diff(np.concatenate(([0.0], np.maximum.accumulate(cdf))))
    values, weights = bin_sorted(at, mass, KEEP_EDGES)
    return Dist(values, weights)


def _behind(d: Dist, rate: float, at: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(D - I <= v) = E[min(1, exp(-rate (D - v)))] for each of the sorted points `at`, I
    exponential at `rate` (> 0): the draws at or below v count whole, each one above it e^(-rate
    (b - v)), summed from the first above v as e^(-rate (b_k - v)) S_k with S_k = w_k +
    e^(-rate (b_{k+1} - b_k)) S_{k+1} (every exponent <= 0)."""
    order = np.argsort(d.values, kind="stable")
    b = d.values[order]
    w = d.weights[order] / float(d.weights.sum())
    decay = np.exp(-rate * np.diff(b))
    suffix = np.zeros(b.size + 1)
    for k in range(b.size - 1, -1, -1):
        suffix[k] = w[k] + (decay[k] * suffix[k + 1] if k + 1 < b.size else 0.0)
    first = np.searchsorted(b, at, side="right")  # the first draw above each v
    below = np.concatenate(([0.0], np.cumsum(w)))[first]
    above = np.exp(-rate * (b[np.minimum(first, b.size - 1)] - at)) * suffix[first]
    out: NDArray[np.float64] = np.minimum(1.0, below + np.where(first < b.size, above, 0.0))
    return out


def ordered_commit(redo: Dist, binlog: Dist, rate: float) -> Dist:
    """A commit's time on the redo log and then the binlog, `rate` commits/s on each, as MySQL's
    ordered commit runs them (and `advisor.sim.kernel._group_commit`): the redo log flushes one
    group at a time, and the binlog takes each redo group whole, syncing it once the last
    group's sync is done. A commit that finds the redo log flushing (chance pi) waits for that
    flush's residual and then flushes with the next group, back to back; one that finds it idle
    flushes at once, I after the last flush ended (I exponential at `rate`). The binlog's sync
    in progress is the last group's, which started as that group's redo flush ended, so it
    runs beside this group's redo flush F_r: the pair takes max(F_r, F_b' - I) (I = 0 after a
    wait), then the group's own sync F_b. Against a direct simulation of the two logs
    (bench/ordered_commit.py, 50-800 commits/s on gp3 and io1) the mean and p99 are within
    0.4 % at the median, 8.2 % at most; two group commits one after the other were 9-20 % high
    at the p99 (the event simulation's own commit times: tests/sim/test_group_commit_share.py).
    Nothing is fitted."""
    if rate <= 0:
        return convolve(redo, binlog)
    _, pi = log_busy(redo, rate)
    top = max(float(redo.values[-1]), float(binlog.values[-1]))
    low = max(min(float(redo.values[0]), float(binlog.values[0])), top * 1e-6, 1e-9)
    at = np.unique(np.concatenate((redo.values, binlog.values, np.geomspace(low, top, 400))))
    at = at[at > 0]
    f_r = _cdf(redo, at)
    pair = _from_cdf(at, f_r * _behind(binlog, rate, at))
    if pi >= MIN_WAIT_P:
        busy = convolve(equilibrium(redo), _from_cdf(at, f_r * _cdf(binlog, at)))
        pair = mixture([(1 - pi, pair), (pi, busy)])
    return convolve(pair, binlog)


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


@dataclass(frozen=True, slots=True)
class Chain:
    """How the waits of one request's successive device I/Os follow each other: while the
    limit stays congested, w' = max(0, carry w + step) (`regressed_sum`); once a wait is 0, the
    next I/O waits `later` (`later_wait`), or, when None, a draw of the first I/O's wait, and a
    wait met there starts a chain of its own (near the request's end: `RESTART_IOS`)."""

    carry: float = 0.0
    step_s: float = 0.0
    later: Dist | None = None
    drained_s: float = 0.0  # the backlog's drain between I/Os that `later` was taken at


def ahead_of(wait: Dist, ahead_s: float) -> Dist:
    """A write's wait where a read waits `wait`: the backlog beyond the cache, (w - ahead)^+."""
    if ahead_s <= 0:
        return wait
    return Dist(np.maximum(0.0, wait.values - ahead_s), wait.weights)


def survival(d: Dist, ys: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(W > y) for each y >= 0: the atom at 0 exactly, the rest interpolated between the
    points at their mass centres (as `Dist.quantile`)."""
    w = d.weights / d.weights.sum()
    pos = d.values > 0
    p = float(w[pos].sum())
    if p <= 0:
        return np.zeros(ys.size)
    v, wp = d.values[pos], w[pos] / p
    mid = np.cumsum(wp) - wp / 2
    out: NDArray[np.float64] = p * (1 - np.interp(ys, v, mid, left=0.0, right=1.0))
    return out


def later_wait(wait: Dist, drained_s: float) -> Dist:
    """The wait of an I/O issued after one of the same request that passed without waiting,
    the backlog having drained `drained_s` since (the gap between them x (1 - rho)): it waits
    past y only if the backlog is over the tolerance by y now and was not over it then, and,
    draining at a steady rate in between, that is P(W > y) - P(W > y + drained_s), W the
    time-average wait. An exponential W gives an independent draw with chance 1 - exp(-drained_s
    / E[W | W > 0]). A backlog that a large job (a doublewrite batch) lifts far over the
    tolerance at once is met by a later I/O only if the lift came within the gap: in the event
    simulation of c5.large gp3 70 GiB behind a replica (358 tps, its bandwidth limit alone,
    600 s) 0.42 % of the I/Os arriving at random waited over 1 ms there and 0.05 % of the
    transactions' later reads; this gives 0.05 %, an independent draw 0.2 %."""
    if drained_s <= 0:
        return ZERO
    surv = survival(wait, Y_GRID)
    shifted = survival(wait, Y_GRID + drained_s)
    later = np.minimum.accumulate(np.maximum(0.0, surv - shifted))
    if later[0] < MIN_WAIT_P * MIN_WAIT_P:
        return ZERO
    return _wait_dist(later)


@dataclass(frozen=True, slots=True)
class Coupled:
    """Where one of a chain's I/Os waits elsewhere than the chain says: a commit at the member
    its log is on (`wait`), or, in a chain restarted by a later wait, that member's later wait
    (`later`). Its wait is the chain's taken to that distribution at the same quantile
    (comonotone): the members' backlogs rise and fall together (a burst of transactions loads
    every member), which one chain over their mixture keeps and separate chains per member
    lose (bench/README.md: 243 of 258 with separate chains, the RAID 0 masters lower)."""

    wait: Dist
    later: Dist


def _mean_between(d: Dist, lo: NDArray[np.float64],
                  hi: NDArray[np.float64]) -> NDArray[np.float64]:
    """The mean of d's quantile function over each rank interval (lo, hi]: its integral is
    piecewise linear between the points' cumulative weights (as `dist.bin_sorted`)."""
    order = np.argsort(d.values, kind="stable")
    v, w = d.values[order], d.weights[order] / d.weights.sum()
    cw = np.concatenate(([0.0], np.cumsum(w)))
    cv = np.concatenate(([0.0], np.cumsum(w * v)))
    width = np.maximum(hi - lo, 1e-300)
    out: NDArray[np.float64] = (np.interp(hi, cw, cv) - np.interp(lo, cw, cv)) / width
    return out


def _coupled(source: Dist, target: Dist, w: NDArray[np.float64],
             first: bool) -> NDArray[np.float64]:
    """The chain's waits `w` (one per point of `source`, the chain's first wait) taken to
    `target` at the same quantile: the first I/O's point to the mean of `target` over the
    point's own ranks (so `target`'s mean is kept, and the ranks of the atom at 0 where a member
    busier than the chain's mixture waits give its points a wait), a later one's at the rank of
    its wait in `source` (0 stays 0: a chain that died is redrawn)."""
    if first:
        order = np.argsort(source.values, kind="stable")
        ws = source.weights[order] / source.weights.sum()
        hi = np.cumsum(ws)
        out = np.empty(w.size)
        out[order] = _mean_between(target, hi - ws, hi)
        return out
    ranks = 1 - survival(source, np.maximum(w, 0.0))
    later: NDArray[np.float64] = np.where(w > 0, target.quantiles(ranks), 0.0)
    return later


def regressed_sum(wait: Dist, k: int, chain: Chain, *, writes: int = 0,
                  ahead_s: float = 0.0, last: tuple[Coupled, ...] = ()) -> Dist:
    """Sum of the waits of k successive device I/Os of one request, the first one `wait` (a
    request arrives as Poisson: it sees the time average). The last `writes` of them are
    writes a cache acknowledges `ahead_s` ahead of the pacing: the chain follows the backlog a
    read would wait through, w, and a write waits (w - ahead_s)^+ of it.

    Once a chain's wait is 0, the next I/O waits `chain.later`, and a wait met there starts a
    chain of its own, which regresses as the first one does (in the event simulation an I/O
    that waited is followed by one that waits again 59-84 % of the time wherever in its request
    it came: bench/chain_stats.py): while at most RESTART_IOS I/Os are left. With more
    left, the later I/Os wait independent draws, as every later I/O did until 2026-11-30.

    `last`: the chain's last I/Os that wait elsewhere than the chain says (`Coupled`: a commit
    at its log's member)."""
    return _regressed_sum(wait, k, chain, writes, ahead_s, last[-k:] if k > 0 else (), False,
                          {})


def _regressed_sum(wait: Dist, k: int, chain: Chain, writes: int, ahead_s: float,
                   last: tuple[Coupled, ...], restart: bool,
                   restarted: dict[tuple[int, int], Dist]) -> Dist:
    """`regressed_sum`; `restarted`: the sums of the last n I/Os (n_w of them writes) of a
    chain restarted from `chain.later`, by (n, n_w), shared by the whole call tree."""
    if k <= 0:
        return ZERO
    writes = min(writes, k) if ahead_s > 0 else 0
    mapped = k - len(last)  # the first I/O whose wait `last` maps

    def waited(w: "NDArray[np.float64]", i: int) -> "NDArray[np.float64]":  # quoted: per call
        if i >= mapped:
            c = last[i - mapped]
            w = _coupled(wait, c.later if restart else c.wait, w, i == 0)
        return np.maximum(0.0, w - ahead_s) if i >= k - writes else w

    w = wait.values.copy()
    total = waited(w, 0).copy()
    dead = np.zeros(w.size, dtype=np.int64)  # I/Os after the congestion the request met
    for i in range(1, k):
        w = np.where(w > 0, np.maximum(0.0, chain.carry * w + chain.step_s), 0.0)
        total += waited(w, i)
        dead += w <= 0
    fresh = wait if chain.later is None else chain.later
    if not dead.any() or float(fresh.values.max()) <= 0:
        return Dist(total, wait.weights)
    # The request's waits as one mixture over how many of its I/Os came after its chain died:
    # each chain's sum as it was, plus (where it died) the sum of the fresh waits after it,
    # the two independent. Until 2026-12-01 the sums that died were taken at their mean, which
    # cut the tail of a request whose chain died at its commits (m5d.large store master behind
    # a replica at 60 %: the write transactions' summed waits 2.18 -> 1.75 ms at p99, the
    # event simulation's 2.25). Every part's points are sorted once and kept on KEEP_EDGES.
    prob = wait.weights / float(wait.weights.sum())
    values: list[NDArray[np.float64]] = []
    masses: list[NDArray[np.float64]] = []
    mean = 0.0
    for n0 in np.unique(dead):
        for sel in ((dead == n0) & (total <= 0), (dead == n0) & (total > 0)):
            pw = float(prob[sel].sum())
            if pw <= 0:
                continue
            died, p_died = total[sel], prob[sel]
            mean += float(np.dot(died, p_died))
            if n0 == 0:
                values.append(died)
                masses.append(p_died)
                continue
            # Then the fresh ones (the last I/Os: writes first among them, then reads).
            n_w = min(int(n0), writes)
            if n0 <= RESTART_IOS:  # a later wait starts a chain of its own
                key = (int(n0), n_w)
                if key not in restarted:
                    r = _regressed_sum(fresh, int(n0), chain, n_w, ahead_s,
                                       last[-int(n0):], chain.later is not None,
                                       restarted)
                    order = np.argsort(r.values, kind="stable")  # kept on KEEP_EDGES' bins
                    restarted[key] = Dist(*bin_sorted(r.values[order], r.weights[order],
                                                      KEEP_EDGES), r.mean)
                later = restarted[key]
            else:
                later = correlated_sum(fresh, int(n0) - n_w, 0.0)
                if n_w:
                    later = convolve(later, correlated_sum(ahead_of(fresh, ahead_s), n_w, 0.0))
            mean += pw * later.mean
            if not died.any():  # a request that met no queue: the fresh waits alone
                values.append(later.values)
                masses.append(pw * later.weights / later.weights.sum())
                continue
            lv, lm = _coarse(later.values, later.weights)
            dv, dm = _coarse(died, p_died)
            values.append((dv[:, None] + lv[None, :]).ravel())
            masses.append((pw * dm[:, None] * lm[None, :]).ravel())
    v, m = np.concatenate(values), np.concatenate(masses)
    order = np.argsort(v, kind="stable")
    v, m = v[order], m[order]
    # No wait at all is an atom (a request that met no queue): kept whole, the rest on bins.
    zero = v <= 0
    if zero.all():
        return ZERO
    p0 = float(m[zero].sum()) / float(m.sum())
    if p0 <= 0:
        return Dist(*bin_sorted(v, m, KEEP_EDGES), mean)
    bv, bm = bin_sorted(v[~zero], m[~zero], KEEP_EDGES)
    return Dist(np.concatenate(([0.0], bv)), np.concatenate(([p0], (1 - p0) * bm)), mean)


def _coarse(values: NDArray[np.float64], weights: NDArray[np.float64],
            ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(values, probabilities) of points as an operand of one of `_regressed_sum`'s sums: on
    SUM_EDGES' bins where there are more points than bins."""
    if values.size > SUM_EDGES.mass.size:
        order = np.argsort(values, kind="stable")
        v, m = bin_sorted(values[order], weights[order], SUM_EDGES)
        return v, m
    return values, weights / weights.sum()


def _device_pmfs(cls: ClassParts) -> tuple[Pmf, Pmf]:
    """(device reads, device writes with the commits) per request of the class."""
    reads: Pmf = ((0, 1.0),)
    writes: Pmf = ((0, 1.0),)
    for io in cls.ios:
        if io.rate > 0 and io.op in DEVICE_OPS:
            if io.op == 0:
                reads = _add_pmf(reads, io.pmf)
            else:
                writes = _add_pmf(writes, io.pmf)
    return reads, writes


def _commits_coupled(cls: ClassParts, lw: LimitWait, chain: Chain,
                     writes: Pmf) -> tuple[Coupled, ...]:
    """The class's commits where their logs' members wait (`Coupled`), in the order they come
    last in its chain; () where the limit has no member states or the class writes anything
    but a fixed number of commits (the order of its writes is then not known)."""
    if not lw.log_dists or len(writes) != 1:
        return ()
    at = dict(lw.log_dists)
    logs: list[int] = []
    for io in cls.ios:
        if io.rate <= 0 or io.op not in DEVICE_OPS or io.op == 0:
            continue
        if io.op != COMMIT or io.log not in at or len(io.pmf) != 1:
            return ()
        logs += [io.log] * io.pmf[0][0]
    if len(logs) != writes[0][0]:
        return ()
    drained = chain.drained_s
    each = {log: Coupled(wait=at[log], later=later_wait(at[log], drained)) for log in set(logs)}
    return tuple(each[log] for log in logs)


def limit_chain(cls: ClassParts, lw: LimitWait, wait: Dist) -> Chain:
    """How a request's waits at one limit follow each other (`limit_wait_sum`)."""
    spacing = cls.service.mean / sum(io.rate for io in cls.ios if io.op in DEVICE_OPS)
    drained = (spacing + wait.mean) * (1 - lw.rho)
    return Chain(carry=lw.carry, step_s=lw.own_s - (1 - lw.carry) * spacing,
                 later=later_wait(lw.wait_dist(), drained), drained_s=drained)


def limit_wait_sum(cls: ClassParts, lw: LimitWait, wait: Dist) -> Dist:
    """A request's summed waits at one limit: the limit's own in closed loop where it ran
    (`ClosedLoop`: but on RAID 0); else its device I/Os one regressed chain there (`wait`: one
    I/O's wait over every limit, which spaces the I/Os).

    The delay between a request's I/Os is their service and the CPU steps between them. While
    the limit is congested, the next I/O finds the queue that was left behind it (its own work
    still in it) drained by (1 - carry) per unit of time. Each limit runs a chain of its own: a
    doublewrite batch lifts a volume's throughput limit over its tolerance at once and it drains
    within an I/O or two (carry ~0.25), while its IOPS limit stays congested (~0.7); one chain at
    the limit of the largest mean wait gave the IOPS waits the other's carry."""
    summed = lw.closed.summed(cls) if lw.closed is not None else None
    if summed is not None:
        return summed
    reads, writes = _device_pmfs(cls)
    one, chain = lw.wait_dist(), limit_chain(cls, lw, wait)
    # A transaction reads its pages, then commits: its writes are the chain's last I/Os. On a
    # device with a write-back cache they wait only for the backlog beyond it (reads and writes
    # of one request are still one chain: the cache changes what a write waits, not the queue).
    ahead = lw.write_ahead_s
    last = _commits_coupled(cls, lw, chain, writes)
    if ahead <= 0:  # reads and writes wait alike
        reads, writes = _add_pmf(reads, writes), ((0, 1.0),)
    parts = [(p * q, regressed_sum(one, k + j, chain, writes=j, ahead_s=ahead, last=last))
             for k, p in reads for j, q in writes if p * q > 0]
    return parts[0][1] if len(parts) == 1 else mixture(parts)


def class_latency(mix: Mix, cls: ClassParts, x: float, wait: Dist,
                  limits: list[LimitWait]) -> Dist:
    """One class's request time at `x` requests/s: its I/Os' services (a commit's flush joins
    its log's group commit) plus its summed waits at each of `limits` (`limit_wait_sum`; `wait`:
    one I/O's wait over all of them, which spaces the I/Os)."""
    services = class_services(mix, _flushes_waiting(cls, limits, wait), x)
    waits = class_waits(cls, wait, limits)
    return services if waits is None else convolve(services, waits)


def _flushes_waiting(cls: ClassParts, limits: list[LimitWait], wait: Dist) -> ClassParts:
    """The class with each commit's flush lengthened by its group write's wait beyond a
    device's write-back cache, where a limit acknowledges writes ahead (instance-store NVMe):
    a group's write that waits holds its log, and every commit of the group, and those queued
    behind it, wait with it. The write follows its request's last I/O, so it finds the backlog
    a later I/O of a request does (`later_wait`, the chain's drain between I/Os). Not where the
    class's sums come from the limit in closed loop: what the limit adds to a request's
    completion there holds its log's held flushes already."""
    ahead = [lw for lw in limits if lw.write_ahead_s > 0 and lw.p >= MIN_WAIT_P
             and (lw.closed is None or lw.closed.summed(cls) is None)]
    if not ahead or not any(io.op == COMMIT and io.rate > 0 for io in cls.ios):
        return cls
    beyond = ZERO
    for lw in ahead:
        later = limit_chain(cls, lw, wait).later or lw.wait_dist()
        beyond = convolve(beyond, ahead_of(later, lw.write_ahead_s))
    if float(beyond.values[-1]) <= 0:
        return cls
    return replace(cls, ios=tuple(replace(io, service=convolve(io.service, beyond), sums={})
                                  if io.op == COMMIT else io for io in cls.ios))


def class_services(mix: Mix, cls: ClassParts, x: float) -> Dist:
    """One class's I/Os' and CPU steps' service times summed (`class_latency` without waits):
    a commit's flush in its log's group commit, a commit on the redo log and the binlog as the
    two logs' ordered commit."""
    services = ZERO
    rates = commit_rates(mix, x)  # a log's commits, every class's, share its flushes
    commits: dict[int, Dist] = {}  # by log
    logs = {io.log: io for io in cls.ios if io.op == COMMIT and io.rate > 0}
    redo, binlog = logs.get(REDO_LOG), logs.get(BINLOG)
    ordered = (redo is not None and binlog is not None and redo.pmf == binlog.pmf
               and math.isclose(rates[REDO_LOG], rates[BINLOG], rel_tol=1e-9))
    for io in cls.ios:
        if io.rate <= 0:
            continue
        if io.op in (0, 1):
            services = convolve(services, io.count_sum())
        elif io.op == COMMIT:
            if ordered and io.log in (REDO_LOG, BINLOG):
                if io.log == BINLOG:  # the pair is taken once, at the binlog
                    assert redo is not None
                    pair = ordered_commit(redo.service, io.service, rates[REDO_LOG])
                    services = convolve(services, repeat_pmf(pair, io.pmf))
                continue
            if io.log not in commits:  # the same log's commits take the same time
                commits[io.log] = group_commit(io.service, rates[io.log])
            services = convolve(services, repeat_pmf(commits[io.log], io.pmf))
        else:
            services = convolve(services, repeat(io.service, io.rate))
    return services


def class_waits(cls: ClassParts, wait: Dist, limits: list[LimitWait]) -> Dist | None:
    """One class's summed waits at each of `limits` (`class_latency`); None where none waits."""
    chained = [w for w in limits if w.p >= MIN_WAIT_P]
    if not chained or sum(io.rate for io in cls.ios if io.op in DEVICE_OPS) <= 0:
        return None
    waits = ZERO
    for lw in chained:
        waits = convolve(waits, limit_wait_sum(cls, lw, wait))
    return waits


def spaced_waits(plan: SimPlan, mix: Mix, x: float, rates: list[float],
                 waited: set[int] | None = None) -> tuple[list[LimitWait], float]:
    """(each limit's wait, the mean wait that spaces a request's I/Os) at `x` requests/s: the
    spacing of a request's I/Os includes their waits, so one more pass with them, unless they
    hardly move it. `waited`, if given, gets the first pass's limits."""
    waits = limit_waits(plan, mix, x, rates)
    if waited is not None:
        waited.update(w.limit for w in waits)
    mean_wait = sum(w.p * w.theta_s for w in waits)
    spacing = min((c.service.mean / n for c in mix.classes
                   for n in [sum(io.rate for io in c.ios if io.op in DEVICE_OPS)] if n > 0),
                  default=0.0)
    if mean_wait <= SPACING_SHARE * spacing:
        return waits, 0.0
    return limit_waits(plan, mix, x, rates, mean_wait), mean_wait


def array_states(plan: SimPlan, mix: Mix, x: float, rates: list[float],
                 waits: list[LimitWait], mean_wait: float) -> Placed | None:
    """On RAID 0, `waits` in each time state of the array's sequential streams and each
    placement's share of time in them (`striping.placed`); None where no stream moves a limit."""
    if plan.raid != RAID0:
        return None
    def waits_with(member_mix: Mix) -> list[LimitWait]:
        return limit_waits(plan, member_mix, x, rates, mean_wait)

    return placed(plan, mix, x, rates, waits, waits_with)


def request_latency(plan: SimPlan, mix: Mix, x: float, rates: list[float],
                    waited: set[int] | None = None) -> tuple[Dist, Dist, Dist]:
    """(all, read, write) request times of a database mix at `x` requests/s in open loop.
    `waited`, if given, gets every limit whose wait went into them: the first pass's (its
    mean wait spaces the second's I/Os, `spaced_waits`) and the final ones (a RAID 0 member's
    waits at other loads, in each state of the array's streams, `array_states`, are taken for
    its own limits only).

    On RAID 0 a sequential stream stays on one member for a chunk, and each array holds its
    streams' phases for good: the request times are taken in each state of the array and each
    quantile averaged over placements (`striping.vincentized`)."""
    waits, mean_wait = spaced_waits(plan, mix, x, rates, waited)
    states = array_states(plan, mix, x, rates, waits, mean_wait)
    if states is not None:  # each placement's tail, averaged over placements
        if waited is not None:
            waited.update(w.limit for state in states.states for w in state)
        each = [latencies(mix, x, state) for state in states.states]
        all_, read, write = (vincentized(states.shares, [d[i] for d in each]) for i in range(3))
        return all_, read, write
    if waited is not None:
        waited.update(w.limit for w in waits)
    return latencies(mix, x, waits)


def request_latencies(plan: SimPlan, mix: Mix, others: list[Mix], x: float,
                      rates: list[float]) -> list[Dist]:
    """The request times of each mix in `others` with `mix`'s waits at the limits
    (`request_latency`'s, placements and all): each of `others` is `mix` with other service
    times (a plan with a member slowed, `plan.with_member_slow`: its I/Os, charges and rates are
    `mix`'s). A limit paces its I/Os whatever the device then takes, so the waits are the same
    but for two second-order effects left out: slower I/Os space a request's later I/Os more
    (fewer of its waits chain), and a slower log sync gathers more commits into each group
    write (fewer log writes). Both make the waits `mix`'s an upper bound."""
    waits, mean_wait = spaced_waits(plan, mix, x, rates)
    states = array_states(plan, mix, x, rates, waits, mean_wait)
    if states is None:
        return _latencies_alike(mix, others, x, waits)
    each = [_latencies_alike(mix, others, x, state) for state in states.states]
    return [vincentized(states.shares, [d[i] for d in each]) for i in range(len(others))]


def _latencies_alike(mix: Mix, others: list[Mix], x: float,
                     waits: list[LimitWait]) -> list[Dist]:
    """`latencies(other, x, waits)[0]` for each of `others` (`request_latencies`), each class's
    summed waits taken once, from `mix`'s class (whose service times space its I/Os)."""
    wait = io_wait(waits)
    summed = [class_waits(cls, wait, waits) for cls in mix.classes]
    out = []
    for other in others:
        parts = []
        for cls, w in zip(other.classes, summed, strict=True):
            d = class_services(other, _flushes_waiting(cls, waits, wait), x)
            parts.append((cls.probability,
                          (d if w is None else convolve(d, w)).shifted(other.extra_latency_s)))
        out.append(mixture(parts))
    return out


def latencies(mix: Mix, x: float, waits: list[LimitWait]) -> tuple[Dist, Dist, Dist]:
    """(all, read, write) request times of `mix` at `x` requests/s with these limits' waits."""
    wait = io_wait(waits)
    by_kind: dict[int, list[tuple[float, Dist]]] = {0: [], 1: []}
    parts = []
    for cls in mix.classes:
        d = class_latency(mix, cls, x, wait, waits).shifted(mix.extra_latency_s)
        parts.append((cls.probability, d))
        by_kind[cls.kind].append((cls.probability, d))
    return (mixture(parts), mixture(by_kind[0]) if by_kind[0] else ZERO,
            mixture(by_kind[1]) if by_kind[1] else ZERO)
