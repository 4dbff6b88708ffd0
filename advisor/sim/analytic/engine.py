"""The analytic engine's entry points: a load level (the same `Level` the DES gives), the steady
state the recommender screens with, saturation for budgets, and the level's utilisation,
bottleneck and timeline."""

import math
from dataclasses import dataclass, replace

import numpy as np

from advisor.sim.analytic.dist import (
    KEEP_EDGES,
    Dist,
    bin_sorted,
    empty_summary,
    mixture,
    summary_ms,
)
from advisor.sim.analytic.mix import MIB, Mix, pattern_mix
from advisor.sim.analytic.mva import binding_capacity, saturation
from advisor.sim.analytic.phases import Phase, latency_dist, run_phases
from advisor.sim.analytic.waits import request_latencies, request_latency
from advisor.sim.bottleneck import (
    BINDING_UTILISATION,
    Binding,
    binding_text,
    io_unit_kib,
    members_of,
    unit_of,
)
from advisor.sim.latency_detail import analytic_detail
from advisor.sim.plan import KIND_DEVICE, SimPlan
from advisor.sim.results import (
    IoCounts,
    IoRates,
    Latency,
    LatencySummary,
    Level,
    Load,
    RunPhase,
    TimelinePoint,
)
from advisor.sim.source import IoPattern

SEEK_BINDING = -1  # `binding_capacity`: the serial (HDD) devices' seek time binds


def saturation_iops(plan: SimPlan, pattern: IoPattern) -> float:
    """Logical I/Os per second at the binding limit while credits last (for budgets)."""
    mix = pattern_mix(plan, pattern)
    cap, _ = binding_capacity(plan, mix, set())
    return saturation(mix, cap, pattern.concurrency)


def analytic_level(plan: SimPlan, pattern: IoPattern, *, duration_s: float,
                   load: Load) -> Level:
    """One load level of a raw pattern (the same `Level` the event simulation gives)."""
    m = mix_level(plan, pattern_mix(plan, pattern), duration_s=duration_s, load=load,
                  open_rate=pattern.open_rate, concurrency=pattern.concurrency)
    detail = analytic_detail(m.read, m.write, m.all, reads=m.level.ios.read,
                             writes=m.level.ios.write)
    return replace(m.level, latency_detail=detail)


@dataclass(frozen=True, slots=True, kw_only=True)
class MixLevel:
    """A level of a request mix, with what combining it with other servers' levels takes: the
    requests/s it completed and its latency distributions."""

    level: Level
    achieved_tps: float
    all: Dist
    read: Dist
    write: Dist
    read_fraction: float


def _summary(d: Dist) -> LatencySummary:
    return LatencySummary.of(summary_ms(d))


def _kept(d: Dist) -> Dist:
    """d (sorted) on KEEP_EDGES' bins: each bin the mean of the quantile function over it, so a
    mixture's percentiles fall when any of its parts gets faster. Read between the parts' raw
    points they need not: a point of a fast server between two of a slow one's bends the
    interpolation (a deployment's p99 on r5.large gp3 500 GiB at 550 tps was 9.93 ms with 2
    replicas and 10.01 ms with 3, each faster, 2026-12-01)."""
    return Dist(*bin_sorted(d.values, d.weights, KEEP_EDGES), d.mean)


def combine_dists(parts: list[tuple[float, MixLevel]]) -> Latency:
    """Latency percentiles over several servers, weighted by their request rates."""
    out = {}
    for key in ("transaction", "read", "write"):
        weighted = []
        for rate, m in parts:
            share = 1.0 if key == "transaction" else (m.read_fraction if key == "read"
                                                       else 1 - m.read_fraction)
            if rate * share > 0:
                weighted.append((rate * share, m.all if key == "transaction"
                                 else getattr(m, key)))
        out[key] = (_summary(weighted[0][1] if len(weighted) == 1 else _kept(mixture(weighted)))
                    if weighted
                    else LatencySummary.of(empty_summary()))
    return Latency(**out)


def mix_level(plan: SimPlan, mix: Mix, *, duration_s: float, load: Load,
              open_rate: float | None, concurrency: int) -> MixLevel:
    """A level of any request mix (raw pattern or database transactions)."""
    phases = run_phases(plan, mix, duration_s, open_rate=open_rate, concurrency=concurrency)
    requests = sum(p.x * (p.end_s - p.start_s) for p in phases)
    reads = requests * mix.read_ios_per_request
    writes = requests * mix.write_ios_per_request
    ios = IoCounts(read=round(reads), write=round(writes), total=round(reads + writes))
    lat_all, lat_read, lat_write = _latencies(plan, mix, phases, open_rate=open_rate)
    last = phases[-1]
    empty = LatencySummary.of(empty_summary())
    bound = _binding(plan, mix, phases, queue_depth=concurrency)
    level = Level(
        load=load, duration_s=duration_s, ios=ios,
        iops=IoRates(read=round(ios.read / duration_s, 1), write=round(ios.write / duration_s, 1),
                     total=round(ios.total / duration_s, 1)),
        throughput_mibps=round(requests * mix.bytes_per_request / duration_s / MIB, 2),
        latency_ms=Latency(read=_summary(lat_read) if mix.read_fraction > 0 else empty,
                           write=_summary(lat_write) if mix.read_fraction < 1 else empty,
                           transaction=_summary(lat_all)),
        utilisation=_utilisation(plan, mix, phases, duration_s),
        bottleneck=binding_text(bound), engine="analytic",
        mean_in_flight=round(last.x * (lat_all.mean), 3),
        timeline=_timeline(plan, mix, phases, duration_s),
        phases=tuple(RunPhase(start_s=round(p.start_s, 1), end_s=round(p.end_s, 1),
                              iops=round(p.x * _ios_per_request(mix), 1),
                              binding=limit_name(plan, p.binding)) for p in phases))
    return MixLevel(level=level, achieved_tps=round(requests / duration_s, 3), all=lat_all,
                    read=lat_read, write=lat_write, read_fraction=mix.read_fraction)


def _latencies(plan: SimPlan, mix: Mix, phases: list[Phase], *,
               open_rate: float | None) -> tuple[Dist, Dist, Dist]:
    """(all, read, write) request times over the run's phases."""
    extra = mix.extra_latency_s
    services = (mix.service, mix.read_service, mix.write_service)
    if any(ph.split is not None for ph in phases):
        return _split_latencies(plan, mix, phases)
    if not (mix.classes and open_rate) or plan.dev_serial[0]:
        return tuple(latency_dist(mix, phases, d.shifted(extra))  # type: ignore[return-value]
                     for d in services)
    parts: list[list[tuple[float, Dist]]] = [[], [], []]
    for ph in phases:
        n = ph.x * (ph.end_s - ph.start_s)
        if n <= 0:
            continue
        if ph.backlog_slope > 0:  # past saturation: the backlog's growing wait
            dists = tuple(latency_dist(mix, [ph], d.shifted(extra)) for d in services)
        else:
            dists = request_latency(plan, mix, ph.x, list(ph.rates))
        for i, d in enumerate(dists):
            parts[i].append((n, d))
    if not parts[0]:
        return tuple(d.shifted(extra) for d in services)  # type: ignore[return-value]
    return mixture(parts[0]), mixture(parts[1]), mixture(parts[2])


def _split_latencies(plan: SimPlan, mix: Mix, phases: list[Phase]) -> tuple[Dist, Dist, Dist]:
    """(all, read, write) request times of a raw pattern whose reads and writes wait apart (a
    device's write-back cache, `queues.open_split` / `closed_split`): every request is a read,
    a write or a flush (which passes no pacing: its service alone)."""
    extra = mix.extra_latency_s
    read = latency_dist(mix, phases, mix.read_service.shifted(extra), 0)
    write = latency_dist(mix, phases, mix.write_service.shifted(extra), 1)
    r, df = mix.read_fraction, mix.data_fraction
    parts = [(df * r, read), (df * (1 - r), write)]
    if df < 1:
        flush = Dist(np.array([float(plan.dev_flush_s[0]) + extra]), np.array([1.0]))
        parts.append((1 - df, flush))
    return mixture([(p, d) for p, d in parts if p > 0]), read, write


def limit_name(plan: SimPlan, l: int) -> str:
    if l == SEEK_BINDING:
        return "instance-store HDD seek time"
    return plan.limit_names[l] if l >= 0 else "none"


def _utilisation(plan: SimPlan, mix: Mix, phases: list[Phase],
                 duration_s: float) -> dict[str, float]:
    out: dict[str, float] = {}
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
    if mix.serial_seconds > 0:
        busy = sum(p.x * (p.end_s - p.start_s) for p in phases) * mix.serial_seconds
        out["disk busy (busiest)"] = round(min(1.0, busy / duration_s / plan.members), 4)
    return out


def _binding(plan: SimPlan, mix: Mix, phases: list[Phase], *,
             queue_depth: int | None) -> Binding:
    """What binds the run's last phase: a burst bucket that ran dry in an earlier one, else
    the binding limit if it is busy enough, else the run is latency-bound."""
    last = phases[-1]
    busy = last.x / last.capacity if math.isfinite(last.capacity) else 0.0
    device = plan.profile.name
    l = last.binding
    saturated = busy >= BINDING_UTILISATION or last.backlog_slope > 0
    if l < 0:  # the disks' seek time binds (SEEK_BINDING), or nothing does
        if saturated and l == SEEK_BINDING:
            return Binding(kind="seek", limit=limit_name(plan, l), utilisation=busy,
                           device=device)
        return Binding(kind="latency", limit=None, utilisation=busy, device=device,
                       queue_depth=queue_depth,
                       busiest=limit_name(plan, l) if l == SEEK_BINDING else None)
    name = plan.limit_names[l]
    owner = l if plan.lim_cap[l] > 0 else int(plan.lim_owner[l])
    figures = Binding(kind="rate", limit=name, utilisation=busy, device=device,
                      rate=plan.lim_burst[l], unit=unit_of(plan, l), members=members_of(plan, l),
                      io_unit_kib=io_unit_kib(plan, l, mix.bytes_per_request
                                              / max(_ios_per_request(mix), 1e-9)))
    if len(phases) > 1 and owner >= 0:
        return replace(figures, kind="burst_exhausted", rate=plan.lim_rate[l],
                       credit=plan.limit_names[owner], exhausted_at_s=phases[-2].end_s)
    if not saturated:
        return Binding(kind="latency", limit=None, utilisation=busy, device=device,
                       queue_depth=queue_depth, busiest=name)
    if plan.lim_kind[l] == KIND_DEVICE:
        return replace(figures, kind="device")
    if owner >= 0:  # still bursting at the end
        spend = last.x * mix.cost[owner] - plan.lim_earn[owner]
        left = min(plan.lim_cap[owner], max(0.0, last.balances_start.get(owner, 0.0)
                                            - spend * (last.end_s - last.start_s)))
        return replace(figures, kind="burst", credits_left=float(left / plan.lim_cap[owner]))
    # Past saturation the wait grows by `backlog_slope` per second of the run (`latency_dist`).
    return replace(figures, queued_s=last.backlog_slope * last.end_s)


def _ios_per_request(mix: Mix) -> float:
    """Device I/Os per request, background ones included (a transaction is many; a raw
    pattern's request one, fsync-only ones none): the timeline's IOPS match the level's."""
    return mix.read_ios_per_request + mix.write_ios_per_request


def _timeline(plan: SimPlan, mix: Mix, phases: list[Phase],
              duration_s: float) -> tuple[TimelinePoint, ...]:
    buckets = [l for l in range(plan.n_limits) if plan.lim_cap[l] > 0]
    primary = next((l for l in buckets if plan.limit_scope[l] == "volume"),
                   buckets[0] if buckets else None)
    points = []
    for t in np.linspace(0, duration_s, 121)[:-1] + duration_s / 240:
        ph = next(p for p in phases if p.start_s <= t <= p.end_s or p is phases[-1])
        fracs = None
        if primary is not None:
            fracs = {}
            for l in buckets:
                b0 = ph.balances_start.get(l, 0.0)
                spend = ph.x * mix.cost[l] - plan.lim_earn[l]
                b = min(plan.lim_cap[l], max(0.0, b0 - spend * (t - ph.start_s)))
                fracs[plan.limit_names[l]] = round(b / plan.lim_cap[l], 4)
        points.append(TimelinePoint(
            t_s=round(float(t), 3), iops=round(ph.x * _ios_per_request(mix), 1),
            throughput_mibps=round(ph.x * mix.bytes_per_request / MIB, 2),
            burst_balance=None if fracs is None or primary is None
            else fracs[plan.limit_names[primary]], buckets=fracs))
    return tuple(points)


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


@dataclass(frozen=True, slots=True)
class PhaseLatency:
    """A steady state's request times at the last phase's load `x` and rates in force `rates`,
    and the limits whose waits went into them where they were composed from each limit's wait
    (`waits.request_latency`; None where they come from the phase's own wait, which every limit
    sets): a plan whose other limits differ only in their rates, each waiting no more than
    here, has these very times (`steady_state_with`)."""

    p99_s: float
    p50_s: float
    mean_s: float
    x: float
    rates: tuple[float, ...]
    waited: frozenset[int] | None


def steady_phase(plan: SimPlan, mix: Mix, *, rate: float, duration_s: float) -> Phase:
    """The phase a steady state is of: the last of an open loop at `rate` requests/s for
    `duration_s`, at least a second long."""
    last = run_phases(plan, mix, duration_s, open_rate=rate, concurrency=1 << 30)[-1]
    return replace(last, end_s=max(last.end_s, last.start_s + 1.0))


def steady_state(plan: SimPlan, mix: Mix, *, rate: float, duration_s: float) -> SteadyState:
    """Open loop at `rate` requests/s for `duration_s`: the state of the last phase."""
    last = steady_phase(plan, mix, rate=rate, duration_s=duration_s)
    return steady_state_with(plan, last, rate, phase_latency(plan, mix, last, rate))


def phase_latency(plan: SimPlan, mix: Mix, last: Phase, rate: float) -> PhaseLatency:
    """The request times of `last` (`steady_phase`) at `rate` requests/s: composed from each
    limit's wait as `_latencies` does below saturation, with the limits that waited; or, past
    saturation, on a device's write-back split, a serial device or with no request classes, from
    the phase's own wait."""
    waited: set[int] = set()
    dist, composed = _phase_dist(plan, mix, last, rate, waited)
    return PhaseLatency(p99_s=dist.quantile(0.99), p50_s=dist.quantile(0.5), mean_s=dist.mean,
                        x=last.x, rates=last.rates,
                        waited=frozenset(waited) if composed else None)


def phase_dists(plan: SimPlan, mix: Mix, others: list[Mix], last: Phase,
                rate: float) -> list[Dist]:
    """The request times of each of `others` in `last` (`steady_phase` of `mix`) at `rate`
    requests/s: `mix` with other service times, the same I/Os and charges (a member slowed:
    `plan.with_member_slow`), waiting at the limits as `mix` does (`waits.request_latencies`);
    past saturation, on a serial device or a write-back split, from the phase's own wait, as
    `phase_latency` takes them."""
    if _composed(plan, mix, last, rate):
        return request_latencies(plan, mix, others, last.x, list(last.rates))
    return [_latencies(plan, other, [last], open_rate=rate)[0] for other in others]


def _composed(plan: SimPlan, mix: Mix, last: Phase, rate: float) -> bool:
    n = last.x * (last.end_s - last.start_s)
    return not (last.split is not None or last.backlog_slope > 0 or not mix.classes
                or not rate or n <= 0 or plan.dev_serial[0])


def _phase_dist(plan: SimPlan, mix: Mix, last: Phase, rate: float,
                waited: set[int]) -> tuple[Dist, bool]:
    if _composed(plan, mix, last, rate):  # `_latencies`'s sum for this phase, waits recorded
        n = last.x * (last.end_s - last.start_s)
        return mixture([(n, request_latency(plan, mix, last.x, list(last.rates), waited)[0])]), True
    return _latencies(plan, mix, [last], open_rate=rate)[0], False


def steady_state_with(plan: SimPlan, last: Phase, rate: float, lat: PhaseLatency) -> SteadyState:
    """The steady state of `last` (`steady_phase`) at `rate` requests/s with request times
    `lat`."""
    util = last.x / last.capacity if math.isfinite(last.capacity) else 0.0
    return SteadyState(p99_s=lat.p99_s, p50_s=lat.p50_s, mean_s=lat.mean_s,
                       utilisation=util if last.backlog_slope <= 0 else rate / last.capacity,
                       binding=limit_name(plan, last.binding), throughput=last.x,
                       backlog=last.backlog_slope > 0)


def read_fraction_over(plan: SimPlan, mix: Mix, *, rate: float, duration_s: float,
                       thresholds_s: tuple[float, ...]) -> list[float]:
    """Share of read requests over each threshold in the last phase (ACT-style screen)."""
    phases = run_phases(plan, mix, duration_s, open_rate=rate, concurrency=1 << 30)
    d = _latencies(plan, mix, phases[-1:], open_rate=rate)[1]
    w = d.weights / d.weights.sum()
    return [float(w[d.values > t].sum()) for t in thresholds_s]
