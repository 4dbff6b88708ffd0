"""The limit that binds a run, in one wording for both engines.

Each engine finds the facts its own way (the event simulation from what the limiters served,
the analytic engine from its last phase) and returns them as a `Binding`; `binding_text`
words them and `detail` makes the result's `bottleneck_detail`.
"""

from dataclasses import dataclass
from typing import Literal

from advisor.sim.plan import KIND_IOPS, KIND_MIB, SimPlan
from advisor.sim.results import BottleneckDetail

BINDING_UTILISATION = 0.9  # a limit this busy binds; below it the run is latency-bound
OVERLOAD_QUEUED_S = 1.0  # work queued at the end beyond this reads as overloaded
# Open-loop runs keep up to this many requests in flight (`advisor.sim.run.pattern_levels`):
# a cap on connections, not a queue depth the user chose.
OPEN_LOOP_SLOTS = 4096
SEEK = "device seek time"


@dataclass(frozen=True, slots=True, kw_only=True)
class Binding:
    """What binds a run and the figures its wording needs."""

    kind: Literal["seek", "device", "latency", "burst_exhausted", "burst", "rate"]
    limit: str | None  # the binding limit; None when latency-bound
    utilisation: float  # of the binding limit (latency-bound: of the busiest), 0..1
    device: str  # the device profile's name
    rate: float = 0.0  # the limit's rate in `unit`: baseline, or the burst rate (burst)
    unit: str = "IOPS"
    members: int = 1  # RAID members that each have this limit
    credit: str | None = None  # the burst bucket that ran dry (burst_exhausted)
    exhausted_at_s: float | None = None
    credits_left: float = 0.0  # share of the bucket left at the end (burst)
    queued_s: float = 0.0  # work queued at the end (rate)
    queue_depth: int | None = None  # requests kept in flight, if the user chose how many
    busiest: str | None = None  # latency-bound: the busiest limit, if any
    # A MiB/s limit that counts each random I/O as whole units of this many KiB (HDD volumes:
    # 1 MiB), so its MiB/s are not the bytes moved; 0: it counts bytes.
    io_unit_kib: float = 0.0


def binding_text(b: Binding) -> str:
    """A run's (a level's) binding limit in words a user understands. Not a deployment's
    bottlenecks at its headroom load: `recommend.result.bottleneck_text` words those."""
    each = f" each x{b.members}" if b.members > 1 else ""
    if b.io_unit_kib > 0 and b.unit == "MiB/s":  # MiB/s as charged, not the bytes moved
        each += f" (it counts each random I/O as {_kib_text(b.io_unit_kib)} at least)"
    busy = min(b.utilisation, 1.0)
    if b.kind == "seek":
        return (f"disk seek time: each {b.device} disk serves one I/O at a time and is "
                f"{busy:.0%} busy")
    if b.kind == "latency":
        where = (f"at queue depth {b.queue_depth}"
                 if b.queue_depth and b.queue_depth < OPEN_LOOP_SLOTS else "at this load")
        busiest = f"; busiest limit {b.busiest} at {b.utilisation:.0%}" if b.busiest else ""
        return (f"latency-bound {where}: no rate limit saturated, I/Os wait only for the "
                f"device's service time ({b.device}){busiest}")
    if b.kind == "device":
        return f"{b.limit}: device saturated ({busy:.0%} busy)"
    if b.kind == "burst_exhausted":
        return (f"{b.limit}: burst credits ({b.credit}) exhausted at t={b.exhausted_at_s:,.0f} "
                f"s; baseline {b.rate:,.0f} {b.unit}{each}")
    if b.kind == "burst":
        return (f"{b.limit} at its burst rate {b.rate:,.0f} {b.unit}{each}; credits left at the "
                f"end {b.credits_left:.0%}")
    behind = (f"; {b.queued_s:,.1f} s of work queued at the end (overloaded)"
              if b.queued_s > OVERLOAD_QUEUED_S else "")
    return f"{b.limit} at {b.rate:,.0f} {b.unit}{each} ({busy:.0%} used){behind}"


def _kib_text(kib: float) -> str:
    return f"{kib / 1024:g} MiB" if kib >= 1024 else f"{kib:g} KiB"


def detail(b: Binding) -> BottleneckDetail:
    return BottleneckDetail(
        limit=SEEK if b.kind == "seek" else b.limit,
        kind="device" if b.kind == "seek" else b.kind, utilisation=round(b.utilisation, 4),
        exhausted_at_s=None if b.exhausted_at_s is None or b.kind != "burst_exhausted"
        else round(b.exhausted_at_s, 1),
        text=binding_text(b))


def unit_of(plan: SimPlan, l: int) -> str:
    return "IOPS" if plan.lim_kind[l] == KIND_IOPS else "MiB/s"


def io_unit_kib(plan: SimPlan, l: int, mean_io_bytes: float) -> float:
    """`Binding.io_unit_kib` of limit `l` for a run whose device I/Os average `mean_io_bytes`:
    the whole unit a MiB/s limit charges a random I/O, when the I/Os are smaller than it (their
    MiB/s as charged are then not the bytes moved); else 0."""
    unit = float(plan.lim_unit_bytes[l]) if plan.lim_kind[l] == KIND_MIB else 0.0
    return unit / 1024 if 0 < mean_io_bytes < unit else 0.0


def members_of(plan: SimPlan, l: int) -> int:
    """RAID members that each have limit `l` (1 for an instance-wide limit)."""
    return plan.members if plan.limit_scope[l] == "volume" else 1
