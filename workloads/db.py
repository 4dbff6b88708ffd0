"""The seam between replay and a database: one small protocol, a SQLAlchemy implementation and
an in-memory fake beside it (as httpx ships `MockTransport` beside its real transport).

Replay only ever calls the methods of `Database`. A client thread uses its own connection
(thread-local, opened on first use) in autocommit mode, so a transaction is one round trip:
one SELECT on a replica, or one UPDATE (plus an INSERT when the row is missing) on the master.
Every message that can leave this module names the database by its masked URL: the password
never reaches an exception, a log or a result.
"""

import threading
from typing import Protocol

from sqlalchemy import URL, make_url
from sqlalchemy.exc import ArgumentError

from advisor.errors import InvalidInput
from workloads.clock import Clock, SystemClock

KV_TABLE = "advisor_kv"
HEARTBEAT_TABLE = "advisor_heartbeat"
_SUPPORTED = ("mysql", "mariadb", "sqlite")


class DatabaseError(Exception):
    """A database failed while replay was running (not a mistake in the request)."""


class DatabaseUnavailable(DatabaseError):
    """Cannot connect, connection lost, or credentials refused."""


class TransactionFailed(DatabaseError):
    """One statement failed (deadlock, lock wait timeout, missing table...)."""


class Database(Protocol):
    """What replay needs from a database; `SqlAlchemyDatabase` and `InMemoryDatabase` have it.

    `read`, `write`, `heartbeat_*` raise `DatabaseUnavailable` or `TransactionFailed`, with the
    masked URL in the message. Calls from different threads use different connections.
    """

    @property
    def name(self) -> str:
        """The masked URL (`mysql+pymysql://advisor:***@127.0.0.1:33061/advisor`)."""
        ...

    def prepare(self, rows: int) -> int:
        """Create the tables and insert the missing rows `1..rows`; return how many were added."""
        ...

    def read(self, key: int, range_rows: int = 1) -> int:
        """One read transaction: row `key`, or `range_rows` rows from it; return rows found."""
        ...

    def write(self, key: int, value: str) -> None:
        """One write transaction: update row `key` (index column and value), insert if missing."""
        ...

    def heartbeat_write(self, seq: int) -> None: ...

    def heartbeat_read(self) -> int:
        """The last heartbeat sequence number this database has applied (0 when none)."""
        ...

    def status(self) -> dict[str, int]:
        """Server counters (`SHOW GLOBAL STATUS`, numeric ones); {} where there are none."""
        ...

    def server_info(self) -> dict[str, str]:
        """Version and the settings that shape the I/O profile (sync_binlog, buffer pool...)."""
        ...

    def replication_error(self) -> str | None:
        """Why this replica is not applying the master's writes; None when it is (or no replica)."""
        ...

    def replica_lag_s(self) -> float | None:
        """`Seconds_Behind_Master`; None when not a replica or not replicating."""
        ...

    def release(self) -> None:
        """Give back the calling thread's connection (a client thread calls it when it ends)."""
        ...

    def close(self) -> None: ...


def mask_url(url: str | URL) -> str:
    """The URL with its password replaced by `***` (never echoes a URL it cannot parse)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "<unparseable database URL>"


def parse_url(url: str) -> URL:
    """A SQLAlchemy URL for a supported database; bare `mysql://` gets the PyMySQL driver."""
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


class InMemoryDatabase:
    """The fake beside the real thing: a dict, an optional per-call delay, switchable failure.

    `InMemoryDatabase(replica_of=master, apply_delay_s=0.5)` is a replica that shares the
    master's rows but sees its heartbeats only `apply_delay_s` late, to test lag reporting.
    """

    def __init__(
        self,
        *,
        name: str = "memory",
        delay_s: float = 0.0,
        clock: Clock | None = None,
        replica_of: "InMemoryDatabase | None" = None,
        apply_delay_s: float = 0.0,
    ) -> None:
        self._name = name
        self._delay_s = delay_s
        needs_clock = delay_s > 0 or apply_delay_s > 0
        self._clock = clock if clock is not None or not needs_clock else SystemClock()
        self._source = replica_of
        self._apply_delay_s = apply_delay_s
        self._rows: dict[int, str] = replica_of._rows if replica_of else {}
        self._beats: list[tuple[float, int]] = []  # (time written, seq)
        self._lock = threading.Lock()
        self._failure: str | None = None
        self.calls = {"read": 0, "write": 0}

    @property
    def name(self) -> str:
        return self._name

    def fail(self, reason: str) -> None:
        """From now on every call raises `DatabaseUnavailable(reason)` (a server that died)."""
        self._failure = reason

    def _enter(self, kind: str | None = None) -> None:
        if self._failure is not None:
            raise DatabaseUnavailable(f"{self._name}: {self._failure}")
        if kind is not None:
            with self._lock:
                self.calls[kind] += 1
        if self._delay_s > 0 and self._clock is not None:
            self._clock.sleep(self._delay_s)

    def _now(self) -> float:
        return self._clock.now() if self._clock is not None else 0.0

    def prepare(self, rows: int) -> int:
        self._enter()
        with self._lock:
            missing = [i for i in range(1, rows + 1) if i not in self._rows]
            self._rows.update((i, "") for i in missing)
        return len(missing)

    def read(self, key: int, range_rows: int = 1) -> int:
        self._enter("read")
        return sum(1 for k in range(key, key + max(range_rows, 1)) if k in self._rows)

    def write(self, key: int, value: str) -> None:
        self._enter("write")
        with self._lock:
            self._rows[key] = value

    def heartbeat_write(self, seq: int) -> None:
        self._enter()
        with self._lock:
            self._beats.append((self._now(), seq))

    def heartbeat_read(self) -> int:
        self._enter()
        source = self._source or self
        visible_before = self._now() - self._apply_delay_s
        with source._lock:
            seen = [seq for t, seq in source._beats if t <= visible_before]
        return max(seen, default=0)

    def status(self) -> dict[str, int]:
        return {}

    def server_info(self) -> dict[str, str]:
        return {"version": "in-memory"}

    def replication_error(self) -> str | None:
        return None

    def replica_lag_s(self) -> float | None:
        return None

    def release(self) -> None:
        pass

    def close(self) -> None:
        pass


# The real implementation lives beside the seam; imported last because it needs the names above.
from workloads.db_sqlalchemy import SqlAlchemyDatabase  # noqa: E402

__all__ = [
    "HEARTBEAT_TABLE", "KV_TABLE", "Database", "DatabaseError", "DatabaseUnavailable",
    "InMemoryDatabase", "SqlAlchemyDatabase", "TransactionFailed", "mask_url", "parse_url",
]
