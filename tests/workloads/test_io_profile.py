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


# -- the measured transaction shape (replay --driver sysbench) -------------------------------

# MariaDB 10.11 counters over 1,120 sysbench 1.0.20 oltp_read_write transactions (2 threads,
# 2,000 rows, one deadlock retried), read off the project's pair with SHOW GLOBAL STATUS.
SYSBENCH_DELTA = {"Com_select": 15694, "Com_update": 2242, "Com_delete": 1121,
                  "Com_insert": 1120, "Com_commit": 1120, "Com_rollback": 0,
                  "Handler_read_key": 19065, "Handler_read_next": 448400,
                  "Innodb_buffer_pool_reads": 560, "Innodb_buffer_pool_read_requests": 70_000,
                  "Innodb_os_log_written": 1_344_000, "Innodb_log_writes": 1120,
                  "Binlog_bytes_written": 2_400_000, "Binlog_group_commits": 1120}


def sysbench_shape(**changes: Any) -> dict[str, Any]:
    from workloads.io_profile import measure_rw_shape

    shape = measure_rw_shape({**SYSBENCH_DELTA, **changes}, transactions=1120,
                             driver="sysbench oltp_read_write", range_rows=100,
                             index_update_share=0.5, read_statements=15694)
    assert shape is not None
    return shape


def test_sysbench_counters_give_the_oltp_read_write_shape() -> None:
    """14 selects of which 400 range rows = 4 ranges of 100, 2 updates, a delete, an insert,
    one commit per transaction: sysbench's own transaction, the sysbench-oltp-rw preset."""
    from workloads.mysql_shape import PRESETS, parse_txn

    shape = sysbench_shape()
    assert shape["write_txn"] == "point=10,range=4x100,index-update=1,update=1,delete=1,insert=1"
    assert shape["read_txn"] is None
    assert parse_txn(shape["write_txn"]) == PRESETS["sysbench-oltp-rw"].write_txn
    assert (shape["nearest_preset"], shape["distance"]) == ("sysbench-oltp-rw", 0.0)
    assert shape["per_txn"]["selects"] == pytest.approx(14.0125)


def test_other_counts_give_another_shape_and_preset() -> None:
    """9 point selects (replay --reads 3.25) differ from the preset by one statement; no
    selects and one commit per write is sysbench oltp_write_only's nearest."""
    shape = sysbench_shape(Com_select=13 * 1120)
    assert shape["write_txn"].startswith("point=9,range=4x100,")
    assert shape["nearest_preset"] == "sysbench-oltp-rw"
    assert 0 < shape["distance"] < 0.05
    writes_only = sysbench_shape(Com_select=0, Handler_read_next=0)
    assert writes_only["write_txn"] == "index-update=1,update=1,delete=1,insert=1"
    assert writes_only["nearest_preset"] == "sysbench-oltp-wo"
    assert writes_only["distance"] == 0.0


def test_no_shape_without_counters() -> None:
    from workloads.io_profile import measure_rw_shape

    assert measure_rw_shape({}, transactions=10, driver="x", range_rows=100,
                            index_update_share=0.5) is None
    assert measure_rw_shape(SYSBENCH_DELTA, transactions=0, driver="x", range_rows=100,
                            index_update_share=0.5) is None


def sysbench_level() -> dict[str, Any]:
    return {"threads": 2, "offered_tps": None, "achieved_tps": 558.0, "transactions": 1120,
            "reads": 15694, "writes": 4483, "status_delta": {"master": SYSBENCH_DELTA,
                                                             "replica": {}}}


def test_txn_profile_is_per_sysbench_transaction(tmp_path: Path) -> None:
    """One class: the whole transaction's counters per transaction (not per statement); the
    read-only estimate is the reads' share; the shape is saved and loads back typed."""
    from workloads.io_profile import derive_txn_profile

    profile = derive_txn_profile(sysbench_level(), INFO, shape=sysbench_shape())
    assert profile is not None
    assert profile["per_write_txn"]["redo_bytes"] == 1200.0
    assert profile["per_write_txn"]["binlog_fsyncs"] == 1.0
    assert profile["per_write_txn"]["page_reads"] == 0.5
    share = 15694 / (15694 + 4483)
    assert profile["per_read_txn"]["page_reads"] == pytest.approx(0.5 * share, abs=1e-4)
    assert profile["buffer_pool_miss_ratio"] == pytest.approx(0.008)
    assert profile["measured_at"]["transactions"] == 1120
    path = tmp_path / "io.json"
    save_io_profile(profile, path)
    loaded = load_io_profile(path)
    assert loaded.shape is not None
    assert loaded.shape.nearest_preset == "sysbench-oltp-rw"
    assert "every transaction read-write: 10 point selects + 4 range selects x 100 rows" in (
        loaded.shape.text())


def test_a_profile_without_shape_still_loads(tmp_path: Path) -> None:
    """Files written before the shape was measured load, with no shape."""
    profile = derive_io_profile(level({"Innodb_os_log_written": 1000}, {}), INFO, replicas=1)
    assert profile is not None
    assert "shape" not in profile
    path = tmp_path / "old.json"
    save_io_profile(profile, path)
    assert load_io_profile(path).shape is None


@pytest.mark.parametrize(("change", "field"), [
    ({"write_txn": "point=x"}, "shape.write_txn"),
    ({"nearest_preset": "oltp-rw"}, "shape.nearest_preset"),
    ({"transactions": 0}, "shape.transactions"),
])
def test_bad_shape_names_the_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    from workloads.io_profile import derive_txn_profile

    profile = derive_txn_profile(sysbench_level(), INFO, shape=sysbench_shape())
    assert profile is not None
    profile["shape"].update(change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(profile))
    with pytest.raises(InvalidInput, match=rf"^io profile {path}: field {field}: "):
        load_io_profile(path)


def test_size_states_the_measured_shape_and_whether_it_is_sized(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The size result records the measured transaction; with another sizing shape it says the
    measured I/O is borrowed and which preset sizes the measured one."""
    from tests.cli_helpers import run
    from workloads.io_profile import derive_txn_profile

    profile = derive_txn_profile(sysbench_level(), INFO, shape=sysbench_shape())
    assert profile is not None
    path = tmp_path / "io.json"
    save_io_profile(profile, path)
    code, out, err = run(capsys, "size", "--tps", "300", "--preset", "sysbench-oltp-rw",
                         "--io-profile", str(path), "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    assert result["io_profile"].startswith("measured: MariaDB 10.11.19")
    assert result["measured_shape"].startswith("sysbench oltp_read_write, 1,120 transactions")
    assert result["measured_shape"].endswith("the sizing shape (sysbench-oltp-rw) is the "
                                             "measured one")
    code, out, err = run(capsys, "size", "--tps", "300", "--io-profile", str(path))
    assert code == 0, err
    text = " ".join(out.split())
    assert "measured transaction: sysbench oltp_read_write" in text
    assert "the sizing shape (point-rw) is not the measured one" in text
    assert "(size with --preset sysbench-oltp-rw to match)" in text


def test_size_without_a_profile_has_no_measured_shape(
        capsys: pytest.CaptureFixture[str]) -> None:
    from tests.cli_helpers import run

    code, out, err = run(capsys, "size", "--tps", "300", "--format", "json")
    assert code == 0, err
    assert "measured_shape" not in json.loads(out)
