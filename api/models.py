"""Request and response bodies of the HTTP API, mirroring the CLI's options.

Request bodies check types only (and refuse unknown fields, so no file path or database URL can
be slipped in); ranges are checked by the same core objects the CLI builds, so a bad value gets
the CLI's own one-line message. Result bodies are the core's JSON plus `run_id`; their schemas
name the stable keys (BRIEF section 6) and allow more.
"""

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from advisor.options import Declared
from recommend.request import WORKLOAD, size_fields

SEED = Field(1, ge=0, le=2**31 - 1, description="random seed (echoed in the result)")


class _Body(BaseModel):
    # strict: JSON true is not a number and "3" is not an integer, as the OpenAPI schema says
    model_config = ConfigDict(extra="forbid", strict=True)


def _field(d: Declared) -> tuple[Any, Any]:
    """A body field from an option declaration: its type, default, description and the bounds
    in the schema (checked by the core request, which words the error)."""
    schema: dict[str, Any] = {}
    for key, bound in (("minimum", d.opt.ge), ("exclusiveMinimum", d.opt.gt),
                       ("maximum", d.opt.le), ("exclusiveMaximum", d.opt.lt)):
        if bound is not None:
            schema[key] = bound
    if d.opt.choices:
        schema["enum"] = list(d.opt.choices)
    kind = d.opt.api_type if d.opt.api_type is not None else d.type
    return kind, Field(d.default, description=d.opt.help, json_schema_extra=schema or None)


def body_model(name: str, decls: Iterable[Declared], doc: str) -> type[BaseModel]:
    """A strict request body with one field per declared option."""
    fields: dict[str, Any] = {d.name: _field(d) for d in decls}
    return create_model(name, __base__=_Body, __doc__=doc, **fields)


SizeBody = body_model("SizeBody", [WORKLOAD, *size_fields().values()],
                      "`advisor size` options; every field has the CLI's default.")


class SimulateBody(_Body):
    """`advisor simulate SPEC` options: a raw fio/sysbench/ioping pattern, or a database
    workload (`workload`: mysql or aerospike) with its own fields."""

    spec: str = Field(..., description="layout spec, e.g. m5d.large:gp2:385GiB",
                      examples=["m5d.large:gp2:385GiB"])
    rw: str = Field("randread", description="fio --rw: read, write, randread, randwrite, rw, "
                    "randrw")
    rwmixread: float = Field(50.0, description="% reads for rw/randrw")
    bs: str = Field("4k", description="block size, e.g. 4k, 16k, 1m")
    iodepth: int = Field(1, description="outstanding I/Os per job")
    numjobs: int = Field(1, description="jobs; concurrency = iodepth x numjobs")
    rate_iops: float | None = Field(None, description="open loop: Poisson arrivals (IOPS)")
    size: str = Field("4g", description="span of the random offsets (fio --size)")
    pattern: str | None = Field(None, description="preset: ioping")
    file_test_mode: str | None = Field(None, description="sysbench fileio mode")
    threads: int = Field(1, description="sysbench threads")
    file_block_size: str = "16k"
    file_fsync_freq: int = 100
    duration: float = Field(60.0, description="simulated seconds per load level (API: <= 3600)")
    warmup: float = Field(0.0, description="seconds excluded from the statistics")
    ramp: str | None = Field(None, description="iodepth=1,2,4 / threads=1,8 / rate=1000,2000 / "
                             "tps=100,200 (mysql) / x=1,2,5 (aerospike)")
    engine: str = Field("auto", description="des, analytic or auto")
    seed: int = SEED
    workload: str | None = Field(None, description="mysql or aerospike instead of a pattern")
    tps: float = 627.0
    reads: float = 3.25
    replicas: int = 1
    replica_layout: str | None = None
    data_gb: float = 100.0
    buffer_pool_gib: float | None = None
    flush_log_at_trx_commit: int = 1
    sync_binlog: int = 1
    p99_ms: float = 10.0
    row_bytes: int = Field(190, description="mysql: bytes per row")
    read_rows: int = Field(1, description="mysql: rows looked up per read transaction")
    write_rows: int = Field(4, description="mysql: rows changed per write transaction")
    secondary_indexes: int = Field(1, description="mysql: secondary indexes per table")
    replica_workers: int = Field(1, description="mysql: replica SQL threads applying writes")
    x: float | None = Field(None, description="aerospike: ACT load multiple")
    reads_per_sec: float | None = None
    writes_per_sec: float | None = None
    record_bytes: int = 1536
    replication_factor: int = 1
    update_pct: float = 0.0
    defrag_lwm_pct: float = 50.0
    slice: float | None = Field(None, description="aerospike: ACT slice in seconds")


class _Result(BaseModel):
    model_config = ConfigDict(extra="allow")


class SizeResult(_Result):
    run_id: str = Field(..., description="id of the stored run (GET /v1/runs/{id})")
    kind: str
    workload: str
    request: dict[str, Any]
    slo: dict[str, Any]
    recommendation: dict[str, Any]
    alternatives: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    seed: int
    catalog_version: str


class SimulateResult(_Result):
    run_id: str = Field(..., description="id of the stored run (GET /v1/runs/{id})")
    kind: str
    layout: str
    duration_s: float
    levels: list[dict[str, Any]]
    bottleneck: str
    timeline: list[dict[str, Any]]
    seed: int
    catalog_version: str


class LayoutResult(_Result):
    spec: str
    capacity_gib: float
    ephemeral: bool
    annual_loss_probability: float
    limits: list[dict[str, Any]]
    cost: dict[str, Any]


class InstancesResult(_Result):
    catalog_version: str
    region: str
    instances: list[dict[str, Any]]


class VolumesResult(_Result):
    catalog_version: str
    region: str
    volumes: list[dict[str, Any]]


class RunSummary(BaseModel):
    id: str
    kind: str
    workload: str | None
    created_at: str
    advisor_version: str
    catalog_version: str | None
    request: dict[str, Any]


class Run(RunSummary):
    result: dict[str, Any]


class RunList(BaseModel):
    runs: list[RunSummary]


class Health(BaseModel):
    status: str
    advisor_version: str
    catalog_version: str


class ErrorOut(BaseModel):
    detail: str = Field(..., description="one line saying what is wrong (as the CLI says it)")
