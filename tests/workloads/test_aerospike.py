"""Aerospike/ACT: ACT's load derivation with hand-computed numbers, its pass/fail thresholds, and
the event simulation of ACT on NVMe instance store against EBS (BRIEF sections 5 and 8, item 4).

Hand numbers follow aerospike/act `derive_configuration` (reference-tools section 1): records
rounded up to 16 B, reads to 512 B; large-block writes/s = RF x writes / (128 KiB / record) x
100 / (100 - defrag-lwm-pct); defrag reads at the same rate.
"""

from typing import Any

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.layout import resolve
from advisor.sim.results import ActRow
from workloads.aerospike import ActLoad, act_pass, simulate_act
from workloads.results import ActRating, ActSimResult

DURATION_S = 12.0  # simulated seconds per level: 6 slices of 2 s, >= 20 k reads per slice at 5x


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


def row(gt_1: float, gt_8: float, gt_64: float) -> ActRow:
    """An ACT report row: % of reads over 1, 2, 4 ... 64 ms (monotone in the threshold)."""
    return ActRow(gt_1ms_pct=gt_1, gt_2ms_pct=gt_1, gt_4ms_pct=gt_8, gt_8ms_pct=gt_8,
                  gt_16ms_pct=gt_64, gt_32ms_pct=gt_64, gt_64ms_pct=gt_64)


def ramp(catalog: Catalog, spec: str, xs: tuple[float, ...]) -> ActSimResult:
    layout = resolve(spec, catalog)
    loads = [({"x": x}, ActLoad.at_x(x, layout.spec.count)) for x in xs]
    return simulate_act(layout, catalog, loads, duration_s=DURATION_S)


# -- derivation ------------------------------------------------------------------------------


def test_readme_example_1504_byte_records_at_1000_writes_per_second() -> None:
    """ACT README: 1,504 B x 1,000 w/s / 128 KiB = 11.47 blocks/s, x 2 (defrag-lwm 50) = 22.95."""
    load = ActLoad(reads_per_sec=0, writes_per_sec=1000, record_bytes=1504)
    no_defrag_amp = ActLoad(reads_per_sec=0, writes_per_sec=1000, record_bytes=1504,
                            defrag_lwm_pct=0)
    assert no_defrag_amp.large_block_writes_per_sec == pytest.approx(11.47, abs=0.005)
    assert load.large_block_writes_per_sec == pytest.approx(22.95, abs=0.005)
    assert load.derivation() == {
        "record_bytes": 1504, "read_bytes": 1536, "internal_reads_per_sec": 0.0,
        "internal_writes_per_sec": 1000.0, "defrag_amplification": 2.0,
        "large_block_writes_per_sec": 22.949, "large_block_reads_per_sec": 22.949,
        "large_block_bytes": 131072}


@pytest.mark.parametrize(("record_bytes", "stored", "read"), [
    (16, 16, 512), (100, 112, 512), (1500, 1504, 1536), (1504, 1504, 1536),
    (1536, 1536, 1536), (1537, 1552, 2048), (4096, 4096, 4096), (4097, 4112, 4608)])
def test_records_round_up_to_16_bytes_and_reads_to_512(record_bytes: int, stored: int,
                                                         read: int) -> None:
    """The stored record is rounded up to 16 B; the device read of it up to 512 B."""
    load = ActLoad(reads_per_sec=1, writes_per_sec=1, record_bytes=record_bytes)
    assert (load.stored_record_bytes, load.read_bytes) == (stored, read)


def test_large_blocks_use_the_rounded_record_size() -> None:
    """1,500 B records are stored as 1,504 B: the README's 22.95 blocks/s, not 22.89."""
    load = ActLoad(reads_per_sec=0, writes_per_sec=1000, record_bytes=1500)
    assert load.large_block_writes_per_sec == pytest.approx(1000 * 1504 / 131072 * 2)


def test_replication_factor_multiplies_the_writes_not_the_reads() -> None:
    """RF 2 at 2,000 r + 1,000 w/s of 1,536 B: 2,000 internal writes, 46.875 blocks/s each way."""
    rf1 = ActLoad(reads_per_sec=2000, writes_per_sec=1000)
    rf2 = ActLoad(reads_per_sec=2000, writes_per_sec=1000, replication_factor=2)
    assert (rf1.internal_reads_per_sec, rf1.internal_writes_per_sec) == (2000, 1000)
    assert rf1.large_block_writes_per_sec == pytest.approx(23.4375)  # 1000 / (128 Ki / 1536) x 2
    assert (rf2.internal_reads_per_sec, rf2.internal_writes_per_sec) == (2000, 2000)
    assert rf2.large_block_writes_per_sec == pytest.approx(46.875)
    assert rf2.large_block_reads_per_sec == pytest.approx(46.875)


def test_update_pct_adds_a_read_per_updated_write() -> None:
    """update-pct 50: internal reads = 2,000 + 1,000 x 50 % = 2,500; the writes are unchanged."""
    load = ActLoad(reads_per_sec=2000, writes_per_sec=1000, update_pct=50)
    assert load.internal_reads_per_sec == 2500
    assert load.internal_writes_per_sec == 1000
    assert load.large_block_writes_per_sec == pytest.approx(23.4375)


def test_defrag_low_water_mark_sets_the_amplification_and_defrag_reads_can_be_off() -> None:
    """defrag-lwm-pct 75 amplifies 100/25 = 4x; no-defrag-reads leaves only the writes."""
    load = ActLoad(reads_per_sec=0, writes_per_sec=1000, defrag_lwm_pct=75, defrag_reads=False)
    assert load.defrag_amplification == 4.0
    assert load.large_block_writes_per_sec == pytest.approx(1000 / (131072 / 1536) * 4)
    assert load.large_block_reads_per_sec == 0.0


@pytest.mark.parametrize(("x", "devices", "reads", "writes"), [
    (1, 1, 2000, 1000), (5, 1, 10_000, 5000), (30, 1, 60_000, 30_000), (1, 2, 4000, 2000),
    (2.5, 4, 20_000, 10_000)])
def test_one_x_is_2000_reads_and_1000_writes_per_device(x: float, devices: int, reads: float,
                                                        writes: float) -> None:
    """Nx = N x (2,000 reads/s + 1,000 writes/s) per device, given as totals over the devices."""
    load = ActLoad.at_x(x, devices)
    assert (load.reads_per_sec, load.writes_per_sec) == (reads, writes)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"reads_per_sec": -1, "writes_per_sec": 1},
     "--reads-per-sec/--writes-per-sec must be 0 or more"),
    ({"reads_per_sec": 0, "writes_per_sec": 0}, "give a read or write load"),
    ({"reads_per_sec": 1, "writes_per_sec": 1, "record_bytes": 0}, "--record-bytes must be 1 B"),
    ({"reads_per_sec": 1, "writes_per_sec": 1, "record_bytes": 256 * 1024, "large_block_kib": 128},
     "must hold a whole record"),
    ({"reads_per_sec": 1, "writes_per_sec": 1, "replication_factor": 0},
     "--replication-factor must be 1..8"),
    ({"reads_per_sec": 1, "writes_per_sec": 1, "defrag_lwm_pct": 100},
     "--defrag-lwm-pct must be 0 <= x < 100"),
    ({"reads_per_sec": 1, "writes_per_sec": 1, "large_block_kib": 100}, "power of 2 <= 8192"),
])
def test_nonsense_configurations_are_refused_with_the_reason(kwargs: dict[str, Any],
                                                            message: str) -> None:
    """A configuration ACT would reject raises InvalidInput naming the setting."""
    with pytest.raises(InvalidInput, match=message.replace(".", r"\.")):
        ActLoad(**kwargs)


def test_x_must_be_positive() -> None:
    """--x 0 is not a load."""
    with pytest.raises(InvalidInput, match=r"^--x 0: must be positive$"):
        ActLoad.at_x(0, 1)


# -- pass/fail -------------------------------------------------------------------------------


@pytest.mark.parametrize(("report", "verdict"), [
    (row(0.0, 0.0, 0.0), (True, [])),
    (row(4.99, 0.99, 0.099), (True, [])),
    (row(5.0, 0.0, 0.0), (False, ["5.00 % of reads over 1 ms (limit 5 %)"])),
    (row(0.0, 1.0, 0.0), (False, ["1.00 % of reads over 8 ms (limit 1 %)"])),
    (row(0.0, 0.0, 0.1), (False, ["0.10 % of reads over 64 ms (limit 0.1 %)"])),
    (row(12.5, 3.0, 0.25), (False, ["12.50 % of reads over 1 ms (limit 5 %)",
                                    "3.00 % of reads over 8 ms (limit 1 %)",
                                    "0.25 % of reads over 64 ms (limit 0.1 %)"])),
])
def test_act_passes_below_5_pct_over_1ms_1_pct_over_8ms_and_0_1_pct_over_64ms(
        report: ActRow, verdict: tuple[bool, list[str]]) -> None:
    """ACT's thresholds are strict: exactly 5 % over 1 ms already fails."""
    assert act_pass(report) == verdict


# -- event simulation ------------------------------------------------------------------------


def test_i3_large_store_passes_at_5x_and_rates_far_above_gp3(catalog: Catalog) -> None:
    """i3.large:store passes ACT at 5x in every slice; its rating is >= 3x m5.large:gp3's."""
    i3 = ramp(catalog, "i3.large:store", (1, 2, 5))
    gp3 = ramp(catalog, "m5.large:gp3:500GiB", (0.5, 1, 1.5, 2))
    at_5x = next(lv for lv in i3.levels if lv.load == {"x": 5})
    assert at_5x.act.passed is True
    assert [s.passed for s in at_5x.act.slices] == [True] * 6
    assert i3.rating == ActRating(x=5, text="passes ACT up to 5x")
    assert gp3.rating.x is not None
    assert i3.rating.x >= 3 * gp3.rating.x


def test_act_on_i3_is_comfortable_at_10k_reads_and_degrades_past_20k(catalog: Catalog) -> None:
    """BRIEF section 8 item 4 (i3, 1 x 1.9 TB NVMe, 1.5 KB records, 50/50): at 10,000 reads/s
    ACT passes; from 20,000 the share of reads over 1 ms and the read p99 keep rising and ACT
    fails."""
    layout = resolve("i3.2xlarge:store", catalog)
    rates = (5000, 10_000, 20_000, 30_000)
    loads = [({"reads_per_sec": r}, ActLoad(reads_per_sec=r, writes_per_sec=r))
             for r in rates]
    levels = simulate_act(layout, catalog, loads, duration_s=DURATION_S).levels
    over_1ms = [lv.act.max.gt_1ms_pct for lv in levels]
    p99 = [lv.latency_ms.read.p99 for lv in levels]
    assert [lv.act.passed for lv in levels] == [True, True, False, False]
    assert over_1ms == sorted(over_1ms)
    assert over_1ms[2] > 1.5 * over_1ms[1]
    assert p99 == sorted(p99)
    assert p99[3] > p99[1]


def test_a_passing_level_given_as_rates_is_reported_as_passing(catalog: Catalog) -> None:
    """Levels given as reads/s + writes/s (no x): the rating text names the passing level."""
    layout = resolve("i3.large:store", catalog)
    load = ActLoad(reads_per_sec=5000, writes_per_sec=2500)
    r = simulate_act(layout, catalog, [({"reads_per_sec": 5000, "writes_per_sec": 2500}, load)],
                     duration_s=DURATION_S)
    assert r.levels[0].act.passed is True
    assert r.rating.x is None
    assert "does not pass" not in r.rating.text
    assert "5,000 reads/s" in r.rating.text


def test_an_overloaded_device_fails_every_slice_and_caps_its_stall_share() -> None:
    """1 MiB records at 1x (1,000 writes/s = ~2 GB/s of large blocks per device) overload an
    i3.large's NVMe: the last slice, whose reads never finished, used to pass with 0 reads, and
    the note said 170 % of reads stall. A slice offered reads that finished none fails, and the
    note gives the stall share applied (capped at 90 %) and says it was capped."""
    catalog = builtin_catalog()
    load = ActLoad.at_x(1.0, 1, record_bytes=1 << 20)
    r = simulate_act(resolve("i3.large:store", catalog), catalog, [({"x": 1.0}, load)],
                     duration_s=5.0, slice_s=1.0)
    level = r.levels[0]
    assert not level.act.passed
    assert all(not s.passed for s in level.act.slices)
    empty = [s for s in level.act.slices if s.reads == 0]
    assert empty
    assert all(s.fails[0].startswith("no read finished in the slice") for s in empty)
    note = next(n for n in level.notes if "reads stall behind" in n)
    assert note.startswith("89.80% more reads stall behind")
    assert "capped at 90% of reads" in note
