"""Bounded, cancellable CPU work for the API: a pool of worker processes behind an admission gate.

At most `workers` jobs run at once (one per worker process, so a sizing on one core never
stalls the event loop or the other requests) and at most `queue` more wait for a worker; a
request beyond that is refused at once with `Saturated` (the API answers 503 + Retry-After)
rather than queued without bound. A job whose request is cancelled (the client went away, the
server is shutting down) is cancelled too: a running one by terminating its worker (pebble
starts a fresh one), so no core stays busy for nobody. `workers=0` runs jobs in threads of this
process instead (tests, embedding): same admission, no cancellation of a running job.
"""

import asyncio
import atexit
import logging
import math
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from pebble import ProcessExpired, ProcessPool

from api.jobs import init_worker

log = logging.getLogger("advisor.api")
T = TypeVar("T")


class Saturated(Exception):
    """Every worker is busy and the queue is full: come back in `retry_after_s` seconds."""

    def __init__(self, retry_after_s: int, in_flight: int) -> None:
        super().__init__(retry_after_s, in_flight)
        self.retry_after_s = retry_after_s
        self.in_flight = in_flight

    def __str__(self) -> str:
        return (f"the service is busy ({self.in_flight} sizings and simulations running or "
                f"waiting); retry in {self.retry_after_s} s")


class JobTimeout(Exception):
    """A job ran longer than the service allows one request (its worker was stopped)."""

    def __init__(self, limit_s: float) -> None:
        super().__init__(limit_s)
        self.limit_s = limit_s

    def __str__(self) -> str:
        return (f"the request needed more than the {self.limit_s:g} s of computing the API "
                "gives one request (use the command line for it)")


class WorkerDied(Exception):
    """The worker process running a job ended abruptly (a crash in compiled code, the OOM
    killer): the request fails, the service goes on with a fresh worker."""


class Workers:
    """The admission gate and the process pool (created on first use, stopped by `close`)."""

    def __init__(self, *, workers: int, queue: int, timeout_s: float, warm: bool = True) -> None:
        self.workers = workers
        self.queue = queue
        self.timeout_s = timeout_s
        self.warm = warm
        self.in_flight = 0  # running + waiting; only touched on the event loop
        self._mean_s = 5.0  # running mean of a job's duration, for Retry-After
        self._pool: ProcessPool | None = None
        self._pool_lock = threading.Lock()
        self._threads = anyio.CapacityLimiter(max(1, workers or os.cpu_count() or 1))
        atexit.register(self.close)

    @property
    def capacity(self) -> int:
        return max(1, self.workers) + self.queue

    def retry_after_s(self) -> int:
        """Seconds until a slot is likely free: the queue ahead, drained by every worker."""
        waves = self.in_flight / max(1, self.workers)
        return min(300, max(1, math.ceil(self._mean_s * max(1.0, waves))))

    def pool(self) -> ProcessPool:
        with self._pool_lock:
            if self._pool is None or not self._pool.active:
                if self._pool is not None:  # broken (a worker died while idle): start over
                    log.error("worker pool broken; starting a new one")
                    threading.Thread(target=_stop, args=(self._pool,), daemon=True).start()
                self._pool = ProcessPool(
                    max_workers=self.workers, initializer=init_worker,
                    initargs=(os.getpid(), self.warm),
                    # spawn: a fresh interpreter, nothing inherited from the server's threads
                    context=multiprocessing.get_context("spawn"))
            return self._pool

    def start(self) -> None:
        """Start the worker processes now (they warm up while the server starts)."""
        if self.workers:
            self.pool().schedule(os.getpid)  # the pool spawns its workers on first use

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args) in a worker, or `Saturated` at once when the gate is full."""
        if self.in_flight >= self.capacity:
            raise Saturated(self.retry_after_s(), self.in_flight)
        self.in_flight += 1
        started = time.monotonic()
        try:
            if self.workers:
                result = await self._in_process_pool(fn, args)
            else:
                result = await anyio.to_thread.run_sync(fn, *args, limiter=self._threads)
        finally:
            self.in_flight -= 1
            # Every job that held a slot, failed or timed out too (those are the long ones when
            # the service is overloaded); time in the queue included: what a client told to
            # come back actually waits.
            self._mean_s += (time.monotonic() - started - self._mean_s) * 0.2
        return result

    async def _in_process_pool(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        future = self.pool().schedule(fn, args=args, timeout=self.timeout_s)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # type: ignore[no-untyped-call]  # pebble terminates the worker running it and starts another
            raise
        except TimeoutError:
            raise JobTimeout(self.timeout_s) from None
        except ProcessExpired as exc:
            log.error("worker %s ended abruptly (exit code %s) running %s", exc.pid,
                      exc.exitcode, getattr(fn, "__name__", fn))
            raise WorkerDied(f"the worker process running this request ended abruptly (exit "
                             f"code {exc.exitcode}); the service goes on") from None

    def close(self) -> None:
        """Stop every worker now (running jobs are abandoned)."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            _stop(pool)


def _stop(pool: ProcessPool) -> None:
    pool.stop()  # type: ignore[no-untyped-call]
    pool.join(timeout=10)
