"""The analytic (fluid) engine: capacity from the binding limit, queueing approximations for
latency, credit-bucket drain in closed form. Microseconds per level, any horizon.

Model: every limit is a pacing server; a request's cost at each limit follows from the I/O mix and
RAID fan-out; the request then waits for the device's service time (a delay). Closed loop: mean
value analysis with a deterministic-service residual correction; open loop: M/D/1 waits, or a
linearly growing backlog past saturation. Buckets drain at (use - earn) until empty, then the limit
falls to its sustained rate: the run is a sequence of phases.
"""

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.layout.limits import charge, device_seconds
from advisor.layout.raid import RAID_NAMES, fanout
from advisor.sim.plan import KIND_DEVICE, KIND_IOPS, SimPlan
from advisor.sim.source import IoPattern
from advisor.sim.stats import PERCENTILES

GRID = 400  # quantile grid points per distribution
KIB, MIB = 1024, 2**20


@dataclass(frozen=True, slots=True)
class Dist:
    """A distribution as weighted sorted samples (deterministic quantile grid)."""

    values: NDArray[np.float64]
    weights: NDArray[np.float64]
    # The mean carried exactly through sums, mixtures and shifts (resampling a sum to a quantile
    # grid trims its tail and would bias a mean computed from the points).
    exact_mean: float | None = None

    def quantile(self, q: float) -> float:
        """Interpolated between neighbouring points, so a small change in the weights moves a
        percentile a little instead of flipping it across a gap."""
        cum = np.cumsum(self.weights)
        cum /= cum[-1]
        mid = cum - self.weights / self.weights.sum() / 2  # each point at its mass's centre
        return float(np.interp(q, mid, self.values))

    @property
    def mean(self) -> float:
        if self.exact_mean is not None:
            return self.exact_mean
        return float(np.dot(self.values, self.weights) / self.weights.sum())

    def shifted(self, by: float) -> "Dist":
        return Dist(self.values + by, self.weights, self.mean + by)


def _grid() -> NDArray[np.float64]:
    return (np.arange(GRID) + 0.5) / GRID


@lru_cache(maxsize=1)
def _normal_grid() -> NDArray[np.float64]:
    from statistics import NormalDist

    return np.array([NormalDist().inv_cdf(x) for x in _grid()])


def _service_dist(plan: SimPlan, op: int, size: float, fan: int, flush: bool) -> Dist:
    """Service time of a logical I/O on `fan` members (completes with the slowest)."""
    u = _grid()
    z = _normal_grid()
    mu, sigma = plan.dev_mu[0, op], plan.dev_sigma[0, op]
    pt, lo, hi = plan.dev_ptail[0, op], plan.dev_tail_lo[0, op], plan.dev_tail_hi[0, op]
    body = np.exp(mu + sigma * z)
    tail = np.exp(lo + u * (hi - lo))
    extra = size / plan.dev_xfer_bps[0] + (plan.dev_flush_s[0] if flush else 0.0)
    values = np.concatenate([body, tail]) + extra
    weights = np.concatenate([np.full(GRID, (1 - pt) / GRID), np.full(GRID, pt / GRID)])
    order = np.argsort(values)
    values, weights = values[order], weights[order]
    if fan > 1:  # max of `fan` iid: CDF^fan
        cdf = np.cumsum(weights)
        cdf /= cdf[-1]
        prev = np.concatenate(([0.0], cdf[:-1]))
        weights = cdf**fan - prev**fan
    return Dist(values, weights)


def _mixture(parts: list[tuple[float, Dist]]) -> Dist:
    values = np.concatenate([d.values for _, d in parts])
    weights = np.concatenate([p * d.weights / d.weights.sum() for p, d in parts])
    order = np.argsort(values)
    total = sum(p for p, _ in parts)
    mean = sum(p * d.mean for p, d in parts) / total if total > 0 else None
    return Dist(values[order], weights[order], mean)


@dataclass(frozen=True, slots=True)
class Mix:
    """Per logical request: cost at every limiter, device busy time, service distributions."""

    cost: NDArray[np.float64]  # units of each limiter per request (averaged over members)
    serial_seconds: float  # per request, on serial (HDD) devices, summed over members
    service: Dist  # request service time (no queueing)
    read_service: Dist
    write_service: Dist
    read_fraction: float  # of data requests
    bytes_per_request: float
    data_fraction: float  # requests that move data (not fsync-only)
    fg_share: float = 1.0  # share of each limiter's cost spent inside the request's own path
    extra_latency_s: float = 0.0  # e.g. CPU time, group-commit waits not in `service`
    read_ios_per_request: float = 0.0  # device I/Os (foreground + background) per request
    write_ios_per_request: float = 0.0
    fg_ios_per_request: float = 1.0  # I/Os in the request's own path (each may queue)
    # Sum over a request's I/Os of (cost at each limiter)^2: the M/G/1 second moment, which
    # large I/Os (doublewrite batches, 128 KiB blocks) dominate.
    cost_sq: NDArray[np.float64] | None = None


def io_cost(plan: SimPlan, op: int, size: float,
            random: bool) -> tuple[NDArray[np.float64], Dist, float]:
    """(cost at every limiter, service distribution, serial-device seconds) of one logical I/O."""
    cost = np.zeros(plan.n_limits)
    write = op in (1, 2)
    if op == 3:  # flush only: no limiter cost, the device's flush time
        return cost, Dist(np.array([plan.dev_flush_s[0]]), np.array([1.0])), 0.0
    if op == 4:  # CPU time: `size` microseconds, no device
        return cost, Dist(np.array([size * 1e-6]), np.array([1.0])), 0.0
    fan = fanout(RAID_NAMES[plan.raid], plan.members, write=write, size=size,
                 chunk=plan.chunk_bytes)
    member_ios, sub = fan.member_ios, fan.piece_size
    wop = 1 if write else 0
    for l in range(plan.n_limits):
        kind = plan.lim_kind[l]
        if kind == KIND_DEVICE:
            per = device_seconds(float(plan.dev_cost[0, wop]), plan.dev_rated_bytes[0] / KIB,
                                 plan.dev_seq_bps[0] / MIB, sub / KIB)
        else:
            per = charge("iops" if kind == KIND_IOPS else "mibps",
                         plan.lim_unit_bytes[l] / KIB, sub / KIB, random=random)
        share = 1.0 if plan.limit_scope[l] == "instance" else 1.0 / plan.members
        cost[l] += per * member_ios * share
    dist = _service_dist(plan, wop, sub, member_ios, flush=op == 2)
    serial = 0.0
    if plan.dev_serial[0]:  # busy seconds summed over the members the I/O occupies
        serial = member_ios * _service_dist(plan, wop, sub, 1, flush=op == 2).mean
    return cost, dist, serial


def pattern_mix(plan: SimPlan, pattern: IoPattern) -> Mix:
    cost = np.zeros(plan.n_limits)
    serial = 0.0
    parts: list[tuple[float, Dist]] = []
    by_op: dict[int, Dist] = {}
    r = pattern.read_fraction
    for op, p in ((0, r), (1, 1 - r)):
        if p <= 0:
            continue
        c, dist, ser = io_cost(plan, op, pattern.block_bytes, pattern.random)
        cost += p * c
        serial += p * ser
        by_op[op] = dist
        parts.append((p, dist))
    data_dist = _mixture(parts)
    flush_share = 0.0
    if pattern.fsync_every_writes:
        flush_share = (1 - r) / pattern.fsync_every_writes
        flush = Dist(np.array([plan.dev_flush_s[0]]), np.array([1.0]))
        service = _mixture([(1.0, data_dist), (flush_share, flush)])
        cost /= 1 + flush_share
        serial /= 1 + flush_share
    else:
        service = data_dist
    empty = Dist(np.array([0.0]), np.array([1.0]))
    return Mix(cost=cost, serial_seconds=serial, service=service,
               read_service=by_op.get(0, empty), write_service=by_op.get(1, empty),
               read_fraction=r, bytes_per_request=pattern.block_bytes / (1 + flush_share),
               data_fraction=1 / (1 + flush_share),
               read_ios_per_request=r / (1 + flush_share),
               write_ios_per_request=(1 - r) / (1 + flush_share))


@dataclass(frozen=True, slots=True)
class IoSpec:
    """`count` I/Os (expected; fractional = sometimes) of one kind inside a request."""

    op: int  # 0 read, 1 write, 2 log write + flush (commit), 3 flush only
    size_bytes: int
    count: float
    random: bool = True


@dataclass(frozen=True, slots=True)
class RequestClass:
    probability: float
    kind: int  # 0 read transaction, 1 write transaction
    ios: tuple[IoSpec, ...]


ZERO = Dist(np.array([0.0]), np.array([1.0]))


def _repeat(d: Dist, count: float) -> Dist:
    """Sum of `count` independent copies (a fractional part is present with that chance)."""
    whole, frac = int(count), count - int(count)
    out, power, n = ZERO, d, whole
    while n:  # binary powers: log2(count) convolutions
        if n & 1:
            out = _convolve(out, power)
        n >>= 1
        if n:
            power = _convolve(power, power)
    if frac > 1e-9:
        out = _mixture([(1 - frac, out), (frac, _convolve(out, d))])
    return out


def build_mix(plan: SimPlan, classes: tuple[RequestClass, ...],
              background: tuple[IoSpec, ...] = (), *, extra_latency_s: float = 0.0) -> Mix:
    """Mix of multi-I/O requests (database transactions) plus background I/Os per request."""
    cost = np.zeros(plan.n_limits)
    cost_sq = np.zeros(plan.n_limits)
    fg = np.zeros(plan.n_limits)
    serial = 0.0
    parts: list[tuple[float, Dist]] = []
    by_kind: dict[int, list[tuple[float, Dist]]] = {0: [], 1: []}
    nbytes = 0.0
    n_io = [0.0, 0.0]
    n_fg = 0.0
    for cls in classes:
        total = ZERO
        for io in cls.ios:
            c, dist, ser = io_cost(plan, io.op, io.size_bytes, io.random)
            if io.op in (0, 1, 2):
                n_io[0 if io.op == 0 else 1] += cls.probability * io.count
                n_fg += cls.probability * io.count
            fg += cls.probability * io.count * c
            cost_sq += cls.probability * io.count * c * c
            serial += cls.probability * io.count * ser
            total = _convolve(total, _repeat(dist, io.count)) if io.count > 0 else total
            nbytes += cls.probability * io.count * io.size_bytes
        parts.append((cls.probability, total))
        by_kind[cls.kind].append((cls.probability, total))
    cost += fg
    for io in background:
        c, _, ser = io_cost(plan, io.op, io.size_bytes, io.random)
        if io.op in (0, 1, 2):
            n_io[0 if io.op == 0 else 1] += io.count
        cost += io.count * c
        cost_sq += io.count * c * c
        serial += io.count * ser
        nbytes += io.count * io.size_bytes
    with np.errstate(invalid="ignore", divide="ignore"):
        share = float(np.nanmax(np.where(cost > 0, fg / cost, 0.0))) if cost.any() else 1.0
    reads = sum(p for p, _ in by_kind[0])
    return Mix(cost=cost, serial_seconds=serial, service=_mixture(parts),
               read_service=_mixture(by_kind[0]) if by_kind[0] else ZERO,
               write_service=_mixture(by_kind[1]) if by_kind[1] else ZERO,
               read_fraction=reads, bytes_per_request=nbytes, data_fraction=1.0,
               fg_share=share, extra_latency_s=extra_latency_s,
               read_ios_per_request=n_io[0], write_ios_per_request=n_io[1],
               fg_ios_per_request=max(n_fg, 1e-9), cost_sq=cost_sq)


def _capacity(plan: SimPlan, mix: Mix, exhausted: set[int]) -> tuple[float, int]:
    """Requests/s the binding limit allows, and its index (-1 = serial device)."""
    best, arg = math.inf, -2
    for l in range(plan.n_limits):
        if mix.cost[l] <= 0:
            continue
        owner = l if plan.lim_cap[l] > 0 else int(plan.lim_owner[l])
        rate = plan.lim_rate[l] if (owner >= 0 and owner in exhausted) else plan.lim_burst[l]
        x = rate / mix.cost[l]
        if x < best:
            best, arg = x, l
    if mix.serial_seconds > 0:
        x = plan.members / mix.serial_seconds
        if x < best:
            best, arg = x, -1
    return best, arg


@dataclass(frozen=True, slots=True)
class Station:
    demand_s: float  # seconds of this station per request
    pacer: bool  # a rate limit (the request leaves at its token) vs a serving device
    residual: float  # mean residual fraction of a busy period seen on arrival


def _stations(plan: SimPlan, mix: Mix, exhausted: set[int]) -> list[Station]:
    out = []
    for l in range(plan.n_limits):
        if mix.cost[l] <= 0:
            continue
        owner = l if plan.lim_cap[l] > 0 else int(plan.lim_owner[l])
        rate = plan.lim_rate[l] if (owner >= 0 and owner in exhausted) else plan.lim_burst[l]
        device = plan.lim_kind[l] == KIND_DEVICE
        # EBS limits tolerate short bursts (GCRA), so a lone arrival rarely waits; a device
        # pacer has no tolerance: half an interval on average when busy.
        out.append(Station(demand_s=mix.cost[l] / rate, pacer=True,
                           residual=0.5 if device else 0.0))
    if mix.serial_seconds > 0:
        per_member = mix.serial_seconds / plan.members
        for _ in range(plan.members):
            out.append(Station(demand_s=per_member, pacer=False, residual=(1 + 0.28) / 2))
    return out


def _closed_loop(q: int, stations: list[Station], z: float) -> tuple[float, float]:
    """(throughput, mean queueing delay) of `q` clients cycling through a delay `z` and the
    stations (mean value analysis; Little's law holds on the result)."""
    if not stations:
        return q / z, 0.0
    d = np.array([s.demand_s for s in stations])
    pacer = np.array([s.pacer for s in stations])
    resid = np.array([s.residual for s in stations])
    queue = np.zeros(d.size)
    util = np.zeros(d.size)
    x = 0.0
    cap = 1.0 / d.max()
    for n in range(1, q + 1):
        waiting = np.maximum(0.0, queue - util)
        wait = d * waiting + util * d * resid
        resid_time = np.where(pacer, wait, wait + d)
        x = min(n / (z + resid_time.sum()), cap)
        queue = x * (wait + d)
        util = np.minimum(1.0, x * d)
    delay = max(0.0, q / x - z)
    return x, delay


def saturation_iops(plan: SimPlan, pattern: IoPattern) -> float:
    """Logical I/Os per second at the binding limit while credits last (for budgets)."""
    mix = pattern_mix(plan, pattern)
    cap, _ = _capacity(plan, mix, set())
    return _saturation(mix, cap, pattern.concurrency)


def _saturation(mix: Mix, cap: float, concurrency: int) -> float:
    if not math.isfinite(cap):
        cap = concurrency / max(mix.service.mean, 1e-9)
    return min(cap, concurrency / max(mix.service.mean, 1e-9)) * mix.data_fraction


@dataclass(slots=True)
class Phase:
    start_s: float
    end_s: float
    x: float  # requests/s
    wait_s: float
    binding: int
    capacity: float
    backlog_slope: float  # open loop past saturation: latency growth per second
    balances_start: dict[int, float]
    wait_var: float = 0.0  # variance of the request's queueing delay (open loop)


def _phases(plan: SimPlan, mix: Mix, duration_s: float, *, open_rate: float | None,
            concurrency: int) -> list[Phase]:
    buckets = [l for l in range(plan.n_limits) if plan.lim_cap[l] > 0]
    bal = {l: float(plan.lim_init[l]) for l in buckets}
    exhausted: set[int] = set()
    phases: list[Phase] = []
    t = 0.0
    cs2 = 0.28 if plan.dev_serial[0] else 0.0
    while t < duration_s:
        cap, binding = _capacity(plan, mix, exhausted)
        d = 1.0 / cap if math.isfinite(cap) else math.inf
        # On serial devices the service time is spent at the station, not as a delay.
        z = mix.service.mean - (mix.serial_seconds if plan.dev_serial[0] else 0.0)
        slope = 0.0
        if open_rate:
            lam = open_rate
            rho = lam / cap if math.isfinite(cap) else 0.0
            wait_var = 0.0
            if rho < 1:
                x = lam
                # Each of the request's own I/Os waits at the binding limit like an M/D/1
                # customer: with probability rho, an exponential wait of mean theta.
                n_fg = mix.fg_ios_per_request
                total_ios = mix.read_ios_per_request + mix.write_ios_per_request
                d_io = d / max(total_ios, 1e-9) if total_ios > 0 else d
                if mix.cost_sq is not None and binding >= 0 and mix.cost[binding] > 0:
                    # M/G/1 residual: E[S^2] / (2 E[S]) with the mix of I/O sizes at the limit
                    d_io = mix.cost_sq[binding] / mix.cost[binding] / plan.lim_burst[binding]
                theta = d_io * (1 + cs2) / (2 * (1 - rho))
                # A limit lets an I/O start up to its tolerance early: only backlogs beyond it
                # wait, which thins the chance of waiting by exp(-tau / theta).
                tau = float(plan.tolerance_s[binding]) if binding >= 0 else 0.0
                p_wait = rho * math.exp(-tau / theta) if theta > 0 else 0.0
                wait = n_fg * p_wait * theta
                wait_var = n_fg * (2 * p_wait * theta**2 - (p_wait * theta) ** 2)
            else:
                x, wait, slope = cap, 0.0, lam / cap - 1
        else:
            x, wait = _closed_loop(concurrency, _stations(plan, mix, exhausted),
                                   max(z + mix.extra_latency_s, 1e-9))
            if plan.dev_serial[0]:
                wait = max(0.0, wait - mix.serial_seconds)
        end, hit = duration_s, None
        for l in buckets:
            if l in exhausted:
                continue
            spend = x * mix.cost[l] - plan.lim_earn[l]
            if spend > 0:
                te = t + bal[l] / spend
                if te < end:
                    end, hit = te, l
        phases.append(Phase(start_s=t, end_s=end, x=x, wait_s=wait, binding=binding,
                            capacity=cap, backlog_slope=slope, balances_start=dict(bal),
                            wait_var=wait_var if open_rate else 0.0))
        for l in buckets:
            if l not in exhausted:
                bal[l] = min(plan.lim_cap[l],
                             bal[l] - (x * mix.cost[l] - plan.lim_earn[l]) * (end - t))
        if hit is not None:
            for l in buckets:  # symmetric members run dry together
                spend = x * mix.cost[l] - plan.lim_earn[l]
                if l not in exhausted and spend > 0 and bal[l] <= spend * 1e-9 + 1e-6:
                    exhausted.add(l)
                    bal[l] = 0.0
            exhausted.add(hit)
            bal[hit] = 0.0
        t = end
    return phases


def _latency_dist(mix: Mix, phases: list[Phase], service: Dist) -> Dist:
    parts = []
    for ph in phases:
        n = ph.x * (ph.end_s - ph.start_s)
        if n <= 0:
            continue
        if ph.backlog_slope > 0:
            # Backlog grows linearly: waits spread evenly between the phase's start and end.
            u = _grid()
            t = ph.start_s + u * (ph.end_s - ph.start_s)
            waits = Dist(ph.backlog_slope * t, np.full(GRID, 1.0 / GRID))
            parts.append((n, _convolve(service, waits)))
        elif ph.wait_var > 0 and ph.wait_s > 0:
            parts.append((n, _convolve(service, _gamma(ph.wait_s, ph.wait_var))))
        else:
            parts.append((n, service.shifted(ph.wait_s)))
    return _mixture(parts) if parts else service


def _gamma(mean: float, var: float) -> Dist:
    """Gamma distribution with this mean and variance on the quantile grid (Wilson-Hilferty)."""
    if mean < 1e-9 or var < 1e-18:
        return Dist(np.array([mean]), np.array([1.0]))
    k = min(mean * mean / var, 1e6)
    scale = var / mean
    z = _normal_grid()
    c = 1 - 1 / (9 * k) + z * math.sqrt(1 / (9 * k))
    values = np.maximum(0.0, k * scale * c**3)
    return Dist(values, np.full(values.size, 1.0 / values.size), mean)


CONV_POINTS = 200  # quantile points per operand when adding random variables
KEEP_POINTS = 1000  # quantile points kept of a sum


def _resample(d: Dist, m: int = CONV_POINTS) -> NDArray[np.float64]:
    """`m` equally likely values: the distribution's quantiles at (i + 0.5) / m."""
    cdf = np.cumsum(d.weights)
    cdf /= cdf[-1]
    idx = np.searchsorted(cdf, (np.arange(m) + 0.5) / m, side="left")
    return d.values[np.minimum(idx, d.values.size - 1)]


def _convolve(a: Dist, b: Dist) -> Dist:
    """Distribution of the sum of independent draws from a and b."""
    if a.values.size == 1:
        return b.shifted(float(a.values[0]))
    if b.values.size == 1:
        return a.shifted(float(b.values[0]))
    va, vb = _resample(a), _resample(b)
    values = np.sort((va[:, None] + vb[None, :]).ravel())
    # Keep 1,000 quantiles: enough for p99.9, and sums of sums stay cheap.
    keep = values[((np.arange(KEEP_POINTS) + 0.5) / KEEP_POINTS * values.size).astype(np.int64)]
    return Dist(keep, np.full(KEEP_POINTS, 1.0 / KEEP_POINTS), a.mean + b.mean)


def _summary(d: Dist) -> dict[str, float | None]:
    out: dict[str, float | None] = {k: round(d.quantile(q / 100) * 1000, 4)
                                    for k, q in PERCENTILES.items()}
    out["max"] = round(float(d.values[-1]) * 1000, 4)
    out["mean"] = round(d.mean * 1000, 4)
    return out


def analytic_level(plan: SimPlan, pattern: IoPattern, *, duration_s: float,
                   load: dict[str, Any]) -> dict[str, Any]:
    """One load level in the same JSON shape as the DES (`advisor.sim.result.level_json`)."""
    level = mix_level(plan, pattern_mix(plan, pattern), duration_s=duration_s, load=load,
                      open_rate=pattern.open_rate, concurrency=pattern.concurrency)
    level.pop("_dists")
    level.pop("achieved_tps")
    return level


def combine_dists(parts: list[tuple[float, dict[str, Any]]]) -> dict[str, Any]:
    """Latency percentiles over several servers, weighted by their request rates."""
    out = {}
    for key, label in (("all", "transaction"), ("read", "read"), ("write", "write")):
        weighted = []
        for rate, d in parts:
            share = 1.0 if key == "all" else (d["read_fraction"] if key == "read"
                                               else 1 - d["read_fraction"])
            if rate * share > 0:
                weighted.append((rate * share, d[key]))
        out[label] = _summary(_mixture(weighted)) if weighted else _empty()
    return out


def mix_level(plan: SimPlan, mix: Mix, *, duration_s: float, load: dict[str, Any],
              open_rate: float | None, concurrency: int) -> dict[str, Any]:
    """A level of any request mix (raw pattern or database transactions)."""
    phases = _phases(plan, mix, duration_s, open_rate=open_rate, concurrency=concurrency)
    requests = sum(p.x * (p.end_s - p.start_s) for p in phases)
    reads = requests * mix.read_ios_per_request
    writes = requests * mix.write_ios_per_request
    ios = {"read": round(reads), "write": round(writes), "total": round(reads + writes)}
    iops = {k: round(v / duration_s, 1) for k, v in ios.items()}
    extra = mix.extra_latency_s
    lat_all = _latency_dist(mix, phases, mix.service.shifted(extra))
    lat_read = _latency_dist(mix, phases, mix.read_service.shifted(extra))
    lat_write = _latency_dist(mix, phases, mix.write_service.shifted(extra))
    last = phases[-1]
    return {
        "load": load,
        "duration_s": duration_s,
        "ios": ios,
        "iops": iops,
        "achieved_tps": round(requests / duration_s, 3),
        "throughput_mibps": round(requests * mix.bytes_per_request / duration_s / MIB, 2),
        "latency_ms": {"read": _summary(lat_read) if mix.read_fraction > 0 else _empty(),
                       "write": _summary(lat_write) if mix.read_fraction < 1 else _empty(),
                       "transaction": _summary(lat_all)},
        "utilisation": _utilisation(plan, mix, phases, duration_s),
        "bottleneck": _bottleneck_text(plan, concurrency, phases),
        "engine": "analytic",
        "timeline": _timeline(plan, mix, phases, duration_s),
        "phases": [{"start_s": round(p.start_s, 1), "end_s": round(p.end_s, 1),
                    "iops": round(p.x * mix.data_fraction, 1),
                    "binding": _name(plan, p.binding)} for p in phases],
        "mean_in_flight": round(last.x * (lat_all.mean), 3),
        "_dists": {"all": lat_all, "read": lat_read, "write": lat_write,
                   "read_fraction": mix.read_fraction},
    }


def _empty() -> dict[str, float | None]:
    return {**dict.fromkeys(PERCENTILES), "max": None, "mean": None}


def _name(plan: SimPlan, l: int) -> str:
    if l == -1:
        return "instance-store HDD seek time"
    return plan.limit_names[l] if l >= 0 else "none"


def _utilisation(plan: SimPlan, mix: Mix, phases: list[Phase],
                 duration_s: float) -> dict[str, float]:
    out: dict[str, float] = {}
    exhausted: set[int] = set()
    for l, name in enumerate(plan.limit_names):
        used = cap = 0.0
        for p in phases:
            dt = p.end_s - p.start_s
            owner = l if plan.lim_cap[l] > 0 else int(plan.lim_owner[l])
            bursting = owner < 0 or p.balances_start.get(owner, 1.0) > 0
            rate = plan.lim_burst[l] if bursting else plan.lim_rate[l]
            used += p.x * mix.cost[l] * dt
            cap += rate * dt
        out[name] = round(used / cap, 4) if cap > 0 else 0.0
    del exhausted
    if mix.serial_seconds > 0:
        busy = sum(p.x * (p.end_s - p.start_s) for p in phases) * mix.serial_seconds
        out["disk busy (busiest)"] = round(min(1.0, busy / duration_s / plan.members), 4)
    return out


def _bottleneck_text(plan: SimPlan, concurrency: int, phases: list[Phase]) -> str:
    last = phases[-1]
    if len(phases) > 1 and last.binding >= 0:
        prev = phases[-2]
        owner = (last.binding if plan.lim_cap[last.binding] > 0
                 else int(plan.lim_owner[last.binding]))
        unit = "IOPS" if plan.lim_kind[last.binding] == KIND_IOPS else "MiB/s"
        if owner >= 0:
            return (f"{plan.limit_names[last.binding]}: burst credits ({plan.limit_names[owner]}) "
                    f"exhausted at t={prev.end_s:,.0f} s; baseline "
                    f"{plan.lim_rate[last.binding]:,.0f} {unit}")
    busy = last.x / last.capacity if math.isfinite(last.capacity) else 0.0
    if busy < 0.9 and last.backlog_slope <= 0:
        where = f"at queue depth {concurrency}" if concurrency < 4096 else "at this load"
        return (f"latency-bound {where}: no rate limit saturated ({plan.profile.name} service "
                f"time; busiest {_name(plan, last.binding)} at {busy:.0%})")
    name = _name(plan, last.binding)
    if last.binding >= 0:
        unit = "IOPS" if plan.lim_kind[last.binding] == KIND_IOPS else "MiB/s"
        rate = plan.lim_burst[last.binding]
        if plan.lim_kind[last.binding] == KIND_DEVICE:
            return f"{name}: device saturated"
        return f"{name} at {rate:,.0f} {unit}"
    return name


def _timeline(plan: SimPlan, mix: Mix, phases: list[Phase],
              duration_s: float) -> list[dict[str, Any]]:
    buckets = [l for l in range(plan.n_limits) if plan.lim_cap[l] > 0]
    primary = next((l for l in buckets if plan.limit_scope[l] == "volume"),
                   buckets[0] if buckets else None)
    points = []
    for t in np.linspace(0, duration_s, 121)[:-1] + duration_s / 240:
        ph = next(p for p in phases if p.start_s <= t <= p.end_s or p is phases[-1])
        point: dict[str, Any] = {"t_s": round(float(t), 3),
                                 "iops": round(ph.x * mix.data_fraction, 1),
                                 "throughput_mibps": round(ph.x * mix.bytes_per_request / MIB, 2),
                                 "burst_balance": None}
        if primary is not None:
            fracs = {}
            for l in buckets:
                b0 = ph.balances_start.get(l, 0.0)
                spend = ph.x * mix.cost[l] - plan.lim_earn[l]
                b = min(plan.lim_cap[l], max(0.0, b0 - spend * (t - ph.start_s)))
                fracs[plan.limit_names[l]] = round(b / plan.lim_cap[l], 4)
            point["burst_balance"] = fracs[plan.limit_names[primary]]
            point["buckets"] = fracs
        points.append(point)
    return points


@dataclass(frozen=True, slots=True)
class SteadyState:
    """The worst (last) phase of a run: what a sustained load settles to once credits are gone."""

    p99_s: float
    p50_s: float
    mean_s: float
    utilisation: float  # of the binding limit
    binding: str
    throughput: float
    backlog: bool  # offered more than the layout can do
    read_p99_s: float
    write_p99_s: float


def steady_state(plan: SimPlan, mix: Mix, *, rate: float, duration_s: float) -> SteadyState:
    """Open loop at `rate` requests/s for `duration_s`: the state of the last phase."""
    phases = _phases(plan, mix, duration_s, open_rate=rate, concurrency=1 << 30)
    last = phases[-1]
    tail = [Phase(start_s=last.start_s, end_s=max(last.end_s, last.start_s + 1.0), x=last.x,
                  wait_s=last.wait_s, binding=last.binding, capacity=last.capacity,
                  backlog_slope=last.backlog_slope, balances_start=last.balances_start,
                  wait_var=last.wait_var)]
    extra = mix.extra_latency_s
    dist = _latency_dist(mix, tail, mix.service.shifted(extra))
    rd = _latency_dist(mix, tail, mix.read_service.shifted(extra))
    wd = _latency_dist(mix, tail, mix.write_service.shifted(extra))
    util = last.x / last.capacity if math.isfinite(last.capacity) else 0.0
    return SteadyState(p99_s=dist.quantile(0.99), p50_s=dist.quantile(0.5), mean_s=dist.mean,
                       utilisation=util if last.backlog_slope <= 0 else rate / last.capacity,
                       binding=_name(plan, last.binding), throughput=last.x,
                       backlog=last.backlog_slope > 0, read_p99_s=rd.quantile(0.99),
                       write_p99_s=wd.quantile(0.99))


def read_fraction_over(plan: SimPlan, mix: Mix, *, rate: float, duration_s: float,
                       thresholds_s: tuple[float, ...]) -> list[float]:
    """Share of read requests over each threshold in the last phase (ACT-style screen)."""
    phases = _phases(plan, mix, duration_s, open_rate=rate, concurrency=1 << 30)
    d = _latency_dist(mix, phases[-1:], mix.read_service)
    w = d.weights / d.weights.sum()
    return [float(w[d.values > t].sum()) for t in thresholds_s]
