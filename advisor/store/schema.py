"""The stored-runs schema and its migrations.

One table of runs and a `schema_version` table holding the number of the last migration applied.
`migrate` runs on every start: it creates what is missing and applies newer migrations in order,
each in its own transaction, so a database is always at one whole version.
"""

from collections.abc import Callable

from sqlalchemy import (
    Column,
    Connection,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    select,
)
from sqlalchemy.dialects import mysql

from advisor.errors import AdvisorError

SCHEMA_VERSION = 1

metadata = MetaData()

# MySQL's TEXT holds 64 KiB; a simulation's timeline and histograms can be larger.
JsonText = Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("workload", String(16), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("advisor_version", String(32), nullable=False),
    Column("catalog_version", String(32), nullable=True),
    Column("request", JsonText, nullable=False),
    Column("result", JsonText, nullable=False),
    Index("ix_runs_created_at", "created_at"),
)


class SchemaTooNew(AdvisorError):
    """The database was written by a newer advisor than this one."""


def _v1(conn: Connection) -> None:
    runs.create(conn, checkfirst=True)


MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _v1}


def current_version(conn: Connection) -> int:
    """The last migration applied (0 for an empty database)."""
    schema_version.create(conn, checkfirst=True)
    found = conn.execute(select(schema_version.c.version)).scalars().all()
    return max(found, default=0)


def migrate(begin: Callable[[], object]) -> int:
    """Bring the database to SCHEMA_VERSION; `begin` opens a transaction (engine.begin)."""
    with begin() as conn:  # type: ignore[attr-defined]
        version = current_version(conn)
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(f"the runs database is at schema version {version}, newer than this "
                           f"advisor understands ({SCHEMA_VERSION}): upgrade advisor")
    for target in range(version + 1, SCHEMA_VERSION + 1):
        with begin() as conn:  # type: ignore[attr-defined]
            if current_version(conn) >= target:  # another process got there first
                continue
            MIGRATIONS[target](conn)
            conn.execute(schema_version.delete())
            conn.execute(schema_version.insert().values(version=target))
    return SCHEMA_VERSION
