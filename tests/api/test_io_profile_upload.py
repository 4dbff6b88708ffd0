"""A measured I/O profile through the API: `io_profile` in the body of POST /v1/size and
/v1/simulate is the document `advisor replay --io-profile-out` writes, and gives the same JSON as
the CLI's `--io-profile FILE`; a malformed document, or one for a workload other than MySQL, is a
422 naming the field."""

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.test_cli_parity import cli_json, comparable
from tests.report.test_measured_profile import INFO, MASTER, REPLICA
from workloads.io_profile import derive_io_profile, io_profile_document
from workloads.real.io_profile_file import save_io_profile


@pytest.fixture
def document() -> dict[str, Any]:
    """A replay step's profile (the report's test's counters: more page reads per transaction
    than the model's, so a run with the profile differs from one without), as uploaded JSON."""
    level = {"threads": 4, "offered_tps": None, "achieved_tps": 500.0, "reads": 3000,
             "writes": 990, "heartbeat_writes": 10,
             "status_delta": {"master": MASTER, "replica": REPLICA}}
    profile = derive_io_profile(level, INFO, replicas=1)
    assert profile is not None
    return json.loads(json.dumps(io_profile_document(profile, where="test")))


@pytest.fixture
def profile_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 document: dict[str, Any]) -> Path:
    """The document as the file the CLI reads (and the built-in catalog for both sides)."""
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    path = tmp_path / "io.json"
    save_io_profile(document, path)
    return path


def test_simulate_with_an_uploaded_profile_matches_the_cli(
        client: TestClient, capsys: pytest.CaptureFixture[str], profile_file: Path,
        document: dict[str, Any]) -> None:
    path = profile_file
    args = {"spec": "r5.large:gp3:500GiB", "workload": "mysql", "ramp": "tps=200,400",
            "engine": "analytic", "duration": 10}
    cli = cli_json(capsys, "simulate", "r5.large:gp3:500GiB", "--workload", "mysql", "--ramp",
                   "tps=200,400", "--engine", "analytic", "--duration", "10",
                   "--io-profile", str(path))
    with_profile = client.post("/v1/simulate", json={**args, "io_profile": document})
    assert with_profile.status_code == 201, with_profile.text
    assert comparable(with_profile.json()) == comparable(cli)
    without = client.post("/v1/simulate", json=args).json()
    assert comparable(without) != comparable(cli)  # the profile changed the run
    run = client.get(f"/v1/runs/{with_profile.json()['run_id']}").json()
    assert json.dumps(run).count("advisor.io_profile/1") >= 1  # stored with what it came from


@pytest.mark.slow  # two sizings of a small request
def test_size_with_an_uploaded_profile_matches_the_cli(
        client: TestClient, capsys: pytest.CaptureFixture[str], profile_file: Path,
        document: dict[str, Any]) -> None:
    path = profile_file
    cli = cli_json(capsys, "size", "--tps", "300", "--reads", "9", "--data-gb", "40",
                   "--io-profile", str(path))
    api = client.post("/v1/size", json={"tps": 300, "reads": 9, "data_gb": 40,
                                        "io_profile": document})
    assert api.status_code == 201, api.text
    assert comparable(api.json()) == comparable(cli)
    assert api.json()["measured_io"] is not None
    plain = client.post("/v1/size", json={"tps": 300, "reads": 9, "data_gb": 40}).json()
    assert plain.get("measured_io") is None  # the cache keeps the two requests apart


@pytest.mark.parametrize(("route", "body", "words"), [
    ("/v1/size", {"tps": 300, "io_profile": {"schema": "advisor.io_profile/9"}},
     "io_profile: field schema"),
    ("/v1/size", {"tps": 300, "io_profile": {}}, "io_profile: field"),
    ("/v1/size", {"workload": "aerospike", "reads_per_sec": 1000, "io_profile": {}},
     "io_profile: applies to the mysql workload only"),
    ("/v1/simulate", {"spec": "r5.large:gp3:500GiB", "rw": "randread", "io_profile": {}},
     "io_profile: applies to the mysql workload only"),
    ("/v1/size", {"tps": 300, "io_profile": [1, 2]}, "io_profile"),
    ("/v1/size", {"tps": 300, "io_profile": "file.json"}, "io_profile"),
])
def test_a_bad_profile_is_a_422_naming_it(client: TestClient, route: str, body: dict[str, Any],
                                         words: str) -> None:
    r = client.post(route, json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert words in detail
    assert "\n" not in detail


def test_a_profile_with_a_bad_figure_is_a_422(client: TestClient,
                                            document: dict[str, Any]) -> None:
    bad = {**document, "per_write_txn": {**document["per_write_txn"], "page_reads": -1}}
    r = client.post("/v1/size", json={"tps": 300, "io_profile": bad})
    assert r.status_code == 422
    assert "io_profile: field per_write_txn.page_reads" in r.json()["detail"]


@pytest.mark.parametrize("value", [1e308, 1e7])
def test_an_absurd_figure_is_refused_by_the_api_and_the_cli(
        client: TestClient, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        document: dict[str, Any], value: float) -> None:
    """A per-transaction figure no workload reaches (1e308 page reads made the sizing's
    arithmetic overflow: a 500) is one line naming the field, 422 and exit 2."""
    from tests.cli_helpers import run

    bad = {**document, "per_write_txn": {**document["per_write_txn"], "page_reads": value}}
    r = client.post("/v1/size", json={"tps": 300, "io_profile": bad})
    assert r.status_code == 422
    assert "io_profile: field per_write_txn.page_reads" in r.json()["detail"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code, _, err = run(capsys, "size", "--tps", "300", "--io-profile", str(path))
    assert code == 2
    assert "per_write_txn.page_reads" in err
    assert len(err.strip().splitlines()) == 1
