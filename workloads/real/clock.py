"""The only module of `workloads` that reads the wall clock or sleeps (SimPy keeps it in `rt.py`).

Replay and calibration take a `Clock`; tests pass a `ManualClock` whose time moves only when
someone sleeps on it, so a single-threaded replay against an in-memory database is exact.
"""

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """Monotonic seconds and a sleep on the same time line."""

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """`time.monotonic` and `time.sleep`."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class ManualClock:
    """A fake clock for tests: `sleep` advances `now` at once (thread-safe, never blocks)."""

    def __init__(self, start_s: float = 0.0) -> None:
        self._now = start_s
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            with self._lock:
                self._now += seconds


def wall_time_iso() -> str:
    """Local date and time of day, for the `measured: ...` source tags of calibrated devices."""
    return time.strftime("%Y-%m-%d %H:%M:%S %z")
