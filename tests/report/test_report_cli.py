"""`advisor report`, `--report` and `--save` on `size` and `simulate`: files written, stdout
unchanged, run ids printed, the printed reproduce command reproduces."""

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.store import SqlRunStore
from tests.report.conftest import GOLDEN, page_text


@pytest.fixture(autouse=True)
def runs_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Runs go to a SQLite file under this test's own data directory."""
    monkeypatch.delenv("ADVISOR_DATABASE_URL", raising=False)
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "advisor" / "runs.sqlite3"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


SIM = ["simulate", "m5d.large:gp2:385GiB", "--rw", "randrw", "--rwmixread", "75", "--bs", "4k",
       "--ramp", "iodepth=1,16", "--duration", "5", "--seed", "3"]


def test_simulate_report_and_save_leave_stdout_alone(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, runs_file: Path) -> None:
    """--report and --save write the page and the run; stdout is the same JSON as without
    them, and stderr names the run id, which reads back with the same result."""
    code, plain, _ = run(capsys, *SIM, "--format", "json")
    page = tmp_path / "sim.html"
    code2, out, err = run(capsys, *SIM, "--format", "json", "--report", str(page), "--save")
    assert (code, code2) == (0, 0)
    assert out == plain
    assert page.read_text("utf-8").startswith("<!DOCTYPE html>")
    run_id = err.split("saved run ")[1].split()[0]
    store = SqlRunStore(f"sqlite:///{runs_file}")
    stored = store.get(run_id)
    store.close()
    assert stored is not None
    assert stored.kind == "simulate"
    assert stored.result == json.loads(out)
    assert stored.request["spec"] == "m5d.large:gp2:385GiB"
    assert stored.request["seed"] == 3


@pytest.mark.slow  # over 5 s on a 2-core host (durations of 2026-11-29)
def test_size_report_flag_and_the_reproduce_command(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`advisor size ... --report` writes the page; the command printed in it gives the same
    recommendation when run again."""
    page = tmp_path / "size.html"
    code, out, err = run(capsys, "size", "--tps", "300", "--reads", "5", "--data-gb", "50",
                         "--format", "json", "--report", str(page))
    assert code == 0
    assert f"report written to {page}" in err
    first = json.loads(out)
    text = page_text(page.read_text("utf-8"))
    command = next(line for line in text.splitlines() if line.startswith("advisor size "))
    assert command == "advisor size --tps 300 --reads 5 --data-gb 50 --seed 1"
    code, again, _ = run(capsys, *shlex.split(command)[1:], "--format", "json")
    assert code == 0
    assert json.loads(again)["recommendation"] == first["recommendation"]


@pytest.mark.slow
@pytest.mark.parametrize("preset", [[], ["--preset", "sysbench-oltp-rw"]])
def test_size_report_without_reads_uses_the_presets_ratio(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, preset: list[str]) -> None:
    """`advisor size --tps 627 --report` without --reads (the request's `reads` is None: the
    preset's ratio) writes the page, which names that ratio in its request table, and in its
    title the ratio or, at 0 (sysbench oltp_read_write), the one class every transaction is."""
    from workloads.mysql_shape import PRESETS

    page = tmp_path / "size.html"
    code, out, err = run(capsys, "size", "--tps", "627", *preset, "--format", "json",
                         "--report", str(page))
    assert code == 0, err
    assert json.loads(out)["request"]["reads"] is None
    ratio = PRESETS[preset[1] if preset else "point-rw"].reads
    text = page_text(page.read_text("utf-8"))
    mix = f"at {ratio:g} reads/write" if ratio else "of read-write transactions"
    assert f"Sizing report — MySQL 627 tps {mix}" in text
    assert f"reads per write\n{ratio:g} (" in text


def test_simulate_reproduce_command_reproduces(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The simulate report's command re-runs to the same levels (same seed, same engine)."""
    code, out, _ = run(capsys, *SIM, "--format", "json", "--report", str(tmp_path / "r.html"))
    text = page_text((tmp_path / "r.html").read_text("utf-8"))
    command = next(line for line in text.splitlines() if line.startswith("advisor simulate "))
    code2, again, _ = run(capsys, *shlex.split(command)[1:], "--format", "json")
    assert (code, code2) == (0, 0)
    assert json.loads(again)["levels"] == json.loads(out)["levels"]


@pytest.mark.parametrize("name", ["size_627_seed1.json", "simulate_gp2_seed7.json",
                                  "replay_sqlite.json"])
def test_report_renders_any_result_file(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        name: str) -> None:
    """`advisor report RESULT.json -o FILE` sniffs the kind and writes the page."""
    page = tmp_path / "out.html"
    code, _, err = run(capsys, "report", str(GOLDEN / name), "-o", str(page))
    assert code == 0
    assert f"wrote {page}" in err
    assert page.stat().st_size > 5000
    assert "</html>" in page.read_text("utf-8")


def test_report_of_a_stored_run(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                pattern_result: dict[str, Any], runs_file: Path) -> None:
    """`advisor report --run ID` renders what `--save` stored, with the run id on the page."""
    store = SqlRunStore(f"sqlite:///{runs_file}")
    run_id = store.save("simulate", {}, pattern_result)
    store.close()
    code, _, _ = run(capsys, "report", "--run", run_id, "-o", str(tmp_path / "r.html"))
    assert code == 0
    assert run_id in (tmp_path / "r.html").read_text("utf-8")


@pytest.mark.parametrize(("argv", "message"), [
    (["report", "/nonexistent/r.json"], "error: /nonexistent/r.json: result file not found"),
    (["report", str(Path(__file__))], "not JSON"),
    (["report", "--run", "0123abcd"], "--run 0123abcd: no such run"),
    (["report"], "give a result file or --run ID"),
    (["report", str(GOLDEN / "size_627_seed1.json"), "-o", "/nonexistent/dir/x.html"],
     "cannot write the report"),
])
def test_report_errors_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                    message: str) -> None:
    """Bad input: exit 2 and one `error:` line saying what is wrong."""
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
