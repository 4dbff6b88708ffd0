"""`advisor simulate --format fio`: a raw-pattern result as fio 3.x `--output-format=json`, one
job per load level, so that fio's consumers (and `advisor calibrate --import-fio`) read it.

Keys and types are those of fio 3.33's JSON. What the simulator does not model is given as fio
gives it when it did not measure it: `slat_ns` all zero with N 0 (as for fio's sync engines; the
simulated request time is `lat_ns`, and `clat_ns` equals it), no CPU or disk-utilisation figures
(`disk_util` is empty). Per-direction `bw_*`/`iops_*` sample statistics come from the level's
timeline (its bins, not fio's 500 ms windows), each direction taking its share of the I/Os.
The top-level `advisor` object says what was simulated.
"""

import math
import statistics
from collections.abc import Mapping
from typing import Any

from advisor.percentiles import FIO_PERCENTILES, percentile_key
from advisor.sim.results import LatencyDetail, Level, PatternResult

_ZERO_LAT = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}


def fio_json(result: PatternResult, *, stamp: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The fio JSON document of `result`; `stamp` (fio's `timestamp`, `timestamp_ms`, `time`,
    made from the wall clock at the edge) follows the version when given."""
    runtime_ms = max(round((result.duration_s - result.warmup_s) * 1000), 1)
    base = _base_options(result)
    document: dict[str, Any] = {"fio version": f"advisor-{result.advisor_version}-simulated",
                                **(stamp or {})}
    document["global options"] = {k: v for k, v in base.items()
                                  if k not in ("iodepth", "numjobs", "rate_iops")}
    document["jobs"] = [_job(result, level, i, base, runtime_ms)
                        for i, level in enumerate(result.levels)]
    document["disk_util"] = []
    document["advisor"] = {
        "simulated": True, "layout": result.layout, "pattern": result.pattern.name,
        "engine": [level.engine for level in result.levels], "seed": result.seed,
        "duration_s": result.duration_s, "warmup_s": result.warmup_s,
        "model_version": result.model_version, "notes": list(result.notes),
    }
    return document


def _rw(read_fraction: float, random: bool) -> str:
    if read_fraction >= 1.0:
        return "randread" if random else "read"
    if read_fraction <= 0.0:
        return "randwrite" if random else "write"
    return "randrw" if random else "rw"


def _base_options(result: PatternResult) -> dict[str, str]:
    """The options of the simulated pattern, spelled as fio's job options."""
    p = result.pattern
    request = result.request or {}
    options = {"rw": _rw(p.read_fraction, p.random)}
    if 0.0 < p.read_fraction < 1.0:
        options["rwmixread"] = f"{p.read_fraction * 100:g}"
    options |= {"bs": str(p.block_bytes), "size": str(p.span_bytes), "direct": "1",
                "runtime": f"{result.duration_s:g}", "time_based": "1"}
    if result.warmup_s:
        options["ramp_time"] = f"{result.warmup_s:g}"
    if p.name.startswith("fio "):
        iodepth, numjobs = int(request.get("iodepth") or p.concurrency), int(
            request.get("numjobs") or 1)
    else:  # sysbench threads and ioping are synchronous: one I/O per thread
        iodepth, numjobs = 1, p.concurrency
    options |= {"iodepth": str(iodepth), "numjobs": str(numjobs)}
    if p.rate_iops is not None:
        options["rate_iops"] = f"{p.rate_iops:g}"
    return options


def _level_options(base: dict[str, str], level: Level, *, ramped: bool) -> dict[str, str]:
    """This level's concurrency and rate, as job options (a ramp sets them per level)."""
    options = dict(base)
    if ramped and "iodepth" in level.load:
        options |= {"iodepth": str(int(level.load["iodepth"])), "numjobs": "1"}
    if ramped and "threads" in level.load:
        options |= {"iodepth": "1", "numjobs": str(int(level.load["threads"]))}
    if ramped and "rate_iops" in level.load:  # as simulated: at least 4096 in flight
        in_flight = int(options["iodepth"]) * int(options["numjobs"])
        options |= {"rate_iops": f"{level.load['rate_iops']:g}",
                    "iodepth": str(max(in_flight, 4096)), "numjobs": "1"}
    if int(options["numjobs"]) > 1:
        options["group_reporting"] = "1"  # the simulated clones are reported as one job
    return options


def _job(result: PatternResult, level: Level, index: int, base: dict[str, str],
         runtime_ms: int) -> dict[str, Any]:
    options = _level_options(base, level, ramped=result.ramp is not None)
    numjobs = int(options["numjobs"])
    detail = level.latency_detail
    job: dict[str, Any] = {
        "jobname": f"level{index + 1}", "groupid": index, "error": 0, "eta": 0,
        "elapsed": math.ceil(result.duration_s),
        "job options": {"name": f"level{index + 1}",
                        **{k: v for k, v in options.items() if base.get(k) != v
                           or k in ("iodepth", "numjobs", "rate_iops")}},
    }
    for op in ("read", "write"):
        job[op] = _direction(level, op, getattr(detail, op) if detail else None,
                             result.pattern.block_bytes, runtime_ms)
    job["trim"] = _direction(level, "trim", None, 0, runtime_ms)
    if result.pattern.fsync_every_writes == 0:
        job["sync"] = {"total_ios": 0, "lat_ns": dict(_ZERO_LAT)}
    job["job_runtime"] = runtime_ms * numjobs  # fio sums its clones' run times
    iodepth = int(options["iodepth"])
    job |= {"latency_depth": iodepth, "latency_target": 0, "latency_percentile": 100.0,
            "latency_window": 0}
    if detail is not None:
        job |= detail.buckets_pct
    return job


def _lat(detail: LatencyDetail | None, *, percentiles: bool) -> dict[str, Any]:
    if detail is None or detail.count == 0 or detail.mean_ms is None:
        return dict(_ZERO_LAT)
    block: dict[str, Any] = {
        "min": _ns(detail.min_ms), "max": _ns(detail.max_ms),
        "mean": round(detail.mean_ms * 1e6, 6), "stddev": round((detail.stddev_ms or 0) * 1e6, 6),
        "N": detail.count,
    }
    if percentiles:
        block["percentile"] = {f"{q:f}": _ns(detail.percentiles_ms[percentile_key(q)])
                               for q in FIO_PERCENTILES}
    return block


def _direction(level: Level, op: str, detail: LatencyDetail | None, block_bytes: int,
               runtime_ms: int) -> dict[str, Any]:
    ios = getattr(level.ios, op, 0)
    io_bytes = ios * block_bytes
    bw_bytes = io_bytes * 1000 // runtime_ms
    share = ios / level.ios.total if level.ios.total else 0.0
    iops_samples = [pt.iops * share for pt in level.timeline] if ios else []
    bw_samples = [pt.throughput_mibps * 1024 * share for pt in level.timeline] if ios else []
    return {
        "io_bytes": io_bytes, "io_kbytes": io_bytes // 1024, "bw_bytes": bw_bytes,
        "bw": bw_bytes // 1024, "iops": round(ios * 1000 / runtime_ms, 6),
        "runtime": runtime_ms if ios else 0, "total_ios": ios, "short_ios": 0, "drop_ios": 0,
        "slat_ns": dict(_ZERO_LAT),
        "clat_ns": _lat(detail, percentiles=True),
        "lat_ns": _lat(detail, percentiles=False),
        "bw_min": int(min(bw_samples, default=0)), "bw_max": int(max(bw_samples, default=0)),
        "bw_agg": 100.0 if ios else 0.0, "bw_mean": _mean(bw_samples),
        "bw_dev": _dev(bw_samples), "bw_samples": len(bw_samples),
        "iops_min": int(min(iops_samples, default=0)),
        "iops_max": int(max(iops_samples, default=0)),
        "iops_mean": _mean(iops_samples), "iops_stddev": _dev(iops_samples),
        "iops_samples": len(iops_samples),
    }


def _mean(samples: list[float]) -> float:
    return round(statistics.fmean(samples), 6) if samples else 0.0


def _dev(samples: list[float]) -> float:
    return round(statistics.stdev(samples), 6) if len(samples) > 1 else 0.0


def _ns(ms: float | None) -> int:
    return 0 if ms is None else round(ms * 1e6)
