"""A running server's counters as a workload: two `SHOW GLOBAL STATUS` dumps (and optionally one
`SHOW VARIABLES`) -> transactions/s, the read/write split, rows per statement, buffer-pool misses,
fsyncs and page writes, a measured I/O profile and the `size` options they stand for.

Both dump formats are read: what `mysql -e "SHOW GLOBAL STATUS" > before.txt` writes (a
`Variable_name<TAB>Value` header, then one tab-separated counter a line; `-N` drops the header)
and what `mysqladmin extended-status` (or `mysql -t`) prints (a `| name | value |` table).

What one transaction is, from counters (no counter says it directly; the rule, stated in every
answer as `TPS_RULE`):

- explicit transactions E = Com_commit + Com_rollback (each ends one BEGIN ... COMMIT); they are
  the read-write transactions, each running the sizing shape's read-write transaction
  (`--preset` / `--write-txn`: point-rw 0 SELECTs + 4 write statements, sysbench-oltp-rw 14 + 4);
- write statements (Com_insert/_select, Com_update/_multi, Com_delete/_multi, Com_replace/_select,
  Com_load) beyond those E transactions' own are autocommitted: one read-write transaction each;
- SELECTs (Com_select) beyond those E transactions' own are autocommitted: one read-only
  transaction each (R); explicit transactions in an interval with no write statement at all are
  read-only ones holding every SELECT (R = E);
- transactions/s = (R + W) / interval, the interval being the change of `Uptime` (whole seconds).

Refused, with one line: a file that is no dump, two dumps from different servers (a different set of
counter names: another version; a differing identity counter; counters that started at another
time after the server's start), a restart between them
(`Uptime` went down), counters reset by FLUSH STATUS or otherwise going backwards.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from advisor.errors import InvalidInput
from workloads.io_profile import (
    IoProfile,
    ReadTxnIo,
    WriteTxnIo,
    derive_io_profile,
    status_delta,
)

TPS_RULE = ("transactions = Com_commit + Com_rollback (explicit, each the sizing shape's "
            "read-write transaction) + autocommitted statements (each write statement and "
            "SELECT beyond those transactions' own)")
WRITE_COUNTERS = ("Com_insert", "Com_insert_select", "Com_update", "Com_update_multi",
                  "Com_delete", "Com_delete_multi", "Com_replace", "Com_replace_select",
                  "Com_load")
# Counters that only grow while a server runs (the check that nothing went backwards, and every
# counter the derivation reads).
_CUMULATIVE = re.compile(r"^(Com_|Handler_|Innodb_(data_(reads|writes|fsyncs|read|written)|"
                         r"pages_(read|written|created)|rows_|buffer_pool_(reads|read_requests|"
                         r"write_requests|pages_flushed)|os_log_(written|fsyncs)|log_(writes|"
                         r"write_requests|waits)|dblwr_)|Questions$|Queries$|Bytes_(sent|received)|"
                         r"Binlog_(commits|group_commits|bytes_written)$|Rows_(read|sent)$)")
# Status values that identify one server for its life (not every server has each).
_IDENTITY = ("Innodb_redo_log_uuid", "Caching_sha2_password_rsa_public_key", "Rsa_public_key",
             "Innodb_page_size")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MAX_LINES = 20_000  # a full SHOW GLOBAL STATUS is ~500-1,000 lines, SHOW VARIABLES ~700


@dataclass(frozen=True, slots=True, kw_only=True)
class Dump:
    """One parsed dump: name -> value as printed (text), in file order."""

    source: str
    values: Mapping[str, str]
    format: str  # "tab-separated" or "table"

    def counter(self, name: str) -> int | None:
        text = self.values.get(name)
        return int(text) if text is not None and text.isascii() and text.isdigit() else None


def parse_dump(text: str, *, source: str) -> Dump:
    """`SHOW GLOBAL STATUS` or `SHOW VARIABLES` output in either format, or one line saying why
    the text is not one."""
    values: dict[str, str] = {}
    fmt = None
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise InvalidInput(f"{source}: {len(lines):,} lines, not a status or variables dump "
                           f"(those have about 1,000)")
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("+"):
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|", 1)]
            kind = "table"
        elif "\t" in line:
            cells = line.split("\t", 1)
            kind = "tab-separated"
        else:
            raise InvalidInput(f"{source}: line {number} is neither NAME<TAB>VALUE nor "
                               f"| NAME | VALUE |: not a SHOW GLOBAL STATUS / VARIABLES dump")
        if fmt is None:
            fmt = kind
        if len(cells) != 2 or not _NAME.match(cells[0]):
            raise InvalidInput(f"{source}: line {number} does not start with a variable name: "
                               "not a SHOW GLOBAL STATUS / VARIABLES dump")
        name, value = cells[0], cells[1].strip()
        if name == "Variable_name":  # the header
            continue
        if name in values:
            raise InvalidInput(f"{source}: {name} appears twice (line {number}): one dump per "
                               "file (mysqladmin -i prints one per interval)")
        values[name] = value
    if not values or fmt is None:
        raise InvalidInput(f"{source}: empty, not a SHOW GLOBAL STATUS / VARIABLES dump")
    return Dump(source=source, values=values, format=fmt)


def parse_status(text: str, *, source: str) -> Dump:
    dump = parse_dump(text, source=source)
    if dump.counter("Uptime") is None:
        hint = " (this looks like SHOW VARIABLES)" if "version" in dump.values else ""
        raise InvalidInput(f"{source}: no Uptime counter: not a SHOW GLOBAL STATUS dump{hint}")
    return dump


def parse_variables(text: str, *, source: str) -> Dump:
    dump = parse_dump(text, source=source)
    if "Uptime" in dump.values or "version" not in dump.values:
        raise InvalidInput(f"{source}: no version variable: not a SHOW VARIABLES dump")
    return dump


def check_pair(before: Dump, after: Dump) -> int:
    """The interval in seconds between two dumps of one server, or one line refusing them."""
    pair = f"{before.source} -> {after.source}"
    t0, t1 = before.counter("Uptime"), after.counter("Uptime")
    assert t0 is not None
    assert t1 is not None
    if t1 < t0:
        raise InvalidInput(f"{pair}: Uptime went down ({t0:,} -> {t1:,} s): the server restarted "
                           "between the dumps (or they are in the wrong order)")
    for name in _IDENTITY:
        a, b = before.values.get(name), after.values.get(name)
        if a is not None and b is not None and a != b:
            raise InvalidInput(f"{pair}: {name} differs: dumps from two different servers")
    missing = set(before.values) ^ set(after.values)
    if len(missing) > max(5, len(before.values) // 50):
        raise InvalidInput(f"{pair}: {len(missing)} counters are in one dump only (e.g. "
                           f"{sorted(missing)[0]}): dumps from two different servers")
    f0, f1 = before.counter("Uptime_since_flush_status"), after.counter(
        "Uptime_since_flush_status")
    if f0 is not None and f1 is not None:
        # Uptime - Uptime_since_flush_status: when the counters last started, after the
        # server's start. One server keeps it (to the second) until a FLUSH STATUS moves it on.
        s0, s1 = t0 - f0, t1 - f1
        if s1 > s0 + 1:
            raise InvalidInput(f"{pair}: FLUSH STATUS ran between the dumps (Uptime_since_flush_"
                               f"status {f0:,} -> {f1:,} s): the counters were reset")
        if s1 < s0 - 1:
            raise InvalidInput(f"{pair}: the counters started {s0 - s1:,} s apart after the "
                               "server's start (Uptime - Uptime_since_flush_status): dumps from "
                               "two different servers")
    for name in before.values:
        if not _CUMULATIVE.match(name):
            continue
        c0, c1 = before.counter(name), after.counter(name)
        if c0 is not None and c1 is not None and c1 < c0:
            raise InvalidInput(f"{pair}: {name} went backwards ({c0:,} -> {c1:,}): the counters "
                               "were reset or the dumps are from two servers")
    if t1 == t0:
        raise InvalidInput(f"{pair}: Uptime is {t0:,} s in both: the dumps must be at least a "
                           "second apart (a minute or more gives a steadier rate)")
    return t1 - t0


@dataclass(frozen=True, slots=True, kw_only=True)
class StatusWorkload:
    """What two dumps say the server did, per second and per transaction."""

    interval_s: int
    transactions: float
    read_txns: float  # read-only transactions (autocommitted SELECTs, or explicit read-only)
    write_txns: float  # read-write transactions
    explicit_txns: int
    autocommitted: float
    selects: int
    write_statements: int
    rows_read_per_select: float | None
    rows_changed_per_write_statement: float | None
    buffer_pool_miss_ratio: float | None
    redo_fsyncs_per_s: float
    data_fsyncs_per_s: float
    pages_written_per_s: float
    redo_bytes_per_s: float
    server: str  # the model's server name (mysql-8.0, mysql-8.4, mariadb-10.11)
    version: str | None
    settings: Mapping[str, Any]  # size options read from SHOW VARIABLES
    profile: IoProfile | None
    profile_document: Mapping[str, Any] | None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def tps(self) -> float:
        return self.transactions / self.interval_s

    @property
    def reads_per_write(self) -> float | None:
        return self.read_txns / self.write_txns if self.write_txns > 0 else None

    def size_options(self) -> dict[str, Any]:
        """The `size` options these dumps stand for (the command line's flags override them)."""
        out: dict[str, Any] = {"tps": round(self.tps, 4), "server": self.server}
        if self.reads_per_write is not None:
            out["reads"] = round(self.reads_per_write, 4)
        return {**out, **self.settings}

    def lines(self) -> list[str]:
        """What was derived, in words, one fact a line."""
        rpw = (f"{self.reads_per_write:,.3g} read-only per read-write"
               if self.reads_per_write is not None else "no read-write transaction")
        out = [f"interval {self.interval_s:,} s (Uptime); {self.transactions:,.0f} transactions = "
               f"{self.tps:,.1f} tps: {self.write_txns:,.0f} read-write + {self.read_txns:,.0f} "
               f"read-only ({rpw})",
               f"rule: {TPS_RULE} ({self.explicit_txns:,} explicit, "
               f"{self.autocommitted:,.0f} autocommitted)",
               f"statements: {self.selects:,} SELECTs ("
               + (f"{self.rows_read_per_select:,.1f} rows read each" if
                  self.rows_read_per_select is not None else "no row counter")
               + f"), {self.write_statements:,} write statements ("
               + (f"{self.rows_changed_per_write_statement:,.1f} rows changed each" if
                  self.rows_changed_per_write_statement is not None else "no row counter") + ")"]
        miss = ("-" if self.buffer_pool_miss_ratio is None
                else f"{self.buffer_pool_miss_ratio:.2%}")
        out.append(f"buffer-pool miss ratio {miss}; redo fsyncs {self.redo_fsyncs_per_s:,.1f}/s, "
                   f"data fsyncs {self.data_fsyncs_per_s:,.1f}/s, pages written "
                   f"{self.pages_written_per_s:,.1f}/s, redo {self.redo_bytes_per_s / 2**20:,.2f}"
                   " MiB/s")
        server = self.version or "version unknown (no --variables)"
        out.append(f"server {server} -> --server {self.server}"
                   + ("".join(f", --{k.replace('_', '-')} {v}" for k, v in self.settings.items())))
        if self.profile is not None:
            w, r = self.profile.per_write_txn, self.profile.per_read_txn
            out.append(f"measured I/O per read-write transaction: {w.page_reads:.2f} page reads, "
                       f"{w.page_writes:.2f} page writes, {w.redo_bytes:,.0f} B redo, "
                       f"{w.redo_fsyncs:.2f} redo fsyncs; per read-only: {r.page_reads:.2f} page "
                       f"reads of {r.logical_reads:.1f} logical")
        out.extend(self.notes)
        return out


def derive(before: Dump, after: Dump, *, variables: Dump | None = None,
           selects_per_write_txn: int = 0, writes_per_write_txn: int = 1) -> StatusWorkload:
    """The workload two status dumps of one server show (checked by `check_pair`); an explicit
    transaction runs `selects_per_write_txn` SELECTs and `writes_per_write_txn` write statements
    (the sizing shape's read-write transaction)."""
    interval = check_pair(before, after)

    def delta(name: str) -> int:
        a, b = before.counter(name), after.counter(name)
        return b - a if a is not None and b is not None else 0

    if before.counter("Com_select") is None or before.counter("Com_commit") is None:
        raise InvalidInput(f"{before.source}: no Com_select / Com_commit counters: not a "
                           "MySQL/MariaDB SHOW GLOBAL STATUS dump")
    notes: list[str] = []
    if interval < 100:  # Uptime counts whole seconds: each dump may be up to 1 s later
        notes.append(f"interval {interval} s from whole-second Uptime: the rate is good to "
                     f"about {1 / interval:.0%} (dumps a few minutes apart are better)")
    explicit = delta("Com_commit") + delta("Com_rollback")
    writes = sum(delta(n) for n in WRITE_COUNTERS)
    selects = delta("Com_select")
    if explicit > 0 and writes == 0:
        write_txns, read_txns = 0.0, float(explicit)
        notes.append(f"{explicit:,} explicit transactions and no write statement: counted as "
                     "read-only transactions holding every SELECT")
    else:
        write_txns = float(explicit + max(writes - writes_per_write_txn * explicit, 0))
        read_txns = float(max(selects - selects_per_write_txn * explicit, 0))
        for what, seen, each in (("SELECTs", selects, selects_per_write_txn),
                                 ("write statements", writes, writes_per_write_txn)):
            if seen < each * explicit:
                notes.append(f"{seen:,} {what}, fewer than the {each * explicit:,} that "
                             f"{explicit:,} read-write transactions of the sizing shape run "
                             f"({each} each): the shape is not the measured one")
    if write_txns > 0 and read_txns == 0:
        notes.append("no read-only transaction on this server: if the reads run on replicas, "
                     "give --reads (a replica's SELECTs per write transaction here)")
    autocommitted = read_txns + write_txns - explicit
    rows_read = delta("Innodb_rows_read") if "Innodb_rows_read" in after.values else (
        delta("Handler_read_key") + delta("Handler_read_next"))
    changed = (delta("Innodb_rows_inserted") + delta("Innodb_rows_updated")
               + delta("Innodb_rows_deleted")) if "Innodb_rows_inserted" in after.values else (
        delta("Handler_write") + delta("Handler_update") + delta("Handler_delete"))
    requests, misses = delta("Innodb_buffer_pool_read_requests"), delta("Innodb_buffer_pool_reads")
    redo_counter = ("Innodb_os_log_fsyncs" if "Innodb_os_log_fsyncs" in after.values
                    else "Innodb_log_writes")
    if redo_counter == "Innodb_log_writes":
        notes.append("redo fsyncs: Innodb_log_writes (MariaDB 10.8+ has no Innodb_os_log_fsyncs; "
                     "one write + fsync per group commit at innodb_flush_log_at_trx_commit=1)")
    settings: dict[str, Any] = {}
    version: str | None = None
    info: dict[str, str] = {}
    if variables is not None:
        version = variables.values.get("version")
        settings, info, more = _settings(variables)
        notes.extend(more)
    server = _server(version)
    total = read_txns + write_txns
    if total <= 0:
        raise InvalidInput(f"{before.source} -> {after.source}: no transaction in {interval:,} s "
                           "(Com_select, Com_commit and the write statements did not move)")
    doc = profile = None
    if write_txns > 0:
        master = status_delta(_ints(before), _ints(after))
        level = {"status_delta": {"master": master, "replica": {}}, "writes": round(write_txns),
                 "reads": round(read_txns), "threads": None, "achieved_tps": total / interval}
        doc = derive_io_profile(level, info, replicas=0)
        if doc is not None:
            doc["source"] = f"SHOW GLOBAL STATUS {before.source} -> {after.source}"
            doc["measured_at"] = {"interval_s": interval, "tps": round(total / interval, 4),
                                  "reads": round(read_txns), "writes": round(write_txns)}
            doc["notes"] = [*doc["notes"], TPS_RULE]
            profile = _profile(doc)
    else:
        notes.append("no read-write transaction: no measured I/O profile (the model's is used)")
    return StatusWorkload(
        interval_s=interval, transactions=total, read_txns=read_txns, write_txns=write_txns,
        explicit_txns=explicit, autocommitted=autocommitted, selects=selects,
        write_statements=writes,
        rows_read_per_select=rows_read / selects if selects else None,
        rows_changed_per_write_statement=changed / writes if writes else None,
        buffer_pool_miss_ratio=misses / requests if requests > 0 else None,
        redo_fsyncs_per_s=delta(redo_counter) / interval,
        data_fsyncs_per_s=delta("Innodb_data_fsyncs") / interval,
        pages_written_per_s=delta("Innodb_pages_written") / interval,
        redo_bytes_per_s=delta("Innodb_os_log_written") / interval,
        server=server, version=version, settings=settings, profile=profile,
        profile_document=doc, notes=tuple(notes))


def _ints(dump: Dump) -> dict[str, int]:
    return {k: v for k in dump.values if (v := dump.counter(k)) is not None}


def _profile(doc: Mapping[str, Any]) -> IoProfile:
    w, r = doc["per_write_txn"], doc["per_read_txn"]
    return IoProfile(source=doc["source"], server=doc["server"],
                     per_write_txn=WriteTxnIo(**{k: w[k] for k in WriteTxnIo.__dataclass_fields__}),
                     per_read_txn=ReadTxnIo(page_reads=r["page_reads"],
                                            logical_reads=r["logical_reads"]),
                     buffer_pool_miss_ratio=min(doc["buffer_pool_miss_ratio"], 1.0),
                     measured_at=doc["measured_at"], notes=tuple(doc["notes"]))


def _server(version: str | None) -> str:
    """The model's server for a `version` string (no version: MySQL 8.0, the default)."""
    if version is None:
        return "mysql-8.0"
    if "mariadb" in version.lower():
        return "mariadb-10.11"
    return "mysql-8.4" if re.match(r"^(8\.[4-9]|9\.)", version) else "mysql-8.0"


def _settings(variables: Dump) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """`size` options from SHOW VARIABLES, the settings replay's profile records, and notes.

    The buffer pool size is not carried over: the candidate instances have their own memory
    (the innodb_dedicated_server rule sizes it); the measured miss ratio is the dump server's."""
    v = variables.values

    def num(name: str) -> int | None:
        return variables.counter(name)

    out: dict[str, Any] = {}
    notes: list[str] = []
    for var, opt in (("innodb_flush_log_at_trx_commit", "flush_log_at_trx_commit"),
                     ("sync_binlog", "sync_binlog"), ("innodb_io_capacity", "io_capacity"),
                     ("innodb_io_capacity_max", "io_capacity_max")):
        if num(var) is not None:
            out[opt] = num(var)
    redo = num("innodb_redo_log_capacity")
    if redo is None and num("innodb_log_file_size") is not None:
        redo = num("innodb_log_file_size") * (num("innodb_log_files_in_group") or 1)  # type: ignore[operator]
    if redo is not None:
        out["redo_log_mib"] = round(redo / 2**20, 3)
    workers = next((num(n) for n in ("replica_parallel_workers", "slave_parallel_workers",
                                     "slave_parallel_threads") if num(n) is not None), None)
    if workers is not None:
        out["replica_workers"] = max(workers, 1)  # 0: the one SQL thread
    lru = next((v[n] for n in ("log_replica_updates", "log_slave_updates") if n in v), None)
    if lru is not None:
        out["log_replica_updates"] = "on" if lru.upper() in ("ON", "1") else "off"
    bp = num("innodb_buffer_pool_size")
    if bp is not None:
        notes.append(f"innodb_buffer_pool_size {bp / 2**30:,.2f} GiB on the measured server: not "
                     "carried over (each candidate's follows its memory; --buffer-pool-gib sets "
                     "one)")
    info = {k: v[k] for k in ("version", "innodb_flush_log_at_trx_commit", "sync_binlog",
                              "log_bin", "binlog_format") if k in v}
    return out, info, notes
