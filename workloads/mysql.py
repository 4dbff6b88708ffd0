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
from functools import lru_cache
from typing import Any, Literal

import numpy as np

from advisor.memo import tracked
from advisor.options import FieldError, Opt, check_value
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
from workloads.buffer_pool import characteristic_time, hit_ratio, tree_groups, tree_levels
from workloads.mysql_shape import PAGE_FILL, TxnShape, WorkloadShape, shape_of, skew_text

PAGE = 16384
GIB = 2**30
LOG_BLOCK = 4096
# The offered rate of a replica that no read reaches (a write-only shape, or one whose every
# transaction writes): it still runs its applier, whose background streams are given per
# foreground transaction, so its rate is this token; it serves no transactions, and has no
# transaction latency to report or to judge (`MysqlServer.serves_requests`).
NO_REQUESTS_TPS = 1e-9
DOUBLEWRITE_BATCH_PAGES = 64  # pages per doublewrite batch (1 MiB), then an fsync
Role = Literal["master", "replica"]
# A sanity bound, far above what any server can do: `size` caps --tps at 10 M itself and then
# evaluates tps x (1 + headroom) and searches for the knee above that.
MAX_TPS = 1e9


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerKind:
    """Defaults that differ between servers (each with its documented default)."""

    name: str
    change_buffer: bool  # innodb_change_buffering: all (MySQL 8.0) or none (8.4, MariaDB 10.5.15+)
    replica_workers: int  # replica_parallel_workers (MySQL 8.0.27+: 4) / slave_parallel_threads
    log_replica_updates: bool  # log_replica_updates (MySQL 8.0: ON) / log_slave_updates (OFF)
    dedicated_redo: bool  # redo capacity by innodb_dedicated_server (MySQL 8.0.30+), else fixed
    redo_log_mib: float  # the fixed default when not dedicated


SERVERS: dict[str, ServerKind] = {k.name: k for k in (
    ServerKind(name="mysql-8.0", change_buffer=True, replica_workers=4, log_replica_updates=True,
               dedicated_redo=True, redo_log_mib=100.0),
    ServerKind(name="mysql-8.4", change_buffer=False, replica_workers=4, log_replica_updates=True,
               dedicated_redo=True, redo_log_mib=100.0),
    ServerKind(name="mariadb-10.11", change_buffer=False, replica_workers=1,
               log_replica_updates=False, dedicated_redo=False, redo_log_mib=96.0),
)}
SERVER_NAMES = tuple(SERVERS)


def dedicated_buffer_pool_gib(memory_gib: float) -> float:
    """innodb_buffer_pool_size as innodb_dedicated_server sets it (MySQL 8.0/8.4 reference
    manual): 128 MiB below 1 GiB of RAM, half the RAM up to 4 GiB, 75 % above."""
    if memory_gib < 1:
        return 0.125
    return memory_gib * (0.5 if memory_gib <= 4 else 0.75)


def dedicated_redo_mib(vcpu: int) -> float:
    """innodb_redo_log_capacity as innodb_dedicated_server sets it (MySQL 8.0.30+): logical
    processors / 2 GiB, at most 16 GiB (at least 1 GiB here: the rule's smallest step)."""
    return min(16.0, max(1.0, vcpu / 2)) * 1024


# The numeric bounds of MysqlParams, in the declarations' terms (the requests declare the same
# user-facing fields with their own, tighter, bounds).
_BOUNDS: dict[str, Opt] = {
    "tps": Opt(help="transactions/s", gt=0, le=MAX_TPS),
    "reads_per_write": Opt(help="read-only per read-write transaction", ge=0, le=10_000),
    "replicas": Opt(help="replicas", ge=0, le=32),
    "data_gb": Opt(help="data GiB", gt=0, le=1_000_000),
    "sync_binlog": Opt(help="sync_binlog", ge=0),
    "io_capacity": Opt(help="innodb_io_capacity (the server's minimum is 100)", ge=100),
    "replica_workers": Opt(help="replica applier threads", ge=1, le=1024),
    "replica_dependency": Opt(help="share of applied work that cannot overlap", ge=0, le=1),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class MysqlParams:
    """The workload (its shape: what one transaction is) and the server's settings, with the
    server's own defaults; figures marked 'estimate' are modelling assumptions to replace with a
    measured profile (`--io-profile`) when you have one."""

    tps: float  # all transactions per second (read-only + read-write)
    reads_per_write: float = 3.25  # read-only transactions per read-write transaction
    replicas: int = 1  # 0: the master serves the reads too
    data_gb: float = 100.0  # table + index size on disk (GiB)
    shape: WorkloadShape = field(default_factory=lambda: shape_of("point-rw"))
    server: str = "mysql-8.0"
    buffer_pool_gib: float | None = None  # default: the innodb_dedicated_server rule by RAM
    redo_log_mib: float | None = None  # default: the server's (see ServerKind)
    flush_log_at_trx_commit: int = 1  # innodb_flush_log_at_trx_commit
    sync_binlog: int = 1
    io_capacity: int = 200  # innodb_io_capacity (MySQL 8.0/8.4 and MariaDB 10.11 default)
    io_capacity_max: int | None = None  # default: max(2000, 2 x io_capacity)
    doublewrite: bool = True
    replica_workers: int | None = None  # default: the server's
    replica_dependency: float = 0.25  # estimate: share of applied work that cannot overlap
    log_replica_updates: bool | None = None  # default: the server's
    semi_sync: bool = False  # commit waits for one replica's ack
    network_rtt_ms: float = 0.5  # estimate: round trip between availability zones
    cpu_ms_statement: float = 0.1  # estimate: CPU per point select
    cpu_ms_row_scanned: float = 0.002  # estimate: CPU per row a range select reads
    cpu_ms_row_change: float = 0.125  # estimate: CPU per row written
    cpu_ms_commit: float = 0.1  # estimate: CPU per transaction (parse, commit, network)
    redo_bytes_per_row: int = 150  # estimate: redo record overhead beyond the row image
    binlog_bytes_per_row: int = 60  # estimate: ROW event overhead beyond the row images

    def __post_init__(self) -> None:
        # Domain wording, as the request declarations word theirs (advisor.options); an adapter
        # names the field its own way (`--data-gb`, `data_gb`). Reached also from callers the
        # declarations do not cover (the sizing search's replica counts, a stored result).
        for name, bounds in _BOUNDS.items():
            check_value(name, getattr(self, name), bounds)

        def need(ok: bool, name: str, value: object, problem: str) -> None:
            if not ok:
                raise FieldError(name, value, problem)

        need(self.flush_log_at_trx_commit in (0, 1, 2), "flush_log_at_trx_commit",
             self.flush_log_at_trx_commit, "must be 0, 1 or 2")
        need(self.server in SERVERS, "server", self.server,
             f"choose {', '.join(list(SERVERS)[:-1])} or {list(SERVERS)[-1]}")
        need(self.io_capacity_max is None or self.io_capacity_max >= self.io_capacity,
             "io_capacity_max", self.io_capacity_max, "must be at least io_capacity")
        need(self.shape.read_txn is not None or self.shape.write_txn is not None, "preset",
             self.shape.preset, "no transaction class")

    @property
    def kind(self) -> ServerKind:
        return SERVERS[self.server]

    @property
    def write_share(self) -> float:
        """Share of transactions that are read-write."""
        if self.shape.write_txn is None:
            return 0.0
        if self.shape.read_txn is None:
            return 1.0
        return 1 / (1 + self.reads_per_write)

    @property
    def write_tps(self) -> float:
        return self.tps * self.write_share

    @property
    def read_tps(self) -> float:
        return self.tps - self.write_tps

    @property
    def row_bytes(self) -> int:
        return self.shape.row_bytes

    @property
    def secondary_indexes(self) -> int:
        return self.shape.secondary_indexes

    @property
    def workers(self) -> int:
        return self.replica_workers if self.replica_workers is not None \
            else self.kind.replica_workers

    @property
    def replica_binlog(self) -> bool:
        return self.log_replica_updates if self.log_replica_updates is not None \
            else self.kind.log_replica_updates

    @property
    def flush_capacity_max(self) -> int:
        return self.io_capacity_max or max(2000, 2 * self.io_capacity)

    def redo_mib(self, vcpu: int) -> float:
        if self.redo_log_mib is not None:
            return self.redo_log_mib
        return dedicated_redo_mib(vcpu) if self.kind.dedicated_redo else self.kind.redo_log_mib

    def cpu_ms(self, txn: TxnShape | None) -> float:
        """CPU per transaction of the class (estimate)."""
        if txn is None:
            return 0.0
        return (txn.point_selects * self.cpu_ms_statement
                + txn.range_selects * (self.cpu_ms_statement
                                       + txn.range_rows * self.cpu_ms_row_scanned)
                + txn.write_statements * self.cpu_ms_row_change
                + (1 + txn.commits) * self.cpu_ms_commit / 2)  # per transaction + per commit

    @property
    def cpu_ms_read(self) -> float:
        return self.cpu_ms(self.shape.read_txn)

    @property
    def cpu_ms_write(self) -> float:
        return self.cpu_ms(self.shape.write_txn)

    @property
    def cpu_ms_apply(self) -> float:
        """CPU a replica spends applying one read-write transaction's row changes."""
        w = self.shape.write_txn
        return 0.0 if w is None else (w.write_statements * self.cpu_ms_row_change
                                      + self.cpu_ms_commit)

    def shape_lines(self) -> list[str]:
        return self.shape.lines(self.reads_per_write)


@dataclass(frozen=True, slots=True, kw_only=True)
class TxnIo:
    """Device work of one transaction of each kind on one server, and where it came from."""

    read_page_reads: float  # per read-only transaction
    write_page_reads: float  # per read-write transaction, in its own path (master)
    write_page_flushes: float  # pages flushed per read-write transaction (after coalescing)
    redo_bytes: float
    binlog_bytes: float
    miss_ratio: float
    source: str  # "model" or the measured profile's description
    explain: list[str] = field(default_factory=list)
    apply_page_reads: float | None = None  # per applied transaction on a replica (None: writes')
    merge_page_reads: float = 0.0  # change-buffer merges per read-write transaction (background)
    read_trials: int = 1  # page accesses that may miss, per read-only transaction
    write_trials: int = 1  # ... per read-write transaction
    buffer_pool_gib: float = 0.0
    redo_log_mib: float = 0.0
    flush_pages_per_s: float = 0.0  # at the params' write rate
    notes: tuple[str, ...] = ()
    measured: "MeasuredIo | None" = None  # the measured profile these figures are (None: model)

    @property
    def apply_reads(self) -> float:
        return self.write_page_reads if self.apply_page_reads is None else self.apply_page_reads


def _layout_sizes(p: MysqlParams) -> tuple[float, float, float]:
    """(rows, primary-key leaf pages, secondary-index leaf pages) of `data_gb` of table."""
    pk_rec = p.row_bytes + 20  # record header 5 + transaction id 6 + roll pointer 7 + slot (est.)
    sec_rec = 20  # int key + int primary key + header + slot (estimate)
    per_page = PAGE * PAGE_FILL
    rows = p.data_gb * GIB * per_page / PAGE / (pk_rec + p.secondary_indexes * sec_rec)
    return rows, rows * pk_rec / per_page, rows * p.secondary_indexes * sec_rec / per_page


def _accesses(txn: TxnShape | None, p: MysqlParams, *, apply: bool = False) -> dict[str, float]:
    """Page accesses of one transaction: primary-key lookups, extra leaves read by range scans,
    secondary-index lookups by reads and by writes, rows changed (dirtying PK leaves)."""
    out = {"pk": 0.0, "range_leaves": 0.0, "sec_write": 0.0, "rows": 0.0}
    if txn is None:
        return out
    s = p.secondary_indexes
    if not apply:  # a replica applies row events: no selects
        out["pk"] += txn.point_selects + txn.range_selects
        rows_per_leaf = PAGE * PAGE_FILL / (p.row_bytes + 20)
        out["range_leaves"] = txn.range_selects * txn.range_rows / rows_per_leaf
    out["pk"] += txn.write_statements
    out["rows"] = txn.write_statements
    # an indexed column's update deletes the old entry and inserts the new one (one index)
    out["sec_write"] = (txn.index_updates * 2 * min(s, 1)) + (txn.deletes + txn.inserts) * s
    return out


def derive_io(params: MysqlParams, memory_gib: float, vcpu: int = 2) -> TxnIo:
    """The I/O model's per-transaction profile for a server with `memory_gib` of RAM and `vcpu`
    vCPUs (the defaults of the buffer pool and the redo log follow from them). Computed once
    per parameters and server size (a sizing asks for the same ones many times)."""
    return _derive_io(params, float(memory_gib), int(vcpu))


@tracked
@lru_cache(maxsize=4096)
def _derive_io(params: MysqlParams, memory_gib: float, vcpu: int) -> TxnIo:
    p = params
    bp = p.buffer_pool_gib or dedicated_buffer_pool_gib(memory_gib)
    redo_mib = p.redo_mib(vcpu)
    rows, pk_leaves, sec_leaves = _layout_sizes(p)
    skew = p.shape.skew_bands
    r_acc = _accesses(p.shape.read_txn, p)
    w_acc = _accesses(p.shape.write_txn, p)
    a_acc = _accesses(p.shape.write_txn, p, apply=True)
    # Accesses per second (on this server, at the full mix: the pool is shared by both classes).
    rr, wr = p.read_tps, p.write_tps
    pk_lookups = rr * r_acc["pk"] + wr * w_acc["pk"]
    leaf_acc = pk_lookups + rr * r_acc["range_leaves"] + wr * w_acc["range_leaves"]
    sec_lookups = wr * w_acc["sec_write"]
    groups = tree_groups("pk", pk_leaves, pk_lookups, leaf_acc, skew.bands)
    if sec_leaves > 0:
        groups += tree_groups("sec", sec_leaves, max(sec_lookups, 1e-9), max(sec_lookups, 1e-9),
                              ((1.0, 1.0),))
    usable = 0.95 * bp * GIB / PAGE  # 5 %: adaptive hash, undo, change buffer (estimate)
    t = characteristic_time(groups, usable)
    share = {b: a for b, (_, a) in enumerate(skew.bands)}
    pk = [g for g in groups if g.key[0] == "pk"]
    leaf_miss = sum(share[g.key[2]] * (1 - hit_ratio(g, t)) for g in pk if g.key[1] == 0)
    miss_pk = sum(share[g.key[2]] * (1 - hit_ratio(g, t)) for g in pk)  # per PK lookup
    miss_sec = sum(1 - hit_ratio(g, t) for g in groups if g.key[0] == "sec")
    levels_pk = tree_levels(pk_leaves)

    def reads(acc: dict[str, float], *, buffered: bool) -> float:
        sec = 0.0 if buffered else acc["sec_write"] * miss_sec
        return acc["pk"] * miss_pk + acc["range_leaves"] * leaf_miss + sec

    cb = p.kind.change_buffer
    read_reads = reads(r_acc, buffered=cb)
    write_reads = reads(w_acc, buffered=cb)
    apply_reads = reads(a_acc, buffered=cb)
    merge = w_acc["sec_write"] * miss_sec if cb else 0.0
    accesses = (r_acc["pk"] * levels_pk + r_acc["range_leaves"]) * rr + (
        w_acc["pk"] * levels_pk + w_acc["range_leaves"] + w_acc["sec_write"]) * wr
    miss_ratio = (read_reads * rr + (write_reads + merge) * wr) / max(accesses, 1e-12)

    # Redo and binlog per read-write transaction (ROW format).
    w = p.shape.write_txn
    changed = w.write_statements if w else 0
    redo = changed * (p.row_bytes + p.redo_bytes_per_row) + w_acc["sec_write"] * 50 + 200
    binlog = ((w.index_updates + w.updates) * 2 * p.row_bytes + (w.deletes + w.inserts)
              * p.row_bytes + changed * p.binlog_bytes_per_row + 150 * w.commits) if w else 0.0

    # Flushing: a page dirtied again before it is written is written once. InnoDB writes a dirty
    # page at the latest when the checkpoint age reaches ~75 % of the redo capacity, or when dirty
    # pages reach innodb_max_dirty_pages_pct (90 %) of the pool.
    redo_per_s = max(redo * wr, 1e-9)
    window_s = 0.75 * redo_mib * 2**20 / redo_per_s
    dirty_rate = {"pk": wr * w_acc["rows"], "sec": wr * w_acc["sec_write"]}
    leaves = [(pk_leaves * rs, dirty_rate["pk"] * a / max(pk_leaves * rs, 1e-12))
              for rs, a in skew.bands]
    if sec_leaves > 0:
        leaves.append((sec_leaves, dirty_rate["sec"] / sec_leaves))

    def distinct(win: float) -> float:
        return sum(n * -math.expm1(-r * win) for n, r in leaves)

    cap = 0.9 * usable
    if distinct(window_s) > cap:  # the dirty-page limit forces flushing sooner
        lo, hi = 0.0, window_s
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if distinct(mid) < cap else (lo, mid)
        window_s = max(lo, 1e-3)
    changes_per_s = dirty_rate["pk"] + dirty_rate["sec"]
    flushes_per_s = min(changes_per_s, distinct(window_s) / window_s)
    per_write = flushes_per_s / max(wr, 1e-9)
    notes = []
    if flushes_per_s > p.flush_capacity_max:
        notes.append(f"page flushing needs {flushes_per_s:,.0f} pages/s > innodb_io_capacity_max "
                     f"{p.flush_capacity_max:,}: the checkpoint age will force synchronous "
                     f"flushes; set innodb_io_capacity_max >= {math.ceil(flushes_per_s):,}")
    explain = [
        f"buffer pool {bp:.1f} GiB "
        f"({'set' if p.buffer_pool_gib else 'innodb_dedicated_server rule'}) "
        f"for {p.data_gb:g} GiB of data ({rows:,.0f} rows, {pk_leaves:,.0f} primary-key leaf "
        f"pages, {sec_leaves:,.0f} secondary-index leaf pages); B-tree depth {levels_pk}",
        f"miss ratio {miss_ratio:.1%} of page accesses (access {skew_text(skew)}); a primary-key "
        f"lookup misses {miss_pk:.2f} pages, a secondary-index change {miss_sec:.2f}"
        + (" (buffered: the change buffer merges it later)" if cb and merge else ""),
        f"per read-only transaction {read_reads:.2f} page reads; per read-write transaction "
        f"{write_reads:.2f} page reads in its path" + (f" + {merge:.2f} change-buffer merges"
                                                       if merge else "")
        + f", {per_write:.2f} page flushes, redo {redo:,.0f} B, binlog {binlog:,.0f} B",
        (f"page flushing {flushes_per_s:,.0f} pages/s ({changes_per_s:,.0f} page changes/s "
         f"coalesced over a {window_s:,.0f} s window: redo capacity {redo_mib:,.0f} MiB); "
         if changes_per_s > 0 else "page flushing: none (no writes); ")
        + f"innodb_io_capacity {p.io_capacity}, _max {p.flush_capacity_max:,}",
    ]
    # The page-read count of a transaction as a binomial with its mean and variance: every
    # access misses on its own (a PK lookup misses at each level with that level's ratio).
    def level_miss(name: str) -> list[float]:
        out: dict[int, float] = {}
        for g in groups:
            if g.key[0] == name:
                w = share[g.key[2]] if name == "pk" else 1.0
                out[g.key[1]] = out.get(g.key[1], 0.0) + w * (1 - hit_ratio(g, t))
        return [min(1.0, v) for _, v in sorted(out.items())]

    pk_levels, sec_levels = level_miss("pk"), level_miss("sec")

    def trials(acc: dict[str, float], *, buffered: bool) -> int:
        parts = [(acc["pk"], q) for q in pk_levels] + [(acc["range_leaves"], leaf_miss)]
        if not buffered:
            parts += [(acc["sec_write"], q) for q in sec_levels]
        mean = sum(n * q for n, q in parts)
        var = sum(n * q * (1 - q) for n, q in parts)
        most = max(1, round(sum(n for n, _ in parts)))
        if mean <= 1e-12 or mean - var <= 1e-12:
            return most
        return int(min(most, max(math.ceil(mean), round(mean * mean / (mean - var)))))

    r_trials = trials(r_acc, buffered=cb)
    w_trials = trials(w_acc, buffered=cb)
    return TxnIo(read_page_reads=read_reads, write_page_reads=write_reads,
                 write_page_flushes=per_write, redo_bytes=redo, binlog_bytes=binlog,
                 miss_ratio=miss_ratio, source="model", explain=explain,
                 apply_page_reads=apply_reads, merge_page_reads=merge,
                 read_trials=max(1, r_trials), write_trials=max(1, w_trials),
                 buffer_pool_gib=bp, redo_log_mib=redo_mib, flush_pages_per_s=flushes_per_s,
                 notes=tuple(notes))


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasuredIo:
    """A measured I/O profile as a result records it: the server and source it was measured on
    (without any directory: a result names no machine path) and the per-transaction figures this
    model uses, enough to rebuild the same `TxnIo` (report curves, a re-run)."""

    server: str
    source: str  # replay, replay (sysbench), SHOW GLOBAL STATUS a.txt -> b.txt...
    read_page_reads: float  # per read-only transaction
    write_page_reads: float  # per read-write transaction
    write_page_writes: float
    redo_bytes: float
    binlog_bytes: float
    miss_ratio: float

    @classmethod
    def of(cls, profile: Any) -> "MeasuredIo":
        """The summary of a `workloads.io_profile.IoProfile`."""
        w, r = profile.per_write_txn, profile.per_read_txn
        return cls(server=profile.server, source=_path_free(profile.source),
                   read_page_reads=r.page_reads, write_page_reads=w.page_reads,
                   write_page_writes=w.page_writes, redo_bytes=w.redo_bytes,
                   binlog_bytes=w.binlog_bytes, miss_ratio=profile.buffer_pool_miss_ratio)

    @property
    def text(self) -> str:
        return f"measured: {self.server} ({self.source})"

    def txn_io(self) -> TxnIo:
        """The model's per-transaction I/O from these measured figures."""
        return TxnIo(read_page_reads=self.read_page_reads,
                     write_page_reads=self.write_page_reads,
                     write_page_flushes=self.write_page_writes,
                     redo_bytes=max(self.redo_bytes, 512.0), binlog_bytes=self.binlog_bytes,
                     miss_ratio=self.miss_ratio, source=self.text, measured=self,
                     explain=[f"I/O profile measured by replay on {self.server}: "
                              f"{self.write_page_reads:.2f} page reads and "
                              f"{self.write_page_writes:.2f} page writes per write transaction, "
                              f"{self.read_page_reads:.2f} page reads per read"])


def _path_free(text: str) -> str:
    """`text` with every file path cut to its file name (a status dump's source names the dumps
    it was measured from as given on the command line)."""
    import re

    return re.sub(r"(?<!\S)\S*/(?=[^\s/]+)", "", text)


def measured_io(profile: Any) -> TxnIo:
    """A `workloads.io_profile.IoProfile` (measured by replay or from status dumps) as this
    model's TxnIo, recording the profile it came from."""
    return MeasuredIo.of(profile).txn_io()


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
    def serves_requests(self) -> bool:
        """Whether any transaction reaches this server (see NO_REQUESTS_TPS)."""
        return self.rate_tps > NO_REQUESTS_TPS

    @property
    def write_apply_tps(self) -> float:
        return self.params.write_tps if self.role == "replica" else 0.0

    def _commit_ios(self) -> list[tuple[int, int, int]]:
        """(op, size, log) of one commit of a read-write transaction on the master: the log
        writes and fsyncs, then (semi-sync) the wait for a replica's ack."""
        p = self.params
        ios = []
        if p.flush_log_at_trx_commit == 1:
            ios.append((OP_COMMIT, _round_up(self.io.redo_bytes / self._commits, LOG_BLOCK), 0))
        if p.sync_binlog == 1:
            ios.append((OP_COMMIT, _round_up(self.io.binlog_bytes / self._commits, LOG_BLOCK), 1))
        if p.semi_sync and p.replicas:
            ios.append((OP_CPU, int(p.network_rtt_ms * 1000), 2))
        return ios

    @property
    def _commits(self) -> int:
        w = self.params.shape.write_txn
        return max(1, w.commits) if w is not None else 1

    def _write_commit_ios(self) -> list[tuple[int, int, int]]:
        """Every commit I/O of one read-write transaction (one per autocommitted statement)."""
        return self._commit_ios() * self._commits

    def request_classes(self) -> tuple[RequestClass, ...]:
        """The same transactions for the analytic engine."""
        p, io = self.params, self.io
        reads = RequestClass(probability=self.read_share, kind=0, ios=(
            IoSpec(op=OP_READ, size_bytes=PAGE, count=io.read_page_reads,
                   trials=io.read_trials),
            IoSpec(op=OP_CPU, size_bytes=int(p.cpu_ms_read * 1000), count=1)))
        commit = tuple(IoSpec(op=op, size_bytes=size, count=1, log=log)
                       for op, size, log in self._write_commit_ios())
        writes = RequestClass(probability=1 - self.read_share, kind=1, ios=(
            IoSpec(op=OP_READ, size_bytes=PAGE, count=io.write_page_reads,
                   trials=io.write_trials),
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
        out = [(OP_WRITE, PAGE, flushes, True), (OP_READ, PAGE, io.merge_page_reads * wtps, True)]
        if p.doublewrite and flushes > 0:
            out.append((OP_WRITE, PAGE * DOUBLEWRITE_BATCH_PAGES, flushes / DOUBLEWRITE_BATCH_PAGES,
                        False))
            out.append((OP_FLUSH, 0, flushes / DOUBLEWRITE_BATCH_PAGES, False))
        commits = wtps * self._commits
        if self.role == "master":
            if p.flush_log_at_trx_commit != 1:  # redo written and synced about once a second
                out.append((OP_COMMIT, _round_up(io.redo_bytes * wtps, LOG_BLOCK), 1.0, False))
            if p.sync_binlog != 1 and wtps > 0:
                rate = commits / p.sync_binlog if p.sync_binlog > 1 else 1.0
                out.append((OP_COMMIT, _round_up(io.binlog_bytes * wtps / rate, LOG_BLOCK), rate,
                            False))
        else:  # replica: relay log, the applier's page reads and commits (and its own binlog)
            out.append((OP_WRITE, _round_up(io.binlog_bytes, LOG_BLOCK), wtps, False))
            out.append((OP_READ, PAGE, wtps * io.apply_reads, True))
            if p.flush_log_at_trx_commit == 1:
                out.append((OP_COMMIT, _round_up(io.redo_bytes / self._commits, LOG_BLOCK),
                            commits, False))
            if p.replica_binlog and p.sync_binlog == 1:
                out.append((OP_COMMIT, _round_up(io.binlog_bytes / self._commits, LOG_BLOCK),
                            commits, False))
        return [x for x in out if x[2] > 0]

    def requests(self, rng: np.random.Generator, count: int, t0: float) -> Requests:
        p, io = self.params, self.io
        is_read = rng.random(count) < self.read_share
        # Page reads per transaction: each of its page accesses misses independently.
        trials = np.where(is_read, io.read_trials, io.write_trials)
        prob = np.where(is_read, io.read_page_reads / io.read_trials,
                        io.write_page_reads / io.write_trials)
        if io.source == "model":
            miss = rng.binomial(trials, np.minimum(prob, 1.0))
        else:  # a measured profile gives only the mean
            miss = rng.poisson(np.where(is_read, io.read_page_reads, io.write_page_reads))
        commits = self._write_commit_ios()
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
            op[at], size[at], aux[at] = cop, csize, min(log, 1)
            if cop == OP_CPU:  # the semi-sync round trip: a wait, no device
                offset[at] = 0
                continue
            region = log_base + log * (self.capacity_bytes - log_base) // 2
            span = max(csize, (self.capacity_bytes - log_base) // 2 - csize)
            offset[at] = region + (_stream_start(rng, span) + np.arange(at.size) * csize) % span
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
                # a flush barrier has size 0: its stream still needs a span, even when the
                # data fills the device
                span = max(size, PAGE, (self.capacity_bytes - self.data_bytes) // 4)
                offs = base + (_stream_start(rng, span)
                               + np.arange(times.size, dtype=np.int64) * size) % span
            parts.append((times, np.full(times.size, op, np.int64),
                          np.full(times.size, size, np.int64), offs))
        if not parts:
            return Background.empty()
        t = np.concatenate([x[0] for x in parts])
        order = np.argsort(t, kind="stable")
        return Background(sched=t[order], op=np.concatenate([x[1] for x in parts])[order],
                          size=np.concatenate([x[2] for x in parts])[order],
                          offset=np.concatenate([x[3] for x in parts])[order])


def _stream_start(rng: np.random.Generator, span_bytes: int) -> int:
    """Where a sequential stream (a log or doublewrite file) starts in its region: files sit
    at unrelated places on the file system, so each stream's position relative to a RAID
    chunk boundary is independent of the others' (streams started at one offset and advanced
    in lockstep would land on the same member together)."""
    return int(rng.integers(0, max(1, span_bytes // LOG_BLOCK))) * LOG_BLOCK


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
                               rate_tps=max(share, NO_REQUESTS_TPS), read_share=1.0,
                               data_bytes=data_bytes, capacity_bytes=replica_capacity))
    return out

