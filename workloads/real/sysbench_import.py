"""Import sysbench 1.0.x `fileio ... run` text output as calibration measurements.

A file holds one run's output, or several appended one after another (each starts with the
`sysbench 1.0.20 (using ...)` banner). Per run: mode, threads, block size, direct I/O, reads/s,
writes/s, fsyncs/s, MiB/s and latency as sysbench prints it: min/avg/max at two decimals, the
one `--percentile` it was asked for, and, with `--histogram=on`, every percentile read from the
histogram the way sysbench reads its own. Text that is not a fileio run is refused in one line.
"""

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from advisor.errors import InvalidInput
from advisor.userfiles import read_text
from workloads.real.sysbench import fileio_measurement
from workloads.real.sysbench_parse import SysbenchOutputError, parse_fileio

_BANNER = re.compile(r"^sysbench [0-9][^\n]*$", re.MULTILINE)


def split_runs(text: str) -> list[str]:
    """The outputs of the runs in `text`, at each sysbench banner (all of it if there is none)."""
    starts = [m.start() for m in _BANNER.finditer(text)]
    if not starts:
        return [text]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def _run(text: str, where: str) -> dict[str, Any] | None:
    """One measurement; None for the outputs of `prepare` and `cleanup`."""
    if re.search(r"^Doing .+ test$", text, re.MULTILINE) is None:
        if re.search(r"bytes written in|^Removing test files", text, re.MULTILINE):
            return None  # prepare / cleanup: nothing measured
        if "transactions:" in text and "queries performed:" in text:
            raise InvalidInput(f"{where}: sysbench OLTP output; calibrate reads the output of "
                               "sysbench fileio ... run")
        raise InvalidInput(f"{where}: not sysbench fileio run output (no 'Doing ... test' line)")
    try:
        parsed = parse_fileio(text)
    except SysbenchOutputError as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    if parsed["mode"] is None or parsed["threads"] is None or parsed["block_bytes"] is None:
        missing = "Doing" if parsed["mode"] is None else (
            "Number of threads" if parsed["threads"] is None else "Block size")
        raise InvalidInput(f"{where}: sysbench output has no '{missing}' line")
    run = fileio_measurement(parsed, mode=parsed["mode"])
    io_mode = re.search(r"^Using (\w+) I/O mode", text, re.MULTILINE)
    run["io_mode"] = io_mode.group(1) if io_mode else "synchronous"
    run["fsync_every_requests"] = parsed["fsync_every_requests"]
    return run


def import_sysbench(paths: Sequence[Path]) -> dict[str, Any]:
    """A calibration (same shape as `run_calibration`'s) from sysbench fileio output files."""
    runs: list[dict[str, Any]] = []
    notes = [f"imported from sysbench fileio output {', '.join(str(p) for p in paths)}"]
    versions = set()
    for path in paths:
        text = read_text(path, what="sysbench output")
        found = 0
        for i, part in enumerate(split_runs(text)):
            where = f"sysbench output {path}" + (f" (run {i + 1})" if i else "")
            run = _run(part, where)
            if run is None:
                continue
            run["source_file"] = str(path)
            runs.append(run)
            found += 1
            banner = _BANNER.search(part)
            versions.add(banner.group(0).split(" (")[0] if banner else "sysbench")
        if not found:
            raise InvalidInput(f"sysbench output {path}: no fileio run in it (only prepare or "
                               "cleanup output)")
    if any("p50" not in run["percentiles_ms"] for run in runs):
        notes.append("runs without --histogram=on give only the one percentile sysbench "
                     "prints (--percentile, 95 by default); a device profile needs p50 and p99")
    if any(run["io_mode"] != "synchronous" for run in runs):
        notes.append("asynchronous/mmap runs: sysbench does not print --file-async-backlog, so "
                     "their queue depth is recorded as 1")
    if any(run["fsyncs_per_s"] for run in runs):
        notes.append("runs with periodic fsync (--file-fsync-freq): sysbench counts each "
                     "fsync as an event, so their latency figures include the fsyncs")
    return {
        "tool": ", ".join(sorted(versions)),
        "source_file": ", ".join(str(p) for p in paths),
        "path": str(paths[0]),
        "date": "",
        "block_bytes": runs[0]["block_bytes"],
        "direct_io": all(run["direct"] for run in runs),
        "runs": runs,
        "flush": None,
        "notes": notes,
        "complete": True,
        "error": None,
    }
