"""Shared test fixtures. Tests that need a real component ask for it through `require`.

Locally a missing component (MariaDB pair, sysbench, chromium...) skips the test with a reason
naming what is missing; with ADVISOR_REQUIRE_REAL=1 (set by `scripts/test` when CI is set) it
fails instead: CI never skips silently (STYLE.md, Tooling).

Sections: the command-line options (`--update-goldens`, `--slow`) and the `golden` fixture, the
`require` helper, then one block of fixtures per real component. Add new components the same
way: probe, `require(...)`, yield what the tests need.

Tests marked `slow` (over ~5 s each) are deselected by default, so a local `pytest` stays short;
they run when CI is set, with ADVISOR_SLOW=1, with `--slow`, or when `-m` chooses by marks
(`pytest -m slow`). The deselected count is in pytest's summary line.
"""

import difflib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
REQUIRE_REAL_ENV = "ADVISOR_REQUIRE_REAL"
SLOW_ENV = "ADVISOR_SLOW"
GOLDENS = REPO_ROOT / "tests" / "goldens"


# -- the cache of event-simulation results between runs ------------------------------------------


_CACHE_KEY = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """The golden files' state, and the cache: `advisor size` keeps event-simulation results
    between runs in the user's cache directory (`advisor.cli.verify_memo`); the tests use a
    fresh one of their own, shared by the session and its subprocesses (the CLI, the API's
    workers), so no run reads what another checkout or an earlier session left."""
    config.stash[_GOLDEN_KEY] = Golden(update=bool(config.getoption("--update-goldens")))
    folder = tempfile.mkdtemp(prefix="advisor-test-cache-")
    config.stash[_CACHE_KEY] = folder
    os.environ["ADVISOR_CACHE_DIR"] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_CACHE_KEY, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


# -- options: --update-goldens, --slow ---------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("advisor")
    group.addoption("--update-goldens", action="store_true",
                    help="rewrite the golden files under tests/goldens/ from this run instead of "
                    "comparing (the tests pass; the summary lists what was rewritten)")
    group.addoption("--slow", action="store_true",
                    help=f"also run tests marked slow (the default when CI or {SLOW_ENV}=1 is set)")


def _run_slow(config: pytest.Config) -> bool:
    return bool(config.getoption("--slow") or os.environ.get(SLOW_ENV) == "1"
                or os.environ.get("CI") or config.getoption("markexpr"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect slow tests unless asked for; one named by node id (`file.py::test`) still runs."""
    if _run_slow(config):
        return
    named = tuple(arg for arg in config.args if "::" in arg)

    def deselect(item: pytest.Item) -> bool:
        asked = any(item.nodeid == arg or item.nodeid.startswith(f"{arg}[") for arg in named)
        return item.get_closest_marker("slow") is not None and not asked

    slow = [item for item in items if deselect(item)]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not deselect(item)]


@dataclass(slots=True)
class Golden:
    """Compares what a reader sees with tests/goldens/NAME; `--update-goldens` rewrites it."""

    update: bool
    rewritten: list[str] = field(default_factory=list)

    def check(self, name: str, text: str) -> None:
        path = GOLDENS / name
        want = path.read_text("utf-8") if path.exists() else None
        if self.update:
            if text != want:
                path.write_text(text, "utf-8")
                self.rewritten.append(name)
            return
        if want is None:
            pytest.fail(f"tests/goldens/{name} does not exist: `pytest --update-goldens` writes "
                        "it; review it and commit it", pytrace=False)
        if text != want:
            diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                f"tests/goldens/{name} (stored)",
                                                f"{name} (this run)"))
            pytest.fail(f"{name} differs from its golden file. If the change is wanted, rerun with "
                        f"--update-goldens and commit the new file.\n{diff}", pytrace=False)


_GOLDEN_KEY = pytest.StashKey[Golden]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    golden = config.stash.get(_GOLDEN_KEY, None)
    if golden is not None and golden.rewritten:
        terminalreporter.write_sep("=", "golden files rewritten (--update-goldens)")
        for name in golden.rewritten:
            terminalreporter.write_line(f"tests/goldens/{name}")
        terminalreporter.write_line("review them (git diff tests/goldens) and commit them")


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    """`golden.check(name, text)`: fail with a unified diff unless text matches the stored file."""
    return request.config.stash[_GOLDEN_KEY]


# -- require -------------------------------------------------------------------------------


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
