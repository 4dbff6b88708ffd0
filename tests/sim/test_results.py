"""Typed simulation results: both engines give the same `Level`, serialised to the stable JSON keys
(BRIEF section 6) plus `schema_version`, read back into equal objects; one wording of the
bottleneck for both engines."""

import json
from pathlib import Path

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.errors import InvalidInput
from advisor.layout import resolve
from advisor.serial import SCHEMA_VERSION, to_json
from advisor.sim.bottleneck import Binding, binding_text
from advisor.sim.results import PatternResult, Ramp
from advisor.sim.run import simulate_pattern
from advisor.sim.source import IoPattern
from workloads.results import load_simulate_result

STORED = Path(__file__).parents[1] / "report" / "golden" / "simulate_gp2_seed7.json"
PERCENTILES = {"p50", "p90", "p95", "p99", "p999", "max", "mean"}


def _gp2(engine: str, duration_s: float = 5.0) -> PatternResult:
    catalog = builtin_catalog()
    pattern = IoPattern(name="fio randrw", read_fraction=0.75, random=True, block_bytes=4096,
                        concurrency=8, span_bytes=2**30)
    return simulate_pattern(resolve("m5d.large:gp2:385GiB", catalog), catalog, pattern,
                            ramp=Ramp(key="iodepth", values=(1.0, 64.0)), duration_s=duration_s,
                            engine=engine, seed=3)


@pytest.mark.parametrize("engine", ["des", "analytic"])
def test_result_json_has_the_stable_keys_and_a_schema_version(engine: str) -> None:
    """duration_s, ios, iops, throughput, latency_ms {read, write, transaction}, bottleneck,
    timeline [{t_s, iops, burst_balance}], levels and seed; every level the same shape."""
    data = to_json(_gp2(engine))
    assert data["schema_version"] == SCHEMA_VERSION
    assert {"kind", "layout", "duration_s", "ios", "iops", "throughput_mibps", "latency_ms",
            "bottleneck", "timeline", "levels", "seed"} <= set(data)
    for part in (data, *data["levels"]):
        assert set(part["ios"]) == set(part["iops"]) == {"read", "write", "total"}
        assert set(part["latency_ms"]) == {"read", "write", "transaction"}
        assert all(set(s) == PERCENTILES for s in part["latency_ms"].values())
        assert {"t_s", "iops", "burst_balance"} <= set(part["timeline"][0])
    assert [lv["load"] for lv in data["levels"]] == [{"iodepth": 1}, {"iodepth": 64}]


def test_keys_one_engine_fills_are_left_out_by_the_other() -> None:
    """The event simulation's histogram, ACT row and bottleneck detail; the analytic phases."""
    des, analytic = (to_json(_gp2(e))["levels"][0] for e in ("des", "analytic"))
    assert {"histogram", "act", "bottleneck_detail", "device_latency_ms"} <= set(des)
    assert "phases" not in des
    assert "phases" in analytic
    assert not {"histogram", "act", "bottleneck_detail", "device_latency_ms"} & set(analytic)
    assert set(des["act"]["reads"]) == {f"gt_{ms}ms_pct" for ms in (1, 2, 4, 8, 16, 32, 64)}


@pytest.mark.parametrize("engine", ["des", "analytic"])
def test_a_saved_result_reads_back_as_the_same_object(engine: str) -> None:
    """JSON out and back in gives an equal result, and the same JSON again."""
    result = _gp2(engine)
    text = json.dumps(to_json(result))
    again = load_simulate_result(json.loads(text))
    assert again == result
    assert json.dumps(to_json(again)) == text


def test_a_result_saved_before_schema_version_still_reads() -> None:
    """A stored 0.1 simulate result (no schema_version; no per-level timelines) loads."""
    data = json.loads(STORED.read_text())
    assert "schema_version" not in data
    result = load_simulate_result(data)
    assert isinstance(result, PatternResult)
    assert result.levels[0].timeline == ()
    assert result.levels[-1].timeline


def test_a_result_of_another_schema_version_is_refused_in_one_line() -> None:
    data = to_json(_gp2("analytic"))
    with pytest.raises(InvalidInput, match="result schema version 99: this advisor reads"):
        load_simulate_result({**data, "schema_version": 99})


DEVICE = "ebs-gp2"


@pytest.mark.parametrize(("binding", "text"), [
    (Binding(kind="latency", limit=None, utilisation=0.274, device=DEVICE, queue_depth=8,
             busiest="gp2 volume IOPS"),
     "latency-bound at queue depth 8: no rate limit saturated, I/Os wait only for the device's "
     "service time (ebs-gp2); busiest limit gp2 volume IOPS at 27%"),
    (Binding(kind="latency", limit=None, utilisation=0.1, device=DEVICE, queue_depth=4096),
     "latency-bound at this load: no rate limit saturated, I/Os wait only for the device's "
     "service time (ebs-gp2)"),
    (Binding(kind="burst_exhausted", limit="gp2 volume IOPS", utilisation=1.0, device=DEVICE,
             rate=300.0, members=2, credit="gp2 volume IOPS", exhausted_at_s=2000.4),
     "gp2 volume IOPS: burst credits (gp2 volume IOPS) exhausted at t=2,000 s; baseline 300 "
     "IOPS each x2"),
    (Binding(kind="burst", limit="gp2 volume IOPS", utilisation=0.95, device=DEVICE,
             rate=3000.0, credits_left=0.994),
     "gp2 volume IOPS at its burst rate 3,000 IOPS; credits left at the end 99%"),
    (Binding(kind="rate", limit="gp3 volume IOPS", utilisation=1.02, device=DEVICE,
             rate=3000.0, queued_s=6.66),
     "gp3 volume IOPS at 3,000 IOPS (100% used); 6.7 s of work queued at the end (overloaded)"),
    (Binding(kind="device", limit="instance-store device capacity", utilisation=0.93,
             device=DEVICE), "instance-store device capacity: device saturated (93% busy)"),
    (Binding(kind="seek", limit="instance-store HDD seek time", utilisation=0.98,
             device="hdd-instance-store"),
     "disk seek time: each hdd-instance-store disk serves one I/O at a time and is 98% busy"),
])
def test_one_wording_for_every_kind_of_bottleneck(binding: Binding, text: str) -> None:
    assert binding_text(binding) == text


@pytest.mark.parametrize("engine", ["des", "analytic"])
def test_both_engines_word_a_burst_bucket_running_dry_alike(engine: str) -> None:
    """A 50 GiB gp2 volume at 3,000 IOPS for 2,000 s: its bucket runs dry at about 1,895 s."""
    catalog = builtin_catalog()
    pattern = IoPattern(name="fio randrw", read_fraction=0.75, random=True, block_bytes=16384,
                        concurrency=64, span_bytes=2**30)
    result = simulate_pattern(resolve("m5.8xlarge:gp2:50GiB", catalog), catalog, pattern,
                              duration_s=2000.0, engine=engine, seed=5)
    assert result.bottleneck.startswith("gp2 volume IOPS: burst credits (gp2 volume IOPS) "
                                        "exhausted at t=1,89")
    assert result.bottleneck.endswith(" s; baseline 150 IOPS")
