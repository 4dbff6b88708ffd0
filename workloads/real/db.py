"""The seam between replay and a database: one small protocol, with the SQLAlchemy implementation
(`db_sqlalchemy`) and an in-memory fake (`db_memory`) beside it, as httpx ships `MockTransport`
beside its real transport. This module imports neither.

Replay only ever calls the methods of `Database`. A client thread uses its own connection
(thread-local, opened on first use) in autocommit mode, so a transaction is one round trip:
one SELECT on a replica, or one UPDATE (plus an INSERT when the row is missing) on the master.
Every message that can leave this module names the database by its masked URL: the password
never reaches an exception, a log or a result.
"""

from typing import Protocol

KV_TABLE = "advisor_kv"
HEARTBEAT_TABLE = "advisor_heartbeat"


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
