"""The `/v1/simulate` response schema is generated from the typed results (one per kind: raw
pattern, MySQL, Aerospike), as the size one is: every answer the API gives validates against
what it documents, and an answer missing a field or of the wrong type does not."""

import copy
from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient


def _validator(client: TestClient) -> Any:
    schema = client.get("/openapi.json").json()
    response = schema["paths"]["/v1/simulate"]["post"]["responses"]["201"]["content"][
        "application/json"]["schema"]
    return jsonschema_rs.Draft202012Validator({"components": schema["components"], **response})


BODIES = {
    "pattern": {"spec": "m5d.large:gp2:100GiB", "duration": 0.5, "ramp": "iodepth=1,4"},
    "mysql": {"spec": "r5.large:gp3:500GiB", "workload": "mysql", "tps": 200, "data_gb": 4,
              "duration": 1, "engine": "des"},
    "mysql-threads": {"spec": "r5.large:gp3:500GiB", "workload": "mysql", "data_gb": 4,
                      "duration": 1, "ramp": "threads=1,2"},
    "aerospike": {"spec": "i3.large:store", "workload": "aerospike", "duration": 2},
}


@pytest.mark.parametrize("kind", list(BODIES))
def test_each_simulate_answer_is_what_the_schema_documents(client: TestClient,
                                                           kind: str) -> None:
    response = client.post("/v1/simulate", json=BODIES[kind] | {"seed": 1})
    assert response.status_code == 201, response.text
    data = response.json()
    validator = _validator(client)
    errors = [str(e) for e in validator.iter_errors(data)]
    assert not errors, errors[:3]
    # the schema is not free-form: a missing field or a field of the wrong type is refused
    for broken in ("levels", "latency_ms", "seed"):
        bad = copy.deepcopy(data)
        del bad[broken]
        assert not validator.is_valid(bad), broken
    for key, value in (("duration_s", "long"), ("levels", [{"load": "many"}])):
        bad = copy.deepcopy(data)
        bad[key] = value
        assert not validator.is_valid(bad), key


def test_the_schema_names_each_kind_of_result(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    mysql = schemas["MysqlSimulateResult"]
    assert {"params", "io_profile", "knee", "levels", "deployment"} <= set(mysql["required"])
    assert "closed_loop_note" not in mysql["required"]  # written only for a threads ramp
    assert schemas["ActSimulateResult"]["properties"]["workload"]["const"] == "aerospike"
    assert "workload" not in schemas["PatternSimulateResult"]["properties"]
