"""What a simulation returns, as typed values: a load level (either engine), its latency
summaries, bottleneck, timeline and ACT rows, and the raw-pattern result around the levels.

`advisor.serial.to_json` turns them into the stable JSON keys (BRIEF section 6 `simulate`);
a key that only one engine fills is left out while it is None. CLI printers, reports, the API
and the store read these objects; `workloads.results` builds the MySQL and ACT results on them.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeVar

from advisor.serial import OMIT_NONE, SCHEMA_VERSION

L = TypeVar("L", bound="Level")
RampKey = Literal["iodepth", "threads", "rate", "tps", "x"]
Load = dict[str, int | float]  # the load as the user named it: {"iodepth": 8}, {"tps": 600.0}


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencySummary:
    """Percentiles, max and mean in milliseconds; all None when nothing completed."""

    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    p99: float | None = None
    p999: float | None = None
    max: float | None = None
    mean: float | None = None

    @classmethod
    def of(cls, ms: Mapping[str, float | None]) -> "LatencySummary":
        """From a `{p50, p90, p95, p99, p999, max, mean}` summary (`LatencyStats.summary_ms`)."""
        return cls(**ms)


@dataclass(frozen=True, slots=True, kw_only=True)
class Latency:
    """A level's request latency: reads, writes and all requests (transactions)."""

    read: LatencySummary
    write: LatencySummary
    transaction: LatencySummary


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencyDetail:
    """One direction's request latency in full, as fio reports it: how many, min, mean,
    standard deviation, max and fio's default percentile list (`FIO_PERCENTILES`, keys `p1` ...
    `p9999`), in ms. None throughout when nothing completed."""

    count: int
    min_ms: float | None
    mean_ms: float | None
    stddev_ms: float | None
    max_ms: float | None
    percentiles_ms: dict[str, float]


@dataclass(frozen=True, slots=True, kw_only=True)
class LevelLatencyDetail:
    """A raw-pattern level's latency as fio reports it (`--format fio`): reads, writes, and the
    % of all I/Os in each of fio's latency buckets (`latency_ns` / `latency_us` / `latency_ms`,
    bucket "4" = from the previous bound up to 4)."""

    read: LatencyDetail
    write: LatencyDetail
    buckets_pct: dict[str, dict[str, float]]


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceLatency:
    """Latency of the device I/Os themselves (the event simulation measures them)."""

    read: LatencySummary
    write: LatencySummary


@dataclass(frozen=True, slots=True, kw_only=True)
class IoCounts:
    read: int
    write: int
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class IoRates:
    """I/Os per second over the measured window."""

    read: float
    write: float
    total: float


@dataclass(frozen=True, slots=True, kw_only=True)
class HistogramBin:
    ge_ms: float
    lt_ms: float
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ActRow:
    """% of operations over each of ACT's thresholds (`advisor.sim.stats.ACT_THRESHOLDS_MS`)."""

    gt_1ms_pct: float
    gt_2ms_pct: float
    gt_4ms_pct: float
    gt_8ms_pct: float
    gt_16ms_pct: float
    gt_32ms_pct: float
    gt_64ms_pct: float

    def over(self, ms: int) -> float:
        """% of operations over `ms` milliseconds (one of the thresholds)."""
        value: float = getattr(self, f"gt_{ms}ms_pct")
        return value


@dataclass(frozen=True, slots=True, kw_only=True)
class ActReads:
    """The event simulation's small-read latency as ACT reports it (any pattern)."""

    reads: ActRow


@dataclass(frozen=True, slots=True, kw_only=True)
class ActThreshold:
    """One of ACT's thresholds as independent replications estimate it: the % of all their
    small reads over it, with the 95 % interval from the spread of the replications' own %."""

    over_ms: int
    limit_pct: float
    pct: float
    ci95_pct: tuple[float, float]


@dataclass(frozen=True, slots=True, kw_only=True)
class ActEpisodeHour:
    """An ACT hour slice holding one of a node's volumes in one whole slow episode (the device
    model's variability), the other volumes and the rest of the hour at their usual speed."""

    episode_s: float  # one episode's length (the device model's)
    expected_per_day: float  # episodes over the node's volumes in ACT's 24 h, on average
    thresholds: tuple[ActThreshold, ...]  # that hour's % of reads over each, 95 % interval
    passed: bool = field(metadata={"alias": "pass"})  # every interval under its limit
    judged: bool  # whether ACT's 24 h more likely than not hold one, so the verdict needs it
    sets: int = 1  # sets of strata run (more while a judged hour's interval straddled a limit)


@dataclass(frozen=True, slots=True, kw_only=True)
class ActSlice:
    """One ACT time slice: its reads' row and the verdict on it."""

    slice: int
    start_s: float
    reads: int
    gt_1ms_pct: float
    gt_2ms_pct: float
    gt_4ms_pct: float
    gt_8ms_pct: float
    gt_16ms_pct: float
    gt_32ms_pct: float
    gt_64ms_pct: float
    passed: bool = field(metadata={"alias": "pass"})
    fails: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ActTest:
    """ACT's test of a level: every slice, the whole run's row, the worst slice's row and the
    load derivation behind the rates."""

    slices: tuple[ActSlice, ...]
    avg: ActRow
    max: ActRow
    passed: bool = field(metadata={"alias": "pass"})
    derivation: dict[str, int | float]


@dataclass(frozen=True, slots=True, kw_only=True)
class BottleneckDetail:
    """The binding limit with the figure behind it (`advisor.sim.bottleneck` words it)."""

    limit: str | None  # None when no rate limit binds (latency-bound)
    kind: Literal["device", "latency", "burst_exhausted", "burst", "rate"]
    utilisation: float  # of the binding (or busiest) limit, 0..1
    exhausted_at_s: float | None = field(default=None, metadata=OMIT_NONE)
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TimelinePoint:
    t_s: float
    iops: float
    throughput_mibps: float
    burst_balance: float | None  # the first volume bucket's balance, 0..1 (None: no bucket)
    buckets: dict[str, float] | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunPhase:
    """A stretch of an analytic run with one binding limit (credits drain between phases)."""

    start_s: float
    end_s: float
    iops: float
    binding: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundIo:
    """Background device I/Os (page flushes, replication apply, defrag) of an event run."""

    ios: int
    latency_ms: LatencySummary
    lag_s: float  # how late the last one finished against when it was due


@dataclass(frozen=True, slots=True, kw_only=True)
class Level:
    """One load level on either engine. The event simulation fills the device latency,
    histogram, ACT row, bottleneck detail and background; the analytic engine its phases."""

    load: Load
    duration_s: float
    ios: IoCounts
    iops: IoRates
    throughput_mibps: float
    latency_ms: Latency
    device_latency_ms: DeviceLatency | None = field(default=None, metadata=OMIT_NONE)
    histogram: tuple[HistogramBin, ...] | None = field(default=None, metadata=OMIT_NONE)
    act: ActReads | ActTest | None = field(default=None, metadata=OMIT_NONE)
    utilisation: dict[str, float]
    bottleneck: str
    bottleneck_detail: BottleneckDetail | None = field(default=None, metadata=OMIT_NONE)
    engine: Literal["des", "analytic"]
    mean_in_flight: float
    background: BackgroundIo | None = field(default=None, metadata=OMIT_NONE)
    timeline: tuple[TimelinePoint, ...] = ()  # results saved by advisor 0.1 have none
    phases: tuple[RunPhase, ...] | None = field(default=None, metadata=OMIT_NONE)
    # raw patterns only (advisor.sim.run): what `--format fio` exports
    latency_detail: LevelLatencyDetail | None = field(default=None, metadata=OMIT_NONE)

    def extended(self, cls: type[L], **more: Any) -> L:
        """This level as `cls` (a workload's level type), with its own fields in `more` (which
        may also narrow one of the level's, as ACT's test does its read row)."""
        return cls(**{f.name: getattr(self, f.name) for f in fields(self)} | more)


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternSummary:
    """The raw I/O pattern a run simulated (the span clipped to the layout's capacity)."""

    name: str
    read_fraction: float
    random: bool
    block_bytes: int
    concurrency: int
    span_bytes: int
    rate_iops: float | None  # open loop; None: closed loop at `concurrency`
    fsync_every_writes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Ramp:
    """Rising load: one level per value of `key`."""

    key: RampKey
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternResult:
    """`advisor simulate SPEC` for a raw I/O pattern; the top-level figures are the last
    level's."""

    kind: Literal["simulate"] = "simulate"
    layout: str
    pattern: PatternSummary
    ramp: Ramp | None
    duration_s: float
    warmup_s: float
    ios: IoCounts
    iops: IoRates
    throughput_mibps: float
    latency_ms: Latency
    bottleneck: str
    timeline: tuple[TimelinePoint, ...]
    levels: tuple[Level, ...]
    engine: tuple[str, ...]  # the engines the levels ran on
    seed: int
    notes: tuple[str, ...]
    model_version: str
    advisor_version: str
    catalog_version: str
    request: dict[str, Any] | None = field(default=None, metadata=OMIT_NONE)  # as asked
    schema_version: int = SCHEMA_VERSION
