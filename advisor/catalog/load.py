"""Reading catalog files: the built-in data plus user files that add or override entries.

This is the file boundary, so it is the one place in the catalog that uses pydantic: a malformed
file is rejected with the file, the entry and the field named.
"""

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from advisor.catalog.model import (
    Catalog,
    EbsLimits,
    InstanceStore,
    InstanceType,
    LatencyDist,
    LatencyProfile,
    LocalDevice,
    VolumeType,
)
from advisor.errors import CatalogError

SCHEMA_VERSION = 1
BUILTIN_NAME = "us-east-1.json"


# Every figure is finite (JSON's NaN/Infinity are refused) and within a range generous enough for
# any real device or price (10-1000x the largest AWS publishes), so that no user file can make the
# simulator's arithmetic overflow: service times stay below 2**53 ns after the log-normal's tail.
MAX_MS = 600_000.0  # 10 minutes: a latency, a stall, a flush
MAX_IOPS = 1e9
MAX_MIBPS = 1e7  # about 10 TiB/s
MAX_GIB = 1e9
MAX_USD = 1e6  # per hour, GiB-month, IOPS-month or MiB/s-month
# Entries of each kind, over all files merged: a sizing searches every instance type with every
# volume type (AWS lists under 1,000 instance types and 7 volume types; 3,000 instance types made
# one sizing take minutes).
MAX_ENTRIES = {"instance types": 2_000, "volume types": 100, "latency profiles": 1_000,
               "local devices": 1_000}
Ms = Annotated[float, Field(ge=0, le=MAX_MS)]
# At least 1 I/O and 0.01 MiB/s a second: 1e-300 IOPS made every I/O take 1e300 s (inf in the
# event simulation's clock).
Iops = Annotated[float, Field(ge=1, le=MAX_IOPS)]
Mibps = Annotated[float, Field(ge=0.01, le=MAX_MIBPS)]
Usd = Annotated[float, Field(ge=0, le=MAX_USD)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class _Dist(_Strict):
    median_ms: float = Field(gt=0, le=60_000)
    sigma: float = Field(ge=0, le=3)
    tail_probability: float = Field(default=0.0, ge=0, le=0.5)
    tail_min_ms: Ms = 0.0
    tail_max_ms: Ms = 0.0


class _Profile(_Strict):
    name: str
    read: _Dist
    write: _Dist
    transfer_mibps: float = Field(ge=0.1, le=MAX_MIBPS)
    flush_ms: Ms = 0.0
    read_stall_per_write_mibps: float = Field(default=0.0, ge=0, le=1)
    spinning: bool = False
    write_cache_ms: Ms = 0.0
    slow_share: float = Field(default=0.0, ge=0, le=0.5)
    slow_episode_s: float = Field(default=0.0, ge=0, le=86_400)
    slow_factor: float = Field(default=1.0, ge=1, le=10_000)
    sources: dict[str, str] = {}
    notes: list[str] = []


# What each volume model reads (advisor.layout.limits, advisor.layout.model) beyond the common
# fields: a user entry without them would fail inside the model instead of at the file.
_MODEL_NEEDS = {
    "gp2": ("iops_per_gib", "min_iops", "burst_iops", "burst_bucket_credits"),
    "gp3": ("included_iops", "included_mibps"),
    "throughput_credits": ("baseline_mibps_per_tib", "burst_mibps_per_tib", "bucket_mib_per_tib"),
}


class _Volume(_Strict):
    name: str
    title: str
    media: Literal["ssd", "hdd"]
    model: Literal["gp2", "gp3", "io1", "io2", "throughput_credits", "magnetic"]
    min_size_gib: int = Field(gt=0, le=MAX_GIB)
    max_size_gib: int = Field(gt=0, le=MAX_GIB)
    io_unit_kib: int = Field(gt=0, le=1024 * 1024)
    min_iops: int | None = Field(default=None, gt=0, le=MAX_IOPS)
    max_iops: int = Field(gt=0, le=MAX_IOPS)
    max_iops_non_nitro: int | None = Field(default=None, gt=0, le=MAX_IOPS)
    iops_per_gib: float | None = Field(default=None, gt=0, le=MAX_IOPS)
    included_iops: int | None = Field(default=None, ge=0, le=MAX_IOPS)
    burst_iops: int | None = Field(default=None, gt=0, le=MAX_IOPS)
    burst_bucket_credits: float | None = Field(default=None, gt=0, le=1e15)
    max_mibps: Mibps
    included_mibps: float | None = Field(default=None, ge=0, le=MAX_MIBPS)
    max_mibps_per_iops: float | None = Field(default=None, gt=0, le=1024)
    small_volume_max_mibps: float | None = Field(default=None, gt=0, le=MAX_MIBPS)
    small_volume_gib: float | None = Field(default=None, gt=0, le=MAX_GIB)
    full_throughput_gib: float | None = Field(default=None, gt=0, le=MAX_GIB)
    baseline_mibps_per_tib: float | None = Field(default=None, gt=0, le=MAX_MIBPS)
    burst_mibps_per_tib: float | None = Field(default=None, gt=0, le=MAX_MIBPS)
    bucket_mib_per_tib: float | None = Field(default=None, gt=0, le=1e15)
    typical_iops: int | None = Field(default=None, gt=0, le=MAX_IOPS)
    storage_usd_per_gib_month: Usd
    # (up to this IOPS count, USD per IOPS-month): no price may be negative
    iops_usd_tiers: list[tuple[Annotated[int, Field(gt=0)], Usd]] = Field(default=[],
                                                                         max_length=100)
    throughput_usd_per_mibps_month: Usd | None = None
    io_requests_usd_per_million: Usd | None = None
    annual_failure_rate: float | None = Field(default=None, ge=0, le=1)
    latency_profile: str
    sources: dict[str, str] = {}
    notes: list[str] = []

    @model_validator(mode="after")
    def _model_fields(self) -> "_Volume":
        """The figures the volume's model computes its limits from are present."""
        for name in _MODEL_NEEDS.get(self.model, ()):
            if getattr(self, name) is None:
                raise ValueError(f"model {self.model} needs {name}")
        if self.min_iops is not None and self.min_iops > self.max_iops:
            raise ValueError(f"min_iops {self.min_iops} is above max_iops {self.max_iops}")
        return self

    @field_validator("max_size_gib")
    @classmethod
    def _range(cls, value: int, info: Any) -> int:
        low = info.data.get("min_size_gib")
        if low is not None and value < low:
            raise ValueError(f"max_size_gib {value} is below min_size_gib {low}")
        return value


class _Ebs(_Strict):
    optimization: Literal["default", "optional", "unsupported"]
    baseline_mbps: Mibps
    max_mbps: Mibps
    baseline_mbs: Mibps
    max_mbs: Mibps
    baseline_iops: Iops
    max_iops: Iops
    burst: bool

    @model_validator(mode="after")
    def _max_at_least_baseline(self) -> "_Ebs":
        # the burst bucket refills at max - baseline: a maximum below the baseline empties it
        for name in ("mbps", "mbs", "iops"):
            base, top = getattr(self, f"baseline_{name}"), getattr(self, f"max_{name}")
            if top < base:
                raise ValueError(f"max_{name} {top:g} is below baseline_{name} {base:g}")
        return self


class _Store(_Strict):
    count: int = Field(gt=0, le=24)
    size_gb: float = Field(gt=0, le=MAX_GIB)
    kind: Literal["nvme", "ssd", "hdd"]
    read_iops: Iops | None = None
    write_iops: Iops | None = None
    needs_init: bool = False
    latency_profile: str
    seq_mibps_per_device: Mibps | None = None
    measured_read_iops: Iops | None = None
    measured_write_iops: Iops | None = None


class _Instance(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9-]*\.[a-z0-9]+$")
    vcpu: int = Field(gt=0, le=100_000)
    memory_gib: float = Field(gt=0, le=MAX_GIB)
    hourly_usd: Usd
    plan_hourly_usd: dict[Literal["1yr-reserved", "3yr-reserved", "savings-plan"], Usd] = {}
    nitro: bool
    previous_generation: bool = False
    arch: Literal["x86_64", "arm64"] = "x86_64"
    network_baseline_gbps: float | None = Field(default=None, gt=0, le=10_000)
    network_burst_gbps: float | None = Field(default=None, gt=0, le=10_000)
    ebs: _Ebs | None
    store: _Store | None = None
    sources: dict[str, str] = {}
    notes: list[str] = []

    @model_validator(mode="after")
    def _network_burst_at_least_baseline(self) -> "_Instance":
        base, burst = self.network_baseline_gbps, self.network_burst_gbps
        if base is not None and burst is not None and burst < base:
            raise ValueError(f"network_burst_gbps {burst:g} is below network_baseline_gbps "
                             f"{base:g}")
        if burst is not None and base is None:
            raise ValueError("network_burst_gbps without network_baseline_gbps")
        return self


class _Local(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    capacity_gib: float = Field(gt=0, le=MAX_GIB)
    read_iops: Iops
    write_iops: Iops
    block_kib: int = Field(gt=0, le=1024 * 1024)
    seq_read_mibps: Mibps
    seq_write_mibps: Mibps
    latency_profile: str
    sources: dict[str, str] = {}
    notes: list[str] = []


class _File(BaseModel):
    # Unknown top-level keys (e.g. a calibration's raw measurements) are allowed and ignored.
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)
    schema_version: int
    catalog_version: str | None = Field(default=None, max_length=200)
    region: str | None = Field(default=None, max_length=200)
    currency: str | None = None
    sources: dict[str, str] = {}
    volume_types: list[dict[str, Any]] = []
    instance_types: list[dict[str, Any]] = []
    latency_profiles: list[dict[str, Any]] = []
    local_devices: list[dict[str, Any]] = []


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"]) or "(entry)"
    return f"field {where}: {err['msg']}"


def _entries(origin: str, kind: str, rows: Iterable[dict[str, Any]],
             schema: type[_Strict]) -> list[Any]:
    parsed = []
    for index, row in enumerate(rows):
        name = row.get("name", f"#{index}") if isinstance(row, dict) else f"#{index}"
        try:
            parsed.append(schema.model_validate(row))
        except ValidationError as exc:
            raise CatalogError(f"{origin}: {kind} {name}: {_first_error(exc)}") from None
    return parsed


def _dist(d: _Dist) -> LatencyDist:
    return LatencyDist(**d.model_dump())


def _to_profile(p: _Profile) -> LatencyProfile:
    return LatencyProfile(name=p.name, read=_dist(p.read), write=_dist(p.write),
                          transfer_mibps=p.transfer_mibps, flush_ms=p.flush_ms,
                          read_stall_per_write_mibps=p.read_stall_per_write_mibps,
                          spinning=p.spinning, write_cache_ms=p.write_cache_ms,
                          slow_share=p.slow_share, slow_episode_s=p.slow_episode_s,
                          slow_factor=p.slow_factor,
                          sources=p.sources, notes=tuple(p.notes))


def _to_volume(v: _Volume) -> VolumeType:
    data = v.model_dump()
    data["iops_usd_tiers"] = tuple(tuple(t) for t in v.iops_usd_tiers)
    data["notes"] = tuple(v.notes)
    return VolumeType(**data)


def _to_instance(i: _Instance) -> InstanceType:
    return InstanceType(
        name=i.name, vcpu=i.vcpu, memory_gib=i.memory_gib, hourly_usd=i.hourly_usd,
        plan_hourly_usd={str(k): v for k, v in i.plan_hourly_usd.items()}, nitro=i.nitro,
        previous_generation=i.previous_generation, arch=i.arch,
        network_baseline_gbps=i.network_baseline_gbps, network_burst_gbps=i.network_burst_gbps,
        ebs=EbsLimits(**i.ebs.model_dump()) if i.ebs else None,
        store=InstanceStore(**i.store.model_dump()) if i.store else None,
        sources=i.sources, notes=tuple(i.notes))


def _to_local(d: _Local) -> LocalDevice:
    data = d.model_dump()
    data["notes"] = tuple(d.notes)
    return LocalDevice(**data)


def _read_json(origin: str, text: str) -> _File:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(f"{origin}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise CatalogError(f"{origin}: nests JSON too deeply to read") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise CatalogError(f"{origin}: not JSON this advisor reads ({str(exc).split(':')[0]})") \
            from None
    if not isinstance(raw, dict):
        raise CatalogError(f"{origin}: the top level must be an object")
    try:
        parsed = _File.model_validate(raw)
    except ValidationError as exc:
        raise CatalogError(f"{origin}: {_first_error(exc)}") from None
    if parsed.schema_version != SCHEMA_VERSION:
        raise CatalogError(f"{origin}: field schema_version: {parsed.schema_version} is not "
                           f"supported (this advisor reads version {SCHEMA_VERSION})")
    return parsed


def _merge(base: Catalog | None, origin: str, f: _File) -> Catalog:
    volumes = dict(base.volume_types) if base else {}
    instances = dict(base.instance_types) if base else {}
    profiles = dict(base.latency_profiles) if base else {}
    locals_ = dict(base.local_devices) if base else {}
    for kind, rows, have in (("instance types", f.instance_types, instances),
                             ("volume types", f.volume_types, volumes),
                             ("latency profiles", f.latency_profiles, profiles),
                             ("local devices", f.local_devices, locals_)):
        names = {r["name"] for r in rows if isinstance(r, dict)
                 and isinstance(r.get("name"), str)} | set(have)
        if len(rows) > MAX_ENTRIES[kind] or len(names) > MAX_ENTRIES[kind]:
            raise CatalogError(f"{origin}: {max(len(rows), len(names)):,} {kind}, over the "
                               f"limit of {MAX_ENTRIES[kind]:,} (a sizing searches them all)")
    for p in _entries(origin, "latency profile", f.latency_profiles, _Profile):
        profiles[p.name] = _to_profile(p)
    for v in _entries(origin, "volume type", f.volume_types, _Volume):
        volumes[v.name] = _to_volume(v)
    for i in _entries(origin, "instance type", f.instance_types, _Instance):
        instances[i.name] = _to_instance(i)
    for d in _entries(origin, "local device", f.local_devices, _Local):
        locals_[d.name] = _to_local(d)
    _check_references(origin, volumes, instances, profiles, locals_)
    return Catalog(
        schema_version=SCHEMA_VERSION,
        catalog_version=f.catalog_version or (base.catalog_version if base else "user"),
        region=f.region or (base.region if base else "unknown"),
        volume_types=volumes, instance_types=instances, latency_profiles=profiles,
        local_devices=locals_,
        sources={**(base.sources if base else {}), **f.sources},
        origins=(*(base.origins if base else ()), origin))


def _check_references(origin: str, volumes: Mapping[str, VolumeType],
                      instances: Mapping[str, InstanceType],
                      profiles: Mapping[str, LatencyProfile],
                      locals_: Mapping[str, LocalDevice]) -> None:
    refs: list[tuple[str, str, str]] = [("volume type", v.name, v.latency_profile)
                                        for v in volumes.values()]
    refs += [("instance type", i.name, i.store.latency_profile)
             for i in instances.values() if i.store]
    refs += [("local device", d.name, d.latency_profile) for d in locals_.values()]
    for kind, name, profile in refs:
        if profile not in profiles:
            raise CatalogError(f"{origin}: {kind} {name}: field latency_profile: unknown "
                               f"profile {profile!r} (known: {', '.join(sorted(profiles))})")


@lru_cache(maxsize=1)
def builtin_catalog() -> Catalog:
    """The catalog shipped inside the package (us-east-1)."""
    text = resources.files("advisor.catalog").joinpath("data", BUILTIN_NAME).read_text("utf-8")
    return _merge(None, f"built-in {BUILTIN_NAME}", _read_json(f"built-in {BUILTIN_NAME}", text))


def extend_catalog(base: Catalog, origin: str, text: str) -> Catalog:
    """`base` with the entries of a user catalog (JSON `text` read from `origin`) added or
    overriding. Reading the file is the caller's job (the edge: CLI, `advisor.userfiles`)."""
    return _merge(base, origin, _read_json(origin, text))
