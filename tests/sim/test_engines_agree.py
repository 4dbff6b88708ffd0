"""The analytic engine against the event engine on a grid of layouts and loads.

Measured first (5 seeds each; bench/validation_table.py prints the table in docs/validation.md):
saturation IOPS differ by at most 1.9 % and IOPS below saturation by at most 4.9 % (HDD at
iodepth 8). In closed loops where one limit or one device binds, p50 differs by at most 3.4 % and
p99 by at most 9.7 %; open loop on io1, NVMe and RAID of gp3 by at most 6.7 % (p50) and 3.4 %
(p99); gp3 open-loop p99 is +18.6 %, the edge of the open-loop gap below. Seed-to-seed noise is
under 1 %. Tolerances set from that: IOPS 5 %, p50 10 %, p99 20 %.

Known gap, a strict xfail so it stays visible (see KNOWN_GAPS): RAID 0 of 8 gp3 volumes at
iodepth 64, p50 -10.2 % (p99 -3.0 %).
Fixed since: several queues at high iodepth on RAID 0 and RAID 10 (gp3 members, HDD disks),
where every request took the mean wait while the DES routes each I/O to one member (one mirror
pair) whose queue wanders: p99 -42..-66 % and p50 +21..+41 %, now -9..+1 % and -8..0 % (the
members' walk in product form, `queues.member_spread`; HDD disks at half their capacity in
open loop an M/G/1 queue each, `queues.disk_wait`; RAID 0 of 2 NVMe with their write-back
caches, `queues.closed_split` over the devices: p50 +30 -> -2 %, p99 -37 -> -0 %). RAID 0 of 8
gp3, of 2 gp2 volumes and of 2 NVMe were added after the fix, checked first off the grid
(bench/raid_members.py).
Fixed before that: NVMe with a write-back cache near saturation (m5d.large store, RAID 1 of
m5d.8xlarge stores), where the analytic engine gave reads and writes one device wait (p50/p99
18-30 % low): reads now wait the device's backlog and writes only what the cache cannot hold,
the closed loop's backlog shaped as a finite-source queue (advisor/sim/analytic/queues.py), p50
within +4 % and p99 -11..+4 % on those cells; the open-loop wait allows for the limits' burst
tolerance (it was 13-87 % high on gp2, gp3 and st1), utilisation is capped at 1 with the
backlog reported apart, and the analytic engine reports HDD disk busy.
"""

from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.layout import resolve
from advisor.sim.analytic import saturation_iops
from advisor.sim.plan import compile_plan
from advisor.sim.results import Level, Ramp
from advisor.sim.run import simulate_pattern
from advisor.sim.source import IoPattern
from advisor.userfiles import load_catalog

KIB = 1024
GRID: dict[str, tuple[str, float, int, bool]] = {  # id: (spec, read fraction, block, random)
    "gp2": ("m5.8xlarge:gp2:500GiB", 0.75, 16 * KIB, True),
    "gp3": ("m5.8xlarge:gp3:500GiB:16000iops", 0.75, 16 * KIB, True),
    "io1": ("m5.8xlarge:io1:1000GiB:50000iops", 0.75, 16 * KIB, True),
    "raid0-gp3": ("m5.8xlarge:raid0:4xgp3:500GiB:6000iops:250mbps", 0.75, 16 * KIB, True),
    "raid10-gp3": ("m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps", 0.75, 16 * KIB, True),
    "raid0-8xgp3": ("m5.8xlarge:raid0:8xgp3:200GiB:3000iops", 0.75, 16 * KIB, True),
    "raid0-2xgp2": ("m5.8xlarge:raid0:2xgp2:500GiB", 0.75, 16 * KIB, True),
    "store": ("m5d.large:store", 0.75, 4 * KIB, True),
    "raid1-store": ("m5d.8xlarge:raid1:2xstore", 0.75, 16 * KIB, True),
    "raid0-store": ("m5d.8xlarge:raid0:2xstore", 0.75, 16 * KIB, True),
    "st1-seq-1m": ("m5.8xlarge:st1:2TiB", 0.5, 1024 * KIB, False),
    "hdd-raid0": ("m1.large:raid0:2xstore", 0.75, 16 * KIB, True),
}
LOADS = ("iodepth=1", "iodepth=8", "iodepth=64", "open=0.5")  # open: fraction of saturation
IOPS_TOL, P50_TOL, P99_TOL = 0.05, 0.10, 0.20
MIN_IOS = 300_000  # simulated I/Os per DES level: p99 seed noise stays under 1 %

KNOWN_GAPS: dict[tuple[str, str, str], str] = {  # (grid id, load, metric): measured gap
    ("raid0-8xgp3", "iodepth=64", "p50"): (
        "the members' walk in product form (queues.member_spread) puts a little more of the "
        "wait at the ends than the DES on 8 members: p50 -10.2 % (p99 -3.0 %; the mean wait "
        "for every request was +68 % at p50 and -75 % at p99)"),
}


def pattern_of(grid_id: str, concurrency: int = 64, open_rate: float | None = None) -> IoPattern:
    _, reads, block, rnd = GRID[grid_id]
    return IoPattern(name="fio", read_fraction=reads, random=rnd, block_bytes=block,
                     concurrency=concurrency, span_bytes=4 * 2**30, open_rate=open_rate)


@cache
def saturation(grid_id: str) -> float:
    """The analytic engine's saturation IOPS for the grid pattern (sets rates and durations)."""
    catalog = load_catalog()
    plan = compile_plan(resolve(GRID[grid_id][0], catalog), catalog)
    return saturation_iops(plan, pattern_of(grid_id))


def duration_s(grid_id: str) -> float:
    return max(10.0, MIN_IOS / saturation(grid_id))


@cache
def level(grid_id: str, load: str, engine: str, seed: int = 1) -> Level:
    """One result level of the grid pattern at `load` on `engine`."""
    catalog = load_catalog()
    key, _, value = load.partition("=")
    if key == "open":
        ramp = Ramp(key="rate", values=(round(float(value) * saturation(grid_id)),))
    else:
        ramp = Ramp(key="iodepth", values=(int(value),))
    result = simulate_pattern(resolve(GRID[grid_id][0], catalog), catalog, pattern_of(grid_id),
                              ramp=ramp, duration_s=duration_s(grid_id), engine=engine,
                              seed=seed)
    return result.levels[0]


def _cells(metric: str, loads: tuple[str, ...] = LOADS) -> list[Any]:
    cells = []
    for grid_id in GRID:
        for load in loads:
            gap = KNOWN_GAPS.get((grid_id, load, metric))
            marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
            cells.append(pytest.param(grid_id, load, marks=marks, id=f"{grid_id}-{load}"))
    return cells


def _gap(grid_id: str, load: str, value: Any) -> float:
    des, ana = value(level(grid_id, load, "des")), value(level(grid_id, load, "analytic"))
    return abs(ana / des - 1)


@pytest.mark.parametrize(("grid_id", "load"), _cells("iops", ("iodepth=64",)))
def test_saturation_iops_agree(grid_id: str, load: str) -> None:
    """At iodepth 64 both engines find the same saturation IOPS (within 5 %)."""
    assert _gap(grid_id, load, lambda lv: lv.iops.total) <= IOPS_TOL


@pytest.mark.parametrize(("grid_id", "load"),
                         _cells("iops", ("iodepth=1", "iodepth=8", "open=0.5")))
def test_iops_below_saturation_agree(grid_id: str, load: str) -> None:
    """Below saturation both engines deliver the same IOPS (within 5 %)."""
    assert _gap(grid_id, load, lambda lv: lv.iops.total) <= IOPS_TOL


@pytest.mark.parametrize(("grid_id", "load"), _cells("p50"))
def test_p50_agree(grid_id: str, load: str) -> None:
    """Median latency agrees within 10 % (known gaps excepted, see the module docstring)."""
    assert _gap(grid_id, load, lambda lv: lv.latency_ms.transaction.p50) <= P50_TOL


@pytest.mark.parametrize(("grid_id", "load"), _cells("p99"))
def test_p99_agree(grid_id: str, load: str) -> None:
    """p99 latency agrees within 20 % (known gaps excepted, see the module docstring)."""
    assert _gap(grid_id, load, lambda lv: lv.latency_ms.transaction.p99) <= P99_TOL


@pytest.mark.parametrize("grid_id", ["store", "raid1-store"])
def test_nvme_reads_and_writes_wait_apart(grid_id: str) -> None:
    """fio randrw QD64 on instance-store NVMe: reads wait behind all the flash work, writes only
    for what the device's cache cannot hold (m5d.large: reads ~1.9 ms, writes ~0.3 ms, as
    published); both engines' read and write medians agree within 10 %."""
    des, ana = level(grid_id, "iodepth=64", "des"), level(grid_id, "iodepth=64", "analytic")
    medians = {}
    for op in ("read", "write"):
        d, a = getattr(des.latency_ms, op).p50, getattr(ana.latency_ms, op).p50
        assert d is not None
        assert a is not None
        assert a == pytest.approx(d, rel=P50_TOL), op
        medians[op] = d
    assert medians["read"] > 5 * medians["write"]


@pytest.mark.parametrize("engine", ["des", "analytic"])
@pytest.mark.parametrize(("grid_id", "load"), _cells("littles-law"))
def test_littles_law_on_every_run(grid_id: str, load: str, engine: str) -> None:
    """Every level's L is X W (within 1 %); closed-loop L equals the iodepth (within 2 %). The
    event engine's L is the in-flight count its kernel measures (tests/sim/test_littles_law.py);
    the analytic engine's is its mean value analysis, where Little's law holds by construction."""
    lv = level(grid_id, load, engine)
    x_w = lv.iops.total * lv.latency_ms.transaction.mean / 1000
    assert lv.mean_in_flight == pytest.approx(x_w, rel=0.01)
    if "iodepth" in lv.load:
        assert lv.mean_in_flight == pytest.approx(lv.load["iodepth"], rel=0.02)


@settings(max_examples=12, deadline=None)
@given(grid_id=st.sampled_from(sorted(GRID)), low=st.integers(1, 128), more=st.integers(1, 128))
def test_more_iodepth_never_lowers_iops(grid_id: str, low: int, more: int) -> None:
    """Analytic steady state: raising the iodepth never lowers IOPS."""
    catalog = load_catalog()
    layout = resolve(GRID[grid_id][0], catalog)
    ramp = Ramp(key="iodepth", values=(float(low), float(low + more)))
    result = simulate_pattern(layout, catalog, pattern_of(grid_id), ramp=ramp,
                              duration_s=60.0, engine="analytic")
    a, b = (lv.iops.total for lv in result.levels)
    assert b >= a * (1 - 1e-9)


@settings(max_examples=10, deadline=None)
@given(grid_id=st.sampled_from(sorted(GRID)), engine=st.sampled_from(["des", "analytic"]),
       iodepth=st.integers(1, 128), open_fraction=st.sampled_from([None, 0.3, 0.9]))
def test_no_limit_is_used_beyond_its_capacity(grid_id: str, engine: str, iodepth: int,
                                              open_fraction: float | None) -> None:
    """Utilisation of every limit stays at or below 1 (+1 % for the burst tolerance and edges)."""
    assert max(_utilisation(grid_id, engine, iodepth, open_fraction).values(),
               default=0.0) <= 1.01


@pytest.mark.parametrize("engine", [
    "des", "analytic"])
@pytest.mark.parametrize("grid_id", ["gp2", "hdd-raid0"])
def test_utilisation_stays_at_most_one_past_saturation(grid_id: str, engine: str) -> None:
    """Open loop at 1.5x saturation: the binding limit is 100 % used, not more."""
    assert max(_utilisation(grid_id, engine, 1, 1.5).values(), default=0.0) <= 1.01


@pytest.mark.parametrize(("grid_id", "engine"), [
    pytest.param(g, e, id=f"{g}-{e}") for g in GRID for e in ("des", "analytic")])
def test_saturated_layout_reports_its_binding_resource(grid_id: str, engine: str) -> None:
    """At iodepth 64 every grid layout is saturated: some limit shows >= 90 % utilisation."""
    assert max(_utilisation(grid_id, engine, 64, None).values(), default=0.0) >= 0.9


def _utilisation(grid_id: str, engine: str, iodepth: int,
                 open_fraction: float | None) -> dict[str, float]:
    catalog = load_catalog()
    rate = None if open_fraction is None else open_fraction * saturation(grid_id)
    pattern = pattern_of(grid_id, concurrency=4096 if rate else iodepth, open_rate=rate)
    result = simulate_pattern(resolve(GRID[grid_id][0], catalog), catalog, pattern,
                              duration_s=duration_s(grid_id) / 10, engine=engine)
    used: dict[str, float] = result.levels[0].utilisation
    return used
