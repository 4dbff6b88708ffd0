"""The built-in catalog holds what the facts sheet says, and says where each figure came from."""

import dataclasses
import re

import pytest

from advisor.catalog import builtin_catalog

CATALOG = builtin_catalog()

# facts §2.1: instance, vCPU, memory GiB, $/h [S11], instance store (count, GB, kind) [S7]
FACTS_2_1 = [
    ("m5.large", 2, 8, 0.096, None),
    ("m5.xlarge", 4, 16, 0.192, None),
    ("m5.2xlarge", 8, 32, 0.384, None),
    ("m5.4xlarge", 16, 64, 0.768, None),
    ("m5.8xlarge", 32, 128, 1.536, None),
    ("m5d.large", 2, 8, 0.113, (1, 75, "nvme")),
    ("m5d.8xlarge", 32, 128, 1.808, (2, 600, "nvme")),
    ("r5.large", 2, 16, 0.126, None),
    ("r5.xlarge", 4, 32, 0.252, None),
    ("r5.2xlarge", 8, 64, 0.504, None),
    ("r5.4xlarge", 16, 128, 1.008, None),
    ("c5.large", 2, 4, 0.085, None),
    ("c4.2xlarge", 8, 15, 0.398, None),
    ("i3.large", 2, 15.25, 0.156, (1, 475, "nvme")),
    ("i3.xlarge", 4, 30.5, 0.312, (1, 950, "nvme")),
    ("i3.2xlarge", 8, 61, 0.624, (1, 1900, "nvme")),
    ("i3.4xlarge", 16, 122, 1.248, (2, 1900, "nvme")),
    ("i3.8xlarge", 32, 244, 2.496, (4, 1900, "nvme")),
    ("i3.16xlarge", 64, 488, 4.992, (8, 1900, "nvme")),
    ("i3en.large", 2, 16, 0.226, (1, 1250, "nvme")),
    ("i3en.xlarge", 4, 32, 0.452, (1, 2500, "nvme")),
    ("i3en.2xlarge", 8, 64, 0.904, (2, 2500, "nvme")),
    ("i3en.3xlarge", 12, 96, 1.356, (1, 7500, "nvme")),
    ("i3en.6xlarge", 24, 192, 2.712, (2, 7500, "nvme")),
    ("i4i.large", 2, 16, 0.172, (1, 468, "nvme")),
    ("i4i.xlarge", 4, 32, 0.343, (1, 937, "nvme")),
    ("i4i.2xlarge", 8, 64, 0.686, (1, 1875, "nvme")),
    ("i4i.4xlarge", 16, 128, 1.373, (1, 3750, "nvme")),
    ("i4i.8xlarge", 32, 256, 2.746, (2, 3750, "nvme")),
    ("m6i.large", 2, 8, 0.096, None),
    ("m6i.xlarge", 4, 16, 0.192, None),
    ("m6i.2xlarge", 8, 32, 0.384, None),
    ("m6id.large", 2, 8, 0.11865, (1, 118, "nvme")),
    ("m6id.xlarge", 4, 16, 0.2373, (1, 237, "nvme")),
    ("m6id.2xlarge", 8, 32, 0.4746, (1, 474, "nvme")),
    ("r6i.large", 2, 16, 0.126, None),
    ("r6i.xlarge", 4, 32, 0.252, None),
    ("r6i.2xlarge", 8, 64, 0.504, None),
    ("r6id.large", 2, 16, 0.1512, (1, 118, "nvme")),
    ("r6id.xlarge", 4, 32, 0.3024, (1, 237, "nvme")),
    ("r6id.2xlarge", 8, 64, 0.6048, (1, 474, "nvme")),
    ("m1.large", 2, 7.5, 0.175, (2, 420, "hdd")),  # vCPU/memory [S16]
    ("c1.medium", 2, 1.7, 0.130, (1, 350, "hdd")),  # vCPU/memory [S16][S17]
]
ALLOWED_UNTAGGED = re.compile(r"^unsourced\b")


def test_schema_version_is_1() -> None:
    """The shipped data is schema version 1, for us-east-1."""
    assert (CATALOG.schema_version, CATALOG.region) == (1, "us-east-1")
    assert CATALOG.origins == ("built-in us-east-1.json",)


def test_every_facts_instance_is_present() -> None:
    """All 43 instance rows of facts §2.1 (m1.large and c1.medium included) are in the catalog,
    kept figure for figure (the next test) beside the built types (issue 14)."""
    assert len(FACTS_2_1) == 43
    assert {row[0] for row in FACTS_2_1} <= set(CATALOG.instance_types)


@pytest.mark.parametrize(("name", "vcpu", "memory_gib", "hourly_usd", "store"), FACTS_2_1,
                         ids=[row[0] for row in FACTS_2_1])
def test_instance_shape_price_and_store_match_facts(name: str, vcpu: int, memory_gib: float,
                                                    hourly_usd: float, store: tuple | None) -> None:
    """vCPU and memory [S8], on-demand $/h [S11], instance store [S7] as facts §2.1 lists."""
    i = CATALOG.instance_types[name]
    assert (i.vcpu, i.memory_gib, i.hourly_usd) == (vcpu, memory_gib, hourly_usd)
    got = (i.store.count, i.store.size_gb, i.store.kind) if i.store else None
    assert got == store


@pytest.mark.parametrize(("name", "limits"), [
    # (optimization, base Mbps, max Mbps, base MB/s, max MB/s, base IOPS, max IOPS, burst) [S6]
    ("m5d.large", ("default", 650, 4750, 81.25, 593.75, 3600, 18750, True)),
    ("m5.8xlarge", ("default", 6800, 6800, 850, 850, 30000, 30000, False)),
    ("c4.2xlarge", ("default", 1000, 1000, 125, 125, 8000, 8000, False)),
    ("i3.large", ("default", 425, 425, 53.125, 53.125, 3000, 3000, False)),
    ("i3en.3xlarge", ("default", 3800, 4750, 475.00, 593.75, 15000, 20000, True)),
    ("i4i.large", ("default", 625, 10000, 78.12, 1250, 2500, 40000, True)),
    ("m1.large", ("optional", 500, 500, 62.5, 62.5, 4000, 4000, False)),  # optional, extra fee
])
def test_instance_ebs_limits_match_facts(name: str, limits: tuple) -> None:
    """Instance EBS limits as facts §2.2 states them [S6]."""
    e = CATALOG.instance_types[name].ebs
    assert e is not None
    assert (e.optimization, e.baseline_mbps, e.max_mbps, e.baseline_mbs, e.max_mbs,
            e.baseline_iops, e.max_iops, e.burst) == limits


def test_c1_medium_has_no_ebs_optimization() -> None:
    """c1.medium: EBS optimization unsupported [S16][S17]; HDD store needing init [S7]. Its EBS
    ceiling is the assumed shared network link (the S8 network baseline), tagged unverified."""
    c1 = CATALOG.instance_types["c1.medium"]
    assert c1.ebs is not None
    assert c1.ebs.optimization == "unsupported"
    assert c1.sources["ebs.optimization"] == "S16,S17"
    assert c1.unverified("ebs")
    assert c1.network_baseline_gbps is not None
    assert c1.ebs.baseline_mbps == c1.ebs.max_mbps == c1.network_baseline_gbps * 1000
    assert c1.ebs.baseline_iops == c1.ebs.baseline_mbs * 64  # S6's ratio for the old types
    assert not c1.ebs.burst
    assert c1.previous_generation is True
    assert c1.store is not None
    assert c1.store.needs_init is True


@pytest.mark.parametrize(("name", "read_iops", "write_iops"), [
    ("m5d.large", 30000, 15000),
    ("m5d.8xlarge", 466666, 233333),
    ("i3.large", 100125, 35000),
    ("i3.16xlarge", 3300000, 1400000),
    ("i3en.large", 42500, 32500),
    ("i4i.8xlarge", 800000, 440000),
    ("m6id.2xlarge", 134167, 67084),
    ("m1.large", None, None),  # HDD: not published
])
def test_instance_store_iops_match_aws_tables(name: str, read_iops: float | None,
                                              write_iops: float | None) -> None:
    """Instance-store 4 KiB random IOPS over all devices, as AWS publishes them [S8]."""
    store = CATALOG.instance_types[name].store
    assert store is not None
    assert (store.read_iops, store.write_iops) == (read_iops, write_iops)


def test_volume_types_are_the_seven_of_facts_1() -> None:
    """gp2, gp3, io1, io2 (Block Express), st1, sc1 and standard [facts §1.1]."""
    assert sorted(CATALOG.volume_types) == sorted(
        ["gp2", "gp3", "io1", "io2", "st1", "sc1", "standard"])


@pytest.mark.parametrize(("name", "values"), [
    # (size GiB, max IOPS, max MiB/s, $/GB-month, AFR, I/O unit KiB)
    ("gp2", (1, 16384, 16000, 250, 0.10, 0.002, 256)),  # [S1][S2][S5][S12]
    ("gp3", (1, 65536, 80000, 2000, 0.08, 0.002, 256)),  # current API [S10]; [S12]
    ("io1", (4, 16384, 64000, 1000, 0.125, 0.002, 256)),  # [S1][S3][S12]
    ("io2", (4, 65536, 256000, 4000, 0.125, 0.00001, 256)),  # Block Express [S1][S3][S10]
    ("st1", (125, 16384, 500, 500, 0.045, 0.002, 1024)),  # [S1][S4][S5][S12]
    ("sc1", (125, 16384, 250, 250, 0.015, 0.002, 1024)),  # [S1][S4][S5][S12]
    ("standard", (1, 1024, 200, 90, 0.05, None, 1024)),  # [S1][S10][S12]; AFR unpublished
])
def test_volume_type_figures_match_facts(name: str, values: tuple) -> None:
    """Size range, maxima, price, AFR and I/O accounting unit per facts §1."""
    v = CATALOG.volume_types[name]
    assert (v.min_size_gib, v.max_size_gib, v.max_iops, v.max_mibps,
            v.storage_usd_per_gib_month, v.annual_failure_rate, v.io_unit_kib) == values


def test_volume_price_tiers_match_facts() -> None:
    """gp3 extra IOPS $0.005 and MiB/s $0.04 [S12]; io1 $0.065 [S12]; io2 three tiers [S29]."""
    vt = CATALOG.volume_types
    assert vt["gp3"].iops_usd_tiers == ((80000, 0.005),)
    assert vt["gp3"].throughput_usd_per_mibps_month == 0.04
    assert vt["io1"].iops_usd_tiers == ((64000, 0.065),)
    assert vt["io2"].iops_usd_tiers == ((32000, 0.065), (64000, 0.0455), (256000, 0.03185))


def _numeric_fields(obj: object) -> list[str]:
    """Names of the fields of a catalog entry that hold a figure (set, numeric or price tiers)."""
    out = []
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, f.name)
        if isinstance(value, bool) or value is None or value == ():
            continue
        if isinstance(value, int | float) or (isinstance(value, tuple)
                                              and all(isinstance(t, tuple) for t in value)):
            out.append(f.name)
    return out


@pytest.mark.parametrize("name", sorted(CATALOG.volume_types))
def test_every_volume_figure_has_a_source(name: str) -> None:
    """Each numeric field a volume type sets names its source."""
    v = CATALOG.volume_types[name]
    missing = [f for f in _numeric_fields(v) if f not in v.sources]
    assert missing == []


@pytest.mark.parametrize("name", sorted(CATALOG.instance_types))
def test_every_instance_figure_has_a_source(name: str) -> None:
    """Each instance names the source of its shape, price, EBS limits and instance store."""
    i = CATALOG.instance_types[name]
    expected = {"vcpu", "memory_gib", "hourly_usd", "ebs", "nitro"}
    if i.store is not None:
        expected.add("store")
        expected |= {f"store.{f}" for f in ("read_iops", "write_iops", "seq_mibps_per_device",
                                            "measured_read_iops", "measured_write_iops")
                     if getattr(i.store, f) is not None}
    assert expected <= set(i.sources)


def _tags_used() -> list[tuple[str, str]]:
    """(where, tag) for every source tag in the catalog: sources maps and [Sx] in notes."""
    found: list[tuple[str, str]] = []
    entries = [*CATALOG.volume_types.values(), *CATALOG.instance_types.values(),
               *CATALOG.latency_profiles.values()]
    for entry in entries:
        for field, value in entry.sources.items():
            if ALLOWED_UNTAGGED.match(value):
                continue
            found += [(f"{entry.name}.{field}", tag.strip()) for tag in value.split(",")]
        for note in entry.notes:
            found += [(f"{entry.name} note", tag) for tag in re.findall(r"\[(S\d+)\]", note)]
    return found


def test_every_source_tag_is_defined() -> None:
    """Every tag a figure cites (S1..S29, FIT, BRIEF8) is defined in `sources`."""
    tags = _tags_used()
    assert len(tags) > 100
    undefined = [(where, tag) for where, tag in tags if tag not in CATALOG.sources]
    assert undefined == []
    assert {"FIT", "BRIEF8"} <= set(CATALOG.sources)


def test_every_latency_profile_is_referenced_and_sourced() -> None:
    """Each latency profile is used by some device and cites a source for its figures."""
    used = {v.latency_profile for v in CATALOG.volume_types.values()}
    used |= {i.store.latency_profile for i in CATALOG.instance_types.values() if i.store}
    assert used == set(CATALOG.latency_profiles)
    for p in CATALOG.latency_profiles.values():
        assert {"read", "write", "transfer_mibps"} <= set(p.sources), p.name
