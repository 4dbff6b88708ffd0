"""Device models against what disks do (issue 11): EBS SSD latency by volume type, NVMe write-back
cache and parallelism, spinning disks that seek only when the head moves, and per-volume slow
episodes (RAID tails follow the slowest member), seeded and reproducible."""

import math
from dataclasses import replace
from statistics import NormalDist

import numpy as np
import pytest

from advisor.catalog.model import Catalog, LatencyDist
from advisor.layout import resolve
from advisor.sim.des import RawLevel, run_des
from advisor.sim.plan import SimPlan, compile_plan, steady
from advisor.sim.source import IoPattern
from advisor.sim.stats import EDGES
from advisor.userfiles import load_catalog

KIB = 1024


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


def _run(catalog: Catalog, spec: str, *, reads: float = 1.0, random: bool = True,
         block: int = 16 * KIB, depth: int = 1, duration_s: float = 10.0, seed: int = 1,
         plan: SimPlan | None = None) -> RawLevel:
    pattern = IoPattern(name="fio", read_fraction=reads, random=random, block_bytes=block,
                        concurrency=depth, span_bytes=64 * 2**30)
    plan = plan or compile_plan(resolve(spec, catalog), catalog)
    return run_des(plan, pattern, duration_s=duration_s, warmup_s=duration_s / 10, seed=seed)


def _share_over(d: LatencyDist, threshold_ms: float, transfer_ms: float) -> float:
    """P(service > threshold) of a profile's distribution, transfer time included."""
    body = 1 - NormalDist().cdf((math.log(threshold_ms - transfer_ms) - math.log(d.median_ms))
                                / d.sigma)
    lo, hi = max(d.tail_min_ms, d.median_ms), max(d.tail_max_ms, d.median_ms)
    x = threshold_ms - transfer_ms
    tail = 1.0 if x <= lo else 0.0 if x >= hi else math.log(hi / x) / math.log(hi / lo)
    return (1 - d.tail_probability) * body + d.tail_probability * tail


def test_io2_block_express_averages_under_half_a_millisecond_at_16k(catalog: Catalog) -> None:
    """AWS: io2 Block Express averages under 500 us for 16 KiB I/O [S30]; its median is no slower
    than gp3's, at QD1 for reads and for writes."""
    for reads in (1.0, 0.0):
        op = "read" if reads else "write"
        io2 = _run(catalog, "m5.8xlarge:io2:1000GiB:16000iops", reads=reads)
        gp3 = _run(catalog, "m5.8xlarge:gp3:1000GiB", reads=reads)
        assert io2.io_latency[op].mean_s < 0.0005
        assert io2.io_latency[op].quantile_s(50) <= gp3.io_latency[op].quantile_s(50)


def test_io2_has_ten_times_fewer_ios_over_800_us_than_gp3(catalog: Catalog) -> None:
    """AWS: io2 Block Express reduces the frequency of I/Os over 800 us by over 10x against
    gp2/gp3 [S30]: the profiles' own distributions (16 KiB transfer included)."""
    io2, gp3 = catalog.latency_profiles["ebs-io2"], catalog.latency_profiles["ebs-gp3"]
    for op in ("read", "write"):
        a = _share_over(getattr(io2, op), 0.8, 16 / 1024 / io2.transfer_mibps * 1000)
        b = _share_over(getattr(gp3, op), 0.8, 16 / 1024 / gp3.transfer_mibps * 1000)
        assert a * 10 < b, (op, a, b)


def test_gp3_read_spread_is_its_cited_measurement(catalog: Catalog) -> None:
    """S22: 1,000 ioping 4 KiB reads on gp3, mean 527 us, std-dev 229 us: within 10 %."""
    raw = _run(catalog, "m5.8xlarge:gp3:500GiB", block=4 * KIB, duration_s=60.0)
    mean_ms = raw.io_latency["read"].mean_s * 1000
    assert mean_ms == pytest.approx(0.527, rel=0.10)
    stats = raw.io_latency["read"]
    centres = np.sqrt(EDGES[:-1] * EDGES[1:])  # geometric bin centres, s
    counts = stats.counts[1:-1]
    sd_ms = math.sqrt(float(np.dot(counts, (centres - stats.mean_s) ** 2)) / counts.sum()) * 1000
    assert sd_ms == pytest.approx(0.229, rel=0.15)


def test_io1_is_at_least_as_fast_as_gp2_at_one_thread(catalog: Catalog) -> None:
    """BRIEF section 8 item 3's sweep has io1 at least as fast as gp2 at one thread (rndwr)."""
    io1 = _run(catalog, "m5.8xlarge:io1:1000GiB:50000iops", reads=0.0)
    gp2 = _run(catalog, "m5.8xlarge:gp2:1000GiB", reads=0.0)
    assert io1.completed >= gp2.completed


def test_nvme_writes_land_in_the_cache_and_reads_queue_behind_the_flash(
        catalog: Catalog) -> None:
    """fio randrw 75/25 4 KiB QD64 on m5d.large instance store: the published disk statistics
    give reads ~1.9 ms and writes ~0.26 ms (the write-back cache is fitted to them, so this
    checks the mechanism, 25 %), at the same total IOPS as before."""
    raw = _run(catalog, "m5d.large:store", reads=0.75, block=4 * KIB, depth=64)
    r, w = raw.io_latency["read"].mean_s * 1000, raw.io_latency["write"].mean_s * 1000
    assert r == pytest.approx(1.9, rel=0.25)
    assert w == pytest.approx(0.26, rel=0.25)
    assert raw.completed / (raw.duration_s - raw.warmup_s) == pytest.approx(42_799, rel=0.05)


def test_nvme_random_writes_saturate_from_four_threads(catalog: Catalog) -> None:
    """BRIEF section 8 item 3: local NVMe saturates from 4 threads (rndwr, 16 KiB)."""
    four = _run(catalog, "m5d.8xlarge:store", reads=0.0, depth=4, duration_s=2.0)
    many = _run(catalog, "m5d.8xlarge:store", reads=0.0, depth=128, duration_s=2.0)
    assert four.completed >= 0.85 * many.completed


def test_nvme_stalls_are_rare(catalog: Catalog) -> None:
    """S24: random reads at full load keep p99.9 at 619 us on a newer drive: fewer than 1 in
    1,000 I/Os stall, so p99.9 at QD4 stays under 1 ms, while stalls of 1-3 ms still happen."""
    raw = _run(catalog, "m5d.8xlarge:store", block=4 * KIB, depth=4, duration_s=20.0)
    assert raw.io_latency["read"].quantile_s(99.9) < 0.001
    assert raw.io_latency["read"].fraction_over_s(0.001) > 0


def test_spinning_disk_streams_sequential_reads_without_seeking(catalog: Catalog) -> None:
    """m1.large instance store, 1 MiB reads at QD1: sequential at least 2.5x random (a seek and
    rotation only when the head must move)."""
    seq = _run(catalog, "m1.large:store", random=False, block=1024 * KIB, duration_s=60.0)
    rnd = _run(catalog, "m1.large:store", random=True, block=1024 * KIB, duration_s=60.0)
    assert seq.completed >= 2.5 * rnd.completed


def test_magnetic_ebs_and_ephemeral_hdd_are_separate_profiles(catalog: Catalog) -> None:
    """Magnetic EBS is network-attached and streams at its 40-90 MiB/s [S1]; the old instance
    store is a local disk streaming at the media rate."""
    mag = catalog.latency_profiles["ebs-magnetic"]
    hdd = catalog.latency_profiles["hdd-instance-store"]
    assert mag.spinning
    assert hdd.spinning
    assert mag.transfer_mibps <= 90 < hdd.transfer_mibps


def _slow_member(plan: SimPlan, member: int, factor: float) -> SimPlan:
    """The plan with one member slow all the time (speed loss 1 - 1 / factor) and the others
    steady."""
    slow = np.zeros_like(plan.dev_slow)
    slow[member] = (3600.0, 1.0 - 1e-12, 1 - 1 / factor)
    return replace(plan, dev_slow=slow)


def test_raid0_tail_follows_its_slowest_member(catalog: Catalog) -> None:
    """RAID 0 of four gp3: with one member in a slow episode, the array's p99 rises towards that
    member's while its median barely moves: a stripe is as slow as its worst volume [S9]."""
    from advisor.sim.kernel import _slow_factor

    plan = steady(compile_plan(resolve("m5.8xlarge:raid0:4xgp3:500GiB", catalog), catalog))
    slow_plan = _slow_member(plan, 2, 4.0)
    devm = slow_plan.packed()[3]
    devm[:, 11] = np.random.default_rng([1, 11]).integers(1, 2**52, plan.members)  # as run_des
    assert _slow_factor(2, 5.0, devm) > 3.0  # this seed's episode: member 2 over 3x slower
    base = _run(catalog, "", block=16 * KIB, depth=8, plan=plan, seed=1)
    slow = _run(catalog, "", block=16 * KIB, depth=8, plan=slow_plan, seed=1)
    assert slow.io_latency["read"].quantile_s(99) > 1.5 * base.io_latency["read"].quantile_s(99)
    assert slow.io_latency["read"].quantile_s(50) < 1.2 * base.io_latency["read"].quantile_s(50)


def test_slow_episodes_are_per_volume_time_varying_and_seeded(catalog: Catalog) -> None:
    """Variability is on by default on EBS SSD: the same seed gives the same run, another seed
    places the episodes elsewhere; the steady plan has none."""
    plan = compile_plan(resolve("m5.8xlarge:raid0:4xgp3:500GiB", catalog), catalog)
    assert plan.variable
    assert not steady(plan).variable
    share = plan.dev_slow[0, 1]
    assert share == catalog.latency_profiles["ebs-gp3"].slow_share > 0
    a = _run(catalog, "", depth=8, plan=plan, seed=5)
    b = _run(catalog, "", depth=8, plan=plan, seed=5)
    assert a.io_latency["read"].quantile_s(99) == b.io_latency["read"].quantile_s(99)


def test_slow_episodes_take_their_share_of_time_per_volume() -> None:
    """Over a long time each member is slow for its share of the time, in episodes of the
    stated length, independently of the other members."""
    from advisor.sim.kernel import _slow_factor

    devm = np.zeros((2, 13))
    devm[:, 8], devm[:, 9], devm[:, 10] = 600.0, 0.05, 0.5
    devm[0, 11], devm[1, 11] = 12345, 67890
    t = np.arange(0.0, 6e7, 60.0)  # 1.9 years every minute: ~50,000 episodes
    slow = np.array([[_slow_factor(m, x, devm) > 1.0 for x in t] for m in (0, 1)])
    assert slow.mean(axis=1) == pytest.approx([0.05, 0.05], rel=0.05)
    both = (slow[0] & slow[1]).mean()
    assert both == pytest.approx(0.05 * 0.05, rel=0.25)  # independent members
    factors = np.array([_slow_factor(0, x, devm) for x in t[slow[0]]])
    assert factors.max() <= 2.0 + 1e-9
    assert factors.min() >= 1.0
