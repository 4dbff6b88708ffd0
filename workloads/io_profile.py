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
"""

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from advisor.errors import InvalidInput

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
