"""What the database-workload simulations return, as typed values: a MySQL deployment under
rising load (per-server levels, the knee, the I/O profile) and ACT on an Aerospike node (levels
with their time slices, the rating). Built on the levels of `advisor.sim.results`; serialised by
`advisor.serial.to_json`, read back with `load_simulate_result`.
"""

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from advisor.serial import OMIT_NONE, SCHEMA_VERSION
from advisor.sim.results import (
    ActTest,
    IoCounts,
    IoRates,
    Latency,
    Level,
    Load,
    PatternResult,
    TimelinePoint,
)
from workloads.mysql import MeasuredIo, MysqlParams


@dataclass(frozen=True, slots=True, kw_only=True)
class Replication:
    """Whether a replica's SQL thread(s) keep up with the master's writes."""

    apply_capacity_tps: float
    write_tps: float
    falls_behind: bool
    lag_growth_s_per_s: float  # seconds of lag gained per second (0 when it keeps up)


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerLevel(Level):
    """One server (master or replica) at one offered load."""

    achieved_tps: float  # completed (event simulation) or offered (analytic)
    unfinished: int | None = field(default=None, metadata=OMIT_NONE)  # event simulation only
    role: Literal["master", "replica"]
    layout: str
    offered_tps: float
    cpu_utilisation: float
    replication: Replication | None = field(default=None, metadata=OMIT_NONE)  # replicas


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlLevel:
    """The deployment at one offered load: latency over all servers and the SLO verdict."""

    load: Load
    offered_tps: float
    achieved_tps: float
    latency_ms: Latency
    servers: tuple[ServerLevel, ...]  # the master first
    meets_slo: bool
    reasons: tuple[str, ...]  # why it does not
    engine: Literal["des", "analytic"]
    bottleneck: str  # the master's and the first replica's


@dataclass(frozen=True, slots=True, kw_only=True)
class Knee:
    tps: float | None  # the highest level meeting the SLO
    saturation_tps: float | None  # the highest level whose throughput follows the load
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DeployedLayouts:
    master: str
    replicas: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadTxnIo:
    page_reads: float


@dataclass(frozen=True, slots=True, kw_only=True)
class WriteTxnIo:
    page_reads: float
    page_flushes: float
    redo_bytes: int
    binlog_bytes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class IoProfileView:
    """The per-transaction device work the master was simulated with, and where it came from."""

    source: str
    miss_ratio: float
    per_read_txn: ReadTxnIo
    per_write_txn: WriteTxnIo
    explain: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlSlo:
    p99_ms: float


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlSimResult:
    """`advisor simulate --workload mysql`; the top-level figures are the master's at the last
    level (latency and bottleneck: the deployment's)."""

    kind: Literal["simulate"] = "simulate"
    workload: ClassVar[str] = "mysql"
    deployment: DeployedLayouts
    layout: str
    params: MysqlParams
    io_profile: IoProfileView
    slo: MysqlSlo
    levels: tuple[MysqlLevel, ...]
    knee: Knee
    duration_s: float
    warmup_s: float
    ios: IoCounts
    iops: IoRates
    throughput_mibps: float
    latency_ms: Latency
    bottleneck: str
    timeline: tuple[TimelinePoint, ...]
    engine: tuple[str, ...]
    seed: int
    model_version: str
    advisor_version: str
    catalog_version: str
    # Levels given as client threads: how their rates were found.
    closed_loop_note: str | None = field(default=None, metadata=OMIT_NONE)
    request: dict[str, Any] | None = field(default=None, metadata=OMIT_NONE)  # as asked
    # the measured profile used (--io-profile), path-free: the request cannot say it
    measured_io: MeasuredIo | None = field(default=None, metadata=OMIT_NONE)
    schema_version: int = SCHEMA_VERSION


@dataclass(frozen=True, slots=True, kw_only=True)
class ActLevel(Level):
    """A level of ACT's load on a node: the event simulation's level with ACT's test of it."""

    act: ActTest
    notes: tuple[str, ...]
    meets_slo: bool  # ACT passes


@dataclass(frozen=True, slots=True, kw_only=True)
class ActRating:
    x: float | None  # the highest load multiple that passes (None: levels given as rates)
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ActKnee:
    x: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ActSimResult:
    """`advisor simulate --workload aerospike`; the top-level figures are the last level's."""

    kind: Literal["simulate"] = "simulate"
    workload: ClassVar[str] = "aerospike"
    layout: str
    devices: int
    slice_s: float
    levels: tuple[ActLevel, ...]
    rating: ActRating
    knee: ActKnee
    duration_s: float
    ios: IoCounts
    iops: IoRates
    throughput_mibps: float
    latency_ms: Latency
    bottleneck: str
    timeline: tuple[TimelinePoint, ...]
    engine: tuple[str, ...]
    seed: int
    model_version: str
    advisor_version: str
    catalog_version: str
    request: dict[str, Any] | None = field(default=None, metadata=OMIT_NONE)  # as asked
    schema_version: int = SCHEMA_VERSION


SimulateResult = PatternResult | MysqlSimResult | ActSimResult


def load_simulate_result(data: Any) -> SimulateResult:
    """A stored or saved `simulate` result JSON as its typed object (one line if it is not
    one). Results saved before `schema_version` have the same shape and are read as they are."""
    from advisor.serial import from_json

    if isinstance(data, dict) and data.get("kind", "simulate") == "simulate" \
            and "schema_version" not in data:
        data = {**data, "schema_version": SCHEMA_VERSION}
    workload = data.get("workload") if isinstance(data, dict) else None
    if workload == "mysql":
        return from_json(MysqlSimResult, data)
    if workload == "aerospike":
        return from_json(ActSimResult, data)
    return from_json(PatternResult, data)
