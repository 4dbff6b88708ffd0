"""The candidate space: every instance, volume type, count, RAID level, size and provisioned
IOPS/throughput on a grid, plus instance store where allowed. Specs are generated cheaply; the
search prices them, prunes by hard limits and screens the cheapest first."""

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from advisor.catalog.model import Catalog, InstanceType, VolumeType
from advisor.layout.raid import data_members, write_copies
from advisor.layout.spec import LayoutSpec, Raid

IOPS_GRID = (3000, 4000, 5000, 6000, 8000, 10000, 12000, 16000, 20000, 24000, 32000, 40000,
             50000, 64000, 80000, 100000, 128000, 160000, 200000, 256000)
GP3_MIBPS_GRID = (125, 250, 500, 750, 1000, 1500, 2000)
# (devices, RAID level): what an mdadm user would build
ARRAYS: tuple[tuple[int, Raid | None], ...] = ((1, None), (2, "raid0"), (4, "raid0"),
                                                (8, "raid0"), (2, "raid1"), (4, "raid10"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Demand:
    """What one server must sustain at the headroom load (logical I/Os at the array)."""

    iops: float
    mibps: float
    capacity_gib: float


@lru_cache(maxsize=1024)  # the same demand per member for every instance of a search
def _iops_options(need: float, low: int, high: int) -> tuple[int, ...]:
    """The smallest grid value that covers `need` with 25 % slack, the one above, and `low`."""
    out = {low}
    above = [g for g in IOPS_GRID if low <= g <= high and g >= need * 1.25]
    out.update(above[:2])
    if not above and high >= low:
        out.add(high)
    return tuple(sorted(out))


def _ebs_specs(inst: InstanceType, vt: VolumeType, demand: Demand) -> Iterator[LayoutSpec]:
    for count, raid in ARRAYS:
        members = data_members(raid, count)
        per_member_iops = demand.iops * write_copies(raid, count) / count
        base = max(vt.min_size_gib, math.ceil(demand.capacity_gib / members))
        if base > vt.max_size_gib:
            continue
        if vt.model == "gp2":
            assert vt.iops_per_gib
            sizes = {base}
            for need in (per_member_iops * 1.25, 1000.0 / 3 * 3):
                size = math.ceil(need / vt.iops_per_gib)
                if base < size <= vt.max_size_gib:
                    sizes.add(size)
            for size in sorted(sizes):
                yield LayoutSpec(instance=inst.name, device="gp2", raid=raid,
                                 count=count, size_gib=size)
        elif vt.model == "gp3":
            assert vt.iops_per_gib
            assert vt.included_iops
            assert vt.included_mibps
            top = vt.max_iops
            for iops in _iops_options(per_member_iops, vt.included_iops, top):
                size = max(base, math.ceil(iops / vt.iops_per_gib))
                need_mibps = demand.mibps / members * 1.25
                mibps = next((m for m in GP3_MIBPS_GRID if m >= need_mibps
                              and m <= (vt.max_mibps_per_iops or 1) * iops), None)
                if mibps is None:
                    continue
                yield LayoutSpec(instance=inst.name, device="gp3", raid=raid,
                                 count=count, size_gib=size,
                                 iops=None if iops == vt.included_iops else iops,
                                 throughput_mibps=None if mibps == vt.included_mibps else mibps)
        elif vt.model in ("io1", "io2"):
            assert vt.iops_per_gib
            assert vt.min_iops
            top = vt.max_iops if inst.nitro else (vt.max_iops_non_nitro or vt.max_iops)
            for iops in _iops_options(per_member_iops, 1000, top):
                size = max(base, math.ceil(iops / vt.iops_per_gib))
                if size > vt.max_size_gib:
                    continue
                yield LayoutSpec(instance=inst.name, device=vt.name, raid=raid,
                                 count=count, size_gib=size, iops=iops)
        else:  # st1, sc1, standard: size only
            yield LayoutSpec(instance=inst.name, device=vt.name, raid=raid,
                             count=count, size_gib=base)


def _store_specs(inst: InstanceType) -> Iterator[LayoutSpec]:
    store = inst.store
    if store is None:
        return
    yield LayoutSpec(instance=inst.name, device="store")
    n = store.count
    if n >= 2:
        yield LayoutSpec(instance=inst.name, device="store", raid="raid0", count=n)
        yield LayoutSpec(instance=inst.name, device="store", raid="raid1", count=2)
    if n >= 4:
        yield LayoutSpec(instance=inst.name, device="store", raid="raid10", count=4)


def _at_least(y: InstanceType, x: InstanceType) -> bool:
    """Whether `y` gives an EBS layout everything `x` does, for no more money: price, vCPU,
    memory, every instance EBS limit (baseline and burst maximum: a higher baseline or maximum
    never empties a burst bucket sooner), Nitro (io1/io2 caps) and network baseline."""
    a, b = y.ebs, x.ebs
    if a is None or b is None or a.optimization != b.optimization or (x.nitro and not y.nitro):
        return False
    if x.network_baseline_gbps is not None and (
            y.network_baseline_gbps is None or y.network_baseline_gbps < x.network_baseline_gbps):
        return False
    return (y.hourly_usd <= x.hourly_usd and y.vcpu >= x.vcpu and y.memory_gib >= x.memory_gib
            and a.baseline_iops >= b.baseline_iops and a.max_iops >= b.max_iops
            and a.baseline_mbs >= b.baseline_mbs and a.max_mbs >= b.max_mbs
            and a.baseline_mbps >= b.baseline_mbps and a.max_mbps >= b.max_mbps)


_DOMINATED: dict[int, tuple[object, frozenset[str]]] = {}


def ebs_dominated(catalog: Catalog) -> frozenset[str]:
    """Instance types whose EBS layouts another type matches or beats in every hard limit at no
    higher price (`_at_least`; of two equal types the one later by name). The model reads only
    these figures of an instance for an EBS layout (CPU from the vCPU count, the buffer pool from
    memory, the instance's EBS and network limits), so a dominated type's EBS layout can pass
    only where the same layout on its dominator passes for no more money: the search skips it
    before any model runs. Its instance-store layouts are kept (the device differs)."""
    types = catalog.instance_types
    held = _DOMINATED.get(id(types))
    if held is not None and held[0] is types:
        return held[1]
    ebs = sorted((i for i in types.values() if i.ebs is not None),
                 key=lambda i: (i.hourly_usd, i.name))
    out = set()
    for x in ebs:
        for y in ebs:
            if y.hourly_usd > x.hourly_usd:
                break
            if y is not x and _at_least(y, x) and (y.name < x.name or not _at_least(x, y)):
                out.add(x.name)
                break
    if len(_DOMINATED) > 8:
        _DOMINATED.clear()
    _DOMINATED[id(types)] = (types, frozenset(out))
    return frozenset(out)


def instance_groups(catalog: Catalog, *, ebs: bool, store: bool, min_vcpu: float,
                    min_memory_gib: float = 0.0) -> list[InstanceType]:
    """The instance types a role's layouts may use, in catalog order: hard limits first (vCPU,
    memory), then only those with a layout to offer (instance store where allowed, EBS only when
    optimised and not dominated, `ebs_dominated`)."""
    dominated = ebs_dominated(catalog) if ebs else frozenset()
    return [inst for inst in catalog.instance_types.values()
            if inst.vcpu >= min_vcpu and inst.memory_gib >= min_memory_gib
            and ((store and inst.store is not None)
                 or (ebs and inst.ebs is not None and inst.name not in dominated))]


def instance_specs(catalog: Catalog, inst: InstanceType, demand: Demand, *, ebs: bool,
                   store: bool) -> Iterator[LayoutSpec]:
    """Every layout worth pricing on one instance type of `instance_groups`."""
    if store:
        yield from _store_specs(inst)
    # No EBS optimization means no published EBS limit (c1.medium): the simulator could only
    # treat the volumes as unlimited, so the recommender does not size on it.
    if not ebs or inst.ebs is None or inst.name in ebs_dominated(catalog):
        return
    for vt in catalog.volume_types.values():
        yield from _ebs_specs(inst, vt, demand)


def candidate_specs(catalog: Catalog, demand: Demand, *, ebs: bool, store: bool,
                    min_vcpu: float, min_memory_gib: float = 0.0) -> Iterator[LayoutSpec]:
    """Every layout worth pricing for one server role: hard limits first (vCPU, memory, EBS
    optimization), then EBS layouts only on types no other type dominates (`ebs_dominated`)."""
    for inst in instance_groups(catalog, ebs=ebs, store=store, min_vcpu=min_vcpu,
                                min_memory_gib=min_memory_gib):
        yield from instance_specs(catalog, inst, demand, ebs=ebs, store=store)
