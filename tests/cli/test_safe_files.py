"""The command line refuses to write through a FIFO, symlink or device node and to read one, and
shows database URLs masked: one `error:` line and exit 2 each time, the path left as it was."""

import json
import os
import stat
import time
from pathlib import Path

import pytest

from tests.cli_helpers import run
from tests.workloads.cli import run_cli


@pytest.fixture
def result(tmp_path: Path) -> str:
    """A small result file (rendered as a plain summary: no charts to draw)."""
    path = tmp_path / "calibrate.json"
    path.write_text(json.dumps({"kind": "calibrate", "name": "nvme0", "runs": []}), "utf-8")
    return str(path)


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    return lines[0]


def test_report_to_a_fifo_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     result: str) -> None:
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    code, _out, err = run(capsys, "report", result, "-o", str(fifo))
    assert code == 2
    assert one_error_line(err).endswith("report.html: is a FIFO (named pipe); the report is "
                                        "written only to a regular file or a new path")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_report_through_a_symlink_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             result: str) -> None:
    (tmp_path / "victim").write_text("keep", "utf-8")
    (tmp_path / "report.html").symlink_to(tmp_path / "victim")
    code, _out, err = run(capsys, "report", result, "-o", str(tmp_path / "report.html"))
    assert code == 2
    assert "report.html: is a symlink" in one_error_line(err)
    assert (tmp_path / "victim").read_text("utf-8") == "keep"
    assert (tmp_path / "report.html").is_symlink()


def test_report_to_a_new_path_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         result: str) -> None:
    code, _out, err = run(capsys, "report", result, "-o", str(tmp_path / "r.html"))
    assert code == 0, err
    assert (tmp_path / "r.html").read_text("utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calibrate.json", "r.html"]


@pytest.mark.parametrize(("path", "what"), [("/dev/zero", "a character device"),
                                             ("fifo", "a FIFO (named pipe)")])
def test_a_catalog_that_is_not_a_regular_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, what: str) -> None:
    if path == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    code, out, err = run(capsys, "catalog", "instances", "--catalog", path)
    assert code == 2
    assert one_error_line(err) == f"error: {path}: catalog file is {what}, not a regular file"
    assert out == ""


def test_a_replay_url_with_a_bad_port_is_one_line() -> None:
    result = run_cli("replay", "--master",
                     "mysql+pymysql://u@127.0.0.1:notaport/db?password=s3cret-pw",
                     "--ramp", "1", "--duration", "1", "--warmup", "0")
    assert result.exit_code == 2
    assert one_error_line(result.stderr) == (
        "error: database URL mysql+pymysql://u@127.0.0.1:notaport/db?password=***: port "
        "'notaport' is not a number from 1 to 65535")


def test_replay_masks_a_password_given_in_the_query() -> None:
    """Nothing listens on port 1: the failure names the database with the password masked."""
    result = run_cli("replay", "--master", "mysql+pymysql://u@127.0.0.1:1/db?pass%77ord=s3cret-pw",
                     "--ramp", "1", "--duration", "1", "--warmup", "0")
    assert result.exit_code == 1
    assert "s3cret-pw" not in result.stdout + result.stderr
    assert "mysql+pymysql://u@127.0.0.1:1/db?password=***" in result.stderr


def test_replay_refuses_its_output_path_before_running(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--out at a FIFO is refused before any database is touched (no SQLite file is made)."""
    os.mkfifo(tmp_path / "out.json")
    monkeypatch.setenv("ADVISOR_DATA_DIR", str(tmp_path))
    result = run_cli("replay", "--out", str(tmp_path / "out.json"), "--ramp", "1",
                     "--duration", "1", "--warmup", "0")
    assert result.exit_code == 2
    assert "out.json: is a FIFO (named pipe); the result is written only" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_size_refuses_its_report_path_before_sizing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A sizing may take a minute: a symlinked --report is refused first, in well under that."""
    (tmp_path / "r.html").symlink_to(tmp_path / "elsewhere.html")
    started = time.monotonic()
    code, out, err = run(capsys, "size", "--report", str(tmp_path / "r.html"))
    assert code == 2
    assert "r.html: is a symlink; the report is written only" in one_error_line(err)
    assert out == ""
    assert time.monotonic() - started < 1.5


def test_serve_masks_the_runs_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       caplog: pytest.LogCaptureFixture) -> None:
    """The service's start-up line names the runs database with the query password masked."""
    from advisor.userfiles import load_catalog
    from api.app import create_app
    from api.service import Settings

    caplog.set_level("INFO")
    url = f"sqlite:///{tmp_path / 'runs.sqlite3'}?password=s3cret-pw"
    with pytest.warns(Warning, match="'password' are not accepted by the pysqlite driver"):
        create_app(Settings(database_url=url), catalog=load_catalog(use_env=False))
    assert "s3cret-pw" not in caplog.text
    assert "runs.sqlite3?password=***" in caplog.text


def test_calibrate_refuses_its_output_path_before_measuring(tmp_path: Path) -> None:
    """--out at a FIFO is refused before any test file (or --path directory) is made."""
    os.mkfifo(tmp_path / "cal.json")
    result = run_cli("calibrate", "--path", str(tmp_path / "disk"), "--out",
                     str(tmp_path / "cal.json"))
    assert result.exit_code == 2
    assert "cal.json: is a FIFO (named pipe); the profile is written only" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.json"]
