"""Queueing at the limits: the binding limit's capacity, and mean value analysis of a closed
loop of clients through pacing stations (rate limits) and serving stations (serial devices)."""

import math
from dataclasses import dataclass

import numpy as np

from advisor.sim.analytic.mix import Mix
from advisor.sim.plan import KIND_DEVICE, SimPlan


def binding_capacity(plan: SimPlan, mix: Mix, exhausted: set[int]) -> tuple[float, int]:
    """Requests/s the binding limit allows, and its index (-1 = serial device)."""
    best, arg = math.inf, -2
    for l in range(plan.n_limits):
        if mix.cost[l] <= 0:
            continue
        x = plan.rate_in_force(l, exhausted) / mix.cost[l]
        if x < best:
            best, arg = x, l
    if mix.serial_seconds > 0:
        x = plan.members / mix.serial_seconds
        if x < best:
            best, arg = x, -1
    return best, arg


MVA_MAX_STEPS = 100_000  # clients the mean value analysis adds one at a time, at most


@dataclass(frozen=True, slots=True)
class Station:
    demand_s: float  # seconds of this station per request
    pacer: bool  # a rate limit (the request leaves at its token) vs a serving device
    residual: float  # mean residual fraction of a busy period seen on arrival


def stations(plan: SimPlan, mix: Mix, exhausted: set[int]) -> list[Station]:
    out = []
    for l in range(plan.n_limits):
        if mix.cost[l] <= 0:
            continue
        rate = plan.rate_in_force(l, exhausted)
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


def closed_loop(q: int, stations: list[Station], z: float) -> tuple[float, float]:
    """(throughput, mean queueing delay) of `q` clients cycling through a delay `z` and the
    stations (mean value analysis; Little's law holds on the result). The recursion adds one
    client at a time and stops early, exactly, once the throughput reaches the bottleneck's
    capacity (more clients only queue). It adds MVA_MAX_STEPS clients at most: past them the
    residence time is held at its last value (it only grows with the population, so the
    throughput taken is an upper bound, capped at the capacity), which keeps the work bounded
    for any population."""
    if not stations:
        return q / z, 0.0
    d = np.array([s.demand_s for s in stations])
    pacer = np.array([s.pacer for s in stations])
    resid = np.array([s.residual for s in stations])
    queue = np.zeros(d.size)
    util = np.zeros(d.size)
    x = 0.0
    cap = 1.0 / d.max()
    residence = 0.0
    for n in range(1, min(q, MVA_MAX_STEPS) + 1):
        waiting = np.maximum(0.0, queue - util)
        wait = d * waiting + util * d * resid
        resid_time = np.where(pacer, wait, wait + d)
        residence = float(resid_time.sum())
        x = min(n / (z + residence), cap)
        if x >= cap:
            break
        queue = x * (wait + d)
        util = np.minimum(1.0, x * d)
    if q > MVA_MAX_STEPS:
        x = min(q / (z + residence), cap)
    delay = max(0.0, q / x - z)
    return x, delay


def saturation(mix: Mix, cap: float, concurrency: int) -> float:
    if not math.isfinite(cap):
        cap = concurrency / max(mix.service.mean, 1e-9)
    return min(cap, concurrency / max(mix.service.mean, 1e-9)) * mix.data_fraction
