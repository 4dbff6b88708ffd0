"""Calibrate a real disk: sysbench fileio sweeps in a directory, an fsync probe, a fitted profile.

`run_calibration` prepares the test files once, runs every mode at every thread count (periodic
fsync off, `--file-extra-flags=direct` where the file system allows it), measures fsync, and
always removes its files. A failing run ends the sweep but keeps the finished runs
(`"complete": false`, `"error"` in one line naming the path).
"""

import contextlib
import mmap
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.errors import InvalidInput
from advisor.io_modes import CALIBRATION_MODES
from advisor.options import FieldError, check_value
from advisor.units import GIB, KIB, parse_bytes
from workloads.real.clock import Clock, SystemClock, wall_time_iso
from workloads.real.device_profile import check_name, fit_profile
from workloads.real.requests import (
    MAX_CALIBRATE_THREADS,
    MAX_THREAD_STEPS,
    THREAD,
    CalibrateRequest,
    default_of,
    numbers,
    opt_of,
)
from workloads.real.sysbench import (
    SysbenchFailed,
    SysbenchRunner,
    check_directory,
    fileio_args,
    run_fileio,
)

CalibrationProgress = Callable[[int, int, str], None]  # (done, total, what runs now)
FILE_NUM = 128  # sysbench's default --file-num
FLUSH_PROBES = 100
MAX_THREADS = MAX_CALIBRATE_THREADS


@dataclass(frozen=True, slots=True, kw_only=True)
class CalibrationPlan:
    """What a calibration runs; its defaults and per-field bounds are `advisor calibrate`'s
    declared options (`workloads.real.requests.CalibrateRequest`)."""

    path: Path
    name: str
    size_bytes: int = parse_bytes(default_of(CalibrateRequest, "size"))
    time_s: int = default_of(CalibrateRequest, "time")
    threads: tuple[int, ...] = numbers(default_of(CalibrateRequest, "threads"), int)
    block_bytes: int = parse_bytes(default_of(CalibrateRequest, "block_size"))
    modes: tuple[str, ...] = CALIBRATION_MODES

    def validate(self) -> None:
        """Bounds checked before anything runs (no sysbench thread or test file yet), named as
        the request names each field (`time 0: must be at least 1`; the CLI says `--time`)."""
        check_name(self.name)
        check_value("time", self.time_s, opt_of(CalibrateRequest, "time"))
        if not self.threads:
            raise FieldError("threads", "", "empty")
        for threads in self.threads:
            check_value("threads", threads, THREAD)
        if len(self.threads) > MAX_THREAD_STEPS:
            raise FieldError("threads", ",".join(map(str, self.threads)),
                             f"lists {len(self.threads):,} counts: at most {MAX_THREAD_STEPS}")
        if self.block_bytes < 512 or self.block_bytes % 512:
            raise FieldError("block_size", self.block_bytes,
                             "must be a multiple of 512 bytes (direct I/O)")
        if self.size_bytes < FILE_NUM * self.block_bytes:
            raise FieldError("size", self.size_bytes,
                             f"must be at least {FILE_NUM} x block_size "
                             f"({FILE_NUM * self.block_bytes // KIB} KiB): sysbench uses "
                             f"{FILE_NUM} files")
        unknown = [m for m in self.modes if m not in CALIBRATION_MODES]
        if unknown:
            raise InvalidInput(
                f"unknown fileio mode {unknown[0]!r}: use {', '.join(CALIBRATION_MODES)}"
            )


def run_calibration(
    plan: CalibrationPlan,
    *,
    runner: SysbenchRunner,
    clock: Clock | None = None,
    progress: CalibrationProgress | None = None,
) -> dict[str, Any]:
    """Run the sweep and return the raw calibration (runs, flush probe, options, errors)."""
    plan.validate()
    clock = clock or SystemClock()
    direct = check_directory(plan.path, plan.size_bytes)
    notify = progress or (lambda done, total, what: None)
    calibration: dict[str, Any] = {
        "tool": runner.version,
        "path": str(plan.path),
        "date": wall_time_iso(),
        "size_bytes": plan.size_bytes,
        "block_bytes": plan.block_bytes,
        "threads": list(plan.threads),
        "time_s": plan.time_s,
        "direct_io": direct,
        "options": {"file_num": FILE_NUM, "file_io_mode": "sync", "file_fsync_freq": 0,
                    "file_fsync_end": "off", "file_extra_flags": "direct" if direct else ""},
        "runs": [],
        "flush": None,
        "notes": [] if direct else [f"{plan.path} does not support O_DIRECT: ran without it"],
        "complete": False,
        "error": None,
    }
    total = len(plan.modes) * len(plan.threads) + 2
    workdir = plan.path / f"advisor-calibrate-{os.getpid()}"
    try:
        workdir.mkdir()
        notify(0, total, f"prepare {plan.size_bytes / GIB:g} GiB of test files")
        runner.run(fileio_args("prepare", size_bytes=plan.size_bytes,
                               block_bytes=plan.block_bytes, direct=direct), cwd=workdir,
                   timeout_s=max(600.0, plan.size_bytes / (10 * 2**20)))
        done = 1
        for mode in plan.modes:
            for threads in plan.threads:
                notify(done, total, f"{mode} {threads} thread{'s' if threads > 1 else ''}")
                calibration["runs"].append(run_fileio(
                    runner, workdir, mode=mode, threads=threads, time_s=plan.time_s,
                    size_bytes=plan.size_bytes, block_bytes=plan.block_bytes, direct=direct,
                ))
                done += 1
        notify(done, total, "fsync probe")
        calibration["flush"] = measure_flush(workdir, clock, direct=direct)
        notify(total, total, "done")
        calibration["complete"] = True
    except SysbenchFailed as exc:
        calibration["error"] = f"sysbench fileio in {plan.path}: {exc}"
    except OSError as exc:
        calibration["error"] = f"calibration path {plan.path}: {exc.strerror or exc}"
    finally:
        if workdir.exists():
            with contextlib.suppress(SysbenchFailed):  # the directory goes anyway
                runner.run(fileio_args("cleanup", size_bytes=plan.size_bytes,
                                       block_bytes=plan.block_bytes, direct=direct),
                           cwd=workdir, timeout_s=300)
            shutil.rmtree(workdir, ignore_errors=True)
    return calibration


def measure_flush(workdir: Path, clock: Clock, *, direct: bool) -> dict[str, Any]:
    """Median and p99 of fsync after a 16 KiB overwrite (direct when possible), in ms."""
    path = workdir / "advisor-flush-probe"
    block = 16 * KIB
    buffer = mmap.mmap(-1, block)  # page-aligned, as O_DIRECT requires
    buffer.write(b"\xa5" * block)
    flags = os.O_CREAT | os.O_RDWR | (getattr(os, "O_DIRECT", 0) if direct else 0)
    times: list[float] = []
    fd = os.open(path, flags, 0o600)
    try:
        for i in range(16):
            os.pwrite(fd, buffer, i * block)
        os.fsync(fd)
        for i in range(FLUSH_PROBES):
            os.pwrite(fd, buffer, (i % 16) * block)
            start = clock.now()
            os.fsync(fd)
            times.append((clock.now() - start) * 1000.0)
    finally:
        os.close(fd)
        buffer.close()
        path.unlink(missing_ok=True)
    times.sort()
    return {
        "method": f"python os.pwrite 16KiB{' O_DIRECT' if direct else ''} + os.fsync "
                  f"x{FLUSH_PROBES}",
        "p50_ms": round(times[len(times) // 2], 4),
        "p99_ms": round(times[min(int(len(times) * 0.99), len(times) - 1)], 4),
        "max_ms": round(times[-1], 4),
    }


def calibration_document(
    calibration: Mapping[str, Any], *, name: str, capacity_gib: float
) -> dict[str, Any]:
    """The profile file: a user-catalog fragment plus the raw calibration."""
    try:
        document = fit_profile(calibration, name=name, capacity_gib=capacity_gib)
        fitted = True
    except ValueError as exc:
        document = {"schema_version": 1, "latency_profiles": [], "local_devices": []}
        calibration = {**calibration, "notes": [*calibration.get("notes", []),
                                                f"no device profile: {exc}"]}
        fitted = False
    document["calibration"] = {**calibration, "profile_fitted": fitted}
    return document


def capacity_gib(path: Path) -> float:
    return shutil.disk_usage(path).total / GIB

