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


def instances_json(c: Catalog) -> dict[str, Any]:
    return {**catalog_header(c), "instances": [instance_json(i) for i in instances_sorted(c)]}


def volumes_json(c: Catalog) -> dict[str, Any]:
    return {**catalog_header(c), "volumes": [volume_json(v) for v in c.volume_types.values()]}
