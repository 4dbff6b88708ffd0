"""`advisor catalog instances` filters (issue 14): --family, --arch, --min-memory-gib, --min-vcpu
in table, JSON and CSV, each figure's source in the JSON."""

import csv
import io
import json
from typing import Any

import pytest

from advisor.cli.main import main

MUST_SHOW = ("r7g.large", "m7g.large", "c7g.large", "r6g.large", "m6g.large", "c6g.large",
             "r7i.large", "m7i.large", "r5b.large", "i4g.large", "r6gd.large")


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    assert main(["catalog", "instances", "--format", "json", *args]) == 0
    rows: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["instances"]
    return rows


def test_json_lists_200_types_with_limits_prices_and_sources(
        capsys: pytest.CaptureFixture[str]) -> None:
    """>= 200 types; the must-show ones with EBS limits, both prices and their sources."""
    rows = {r["name"]: r for r in _json(capsys)}
    assert len(rows) >= 200
    for name in MUST_SHOW:
        r = rows[name]
        assert r["ebs"]["max_iops"] >= r["ebs"]["baseline_iops"] > 0
        assert 0 < r["plan_hourly_usd"]["3yr-reserved"] < r["hourly_usd"]
        assert {"ebs", "hourly_usd", "plan_hourly_usd.3yr-reserved", "arch",
                "network_baseline_gbps"} <= set(r["sources"])


def test_family_arch_and_memory_filters(capsys: pytest.CaptureFixture[str]) -> None:
    """--family r7g --arch arm64 --min-memory-gib 64: r7g.2xlarge (64 GiB) and up, only."""
    rows = _json(capsys, "--family", "r7g", "--arch", "arm64", "--min-memory-gib", "64")
    assert [r["name"] for r in rows] == ["r7g.2xlarge", "r7g.4xlarge", "r7g.8xlarge",
                                         "r7g.12xlarge", "r7g.16xlarge"]
    assert _json(capsys, "--family", "r7g", "--arch", "x86_64") == []
    both = {r["name"].split(".")[0] for r in _json(capsys, "--family", "m7g,m7i",
                                                   "--min-vcpu", "64")}
    assert both == {"m7g", "m7i"}


def test_csv_has_one_row_per_type(capsys: pytest.CaptureFixture[str]) -> None:
    """--format csv: a header and one row per filtered type, nested figures flattened."""
    assert main(["catalog", "instances", "--format", "csv", "--family", "i4g"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["name"] for r in rows][:2] == ["i4g.large", "i4g.xlarge"]
    assert rows[0]["arch"] == "arm64"
    assert rows[0]["store.read_iops"] == "31250.0"


def test_unknown_family_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown family: exit 2 and one line naming the catalog's families."""
    assert main(["catalog", "instances", "--family", "r7g,r9z"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --family 'r9z': not in the catalog (families: c1, ")
    assert err.count("\n") == 1


@pytest.mark.parametrize(("args", "line"), [
    (("--arch", "sparc"), "error: --arch 'sparc': choose x86_64 or arm64\n"),
    (("--min-vcpu", "-1"), "error: --min-vcpu -1: must be 0 or more\n"),
    (("--min-memory-gib", "nan"), "error: --min-memory-gib nan: must be a finite number\n"),
    (("--min-memory-gib", "2e9"), "error: --min-memory-gib 2000000000: at most 1,000,000,000\n"),
])
def test_bad_filter_values_are_one_line_exit_2(capsys: pytest.CaptureFixture[str],
                                                args: tuple[str, ...], line: str) -> None:
    """Out-of-range or unknown filter values: exit 2, one line naming the option (the checks
    the API's query parameters get too)."""
    assert main(["catalog", "instances", *args]) == 2
    assert capsys.readouterr().err == line


def test_json_has_the_1yr_rate_where_s34_gives_one(capsys: pytest.CaptureFixture[str]) -> None:
    """r7g rows carry a 1yr-reserved rate between the 3-yr one and on-demand, tagged S34; r7i
    rows carry none (S34 predates the family) and no tag for one."""
    for r in _json(capsys, "--family", "r7g,r7i"):
        plans = r["plan_hourly_usd"]
        if r["name"].startswith("r7g."):
            assert plans["3yr-reserved"] < plans["1yr-reserved"] < r["hourly_usd"]
            assert r["sources"]["plan_hourly_usd.1yr-reserved"] == "S34"
        else:
            assert "1yr-reserved" not in plans
            assert "plan_hourly_usd.1yr-reserved" not in r["sources"]
