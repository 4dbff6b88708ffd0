"""Replay closes the loop (issue 10, item 8), on the project's real MariaDB pair with sysbench.

`advisor replay --driver sysbench` measures what one transaction is (the master's Com_* and
Handler_read_next counters per sysbench transaction) as well as its I/O, writes both in the
profile, and `advisor size --io-profile` sizes with it and records the measured transaction.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import run
from tests.conftest import MariaDbPair
from tests.workloads.cli import run_cli
from workloads.mysql_shape import PRESETS, parse_txn
from workloads.real.io_profile_file import load_io_profile

pytestmark = [pytest.mark.mysql, pytest.mark.sysbench]


@pytest.fixture(scope="module")
def replayed(sysbench_bin: str, mariadb_pair: MariaDbPair,
             tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str, Path]:
    """One 2 s step at 2 threads on 2,000 rows, --reads 3.5 (sysbench's 10 point selects)."""
    profile = tmp_path_factory.mktemp("replay-sysbench") / "io.json"
    result = run_cli("replay", "--driver", "sysbench", "--master", mariadb_pair.master_url,
                     "--replica", mariadb_pair.replica_url, "--reads", "3.5", "--ramp", "2",
                     "--duration", "2", "--warmup", "0", "--rows", "2000",
                     "--io-profile-out", str(profile), "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result.stderr, profile


def test_replay_measures_sysbench_oltp_read_write_shape(
        replayed: tuple[dict[str, Any], str, Path]) -> None:
    """Per transaction: 14 selects, 400 range rows, 2 updates, a delete, an insert, a commit
    (deadlock retries add a little): the sysbench-oltp-rw preset's transaction."""
    replay, _, path = replayed
    (level,) = replay["levels"]
    shape = replay["shape"]
    assert shape["transactions"] == level["transactions"] > 100
    per = shape["per_txn"]
    retried = 1 + level["errors"] / level["transactions"]  # a retried transaction runs twice
    assert 14 <= per["selects"] <= 14 * retried + 0.01
    assert 400 <= per["range_rows_stepped"] <= 400 * retried + 0.01
    assert (per["update"], per["delete"], per["insert"]) == pytest.approx((2, 1, 1), rel=0.02)
    assert per["commit"] == pytest.approx(1, rel=0.01)
    assert parse_txn(shape["write_txn"]) == PRESETS["sysbench-oltp-rw"].write_txn
    assert shape["read_txn"] is None
    assert (shape["nearest_preset"], shape["distance"]) == ("sysbench-oltp-rw", 0.0)
    loaded = load_io_profile(path)
    assert loaded.shape is not None
    assert loaded.shape.write_txn == shape["write_txn"]
    assert loaded.measured_at["transactions"] == level["transactions"]


def test_profile_is_per_transaction_not_per_statement(
        replayed: tuple[dict[str, Any], str, Path]) -> None:
    """With innodb_flush_log_at_trx_commit=1 and sync_binlog=1 every commit writes the redo
    and the binlog: about one fsync of each per transaction (group commit can only lower it),
    and redo bytes of four row changes, not one."""
    replay, _, path = replayed
    write = load_io_profile(path).per_write_txn
    assert 0.5 <= write.redo_fsyncs <= 1.1
    assert 0.5 <= write.binlog_fsyncs <= 1.1
    # ROW binlog of an update (before+after image of a 190-byte row), a delete and an insert
    assert write.binlog_bytes > 4 * 190
    assert replay["io_profile"]["measured_at"]["writes"] == replay["levels"][0]["transactions"]


def test_size_with_the_measured_profile_records_it(
        replayed: tuple[dict[str, Any], str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """size --io-profile succeeds with the measured file, names the measured profile and the
    measured transaction, and says the preset it sized is that transaction."""
    _, _, path = replayed
    code, out, err = run(capsys, "size", "--tps", "300", "--preset", "sysbench-oltp-rw",
                         "--io-profile", str(path), "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    assert result["io_profile"].startswith("measured: MariaDB")
    assert "sysbench oltp_read_write" in result["measured_shape"]
    assert "point=10,range=4x100,index-update=1,update=1,delete=1,insert=1" in (
        result["measured_shape"])
    assert result["measured_shape"].endswith("the sizing shape (sysbench-oltp-rw) is the "
                                             "measured one")


def test_replay_prints_the_measured_transaction(
        sysbench_bin: str, mariadb_pair: MariaDbPair) -> None:
    """The table output states what one measured transaction was."""
    result = run_cli("replay", "--driver", "sysbench", "--master", mariadb_pair.master_url,
                     "--reads", "3.5", "--ramp", "1", "--duration", "1", "--warmup", "0",
                     "--rows", "2000")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert ("measured transaction: sysbench oltp_read_write, " in text)
    assert "every transaction read-write: 10 point selects + 4 range selects x 100 rows" in text
    assert "nearest preset sysbench-oltp-rw (the same)" in text
