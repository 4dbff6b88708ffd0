"""Independent event-simulation runs side by side on the machine's cores.

The compiled kernel releases the GIL (`nogil=True`) and numpy's random draws, sorts and
histograms do much of their work outside it too, so replications run in threads overlap: the
main job's 60 replications take ~0.5 s on 2 idle cores instead of ~0.9 s one after another
(bench/README.md). Each run has its own generator and arrays, so every result is the same to the
bit as in a run one after another; results come back in the order asked.

The calling thread takes part (it runs tasks too), so a call from a thread that is itself one of
the pool's runs the tasks there and then, and a pool busy with another caller's work never holds
a caller up: what the helpers have not started, the caller runs.
"""

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context
from typing import Any, TypeVar

from advisor.options import env_number

T = TypeVar("T")

MAX_THREADS = 4  # runs at once at most (the caller's thread included)

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None  # (pid that made it, the pool)
_inside = threading.local()  # set in the pool's threads: a nested call runs inline


THREADS_ENV = "ADVISOR_SIM_THREADS"  # a whole number: runs at once (1: one after another)


def threads() -> int:
    """Runs at once: $ADVISOR_SIM_THREADS (1 to MAX_THREADS; a process sharing its CPUs with
    others, a fleet's worker say, sets 1; another value is InvalidInput in one line), else the
    CPUs this process may use, at most MAX_THREADS."""
    return int(env_number(THREADS_ENV, min(cpus(), MAX_THREADS), 1, MAX_THREADS, integer=True))


def cpus() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _helpers() -> ThreadPoolExecutor:
    """The process's pool of helper threads (a new one in a forked child: threads do not
    survive a fork)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(max_workers=MAX_THREADS - 1,
                                                     thread_name_prefix="advisor-sim",
                                                     initializer=_mark_inside))
        return _pool[1]


def _mark_inside() -> None:
    _inside.active = True


def side_by_side(tasks: Sequence[Callable[[], T]]) -> list[T]:
    """Each task's result, in order, the tasks run on up to `threads()` threads (each in a
    copy of the caller's context, so context variables read the caller's values). A task's
    exception is raised here, the first in order, once every started task has ended."""
    n = len(tasks)
    width = min(threads(), n)
    if width <= 1 or getattr(_inside, "active", False):
        return [task() for task in tasks]
    results: list[Any] = [None] * n
    errors: list[BaseException | None] = [None] * n
    claim = iter(range(n))
    claim_lock = threading.Lock()

    def drain() -> None:
        while True:
            with claim_lock:
                i = next(claim, None)
            if i is None:
                return
            try:
                results[i] = tasks[i]()
            except Exception as exc:  # handed to the caller, in order
                errors[i] = exc

    def stop() -> None:  # no task left to claim: the helpers end after the one they run
        with claim_lock:
            for _ in claim:
                pass

    pool = _helpers()
    helpers: list[Future[None]] = [pool.submit(copy_context().run, drain)
                                   for _ in range(width - 1)]
    try:
        drain()
    except BaseException:  # Ctrl-C in the caller's thread: stop at once, not after the rest
        stop()
        raise
    for f in helpers:
        if not f.cancel():  # one that started runs to its end before the results are read
            f.result()
    for exc in errors:
        if exc is not None:
            raise exc
    return results
