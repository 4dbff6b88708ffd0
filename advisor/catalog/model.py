"""Catalog value objects: EBS volume types, instance types, device latency profiles.

Every figure in the shipped data carries a source tag (see `Catalog.sources`); figures that are
not published say so in `notes`. These objects are frozen and keyword-only; pydantic is used only
where a file is read (`advisor.catalog.load`).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Media = Literal["ssd", "hdd"]
# How a volume type's IOPS and throughput follow from its size and provisioned values.
VolumeModel = Literal["gp2", "gp3", "io1", "io2", "throughput_credits", "magnetic"]
StoreKind = Literal["nvme", "ssd", "hdd"]
EbsOptimization = Literal["default", "optional", "unsupported"]
Arch = Literal["x86_64", "arm64"]
# How an instance is paid for. "on-demand" is `InstanceType.hourly_usd`; the others are effective
# hourly rates in `InstanceType.plan_hourly_usd` where a source gives one (the built-in catalog has
# 1yr-reserved from an ec2instances.info extract and 3yr-reserved from service-capacity-modeling,
# both All Upfront; savings-plan has no per-type source yet).
PricingPlan = Literal["on-demand", "1yr-reserved", "3yr-reserved", "savings-plan"]
PRICING_PLANS: tuple[PricingPlan, ...] = ("on-demand", "1yr-reserved", "3yr-reserved",
                                          "savings-plan")
# The plans `--pricing` offers: those the built-in catalog has a source for.
OFFERED_PLANS: tuple[PricingPlan, ...] = ("on-demand", "1yr-reserved", "3yr-reserved")
PRICING_HELP = ("how instances are paid for: on-demand, 1yr-reserved or 3yr-reserved (All Upfront "
                "standard RI as an effective hourly rate: the plans the catalog has a source for; "
                "a type with no price under the plan is not considered)")
LAYOUT_PRICING_HELP = ("how the instance is paid for: on-demand, 1yr-reserved or 3yr-reserved "
                       "(All Upfront standard RI as an effective hourly rate: the plans the "
                       "catalog has a source for; a type with no price under the plan is refused)")
# Source tags that mean "no source": answers resting on such a figure say so.
UNVERIFIED_TAGS = ("unsourced", "unverified")


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencyDist:
    """Service time of one small I/O on an idle device: log-normal body plus a rare heavy tail.

    The tail is drawn log-uniformly between `tail_min_ms` and `tail_max_ms` with probability
    `tail_probability` (device stalls: EBS hiccups, NVMe garbage collection, HDD retries).
    """

    median_ms: float
    sigma: float
    tail_probability: float = 0.0
    tail_min_ms: float = 0.0
    tail_max_ms: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencyProfile:
    """Latency and per-I/O transfer speed of one device class (e.g. `ebs-gp2`, `nvme-i3`)."""

    name: str
    read: LatencyDist
    write: LatencyDist
    # Streaming speed of a single I/O once the device has started it: transfer time = bytes / it.
    transfer_mibps: float
    # Time to make a write durable (fsync/flush barrier) beyond the write itself.
    flush_ms: float = 0.0
    # SSD read/write interference: the chance that a read lands behind a flash program or erase
    # (and takes a tail stall) per MiB/s written to the device. 0 where nothing is published.
    read_stall_per_write_mibps: float = 0.0
    # Spinning disk: the read/write distribution is the positioning time (seek and rotation),
    # paid only when the head must move; an I/O that continues where the previous one ended
    # (sequential) pays its transfer alone.
    spinning: bool = False
    # Device write-back cache (NVMe): device time of flash work that acknowledged writes may hold
    # ahead of the device's capacity; reads queue behind it. 0: none.
    write_cache_ms: float = 0.0
    # Variability: each volume spends about `slow_share` of the time in slow episodes of
    # `slow_episode_s`, placed at random per volume and run (seeded); in one, the volume loses a
    # share of its speed drawn uniformly per episode up to 1 - 1 / `slow_factor`, i.e. its service
    # times are multiplied by at most `slow_factor`.
    slow_share: float = 0.0
    slow_episode_s: float = 0.0
    slow_factor: float = 1.0
    sources: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class VolumeType:
    """An EBS volume type and the rules that turn size and provisioned values into limits."""

    name: str
    title: str
    media: Media
    model: VolumeModel
    min_size_gib: int
    max_size_gib: int
    # I/O size accounting: I/Os up to this size count as one; sequential ones merge up to it.
    io_unit_kib: int
    # IOPS rules (which fields apply depends on `model`).
    min_iops: int | None = None
    max_iops: int
    max_iops_non_nitro: int | None = None
    iops_per_gib: float | None = None  # gp2: baseline rate; gp3/io1/io2: maximum ratio
    included_iops: int | None = None  # gp3: included with every volume
    burst_iops: int | None = None  # gp2
    burst_bucket_credits: float | None = None  # gp2 I/O credits
    # Throughput rules (MiB/s).
    max_mibps: float
    included_mibps: float | None = None  # gp3
    max_mibps_per_iops: float | None = None  # gp3 ratio cap; io2 BE scaling
    small_volume_max_mibps: float | None = None  # gp2 at or below `small_volume_gib`
    small_volume_gib: float | None = None  # gp2: 170 GiB
    full_throughput_gib: float | None = None  # gp2: 334 GiB
    baseline_mibps_per_tib: float | None = None  # st1/sc1 credit accrual
    burst_mibps_per_tib: float | None = None  # st1/sc1
    bucket_mib_per_tib: float | None = None  # st1/sc1: 1 TiB of credits per TiB
    typical_iops: int | None = None  # magnetic: ~100 average
    # Prices (us-east-1 unless the user catalog overrides).
    storage_usd_per_gib_month: float
    # Provisioned IOPS price tiers: (up to this IOPS count, USD per IOPS-month); gp3 counts only
    # IOPS above `included_iops`.
    iops_usd_tiers: tuple[tuple[int, float], ...] = ()
    throughput_usd_per_mibps_month: float | None = None  # gp3 above included
    io_requests_usd_per_million: float | None = None  # magnetic
    # Annual failure rate as a fraction (0.002 = 0.2 %); None where AWS publishes none.
    annual_failure_rate: float | None = None
    latency_profile: str
    sources: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def provisioned_iops(self) -> bool:
        return self.model in ("gp3", "io1", "io2")

    @property
    def provisioned_throughput(self) -> bool:
        return self.model == "gp3"


@dataclass(frozen=True, slots=True, kw_only=True)
class InstanceStore:
    """The instance's own (ephemeral) disks, as AWS lists them."""

    count: int
    size_gb: float  # decimal GB as AWS states it
    kind: StoreKind
    # AWS: 4 KiB random IOPS at queue-depth saturation over all the instance's devices (floors).
    read_iops: float | None = None
    write_iops: float | None = None
    needs_init: bool = False
    latency_profile: str
    # Sequential MiB/s per device; None where unpublished (the model then uses the profile's).
    seq_mibps_per_device: float | None = None
    # Saturation IOPS fitted to a published measurement; they win over AWS's floors.
    measured_read_iops: float | None = None
    measured_write_iops: float | None = None

    @property
    def device_read_iops(self) -> float | None:
        total = self.measured_read_iops or self.read_iops
        return total / self.count if total else None

    @property
    def device_write_iops(self) -> float | None:
        total = self.measured_write_iops or self.write_iops
        return total / self.count if total else None

    @property
    def size_gib(self) -> float:
        return self.size_gb * 1e9 / 2**30


@dataclass(frozen=True, slots=True, kw_only=True)
class EbsLimits:
    """Instance-level EBS limits: shared by all EBS volumes attached to the instance."""

    optimization: EbsOptimization
    baseline_mbps: float
    max_mbps: float
    baseline_mbs: float  # MB/s at 128 KiB I/O
    max_mbs: float
    baseline_iops: float  # at 16 KiB I/O
    max_iops: float
    burst: bool  # max for 30 minutes at least once every 24 hours, then baseline


@dataclass(frozen=True, slots=True, kw_only=True)
class InstanceType:
    name: str
    vcpu: int
    memory_gib: float
    hourly_usd: float  # on-demand
    # Effective hourly rate under other pricing plans (e.g. {"3yr-reserved": 0.0361}); a plan
    # missing here has no sourced price for this type.
    plan_hourly_usd: Mapping[str, float] = field(default_factory=dict)
    # The plan `hourly_usd` is quoted under (`advisor.catalog.pricing.with_plan` swaps it).
    pricing_plan: PricingPlan = "on-demand"
    nitro: bool
    previous_generation: bool = False
    arch: Arch = "x86_64"
    # Network bandwidth in Gbit/s: the sustained baseline and the burst ceiling ("up to" figures).
    # None where the catalog has no sourced figure; a check that needs it then says so.
    network_baseline_gbps: float | None = None
    network_burst_gbps: float | None = None
    ebs: EbsLimits | None  # None: EBS optimization unsupported (volumes still attach, unmanaged)
    store: InstanceStore | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0]

    def plan_usd(self, plan: PricingPlan) -> float | None:
        """Hourly price under `plan`; None where the catalog has no sourced figure for it."""
        return self.hourly_usd if plan == self.pricing_plan else self.plan_hourly_usd.get(plan)

    def plan_source(self, plan: PricingPlan) -> str | None:
        key = "hourly_usd" if plan == "on-demand" else f"plan_hourly_usd.{plan}"
        return self.sources.get(key)

    def unverified(self, key: str) -> bool:
        """Whether the figure `key` (a field or a dotted sub-field) has no source tag that
        names a source: absent, or tagged unsourced/unverified."""
        tag = self.sources.get(key) or self.sources.get(key.split(".", 1)[0])
        return tag is None or tag.startswith(UNVERIFIED_TAGS)


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalDevice:
    """A device measured on a real machine (`advisor calibrate`), usable as `local:NAME`."""

    name: str
    capacity_gib: float
    read_iops: float  # saturation, at `block_kib`
    write_iops: float
    block_kib: int
    seq_read_mibps: float
    seq_write_mibps: float
    latency_profile: str
    sources: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Catalog:
    schema_version: int
    catalog_version: str
    region: str
    volume_types: Mapping[str, VolumeType]
    instance_types: Mapping[str, InstanceType]
    latency_profiles: Mapping[str, LatencyProfile]
    local_devices: Mapping[str, LocalDevice]
    sources: Mapping[str, str]
    # Where entries came from, e.g. ("built-in us-east-1", "/home/me/private.json").
    origins: tuple[str, ...] = ()
