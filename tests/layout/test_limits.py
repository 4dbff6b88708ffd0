"""Every performance limit of a layout, and which one binds (BRIEF §4, facts §1-2)."""

from typing import Any

import pytest

from advisor.catalog import builtin_catalog
from advisor.errors import InvalidLayout
from advisor.layout import resolve
from advisor.layout.describe import describe
from advisor.layout.limits import volume_limits

CATALOG = builtin_catalog()
MB_PER_MIB = 2**20 / 1e6  # instance tables state MB/s [S6]; limits are in MiB/s


def limits(spec: str) -> dict[str, dict[str, Any]]:
    """The `limits` of `advisor layout SPEC --format json`, by name."""
    return {x["name"]: x for x in describe(resolve(spec, CATALOG), CATALOG)["limits"]}


def capacity(spec: str) -> dict[str, dict[str, Any]]:
    return describe(resolve(spec, CATALOG), CATALOG)["capacity"]


def gp2_iops(baseline: float, burst_s: int | None) -> dict[str, Any]:
    """The gp2 IOPS limit: 3,000 IOPS from a full 5.4 M credit bucket below 1 TiB [S2]."""
    out: dict[str, Any] = {"name": "gp2 volume IOPS", "scope": "volume", "unit": "iops",
                           "sustained": baseline, "io_unit_kib": 256}  # 256 KiB SSD unit [S5]
    if burst_s is not None:
        out["burst"] = 3000.0
        out["bucket"] = {"capacity": 5_400_000.0, "earn_per_s": baseline, "unit": "I/O credits",
                         "full_burst_s": burst_s}
    return out


# facts §1.2 [S2]: size -> baseline IOPS, seconds at 3,000 IOPS from a full bucket, MiB/s
GP2_TABLE = [
    (1, 100.0, 1862, 128.0),  # 5.4 M / (3,000 - 100) = 1,862 s
    (33, 100.0, 1862, 128.0),  # <= 33.33 GiB: the 100 IOPS minimum
    (100, 300.0, 2000, 128.0),  # also BRIEF §8 #5: 100 GiB -> 2,000 s
    (334, 1002.0, 2703, 250.0),  # also BRIEF §8 #5: 334 GiB -> 2,703 s; >= 334 GiB: 250 MiB/s
    (750, 2250.0, 7200, 250.0),
    (1000, 3000.0, None, 250.0),  # 1 TiB: baseline reaches 3,000, no burst
    (5334, 16000.0, None, 250.0),  # 16,000 reached at 5,334 GiB
    (16384, 16000.0, None, 250.0),  # and capped there
]


@pytest.mark.parametrize(("size_gib", "baseline", "burst_s", "mibps"), GP2_TABLE,
                         ids=[f"{row[0]}GiB" for row in GP2_TABLE])
def test_gp2_limits_follow_size(size_gib: int, baseline: float, burst_s: int | None,
                                mibps: float) -> None:
    """gp2: 3 IOPS/GiB (100-16,000), 3,000 IOPS burst below 1 TiB, 128/250 MiB/s by size [S2]."""
    got = limits(f"m5.8xlarge:gp2:{size_gib}GiB")
    assert got["gp2 volume IOPS"] == gp2_iops(baseline, burst_s)
    assert got["gp2 volume throughput"] == {"name": "gp2 volume throughput", "scope": "volume",
                                            "unit": "mibps", "sustained": mibps}


@pytest.mark.parametrize(("size_gib", "refill_s"),
                         [(1, 54_000), (100, 18_000), (334, 5_389), (750, 2_400)])
def test_gp2_empty_bucket_refills_at_baseline(size_gib: int, refill_s: int) -> None:
    """An empty gp2 bucket refills 5.4 M credits at the baseline rate (facts §1.2 table) [S2]."""
    iops = volume_limits(CATALOG.volume_types["gp2"], size_gib, None, None)[0]
    assert iops.bucket is not None
    assert round(iops.bucket.capacity / iops.bucket.earn_per_s) == refill_s


def test_gp2_between_170_and_334_gib_bursts_throughput_on_io_credits() -> None:
    """170-334 GiB: 128 MiB/s sustained, 250 MiB/s while I/O credits last [S1][S2]."""
    iops, tput = volume_limits(CATALOG.volume_types["gp2"], 200, None, None)
    assert (tput.sustained, tput.burst, tput.bucket) == (128.0, 250.0, None)
    assert tput.shares_bucket_of == iops.name == "gp2 volume IOPS"
    assert limits("m5.8xlarge:gp2:170GiB")["gp2 volume throughput"]["sustained"] == 128.0
    assert "burst" not in limits("m5.8xlarge:gp2:170GiB")["gp2 volume throughput"]


def test_gp3_includes_3000_iops_and_125_mibps_at_any_size() -> None:
    """gp3: 3,000 IOPS and 125 MiB/s included regardless of size, no burst [S2]."""
    for spec in ("m5.8xlarge:gp3:1GiB", "m5.8xlarge:gp3:1GiB:3000iops:125mbps"):
        got = limits(spec)
        assert got["gp3 volume IOPS"] == {"name": "gp3 volume IOPS", "scope": "volume",
                                          "unit": "iops", "sustained": 3000, "io_unit_kib": 256}
        assert got["gp3 volume throughput"] == {"name": "gp3 volume throughput",
                                                "scope": "volume", "unit": "mibps",
                                                "sustained": 125.0}


def test_gp3_16000_iops_needs_32_gib() -> None:
    """gp3 at most 500 IOPS/GiB, so 16,000 IOPS needs >= 32 GiB [S2]."""
    assert limits("m5.8xlarge:gp3:32GiB:16000iops")["gp3 volume IOPS"]["sustained"] == 16000
    with pytest.raises(InvalidLayout, match=r"16000 iops is over the gp3 500:1 IOPS:GiB ratio "
                       r"for 31GiB \(max 15500; 16000 iops needs at least 32GiB\)$"):
        resolve("m5.8xlarge:gp3:31GiB:16000iops", CATALOG)


def test_gp3_1000_mibps_needs_4000_iops() -> None:
    """gp3 at most 0.25 MiB/s per provisioned IOPS: 1,000 MiB/s needs 4,000 IOPS [S2]."""
    got = limits("m5.8xlarge:gp3:8GiB:4000iops:1000mbps")
    assert got["gp3 volume throughput"]["sustained"] == 1000.0
    with pytest.raises(InvalidLayout, match=r"needs at least 4000iops"):
        resolve("m5.8xlarge:gp3:8GiB:3999iops:1000mbps", CATALOG)


@pytest.mark.parametrize(("iops", "mibps"), [
    (1000, 250.0),  # <= 32,000 IOPS: 256 KiB I/Os ...
    (2000, 500.0),  # ... up to 500 MiB/s, reached at 2,000 IOPS x 256 KiB
    (32000, 500.0),
    (48000, 750.0),  # > 32,000 IOPS: 16 KiB x IOPS
    (64000, 1000.0),
])
def test_io1_throughput_follows_provisioned_iops(iops: int, mibps: float) -> None:
    """io1 throughput: 256 KiB x IOPS up to 500 MiB/s, then 16 KiB x IOPS above 32,000 [S3]."""
    tput = volume_limits(CATALOG.volume_types["io1"], 1280, iops, None)[1]
    assert (tput.name, tput.sustained) == ("io1 volume throughput", mibps)


@pytest.mark.parametrize(("iops", "mibps"), [(1000, 256.0), (10000, 2560.0),
                                             (16000, 4000.0), (256000, 4000.0)])
def test_io2_block_express_throughput_scales_with_iops(iops: int, mibps: float) -> None:
    """io2 Block Express: 0.256 MiB/s per provisioned IOPS, up to 4,000 MiB/s [S3]."""
    tput = volume_limits(CATALOG.volume_types["io2"], 256, iops, None)[1]
    assert tput.sustained == pytest.approx(mibps)


@pytest.mark.parametrize(("volume", "size_gib", "base", "burst"), [
    ("st1", 1024, 40.0, 250.0),  # 40 / 250 MiB/s per TiB
    ("st1", 2048, 80.0, 500.0),  # burst cap 500 reached at 2 TiB
    ("st1", 12800, 500.0, None),  # baseline cap 500 reached at 12.5 TiB: nothing to burst to
    ("sc1", 1024, 12.0, 80.0),  # 12 / 80 MiB/s per TiB
    ("sc1", 16384, 192.0, 250.0),  # 192 MiB/s at 16 TiB; burst cap 250
])
def test_hdd_throughput_credits_scale_per_tib(volume: str, size_gib: int, base: float,
                                              burst: float | None) -> None:
    """st1/sc1: baseline and burst MiB/s per TiB with caps; bucket 1 TiB per TiB [S4]."""
    tput = volume_limits(CATALOG.volume_types[volume], size_gib, None, None)[1]
    assert (tput.sustained, tput.burst) == pytest.approx((base, burst))
    if burst is not None:
        assert tput.bucket is not None
        assert tput.bucket.capacity == size_gib * 1024  # MiB: a full bucket = a full volume scan


def test_hdd_volume_counts_every_small_random_io_as_1_mib() -> None:
    """st1 charges each random I/O up to 1 MiB as 1 MiB of throughput credit [S4][S5].

    A 2 TiB st1 earns 80 MiB/s, so random 16 KiB I/Os run at 80 IOPS once credits are gone and
    at 500 (the 500 MiB/s burst, also the 500-IOPS maximum) while they last (BRIEF §4).
    """
    read = capacity("m5.8xlarge:st1:2TiB")["read_16KiB"]
    assert (read["iops"], read["binding"]) == (80.0, "st1 volume throughput")
    assert read["burst_iops"] == 500.0


def test_instance_ebs_caps_burst_30_minutes_a_day() -> None:
    """m5.large: 3,600 IOPS / 81.25 MB/s baseline, 18,750 / 593.75 max for 30 minutes [S6]."""
    got = limits("m5.large:gp2:100GiB")
    assert got["m5.large instance EBS IOPS"] == {
        "name": "m5.large instance EBS IOPS", "scope": "instance", "unit": "iops",
        "sustained": 3600.0, "burst": 18750.0, "io_unit_kib": 256,
        "bucket": {"capacity": (18750 - 3600) * 1800.0, "earn_per_s": 3600.0,
                   "unit": "instance I/O credits", "full_burst_s": 1800}}
    bandwidth = got["m5.large instance EBS bandwidth"]
    assert (bandwidth["sustained"], bandwidth["burst"]) == pytest.approx(
        (81.25 / MB_PER_MIB, 593.75 / MB_PER_MIB), abs=0.01)
    assert bandwidth["bucket"]["full_burst_s"] == 1800


def test_large_instance_sustains_its_ebs_maximum() -> None:
    """m5.8xlarge: 30,000 IOPS and 850 MB/s at all times, no burst [S6]."""
    got = limits("m5.8xlarge:gp2:100GiB")
    assert got["m5.8xlarge instance EBS IOPS"] == {
        "name": "m5.8xlarge instance EBS IOPS", "scope": "instance", "unit": "iops",
        "sustained": 30000.0, "io_unit_kib": 256}
    assert got["m5.8xlarge instance EBS bandwidth"] == {
        "name": "m5.8xlarge instance EBS bandwidth", "scope": "instance", "unit": "mibps",
        "sustained": round(850 / MB_PER_MIB, 2)}


def test_instance_cap_binds_a_striped_array_that_exceeds_it() -> None:
    """4 x gp3 at 16,000 IOPS (64,000) on m5.large: the instance's EBS caps bind [S6][S9]."""
    table = capacity("m5.large:raid0:4xgp3:500GiB:16000iops")
    for key in ("read_16KiB", "write_16KiB"):
        assert table[key]["iops"] == 3600.0  # m5.large baseline [S6]
        assert table[key]["binding"] == "m5.large instance EBS IOPS"
        assert table[key]["burst_iops"] == 18750.0  # m5.large maximum [S6]
        assert table[key]["burst_binding"] == "m5.large instance EBS IOPS"
    for key in ("read_256KiB", "write_256KiB"):
        assert table[key]["binding"] == "m5.large instance EBS bandwidth"
        assert table[key]["throughput_mibps"] == pytest.approx(81.25 / MB_PER_MIB, abs=0.1)
    assert all(c["binding"].startswith("m5.large instance EBS") for c in table.values())
    volume = limits("m5.large:raid0:4xgp3:500GiB:16000iops")["gp3 volume IOPS"]
    assert (volume["sustained"], volume["array_sustained"]) == (16000, 64000)


def test_io1_50000_iops_is_bound_by_the_m5_8xlarge_cap() -> None:
    """io1 at 50,000 IOPS on m5.8xlarge delivers the instance's 30,000 (BRIEF §8 #3) [S6]."""
    table = capacity("m5.8xlarge:io1:1000GiB:50000iops")
    assert (table["write_16KiB"]["iops"], table["write_16KiB"]["binding"]) == (
        30000.0, "m5.8xlarge instance EBS IOPS")


def test_raid1_of_store_reads_from_both_mirrors_and_writes_to_both() -> None:
    """RAID 1 of the two local disks reads up to 2x one disk and writes the same (BRIEF §8 #3)."""
    one = capacity("m5d.8xlarge:store")
    mirror = capacity("m5d.8xlarge:raid1:2xstore")
    assert mirror["read_16KiB"]["iops"] == pytest.approx(2 * one["read_16KiB"]["iops"], rel=1e-3)
    assert mirror["write_16KiB"]["iops"] == pytest.approx(one["write_16KiB"]["iops"], rel=1e-3)
    assert mirror["read_16KiB"]["binding"] == "instance-store device read capacity"


def test_store_layout_has_no_ebs_limits() -> None:
    """Instance store is not EBS: only the device's own capacity limits it [S8]."""
    got = limits("m5d.large:store")
    assert list(got) == ["device capacity"]
    # m5d.large: AWS floors 30,000 read / 15,000 write at 4 KiB [S8], superseded by the fit
    # to BRIEF §8 #1 (catalog's measured_*_iops, tagged FIT,BRIEF8).
    assert got["device capacity"]["rated_kib"] == 4
    assert got["device capacity"]["read_iops"] >= 30000
    assert got["device capacity"]["write_iops"] >= 15000
