"""`simulate`: one core call shared by the CLI and the API. Builds the plan, runs every ramp level
on the chosen engine, and returns the typed result (`advisor.sim.results.PatternResult`)."""

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.model import Layout
from advisor.sim.des import run_des
from advisor.sim.latency_detail import des_detail
from advisor.sim.plan import SimPlan, compile_plan
from advisor.sim.result import des_level
from advisor.sim.results import Level, Load, PatternResult, PatternSummary, Ramp
from advisor.sim.source import IoPattern

Engine = Literal["des", "analytic", "auto"]
RAMP_KEYS = ("iodepth", "threads", "rate", "tps", "x")
# DES budget for engine=auto: above this many simulated I/Os the analytic engine answers.
AUTO_DES_BUDGET = 30_000_000
ProgressFn = Callable[[int, float], None]  # (level index, fraction done)


def over_budget(estimate: float, budget: float) -> InvalidInput:
    """The refusal of a request that would simulate more I/Os than `budget` allows."""
    return InvalidInput(f"this request would simulate about {estimate:,.0f} I/Os, over the "
                        f"limit of {budget:,.0f}: shorten --duration, use fewer ramp levels or "
                        "engine=analytic")


def parse_ramp(text: str, allowed: tuple[str, ...] = ("iodepth", "threads", "rate")) -> Ramp:
    """'iodepth=1,2,4', 'threads=1,8,64', 'rate=1000,5000' (IOPS, open loop), 'tps=100,200'
    (database transactions/s, open loop) or 'x=1,2,5' (ACT load multiples)."""
    key, sep, rest = text.partition("=")
    key = key.strip().lower()
    if not sep or key not in allowed:
        examples = {"iodepth": "iodepth=1,2,4", "threads": "threads=1,8,64",
                    "rate": "rate=1000,2000", "tps": "tps=100,200,400", "x": "x=1,2,5,10"}
        raise InvalidInput(f"--ramp {text!r}: write "
                           f"{' or '.join(examples[k] for k in allowed)}")
    try:
        values = tuple(float(v) for v in rest.split(",") if v.strip())
    except ValueError:
        raise InvalidInput(f"--ramp {text!r}: values must be numbers separated by commas") from None
    if not all(math.isfinite(v) for v in values):
        raise InvalidInput(f"--ramp {text!r}: values must be finite numbers")
    if not values or any(v <= 0 for v in values):
        raise InvalidInput(f"--ramp {text!r}: give one or more positive values")
    if len(values) > 64:
        raise InvalidInput(f"--ramp {text!r}: at most 64 levels")
    if key in ("iodepth", "threads") and any(v != int(v) or v > 4096 for v in values):
        raise InvalidInput(f"--ramp {text!r}: {key} values are whole numbers up to 4096")
    return Ramp(key=key, values=values)  # type: ignore[arg-type]


def pattern_levels(base: IoPattern, ramp: Ramp | None) -> list[tuple[IoPattern, Load]]:
    """One pattern per load level, with the load as the user named it."""
    if ramp is None:
        load: Load = {"threads" if base.name.startswith("sysbench") else "iodepth":
                                base.concurrency}
        if base.open_rate:
            load["rate_iops"] = base.open_rate
        return [(base, load)]
    out = []
    for v in ramp.values:
        if ramp.key == "rate":
            out.append((replace(base, open_rate=v, concurrency=max(base.concurrency, 4096)),
                        {"rate_iops": v}))
        else:
            out.append((replace(base, concurrency=int(v)), {ramp.key: int(v)}))
    return out


def _estimate_ios(plan: SimPlan, pattern: IoPattern, duration_s: float) -> float:
    """Work the DES would do: I/Os served, or in an open loop every arrival it generates (past
    saturation they queue, and each still costs an event)."""
    from advisor.sim.analytic import saturation_iops

    if pattern.open_rate:
        return pattern.open_rate * duration_s
    return saturation_iops(plan, pattern) * duration_s


def simulate_pattern(layout: Layout, catalog: Catalog, pattern: IoPattern, *,
                     ramp: Ramp | None = None, duration_s: float = 60.0,
                     engine: Engine = "auto", seed: int = 1, warmup_s: float = 0.0,
                     progress: ProgressFn | None = None,
                     io_budget: float | None = None) -> PatternResult:
    """Simulate a raw I/O pattern on a layout at one or more load levels."""
    if duration_s <= 0 or duration_s > 7 * 86400:
        raise InvalidInput(f"--duration {duration_s:g}: must be between 0 and 604800 s (7 days)")
    if not 0 <= warmup_s < duration_s:
        raise InvalidInput(f"--warmup {warmup_s:g}: must be at least 0 and below the duration")
    cap_gib = usable_capacity_gib(layout)
    span = min(pattern.span_bytes, int(cap_gib * 2**30))
    pattern = replace(pattern, span_bytes=max(span, pattern.block_bytes))
    plan = compile_plan(layout, catalog)
    levels = pattern_levels(pattern, ramp)
    estimates = [_estimate_ios(plan, p, duration_s) for p, _ in levels]
    if io_budget is not None and engine != "analytic" and sum(estimates) > io_budget:
        raise over_budget(sum(estimates), io_budget)
    results: list[Level] = []
    for i, ((pat, load), estimate) in enumerate(zip(levels, estimates, strict=True)):
        use = engine
        if engine == "auto":
            use = "des" if estimate <= AUTO_DES_BUDGET / max(1, len(levels)) else "analytic"
        if use == "des":
            def tick(frac: float, i: int = i) -> None:
                if progress is not None:
                    progress(i, frac)
            raw = run_des(plan, pat, duration_s=duration_s, seed=seed + i, warmup_s=warmup_s,
                          progress=tick)
            level = replace(des_level(plan, raw, load=load, queue_depth=pat.concurrency),
                            latency_detail=des_detail(raw.request_latency))
        else:
            from advisor.sim.analytic import analytic_level

            level = analytic_level(plan, pat, duration_s=duration_s, load=load)
            if progress is not None:
                progress(i, 1.0)
        results.append(level)
    last = results[-1]
    return PatternResult(
        layout=str(layout.spec),
        pattern=PatternSummary(name=pattern.name, read_fraction=pattern.read_fraction,
                               random=pattern.random, block_bytes=pattern.block_bytes,
                               concurrency=pattern.concurrency, span_bytes=pattern.span_bytes,
                               rate_iops=pattern.open_rate,
                               fsync_every_writes=pattern.fsync_every_writes),
        ramp=ramp, duration_s=duration_s, warmup_s=warmup_s, ios=last.ios, iops=last.iops,
        throughput_mibps=last.throughput_mibps, latency_ms=last.latency_ms,
        bottleneck=last.bottleneck, timeline=last.timeline, levels=tuple(results),
        engine=tuple(sorted({r.engine for r in results})), seed=seed, notes=tuple(plan.notes),
        model_version=MODEL_VERSION, advisor_version=__version__,
        catalog_version=catalog.catalog_version)
