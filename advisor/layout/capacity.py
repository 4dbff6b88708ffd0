"""Steady-state capacity of a layout for one kind of I/O, and the limit that binds it.

Capacity is counted in logical I/Os (what the file system issues to the md array); RAID turns each
into member I/Os: a mirrored write costs one I/O on every mirror, an I/O larger than the chunk
splits over several members.
"""

import math
from dataclasses import dataclass

from advisor.catalog.model import Catalog, LatencyProfile
from advisor.layout.limits import LayoutLimits, RateLimit, layout_limits
from advisor.layout.model import Layout

SIZES_KIB = (16, 256)


@dataclass(frozen=True, slots=True, kw_only=True)
class Capacity:
    iops: float
    throughput_mibps: float
    binding: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Fanout:
    member_ios: float  # member I/Os per logical I/O, summed over members
    sub_kib: float  # size of each member I/O
    parallel: int  # members that share the load


def fanout(layout: Layout, *, write: bool, size_kib: float) -> Fanout:
    n, raid, chunk = layout.spec.count, layout.spec.raid, layout.spec.chunk_kib
    data_members = {None: 1, "raid0": n, "raid1": 1, "raid10": n // 2}[raid]
    pieces = min(data_members, max(1, math.ceil(size_kib / chunk))) if raid else 1
    copies = {None: 1, "raid0": 1, "raid1": n, "raid10": 2}[raid] if write else 1
    return Fanout(member_ios=pieces * copies, sub_kib=size_kib / pieces, parallel=n)


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


def _per_io_rate(limit: RateLimit, sub_kib: float, *, bursting: bool) -> float:
    """Member I/Os per second this limit allows for I/Os of `sub_kib`."""
    rate = limit.rate(bursting=bursting)
    if limit.unit == "mibps":
        charged = (math.ceil(sub_kib / limit.io_unit_kib) * limit.io_unit_kib
                   if limit.io_unit_kib else sub_kib)
        return rate * 1024 / charged
    units = math.ceil(sub_kib / limit.io_unit_kib) if limit.io_unit_kib else 1
    return rate / units


def capacity(layout: Layout, catalog: Catalog, *, write: bool, size_kib: float,
             bursting: bool) -> Capacity:
    """Logical IOPS the layout sustains for random I/Os of `size_kib`, and what binds."""
    lim = limits_of(layout, catalog)
    fan = fanout(layout, write=write, size_kib=size_kib)
    candidates: list[tuple[float, str]] = []
    for limit in lim.member_limits:
        member = _per_io_rate(limit, fan.sub_kib, bursting=bursting)
        total = member * fan.parallel / fan.member_ios
        label = limit.name if fan.parallel == 1 else f"{limit.name} x{fan.parallel} volumes"
        candidates.append((total, label))
    if lim.device is not None:
        per = 1.0 / lim.device.seconds_per_io(write=write, size_kib=fan.sub_kib)
        kind = "instance-store" if layout.ephemeral else "local"
        candidates.append((per * fan.parallel / fan.member_ios,
                           f"{kind} device {'write' if write else 'read'} capacity"))
    elif layout.volume_type is None:
        # HDD instance store has no published IOPS: one seek at a time per device.
        profile = profile_of(layout, catalog)
        dist = profile.write if write else profile.read
        seconds = dist.median_ms / 1000 + fan.sub_kib / 1024 / profile.transfer_mibps
        candidates.append((fan.parallel / seconds / fan.member_ios,
                           "instance-store HDD seek time (one I/O at a time per disk)"))
    for limit in lim.instance_limits:
        per = _per_io_rate(limit, fan.sub_kib, bursting=bursting)
        candidates.append((per / fan.member_ios, limit.name))
    iops, binding = min(candidates, key=lambda c: c[0])
    return Capacity(iops=iops, throughput_mibps=iops * size_kib / 1024, binding=binding)


def capacity_table(layout: Layout, catalog: Catalog) -> dict[str, dict[str, object]]:
    """Read and write capacity at 16 KiB and 256 KiB, sustained and while credits last."""
    table: dict[str, dict[str, object]] = {}
    for write in (False, True):
        for size in SIZES_KIB:
            key = f"{'write' if write else 'read'}_{size}KiB"
            sustained = capacity(layout, catalog, write=write, size_kib=size, bursting=False)
            burst = capacity(layout, catalog, write=write, size_kib=size, bursting=True)
            table[key] = {
                "iops": round(sustained.iops, 1),
                "throughput_mibps": round(sustained.throughput_mibps, 1),
                "binding": sustained.binding,
                "burst_iops": round(burst.iops, 1),
                "burst_throughput_mibps": round(burst.throughput_mibps, 1),
                "burst_binding": burst.binding,
            }
    return table
