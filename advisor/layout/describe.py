"""Everything derived from a layout, as the stable JSON of `advisor layout` and GET /v1/layouts."""

from dataclasses import asdict
from typing import Any

from advisor.catalog.model import Catalog
from advisor.layout.capacity import capacity_table, limits_of, profile_of
from advisor.layout.cost import Cost, layout_cost
from advisor.layout.durability import layout_durability
from advisor.layout.limits import RateLimit
from advisor.layout.model import Layout
from advisor.layout.raid import data_members


def usable_capacity_gib(layout: Layout) -> float:
    """Every data member's size (a mirror holds a copy, not more room)."""
    return layout.device_size_gib * data_members(layout.spec.raid, layout.spec.count)


def _limit_json(limit: RateLimit, members: int) -> dict[str, Any]:
    out: dict[str, Any] = {"name": limit.name, "scope": limit.scope, "unit": limit.unit,
                           "sustained": round(limit.sustained, 2)}
    if limit.scope == "volume" and members > 1:
        out["array_sustained"] = round(limit.sustained * members, 2)
    if limit.burst is not None:
        out["burst"] = round(limit.burst, 2)
    if limit.bucket is not None:
        b = limit.bucket
        burst_for = b.seconds_at(limit.burst or 0.0)
        out["bucket"] = {"capacity": b.capacity, "earn_per_s": round(b.earn_per_s, 3),
                         "unit": b.unit,
                         "full_burst_s": None if burst_for == float("inf") else round(burst_for)}
    if limit.io_unit_kib:
        out["io_unit_kib"] = limit.io_unit_kib
    return out


def cost_json(cost: Cost) -> dict[str, Any]:
    return {"monthly_usd": round(cost.monthly_usd, 2), "instance_usd": round(cost.instance_usd, 2),
            "storage_usd": round(cost.storage_usd, 2),
            "items": [{**asdict(i), "monthly_usd": round(i.monthly_usd, 4)} for i in cost.items],
            "notes": list(cost.notes)}


def describe(layout: Layout, catalog: Catalog) -> dict[str, Any]:
    lim = limits_of(layout, catalog)
    durability = layout_durability(layout)
    limits: list[dict[str, Any]] = [_limit_json(x, lim.members) for x in lim.member_limits]
    if lim.device is not None:
        d = lim.device
        limits.append({"name": "device capacity", "scope": "device", "unit": "iops",
                       "read_iops": round(d.read_iops), "write_iops": round(d.write_iops),
                       "rated_kib": d.rated_kib, "seq_mibps": round(d.seq_mibps, 1),
                       "array_read_iops": round(d.read_iops * lim.members)})
    elif layout.volume_type is None and layout.local is None:
        profile = profile_of(layout, catalog)
        limits.append({"name": "disk seek time", "scope": "device", "unit": "iops",
                       "per_disk_iops": round(1000 / profile.read.median_ms, 1),
                       "note": "HDD instance store: AWS publishes no IOPS; one I/O at a time per "
                               "disk at the profile's median seek time"})
    limits += [_limit_json(x, 1) for x in lim.instance_limits]
    inst = layout.instance
    return {
        "spec": str(layout.spec),
        "instance": inst.name if inst else "localhost",
        "vcpu": inst.vcpu if inst else None,
        "memory_gib": inst.memory_gib if inst else None,
        "device": layout.spec.device,
        "devices": layout.spec.count,
        "raid": layout.spec.raid,
        "chunk_kib": layout.spec.chunk_kib if layout.spec.raid in ("raid0", "raid10") else None,
        "device_size_gib": round(layout.device_size_gib, 2),
        "capacity_gib": round(usable_capacity_gib(layout), 2),
        "ephemeral": durability.ephemeral,
        "annual_loss_probability": durability.annual_loss_probability,
        "durability_assumptions": list(durability.assumptions),
        "limits": limits,
        "capacity": capacity_table(layout, catalog, lim),
        "cost": cost_json(layout_cost(layout)),
        "warnings": list(layout.warnings),
        "catalog_version": catalog.catalog_version,
    }
