"""The I/O mix: what one logical request costs at every limiter (through RAID fan-out and the
layout's accounting) and how long its I/Os take on the device, for raw patterns and for
multi-I/O requests (database transactions)."""

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from advisor.layout.limits import charge, device_seconds
from advisor.layout.raid import RAID0, RAID_NAMES, fanout
from advisor.memo import Memo, tracked
from advisor.sim.analytic.dist import (
    GRID,
    KEEP_MASS,
    ZERO,
    Dist,
    Pmf,
    convolve,
    count_pmf,
    grid,
    mixture,
    normal_mid,
    repeat,
)
from advisor.sim.plan import KIND_DEVICE, KIND_IOPS, SimPlan
from advisor.sim.source import IoPattern

KIB, MIB = 1024, 2**20
T = TypeVar("T")
IoCost = tuple[NDArray[np.float64], Dist, float]  # (cost at every limiter, service, serial s)


@dataclass(frozen=True, slots=True)
class IoSpec:
    """`count` I/Os (expected; fractional = sometimes) of one kind inside a request."""

    op: int  # 0 read, 1 write, 2 log write + flush (commit), 3 flush only
    size_bytes: int
    count: float
    random: bool = True
    trials: int | None = None  # the count is Binomial(trials, count / trials); None: as given
    log: int = 0  # a commit's log (0 redo, 1 binlog): each log flushes its own groups


@dataclass(frozen=True, slots=True)
class RequestClass:
    probability: float
    kind: int  # 0 read transaction, 1 write transaction
    ios: tuple[IoSpec, ...]


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
    # Multi-I/O requests, I/O by I/O (the analytic tail: each I/O queues at the limits, a commit
    # joins a group commit); background I/Os as Poisson streams. Empty for raw patterns.
    classes: tuple["ClassParts", ...] = ()
    background: tuple["IoPart", ...] = ()


@dataclass(frozen=True, slots=True)
class IoPart:
    """One IoSpec of a request on a plan: its count distribution, cost and service time."""

    op: int
    size_bytes: int
    pmf: Pmf  # I/Os per request (background: ((0, 1 - c), (1, c)) is not used; see `rate`)
    rate: float  # expected I/Os per request
    cost: NDArray[np.float64]  # per I/O at every limiter (pooled over members; read-only)
    member_ios: int  # member I/Os of one logical I/O (RAID fan-out)
    service: Dist
    sums: dict[int, Dist] = field(default_factory=dict, compare=False)  # k -> sum of k services
    random: bool = True  # False: a sequential stream (`striping`: it stays on a RAID 0 member)
    log: int = 0  # a commit's log (IoSpec.log)
    # The chance one logical I/O reaches the member a mix is taken at, where it is not the
    # members' average (`striping.placed`: a stream's writes all on the member carrying it,
    # none on another); None: by its fan-out, member_ios / members.
    on_member: float | None = None

    def repeated(self, k: int) -> Dist:
        """Sum of k services (kept: the same at every load)."""
        return _repeated(self.service, self.sums, k)

    def count_sum(self) -> Dist:
        """Sum of a random number (`pmf`) of services."""
        return _count_sum(self.service, self.sums, self.pmf)


def _repeated(service: Dist, sums: dict[int, Dist], k: int) -> Dist:
    """Sum of k services, kept in `sums`: from the largest sum kept below k one service at a
    time (a count's values are consecutive), else by binary powers."""
    if k not in sums:
        below = max((j for j in sums if j < k), default=None)
        if below is not None and k - below <= 4:
            out = sums[below]
            for _ in range(k - below):
                out = convolve(out, service)
            sums[k] = out
        else:
            sums[k] = repeat(service, k)
    return sums[k]


def _count_sum(service: Dist, sums: dict[int, Dist], pmf: Pmf) -> Dist:
    parts = [(p, _repeated(service, sums, k)) for k, p in pmf]
    return parts[0][1] if len(parts) == 1 else mixture(parts)


@dataclass(frozen=True, slots=True)
class ClassParts:
    probability: float
    kind: int
    ios: tuple[IoPart, ...]
    service: Dist  # the class's service time without queueing


def io_part(plan: SimPlan, io: IoSpec, sums: dict[int, Dist] | None = None) -> IoPart:
    """The I/O on the plan; `sums` (k -> sum of k services) may be shared with other plans
    alike in device and RAID geometry (`_services`)."""
    c, dist, _ = io_cost(plan, io.op, io.size_bytes, io.random)
    fan = 1
    if io.op in (0, 1, 2):
        fan = fanout(RAID_NAMES[plan.raid], plan.members, write=io.op in (1, 2),
                     size=io.size_bytes, chunk=plan.chunk_bytes).member_ios
    return IoPart(op=io.op, size_bytes=io.size_bytes, pmf=count_pmf(io.count, io.trials),
                  rate=io.count, cost=c, member_ios=fan, service=dist,
                  sums={} if sums is None else sums, random=io.random, log=io.log)


@dataclass(frozen=True, slots=True)
class DeviceKey:
    """What a logical I/O's service time depends on: the device model (the first member's) and
    the RAID geometry; where the members differ (one of them slowed, `plan.with_member_slow`:
    a volume in a slow episode), every member's model as well. Plans alike in it (any
    instance, any limits) share service-time distributions and their sums (`_services`)."""

    raid: int
    members: int
    chunk_bytes: int
    mu: tuple[float, ...]  # per op (read, write)
    sigma: tuple[float, ...]
    ptail: tuple[float, ...]
    tail_lo: tuple[float, ...]
    tail_hi: tuple[float, ...]
    xfer_bps: float
    flush_s: float
    serial: bool
    # Each member's (mu, sigma, ptail, tail_lo, tail_hi per op, then xfer_bps) where they are
    # not all alike; empty where they are (every plan the catalog compiles).
    rows: tuple[tuple[float, ...], ...] = ()


def device_key(plan: SimPlan) -> DeviceKey:
    """The plan's device model and RAID geometry (once per plan: `_memo`)."""
    return _memo(plan, "device_key", lambda: _device_key(plan))


def _first_row(a: NDArray[np.float64]) -> tuple[float, ...]:
    """A member's row as Python floats (as float(x) gives them). At module level: a nested
    def's annotations are evaluated at every call of the function around it."""
    return tuple(a[0].tolist())


def _device_key(plan: SimPlan) -> DeviceKey:
    return DeviceKey(raid=int(plan.raid), members=int(plan.members),
                     chunk_bytes=int(plan.chunk_bytes), mu=_first_row(plan.dev_mu),
                     sigma=_first_row(plan.dev_sigma), ptail=_first_row(plan.dev_ptail),
                     tail_lo=_first_row(plan.dev_tail_lo), tail_hi=_first_row(plan.dev_tail_hi),
                     xfer_bps=float(plan.dev_xfer_bps[0]), flush_s=float(plan.dev_flush_s[0]),
                     serial=bool(plan.dev_serial[0]), rows=_member_rows(plan))


def _member_rows(plan: SimPlan) -> tuple[tuple[float, ...], ...]:
    """Each member's device model where the members differ; () where they are alike."""
    arrays = (plan.dev_mu, plan.dev_sigma, plan.dev_ptail, plan.dev_tail_lo, plan.dev_tail_hi)
    rows = tuple((*(x for a in arrays for x in a[k].tolist()), float(plan.dev_xfer_bps[k]))
                 for k in range(int(plan.members)))
    return () if all(r == rows[0] for r in rows) else rows


def service_dist(plan: SimPlan, op: int, size: float, fan: int, flush: bool) -> Dist:
    """Service time of a logical I/O on `fan` members (completes with the slowest)."""
    return _service_dist(device_key(plan), op, size, fan, flush)


@tracked
@lru_cache(maxsize=4096)
def _service_dist(dev: DeviceKey, op: int, size: float, fan: int, flush: bool) -> Dist:
    """On members that differ, on those the I/O meets (`_members_max`)."""
    flush_s = dev.flush_s if flush else 0.0
    if dev.rows:
        return _frozen(_members_max(dev, op, size, fan, flush_s))
    values, weights = _member_service(dev.mu[op], dev.sigma[op], dev.ptail[op], dev.tail_lo[op],
                                      dev.tail_hi[op], size / dev.xfer_bps + flush_s)
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    if fan > 1:  # max of `fan` iid: CDF^fan
        cdf = np.cumsum(weights)
        cdf /= cdf[-1]
        prev = np.concatenate(([0.0], cdf[:-1]))
        weights = cdf**fan - prev**fan
    return _frozen(Dist(values, weights))


def _members_max(dev: DeviceKey, op: int, size: float, fan: int, flush_s: float) -> Dist:
    """The service time of an I/O on `fan` members (one or more) of an array whose members
    differ: it completes with the slowest of those it meets, as the kernel maps it
    (`advisor.sim.kernel._submit_py`). Its first chunk falls on any data slot alike (a random
    I/O's; a sequential stream's too, over the time it walks the members), and its pieces on the
    slots after it (mod the data members): on RAID 0 `fan` pieces, each a member; a RAID 1 write
    every member; a RAID 10 write `fan` / 2 pieces, each on both members of its pair (2q,
    2q + 1), and a read of `fan` pieces one member of each pair (the less busy at its pacing,
    which a member's service time does not move: either alike). The distribution is the mean
    over first slots of the product of the members' CDFs (each on the union of their points);
    a RAID 1 read takes any member alike."""
    cdfs = []
    points = []
    for row in dev.rows:  # (mu, sigma, ptail, tail_lo, tail_hi) x (read, write), xfer_bps
        mu, sigma, pt, lo, hi = row[op:10:2]
        v, w = _member_service(mu, sigma, pt, lo, hi, size / row[10] + flush_s)
        order = np.argsort(v, kind="stable")
        points.append((v[order], np.cumsum(w[order]) / w.sum()))
    values = np.unique(np.concatenate([v for v, _ in points]))
    for v, cw in points:  # each member's CDF at every point
        at = np.searchsorted(v, values, side="right")
        cdfs.append(np.where(at > 0, cw[np.maximum(at - 1, 0)], 0.0))
    m = len(cdfs)
    raid = RAID_NAMES[dev.raid]
    pairs = m // 2
    if raid == "raid0":
        ways = [[cdfs[(s + j) % m] for j in range(fan)] for s in range(m)]
    elif raid == "raid1" and op == 1 and fan == m:
        ways = [cdfs]
    elif raid == "raid10" and op == 1 and fan % 2 == 0:
        ways = [[cdfs[2 * ((s + j) % pairs) + k] for j in range(fan // 2) for k in (0, 1)]
                for s in range(pairs)]
    elif raid == "raid10" and op == 0:
        ways = [[(cdfs[2 * q] + cdfs[2 * q + 1]) / 2
                 for q in ((s + j) % pairs for j in range(fan))] for s in range(pairs)]
    else:
        ways = [[np.mean(cdfs, axis=0)] * fan]
    cdf = np.mean([np.prod(way, axis=0) for way in ways], axis=0)
    return Dist(values, np.diff(np.concatenate(([0.0], cdf))))


def _member_service(mu: float, sigma: float, pt: float, lo: float, hi: float,
                    extra: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One member's service-time points (unsorted) and their weights: the log-normal body (its
    own tail too, to 1 - 1e-6), the rare uniform-in-log tail, plus `extra` (transfer, flush)."""
    body = np.exp(mu + sigma * normal_mid())
    tail = np.exp(lo + grid() * (hi - lo))
    return (np.concatenate([body, tail]) + extra,
            np.concatenate([(1 - pt) * KEEP_MASS, np.full(GRID, pt / GRID)]))


def _frozen(d: Dist) -> Dist:
    """The distribution with read-only arrays: it is shared between plans and requests."""
    _frozen_array(d.values)
    _frozen_array(d.weights)
    return d


def _memo(plan: SimPlan, key: Hashable, make: Callable[[], T]) -> T:
    """`make()` once per plan and key, in the plan's rate-free memo: what is kept here (per-I/O
    costs, service times) depends on the devices and how the limits charge I/Os, never on the
    limits' rates or credits, so plans that differ only in those share it."""
    if key not in plan.rate_free:
        plan.rate_free[key] = make()
    out: T = plan.rate_free[key]
    return out


def charge_key(plan: SimPlan) -> Hashable:
    """All that the charges of an I/O at the limits (`_charge`) read of a plan: the RAID
    geometry, the first member's device accounting and each limit's kind, unit and scope (not
    its rate or credits). Plans alike in it (most candidates of one volume type, whatever their
    instance) charge alike; with the device model (`device_key`: serial seconds) they share their
    classes' charges (`_charges`). Once per plan."""
    return _memo(plan, "charge_key", lambda: (
        int(plan.raid), int(plan.members), int(plan.chunk_bytes),
        tuple(plan.dev_cost[0].tolist()), float(plan.dev_rated_bytes[0]),
        float(plan.dev_seq_bps[0]), tuple(plan.lim_kind.tolist()),
        tuple(plan.lim_unit_bytes.tolist()), tuple(plan.limit_scope)))


# Charges shared between plans (`charge_key`), bounded: a sizing meets a few hundred
# combinations of accounting, device and request shape.
_SHARED_MAX = 4096
_SHARED_CHARGE: Memo[Hashable, NDArray[np.float64]] = Memo(_SHARED_MAX)  # one I/O's (`_charge`)
_SHARED_CHARGES: Memo[Hashable, "_Charges"] = Memo(_SHARED_MAX)  # request classes' (`_charges`)


def io_cost(plan: SimPlan, op: int, size: float, random: bool) -> IoCost:
    """(cost at every limiter, service distribution, serial-device seconds) of one logical I/O
    (computed once per plan; the cost array is read-only)."""
    def make() -> IoCost:
        cost, dist, serial = _io_cost(plan, op, size, random)
        cost.flags.writeable = False  # shared by every request that makes this I/O
        return cost, dist, serial

    return _memo(plan, ("io_cost", op, size, random), make)


def io_charge(plan: SimPlan, op: int, size: float, random: bool) -> NDArray[np.float64]:
    """The cost at every limiter of one logical I/O, without its service time (the cheap part
    of `io_cost`, for capacity checks; computed once per plan, read-only)."""
    def make() -> "NDArray[np.float64]":  # quoted: not evaluated at every call
        cost = _charge(plan, op, size, random)
        cost.flags.writeable = False
        return cost

    return _memo(plan, ("io_charge", op, size, random), make)


def _charge(plan: SimPlan, op: int, size: float, random: bool) -> NDArray[np.float64]:
    """One logical I/O's cost at every limiter (read-only), shared by plans alike in what it
    reads (`charge_key`)."""
    key = (charge_key(plan), op, size, random)
    return _SHARED_CHARGE.kept(key, lambda: _frozen_array(_fresh_charge(plan, op, size, random)))


def _frozen_array(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """The array, read-only: it is shared."""
    a.flags.writeable = False
    return a


def _fresh_charge(plan: SimPlan, op: int, size: float, random: bool) -> NDArray[np.float64]:
    cost = np.zeros(plan.n_limits)
    if op in (3, 4):  # flush only / CPU time: no limiter cost
        return cost
    write = op in (1, 2)
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
    return cost


def merged_charge(plan: SimPlan, io: IoSpec, device_ios: float) -> NDArray[np.float64]:
    """A background stream's cost per I/O: a sequential stream merges only with its own
    previous I/O; interleaved with the others' I/Os on the device, its I/O follows its
    predecessor with about its share of the I/Os (the event simulation merges exactly when it
    does), else it counts whole, as a random one."""
    c = io_charge(plan, io.op, io.size_bytes, io.random)
    if io.random or io.op not in (0, 1, 2) or device_ios <= 0:
        return c
    share = io.count / device_ios
    if plan.raid == RAID0 and plan.members > 1 and 0 < io.size_bytes < plan.chunk_bytes:
        # On RAID 0 the stream stays on one member for a chunk, the others' I/Os spread over
        # the members: its share is of that member's I/Os.
        share = io.count / (io.count + (device_ios - io.count) / plan.members)
    merged = min(1.0, share)
    return merged * c + (1 - merged) * io_charge(plan, io.op, io.size_bytes, True)


def _io_cost(plan: SimPlan, op: int, size: float, random: bool) -> IoCost:
    dist, serial = logical_service(device_key(plan), op, size)
    return _charge(plan, op, size, random), dist, serial


@tracked
@lru_cache(maxsize=4096)
def logical_service(dev: DeviceKey, op: int, size: float) -> tuple[Dist, float]:
    """(service distribution, serial-device seconds) of one logical I/O on a device and RAID
    geometry (shared by every plan alike in them; read-only)."""
    if op == 3:  # flush only: no limiter cost, the device's flush time
        return _frozen(Dist(np.array([dev.flush_s]), np.array([1.0]))), 0.0
    if op == 4:  # CPU time: `size` microseconds, no device
        return _frozen(Dist(np.array([size * 1e-6]), np.array([1.0]))), 0.0
    write = op in (1, 2)
    fan = fanout(RAID_NAMES[dev.raid], dev.members, write=write, size=size,
                 chunk=dev.chunk_bytes)
    member_ios, sub = fan.member_ios, fan.piece_size
    wop = 1 if write else 0
    dist = _service_dist(dev, wop, sub, member_ios, op == 2)
    serial = 0.0
    if dev.serial:  # busy seconds summed over the members the I/O occupies
        serial = member_ios * _service_dist(dev, wop, sub, 1, op == 2).mean
    return dist, serial


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
    data_dist = mixture(parts)
    flush_share = 0.0
    if pattern.fsync_every_writes:
        flush_share = (1 - r) / pattern.fsync_every_writes
        flush = Dist(np.array([plan.dev_flush_s[0]]), np.array([1.0]))
        service = mixture([(1.0, data_dist), (flush_share, flush)])
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
class _Charges:
    """What a tuple of request classes costs at the limits on a plan before background I/O,
    without service times: the cheap part of a foreground, all a capacity check needs."""

    cost: NDArray[np.float64]  # read-only
    cost_sq: NDArray[np.float64]  # read-only
    serial: float
    nbytes: float
    n_io: tuple[float, float]  # device reads, writes
    n_fg: float


@dataclass(frozen=True, slots=True)
class _Foreground:
    """What a tuple of request classes costs on a plan before background I/O: the expensive part
    of a mix (its service times are sums of distributions), the same at every load."""

    charges: _Charges
    service: Dist
    read_service: Dist
    write_service: Dist
    reads: float
    classes: tuple[ClassParts, ...]


@dataclass(frozen=True, slots=True)
class _Services:
    """The service-time part of a foreground: sums of distributions, the same on every plan alike
    in device and RAID geometry (any instance, any limits), so computed once for all of them."""

    service: Dist
    read_service: Dist
    write_service: Dist
    class_services: tuple[Dist, ...]
    sums: tuple[tuple[dict[int, Dist], ...], ...]  # per class, per I/O: k -> sum of k services


# Bounded: a sizing meets a few dozen device geometries x request shapes; each entry holds its
# sums of services (up to a few MB).
@tracked
@lru_cache(maxsize=64)
def _services(dev: DeviceKey, classes: tuple[RequestClass, ...]) -> _Services:
    parts: list[tuple[float, Dist]] = []
    by_kind: dict[int, list[tuple[float, Dist]]] = {0: [], 1: []}
    totals: list[Dist] = []
    sums: list[tuple[dict[int, Dist], ...]] = []
    for cls in classes:
        total = ZERO
        cls_sums = []
        for io in cls.ios:
            service, _ = logical_service(dev, io.op, io.size_bytes)
            io_sums: dict[int, Dist] = {}
            cls_sums.append(io_sums)
            if io.count > 0:
                total = convolve(total, _count_sum(service, io_sums,
                                                   count_pmf(io.count, io.trials)))
        sums.append(tuple(cls_sums))
        totals.append(total)
        parts.append((cls.probability, total))
        by_kind[cls.kind].append((cls.probability, total))
    return _Services(service=mixture(parts),
                     read_service=mixture(by_kind[0]) if by_kind[0] else ZERO,
                     write_service=mixture(by_kind[1]) if by_kind[1] else ZERO,
                     class_services=tuple(totals), sums=tuple(sums))


def _charges(plan: SimPlan, classes: tuple[RequestClass, ...]) -> _Charges:
    """The classes' charges at the limits, shared by plans alike in what they read
    (`charge_key`, `device_key`)."""
    key = (charge_key(plan), device_key(plan), classes)
    return _SHARED_CHARGES.kept(key, lambda: _fresh_charges(plan, classes))


def _fresh_charges(plan: SimPlan, classes: tuple[RequestClass, ...]) -> _Charges:
    fg = np.zeros(plan.n_limits)
    cost_sq = np.zeros(plan.n_limits)
    serial = 0.0
    nbytes = 0.0
    n_io = [0.0, 0.0]
    n_fg = 0.0
    for cls in classes:
        for io in cls.ios:
            c, _, ser = io_cost(plan, io.op, io.size_bytes, io.random)
            if io.op in (0, 1, 2):
                n_io[0 if io.op == 0 else 1] += cls.probability * io.count
                n_fg += cls.probability * io.count
            fg += cls.probability * io.count * c
            cost_sq += cls.probability * io.count * c * c
            serial += cls.probability * io.count * ser
            nbytes += cls.probability * io.count * io.size_bytes
    fg.flags.writeable = False
    cost_sq.flags.writeable = False
    return _Charges(cost=fg, cost_sq=cost_sq, serial=serial, nbytes=nbytes,
                    n_io=(n_io[0], n_io[1]), n_fg=n_fg)


def _foreground(plan: SimPlan, classes: tuple[RequestClass, ...]) -> _Foreground:
    svc = _services(device_key(plan), _canonical(classes, SERVICE_DIGITS))
    out: list[ClassParts] = []
    for cls, total, cls_sums in zip(classes, svc.class_services, svc.sums, strict=True):
        # A copy of each shared sum: a sum this plan asks for beyond the shared ones stays its own.
        ios = tuple(io_part(plan, io, dict(io_sums))
                    for io, io_sums in zip(cls.ios, cls_sums, strict=True))
        out.append(ClassParts(probability=cls.probability, kind=cls.kind, ios=ios,
                              service=total))
    return _Foreground(charges=_charges(plan, classes), service=svc.service,
                       read_service=svc.read_service, write_service=svc.write_service,
                       reads=sum(cls.probability for cls in classes if cls.kind == 0),
                       classes=tuple(out))


def _sig(x: float, digits: int = 12) -> float:
    return float(f"{x:.{digits}g}")


# The service-time sums are keyed by counts to 9 significant digits: a count derived from the
# load (page reads per transaction from the buffer pool's miss ratio) comes out of floating point
# differing from load to load in its 11th-12th digit, which would make each load a new key.
SERVICE_DIGITS = 9


def _canonical(classes: tuple[RequestClass, ...], digits: int = 12) -> tuple[RequestClass, ...]:
    """The classes with probabilities and counts to `digits` significant digits: a count
    derived from the load in floating point differs in its last bits from load to load, which
    would defeat the per-plan memo of the service times."""
    return tuple(RequestClass(probability=_sig(c.probability, digits), kind=c.kind, ios=tuple(
        IoSpec(op=io.op, size_bytes=io.size_bytes, count=_sig(io.count, digits),
               random=io.random, trials=io.trials, log=io.log) for io in c.ios)) for c in classes)


def _background_charge(plan: SimPlan, io: IoSpec, device_ios: float,
                       ) -> tuple[NDArray[np.float64], float, bool]:
    """(cost at every limiter, serial-device seconds, merged) of one background I/O among
    `device_ios` device I/Os per request: a sequential stream merges (`merged_charge`)."""
    c, _, ser = io_cost(plan, io.op, io.size_bytes, io.random)
    if not io.random and io.op in (0, 1, 2) and device_ios > 0:
        c = merged_charge(plan, io, device_ios)
        c.flags.writeable = False
        return c, ser, True
    return c, ser, False


def _device_ios(charges: _Charges, background: tuple[IoSpec, ...]) -> float:
    """Device I/Os per request, foreground and background."""
    return charges.n_fg + sum(io.count for io in background if io.op in (0, 1, 2))


def _cost(plan: SimPlan, classes: tuple[RequestClass, ...],
          background: tuple[IoSpec, ...]) -> NDArray[np.float64]:
    """`build_mix(plan, classes, background).cost` (classes already `_canonical`), to the bit,
    without the service times: what a capacity check reads (`commit.grouped_cost`)."""
    ch = _charges(plan, classes)
    cost = ch.cost.copy()
    device_ios = _device_ios(ch, background)
    for io in background:
        c, _, _ = _background_charge(plan, io, device_ios)
        cost += io.count * c
    return cost


def build_mix(plan: SimPlan, classes: tuple[RequestClass, ...],
              background: tuple[IoSpec, ...] = (), *, extra_latency_s: float = 0.0) -> Mix:
    """Mix of multi-I/O requests (database transactions) plus background I/Os per request. The
    requests' part is computed once per plan and classes; the background varies with the load."""
    classes = _canonical(classes)
    fg = _memo(plan, ("foreground", classes), lambda: _foreground(plan, classes))
    ch = fg.charges
    cost = ch.cost.copy()
    cost_sq = ch.cost_sq.copy()
    serial, nbytes, n_io = ch.serial, ch.nbytes, list(ch.n_io)
    bg_parts = []
    device_ios = _device_ios(ch, background)
    for io in background:
        c, ser, merged = _background_charge(plan, io, device_ios)
        part = io_part(plan, io)
        bg_parts.append(replace(part, cost=c) if merged else part)
        if io.op in (0, 1, 2):
            n_io[0 if io.op == 0 else 1] += io.count
        cost += io.count * c
        cost_sq += io.count * c * c
        serial += io.count * ser
        nbytes += io.count * io.size_bytes
    with np.errstate(invalid="ignore", divide="ignore"):
        share = float(np.nanmax(np.where(cost > 0, ch.cost / cost, 0.0))) if cost.any() else 1.0
    return Mix(cost=cost, serial_seconds=serial, service=fg.service,
               read_service=fg.read_service, write_service=fg.write_service,
               read_fraction=fg.reads, bytes_per_request=nbytes, data_fraction=1.0,
               fg_share=share, extra_latency_s=extra_latency_s,
               read_ios_per_request=n_io[0], write_ios_per_request=n_io[1],
               fg_ios_per_request=max(ch.n_fg, 1e-9), cost_sq=cost_sq, classes=fg.classes,
               background=tuple(bg_parts))
