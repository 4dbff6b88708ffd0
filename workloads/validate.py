"""Model vs measurement: simulate a calibration's own patterns on the device profile fitted from
it, and report the error of each case (BRIEF section 7: +-20 % on this machine's disk)."""

import math
from collections.abc import Callable
from typing import Any

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.io_modes import CALIBRATION_MODES, SYSBENCH_MODES
from advisor.layout.model import resolve
from advisor.sim.run import simulate_pattern
from advisor.sim.source import IoPattern

IOPS_TOLERANCE = 0.20


def _pct(sim: float | None, meas: float | None) -> float | None:
    if sim is None or not meas:
        return None
    return round((sim / meas - 1) * 100, 1)


# What a calibration run may hold (a profile is a user file: figures are checked before use).
RUN_WHOLE = {"threads": (1, 4096), "iodepth": (1, 4096), "block_bytes": (512, 2**30)}
RUN_FIGURES = ("read_iops", "write_iops")
MAX_IN_FLIGHT = 65_536


def _whole(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        from advisor.options import show_value

        raise InvalidInput(f"{where} {show_value(value)}: a whole number from {low:,} to "
                           f"{high:,}")
    return value


def _figure(value: Any, where: str) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if value is not None and not (ok and math.isfinite(value) and 0 <= value <= 1e12):
        from advisor.options import show_value

        raise InvalidInput(f"{where} {show_value(value)}: a finite number of at least 0")


def _checked_run(index: int, run: Any) -> dict[str, Any]:
    """A calibration run whose figures are of the right type and range, or InvalidInput naming
    the run and the field."""
    where = f"calibration run {index + 1}"
    if not isinstance(run, dict):
        raise InvalidInput(f"{where}: not an object")
    for name, (low, high) in RUN_WHOLE.items():
        if run.get(name) is not None:
            _whole(run[name], f"{where}: field {name}", low, high)
    if int(run.get("threads") or 1) * int(run.get("iodepth") or 1) > MAX_IN_FLIGHT:
        raise InvalidInput(f"{where}: threads x iodepth over {MAX_IN_FLIGHT:,}")
    for name in RUN_FIGURES:
        _figure(run.get(name), f"{where}: field {name}")
    for key in ("percentiles_ms", "latency_ms"):
        latency = run.get(key)
        if latency is None:
            continue
        if not isinstance(latency, dict):
            raise InvalidInput(f"{where}: field {key} is not an object")
        for name, value in latency.items():
            _figure(value, f"{where}: field {key}.{name}")
    return run


def validate_profile(catalog: Catalog, device: str, calibration: dict[str, Any], *,
                     duration_s: float = 10.0, seed: int = 1,
                     progress: Callable[[int, float], None] | None = None) -> dict[str, Any]:
    """Measured vs simulated IOPS and latency percentiles for every calibration run."""
    if isinstance(seed, bool) or not 0 <= seed < 2**63:
        from advisor.options import show_value

        raise InvalidInput(f"--seed {show_value(seed)}: must be from 0 to 2**63 - 1")
    if device not in catalog.local_devices:
        known = ", ".join(sorted(catalog.local_devices)) or "none"
        raise InvalidInput(f"device {device!r} is not in the profile (it has: {known})")
    runs = calibration.get("runs") or []
    if not isinstance(runs, list):
        raise InvalidInput("the profile's calibration runs are not a list")
    if not runs:
        raise InvalidInput("the profile holds no calibration runs to compare with")
    runs = [_checked_run(i, run) for i, run in enumerate(runs)]
    layout = resolve(f"localhost:local:{device}", catalog)
    span = _whole(calibration.get("size_bytes") or 2**30, "calibration: field size_bytes",
                  1, 2**50)
    rows = []
    for done, run in enumerate(runs):
        if progress:
            progress(done, 0.0)
        mode = run.get("mode")
        if mode not in CALIBRATION_MODES:  # mixed modes: no one IOPS figure to compare
            continue
        frac, rnd = SYSBENCH_MODES[mode]
        threads = int(run.get("threads", 1)) * int(run.get("iodepth", 1) or 1)
        pat = IoPattern(name=f"sysbench fileio {mode}", read_fraction=frac, random=rnd,
                        block_bytes=int(run.get("block_bytes", 16384)), concurrency=threads,
                        span_bytes=span)
        sim = simulate_pattern(layout, catalog, pat, duration_s=duration_s, engine="des",
                               seed=seed)
        level = sim.levels[0]
        op = "read" if frac > 0 else "write"
        measured_iops = float(run.get(f"{op}_iops") or 0.0)
        sim_iops = float(level.iops.read if frac > 0 else level.iops.write)
        mlat = run.get("percentiles_ms") or run.get("latency_ms") or {}
        slat = level.latency_ms.read if frac > 0 else level.latency_ms.write
        err = _pct(sim_iops, measured_iops)
        rows.append({
            "mode": mode, "threads": threads, "block_bytes": pat.block_bytes,
            "measured": {"iops": measured_iops, "p50_ms": mlat.get("p50"),
                         "p95_ms": mlat.get("p95"), "p99_ms": mlat.get("p99")},
            "simulated": {"iops": round(sim_iops, 1), "p50_ms": slat.p50, "p95_ms": slat.p95,
                          "p99_ms": slat.p99},
            "error_pct": {"iops": err, "p50": _pct(slat.p50, mlat.get("p50")),
                          "p99": _pct(slat.p99, mlat.get("p99"))},
            "within_tolerance": err is not None and abs(err) <= IOPS_TOLERANCE * 100,
            "bottleneck": level.bottleneck,
        })
    errors = [abs(r["error_pct"]["iops"]) for r in rows if r["error_pct"]["iops"] is not None]
    return {
        "kind": "validate", "device": device, "layout": str(layout.spec),
        "calibration": {k: calibration.get(k) for k in ("tool", "path", "date", "direct_io")},
        "tolerance_pct": IOPS_TOLERANCE * 100, "cases": rows,
        "summary": {"cases": len(rows),
                    "within_tolerance": sum(r["within_tolerance"] for r in rows),
                    "mean_abs_iops_error_pct": (round(sum(errors) / len(errors), 1) if errors
                                                else None),
                    "max_abs_iops_error_pct": round(max(errors), 1) if errors else None},
        "seed": seed, "duration_s": duration_s,
    }
