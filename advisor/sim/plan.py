"""Compile a layout into the flat arrays the engines run on.

The plan holds every rate limit of `advisor.layout.limits` (volume, instance, device) as a
limiter with a pacing rate and an optional credit bucket, and per RAID member the chain of
limiters its I/Os pass, its service-time distribution and whether the device serves one I/O at a
time (a spinning disk) or many in parallel (EBS, NVMe).
"""

import math
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from advisor.catalog.model import Catalog, LatencyDist, LatencyProfile
from advisor.layout.capacity import limits_of, profile_of
from advisor.layout.limits import DeviceSpeed, LayoutLimits, RateLimit
from advisor.layout.model import Layout
from advisor.layout.raid import RAID_CODES
from advisor.sim.credits import BucketDays, DailyCycle, bucket_days

KIND_IOPS, KIND_MIB, KIND_DEVICE = 0, 1, 2
MIB = 2**20
# EBS meters IOPS and throughput over short windows, not per I/O: a limit lets I/Os start up to
# this early against its pacing (GCRA tolerance). Assumption: AWS publishes no window.
BURST_TOLERANCE_S = 0.002
SUSTAINED_WHY = "a load at its peak 24 h a day runs them dry"


@dataclass(slots=True, kw_only=True)
class SimPlan:
    """Arrays for the engines; `limit_names[i]` names limiter i for reports."""

    layout: str
    raid: int
    members: int
    chunk_bytes: int
    limit_names: list[str]
    limit_scope: list[str]
    lim_kind: NDArray[np.int64]
    lim_unit_bytes: NDArray[np.float64]
    lim_rate: NDArray[np.float64]  # sustained
    lim_burst: NDArray[np.float64]  # while credits last (== rate when no bucket)
    lim_cap: NDArray[np.float64]  # bucket capacity (0: none)
    lim_init: NDArray[np.float64]
    lim_earn: NDArray[np.float64]
    lim_owner: NDArray[np.int64]  # limiter whose bucket gates the burst (-1: none)
    chain: NDArray[np.int64]  # [members, max chain] limiter indices, -1 padded
    # device per member: [member, op] with op 0 read / 1 write
    dev_mu: NDArray[np.float64]
    dev_sigma: NDArray[np.float64]
    dev_ptail: NDArray[np.float64]
    dev_tail_lo: NDArray[np.float64]  # log of seconds
    dev_tail_hi: NDArray[np.float64]
    dev_xfer_bps: NDArray[np.float64]
    dev_flush_s: NDArray[np.float64]
    dev_serial: NDArray[np.int64]
    dev_cost: NDArray[np.float64]  # [member, op]: device-seconds per rated I/O
    dev_rated_bytes: NDArray[np.float64]
    dev_seq_bps: NDArray[np.float64]
    profile: LatencyProfile
    # Per member: write-back cache (s of device work a write may run ahead), a spinning disk
    # (sequential I/O skips positioning), slow episodes (slot s, share, largest speed loss).
    dev_wcache_s: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    dev_spinning: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    dev_slow: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 3)))
    notes: list[str] = field(default_factory=list)
    # Limits judged at their sustained baseline, name -> why (`at_baseline`): their bucket is
    # gone from this plan, but a reason can still name the burst it would have had.
    baseline_only: dict[str, str] = field(default_factory=dict)
    # What the engines derive from the plan and reuse (the analytic engine's per-I/O costs and
    # transaction service times: a search evaluates the same requests at many loads). A plan is
    # not changed once compiled; `replace` (as in `with_write_load`) starts an empty memo.
    memo: dict[Hashable, Any] = field(default_factory=dict, init=False, repr=False,
                                      compare=False)
    # The part of that memo that depends only on the devices, the RAID geometry and how each
    # limit charges an I/O (the per-I/O costs and service times), not on the limits' rates or
    # credits: a plan derived by changing only those (`at_baseline`, `with_balances`: a
    # search judges every candidate's buckets for its load) shares it with its parent.
    rate_free: dict[Hashable, Any] = field(default_factory=dict, init=False, repr=False,
                                           compare=False)

    def packed(self) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64],
                              NDArray[np.float64]]:
        """(limi, limf, devf, devm): the layout of `advisor.sim.kernel`."""
        # Each member's last limiter of its own (not the shared instance ones): its backlog
        # picks the least busy mirror.
        last_own = np.full(self.members, -1.0)
        for m in range(self.members):
            row = [x for x in self.chain[m] if x >= 0 and self.limit_scope[x] != "instance"]
            if row:
                last_own[m] = row[-1]
        tau = self.tolerance_s
        limi = np.stack([self.lim_kind, self.lim_owner], axis=1).astype(np.int64)
        limf = np.stack([self.lim_unit_bytes, self.lim_rate, self.lim_burst, self.lim_cap,
                         self.lim_earn, tau], axis=1) if self.n_limits else np.zeros((0, 6))
        devf = np.stack([self.dev_mu, self.dev_sigma, self.dev_ptail, self.dev_tail_lo,
                         self.dev_tail_hi, self.dev_cost], axis=2)
        n = self.members
        wcache = self.dev_wcache_s if self.dev_wcache_s.size == n else np.zeros(n)
        spin = self.dev_spinning if self.dev_spinning.size == n else np.zeros(n)
        slow = self.dev_slow if self.dev_slow.shape == (n, 3) else np.zeros((n, 3))
        devm = np.stack([self.dev_xfer_bps, self.dev_flush_s, self.dev_serial.astype(np.float64),
                         self.dev_rated_bytes, self.dev_seq_bps, last_own, wcache, spin,
                         slow[:, 0], slow[:, 1], slow[:, 2], np.zeros(n), np.zeros(n)],
                        axis=1)
        return limi, np.ascontiguousarray(limf), np.ascontiguousarray(devf), devm

    @property
    def variable(self) -> bool:
        """Whether the members have slow episodes (`LatencyProfile.slow_share`)."""
        return bool(self.dev_slow.size and (self.dev_slow[:, 1] > 0).any())

    @property
    def tolerance_s(self) -> NDArray[np.float64]:
        """Per limit, how far ahead of its pacing an I/O may start (GCRA tolerance). A limit's
        bucket holds at least one largest I/O (1 MiB, or a few small I/Os), as any token bucket
        must, so one big write does not stall the small I/Os behind it; devices have none.
        Once per plan (its rates do not change once compiled; read-only)."""
        kept = self.memo.get("tolerance_s")
        if kept is not None:
            out_kept: NDArray[np.float64] = kept
            return out_kept
        depth = np.where(self.lim_kind == KIND_MIB, 1.0 / np.maximum(self.lim_rate, 1e-9),
                         4.0 / np.maximum(self.lim_rate, 1e-9))
        out: NDArray[np.float64] = np.where(self.lim_kind == KIND_DEVICE, 0.0,
                                            np.maximum(BURST_TOLERANCE_S, depth))
        out.setflags(write=False)
        self.memo["tolerance_s"] = out
        return out

    @property
    def n_limits(self) -> int:
        return len(self.limit_names)

    def bucket_limits(self) -> list[int]:
        return [i for i in range(self.n_limits) if self.lim_cap[i] > 0]

    def bucket_of(self, l: int) -> int:
        """The limiter whose credit bucket gates limiter l's burst rate (-1: none)."""
        return l if self.lim_cap[l] > 0 else int(self.lim_owner[l])

    def rate_in_force(self, l: int, exhausted: set[int]) -> float:
        """Limiter l's rate while its bucket lasts, or its sustained rate once it is exhausted."""
        owner = self.bucket_of(l)
        return float(self.lim_rate[l] if owner >= 0 and owner in exhausted else self.lim_burst[l])


def _dist_params(d: LatencyDist) -> tuple[float, float, float, float, float]:
    lo = max(d.tail_min_ms, d.median_ms) / 1000
    hi = max(d.tail_max_ms, lo * 1000) / 1000
    return (math.log(d.median_ms / 1000), d.sigma, d.tail_probability, math.log(lo), math.log(hi))


class _Builder:
    def __init__(self) -> None:
        self.names: list[str] = []
        self.scope: list[str] = []
        self.rows: list[tuple[int, float, float, float, float, float, float, int]] = []

    def add(self, limit: RateLimit, *, owner_lookup: dict[str, int] | None = None) -> int:
        kind = KIND_IOPS if limit.unit == "iops" else KIND_MIB
        # IOPS limits count I/Os of up to `unit` bytes as one; HDD throughput limits charge
        # whole units of it (0: actual bytes).
        unit = float((limit.io_unit_kib or 0) * 1024)
        burst = limit.burst if limit.burst is not None else limit.sustained
        cap = limit.bucket.capacity if limit.bucket else 0.0
        init = limit.bucket.initial if limit.bucket else 0.0
        earn = limit.bucket.earn_per_s if limit.bucket else 0.0
        owner = -1
        if limit.bucket is not None:
            owner = len(self.rows)
        elif limit.shares_bucket_of and owner_lookup is not None:
            owner = owner_lookup.get(limit.shares_bucket_of, -1)
        self.names.append(limit.name)
        self.scope.append(limit.scope)
        self.rows.append((kind, unit, limit.sustained, burst, cap, init, earn, owner))
        return len(self.rows) - 1

    def add_device(self, name: str) -> int:
        self.names.append(name)
        self.scope.append("device")
        self.rows.append((KIND_DEVICE, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, -1))
        return len(self.rows) - 1


def compile_plan(layout: Layout, catalog: Catalog, *,
                 limits: LayoutLimits | None = None, sustained: bool = False) -> SimPlan:
    """The simulator's view of `layout`: the same limits `advisor layout` prints (`limits`: the
    layout's, when the caller has them already). `sustained`: every limit with a credit bucket
    runs at its baseline (a load at its peak all day, `at_baseline`)."""
    plan = _compile(layout, catalog, limits)
    return at_baseline(plan, why=SUSTAINED_WHY) if sustained else plan


def _compile(layout: Layout, catalog: Catalog, limits: LayoutLimits | None) -> SimPlan:
    lim = limits or limits_of(layout, catalog)
    profile = profile_of(layout, catalog)
    n = layout.spec.count
    b = _Builder()
    shared = [b.add(x) for x in lim.instance_limits]
    chains: list[list[int]] = []
    serial = np.zeros(n, dtype=np.int64)
    notes: list[str] = []
    device: DeviceSpeed | None = lim.device
    for m in range(n):
        own: dict[str, int] = {}
        chain = list(shared)
        for x in lim.member_limits:
            idx = b.add(x, owner_lookup=own)
            own[x.name] = idx
            chain.append(idx)
        if device is not None:
            kind = "instance-store" if layout.ephemeral else "local"
            chain.append(b.add_device(f"{kind} device {m + 1} capacity" if n > 1
                                      else f"{kind} device capacity"))
        elif layout.volume_type is None:
            serial[m] = 1  # HDD instance store: one seek at a time
        chains.append(chain)
    if layout.volume_type is None and device is None:
        notes.append("HDD instance store: AWS publishes no IOPS; each disk serves one I/O at a "
                     "time with the profile's seek time (similar to standard EBS [S27])")
    if profile.slow_share > 0 and profile.slow_episode_s > 0 and profile.slow_factor > 1:
        notes.append(f"variability: each volume spends ~{profile.slow_share:.1%} of the time in "
                     f"slow episodes of {profile.slow_episode_s / 60:g} min, up to "
                     f"{profile.slow_factor:g}x slower (profile {profile.name}; the event "
                     "simulation only, placed by the seed)")
    width = max(len(c) for c in chains)
    chain_arr = np.full((n, max(width, 1)), -1, dtype=np.int64)
    for m, c in enumerate(chains):
        chain_arr[m, :len(c)] = c
    rows = np.array(b.rows, dtype=np.float64).reshape(-1, 8) if b.rows else np.zeros((0, 8))
    mu = np.zeros((n, 2))
    sigma = np.zeros((n, 2))
    ptail = np.zeros((n, 2))
    tlo = np.zeros((n, 2))
    thi = np.zeros((n, 2))
    for op, dist in enumerate((profile.read, profile.write)):
        p = _dist_params(dist)
        mu[:, op], sigma[:, op], ptail[:, op], tlo[:, op], thi[:, op] = p
    dev_cost = np.zeros((n, 2))
    rated = np.zeros(n)
    seq = np.full(n, profile.transfer_mibps * MIB)
    if device is not None:
        dev_cost[:, 0] = 1.0 / device.read_iops
        dev_cost[:, 1] = 1.0 / device.write_iops
        rated[:] = device.rated_kib * 1024
        seq[:] = device.seq_mibps * MIB
    return SimPlan(
        layout=str(layout.spec), raid=RAID_CODES[layout.spec.raid], members=n,
        chunk_bytes=layout.spec.chunk_kib * 1024, limit_names=b.names, limit_scope=b.scope,
        lim_kind=rows[:, 0].astype(np.int64), lim_unit_bytes=rows[:, 1].copy(),
        lim_rate=rows[:, 2].copy(), lim_burst=rows[:, 3].copy(), lim_cap=rows[:, 4].copy(),
        lim_init=rows[:, 5].copy(), lim_earn=rows[:, 6].copy(),
        lim_owner=rows[:, 7].astype(np.int64), chain=chain_arr,
        dev_mu=mu, dev_sigma=sigma, dev_ptail=ptail, dev_tail_lo=tlo, dev_tail_hi=thi,
        dev_xfer_bps=np.full(n, profile.transfer_mibps * MIB),
        dev_flush_s=np.full(n, profile.flush_ms / 1000), dev_serial=serial, dev_cost=dev_cost,
        dev_rated_bytes=rated, dev_seq_bps=seq, profile=profile, notes=notes,
        dev_wcache_s=np.full(n, profile.write_cache_ms / 1000),
        dev_spinning=np.full(n, 1.0 if profile.spinning else 0.0),
        dev_slow=np.tile(_slow_row(profile), (n, 1)))


def _slow_row(profile: LatencyProfile) -> NDArray[np.float64]:
    """(slot s, share, largest speed loss) of the profile's slow episodes; zeros for none."""
    if profile.slow_share <= 0 or profile.slow_episode_s <= 0 or profile.slow_factor <= 1:
        return np.zeros(3)
    return np.array([profile.slow_episode_s, profile.slow_share, 1 - 1 / profile.slow_factor])


def steady(plan: SimPlan) -> SimPlan:
    """The plan without slow episodes: every volume at its usual speed all the time."""
    if not plan.variable:
        return plan
    return replace(plan, dev_slow=np.zeros_like(plan.dev_slow), notes=list(plan.notes))


def with_member_slow(plan: SimPlan, loss: float, member: int = 0) -> SimPlan:
    """The plan without slow episodes (`steady`) but for member `member`, in one for the whole
    run at speed loss `loss` (0 <= loss < 1): its service times x 1 / (1 - loss), as the event
    kernel multiplies them in a slow slot (the device's latency draw and its transfer alike; the
    flush after a write and the rate limits are not slowed, there or here)."""
    if not 0.0 <= loss < 1.0:
        raise ValueError(f"speed loss {loss!r} is not in [0, 1)")
    if not 0 <= member < plan.members:
        raise ValueError(f"member {member} is not one of the plan's {plan.members}")
    base = steady(plan)
    log_f = -math.log1p(-loss)
    mu, lo, hi = base.dev_mu.copy(), base.dev_tail_lo.copy(), base.dev_tail_hi.copy()
    mu[member] += log_f
    lo[member] += log_f
    hi[member] += log_f
    xfer = base.dev_xfer_bps.copy()
    xfer[member] *= 1.0 - loss
    return replace(base, dev_mu=mu, dev_tail_lo=lo, dev_tail_hi=hi, dev_xfer_bps=xfer,
                   notes=[*base.notes, f"member {member + 1} slowed for the whole run: service "
                          f"x {1 / (1 - loss):.3g} (speed loss {loss:.0%})"])


def episode_share(share: float, volumes: int) -> float:
    """Share of time at least one of `volumes` independent volumes is in a slow episode."""
    return 1 - (1 - share) ** volumes


def episode_strata(plan: SimPlan, count: int) -> list[tuple[float, int]]:
    """(speed loss, member) of each of `count` strata of a slow episode: the model draws an
    episode's loss uniformly from 0 to the profile's largest (1 - 1 / slow_factor), so stratum
    k sits at the midpoint of the k-th equal slice of that range, on member k mod members."""
    largest = 1 - 1 / plan.profile.slow_factor
    return [(largest * (k + 0.5) / count, k % plan.members) for k in range(count)]


def episode_nodes(plan: SimPlan, count: int) -> list[tuple[float, float]]:
    """(speed loss, weight) of `count` Gauss-Legendre nodes over the model's uniform speed loss
    from 0 to the profile's largest (weights sum to 1): a mean over an episode's loss taken
    from `count` states. For a p99 over weeks 4 nodes are as close to the continuum (32
    strata) as 8 midpoints (`episode_strata`): within 0.4 % on six MySQL servers on gp2, gp3
    and io1, single and in RAID 0 of 2-8 (2026-11-30), where 4 midpoints are 1.8 % off."""
    largest = 1 - 1 / plan.profile.slow_factor
    # Golub-Welsch: the nodes on [-1, 1] are the eigenvalues of the Jacobi matrix of the
    # Legendre polynomials, each weight 2 x its eigenvector's first component squared (what
    # numpy.polynomial.legendre.leggauss gives, without importing numpy.polynomial: 75 ms).
    k = np.arange(1, count)
    beta = k / np.sqrt(4.0 * k * k - 1.0)
    x, vectors = np.linalg.eigh(np.diag(beta, 1) + np.diag(beta, -1))
    w = 2.0 * vectors[0] ** 2
    return [(largest * (float(xi) + 1) / 2, float(wi) / 2) for xi, wi in zip(x, w, strict=True)]


def at_baseline(plan: SimPlan, buckets: list[int] | None = None, *, why: str) -> SimPlan:
    """The plan with the credit buckets `buckets` (limiter indices; None: all) gone: each runs,
    with every limit its credits gate (gp2 throughput), at its sustained rate from the start,
    as once the bucket is empty. The engines (analytic and DES) then judge the load on the
    baselines; `baseline_only` keeps each such limit's burst rate for the words."""
    chosen = set(plan.bucket_limits() if buckets is None else buckets)
    if not chosen:
        return plan
    burst, cap = plan.lim_burst.copy(), plan.lim_cap.copy()
    init, earn, owner = plan.lim_init.copy(), plan.lim_earn.copy(), plan.lim_owner.copy()
    judged = dict(plan.baseline_only)
    for l in range(plan.n_limits):
        b = plan.bucket_of(l)
        if b < 0 or b not in chosen:
            continue
        if burst[l] > plan.lim_rate[l]:
            judged[plan.limit_names[l]] = (f"its burst to {_rate_text(plan, l, burst[l])} lasts "
                                           f"only while credits do: {why}")
        burst[l] = plan.lim_rate[l]
        owner[l] = -1
    for b in chosen:
        cap[b] = init[b] = earn[b] = 0.0
    return _rates_changed(plan, replace(plan, lim_burst=burst, lim_cap=cap, lim_init=init,
                                        lim_earn=earn, lim_owner=owner, baseline_only=judged,
                                        notes=list(plan.notes)))


def _rates_changed(parent: SimPlan, derived: SimPlan) -> SimPlan:
    """`derived`, which differs from `parent` only in its limits' rates and credits, sharing
    the parent's rate-free memo."""
    derived.rate_free = parent.rate_free
    return derived


def judge_buckets(plan: SimPlan, spend_per_s: dict[int, float], cycle: DailyCycle,
                  ) -> tuple[SimPlan, dict[int, BucketDays]]:
    """The plan a load repeating `cycle` every day is judged on: a bucket whose credits do not
    last the peak every day (`advisor.sim.credits`) is gone and its limits run at their
    baselines; one that does starts at its steady start-of-day balance. `spend_per_s`: credits/s
    the peak load spends from each bucket (limiter index).

    At 24 peak hours a day a bucket lasts only if the load spends no more than it earns (its
    baseline): a sustained load is judged on the baselines (BRIEF section 7). Such a bucket
    stays full and is kept: AWS meters a load below the baseline against a full bucket, so its
    short spikes (a page cleaner's batch) still pass at the burst rate."""
    buckets = plan.bucket_limits()
    if not buckets:
        return plan, {}
    days: dict[int, BucketDays] = {}
    gone: list[int] = []
    balances: dict[int, float] = {}
    for l in buckets:
        peak = spend_per_s.get(l, 0.0)
        d = bucket_days(capacity=float(plan.lim_cap[l]), earn_per_s=float(plan.lim_earn[l]),
                        peak_spend_per_s=peak, off_spend_per_s=peak * cycle.off_peak,
                        cycle=cycle)  # from full, as AWS starts a bucket
        days[l] = d
        if not d.carries:
            gone.append(l)
        elif d.steady_start < plan.lim_init[l]:
            balances[l] = d.steady_start
    key = ("judged", tuple(gone), tuple(sorted((l, round(b, 3)) for l, b in balances.items())))
    if key not in plan.memo:  # the same verdict gives the same plan (and its analytic memo)
        out = with_balances(plan, balances)
        for l in gone:
            out = at_baseline(out, [l], why=_why_baseline(cycle, days[l]))
        plan.memo[key] = out
    judged: SimPlan = plan.memo[key]
    return judged, days


def _why_baseline(cycle: DailyCycle, d: BucketDays) -> str:
    if cycle.sustained:
        return SUSTAINED_WHY
    shape = f"a {cycle.peak_hours:g}-h daily peak with {cycle.off_peak:.0%} of its load off-peak"
    if d.steady_start <= 0:
        day = (d.first_empty_day or 0) + 1
        return f"{shape} runs them dry by day {day} and they never refill"
    dry = d.empties_after_s or 0.0
    return f"{shape} runs them dry {dry / 3600:,.1f} h into every day"


def with_balances(plan: SimPlan, balances: dict[int, float]) -> SimPlan:
    """The plan with buckets starting at `balances` (limiter index -> credits) instead of full:
    e.g. at the start of a steady day of a daily cycle (`advisor.sim.credits`)."""
    if not balances:
        return plan
    init = plan.lim_init.copy()
    for b, bal in balances.items():
        init[b] = min(float(plan.lim_cap[b]), max(0.0, bal))
    return _rates_changed(plan, replace(plan, lim_init=init, notes=list(plan.notes)))


def _rate_text(plan: SimPlan, l: int, rate: float) -> str:
    unit = "MiB/s" if plan.lim_kind[l] == KIND_MIB else "IOPS"
    return f"{rate:,.1f} {unit}" if rate < 100 else f"{rate:,.0f} {unit}"


def synthetic_plan(*, service_mean_s: float, exponential: bool, serial: bool,
                   pacer_rate: float | None = None, name: str = "synthetic") -> SimPlan:
    """A one-device plan for checking the engine against queueing theory: a FIFO server with
    exponential (M/M/1) or constant (M/D/1) service, or a pure pacer in front of a delay."""
    profile = LatencyProfile(name=name,
                             read=LatencyDist(median_ms=service_mean_s * 1000, sigma=0.0),
                             write=LatencyDist(median_ms=service_mean_s * 1000, sigma=0.0),
                             transfer_mibps=1e12)
    b = _Builder()
    chain = []
    if pacer_rate is not None:
        chain.append(b.add(RateLimit(name="pacer", scope="volume", unit="iops",
                                     sustained=pacer_rate, io_unit_kib=1 << 30)))
    rows = np.array(b.rows, dtype=np.float64).reshape(-1, 8)
    sigma = -1.0 if exponential else 0.0
    one = np.ones((1, 2))
    return SimPlan(
        layout=name, raid=0, members=1, chunk_bytes=512 * 1024, limit_names=b.names,
        limit_scope=b.scope, lim_kind=rows[:, 0].astype(np.int64), lim_unit_bytes=rows[:, 1].copy(),
        lim_rate=rows[:, 2].copy(), lim_burst=rows[:, 3].copy(), lim_cap=rows[:, 4].copy(),
        lim_init=rows[:, 5].copy(), lim_earn=rows[:, 6].copy(),
        lim_owner=rows[:, 7].astype(np.int64),
        chain=np.array([chain or [-1]], dtype=np.int64),
        dev_mu=one * math.log(service_mean_s), dev_sigma=one * sigma, dev_ptail=one * 0.0,
        dev_tail_lo=one * 0.0, dev_tail_hi=one * 0.0, dev_xfer_bps=np.full(1, 1e18),
        dev_flush_s=np.zeros(1), dev_serial=np.array([1 if serial else 0], dtype=np.int64),
        dev_cost=np.zeros((1, 2)), dev_rated_bytes=np.zeros(1), dev_seq_bps=np.ones(1),
        profile=profile)


STALL_CAP = 0.9  # the most reads a sustained write rate can put into the device's stall tail


def with_write_load(plan: SimPlan, write_mibps_per_device: float) -> SimPlan:
    """The plan with SSD read/write interference for a sustained write rate: a read then takes a
    tail stall with extra probability `read_stall_per_write_mibps` x MiB/s (0 for most)."""
    k = plan.profile.read_stall_per_write_mibps
    if k <= 0 or write_mibps_per_device <= 0:
        return plan
    ptail = plan.dev_ptail.copy()
    fitted = k * write_mibps_per_device
    ptail[:, 0] = np.minimum(STALL_CAP, ptail[:, 0] + fitted)
    extra = float(ptail[0, 0] - plan.dev_ptail[0, 0])
    out = replace(plan, dev_ptail=ptail)
    capped = (f" (capped at {STALL_CAP:.0%} of reads: the fitted rate, {fitted:.0%}, is far "
              "beyond the write rates it was fitted on)" if extra < fitted - 1e-12 else "")
    out.notes = [*plan.notes, f"{extra:.2%} more reads stall behind "
                 f"{write_mibps_per_device:,.1f} MiB/s of writes per device (SSD program/erase "
                 f"interference, fitted to ACT on i3){capped}"]
    return out
