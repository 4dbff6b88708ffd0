"""Run sysbench 1.0.x (Debian package `sysbench`): fileio on a directory, OLTP on MariaDB.

`Sysbench` wraps the binary; tests can pass any object with the same `run` method. A MySQL
password goes to sysbench in the MYSQL_PWD environment variable (libmariadb reads it), never on
the command line where `ps` would show it.
"""

import errno
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from advisor.errors import AdvisorError, InvalidInput
from advisor.percentiles import PERCENTILES, percentile_key
from advisor.urls import mask_url
from workloads.real.db_sqlalchemy import parse_url
from workloads.real.sysbench_parse import fatal_message, parse_fileio, parse_oltp

MISSING_MESSAGE = "sysbench not found: install the Debian package sysbench"


class SysbenchMissing(AdvisorError):
    """The sysbench binary is not installed."""


class SysbenchFailed(Exception):
    """A sysbench command failed; the message is one line."""


class SysbenchRunner(Protocol):
    """What calibration and the sysbench replay driver need: run one command, get stdout."""

    @property
    def version(self) -> str:
        """`sysbench 1.0.20`: recorded in results."""
        ...

    def run(
        self,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> str: ...


@dataclass(frozen=True, slots=True)
class Sysbench:
    binary: str
    version: str

    @classmethod
    def find(cls) -> "Sysbench":
        binary = shutil.which("sysbench")
        if binary is None:
            raise SysbenchMissing(MISSING_MESSAGE)
        out = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, check=False, timeout=30
        )
        return cls(binary=binary, version=out.stdout.strip() or "sysbench (unknown version)")

    def run(
        self,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> str:
        try:
            proc = subprocess.run(
                [self.binary, *args], cwd=cwd, capture_output=True, text=True, check=False,
                env={**os.environ, **(env or {})}, timeout=timeout_s,
            )
        except subprocess.TimeoutExpired:
            raise SysbenchFailed(f"sysbench {args[0]} did not finish in {timeout_s:g}s") from None
        output = proc.stdout + proc.stderr
        reason = fatal_message(output)
        if proc.returncode != 0 or reason:
            last = (output.strip().splitlines() or ["(no output)"])[-1]
            raise SysbenchFailed(reason or f"sysbench exited with {proc.returncode}: {last}")
        return proc.stdout


# -- fileio ----------------------------------------------------------------------------------


def check_directory(path: Path, size_bytes: int) -> bool:
    """Fail in one line naming `path` unless test files fit there; return O_DIRECT support."""
    if not path.exists():
        raise InvalidInput(f"calibration path {path} does not exist")
    if not path.is_dir():
        raise InvalidInput(f"calibration path {path} is not a directory")
    probe = path / f".advisor-probe-{os.getpid()}"
    direct = True
    try:
        try:
            fd = os.open(probe, os.O_CREAT | os.O_WRONLY | getattr(os, "O_DIRECT", 0), 0o600)
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
            direct = False  # tmpfs and some others refuse O_DIRECT
            fd = os.open(probe, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    except OSError as exc:
        raise InvalidInput(_path_error(path, exc)) from None
    finally:
        probe.unlink(missing_ok=True)
    free = shutil.disk_usage(path).free
    need = int(size_bytes * 1.05) + 64 * 2**20
    if free < need:
        raise InvalidInput(
            f"not enough free space in {path}: the test files need {need / 2**30:.2f} GiB, "
            f"{free / 2**30:.2f} GiB free (use a smaller --size)"
        )
    return direct


def _path_error(path: Path, exc: OSError) -> str:
    if exc.errno == errno.EROFS:
        return f"calibration path {path} is on a read-only file system"
    if exc.errno == errno.ENOSPC:
        return f"calibration path {path}: no space left on device"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"calibration path {path}: no permission to create files there"
    return f"calibration path {path}: {exc.strerror}"


def fileio_args(
    command: str,
    *,
    size_bytes: int,
    block_bytes: int,
    direct: bool,
    mode: str | None = None,
    threads: int = 1,
    time_s: int = 10,
) -> list[str]:
    """sysbench fileio arguments; periodic fsync off so that latency is that of the I/Os."""
    args = ["fileio", f"--file-total-size={size_bytes}", f"--file-block-size={block_bytes}"]
    if direct:
        args.append("--file-extra-flags=direct")
    if command == "run":
        args += [
            f"--file-test-mode={mode}", f"--threads={threads}", f"--time={time_s}",
            "--file-fsync-freq=0", "--file-fsync-end=off", "--histogram=on", "--percentile=99",
        ]
    return [*args, command]


def fileio_measurement(parsed: Mapping[str, Any], *, mode: str) -> dict[str, Any]:
    """One calibration measurement (the shape `workloads.real.fio` produces too)."""
    latency = parsed["latency_ms"]
    # the histogram's percentiles (3 decimals), else the one percentile sysbench printed
    hist = {k: v for k, v in (parsed.get("histogram_ms") or {}).items() if v is not None}
    if not hist and latency.get("percentile"):
        key = percentile_key(latency["percentile"])
        hist = {key: latency[key]}
    return {
        "source": "sysbench",
        "mode": mode,
        "threads": parsed["threads"],
        "iodepth": 1,
        "block_bytes": parsed["block_bytes"],
        "direct": parsed["direct"],
        "read_iops": parsed["reads_per_s"],
        "write_iops": parsed["writes_per_s"],
        "fsyncs_per_s": parsed["fsyncs_per_s"],
        "read_mibps": parsed["read_mibps"],
        "write_mibps": parsed["written_mibps"],
        "latency_ms": {
            "min": latency["min"], "avg": latency["avg"], "max": latency["max"],
            **{k: hist.get(k) for k in PERCENTILES},
        },
        "percentiles_ms": hist,
        "duration_s": parsed["total_time_s"],
        "events": parsed["total_events"],
    }


def run_fileio(
    runner: SysbenchRunner,
    workdir: Path,
    *,
    mode: str,
    threads: int,
    size_bytes: int,
    block_bytes: int,
    direct: bool,
    time_s: int,
) -> dict[str, Any]:
    args = fileio_args("run", size_bytes=size_bytes, block_bytes=block_bytes, direct=direct,
                       mode=mode, threads=threads, time_s=time_s)
    text = runner.run(args, cwd=workdir, timeout_s=time_s * 3 + 120)
    return fileio_measurement(parse_fileio(text), mode=mode)


# -- OLTP against MariaDB/MySQL ---------------------------------------------------------------


def oltp_connection(url: str) -> tuple[list[str], dict[str, str]]:
    """(sysbench --mysql-* arguments, environment with MYSQL_PWD) for a MySQL/MariaDB URL."""
    parsed = parse_url(url)
    if parsed.get_backend_name() not in ("mysql", "mariadb"):
        raise InvalidInput(f"--driver sysbench needs a MySQL/MariaDB --master, not {mask_url(url)}")
    args = [
        f"--mysql-host={parsed.host or '127.0.0.1'}",
        f"--mysql-port={parsed.port or 3306}",
        f"--mysql-user={parsed.username or 'root'}",
        f"--mysql-db={parsed.database}",
    ]
    # PyMySQL also takes the password as ?password= or ?passwd= (SQLAlchemy passes it on)
    query = {k: v if isinstance(v, str) else v[-1] for k, v in parsed.query.items()}
    password = parsed.password or query.get("password") or query.get("passwd") or ""
    return args, {"MYSQL_PWD": str(password)}


def point_selects_for(reads_per_write: float) -> int:
    """`--point-selects` giving `reads_per_write`: a txn has 4 ranges + 4 writes (3.25 -> 9)."""
    point_selects = round(4 * reads_per_write) - 4
    if point_selects < 0:
        raise InvalidInput(
            f"--driver sysbench needs --reads >= 1 (oltp_read_write has 4 range reads per "
            f"4 writes), got {reads_per_write:g}"
        )
    return point_selects


# oltp_read_write's other statement settings, passed explicitly (sysbench 1.0.20's defaults,
# oltp_common.lua): the measured shape splits the counters with them (`measure_rw_shape`).
RANGE_SIZE = 100
RANGES = ("--simple-ranges=1", "--sum-ranges=1", "--order-ranges=1", "--distinct-ranges=1")
INDEX_UPDATES, NON_INDEX_UPDATES = 1, 1


def oltp_args(
    command: str, connection: Sequence[str], *, rows: int, point_selects: int,
    threads: int = 1, time_s: float = 10, rate_tps: float | None = None,
) -> list[str]:
    args = ["oltp_read_write", *connection, "--tables=1", f"--table-size={rows}",
            f"--point-selects={point_selects}", f"--range-size={RANGE_SIZE}", *RANGES,
            f"--index-updates={INDEX_UPDATES}", f"--non-index-updates={NON_INDEX_UPDATES}",
            "--delete-inserts=1"]
    if command == "run":
        args += [f"--threads={threads}", f"--time={max(round(time_s), 1)}", "--histogram=on",
                 "--percentile=99", "--mysql-ignore-errors=1213,1205"]
        if rate_tps:
            args.append(f"--rate={max(round(rate_tps), 1)}")
    return [*args, command]


def run_oltp(
    runner: SysbenchRunner, url: str, *, rows: int, point_selects: int, threads: int,
    time_s: float, rate_tps: float | None = None,
) -> dict[str, Any]:
    connection, env = oltp_connection(url)
    args = oltp_args("run", connection, rows=rows, point_selects=point_selects, threads=threads,
                     time_s=time_s, rate_tps=rate_tps)
    return parse_oltp(runner.run(args, env=env, timeout_s=time_s * 3 + 120))
