"""Stored runs: whole runs or none, readable after a restart, on SQLite, MariaDB and PostgreSQL,
with the database password never shown."""

import json
import math
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import create_engine, event, text

from advisor.serial import to_json
from advisor.store import MemoryRunStore, SqlRunStore, StoreError, masked
from advisor.store.schema import SCHEMA_VERSION, SchemaTooNew
from tests.conftest import require

RESULT = {"kind": "size", "workload": "mysql", "catalog_version": "2026.11.1",
          "advisor_version": "0.1.0", "recommendation": {"deployment": "master x"},
          "levels": [{"p99": 1.5}] * 50}


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlRunStore | MemoryRunStore]:
    s = SqlRunStore(sqlite_url(tmp_path / "runs.sqlite3")) if request.param == "sqlite" \
        else MemoryRunStore()
    yield s
    s.close()


def test_a_saved_run_reads_back_whole(store: SqlRunStore | MemoryRunStore) -> None:
    """Request, result, kind, versions and a UTC creation time come back as saved."""
    run_id = store.save("size", {"tps": 627}, RESULT)
    run = store.get(run_id)
    assert run is not None
    assert (run.kind, run.workload, run.request, run.result) == ("size", "mysql", {"tps": 627},
                                                                 RESULT)
    assert (run.advisor_version, run.catalog_version) == ("0.1.0", "2026.11.1")
    assert run.created_at.utcoffset() is not None
    assert run.created_at.utcoffset().total_seconds() == 0
    assert len(run_id) == 32
    assert int(run_id, 16) >= 0


def test_unknown_ids_and_kinds(store: SqlRunStore | MemoryRunStore) -> None:
    """An unknown id is None (also an id that is not hex); an unknown kind is refused."""
    assert store.get(uuid.uuid4().hex) is None
    assert store.get("'; drop table runs; --") is None
    with pytest.raises(Exception, match="run kind 'bench'"):
        store.save("bench", {}, RESULT)


def test_recent_lists_newest_first(store: SqlRunStore | MemoryRunStore) -> None:
    """`recent` returns the latest runs first, at most `limit`."""
    ids = [store.save("simulate", {"n": i}, {"kind": "simulate", "n": i}) for i in range(3)]
    assert [r.id for r in store.recent(2)] == ids[::-1][:2]


def test_nan_and_numpy_values_are_stored_as_plain_json(store: SqlRunStore | MemoryRunStore) -> None:
    """NaN/inf become null and numpy numbers plain ones, so every stored result is valid JSON."""
    run_id = store.save("simulate", {}, {"p": float("nan"), "q": np.float64(2.5),
                                          "r": np.arange(3), "s": -math.inf})
    run = store.get(run_id)
    assert run is not None
    assert run.result == {"p": None, "q": 2.5, "r": [0, 1, 2], "s": None}
    assert to_json({"a": (1, float("inf"))}) == {"a": [1, None]}


def test_runs_survive_reopening(tmp_path: Path) -> None:
    """A second store on the same file (a restarted service) sees the first one's runs."""
    url = sqlite_url(tmp_path / "runs.sqlite3")
    first = SqlRunStore(url)
    run_id = first.save("replay", {"ramp": [1, 2]}, {"kind": "replay"})
    first.close()
    second = SqlRunStore(url)
    run = second.get(run_id)
    second.close()
    assert run is not None
    assert run.request == {"ramp": [1, 2]}


def test_schema_version_is_recorded_and_migration_is_idempotent(tmp_path: Path) -> None:
    """Opening creates the schema and records its version; opening again changes nothing."""
    path = tmp_path / "runs.sqlite3"
    for _ in range(2):
        SqlRunStore(sqlite_url(path)).close()
    with sqlite3.connect(path) as db:
        assert db.execute("select version from schema_version").fetchall() == [(SCHEMA_VERSION,)]
        assert db.execute("select count(*) from runs").fetchone() == (0,)


def test_a_newer_schema_is_refused_with_a_reason(tmp_path: Path) -> None:
    """A database written by a newer advisor is not touched: one line says to upgrade."""
    path = tmp_path / "runs.sqlite3"
    SqlRunStore(sqlite_url(path)).close()
    with sqlite3.connect(path) as db:
        db.execute("update schema_version set version = 99")
    with pytest.raises(SchemaTooNew, match=r"schema version 99.*upgrade advisor"):
        SqlRunStore(sqlite_url(path))


def test_a_write_that_fails_midway_leaves_no_run(tmp_path: Path) -> None:
    """The INSERT runs, then the transaction dies before commit: the run is not there."""
    url = sqlite_url(tmp_path / "runs.sqlite3")
    store = SqlRunStore(url)
    engine = store._engine

    def fail_after_insert(conn, cursor, statement, *args) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO RUNS"):
            raise RuntimeError("power cut")

    event.listen(engine, "after_cursor_execute", fail_after_insert)
    with pytest.raises(RuntimeError, match="power cut"):
        store.save("size", {}, RESULT)
    event.remove(engine, "after_cursor_execute", fail_after_insert)
    assert store.recent(10) == []
    store.close()


WRITER = textwrap.dedent("""
    import sys
    from advisor.store import SqlRunStore
    store = SqlRunStore(sys.argv[1])
    big = {"kind": "simulate", "timeline": [{"t_s": i, "iops": i * 1.5} for i in range(20000)]}
    print("ready", flush=True)
    n = 0
    while True:
        big["n"] = n
        store.save("simulate", {"n": n}, big)
        n += 1
""")


def test_a_killed_writer_leaves_only_whole_runs(tmp_path: Path) -> None:
    """SIGKILL during a stream of large writes: the file passes integrity_check and every run
    in it parses whole."""
    path = tmp_path / "runs.sqlite3"
    with subprocess.Popen([sys.executable, "-c", WRITER, sqlite_url(path)],
                          stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
            time.sleep(1.5)
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    with sqlite3.connect(path) as db:
        assert db.execute("pragma integrity_check").fetchone() == ("ok",)
        rows = db.execute("select request, result from runs").fetchall()
    assert rows, "the writer stored nothing before it was killed"
    for request, result in rows:
        assert json.loads(result)["n"] == json.loads(request)["n"]
        assert len(json.loads(result)["timeline"]) == 20000
    store = SqlRunStore(sqlite_url(path))  # and the store opens it again
    assert len(store.recent(1000)) == len(rows)
    store.close()


def test_the_password_is_never_shown() -> None:
    """An unreachable server's error and the store's location mask the password."""
    url = "mysql+pymysql://advisor:s3cret-pw@127.0.0.1:1/runs"
    assert "s3cret-pw" not in masked(url)
    assert "***" in masked(url)
    with pytest.raises(StoreError) as err:
        SqlRunStore(url)
    assert "s3cret-pw" not in str(err.value)
    assert "127.0.0.1:1" in str(err.value)


def test_a_password_in_the_query_is_never_shown() -> None:
    """`?password=` (and PyMySQL's other spellings) are masked in the location and the error."""
    url = "mysql+pymysql://advisor@127.0.0.1:1/runs?charset=utf8&password=s3cret-pw&passwd=t0k3n-x"
    with pytest.raises(StoreError) as err:
        SqlRunStore(url)
    message = str(err.value)
    assert "s3cret-pw" not in message
    assert "t0k3n-x" not in message
    assert message.startswith("mysql+pymysql://advisor@127.0.0.1:1/runs?charset=utf8&passwd=***"
                              "&password=***: cannot open the runs database (")
    assert "\n" not in message


def test_a_port_that_is_not_a_number_is_one_line() -> None:
    """`:notaport` is refused before SQLAlchemy's int() sees it, the password masked."""
    with pytest.raises(StoreError, match=r"^ADVISOR_DATABASE_URL: database URL "
                                         r"mysql\+pymysql://u:\*\*\*@h:notaport/db: port "
                                         r"'notaport' is not a number from 1 to 65535$"):
        SqlRunStore("mysql+pymysql://u:s3cret@h:notaport/db")


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_a_sqlite_database_must_be_a_regular_file(tmp_path: Path, kind: str) -> None:
    """SQLite would write into a FIFO or device node and put a journal beside it: refused, and
    nothing is created."""
    path = tmp_path / "runs.sqlite3"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        try:
            os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
        except PermissionError:
            pytest.skip("cannot make device nodes here (no CAP_MKNOD)")
    with pytest.raises(StoreError, match=r"runs.sqlite3: the runs database must be a regular "
                                         r"file, not a (directory|special file)$"):
        SqlRunStore(sqlite_url(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.sqlite3"]


def test_a_bad_url_is_one_line() -> None:
    """A URL SQLAlchemy cannot parse is a StoreError naming the variable, not a traceback."""
    with pytest.raises(StoreError, match="ADVISOR_DATABASE_URL: not a database URL"):
        SqlRunStore("not a url")


def test_the_default_is_a_sqlite_file_in_the_user_data_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ADVISOR_DATABASE_URL the runs go to runs.sqlite3 under the data directory."""
    monkeypatch.delenv("ADVISOR_DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    store = SqlRunStore()
    store.save("size", {}, RESULT)
    store.close()
    assert (tmp_path / "advisor" / "runs.sqlite3").is_file()


# -- real servers (the machine's MariaDB and PostgreSQL) ---------------------------------------

SERVERS = {
    "mariadb": ("ADVISOR_TEST_STORE_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/"),
    "postgresql": ("ADVISOR_TEST_STORE_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/"
                   "postgres"),
}


@pytest.fixture(params=sorted(SERVERS))
def server_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A scratch database on the server, dropped afterwards."""
    env, default = SERVERS[request.param]
    admin_url = os.environ.get(env, default)
    name = f"advisor_store_{uuid.uuid4().hex[:10]}"
    try:
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT",
                              connect_args={"connect_timeout": 5})
        with admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name}"))
    except Exception as exc:  # driver missing or server down: say which
        require(f"{request.param} server", False, f"{masked(admin_url)}: {exc!s:.200} (set {env})")
    url = admin.url.set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            if request.param == "postgresql":
                conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
            else:
                conn.execute(text(f"DROP DATABASE {name}"))
        admin.dispose()


def test_real_servers_store_large_runs_and_survive_reopening(server_url: str) -> None:
    """MariaDB and PostgreSQL: a 1 MB result round-trips, the schema is migrated once."""
    big = {**RESULT, "timeline": [{"t_s": i, "burst_balance": 0.5} for i in range(30000)]}
    store = SqlRunStore(server_url)
    run_id = store.save("simulate", {"spec": "m5.large:gp2:100GiB"}, big)
    store.close()
    again = SqlRunStore(server_url)
    run = again.get(run_id)
    again.close()
    assert run is not None
    assert run.result == big
    assert len(json.dumps(big)) > 1_000_000
