"""Commands that take a while: progress on a terminal's stderr (never in the output), `validate`'s
exit code when every case misses, `calibrate --path` creating its directory."""

import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import run
from tests.conftest import require

PROFILE = Path(__file__).parents[1] / "workloads" / "fixtures" / "calibration-this-vm.json"
SIZE_GOLDEN = Path(__file__).parents[1] / "goldens" / "size_627.json"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def size_627(monkeypatch: pytest.MonkeyPatch) -> None:
    """`size` answers with a stored result after reporting one step of progress."""
    from recommend.result import load_size_result

    data = json.loads(SIZE_GOLDEN.read_text())
    data["search"]["seconds"] = 4.2
    result = load_size_result(data)

    def search(*args: Any, progress: Any = None, **kwargs: Any) -> Any:
        assert progress is not None, "size passes a progress callback"
        progress(1, 1.0)
        return result

    monkeypatch.setattr("recommend.run.run_size", search)


@pytest.mark.usefixtures("size_627")
def test_size_shows_progress_on_a_terminal_stderr_only(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A terminal's stderr gets the spinner; stdout keeps pure JSON."""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code, out, _ = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--format", "json")
    assert code == 0
    assert json.loads(out)["recommendation"]["deployment"]
    assert "sizing MySQL" in terminal.getvalue()


@pytest.mark.usefixtures("size_627")
def test_no_progress_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    """Piped or logged: no spinner, no escape codes."""
    code, _, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--format", "json")
    assert (code, err) == (0, "")


def test_validate_shows_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code, out, _ = run(capsys, "validate", "--profile", str(PROFILE), "--duration", "0.5",
                       "--format", "json")
    assert code == 0
    assert len(json.loads(out)["cases"]) == 12
    assert "validating vda-this-machine" in terminal.getvalue()


def test_validate_exits_1_when_every_case_misses(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Measurements 100x the model's: every case misses the tolerance, the table is still
    printed, then one line on stderr and exit 1."""
    profile = json.loads(PROFILE.read_text())
    for r in profile["calibration"]["runs"]:
        r["read_iops"], r["write_iops"] = r["read_iops"] * 100, r["write_iops"] * 100
    path = tmp_path / "far.json"
    path.write_text(json.dumps(profile))
    code, out, err = run(capsys, "validate", "--profile", str(path), "--duration", "0.5")
    assert code == 1
    assert "0 of 12 cases within ±20 %" in out
    assert err == "every case misses the ±20 % IOPS tolerance\n"


def test_calibrate_path_that_cannot_be_created_is_one_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    require("sysbench", shutil.which("sysbench") is not None, "Debian package sysbench")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, out, err = run(capsys, "calibrate", "--path", str(blocker / "sub"), "--time", "1",
                         "--threads", "1", "--size", "16M")
    assert (code, out) == (2, "")
    assert err.startswith(f"error: --path {blocker / 'sub'}: cannot create the directory (")
    assert err.count("\n") == 1


@pytest.mark.slow  # runs sysbench fileio (four modes, a second each)
def test_calibrate_creates_a_missing_path_and_removes_it_after(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    require("sysbench", shutil.which("sysbench") is not None, "Debian package sysbench")
    target = tmp_path / "new" / "probe"
    out_file = tmp_path / "p.json"
    code, _, err = run(capsys, "calibrate", "--path", str(target), "--time", "1", "--threads",
                       "1", "--size", "16M", "--out", str(out_file), "--format", "json")
    assert code == 0, err
    assert json.loads(out_file.read_text())["calibration"]["runs"]
    assert not (tmp_path / "new").exists(), "the directories it made are removed when empty"
