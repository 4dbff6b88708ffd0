"""The HTTP API: `create_app()` builds the FastAPI application `advisor serve` runs.

Endpoints are thin: each builds the core request the CLI builds and calls the same core function
(`api.service`). Errors are translated here, once: a value the user can fix -> 422 with the CLI's
one-line message; "no layout meets the SLO" -> 409; an unknown run -> 404; a missing or wrong
bearer token (when ADVISOR_API_TOKEN is set) -> 401, checked before the body is read; every
worker busy and the queue full, or the runs database unavailable -> 503 (Retry-After when busy).
Sizings and simulations run on worker processes (`api.workers`), so the event loop and the other
requests never wait for one; the rest is quick and runs in FastAPI's threadpool. `/docs` and
`/redoc` load their scripts from this server (fastapi-offline's bundled files), never a CDN.
"""

import logging
import reprlib
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

import anyio.to_thread
from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from advisor import __version__
from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError, InfeasibleSlo
from advisor.options import FieldError
from advisor.store import RunStore, SqlRunStore, StoreError
from api import models
from api.guard import CLIENT_GONE, RequestGuard
from api.jobs import JobError
from api.service import Service, Settings
from api.workers import JobTimeout, Saturated, WorkerDied

log = logging.getLogger("advisor.api")
MAX_DETAIL_CHARS = 300  # a 422 quotes at most this much (a 1 MB value is cut, not echoed)
_excerpt = reprlib.Repr()  # an excerpt of a value, however long or deeply nested it is
_excerpt.maxlevel, _excerpt.maxstring, _excerpt.maxother = 2, 60, 60
_excerpt.maxlist = _excerpt.maxdict = 4


def _error(description: str) -> dict[str, Any]:
    """An error response documented as JSON `{"detail": "..."}` (also on the HTML route)."""
    return {"description": description,
            "content": {"application/json": {"schema": models.ErrorOut.model_json_schema()}}}


Responses = dict[int | str, dict[str, Any]]
BAD_INPUT: Responses = {422: _error(
    "bad input: one line saying which value is wrong and why (the CLI's message), or a "
    "simulation over the I/O budget")}
NO_TOKEN: Responses = {401: _error(
    "ADVISOR_API_TOKEN is set and the request has no (or a wrong) `Authorization: Bearer` token")}
NO_LAYOUT: Responses = {409: _error(
    "no layout meets the SLO: a valid question whose answer is no; the detail names the closest "
    "candidates and what they miss (the CLI exits 1)")}
NOT_FOUND: Responses = {404: _error("no run with this id")}
TOO_LARGE: Responses = {413: _error("the body is over ADVISOR_API_MAX_BODY_BYTES (64 KiB by "
                                    "default): refused from its Content-Length alone")}
UNAVAILABLE: Responses = {503: _error(
    "the runs database is unavailable, or every worker is busy and the queue is full (then "
    "with a `Retry-After` header: seconds to wait before trying again)")}


class RequestLog:
    """ASGI middleware: one log line per request (method, path, status, ms; 499 when the client
    left first). Never headers or the query string, so no token or secret reaches the log."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            if scope.get(CLIENT_GONE):
                status = 499
            log.info("%s %s %d %.1fms", scope["method"], scope["path"], status,
                     (time.perf_counter() - start) * 1000)


def _one_line(exc: RequestValidationError) -> str:
    """Pydantic's first error as one line naming the field, like the CLI names its option."""
    errors = exc.errors()
    if not errors:
        return "invalid request"
    err = errors[0]
    loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query")]
    kind = err.get("type", "")
    if kind == "json_invalid":
        return f"the body is not valid JSON ({err.get('ctx', {}).get('error', 'parse error')})"
    if kind == "missing" and not loc:
        return "a JSON object body is required"
    if kind == "model_attributes_type" or (kind.endswith("_type") and not loc):
        return "the body must be a JSON object"
    field = ".".join(loc) or "body"
    if kind == "extra_forbidden":
        return f"{field}: unknown field (see /docs for the accepted fields)"
    message = " ".join(str(err.get("msg", "invalid")).split())
    shown = _excerpt.repr(err["input"]) if "input" in err and kind != "missing" else ""
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{field}: {message}" + (f", got {shown}" if shown else "") + more


def _short(detail: str) -> str:
    """One line of at most MAX_DETAIL_CHARS: a user error quotes an excerpt, never the input."""
    line = " ".join(detail.split())
    return line if len(line) <= MAX_DETAIL_CHARS else line[:MAX_DETAIL_CHARS - 1] + "…"


def create_app(settings: Settings | None = None, *, store: RunStore | None = None,
               catalog: Catalog | None = None) -> FastAPI:
    """The application. Defaults: settings from the environment, the runs database from
    ADVISOR_DATABASE_URL (or the user's SQLite file), the built-in catalog (+ $ADVISOR_CATALOG)."""
    settings = settings or Settings.from_env()
    if catalog is None:
        from advisor.userfiles import load_catalog

        catalog = load_catalog()
    service = Service(settings, catalog, store or SqlRunStore(settings.database_url))
    log.info("runs in %s; bearer token %s; %s", service.store.location,
             "required" if settings.token else "not required",
             f"{settings.workers} worker processes, {settings.queue_depth} more requests may wait"
             if settings.workers else "sizings run in threads of this process")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        service.workers.start()  # the workers warm up while the server starts
        try:
            yield
        finally:
            fleets.close()  # fleet jobs stop with the server (they live in its memory)
            await anyio.to_thread.run_sync(service.close)

    bearer = HTTPBearer(auto_error=False, description="set when ADVISOR_API_TOKEN is")

    def authorised(
            creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> None:
        if settings.token is None:
            return
        given = creds.credentials.encode() if creds else b""
        if not secrets.compare_digest(given, settings.token.encode()):
            raise HTTPException(401, "missing or wrong bearer token",
                                headers={"WWW-Authenticate": "Bearer"})

    # fastapi-offline: FastAPI's documented self-hosting of the docs pages, with the Swagger UI
    # and ReDoc files bundled in the package (served under /docs-assets); no validator badge.
    app = FastAPIOffline(
        title="advisor", version=__version__, lifespan=lifespan, static_url="/docs-assets",
        swagger_ui_parameters={"validatorUrl": None},
        summary="AWS storage sizing advisor and database-workload simulator",
        description="The same calls as the `advisor` command line: `POST /v1/size` is `advisor "
        "size`, `POST /v1/simulate` is `advisor simulate`. Every POST result is stored as a run; "
        "its id is in `run_id` and the `Location` header.")
    app.state.service = service
    # RequestLog outermost, so that it logs what the guard refuses too
    app.add_middleware(RequestGuard, token=settings.token, max_body_bytes=settings.max_body_bytes,
                       body_timeout_s=settings.body_timeout_s)
    app.add_middleware(RequestLog)
    # The schema documents the bearer scheme (and 401) only when this server requires it.
    secured = [Depends(authorised)] if settings.token else []
    guard: Responses = NO_TOKEN if settings.token else {}
    errors: Responses = {**BAD_INPUT, **guard}

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # FastAPI could not even decode the body
            if isinstance(exc.__cause__, RecursionError):
                return JSONResponse({"detail": "the body is JSON nested too deeply (a request "
                                     "is a flat JSON object)"}, status_code=422)
            return JSONResponse({"detail": "the body is not valid JSON (it is not UTF-8 text "
                                 "or not JSON at all)"}, status_code=422)
        return JSONResponse({"detail": str(exc.detail)}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _short(_one_line(exc))}, status_code=422)

    @app.exception_handler(InfeasibleSlo)
    async def _infeasible(_request: Request, exc: InfeasibleSlo) -> JSONResponse:
        return JSONResponse({"detail": f"no layout meets the SLO: {exc}"}, status_code=409)

    @app.exception_handler(StoreError)
    async def _store(_request: Request, exc: StoreError) -> JSONResponse:
        log.error("runs database: %s", exc)
        return JSONResponse({"detail": str(exc)}, status_code=503)

    @app.exception_handler(AdvisorError)
    async def _user_error(_request: Request, exc: AdvisorError) -> JSONResponse:
        # A field error names the body field (`data_gb`), where the CLI names its flag.
        detail = exc.named(exc.name) if isinstance(exc, FieldError) else str(exc)
        return JSONResponse({"detail": _short(detail)}, status_code=422)

    @app.exception_handler(Saturated)
    async def _busy(_request: Request, exc: Saturated) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503,
                            headers={"Retry-After": str(exc.retry_after_s)})

    @app.exception_handler(JobTimeout)
    async def _too_long(_request: Request, exc: JobTimeout) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(WorkerDied)
    async def _died(_request: Request, exc: WorkerDied) -> JSONResponse:
        return JSONResponse({"detail": f"internal error: {exc}"}, status_code=500)

    @app.exception_handler(JobError)
    async def _bug(_request: Request, exc: JobError) -> JSONResponse:
        log.error("internal error in a worker: %s\n%s", exc.detail, exc.trace)
        return JSONResponse({"detail": f"internal error: {_short(exc.detail)} (logged)"},
                            status_code=500)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        # one line for the client; uvicorn logs the traceback
        return JSONResponse({"detail": f"internal error: {type(exc).__name__} (logged)"},
                            status_code=500)

    @app.get("/healthz", response_model=models.Health, tags=["service"])
    def healthz() -> dict[str, Any]:
        """Liveness: the process answers (no token needed)."""
        return {"status": "ok", "advisor_version": __version__,
                "catalog_version": service.catalog.catalog_version}

    @app.post("/v1/size", response_model=models.SizeResult,
              status_code=201, tags=["size"],
              dependencies=secured,
              responses={**errors, **NO_LAYOUT, **TOO_LARGE, **UNAVAILABLE})
    async def size(body: models.SizeBody) -> JSONResponse:  # type: ignore[valid-type]
        """`advisor size`: the cheapest deployment that meets the SLO, its alternatives and
        the cheaper candidates rejected with reasons. Runs on a worker process; 503 with
        Retry-After when every worker is busy and the queue is full."""
        result, run_id, cached = await service.size(body)
        return _created({**result, "run_id": run_id}, run_id, cached=cached)

    @app.post("/v1/simulate", response_model=models.SimulateResult, status_code=201,
              tags=["simulate"], dependencies=secured,
              responses={**errors, **TOO_LARGE, **UNAVAILABLE})
    async def simulate(body: models.SimulateBody) -> JSONResponse:  # type: ignore[valid-type]
        """`advisor simulate SPEC`: a raw I/O pattern or a database workload on a layout.
        Refused with 422 when it would simulate more than ADVISOR_API_IO_BUDGET I/Os
        (default 20 M) or run longer than 3,600 s per level. Runs on a worker process; 503
        with Retry-After when every worker is busy and the queue is full."""
        result, run_id = await service.simulate(body)
        return _created({**result, "run_id": run_id}, run_id)

    @app.get("/v1/layouts/{spec}", response_model=models.LayoutResult, tags=["catalog"],
             dependencies=secured, responses=errors)
    def layout(spec: str,
               pricing: Literal["on-demand", "1yr-reserved", "3yr-reserved"] = "on-demand",
               ) -> JSONResponse:
        """`advisor layout SPEC`: capacity, limits, cost and durability of one layout
        (`pricing`: how the instance is paid for, as `--pricing`; a type with no sourced price
        under the plan is a 422)."""
        return JSONResponse(service.layout(spec, pricing))

    @app.get("/v1/catalog/instances", response_model=models.InstancesResult, tags=["catalog"],
             dependencies=secured, responses=errors)
    def instances(filters: Annotated[models.InstancesQuery, Query()]  # type: ignore[valid-type]
                  ) -> JSONResponse:
        """`advisor catalog instances`, with its filters as query parameters (`family` repeated
        or comma-separated); a bad value is a 422 naming the parameter."""
        return JSONResponse(service.instances(filters.model_dump()))  # type: ignore[attr-defined]

    @app.get("/v1/catalog/volumes", response_model=models.VolumesResult, tags=["catalog"],
             dependencies=secured, responses=errors)
    def volumes() -> JSONResponse:
        """`advisor catalog volumes`."""
        return JSONResponse(service.volumes())

    @app.get("/v1/runs", response_model=models.RunList, tags=["runs"], dependencies=secured,
             responses={**errors, **UNAVAILABLE})
    def recent(limit: Annotated[int, Query(ge=1, le=200)] = 20) -> dict[str, Any]:
        """The latest stored runs, newest first (without their results)."""
        return {"runs": [r.to_json(with_result=False) for r in service.store.recent(limit)]}

    @app.get("/v1/runs/{run_id}", response_model=models.Run, tags=["runs"],
             dependencies=secured, responses={**errors, **NOT_FOUND, **UNAVAILABLE})
    def run(run_id: str) -> JSONResponse:
        """A stored run: its request and result as they were saved."""
        found = service.store.get(run_id)
        if found is None:
            raise HTTPException(404, f"no run {_excerpt.repr(run_id)}")
        return JSONResponse(found.to_json())

    @app.get("/v1/runs/{run_id}/report", response_class=HTMLResponse, tags=["runs"],
             dependencies=secured, responses={**errors, **NOT_FOUND, **UNAVAILABLE,
                                              200: {"content": {"text/html": {}}}})
    def report(run_id: str) -> HTMLResponse:
        """The run's HTML report: one self-contained page (inline CSS and SVG charts)."""
        html = service.report(run_id)
        if html is None:
            raise HTTPException(404, f"no run {_excerpt.repr(run_id)}")
        return HTMLResponse(html)

    from api.fleet import FleetJobs, add_routes

    fleets = FleetJobs(service.workers, service.catalog)
    add_routes(app, fleets, dependencies=secured,
               responses={**errors, **NOT_FOUND, **TOO_LARGE, **UNAVAILABLE})
    return app


def _created(body: dict[str, Any], run_id: str, *, cached: bool | None = None) -> JSONResponse:
    headers = {"Location": f"/v1/runs/{run_id}"}
    if cached is not None:
        headers["X-Advisor-Cache"] = "hit" if cached else "miss"
    return JSONResponse(body, status_code=201, headers=headers)
