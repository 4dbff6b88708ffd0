"""What a sizing returns, as typed values: the recommendation, alternatives, rejections, search
statistics and bottlenecks. `advisor.serial.to_json` turns them into the stable JSON keys
(BRIEF section 6); CLI printers, reports, the API and the store read these objects."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from advisor.layout.cost import Cost, CostItem
from advisor.serial import OMIT_NONE, SCHEMA_VERSION
from advisor.sim.results import ActRow, ActSlice
from recommend.request import AerospikeSizeRequest, MysqlSizeRequest


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
class Bottleneck:
    """The limit that binds a server, as a value; `bottleneck_text` words it."""

    role: str  # master, replica or node
    limit: str  # the binding limit's name, e.g. "instance EBS bandwidth"
    utilisation: float | None  # 0..1 at `where`; None when the verdict is not a utilisation
    where: str = "at headroom load"


def bottleneck_text(items: Sequence[Bottleneck]) -> str:
    """The one wording of bottlenecks: `master: LIMIT 14 % busy at headroom load; replica: ...`."""
    parts = []
    for b in items:
        busy = "" if b.utilisation is None else f" {b.utilisation:.0%} busy"
        parts.append(f"{b.role}: {b.limit}{busy} {b.where}".rstrip())
    return "; ".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class DurabilityView:
    ephemeral: bool
    annual_loss_probability: dict[str, float]
    notes: tuple[str, ...]
    all_copies_lost_probability: float | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True, kw_only=True)
class DesCheck:
    """A server's event-simulation check at the headroom load."""

    des_p99_ms_at_headroom: float
    des_requests: int


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


@dataclass(frozen=True, slots=True, kw_only=True)
class ActVerdict:
    """ACT's verdict on a node at the headroom load."""

    text: str
    slices: tuple[ActSlice, ...]
    max: ActRow


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeCost:
    node_each: CostSummary


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


# Each workload narrows the fields it fills (a redeclared field keeps its place in the JSON).
@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlSizeResult(_SizeResult):
    workload: ClassVar[str] = "mysql"
    request: MysqlSizeRequest
    recommendation: MysqlDeployment
    alternatives: tuple[MysqlDeployment, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AerospikeSizeResult(_SizeResult):
    workload: ClassVar[str] = "aerospike"
    request: AerospikeSizeRequest
    recommendation: AerospikeCluster
    alternatives: tuple[AerospikeCluster, ...]


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
