"""The sizing requests: workload, SLO and constraints, declared once and checked once for the CLI,
the API, stored runs and reports.

`advisor size` and `POST /v1/size` take one flat set of options with a `workload` switch;
`size_request` turns them into the request type of that workload, refusing options that belong
to the other one.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from advisor.catalog.model import OFFERED_PLANS, PRICING_HELP
from advisor.options import (
    P99_FLOOR_MS,
    Declared,
    FieldError,
    Opt,
    check_fields,
    check_value,
    declared,
    from_text,
    option,
)
from workloads.aerospike_options import record_bytes_option
from workloads.mysql_options import MysqlOptions
from workloads.mysql_shape import PRESETS

if TYPE_CHECKING:
    from workloads.mysql import MysqlParams

Workload = Literal["mysql", "aerospike"]
WORKLOADS: tuple[Workload, ...] = ("mysql", "aerospike")
FREE_SPACE_MARGIN = 0.2  # data x 1.2: InnoDB logs, temp space, growth
AEROSPIKE_FILL = 0.5  # Aerospike keeps devices at most ~50 % full (defrag-lwm-pct 50)
# ACT's pass thresholds (workloads.aerospike.ACT_LIMITS), as the SLO the result states.
ACT_SLO = {"gt_1ms_pct": 5, "gt_8ms_pct": 1, "gt_64ms_pct": 0.1}


def _replicas_text(text: str) -> int | None:
    if text.strip().lower() == "auto":
        return None
    if not text.strip().isascii():  # int() reads other scripts' digits ('٣' is 3)
        raise FieldError("replicas", text, "a whole number or auto")
    try:
        return int(text)
    except ValueError:
        raise FieldError("replicas", text, "a whole number or auto") from None


def _replicas_show(value: int | None) -> str:
    return "auto" if value is None else str(value)


def _replicas_check(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 8:
        return "must be 0..8 or auto"
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class SizeCommon:
    """What every sizing asks: data, headroom, peak hours, storage policy, budget, seed."""

    data_gb: float = option(100.0, gt=0, le=1_000_000,
                            help="data size (GiB); layouts need data + 20 %")
    headroom: float = option(0.3, ge=0, le=10,
                             help="the knee must reach the load x (1 + headroom); 0.3 = 30 %")
    peak_hours: float = option(24.0, gt=0, le=24,
                               help="hours a day at peak: burst credits count only if they "
                               "last that long (24 = sustained)")
    off_peak: float = option(0.3, ge=0, le=1,
                             help="load outside the peak hours as a fraction of the peak "
                             "(0.3 = 30 %): credit buckets must refill from it every day")
    allow_ephemeral: bool = option(False, help="allow instance store (only with >= 1 replica "
                                   "for mysql)")
    max_monthly_usd: float | None = option(None, gt=0, help="budget cap (USD/month)")
    pricing: str = option("on-demand", choices=OFFERED_PLANS, help=PRICING_HELP)
    region: str | None = option(None, help="catalog region (built in: us-east-1)")
    seed: int = option(1, ge=0, le=2**63 - 1, reproduce="always",
                       help="seed of the verifying event simulation (echoed in the result)")

    workload: ClassVar[Workload]

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlSizeRequest(SizeCommon, MysqlOptions):
    """MySQL master + replicas: read-write transactions go to the master, read-only ones to the
    replicas. What one transaction is: `--preset` and the shape options (MysqlOptions)."""

    tps: float = option(627.0, gt=0, le=10_000_000, reproduce="always",
                        help="all transactions per second, read-only + read-write (mysql)")
    reads: float | None = option(None, ge=0, le=10_000, reproduce="changed",
                                 help="read-only transactions per read-write transaction "
                                 "(default: the preset's: 3.25 for point-rw, 0 for "
                                 "sysbench-oltp-rw)")
    p99_ms: float = option(10.0, ge=P99_FLOOR_MS, le=3_600_000,
                           help="SLO: transaction p99 latency bound (ms)")
    replicas: int | None = option(1, help="read replicas: 0, 1, 2 ... 8 or auto",
                                  text=(_replicas_text, _replicas_show), api_type=int | str,
                                  check=_replicas_check)

    workload: ClassVar[Workload] = "mysql"

    def __post_init__(self) -> None:
        check_fields(self)
        self.check_shape(self.reads)

    @property
    def reads_per_write(self) -> float:
        """The read/write ratio: --reads, or the preset's."""
        return PRESETS[self.preset].reads if self.reads is None else self.reads

    @property
    def mix_text(self) -> str:
        """The transaction mix after '{tps} tps' (`WorkloadShape.mix_text`)."""
        return self.params(replicas=1, tps=1.0).shape.mix_text(self.reads_per_write)

    def params(self, *, replicas: int, tps: float) -> "MysqlParams":
        """The MySQL model's parameters for this request with `replicas` replicas at `tps`."""
        return self.mysql_params(tps=tps, reads=self.reads, replicas=replicas,
                                 data_gb=self.data_gb)

    @property
    def target_tps(self) -> float:
        """Load the knee must reach: tps x (1 + headroom)."""
        return self.tps * (1 + self.headroom)

    @property
    def needed_gib(self) -> float:
        return self.data_gb * (1 + FREE_SPACE_MARGIN)

    def slo_json(self) -> dict[str, object]:
        return {"p99_ms": self.p99_ms, "tps": self.tps, "headroom": self.headroom,
                "reads_per_write": self.reads_per_write,
                "target_tps": round(self.target_tps, 2), "peak_hours": self.peak_hours,
                "durability": "ephemeral allowed with >= 1 replica" if self.allow_ephemeral
                else "EBS only"}


AEROSPIKE_STORAGE = ("any", "store", "ebs", "shadow")


@dataclass(frozen=True, slots=True, kw_only=True)
class AerospikeSizeRequest(SizeCommon):
    """An Aerospike-style cluster judged by ACT's thresholds and each node's RAM, network and
    CPU, all with one node down."""

    reads_per_sec: float = option(0.0, ge=0, le=1e9, help="aerospike: client reads/s")
    writes_per_sec: float = option(0.0, ge=0, le=1e9, help="aerospike: client writes/s")
    record_bytes: int = record_bytes_option()
    replication_factor: int = option(2, ge=1, le=8, help="aerospike: copies of each record")
    storage: str = option("any", choices=AEROSPIKE_STORAGE,
                          help="aerospike: any (instance store or EBS; instance store loses a "
                          "node's data on stop, the other copies keep it), store, ebs, or shadow "
                          "(instance store with an EBS shadow device per device)")
    data_in_memory: bool = option(False, help="aerospike: keep the data in RAM too (not only "
                                  "the 64 B-a-copy primary index)")
    allow_n_equals_rf: bool = option(False, help="aerospike: allow as few nodes as copies "
                                     "(default: at least RF + 1, so a node down keeps RF copies)")
    racks: int = option(1, ge=1, le=16, help="aerospike: racks (zones) the nodes spread over "
                        "evenly; > 1: a lost node's copies are rebuilt inside its rack")
    ops_per_vcpu: float = option(10000.0, gt=0, le=1e7,
                                 help="aerospike: client or replica operations one vCPU serves "
                                 "per second (an assumption: say yours)")
    migration_hours: float = option(4.0, gt=0, le=720,
                                    help="aerospike: hours the survivors take to rebuild a lost "
                                    "node's copies (sets the migration traffic)")

    workload: ClassVar[Workload] = "aerospike"

    def __post_init__(self) -> None:
        check_fields(self)
        if self.reads_per_sec + self.writes_per_sec <= 0:
            raise FieldError("reads_per_sec", self.reads_per_sec,
                             "aerospike needs reads and/or writes per second")

    @property
    def min_nodes(self) -> int:
        """Fewest nodes allowed: RF + 1 (RF with --allow-n-equals-rf), at least 2, and at
        least one a rack."""
        return max(2, self.racks, self.replication_factor
                   + (0 if self.allow_n_equals_rf else 1))

    def slo_json(self) -> dict[str, object]:
        return {"act": dict(ACT_SLO), "headroom": self.headroom, "peak_hours": self.peak_hours,
                "checked_with": "one node down", "storage": self.storage}


SizeRequest = MysqlSizeRequest | AerospikeSizeRequest
REQUEST_TYPES: dict[Workload, type[MysqlSizeRequest] | type[AerospikeSizeRequest]] = {
    "mysql": MysqlSizeRequest, "aerospike": AerospikeSizeRequest}
WORKLOAD = Declared(name="workload", default="mysql", type=str, opt=Opt(
    choices=WORKLOADS, reproduce="changed",
    help="mysql (master + replicas) or aerospike (ACT thresholds)"))


def size_fields() -> dict[str, Declared]:
    """Every `size` option (both workloads), name -> Declared, in help order."""
    common = {d.name: d for d in declared(SizeCommon)}
    shape = {d.name: d for d in declared(MysqlOptions)}
    mysql = {d.name: d for d in declared(MysqlSizeRequest)
             if d.name not in common and d.name not in shape}
    aerospike = {d.name: d for d in declared(AerospikeSizeRequest) if d.name not in common}
    return {**mysql, **common, **shape, **aerospike}  # the question first, then the rest


def size_request(values: Mapping[str, Any]) -> SizeRequest:
    """The request of the named workload from flat options (the CLI's and the API's).

    An option of the other workload given with a non-default value is refused: it would be
    silently ignored otherwise."""
    workload = values.get("workload", "mysql")
    check_value("workload", workload, WORKLOAD.opt)
    cls = REQUEST_TYPES[workload]
    own = {d.name for d in declared(cls)}
    for name, d in size_fields().items():
        value = from_text(d, values[name]) if name in values else d.default
        if name not in own and value != d.default:
            other = next(w for w in WORKLOADS if w != workload)
            raise FieldError(name, value, f"applies to the {other} workload only")
    unknown = set(values) - set(size_fields()) - {"workload"}
    if unknown:
        raise FieldError(sorted(unknown)[0], values[sorted(unknown)[0]], "unknown option")
    return cls(**{d.name: from_text(d, values[d.name]) for d in declared(cls)
                  if d.name in values})
