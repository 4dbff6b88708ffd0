"""The fleet report: totals, savings by family and workload, unmet rows with why, distributions."""

import json
from pathlib import Path

import pytest

from advisor.report.fleet_view import fleet_json, render_fleet
from recommend.fleet import RowResult, summarise
from tests.cli_helpers import run
from tests.fleet.rows import CHEAP, MALFORMED


def _rows() -> list[RowResult]:
    return [
        RowResult(id="db-1", workload="mysql", status="ok", deployment="master c6g.large:gp3:60GiB",
                  monthly_usd=54.44, instance_family="c6g", storage="gp3", raid="none",
                  current_deployment="m5.large:gp2:100GiB", current_monthly_usd=120.0,
                  savings_monthly_usd=65.56),
        RowResult(id="db-2", workload="aerospike", status="ok",
                  deployment="2 nodes x i4i.large:raid0:2xstore", monthly_usd=300.0,
                  instance_family="i4i", storage="store", raid="raid0"),
        RowResult(id="<db-3>", workload="mysql", status="no_slo",
                  reason="no layout meets the SLO: the lowest p99 found is 2.10 ms (x)"),
    ]


def test_the_html_states_totals_savings_unmet_rows_and_distributions() -> None:
    html = render_fleet(summarise(_rows(), catalog_version="2026.11.1"), where="in process",
                        seconds=12.5, command="advisor fleet fleet.csv")
    for text in ("Fleet sizing: 3 workloads", "$120.00", "$54.44", "$65.56", "$354.44",
                 "Savings by instance family", "c6g", "54.6 %", "Rows with no recommendation (1)",
                 "the lowest p99 found is 2.10 ms", "&lt;db-3&gt;", "raid0", "store",
                 "Ran in process in 12.5 s", "advisor fleet fleet.csv", "catalog 2026.11.1"):
        assert text in html, text
    assert "<db-3>" not in html  # ids are escaped
    assert "<script" not in html


def test_the_json_is_the_summary_with_where_and_how_long() -> None:
    data = fleet_json(summarise(_rows(), catalog_version="c"), where="2 local Dask workers",
                      seconds=3.14159)
    assert (data["kind"], data["where"], data["seconds"]) == ("fleet", "2 local Dask workers", 3.14)
    assert data["compared"] == {"rows": 1, "current_monthly_usd": 120.0,
                                "recommended_monthly_usd": 54.44, "savings_monthly_usd": 65.56}
    assert data["families"] == {"c6g": 1, "i4i": 1}
    assert data["raid_levels"] == {"none": 1, "raid0": 1}
    assert [r["id"] for r in data["unmet"]] == ["<db-3>"]
    json.dumps(data)  # plain JSON


def test_the_cli_writes_the_html_report(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    fleet = tmp_path / "fleet.jsonl"
    fleet.write_text("".join(json.dumps(r) + "\n" for r in [CHEAP[1], MALFORMED]))
    report = tmp_path / "fleet.html"
    code, _, err = run(capsys, "fleet", str(fleet), "--report", str(report), "--no-save")
    assert code == 0, err
    html = report.read_text()
    assert "Fleet sizing: 2 workloads" in html
    assert "reads_per_sec -5: must be 0 or more" in html
    assert f"report written to {report}" in err
