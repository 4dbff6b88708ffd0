"""CLI and API are thin adapters over the same core calls: the same request gives the same
JSON (timing fields aside)."""

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from advisor.cli.main import main

TIMING = {"run_id"}


def comparable(result: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in result.items() if k not in TIMING}
    if "search" in out:
        out["search"] = {k: v for k, v in out["search"].items() if k != "seconds"}
    return out


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_size_cli_and_api_agree(client: TestClient, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`advisor size --tps 627 --reads 3.25` and POST /v1/size {tps, reads}: equal JSON."""
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    cli = cli_json(capsys, "size", "--tps", "627", "--reads", "3.25")
    api = client.post("/v1/size", json={"tps": 627, "reads": 3.25}).json()
    assert comparable(api) == comparable(cli)


def test_size_options_map_one_to_one(client: TestClient, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Every option the API takes reaches the core as the CLI's does (replicas auto, data,
    SLO, headroom, seed)."""
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    cli = cli_json(capsys, "size", "--tps", "300", "--reads", "9", "--replicas", "auto",
                   "--p99-ms", "15", "--data-gb", "40", "--headroom", "0.5", "--seed", "4")
    api = client.post("/v1/size", json={"tps": 300, "reads": 9, "replicas": "auto",
                                        "p99_ms": 15, "data_gb": 40, "headroom": 0.5,
                                        "seed": 4}).json()
    assert comparable(api) == comparable(cli)


def test_simulate_cli_and_api_agree(client: TestClient, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A seeded fio ramp: `advisor simulate` and POST /v1/simulate give equal JSON."""
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    cli = cli_json(capsys, "simulate", "m5d.large:gp2:385GiB", "--rw", "randrw", "--rwmixread",
                   "75", "--bs", "4k", "--ramp", "iodepth=1,32", "--duration", "5", "--seed", "9")
    api = client.post("/v1/simulate", json={
        "spec": "m5d.large:gp2:385GiB", "rw": "randrw", "rwmixread": 75, "bs": "4k",
        "ramp": "iodepth=1,32", "duration": 5, "seed": 9}).json()
    assert comparable(api) == comparable(cli)


def test_mysql_simulate_cli_and_api_agree(client: TestClient,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A MySQL ramp with the transaction-shape options: CLI and API give equal JSON."""
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    cli = cli_json(capsys, "simulate", "r5.large:gp3:500GiB", "--workload", "mysql",
                   "--ramp", "tps=200,600", "--write-txn", "update=2", "--secondary-indexes", "0",
                   "--row-bytes", "300", "--replica-workers", "2", "--engine", "analytic",
                   "--duration", "10")
    api = client.post("/v1/simulate", json={
        "spec": "r5.large:gp3:500GiB", "workload": "mysql", "ramp": "tps=200,600",
        "write_txn": "update=2", "secondary_indexes": 0, "row_bytes": 300, "replica_workers": 2,
        "engine": "analytic", "duration": 10}).json()
    assert comparable(api) == comparable(cli)
    assert api["params"]["shape"]["write_txn"]["updates"] == 2


def test_catalog_and_layout_cli_and_api_agree(client: TestClient,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`advisor catalog instances|volumes` and `advisor layout SPEC` equal their endpoints."""
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    assert client.get("/v1/catalog/instances").json() == cli_json(capsys, "catalog", "instances")
    assert client.get("/v1/catalog/volumes").json() == cli_json(capsys, "catalog", "volumes")
    spec = "c4.2xlarge:raid0:5xgp2:100GiB"
    assert client.get(f"/v1/layouts/{spec}").json() == cli_json(capsys, "layout", spec)
