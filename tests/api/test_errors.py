"""Errors: bad input is 422 with the CLI's own one-line message, an SLO nobody meets is 409,
work over the budget is refused, and no request can name a file or a database."""

import pytest
from fastapi.testclient import TestClient

from advisor.cli.main import main


def cli_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The CLI's one line for `advisor ARGV`, without its `error: ` prefix."""
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    return err.removeprefix("error: ")


def as_body_field(line: str) -> str:
    """The CLI's line with its leading flag (`--data-gb`) named as the body field (`data_gb`)."""
    first, rest = line.split(" ", 1)
    return f"{first[2:].replace('-', '_')} {rest}" if first.startswith("--") else line


@pytest.mark.parametrize(("body", "argv"), [
    ({"tps": -1}, ["--tps", "-1"]),
    ({"reads": 20000}, ["--reads", "20000"]),
    ({"replicas": "many"}, ["--replicas", "many"]),
    ({"replicas": 9}, ["--replicas", "9"]),
    ({"workload": "postgres"}, ["--workload", "postgres"]),
    ({"headroom": 11}, ["--headroom", "11"]),
    ({"peak_hours": 25}, ["--peak-hours", "25"]),
    ({"data_gb": 0}, ["--data-gb", "0"]),
    ({"region": "eu-west-1"}, ["--region", "eu-west-1"]),
    ({"workload": "aerospike"}, ["--workload", "aerospike"]),
    ({"preset": "tpcc"}, ["--preset", "tpcc"]),
    ({"io_capacity": 50}, ["--io-capacity", "50"]),
    ({"replica_workers": 0}, ["--replica-workers", "0"]),
    ({"read_txn": "point=-3"}, ["--read-txn", "point=-3"]),
    ({"write_txn": "point=2"}, ["--write-txn", "point=2"]),
    ({"skew": "hot:0%:50%"}, ["--skew", "hot:0%:50%"]),
    ({"preset": "sysbench-oltp-wo", "reads": 3}, ["--preset", "sysbench-oltp-wo", "--reads",
                                                  "3"]),
])
def test_size_refuses_bad_values_with_the_cli_message(
        client: TestClient, capsys: pytest.CaptureFixture[str], body: dict[str, object],
        argv: list[str]) -> None:
    """POST /v1/size with a bad value: 422 and the line `advisor size` prints, the field named
    as the body names it (`data_gb`) where the CLI names its flag (`--data-gb`)."""
    r = client.post("/v1/size", json=body)
    assert r.status_code == 422
    line = cli_error(capsys, "size", *argv)
    assert line.startswith("--")
    assert r.json() == {"detail": as_body_field(line)}


@pytest.mark.parametrize(("body", "argv"), [
    ({"spec": "m5d.large:gp2:385", "rw": "randread"}, ["m5d.large:gp2:385"]),
    ({"spec": "m5.8xlarge:io1:1000GiB:70000iops"}, ["m5.8xlarge:io1:1000GiB:70000iops"]),
    ({"spec": "m5.large:store"}, ["m5.large:store"]),
    ({"spec": "m5d.large:gp2:385GiB", "rw": "sideways"}, ["m5d.large:gp2:385GiB", "--rw",
                                                          "sideways"]),
    ({"spec": "m5d.large:gp2:385GiB", "bs": "lots"}, ["m5d.large:gp2:385GiB", "--bs", "lots"]),
    ({"spec": "m5d.large:gp2:385GiB", "iodepth": 0}, ["m5d.large:gp2:385GiB", "--iodepth", "0"]),
    ({"spec": "m5d.large:gp2:385GiB", "ramp": "depth=1"}, ["m5d.large:gp2:385GiB", "--ramp",
                                                           "depth=1"]),
    ({"spec": "m5d.large:gp2:385GiB", "engine": "fast"}, ["m5d.large:gp2:385GiB", "--engine",
                                                          "fast"]),
    ({"spec": "m5d.large:gp2:385GiB", "workload": "redis"}, ["m5d.large:gp2:385GiB",
                                                             "--workload", "redis"]),
])
def test_simulate_refuses_bad_values_with_the_cli_message(
        client: TestClient, capsys: pytest.CaptureFixture[str], body: dict[str, object],
        argv: list[str]) -> None:
    """POST /v1/simulate with a bad spec or option: 422 and `advisor simulate`'s line (a bad
    option named as the body names it)."""
    r = client.post("/v1/simulate", json=body)
    assert r.status_code == 422
    assert r.json() == {"detail": as_body_field(cli_error(capsys, "simulate", *argv))}


@pytest.mark.parametrize(("body", "detail"), [
    ({"tps": "lots"}, "tps: Input should be a valid number"),
    ({"allow_ephemeral": "perhaps"}, "allow_ephemeral: Input should be a valid boolean"),
    ({"seed": -1}, "seed -1: must be 0 or more"),
    ({"catalog": "/etc/passwd"}, "catalog: unknown field"),
    # a profile is uploaded as its JSON object, never named by a path on the server
    ({"io_profile": "/tmp/profile.json"}, "io_profile: Input should be a valid dictionary"),
    ({"database_url": "mysql://root@db/x"}, "database_url: unknown field"),
    ([627, 3.25], "the body must be a JSON object"),
])
def test_malformed_bodies_get_one_line_naming_the_field(
        client: TestClient, body: object, detail: str) -> None:
    """Type errors and unknown fields (no file path or URL is accepted): 422, one line."""
    r = client.post("/v1/size", json=body)
    assert r.status_code == 422
    assert r.json()["detail"].startswith(detail)
    assert "\n" not in r.json()["detail"]


def test_invalid_json_and_missing_body(client: TestClient) -> None:
    """Not JSON, or no body at all: 422 saying so."""
    r = client.post("/v1/size", content=b'{"tps": 627,', headers={"content-type":
                                                                  "application/json"})
    assert r.status_code == 422
    assert r.json()["detail"].startswith("the body is not valid JSON")
    r = client.post("/v1/simulate")
    assert r.status_code == 422
    assert r.json()["detail"] == "a JSON object body is required"
    r = client.post("/v1/simulate", json={})
    assert r.status_code == 422
    assert r.json()["detail"] == "spec: Field required"


def test_no_layout_meets_the_slo_is_409(client: TestClient) -> None:
    """A valid question whose answer is no: 409 with what the SLO costs (the cheapest
    deployment that meets it, verified like an answer: the main job's), the closest candidates
    within the budget and why."""
    r = client.post("/v1/size", json={"tps": 627, "max_monthly_usd": 10})
    assert r.status_code == 409
    assert r.json()["detail"].startswith(
        "no layout meets the SLO: the cheapest deployment that meets it costs $174.69/month, "
        "over $10.00: master m6g.large:raid0:2xgp3:60GiB + 1 x replica "
        "c6g.xlarge:raid0:2xgp3:60GiB; ")


def test_simulations_over_the_io_budget_are_refused(client: TestClient) -> None:
    """More simulated I/Os than the budget (20 M by default): 422 saying the limit. (With
    engine auto the same run is answered analytically, within the budget.)"""
    r = client.post("/v1/simulate", json={"spec": "m5.8xlarge:io1:1000GiB:50000iops",
                                          "iodepth": 64, "duration": 3600, "engine": "des"})
    assert r.status_code == 422
    assert "over the limit of 20,000,000" in r.json()["detail"]
    for body in ({"spec": "i3.large:store", "workload": "aerospike", "ramp": "x=1,2,5",
                  "duration": 3600},
                 {"spec": "r5.large:gp3:500GiB", "workload": "mysql", "tps": 5000,
                  "data_gb": 4, "duration": 3600, "engine": "des"}):
        r = client.post("/v1/simulate", json=body)
        assert r.status_code == 422
        assert "over the limit of 20,000,000" in r.json()["detail"]


def test_the_analytic_engine_is_not_counted_against_the_budget(client: TestClient) -> None:
    """The same long run on the analytic engine (formulas, no events) is answered."""
    r = client.post("/v1/simulate", json={"spec": "m5.8xlarge:io1:1000GiB:50000iops",
                                          "iodepth": 64, "duration": 3600,
                                          "engine": "analytic"})
    assert r.status_code == 201, r.text


def test_durations_over_an_hour_are_refused(client: TestClient) -> None:
    """The API simulates at most 3,600 s per level; longer runs are for the CLI."""
    r = client.post("/v1/simulate", json={"spec": "m5d.large:gp2:385GiB", "duration": 7200,
                                          "engine": "analytic"})
    assert r.status_code == 422
    assert r.json()["detail"].startswith("duration 7200: the API simulates between 0 and 3600")


def test_a_smaller_budget_from_settings(catalog: object, tmp_path: object) -> None:
    """ADVISOR_API_IO_BUDGET (here via Settings) sets the limit the message names."""
    from tests.api.conftest import make_client

    small = make_client(catalog, f"sqlite:///{tmp_path}/runs.sqlite3",  # type: ignore[arg-type]
                        io_budget=1000)
    r = small.post("/v1/simulate", json={"spec": "m5d.large:gp2:385GiB", "iodepth": 4,
                                         "duration": 10})
    assert r.status_code == 422
    assert "over the limit of 1,000" in r.json()["detail"]
