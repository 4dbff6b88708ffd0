"""Replay: drive a real database with the brief's MySQL workload and measure it.

Each transaction is a write on the master or a read on a replica (round-robin), `reads_per_write`
reads per write (3.25 -> P(write) = 1/4.25). Closed loop: `threads` clients, each starting its
next transaction when the last one ends. Open loop (`rates_tps`): Poisson arrivals at the rate,
served by `threads` clients, latency counted from the intended start (coordinated-omission-safe,
like YCSB's "intended" latency). The warmup is run but not measured.

A step fails when a client sees `max_consecutive_errors` errors in a row, when a server's
counters or the heartbeat cannot be read, or when a replica stops replicating. The finished steps
are kept and the result says `"complete": false` with the reason in one line.

Pure logic over the `workloads.real.db.Database` seam, threads and an injected `Clock`.
"""

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workloads.io_profile import derive_io_profile, status_delta, sum_deltas
from workloads.real.clock import Clock, SystemClock
from workloads.real.db import DatabaseError, DatabaseUnavailable
from workloads.real.replay_setup import (
    SQLITE_NOTE,
    Phase,
    ProgressCallback,
    ProgressEvent,
    ReplayConfig,
    Target,
    open_target,
)
from workloads.real.replay_stats import LagMonitor, ThreadStats, merge

__all__ = [
    "SQLITE_NOTE", "ProgressCallback", "ProgressEvent", "ReplayConfig", "Target", "open_target",
    "run_replay",
]


def run_replay(
    target: Target,
    config: ReplayConfig,
    *,
    clock: Clock | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Prepare, run every step, and return the result (`complete` false after a fault)."""
    config.validate()
    clock = clock or SystemClock()
    result: dict[str, Any] = {
        "kind": "replay",
        "target": target.describe(),
        "mode": "open-loop" if config.rates_tps else "closed-loop",
        "reads_per_write": config.reads_per_write,
        "duration_s": config.duration_s,
        "warmup_s": config.warmup_s,
        "rows": config.rows,
        "seed": config.seed,
        "levels": [],
        "io_profile": None,
        "complete": False,
        "error": None,
    }
    monitor = LagMonitor(target.master, target.replicas, clock) if target.replicas else None
    steps = config.steps()
    notify = progress or (lambda event: None)
    try:
        notify(ProgressEvent(step=0, steps=len(steps), threads=0, offered_tps=None,
                             phase="prepare", elapsed_s=0.0, step_s=0.0, transactions=0,
                             message=f"preparing {config.rows} rows"))
        info = _prepare(target, config, monitor, clock)
    except DatabaseError as exc:
        result["error"] = f"prepare: {exc}"
        return result
    for index, (threads, rate) in enumerate(steps):
        step = _Step(target=target, config=config, clock=clock, monitor=monitor, notify=notify,
                     index=index, steps=len(steps), threads=threads, rate=rate)
        level = step.run()
        result["levels"].append(level)
        if level["failed"]:
            result["error"] = f"step {index + 1} ({threads} threads): {level['error']}"
            break
    else:
        result["complete"] = True
    finished = [lv for lv in result["levels"] if not lv["failed"] and lv["transactions"] > 0]
    if finished:
        best = max(finished, key=lambda lv: lv["achieved_tps"])
        result["io_profile"] = derive_io_profile(best, info, replicas=len(target.replicas))
    return result


def _prepare(
    target: Target, config: ReplayConfig, monitor: LagMonitor | None, clock: Clock
) -> dict[str, str]:
    target.master.prepare(config.rows)
    info = target.master.server_info()
    for replica in target.replicas:
        reason = replica.replication_error()
        if reason:
            raise DatabaseUnavailable(reason)
    if monitor is not None:
        # The replicas must have the rows (and the heartbeat table) before the first step.
        monitor.start()
        deadline = clock.now() + config.catchup_timeout_s
        monitor.beat()
        while not monitor.caught_up():
            if clock.now() > deadline:
                raise DatabaseUnavailable(
                    f"the replicas did not apply the master's writes within "
                    f"{config.catchup_timeout_s:g}s: is replication running from this master?"
                )
            clock.sleep(0.05)
    return info


class _Arrivals:
    """Poisson arrival times of one open-loop step, handed out in order to the clients."""

    def __init__(self, rate: float, start: float, end: float, rng: np.random.Generator) -> None:
        self._mean_gap = 1.0 / rate
        self._rng = rng
        self._next = start + float(rng.exponential(self._mean_gap))
        self._end = end
        self._lock = threading.Lock()

    def take(self, now: float) -> float | None:
        with self._lock:
            if self._next >= self._end or now >= self._end:
                return None
            intended = self._next
            self._next += float(self._rng.exponential(self._mean_gap))
            return intended

    def unserved(self, since: float) -> int:
        """Arrivals due before the end that no client started (the backlog at saturation).

        Drawn, not enumerated (a backlog of 10**9 arrivals would take minutes): after the next
        arrival the process is Poisson, so the count in what remains is a Poisson draw."""
        with self._lock:
            first = self._next
            if first >= self._end:
                return 0
            start = max(first, since)
            mean = (self._end - start) / self._mean_gap
            return int(first >= since) + int(self._rng.poisson(mean))


@dataclass(kw_only=True)
class _Step:
    target: Target
    config: ReplayConfig
    clock: Clock
    monitor: LagMonitor | None
    notify: ProgressCallback
    index: int
    steps: int
    threads: int
    rate: float | None
    failure: str | None = None
    stats: list[ThreadStats] = field(default_factory=list, init=False)
    started: float = field(default=0.0, init=False)
    measure_start: float = field(default=0.0, init=False)
    end: float = field(default=0.0, init=False)
    arrivals: _Arrivals | None = field(default=None, init=False)
    _workers: list[threading.Thread] = field(default_factory=list, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def run(self) -> dict[str, Any]:
        config, clock = self.config, self.clock
        seeds = np.random.SeedSequence([config.seed, self.index]).spawn(self.threads + 1)
        self.stats = [ThreadStats() for _ in range(self.threads)]
        self.started = clock.now()
        self.measure_start = self.started + config.warmup_s
        self.end = self.measure_start + config.duration_s
        self.arrivals = (
            _Arrivals(self.rate, self.started, self.end, np.random.default_rng(seeds[-1]))
            if self.rate else None
        )
        self._workers = workers = [
            threading.Thread(target=self._client, args=(i, np.random.default_rng(seeds[i])),
                             name=f"replay-{self.threads}-{i}", daemon=True)
            for i in range(self.threads)
        ]
        for worker in workers:
            worker.start()
        before: dict[str, Any] | None = None
        after: dict[str, Any] | None = None
        lags: list[float] = []
        try:
            self._supervise(self.measure_start, "warmup", lags)
            before = self._snapshot()
            lags.clear()
            if self.monitor is not None:
                self.monitor.writes = 0  # count only the heartbeats inside the status window
            self._supervise(self.end, "measure", lags)
        except DatabaseError as exc:
            self._fail(str(exc))
        finally:
            self._stop.set()
            for worker in workers:
                worker.join()
        measured_until = min(max(clock.now(), self.measure_start), self.end)
        try:
            if self.failure is None:
                after = self._snapshot()
                for replica in self.target.replicas:
                    if reason := replica.replication_error():
                        self._fail(reason)
        except DatabaseError as exc:
            self._fail(str(exc))
        return self._level(before, after, lags, measured_until)

    def _fail(self, reason: str) -> None:
        with self._lock:
            if self.failure is None:
                self.failure = reason
        self._stop.set()

    def _supervise(self, until: float, phase: Phase, lags: list[float]) -> None:
        """Until `until`: heartbeat the replicas and report progress every tick."""
        while (
            not self._stop.is_set()
            and any(w.is_alive() for w in self._workers)  # all done early: open loop, manual clock
            and (left := until - self.clock.now()) > 0
        ):
            # Real time, also under a manual clock (whose time only the clients move).
            self._stop.wait(min(left, self.config.tick_s))
            if self.clock.now() >= until:
                break
            if self.monitor is not None and not self._stop.is_set():
                lags.append(max(self.monitor.beat()))
            self._report(phase)

    def _report(self, phase: Phase) -> None:
        self.notify(ProgressEvent(
            step=self.index + 1, steps=self.steps, threads=self.threads, offered_tps=self.rate,
            phase=phase, elapsed_s=self.clock.now() - self.started,
            step_s=self.config.warmup_s + self.config.duration_s,
            transactions=sum(s.attempts for s in self.stats),
        ))

    def _snapshot(self) -> dict[str, Any]:
        return {
            "master": self.target.master.status(),
            "replicas": [replica.status() for replica in self.target.replicas],
        }

    def _client(self, number: int, rng: np.random.Generator) -> None:
        target, config, clock = self.target, self.config, self.clock
        stats = self.stats[number]
        readers = target.replicas or (target.master,)
        turn = number  # round-robin over the readers, each client starting elsewhere
        errors_in_row = 0
        p_write = config.write_probability
        top_range_key = max(config.rows - config.range_rows + 1, 1)
        try:
            while not self._stop.is_set():
                if self.arrivals is not None:
                    start = self.arrivals.take(clock.now())
                    if start is None:
                        break
                    while (wait := start - clock.now()) > 0 and not self._stop.is_set():
                        clock.sleep(min(wait, self.config.tick_s))
                else:
                    start = clock.now()
                    if start >= self.end:
                        break
                is_write = bool(rng.random() < p_write)
                try:
                    if is_write:
                        key = int(rng.integers(1, config.rows + 1))
                        target.master.write(key, f"{int(rng.integers(0, 2**62)):032x}")
                    elif rng.random() < config.range_fraction:
                        readers[turn % len(readers)].read(
                            int(rng.integers(1, top_range_key + 1)), config.range_rows
                        )
                        turn += 1
                    else:
                        readers[turn % len(readers)].read(int(rng.integers(1, config.rows + 1)))
                        turn += 1
                    errors_in_row = 0
                    ok = True
                except DatabaseError as exc:
                    ok = False
                    errors_in_row += 1
                    if start >= self.measure_start:
                        stats.errors += 1
                    if errors_in_row >= config.max_consecutive_errors:
                        self._fail(str(exc))
                        break
                stats.attempts += 1
                if ok and start >= self.measure_start:
                    stats.record(is_write=is_write, latency_s=clock.now() - start)
        except Exception as exc:  # a bug must fail the step, not hang it or vanish in a thread
            self._fail(f"client {number} crashed: {type(exc).__name__}")
            raise
        finally:
            for db in (target.master, *target.replicas):
                db.release()

    def _level(
        self,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
        lags: list[float],
        measured_until: float,
    ) -> dict[str, Any]:
        merged = merge(self.stats)
        transactions = merged["reads"] + merged["writes"]
        seconds = max(measured_until - self.measure_start, 1e-9)
        deltas: dict[str, Any] = {"master": {}, "replica": {}}
        if before is not None and after is not None:
            deltas["master"] = status_delta(before["master"], after["master"])
            deltas["replica"] = sum_deltas([
                status_delta(b, a)
                for b, a in zip(before["replicas"], after["replicas"], strict=True)
            ])
        behind = None
        if self.failure is None and self.target.replicas:
            with_lag = [r.replica_lag_s() for r in self.target.replicas]
            behind = max((v for v in with_lag if v is not None), default=None)
        level = {
            "threads": self.threads,
            "offered_tps": self.rate,
            "achieved_tps": round(transactions / seconds, 2) if transactions else 0.0,
            "transactions": transactions,
            "reads": merged["reads"],
            "writes": merged["writes"],
            "errors": merged["errors"],
            "unserved": self.arrivals.unserved(self.measure_start) if self.arrivals else 0,
            "measured_s": round(seconds, 3),
            "latency_ms": merged["latency_ms"],
            "replica_lag_s": round(max(lags), 4) if lags else None,
            "replica_lag_mean_s": round(sum(lags) / len(lags), 4) if lags else None,
            "seconds_behind_master": behind,
            "heartbeat_writes": self.monitor.writes if self.monitor else 0,
            "status_delta": deltas,
            "failed": self.failure is not None,
            "error": self.failure,
        }
        self._report("failed" if self.failure else "done")
        return level
