"""Where a fleet's rows run: in this process, on a local Dask cluster, or on an existing one.

The seam is `run_fleet(rows, catalog, where, on_result)`: every row goes through
`recommend.fleet.size_row`, wherever it runs, and `on_result` sees each result as it finishes
(in completion order). On Dask the catalog is scattered to every worker once (a user catalog
travels the same way as the built-in one) and each row is one task; a worker that dies takes
its running rows with it and the scheduler runs them again elsewhere (distributed's
`allowed-failures`), so a lost worker costs time, not rows.
"""

import logging
import os
import resource
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput, one_line
from advisor.sim.parallel import THREADS_ENV, cpus
from recommend.fleet import FleetRow, RowResult, size_row

OnResult = Callable[[RowResult], None]
CONNECT_TIMEOUT_S = 10
MAX_LOCAL_WORKERS = 256


@dataclass(frozen=True, slots=True, kw_only=True)
class Where:
    """In-process (workers 0, no scheduler), `workers` local Dask worker processes, or the Dask
    scheduler at `scheduler` (tcp://host:port)."""

    workers: int = 0
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.workers < 0 or self.workers > MAX_LOCAL_WORKERS:
            raise InvalidInput(f"--workers {self.workers}: 0 (in this process) to "
                               f"{MAX_LOCAL_WORKERS}")
        if self.workers and self.scheduler:
            raise InvalidInput("--workers and --scheduler: choose one (a local cluster of N "
                               "workers, or an existing scheduler)")

    @property
    def text(self) -> str:
        if self.scheduler:
            return f"Dask scheduler {self.scheduler}"
        return f"{self.workers} local Dask workers" if self.workers else "in process"


def run_fleet(rows: Sequence[FleetRow], catalog: Catalog, where: Where,
              on_result: OnResult) -> list[RowResult]:
    """Every row's result (in completion order); `on_result` is called with each as it ends."""
    if not where.workers and not where.scheduler:
        out = []
        for row in rows:
            result = size_row(row, catalog)
            on_result(result)
            out.append(result)
        return out
    with dask_client(where) as client:
        return run_on(client, rows, catalog, on_result)


def _dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise InvalidInput("--workers/--scheduler need Dask: pip install 'advisor[fleet]'") \
            from None
    return distributed


@contextmanager
def dask_client(where: Where) -> Iterator[Any]:
    """A client of the scheduler named, or of a local cluster of `where.workers` processes (one
    thread each: the sizing search is CPU-bound Python) that is stopped on the way out."""
    distributed = _dask()
    if where.scheduler:
        address = where.scheduler
        if not address.startswith(("tcp://", "tls://", "inproc://", "ucx://")) \
                or len(address) > 300:
            raise InvalidInput(f"--scheduler {address[:80]!r}: a Dask scheduler address, e.g. "
                               "tcp://10.0.0.5:8786")
        try:
            client = distributed.Client(address, timeout=f"{CONNECT_TIMEOUT_S}s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise InvalidInput(f"--scheduler {address}: unreachable ({type(exc).__name__}: "
                               f"{one_line(exc)})") from None
        try:
            yield client
        finally:
            client.close()
        return
    # Each worker's event-simulation runs side by side on its share of the CPUs, not on all of
    # them each (advisor.sim.parallel); a value the user set stands.
    share = os.environ.get(THREADS_ENV) or str(max(1, cpus() // where.workers))
    cluster = distributed.LocalCluster(n_workers=where.workers, threads_per_worker=1,
                                       processes=True, dashboard_address=":0",  # any free port
                                       silence_logs=logging.ERROR,  # not its INFO/WARNING chatter
                                       env={THREADS_ENV: share})
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def run_on(client: Any, rows: Sequence[FleetRow], catalog: Catalog,
           on_result: OnResult) -> list[RowResult]:
    """Each row as one task on the client's cluster, the catalog scattered to every worker."""
    import uuid

    distributed = _dask()
    shared = client.scatter(catalog, broadcast=True, hash=False)
    run = uuid.uuid4().hex[:8]  # task keys unique per run: a shared scheduler may hold others
    futures = {client.submit(size_row, row, shared, key=f"fleet-{run}-{i}", pure=False): row
               for i, row in enumerate(rows)}
    out = []
    for future in distributed.as_completed(futures):
        row = futures[future]
        try:
            result = future.result()
        except Exception as exc:  # KilledWorker after repeated deaths, a lost connection
            result = RowResult(id=row.id, workload=row.workload, status="error",
                               reason=f"the cluster lost this row: {type(exc).__name__}: "
                               f"{one_line(exc, 200)}",
                               current_deployment=row.current_deployment,
                               current_monthly_usd=row.current_monthly_usd)
        future.release()
        on_result(result)
        out.append(result)
    return out


def peak_rss_mib() -> float:
    """This process's peak resident memory (MiB): run on each worker for the benchmark."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return float(peak / 2**20 if sys.platform == "darwin" else peak / 1024)
