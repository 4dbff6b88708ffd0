"""Tables people read, at 80 columns, and `--format csv` for tools (issue 16, item 7).

At 80 columns every table fits: no line is wider, no value is split across lines ("290.5" / "4")
and no header or value is cut short ("rd p…"). CSV has one header row and raw values, one row per
item the JSON lists.
"""

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.userfiles import CATALOG_ENV
from recommend.result import load_size_result
from tests.cli_helpers import run

SIZE_GOLDEN = Path(__file__).parents[1] / "goldens" / "size_627.json"  # 3 alternatives
PROFILE = Path(__file__).parents[1] / "workloads" / "fixtures" / "calibration-this-vm.json"
SIMULATE = ("simulate", "m5d.large:gp2:385GiB", "--rw", "randrw", "--ramp", "iodepth=1,8,64",
            "--duration", "1")


@pytest.fixture(autouse=True)
def _shipped_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)


@pytest.fixture
def columns_80(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


@pytest.fixture
def size_627(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """`size --tps 627 --reads 3.25` answers with the stored result (the search takes seconds;
    the table is what is tested here)."""
    data: dict[str, Any] = json.loads(SIZE_GOLDEN.read_text())
    data["search"]["seconds"] = 4.2  # the golden file holds a placeholder
    result = load_size_result(data)
    monkeypatch.setattr("recommend.run.run_size", lambda *args, **kwargs: result)
    return data


def assert_fits_80(out: str) -> None:
    wide = [line for line in out.splitlines() if len(line) > 80]
    assert wide == [], "\n".join(wide)
    assert "…" not in out, "a value or header was cut short"


def lines_with(out: str, *values: str) -> list[str]:
    """Values missing from every line of `out` (a value split across lines is missing)."""
    return [v for v in values if not any(v in line for line in out.splitlines())]


# -- 80 columns ---------------------------------------------------------------------------------


@pytest.mark.usefixtures("columns_80")
def test_catalog_instances_fit_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """Every instance's name, monthly price and EBS IOPS each on one line, headers whole."""
    code, out, _ = run(capsys, "catalog", "instances", "--format", "json")
    instances = json.loads(out)["instances"]
    code, out, err = run(capsys, "catalog", "instances")
    assert (code, err) == (0, "")
    assert_fits_80(out)
    values = [i["name"] for i in instances] + [f"{i['hourly_usd'] * 730:,.2f}" for i in instances]
    values += [f"{i['ebs']['baseline_iops']:,.0f}/{i['ebs']['max_iops']:,.0f}" for i in instances
               if i["ebs"]]
    assert lines_with(out, *values) == []
    assert lines_with(out, "290.54", "EBS IOPS", "base/max", "$/month") == []


@pytest.mark.usefixtures("columns_80")
def test_catalog_volumes_fit_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "catalog", "volumes")
    assert (code, err) == (0, "")
    assert_fits_80(out)
    assert lines_with(out, "1-16,384", "4-65,536", "125-16,384", "0.125", "0.200%", "2,000") == []


@pytest.mark.usefixtures("columns_80")
@pytest.mark.parametrize("spec", ["m5d.large:gp2:385GiB",
                                  "m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps",
                                  "m5d.8xlarge:raid1:2xstore"])
def test_layout_fits_80_columns(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every limit's sustained figure, every capacity and every cost item whole on one line."""
    code, out, _ = run(capsys, "layout", spec, "--format", "json")
    d = json.loads(out)
    code, out, err = run(capsys, "layout", spec)
    assert (code, err) == (0, "")
    assert_fits_80(out)
    unit = {"iops": " IOPS", "mibps": " MiB/s"}
    values = [f"{lim['sustained']:,.0f}{unit[lim['unit']]}" for lim in d["limits"]
              if "sustained" in lim]
    values += [f"{c['iops']:,.0f}" for c in d["capacity"].values()]
    values += [f"{i['monthly_usd']:,.2f}" for i in d["cost"]["items"]]
    assert lines_with(out, *values) == []


@pytest.mark.usefixtures("columns_80")
def test_simulate_fits_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """Each level's IOPS and latency percentiles whole; the headers whole (not "rd p…")."""
    code, out, err = run(capsys, *SIMULATE, "--format", "json")
    levels = json.loads(out)["levels"]
    code, out, err = run(capsys, *SIMULATE)
    assert code == 0, err
    assert_fits_80(out)
    values = [f"{lv['latency_ms'][op][p]:,.3f}" for lv in levels for op in ("read", "write")
              for p in ("p50", "p99")]
    values += [f"{lv['iops']['read']:,.0f}" for lv in levels]
    assert lines_with(out, *values) == []


@pytest.mark.usefixtures("columns_80")
def test_size_fits_80_columns(size_627: dict[str, Any],
                              capsys: pytest.CaptureFixture[str]) -> None:
    """The recommendation, every alternative's specs, cost and DES p99, and every rejected
    candidate whole on one line each."""
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25")
    assert (code, err) == (0, "")
    assert_fits_80(out)
    specs = [part.split(" ")[-1] for d in (size_627["recommendation"], *size_627["alternatives"])
             for part in d["deployment"].split(" + ")]
    costs = [f"{a['monthly_usd']:,.2f}" for a in size_627["alternatives"]]
    rejected = [f"{x['deployment']}" for x in size_627["rejected"][:8]]
    assert lines_with(out, *specs, *costs, *rejected) == []


@pytest.mark.usefixtures("columns_80")
def test_validate_fits_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", "--profile", str(PROFILE), "--duration", "0.5")
    assert code in (0, 1), err
    assert_fits_80(out)
    assert lines_with(out, "rndrd x1", "seqwr x16", "IOPS", "measured", "simulated") == []


# -- CSV ----------------------------------------------------------------------------------------


def read_csv(out: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(out)))


def test_catalog_csv_has_one_row_per_entry_with_raw_values(
        capsys: pytest.CaptureFixture[str]) -> None:
    """One row per instance and per volume type, nested keys dotted, numbers unformatted."""
    for what, key in (("instances", "instances"), ("volumes", "volumes")):
        code, out, _ = run(capsys, "catalog", what, "--format", "json")
        items = json.loads(out)[key]
        code, out, err = run(capsys, "catalog", what, "--format", "csv")
        assert (code, err) == (0, "")
        rows = read_csv(out)
        assert [r["name"] for r in rows] == [i["name"] for i in items]
    by_name = {r["name"]: r for r in read_csv(run(capsys, "catalog", "instances", "-f", "csv")[1])}
    assert by_name["m5d.large"]["hourly_usd"] == "0.113"
    assert by_name["m5d.large"]["store.count"] == "1"
    assert by_name["c4.2xlarge"]["store.count"] == ""  # no instance store: empty
    assert "ebs" not in by_name["c1.medium"], "a nested object is its dotted keys only"
    assert "sources" not in next(iter(by_name.values())), "citations stay in --format json"


def test_layout_csv_lists_every_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "layout", "m5d.large:gp2:385GiB", "--format", "json")
    limits = json.loads(out)["limits"]
    code, out, err = run(capsys, "layout", "m5d.large:gp2:385GiB", "--format", "csv")
    assert (code, err) == (0, "")
    rows = read_csv(out)
    assert [(r["spec"], r["name"], float(r["sustained"])) for r in rows] == [
        ("m5d.large:gp2:385GiB", lim["name"], lim["sustained"]) for lim in limits]
    assert rows[0]["bucket.full_burst_s"] == "2927"


def test_simulate_csv_has_one_row_per_level(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *SIMULATE, "--format", "json")
    levels = json.loads(out)["levels"]
    code, out, err = run(capsys, *SIMULATE, "--format", "csv")
    assert code == 0, err
    rows = read_csv(out)
    assert [r["load.iodepth"] for r in rows] == ["1", "8", "64"]
    assert [float(r["latency_ms.read.p99"]) for r in rows] == [
        lv["latency_ms"]["read"]["p99"] for lv in levels]
    assert "timeline" not in rows[0], "per-second series stay in --format json"


def test_size_csv_has_the_recommendation_then_the_alternatives(
        size_627: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--format", "csv")
    assert (code, err) == (0, "")
    rows = read_csv(out)
    assert [(r["rank"], r["deployment"], float(r["monthly_usd"])) for r in rows] == [
        ("recommendation", size_627["recommendation"]["deployment"],
         size_627["recommendation"]["monthly_usd"]),
        *(("alternative", a["deployment"], a["monthly_usd"]) for a in size_627["alternatives"])]
    assert rows[0]["max_tps_at_slo"] == str(size_627["recommendation"]["max_tps_at_slo"])


def test_validate_csv_has_one_row_per_case(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", "--profile", str(PROFILE), "--duration", "0.5",
                         "--format", "csv")
    assert code in (0, 1), err
    rows = read_csv(out)
    assert [(r["mode"], r["threads"]) for r in rows] == [
        (m, str(t)) for m in ("rndrd", "rndwr", "seqrd", "seqwr") for t in (1, 4, 16)]
    assert all(r["device"] == "vda-this-machine" for r in rows)


FIO = Path(__file__).parents[1] / "workloads" / "fixtures" / "fio_randrw_qd16.json"


@pytest.mark.usefixtures("columns_80")
def test_calibrate_table_fits_80_columns_and_csv_has_each_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`calibrate` (here from fio JSON): the runs table whole at COLUMNS=80 even when piped;
    CSV one row per run."""
    code, out, err = run(capsys, "calibrate", "--import-fio", str(FIO), "--out",
                         str(tmp_path / "a.json"))
    assert code == 0, err
    table = "".join(line + "\n" for line in out.splitlines() if not line.startswith("note: "))
    assert_fits_80(table)  # the notes are one logical line each, wrapped by the terminal
    assert lines_with(table, "40,785", "13,572", "212.3", "read", "IOPS") == []
    code, out, err = run(capsys, "calibrate", "--import-fio", str(FIO), "--out",
                         str(tmp_path / "b.json"), "--format", "csv")
    assert code == 0, err
    rows = read_csv(out)
    assert [(r["mode"], r["iodepth"]) for r in rows] == [("rndrw", "16")]


@pytest.mark.slow  # drives the embedded SQLite database (table creation, commits)
def test_replay_csv_has_one_row_per_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ADVISOR_DATA_DIR", str(tmp_path))
    code, out, err = run(capsys, "replay", "--ramp", "1,2", "--duration", "0.3", "--warmup", "0",
                         "--rows", "1000", "--format", "csv")
    assert code == 0, err
    rows = read_csv(out)
    assert [r["threads"] for r in rows] == ["1", "2"]
    assert all(float(r["achieved_tps"]) > 0 for r in rows)
    assert "latency_ms.transaction.p99" in rows[0]
