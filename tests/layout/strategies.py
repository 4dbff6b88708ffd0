"""Hypothesis strategies for layout specs (in the manner of attrs' tests/strategies.py).

`layout_specs()` covers the grammar: any spec the parser must round-trip, whether or not the
catalog would accept it. `valid_layout_specs(catalog)` builds only specs that obey the catalog's
own limits (size range, IOPS and throughput ratios, Nitro maximum, instance-store device count),
so every one of them must resolve.
"""

from hypothesis import strategies as st

from advisor.catalog.model import Catalog, InstanceType, VolumeType
from advisor.layout.spec import DEFAULT_CHUNK_KIB, EBS_DEVICES, RAID_LEVELS, LayoutSpec

# Grammar of an instance name as the parser accepts it (m5.large, i3en.6xlarge, x-1.y).
instance_names = st.from_regex(r"[a-z][a-z0-9-]{0,7}\.[a-z0-9]{1,10}", fullmatch=True)
local_names = st.from_regex(r"[A-Za-z0-9_.-]{1,12}", fullmatch=True)
devices = st.sampled_from((*EBS_DEVICES, "store")) | local_names.map(lambda n: f"local:{n}")
raids = st.none() | st.sampled_from(RAID_LEVELS)
chunks = st.sampled_from([2**k for k in range(2, 15)])  # 4 KiB .. 16 MiB, powers of two


def layout_specs() -> st.SearchStrategy[LayoutSpec]:
    """Any grammatically valid spec (values need not fit a catalog)."""
    return st.builds(
        LayoutSpec,
        instance=instance_names,
        device=devices,
        raid=raids,
        count=st.integers(min_value=1, max_value=64),
        size_gib=st.none() | st.integers(min_value=0, max_value=2**20),
        iops=st.none() | st.integers(min_value=0, max_value=10**7),
        throughput_mibps=st.none() | st.integers(min_value=0, max_value=10**5),
        chunk_kib=chunks,
    )


def _raid_and_count(draw: st.DrawFn, available: int) -> tuple[str | None, int]:
    """A RAID level and device count that mdadm accepts with at most `available` devices."""
    options: list[tuple[str | None, int]] = [(None, 1)]
    options += [("raid0", n) for n in range(2, available + 1)]
    options += [("raid1", n) for n in range(2, min(available, 4) + 1)]
    options += [("raid10", n) for n in range(4, available + 1, 2)]
    return draw(st.sampled_from(options))


def _provisioned(draw: st.DrawFn, vt: VolumeType, instance: InstanceType,
                 size: int) -> tuple[int | None, int | None]:
    """IOPS and MiB/s within the type's maximum, its ratios and the instance's Nitro limit."""
    if not vt.provisioned_iops:
        return None, None
    top = vt.max_iops if instance.nitro or vt.max_iops_non_nitro is None else vt.max_iops_non_nitro
    by_ratio = int(vt.iops_per_gib * size) if vt.iops_per_gib else top
    if vt.included_iops is not None:
        # gp3: the included IOPS come with any size; the ratio bounds what is bought above them.
        high = max(vt.included_iops, min(top, by_ratio))
        iops = draw(st.none() | st.integers(min_value=vt.included_iops, max_value=high))
    else:
        assert vt.min_iops is not None
        iops = draw(st.integers(min_value=vt.min_iops, max_value=min(top, by_ratio)))
    if not vt.provisioned_throughput:
        return iops, None
    assert vt.included_mibps is not None
    assert vt.max_mibps_per_iops is not None
    effective = iops if iops is not None else vt.included_iops or 0
    high_mibps = int(min(vt.max_mibps, vt.max_mibps_per_iops * effective))
    mibps = draw(st.none() | st.integers(min_value=int(vt.included_mibps), max_value=high_mibps))
    return iops, mibps


@st.composite
def valid_layout_specs(draw: st.DrawFn, catalog: Catalog) -> LayoutSpec:
    """A spec that obeys every limit the catalog states, so it must resolve."""
    instance = draw(st.sampled_from(sorted(catalog.instance_types.values(),
                                           key=lambda i: i.name)))
    usable = [vt for vt in catalog.volume_types.values()
              if (instance.ebs is not None and instance.ebs.optimization != "unsupported")
              or not vt.provisioned_iops]
    choices: list[VolumeType | None] = sorted(usable, key=lambda v: v.name)
    if instance.store is not None:
        choices.append(None)  # the instance store
    vt = draw(st.sampled_from(choices))
    if vt is None:
        assert instance.store is not None
        raid, count = _raid_and_count(draw, instance.store.count)
        chunk = draw(chunks) if raid in ("raid0", "raid10") else DEFAULT_CHUNK_KIB
        return LayoutSpec(instance=instance.name, device="store", raid=raid,
                          count=count, chunk_kib=chunk)
    raid, count = _raid_and_count(draw, 8)
    size = draw(st.integers(min_value=vt.min_size_gib, max_value=vt.max_size_gib))
    iops, mibps = _provisioned(draw, vt, instance, size)
    chunk = draw(chunks) if raid in ("raid0", "raid10") else DEFAULT_CHUNK_KIB
    return LayoutSpec(instance=instance.name, device=vt.name, raid=raid,
                      count=count, size_gib=size, iops=iops, throughput_mibps=mibps,
                      chunk_kib=chunk)
