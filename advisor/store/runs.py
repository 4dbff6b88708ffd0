"""Stored runs: results of `size`, `simulate`, `replay` and `calibrate`, kept through SQLAlchemy.

The default database is an embedded SQLite file in the user's data directory
(`platformdirs.user_data_dir("advisor")/runs.sqlite3`); `ADVISOR_DATABASE_URL` points at MySQL,
MariaDB or PostgreSQL instead. Each run is written by one INSERT in one transaction: a crash
leaves the run whole or absent. A URL is only ever shown with its password masked.

`RunStore` is the seam; `SqlRunStore` is the real one and `MemoryRunStore` the fake beside it.
"""

import json
import os
import stat
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Engine, create_engine, event, make_url, select
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from advisor import __version__
from advisor.errors import AdvisorError, InvalidInput
from advisor.serial import to_json
from advisor.store.schema import migrate, runs
from advisor.urls import mask_url, scrub, url_problem

DATABASE_ENV = "ADVISOR_DATABASE_URL"
KINDS = ("size", "simulate", "replay", "calibrate")
masked = mask_url  # the one masking rule (it also masks ?password=)


class StoreError(AdvisorError):
    """The runs database cannot be opened, read or written (the message masks the password)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredRun:
    id: str
    kind: str
    workload: str | None
    created_at: datetime
    advisor_version: str
    catalog_version: str | None
    request: dict[str, Any]
    result: dict[str, Any]

    def to_json(self, *, with_result: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "kind": self.kind, "workload": self.workload,
            "created_at": self.created_at.isoformat(), "advisor_version": self.advisor_version,
            "catalog_version": self.catalog_version, "request": self.request,
        }
        if with_result:
            out["result"] = self.result
        return out


class RunStore(Protocol):
    """Where runs are kept. `save` is all-or-nothing."""

    @property
    def location(self) -> str: ...

    def save(self, kind: str, request: Mapping[str, Any], result: Mapping[str, Any]) -> str: ...

    def get(self, run_id: str) -> StoredRun | None: ...

    def recent(self, limit: int = 20) -> list[StoredRun]: ...

    def close(self) -> None: ...


def default_url() -> str:
    """`$ADVISOR_DATABASE_URL`, else the SQLite file in the user data directory."""
    if url := os.environ.get(DATABASE_ENV):
        return url
    from platformdirs import user_data_dir

    return f"sqlite:///{Path(user_data_dir('advisor')) / 'runs.sqlite3'}"


def _parse(url: str) -> URL:
    if problem := url_problem(url):
        raise StoreError(f"{DATABASE_ENV}: {problem}")
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise StoreError(f"{DATABASE_ENV}: not a database URL (expected e.g. "
                         "sqlite:///runs.sqlite3, mysql+pymysql://user:pw@host/db or "
                         "postgresql+psycopg://user:pw@host/db)") from None
    if parsed.drivername in ("mysql", "mariadb"):  # PyMySQL ships with advisor; mysqlclient may not
        parsed = parsed.set(drivername=f"{parsed.drivername}+pymysql")
    return parsed


def _sqlite_file(path: Path, location: str) -> None:
    """A SQLite database is a regular file (or a new one): SQLite would write into a device node
    or FIFO and put its journal beside it (as root, /dev/null-journal)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{location}: cannot create {path.parent} ({exc.strerror})") from None
        return
    except OSError as exc:
        raise StoreError(f"{location}: cannot open the runs database ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(f"{location}: the runs database must be a regular file, not "
                         f"{'a directory' if stat.S_ISDIR(st.st_mode) else 'a special file'}")


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")  # readers never block the writer; crash-safe
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


class SqlRunStore:
    """Runs in a SQL database; the schema is created or migrated when the store opens."""

    def __init__(self, url: str | None = None) -> None:
        parsed = _parse(url or default_url())
        self._location = masked(parsed)
        self._url = parsed
        kwargs: dict[str, Any] = {"pool_pre_ping": True}
        if parsed.get_backend_name() == "sqlite":
            if parsed.database and parsed.database != ":memory:":
                _sqlite_file(Path(parsed.database).expanduser(), self._location)
            kwargs = {"connect_args": {"timeout": 30}}
        try:
            self._engine: Engine = create_engine(parsed, **kwargs)
        except (ArgumentError, ImportError) as exc:
            raise StoreError(f"{self._location}: {exc}") from None
        if parsed.get_backend_name() == "sqlite":
            event.listen(self._engine, "connect", _sqlite_pragmas)
        with self._errors("open"):
            migrate(self._engine.begin)

    @property
    def location(self) -> str:
        return self._location

    def _errors(self, what: str) -> "_Translate":
        return _Translate(f"{self._location}: cannot {what} the runs database", self._url)

    def save(self, kind: str, request: Mapping[str, Any], result: Mapping[str, Any]) -> str:
        if kind not in KINDS:
            raise InvalidInput(f"run kind {kind!r}: one of {', '.join(KINDS)}")
        run_id = uuid.uuid4().hex
        row = {
            "id": run_id, "kind": kind,
            "workload": result.get("workload") if isinstance(result.get("workload"), str)
            else None,
            "created_at": datetime.now(UTC),
            "advisor_version": str(result.get("advisor_version") or __version__),
            "catalog_version": result.get("catalog_version"),
            "request": json.dumps(to_json(request), allow_nan=False),
            "result": json.dumps(to_json(result), allow_nan=False),
        }
        with self._errors("write to"), self._engine.begin() as conn:
            conn.execute(runs.insert().values(**row))
        return run_id

    def get(self, run_id: str) -> StoredRun | None:
        if not _looks_like_id(run_id):
            return None
        with self._errors("read"), self._engine.connect() as conn:
            row = conn.execute(select(runs).where(runs.c.id == run_id)).mappings().first()
        return None if row is None else _from_row(row)

    def recent(self, limit: int = 20) -> list[StoredRun]:
        with self._errors("read"), self._engine.connect() as conn:
            rows = conn.execute(select(runs).order_by(runs.c.created_at.desc()).limit(limit))
            return [_from_row(r) for r in rows.mappings()]

    def close(self) -> None:
        self._engine.dispose()


class _Translate:
    """SQLAlchemy errors -> StoreError with one line; the URL in it is already masked."""

    def __init__(self, prefix: str, url: URL) -> None:
        self.prefix = prefix
        self.url = url

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, SQLAlchemyError):
            orig = getattr(exc, "orig", None) or exc
            first = str(orig).splitlines()[0] if str(orig) else type(orig).__name__
            # a driver that echoes its connection string must not leak a password from it
            raise StoreError(f"{self.prefix} ({scrub(first, self.url)})") from None


def _looks_like_id(run_id: str) -> bool:
    return 1 <= len(run_id) <= 32 and all(c in "0123456789abcdef" for c in run_id)


def _from_row(row: Any) -> StoredRun:  # a RowMapping
    created = row["created_at"]
    if created.tzinfo is None:  # SQLite and MySQL DATETIME keep no zone; we wrote UTC
        created = created.replace(tzinfo=UTC)
    return StoredRun(id=row["id"], kind=row["kind"], workload=row["workload"], created_at=created,
                     advisor_version=row["advisor_version"],
                     catalog_version=row["catalog_version"], request=json.loads(row["request"]),
                     result=json.loads(row["result"]))


class MemoryRunStore:
    """The fake: runs in a dict, for tests of code that stores runs."""

    location = "memory"

    def __init__(self) -> None:
        self._runs: dict[str, StoredRun] = {}

    def save(self, kind: str, request: Mapping[str, Any], result: Mapping[str, Any]) -> str:
        if kind not in KINDS:
            raise InvalidInput(f"run kind {kind!r}: one of {', '.join(KINDS)}")
        run_id = uuid.uuid4().hex
        self._runs[run_id] = StoredRun(
            id=run_id, kind=kind, workload=result.get("workload"), created_at=datetime.now(UTC),
            advisor_version=str(result.get("advisor_version") or __version__),
            catalog_version=result.get("catalog_version"),
            request=json.loads(json.dumps(to_json(request))),
            result=json.loads(json.dumps(to_json(result))))
        return run_id

    def get(self, run_id: str) -> StoredRun | None:
        return self._runs.get(run_id)

    def recent(self, limit: int = 20) -> list[StoredRun]:
        return sorted(self._runs.values(), key=lambda r: r.created_at, reverse=True)[:limit]

    def close(self) -> None:
        self._runs.clear()
