"""What an arriving I/O finds at its own queue, as a distribution of its wait: the shapes that
mean value analysis's mean wait (`advisor.sim.analytic.mva`) is spread into for a raw pattern
(`advisor.sim.analytic.phases` builds the phases that use them).

- A device with a write-back cache (instance-store NVMe): a read waits the device's backlog, a
  write only what the cache cannot hold (`open_split`, `closed_split`); in a closed loop the
  backlog's shape is the machine-repairman queue's on one device and, over RAID 0 of several,
  what an I/O finds at its own device (`_cached_backlog`).
- K alike members of a RAID 0 stripe, or RAID 10's mirror pairs, in a closed loop: the clients'
  split between them wanders, and an I/O finds from none to almost all of the others at its
  own member (`member_spread`: product form, with a volume limit's burst tolerance).
- An HDD disk in open loop: its own M/G/1 queue, exactly (`disk_wait`).

Each keeps the mean it is given; measured against the event simulation in docs/validation.md
(table 2) and bench/raid_members.py.
"""

import math

import numpy as np
from numpy.typing import NDArray

from advisor.layout.raid import NONE, RAID0, RAID1, RAID10
from advisor.sim.analytic.dist import KEEP_EDGES, ZERO, Dist, bin_sorted, gamma, mixture
from advisor.sim.analytic.mix import Mix
from advisor.sim.analytic.waits import mg1_survival
from advisor.sim.plan import SimPlan

Split = tuple[Dist, Dist]  # a read's wait, a write's
RESIDUAL_POINTS = 16  # points of the I/O in progress's remaining work per queue length
MAX_CLIENTS = 4096  # closed loops larger than this keep a constant backlog (`closed_split`)


def open_split(mix: Mix, rho: float, theta: float, tau: float, ahead: float) -> Split | None:
    """Open loop at a device whose cache acknowledges writes `ahead` seconds of its work early
    (`advisor.sim.kernel._lim_pass`): the backlog V at an arrival is, as for every limit here,
    0 with probability 1 - rho, else exponential with mean theta; a read waits V - tau beyond the
    tolerance, a write only (V - tau - ahead)^+: the exponential is memoryless, so a write waits
    with probability rho exp(-(tau + ahead) / theta), and then as long as a read. Each wait as
    the unsplit path gives it (a gamma with its mean and variance); None without a cache."""
    if ahead <= 0 or theta <= 0:
        return None

    def beyond(level: float) -> Dist:
        p = rho * math.exp(-level / theta)
        return gamma(p * theta, 2 * p * theta**2 - (p * theta) ** 2)

    return beyond(tau), beyond(tau + ahead)


def closed_split(mix: Mix, wait: float, ahead: float, clients: int, z: float,
                 stations: int = 1) -> Split | None:
    """Closed loop at a device with a write-back cache: mean value analysis gives a request's
    mean wait W; a read waits the device's backlog V, a write (V - ahead)^+, and the two average
    to W per data request (a flush-only request passes no pacing). V's shape is the finite-source
    (machine-repairman) queue's: by the arrival theorem an I/O finds n of the k = clients - 1
    others queued, P(n) ~ k! / (k - n)! a^n, a = d / z the ratio of an I/O's device work d to its
    time off the device z, so V = d (n - 1 + U) for n > 0 (U: what is left of the I/O in
    progress). With many clients the queue holds about the same number all the time (V nearly
    constant, as at QD64), with few it ranges from empty to all (QD8). a is set so that the mean
    is mean value analysis's W. Past MAX_CLIENTS the spread is negligible (the coefficient of
    variation is 3.5 % at 64) and V is taken as constant. None without a cache.

    Over `stations` alike devices (RAID 0 of instance-store NVMe: each I/O to one of them) the
    devices' queues wander between them, and V's spread is theirs (`_cached_backlog`: the law
    of `member_spread` with each device's backlog as its state, a cached write's flash work
    holding no client). On m5d.8xlarge RAID 0 of 2 at QD64 the one-device shape gave p50 +30 %
    and p99 -37 % against the event simulation at 75 % reads, -43 and -19 % at 25 %; now -1.6
    and -0.1 %, +6.5 and -0.7 %."""
    if ahead <= 0 or mix.data_fraction <= 0:
        return None
    r = mix.read_fraction
    w = wait / mix.data_fraction
    if w <= 0:
        return ZERO, ZERO
    if clients < 2 or clients > MAX_CLIENTS or z <= 0:  # V as a constant with the mean
        v = w / r if r > 0 and w <= r * ahead else w + (1 - r) * ahead
        return ZERO.shifted(v), ZERO.shifted(max(0.0, v - ahead))

    # The clients held counted in cells of `step` (a quarter, or coarser past 256 clients).
    step = max(1.0 / CACHED_QUANTUM, (clients - 1) / CACHED_CELLS)
    lgam = np.array([math.lgamma(x + 1) for x in np.arange(int((clients - 1) / step) + 1)
                     * step]) if stations > 1 else None

    def backlog(log_a: float) -> Dist:
        if lgam is None:
            unit = _repairman(clients - 1, log_a)
        else:
            unit = _cached_backlog(clients - 1, stations, r, ahead / z, log_a, step, lgam)
        return Dist(unit.values * (math.exp(log_a) * z), unit.weights)

    def mean_wait(v: Dist) -> float:
        wt = v.weights / v.weights.sum()
        return r * float(np.dot(wt, v.values)) + (1 - r) * float(
            np.dot(wt, np.maximum(0.0, v.values - ahead)))

    lo, hi = math.log(1e-9), math.log(1e9)
    for _ in range(60):  # the mean wait rises with a
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mean_wait(backlog(mid)) < w else (lo, mid)
    found = backlog((lo + hi) / 2)
    return found, Dist(np.maximum(0.0, found.values - ahead), found.weights)


CACHED_QUANTUM = 4  # the clients a device's backlog holds, counted in quarters ...
CACHED_CELLS = 1024  # ... or in coarser cells, at most this many (a loop past 256 clients)


def _cached_backlog(others: int, stations: int, reads: float, ahead_per_z: float, log_a: float,
                    step: float, lgam: NDArray[np.float64]) -> Dist:
    """The backlog, in units of one I/O's device work d = a z, that an I/O finds at its own
    device of `stations` alike ones with write-back caches (`closed_split`).

    A device's state is its backlog c (in I/Os of flash work), which walks up by one at each
    I/O routed to it and down at the device's rate, with no drift once the stripe is saturated
    (each state weighs alike, as in `member_spread`). A read waits behind all of it, a write
    only behind what the cache, B = ahead / d I/Os of work, cannot hold: of the c I/Os in it,
    the reads and the writes past the first B are clients waiting, h(c) = r c + (1 - r) (c -
    B)^+ on average (r the reads' share), and the others' held clients leave the rest of the
    loop to the delay station (Z^n / n!, as in `member_spread`). So an I/O finds c with P(c)
    ~ sum over the other devices' states of the delay's weight for others - h(c) - their h
    (held clients counted in cells of `step`, `lgam` the delay's log Gamma(n + 1) at them),
    then c - 1 + U of work. Without writes (r = 1) this is the law of `member_spread` with no
    tolerance; without reads, that of a pacer whose tolerance is B I/Os."""
    a = math.exp(log_a)
    cache = ahead_per_z / a  # B
    top = lgam.size - 1
    c = np.arange(math.ceil((others + (1 - reads) * cache) / max(reads, 1e-9)) + 2
                  if reads > 0 else int(others + cache) + 2, dtype=np.float64)
    held = np.rint((reads * c + (1 - reads) * np.maximum(0.0, c - cache)) / step
                   ).astype(np.int64)
    c, held = c[held <= top], held[held <= top]
    ways = np.bincount(held, minlength=top + 1)[:top + 1].astype(np.float64)
    rest = np.zeros(top + 1)
    rest[0] = 1.0
    for _ in range(stations - 1):  # positive terms: a direct sum keeps their digits
        rest = np.convolve(rest, ways)[:top + 1]
        rest /= rest.max()
    n = np.arange(top + 1) * step
    log_d = n * (math.log(stations) - log_a) - lgam  # t = Z / D = stations / a
    delay = np.exp(log_d - log_d.max())
    left = np.convolve(rest, delay)[:top + 1]
    p = left[top - held]
    p = p / p.sum()
    u = (np.arange(RESIDUAL_POINTS) + 0.5) / RESIDUAL_POINTS
    busy = c >= 1
    values = np.concatenate(([0.0], ((c[busy] - 1)[:, None] + u[None, :]).ravel()))
    weights = np.concatenate(([float(p[~busy].sum())],
                              np.repeat(p[busy] / RESIDUAL_POINTS, RESIDUAL_POINTS)))
    order = np.argsort(values, kind="stable")
    return Dist(values[order], weights[order])


def _repairman(others: int, log_a: float) -> Dist:
    """The backlog, in units of one I/O's device work, that an arriving I/O finds at a FIFO
    device shared with `others` clients (the machine-repairman queue at its arrival theorem):
    n queued with P(n) ~ others! / (others - n)! a^n, then n - 1 + U of work."""
    n = np.arange(others + 1)
    logp = np.concatenate(([0.0], np.cumsum(np.log(others - n[:-1])))) + n * log_a
    p = np.exp(logp - logp.max())
    p /= p.sum()
    keep = (p > 1e-12) & (n > 0)
    u = (np.arange(RESIDUAL_POINTS) + 0.5) / RESIDUAL_POINTS
    values = ((n[keep] - 1)[:, None] + u[None, :]).ravel()
    weights = np.repeat(p[keep] / RESIDUAL_POINTS, RESIDUAL_POINTS)
    values = np.concatenate(([0.0], values))
    weights = np.concatenate(([p[0]], weights))
    order = np.argsort(values, kind="stable")
    return Dist(values[order], weights[order])


DISK_LEVELS = 240  # waits at which an HDD queue's survival is evaluated (`disk_wait`)


def disk_wait(plan: SimPlan, mix: Mix, x: float) -> Dist | None:
    """An open loop's wait at an HDD disk (a raw pattern: one I/O a request, Poisson): each I/O
    queues at the one disk it goes to, an M/G/1 queue at x / members arrivals/s whose jobs are
    the I/Os' service times, so its wait is that queue's workload, exactly (Benes' series,
    `waits.mg1_survival`). The exponential with the Pollaczek-Khinchine mean that the other
    limits' open-loop waits take decays too slowly for a disk's nearly constant service (cs^2
    0.28): on RAID 0 of 2 disks at half their capacity the p99 was 19 % high. None where an I/O
    may occupy more than one disk (RAID 1 and 10, I/Os larger than a RAID 0 chunk)."""
    if x <= 0 or mix.serial_seconds <= 0 or alike_stations(plan, mix, -1) != plan.members:
        return None
    per_disk = x * mix.data_fraction / plan.members
    service = mix.service
    w = service.weights / service.weights.sum()
    jobs = [(per_disk * float(p), float(v)) for p, v in zip(w, service.values, strict=True)
            if p > 0 and v > 0]
    rho = sum(r * v for r, v in jobs)
    if not jobs or rho >= 1:
        return None
    mean = sum(r * v * v for r, v in jobs) / (2 * (1 - rho))  # Pollaczek-Khinchine
    levels = np.concatenate(([0.0], np.geomspace(1e-3 * mean + 1e-9, 60 * mean / rho + 1e-6,
                                                 DISK_LEVELS)))
    surv = np.minimum.accumulate(mg1_survival(jobs, levels))
    mass = -np.diff(np.concatenate((surv, [0.0])))
    mid = np.concatenate(((levels[:-1] + levels[1:]) / 2, [levels[-1]]))
    values = np.concatenate(([0.0], mid))
    weights = np.concatenate(([1 - float(surv[0])], mass))
    v, m = bin_sorted(values, weights, KEEP_EDGES)
    return Dist(v, m, mean)


def member_spread(plan: SimPlan, mix: Mix, binding: int, capacity: float, clients: int,
                  wait: float) -> Dist | None:
    """A raw pattern's wait in a closed loop, spread over what an I/O finds at its member.

    Mean value analysis gives the mean wait W, which every request used to wait alike. On K
    alike members (a RAID 0 stripe whose I/Os each go to one member at random: its volumes'
    limits, or its HDD disks; RAID 10's mirror pairs, each kept level by its reads going to the
    less busy mirror) the clients are not shared evenly: a member's queue grows by one each time
    a client routed to it arrives and shrinks at its rate, a walk with no drift once the stripe
    is saturated, so an arriving I/O finds anywhere from none to almost all of the others at its
    own member. In the product form of K alike FCFS stations and a delay station Z (everything
    else: the device's service; Gordon-Newell, with the arrival theorem: an arrival sees the
    network without its own client) it finds e others waiting with P(e) ~ g(e) H(M - e), M =
    clients - 1, H the ways the other K - 1 members (g each) and the delay (Z^n / n!) hold the
    rest. A volume's limit lets I/Os through up to its burst tolerance tau ahead of its rate
    (GCRA, `advisor.sim.kernel._lim_pass`): its virtual backlog walks through tau / s + 1 states
    (s: one I/O's pacing interval) where nobody waits before it holds a client, so a member's
    idle state counts B + 1 = tau / s + 1 times, g(0) = B + 1, g(e) = 1 (B = 0 for an HDD disk,
    a plain FCFS server). An I/O that finds e waits (e - 1 + U) s, U uniform (what is left of
    the one in progress); behind a disk, whose service varies, e - 1 services and the
    length-biased rest of one, a gamma with their mean and variance. Z is set so that the mean
    is W: the throughput and the mean stay mean value analysis's (Little's law), the spread is
    the members'. With one station (K = 1, B = 0: the machine-repairman queue of `closed_split`)
    the clients it does not hold are all in the delay, so its queue hardly moves at the queue
    depths where it waits (QD64: 3.5 % coefficient of variation), and W stands for every request
    as before; a pacer that every I/O passes sits at its tolerance while saturated, so its
    states below it are walked only where other members take the clients.

    Against the event simulation (p99, 30 s at each queue depth, none of it fitted): RAID 0 of
    2, 4 and 8 gp3, gp2 and io1 volumes at QD 16-128 within -4..+6 %, where every request
    waiting W was 30-75 % low and the members' walk without the tolerance's states 25 % low
    on 8 members; RAID 10 of 4 and 8 gp3, gp2 and io1 volumes at QD 16-128 -4..+5 % (was
    -20..-66 %); RAID 0 of 2 HDD disks at QD 4-64 -0.5..+1.5 % (was -39..-49 %). None where it
    does not apply: one station (a single device, RAID 1), transactions (several I/Os a
    request), I/Os larger than a chunk (several members at once), no wait, one client, or
    more than MAX_CLIENTS (W then stands for every request)."""
    if mix.classes or wait <= 0 or clients < 2 or clients > MAX_CLIENTS:
        return None
    k = alike_stations(plan, mix, binding)
    if k < 2 or mix.data_fraction <= 0 or capacity <= 0:
        return None
    if binding >= 0:
        s = k / capacity / mix.data_fraction  # a data I/O's units at its member / the rate
        tokens = round(float(plan.tolerance_s[binding]) / s)
    else:  # HDD disks
        s, tokens = mix.serial_seconds / mix.data_fraction, 0
    if not math.isfinite(s) or s <= 0:
        return None
    others = clients - 1
    rest = _other_members(others, k, tokens)
    # The wait behind e: e - 1 whole I/Os and what is left of the one in progress. A pacer's
    # interval is fixed (the rest uniform, U); a disk's service varies (cs^2 c), so its rest
    # is length-biased, (1 + c) / 2 of a service on average, and the e - 1 services add their
    # variance: a gamma for each e with those two moments.
    c = _cs2(mix.service) if binding < 0 else 0.0
    resid = (1 + c) / 2 if binding < 0 else 0.5
    behind = (np.arange(others) + resid) * s  # mean wait behind e = 1..others

    def mean_of(log_t: float) -> tuple[float, NDArray[np.float64]]:
        p = _found_waiting(rest, tokens, log_t)
        return float(np.dot(p[1:], behind)), p

    lo, hi = math.log(1e-9), math.log(1e9)
    for _ in range(60):  # the mean wait falls as the delay holds more of the clients
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mean_of(mid)[0] > wait else (lo, mid)
    found, p = mean_of((lo + hi) / 2)
    if found <= 0:
        return None
    # Past the top (every other client at the members and still short of W: the pacers'
    # residuals in mean value analysis) the shape is kept and scaled to W, as it is for the
    # bisection's last digits.
    scale = wait / found
    if binding < 0:
        var_resid = (1 + c) * (1 + 2 * c) / 3 - resid * resid  # a gamma service's rest
        parts = [(float(p[0]), ZERO)] + [
            (float(p[e]), gamma(float(behind[e - 1]) * scale,
                                ((e - 1) * c + var_resid) * (s * scale) ** 2))
            for e in range(1, others + 1) if p[e] > 1e-12]
        mixed = mixture([(q, d) for q, d in parts if q > 0])
        v, m = bin_sorted(mixed.values, mixed.weights, KEEP_EDGES)
        return Dist(v, m, wait)
    u = (np.arange(RESIDUAL_POINTS) + 0.5) / RESIDUAL_POINTS
    values = np.concatenate(([0.0], ((np.arange(others)[:, None] + u[None, :]) * s).ravel()))
    weights = np.concatenate(([p[0]], np.repeat(p[1:] / RESIDUAL_POINTS, RESIDUAL_POINTS)))
    v, m = bin_sorted(values * scale, weights, KEEP_EDGES)
    return Dist(v, m, wait)


def _cs2(d: Dist) -> float:
    """The squared coefficient of variation of `d`."""
    w = d.weights / d.weights.sum()
    mean = float(np.dot(w, d.values))
    if mean <= 0:
        return 0.0
    return max(0.0, float(np.dot(w, d.values**2)) / mean**2 - 1)


def alike_stations(plan: SimPlan, mix: Mix, binding: int) -> int:
    """How many alike stations a raw pattern's I/Os are spread over at the binding limit (each
    I/O to one of them): the same limit on each member, one for a limit of the instance's, the
    HDD disks (binding -1) of a single disk or RAID 0, and 1 where an I/O spans members (larger
    than a chunk) or a request is a transaction. RAID 10 stripes over mirror pairs: a pair's
    reads go to its less busy mirror and its writes to both, so the two stay level and the pair
    is the station; RAID 1 is one (of HDDs, whose writes take both disks, none)."""
    if mix.classes:
        return 1
    if plan.raid in (RAID0, RAID10) and mix.bytes_per_request > plan.chunk_bytes:
        return 1
    if binding < 0:
        return plan.members if plan.raid in (NONE, RAID0) and mix.serial_seconds > 0 else 1
    where = np.argwhere(plan.chain == binding)
    peers = {int(x) for x in plan.chain[:, int(where[0, 1])]} if where.size else set()
    return max(1, len(peers) // (2 if plan.raid in (RAID1, RAID10) else 1))


def _log_factorials(n: int) -> NDArray[np.float64]:
    """log k! for k = 0..n."""
    out: NDArray[np.float64] = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1.0, n + 1)))))
    return out


def _other_members(others: int, k: int, tokens: int) -> NDArray[np.float64]:
    """The ways k - 1 members hold 0..others waiting clients between them, each member's idle
    state counted tokens + 1 times (`member_spread`), scaled to their largest. A member's ways
    are B + (1, 1, 1, ...) (B = tokens at 0), so k - 1 of them make sum_j C(k - 1, j)
    B^(k - 1 - j) C(i + j - 1, j - 1): a sum of positive terms, taken in logarithms (a
    convolution by FFT leaves round-off of 1e-16 of the largest term in every cell, which the
    far cells of a long queue, 1e-38 of it at 4,096 clients, cannot carry)."""
    i = np.arange(others + 1, dtype=np.float64)
    lf = _log_factorials(others + k)
    terms = []
    for j in range(k):  # j members holding some, k - 1 - j at their idle state
        if j < k - 1 and tokens <= 0:
            continue  # an idle member counts once: B^(k - 1 - j) = 0
        log_ways = lf[k - 1] - lf[j] - lf[k - 1 - j]
        if j < k - 1:
            log_ways += (k - 1 - j) * math.log(tokens)
        if j == 0:  # all idle: only i = 0
            terms.append(np.where(i == 0, log_ways, -np.inf))
            continue
        idx = (i + j - 1).astype(np.int64)
        terms.append(log_ways + lf[idx] - lf[j - 1] - lf[idx - (j - 1)])
    log_rest = np.logaddexp.reduce(np.array(terms), axis=0)
    out: NDArray[np.float64] = np.exp(log_rest - log_rest.max())
    return out


def _found_waiting(rest: NDArray[np.float64], tokens: int,
                   log_t: float) -> NDArray[np.float64]:
    """P(e others waiting at the arriving I/O's member), e = 0..others (`member_spread`):
    g(e) H(others - e), H the other members' ways `rest` convolved with the delay's t^n / n!
    (log_t = log(Z / D)), each scaled to its largest, the delay's cut where it falls below
    1e-18 of it: all terms positive, so the sum keeps its digits."""
    n = np.arange(rest.size, dtype=np.float64)
    log_e = n * log_t - _log_factorials(rest.size - 1)
    keep = np.flatnonzero(log_e >= log_e.max() - 41.5)
    lo, hi = int(keep[0]), int(keep[-1]) + 1
    h = np.zeros(rest.size)
    h[lo:] = np.convolve(rest, np.exp(log_e[lo:hi] - log_e.max()))[:rest.size - lo]
    p = h[::-1].copy()
    p[0] *= tokens + 1.0
    out: NDArray[np.float64] = p / p.sum()
    return out


def split_mean(mix: Mix, split: Split) -> float:
    """A request's mean wait (flush-only requests none) from the reads' and writes' split."""
    r = mix.read_fraction
    return mix.data_fraction * (r * split[0].mean + (1 - r) * split[1].mean)
