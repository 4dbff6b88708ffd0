"""Request and response bodies of the HTTP API, mirroring the CLI's options.

Request bodies check types only (and refuse unknown fields, so no file path or database URL can
be slipped in); ranges are checked by the same core objects the CLI builds, so a bad value gets
the CLI's own one-line message. Result bodies are the core's JSON plus `run_id`; their schemas
name the stable keys (BRIEF section 6) and allow more.
"""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SEED = Field(1, ge=0, le=2**31 - 1, description="random seed (echoed in the result)")


class _Body(BaseModel):
    # strict: JSON true is not a number and "3" is not an integer, as the OpenAPI schema says
    model_config = ConfigDict(extra="forbid", strict=True)


class SizeBody(_Body):
    """`advisor size` options; every field has the CLI's default."""

    workload: str = Field("mysql", description="mysql or aerospike", examples=["mysql"])
    tps: float = Field(627.0, description="mysql: all transactions per second")
    reads: float = Field(3.25, description="mysql: read transactions per write transaction")
    p99_ms: float = Field(10.0, description="SLO: transaction p99 latency bound (ms)")
    data_gb: float = Field(100.0, description="data size (GiB); layouts need data + 20 %")
    replicas: int | str = Field(1, description="read replicas 0..8, or \"auto\"")
    headroom: float = Field(0.3, description="the knee must reach tps x (1 + headroom)")
    peak_hours: float = Field(24.0, description="hours a day at peak (24 = sustained)")
    allow_ephemeral: bool = Field(False, description="allow instance store (>= 1 replica)")
    max_monthly_usd: float | None = Field(None, description="budget cap (USD/month)")
    region: str | None = Field(None, description="catalog region (built in: us-east-1)")
    reads_per_sec: float = Field(0.0, description="aerospike: client reads/s")
    writes_per_sec: float = Field(0.0, description="aerospike: client writes/s")
    record_bytes: int = Field(1536, description="aerospike: record size in bytes")
    replication_factor: int = Field(2, description="aerospike: copies of each record")
    seed: int = SEED


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
