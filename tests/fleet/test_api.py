"""`POST /v1/fleet` starts a job over `advisor fleet`'s rows; `GET /v1/fleet/{id}` reports it."""

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from advisor.serial import to_json
from advisor.store import SqlRunStore
from advisor.userfiles import load_catalog
from api.app import create_app
from api.fleet import MAX_FLEET_ROWS
from api.service import Settings
from recommend.fleet import parse_rows, size_row
from tests.fleet.rows import CHEAP, MALFORMED


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('fleet-api') / 'runs.sqlite3'}"
    app = create_app(Settings(), store=SqlRunStore(url), catalog=load_catalog(use_env=False))
    with TestClient(app) as c:
        yield c


def _wait(client: TestClient, location: str, timeout_s: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        state: dict[str, Any] = client.get(location).json()
        if state["state"] != "running" or time.monotonic() > deadline:
            return state
        time.sleep(0.2)


def test_a_fleet_job_gives_each_rows_fleet_answer_and_its_report(client: TestClient) -> None:
    rows = [CHEAP[1], MALFORMED, CHEAP[3]]
    started = client.post("/v1/fleet", json={"rows": rows})
    assert started.status_code == 202, started.text
    body = started.json()
    assert (body["state"], body["rows"]) == ("running", 3)
    assert started.headers["location"] == f"/v1/fleet/{body['id']}"
    state = _wait(client, started.headers["location"])
    assert state["state"] == "done", state
    assert state["done"] == 3
    catalog = load_catalog(use_env=False)
    expected = [to_json(size_row(r, catalog).table_row()) for r in parse_rows(rows)]
    assert state["results"] == expected
    assert state["results"][1]["reason"] == "reads_per_sec -5: must be 0 or more"
    report = state["report"]
    assert report["kind"] == "fleet"
    assert report["by_status"] == {"ok": 2, "no_slo": 0, "invalid": 1, "error": 0}
    assert report["compared"]["current_monthly_usd"] == 590.0


@pytest.mark.parametrize(("body", "detail"), [
    ({"rows": [{"id": "a"}, {"id": "a"}]}, "row 2: id 'a' repeats row 1"),
    ({"rows": [{"id": "a", "colour": "red"}]}, "row 1: unknown column 'colour'"),
    ({"rows": []}, "rows: List should have at least 1 item"),
    ({"rows": [{"id": str(i)} for i in range(MAX_FLEET_ROWS + 1)]},
     "rows: List should have at most 1000 items"),
    ({"rows": [CHEAP[0]], "path": "/etc/passwd"}, "path: unknown field"),
])
def test_a_malformed_fleet_is_422_naming_the_row(client: TestClient, body: dict[str, Any],
                                                 detail: str) -> None:
    r = client.post("/v1/fleet", json=body)
    assert r.status_code == 422
    assert r.json()["detail"].startswith(detail)


def test_an_unknown_fleet_job_is_404(client: TestClient) -> None:
    r = client.get("/v1/fleet/nope")
    assert r.status_code == 404
    assert r.json() == {"detail": "no fleet job 'nope'"}


def test_the_openapi_schema_documents_both_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths["/v1/fleet"]) == {"post"}
    assert set(paths["/v1/fleet/{fleet_id}"]) == {"get"}
