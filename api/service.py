"""What the endpoints call: settings from the environment, the catalog, the run store, a cache of
sizing results and the workers that run sizings and simulations. No HTTP here; `api.app` maps
these calls and their errors to HTTP.
"""

import os
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from pydantic import BaseModel

from advisor.catalog.model import Catalog, PricingPlan
from advisor.errors import InfeasibleSlo, InvalidInput
from advisor.options import FieldError, env_number
from advisor.serial import to_json
from advisor.sim.parallel import threads
from advisor.store import RunStore
from api.jobs import JobError, simulate_job, size_job
from api.workers import Workers

TOKEN_ENV = "ADVISOR_API_TOKEN"
BUDGET_ENV = "ADVISOR_API_IO_BUDGET"
WORKERS_ENV = "ADVISOR_API_WORKERS"
QUEUE_ENV = "ADVISOR_API_QUEUE"
TIMEOUT_ENV = "ADVISOR_API_TIMEOUT_S"
BODY_ENV = "ADVISOR_API_MAX_BODY_BYTES"
DEFAULT_IO_BUDGET = 20_000_000
MAX_IO_BUDGET = 1e12
MAX_DURATION_S = 3600.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    token: str | None = None  # bearer token every /v1 request must carry (None: open)
    io_budget: float = DEFAULT_IO_BUDGET  # simulated I/Os one request may ask for
    max_duration_s: float = MAX_DURATION_S
    database_url: str | None = None  # None: $ADVISOR_DATABASE_URL or the user's SQLite file
    size_cache: int = 256  # sizing results kept (same request + catalog -> same answer)
    report_cache: int = 32  # rendered run reports kept (runs never change)
    # Worker processes for sizings and simulations; 0 runs them in threads of the server process
    # (tests, embedding: no process start-up, but a running job cannot be cancelled).
    workers: int = 0
    queue: int | None = None  # requests waiting for a worker before 503 (None: 2 per worker)
    timeout_s: float = 600.0  # computing one request may take (then 422)
    max_body_bytes: int = 65_536  # a request body over this is refused with 413
    body_timeout_s: float = 10.0  # a body must arrive within this (then 408)

    @property
    def queue_depth(self) -> int:
        return self.queue if self.queue is not None else 2 * max(1, self.workers)

    @classmethod
    def from_env(cls) -> "Settings":
        """The server's settings: ADVISOR_API_* (see `advisor serve --help`); a bad value is
        one line naming the variable. Sizings run in one worker process per CPU by default."""
        cpus = os.cpu_count() or 1
        workers = int(env_number(WORKERS_ENV, cpus, 0, 256, integer=True))
        threads()  # $ADVISOR_SIM_THREADS, checked when the server starts
        return cls(
            token=os.environ.get(TOKEN_ENV) or None,
            io_budget=env_number(BUDGET_ENV, DEFAULT_IO_BUDGET, 1, MAX_IO_BUDGET),
            workers=workers,
            queue=int(env_number(QUEUE_ENV, 2 * max(1, workers), 0, 10_000, integer=True)),
            timeout_s=env_number(TIMEOUT_ENV, 600.0, 1, 86_400),
            max_body_bytes=int(env_number(BODY_ENV, 65_536, 1024, 64 * 2**20, integer=True)))


class LruCache:
    """An LRU map for the event loop, with single flight: concurrent misses on one key compute
    it once; the others wait for that answer (or, if its request was cancelled, take over)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._pending: dict[Any, anyio.Event] = {}
        self.hits = 0
        self.misses = 0

    async def get_or_compute(self, key: Any,
                             compute: Callable[[], Awaitable[Any]]) -> tuple[Any, bool]:
        """(value, True if it came from the cache or another request's computation)."""
        while True:
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key], True
            flight = self._pending.get(key)
            if flight is None:
                break
            await flight.wait()
        flight = self._pending[key] = anyio.Event()
        try:
            value = await compute()
            self.misses += 1
            if self.size > 0:
                self._data[key] = value
                while len(self._data) > self.size:
                    self._data.popitem(last=False)
            return value, False
        finally:
            del self._pending[key]
            flight.set()


def _io_profile(document: dict[str, Any] | None, *, mysql: bool) -> Any:
    """The body's `io_profile` document as a validated `IoProfile` (None when absent); a user
    error when it is malformed or the workload is not MySQL."""
    if document is None:
        return None
    if not mysql:
        raise InvalidInput("io_profile: applies to the mysql workload only")
    from workloads.real.io_profile_file import parse_io_profile

    return parse_io_profile(document, where="io_profile")


def _document_key(document: dict[str, Any] | None) -> str | None:
    """A cache key for an uploaded document: its canonical JSON (dicts are not hashable)."""
    import json

    return None if document is None else json.dumps(document, sort_keys=True)


@dataclass(frozen=True, slots=True)
class _Refusal:
    """A deterministic "no" (409) kept in the cache like an answer."""

    detail: str


class Service:
    """The API's state: catalog, store, caches, workers. Async calls run on the event loop."""

    def __init__(self, settings: Settings, catalog: Catalog, store: RunStore) -> None:
        self.settings = settings
        self.catalog = catalog
        self.store = store
        self.sizes = LruCache(settings.size_cache)
        self.reports: OrderedDict[str, str] = OrderedDict()
        self._reports_lock = threading.Lock()  # reports render in the threadpool
        self.workers = Workers(workers=settings.workers, queue=settings.queue_depth,
                               timeout_s=settings.timeout_s)

    async def size(self, body: BaseModel) -> tuple[dict[str, Any], str, bool]:
        """(result, run id, cached): the sizing result, stored as a run."""
        from recommend.request import MysqlSizeRequest, size_request

        request = body.model_dump()
        document = request.pop("io_profile", None)
        req = await anyio.to_thread.run_sync(size_request, request)
        if req.region is not None and req.region != self.catalog.region:
            raise FieldError("region", req.region, f"the catalog holds {self.catalog.region}; "
                             "add a user catalog with that region's prices (--catalog FILE)")
        profile = _io_profile(document, mysql=isinstance(req, MysqlSizeRequest))
        if document is not None:
            request["io_profile"] = document  # stored with the run: what it was sized from

        async def compute() -> Any:
            try:
                return await self._run(size_job, req, self.catalog, profile)
            except InfeasibleSlo as exc:
                return _Refusal(str(exc))

        key = (req, self.catalog.catalog_version, _document_key(document))
        result, cached = await self.sizes.get_or_compute(key, compute)
        if isinstance(result, _Refusal):
            raise InfeasibleSlo(result.detail)
        run_id = await anyio.to_thread.run_sync(self.store.save, "size", request, result)
        return result, run_id, cached

    async def simulate(self, body: BaseModel) -> tuple[dict[str, Any], str]:
        from api.simulate import simulate_request_within
        from workloads.simulate_request import MysqlSimRequest

        request = body.model_dump()
        document = request.pop("io_profile", None)
        req = await anyio.to_thread.run_sync(simulate_request_within, request,
                                             self.settings.max_duration_s)
        profile = _io_profile(document, mysql=isinstance(req, MysqlSimRequest))
        if document is not None:
            request["io_profile"] = document
        result = await self._run(simulate_job, req, self.catalog, self.settings.io_budget,
                                 profile)
        run_id = await anyio.to_thread.run_sync(self.store.save, "simulate", request, result)
        return result, run_id

    async def _run(self, job: Callable[..., Any], *args: Any) -> Any:
        """A job on the workers; its failure as the core's own error."""
        try:
            return await self.workers.run(job, *args)
        except JobError as exc:
            if exc.kind == "infeasible":
                raise InfeasibleSlo(exc.detail) from None
            if exc.kind == "invalid":
                raise InvalidInput(exc.detail) from None
            raise

    def layout(self, spec: str, pricing: PricingPlan = "on-demand") -> dict[str, Any]:
        from advisor.catalog.pricing import require_plan_price, with_plan
        from advisor.layout import resolve
        from advisor.layout.describe import describe
        from advisor.layout.spec import parse_spec

        require_plan_price(self.catalog, pricing, parse_spec(spec).instance)
        catalog = with_plan(self.catalog, pricing)
        return to_json(describe(resolve(spec, catalog), catalog))  # type: ignore[no-any-return]

    def instances(self, filters: dict[str, Any] | None = None) -> dict[str, Any]:
        """The catalog's instance types that `filters` (InstanceFilter's fields) keep."""
        from advisor.catalog.describe import InstanceFilter, instances_json

        flt = InstanceFilter(**(filters or {}))
        return to_json(instances_json(self.catalog, flt))  # type: ignore[no-any-return]

    def volumes(self) -> dict[str, Any]:
        from advisor.catalog.describe import volumes_json

        return to_json(volumes_json(self.catalog))  # type: ignore[no-any-return]

    def report(self, run_id: str) -> str | None:
        """The HTML report of a stored run (rendered once, then cached), None if unknown."""
        with self._reports_lock:
            if run_id in self.reports:
                return self.reports[run_id]
        run = self.store.get(run_id)
        if run is None:
            return None
        from advisor.report import render_report

        html = str(render_report(run.result, catalog=self.catalog, run_id=run.id,
                                 created_at=run.created_at.isoformat(timespec="seconds")))
        with self._reports_lock:  # a race renders the same page twice: harmless
            self.reports[run_id] = html
            while len(self.reports) > self.settings.report_cache:
                self.reports.popitem(last=False)
        return html

    def close(self) -> None:
        self.workers.close()
