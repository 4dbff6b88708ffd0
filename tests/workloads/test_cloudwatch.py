"""CloudWatch get-metric-data JSON -> I/O demand per sample: EBS sums per period (the period read
from the timestamps), RDS rates as they are, several volumes added, refusals in one line.

The fixtures are in the form `aws cloudwatch get-metric-data` prints (newest first, ISO 8601
with +00:00), made by a formula (no AWS account here): 6 hours at 5 minutes, a peak around
16:15; EBS: two volumes of a RAID 0 array at 900 reads (16 KiB) + 350 writes (32 KiB) per
second each, times the curve."""

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.errors import InvalidInput
from workloads.cloudwatch import epoch_s, parse_metric_data

DATA = Path(__file__).parent / "fixtures" / "cloudwatch"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text())
    return data


def series(label: str, times: list[Any], values: list[Any]) -> dict[str, Any]:
    return {"Id": "m1", "Label": label, "Timestamps": times, "Values": values,
            "StatusCode": "Complete"}


def test_ebs_ops_are_sums_per_period_added_over_the_arrays_volumes() -> None:
    d = parse_metric_data(load("ebs-raid0-2-volumes.json"), source="ebs")
    assert (d.source, d.period_s, len(d.samples), d.series) == ("ebs", 300, 72, 10)
    first = d.samples[0]  # oldest first after parsing
    assert first.at == "2026-11-20T12:00:00+00:00"
    curve = 1 + 0.8 * 2.718281828 ** (-((0 - 50) / 6) ** 2)  # sin(0) = 0
    assert first.read_iops == pytest.approx(2 * 900 * curve, rel=1e-3)
    assert first.write_iops == pytest.approx(2 * 350 * curve, rel=1e-3)
    assert first.read_kib == pytest.approx(16.0, rel=1e-3)
    assert first.write_kib == pytest.approx(32.0, rel=1e-3)
    assert first.queue_length == pytest.approx(2 * 1.2 * curve, rel=1e-2)


def test_the_p99_sample_and_the_peaks() -> None:
    d = parse_metric_data(load("ebs-raid0-2-volumes.json"), source="ebs")
    p99 = d.percentile(99)
    assert p99.iops == max(s.iops for s in d.samples)  # 72 samples: rank 72 is the peak
    assert d.percentile(50).iops == sorted(s.iops for s in d.samples)[35]
    peaks = d.peaks()
    assert peaks["iops"]["max"] == pytest.approx(p99.iops, abs=1e-3)
    assert peaks["iops"]["p50"] < peaks["iops"]["p90"] < peaks["iops"]["p99"]
    assert 300 < d.peak_run_s(p99) < 6 * 3600  # the peak lasts a few periods, not all day


def test_rds_rates_are_per_second_and_latency_in_ms() -> None:
    d = parse_metric_data(load("rds.json"), source="rds")
    assert (d.source, d.period_s) == ("rds", 300)
    s = d.samples[0]
    assert s.read_iops / s.write_iops == pytest.approx(3.0, rel=1e-6)
    assert s.write_kib == pytest.approx(24.0, rel=1e-3)
    assert s.read_latency_ms is not None
    assert s.read_latency_ms == pytest.approx(0.6 * s.read_iops / 2400, rel=1e-3)
    assert any("RDS metrics" in n for n in d.notes)


def test_the_period_is_read_from_the_timestamps() -> None:
    """One-minute data (detailed monitoring): 60 s, whatever the file says elsewhere."""
    times = ["2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z"]
    d = parse_metric_data({"MetricDataResults": [
        series("VolumeReadOps", times, [600, 1200, 60]),
        series("VolumeWriteOps", times, [0, 0, 0])]}, source="t")
    assert d.period_s == 60
    assert [s.read_iops for s in d.samples] == [10, 20, 1]


def test_epoch_seconds_of_iso_timestamps() -> None:
    assert epoch_s("1970-01-01T00:00:00Z") == 0
    assert epoch_s("2000-03-01T00:00:00+00:00") == 951868800
    assert epoch_s("2026-11-20T12:00:00+01:00") == epoch_s("2026-11-20T11:00:00Z")
    assert epoch_s("2024-02-29T00:00:00Z") == 1709164800  # a leap day


@pytest.mark.parametrize("text", ["2024-02-31T00:00:00Z", "2023-02-29T00:00:00Z",
                                  "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
                                  "2026-13-01T00:00:00Z"])
def test_a_day_the_month_does_not_have_is_refused(text: str) -> None:
    with pytest.raises(InvalidInput, match="is not a date and time"):
        epoch_s(text)


@pytest.mark.parametrize(("data", "message"), [
    ({"Datapoints": []}, "no MetricDataResults"),
    ({"MetricDataResults": [series("CPUUtilization", ["2026-01-01T00:00:00Z"], [1])]},
     "no known metric"),
    ({"MetricDataResults": [series("VolumeReadOps", ["2026-01-01T00:00:00Z"], [1])]},
     "one timestamp"),
    ({"MetricDataResults": [series("VolumeReadOps", ["yesterday", "today"], [1, 2])]},
     "is not ISO 8601"),
    ({"MetricDataResults": [series("VolumeReadOps", ["2026-01-01T00:00:00Z"], [1, 2])]},
     "no Timestamps and Values of one length"),
    ({"MetricDataResults": [series("VolumeReadOps", ["2026-01-01T00:00:00Z"], [-1])]},
     "not a count"),
    ({"MetricDataResults": [series("VolumeQueueLength", ["2026-01-01T00:00:00Z"], [1])]},
     "no VolumeReadOps or VolumeWriteOps"),
    ({"MetricDataResults": [series("ReadIOPS", ["2026-01-01T00:00:00Z"], [1]),
                            series("VolumeReadOps", ["2026-01-01T00:00:00Z"], [1])]},
     "both EBS and RDS"),
])
def test_files_without_a_known_demand_are_refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse_metric_data(data, source="f.json")
