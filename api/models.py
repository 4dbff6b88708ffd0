"""Request and response bodies of the HTTP API, mirroring the CLI's options.

Request bodies check types only (and refuse unknown fields, so no file path or database URL can
be slipped in); ranges are checked by the same core objects the CLI builds, so a bad value gets
the CLI's own one-line message. Result bodies are the core's JSON plus `run_id`; their schemas
name the stable keys (BRIEF section 6) and allow more.
"""

import dataclasses
import typing
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from advisor.catalog.describe import InstanceFilter
from advisor.options import Declared, declared
from advisor.sim.results import PatternResult
from recommend.request import WORKLOAD, size_fields
from recommend.result import SizeResultFields
from workloads.results import ActSimResult, MysqlSimResult
from workloads.simulate_request import WORKLOAD as SIM_WORKLOAD
from workloads.simulate_request import simulate_fields


class _Body(BaseModel):
    # strict: JSON true is not a number and "3" is not an integer, as the OpenAPI schema says
    model_config = ConfigDict(extra="forbid", strict=True)


def _field(d: Declared) -> tuple[Any, Any]:
    """A body field from an option declaration: its type, default, description and the bounds
    in the schema (checked by the core request, which words the error)."""
    schema: dict[str, Any] = {}
    for key, bound in (("minimum", d.opt.ge), ("exclusiveMinimum", d.opt.gt),
                       ("maximum", d.opt.le), ("exclusiveMaximum", d.opt.lt)):
        if bound is not None:
            schema[key] = bound
    if d.opt.choices:
        schema["enum"] = list(d.opt.choices)
    kind = d.opt.api_type if d.opt.api_type is not None else d.type
    default = ... if d.default is dataclasses.MISSING else d.default
    return kind, Field(default, description=d.opt.help, json_schema_extra=schema or None)


def body_model(name: str, decls: Iterable[Declared], doc: str,
               extra: dict[str, tuple[Any, Any]] | None = None) -> type[BaseModel]:
    """A strict request body with one field per declared option (and `extra` fields that are
    no option of the core request, such as an uploaded document)."""
    fields: dict[str, Any] = {d.name: _field(d) for d in decls} | (extra or {})
    return create_model(name, __base__=_Body, __doc__=doc, **fields)


# The CLI's `--io-profile FILE`: the API takes the file's contents. Validated by the same code
# that reads the file (`workloads.real.io_profile_file.parse_io_profile`), after the request.
IO_PROFILE: dict[str, tuple[Any, Any]] = {"io_profile": (dict[str, Any] | None, Field(
    None, description="MySQL only: a measured I/O profile, the JSON object `advisor replay "
    "--io-profile-out` writes (schema `advisor.io_profile/1`). The run uses its per-transaction "
    "I/O instead of the model's and records it (the CLI's --io-profile FILE)."))}

SizeBody = body_model("SizeBody", [WORKLOAD, *size_fields().values()],
                      "`advisor size` options; every field has the CLI's default.",
                      extra=IO_PROFILE)


SimulateBody = body_model(
    "SimulateBody", [SIM_WORKLOAD, *simulate_fields().values()],
    "`advisor simulate SPEC` options: a raw fio/sysbench/ioping pattern, or a database workload "
    "(`workload`: mysql or aerospike) with its own fields.", extra=IO_PROFILE)


class _Result(BaseModel):
    model_config = ConfigDict(extra="allow")


RUN_ID = Field(..., description="id of the stored run (GET /v1/runs/{id})")


_ANY_WORKLOAD = (str, Field(..., description="mysql or aerospike"))


def result_model(name: str, cls: type, doc: str, *,
                 workload: Any = _ANY_WORKLOAD) -> type[BaseModel]:
    """A response body documenting a typed result's fields, read from its dataclass (so the
    schema cannot drift from what the core returns), plus the stored run's id (and `workload`
    as given: a result of one workload names it; None leaves it out)."""
    hints = typing.get_type_hints(cls)
    # a field left out while None (serial's omit_none) is optional; every other one is written
    fields: dict[str, Any] = {f.name: (hints[f.name], None if f.metadata.get("omit_none")
                                       else ...) for f in dataclasses.fields(cls)}
    if workload is not None:
        fields["workload"] = workload
    return create_model(name, __base__=_Result, __doc__=doc, run_id=(str, RUN_ID), **fields)


SizeResult = result_model("SizeResult", SizeResultFields,
                          "`advisor size`'s result: the recommendation, alternatives, the cheaper "
                          "candidates rejected with reasons, and how the search went.")


PatternSimulateResult = result_model(
    "PatternSimulateResult", PatternResult, "`advisor simulate SPEC` on a raw I/O pattern (fio, "
    "sysbench fileio, ioping): one level per ramp value; the top-level figures are the last "
    "level's.", workload=None)
MysqlSimulateResult = result_model(
    "MysqlSimulateResult", MysqlSimResult, "`advisor simulate SPEC --workload mysql`: the "
    "deployment at each load level, the SLO knee and the saturation point.",
    workload=(typing.Literal["mysql"], Field(..., description="mysql")))
ActSimulateResult = result_model(
    "ActSimulateResult", ActSimResult, "`advisor simulate SPEC --workload aerospike`: ACT's "
    "load levels, their rating and the highest passing one.",
    workload=(typing.Literal["aerospike"], Field(..., description="aerospike")))
# The result of one of the three, read from their dataclasses as the size result is.
SimulateResult: Any = PatternSimulateResult | MysqlSimulateResult | ActSimulateResult


class LayoutResult(_Result):
    spec: str
    capacity_gib: float
    ephemeral: bool
    annual_loss_probability: float
    limits: list[dict[str, Any]]
    cost: dict[str, Any]


class _Query(BaseModel):
    # query strings are text: not strict (FastAPI converts "64" to a number); unknown parameters
    # are refused like unknown body fields
    model_config = ConfigDict(extra="forbid")


_FILTERS: dict[str, Any] = {d.name: _field(d) for d in declared(InstanceFilter)}
InstancesQuery: type[BaseModel] = create_model(
    "InstancesQuery", __base__=_Query,
    __doc__="`advisor catalog instances` filters: --family, --arch, --min-memory-gib, --min-vcpu.",
    **_FILTERS)


class InstancesResult(_Result):
    catalog_version: str
    region: str
    instances: list[dict[str, Any]]


class VolumesResult(_Result):
    catalog_version: str
    region: str
    volumes: list[dict[str, Any]]


class RunSummary(BaseModel):
    id: str
    kind: str
    workload: str | None
    created_at: str
    advisor_version: str
    catalog_version: str | None
    request: dict[str, Any]


class Run(RunSummary):
    result: dict[str, Any]


class RunList(BaseModel):
    runs: list[RunSummary]


class Health(BaseModel):
    status: str
    advisor_version: str
    catalog_version: str


class ErrorOut(BaseModel):
    detail: str = Field(..., description="one line saying what is wrong (as the CLI says it)")
