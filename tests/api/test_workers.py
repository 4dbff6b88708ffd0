"""Bounded, cancellable work: the admission gate answers 503 with Retry-After when every worker
is busy and the queue is full; a job whose request is cancelled stops its worker process; a
worker that crashes fails only its own request."""

import os
import signal
import threading
import time
from pathlib import Path

import anyio
import httpx
import pytest

from advisor.catalog.model import Catalog
from advisor.store import SqlRunStore
from api.app import create_app
from api.jobs import JobError
from api.service import LruCache, Settings
from api.workers import JobTimeout, Saturated, WorkerDied, Workers
from tests.api import worker_jobs


def test_a_full_gate_answers_503_with_retry_after(catalog: Catalog, tmp_path: Path) -> None:
    """One worker busy, no queue: POST /v1/size gets 503 at once, with Retry-After and one
    line; /healthz still answers; once the worker is free the same request is served."""
    app = create_app(Settings(workers=0, queue=0), catalog=catalog,
                     store=SqlRunStore(f"sqlite:///{tmp_path}/r.sqlite3"))
    service = app.state.service
    release = threading.Event()

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http, \
                anyio.create_task_group() as tg:
            tg.start_soon(service.workers.run, release.wait)
            while service.workers.in_flight == 0:
                await anyio.sleep(0.01)
            started = time.monotonic()
            r = await http.post("/v1/size", json={"tps": 500, "data_gb": 300})
            assert time.monotonic() - started < 1.5
            assert r.status_code == 503
            assert int(r.headers["retry-after"]) >= 1
            assert r.json() == {"detail": "the service is busy (1 sizings and simulations "
                                f"running or waiting); retry in {r.headers['retry-after']} s"}
            assert (await http.get("/healthz")).status_code == 200
            release.set()
        assert service.workers.in_flight == 0

    anyio.run(scenario)


def test_requests_for_one_answer_share_one_slot() -> None:
    """Concurrent misses on one key run one job (the others wait for it, taking no slot); a
    different request finds the gate full; if the computing request is cancelled, a waiting
    one takes over."""
    workers = Workers(workers=0, queue=0, timeout_s=60)
    cache = LruCache(8)
    gate = threading.Event()
    runs: list[str] = []

    def job(key: str) -> str:
        runs.append(key)
        gate.wait(5)
        return key.upper()

    async def scenario() -> None:
        results: list[tuple[str, bool]] = []

        async def ask(key: str) -> None:
            results.append(await cache.get_or_compute(key, lambda: workers.run(job, key)))

        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(ask, "a")
            await anyio.sleep(0.2)
            with pytest.raises(Saturated):
                await workers.run(job, "b")
            gate.set()
        assert runs == ["a"]
        assert sorted(results) == [("A", False), ("A", True), ("A", True)]

    anyio.run(scenario)


def test_a_waiting_request_takes_over_when_the_first_is_cancelled() -> None:
    """The request computing an answer leaves (cancelled): the one waiting for it computes."""
    cache = LruCache(8)
    calls = 0

    async def compute() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await anyio.sleep_forever()
        return "answer"

    async def scenario() -> None:
        got: list[tuple[str, bool]] = []

        async def waiter() -> None:
            got.append(await cache.get_or_compute("k", compute))

        async with anyio.create_task_group() as tg:
            first = anyio.CancelScope()

            async def leader() -> None:
                with first:
                    await cache.get_or_compute("k", compute)

            tg.start_soon(leader)
            await anyio.sleep(0.05)
            tg.start_soon(waiter)
            await anyio.sleep(0.05)
            first.cancel()
        assert got == [("answer", False)]

    anyio.run(scenario)


def test_job_errors_cross_the_process_boundary() -> None:
    """A job's user error pickles with its kind and line (the core's errors need not)."""
    import pickle

    err = pickle.loads(pickle.dumps(JobError("invalid", "tps -1: must be more than 0")))
    assert (err.kind, str(err)) == ("invalid", "tps -1: must be more than 0")


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def wait_until_gone(pid: int, within_s: float = 15.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_worker_processes_stop_with_their_request() -> None:
    """On a pool of one worker process: a cancelled job's worker is terminated (no core stays
    busy), a job over the time limit is stopped with JobTimeout, a crashing worker (SIGABRT)
    fails only its request with WorkerDied, a worker killed while idle is replaced; after each,
    the next job runs on a fresh worker."""
    workers = Workers(workers=1, queue=1, timeout_s=2.0, warm=False)

    async def scenario() -> None:
        first = await workers.run(worker_jobs.pid)
        with anyio.move_on_after(1.5) as scope:
            await workers.run(worker_jobs.spin, 60.0)
        assert scope.cancelled_caught
        assert workers.in_flight == 0
        assert await anyio.to_thread.run_sync(wait_until_gone, first)
        second = await workers.run(worker_jobs.pid)
        assert second != first

        started = time.monotonic()
        with pytest.raises(JobTimeout, match="more than the 2 s of computing"):
            await workers.run(worker_jobs.spin, 60.0)
        assert time.monotonic() - started < 10
        assert await anyio.to_thread.run_sync(wait_until_gone, second)

        with pytest.raises(WorkerDied, match="ended abruptly"):
            await workers.run(worker_jobs.crash)
        third = await workers.run(worker_jobs.spin, 0.1)
        assert third not in (first, second)

        os.kill(third, signal.SIGKILL)  # dies while idle (the OOM killer, an operator)
        assert await anyio.to_thread.run_sync(wait_until_gone, third)
        await anyio.sleep(0.5)
        assert await workers.run(worker_jobs.pid) not in (first, second, third)

    try:
        anyio.run(scenario)
    finally:
        workers.close()
