"""`advisor runs list|show|report`: the stored runs from the command line."""

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.store import DATABASE_ENV, SqlRunStore
from tests.cli_helpers import run

GOLDEN = Path(__file__).parents[1] / "report" / "golden"


def stored(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / name).read_text())
    return data


@pytest.fixture
def store_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    monkeypatch.setenv(DATABASE_ENV, url)
    monkeypatch.setenv("COLUMNS", "80")
    return url


@pytest.fixture
def three_runs(store_url: str) -> list[str]:
    """A size, a simulate and a replay run, saved in that order."""
    store = SqlRunStore(store_url)
    try:
        return [store.save(kind, stored(name).get("request") or {}, stored(name))
                for kind, name in (("size", "size_627_seed1.json"),
                                   ("simulate", "simulate_gp2_seed7.json"),
                                   ("replay", "replay_sqlite.json"))]
    finally:
        store.close()


def test_list_shows_the_newest_first_with_what_each_answered(
        three_runs: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Table: each id whole on one line, its kind and answer (the size deployment and cost)."""
    code, out, err = run(capsys, "runs", "list")
    assert (code, err) == (0, "")
    assert all(len(line) <= 80 for line in out.splitlines())
    lines = out.splitlines()
    positions = [next(i for i, line in enumerate(lines) if run_id in line)
                 for run_id in three_runs]
    assert positions == sorted(positions, reverse=True), "newest first"
    size = stored("size_627_seed1.json")["recommendation"]
    assert f"${size['monthly_usd']:,.2f}/month" in out
    assert "pattern on m5d.large:gp2:385GiB" in out


def test_list_json_and_csv_carry_the_same_runs(three_runs: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "runs", "list", "--format", "json")
    listed = json.loads(out)
    assert [r["id"] for r in listed["runs"]] == three_runs[::-1]
    assert [r["kind"] for r in listed["runs"]] == ["replay", "simulate", "size"]
    _code, out, _ = run(capsys, "runs", "list", "--format", "csv", "--limit", "2")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["id"], r["kind"]) for r in rows] == [(three_runs[2], "replay"),
                                                    (three_runs[1], "simulate")]


def test_list_of_an_empty_store_says_so(store_url: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "runs", "list")
    assert (code, err) == (0, "")
    assert "no stored runs" in out
    assert "--save" in " ".join(out.split())


def test_show_prints_the_request_and_json_the_whole_run(
        three_runs: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    size_id = three_runs[0]
    code, out, err = run(capsys, "runs", "show", size_id)
    assert (code, err) == (0, "")
    assert size_id in out
    assert "tps" in out
    assert "627.0" in out
    code, out, err = run(capsys, "runs", "show", size_id, "--format", "json")
    whole = json.loads(out)
    assert (whole["id"], whole["kind"]) == (size_id, "size")
    assert whole["result"]["recommendation"] == stored("size_627_seed1.json")["recommendation"]


@pytest.mark.parametrize("run_id", ["0" * 32, "not-an-id"])
def test_show_of_an_unknown_id_is_one_line_exit_2(run_id: str, store_url: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "runs", "show", run_id)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: run {run_id}: no such run in sqlite:///")
    assert err.count("\n") == 1


def test_report_renders_a_stored_run(three_runs: list[str], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`runs report ID --out FILE` writes the run's HTML report, naming the run."""
    page = tmp_path / "replay.html"
    code, _, err = run(capsys, "runs", "report", three_runs[2], "--out", str(page))
    assert (code, err) == (0, f"wrote {page}\n")
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert three_runs[2] in html
