"""The measured per-transaction I/O profile: server counters of one replay step, per transaction.

Replay reads `SHOW GLOBAL STATUS` on the master and the replicas before and after each step; the
deltas divided by the step's write and read transactions say how many page reads, page writes,
redo bytes, fsyncs... one transaction costs on a real server. `advisor simulate --io-profile FILE`
and `advisor size --io-profile FILE` use them instead of the I/O model's defaults. This module
derives and checks profiles; `workloads.real.io_profile_file` reads and writes the files.

MariaDB 10.11 names (checked with `SHOW GLOBAL STATUS`): there is no `Innodb_os_log_fsyncs` any
more (removed in 10.8), so redo fsyncs are `Innodb_log_writes` (one write + fsync per group
commit with innodb_flush_log_at_trx_commit=1); binlog fsyncs are `Binlog_group_commits` divided by
`sync_binlog` (0 = never).

`replay --driver sysbench` also measures the transaction shape (`measure_rw_shape`: statements
per transaction from Com_* and Handler_read_next, in the `--write-txn` grammar, with the nearest
preset) and writes the profile per sysbench transaction (`derive_txn_profile`); the file's
optional `shape` section records it (files without one still load). `size --io-profile` states
the measured shape and whether the sizing shape is it (`sizing_shape_note`). It does not adopt
the measured shape or its read-only : read-write ratio by itself: sysbench oltp_read_write has
no read-only class, so that ratio (0) describes the driver, not the production load that --tps
and --reads state; the user picks the shape (the note names the flags that size the measured
one, e.g. --preset sysbench-oltp-rw).
"""

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from advisor.errors import InvalidInput
from workloads.mysql_shape import PRESETS, Preset, TxnShape, parse_txn, show_txn

SCHEMA = "advisor.io_profile/1"

# The counters kept in replay results (`status_delta`); the profile uses a subset.
STATUS_COUNTERS = (
    "Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit",
    "Com_rollback", "Bytes_received", "Bytes_sent",
    "Rows_read", "Rows_sent",  # MariaDB 10.11 has these, not Innodb_rows_* any more
    "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
    "Innodb_data_reads", "Innodb_data_writes", "Innodb_data_fsyncs", "Innodb_data_read",
    "Innodb_data_written", "Innodb_os_log_written", "Innodb_os_log_fsyncs", "Innodb_log_writes",
    "Innodb_log_write_requests", "Innodb_log_waits", "Innodb_pages_read", "Innodb_pages_written",
    "Innodb_pages_created", "Innodb_dblwr_pages_written", "Innodb_dblwr_writes",
    "Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_write_requests", "Innodb_buffer_pool_pages_flushed",
    "Binlog_bytes_written", "Binlog_commits", "Binlog_group_commits", "Syncs",
    # rows per statement (the measured transaction shape): one Handler_read_key per index lookup
    # (point select, range start, update/delete by key), one Handler_read_next per row a range
    # scan steps to (a 100-row BETWEEN range: 100)
    "Com_begin", "Handler_read_key", "Handler_read_next", "Handler_read_rnd",
    "Handler_read_rnd_next", "Handler_update", "Handler_delete", "Handler_write",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class WriteTxnIo:
    page_reads: float
    page_writes: float
    redo_bytes: float
    redo_fsyncs: float
    binlog_bytes: float
    binlog_fsyncs: float
    doublewrite_pages: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadTxnIo:
    page_reads: float
    logical_reads: float


@dataclass(frozen=True, slots=True, kw_only=True)
class IoProfile:
    """A loaded, validated I/O profile file."""

    source: str
    server: str
    per_write_txn: WriteTxnIo
    per_read_txn: ReadTxnIo
    buffer_pool_miss_ratio: float
    measured_at: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    shape: "MeasuredShape | None" = None  # what one transaction was (files since issue 10)


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasuredShape:
    """The transaction shape a replay measured: what one transaction of the profile is.

    `read_txn` / `write_txn` are in the `--read-txn` / `--write-txn` grammar
    (`workloads.mysql_shape.show_txn`), None for a class the workload does not have.
    """

    driver: str  # e.g. "sysbench oltp_read_write"
    transactions: int
    read_txn: str | None
    write_txn: str | None
    reads_per_write: float  # read-only transactions per read-write one
    nearest_preset: str
    distance: float  # statements differing from the nearest preset's, relative (0: the same)
    per_txn: Mapping[str, float] = field(default_factory=dict)  # the averages measured

    def text(self) -> str:
        """One line: what one measured transaction is and the nearest preset."""
        classes = []
        if self.read_txn is not None:
            classes.append(f"read-only = {parse_txn(self.read_txn).text()} ({self.read_txn})")
        if self.write_txn is not None:
            classes.append(f"read-write = {parse_txn(self.write_txn).text()} ({self.write_txn})")
        if self.read_txn is not None and self.write_txn is not None:
            classes.append(f"{self.reads_per_write:g} read-only per read-write")
        elif classes:
            kind, _, body = classes[0].partition(" = ")
            classes[0] = f"every transaction {kind}: {body}"
        same = "the same" if self.distance == 0 else f"{self.distance:.0%} of statements differ"
        return (f"{self.driver}, {self.transactions:,} transactions: {'; '.join(classes)}; "
                f"nearest preset {self.nearest_preset} ({same})")


def status_delta(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """`after - before` for the counters in `STATUS_COUNTERS` that both snapshots have."""
    return {n: after[n] - before[n] for n in STATUS_COUNTERS if n in before and n in after}


def sum_deltas(deltas: list[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for delta in deltas:
        for name, value in delta.items():
            total[name] = total.get(name, 0) + value
    return total


def derive_io_profile(
    level: Mapping[str, Any], server_info: Mapping[str, str], *, replicas: int
) -> dict[str, Any] | None:
    """The profile of one finished replay step; None without server counters (SQLite)."""
    master: Mapping[str, int] = level["status_delta"]["master"]
    replica: Mapping[str, int] = level["status_delta"]["replica"] or {}
    if not master:
        return None
    # The heartbeat's one-row updates are write transactions on the master too.
    writes = level["writes"] + level.get("heartbeat_writes", 0)
    reads = level["reads"]
    notes: list[str] = []

    def per(value: float, count: int) -> float:
        return round(max(value, 0.0) / count, 4) if count > 0 else 0.0

    sync_binlog = _int(server_info.get("sync_binlog"))
    binlog_fsyncs = master.get("Binlog_group_commits", 0) / sync_binlog if sync_binlog else 0.0
    redo_fsync_counter = (
        "Innodb_os_log_fsyncs" if "Innodb_os_log_fsyncs" in master else "Innodb_log_writes"
    )
    if replicas > 0:
        write_page_reads = master.get("Innodb_buffer_pool_reads", 0)
        # Every replica also applies every write; take the master's cost of that off the reads.
        read_page_reads = replica.get("Innodb_buffer_pool_reads", 0) - replicas * write_page_reads
        logical = replica.get("Innodb_buffer_pool_read_requests", 0) - replicas * master.get(
            "Innodb_buffer_pool_read_requests", 0
        )
        notes.append(
            "per_read_txn: the replicas' counters minus their share of applying the writes "
            "(estimated as the master's own cost)"
        )
        write_page_reads_per = per(write_page_reads, writes)
    else:
        # Reads and writes share one server: page reads are split evenly over all transactions.
        total = reads + writes
        read_page_reads = master.get("Innodb_buffer_pool_reads", 0) * reads / max(total, 1)
        logical = master.get("Innodb_buffer_pool_read_requests", 0) * reads / max(total, 1)
        write_page_reads_per = per(master.get("Innodb_buffer_pool_reads", 0), total)
        notes.append("no replica: reads ran on the master; page reads split over all transactions")
    notes.append(
        "page_writes counts the flushes done during the step; InnoDB may flush later (checkpoint)"
    )
    per_read_page_reads = per(read_page_reads, reads)
    per_read_logical = per(logical, reads)
    return {
        "schema": SCHEMA,
        "source": "replay",
        "server": _server_name(server_info),
        "settings": {k: v for k, v in server_info.items() if k not in ("version",)},
        "per_write_txn": {
            "page_reads": write_page_reads_per,
            "page_writes": per(master.get("Innodb_pages_written", 0), writes),
            "redo_bytes": per(master.get("Innodb_os_log_written", 0), writes),
            "redo_fsyncs": per(master.get(redo_fsync_counter, 0), writes),
            "binlog_bytes": per(master.get("Binlog_bytes_written", 0), writes),
            "binlog_fsyncs": per(binlog_fsyncs, writes),
            "doublewrite_pages": per(master.get("Innodb_dblwr_pages_written", 0), writes),
            "data_fsyncs": per(master.get("Innodb_data_fsyncs", 0), writes),
        },
        "per_read_txn": {"page_reads": per_read_page_reads, "logical_reads": per_read_logical},
        "buffer_pool_miss_ratio": (
            round(per_read_page_reads / per_read_logical, 6) if per_read_logical > 0 else 0.0
        ),
        "measured_at": {
            "threads": level["threads"],
            "offered_tps": level.get("offered_tps"),
            "achieved_tps": level["achieved_tps"],
            "reads": reads,
            "writes": level["writes"],
            "replicas": replicas,
        },
        "notes": notes,
    }


def derive_txn_profile(
    level: Mapping[str, Any], server_info: Mapping[str, str], *, shape: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """The profile of one finished step of a one-class workload on the master alone (sysbench
    oltp_read_write: every transaction reads and writes), per transaction.

    `level["transactions"]` counts transactions, `level["reads"]`/`["writes"]` their read and
    write statements. per_write_txn is the whole transaction (its reads included); per_read_txn a
    read-only transaction of the same read statements (what oltp_read_only would run), its page
    reads the read statements' share of the transaction's (split by statement count: the
    counters are per server, not per statement). `shape` (from `measure_rw_shape`) is recorded.
    """
    transactions = int(level.get("transactions") or 0)
    if transactions <= 0:
        return None
    profile = derive_io_profile({**level, "reads": 0, "writes": transactions,
                                 "heartbeat_writes": 0}, server_info, replicas=0)
    if profile is None:
        return None
    master: Mapping[str, int] = level["status_delta"]["master"]
    statements = level["reads"] + level["writes"]
    share = level["reads"] / statements if statements > 0 else 0.0
    page_reads = max(master.get("Innodb_buffer_pool_reads", 0), 0)
    requests = max(master.get("Innodb_buffer_pool_read_requests", 0), 0)
    profile["per_read_txn"] = {
        "page_reads": round(page_reads * share / transactions, 4),
        "logical_reads": round(requests * share / transactions, 4),
    }
    profile["buffer_pool_miss_ratio"] = round(page_reads / requests, 6) if requests else 0.0
    profile["measured_at"].update(transactions=transactions, read_statements=level["reads"],
                                  write_statements=level["writes"], reads=0,
                                  writes=transactions)
    profile["notes"] = [
        "one transaction class: every transaction reads and writes (per_write_txn is the whole "
        "transaction, its reads included)",
        "per_read_txn: a read-only transaction of the same read statements, its page reads "
        "the read statements' share of the transaction's (split by statement count)",
        profile["notes"][-1],
    ]
    if shape is not None:
        profile["shape"] = dict(shape)
    return profile


def shape_from_dict(data: Mapping[str, Any]) -> MeasuredShape:
    """A measured shape as `measure_rw_shape` returns it (extra keys such as notes ignored)."""
    return MeasuredShape(**{k: data[k] for k in MeasuredShape.__dataclass_fields__ if k in data})


def sizing_shape_note(measured: MeasuredShape, read: TxnShape | None, write: TxnShape | None,
                      reads_per_write: float, preset: str) -> str:
    """The measured shape, and whether a sizing with these classes sizes it: a measured profile's
    I/O is per transaction of the measured shape, so another shape borrows numbers that belong
    to other statements. The measured ratio of read-only to read-write transactions is not
    adopted: sysbench oltp_read_write has no read-only class (its 0 says what the driver ran,
    not what the production load is: --tps / --reads state that)."""
    mine = _classes(read, write, reads_per_write)
    theirs = (parse_txn(measured.read_txn) if measured.read_txn else None,
              parse_txn(measured.write_txn) if measured.write_txn else None)
    same = all((a is None) == (b is None) and (a is None or b is None or _vector(a) == _vector(b))
               for a, b in zip(mine, theirs, strict=True))
    if same:
        return f"{measured.text()}; the sizing shape ({preset}) is the measured one"
    flags = (f"--preset {measured.nearest_preset}" if measured.distance == 0 else
             " ".join(f"--{k.replace('_', '-')} {v}" for k, v in
                      (("read_txn", measured.read_txn), ("write_txn", measured.write_txn)) if v))
    return (f"{measured.text()}; the sizing shape ({preset}) is not the measured one: its "
            f"transactions get the measured transaction's I/O (size with {flags} to match)")


def measure_rw_shape(
    master: Mapping[str, int], *, transactions: int, driver: str, range_rows: int,
    index_update_share: float, read_statements: int | None = None,
) -> dict[str, Any] | None:
    """The statements of one transaction of a one-class read-write workload, from the master's
    counters over `transactions` (every one of them read-write, as in sysbench oltp_read_write).

    Per transaction: selects = Com_select, updates/deletes/inserts = Com_*, BEGIN/COMMIT from
    Com_commit (autocommitted statements do not count there). The counters give the rows range
    scans step over (Handler_read_next), not how many ranges there were: range selects =
    those rows / the driver's range size, point selects = the other selects. Updates of an
    indexed column vs others are not told apart by any counter: `index_update_share` (the
    driver's setting) splits them. `read_statements` (the client's own count of SELECTs, e.g.
    sysbench's "queries performed: read") cross-checks Com_select. None without counters.
    """
    if transactions <= 0 or "Com_select" not in master:
        return None

    def per(name: str) -> float:
        return max(master.get(name, 0), 0) / transactions

    selects, steps = per("Com_select"), per("Handler_read_next")
    ranges = min(round(steps / range_rows), round(selects)) if range_rows > 0 else 0
    updates = round(per("Com_update"))
    index_updates = round(updates * index_update_share)
    shape = TxnShape(
        point_selects=max(round(selects) - ranges, 0), range_selects=ranges,
        # the driver's range size: the count of ranges came from it, and Handler_read_next
        # also counts a scan's probe past its range's end (100.5 a range of 100 in sysbench's
        # mix), which a ratio of the two would round either way
        range_rows=range_rows,
        index_updates=index_updates, updates=updates - index_updates,
        deletes=round(per("Com_delete")), inserts=round(per("Com_insert")),
        autocommit=round(per("Com_commit")) == 0)
    notes = ["range selects = Handler_read_next / the driver's range size; the split of updates "
             "into indexed-column and other updates is the driver's setting"]
    if read_statements is not None and abs(read_statements - master["Com_select"]) > max(
            0.02 * read_statements, 5):
        notes.append(f"the server ran {master['Com_select']:,} SELECTs, the client counted "
                     f"{read_statements:,}: other clients were active")
    write_txn = show_txn(shape) if shape.write_statements else None
    read_txn = None if write_txn else show_txn(shape)
    nearest, distance = nearest_preset(None if write_txn else shape, shape if write_txn else None,
                                       0.0)
    return {
        "driver": driver, "transactions": transactions, "read_txn": read_txn,
        "write_txn": write_txn, "reads_per_write": 0.0, "nearest_preset": nearest,
        "distance": distance,
        "per_txn": {"selects": round(selects, 4), "range_rows_stepped": round(steps, 4),
                    **{k: round(per(f"Com_{k}"), 4)
                       for k in ("update", "delete", "insert", "commit", "rollback")}},
        "notes": notes,
    }


def _vector(txn: TxnShape | None) -> tuple[float, ...]:
    if txn is None:
        return (0.0,) * 7
    return (txn.point_selects, txn.range_selects, txn.range_selects * txn.range_rows / 100,
            txn.index_updates, txn.updates, txn.deletes, txn.inserts)


def _classes(read: TxnShape | None, write: TxnShape | None,
             reads: float) -> tuple[TxnShape | None, TxnShape | None]:
    """The classes a workload runs: a preset's read-only class counts only with reads > 0 (or
    when it has no read-write class)."""
    return (read if read is not None and (reads > 0 or write is None) else None), write


def nearest_preset(read: TxnShape | None, write: TxnShape | None,
                   reads_per_write: float) -> tuple[str, float]:
    """The preset whose classes have the fewest statements different from these (statement
    counts per class, a 100-row range as one more; relative to all statements of both)."""
    mine = _classes(read, write, reads_per_write)

    def distance(p: Preset) -> float:
        theirs = _classes(p.read_txn, p.write_txn, p.reads)
        diff = total = 0.0
        for a, b in zip(mine, theirs, strict=True):
            va, vb = _vector(a), _vector(b)
            diff += sum(abs(x - y) for x, y in zip(va, vb, strict=True))
            total += sum(va) + sum(vb)
        return round(diff / total, 4) if total else 0.0

    name = min(PRESETS, key=lambda n: distance(PRESETS[n]))
    return name, distance(PRESETS[name])


def _int(value: str | None) -> int:
    try:
        return int(value) if value is not None else 0
    except ValueError:
        return 0


def _server_name(info: Mapping[str, str]) -> str:
    version = info.get("version", "unknown")
    if "mariadb" in version.lower():
        return f"MariaDB {version.split('-')[0]} ({version})"
    return f"MySQL {version}" if version[:1].isdigit() else version


def io_profile_document(profile: Mapping[str, Any] | IoProfile, *, where: str) -> dict[str, Any]:
    """The JSON document of a profile (as derived, or an `IoProfile`); every count finite."""
    data = dict(profile) if isinstance(profile, Mapping) else {"schema": SCHEMA, **asdict(profile)}
    for section in ("per_write_txn", "per_read_txn"):
        for name, value in dict(data.get(section) or {}).items():
            if isinstance(value, float) and not math.isfinite(value):
                raise InvalidInput(f"{where}: field {section}.{name} is not finite")
    return data
