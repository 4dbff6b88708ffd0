"""Parse sysbench 1.0.20 output: fileio and OLTP summaries, and the `--histogram` block.

Every summary field 1.0.20 prints is kept. Percentiles are read from the histogram the way
sysbench computes its own `Nth percentile` line (`sb_histogram_get_pct_intermediate`): the value
of the first bucket where the running count reaches round(N x pct / 100).
"""

import math
import re
from typing import Any

from advisor.io_modes import FILE_TEST_MODES
from advisor.percentiles import TOOL_PERCENTILES, percentile_key

PERCENTILES = tuple(TOOL_PERCENTILES.values())
_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
_MODES = {m.label: m.name for m in FILE_TEST_MODES.values()}  # sysbench's wording -> name


class SysbenchOutputError(ValueError):
    """The text is not the sysbench output expected (a field is missing)."""


def _field(text: str, label: str, *, required: bool = True) -> float | None:
    match = re.search(rf"^\s*{re.escape(label)}\s*{_NUMBER}", text, re.MULTILINE)
    if match is None:
        if required:
            raise SysbenchOutputError(f"sysbench output has no '{label}' line")
        return None
    return float(match.group(1))


def _pair(text: str, label: str) -> tuple[float, float]:
    match = re.search(rf"^\s*{re.escape(label)}\s*{_NUMBER}/{_NUMBER}", text, re.MULTILINE)
    if match is None:
        raise SysbenchOutputError(f"sysbench output has no '{label}' line")
    return float(match.group(1)), float(match.group(2))


def parse_histogram(text: str) -> list[tuple[float, int]]:
    """The `--histogram` block as (value_ms, count) pairs, in the order printed."""
    start = text.find("Latency histogram")
    if start < 0:
        return []
    buckets = []
    for line in text[start:].splitlines()[2:]:
        match = re.match(r"^\s*([0-9.]+)\s*\|[* ]*\s([0-9]+)\s*$", line)
        if match is None:
            break
        buckets.append((float(match.group(1)), int(match.group(2))))
    return buckets


def histogram_percentiles(
    buckets: list[tuple[float, int]], percentiles: tuple[float, ...] = PERCENTILES
) -> dict[str, float | None]:
    total = sum(count for _, count in buckets)
    result: dict[str, float | None] = {}
    for pct in percentiles:
        if total == 0:
            result[percentile_key(pct)] = None
            continue
        target = math.floor(total * pct / 100 + 0.5)
        result[percentile_key(pct)] = _first_reaching(buckets, target) if target > 0 else 0.0
    return result


def _first_reaching(buckets: list[tuple[float, int]], target: int) -> float:
    running = 0
    for value, count in buckets:
        running += count
        if running >= target:
            return value
    return buckets[-1][0]


def _latency(text: str) -> dict[str, Any]:
    block = text[text.find("Latency (ms):"):] if "Latency (ms):" in text else ""
    if not block:
        raise SysbenchOutputError("sysbench output has no 'Latency (ms):' block")
    latency: dict[str, Any] = {
        "min": _field(block, "min:"),
        "avg": _field(block, "avg:"),
        "max": _field(block, "max:"),
        "sum": _field(block, "sum:"),
    }
    match = re.search(rf"^\s*([0-9]+(?:\.[0-9]+)?)th percentile:\s*{_NUMBER}", block, re.MULTILINE)
    if match is not None:
        latency["percentile"] = float(match.group(1))
        latency[percentile_key(float(match.group(1)))] = float(match.group(2))
    return latency


def _general(text: str) -> dict[str, Any]:
    time_match = re.search(rf"total time:\s*{_NUMBER}s", text)
    if time_match is None:
        raise SysbenchOutputError("sysbench output has no 'total time:' line")
    events_avg, events_stddev = _pair(text, "events (avg/stddev):")
    time_avg, time_stddev = _pair(text, "execution time (avg/stddev):")
    histogram = parse_histogram(text)
    threads = _field(text, "Number of threads:", required=False)
    return {
        "version": _version(text),
        "threads": int(threads) if threads is not None else None,
        "total_time_s": float(time_match.group(1)),
        "total_events": int(_field(text, "total number of events:") or 0),
        "latency_ms": _latency(text),
        "fairness": {
            "events_avg": events_avg,
            "events_stddev": events_stddev,
            "execution_time_avg_s": time_avg,
            "execution_time_stddev_s": time_stddev,
        },
        "histogram_ms": histogram_percentiles(histogram) if histogram else None,
        "histogram": histogram,
    }


def _version(text: str) -> str | None:
    match = re.search(r"^sysbench ([0-9][^\s]*)", text, re.MULTILINE)
    return match.group(1) if match else None


def parse_fileio(text: str) -> dict[str, Any]:
    """A `sysbench fileio ... run` output: options echoed, file operations, throughput, latency."""
    mode_match = re.search(r"^Doing (.+) test$", text, re.MULTILINE)
    flags = re.search(r"^Extra file open flags: (.+)$", text, re.MULTILINE)
    block = re.search(r"^Block size ([0-9]+)KiB", text, re.MULTILINE)
    total = re.search(r"^([0-9]+)MiB total file size", text, re.MULTILINE)
    files = re.search(r"^([0-9]+) files, ", text, re.MULTILINE)
    fsync = re.search(r"calling fsync\(\) each ([0-9]+) requests", text)
    parsed = _general(text)
    parsed.update({
        "mode": _MODES.get(mode_match.group(1), mode_match.group(1)) if mode_match else None,
        "open_flags": flags.group(1).strip() if flags else None,
        "direct": bool(flags and "directio" in flags.group(1)),
        "block_bytes": int(block.group(1)) * 1024 if block else None,
        "total_size_bytes": int(total.group(1)) * 2**20 if total else None,
        "files": int(files.group(1)) if files else None,
        "fsync_every_requests": int(fsync.group(1)) if fsync else 0,
        "reads_per_s": _field(text, "reads/s:"),
        "writes_per_s": _field(text, "writes/s:"),
        "fsyncs_per_s": _field(text, "fsyncs/s:"),
        "read_mibps": _field(text, "read, MiB/s:"),
        "written_mibps": _field(text, "written, MiB/s:"),
    })
    return parsed


def parse_oltp(text: str) -> dict[str, Any]:
    """A `sysbench oltp_* ... run` output: queries, transactions, errors, latency."""
    parsed = _general(text)
    transactions = re.search(rf"transactions:\s*([0-9]+)\s*\({_NUMBER} per sec\.\)", text)
    queries = re.search(rf"^\s*queries:\s*([0-9]+)\s*\({_NUMBER} per sec\.\)", text, re.MULTILINE)
    errors = re.search(rf"ignored errors:\s*([0-9]+)\s*\({_NUMBER} per sec\.\)", text)
    reconnects = re.search(rf"reconnects:\s*([0-9]+)\s*\({_NUMBER} per sec\.\)", text)
    if transactions is None or queries is None:
        raise SysbenchOutputError("sysbench output has no 'transactions:'/'queries:' lines")
    performed = text[text.find("queries performed:"):]
    parsed.update({
        "queries": {
            "read": int(_field(performed, "read:") or 0),
            "write": int(_field(performed, "write:") or 0),
            "other": int(_field(performed, "other:") or 0),
            "total": int(_field(performed, "total:") or 0),
        },
        "transactions": int(transactions.group(1)),
        "tps": float(transactions.group(2)),
        "queries_total": int(queries.group(1)),
        "qps": float(queries.group(2)),
        "ignored_errors": int(errors.group(1)) if errors else 0,
        "reconnects": int(reconnects.group(1)) if reconnects else 0,
    })
    return parsed


def fatal_message(text: str) -> str | None:
    """sysbench's reason for failing, in one line (its first two FATAL lines)."""
    lines = [ln.strip()[len("FATAL: "):] for ln in text.splitlines() if ln.startswith("FATAL: ")]
    lines = [ln for ln in lines if "call_command' function failed" not in ln]
    return "; ".join(lines[:2]) if lines else None
