"""Fit a device profile from calibration measurements and write it as a user-catalog fragment.

The fragment has the field names of `advisor.catalog.model.LatencyProfile`, `LatencyDist` and
`LocalDevice`, so a layout can use the measured disk as `local:NAME`:
- read/write latency: log-normal body through the QD1 p50 and p90 (sigma = ln(p90/p50) /
  1.2816), net of the block's transfer time the simulator adds back, plus a heavy tail holding
  the measured share of I/Os slower than the body's p99.99;
- saturation IOPS: the best random read/write rate over the thread counts tried;
- sequential MiB/s: the best sequential rate; it also stands for the per-I/O transfer speed;
- flush: the median fsync time measured beside the runs.
The raw measurements stay in the file under "calibration" so that `advisor validate` can compare
the simulator with them.
"""

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from advisor.errors import InvalidInput
from advisor.io_modes import CALIBRATION_MODES
from advisor.options import show_value

Z90 = 1.2816  # standard normal quantile of 0.90
Z99 = 2.326  # standard normal quantile of 0.99
Z9999 = 3.719  # ... of 0.9999: beyond it an I/O counts as a tail event
SIGMA_RANGE = (0.01, 1.5)
MAX_TAIL_PROBABILITY = 0.01
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise InvalidInput(
            f"--name {show_value(name)}: use letters, digits, '.', '_' or '-', at most 63, "
            "starting with a letter or digit (it becomes local:NAME)"
        )
    return name


def default_name(hostname: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", hostname).strip("-._") or "disk"
    return cleaned[:63]


def _pct_key(key: str) -> float:
    """'p999' -> 99.9, 'p50' -> 50 (the keys of `percentiles_ms`)."""
    digits = key[1:]
    return float(digits[:2] + ("." + digits[2:] if len(digits) > 2 else ""))


def fit_latency(run: Mapping[str, Any], transfer_ms: float = 0.0) -> dict[str, float]:
    """`LatencyDist` fields from one (queue-depth-1) measurement.

    The simulator adds each I/O's transfer time (size / transfer speed) to the body, so the
    measured percentiles, which include it, are taken net of `transfer_ms`. The body's spread
    comes from p50 and p90, where the device is not yet in its tail."""
    latency = run["latency_ms"]
    p50, p90, p99 = latency.get("p50"), latency.get("p90"), latency.get("p99")
    if not p50 or not p99:
        raise ValueError(f"{run['mode']} at {run['threads']} threads has no p50/p99")
    net = min(transfer_ms, 0.5 * p50)
    p50 -= net
    p99 -= net
    if p90:
        p90 -= net
        sigma = math.log(p90 / p50) / Z90 if p90 > p50 else SIGMA_RANGE[0]
    else:
        sigma = math.log(p99 / p50) / Z99 if p99 > p50 else SIGMA_RANGE[0]
    sigma = min(max(sigma, SIGMA_RANGE[0]), SIGMA_RANGE[1])
    threshold = p50 * math.exp(Z9999 * sigma)
    points = sorted(
        (_pct_key(k), v) for k, v in run.get("percentiles_ms", {}).items() if v is not None
    )
    if not points:
        tail = 0.0
    elif points[-1][1] <= threshold:
        # Every listed percentile is in the body: at most the slowest I/O is a tail event.
        events = max(int(run.get("events") or 0), 1)
        tail = 1.0 / events if (latency.get("max") or 0) > threshold else 0.0
    else:
        tail = (100.0 - _percentile_at(points, threshold)) / 100.0
    tail = min(tail, MAX_TAIL_PROBABILITY)
    return {
        "median_ms": round(p50, 4),
        "sigma": round(sigma, 4),
        "tail_probability": round(tail, 6),
        "tail_min_ms": round(threshold, 4) if tail else 0.0,
        "tail_max_ms": round(max(latency.get("max") or threshold, threshold), 4) if tail else 0.0,
    }


def _percentile_at(points: list[tuple[float, float]], value: float) -> float:
    """The percentile at which latency reaches `value`: log-linear between listed points."""
    below = [(pct, v) for pct, v in points if v <= value]
    above = [(pct, v) for pct, v in points if v > value]
    if not below:
        return 0.0
    (q1, v1), (q2, v2) = below[-1], above[0]
    if v1 <= 0:
        return q1
    return q1 + (q2 - q1) * math.log(value / v1) / math.log(v2 / v1)


def _concurrency(run: Mapping[str, Any]) -> int:
    return int(run.get("threads") or 1) * int(run.get("iodepth") or 1)


def fit_profile(
    calibration: Mapping[str, Any], *, name: str, capacity_gib: float
) -> dict[str, Any]:
    """The catalog fragment (`schema_version`, `latency_profiles`, `local_devices`)."""
    runs: Sequence[Mapping[str, Any]] = calibration["runs"]
    by_mode: dict[str, list[Mapping[str, Any]]] = {}
    for run in runs:
        by_mode.setdefault(run["mode"], []).append(run)
    missing = [m for m in CALIBRATION_MODES if m not in by_mode]
    if missing:
        raise ValueError(f"no {', '.join(missing)} measurement to fit a device profile from")
    qd1_read = min(by_mode["rndrd"], key=_concurrency)
    qd1_write = min(by_mode["rndwr"], key=_concurrency)
    read_iops = max(r["read_iops"] for r in by_mode["rndrd"])
    write_iops = max(r["write_iops"] for r in by_mode["rndwr"])
    seq_read = max(r["read_mibps"] for r in by_mode["seqrd"])
    seq_write = max(r["write_mibps"] for r in by_mode["seqwr"])
    block_bytes = int(qd1_read.get("block_bytes") or 16384)
    where = calibration.get("path") or calibration.get("source_file") or "?"
    when = calibration.get("date", "")
    tool = calibration.get("tool", "")

    def measured(mode: str, what: str) -> str:
        return f"measured: {tool} {mode} {block_bytes // 1024}KiB {what} on {where}, {when}"

    notes = list(calibration.get("notes", []))
    if not calibration.get("direct_io", True):
        notes.append("no O_DIRECT on this file system: reads may have come from the page cache")
    if _concurrency(qd1_read) > 1:
        notes.append(f"no queue-depth-1 read run: latency from {_concurrency(qd1_read)} in flight")
    flush = calibration.get("flush") or {}
    profile_name = f"local-{name}"
    latency_profile = {
        "name": profile_name,
        "read": fit_latency(qd1_read, block_bytes / 2**20 / max(seq_read, seq_write) * 1000),
        "write": fit_latency(qd1_write, block_bytes / 2**20 / max(seq_read, seq_write) * 1000),
        "transfer_mibps": round(max(seq_read, seq_write), 2),
        "flush_ms": round(float(flush.get("p50_ms") or 0.0), 4),
        "sources": {
            "read": measured("rndrd", f"QD{_concurrency(qd1_read)} p50/p99"),
            "write": measured("rndwr", f"QD{_concurrency(qd1_write)} p50/p99"),
            "transfer_mibps": measured("seqrd/seqwr", "best MiB/s"),
            "flush_ms": f"measured: {flush.get('method', 'none')} on {where}, {when}",
        },
        "notes": [
            "median and spread net of the block's transfer time; sigma = ln(p90/p50)/1.2816; "
            "tail = share of I/Os beyond the body's p99.99",
            *notes,
        ],
    }
    device = {
        "name": name,
        "capacity_gib": round(capacity_gib, 1),
        "read_iops": round(read_iops, 1),
        "write_iops": round(write_iops, 1),
        "block_kib": block_bytes // 1024,
        "seq_read_mibps": round(seq_read, 2),
        "seq_write_mibps": round(seq_write, 2),
        "latency_profile": profile_name,
        "sources": {
            "capacity_gib": f"measured: file system size of {where}",
            "read_iops": measured("rndrd", "best over threads " + _threads(by_mode["rndrd"])),
            "write_iops": measured("rndwr", "best over threads " + _threads(by_mode["rndwr"])),
            "seq_read_mibps": measured("seqrd", "best MiB/s"),
            "seq_write_mibps": measured("seqwr", "best MiB/s"),
        },
        "notes": notes,
    }
    return {"schema_version": 1, "latency_profiles": [latency_profile], "local_devices": [device]}


def _threads(runs: Sequence[Mapping[str, Any]]) -> str:
    return ",".join(str(_concurrency(r)) for r in sorted(runs, key=_concurrency))
