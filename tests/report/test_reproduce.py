"""A report's "Reproduce" command, run as printed, gives back the same result: every option the
run used is in it, because the command is generated from the same declarations as the CLI."""

import dataclasses
import json
import re
import shlex
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.report.commands import size_command
from advisor.serial import to_json
from recommend.request import WORKLOAD, AerospikeSizeRequest, MysqlSizeRequest, size_fields

VOLATILE = ("seconds", "advisor_version")


def _run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _reproduce_line(html: str, command: str) -> list[str]:
    """The argv of the `advisor COMMAND ...` line the report prints."""
    found = re.search(rf"advisor {command} [^<]+", html)
    assert found is not None, f"no reproduce command in the {command} report"
    argv = shlex.split(unescape(found.group(0)))
    assert argv[:2] == ["advisor", command]
    return argv[1:]


def _same(a: Any, b: Any) -> None:
    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in VOLATILE}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    assert strip(a) == strip(b)


def test_simulate_mysql_with_non_default_options_reproduces(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`simulate --workload mysql` with sync_binlog, rows, row size, secondary indexes,
    replica workers and a buffer pool off their defaults: the report's command re-runs to the
    same result JSON."""
    argv = ["simulate", "r5.large:gp3:500GiB", "--workload", "mysql", "--tps", "400",
            "--reads", "2", "--data-gb", "40", "--buffer-pool-gib", "8", "--sync-binlog", "0",
            "--flush-log-at-trx-commit", "2", "--write-txn", "update=5,insert=1",
            "--read-txn", "point=3,range=1x50", "--row-bytes", "300", "--secondary-indexes", "2",
            "--replica-workers", "4", "--server", "mariadb-10.11", "--skew", "zipf:0.9",
            "--io-capacity", "400", "--semi-sync",
            "--p99-ms", "20", "--replica-layout", "r5.large:gp3:200GiB",
            "--ramp", "tps=200,400", "--duration", "5", "--engine", "analytic", "--seed", "9"]
    report = tmp_path / "sim.html"
    first = _run_json(capsys, [*argv, "--report", str(report)])
    again = _reproduce_line(report.read_text("utf-8"), "simulate")
    for flag in ("--sync-binlog", "--write-txn", "--row-bytes", "--read-txn", "--server",
                 "--skew", "--io-capacity", "--semi-sync",
                 "--secondary-indexes", "--replica-workers", "--buffer-pool-gib",
                 "--flush-log-at-trx-commit", "--replica-layout", "--seed"):
        assert flag in again, flag
    _same(_run_json(capsys, again), first)


@pytest.mark.slow  # over 5 s on a 2-core host (durations of 2026-11-29)
def test_size_with_non_default_options_reproduces(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    """`size` with the data size, SLO, replicas, headroom and peak hours changed: the report's
    command re-runs to the same sizing."""
    argv = ["size", "--tps", "300", "--reads", "5", "--data-gb", "50", "--p99-ms", "15",
            "--replicas", "2", "--headroom", "0.5", "--peak-hours", "12", "--seed", "3"]
    report = tmp_path / "size.html"
    first = _run_json(capsys, [*argv, "--report", str(report)])
    again = _reproduce_line(report.read_text("utf-8"), "size")
    _same(_run_json(capsys, again), first)


def test_every_size_option_reaches_the_reproduce_command() -> None:
    """Each declared `size` option, set off its default, appears in the generated command."""
    changed = MysqlSizeRequest(tps=10, reads=1, p99_ms=7, replicas=None, data_gb=5, headroom=1,
                               peak_hours=3, off_peak=0.5, allow_ephemeral=True,
                               max_monthly_usd=99, region="us-east-1", seed=4,
                               pricing="3yr-reserved", preset="tpcc-like", read_txn="point=2",
                               write_txn="update=3",
                               row_bytes=100, secondary_indexes=3, skew="special",
                               server="mysql-8.4", buffer_pool_gib=3, redo_log_mib=512,
                               flush_log_at_trx_commit=2, sync_binlog=0, io_capacity=1000,
                               io_capacity_max=4000, replica_workers=8, replica_dependency=0.5,
                               log_replica_updates="off", semi_sync=True, network_rtt_ms=1)
    command = size_command(changed)
    mysql_fields = {f.name for f in dataclasses.fields(MysqlSizeRequest)} & set(size_fields())
    assert {"tps", "preset", "replica_workers", "peak_hours"} <= mysql_fields
    for name in mysql_fields:
        assert size_fields()[name].flag in command, name
    assert WORKLOAD.flag not in command  # mysql is the default workload
    assert to_json(changed)["replicas"] is None


def test_every_aerospike_option_reaches_the_reproduce_command() -> None:
    """The same for an Aerospike sizing: every option of its own, set off its default."""
    changed = AerospikeSizeRequest(reads_per_sec=1000, writes_per_sec=500, record_bytes=4096,
                                   replication_factor=3, storage="ebs", data_in_memory=True,
                                   allow_n_equals_rf=True, racks=3, ops_per_vcpu=5000,
                                   migration_hours=2, data_gb=500,
                                   headroom=1, peak_hours=3, off_peak=0.5, allow_ephemeral=True,
                                   max_monthly_usd=99, region="us-east-1", seed=4,
                                   pricing="3yr-reserved")
    command = size_command(changed)
    fields = {f.name for f in dataclasses.fields(AerospikeSizeRequest)} & set(size_fields())
    assert {"record_bytes", "storage", "racks", "migration_hours"} <= fields
    for name in fields:
        assert size_fields()[name].flag in command, name
    assert f"{WORKLOAD.flag} aerospike" in command
