"""`InMemoryDatabase`: the fake side of the `workloads.real.db.Database` seam, for tests."""

import threading

from workloads.real.clock import Clock, SystemClock
from workloads.real.db import DatabaseUnavailable


class InMemoryDatabase:
    """The fake beside the real thing: a dict, an optional per-call delay, switchable failure.

    `InMemoryDatabase(replica_of=master, apply_delay_s=0.5)` is a replica that shares the
    master's rows but sees its heartbeats only `apply_delay_s` late, to test lag reporting.
    """

    def __init__(
        self,
        *,
        name: str = "memory",
        delay_s: float = 0.0,
        clock: Clock | None = None,
        replica_of: "InMemoryDatabase | None" = None,
        apply_delay_s: float = 0.0,
    ) -> None:
        self._name = name
        self._delay_s = delay_s
        needs_clock = delay_s > 0 or apply_delay_s > 0
        self._clock = clock if clock is not None or not needs_clock else SystemClock()
        self._source = replica_of
        self._apply_delay_s = apply_delay_s
        self._rows: dict[int, str] = replica_of._rows if replica_of else {}
        self._beats: list[tuple[float, int]] = []  # (time written, seq)
        self._lock = threading.Lock()
        self._failure: str | None = None
        self.calls = {"read": 0, "write": 0}

    @property
    def name(self) -> str:
        return self._name

    def fail(self, reason: str) -> None:
        """From now on every call raises `DatabaseUnavailable(reason)` (a server that died)."""
        self._failure = reason

    def _enter(self, kind: str | None = None) -> None:
        if self._failure is not None:
            raise DatabaseUnavailable(f"{self._name}: {self._failure}")
        if kind is not None:
            with self._lock:
                self.calls[kind] += 1
        if self._delay_s > 0 and self._clock is not None:
            self._clock.sleep(self._delay_s)

    def _now(self) -> float:
        return self._clock.now() if self._clock is not None else 0.0

    def prepare(self, rows: int) -> int:
        self._enter()
        with self._lock:
            missing = [i for i in range(1, rows + 1) if i not in self._rows]
            self._rows.update((i, "") for i in missing)
        return len(missing)

    def read(self, key: int, range_rows: int = 1) -> int:
        self._enter("read")
        return sum(1 for k in range(key, key + max(range_rows, 1)) if k in self._rows)

    def write(self, key: int, value: str) -> None:
        self._enter("write")
        with self._lock:
            self._rows[key] = value

    def heartbeat_write(self, seq: int) -> None:
        self._enter()
        with self._lock:
            self._beats.append((self._now(), seq))

    def heartbeat_read(self) -> int:
        self._enter()
        source = self._source or self
        visible_before = self._now() - self._apply_delay_s
        with source._lock:
            seen = [seq for t, seq in source._beats if t <= visible_before]
        return max(seen, default=0)

    def status(self) -> dict[str, int]:
        return {}

    def server_info(self) -> dict[str, str]:
        return {"version": "in-memory"}

    def replication_error(self) -> str | None:
        return None

    def replica_lag_s(self) -> float | None:
        return None

    def release(self) -> None:
        pass

    def close(self) -> None:
        pass
