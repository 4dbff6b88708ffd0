"""What replay measures: per-thread latency histograms and counts, and replica lag by heartbeat.

Each client thread records into its own `ThreadStats` (HdrHistogram is not thread-safe); the step
merges them when the threads have ended. Latencies are kept in microseconds, 3 significant digits.
"""

from collections import deque
from collections.abc import Sequence
from typing import Any

from hdrh.histogram import HdrHistogram

from advisor.percentiles import PERCENTILES
from workloads.real.clock import Clock
from workloads.real.db import Database, TransactionFailed

_LOWEST_US = 1
_HIGHEST_US = 3_600_000_000  # one hour
_DIGITS = 3


def new_histogram() -> HdrHistogram:
    return HdrHistogram(_LOWEST_US, _HIGHEST_US, _DIGITS)


class ThreadStats:
    """Counts and latencies of one client thread (only what falls in the measured window)."""

    def __init__(self) -> None:
        self.read_us = new_histogram()
        self.write_us = new_histogram()
        self.reads = 0
        self.writes = 0
        self.errors = 0
        self.attempts = 0  # all transactions tried, warmup included: for progress only

    def record(self, *, is_write: bool, latency_s: float) -> None:
        latency_us = min(max(round(latency_s * 1e6), _LOWEST_US), _HIGHEST_US)
        if is_write:
            self.writes += 1
            self.write_us.record_value(latency_us)
        else:
            self.reads += 1
            self.read_us.record_value(latency_us)


def summarize(histogram: HdrHistogram) -> dict[str, float | None]:
    """p50/p90/p95/p99/p999/max in milliseconds; all None when nothing was recorded."""
    if histogram.get_total_count() == 0:
        empty: dict[str, float | None] = dict.fromkeys(PERCENTILES)
        return empty | {"max": None}
    summary: dict[str, float | None] = {
        name: histogram.get_value_at_percentile(pct) / 1000.0 for name, pct in PERCENTILES.items()
    }
    summary["max"] = histogram.get_max_value() / 1000.0
    return summary


def merge(stats: Sequence[ThreadStats]) -> dict[str, Any]:
    """Counts and latency summaries of a step (all transactions, reads, writes)."""
    reads, writes, both = new_histogram(), new_histogram(), new_histogram()
    for s in stats:
        reads.add(s.read_us)
        writes.add(s.write_us)
        both.add(s.read_us)
        both.add(s.write_us)
    return {
        "reads": sum(s.reads for s in stats),
        "writes": sum(s.writes for s in stats),
        "errors": sum(s.errors for s in stats),
        "latency_ms": {
            "transaction": summarize(both),
            "read": summarize(reads),
            "write": summarize(writes),
        },
    }


class LagMonitor:
    """Replica apply delay from a heartbeat row: written on the master, read on each replica.

    Both times come from this process's clock, so clock skew between servers does not matter.
    The lag of a replica is the age of the oldest heartbeat it has not applied yet (0 when it has
    them all): how late a write becomes visible there, short by at most one heartbeat interval.
    Unlike `Seconds_Behind_Master` it is not rounded to whole seconds and it also counts the
    time a change waits for the replica's IO thread.
    """

    def __init__(self, master: Database, replicas: Sequence[Database], clock: Clock) -> None:
        self._master = master
        self._replicas = replicas
        self._clock = clock
        self._seq = 0
        self._pending: deque[tuple[int, float]] = deque()  # (seq, time written), oldest first
        self.writes = 0  # heartbeat writes: write transactions on the master, too

    def start(self) -> None:
        """Continue after whatever sequence number an earlier run left in the table."""
        self._seq = self._master.heartbeat_read()

    def beat(self) -> list[float]:
        """Write one heartbeat, then read every replica; return each replica's lag in seconds."""
        self._seq += 1
        self._master.heartbeat_write(self._seq)
        self.writes += 1
        self._pending.append((self._seq, self._clock.now()))
        seen = [self._applied(replica) for replica in self._replicas]
        now = self._clock.now()
        lags = [self._lag(s, now) for s in seen]
        oldest_seen = min(seen, default=self._seq)
        while self._pending and self._pending[0][0] <= oldest_seen:
            self._pending.popleft()
        return lags

    @staticmethod
    def _applied(replica: Database) -> int:
        try:
            return replica.heartbeat_read()
        except TransactionFailed:
            return 0  # the heartbeat table has not reached this replica yet

    def _lag(self, seen: int, now: float) -> float:
        for seq, written in self._pending:
            if seq > seen:
                return max(now - written, 0.0)
        return 0.0

    def caught_up(self) -> bool:
        """Every replica has applied the last heartbeat written (and so all writes before it)."""
        return all(self._applied(replica) >= self._seq for replica in self._replicas)
