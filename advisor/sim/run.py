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
from advisor.sim.source import DIRTY_RATIO, MERGE_BYTES, WRITEBACK_BATCH_BYTES, IoPattern

Engine = Literal["des", "analytic", "auto"]
RAMP_KEYS = ("iodepth", "threads", "rate", "tps", "x")
# DES budget for engine=auto: above this many simulated I/Os the analytic engine answers.
AUTO_DES_BUDGET = 30_000_000
ProgressFn = Callable[[int, float], None]  # (level index, fraction done)

# The work one request may ask for, estimated before any is done and counted in simulated I/Os
# (the event simulation's unit of work: about 1 M a second on one core). Every caller is bound by
# MAX_IO_BUDGET (the CLI: about a quarter of an hour); the API sets a smaller one. An analytic
# level is charged the I/Os the event simulation runs in the time it takes (bench/: a raw pattern
# about 0.02 s, a MySQL level about 0.2 s; a MySQL closed-loop level solves about 15 MySQL levels
# to find the rate its threads sustain).
MAX_IO_BUDGET = 1e9
ANALYTIC_PATTERN_IOS = 20_000
ANALYTIC_MYSQL_IOS = 200_000
THREADS_LEVEL_IOS = 40 * ANALYTIC_MYSQL_IOS


def over_budget(estimate: float, budget: float, *, field: str = "duration",
                value: object = None, analytic: bool = True) -> InvalidInput:
    """The refusal of a request that would cost more than `budget` simulated I/Os, naming the
    option that sets the cost (the duration by default, else the ramp or the open-loop rate);
    it suggests the analytic engine only where the workload has one (`analytic`)."""
    from advisor.options import FieldError

    return FieldError(field, value, f"this request's work is about {estimate:,.0f} simulated "
                      f"I/Os, over the limit of {budget:,.0f}: shorten the duration, use fewer "
                      "or lower load levels" + (", or the analytic engine" if analytic else ""))


def check_budget(estimate: float, budget: float | None, *, duration_s: float,
                 ramp: "Ramp | str | None" = None, rate: float | None = None,
                 analytic: bool = True) -> None:
    """Raise `over_budget` when `estimate` exceeds `budget` (None: MAX_IO_BUDGET); the field
    named is the ramp when there is one, else the open-loop rate, else the duration.
    `analytic`: whether the workload can run on the analytic engine instead."""
    limit = MAX_IO_BUDGET if budget is None else min(budget, MAX_IO_BUDGET)
    if not estimate <= limit:  # NaN counts as over
        if ramp is not None:
            from advisor.options import plain_number

            text = ramp if isinstance(ramp, str) else \
                f"{ramp.key}={','.join(plain_number(v) for v in ramp.values)}"
            raise over_budget(estimate, limit, field="ramp", value=text, analytic=analytic)
        if rate:
            raise over_budget(estimate, limit, field="rate_iops", value=rate, analytic=analytic)
        raise over_budget(estimate, limit, field="duration", value=duration_s,
                          analytic=analytic)


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


# The page cache gets what the instance's RAM leaves: an assumption (unsourced) that the
# kernel, the tool and other processes hold a fifth of it.
PAGE_CACHE_SHARE = 0.8


def with_page_cache(pattern: IoPattern, layout: Layout) -> IoPattern:
    """The buffered pattern with its page cache sized from the instance's RAM."""
    if not pattern.buffered or layout.instance is None:
        return replace(pattern, buffered=False)
    return replace(pattern, cache_bytes=int(layout.instance.memory_gib * 2**30
                                            * PAGE_CACHE_SHARE))


def _estimate_ios(plan: SimPlan, pattern: IoPattern, duration_s: float) -> float:
    """Work the DES would do: I/Os served, or in an open loop every arrival it generates (past
    saturation they queue, and each still costs an event)."""
    from advisor.sim.analytic import saturation_iops

    if pattern.open_rate:
        return pattern.open_rate * duration_s
    if pattern.buffered:
        return _estimate_buffered(plan, pattern, duration_s)
    # every I/O in flight is issued before the first completes
    return saturation_iops(plan, pattern) * duration_s + pattern.concurrency


def _estimate_buffered(plan: SimPlan, pattern: IoPattern, duration_s: float) -> float:
    """Requests of a buffered pattern: hits run at memory speed, one per thread at a time; a read
    that misses waits for the device; a write's page reaches the device at an fsync or at the
    dirty limit (pages merged up to MERGE_BYTES where sequential, pages written again between
    fsyncs once), so past the dirty limit's worth writes run at most at the device's write rate
    times the pages each device I/O carries. An upper bound, for the work budget."""
    from advisor.sim.analytic import saturation_iops

    memory = pattern.concurrency / (pattern.hit_us * 1e-6)
    direct = replace(pattern, buffered=False)
    miss = 1.0 - pattern.hit_ratio
    reads = memory if miss <= 0 else min(memory, saturation_iops(plan, direct) / miss)
    span_pages = max(1, pattern.span_bytes // pattern.block_bytes)
    dirty_pages = pattern.dirty_limit_bytes // pattern.block_bytes
    every = pattern.fsync_every_writes
    if every <= 0 and span_pages <= dirty_pages:  # the whole file stays dirty in the cache
        writes = memory
    else:
        flush = saturation_iops(plan, replace(direct, read_fraction=0.0,
                                              concurrency=max(pattern.concurrency, 1024)))
        merged = 1 if pattern.random else max(1, MERGE_BYTES // pattern.block_bytes)
        rewritten = max(1.0, every / span_pages) if every > 0 else 1.0
        writes = min(memory, flush * merged * rewritten)
    f = pattern.read_fraction
    rate = 1.0 / (f / reads + (1.0 - f) / writes)
    return rate * duration_s + (1.0 - f) * dirty_pages + pattern.concurrency


def level_engines(estimates: list[float], engine: Engine) -> list[str]:
    """The engine each level runs on: engine=auto simulates events while a level's share of
    AUTO_DES_BUDGET allows, else answers analytically."""
    if engine != "auto":
        return [engine] * len(estimates)
    share = AUTO_DES_BUDGET / max(1, len(estimates))
    return ["des" if e <= share else "analytic" for e in estimates]


def simulate_pattern(layout: Layout, catalog: Catalog, pattern: IoPattern, *,
                     ramp: Ramp | None = None, duration_s: float = 60.0,
                     engine: Engine = "auto", seed: int = 1, warmup_s: float = 0.0,
                     progress: ProgressFn | None = None,
                     io_budget: float | None = None) -> PatternResult:
    """Simulate a raw I/O pattern on a layout at one or more load levels; a request whose work
    estimate is over `io_budget` simulated I/Os (None: MAX_IO_BUDGET) is refused first."""
    if duration_s <= 0 or duration_s > 7 * 86400:
        raise InvalidInput(f"--duration {duration_s:g}: must be between 0 and 604800 s (7 days)")
    if not 0 <= warmup_s < duration_s:
        raise InvalidInput(f"--warmup {warmup_s:g}: must be at least 0 and below the duration")
    cap_gib = usable_capacity_gib(layout)
    span = min(pattern.span_bytes, int(cap_gib * 2**30))
    pattern = replace(pattern, span_bytes=max(span, pattern.block_bytes))
    if pattern.buffered:
        pattern = with_page_cache(pattern, layout)
        if engine == "analytic":
            raise InvalidInput("the analytic engine models direct I/O only: buffered I/O "
                               "through the page cache (sysbench's default, fio --direct 0) "
                               "needs --engine des or auto, or ask for direct I/O")
        engine = "des"
    plan = compile_plan(layout, catalog)
    levels = pattern_levels(pattern, ramp)
    estimates = [_estimate_ios(plan, p, duration_s) for p, _ in levels]
    engines = level_engines(estimates, engine)
    cost = sum(e if use == "des" else ANALYTIC_PATTERN_IOS
               for e, use in zip(estimates, engines, strict=True))
    check_budget(cost, io_budget, duration_s=duration_s, ramp=ramp, rate=pattern.open_rate)
    results: list[Level] = []
    for i, ((pat, load), use) in enumerate(zip(levels, engines, strict=True)):
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
        engine=tuple(sorted({r.engine for r in results})), seed=seed,
        notes=tuple(plan.notes) + _cache_notes(pattern),
        model_version=MODEL_VERSION, advisor_version=__version__,
        catalog_version=catalog.catalog_version)


def _cache_notes(pattern: IoPattern) -> tuple[str, ...]:
    if not pattern.buffered:
        return ()
    how = ("sequential reads a readahead window at a time" if not pattern.random
           else f"{pattern.hit_ratio:.0%} of random reads hit")
    return (f"buffered I/O through a {pattern.cache_bytes / 2**30:,.1f} GiB page cache "
            f"({PAGE_CACHE_SHARE:.0%} of the instance's RAM): {how}; writes reach the device "
            + (f"at each fsync (every {pattern.fsync_every_writes} writes), merged where "
               "sequential, and " if pattern.fsync_every_writes else "")
            + f"whenever the dirty pages reach the dirty limit ({DIRTY_RATIO:.0%} of the cache, "
            f"{pattern.dirty_limit_bytes / 2**30:,.1f} GiB; Linux's vm.dirty_ratio default): "
            f"the writer waits while the oldest {WRITEBACK_BATCH_BYTES // 2**20} MiB are written "
            "back, merged where sequential; IOPS count the tool's reads and writes",)
