"""What a replay runs (`ReplayConfig`), against what (`Target`), and how it reports progress."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from advisor.errors import InvalidInput
from workloads.real.db import Database
from workloads.real.db_sqlalchemy import SqlAlchemyDatabase

Phase = Literal["prepare", "warmup", "measure", "done", "failed"]
MAX_THREADS = 1024  # client threads (one connection each)
MAX_STEPS = 64
MAX_RATE_TPS = 1_000_000
MAX_STEP_S = 86_400
MAX_REPLAY_S = 7 * 86_400
MAX_ROWS = 100_000_000  # ten times sysbench's largest common table
SQLITE_NOTE = "embedded SQLite: master and replica are the same file"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayConfig:
    reads_per_write: float = 3.25
    ramp: tuple[int, ...] = (1, 2, 4, 8)
    # Open loop when given: one step per rate (a single rate or a single ramp value is repeated).
    rates_tps: tuple[float, ...] = ()
    duration_s: float = 10.0
    warmup_s: float = 2.0
    rows: int = 10_000
    seed: int = 1
    # Reads that fetch `range_rows` consecutive rows instead of one.
    range_fraction: float = 0.1
    range_rows: int = 10
    max_consecutive_errors: int = 3
    tick_s: float = 0.1
    catchup_timeout_s: float = 60.0

    def validate(self) -> None:
        # Bounds keep a replay's work finite and known before it starts: a real database
        # replayed for at most a day a step and MAX_REPLAY_S in all, at rates and thread counts
        # a client machine can drive.
        steps = max(len(self.ramp), len(self.rates_tps))
        checks = (
            (0 <= self.reads_per_write <= 10_000,
             f"--reads {self.reads_per_write:g} must be between 0 and 10,000"),
            (bool(self.ramp) and min(self.ramp) >= 1 and max(self.ramp) <= MAX_THREADS,
             f"--ramp must list thread counts from 1 to {MAX_THREADS:,}, like 1,2,4,8"),
            (steps <= MAX_STEPS, f"--ramp/--rate: at most {MAX_STEPS} steps"),
            (all(0 < r <= MAX_RATE_TPS for r in self.rates_tps),
             f"--rate values must be above 0 and at most {MAX_RATE_TPS:,} transactions/s"),
            (0 < self.duration_s <= MAX_STEP_S,
             f"--duration {self.duration_s:g} must be above 0 and at most {MAX_STEP_S:,} s"),
            (0 <= self.warmup_s <= MAX_STEP_S,
             f"--warmup {self.warmup_s:g} must be between 0 and {MAX_STEP_S:,} s"),
            (steps * (self.duration_s + self.warmup_s) <= MAX_REPLAY_S,
             f"this replay would run {steps * (self.duration_s + self.warmup_s):,.0f} s, over "
             f"the limit of {MAX_REPLAY_S:,} s (7 days): shorten --duration or use fewer steps"),
            (1 <= self.rows <= MAX_ROWS, f"--rows {self.rows} must be from 1 to {MAX_ROWS:,}"),
            (0 <= self.seed < 2**63, f"--seed {self.seed} must be from 0 to 2**63 - 1"),
            (0 <= self.range_fraction <= 1, "range_fraction must be within 0..1"),
            (self.range_rows >= 1, "range_rows must be >= 1"),
        )
        for ok, message in checks:
            if not ok:
                raise InvalidInput(message)
        if self.rates_tps and len(self.ramp) > 1 and len(self.rates_tps) > 1 and len(
            self.ramp
        ) != len(self.rates_tps):
            raise InvalidInput(
                f"--ramp has {len(self.ramp)} values and --rate {len(self.rates_tps)}: "
                "give one of them a single value, or both the same number of values"
            )

    def steps(self) -> list[tuple[int, float | None]]:
        """(threads, offered rate or None) per step."""
        if not self.rates_tps:
            return [(threads, None) for threads in self.ramp]
        count = max(len(self.ramp), len(self.rates_tps))
        ramp = self.ramp * count if len(self.ramp) == 1 else self.ramp
        rates = self.rates_tps * count if len(self.rates_tps) == 1 else self.rates_tps
        return list(zip(ramp, rates, strict=True))

    @property
    def write_probability(self) -> float:
        return 1.0 / (1.0 + self.reads_per_write)


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """Where the transactions go: one master, reads round-robin over the replicas (or master)."""

    master: Database
    replicas: tuple[Database, ...] = ()
    driver: str = "sqlalchemy"
    note: str | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "master": self.master.name,
            "replicas": [r.name for r in self.replicas],
            "driver": self.driver,
            "note": self.note,
        }

    def close(self) -> None:
        for db in (self.master, *self.replicas):
            db.close()


def open_target(
    master_url: str | None, replica_urls: Sequence[str], *, pool_size: int, sqlite_path: Path
) -> Target:
    """Real databases from URLs; no master URL means an embedded SQLite file at `sqlite_path`."""
    if master_url is None:
        if replica_urls:
            raise InvalidInput("--replica needs --master (the replicas' master)")
        sqlite_path.parent.mkdir(parents=True, exist_ok=True)
        master = SqlAlchemyDatabase(f"sqlite:///{sqlite_path}", pool_size=pool_size)
        return Target(master=master, note=f"{SQLITE_NOTE} ({sqlite_path})")
    master = SqlAlchemyDatabase(master_url, pool_size=pool_size)
    replicas: list[Database] = []
    try:
        for url in replica_urls:
            replicas.append(SqlAlchemyDatabase(url, pool_size=pool_size, replica=True))
    except InvalidInput:
        for db in (master, *replicas):
            db.close()
        raise
    note = None if replicas else "no replica: reads run on the master"
    return Target(master=master, replicas=tuple(replicas), note=note)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgressEvent:
    step: int  # 1-based
    steps: int
    threads: int
    offered_tps: float | None
    phase: Phase
    elapsed_s: float
    step_s: float
    transactions: int
    message: str = ""


ProgressCallback = Callable[[ProgressEvent], None]
