"""The catalog as JSON-ready data: what `advisor catalog ... --format json` prints and what
`GET /v1/catalog/instances` and `GET /v1/catalog/volumes` return (one view for both adapters),
and the instance filters both offer, declared once (`InstanceFilter`)."""

from dataclasses import asdict, dataclass
from typing import Any, get_args

from advisor.catalog.model import Arch, Catalog, InstanceType, VolumeType
from advisor.options import FieldError, check_fields, option

ARCHES: tuple[str, ...] = get_args(Arch)


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


@dataclass(frozen=True, slots=True, kw_only=True)
class InstanceFilter:
    """Which instance types a listing keeps: `advisor catalog instances --family ...` and
    `GET /v1/catalog/instances?family=...` (the CLI's options and the API's query parameters are
    generated from these declarations)."""

    family: list[str] | None = option(  # noqa: RUF009 (None: ruff sees the list type)
        None, help="only these families (repeat, or comma-separated: r7g,m7g)")
    arch: str | None = option(None, choices=ARCHES, help="only this architecture")
    min_memory_gib: float = option(0.0, ge=0, le=1e9,
                                   help="only types with at least this much memory (GiB)")
    min_vcpu: int = option(0, ge=0, le=100_000, help="only types with at least this many vCPUs")

    def __post_init__(self) -> None:
        check_fields(self)

    @property
    def families(self) -> tuple[str, ...]:
        """The families named, each entry split at commas."""
        entries = [self.family] if isinstance(self.family, str) else self.family or ()
        return tuple(f.strip() for text in entries for f in str(text).split(",") if f.strip())

    def check(self, c: Catalog) -> None:
        """Refuse a family the catalog does not hold, naming the ones it does."""
        known = {i.family for i in c.instance_types.values()}
        unknown = [f for f in self.families if f not in known]
        if unknown:
            raise FieldError("family", ",".join(unknown)[:80], "not in the catalog (families: "
                             f"{', '.join(sorted(known))})")

    def keeps(self, i: InstanceType) -> bool:
        families = self.families
        return (not families or i.family in families) \
            and (self.arch is None or i.arch == self.arch) \
            and i.memory_gib >= self.min_memory_gib and i.vcpu >= self.min_vcpu


ALL_INSTANCES = InstanceFilter()


def instances_filtered(c: Catalog, flt: InstanceFilter = ALL_INSTANCES) -> list[InstanceType]:
    """`instances_sorted`, keeping what `flt` keeps (an unknown family is refused)."""
    flt.check(c)
    return [i for i in instances_sorted(c) if flt.keeps(i)]


def instances_json(c: Catalog, flt: InstanceFilter = ALL_INSTANCES) -> dict[str, Any]:
    rows = instances_filtered(c, flt)
    return {**catalog_header(c), "instances": [instance_json(i) for i in rows]}


def volumes_json(c: Catalog) -> dict[str, Any]:
    return {**catalog_header(c), "volumes": [volume_json(v) for v in c.volume_types.values()]}
