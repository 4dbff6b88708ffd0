"""`advisor fleet FILE`: every row sized as `advisor size` sizes it; bad input is one line."""

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.store import SqlRunStore
from tests.cli_helpers import run
from tests.fleet.rows import CHEAP, MALFORMED

pytest.importorskip("pyarrow")


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    names = list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=names)
        w.writeheader()
        w.writerows(rows)
    return path


def _read_csv(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="") as f:
        return {r["id"]: r for r in csv.DictReader(f)}


@pytest.fixture
def runs_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    monkeypatch.setenv("ADVISOR_DATABASE_URL", url)
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    return url


def _size_flags(row: dict[str, Any]) -> list[str]:
    flags = []
    for k, v in row.items():
        if k not in ("id", "current_deployment", "current_monthly_usd"):
            flags += [f"--{k.replace('_', '-')}", str(v)]
    return flags


def test_three_rows_give_advisor_sizes_answer_and_a_bad_row_is_reported(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, runs_url: str) -> None:
    """Each row's stored result is `advisor size`'s for the same options (the search's wall
    time aside); a malformed row is a result with its reason and the run exits 0."""
    fleet = _write_csv(tmp_path / "fleet.csv", [*CHEAP[:3], MALFORMED])
    out = tmp_path / "out.csv"
    code, stdout, err = run(capsys, "fleet", str(fleet), "--out", str(out), "--format", "json")
    assert code == 0, err
    report = json.loads(stdout)
    assert report["by_status"] == {"ok": 3, "no_slo": 0, "invalid": 1, "error": 0}
    assert [(r["id"], r["reason"]) for r in report["unmet"]] == \
        [("bad-1", "reads_per_sec -5: must be 0 or more")]
    rows = _read_csv(out)
    assert sorted(rows) == ["as-1", "as-2", "as-3", "bad-1"]
    store = SqlRunStore(runs_url)
    stored = {r.request["reads_per_sec"]: r.result for r in store.recent(10)}
    store.close()
    assert len(stored) == 3
    for row in CHEAP[:3]:
        code, stdout, err = run(capsys, "size", *_size_flags(row), "--format", "json")
        assert code == 0, err
        alone = json.loads(stdout)
        assert rows[row["id"]]["deployment"] == alone["recommendation"]["deployment"]
        assert float(rows[row["id"]]["monthly_usd"]) == alone["recommendation"]["monthly_usd"]
        fleet_result = stored[row["reads_per_sec"]]
        assert fleet_result["search"].pop("seconds") is None  # no clock in the fleet's rows
        alone["search"].pop("seconds")
        assert fleet_result == alone
    current = sum(r["current_monthly_usd"] for r in CHEAP[:3] if "current_monthly_usd" in r)
    assert report["compared"]["current_monthly_usd"] == current
    assert report["compared"]["rows"] == 2


def test_resume_skips_the_ids_out_holds(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        runs_url: str) -> None:
    fleet = _write_csv(tmp_path / "fleet.csv", [CHEAP[1], MALFORMED])
    out = tmp_path / "out.csv"
    assert run(capsys, "fleet", str(fleet), "--out", str(out), "--no-save")[0] == 0
    first = _read_csv(out)
    fleet = _write_csv(tmp_path / "fleet.csv", [CHEAP[1], MALFORMED, CHEAP[3]])
    code, stdout, err = run(capsys, "fleet", str(fleet), "--out", str(out), "--resume",
                            "--no-save")
    assert code == 0, err
    assert "1 sized now" in stdout
    assert "2 kept from --out" in stdout
    second = _read_csv(out)
    assert {k: second[k] for k in first} == first
    assert second["as-4"]["status"] == "ok"


def test_parquet_in_and_out(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                            runs_url: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "fleet.parquet"
    pq.write_table(pa.Table.from_pylist([CHEAP[1]]), path)
    out = tmp_path / "out.parquet"
    code, _, err = run(capsys, "fleet", str(path), "--out", str(out), "--no-save")
    assert code == 0, err
    (row,) = pq.read_table(out).to_pylist()
    assert (row["id"], row["status"], row["current_monthly_usd"]) == ("as-2", "ok", 90.0)


@pytest.mark.parametrize(("content", "problem"), [
    (b"PAR1 not really parquet", "not a readable Parquet file"),
    (None, "not a fleet results file (its columns differ)"),
])
def test_resume_from_a_parquet_that_is_not_a_results_file_exits_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, runs_url: str,
        content: bytes | None, problem: str) -> None:
    """--resume reads the --out Parquet with the checks an input file gets: a corrupt file or
    one with other columns is one line, exit 2, and the file is left as it was."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    fleet = _write_csv(tmp_path / "fleet.csv", [CHEAP[1]])
    out = tmp_path / "out.parquet"
    if content is None:
        pq.write_table(pa.Table.from_pylist([{"colour": "red"}]), out)
    else:
        out.write_bytes(content)
    before = out.read_bytes()
    code, stdout, err = run(capsys, "fleet", str(fleet), "--out", str(out), "--resume",
                            "--no-save")
    assert (code, stdout) == (2, "")
    assert problem in err
    assert err.count("\n") == 1
    assert out.read_bytes() == before

@pytest.mark.parametrize(("rows", "line"), [
    ([CHEAP[0], {"id": "x", "colour": "red"}], "{path}: unknown column 'colour' in the header"),
    ([CHEAP[0], {"workload": "aerospike"}], "row 2: no id"),
    ([CHEAP[0], CHEAP[0]], "row 2: id 'as-1' repeats row 1"),
])
def test_a_malformed_file_exits_2_naming_the_row(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path, runs_url: str,
                                                  rows: list[dict[str, Any]], line: str) -> None:
    fleet = _write_csv(tmp_path / "fleet.csv", rows)
    code, out, err = run(capsys, "fleet", str(fleet))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {line.format(path=fleet)}")
    assert err.count("\n") == 1


def test_a_parquet_column_of_the_wrong_type_is_named(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path, runs_url: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "fleet.parquet"
    pq.write_table(pa.table({"id": ["a"], "tps": ["fast"]}), path)
    code, _, err = run(capsys, "fleet", str(path))
    assert code == 2
    assert err == f"error: {path}: column 'tps' holds string, expected numbers\n"


def test_an_unreachable_scheduler_exits_2_naming_it(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path, runs_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.fleet_run
    from tests.fleet.cluster import free_port

    pytest.importorskip("distributed")
    monkeypatch.setattr(advisor.fleet_run, "CONNECT_TIMEOUT_S", 2)  # nothing listens there
    fleet = _write_csv(tmp_path / "fleet.csv", [CHEAP[1]])
    address = f"tcp://127.0.0.1:{free_port()}"
    code, _, err = run(capsys, "fleet", str(fleet), "--scheduler", address)
    assert code == 2
    assert err.startswith(f"error: --scheduler {address}: unreachable")
    assert err.count("\n") == 1


@pytest.mark.parametrize(("flags", "line"), [
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
     "--workers and --scheduler: choose one"),
    (["--scheduler", "127.0.0.1:8786"], "--scheduler '127.0.0.1:8786': a Dask scheduler address"),
    (["--resume"], "--resume continues an --out file: give --out"),
    (["--format", "csv"], "--format csv: the row results are a table already"),
    (["--out", "results.json"], "results.json: the results file (--out) must end in .csv, "
     ".parquet (got .json)"),
])
def test_bad_options_exit_2_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        runs_url: str, flags: list[str], line: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fleet = _write_csv(tmp_path / "fleet.csv", [CHEAP[1]])
    code, out, err = run(capsys, "fleet", str(fleet), *flags)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {line}")
    assert err.count("\n") == 1
