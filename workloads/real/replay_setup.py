"""What a replay runs (`ReplayConfig`), against what (`Target`), and how it reports progress."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from advisor.errors import InvalidInput
from advisor.options import FieldError, Opt, check_value
from workloads.real.db import Database
from workloads.real.db_sqlalchemy import SqlAlchemyDatabase
from workloads.real.requests import (
    MAX_RATE_TPS,
    MAX_REPLAY_THREADS,
    ReplayRequest,
    default_of,
    numbers,
    opt_of,
)

Phase = Literal["prepare", "warmup", "measure", "done", "failed"]
MAX_THREADS = MAX_REPLAY_THREADS
MAX_STEPS = 64
MAX_REPLAY_S = 7 * 86_400
SQLITE_NOTE = "embedded SQLite: master and replica are the same file"


_THREADS = Opt(help="client threads of a step", ge=1, le=MAX_THREADS)
_RATE = Opt(help="transactions/s of a step", gt=0, le=MAX_RATE_TPS)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayConfig:
    """What a replay runs; its defaults and per-field bounds are `advisor replay`'s declared
    options (`workloads.real.requests.ReplayRequest`), so a core caller gets the same checks."""

    reads_per_write: float = default_of(ReplayRequest, "reads")
    ramp: tuple[int, ...] = numbers(default_of(ReplayRequest, "ramp"), int)
    # Open loop when given: one step per rate (a single rate or a single ramp value is repeated).
    rates_tps: tuple[float, ...] = ()
    duration_s: float = default_of(ReplayRequest, "duration")
    warmup_s: float = default_of(ReplayRequest, "warmup")
    rows: int = default_of(ReplayRequest, "rows")
    seed: int = default_of(ReplayRequest, "seed")
    # Reads that fetch `range_rows` consecutive rows instead of one.
    range_fraction: float = 0.1
    range_rows: int = 10
    max_consecutive_errors: int = 3
    tick_s: float = 0.1
    catchup_timeout_s: float = 60.0

    def validate(self) -> None:
        """Domain wording, named as the request names each field (`duration 0: must be
        positive`); the CLI says `--duration`. Bounds keep a replay's work finite and known
        before it starts: a real database replayed for at most a day a step and MAX_REPLAY_S in
        all, at rates and thread counts a client machine can drive."""
        for name, value in (("reads", self.reads_per_write), ("duration", self.duration_s),
                            ("warmup", self.warmup_s), ("rows", self.rows), ("seed", self.seed)):
            check_value(name, value, opt_of(ReplayRequest, name))
        if not self.ramp:
            raise FieldError("ramp", "", "empty")
        for threads in self.ramp:
            check_value("ramp", threads, _THREADS)
        for rate in self.rates_tps:
            check_value("rate", rate, _RATE)
        steps = max(len(self.ramp), len(self.rates_tps))
        if steps > MAX_STEPS:
            longer = ("ramp", self.ramp) if len(self.ramp) >= len(self.rates_tps) else \
                ("rate", self.rates_tps)
            raise FieldError(longer[0], ",".join(f"{v:g}" for v in longer[1]),
                             f"{steps} steps: at most {MAX_STEPS}")
        total = steps * (self.duration_s + self.warmup_s)
        if total > MAX_REPLAY_S:
            raise FieldError("duration", self.duration_s, f"this replay would run {total:,.0f} s, "
                             f"over the limit of {MAX_REPLAY_S:,} s (7 days): shorten it or use "
                             "fewer steps")
        if not 0 <= self.range_fraction <= 1:
            raise InvalidInput("range_fraction must be within 0..1")
        if self.range_rows < 1:
            raise InvalidInput("range_rows must be >= 1")
        if self.rates_tps and len(self.ramp) > 1 and len(self.rates_tps) > 1 and len(
            self.ramp
        ) != len(self.rates_tps):
            raise FieldError(
                "ramp", ",".join(map(str, self.ramp)),
                f"{len(self.ramp)} values and rate {len(self.rates_tps)}: give one of them a "
                "single value, or both the same number of values")

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
