"""Fleet jobs over HTTP: `POST /v1/fleet` starts one, `GET /v1/fleet/{id}` gives its state.

A job's rows are parsed (and a malformed fleet refused with 422) before it starts; then its rows
run one at a time on the API's workers (`api.workers`, the same processes as `/v1/size`), so a
fleet never takes every worker from single sizings; a busy pool makes the job wait, not fail.
Each row is `recommend.fleet.size_row`, `advisor fleet`'s core call. Jobs live in this server
process: at most MAX_FLEET_ROWS rows each, MAX_RUNNING at once, the last MAX_KEPT kept.
Fleets larger than that belong to `advisor fleet --scheduler` on a Dask cluster.
"""

import asyncio
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from fastapi import FastAPI, HTTPException
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from advisor.catalog.model import Catalog
from advisor.serial import to_json
from api.workers import Saturated, Workers
from recommend.fleet import FleetRow, RowResult, parse_rows, size_row, summarise

MAX_FLEET_ROWS = 1000
MAX_RUNNING = 2
MAX_KEPT = 32


class FleetBody(BaseModel):
    """A fleet: one object per workload, with `advisor fleet`'s columns as keys."""

    model_config = ConfigDict(extra="forbid", strict=True)
    rows: list[dict[str, Any]] = Field(
        ..., min_length=1, max_length=MAX_FLEET_ROWS,
        description="workloads: `id`, `workload` (mysql or aerospike), `size`'s options, and "
        "optionally `current_deployment` and `current_monthly_usd`")


class FleetStarted(BaseModel):
    id: str
    state: str
    rows: int


class FleetState(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    state: str = Field(..., description="running, done or failed")
    rows: int
    done: int
    results: list[dict[str, Any]] = Field(..., description="finished rows, in file order")
    report: dict[str, Any] | None = Field(..., description="the fleet report's JSON when done")


def fleet_row_job(row: FleetRow, catalog: Catalog) -> RowResult:
    """One row in a worker process (module level, so it pickles)."""
    return size_row(row, catalog)


@dataclass
class FleetJob:
    id: str
    rows: list[FleetRow]
    state: Literal["running", "done", "failed"] = "running"
    results: dict[str, RowResult] = field(default_factory=dict)
    detail: str | None = None
    report: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        order = [r.id for r in self.rows if r.id in self.results]
        out = {"id": self.id, "state": self.state, "rows": len(self.rows),
               "done": len(self.results),
               "results": [self.results[i].table_row() for i in order],
               "report": self.report}
        if self.detail:
            out["detail"] = self.detail
        return out


class FleetJobs:
    """The server's fleet jobs, run as tasks on its event loop."""

    def __init__(self, workers: Workers, catalog: Catalog) -> None:
        self.workers = workers
        self.catalog = catalog
        self.jobs: OrderedDict[str, FleetJob] = OrderedDict()
        self.tasks: set[asyncio.Task[None]] = set()

    def start(self, body: FleetBody) -> FleetJob:
        rows = parse_rows(body.rows)  # FleetFileError: 422 naming the row
        running = sum(j.state == "running" for j in self.jobs.values())
        if running >= MAX_RUNNING:
            raise Saturated(30, running)
        job = FleetJob(id=uuid.uuid4().hex, rows=rows)
        self.jobs[job.id] = job
        while len(self.jobs) > MAX_KEPT:
            oldest = next((k for k, j in self.jobs.items() if j.state != "running"), None)
            if oldest is None:
                break
            del self.jobs[oldest]
        task = asyncio.get_running_loop().create_task(self._run(job))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return job

    async def _run(self, job: FleetJob) -> None:
        from advisor.report.fleet_view import fleet_json

        try:
            for row in job.rows:
                while True:
                    try:
                        job.results[row.id] = await self.workers.run(fleet_row_job, row,
                                                                     self.catalog)
                        break
                    except Saturated as exc:  # the pool is busy with sizings: wait our turn
                        await anyio.sleep(min(exc.retry_after_s, 5))
            summary = summarise(list(job.results.values()),
                                catalog_version=self.catalog.catalog_version)
            job.report = fleet_json(summary, where="API workers", seconds=None)
            job.state = "done"
        except asyncio.CancelledError:
            job.state, job.detail = "failed", "the server stopped before the fleet finished"
            raise
        except Exception as exc:  # a worker died, a timeout: the job says so, the server lives
            job.state, job.detail = "failed", f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()


def add_routes(app: FastAPI, jobs: FleetJobs, *, dependencies: list[Any],
               responses: dict[int | str, dict[str, Any]]) -> None:
    """POST /v1/fleet and GET /v1/fleet/{id} on `app`."""

    @app.post("/v1/fleet", response_model=FleetStarted, status_code=202, tags=["fleet"],
              dependencies=dependencies, responses=responses)
    async def start_fleet(body: FleetBody) -> JSONResponse:
        """`advisor fleet`: size every row (at most 1,000) as `POST /v1/size` would, in the
        background; poll the `Location` for its state and results. 503 with Retry-After when
        two fleets are running already."""
        job = jobs.start(body)
        return JSONResponse({"id": job.id, "state": job.state, "rows": len(job.rows)},
                            status_code=202, headers={"Location": f"/v1/fleet/{job.id}"})

    @app.get("/v1/fleet/{fleet_id}", response_model=FleetState, tags=["fleet"],
             dependencies=dependencies, responses=responses)
    def fleet_state(fleet_id: str) -> JSONResponse:
        """A fleet job's state, its finished rows and, once done, the fleet report (JSON)."""
        job = jobs.jobs.get(fleet_id)
        if job is None:
            raise HTTPException(404, f"no fleet job {fleet_id[:40]!r}")
        return JSONResponse(to_json(job.to_json()))
