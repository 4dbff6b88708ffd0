"""Steady-state capacity of a layout for one kind of I/O, and the limit that binds it.

Capacity is counted in logical I/Os (what the file system issues to the md array); RAID turns each
into member I/Os (`advisor.layout.raid`).
"""

from collections.abc import Collection
from dataclasses import dataclass

from advisor.catalog.model import Catalog, LatencyProfile
from advisor.layout.limits import KIB_PER_MIB, LayoutLimits, RateLimit, layout_limits
from advisor.layout.model import Layout
from advisor.layout.raid import fanout

SIZES_KIB = (16, 256)


@dataclass(frozen=True, slots=True, kw_only=True)
class Capacity:
    iops: float
    throughput_mibps: float
    binding: str


def profile_of(layout: Layout, catalog: Catalog) -> LatencyProfile:
    if layout.volume_type is not None:
        name = layout.volume_type.latency_profile
    elif layout.local is not None:
        name = layout.local.latency_profile
    else:
        assert layout.instance is not None
        assert layout.instance.store is not None
        name = layout.instance.store.latency_profile
    return catalog.latency_profiles[name]


def limits_of(layout: Layout, catalog: Catalog) -> LayoutLimits:
    return layout_limits(layout, profile_transfer_mibps=profile_of(layout, catalog).transfer_mibps)


Bursting = bool | Collection[str]  # all limits, none, or the names of those whose credits count


def _bursts(limit: RateLimit, bursting: Bursting) -> bool:
    """Whether `limit` runs at its burst rate: its own bucket's name, or the bucket it shares
    (gp2 throughput on the volume's I/O credits), is among those allowed."""
    if isinstance(bursting, bool):
        return bursting
    return limit.name in bursting or (limit.shares_bucket_of or "") in bursting


def _per_io_rate(limit: RateLimit, sub_kib: float, *, bursting: Bursting) -> float:
    """Member I/Os per second this limit allows for random I/Os of `sub_kib`."""
    return limit.rate(bursting=_bursts(limit, bursting)) / limit.charge(sub_kib)


def capacity(layout: Layout, catalog: Catalog, *, write: bool, size_kib: float,
             bursting: Bursting, limits: LayoutLimits | None = None) -> Capacity:
    """Logical IOPS the layout sustains for random I/Os of `size_kib`, and what binds (`limits`:
    the layout's, when the caller has them already; `bursting`: True/False for every limit, or
    the names of the limits whose credits may count)."""
    lim = limits or limits_of(layout, catalog)
    spec = layout.spec
    fan = fanout(spec.raid, spec.count, write=write, size=size_kib, chunk=spec.chunk_kib)
    sub_kib, parallel, member_ios = fan.piece_size, spec.count, fan.member_ios
    candidates: list[tuple[float, str]] = []
    for limit in lim.member_limits:
        member = _per_io_rate(limit, sub_kib, bursting=bursting)
        total = member * parallel / member_ios
        label = limit.name if parallel == 1 else f"{limit.name} x{parallel} volumes"
        candidates.append((total, label))
    if lim.device is not None:
        per = 1.0 / lim.device.seconds_per_io(write=write, size_kib=sub_kib)
        kind = "instance-store" if layout.ephemeral else "local"
        candidates.append((per * parallel / member_ios,
                           f"{kind} device {'write' if write else 'read'} capacity"))
    elif layout.volume_type is None:
        # HDD instance store has no published IOPS: one seek at a time per device.
        profile = profile_of(layout, catalog)
        dist = profile.write if write else profile.read
        seconds = dist.median_ms / 1000 + sub_kib / KIB_PER_MIB / profile.transfer_mibps
        candidates.append((parallel / seconds / member_ios,
                           "instance-store HDD seek time (one I/O at a time per disk)"))
    for limit in lim.instance_limits:
        per = _per_io_rate(limit, sub_kib, bursting=bursting)
        candidates.append((per / member_ios, limit.name))
    iops, binding = min(candidates, key=lambda c: c[0])
    return Capacity(iops=iops, throughput_mibps=iops * size_kib / 1024, binding=binding)


def capacity_table(layout: Layout, catalog: Catalog,
                   limits: LayoutLimits | None = None) -> dict[str, dict[str, object]]:
    """Read and write capacity at 16 KiB and 256 KiB, sustained and while credits last."""
    lim = limits or limits_of(layout, catalog)
    table: dict[str, dict[str, object]] = {}
    for write in (False, True):
        for size in SIZES_KIB:
            key = f"{'write' if write else 'read'}_{size}KiB"
            sustained = capacity(layout, catalog, write=write, size_kib=size, bursting=False,
                                 limits=lim)
            burst = capacity(layout, catalog, write=write, size_kib=size, bursting=True,
                             limits=lim)
            table[key] = {
                "iops": round(sustained.iops, 1),
                "throughput_mibps": round(sustained.throughput_mibps, 1),
                "binding": sustained.binding,
                "burst_iops": round(burst.iops, 1),
                "burst_throughput_mibps": round(burst.throughput_mibps, 1),
                "burst_binding": burst.binding,
            }
    return table
