"""`advisor replay` and `advisor calibrate` options, declared once (advisor.options): the CLI's
typer options are generated from these fields, and the configurations the real components run
(`ReplayConfig`, `CalibrationPlan`) take their defaults and per-field bounds from them. A bad value
is a `FieldError` in domain terms (`time 0: must be at least 1`); the CLI names it `--time`."""

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.errors import InvalidInput
from advisor.options import (
    MAX_NUMBER_TEXT,
    Declared,
    FieldError,
    Opt,
    check_fields,
    check_value,
    declared,
    option,
)
from advisor.units import parse_bytes

MAX_REPLAY_THREADS = 1024  # client threads (one connection each)
MAX_RATE_TPS = 1_000_000
MAX_STEP_S = 86_400
MAX_ROWS = 100_000_000  # ten times sysbench's largest common table
# Beyond the deepest device queue (NVMe: 1,023 commands per queue) more sysbench threads only
# wait in the kernel: they measure the scheduler, not the disk, and cost one OS thread each.
MAX_CALIBRATE_THREADS = 1024
MAX_THREAD_STEPS = 32  # each count runs every mode: 32 counts x 4 modes is already long
MAX_TIME_S = 3600  # seconds per run: an hour per mode and thread count
DRIVERS = ("sqlalchemy", "sysbench")


def numbers(text: str, kind: type[int] | type[float]) -> tuple[Any, ...]:
    """A comma-separated list of numbers; InvalidInput (domain words, no flag) if it is not."""
    parts = [part for part in text.split(",") if part.strip()]
    # A number longer than this is no thread count or rate (and int() of thousands of digits
    # is slow): refused before it is parsed, quoted as an excerpt.
    if any(len(part.strip()) > MAX_NUMBER_TEXT for part in parts):
        raise InvalidInput(f"a number of more than {MAX_NUMBER_TEXT} characters")
    try:
        values = tuple(kind(part) for part in parts)
    except ValueError:
        raise InvalidInput("not a comma-separated list of numbers") from None
    if not values:
        raise InvalidInput("empty")
    return values


def _list_problem(kind: type[int] | type[float]) -> Any:
    def problem(text: str) -> str | None:
        try:
            numbers(text, kind)
        except InvalidInput as exc:
            return str(exc)
        return None
    return problem


def _bytes_problem(text: str) -> str | None:
    """Why `text` is not a byte size (the field is named by whoever reports it), or None."""
    try:
        parse_bytes(text, what="")
    except InvalidInput as exc:
        message = str(exc).removeprefix(" ")
        message = message.split(": ", 1)[1] if message.endswith("500GiB") and ": " in message \
            else message.removeprefix(f"{text!r} ")
        return message.removeprefix("is ")
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayRequest:
    """`advisor replay`: what to drive, how hard and for how long."""

    master: str | None = option(None, help="master URL, like mysql+pymysql://USER:PASSWORD@HOST:"
                                "3306/DB [default: an embedded SQLite file]", reproduce="never")
    replica: list[str] | None = option(  # noqa: RUF009 (None: ruff sees the list type)
        None, help="replica URL (repeatable); reads go round-robin over the replicas, to the "
        "master when there is none", reproduce="never")
    reads: float = option(3.25, ge=0, le=10_000, help="read transactions per write transaction "
                          "(3.25 = 23.5 % writes)")
    ramp: str = option("1,2,4,8", check=_list_problem(int),
                       help="client threads of each step, comma-separated")
    duration: float = option(10.0, gt=0, le=MAX_STEP_S, help="measured seconds per step")
    warmup: float = option(2.0, ge=0, le=MAX_STEP_S,
                           help="seconds run before each step's measurement, not counted")
    rows: int = option(10_000, ge=1, le=MAX_ROWS,
                       help="rows in the test table (created once, reused)")
    rate: str | None = option(None, check=_list_problem(float),
                              help="open loop: Poisson arrivals at this many transactions/s (a "
                              "comma list runs one step per rate); latency counts from the "
                              "intended start")
    driver: str = option("sqlalchemy", choices=DRIVERS, help="sqlalchemy: built-in clients; "
                         "sysbench: oltp_read_write on the master")
    seed: int = option(1, ge=0, le=2**63 - 1, help="random seed (echoed in the result)")

    def __post_init__(self) -> None:
        check_fields(self)
        self.config().validate()

    def config(self) -> "Any":
        """The replay configuration of this request (`workloads.real.replay_setup`)."""
        from workloads.real.replay_setup import ReplayConfig

        return ReplayConfig(reads_per_write=self.reads, ramp=numbers(self.ramp, int),
                            rates_tps=numbers(self.rate, float) if self.rate is not None else (),
                            duration_s=self.duration, warmup_s=self.warmup, rows=self.rows,
                            seed=self.seed)


@dataclass(frozen=True, slots=True, kw_only=True)
class CalibrateRequest:
    """`advisor calibrate`: the disk to measure (or results to import) and the sweep."""

    path: str | None = option(None, help="directory on the disk to measure (created if missing; "
                              "test files are created and removed)",
                              check=lambda p: "empty: give the directory to measure"
                              if not p.strip() else None)
    size: str = option("1G", check=_bytes_problem, help="total size of the test files "
                       "(bigger than the disk cache for honest reads)")
    time: int = option(10, ge=1, le=MAX_TIME_S, help="seconds per run")
    threads: str = option("1,4,16", check=_list_problem(int),
                          help="thread counts to run each mode at, comma-separated")
    block_size: str = option("16k", check=_bytes_problem,
                             help="I/O size (InnoDB pages are 16k)")
    name: str | None = option(None, help="device name, used as local:NAME [default: this host's "
                              "name, or the fio file's name]")
    import_fio: Path | None = option(  # noqa: RUF009 (None: ruff sees the Path type)
        None, help="read fio --output-format=json results instead of running sysbench")
    import_sysbench: list[Path] | None = option(  # noqa: RUF009 (None, as above)
        None, help="read sysbench fileio run output (text) instead of running sysbench "
        "(repeatable)")

    def __post_init__(self) -> None:
        check_fields(self)
        threads = numbers(self.threads, int)
        check_value("threads", min(threads), THREAD)  # the plan checks them again, as a tuple
        check_value("threads", max(threads), THREAD)
        if len(threads) > MAX_THREAD_STEPS:
            raise FieldError("threads", self.threads, f"lists {len(threads):,} counts: at most "
                             f"{MAX_THREAD_STEPS}")

    @property
    def thread_counts(self) -> tuple[int, ...]:
        return numbers(self.threads, int)


# One sysbench thread count (each of --threads).
THREAD = Opt(help="sysbench threads", ge=1, le=MAX_CALIBRATE_THREADS)


def replay_fields() -> dict[str, Declared]:
    return {d.name: d for d in declared(ReplayRequest)}


def calibrate_fields() -> dict[str, Declared]:
    return {d.name: d for d in declared(CalibrateRequest)}


def default_of(cls: type, name: str) -> Any:
    """A declared option's default (the configurations' defaults are these)."""
    return next(f.default for f in dataclasses.fields(cls) if f.name == name)


def opt_of(cls: type, name: str) -> Opt:
    """A declared option's bounds (the configurations check their fields with these)."""
    found: Opt = next(d.opt for d in declared(cls) if d.name == name)
    return found
