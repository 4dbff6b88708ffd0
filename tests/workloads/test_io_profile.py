"""The per-transaction I/O profile: derived from status deltas, saved, loaded and validated."""

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.errors import InvalidInput
from workloads.io_profile import SCHEMA, derive_io_profile
from workloads.real.io_profile_file import load_io_profile, save_io_profile

INFO = {"version": "10.11.19-MariaDB-0+deb12u1-log", "sync_binlog": "1"}


def level(master: dict[str, int], replica: dict[str, int]) -> dict[str, Any]:
    return {"threads": 4, "offered_tps": None, "achieved_tps": 500.0, "reads": 3000,
            "writes": 990, "heartbeat_writes": 10,
            "status_delta": {"master": master, "replica": replica}}


def test_write_costs_come_from_the_master_read_costs_from_the_replica() -> None:
    """Counters divided by transactions; the replica's cost of applying writes is taken off."""
    master = {"Innodb_buffer_pool_reads": 100, "Innodb_buffer_pool_read_requests": 5000,
              "Innodb_pages_written": 250, "Innodb_os_log_written": 600_000,
              "Innodb_log_writes": 800, "Binlog_bytes_written": 550_000,
              "Binlog_group_commits": 700, "Innodb_dblwr_pages_written": 120,
              "Innodb_data_fsyncs": 900}
    replica = {"Innodb_buffer_pool_reads": 400, "Innodb_buffer_pool_read_requests": 20_000}
    profile = derive_io_profile(level(master, replica), INFO, replicas=1)
    assert profile is not None
    assert profile["schema"] == SCHEMA
    assert profile["server"].startswith("MariaDB 10.11.19")
    assert profile["per_write_txn"] == {  # 1000 write transactions: 990 + 10 heartbeats
        "page_reads": 0.1, "page_writes": 0.25, "redo_bytes": 600.0, "redo_fsyncs": 0.8,
        "binlog_bytes": 550.0, "binlog_fsyncs": 0.7, "doublewrite_pages": 0.12,
        "data_fsyncs": 0.9,
    }
    assert profile["per_read_txn"] == {"page_reads": 0.1, "logical_reads": 5.0}
    assert profile["buffer_pool_miss_ratio"] == pytest.approx(0.02)
    assert profile["measured_at"]["threads"] == 4


def test_no_binlog_fsync_when_sync_binlog_is_zero() -> None:
    """sync_binlog=0 leaves flushing to the OS: no binlog fsync per transaction."""
    profile = derive_io_profile(level({"Binlog_group_commits": 700}, {}),
                                {**INFO, "sync_binlog": "0"}, replicas=1)
    assert profile is not None
    assert profile["per_write_txn"]["binlog_fsyncs"] == 0.0


def test_no_profile_without_server_counters() -> None:
    """SQLite and the in-memory database have no counters: no profile."""
    assert derive_io_profile(level({}, {}), {"version": "SQLite 3"}, replicas=0) is None


def test_saved_profile_loads_back(tmp_path: Path) -> None:
    """save then load gives the same numbers as typed value objects."""
    profile = derive_io_profile(level({"Innodb_os_log_written": 1000}, {}), INFO, replicas=1)
    assert profile is not None
    path = tmp_path / "io.json"
    save_io_profile(profile, path)
    loaded = load_io_profile(path)
    assert loaded.per_write_txn.redo_bytes == 1.0
    assert loaded.per_read_txn.logical_reads == 0.0
    assert loaded.source == "replay"


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _valid() -> dict[str, Any]:
    profile = derive_io_profile(level({"Innodb_os_log_written": 1000}, {}), INFO, replicas=1)
    assert profile is not None
    return profile


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda p: p["per_write_txn"].pop("redo_bytes"),
         "field per_write_txn.redo_bytes: Field required"),
        (lambda p: p["per_read_txn"].update(page_reads=-1),
         "field per_read_txn.page_reads: Input should be greater than or equal to 0"),
        (lambda p: p.update(schema="other/1"),
         "field schema: must be 'advisor.io_profile/1'"),
        (lambda p: p.update(buffer_pool_miss_ratio=2),
         "field buffer_pool_miss_ratio: Input should be less than or equal to 1"),
    ],
)
def test_bad_profile_names_the_file_and_the_field(
    tmp_path: Path, mutate: Any, message: str
) -> None:
    """Each defect is one line: the file, the field, what is wrong."""
    profile = _valid()
    mutate(profile)
    path = _write(tmp_path, profile)
    with pytest.raises(InvalidInput, match=rf"^io profile {path}: {message}"):
        load_io_profile(path)


def test_not_json_and_missing_file(tmp_path: Path) -> None:
    """A file that is not JSON, or not there, is named with the reason."""
    path = _write(tmp_path, "{not json")
    with pytest.raises(InvalidInput, match=r"bad\.json: io profile is not JSON \(.* at line 1\)$"):
        load_io_profile(path)
    with pytest.raises(InvalidInput, match=r"nothing\.json: io profile not found$"):
        load_io_profile(tmp_path / "nothing.json")


def test_size_with_a_measured_profile_says_so(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`size --io-profile` sizes from the measured profile and the result records which one."""
    from tests.cli_helpers import run

    master = {"Innodb_buffer_pool_reads": 2000, "Innodb_buffer_pool_read_requests": 50_000,
              "Innodb_pages_written": 5000, "Innodb_os_log_written": 1_600_000,
              "Binlog_bytes_written": 1_500_000, "Binlog_group_commits": 900}
    replica = {"Innodb_buffer_pool_reads": 3000, "Innodb_buffer_pool_read_requests": 9_000}
    profile = derive_io_profile(level(master, replica), INFO, replicas=1)
    assert profile is not None
    path = tmp_path / "io.json"
    save_io_profile(profile, path)
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--io-profile",
                         str(path), "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    assert result["io_profile"].startswith("measured: MariaDB 10.11.19")
    assert all(m["access"] == result["io_profile"] for m in result["io_model"])
