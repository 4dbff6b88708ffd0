"""MySQL/InnoDB master + replicas: logical transactions turned into device I/Os (BRIEF section 5).

Per write transaction (on the master): leaf-page reads on buffer-pool misses, CPU, then the
two-phase commit: redo append + fsync and binlog append + fsync, each a group commit (commits
that arrive while a flush is in progress share the next one). Dirtied 16 KiB pages are flushed in
the background through the doublewrite buffer. Per read transaction (on a replica, or the master
when there are none): dependent page reads down the B-tree, each missing with the probability
that follows from data size vs buffer pool. Every replica applies every write: relay-log append,
the same page work, its own redo commits, with a single SQL thread unless told otherwise.

Defaults are documented on `MysqlParams`; the whole per-transaction profile can be replaced by a
measured one (`advisor replay` writes it: `workloads.io_profile`).
"""

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from advisor.errors import InvalidInput
from advisor.sim.analytic import IoSpec, RequestClass
from advisor.sim.source import (
    OP_COMMIT,
    OP_CPU,
    OP_FLUSH,
    OP_READ,
    OP_WRITE,
    Background,
    Requests,
    poisson_times,
    poisson_window,
)

PAGE = 16384
GIB = 2**30
LOG_BLOCK = 4096
DOUBLEWRITE_BATCH_PAGES = 64  # pages per doublewrite batch (1 MiB), then an fsync
Role = Literal["master", "replica"]
# A sanity bound, far above what any server can do: `size` caps --tps at 10 M itself and then
# evaluates tps x (1 + headroom) and searches for the knee above that.
MAX_TPS = 1e9


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlParams:
    """The workload and server settings. Defaults follow sysbench oltp_read_write and MariaDB
    10.11; figures marked 'estimate' are modelling assumptions to replace with a measured
    profile (`--io-profile`) when you have one."""

    tps: float  # all transactions per second
    reads_per_write: float = 3.25  # read transactions per write transaction
    replicas: int = 1  # 0: the master serves the reads too
    data_gb: float = 100.0  # table + index size on disk (GiB)
    buffer_pool_gib: float | None = None  # default: 75 % of the instance's RAM
    buffer_pool_fraction: float = 0.75
    row_bytes: int = 190  # sysbench sbtest row: int id, int k, char(120) c, char(60) pad
    read_rows: int = 1  # rows looked up per read transaction (point selects by key)
    write_rows: int = 4  # rows changed per write transaction (2 updates, a delete, an insert)
    secondary_indexes: int = 1  # sbtest has one (k)
    flush_log_at_trx_commit: int = 1  # innodb_flush_log_at_trx_commit
    sync_binlog: int = 1
    redo_log_mib: float = 96.0  # MariaDB 10.11 innodb_log_file_size default
    doublewrite: bool = True
    replica_workers: int = 1  # MariaDB slave_parallel_threads=0: one SQL thread
    cpu_ms_read: float = 0.15  # estimate: CPU per read transaction
    cpu_ms_write: float = 0.6  # estimate: CPU per write transaction
    redo_bytes_per_row: int = 150  # estimate: redo record overhead beyond the row image
    binlog_bytes_per_row: int = 60  # estimate: ROW event overhead beyond before+after images

    def __post_init__(self) -> None:
        checks = [
            (self.tps > 0, f"--tps {self.tps:g}: must be positive"),
            (self.tps <= MAX_TPS, f"--tps {self.tps:g}: at most 1,000,000,000"),
            (0 <= self.reads_per_write <= 10_000,
             f"--reads {self.reads_per_write:g}: must be between 0 and 10,000"),
            (0 <= self.replicas <= 32, f"--replicas {self.replicas}: must be 0..32"),
            (0 < self.data_gb <= 1_000_000, f"--data-gb {self.data_gb:g}: must be 0 < x <= 1e6"),
            (self.flush_log_at_trx_commit in (0, 1, 2),
             "--flush-log-at-trx-commit must be 0, 1 or 2"),
            (self.sync_binlog >= 0, "--sync-binlog must be 0 or more"),
            (1 <= self.read_rows <= 1000, f"--read-rows {self.read_rows}: must be 1..1000"),
            (1 <= self.write_rows <= 1000, f"--write-rows {self.write_rows}: must be 1..1000"),
            (16 <= self.row_bytes <= 65535, f"--row-bytes {self.row_bytes}: must be 16..65535"),
            (0 <= self.secondary_indexes <= 16, "--secondary-indexes must be 0..16"),
            (1 <= self.replica_workers <= 256,
             f"--replica-workers {self.replica_workers}: must be 1..256"),
        ]
        for ok, message in checks:
            if not ok:
                raise InvalidInput(message)

    @property
    def write_tps(self) -> float:
        return self.tps / (1 + self.reads_per_write)

    @property
    def read_tps(self) -> float:
        return self.tps - self.write_tps


@dataclass(frozen=True, slots=True, kw_only=True)
class TxnIo:
    """Device work of one transaction of each kind on one server, and where it came from."""

    read_page_reads: float  # per read transaction
    write_page_reads: float  # per write transaction
    write_page_flushes: float  # pages flushed per write transaction (after coalescing)
    redo_bytes: float
    binlog_bytes: float
    miss_ratio: float
    source: str  # "model" or the measured profile's description
    explain: list[str] = field(default_factory=list)


def derive_io(params: MysqlParams, memory_gib: float) -> TxnIo:
    """The I/O model's per-transaction profile for a server with `memory_gib` of RAM."""
    bp = params.buffer_pool_gib or params.buffer_pool_fraction * memory_gib
    data = params.data_gb * GIB
    pages = max(1.0, data / PAGE)
    fanout = PAGE / 28  # key + child pointer + record header per node entry (estimate)
    internal = pages / fanout * (1 + 1 / fanout)
    # The hot internal levels stay cached first; leaves get what is left (uniform access).
    usable = 0.95 * bp * GIB / PAGE  # 5 %: adaptive hash, undo, change buffer (estimate)
    leaf_cached = max(0.0, min(1.0, (usable - internal) / pages))
    miss = 1.0 - leaf_cached
    levels = 1 + max(1, math.ceil(math.log(pages) / math.log(fanout)))
    touches = params.write_rows * (1 + params.secondary_indexes)
    changes_per_s = params.write_tps * touches
    redo = params.write_rows * (params.row_bytes + params.redo_bytes_per_row) + 200
    binlog = params.write_rows * (2 * params.row_bytes + params.binlog_bytes_per_row) + 150
    # Flushing keeps the checkpoint age inside ~75 % of the redo log: a page dirtied again
    # within that window is written once.
    window_s = 0.75 * params.redo_log_mib * 2**20 / max(redo * params.write_tps, 1e-9)
    distinct = pages * -math.expm1(-changes_per_s * window_s / pages)
    flushes_per_s = min(changes_per_s, distinct / window_s)
    explain = [
        f"buffer pool {bp:.1f} GiB for {params.data_gb:g} GiB of data: {leaf_cached:.1%} of leaf "
        f"pages cached, miss ratio {miss:.1%} (uniform access); B-tree depth {levels}",
        f"write transaction: {params.write_rows} rows x (1 + {params.secondary_indexes} secondary "
        f"index) = {touches} pages touched, {touches * miss:.2f} page reads; redo {redo:,.0f} B, "
        f"binlog {binlog:,.0f} B",
        f"page flushes {flushes_per_s / max(params.write_tps, 1e-9):.2f} per write transaction "
        f"({changes_per_s:,.0f} page changes/s coalesced over a {window_s:,.0f} s redo window)",
    ]
    return TxnIo(read_page_reads=params.read_rows * miss, write_page_reads=touches * miss,
                 write_page_flushes=flushes_per_s / max(params.write_tps, 1e-9),
                 redo_bytes=redo, binlog_bytes=binlog, miss_ratio=miss, source="model",
                 explain=explain)


def measured_io(profile: Any) -> TxnIo:
    """A `workloads.io_profile.IoProfile` (measured by replay) as this model's TxnIo."""
    w, r = profile.per_write_txn, profile.per_read_txn
    return TxnIo(read_page_reads=r.page_reads, write_page_reads=w.page_reads,
                 write_page_flushes=w.page_writes, redo_bytes=max(w.redo_bytes, 512.0),
                 binlog_bytes=w.binlog_bytes, miss_ratio=profile.buffer_pool_miss_ratio,
                 source=f"measured: {profile.server} ({profile.source})",
                 explain=[f"I/O profile measured by replay on {profile.server}: "
                          f"{w.page_reads:.2f} page reads and {w.page_writes:.2f} page writes per "
                          f"write transaction, {r.page_reads:.2f} page reads per read"])


def _round_up(n: float, block: int) -> int:
    return int(max(block, math.ceil(n / block) * block))


@dataclass(slots=True, kw_only=True)
class MysqlServer:
    """The request source of one server (RequestSource protocol), open loop at its share."""

    role: Role
    params: MysqlParams
    io: TxnIo
    rate_tps: float  # offered foreground transactions/s on this server
    read_share: float  # of its foreground transactions that are reads
    data_bytes: int
    capacity_bytes: int
    concurrency: int = 4096  # max connections
    open_rate: float | None = None
    redo_cursor: int = 0
    binlog_cursor: int = 0

    def __post_init__(self) -> None:
        self.open_rate = self.rate_tps

    @property
    def write_apply_tps(self) -> float:
        return self.params.write_tps if self.role == "replica" else 0.0

    def _commit_ios(self) -> list[tuple[int, int, int]]:
        """(op, size, log) of a write transaction's commit on the master."""
        p = self.params
        ios = []
        if p.flush_log_at_trx_commit == 1:
            ios.append((OP_COMMIT, _round_up(self.io.redo_bytes, LOG_BLOCK), 0))
        if p.sync_binlog == 1:
            ios.append((OP_COMMIT, _round_up(self.io.binlog_bytes, LOG_BLOCK), 1))
        return ios

    def request_classes(self) -> tuple[RequestClass, ...]:
        """The same transactions for the analytic engine."""
        p, io = self.params, self.io
        reads = RequestClass(probability=self.read_share, kind=0, ios=(
            IoSpec(op=OP_READ, size_bytes=PAGE, count=io.read_page_reads),
            IoSpec(op=OP_CPU, size_bytes=int(p.cpu_ms_read * 1000), count=1)))
        commit = tuple(IoSpec(op=op, size_bytes=size, count=1)
                       for op, size, _ in self._commit_ios())
        writes = RequestClass(probability=1 - self.read_share, kind=1, ios=(
            IoSpec(op=OP_READ, size_bytes=PAGE, count=io.write_page_reads),
            IoSpec(op=OP_CPU, size_bytes=int(p.cpu_ms_write * 1000), count=1), *commit))
        return tuple(c for c in (reads, writes) if c.probability > 0)

    def background_specs(self) -> tuple[IoSpec, ...]:
        """Background I/Os per foreground transaction (for the analytic engine)."""
        per_s = self._background_rates()
        rate = max(self.rate_tps, 1e-9)
        return tuple(IoSpec(op=op, size_bytes=size, count=r / rate, random=rnd)
                     for op, size, r, rnd in per_s)

    def _background_rates(self) -> list[tuple[int, int, float, bool]]:
        """(op, size, per second, random) of every background stream on this server."""
        p, io = self.params, self.io
        wtps = p.write_tps
        flushes = io.write_page_flushes * wtps
        out = [(OP_WRITE, PAGE, flushes, True)]
        if p.doublewrite and flushes > 0:
            out.append((OP_WRITE, PAGE * DOUBLEWRITE_BATCH_PAGES, flushes / DOUBLEWRITE_BATCH_PAGES,
                        False))
            out.append((OP_FLUSH, 0, flushes / DOUBLEWRITE_BATCH_PAGES, False))
        if self.role == "master":
            if p.flush_log_at_trx_commit != 1:  # redo written and synced about once a second
                out.append((OP_COMMIT, _round_up(io.redo_bytes * wtps, LOG_BLOCK), 1.0, False))
            if p.sync_binlog != 1 and wtps > 0:
                rate = wtps / p.sync_binlog if p.sync_binlog > 1 else 1.0
                out.append((OP_COMMIT, _round_up(io.binlog_bytes * wtps / rate, LOG_BLOCK), rate,
                            False))
        else:  # replica: relay log, the applier's page reads and commits
            out.append((OP_WRITE, _round_up(io.binlog_bytes, LOG_BLOCK), wtps, False))
            out.append((OP_READ, PAGE, wtps * io.write_page_reads, True))
            if p.flush_log_at_trx_commit == 1:
                out.append((OP_COMMIT, _round_up(io.redo_bytes, LOG_BLOCK), wtps, False))
        return [x for x in out if x[2] > 0]

    def requests(self, rng: np.random.Generator, count: int, t0: float) -> Requests:
        p, io = self.params, self.io
        is_read = rng.random(count) < self.read_share
        rows = np.where(is_read, p.read_rows, p.write_rows * (1 + p.secondary_indexes))
        miss = rng.binomial(rows, min(1.0, io.miss_ratio))
        # A measured profile fixes the expected page reads; scale the binomial draw to it.
        expect_r = io.read_page_reads / max(p.read_rows * io.miss_ratio, 1e-12)
        expect_w = io.write_page_reads / max(p.write_rows * (1 + p.secondary_indexes)
                                             * io.miss_ratio, 1e-12)
        if io.source != "model":
            scale = np.where(is_read, expect_r, expect_w)
            miss = rng.poisson(np.maximum(miss * scale, 0.0))
        commits = self._commit_ios()
        n_io = miss + 1 + np.where(is_read, 0, len(commits))
        first = np.concatenate(([0], np.cumsum(n_io))).astype(np.int64)
        total = int(first[-1])
        op = np.full(total, OP_READ, dtype=np.int64)
        size = np.full(total, PAGE, dtype=np.int64)
        pages = max(1, self.data_bytes // PAGE)
        offset = rng.integers(0, pages, size=total, dtype=np.int64) * PAGE
        aux = np.zeros(total, dtype=np.int64)
        # The CPU step follows the page reads; commit I/Os close write transactions.
        cpu_at = first[:-1] + miss
        op[cpu_at] = OP_CPU
        size[cpu_at] = np.where(is_read, int(p.cpu_ms_read * 1000), int(p.cpu_ms_write * 1000))
        writes = np.flatnonzero(~is_read)
        log_base = self.data_bytes
        for j, (cop, csize, log) in enumerate(commits):
            at = cpu_at[writes] + 1 + j
            op[at], size[at], aux[at] = cop, csize, log
            region = log_base + log * (self.capacity_bytes - log_base) // 2
            offset[at] = region + (np.arange(at.size) * csize) % max(
                csize, (self.capacity_bytes - log_base) // 2 - csize)
        sched = poisson_times(rng, self.rate_tps, count, t0)
        return Requests(sched=sched, first=first, op=op, size=size, offset=offset, aux=aux,
                        kind=(~is_read).astype(np.int64))

    def background(self, rng: np.random.Generator, t0: float, t1: float) -> Background:
        parts = []
        pages = max(1, self.data_bytes // PAGE)
        for op, size, rate, random in self._background_rates():
            times = poisson_window(rng, rate, t0, t1)
            if random:
                offs = rng.integers(0, pages, size=times.size, dtype=np.int64) * PAGE
            else:
                base = self.data_bytes + (self.capacity_bytes - self.data_bytes) // 4
                span = max(size, (self.capacity_bytes - self.data_bytes) // 4)
                offs = base + (np.arange(times.size, dtype=np.int64) * size) % span
            parts.append((times, np.full(times.size, op, np.int64),
                          np.full(times.size, size, np.int64), offs))
        if not parts:
            return Background.empty()
        t = np.concatenate([x[0] for x in parts])
        order = np.argsort(t, kind="stable")
        return Background(sched=t[order], op=np.concatenate([x[1] for x in parts])[order],
                          size=np.concatenate([x[2] for x in parts])[order],
                          offset=np.concatenate([x[3] for x in parts])[order])


def servers(params: MysqlParams, io_master: TxnIo, io_replica: TxnIo, *, data_bytes: int,
            master_capacity: int, replica_capacity: int) -> list[MysqlServer]:
    """The master and each replica as request sources at the offered load."""
    if params.replicas == 0:
        return [MysqlServer(role="master", params=params, io=io_master, rate_tps=params.tps,
                            read_share=params.read_tps / params.tps, data_bytes=data_bytes,
                            capacity_bytes=master_capacity)]
    out = [MysqlServer(role="master", params=params, io=io_master, rate_tps=params.write_tps,
                       read_share=0.0, data_bytes=data_bytes, capacity_bytes=master_capacity)]
    share = params.read_tps / params.replicas
    for _ in range(params.replicas):
        out.append(MysqlServer(role="replica", params=params, io=io_replica,
                               rate_tps=max(share, 1e-9), read_share=1.0, data_bytes=data_bytes,
                               capacity_bytes=replica_capacity))
    return out

