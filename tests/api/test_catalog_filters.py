"""GET /v1/catalog/instances takes the CLI's filters (issue 14) as query parameters, declared once
(`advisor.catalog.describe.InstanceFilter`): the same rows as `advisor catalog instances`, and a
bad value is a 422 whose one line names the parameter."""

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from advisor.catalog.describe import InstanceFilter
from advisor.cli.main import main
from advisor.options import declared


def _names(client: TestClient, params: Any) -> list[str]:
    r = client.get("/v1/catalog/instances", params=params)
    assert r.status_code == 200, r.text
    return [i["name"] for i in r.json()["instances"]]


def test_filters_keep_what_the_cli_keeps(client: TestClient,
                                         capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """family + arch + min_memory_gib: the JSON equals the CLI's for the same filters."""
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    api = client.get("/v1/catalog/instances", params={
        "family": "r7g", "arch": "arm64", "min_memory_gib": 64}).json()
    assert main(["catalog", "instances", "--family", "r7g", "--arch", "arm64",
                 "--min-memory-gib", "64", "--format", "json"]) == 0
    assert api == json.loads(capsys.readouterr().out)
    assert [i["name"] for i in api["instances"]] == ["r7g.2xlarge", "r7g.4xlarge", "r7g.8xlarge",
                                                     "r7g.12xlarge", "r7g.16xlarge"]


def test_family_repeated_or_comma_separated(client: TestClient) -> None:
    """`family=m7g&family=m7i` and `family=m7g,m7i` are the same filter; min_vcpu applies."""
    repeated = _names(client, [("family", "m7g"), ("family", "m7i"), ("min_vcpu", "64")])
    assert repeated == _names(client, {"family": "m7g,m7i", "min_vcpu": 64})
    assert repeated == ["m7g.16xlarge", "m7i.16xlarge"]
    assert _names(client, {"family": "r7g", "arch": "x86_64"}) == []


def test_no_filter_lists_every_type(client: TestClient) -> None:
    """Without parameters every instance type is listed (>= 200), as before the filters."""
    assert len(_names(client, {})) >= 200


@pytest.mark.parametrize(("params", "detail"), [
    ({"family": "r9z"}, "family 'r9z': not in the catalog (families: c1, "),
    ({"arch": "sparc"}, "arch 'sparc': choose x86_64 or arm64"),
    ({"min_vcpu": -1}, "min_vcpu -1: must be 0 or more"),
    ({"min_memory_gib": "nan"}, "min_memory_gib nan: must be a finite number"),
    ({"min_memory_gib": 2e9}, "min_memory_gib 2000000000: at most 1,000,000,000"),
    ({"min_vcpu": "many"}, "min_vcpu: Input should be a valid integer"),
    ({"path": "/etc/passwd"}, "path: unknown field"),
])
def test_bad_values_are_one_line_422(client: TestClient, params: dict[str, Any],
                                     detail: str) -> None:
    """The core's own check words the error (the CLI's message, the field named as the API
    names it); a type error or an unknown parameter is one line too."""
    r = client.get("/v1/catalog/instances", params=params)
    assert r.status_code == 422
    line = r.json()["detail"]
    assert line.startswith(detail)
    assert "\n" not in line


def test_query_parameters_are_the_declared_filters(client: TestClient) -> None:
    """The OpenAPI schema lists one query parameter per declared filter, with its help and
    bounds: the same declarations the CLI's options come from."""
    params = client.get("/openapi.json").json()["paths"]["/v1/catalog/instances"]["get"][
        "parameters"]
    by_name = {p["name"]: p for p in params}
    decls = declared(InstanceFilter)
    assert set(by_name) == {d.name for d in decls}
    for d in decls:
        assert by_name[d.name]["in"] == "query"
        assert by_name[d.name]["description"] == d.opt.help
    assert by_name["min_vcpu"]["schema"]["maximum"] == 100_000
    assert by_name["arch"]["schema"]["enum"] == ["x86_64", "arm64"]
