"""The `simulate` requests, declared once for the CLI, the API, stored runs and reports: a raw I/O
pattern (fio, sysbench fileio, ioping), a MySQL deployment or an Aerospike node on a layout.

`simulate_request` turns the flat options of `advisor simulate` / `POST /v1/simulate` into the
request of the workload asked for, refusing options that belong to another one.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from advisor.io_modes import FIO_RW_MODES, SYSBENCH_MODES
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
    show_value,
)
from workloads.aerospike_options import record_bytes_option
from workloads.mysql_options import MysqlOptions

MAX_DURATION_S = 7 * 86400.0  # the event simulation's bound (and raw patterns')
# The analytic engine's cost does not grow with the horizon (credit drain in closed form): a
# MySQL deployment can be followed for weeks, e.g. to watch burst credits over daily peaks.
ANALYTIC_MAX_DURATION_S = 28 * 86400.0
DB = "Database workloads"
# ACT slices: each holds latency histograms while it runs (about 45 KB) and a row in the answer
# (about 400 B of JSON); ACT itself reports hour slices (24 a day).
MAX_ACT_SLICES = 1_000
MAX_IN_FLIGHT = 65_536  # iodepth x numjobs of a raw pattern
MAX_ACT_ROWS = 10_000
WORKLOADS = ("mysql", "aerospike")


def _spec_text(value: Any) -> str | None:
    if not str(value).strip():
        return "empty: give a layout spec like m5d.large:gp2:385GiB"
    from advisor.layout.spec import MAX_SPEC_LENGTH

    return None if len(str(value)) <= MAX_SPEC_LENGTH else "too long for a layout spec"


def _bytes_check(most: int, what: str) -> Any:
    def check(value: Any) -> str | None:
        """The problem with a size like 4k or 500GiB, in the words parse_bytes uses."""
        from advisor.errors import InvalidInput
        from advisor.units import parse_bytes

        if len(str(value)) > 32:
            return "too long for a size (e.g. 4k, 16k, 1m, 4g)"
        try:
            size = parse_bytes(str(value), what="")
        except InvalidInput as exc:
            return str(exc).split(" ", 2)[-1].removeprefix("is ").strip()
        return None if size <= most else f"at most {what}"

    return check


_block = _bytes_check(2**30, "1 GiB a block")
_span = _bytes_check(2**50, "1 PiB")


RAMPED_OPTION = {"iodepth": "iodepth", "threads": "threads", "rate": "rate_iops", "tps": "tps",
                 "x": "x"}  # a ramp key -> the option whose bounds its values keep


def _check_ramp(req: "SimulateCommon", allowed: tuple[str, ...]) -> None:
    """The ramp parses for this kind of simulation and each value is within the bounds of the
    option it ramps (its problem named on the `ramp` field)."""
    if req.ramp is None:
        return
    from advisor.errors import InvalidInput
    from advisor.sim.run import parse_ramp

    try:
        ramp = parse_ramp(req.ramp, allowed)
    except InvalidInput as exc:
        raise FieldError("ramp", req.ramp, str(exc).split(": ", 1)[-1]) from None
    d = simulate_fields()[RAMPED_OPTION[ramp.key]]
    for value in ramp.values:
        try:
            check_value(d.name, value, d.opt)
        except FieldError as exc:
            raise FieldError("ramp", req.ramp, f"{ramp.key} {show_value(value)}: "
                             f"{exc.problem}") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulateCommon:
    """What every simulation asks: where, how long, how hard, which engine, which seed."""

    spec: str = option(reproduce="never", argument=True, check=_spec_text,
                       help="layout: INSTANCE[:RAID]:[Nx]DEVICE[:SIZE][:Niops][:Nmbps], e.g. "
                       "m5d.large:gp2:385GiB, m5d.large:store, "
                       "m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps")
    duration: float = option(60.0, gt=0, le=ANALYTIC_MAX_DURATION_S,
                             help="simulated seconds per load level (over 7 days: mysql with "
                             "--engine analytic only)")
    warmup: float = option(0.0, ge=0, le=ANALYTIC_MAX_DURATION_S,
                           help="seconds excluded from the statistics")
    ramp: str | None = option(None, help="rising load: iodepth=1,2,4 / threads=1,8,64 / "
                              "rate=1000,2000 (IOPS) / tps=100,200 (mysql) / x=1,2,5 (aerospike)",
                              check=lambda v: None if len(v) <= 2000 else "too long")
    engine: str = option("auto", choices=("des", "analytic", "auto"),
                         help="des (event simulation), analytic (formulas, any horizon) or auto")
    seed: int = option(1, ge=0, le=2**63 - 1, reproduce="always",
                       help="random seed (echoed in the result)")

    workload: ClassVar[str | None] = None

    def __post_init__(self) -> None:
        check_fields(self)
        if self.warmup >= self.duration:
            raise FieldError("warmup", self.warmup, "must be below the duration")
        if self.duration > MAX_DURATION_S and not (self.workload == "mysql"
                                                   and self.engine == "analytic"):
            raise FieldError("duration", self.duration, "at most 604,800 s (7 days); up to "
                             "2,419,200 s (28 days) with --workload mysql --engine analytic")


TOOL_OF = {"rw": "fio", "rwmixread": "fio", "bs": "fio", "iodepth": "fio", "numjobs": "fio",
           "direct": "fio", "fsync": "fio", "threads": "sysbench", "file_block_size": "sysbench",
           "file_fsync_freq": "sysbench", "file_extra_flags": "sysbench",
           "file_total_size": "sysbench"}


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternSimRequest(SimulateCommon):
    """A raw I/O pattern, as fio, sysbench fileio or ioping would issue it."""

    rw: str = option("randread", choices=tuple(FIO_RW_MODES),
                     help="fio pattern: read, write, randread, randwrite, rw, randrw")
    rwmixread: float = option(50.0, ge=0, le=100, help="% reads for rw/randrw (fio)")
    bs: str = option("4k", check=_block, help="block size, e.g. 4k, 16k, 1m")
    iodepth: int = option(1, ge=1, le=4096, help="outstanding I/Os per job")
    numjobs: int = option(1, ge=1, le=4096, help="jobs; concurrency = iodepth x numjobs")
    rate_iops: float | None = option(None, gt=0, le=1e9,
                                     help="open loop: Poisson arrivals at this many IOPS "
                                     "(latency from the intended start)")
    size: str = option("4g", check=_span, help="span of the random offsets (fio --size)")
    pattern: str | None = option(None, choices=("ioping",),
                                 help="preset: ioping (QD1 4 KiB random reads)")
    file_test_mode: str | None = option(None, choices=tuple(SYSBENCH_MODES),
                                        help="sysbench fileio mode (threads at QD1, 16 KiB, "
                                        "fsync every 100 writes)")
    threads: int = option(1, ge=1, le=4096, help="sysbench threads")
    file_block_size: str = option("16k", check=_block, help="sysbench block size")
    file_fsync_freq: int = option(100, ge=0, le=10**9, help="sysbench: fsync every N writes "
                                  "(0: never)")
    file_extra_flags: str | None = option(None, choices=("direct",),
                                          help="sysbench: direct opens the files O_DIRECT; "
                                          "default buffered, through a page cache sized from "
                                          "the instance's RAM")
    file_total_size: str | None = option(None, check=_span,
                                         help="sysbench: total size of the files (the span; "
                                         "--size for fio)")
    direct: int = option(1, ge=0, le=1, help="fio: 1 bypasses the page cache (advisor's "
                         "default; fio's is 0), 0 runs buffered through it")
    fsync: int = option(0, ge=0, le=10**9, help="fio: fsync every N writes (0: never)")

    def __post_init__(self) -> None:
        SimulateCommon.__post_init__(self)
        _check_ramp(self, ("iodepth", "threads", "rate"))
        # Every I/O in flight is state the event simulation holds (16.7 M of them took 14 s and
        # 300 MB before the first was served); fio's own iodepth stops at 65,536.
        depths = [self.iodepth]
        if self.ramp and self.ramp.strip().lower().startswith("iodepth"):
            from advisor.sim.run import parse_ramp

            depths = [int(v) for v in parse_ramp(self.ramp, ("iodepth",)).values]
        if max(depths) * self.numjobs > MAX_IN_FLIGHT:
            raise FieldError("numjobs", self.numjobs, f"iodepth x numjobs at most "
                             f"{MAX_IN_FLIGHT:,} I/Os in flight (iodepth {max(depths):,})")
        # One tool's options at a time: an option the chosen tool would ignore is refused.
        tool = "ioping" if self.pattern else "sysbench" if self.file_test_mode else "fio"
        if self.pattern and self.file_test_mode:
            raise FieldError("file_test_mode", self.file_test_mode,
                             "choose a sysbench mode or the ioping preset, not both")
        for d in declared(PatternSimRequest):
            owner = TOOL_OF.get(d.name)
            value = getattr(self, d.name)
            if owner is not None and owner != tool and value != d.default:
                raise FieldError(d.name, value, f"is a {owner} option; this run is {tool}")


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlSimRequest(SimulateCommon, MysqlOptions):
    """A MySQL master (+ replicas) deployment on the layout. What one transaction is: `--preset`
    and the shape options (workloads.mysql_options.MysqlOptions, shared with `size`)."""

    tps: float = option(627.0, gt=0, le=1e9, reproduce="always", panel=DB,
                        help="mysql: all transactions/s, read-only + read-write")
    reads: float | None = option(None, ge=0, le=10_000, reproduce="changed", panel=DB,
                                 help="mysql: read-only transactions per read-write transaction "
                                 "(default: the preset's: 3.25 for point-rw)")
    replicas: int = option(1, ge=0, le=32, panel=DB,
                           help="mysql: replicas taking the reads (0: the master)")
    replica_layout: str | None = option(None, panel=DB, check=_spec_text,
                                        help="mysql: layout of each replica (default: the "
                                        "master's)")
    data_gb: float = option(100.0, gt=0, le=1_000_000, panel=DB, help="mysql: data size in GiB")
    p99_ms: float = option(10.0, ge=P99_FLOOR_MS, le=3_600_000, panel=DB,
                           help="mysql: SLO on transaction p99 for the knee")

    workload: ClassVar[str | None] = "mysql"

    def __post_init__(self) -> None:
        SimulateCommon.__post_init__(self)
        _check_ramp(self, ("tps", "threads"))
        if self.duration > 86400 and self.engine != "analytic":
            raise FieldError("duration", self.duration, "the event simulation of mysql runs "
                             "at most 86,400 s a level; --engine analytic up to 2,419,200 s "
                             "(28 days)")
        self.check_shape(self.reads)

    @property
    def reads_per_write(self) -> float:
        """The read/write ratio: --reads, or the preset's."""
        from workloads.mysql_shape import PRESETS

        return PRESETS[self.preset].reads if self.reads is None else self.reads

    def params(self, tps: float) -> Any:
        """The MySQL model's parameters (workloads.mysql.MysqlParams) at `tps`."""
        return self.mysql_params(tps=tps, reads=self.reads, replicas=self.replicas,
                                 data_gb=self.data_gb)


@dataclass(frozen=True, slots=True, kw_only=True)
class AerospikeSimRequest(SimulateCommon):
    """One Aerospike node's devices under ACT's load model."""

    x: float | None = option(None, gt=0, le=1000, panel=DB,
                             help="aerospike: ACT load multiple (1x = 2,000 reads/s + 1,000 "
                             "writes/s per device)")
    reads_per_sec: float | None = option(None, ge=0, le=1e9, panel=DB,
                                         help="aerospike: client reads/s (instead of --x)")
    writes_per_sec: float | None = option(None, ge=0, le=1e9, panel=DB,
                                          help="aerospike: client writes/s (instead of --x)")
    record_bytes: int = record_bytes_option(panel=DB)
    replication_factor: int = option(1, ge=1, le=8, panel=DB,
                                     help="aerospike: copies of each record")
    update_pct: float = option(0.0, ge=0, le=100, panel=DB,
                               help="aerospike: % of writes that update in place")
    defrag_lwm_pct: float = option(50.0, gt=0, lt=100, panel=DB,
                                   help="aerospike: defrag low-water mark (%)")
    slice: float | None = option(None, gt=0, le=MAX_DURATION_S, panel=DB,
                                 help="aerospike: ACT report slice in seconds "
                                 "(default duration/6)")

    workload: ClassVar[str | None] = "aerospike"

    def __post_init__(self) -> None:
        SimulateCommon.__post_init__(self)
        _check_ramp(self, ("x",))
        if self.duration > 86400:
            raise FieldError("duration", self.duration, "aerospike simulates at most 86,400 s "
                             "a level")
        if self.engine == "analytic":
            raise FieldError("engine", self.engine, "ACT's slices need the event simulation: "
                             "use des or auto")
        if self.x is not None and (self.reads_per_sec is not None
                                   or self.writes_per_sec is not None):
            raise FieldError("x", self.x, "give an ACT load multiple or reads/writes per "
                             "second, not both")
        if self.slice is not None:
            levels = self.ramp.count(",") + 1 if self.ramp else 1
            most = min(MAX_ACT_SLICES, MAX_ACT_ROWS // levels)
            if self.slice < self.duration / most:
                raise FieldError("slice", self.slice, f"at least duration / {most:,} "
                                 f"({self.duration / most:g} s): at most {MAX_ACT_SLICES:,} "
                                 f"slices a level and {MAX_ACT_ROWS:,} in all, each "
                                 "holding its own latency histogram")


SimulateRequest = PatternSimRequest | MysqlSimRequest | AerospikeSimRequest
REQUEST_TYPES: dict[str | None, type[SimulateRequest]] = {
    None: PatternSimRequest, "mysql": MysqlSimRequest, "aerospike": AerospikeSimRequest}
WORKLOAD = Declared(name="workload", default=None, type=str | None, opt=Opt(
    choices=WORKLOADS, panel=DB,
    help="database workload instead of a raw pattern: mysql or aerospike"))


def simulate_fields() -> dict[str, Declared]:
    """Every `simulate` option (all kinds), name -> Declared, in help order."""
    out: dict[str, Declared] = {}
    for cls in (SimulateCommon, PatternSimRequest, MysqlSimRequest, AerospikeSimRequest):
        for d in declared(cls):
            out.setdefault(d.name, d)
    return out


def simulate_request(values: Mapping[str, Any]) -> SimulateRequest:
    """The request of the workload named (none: a raw pattern) from flat options."""
    workload = values.get("workload")
    if workload is not None:
        check_value("workload", workload, WORKLOAD.opt)
    cls = REQUEST_TYPES[workload]
    own = {d.name for d in declared(cls)}
    for name, d in simulate_fields().items():
        value = from_text(d, values[name]) if name in values else d.default
        if name not in own and value != d.default:
            kind = "raw pattern" if workload is None else workload
            raise FieldError(name, value, f"does not apply to a {kind} simulation")
    unknown = set(values) - set(simulate_fields()) - {"workload"}
    if unknown:
        name = sorted(unknown)[0]
        raise FieldError(name, values[name], "unknown option")
    return cls(**{d.name: from_text(d, values[d.name]) for d in declared(cls)
                  if d.name in values})
