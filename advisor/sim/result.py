"""The event simulation's load level: a run's measurements as a typed `Level`, the limit that
bound it (worded by `advisor.sim.bottleneck`) and its timeline (the fio-shaped export is
`advisor.sim.fio_export`)."""

from dataclasses import replace

import numpy as np

from advisor.sim.bottleneck import (
    BINDING_UTILISATION,
    SEEK,
    Binding,
    binding_text,
    detail,
    io_unit_kib,
    members_of,
    unit_of,
)
from advisor.sim.des import RawLevel
from advisor.sim.plan import KIND_DEVICE, SimPlan
from advisor.sim.results import (
    ActReads,
    ActRow,
    BackgroundIo,
    DeviceLatency,
    HistogramBin,
    IoCounts,
    IoRates,
    Latency,
    LatencySummary,
    Level,
    Load,
    TimelinePoint,
)

MIB = 2**20


def _capacity_used(plan: SimPlan, raw: RawLevel, l: int) -> float:
    """Units limiter l could have passed over the run, given when its credits ran out."""
    t_total = raw.duration_s
    rate: float = plan.lim_rate[l]
    burst: float = plan.lim_burst[l]
    owner = l if plan.lim_cap[l] > 0 else int(plan.lim_owner[l])
    if owner < 0 or burst == rate:
        return rate * t_total
    ex: float = raw.lim_exhaust[owner]
    ex = t_total if ex < 0 else min(ex, t_total)
    return burst * ex + rate * (t_total - ex)


def utilisation(plan: SimPlan, raw: RawLevel) -> dict[str, float]:
    """Busiest member's utilisation of every named limit (0..1)."""
    out: dict[str, float] = {}
    for l, name in enumerate(plan.limit_names):
        cap = _capacity_used(plan, raw, l)
        # Limits are charged when an I/O reaches them, so I/Os still queued at the end would
        # count twice over: a saturated limit reads 1.0 and its backlog is reported apart.
        u = min(1.0, float(raw.lim_used[l] / cap)) if cap > 0 else 0.0
        key = name if plan.limit_scope[l] == "instance" or plan.members == 1 else (
            name if "device" in name else f"{name} (busiest of {plan.members})")
        out[key] = round(max(out.get(key, 0.0), u), 4)
    if plan.dev_serial.any():
        out["disk busy (busiest)"] = round(min(1.0, float(raw.serial_busy_s.max()
                                                          / raw.duration_s)), 4)
    return out


def backlog_s(plan: SimPlan, raw: RawLevel) -> float:
    """How far behind the most loaded limit's pacing is at the end of the run."""
    if plan.n_limits == 0:
        return 0.0
    return max(0.0, float((raw.lim_tat - raw.duration_s).max()))


def binding(plan: SimPlan, raw: RawLevel, *, queue_depth: int | None) -> Binding:
    """The limit that bound the run: the one that served closest to its capacity."""
    best, best_u = -1, 0.0
    for l in range(plan.n_limits):
        cap = _capacity_used(plan, raw, l)
        u = raw.lim_used[l] / cap if cap > 0 else 0.0
        if u > best_u:
            best, best_u = l, float(u)
    device = plan.profile.name
    if plan.dev_serial.any():
        busy = float(raw.serial_busy_s.max() / raw.duration_s)
        if busy >= BINDING_UTILISATION and busy >= best_u:
            return Binding(kind="seek", limit=SEEK, utilisation=busy, device=device)
    if best < 0 or best_u < BINDING_UTILISATION:
        return Binding(kind="latency", limit=None, utilisation=best_u, device=device,
                       queue_depth=queue_depth,
                       busiest=plan.limit_names[best] if best >= 0 else None)
    figures = Binding(kind="rate", limit=plan.limit_names[best], utilisation=best_u,
                      device=device, rate=plan.lim_rate[best], unit=unit_of(plan, best),
                      members=members_of(plan, best),
                      io_unit_kib=io_unit_kib(plan, best, raw.bytes["total"]
                                              / max(1, raw.requests["total"])))
    if plan.lim_kind[best] == KIND_DEVICE:
        return replace(figures, kind="device")
    owner = best if plan.lim_cap[best] > 0 else int(plan.lim_owner[best])
    if owner >= 0:
        ex = float(raw.lim_exhaust[owner])
        if 0 <= ex < raw.duration_s:
            return replace(figures, kind="burst_exhausted", credit=plan.limit_names[owner],
                           exhausted_at_s=ex)
        left = float(raw.lim_balance_end[owner]) / plan.lim_cap[owner]
        return replace(figures, kind="burst", rate=plan.lim_burst[best], credits_left=left)
    return replace(figures, queued_s=backlog_s(plan, raw))


def timeline(plan: SimPlan, raw: RawLevel) -> tuple[TimelinePoint, ...]:
    dt = raw.timeline_dt
    nbins = min(raw.timeline_counts.size, int(np.ceil(raw.duration_s / dt)))
    names = [plan.limit_names[l] for l in raw.tracked]
    primary = next((b for b, l in enumerate(raw.tracked) if plan.limit_scope[l] == "volume"), 0)
    out = []
    for i in range(nbins):
        fracs = None
        if raw.tracked:
            fracs = {n: round(float(raw.timeline_buckets[i, b] / plan.lim_cap[l]), 4)
                     for b, (n, l) in enumerate(zip(names, raw.tracked, strict=True))}
        out.append(TimelinePoint(
            t_s=round((i + 0.5) * dt, 3), iops=round(float(raw.timeline_counts[i]) / dt, 1),
            throughput_mibps=round(float(raw.timeline_bytes[i]) / dt / MIB, 2),
            burst_balance=None if fracs is None else fracs[names[primary]], buckets=fracs))
    return tuple(out)


def des_level(plan: SimPlan, raw: RawLevel, *, load: Load, queue_depth: int | None) -> Level:
    """The level an event run measured; `queue_depth`: the requests kept in flight, if the user
    chose how many (None for a database workload's open loop)."""
    window = raw.duration_s - raw.warmup_s
    ios = IoCounts(**raw.requests)
    lat = raw.request_latency
    bound = binding(plan, raw, queue_depth=queue_depth)
    background = None
    if raw.background_ios:
        background = BackgroundIo(
            ios=raw.background_ios, latency_ms=LatencySummary.of(
                raw.background_latency.summary_ms()),
            lag_s=round(raw.background_lag_s, 4))
    return Level(
        load=load, duration_s=raw.duration_s, ios=ios,
        iops=IoRates(read=round(ios.read / window, 1), write=round(ios.write / window, 1),
                     total=round(ios.total / window, 1)),
        throughput_mibps=round(raw.bytes["total"] / window / MIB, 2),
        latency_ms=Latency(read=LatencySummary.of(lat["read"].summary_ms()),
                           write=LatencySummary.of(lat["write"].summary_ms()),
                           transaction=LatencySummary.of(lat["all"].summary_ms())),
        device_latency_ms=DeviceLatency(
            read=LatencySummary.of(raw.io_latency["read"].summary_ms()),
            write=LatencySummary.of(raw.io_latency["write"].summary_ms())),
        histogram=tuple(HistogramBin(**b) for b in lat["all"].histogram()),
        act=ActReads(reads=ActRow(**lat["read"].act_row())),
        utilisation=utilisation(plan, raw), bottleneck=binding_text(bound),
        bottleneck_detail=detail(bound), engine="des",
        # Measured by the kernel (time-average over the window), so that Little's law
        # L = lambda x W is something the tests check rather than how L is computed.
        mean_in_flight=round(raw.mean_in_flight, 3),
        background=background, timeline=timeline(plan, raw))
