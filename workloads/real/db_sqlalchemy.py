"""`SqlAlchemyDatabase`: the real side of the `workloads.real.db.Database` seam (SQLAlchemy 2).

MySQL/MariaDB through PyMySQL, or a SQLite file. Each client thread keeps one connection in
autocommit mode, so a transaction is one round trip; a lost connection is dropped and the next
call reconnects. Errors leave as `DatabaseUnavailable`/`TransactionFailed` with the masked URL.
"""

import contextlib
import sqlite3
import threading
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import URL, Connection, Engine, create_engine, make_url, text
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError

from advisor.errors import InvalidInput
from advisor.urls import mask_url, scrub, url_problem
from workloads.real.db import HEARTBEAT_TABLE, KV_TABLE, DatabaseUnavailable, TransactionFailed

T = TypeVar("T")

_INSERT_BATCH_ROWS = 1000
_PAD = "p" * 60
_SUPPORTED = ("mysql", "mariadb", "sqlite")


def parse_url(url: str) -> URL:
    """A SQLAlchemy URL for a supported database; bare `mysql://` gets the PyMySQL driver."""
    if problem := url_problem(url):
        raise InvalidInput(problem)
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise InvalidInput(
            "database URL is not like mysql+pymysql://USER:PASSWORD@HOST:PORT/DB "
            "or sqlite:///FILE"
        ) from None
    backend = parsed.get_backend_name()
    if backend not in _SUPPORTED:
        raise InvalidInput(
            f"database {mask_url(parsed)!r} is not supported: use mysql+pymysql://, "
            "mariadb+pymysql:// or sqlite:///FILE"
        )
    if backend in ("mysql", "mariadb"):
        if parsed.get_driver_name() not in ("pymysql",):
            parsed = parsed.set(drivername=f"{backend}+pymysql")
        if not parsed.database:
            raise InvalidInput(f"database URL {mask_url(parsed)!r} names no database (…/DB)")
    return parsed


class SqlAlchemyDatabase:
    """A real database through SQLAlchemy 2: MySQL/MariaDB via PyMySQL, or a SQLite file."""

    def __init__(
        self, url: str, *, pool_size: int = 8, replica: bool = False, timeout_s: float = 30.0
    ) -> None:
        self._url = parse_url(url)
        self._name = mask_url(self._url)
        self._is_replica = replica
        self._mysql = self._url.get_backend_name() in ("mysql", "mariadb")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: set[Connection] = set()
        self._engine = self._create_engine(pool_size, timeout_s)

    def _create_engine(self, pool_size: int, timeout_s: float) -> Engine:
        if self._mysql:
            connect_args: dict[str, object] = {
                "connect_timeout": 5,
                "read_timeout": int(timeout_s),
                "write_timeout": int(timeout_s),
            }
        else:
            # Threads take turns with the pool's connections; SQLite waits on a locked file.
            connect_args = {"timeout": timeout_s, "check_same_thread": False}
        # Autocommit: a transaction is one statement, with no BEGIN/COMMIT round trips.
        return create_engine(
            self._url,
            isolation_level="AUTOCOMMIT",
            pool_size=pool_size,
            max_overflow=pool_size,
            pool_timeout=timeout_s,
            connect_args=connect_args,
        )

    @property
    def name(self) -> str:
        return self._name

    # -- connections and errors -------------------------------------------------------------

    def _scrub(self, message: str) -> str:
        return scrub(message, self._url)

    def _describe(self, exc: BaseException) -> str:
        orig = getattr(exc, "orig", None) or exc
        args: tuple[object, ...] = tuple(getattr(orig, "args", ()))
        if len(args) == 2 and isinstance(args[0], int):
            detail = f"{args[1]} ({args[0]})"
        else:
            detail = str(orig) or type(orig).__name__
        return self._scrub(f"{self._name}: {detail}")

    def _connection(self) -> Connection:
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = self._engine.connect()
            except SQLAlchemyError as exc:
                raise DatabaseUnavailable(self._describe(exc)) from None
            self._local.conn = conn
            with self._lock:
                self._open.add(conn)
        return conn

    def _forget(self, conn: Connection, *, invalidate: bool) -> None:
        self._local.conn = None
        with self._lock:
            self._open.discard(conn)
        with contextlib.suppress(SQLAlchemyError):
            if invalidate:
                conn.invalidate()
            conn.close()

    def _run(self, work: Callable[[Connection], T]) -> T:
        conn = self._connection()
        try:
            return work(conn)
        except DBAPIError as exc:
            lost = bool(exc.connection_invalidated) or conn.invalidated
            if lost:
                self._forget(conn, invalidate=True)
                raise DatabaseUnavailable(self._describe(exc)) from None
            raise TransactionFailed(self._describe(exc)) from None
        except SQLAlchemyError as exc:
            self._forget(conn, invalidate=True)
            raise DatabaseUnavailable(self._describe(exc)) from None

    def release(self) -> None:
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            self._forget(conn, invalidate=False)

    def close(self) -> None:
        with self._lock:
            conns, self._open = list(self._open), set()
        for conn in conns:
            with contextlib.suppress(SQLAlchemyError):
                conn.close()
        self._local = threading.local()
        self._engine.dispose()

    # -- schema and data ----------------------------------------------------------------------

    def prepare(self, rows: int) -> int:
        def work(conn: Connection) -> int:
            for statement in self._schema():
                conn.execute(text(statement))
            existing = conn.execute(
                text(f"SELECT COUNT(*), COALESCE(MAX(id), 0) FROM {KV_TABLE}")
            ).one()
            count, top = int(existing[0]), int(existing[1])
            if count == top:  # ids 1..top all there: only the tail is missing
                missing: list[int] = list(range(top + 1, rows + 1))
            else:
                have = {int(r[0]) for r in conn.execute(text(f"SELECT id FROM {KV_TABLE}"))}
                missing = [i for i in range(1, rows + 1) if i not in have]
            insert = text(f"INSERT INTO {KV_TABLE} (id, k, v, pad) VALUES (:id, :k, :v, :pad)")
            for start in range(0, len(missing), _INSERT_BATCH_ROWS):
                batch = missing[start : start + _INSERT_BATCH_ROWS]
                conn.execute(insert, [_initial_row(i, rows) for i in batch])
            return len(missing)

        return self._run(work)

    def _schema(self) -> list[str]:
        big = "BIGINT" if self._mysql else "INTEGER"
        statements = [
            f"CREATE TABLE IF NOT EXISTS {KV_TABLE} (id INTEGER NOT NULL PRIMARY KEY, "
            "k INTEGER NOT NULL DEFAULT 0, v VARCHAR(120) NOT NULL DEFAULT '', "
            "pad CHAR(60) NOT NULL DEFAULT ''"
            + (", INDEX k_idx (k))" if self._mysql else ")"),
            f"CREATE TABLE IF NOT EXISTS {HEARTBEAT_TABLE} (id INTEGER NOT NULL PRIMARY KEY, "
            f"seq {big} NOT NULL)",
        ]
        if not self._mysql:
            statements += [
                f"CREATE INDEX IF NOT EXISTS k_idx ON {KV_TABLE} (k)",
                "PRAGMA journal_mode=WAL",  # readers do not block the writer
            ]
        return statements

    # -- transactions --------------------------------------------------------------------------

    def read(self, key: int, range_rows: int = 1) -> int:
        if range_rows <= 1:
            statement = text(f"SELECT v FROM {KV_TABLE} WHERE id = :lo")
            params = {"lo": key}
        else:
            statement = text(f"SELECT id, k, v FROM {KV_TABLE} WHERE id BETWEEN :lo AND :hi")
            params = {"lo": key, "hi": key + range_rows - 1}
        return self._run(lambda conn: len(conn.execute(statement, params).all()))

    def write(self, key: int, value: str) -> None:
        def work(conn: Connection) -> None:
            updated = conn.execute(
                text(f"UPDATE {KV_TABLE} SET k = k + 1, v = :v WHERE id = :id"),
                {"v": value, "id": key},
            )
            if updated.rowcount == 0:
                conn.execute(
                    text(f"INSERT INTO {KV_TABLE} (id, k, v, pad) VALUES (:id, 0, :v, :pad)"),
                    {"id": key, "v": value, "pad": _PAD},
                )

        self._run(work)

    def heartbeat_write(self, seq: int) -> None:
        def work(conn: Connection) -> None:
            updated = conn.execute(
                text(f"UPDATE {HEARTBEAT_TABLE} SET seq = :seq WHERE id = 1"), {"seq": seq}
            )
            if updated.rowcount == 0:
                conn.execute(
                    text(f"INSERT INTO {HEARTBEAT_TABLE} (id, seq) VALUES (1, :seq)"),
                    {"seq": seq},
                )

        self._run(work)

    def heartbeat_read(self) -> int:
        row = self._run(
            lambda conn: conn.execute(
                text(f"SELECT seq FROM {HEARTBEAT_TABLE} WHERE id = 1")
            ).first()
        )
        return int(row[0]) if row is not None else 0

    def table_rows(self, table: str) -> int | None:
        """Rows in `table`, or None when it does not exist (or cannot be read)."""
        if not table.isidentifier():
            raise ValueError(f"not a table name: {table!r}")
        try:
            return int(self._run(
                lambda conn: conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()
            ))
        except TransactionFailed:
            return None

    # -- server ------------------------------------------------------------------------------

    def status(self) -> dict[str, int]:
        if not self._mysql:
            return {}
        rows = self._run(lambda conn: conn.execute(text("SHOW GLOBAL STATUS")).all())
        counters: dict[str, int] = {}
        for name, value in rows:
            try:
                counters[str(name)] = int(value)
            except (TypeError, ValueError):
                continue  # not a counter (ON/OFF, file names...)
        return counters

    def server_info(self) -> dict[str, str]:
        if not self._mysql:
            return {"version": f"SQLite {sqlite3.sqlite_version}"}
        names = (
            "version", "version_comment", "innodb_buffer_pool_size", "innodb_page_size",
            "innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "binlog_format",
            "server_id", "innodb_doublewrite",
        )
        select = "SELECT " + ", ".join(f"@@{n}" for n in names)
        row = self._run(lambda conn: conn.execute(text(select)).one())
        return {n: str(v) for n, v in zip(names, row, strict=True)}

    def _slave_status(self) -> dict[str, object] | None:
        row = self._run(lambda conn: conn.execute(text("SHOW SLAVE STATUS")).mappings().first())
        return dict(row) if row is not None else None

    def replication_error(self) -> str | None:
        if not (self._is_replica and self._mysql):
            return None
        status = self._slave_status()
        if status is None:
            return f"{self._name} is not a replica (SHOW SLAVE STATUS is empty)"
        io, sql = status.get("Slave_IO_Running"), status.get("Slave_SQL_Running")
        if io == "Yes" and sql == "Yes":
            return None
        errors = " ".join(
            str(status.get(k) or "") for k in ("Last_IO_Error", "Last_SQL_Error")
        ).strip()
        reason = f"{self._name} is not replicating: Slave_IO_Running={io}, Slave_SQL_Running={sql}"
        return self._scrub(f"{reason}{': ' + errors if errors else ''}")

    def replica_lag_s(self) -> float | None:
        if not (self._is_replica and self._mysql):
            return None
        status = self._slave_status()
        behind = status.get("Seconds_Behind_Master") if status else None
        return float(behind) if behind is not None else None  # type: ignore[arg-type]


def _initial_row(row_id: int, rows: int) -> dict[str, object]:
    # Deterministic content (like sysbench's prepare): k spreads over the index, v is 120 chars.
    return {"id": row_id, "k": (row_id * 2654435761) % max(rows, 1), "v": f"{row_id:0120d}",
            "pad": _PAD}
