"""The MySQL workload-shape and server options, declared once for `size`, `simulate`, the API,
stored runs and reports (both requests inherit `MysqlOptions`)."""

from dataclasses import dataclass
from typing import Any

from advisor.options import FieldError, option
from workloads.mysql import SERVER_NAMES, MysqlParams
from workloads.mysql_shape import PRESETS, WorkloadShape, check_skew, check_txn, shape_of

SHAPE = "Workload shape (what one transaction is)"
SERVER = "Server settings (defaults: the server's own)"


def _presets_help() -> str:
    return "; ".join(f"{p.name}: {p.about}" for p in PRESETS.values())


@dataclass(frozen=True, kw_only=True)
class MysqlOptions:
    """What a MySQL transaction is and how the server is set up."""

    preset: str = option("point-rw", choices=tuple(PRESETS), panel=SHAPE,
                         help="named workload shape: " + _presets_help())
    read_txn: str | None = option(None, check=check_txn, panel=SHAPE,
                                  help="read-only transaction, e.g. point=10,range=4x100 "
                                  "(point selects, range selects x rows; default: the preset's)")
    write_txn: str | None = option(None, check=check_txn, panel=SHAPE,
                                   help="read-write transaction, e.g. point=10,range=4x100,"
                                   "index-update=1,update=1,delete=1,insert=1 (add autocommit "
                                   "for one commit per statement; default: the preset's)")
    row_bytes: int | None = option(None, ge=16, le=65535, panel=SHAPE,
                                   help="bytes per row (default: the preset's, 190 = sbtest)")
    secondary_indexes: int | None = option(None, ge=0, le=16, panel=SHAPE,
                                           help="secondary indexes on the table (default: the "
                                           "preset's, 1)")
    skew: str | None = option(None, check=check_skew, panel=SHAPE,
                              help="access skew: uniform, special (sysbench's default), "
                              "hot:ROWS%:ACCESSES% (e.g. hot:10%:90%) or zipf:THETA "
                              "(default: the preset's)")
    server: str = option("mysql-8.0", choices=SERVER_NAMES, panel=SERVER,
                         help="server and its defaults: mysql-8.0 (change buffer on, 4 replica "
                         "workers), mysql-8.4 (change buffer off), mariadb-10.11 (one replica "
                         "SQL thread, no replica binlog, 96 MiB redo)")
    buffer_pool_gib: float | None = option(None, gt=0, le=1e6, panel=SERVER,
                                           help="innodb_buffer_pool_size in GiB (default: the "
                                           "innodb_dedicated_server rule: 50 % of RAM up to "
                                           "4 GiB, 75 % above)")
    redo_log_mib: float | None = option(None, ge=8, le=512 * 1024, panel=SERVER,
                                        help="redo log capacity in MiB (default: MySQL "
                                        "vCPUs/2 GiB up to 16 GiB; MariaDB 96 MiB)")
    flush_log_at_trx_commit: int = option(1, ge=0, le=2, panel=SERVER,
                                          help="innodb_flush_log_at_trx_commit")
    sync_binlog: int = option(1, ge=0, le=4_294_967_295, panel=SERVER, help="sync_binlog")
    io_capacity: int = option(200, ge=100, le=4_294_967_295, panel=SERVER,
                              help="innodb_io_capacity (pages/s of background flushing)")
    io_capacity_max: int | None = option(None, ge=100, le=4_294_967_295, panel=SERVER,
                                         help="innodb_io_capacity_max (default: max(2000, "
                                         "2 x io_capacity)); the page-flush rate must fit it")
    replica_workers: int | None = option(None, ge=1, le=1024, panel=SERVER,
                                         help="replica_parallel_workers (default: 4 on MySQL, "
                                         "1 on MariaDB)")
    replica_dependency: float = option(0.25, ge=0, le=1, panel=SERVER,
                                       help="share of the replica's apply work that cannot run "
                                       "in parallel (estimate; 1 = serial)")
    log_replica_updates: str | None = option(None, choices=("on", "off"), panel=SERVER,
                                             help="replicas write their own binlog (default: on "
                                             "for MySQL, off for MariaDB)")
    semi_sync: bool = option(False, panel=SERVER,
                             help="semi-synchronous replication: a commit waits for one "
                             "replica's ack (one network round trip); no acknowledged "
                             "transaction is lost with the master")
    network_rtt_ms: float = option(0.5, gt=0, le=1000, panel=SERVER,
                                   help="round trip master-replica for --semi-sync (estimate "
                                   "for two availability zones of one region)")

    def shape(self) -> WorkloadShape:
        """The preset's shape with the options set on top."""
        return shape_of(self.preset, read_txn=self.read_txn, write_txn=self.write_txn,
                        row_bytes=self.row_bytes, secondary_indexes=self.secondary_indexes,
                        skew=self.skew)

    def check_shape(self, reads: float | None) -> None:
        """Raise FieldError if the shape does not hold together (called by the requests)."""
        shape = self.shape()
        if reads is not None and reads > 0 and (shape.read_txn is None
                                                or shape.write_txn is None):
            only = "read-only" if shape.write_txn is None else "read-write"
            raise FieldError("reads", reads, f"preset {self.preset} has {only} transactions "
                             "only: leave --reads out")

    def mysql_params(self, *, tps: float, reads: float | None, replicas: int,
                     data_gb: float) -> MysqlParams:
        """The model's parameters for this request at `tps` (reads None: the preset's)."""
        shape = self.shape()
        lru: Any = None if self.log_replica_updates is None else self.log_replica_updates == "on"
        try:
            return self._params(tps=tps, reads=reads, replicas=replicas, data_gb=data_gb,
                                shape=shape, lru=lru)
        except FieldError as exc:
            if exc.name == "reads_per_write":  # the model's ratio is this request's `reads`
                raise FieldError("reads", exc.value, exc.problem) from None
            raise

    def _params(self, *, tps: float, reads: float | None, replicas: int, data_gb: float,
                shape: Any, lru: Any) -> MysqlParams:
        return MysqlParams(
            tps=tps, reads_per_write=PRESETS[self.preset].reads if reads is None else reads,
            replicas=replicas, data_gb=data_gb, shape=shape, server=self.server,
            buffer_pool_gib=self.buffer_pool_gib, redo_log_mib=self.redo_log_mib,
            flush_log_at_trx_commit=self.flush_log_at_trx_commit, sync_binlog=self.sync_binlog,
            io_capacity=self.io_capacity, io_capacity_max=self.io_capacity_max,
            replica_workers=self.replica_workers, replica_dependency=self.replica_dependency,
            log_replica_updates=lru, semi_sync=self.semi_sync,
            network_rtt_ms=self.network_rtt_ms)
