"""The catalog as JSON-ready data: what `advisor catalog ... --format json` prints and what
`GET /v1/instances` and `GET /v1/volumes` return (one view for both adapters)."""

from dataclasses import asdict
from typing import Any

from advisor.catalog.model import Catalog, InstanceType, VolumeType


def catalog_header(c: Catalog) -> dict[str, Any]:
    return {"catalog_version": c.catalog_version, "region": c.region, "origins": list(c.origins)}


def instance_json(i: InstanceType) -> dict[str, Any]:
    out = asdict(i)
    out["sources"], out["notes"] = dict(i.sources), list(i.notes)
    return out


def volume_json(v: VolumeType) -> dict[str, Any]:
    out = asdict(v)
    out["iops_usd_tiers"] = [list(t) for t in v.iops_usd_tiers]
    out["sources"], out["notes"] = dict(v.sources), list(v.notes)
    return out


def instances_sorted(c: Catalog) -> list[InstanceType]:
    """Instance types by family, then hourly price (the order both listings use)."""
    return sorted(c.instance_types.values(), key=lambda i: (i.family, i.hourly_usd))


def instances_filtered(c: Catalog, *, families: tuple[str, ...] = (), arch: str | None = None,
                       min_memory_gib: float = 0.0, min_vcpu: int = 0) -> list[InstanceType]:
    """`instances_sorted`, keeping the families named (all when none), one architecture and at
    least the memory and vCPUs asked."""
    return [i for i in instances_sorted(c)
            if (not families or i.family in families) and (arch is None or i.arch == arch)
            and i.memory_gib >= min_memory_gib and i.vcpu >= min_vcpu]


def instances_json(c: Catalog, *, families: tuple[str, ...] = (), arch: str | None = None,
                   min_memory_gib: float = 0.0, min_vcpu: int = 0) -> dict[str, Any]:
    rows = instances_filtered(c, families=families, arch=arch, min_memory_gib=min_memory_gib,
                              min_vcpu=min_vcpu)
    return {**catalog_header(c), "instances": [instance_json(i) for i in rows]}


def volumes_json(c: Catalog) -> dict[str, Any]:
    return {**catalog_header(c), "volumes": [volume_json(v) for v in c.volume_types.values()]}
