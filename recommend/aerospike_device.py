"""One Aerospike node's storage against ACT: the analytic screen of ACT's three thresholds, the
share of the layout's sustained rated I/O the node uses, the ACT rating of one device, and the
EBS shadow devices of an instance-store layout."""

import dataclasses
import math
from typing import Any

from advisor.catalog.model import Catalog, InstanceType
from advisor.layout.capacity import capacity, limits_of
from advisor.layout.cost import volume_items
from advisor.layout.model import Layout, resolve
from advisor.layout.spec import LayoutSpec
from advisor.sim.analytic import IoSpec, RequestClass, build_mix, read_fraction_over
from advisor.sim.plan import (
    SimPlan,
    compile_plan,
    episode_strata,
    with_member_slow,
    with_write_load,
)
from recommend.candidates import GP3_MIBPS_GRID
from recommend.result import DeviceRating, ResourceUse
from workloads.aerospike import (
    ACT_LIMITS,
    EPISODE_JUDGED_PER_DAY,
    EPISODE_STRATA,
    ActLoad,
    episode_share_of_hour,
    episodes_per_day,
)

UTIL_PRUNE = 0.9  # a layout needing more of its rated I/O than this is not screened
RATING_LADDER = (1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def act_screen(layout: Layout, catalog: Catalog, load: ActLoad, *,
               episodes: bool = False) -> tuple[bool, str, list[float]]:
    """ACT's three thresholds on the analytic engine: the share of small reads over 1, 8, 64 ms
    in the usual hours; with `episodes`, on volumes with slow episodes the hour holding one must
    pass too (`episode_screen`), as in the sizing's event-simulation check (a device's ACT
    rating is the usual hours')."""
    plan = compile_plan(layout, catalog)
    over = _fractions_over(plan, layout, load)
    fails = _over_limits(over)
    if episodes and not fails:
        hour = episode_screen(plan, layout, load, over)
        if hour is not None and (bad := _over_limits(hour)):
            fails = [f"an hour holding one volume's {plan.profile.slow_episode_s / 60:g}-min "
                     f"slow episode: {'; '.join(bad)}"]
    return not fails, "; ".join(fails), over


def _over_limits(over: list[float]) -> list[str]:
    """Each of ACT's thresholds at or over its limit, in words (shares of reads `over`)."""
    return [f"{100 * f:.2f} % of reads over {ms} ms (limit {lim:g} %)"
            for f, (ms, lim) in zip(over, ACT_LIMITS, strict=True) if 100 * f >= lim]


def _fractions_over(plan: SimPlan, layout: Layout, load: ActLoad) -> list[float]:
    """The share of small reads over each of ACT's thresholds on `plan`, analytic."""
    devices = layout.spec.count
    block = load.large_block_kib * 1024
    plan = with_write_load(plan, load.large_block_writes_per_sec * block / 2**20 / devices)
    rate = max(load.internal_reads_per_sec, 1e-9)
    bg = (IoSpec(op=1, size_bytes=block, count=load.large_block_writes_per_sec / rate),
          IoSpec(op=0, size_bytes=block, count=load.large_block_reads_per_sec / rate))
    mix = build_mix(plan, (RequestClass(probability=1.0, kind=0, ios=(
        IoSpec(op=0, size_bytes=load.read_bytes, count=1),)),), bg)
    return read_fraction_over(plan, mix, rate=rate, duration_s=3600.0,
                              thresholds_s=tuple(ms / 1000 for ms, _ in ACT_LIMITS))


def episode_screen(plan: SimPlan, layout: Layout, load: ActLoad,
                   usual: list[float]) -> list[float] | None:
    """ACT's hour holding one volume's slow episode on the analytic engine, as
    `workloads.aerospike.episode_hour` runs it in the event simulation: EPISODE_STRATA strata
    of the speed loss; in each, the slowed volume's reads (1 / members of them, on RAID 0 each
    member queues apart) at the share over each threshold of a layout whose every member is
    slowed so, the others' at `usual`; the episode's share of the hour at the strata's mean,
    the rest at `usual`. None where the device model has no episodes or ACT's 24 h more
    likely than not hold none (the hour is not judged there)."""
    if not plan.variable:
        return None
    if episodes_per_day(plan) < EPISODE_JUDGED_PER_DAY:
        return None
    slowed_reads = 1 / plan.members  # the slowed volume's share of the reads
    episode = [0.0] * len(usual)
    for loss, _ in episode_strata(plan, EPISODE_STRATA):
        slowed = plan
        for member in range(plan.members):
            slowed = with_member_slow(slowed, loss, member)
        for i, f in enumerate(_fractions_over(slowed, layout, load)):
            episode[i] += (slowed_reads * f + (1 - slowed_reads) * usual[i]) / EPISODE_STRATA
    share = episode_share_of_hour(plan)
    return [(1 - share) * u + share * e for u, e in zip(usual, episode, strict=True)]


def io_utilisation(layout: Layout, catalog: Catalog, load: ActLoad) -> float:
    """Share of the layout's sustained rated capacity the node's I/O uses (small reads + large
    blocks), burst credits not counted."""
    lim = limits_of(layout, catalog)
    small = capacity(layout, catalog, write=False, size_kib=load.read_bytes / 1024,
                     bursting=False, limits=lim).iops
    if load.internal_reads_per_sec > UTIL_PRUNE * small:
        return load.internal_reads_per_sec / small  # past the prune on the small reads alone
    big = load.large_block_kib
    wcap = capacity(layout, catalog, write=True, size_kib=big, bursting=False, limits=lim).iops
    rcap = capacity(layout, catalog, write=False, size_kib=big, bursting=False, limits=lim).iops
    return (load.internal_reads_per_sec / small + load.large_block_writes_per_sec / wcap
            + load.large_block_reads_per_sec / rcap)


def act_margin(over: list[float]) -> float:
    """The screen's worst share of a threshold's limit (1 = at the limit)."""
    return max(100 * f / lim for f, (_, lim) in zip(over, ACT_LIMITS, strict=True))


def shadow_devices(layout: Layout, catalog: Catalog, load: ActLoad,
            inst: InstanceType) -> tuple[tuple[Any, ...], ResourceUse] | str:
    """gp3 shadow devices, one per instance-store device, sized to it and provisioned for the
    node's large-block writes (Aerospike mirrors every write to the shadow; reads stay local)."""
    vt = catalog.volume_types.get("gp3")
    if vt is None or inst.ebs is None:
        return "no gp3 or no EBS on this instance for a shadow device"
    devices = layout.spec.count
    size = math.ceil(layout.device_size_gib)
    write_mibps = load.large_block_writes_per_sec * load.large_block_kib / 1024
    per_dev = write_mibps / devices
    mibps = next((m for m in GP3_MIBPS_GRID if m >= per_dev * 1.25 and m <= vt.max_mibps), None)
    if mibps is None:
        return f"shadow writes {per_dev:,.0f} MiB/s a device exceed gp3's {vt.max_mibps:g} MiB/s"
    items = tuple(item for k in range(devices) for item in volume_items(
        vt, size, None, mibps, f"shadow gp3 #{k + 1}"))
    ebs_mibps = inst.ebs.baseline_mbs * 1e6 / 2**20
    use = ResourceUse(resource="shadow EBS writes", need=round(write_mibps, 3),
                      have=round(ebs_mibps, 3), unit="MiB/s",
                      utilisation=round(write_mibps / ebs_mibps, 4),
                      basis=f"{devices} x gp3 {size} GiB at {mibps} MiB/s against the "
                            "instance's sustained EBS bandwidth")
    return items, use


def device_rating(spec: LayoutSpec, catalog: Catalog,
                  cache: dict[str, DeviceRating] | None = None) -> DeviceRating:
    """The highest rung of ACT's load ladder (1x, 1.5x, 2x, 3x ... 512x) one device of `spec`
    passes on the analytic engine, with ACT's default configuration."""
    one = dataclasses.replace(spec, raid=None, count=1)
    name = str(one)
    if cache is not None and name in cache:
        return cache[name]
    layout = resolve(one, catalog)
    lo, hi = -1, len(RATING_LADDER)  # passes at rung lo (-1: none yet), fails at rung hi
    while hi - lo > 1:  # the screen's verdict falls with load: bisect the ladder
        mid = (lo + hi) // 2
        ok, _, _ = act_screen(layout, catalog, ActLoad.at_x(RATING_LADDER[mid], 1))
        lo, hi = (mid, hi) if ok else (lo, mid)
    best = RATING_LADDER[lo] if lo >= 0 else None
    text = (f"{name}: passes ACT up to {best:g}x" if best is not None
            else f"{name}: does not pass ACT at 1x")
    if best == RATING_LADDER[-1]:
        text += " (the top of the ladder tried)"
    rating = DeviceRating(device=name, x=best, text=text)
    if cache is not None:
        cache[name] = rating
    return rating
