"""Every performance limit of a layout, and which one binds for a given I/O.

A limit is a rate (IOPS or MiB/s) that may run faster while a credit bucket lasts: gp2 I/O
credits, st1/sc1 throughput credits, the 30-minutes-a-day burst of smaller instances. The same
objects feed the simulator (`advisor.sim.plan`), so what `advisor layout` prints is what the
simulator enforces.
"""

import math
from dataclasses import dataclass
from typing import Literal

from advisor.catalog.model import VolumeType
from advisor.layout.model import Layout

MB_TO_MIB = 1e6 / 2**20
KIB_PER_MIB = 1024
Scope = Literal["volume", "device", "instance"]
Unit = Literal["iops", "mibps"]
STORE_RATED_KIB = 4  # AWS rates instance store at 4 KiB random I/O


@dataclass(frozen=True, slots=True, kw_only=True)
class Bucket:
    """Credits that let a limit run at its burst rate; earned at `earn_per_s`, spent per unit."""

    capacity: float
    initial: float
    earn_per_s: float
    unit: str  # "I/O credits", "MiB", "instance I/O credits"...

    def seconds_at(self, rate: float) -> float:
        """How long a full bucket lasts when used at `rate` units/s (inf if it never drains)."""
        drain = rate - self.earn_per_s
        return math.inf if drain <= 0 else self.initial / drain


@dataclass(frozen=True, slots=True, kw_only=True)
class RateLimit:
    name: str
    scope: Scope
    unit: Unit
    sustained: float  # rate with no credits left
    burst: float | None = None  # rate while credits last
    bucket: Bucket | None = None
    # Accounting: an I/O up to this size counts as one I/O (IOPS limits) or as this many KiB
    # (HDD throughput limits); physically sequential I/Os merge up to it, larger ones split.
    io_unit_kib: int | None = None
    # Which bucket decides the burst when it is another limit's (gp2 throughput 170-334 GiB).
    shares_bucket_of: str | None = None

    def rate(self, *, bursting: bool) -> float:
        return self.burst if bursting and self.burst is not None else self.sustained

    def charge(self, size_kib: float, *, random: bool = True) -> float:
        """Units of this limit one member I/O of `size_kib` spends (see `charge`)."""
        return charge(self.unit, self.io_unit_kib, size_kib, random=random)


def charge(unit: Unit, io_unit_kib: float | None, size_kib: float, *, random: bool) -> float:
    """What one member I/O of `size_kib` costs a limit, in the limit's unit: the one home of the
    accounting (capacity, the analytic engine and the plan call it; the compiled kernel's copy is
    pinned to it by `tests/sim/test_raid_fanout.py`).

    IOPS: an I/O up to `io_unit_kib` counts as one and a larger one as several; a random I/O
    counts at least one whole I/O, physically sequential ones merge (a fraction). MiB/s: the bytes,
    or for a random I/O whole units of `io_unit_kib` when the limit has one (HDD throughput)."""
    if unit == "iops":
        if not io_unit_kib:
            return 1.0
        units = size_kib / io_unit_kib
        return max(1.0, math.ceil(units)) if random else units
    charged = (math.ceil(size_kib / io_unit_kib) * io_unit_kib if io_unit_kib and random
               else size_kib)
    return charged / KIB_PER_MIB


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceSpeed:
    """Internal capacity of a physical device (instance store, calibrated local disk)."""

    read_iops: float  # saturation at `rated_kib`
    write_iops: float
    rated_kib: int
    seq_mibps: float

    def seconds_per_io(self, *, write: bool, size_kib: float) -> float:
        per_io = 1.0 / (self.write_iops if write else self.read_iops)
        return device_seconds(per_io, self.rated_kib, self.seq_mibps, size_kib)


def device_seconds(per_io_s: float, rated_kib: float, seq_mibps: float, size_kib: float) -> float:
    """Device time of one I/O: the rated I/O's share of the device, plus the bytes beyond the
    rated size at the sequential rate (the one home; the analytic engine calls it too)."""
    return per_io_s + max(0.0, size_kib - rated_kib) / KIB_PER_MIB / seq_mibps


@dataclass(frozen=True, slots=True, kw_only=True)
class LayoutLimits:
    member_limits: tuple[RateLimit, ...]  # per volume (each member has its own copy)
    device: DeviceSpeed | None  # per member, for store/local devices
    instance_limits: tuple[RateLimit, ...]  # shared by all EBS members
    members: int
    raid: str | None


def volume_limits(vt: VolumeType, size_gib: float, iops: int | None,
                  mibps: float | None) -> tuple[RateLimit, ...]:
    """The rate limits of one EBS volume of type `vt`."""
    unit = vt.io_unit_kib
    if vt.model == "gp2":
        return _gp2(vt, size_gib)
    if vt.model == "gp3":
        assert iops is not None
        assert mibps is not None
        return (RateLimit(name="gp3 volume IOPS", scope="volume", unit="iops", sustained=iops,
                          io_unit_kib=unit),
                RateLimit(name="gp3 volume throughput", scope="volume", unit="mibps",
                          sustained=mibps))
    if vt.model in ("io1", "io2"):
        assert iops is not None
        return (RateLimit(name=f"{vt.name} volume IOPS", scope="volume", unit="iops",
                          sustained=iops, io_unit_kib=unit),
                RateLimit(name=f"{vt.name} volume throughput", scope="volume", unit="mibps",
                          sustained=_provisioned_mibps(vt, iops)))
    if vt.model == "throughput_credits":
        return _hdd(vt, size_gib)
    # magnetic: ~100 IOPS average, bursts to hundreds; no published bucket, so a flat rate
    typical = float(vt.typical_iops or vt.max_iops)
    return (RateLimit(name="standard volume IOPS", scope="volume", unit="iops",
                      sustained=typical, io_unit_kib=unit),
            RateLimit(name="standard volume throughput", scope="volume", unit="mibps",
                      sustained=vt.max_mibps))


def _provisioned_mibps(vt: VolumeType, iops: int) -> float:
    if vt.model == "io2" and vt.max_mibps_per_iops:
        return min(vt.max_mibps, vt.max_mibps_per_iops * iops)
    # io1: up to 32,000 IOPS, 256 KiB per I/O up to 500 MiB/s; above, 16 KiB x IOPS [S3]
    if iops <= 32000:
        return min(500.0, iops * 256 / 1024)
    return min(vt.max_mibps, iops * 16 / 1024)


def _gp2(vt: VolumeType, size_gib: float) -> tuple[RateLimit, ...]:
    assert vt.iops_per_gib
    assert vt.min_iops
    assert vt.burst_iops
    assert vt.burst_bucket_credits
    baseline = min(float(vt.max_iops), max(float(vt.min_iops), vt.iops_per_gib * size_gib))
    bursts = baseline < vt.burst_iops
    bucket = (Bucket(capacity=vt.burst_bucket_credits, initial=vt.burst_bucket_credits,
                     earn_per_s=baseline, unit="I/O credits") if bursts else None)
    iops = RateLimit(name="gp2 volume IOPS", scope="volume", unit="iops", sustained=baseline,
                     burst=float(vt.burst_iops) if bursts else None, bucket=bucket,
                     io_unit_kib=vt.io_unit_kib)
    small, small_gib = vt.small_volume_max_mibps, vt.small_volume_gib
    full_gib = vt.full_throughput_gib
    if small is None or small_gib is None or full_gib is None or size_gib >= full_gib:
        tput = RateLimit(name="gp2 volume throughput", scope="volume", unit="mibps",
                         sustained=vt.max_mibps)
    elif size_gib <= small_gib:
        tput = RateLimit(name="gp2 volume throughput", scope="volume", unit="mibps",
                         sustained=small)
    else:  # 170-334 GiB: 250 MiB/s while I/O credits last, 128 MiB/s after [S1]
        tput = RateLimit(name="gp2 volume throughput", scope="volume", unit="mibps",
                         sustained=small, burst=vt.max_mibps,
                         shares_bucket_of="gp2 volume IOPS")
    return iops, tput


def _hdd(vt: VolumeType, size_gib: float) -> tuple[RateLimit, ...]:
    assert vt.baseline_mibps_per_tib
    assert vt.burst_mibps_per_tib
    assert vt.bucket_mib_per_tib
    tib = size_gib / 1024
    base = min(vt.max_mibps, vt.baseline_mibps_per_tib * tib)
    burst = min(vt.max_mibps, vt.burst_mibps_per_tib * tib)
    bucket = Bucket(capacity=vt.bucket_mib_per_tib * tib, initial=vt.bucket_mib_per_tib * tib,
                    earn_per_s=base, unit="MiB")
    return (RateLimit(name=f"{vt.name} volume IOPS", scope="volume", unit="iops",
                      sustained=float(vt.max_iops), io_unit_kib=vt.io_unit_kib),
            # every I/O up to 1 MiB spends 1 MiB of throughput credit [S4]
            RateLimit(name=f"{vt.name} volume throughput", scope="volume", unit="mibps",
                      sustained=base, burst=burst if burst > base else None,
                      bucket=bucket if burst > base else None, io_unit_kib=vt.io_unit_kib))


def instance_limits(layout: Layout) -> tuple[RateLimit, ...]:
    """The instance's EBS caps (shared by all volumes); empty for store-only layouts."""
    inst = layout.instance
    if not layout.ebs or inst is None or inst.ebs is None:
        return ()
    e = inst.ebs
    # without EBS optimization the ceiling is the network link EBS shares (an assumption)
    name = inst.name if e.optimization != "unsupported" else f"{inst.name} shared-network"
    iops_bucket = bw_bucket = None
    if e.burst and e.max_iops > e.baseline_iops:
        # 30 minutes at the maximum, earned back at the baseline (modelled like gp2 credits;
        # AWS guarantees the burst only "at least once every 24 hours" [S6]).
        cap = (e.max_iops - e.baseline_iops) * 1800
        iops_bucket = Bucket(capacity=cap, initial=cap, earn_per_s=e.baseline_iops,
                             unit="instance I/O credits")
    if e.burst and e.max_mbs > e.baseline_mbs:
        cap = (e.max_mbs - e.baseline_mbs) * MB_TO_MIB * 1800
        bw_bucket = Bucket(capacity=cap, initial=cap, earn_per_s=e.baseline_mbs * MB_TO_MIB,
                           unit="instance MiB credits")
    return (
        RateLimit(name=f"{name} instance EBS IOPS", scope="instance", unit="iops",
                  sustained=e.baseline_iops, burst=e.max_iops if iops_bucket else None,
                  bucket=iops_bucket, io_unit_kib=layout.volume_type.io_unit_kib
                  if layout.volume_type else 256),
        RateLimit(name=f"{name} instance EBS bandwidth", scope="instance", unit="mibps",
                  sustained=e.baseline_mbs * MB_TO_MIB,
                  burst=e.max_mbs * MB_TO_MIB if bw_bucket else None, bucket=bw_bucket),
    )


def device_speed(layout: Layout, *, profile_transfer_mibps: float) -> DeviceSpeed | None:
    """Internal capacity of one store or local device; None for EBS (its caps are the limits)."""
    if layout.local is not None:
        d = layout.local
        return DeviceSpeed(read_iops=d.read_iops, write_iops=d.write_iops, rated_kib=d.block_kib,
                           seq_mibps=max(d.seq_read_mibps, d.seq_write_mibps))
    if not layout.ephemeral or layout.instance is None or layout.instance.store is None:
        return None
    store = layout.instance.store
    read, write = store.device_read_iops, store.device_write_iops
    seq = store.seq_mibps_per_device or profile_transfer_mibps
    if read is None or write is None:
        # HDD instance store: AWS publishes no IOPS; it performs "similar to standard EBS
        # volumes" [S27]: one seek at a time, so the device rate is 1 / service time.
        return None
    return DeviceSpeed(read_iops=read, write_iops=write, rated_kib=STORE_RATED_KIB,
                       seq_mibps=seq)


def layout_limits(layout: Layout, *, profile_transfer_mibps: float) -> LayoutLimits:
    members: tuple[RateLimit, ...] = ()
    if layout.volume_type is not None:
        members = volume_limits(layout.volume_type, layout.device_size_gib, layout.iops,
                                layout.throughput_mibps)
    return LayoutLimits(member_limits=members,
                        device=device_speed(layout, profile_transfer_mibps=profile_transfer_mibps),
                        instance_limits=instance_limits(layout), members=layout.spec.count,
                        raid=layout.spec.raid)
