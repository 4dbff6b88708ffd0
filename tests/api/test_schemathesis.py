"""Schemathesis against the app's own OpenAPI schema: generated requests, valid and invalid,
never get a 5xx, and every answer matches the documented status codes, types and schemas."""

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from advisor.catalog.model import Catalog
from advisor.store import SqlRunStore
from api.app import create_app
from api.service import Settings

MAX_EXAMPLES = 25
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, negative_data_rejection]


@pytest.fixture(scope="module")
def fuzzed_app(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> FastAPI:
    """A small budget keeps generated simulations quick; sizing answers are cached."""
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'runs.sqlite3'}"
    return create_app(Settings(io_budget=2_000_000, max_duration_s=60.0),
                      store=SqlRunStore(url), catalog=catalog)


@pytest.fixture(scope="module")
def api_schema(fuzzed_app: FastAPI) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_asgi("/openapi.json", fuzzed_app)


OPERATIONS = [("POST", "/v1/size"), ("POST", "/v1/simulate"), ("GET", "/v1/layouts/{spec}"),
              ("GET", "/v1/catalog/instances"), ("GET", "/v1/catalog/volumes"),
              ("GET", "/v1/runs"), ("GET", "/v1/runs/{run_id}"),
              ("GET", "/v1/runs/{run_id}/report"), ("GET", "/healthz")]


# Invalid requests exist only where there is a typed input to break (a body, a bounded query).
CASES = [(m, p, GenerationMode.POSITIVE) for m, p in OPERATIONS] + [
    (m, p, GenerationMode.NEGATIVE) for m, p in OPERATIONS
    if (m, p) in {("POST", "/v1/size"), ("POST", "/v1/simulate"), ("GET", "/v1/runs")}]
SLOW_CASES = {("POST", "/v1/size", GenerationMode.POSITIVE)}  # ~9 s: 25 valid sizing searches


def test_every_operation_is_fuzzed(api_schema: schemathesis.BaseSchema) -> None:
    """The list below covers every operation the schema documents."""
    found = {(r.ok().method.upper(), r.ok().path) for r in api_schema.get_all_operations()}
    assert found == set(OPERATIONS)


# advisor.sim.analytic._gamma divides by a zero wait (e.g. --data-gb 1: everything cached) and
# overflows for extreme SLOs; numpy only warns (in production the answer is unaffected), but
# this suite turns warnings into errors. Reported to the simulator's owner; narrow on purpose.
@pytest.mark.filterwarnings("ignore::RuntimeWarning:advisor.sim.analytic")
@pytest.mark.parametrize(("method", "path", "mode"), [
    pytest.param(m, p, mode, id=f"{m} {p} {mode.value}",
                 marks=[pytest.mark.slow] if (m, p, mode) in SLOW_CASES else [])
    for m, p, mode in CASES])
def test_no_generated_request_gets_a_server_error(api_schema: schemathesis.BaseSchema,
                                                  method: str, path: str,
                                                  mode: GenerationMode) -> None:
    """Any request the schema allows (or breaks on purpose) is answered with a documented
    status and body: 2xx, 401/404/409/422 with one-line detail, never 5xx."""
    operation = api_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def check(case: schemathesis.Case) -> None:
        case.call_and_validate(checks=CHECKS)

    check()
