"""What the endpoints call: settings from the environment, the catalog, the run store and a
cache of sizing results. No HTTP here; `api.app` maps these calls and their errors to HTTP.
"""

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.options import FieldError
from advisor.serial import to_json
from advisor.store import RunStore

TOKEN_ENV = "ADVISOR_API_TOKEN"
BUDGET_ENV = "ADVISOR_API_IO_BUDGET"
DEFAULT_IO_BUDGET = 20_000_000
MAX_DURATION_S = 3600.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    token: str | None = None  # bearer token every /v1 request must carry (None: open)
    io_budget: float = DEFAULT_IO_BUDGET  # simulated I/Os one request may ask for
    max_duration_s: float = MAX_DURATION_S
    database_url: str | None = None  # None: $ADVISOR_DATABASE_URL or the user's SQLite file
    size_cache: int = 256  # sizing results kept (same request + catalog -> same answer)
    report_cache: int = 32  # rendered run reports kept (runs never change)

    @classmethod
    def from_env(cls) -> "Settings":
        budget = os.environ.get(BUDGET_ENV)
        try:
            io_budget = float(budget) if budget else DEFAULT_IO_BUDGET
        except ValueError:
            raise InvalidInput(f"{BUDGET_ENV}={budget!r}: a number of I/Os, e.g. 20000000") \
                from None
        return cls(token=os.environ.get(TOKEN_ENV) or None, io_budget=io_budget)


class LruCache:
    """A thread-safe LRU map with single flight: concurrent misses on one key compute it once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._pending: dict[Any, threading.Lock] = {}
        self.hits = 0
        self.misses = 0

    def get_or_compute(self, key: Any, compute: Callable[[], Any]) -> tuple[Any, bool]:
        """(value, True if it came from the cache)."""
        while True:
            with self._lock:
                if key in self._data:
                    self._data.move_to_end(key)
                    self.hits += 1
                    return self._data[key], True
                flight = self._pending.get(key)
                if flight is None:
                    flight = self._pending[key] = threading.Lock()
                    flight.acquire()
                    break
            with flight:  # another thread computes it: wait, then look again
                pass
        try:
            value = compute()
            with self._lock:
                self.misses += 1
                if self.size > 0:
                    self._data[key] = value
                    while len(self._data) > self.size:
                        self._data.popitem(last=False)
            return value, False
        finally:
            with self._lock:
                del self._pending[key]
            flight.release()


class Service:
    """The API's state: catalog, store, caches. Thread-safe; endpoints run in a threadpool."""

    def __init__(self, settings: Settings, catalog: Catalog, store: RunStore) -> None:
        self.settings = settings
        self.catalog = catalog
        self.store = store
        self.sizes = LruCache(settings.size_cache)
        self.reports = LruCache(settings.report_cache)

    def size(self, body: BaseModel) -> tuple[dict[str, Any], str, bool]:
        """(result, run id, cached): the sizing result, stored as a run."""
        from recommend.request import size_request
        from recommend.run import run_size

        req = size_request(body.model_dump())
        if req.region is not None and req.region != self.catalog.region:
            raise FieldError("region", req.region, f"the catalog holds {self.catalog.region}; "
                             "add a user catalog with that region's prices (--catalog FILE)")
        result, cached = self.sizes.get_or_compute(
            (req, self.catalog.catalog_version),
            lambda: to_json(run_size(req, self.catalog, clock=time.perf_counter)))
        run_id = self.store.save("size", body.model_dump(), result)
        return result, run_id, cached

    def simulate(self, body: Any) -> tuple[dict[str, Any], str]:
        from api.simulate import run_simulate

        result = to_json(run_simulate(body, self.catalog, io_budget=self.settings.io_budget,
                                          max_duration_s=self.settings.max_duration_s))
        return result, self.store.save("simulate", body.model_dump(), result)

    def layout(self, spec: str) -> dict[str, Any]:
        from advisor.layout import resolve
        from advisor.layout.describe import describe

        return to_json(describe(resolve(spec, self.catalog), self.catalog))  # type: ignore[no-any-return]

    def instances(self) -> dict[str, Any]:
        from advisor.catalog.describe import instances_json

        return to_json(instances_json(self.catalog))  # type: ignore[no-any-return]

    def volumes(self) -> dict[str, Any]:
        from advisor.catalog.describe import volumes_json

        return to_json(volumes_json(self.catalog))  # type: ignore[no-any-return]

    def report(self, run_id: str) -> str | None:
        """The HTML report of a stored run (rendered once, then cached), None if unknown."""
        run = self.store.get(run_id)
        if run is None:
            return None
        from advisor.report import render_report

        html, _ = self.reports.get_or_compute(run_id, lambda: render_report(
            run.result, catalog=self.catalog, run_id=run.id,
            created_at=run.created_at.isoformat(timespec="seconds")))
        return str(html)
