"""Storage alone on a given instance: the cheapest layout serving a CloudWatch sample within the
I/O p99 bound, judged by the same simulation as every other, the current layout beside it."""

import dataclasses
import json
from pathlib import Path

import pytest

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput, UnknownInstance
from advisor.layout.model import resolve
from advisor.sim.run import simulate_pattern
from advisor.sim.source import IoPattern
from advisor.userfiles import load_catalog
from recommend.storage_fit import StorageFit, storage_fit
from workloads.cloudwatch import Sample, parse_metric_data

DATA = Path(__file__).parent.parent / "workloads" / "fixtures" / "cloudwatch"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


@pytest.fixture(scope="module")
def p99() -> Sample:
    d = parse_metric_data(json.loads((DATA / "ebs-raid0-2-volumes.json").read_text()),
                          source="ebs")
    return d.percentile(99)


def test_the_recommendation_serves_the_sample_within_the_bound(catalog: Catalog,
                                                               p99: Sample) -> None:
    fit = storage_fit(catalog, "m5.xlarge", p99, peak_s=1500, p99_ms=10, capacity_gib=120)
    rec = fit.recommendation
    assert rec is not None
    assert rec.fits
    assert rec.layout.startswith("m5.xlarge:")
    assert rec.p99_ms <= 10
    assert rec.utilisation < 1
    assert rec.capacity_gib >= 120
    assert all(a.monthly_usd >= rec.monthly_usd for a in fit.alternatives)
    # Every candidate judged cheaper than the recommendation failed.
    assert all(not r.fits for r in fit.rejected if r.monthly_usd < rec.monthly_usd)
    assert fit.rejected
    assert fit.considered > len(fit.alternatives) + 1
    # The same simulation, run again on the recommendation, gives the same p99.
    level = simulate_pattern(resolve(rec.layout, catalog), catalog, _pattern_of(fit),
                             duration_s=1500, engine="analytic").levels[-1]
    assert level.latency_ms.read.p99 == pytest.approx(rec.read_p99_ms, abs=1e-3)


def _pattern_of(fit: StorageFit) -> IoPattern:
    s = fit.sample
    return IoPattern(name="t", read_fraction=s.read_iops / s.iops, random=True,
                     block_bytes=fit.block_bytes, concurrency=4096,
                     span_bytes=int(fit.capacity_gib * 2**30), open_rate=s.iops)


def test_more_demand_never_costs_less(catalog: Catalog, p99: Sample) -> None:
    base = storage_fit(catalog, "m5.2xlarge", p99, peak_s=1500, p99_ms=10, capacity_gib=120)
    more = dataclasses.replace(p99, read_iops=p99.read_iops * 4, write_iops=p99.write_iops * 4,
                               read_mibps=p99.read_mibps * 4, write_mibps=p99.write_mibps * 4)
    bigger = storage_fit(catalog, "m5.2xlarge", more, peak_s=1500, p99_ms=10, capacity_gib=120)
    assert base.recommendation is not None
    assert bigger.recommendation is not None
    assert bigger.recommendation.monthly_usd >= base.recommendation.monthly_usd


def test_the_current_layout_is_judged_the_same_way(catalog: Catalog, p99: Sample) -> None:
    """One small gp2 volume: 3,000 IOPS at most, under a 4,600-IOPS sample."""
    fit = storage_fit(catalog, "m5.xlarge", p99, peak_s=1500, p99_ms=10, capacity_gib=120,
                      current="m5.xlarge:gp2:200GiB")
    assert fit.current is not None
    assert not fit.current.fits
    assert "gp2 volume IOPS saturated" in fit.current.why


def test_unknown_instances_and_bad_current_layouts_are_refused(catalog: Catalog,
                                                                p99: Sample) -> None:
    with pytest.raises(UnknownInstance, match=r"x9\.huge is not in the catalog"):
        storage_fit(catalog, "x9.huge", p99, peak_s=300, p99_ms=10, capacity_gib=100)
    with pytest.raises(InvalidInput, match="--current-layout"):
        storage_fit(catalog, "m5.xlarge", p99, peak_s=300, p99_ms=10, capacity_gib=100,
                    current="m5.xlarge:gp9:10GiB")


def test_a_layout_whose_credits_the_measured_series_drains_does_not_fit(
        catalog: Catalog, p99: Sample) -> None:
    """Judged at the p99 sample alone, with its buckets full, two 60 GiB gp2 volumes serve it on
    burst (3,000 IOPS each). Over the 6 measured hours (~1,300 IOPS a volume from the start)
    their 180-IOPS baseline drains the buckets in ~80 minutes: they do not fit, and say when.
    Ten times the size (1,800 IOPS baseline each) and gp3 (no bucket) do."""
    d = parse_metric_data(json.loads((DATA / "ebs-raid0-2-volumes.json").read_text()),
                          source="ebs")

    def judged(spec: str) -> tuple[bool, str]:
        fit = storage_fit(catalog, "m5.large", p99, peak_s=d.peak_run_s(p99), p99_ms=5,
                          capacity_gib=120, current=spec, series=d.samples,
                          period_s=d.period_s)
        assert fit.current is not None
        return fit.current.fits, fit.current.why

    assert judged("m5.large:raid0:2xgp2:60GiB") == (False, (
        "gp2 volume IOPS: its burst credits run dry at 2026-11-20T13:20:00+00:00 over the "
        "measured series (it needs 1,214 IOPS there, its baseline is 180)"))
    # Without the series (the peak alone, buckets full) it fit: the check is what refuses it.
    alone = storage_fit(catalog, "m5.large", p99, peak_s=d.peak_run_s(p99), p99_ms=5,
                        capacity_gib=120, current="m5.large:raid0:2xgp2:60GiB")
    assert alone.current is not None
    assert alone.current.fits
    assert judged("m5.large:raid0:2xgp2:600GiB") == (True, "")
    assert judged("m5.large:raid0:2xgp3:60GiB") == (True, "")
