"""The work the API hands to its worker processes: one sizing or one simulation per call.

Each job is a top-level function of plain, picklable arguments (the core request, the catalog)
that returns the result's JSON. A user error comes back as `JobError`, whose arguments pickle
(the core's own errors need not), so the parent can answer 422/409 with the core's line; a bug
comes back as `JobError("internal", ...)` with its traceback for the log. The same functions run
in a thread when the service has no worker processes (tests, embedding).
"""

import contextlib
import os
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError, InfeasibleSlo
from advisor.options import FieldError
from advisor.serial import to_json


class JobError(Exception):
    """A job's failure in a form that crosses a process boundary: kind is `infeasible` (409),
    `invalid` (422) or `internal` (a bug: 500, `trace` goes to the log)."""

    def __init__(self, kind: str, detail: str, trace: str = "") -> None:
        super().__init__(kind, detail, trace)
        self.kind = kind
        self.detail = detail
        self.trace = trace

    def __str__(self) -> str:
        return self.detail


def _guarded(work: Callable[[], Any]) -> Any:
    try:
        return work()
    except InfeasibleSlo as exc:
        raise JobError("infeasible", str(exc)) from None
    except FieldError as exc:  # named as the body names it
        raise JobError("invalid", exc.named(exc.name)) from None
    except AdvisorError as exc:
        raise JobError("invalid", str(exc)) from None
    except Exception as exc:
        raise JobError("internal", f"{type(exc).__name__}: {exc}",
                       traceback.format_exc()) from None


def size_job(req: Any, catalog: Catalog, profile: Any = None) -> Any:
    """`advisor size`'s result for a validated request (and a validated measured I/O profile,
    `workloads.io_profile.IoProfile`, or None), as JSON."""
    from recommend.run import run_size
    from workloads.mysql import measured_io

    shape = None if profile is None else profile.shape
    return _guarded(lambda: to_json(run_size(
        req, catalog, clock=time.perf_counter, measured_shape=shape,
        measured=None if profile is None else measured_io(profile))))


def simulate_job(req: Any, catalog: Catalog, io_budget: float, profile: Any = None) -> Any:
    """`advisor simulate`'s result for a validated request (and measured profile), as JSON."""
    from workloads.mysql import measured_io
    from workloads.simulate import run_simulate

    return _guarded(lambda: to_json(run_simulate(
        req, catalog, io_budget=io_budget,
        measured=None if profile is None else measured_io(profile))))


# -- in a worker process ------------------------------------------------------------------------


def init_worker(parent_pid: int, warm: bool) -> None:
    """Run once in each new worker: leave with the server, load the compiled kernel."""
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), daemon=True,
                     name="exit-with-parent").start()
    if warm:
        with contextlib.suppress(Exception):  # a worker that did not warm up still works
            warm_up()


def _exit_with_parent(parent_pid: int) -> None:
    # A server killed with SIGKILL cannot stop its workers: each one notices that its parent is
    # gone (it is re-parented) within a second and exits, so no core stays busy for nobody.
    while os.getppid() == parent_pid:
        time.sleep(1.0)
    os._exit(1)


def warm_up() -> None:
    """Import the core and load the compiled event-simulation kernels (from numba's cache, about
    2 s; compiled once if the cache is cold) with two tiny simulations, raw I/O and MySQL, so
    that a worker's first request does not pay for it."""
    import recommend.run  # noqa: F401  (the sizing search's modules)
    from advisor.userfiles import load_catalog
    from workloads.simulate import run_simulate
    from workloads.simulate_request import simulate_request

    catalog = load_catalog(use_env=False)
    for body in ({"spec": "m5d.large:gp2:100GiB", "duration": 0.2, "engine": "des", "seed": 1},
                 {"spec": "r5.large:gp3:500GiB", "workload": "mysql", "tps": 200, "data_gb": 4,
                  "duration": 1, "engine": "des", "seed": 1}):
        run_simulate(simulate_request(body), catalog, io_budget=1e6)

