"""Shared test fixtures. Tests that need a real component ask for it through `require`.

Locally a missing component (MariaDB pair, sysbench, chromium...) skips the test with a reason
naming what is missing; with ADVISOR_REQUIRE_REAL=1 (set by `scripts/test` when CI is set) it
fails instead: CI never skips silently (STYLE.md, Tooling).

Sections: the `require` helper, then one block of fixtures per real component. Add new
components the same way: probe, `require(...)`, yield what the tests need.
"""

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
REQUIRE_REAL_ENV = "ADVISOR_REQUIRE_REAL"


def require(what: str, available: bool, why: str) -> None:
    """Skip (or, under ADVISOR_REQUIRE_REAL=1, fail) unless `what` is available."""
    if available:
        return
    message = f"{what} is not available: {why}"
    if os.environ.get(REQUIRE_REAL_ENV) == "1":
        pytest.fail(f"{message} ({REQUIRE_REAL_ENV}=1: tests needing it must not skip)")
    pytest.skip(message)


# -- MariaDB master + replica (scripts/mariadb-pair) ---------------------------------------


@dataclass(frozen=True, slots=True)
class MariaDbPair:
    master_url: str
    replica_url: str
    script: Path = REPO_ROOT / "scripts" / "mariadb-pair"


def _connect_error(url: str) -> str | None:
    """None when `SELECT 1` works on `url`, else the error (the URL's password masked)."""
    from sqlalchemy import create_engine, make_url, text
    from sqlalchemy.exc import SQLAlchemyError

    engine = create_engine(url, connect_args={"connect_timeout": 5})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        orig = getattr(exc, "orig", exc)
        return f"{make_url(url).render_as_string(hide_password=True)}: {orig}"
    finally:
        engine.dispose()
    return None


@pytest.fixture(scope="session")
def mariadb_pair() -> MariaDbPair:
    """The running pair's URLs, from ADVISOR_TEST_MASTER_URL / ADVISOR_TEST_REPLICA_URL."""
    master = os.environ.get("ADVISOR_TEST_MASTER_URL")
    replica = os.environ.get("ADVISOR_TEST_REPLICA_URL")
    require(
        "MariaDB master + replica",
        bool(master and replica),
        "ADVISOR_TEST_MASTER_URL/ADVISOR_TEST_REPLICA_URL unset; run `bash scripts/test`, or "
        "`scripts/mariadb-pair up` and export what `scripts/mariadb-pair env` prints",
    )
    assert master is not None
    assert replica is not None
    for url in (master, replica):
        error = _connect_error(url)
        require("MariaDB master + replica", error is None, f"cannot connect: {error}")
    return MariaDbPair(master_url=master, replica_url=replica)


# -- sysbench ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sysbench_bin() -> str:
    """Path of the sysbench binary (Debian package `sysbench`)."""
    path = shutil.which("sysbench")
    require("sysbench", path is not None, "not on PATH: install the Debian package sysbench")
    assert path is not None
    version = subprocess.run(
        [path, "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    require("sysbench", version.startswith("sysbench 1."), f"unexpected version {version!r}")
    return path
