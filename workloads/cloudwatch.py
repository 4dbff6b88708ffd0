"""A volume's or a database's I/O demand from the JSON `aws cloudwatch get-metric-data` returns.

EBS (namespace AWS/EBS, statistic Sum): VolumeReadOps / VolumeWriteOps are operations in each
period and VolumeReadBytes / VolumeWriteBytes bytes in it, so a rate is the sum over the period;
VolumeQueueLength (Average) and BurstBalance (%, Minimum or Average) are kept as they are.
RDS (AWS/RDS, statistic Average): ReadIOPS / WriteIOPS are already per second, ReadThroughput /
WriteThroughput bytes per second, ReadLatency / WriteLatency seconds per operation.
(AWS documentation: "Amazon EBS metrics" and "Amazon CloudWatch metrics for Amazon RDS".)

A series is recognised by its Label (the metric name by default, or `vol-... VolumeReadOps` when
labelled by volume) or else by its Id; several series of one metric (one per volume of an array)
are added per timestamp (BurstBalance: the lowest, latencies: the highest). The period is read
from the timestamps (their most common spacing), not assumed. Timestamps are parsed here as
ISO 8601 text: the core reads no clock.
"""

import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from advisor.errors import InvalidInput
from advisor.percentiles import nearest_rank

EBS_METRICS = ("VolumeReadOps", "VolumeWriteOps", "VolumeReadBytes", "VolumeWriteBytes",
               "VolumeQueueLength", "BurstBalance")
RDS_METRICS = ("ReadIOPS", "WriteIOPS", "ReadThroughput", "WriteThroughput", "ReadLatency",
               "WriteLatency")
PERCENTILES = (50.0, 90.0, 99.0, 100.0)
MAX_SAMPLES = 200_000  # get-metric-data returns at most 100,800 points per series and call
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?"
                  r"(Z|[+-]\d{2}:?\d{2})?$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    """The demand of one period."""

    at: str  # the timestamp as CloudWatch gave it
    read_iops: float
    write_iops: float
    read_mibps: float
    write_mibps: float
    queue_length: float | None = None  # EBS
    burst_balance_pct: float | None = None  # EBS gp2/st1/sc1
    read_latency_ms: float | None = None  # RDS
    write_latency_ms: float | None = None  # RDS

    @property
    def iops(self) -> float:
        return self.read_iops + self.write_iops

    @property
    def mibps(self) -> float:
        return self.read_mibps + self.write_mibps

    @property
    def read_kib(self) -> float:
        """Average read size (KiB); 16 KiB (an InnoDB page) when there were no reads."""
        return self.read_mibps * 1024 / self.read_iops if self.read_iops > 0 else 16.0

    @property
    def write_kib(self) -> float:
        return self.write_mibps * 1024 / self.write_iops if self.write_iops > 0 else 16.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Demand:
    """Every sample, the period, the source (ebs or rds) and the peak percentiles."""

    source: str  # "ebs" or "rds"
    period_s: int
    samples: tuple[Sample, ...]
    metrics: tuple[str, ...]  # the known metrics found
    series: int  # series read (a RAID array's volumes are several per metric)
    notes: tuple[str, ...] = ()

    def percentile(self, q: float) -> Sample:
        """The sample at the q-th percentile of total IOPS (nearest rank; 100: the peak)."""
        return nearest_rank(sorted(self.samples, key=lambda s: (s.iops, s.mibps)), q)

    def peak_run_s(self, sample: Sample, share: float = 0.9) -> int:
        """How long the load stayed near `sample` around it: the run of consecutive periods
        with at least `share` of its IOPS (what burst credits must last)."""
        i = self.samples.index(sample)
        floor = share * sample.iops
        lo = hi = i
        while lo > 0 and self.samples[lo - 1].iops >= floor:
            lo -= 1
        while hi + 1 < len(self.samples) and self.samples[hi + 1].iops >= floor:
            hi += 1
        return (hi - lo + 1) * self.period_s

    def peaks(self) -> dict[str, dict[str, float]]:
        """p50/p90/p99/max of IOPS and MiB/s, each taken over all samples on its own."""
        out: dict[str, dict[str, float]] = {}
        for name in ("iops", "mibps", "read_iops", "write_iops"):
            values = sorted(float(getattr(s, name)) for s in self.samples)
            out[name] = {("max" if q == 100 else f"p{q:g}"): round(nearest_rank(values, q), 3)
                         for q in PERCENTILES}
        return out


def _month_days(month: int, leap: bool) -> int:
    """Days in a month (1-12) of the Gregorian calendar."""
    days = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    return 29 if month == 2 and leap else days


def epoch_s(text: str) -> int:
    """Seconds since 1970 of an ISO 8601 timestamp (CloudWatch's form), or InvalidInput."""
    m = _ISO.match(text.strip())
    if m is None:
        raise InvalidInput(f"timestamp {text[:40]!r} is not ISO 8601 (2024-01-31T12:00:00Z)")
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    if not (1 <= mo <= 12 and 1 <= d <= _month_days(mo, leap) and h < 24 and mi < 60
            and s < 61):
        raise InvalidInput(f"timestamp {text[:40]!r} is not a date and time")
    # days from 1970-01-01 (proleptic Gregorian; H. Hinnant's days_from_civil)
    y -= mo <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    offset = 0
    zone = m.group(7)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return days * 86400 + h * 3600 + mi * 60 + s - offset


def _stamp(t: Any, *, source: str) -> int:
    """A timestamp as the CLI prints it: ISO 8601 text, or epoch seconds (cli_timestamp_format
    none with a numeric service value)."""
    if isinstance(t, str):
        return epoch_s(t)
    if isinstance(t, int | float) and not isinstance(t, bool) and math.isfinite(t):
        return round(t)
    raise InvalidInput(f"{source}: timestamp {str(t)[:40]!r} is neither ISO 8601 nor a number")


def _metric_of(result: Mapping[str, Any]) -> str | None:
    for field in ("Label", "Id"):
        text = str(result.get(field) or "")
        for name in (*EBS_METRICS, *RDS_METRICS):
            if re.search(rf"(^|[^A-Za-z]){name}($|[^A-Za-z])", text, re.IGNORECASE):
                return name
    return None


def parse_metric_data(data: Mapping[str, Any], *, source: str) -> Demand:
    """The demand in a get-metric-data response, or one line saying why there is none."""
    results = data.get("MetricDataResults")
    if not isinstance(results, list):
        raise InvalidInput(f"{source}: no MetricDataResults: not what `aws cloudwatch "
                           "get-metric-data` returns")
    series: dict[str, list[dict[int, float]]] = {}
    stamps: dict[int, str] = {}
    for i, r in enumerate(results):
        if not isinstance(r, Mapping):
            raise InvalidInput(f"{source}: MetricDataResults[{i}] is not an object")
        name = _metric_of(r)
        if name is None:
            continue
        ts, values = r.get("Timestamps"), r.get("Values")
        if not isinstance(ts, list) or not isinstance(values, list) or len(ts) != len(values):
            raise InvalidInput(f"{source}: {name} has no Timestamps and Values of one length")
        points: dict[int, float] = {}
        for t, v in zip(ts, values, strict=True):
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) \
                    or v < 0:
                raise InvalidInput(f"{source}: {name} holds a value that is not a count "
                                   f"({str(v)[:20]!r} at {str(t)[:40]!r})")
            when = _stamp(t, source=source)
            stamps.setdefault(when, str(t))
            points[when] = float(v)
        series.setdefault(name, []).append(points)
    if not series:
        known = ", ".join((*EBS_METRICS, *RDS_METRICS))
        raise InvalidInput(f"{source}: no known metric (EBS or RDS: {known}) among the "
                           f"{len(results)} results' Labels and Ids")
    ebs = any(n in series for n in EBS_METRICS)
    rds = any(n in series for n in RDS_METRICS)
    if ebs and rds:
        raise InvalidInput(f"{source}: holds both EBS and RDS metrics: one source per file")
    kind = "ebs" if ebs else "rds"
    need = (("VolumeReadOps", "VolumeWriteOps") if ebs else ("ReadIOPS", "WriteIOPS"))
    if not any(n in series for n in need):
        raise InvalidInput(f"{source}: no {' or '.join(need)}: the I/O demand needs operations")
    times = sorted({t for s in series.values() for points in s for t in points})
    if len(times) > MAX_SAMPLES:
        raise InvalidInput(f"{source}: {len(times):,} timestamps, over {MAX_SAMPLES:,}")
    if len(times) < 2:
        raise InvalidInput(f"{source}: one timestamp: the period is read from the spacing of "
                           "two or more")
    period = Counter(b - a for a, b in itertools.pairwise(times)).most_common(1)[0][0]
    notes = []
    gaps = sum(1 for a, b in itertools.pairwise(times) if b - a != period)
    if gaps:
        notes.append(f"{gaps} gap(s) in the timestamps (the period is their most common "
                     f"spacing, {period} s)")

    def at(name: str, t: int, how: str = "sum") -> float | None:
        got = [p[t] for p in series.get(name, []) if t in p]
        if not got:
            return None
        return sum(got) if how == "sum" else min(got) if how == "min" else max(got)

    samples = []
    for t in times:
        if ebs:
            def rate(name: str, t: int = t) -> float:
                return (at(name, t) or 0.0) / period
            samples.append(Sample(
                at=stamps[t], read_iops=rate("VolumeReadOps"), write_iops=rate("VolumeWriteOps"),
                read_mibps=rate("VolumeReadBytes") / 2**20,
                write_mibps=rate("VolumeWriteBytes") / 2**20,
                queue_length=at("VolumeQueueLength", t), burst_balance_pct=at(
                    "BurstBalance", t, "min")))
        else:
            lat_r, lat_w = at("ReadLatency", t, "max"), at("WriteLatency", t, "max")
            samples.append(Sample(
                at=stamps[t], read_iops=at("ReadIOPS", t) or 0.0,
                write_iops=at("WriteIOPS", t) or 0.0,
                read_mibps=(at("ReadThroughput", t) or 0.0) / 2**20,
                write_mibps=(at("WriteThroughput", t) or 0.0) / 2**20,
                read_latency_ms=None if lat_r is None else lat_r * 1000,
                write_latency_ms=None if lat_w is None else lat_w * 1000))
    if not ebs:
        notes.append("RDS metrics: the layouts are for the database on EC2 (an instance with "
                     "these volumes), not an RDS storage setting")
    if ebs and not any(n in series for n in ("VolumeReadBytes", "VolumeWriteBytes")):
        notes.append("no VolumeReadBytes/VolumeWriteBytes: I/O size taken as 16 KiB")
    return Demand(source=kind, period_s=period, samples=tuple(samples),
                  metrics=tuple(sorted(series)), series=sum(len(s) for s in series.values()),
                  notes=tuple(notes))


def sample_lines(s: Sample) -> str:
    extra = []
    if s.queue_length is not None:
        extra.append(f"queue {s.queue_length:,.2f}")
    if s.burst_balance_pct is not None:
        extra.append(f"burst balance {s.burst_balance_pct:,.0f} %")
    if s.read_latency_ms is not None or s.write_latency_ms is not None:
        extra.append(f"latency read {s.read_latency_ms or 0:,.2f} / write "
                     f"{s.write_latency_ms or 0:,.2f} ms")
    more = f"; {', '.join(extra)}" if extra else ""
    return (f"{s.at}: {s.iops:,.0f} IOPS ({s.read_iops:,.0f} read of {s.read_kib:,.1f} KiB, "
            f"{s.write_iops:,.0f} write of {s.write_kib:,.1f} KiB), {s.mibps:,.1f} MiB/s{more}")


def demand_json(d: Demand) -> dict[str, Any]:
    p99 = d.percentile(99)
    return {"source": d.source, "period_s": d.period_s, "samples": len(d.samples),
            "peak_run_s": d.peak_run_s(p99),
            "series": d.series, "metrics": list(d.metrics), "peaks": d.peaks(),
            "p99_sample": {"at": p99.at, "read_iops": round(p99.read_iops, 3),
                           "write_iops": round(p99.write_iops, 3),
                           "read_mibps": round(p99.read_mibps, 4),
                           "write_mibps": round(p99.write_mibps, 4),
                           "read_kib": round(p99.read_kib, 3),
                           "write_kib": round(p99.write_kib, 3)},
            "notes": list(d.notes),
            "per_sample": [_sample_json(x) for x in d.samples]}


def _sample_json(s: Sample) -> dict[str, Any]:
    out: dict[str, Any] = {"at": s.at, "read_iops": round(s.read_iops, 3),
                           "write_iops": round(s.write_iops, 3),
                           "read_mibps": round(s.read_mibps, 4),
                           "write_mibps": round(s.write_mibps, 4)}
    for name in ("queue_length", "burst_balance_pct", "read_latency_ms", "write_latency_ms"):
        value = getattr(s, name)
        if value is not None:
            out[name] = round(value, 4)
    return out


def percentile_samples(d: Demand, qs: Sequence[float] = (50, 90, 99, 100)) -> list[Sample]:
    return [d.percentile(q) for q in qs]
