"""A resolved layout: the spec checked against the catalog, with its devices' rated limits."""

import difflib
from dataclasses import dataclass

from advisor.catalog.model import Catalog, InstanceType, LocalDevice, VolumeType
from advisor.errors import InvalidLayout, UnknownDevice, UnknownInstance
from advisor.layout.spec import LOCALHOST, LayoutSpec, parse_spec
from advisor.units import format_gib


@dataclass(frozen=True, slots=True, kw_only=True)
class Layout:
    """One server's storage, valid against the catalog."""

    spec: LayoutSpec
    instance: InstanceType | None  # None for `localhost` (a calibrated local machine)
    volume_type: VolumeType | None  # EBS layouts
    local: LocalDevice | None  # `local:NAME` layouts
    warnings: tuple[str, ...] = ()

    @property
    def ebs(self) -> bool:
        return self.volume_type is not None

    @property
    def ephemeral(self) -> bool:
        return self.spec.is_store

    @property
    def device_size_gib(self) -> float:
        if self.volume_type is not None:
            assert self.spec.size_gib is not None
            return float(self.spec.size_gib)
        if self.local is not None:
            return self.local.capacity_gib
        assert self.instance is not None
        assert self.instance.store is not None
        return self.instance.store.size_gib

    @property
    def iops(self) -> int | None:
        """Provisioned IOPS per volume (gp3 defaults to its included 3,000)."""
        vt = self.volume_type
        if vt is None or not vt.provisioned_iops:
            return None
        return self.spec.iops if self.spec.iops is not None else vt.included_iops

    @property
    def throughput_mibps(self) -> float | None:
        vt = self.volume_type
        if vt is None or not vt.provisioned_throughput:
            return None
        if self.spec.throughput_mibps is not None:
            return float(self.spec.throughput_mibps)
        return vt.included_mibps

    def __str__(self) -> str:
        return str(self.spec)


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f"; did you mean {', '.join(close)}?" if close else ""


def resolve(spec: LayoutSpec | str, catalog: Catalog) -> Layout:
    """Check `spec` against the catalog; raises a one-line, actionable error when it breaks a
    rule."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    instance = _instance(spec, catalog)
    warnings: list[str] = []
    _check_raid(spec)
    if spec.is_ebs:
        vt = catalog.volume_types.get(spec.device)
        if vt is None:
            raise UnknownDevice(f"layout {spec}: volume type {spec.device} is not in the catalog")
        assert instance is not None
        _check_ebs(spec, vt, instance, warnings)
        return Layout(spec=spec, instance=instance, volume_type=vt, local=None,
                      warnings=tuple(warnings))
    _no_ebs_values(spec)
    if spec.is_store:
        assert instance is not None
        _check_store(spec, instance, warnings)
        return Layout(spec=spec, instance=instance, volume_type=None, local=None,
                      warnings=tuple(warnings))
    name = spec.local_name
    assert name is not None
    local = catalog.local_devices.get(name)
    if local is None:
        known = sorted(catalog.local_devices)
        hint = (f"known: {', '.join(known)}" if known else
                "none are defined: run `advisor calibrate --path DIR --name NAME` and pass its "
                "profile with --catalog")
        raise UnknownDevice(f"layout {spec}: unknown local device {name!r} ({hint})")
    return Layout(spec=spec, instance=instance, volume_type=None, local=local)


def _instance(spec: LayoutSpec, catalog: Catalog) -> InstanceType | None:
    if spec.instance == LOCALHOST:
        if spec.local_name is None:
            raise InvalidLayout(f"layout {spec}: localhost takes only calibrated local devices "
                                "(localhost:local:NAME)")
        return None
    instance = catalog.instance_types.get(spec.instance)
    if instance is None:
        raise UnknownInstance(f"layout {spec}: unknown instance {spec.instance!r}"
                              f"{_suggest(spec.instance, list(catalog.instance_types))}")
    return instance


def _check_raid(spec: LayoutSpec) -> None:
    n = spec.count
    if spec.raid is None and n > 1:
        raise InvalidLayout(f"layout {spec}: {n} devices need a RAID level "
                            "(raid0, raid1 or raid10) before the device")
    if spec.raid == "raid0" and n < 2:
        raise InvalidLayout(f"layout {spec}: raid0 needs at least 2 devices, got {n}")
    if spec.raid == "raid1" and n < 2:
        raise InvalidLayout(f"layout {spec}: raid1 needs at least 2 mirrors, got {n}")
    if spec.raid == "raid10" and (n < 4 or n % 2):
        raise InvalidLayout(f"layout {spec}: raid10 needs an even number of at least 4 devices, "
                            f"got {n}")
    if spec.raid != "raid0" and spec.raid != "raid10" and spec.chunk_kib != 512:
        raise InvalidLayout(f"layout {spec}: a chunk size applies only to raid0 and raid10")


def _no_ebs_values(spec: LayoutSpec) -> None:
    what = "instance-store" if spec.is_store else "local"
    for value, label in ((spec.size_gib, "size"), (spec.iops, "IOPS"),
                         (spec.throughput_mibps, "throughput")):
        if value is not None:
            raise InvalidLayout(f"layout {spec}: {label} cannot be set on {what} devices "
                                "(their size and speed are fixed)")


def _check_store(spec: LayoutSpec, instance: InstanceType, warnings: list[str]) -> None:
    store = instance.store
    if store is None:
        raise InvalidLayout(f"layout {spec}: {instance.name} has no instance store (EBS only); "
                            "use an EBS volume type or an instance with local disks "
                            "(m5d, i3, i3en, i4i, m6id, r6id)")
    if spec.count > store.count:
        raise InvalidLayout(f"layout {spec}: {instance.name} has {store.count} instance-store "
                            f"device{'s' if store.count > 1 else ''}; {spec.count}xstore asks for "
                            f"{spec.count}")
    if store.needs_init:
        warnings.append(f"{instance.name} instance store is HDD with a first-write penalty: "
                        "pre-warm it by writing every block before use")


def _check_ebs(spec: LayoutSpec, vt: VolumeType, instance: InstanceType,
               warnings: list[str]) -> None:
    if spec.size_gib is None:
        raise InvalidLayout(f"layout {spec}: {vt.name} needs a volume size, e.g. "
                            f"{spec}:{max(vt.min_size_gib, 100)}GiB")
    size = spec.size_gib
    if not vt.min_size_gib <= size <= vt.max_size_gib:
        raise InvalidLayout(f"layout {spec}: {vt.name} volume size {format_gib(size)} is outside "
                            f"{format_gib(vt.min_size_gib)}-{format_gib(vt.max_size_gib)}")
    # No EBS optimization: no catalog figure, or the assumed shared-link ceiling (old types).
    unoptimized = instance.ebs is None or instance.ebs.optimization == "unsupported"
    if unoptimized and vt.model in ("io1", "io2"):
        raise InvalidLayout(f"layout {spec}: {instance.name} does not support EBS optimization, "
                            f"so {vt.name} cannot deliver provisioned IOPS; use an EBS-optimized "
                            "instance")
    if unoptimized:
        warnings.append(f"{instance.name} has no EBS optimization: EBS traffic shares the "
                        "instance's network link and no dedicated bandwidth is guaranteed")
    _check_iops(spec, vt, instance, size)
    _check_throughput(spec, vt)


def _check_iops(spec: LayoutSpec, vt: VolumeType, instance: InstanceType, size: int) -> None:
    iops = spec.iops
    if not vt.provisioned_iops:
        if iops is not None:
            raise InvalidLayout(f"layout {spec}: {vt.name} IOPS are not provisioned (they follow "
                                f"from the size); drop {iops}iops or use gp3/io1/io2")
        return
    if iops is None:
        if vt.included_iops is None:
            raise InvalidLayout(f"layout {spec}: {vt.name} needs provisioned IOPS, e.g. "
                                f"{spec}:{min(3000, int((vt.iops_per_gib or 50) * size))}iops")
        return
    low = vt.included_iops or vt.min_iops or 0
    if iops < low:
        raise InvalidLayout(f"layout {spec}: {iops} iops is below the {vt.name} minimum of {low}")
    top = vt.max_iops if instance.nitro or vt.max_iops_non_nitro is None else vt.max_iops_non_nitro
    if iops > top:
        where = "" if top == vt.max_iops else f" on a non-Nitro instance like {instance.name}"
        raise InvalidLayout(f"layout {spec}: {iops} iops is over the {vt.name} maximum of "
                            f"{top}{where}")
    ratio = vt.iops_per_gib
    # gp3's included IOPS come with any size [S2]; the ratio bounds only what is bought above.
    allowed = max(int(ratio * size), vt.included_iops or 0) if ratio is not None else top
    if iops > allowed:
        assert ratio is not None
        need = -(-iops // int(ratio))
        raise InvalidLayout(f"layout {spec}: {iops} iops is over the {vt.name} {ratio:g}:1 "
                            f"IOPS:GiB ratio for {format_gib(size)} (max {allowed}; "
                            f"{iops} iops needs at least {need}GiB)")


def _check_throughput(spec: LayoutSpec, vt: VolumeType) -> None:
    mibps = spec.throughput_mibps
    if mibps is None:
        return
    if not vt.provisioned_throughput:
        raise InvalidLayout(f"layout {spec}: {vt.name} throughput is not provisioned; drop "
                            f"{mibps}mbps (only gp3 takes it)")
    assert vt.included_mibps is not None
    if mibps < vt.included_mibps:
        raise InvalidLayout(f"layout {spec}: {mibps}mbps is below the {vt.name} included "
                            f"{vt.included_mibps:g} MiB/s")
    if mibps > vt.max_mibps:
        raise InvalidLayout(f"layout {spec}: {mibps}mbps is over the {vt.name} maximum of "
                            f"{vt.max_mibps:g} MiB/s")
    iops = spec.iops or vt.included_iops or 0
    if vt.max_mibps_per_iops and mibps > vt.max_mibps_per_iops * iops:
        need = -(-int(mibps / vt.max_mibps_per_iops) // 1)
        raise InvalidLayout(f"layout {spec}: {mibps}mbps is over the {vt.name} ratio of "
                            f"{vt.max_mibps_per_iops:g} MiB/s per IOPS at {iops} iops "
                            f"(needs at least {need}iops)")
