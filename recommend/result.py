"""What a sizing returns, as typed values: the recommendation, alternatives, rejections, search
statistics and bottlenecks. `advisor.serial.to_json` turns them into the stable JSON keys
(BRIEF section 6); CLI printers, reports, the API and the store read these objects."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from advisor.layout.cost import Cost, CostItem
from advisor.serial import OMIT_NONE, SCHEMA_VERSION
from advisor.sim.results import ActEpisodeHour, ActRow, ActSlice, ActThreshold
from recommend.explain import RoleModel
from recommend.request import AerospikeSizeRequest, MysqlSizeRequest
from workloads.mysql import MeasuredIo


@dataclass(frozen=True, slots=True, kw_only=True)
class CostSummary:
    """A server's monthly cost, rounded to cents, with the items behind it."""

    monthly_usd: float
    instance_usd: float
    storage_usd: float
    items: tuple[CostItem, ...]
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, cost: Cost) -> "CostSummary":
        return cls(monthly_usd=round(cost.monthly_usd, 2),
                   instance_usd=round(cost.instance_usd, 2),
                   storage_usd=round(cost.storage_usd, 2),
                   items=tuple(CostItem(item=i.item, quantity=i.quantity, unit=i.unit,
                                        unit_usd=i.unit_usd, monthly_usd=round(i.monthly_usd, 4))
                               for i in cost.items),
                   notes=cost.notes)


@dataclass(frozen=True, slots=True, kw_only=True)
class BurstUse:
    """Burst credits carrying a limit above its sustained baseline over the daily peak (only
    when, day after day, they last it: `advisor.sim.credits`)."""

    limit: str
    credits: str  # the bucket's limit (gp2 throughput spends the volume's I/O credits)
    utilisation_burst: float  # of the burst rate
    lowest_balance: float  # 0..1 of the bucket, at the end of a steady day's peak
    peak_hours: float
    off_peak: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Bottleneck:
    """The limit that binds a server, as a value; `bottleneck_text` words it."""

    role: str  # master, replica or node
    limit: str  # the binding limit's name, e.g. "instance EBS bandwidth"
    utilisation: float | None  # 0..1 at `where`; None when the verdict is not a utilisation
    where: str = "at headroom load"
    # Of the limit's sustained baseline (> 1 only when `burst` carries it); None: not known.
    utilisation_sustained: float | None = field(default=None, metadata=OMIT_NONE)
    burst: BurstUse | None = field(default=None, metadata=OMIT_NONE)


def bottleneck_text(items: Sequence[Bottleneck]) -> str:
    """The one wording of bottlenecks: `master: LIMIT 14 % busy at headroom load; replica: ...`;
    busy is of the sustained baseline, and burst credits carrying a limit above it are named
    apart (no `;` inside one server's words: reports split on it). A simulated level's binding
    limit is worded by `advisor.sim.bottleneck.binding_text`."""
    parts = []
    for b in items:
        u = b.utilisation_sustained if b.utilisation_sustained is not None else b.utilisation
        busy = "" if u is None else f" {u:.0%} busy"
        if b.burst is not None:
            credits = "its credits" if b.burst.credits == b.limit else f"{b.burst.credits} credits"
            busy = (f" {u:.0%} of its sustained baseline, carried by burst "
                    f"({b.burst.utilisation_burst:.0%} of the burst rate, {credits} never below "
                    f"{b.burst.lowest_balance:.0%} in a {b.burst.peak_hours:g}-h daily peak with "
                    f"{b.burst.off_peak:.0%} of its load off-peak)")
        elif u is not None and b.utilisation is not None and abs(u - b.utilisation) > 5e-3:
            busy = (f" {u:.0%} busy of its sustained baseline ({b.utilisation:.0%} of its burst "
                    "rate)")
        parts.append(f"{b.role}: {b.limit}{busy} {b.where}".rstrip())
    return "; ".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class LossWindow:
    """What losing an instance-store master costs in committed transactions.

    Asynchronous replication: a transaction the master committed is lost with it when the
    replica had not yet received and applied it; the window is the replica's lag (binlog relay
    plus the apply queue), the transactions are the write rate times it. Semi-synchronous: a
    commit is acknowledged only once a replica holds it, so no acknowledged transaction is lost."""

    replication: Literal["asynchronous", "semi-synchronous"]
    window_ms: float | None  # the replica lag: relay + apply queue (0 with semi-sync; None:
    transactions: float | None  # write transactions at risk at the target load; unbounded)
    relay_ms: float
    apply_lag_ms: float | None
    text: str
    # The lag's 99th percentile: relay + the apply queue's time in system at its p99 (M/M/1:
    # exponential, ln 100 x its mean); None with semi-sync (0) or an unbounded lag.
    window_p99_ms: float | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class DurabilityView:
    ephemeral: bool
    annual_loss_probability: dict[str, float]
    notes: tuple[str, ...]
    all_copies_lost_probability: float | None = field(default=None, metadata=OMIT_NONE)
    loss_window: LossWindow | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class DesLoad:
    """One load the event simulation checked a server at: the p99 of every request of the
    replications together, and its 95 % confidence interval from their spread."""

    load: str  # target, headroom or knee
    tps: float  # the deployment's total transactions/s
    p99_ms: float
    p99_ci95_ms: tuple[float, float]
    requests: int
    replications: int  # independent runs (seeds seed, seed + 1, ...) behind the interval
    background_lag_s: float  # how late background work (flushing, apply) finished, worst run
    passed: bool  # the interval's upper end meets the SLO and background work keeps up


@dataclass(frozen=True, slots=True, kw_only=True)
class DesCheck:
    """A server's event-simulation check at the target and the headroom load (results saved
    before these were checked carry only the first two fields)."""

    des_p99_ms_at_headroom: float
    des_requests: int
    passed: bool = True
    p99_ci95_ms_at_headroom: tuple[float, float] | None = field(default=None,
                                                                 metadata=OMIT_NONE)
    method: str = ""  # how the p99 and its interval were estimated (replications, seeds, length)
    loads: tuple[DesLoad, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SteadyCheck:
    """One server's event-simulation p99 at the headroom load with its volumes' slow episodes
    (the default, the verified check) and without them (same seeds and replications), and what
    a p99 taken over weeks would be: the usual state (without) mixed, by the share of time in
    it, with the state in which one of its volumes is in a slow episode (results saved before
    the long-run figures carry none of the last three fields)."""

    role: str
    p99_ms: float  # with slow episodes
    p99_ci95_ms: tuple[float, float]
    p99_ms_steady: float  # without
    p99_ci95_ms_steady: tuple[float, float]
    replications: int
    seconds: float  # measured seconds of each replication
    variable: bool  # whether its device model has slow episodes at all (False: one run serves)
    # the chance, from the profile, that a slow episode of one of its volumes falls within its
    # replications at all: 1 - (1 - share) ^ (volumes x replications x (1 + seconds / episode))
    episode_chance: float
    passed_steady: bool
    # share of time at least one of its volumes is in a slow episode: 1 - (1 - share) ^ volumes
    # (0 without episodes)
    episode_share: float | None = field(default=None, metadata=OMIT_NONE)
    # p99 while one volume is in an episode (the forced-episode run; None without episodes)
    p99_ms_episode: float | None = field(default=None, metadata=OMIT_NONE)
    # p99 over weeks: the two states' latencies mixed by their shares of time
    p99_ms_long_run: float | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Variability:
    """How much of the recommendation's tail the volumes' slow episodes cost: its slowest
    server's p99 at the headroom load with them (the default) and without, and its p99 over
    weeks with them (results saved before the long-run figures: the last two fields absent)."""

    tps: float  # the headroom load, the deployment's total transactions/s
    p99_ms: float  # slowest server, with slow episodes
    p99_ms_steady: float  # slowest server, without
    cost_ms: float  # p99_ms - p99_ms_steady
    servers: tuple[SteadyCheck, ...]
    text: str
    p99_ms_long_run: float | None = field(default=None, metadata=OMIT_NONE)  # slowest server
    meets_slo_long_run: bool | None = field(default=None, metadata=OMIT_NONE)  # <= the SLO's p99


def variability_summary(v: Variability) -> str:
    """The one short wording of a `Variability` (the size table's row, the report's tile note):
    the long-run p99 with its slowest server's usual and episode p99s; results saved before the
    long-run figures give the verified check with and without episodes."""
    if v.p99_ms_long_run is None:
        return (f"p99 at headroom {v.p99_ms:,.2f} ms with slow episodes (default), "
                f"{v.p99_ms_steady:,.2f} ms without: {v.cost_ms:+,.2f} ms")
    verdict = "meets" if v.meets_slo_long_run else "misses"
    if not any(s.variable for s in v.servers):
        return (f"long-run p99 at headroom {v.p99_ms_long_run:,.2f} ms ({verdict} the SLO): "
                "no slow episodes in the device model")
    worst = max(v.servers, key=lambda s: s.p99_ms_long_run or 0.0)
    if worst.p99_ms_episode is None or worst.episode_share is None:  # steady itself
        return (f"long-run p99 at headroom {v.p99_ms_long_run:,.2f} ms ({verdict} the SLO; "
                f"{worst.role}, whose device model has no slow episodes)")
    return (f"long-run p99 at headroom {v.p99_ms_long_run:,.2f} ms ({verdict} the SLO; "
            f"{worst.role}): usual {worst.p99_ms_steady:,.2f} ms, {worst.p99_ms_episode:,.2f} ms "
            f"in a slow episode ({worst.episode_share:.1%} of the time); the verified check "
            f"with episodes {v.p99_ms:,.2f} ms")


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlCost:
    master: CostSummary
    replica_each: CostSummary | None


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlDeployment:
    """A master (+ replicas) deployment with its figures; alternatives also say `why`."""

    why: str | None = field(default=None, metadata=OMIT_NONE)
    deployment: str
    master: str
    replicas: tuple[str, ...]
    monthly_usd: float
    cost: MysqlCost
    p99_ms: float
    p99_ms_at_headroom: float
    bottleneck: str
    bottlenecks: tuple[Bottleneck, ...]
    capacity_gib: float
    durability: DurabilityView
    verified: dict[str, DesCheck]
    max_tps_at_slo: int
    knee_engine: str
    headroom_pct: float
    # the recommendation's tail with and without slow episodes (results saved before: absent)
    variability: Variability | None = field(default=None, metadata=OMIT_NONE)
    # a role that receives no transactions (a master under a read-only shape), in words
    idle: str | None = field(default=None, metadata=OMIT_NONE)

    def verified_p99(self, load: str) -> tuple[str, DesLoad] | None:
        """The slowest server's event-simulation check at `load` (target, headroom or knee)
        with its role, or None when no server was checked there."""
        checked = [(role, x) for role, v in self.verified.items() for x in v.loads
                   if x.load == load]
        return max(checked, key=lambda c: c[1].p99_ms) if checked else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ActVerdict:
    """ACT's verdict on a node at the headroom load: the thresholds as the event simulation's
    replications estimate them (what passes), the first replication's slices and the worst
    slice of all."""

    text: str
    slices: tuple[ActSlice, ...]
    max: ActRow
    thresholds: tuple[ActThreshold, ...] = ()
    replications: int = 1
    reads: int | None = field(default=None, metadata=OMIT_NONE)
    episode_hour: ActEpisodeHour | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeCost:
    node_each: CostSummary


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceUse:
    """One node resource with a node down at the headroom load: what it needs of what it has."""

    resource: str  # device (ACT), capacity, RAM, network, CPU
    need: float
    have: float | None  # None: the catalog has no sourced figure (then `verified` is False)
    unit: str
    utilisation: float | None  # need / have
    basis: str  # how `need` was computed, with its source or assumption
    verified: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceRating:
    """The ACT rating the model predicts for one device of a layout: the highest x (1x = 2,000
    reads/s + 1,000 writes/s of 1,536 B records per device) passing ACT's three thresholds."""

    device: str
    x: float | None  # None: not even the lowest level passes
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AerospikeCluster:
    """N nodes of one layout with their per-node load and ACT verdict."""

    why: str | None = field(default=None, metadata=OMIT_NONE)
    deployment: str
    nodes: int
    layout: str
    monthly_usd: float
    cost: NodeCost
    per_node_load: dict[str, float]
    bottleneck: str
    bottlenecks: tuple[Bottleneck, ...]
    durability: DurabilityView
    act: ActVerdict | None = field(default=None, metadata=OMIT_NONE)
    # Per node with one node down at the headroom load (results saved before issue 12: empty).
    failure: str = ""  # the node-down case the checks assume
    resources: tuple[ResourceUse, ...] = ()
    binds: str = ""  # the resource nearest its limit
    device_rating: DeviceRating | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejection:
    deployment: str
    monthly_usd: float
    stage: str  # pruned, screened, verified
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchStats:
    considered: int = 0
    pruned: int = 0
    screened: int = 0
    verified: int = 0
    seconds: float | None = None  # wall time, set by the caller that owns a clock
    verify_bound: int | None = field(default=None, metadata=OMIT_NONE)  # most DES-verified
    unverified_at_bound: int = 0  # candidates left unverified because the bound was reached
    # MySQL: candidates the event simulation rejected, passes re-checked on fresh seeds because
    # one came after a rejection, and those the re-check rejected (absent when none)
    des_rejected: int | None = field(default=None, metadata=OMIT_NONE)
    confirmations: int | None = field(default=None, metadata=OMIT_NONE)
    confirmation_failures: int | None = field(default=None, metadata=OMIT_NONE)
    # ... of those rejected, how many on replications run for another candidate (the same
    # storage and server on another instance type whose limits held nothing back): unscreened
    des_shared: int | None = field(default=None, metadata=OMIT_NONE)
    # ... and answers' servers refused for their p99 over weeks in the event simulation (with
    # the volumes' slow episodes), the next deployment taken (absent when none)
    long_run_rejected: int | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class _SizeResult:
    kind: Literal["size"] = "size"
    request: MysqlSizeRequest | AerospikeSizeRequest
    slo: dict[str, Any]
    recommendation: MysqlDeployment | AerospikeCluster
    alternatives: tuple[MysqlDeployment | AerospikeCluster, ...]
    rejected: tuple[Rejection, ...]
    rejected_total: int
    search: SearchStats
    seed: int
    model_version: str
    advisor_version: str
    catalog_version: str
    schema_version: int = SCHEMA_VERSION
    # instance types not considered: the catalog has no sourced price for them under the
    # request's pricing plan (absent when every type is priced)
    unpriced: tuple[str, ...] | None = field(default=None, metadata=OMIT_NONE)


# Each workload narrows the fields it fills (a redeclared field keeps its place in the JSON).
@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlSizeResult(_SizeResult):
    workload: ClassVar[str] = "mysql"
    request: MysqlSizeRequest
    recommendation: MysqlDeployment
    alternatives: tuple[MysqlDeployment, ...]
    workload_shape: tuple[str, ...] = ()  # what one transaction is, in words
    io_model: tuple[RoleModel, ...] = ()  # the recommendation's I/O model per role (--explain)
    io_profile: str = "model"  # "model", or the measured profile used (--io-profile): its source
    # the measured profile's transaction shape (replay --driver sysbench), and whether the sizing
    # shape is it; absent for the model and for profiles without a shape
    measured_shape: str | None = field(default=None, metadata=OMIT_NONE)
    # the measured profile used (--io-profile or status dumps), path-free, so the report's curves
    # and its reproduce command use and name it; absent for the model
    measured_io: MeasuredIo | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class AerospikeSizeResult(_SizeResult):
    workload: ClassVar[str] = "aerospike"
    request: AerospikeSizeRequest
    recommendation: AerospikeCluster
    alternatives: tuple[AerospikeCluster, ...]
    cluster_rules: tuple[str, ...] = ()  # node counts tried, node-down and rack rules
    assumptions: tuple[str, ...] = ()  # every figure without a source, stated


SizeResult = MysqlSizeResult | AerospikeSizeResult
SizeResultFields = _SizeResult  # the fields both workloads' results share (their union types)


def load_size_result(data: Any) -> SizeResult:
    """A stored or saved `size` result JSON as its typed object (one line if it is not one)."""
    from advisor.serial import from_json

    if isinstance(data, dict) and data.get("kind") == "size" and "schema_version" not in data:
        data = _from_v1(data)
    if isinstance(data, dict) and data.get("workload") == "aerospike":
        return from_json(AerospikeSizeResult, data)
    return from_json(MysqlSizeResult, data)


def _from_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A result saved by advisor 0.1 (no schema_version): the same figures, without the
    structured bottlenecks it did not record (their text is kept)."""
    deployments = [data.get("recommendation"), *data.get("alternatives", [])]
    fixed = [{"bottlenecks": [], **d} if isinstance(d, dict) else d for d in deployments]
    return {**data, "schema_version": SCHEMA_VERSION, "recommendation": fixed[0],
            "alternatives": fixed[1:]}
