"""Storage only, on a given instance: which layouts serve a measured I/O demand (one CloudWatch
sample, `workloads.cloudwatch`) within an I/O latency bound, the cheapest first, with the layout in
use now judged the same way.

The sample becomes an open-loop random pattern (Poisson arrivals at its IOPS, its read share, its
average I/O size rounded up to 4 KiB) over the data, simulated on each candidate by the analytic
engine for as long as the load stayed near that sample (`Demand.peak_run_s`: burst credits must
last that long; at least a minute). A layout
fits when every I/O's p99 (reads and writes) is within the bound, no limit is saturated and no
credit bucket runs dry over the whole measured series (`dry_bucket`: each sample's I/Os charged
as the layout charges them, the bucket starting full as AWS starts one): a peak judged on burst
credits alone says nothing of the hours before it. The candidates are the recommender's own grid
(`recommend.candidates`) on that one instance type."""

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError, InvalidInput, UnknownInstance
from advisor.layout.cost import layout_cost
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.model import Layout, resolve
from advisor.sim.analytic.mix import io_charge
from advisor.sim.plan import KIND_MIB, SimPlan, compile_plan
from advisor.sim.run import simulate_pattern
from advisor.sim.source import IoPattern
from recommend.candidates import Demand, candidate_specs
from workloads.cloudwatch import Sample

OPEN_LOOP_IN_FLIGHT = 4096  # the most I/Os the open loop keeps in flight (fio's ramp uses it too)
SHOWN = 5
MIN_JUDGED_S = 60  # a layout is simulated over the peak's run, and at least this long


@dataclass(frozen=True, slots=True, kw_only=True)
class FitRow:
    layout: str
    monthly_usd: float  # instance + storage
    storage_usd: float
    read_p99_ms: float
    write_p99_ms: float
    busiest: str
    utilisation: float
    capacity_gib: float
    fits: bool
    why: str  # why not ("" when it fits)

    @property
    def p99_ms(self) -> float:
        return max(self.read_p99_ms, self.write_p99_ms)


@dataclass(frozen=True, slots=True, kw_only=True)
class StorageFit:
    instance: str
    p99_ms: float  # the bound
    capacity_gib: float
    sample: Sample
    peak_s: int
    block_bytes: int
    recommendation: FitRow | None
    alternatives: tuple[FitRow, ...]
    rejected: tuple[FitRow, ...]  # the cheapest that do not fit
    current: FitRow | None
    considered: int  # layouts on the instance that hold the data
    judged: int  # of them simulated, cheapest first, until SHOWN fit
    judged_over_s: float  # each simulated this long: the peak's run, at least a minute


def storage_fit(catalog: Catalog, instance: str, sample: Sample, *, peak_s: int,
                p99_ms: float, capacity_gib: float, current: str | None = None,
                allow_store: bool = False, series: Sequence[Sample] = (), period_s: int = 0,
                progress: Callable[[int], None] | None = None) -> StorageFit:
    """Every candidate layout on `instance` judged at `sample`, cheapest first; with `series`
    (every sample, `period_s` apart), also on its credit buckets over the whole of it."""
    inst = catalog.instance_types.get(instance)
    if inst is None:
        raise UnknownInstance(f"instance type {instance} is not in the catalog (advisor catalog "
                              "instances lists them)")
    if sample.iops <= 0:
        raise InvalidInput("the sample has no I/O: nothing to size")
    share = sample.read_iops / sample.iops
    kib = share * sample.read_kib + (1 - share) * sample.write_kib
    block = int(_rounded(kib))
    pattern = IoPattern(name="cloudwatch sample", read_fraction=share, random=True,
                        block_bytes=block, concurrency=OPEN_LOOP_IN_FLIGHT,
                        span_bytes=int(capacity_gib * 2**30), open_rate=sample.iops)
    duration = float(max(peak_s, MIN_JUDGED_S))
    current_row = None
    if current is not None:
        try:
            layout = resolve(current, catalog)
        except AdvisorError as exc:
            raise InvalidInput(f"--current-layout: {exc}") from None
        current_row = _judge(layout, catalog, pattern, duration, p99_ms, capacity_gib,
                             series, period_s)
    one = dataclasses.replace(catalog, instance_types={instance: inst})
    demand = Demand(iops=sample.iops, mibps=sample.mibps, capacity_gib=capacity_gib)
    specs = sorted({str(s) for s in candidate_specs(one, demand, ebs=True, store=allow_store,
                                                     min_vcpu=0)})
    layouts = []
    for spec in specs:
        try:
            layouts.append(resolve(spec, catalog))
        except AdvisorError:
            continue  # outside a limit the grid does not know (e.g. a size cap)
    layouts.sort(key=lambda x: (layout_cost(x).monthly_usd, str(x)))
    fits: list[FitRow] = []
    rejected: list[FitRow] = []
    judged = 0
    for layout in layouts:
        if len(fits) >= SHOWN:
            break
        row = _judge(layout, catalog, pattern, duration, p99_ms, capacity_gib, series,
                     period_s)
        (fits if row.fits else rejected).append(row)
        judged += 1
        if progress is not None:
            progress(judged)
    return StorageFit(instance=instance, p99_ms=p99_ms, capacity_gib=capacity_gib, sample=sample,
                      peak_s=peak_s, block_bytes=block,
                      recommendation=fits[0] if fits else None, alternatives=tuple(fits[1:SHOWN]),
                      rejected=tuple(rejected[:SHOWN]), current=current_row,
                      considered=len(layouts), judged=judged, judged_over_s=duration)


def dry_bucket(plan: SimPlan, series: Sequence[Sample], period_s: int) -> str | None:
    """Where a credit bucket of the plan first runs dry over the measured series, in words, or
    None: each bucket starts full and, period by period, earns its baseline and spends what the
    period's reads and writes (each of its average size, rounded up to 4 KiB, at random offsets)
    cost it through the layout's accounting (RAID fan-out, I/O units)."""
    buckets = plan.bucket_limits()
    if not buckets or period_s <= 0:
        return None
    balance = {l: float(plan.lim_cap[l]) for l in buckets}
    for s in series:
        read = io_charge(plan, 0, _rounded(s.read_kib), True)
        write = io_charge(plan, 1, _rounded(s.write_kib), True)
        for l in buckets:
            spend = s.read_iops * float(read[l]) + s.write_iops * float(write[l])
            earn = float(plan.lim_earn[l])
            balance[l] = min(float(plan.lim_cap[l]), balance[l] + (earn - spend) * period_s)
            if balance[l] < 0:
                unit = "MiB/s" if plan.lim_kind[l] == KIND_MIB else "IOPS"
                return (f"{plan.limit_names[l]}: its burst credits run dry at {s.at} over the "
                        f"measured series (it needs {_figure(spend)} {unit} there, its baseline "
                        f"is {_figure(earn)})")
    return None


def _figure(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def _rounded(kib: float) -> float:
    """An average I/O size in bytes, rounded up to 4 KiB (as the judged pattern's)."""
    return float(max(4096, math.ceil(kib * 1024 / 4096) * 4096))


def _judge(layout: Layout, catalog: Catalog, pattern: IoPattern, duration_s: float,
           p99_ms: float, capacity_gib: float, series: Sequence[Sample] = (),
           period_s: int = 0) -> FitRow:
    level = simulate_pattern(layout, catalog, pattern, duration_s=duration_s,
                             engine="analytic").levels[-1]
    lat = level.latency_ms
    read = lat.read.p99 if lat.read.p99 is not None else 0.0
    write = lat.write.p99 if lat.write.p99 is not None else 0.0
    busiest, used = max(((k, float(v)) for k, v in level.utilisation.items()),
                        key=lambda kv: kv[1], default=("-", 0.0))
    cap = usable_capacity_gib(layout)
    why = []
    if cap < capacity_gib:
        why.append(f"{cap:,.0f} GiB usable, {capacity_gib:,.0f} needed")
    if used >= 1:
        why.append(f"{busiest} saturated")
    elif max(read, write) > p99_ms:  # (saturated: the p99 only says how far the queue grew)
        why.append(f"p99 {max(read, write):,.2f} ms over {p99_ms:g} ms")
    dry = dry_bucket(compile_plan(layout, catalog), series, period_s) if series else None
    if dry:
        why.append(dry)
    cost = layout_cost(layout)
    return FitRow(layout=str(layout.spec), monthly_usd=round(cost.monthly_usd, 2),
                  storage_usd=round(cost.storage_usd, 2), read_p99_ms=round(read, 4),
                  write_p99_ms=round(write, 4), busiest=busiest, utilisation=round(used, 4),
                  capacity_gib=round(cap, 1), fits=not why, why="; ".join(why))
