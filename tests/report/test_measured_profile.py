"""A measured `--io-profile` reaches the report: the result records the profile it used (its
server, source and figures, never the file's path), the size report's curves are computed with
it, and the reproduce command says `--io-profile PROFILE.json`, which re-runs to the same result
once the profile's file is given."""

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from advisor.catalog.model import Catalog
from tests.cli_helpers import run
from workloads.io_profile import derive_io_profile
from workloads.real.io_profile_file import save_io_profile

# MariaDB 10.11 counters of one replay step (as tests/workloads/test_io_profile.py): far more
# page reads per transaction than the model's, so curves with and without it differ.
INFO = {"version": "10.11.19-MariaDB-0+deb12u1-log", "sync_binlog": "1"}
MASTER = {"Innodb_buffer_pool_reads": 2000, "Innodb_buffer_pool_read_requests": 50_000,
          "Innodb_pages_written": 5000, "Innodb_os_log_written": 1_600_000,
          "Binlog_bytes_written": 1_500_000, "Binlog_group_commits": 900}
REPLICA = {"Innodb_buffer_pool_reads": 3000, "Innodb_buffer_pool_read_requests": 9_000}


@pytest.fixture
def profile_path(tmp_path: Path) -> Path:
    level = {"threads": 4, "offered_tps": None, "achieved_tps": 500.0, "reads": 3000,
             "writes": 990, "heartbeat_writes": 10,
             "status_delta": {"master": MASTER, "replica": REPLICA}}
    profile = derive_io_profile(level, INFO, replicas=1)
    assert profile is not None
    path = tmp_path / "somewhere" / "deep" / "io.json"
    path.parent.mkdir(parents=True)
    save_io_profile(profile, path)
    return path


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def _rerun(capsys: pytest.CaptureFixture[str], command: str, path: Path) -> dict[str, Any]:
    argv = shlex.split(command)
    assert argv[0] == "advisor"
    argv[argv.index("--io-profile") + 1] = str(path)
    return _json(capsys, *argv[1:])


@pytest.mark.slow  # ~30 s on a busy 2-core host: a sizing, its curves twice, the re-run
def test_a_size_result_records_the_profile_and_its_report_uses_it(
        capsys: pytest.CaptureFixture[str], profile_path: Path, catalog: Catalog) -> None:
    from advisor.report.size_view import size_context
    from recommend.curves import size_curves
    from recommend.result import load_size_result

    data = _json(capsys, "size", "--tps", "100", "--reads", "3.25", "--sync-binlog", "0",
                 "--io-profile", str(profile_path))
    measured = data["measured_io"]
    assert measured["server"].startswith("MariaDB 10.11.19")
    assert measured["source"] == "replay"
    assert measured["write_page_writes"] == pytest.approx(5.0, rel=0.01)  # 5,000 pages, ~1,000
    assert str(profile_path.parent) not in json.dumps(data)  # no machine path in the result

    typed = load_size_result(data)
    assert typed.measured_io is not None  # type: ignore[union-attr]
    curves = size_curves(typed, catalog)
    ctx = size_context(typed, curves)
    assert "--io-profile PROFILE.json" in ctx["command"]
    assert "--sync-binlog 0" in ctx["command"]
    assert ctx["command_note"].startswith("PROFILE.json: the measured I/O profile this run used "
                                          "(measured: MariaDB 10.11.19")
    # the curves are of what was sized: with the measured profile, not the model's I/O
    import dataclasses

    model = size_curves(dataclasses.replace(typed, measured_io=None), catalog)  # type: ignore
    assert curves.curves[0].y != model.curves[0].y

    again = _rerun(capsys, ctx["command"], profile_path)
    for key in ("recommendation", "alternatives", "io_profile", "measured_io", "request"):
        assert again[key] == data[key], key


def test_a_mysql_simulation_records_the_profile_and_its_command_says_so(
        capsys: pytest.CaptureFixture[str], profile_path: Path) -> None:
    from advisor.report.simulate_view import simulate_context
    from workloads.results import load_simulate_result

    argv = ("simulate", "r5.large:gp3:500GiB", "--workload", "mysql", "--tps", "200",
            "--data-gb", "4", "--duration", "2", "--engine", "des", "--seed", "3")
    data = _json(capsys, *argv, "--io-profile", str(profile_path))
    assert data["measured_io"]["source"] == "replay"
    assert data["io_profile"]["source"] == data["measured_io"]["server"].join(
        ("measured: ", " (replay)"))
    ctx = simulate_context(load_simulate_result(data))
    assert ctx["command"].endswith("--io-profile PROFILE.json")
    assert ctx["command_note"].startswith("PROFILE.json: the measured I/O profile")
    again = _rerun(capsys, ctx["command"], profile_path)
    assert again["levels"] == data["levels"]

    plain = _json(capsys, *argv)  # the model: nothing recorded, nothing in the command
    assert "measured_io" not in plain
    plain_ctx = simulate_context(load_simulate_result(plain))
    assert "--io-profile" not in plain_ctx["command"]
    assert plain_ctx["command_note"] is None


def test_a_status_dump_source_keeps_only_file_names() -> None:
    """A profile measured from status dumps names them as typed; the result keeps their names."""
    from workloads.mysql import _path_free

    assert _path_free("SHOW GLOBAL STATUS /home/me/before.txt -> ./dumps/after.txt") == \
        "SHOW GLOBAL STATUS before.txt -> after.txt"
    assert _path_free("replay (sysbench)") == "replay (sysbench)"
