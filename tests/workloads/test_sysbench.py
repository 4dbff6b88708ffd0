"""sysbench 1.0.20: output parsing (captured real outputs), command lines, real runs."""

import json
import math
from pathlib import Path

import pytest

from advisor.errors import InvalidInput
from tests.conftest import MariaDbPair
from tests.workloads.cli import run_cli
from workloads.real.sysbench import (
    MISSING_MESSAGE,
    Sysbench,
    SysbenchMissing,
    fileio_args,
    oltp_connection,
    point_selects_for,
)
from workloads.real.sysbench_parse import (
    fatal_message,
    histogram_percentiles,
    parse_fileio,
    parse_histogram,
    parse_oltp,
)

FIXTURES = Path(__file__).parent / "fixtures"
FILEIO_RUNS = sorted(p.name for p in FIXTURES.glob("sysbench_fileio_*_t*.txt"))


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_every_fileio_summary_field_is_parsed() -> None:
    """A QD1 direct random-read run: options, operations, throughput, latency, fairness."""
    parsed = parse_fileio(fixture("sysbench_fileio_rndrd_t1.txt"))
    del parsed["histogram"], parsed["histogram_ms"]
    assert parsed == {
        "version": "1.0.20", "threads": 1, "mode": "rndrd", "open_flags": "directio",
        "direct": True, "block_bytes": 16384, "total_size_bytes": 64 * 2**20, "files": 128,
        "fsync_every_requests": 100,
        "reads_per_s": 12214.75, "writes_per_s": 0.0, "fsyncs_per_s": 0.0,
        "read_mibps": 190.86, "written_mibps": 0.0,
        "total_time_s": 2.0014, "total_events": 24457,
        "latency_ms": {"min": 0.06, "avg": 0.08, "max": 4.7, "sum": 1986.71,
                       "percentile": 99.0, "p99": 0.13},
        "fairness": {"events_avg": 24457.0, "events_stddev": 0.0,
                     "execution_time_avg_s": 1.9867, "execution_time_stddev_s": 0.0},
    }


def test_write_run_with_periodic_fsync_counts_fsyncs() -> None:
    """The default --file-fsync-freq=100: fsyncs/s is reported beside writes/s."""
    parsed = parse_fileio(fixture("sysbench_fileio_rndwr_t4_fsync100.txt"))
    assert (parsed["mode"], parsed["threads"]) == ("rndwr", 4)
    assert parsed["writes_per_s"] == 14619.40
    assert parsed["fsyncs_per_s"] == 18919.75
    assert parsed["written_mibps"] == 228.43
    assert parsed["fairness"]["events_stddev"] == 21.45


def test_run_without_direct_io_says_so() -> None:
    """`Extra file open flags: (none)` means buffered I/O (the page cache may answer)."""
    parsed = parse_fileio(fixture("sysbench_fileio_seqrd_t4_nodirect.txt"))
    assert (parsed["mode"], parsed["direct"], parsed["open_flags"]) == ("seqrd", False, "(none)")


@pytest.mark.parametrize("name", FILEIO_RUNS)
def test_histogram_percentile_agrees_with_sysbench_own_line(name: str) -> None:
    """Our p99 from the --histogram block rounds to sysbench's own `99th percentile` line."""
    text = fixture(name)
    buckets = parse_histogram(text)
    assert sum(count for _, count in buckets) == parse_fileio(text)["total_events"]
    ours = histogram_percentiles(buckets, (99.0,))["p99"]
    assert ours is not None
    # sysbench prints the bucket value with 3 decimals there, with 2 on its own line.
    assert ours == pytest.approx(parse_fileio(text)["latency_ms"]["p99"], abs=0.0051)


def test_histogram_percentiles_are_monotone() -> None:
    """p50 <= p90 <= p95 <= p99 <= p99.9 <= p99.99, all inside min..max."""
    parsed = parse_fileio(fixture("sysbench_fileio_rndwr_t4_nofsync.txt"))
    values = [parsed["histogram_ms"][k] for k in ("p50", "p90", "p95", "p99", "p999", "p9999")]
    assert values == sorted(values)
    assert parsed["latency_ms"]["min"] <= values[0]
    assert values[-1] <= parsed["latency_ms"]["max"] + 0.01


def test_oltp_summary_is_parsed() -> None:
    """oltp_read_write --point-selects=9: 13 reads per 4 writes (3.25), tps, errors, latency."""
    parsed = parse_oltp(fixture("sysbench_oltp_read_write_t2.txt"))
    assert parsed["queries"] == {"read": 14196, "write": 4365, "other": 2183, "total": 20744}
    assert (parsed["transactions"], parsed["tps"]) == (1091, 543.97)
    assert (parsed["queries_total"], parsed["qps"]) == (20744, 10342.86)
    assert (parsed["ignored_errors"], parsed["reconnects"]) == (1, 0)
    assert parsed["latency_ms"]["p99"] == 6.67
    assert parsed["histogram_ms"]["p99"] == pytest.approx(6.669)
    assert parsed["queries"]["read"] / parsed["queries"]["write"] == pytest.approx(3.25, rel=0.01)


def test_fatal_lines_become_one_message() -> None:
    """sysbench's FATAL lines, without the Lua call-stack noise."""
    assert fatal_message(fixture("sysbench_fileio_prepare_readonly.txt")) == (
        "Can't open file errno = 2 (No such file or directory)"
    )
    text = ("FATAL: unable to connect to MySQL server on host '127.0.0.1', port 1, aborting...\n"
            "FATAL: error 2003: Can't connect to MySQL server\n"
            "FATAL: `sysbench.cmdline.call_command' function failed: oltp_common.lua:83\n")
    assert fatal_message(text) == (
        "unable to connect to MySQL server on host '127.0.0.1', port 1, aborting...; "
        "error 2003: Can't connect to MySQL server"
    )


def test_fileio_command_line() -> None:
    """Direct I/O when allowed; periodic fsync off so latency is the I/O's own."""
    args = fileio_args("run", size_bytes=2**26, block_bytes=16384, direct=True, mode="rndrd",
                       threads=4, time_s=2)
    assert args == [
        "fileio", "--file-total-size=67108864", "--file-block-size=16384",
        "--file-extra-flags=direct", "--file-test-mode=rndrd", "--threads=4", "--time=2",
        "--file-fsync-freq=0", "--file-fsync-end=off", "--histogram=on", "--percentile=99",
        "run",
    ]
    assert "--file-extra-flags=direct" not in fileio_args(
        "prepare", size_bytes=2**26, block_bytes=16384, direct=False)


def test_oltp_password_goes_in_the_environment_not_the_command_line() -> None:
    """`ps` must not show the password: it travels in MYSQL_PWD."""
    args, env = oltp_connection("mysql+pymysql://advisor:s3cret@127.0.0.1:33061/advisor")
    assert args == ["--mysql-host=127.0.0.1", "--mysql-port=33061", "--mysql-user=advisor",
                    "--mysql-db=advisor"]
    assert env == {"MYSQL_PWD": "s3cret"}
    assert not any("s3cret" in a for a in args)


def test_point_selects_give_the_asked_ratio() -> None:
    """4 range reads + N point reads per 4 writes: 3.25 -> 9, 1 -> 0; below 1 impossible."""
    assert [point_selects_for(r) for r in (3.25, 3.5, 1.0)] == [9, 10, 0]
    with pytest.raises(InvalidInput, match=r"--driver sysbench needs --reads >= 1"):
        point_selects_for(0.5)


def test_missing_sysbench_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No sysbench on PATH: the Debian package to install, as the error and the CLI line."""
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SysbenchMissing, match=f"^{MISSING_MESSAGE}$"):
        Sysbench.find()
    result = run_cli("calibrate", "--path", str(tmp_path), "--size", "64M")
    assert result.exit_code == 2
    assert result.stderr == f"error: {MISSING_MESSAGE}\n"


@pytest.mark.sysbench
@pytest.mark.slow
def test_real_calibration_writes_a_usable_profile(sysbench_bin: str, tmp_path: Path) -> None:
    """64 MiB, 2 s runs at 1 and 4 threads on this machine: a complete, consistent profile."""
    work, out = tmp_path / "disk", tmp_path / "profile.json"
    work.mkdir()
    result = run_cli("calibrate", "--path", str(work), "--size", "64M", "--time", "2",
                     "--threads", "1,4", "--name", "test-disk", "--out", str(out),
                     "--format", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert json.loads(result.stdout) == document
    assert list(work.iterdir()) == []  # test files removed
    calibration = document["calibration"]
    assert calibration["complete"] is True
    assert calibration["tool"].startswith("sysbench 1.")
    assert [(r["mode"], r["threads"]) for r in calibration["runs"]] == [
        (mode, threads) for mode in ("rndrd", "rndwr", "seqrd", "seqwr") for threads in (1, 4)
    ]
    (device,) = document["local_devices"]
    (profile,) = document["latency_profiles"]
    assert device["name"] == "test-disk"
    assert device["latency_profile"] == profile["name"] == "local-test-disk"
    assert device["block_kib"] == 16
    rndrd = [r for r in calibration["runs"] if r["mode"] == "rndrd"]
    assert device["read_iops"] == pytest.approx(max(r["read_iops"] for r in rndrd), abs=0.1)
    assert device["read_iops"] > 0
    assert device["write_iops"] > 0
    assert device["seq_read_mibps"] > 0
    assert device["seq_write_mibps"] > 0
    assert device["sources"]["read_iops"].startswith("measured: sysbench 1.")
    qd1 = rndrd[0]["latency_ms"]
    # net of the 16 KiB transfer time (at most half the median), spread from p50 and p90
    net = min(16 / 1024 / profile["transfer_mibps"] * 1000, 0.5 * qd1["p50"])
    assert profile["read"]["median_ms"] == pytest.approx(qd1["p50"] - net, abs=1e-4)
    assert profile["read"]["median_ms"] > 0
    p50, p90 = qd1["p50"] - net, qd1["p90"] - net
    assert profile["read"]["sigma"] == pytest.approx(
        min(max(math.log(p90 / p50) / 1.2816 if p90 > p50 else 0.01, 0.01), 1.5), abs=1e-3)
    assert profile["flush_ms"] > 0


@pytest.mark.mysql
@pytest.mark.sysbench
def test_sysbench_driver_replays_against_the_master(
    sysbench_bin: str, mariadb_pair: MariaDbPair
) -> None:
    """--driver sysbench: oltp_read_write at 3.25 reads per write, in the replay schema."""
    result = run_cli("replay", "--driver", "sysbench", "--master", mariadb_pair.master_url,
                     "--replica", mariadb_pair.replica_url, "--ramp", "1,2", "--duration", "1",
                     "--warmup", "0", "--rows", "2000", "--format", "json")
    assert result.exit_code == 0, result.stderr
    replay = json.loads(result.stdout)
    assert replay["target"]["driver"] == "sysbench"
    assert replay["complete"] is True
    assert [lv["threads"] for lv in replay["levels"]] == [1, 2]
    for level in replay["levels"]:
        assert level["achieved_tps"] > 0
        assert level["reads"] / level["writes"] == pytest.approx(3.25, rel=0.02)
        assert level["latency_ms"]["transaction"]["p99"] > 0
        assert level["status_delta"]["master"]["Com_select"] >= level["reads"]
    assert replay["io_profile"]["per_write_txn"]["redo_bytes"] > 0
    assert "advisor-test" not in result.stdout + result.stderr
