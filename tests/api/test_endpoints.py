"""Every endpoint answers with the core's JSON; POST results are stored as runs."""

from typing import Any

import pytest
from fastapi.testclient import TestClient

SMALL_FIO = {"spec": "m5d.large:gp2:385GiB", "rw": "randrw", "rwmixread": 75, "bs": "4k",
             "iodepth": 16, "duration": 5, "seed": 2}


@pytest.fixture(scope="module")
def sized(client: TestClient) -> Any:
    return client.post("/v1/size", json={"tps": 627, "reads": 3.25})


def test_healthz_answers_without_a_token(client: TestClient) -> None:
    """GET /healthz: status, advisor version, catalog version."""
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"
    assert r.json()["catalog_version"]


def test_size_returns_the_recommendation_and_a_stored_run(client: TestClient, sized: Any) -> None:
    """POST /v1/size: 201, the recommendation, `run_id` and a Location for the stored run."""
    assert sized.status_code == 201
    body = sized.json()
    assert body["recommendation"]["deployment"].startswith("master ")
    assert sized.headers["location"] == f"/v1/runs/{body['run_id']}"
    stored = client.get(sized.headers["location"]).json()
    assert stored["kind"] == "size"
    assert stored["request"]["tps"] == 627
    assert stored["result"] == {k: v for k, v in body.items() if k != "run_id"}


def test_the_same_request_is_answered_from_the_cache(client: TestClient, sized: Any) -> None:
    """A repeated sizing request is a cache hit with the same answer and a new run id."""
    again = client.post("/v1/size", json={"reads": 3.25, "tps": 627.0})
    assert again.headers["x-advisor-cache"] == "hit"
    assert again.json()["recommendation"] == sized.json()["recommendation"]
    assert again.json()["run_id"] != sized.json()["run_id"]


@pytest.mark.slow  # over 5 s on a 2-core host (durations of 2026-11-29)
def test_run_report_is_the_html_page(client: TestClient, sized: Any) -> None:
    """GET /v1/runs/{id}/report: the self-contained HTML report, with the run id on it."""
    r = client.get(f"/v1/runs/{sized.json()['run_id']}/report")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert "<svg" in r.text
    assert sized.json()["run_id"] in r.text
    assert "<script" not in r.text


def test_simulate_a_fio_pattern(client: TestClient) -> None:
    """POST /v1/simulate with fio fields: levels, timeline, latency; stored as a run."""
    r = client.post("/v1/simulate", json=SMALL_FIO)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["kind"] == "simulate"
    assert body["pattern"]["name"] == "fio randrw"
    assert body["levels"][0]["load"] == {"iodepth": 16}
    assert body["timeline"]
    assert client.get(f"/v1/runs/{body['run_id']}").json()["request"]["spec"] == SMALL_FIO["spec"]


def test_simulate_database_workloads(client: TestClient) -> None:
    """mysql (per-server levels and a knee) and aerospike (ACT tables) through the same call."""
    mysql = client.post("/v1/simulate", json={
        "spec": "r5.large:gp3:500GiB", "workload": "mysql", "data_gb": 4,
        "ramp": "tps=200,1500", "duration": 5})
    assert mysql.status_code == 201, mysql.text
    assert mysql.json()["knee"]["tps"] == 1500
    assert mysql.json()["levels"][0]["servers"]
    act = client.post("/v1/simulate", json={"spec": "i3.large:store", "workload": "aerospike",
                                            "x": 2, "duration": 4, "slice": 2})
    assert act.status_code == 201, act.text
    assert act.json()["levels"][0]["act"]["slices"]
    assert "rating" in act.json()


def test_layout_and_catalog_listings(client: TestClient) -> None:
    """GET /v1/layouts/{spec} and the catalog listings return the CLI's JSON."""
    r = client.get("/v1/layouts/m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps")
    assert r.status_code == 200
    assert {"spec", "capacity_gib", "ephemeral", "annual_loss_probability", "limits",
            "cost"} <= set(r.json())
    instances = client.get("/v1/catalog/instances").json()
    volumes = client.get("/v1/catalog/volumes").json()
    assert {i["name"] for i in instances["instances"]} >= {"m5d.large", "i3.large"}
    assert {v["name"] for v in volumes["volumes"]} >= {"gp2", "gp3", "io1", "st1"}


def test_runs_are_listed_newest_first(client: TestClient) -> None:
    """GET /v1/runs: summaries without results, newest first."""
    first = client.post("/v1/simulate", json={**SMALL_FIO, "seed": 11}).json()["run_id"]
    second = client.post("/v1/simulate", json={**SMALL_FIO, "seed": 12}).json()["run_id"]
    runs = client.get("/v1/runs", params={"limit": 2}).json()["runs"]
    assert [r["id"] for r in runs] == [second, first]
    assert "result" not in runs[0]


@pytest.mark.parametrize("path", ["/v1/runs/0123456789abcdef0123456789abcdef",
                                  "/v1/runs/not-a-run/report", "/v1/runs/%27%3B--",
                                  "/v1/runs/" + "9" * 5000, "/v1/runs/" + "9" * 5000 + "/report"])
def test_unknown_runs_are_404(client: TestClient, path: str) -> None:
    """An id that is not stored (or not an id at all) is 404 with one short line."""
    r = client.get(path)
    assert r.status_code == 404
    assert r.json()["detail"].startswith("no run ")
    assert len(r.json()["detail"]) < 80


def test_openapi_documents_every_endpoint_and_the_409(client: TestClient) -> None:
    """/openapi.json lists the brief's endpoints; /v1/size documents 409 and 422."""
    spec = client.get("/openapi.json").json()
    assert {"/v1/size", "/v1/simulate", "/v1/layouts/{spec}", "/v1/catalog/instances",
            "/v1/catalog/volumes", "/v1/runs/{run_id}", "/v1/runs/{run_id}/report",
            "/healthz"} <= set(spec["paths"])
    responses = spec["paths"]["/v1/size"]["post"]["responses"]
    assert {"201", "409", "422"} <= set(responses)
    assert "no layout meets the SLO" in responses["409"]["description"]
    assert client.get("/docs").status_code == 200
