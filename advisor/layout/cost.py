"""Monthly cost of a layout: instance hours plus every volume's storage, IOPS and throughput."""

from dataclasses import dataclass

from advisor.catalog.model import VolumeType
from advisor.layout.model import Layout

HOURS_PER_MONTH = 730


@dataclass(frozen=True, slots=True, kw_only=True)
class CostItem:
    item: str
    quantity: float
    unit: str
    unit_usd: float
    monthly_usd: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    instance_usd: float
    storage_usd: float
    items: tuple[CostItem, ...]
    notes: tuple[str, ...] = ()

    @property
    def monthly_usd(self) -> float:
        return self.instance_usd + self.storage_usd


def tiered_iops_usd(tiers: tuple[tuple[int, float], ...], iops: float) -> list[tuple[float, float]]:
    """Split `iops` over price tiers: [(iops in tier, USD per IOPS-month), ...]."""
    parts, below = [], 0.0
    for upto, price in tiers:
        if iops <= below:
            break
        in_tier = min(iops, upto) - below
        parts.append((in_tier, price))
        below = upto
    return parts


def _volume_charges(vt: VolumeType, size_gib: float, iops: int | None,
                    mibps: float | None) -> list[tuple[str, str, float, float]]:
    """(what, unit, quantity, USD per unit) of everything one volume bills: storage, provisioned
    IOPS by tier, gp3 throughput above the included rate. The one price formula: the itemised
    cost and the fast total both read it."""
    out = [("storage", "GiB-month", size_gib, vt.storage_usd_per_gib_month)]
    if iops is not None and vt.iops_usd_tiers:
        billable = iops - (vt.included_iops or 0) if vt.model == "gp3" else iops
        out += [("provisioned IOPS", "IOPS-month", n, price)
                for n, price in tiered_iops_usd(vt.iops_usd_tiers, billable)]
    if mibps is not None and vt.throughput_usd_per_mibps_month and vt.included_mibps is not None:
        extra = mibps - vt.included_mibps
        if extra > 0:
            out.append((f"throughput above {vt.included_mibps:g} MiB/s", "MiB/s-month", extra,
                        vt.throughput_usd_per_mibps_month))
    return out


def volume_items(vt: VolumeType, size_gib: float, iops: int | None,
                 mibps: float | None, label: str) -> list[CostItem]:
    """Cost items of one volume (storage, provisioned IOPS by tier, gp3 extra throughput)."""
    return [CostItem(item=f"{label} {what}", quantity=quantity, unit=unit, unit_usd=price,
                     monthly_usd=quantity * price)
            for what, unit, quantity, price in _volume_charges(vt, size_gib, iops, mibps)]


def _volumes_usd(layout: Layout, vt: VolumeType) -> float:
    per_volume = 0.0
    for _, _, quantity, price in _volume_charges(vt, layout.device_size_gib, layout.iops,
                                              layout.throughput_mibps):
        per_volume += quantity * price
    return per_volume * layout.spec.count


def layout_cost(layout: Layout) -> Cost:
    inst = layout.instance
    items: list[CostItem] = []
    notes: list[str] = []
    instance_usd = 0.0
    if inst is not None:
        instance_usd = inst.hourly_usd * HOURS_PER_MONTH
        items.append(CostItem(item=f"{inst.name} {inst.pricing_plan}", quantity=HOURS_PER_MONTH,
                              unit="hours", unit_usd=inst.hourly_usd, monthly_usd=instance_usd))
        if inst.pricing_plan != "on-demand":
            notes.append(f"{inst.name} priced {inst.pricing_plan}: effective hourly rate "
                         f"[{inst.sources.get('hourly_usd', 'no source')}]; EBS is billed the "
                         "same under every plan")
        if inst.unverified("hourly_usd"):
            notes.append(f"{inst.name}'s {inst.pricing_plan} price is unverified (no source)")
        # The other figures this answer rests on: the shape and the limits the model applies.
        shaky = [key for key in ("vcpu", "memory_gib") if inst.unverified(key)]
        if inst.ebs is not None and layout.volume_type is not None and inst.unverified("ebs"):
            shaky.append("ebs")
        if layout.ephemeral and inst.store is not None and inst.unverified("store"):
            shaky.append("store")
        if shaky:
            notes.append(f"{inst.name}'s {', '.join(shaky)} figures are unverified (no source)")
    vt = layout.volume_type
    if vt is not None:
        for n in range(layout.spec.count):
            label = f"{vt.name} volume {n + 1}" if layout.spec.count > 1 else f"{vt.name} volume"
            items += volume_items(vt, layout.device_size_gib, layout.iops,
                                  layout.throughput_mibps, label)
        if vt.io_requests_usd_per_million:
            notes.append(f"{vt.name} also bills ${vt.io_requests_usd_per_million:g} per million "
                         "I/O requests (not included: depends on the workload)")
        if inst is not None and inst.ebs is not None and inst.ebs.optimization == "optional":
            notes.append(f"{inst.name} bills an extra hourly fee for EBS optimization; its "
                         "amount is not published in our sources and is not included")
    elif layout.ephemeral:
        notes.append("instance store is included in the instance price")
    # The same total as `monthly_usd`, to the last bit: the items only spell it out.
    storage_usd = _volumes_usd(layout, vt) if vt is not None else 0.0
    return Cost(instance_usd=instance_usd, storage_usd=storage_usd, items=tuple(items),
                notes=tuple(notes))


def monthly_usd(layout: Layout) -> float:
    """The total of `layout_cost(layout)` without building its items (for ranking thousands)."""
    total = layout.instance.hourly_usd * HOURS_PER_MONTH if layout.instance else 0.0
    vt = layout.volume_type
    return total if vt is None else total + _volumes_usd(layout, vt)
