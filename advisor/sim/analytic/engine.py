"""The analytic engine's entry points: a load level in the DES's JSON shape, the steady state
the recommender screens with, saturation for budgets, and the level's utilisation, bottleneck
and timeline."""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from advisor.sim.analytic.dist import empty_summary, mixture, summary_ms
from advisor.sim.analytic.mix import MIB, Mix, pattern_mix
from advisor.sim.analytic.mva import binding_capacity, saturation
from advisor.sim.analytic.phases import Phase, latency_dist, run_phases
from advisor.sim.plan import KIND_DEVICE, KIND_IOPS, SimPlan
from advisor.sim.source import IoPattern


def saturation_iops(plan: SimPlan, pattern: IoPattern) -> float:
    """Logical I/Os per second at the binding limit while credits last (for budgets)."""
    mix = pattern_mix(plan, pattern)
    cap, _ = binding_capacity(plan, mix, set())
    return saturation(mix, cap, pattern.concurrency)


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
        out[label] = summary_ms(mixture(weighted)) if weighted else empty_summary()
    return out


def mix_level(plan: SimPlan, mix: Mix, *, duration_s: float, load: dict[str, Any],
              open_rate: float | None, concurrency: int) -> dict[str, Any]:
    """A level of any request mix (raw pattern or database transactions)."""
    phases = run_phases(plan, mix, duration_s, open_rate=open_rate, concurrency=concurrency)
    requests = sum(p.x * (p.end_s - p.start_s) for p in phases)
    reads = requests * mix.read_ios_per_request
    writes = requests * mix.write_ios_per_request
    ios = {"read": round(reads), "write": round(writes), "total": round(reads + writes)}
    iops = {k: round(v / duration_s, 1) for k, v in ios.items()}
    extra = mix.extra_latency_s
    lat_all = latency_dist(mix, phases, mix.service.shifted(extra))
    lat_read = latency_dist(mix, phases, mix.read_service.shifted(extra))
    lat_write = latency_dist(mix, phases, mix.write_service.shifted(extra))
    last = phases[-1]
    return {
        "load": load,
        "duration_s": duration_s,
        "ios": ios,
        "iops": iops,
        "achieved_tps": round(requests / duration_s, 3),
        "throughput_mibps": round(requests * mix.bytes_per_request / duration_s / MIB, 2),
        "latency_ms": {"read": summary_ms(lat_read) if mix.read_fraction > 0 else empty_summary(),
                       "write": summary_ms(lat_write) if mix.read_fraction < 1 else empty_summary(),
                       "transaction": summary_ms(lat_all)},
        "utilisation": _utilisation(plan, mix, phases, duration_s),
        "bottleneck": _bottleneck_text(plan, concurrency, phases),
        "engine": "analytic",
        "timeline": _timeline(plan, mix, phases, duration_s),
        "phases": [{"start_s": round(p.start_s, 1), "end_s": round(p.end_s, 1),
                    "iops": round(p.x * mix.data_fraction, 1),
                    "binding": limit_name(plan, p.binding)} for p in phases],
        "mean_in_flight": round(last.x * (lat_all.mean), 3),
        "_dists": {"all": lat_all, "read": lat_read, "write": lat_write,
                   "read_fraction": mix.read_fraction},
    }


def limit_name(plan: SimPlan, l: int) -> str:
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
                f"time; busiest {limit_name(plan, last.binding)} at {busy:.0%})")
    name = limit_name(plan, last.binding)
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


def steady_state(plan: SimPlan, mix: Mix, *, rate: float, duration_s: float) -> SteadyState:
    """Open loop at `rate` requests/s for `duration_s`: the state of the last phase."""
    phases = run_phases(plan, mix, duration_s, open_rate=rate, concurrency=1 << 30)
    last = phases[-1]
    tail = [Phase(start_s=last.start_s, end_s=max(last.end_s, last.start_s + 1.0), x=last.x,
                  wait_s=last.wait_s, binding=last.binding, capacity=last.capacity,
                  backlog_slope=last.backlog_slope, balances_start=last.balances_start,
                  wait_var=last.wait_var)]
    dist = latency_dist(mix, tail, mix.service.shifted(mix.extra_latency_s))
    util = last.x / last.capacity if math.isfinite(last.capacity) else 0.0
    return SteadyState(p99_s=dist.quantile(0.99), p50_s=dist.quantile(0.5), mean_s=dist.mean,
                       utilisation=util if last.backlog_slope <= 0 else rate / last.capacity,
                       binding=limit_name(plan, last.binding), throughput=last.x,
                       backlog=last.backlog_slope > 0)


def read_fraction_over(plan: SimPlan, mix: Mix, *, rate: float, duration_s: float,
                       thresholds_s: tuple[float, ...]) -> list[float]:
    """Share of read requests over each threshold in the last phase (ACT-style screen)."""
    phases = run_phases(plan, mix, duration_s, open_rate=rate, concurrency=1 << 30)
    d = latency_dist(mix, phases[-1:], mix.read_service)
    w = d.weights / d.weights.sum()
    return [float(w[d.values > t].sum()) for t in thresholds_s]
