"""Credit drain in closed form: a run is a sequence of phases, each with the binding limit's
capacity and the queueing delay it gives, ending when a burst bucket runs dry."""

import math
from dataclasses import dataclass

import numpy as np

from advisor.sim.analytic.dist import GRID, Dist, convolve, gamma, grid, mixture
from advisor.sim.analytic.mix import Mix
from advisor.sim.analytic.mva import binding_capacity, closed_loop, stations
from advisor.sim.plan import SimPlan


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
            x, wait = closed_loop(concurrency, stations(plan, mix, exhausted),
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
                            wait_var=wait_var if open_rate else 0.0,
                            rates=tuple(plan.rate_in_force(l, exhausted)
                                        for l in range(plan.n_limits))))
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


def latency_dist(mix: Mix, phases: list[Phase], service: Dist) -> Dist:
    parts = []
    for ph in phases:
        n = ph.x * (ph.end_s - ph.start_s)
        if n <= 0:
            continue
        if ph.backlog_slope > 0:
            # Backlog grows linearly: waits spread evenly between the phase's start and end.
            u = grid()
            t = ph.start_s + u * (ph.end_s - ph.start_s)
            waits = Dist(ph.backlog_slope * t, np.full(GRID, 1.0 / GRID))
            parts.append((n, convolve(service, waits)))
        elif ph.wait_var > 0 and ph.wait_s > 0:
            parts.append((n, convolve(service, gamma(ph.wait_s, ph.wait_var))))
        else:
            parts.append((n, service.shifted(ph.wait_s)))
    return mixture(parts) if parts else service
