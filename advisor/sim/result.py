"""Turn a run into the stable result JSON (BRIEF section 6 `simulate` keys), name the bottleneck in
words, and export fio-shaped JSON so simulated and measured runs diff."""

from typing import Any

import numpy as np

from advisor.sim.des import RawLevel
from advisor.sim.plan import KIND_DEVICE, KIND_IOPS, SimPlan

MIB = 2**20
BINDING_UTILISATION = 0.9


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


def _unit(plan: SimPlan, l: int) -> str:
    return "IOPS" if plan.lim_kind[l] == KIND_IOPS else "MiB/s"


def bottleneck(plan: SimPlan, raw: RawLevel, *, concurrency: int | None) -> dict[str, Any]:
    """The binding limit in words a user understands, with the figures behind it."""
    best, best_u = -1, 0.0
    for l in range(plan.n_limits):
        cap = _capacity_used(plan, raw, l)
        u = raw.lim_used[l] / cap if cap > 0 else 0.0
        if u > best_u:
            best, best_u = l, float(u)
    if plan.dev_serial.any():
        busy = float(raw.serial_busy_s.max() / raw.duration_s)
        if busy >= BINDING_UTILISATION and busy >= best_u:
            return {"limit": "device seek time", "kind": "device", "utilisation": round(busy, 4),
                    "text": f"disk seek time: each {plan.profile.name} disk serves one I/O at a "
                            f"time and is {min(busy, 1.0):.0%} busy"}
    if best < 0 or best_u < BINDING_UTILISATION:
        busiest = (f"; busiest limit {plan.limit_names[best]} at {best_u:.0%}" if best >= 0 else "")
        where = f"at queue depth {concurrency}" if concurrency else "at this load"
        return {"limit": None, "kind": "latency", "utilisation": round(best_u, 4),
                "text": f"latency-bound {where}: no rate limit saturated, I/Os wait only for the "
                        f"device's service time ({plan.profile.name}){busiest}"}
    name = plan.limit_names[best]
    each = (f" each x{plan.members}" if plan.limit_scope[best] == "volume" and plan.members > 1
            else "")
    if plan.lim_kind[best] == KIND_DEVICE:
        text = f"{name}: device saturated ({min(best_u, 1.0):.0%} busy)"
        return {"limit": name, "kind": "device", "utilisation": round(best_u, 4), "text": text}
    owner = best if plan.lim_cap[best] > 0 else int(plan.lim_owner[best])
    unit = _unit(plan, best)
    if owner >= 0:
        ex = float(raw.lim_exhaust[owner])
        credit = plan.limit_names[owner]
        if 0 <= ex < raw.duration_s:
            text = (f"{name}: burst credits ({credit}) exhausted at t={ex:,.0f} s; baseline "
                    f"{plan.lim_rate[best]:,.0f} {unit}{each}")
            return {"limit": name, "kind": "burst_exhausted", "utilisation": round(best_u, 4),
                    "exhausted_at_s": round(ex, 1), "text": text}
        left = float(raw.lim_balance_end[owner])
        text = (f"{name} at its burst rate {plan.lim_burst[best]:,.0f} {unit}{each}; credits "
                f"left at the end {left / plan.lim_cap[owner]:.0%}")
        return {"limit": name, "kind": "burst", "utilisation": round(best_u, 4), "text": text}
    lag = backlog_s(plan, raw)
    behind = f"; {lag:,.1f} s of work queued at the end (overloaded)" if lag > 1.0 else ""
    text = (f"{name} at {plan.lim_rate[best]:,.0f} {unit}{each} "
            f"({min(best_u, 1.0):.0%} used){behind}")
    return {"limit": name, "kind": "rate", "utilisation": round(best_u, 4), "text": text}


def timeline(plan: SimPlan, raw: RawLevel) -> list[dict[str, Any]]:
    dt = raw.timeline_dt
    nbins = min(raw.timeline_counts.size, int(np.ceil(raw.duration_s / dt)))
    names = [plan.limit_names[l] for l in raw.tracked]
    primary = next((b for b, l in enumerate(raw.tracked) if plan.limit_scope[l] == "volume"), 0)
    out = []
    for i in range(nbins):
        point: dict[str, Any] = {
            "t_s": round((i + 0.5) * dt, 3),
            "iops": round(float(raw.timeline_counts[i]) / dt, 1),
            "throughput_mibps": round(float(raw.timeline_bytes[i]) / dt / MIB, 2),
            "burst_balance": None,
        }
        if raw.tracked:
            fracs = {n: round(float(raw.timeline_buckets[i, b] / plan.lim_cap[l]), 4)
                     for b, (n, l) in enumerate(zip(names, raw.tracked, strict=True))}
            point["burst_balance"] = fracs[names[primary]]
            point["buckets"] = fracs
        out.append(point)
    return out


def level_json(plan: SimPlan, raw: RawLevel, *, load: dict[str, Any],
               concurrency: int | None) -> dict[str, Any]:
    window = raw.duration_s - raw.warmup_s
    ios = dict(raw.requests)
    iops = {k: round(v / window, 1) for k, v in ios.items()}
    lat = raw.request_latency
    result: dict[str, Any] = {
        "load": load,
        "duration_s": raw.duration_s,
        "ios": ios,
        "iops": iops,
        "throughput_mibps": round(raw.bytes["total"] / window / MIB, 2),
        "latency_ms": {"read": lat["read"].summary_ms(), "write": lat["write"].summary_ms(),
                       "transaction": lat["all"].summary_ms()},
        "device_latency_ms": {k: v.summary_ms() for k, v in raw.io_latency.items()},
        "histogram": lat["all"].histogram(),
        "act": {"reads": lat["read"].act_row()},
        "utilisation": utilisation(plan, raw),
        "bottleneck": bottleneck(plan, raw, concurrency=concurrency)["text"],
        "bottleneck_detail": bottleneck(plan, raw, concurrency=concurrency),
        "engine": raw.engine,
        # Measured by the kernel (time-average over the window), so that Little's law
        # L = lambda x W is something the tests check rather than how L is computed.
        "mean_in_flight": round(raw.mean_in_flight, 3),
    }
    if raw.background_ios:
        result["background"] = {"ios": raw.background_ios,
                                "latency_ms": raw.background_latency.summary_ms(),
                                "lag_s": round(raw.background_lag_s, 4)}
    return result


def fio_json(result: dict[str, Any]) -> dict[str, Any]:
    """fio `--output-format=json`-shaped view of a simulate result, one job per level."""
    jobs = []
    for i, level in enumerate(result["levels"]):
        job: dict[str, Any] = {"jobname": f"{result['layout']}#{i + 1}", "job options": {
            k: str(v) for k, v in level["load"].items()}}
        for op in ("read", "write"):
            pct = level["latency_ms"][op]
            runtime_ms = level["duration_s"] * 1000
            ios = level["ios"][op]
            job[op] = {
                "total_ios": ios, "iops": level["iops"][op], "runtime": round(runtime_ms),
                "io_bytes": None, "bw": None,
                "clat_ns": {
                    "mean": None if pct["mean"] is None else round(pct["mean"] * 1e6),
                    "max": None if pct["max"] is None else round(pct["max"] * 1e6),
                    "percentile": {} if pct["p50"] is None else {
                        "50.000000": round(pct["p50"] * 1e6), "90.000000": round(pct["p90"] * 1e6),
                        "95.000000": round(pct["p95"] * 1e6), "99.000000": round(pct["p99"] * 1e6),
                        "99.900000": round(pct["p999"] * 1e6)},
                },
            }
        jobs.append(job)
    return {"fio version": "advisor-simulated", "jobs": jobs}
