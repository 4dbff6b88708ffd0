"""Credit drain in closed form: a run is a sequence of phases, each with the binding limit's
capacity and the queueing delay it gives, ending when a burst bucket runs dry."""

import math
from dataclasses import dataclass

import numpy as np

from advisor.layout.raid import NONE, RAID0
from advisor.sim.analytic.dist import GRID, Dist, convolve, gamma, grid, mixture
from advisor.sim.analytic.mix import Mix
from advisor.sim.analytic.mva import binding_capacity, closed_loop, stations
from advisor.sim.analytic.queues import (
    alike_stations,
    closed_split,
    disk_wait,
    member_spread,
    open_split,
    split_mean,
)
from advisor.sim.plan import KIND_DEVICE, SimPlan


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
    rates: tuple[float, ...] = ()  # every limit's rate in force (burst or sustained)
    # Raw patterns on a device with a write-back cache: a read's wait and a write's
    # (`open_split`, `closed_split`); None: every request waits `wait_s`.
    split: "tuple[Dist, Dist] | None" = None
    # The wait's spread where it is known (a closed loop over the members' queues,
    # `member_spread`; an open loop at HDD disks, `disk_wait`); None: every request waits
    # `wait_s`, or a gamma with `wait_var`.
    wait_dist: Dist | None = None


def run_phases(plan: SimPlan, mix: Mix, duration_s: float, *, open_rate: float | None,
            concurrency: int) -> list[Phase]:
    buckets = [l for l in range(plan.n_limits) if plan.lim_cap[l] > 0]
    bal = {l: float(plan.lim_init[l]) for l in buckets}
    exhausted: set[int] = set()
    phases: list[Phase] = []
    t = 0.0
    cs2 = 0.28 if plan.dev_serial[0] else 0.0
    while t < duration_s:
        cap, binding = binding_capacity(plan, mix, exhausted)
        d = 1.0 / cap if math.isfinite(cap) else math.inf
        # On serial devices the service time is spent at the station, not as a delay.
        z = mix.service.mean - (mix.serial_seconds if plan.dev_serial[0] else 0.0)
        slope = 0.0
        spread: Dist | None = None
        if open_rate is not None:  # an open loop, idle at a rate of 0
            lam = max(0.0, open_rate)
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
                elif binding == -1 and plan.raid in (NONE, RAID0) and total_ios > 0:
                    # HDD disks: each I/O queues at the one disk it goes to (an M/G/1 queue
                    # per disk at the same utilisation), not at the members pooled into one
                    # server twice as fast, which halved the waits (RAID 0 of 2 disks at half
                    # their capacity: p99 -30 % against the event simulation).
                    d_io = mix.serial_seconds / total_ios
                theta = d_io * (1 + cs2) / (2 * (1 - rho))
                # A limit lets an I/O start up to its tolerance early: only backlogs beyond it
                # wait, which thins the chance of waiting by exp(-tau / theta).
                tau = float(plan.tolerance_s[binding]) if binding >= 0 else 0.0
                p_wait = rho * math.exp(-tau / theta) if theta > 0 else 0.0
                wait = n_fg * p_wait * theta
                wait_var = n_fg * (2 * p_wait * theta**2 - (p_wait * theta) ** 2)
                split = open_split(mix, rho, theta, tau, _ahead(plan, mix, binding))
                if split is not None:
                    wait, wait_var = split_mean(mix, split), 0.0
                elif binding == -1 and n_fg == 1 and not mix.classes:
                    spread = disk_wait(plan, mix, x)
                    if spread is not None:
                        wait, wait_var = spread.mean, 0.0
            else:
                x, wait, slope = cap, 0.0, lam / cap - 1
                split = None
        else:
            x, wait = closed_loop(concurrency, stations(plan, mix, exhausted),
                                   max(z + mix.extra_latency_s, 1e-9))
            if plan.dev_serial[0]:
                wait = max(0.0, wait - mix.serial_seconds)
            split = closed_split(mix, wait, _ahead(plan, mix, binding), concurrency,
                                 max(z + mix.extra_latency_s, 1e-9),
                                 alike_stations(plan, mix, binding))
            spread = member_spread(plan, mix, binding, cap, concurrency, wait) \
                if split is None else None
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
                            wait_var=wait_var if open_rate is not None else 0.0,
                            rates=tuple(plan.rate_in_force(l, exhausted)
                                        for l in range(plan.n_limits)), split=split,
                            wait_dist=spread))
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


def load_at(plan: SimPlan, mix: Mix, *, rate: float, duration_s: float) -> tuple[float, bool]:
    """(utilisation of the binding limit, backlog) in the last phase of an open loop at `rate`
    requests/s: what `steady_state` reports of them, without its latency distributions (the
    costly part), for searches that reject a saturated load before asking its latency."""
    last = run_phases(plan, mix, duration_s, open_rate=rate, concurrency=1 << 30)[-1]
    if last.backlog_slope > 0:
        return rate / last.capacity, True
    return (last.x / last.capacity if math.isfinite(last.capacity) else 0.0), False


def _ahead(plan: SimPlan, mix: Mix, binding: int) -> float:
    """The binding limit's write-ahead (a device's write-back cache, s) where the split of
    reads' and writes' waits applies: raw patterns (a request is one I/O), not transactions."""
    if mix.classes or binding < 0 or plan.lim_kind[binding] != KIND_DEVICE:
        return 0.0
    return float(plan.dev_wcache_s[0]) if plan.dev_wcache_s.size else 0.0


def latency_dist(mix: Mix, phases: list[Phase], service: Dist, op: int | None = None) -> Dist:
    """Request time over the run's phases: `service` plus each phase's wait (`op` 0 read, 1
    write: that op's wait where the phase splits them)."""
    parts = []
    for ph in phases:
        n = ph.x * (ph.end_s - ph.start_s)
        if n <= 0:
            continue
        if op is not None and ph.split is not None and ph.backlog_slope <= 0:
            parts.append((n, convolve(service, ph.split[op])))
            continue
        if ph.backlog_slope > 0:
            # Backlog grows linearly: waits spread evenly between the phase's start and end.
            u = grid()
            t = ph.start_s + u * (ph.end_s - ph.start_s)
            waits = Dist(ph.backlog_slope * t, np.full(GRID, 1.0 / GRID))
            parts.append((n, convolve(service, waits)))
        elif ph.wait_dist is not None:
            parts.append((n, convolve(service, ph.wait_dist)))
        elif ph.wait_var > 0 and ph.wait_s > 0:
            parts.append((n, convolve(service, gamma(ph.wait_s, ph.wait_var))))
        else:
            parts.append((n, service.shifted(ph.wait_s)))
    return mixture(parts) if parts else service
