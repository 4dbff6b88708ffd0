"""Replay against the project's real MariaDB master + replica (scripts/mariadb-pair).

What must hold on real servers: reads land on the replica and writes on the master (each server's
own counters say so), replica lag is reported, the I/O profile is written and loads, and a replica
killed mid-run fails that step, keeps the finished ones and makes the CLI exit 1.
"""

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import make_url

from tests.conftest import MariaDbPair, require
from tests.workloads.cli import run_cli
from workloads.real.io_profile_file import load_io_profile, save_io_profile
from workloads.real.replay import ReplayConfig, open_target, run_replay

pytestmark = pytest.mark.mysql

EXTRA_PORT = 33063


def password(url: str) -> str:
    secret = make_url(url).password
    assert secret
    return secret


def replay(pair: MariaDbPair, config: ReplayConfig, tmp_path: Path) -> dict[str, Any]:
    target = open_target(pair.master_url, [pair.replica_url], pool_size=8,
                         sqlite_path=tmp_path / "unused.sqlite3")
    try:
        return run_replay(target, config)
    finally:
        target.close()


@pytest.fixture(scope="module")
def measured(mariadb_pair: MariaDbPair, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    config = ReplayConfig(ramp=(1, 4), duration_s=1.5, warmup_s=0.3, rows=5000, seed=11)
    return replay(mariadb_pair, config, tmp_path_factory.mktemp("replay"))


def test_reads_land_on_the_replica_and_writes_on_the_master(measured: dict[str, Any]) -> None:
    """Per step: the replica ran the SELECTs, the master none; the master ran the UPDATEs."""
    assert measured["complete"] is True, measured["error"]
    for level in measured["levels"]:
        master, replica = level["status_delta"]["master"], level["status_delta"]["replica"]
        assert level["reads"] > 0
        assert level["writes"] > 0
        assert replica["Com_select"] >= level["reads"] * 0.97  # (+ heartbeat reads)
        assert master["Com_select"] <= level["reads"] * 0.01
        master_writes = master["Com_update"] + master["Com_insert"]
        assert master_writes >= level["writes"] * 0.97  # (+ heartbeat writes)
        # The replica only applies what the master did: no client writes of its own.
        assert replica["Com_update"] + replica["Com_insert"] <= master_writes * 1.02 + 5
        assert replica["Rows_sent"] >= level["reads"]  # every read finds its row(s)


def test_reads_per_write_ratio_holds_on_real_servers(measured: dict[str, Any]) -> None:
    """3.25 reads per write within 20 % on every step."""
    for level in measured["levels"]:
        assert level["reads"] / level["writes"] == pytest.approx(3.25, rel=0.2)


def test_replica_lag_is_reported(measured: dict[str, Any]) -> None:
    """Heartbeat lag and Seconds_Behind_Master are there, small on an idle loopback pair."""
    for level in measured["levels"]:
        assert level["replica_lag_s"] is not None
        assert 0 <= level["replica_lag_s"] < 5
        assert level["seconds_behind_master"] is not None
        assert level["heartbeat_writes"] > 0


def test_io_profile_is_written_and_loadable(measured: dict[str, Any], tmp_path: Path) -> None:
    """Durable commits cost redo and binlog bytes and fsyncs; the file loads back."""
    profile = measured["io_profile"]
    assert profile is not None
    assert profile["server"].startswith("MariaDB 10.")
    path = tmp_path / "io.json"
    save_io_profile(profile, path)
    loaded = load_io_profile(path)
    write = loaded.per_write_txn
    assert write.redo_bytes > 100  # an UPDATE of one row: a few hundred bytes of redo
    assert 0 < write.redo_fsyncs <= 1.5
    assert write.binlog_bytes > 100
    assert 0 < write.binlog_fsyncs <= 1.5  # sync_binlog=1, group commit may share them
    assert loaded.per_read_txn.logical_reads > 0


def test_cli_replay_against_the_pair_never_prints_the_password(
    mariadb_pair: MariaDbPair, tmp_path: Path
) -> None:
    """The CLI runs the pair, writes the I/O profile, and shows URLs masked."""
    io_path, out_path = tmp_path / "io.json", tmp_path / "result.json"
    result = run_cli("replay", "--master", mariadb_pair.master_url,
                     "--replica", mariadb_pair.replica_url, "--ramp", "2", "--duration", "1",
                     "--warmup", "0.2", "--rows", "5000", "--io-profile-out", str(io_path),
                     "--out", str(out_path))
    assert result.exit_code == 0, result.stderr
    assert "advisor:***@127.0.0.1:33062" in result.stdout
    secret = password(mariadb_pair.master_url)
    for text in (result.stdout, result.stderr, io_path.read_text(), out_path.read_text()):
        assert secret not in text
    assert load_io_profile(io_path).per_write_txn.redo_bytes > 0


def test_wrong_credentials_are_one_line_without_the_password(mariadb_pair: MariaDbPair) -> None:
    """Access denied: exit 1, the reason from the server, the URL masked."""
    url = make_url(mariadb_pair.master_url).set(password="not-the-password")
    result = run_cli("replay", "--master", url.render_as_string(hide_password=False),
                     "--ramp", "1", "--duration", "0.5")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: prepare: mysql+pymysql://advisor:***@127.0.0.1:")
    assert "Access denied" in result.stderr
    assert "not-the-password" not in result.stderr + result.stdout


def test_unreachable_database_is_one_line() -> None:
    """Nothing listens on the port: exit 1, `Can't connect`, no traceback."""
    result = run_cli("replay", "--master", "mysql+pymysql://advisor:pw-xyz@127.0.0.1:1/advisor",
                     "--ramp", "1", "--duration", "0.5")
    assert result.exit_code == 1
    assert "Can't connect" in result.stderr
    assert result.stderr.count("\n") == 1
    assert "pw-xyz" not in result.stderr


def test_a_server_that_is_no_replica_is_refused(mariadb_pair: MariaDbPair) -> None:
    """The master given as --replica: refused before measuring, with the reason."""
    result = run_cli("replay", "--master", mariadb_pair.master_url,
                     "--replica", mariadb_pair.master_url, "--ramp", "1", "--duration", "0.5")
    assert result.exit_code == 1
    assert "is not a replica (SHOW SLAVE STATUS is empty)" in result.stderr


def test_a_stopped_replica_is_reported(mariadb_pair: MariaDbPair, tmp_path: Path) -> None:
    """STOP SLAVE on the replica: the replay says it is not replicating and stops."""
    from sqlalchemy import create_engine, text

    engine = create_engine(mariadb_pair.replica_url)
    try:
        with engine.connect() as conn:
            conn.execute(text("STOP SLAVE"))
        result = replay(mariadb_pair, ReplayConfig(ramp=(1,), duration_s=0.5, warmup_s=0.1,
                                                   rows=5000), tmp_path)
    finally:
        with engine.connect() as conn:
            conn.execute(text("START SLAVE"))
        engine.dispose()
    assert result["complete"] is False
    assert "is not replicating: Slave_IO_Running=No, Slave_SQL_Running=No" in result["error"]


@pytest.fixture
def extra_replica(mariadb_pair: MariaDbPair) -> Iterator[str]:
    """A throwaway second replica (port 33063) that a test may kill."""
    started = subprocess.run([str(mariadb_pair.script), "up-extra"], capture_output=True,
                             text=True, check=False, timeout=180)
    require("extra replica", started.returncode == 0,
            f"scripts/mariadb-pair up-extra failed: {started.stderr.strip()}")
    url = make_url(mariadb_pair.replica_url).set(port=EXTRA_PORT)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        subprocess.run([str(mariadb_pair.script), "down-extra"], capture_output=True,
                       check=False, timeout=120)


@pytest.mark.slow
def test_killed_replica_fails_the_step_and_keeps_the_finished_ones(
    mariadb_pair: MariaDbPair, extra_replica: str, tmp_path: Path
) -> None:
    """SIGKILL the replica mid-run: finished steps printed, the failure named, exit 1."""
    out = tmp_path / "result.json"
    # Steps take 4.2 s; start-up and prepare well under 2 s: the kill lands in step 2 (or 3).
    killer = threading.Timer(6.5, lambda: subprocess.run(
        [str(mariadb_pair.script), "kill-extra"], capture_output=True, check=False, timeout=60))
    killer.start()
    try:
        result = run_cli("replay", "--master", mariadb_pair.master_url, "--replica",
                         extra_replica, "--ramp", "1,2,4,8", "--duration", "4", "--warmup",
                         "0.2", "--rows", "5000", "--out", str(out))
    finally:
        killer.cancel()
        killer.join()
    saved = json.loads(out.read_text())
    finished = [lv for lv in saved["levels"] if not lv["failed"]]
    failed = [lv for lv in saved["levels"] if lv["failed"]]
    assert result.exit_code == 1, result.stdout + result.stderr
    assert saved["complete"] is False
    assert len(finished) >= 1
    assert len(failed) == 1
    assert saved["levels"][-1]["failed"] is True
    assert f"127.0.0.1:{EXTRA_PORT}" in failed[0]["error"]
    assert result.stderr.splitlines()[-1].startswith(f"error: step {len(saved['levels'])} (")
    assert " ok " in result.stdout
    assert "failed" in result.stdout
    assert password(mariadb_pair.master_url) not in result.stdout + result.stderr
