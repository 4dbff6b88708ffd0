"""Import fio 3.x `--output-format=json` results as calibration measurements.

Per job: `read`/`write` `iops` and `bw` (KiB/s), completion-latency percentiles
(`clat_ns.percentile`, the ones fio prints by default), min/mean/max of the total latency
(`lat_ns`), and the job's options (job options over global options): rw, bs, iodepth, numjobs.
A job run with `numjobs=N` and `group_reporting` is one entry with N threads; without
group_reporting fio reports each clone as its own job.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from advisor.errors import InvalidInput
from advisor.io_modes import FIO_RW_MODES, sysbench_name
from advisor.percentiles import PERCENTILES, TOOL_PERCENTILES
from advisor.units import parse_bytes
from advisor.userfiles import read_json_object

_PERCENTILES = {f"{pct:f}": key for key, pct in TOOL_PERCENTILES.items()}  # fio's "99.900000"


def load_fio_json(path: Path) -> dict[str, Any]:
    """fio's JSON document; text fio printed before it (warnings) is skipped."""
    document = read_json_object(path, what="fio JSON", skip_preamble=True)
    if not isinstance(document.get("jobs"), list):
        raise InvalidInput(f"fio JSON {path}: no 'jobs' list: run fio with --output-format=json")
    return document


def _direction(stats: Mapping[str, Any]) -> dict[str, Any] | None:
    if not stats or not stats.get("total_ios"):
        return None
    clat = stats.get("clat_ns") or {}
    lat = stats.get("lat_ns") or {}
    percentiles = {
        _PERCENTILES[k]: round(v / 1e6, 6)
        for k, v in (clat.get("percentile") or {}).items() if k in _PERCENTILES
    }
    return {
        "iops": float(stats.get("iops", 0.0)),
        "mibps": float(stats.get("bw", 0)) / 1024.0,  # fio's bw is KiB/s
        "ios": int(stats["total_ios"]),
        "latency_ms": {
            "min": lat.get("min", 0) / 1e6,
            "avg": lat.get("mean", 0.0) / 1e6,
            "max": lat.get("max", 0) / 1e6,
            **{k: percentiles.get(k) for k in PERCENTILES},
        },
        "percentiles_ms": percentiles,
    }


def fio_measurement(
    job: Mapping[str, Any], global_options: Mapping[str, Any], *, where: str
) -> dict[str, Any]:
    """One calibration measurement from one fio job entry."""
    options = {**global_options, **(job.get("job options") or {})}
    name = job.get("jobname", "?")
    rw = str(options.get("rw") or options.get("readwrite") or "read")
    block = str(options.get("bs") or options.get("blocksize") or "4k").split(",")[0]
    try:
        block_bytes = parse_bytes(block.split("-")[0], what=f"{where}: job {name} bs")
    except InvalidInput as exc:
        raise InvalidInput(str(exc)) from None
    grouped = str(options.get("group_reporting", "0")) not in ("0", "")
    threads = int(options.get("numjobs", 1)) if grouped else 1
    read, write = _direction(job.get("read") or {}), _direction(job.get("write") or {})
    main = max((d for d in (read, write) if d), key=lambda d: d["ios"], default=None)
    runtime_ms = job.get("job_runtime") or (job.get("read") or {}).get("runtime") or 0
    return {
        "source": "fio",
        "job": name,
        "mode": sysbench_name(rw.split(":")[0]) if rw.split(":")[0] in FIO_RW_MODES else rw,
        "threads": threads,
        "iodepth": int(options.get("iodepth", 1)),
        "block_bytes": block_bytes,
        "direct": str(options.get("direct", "0")) == "1",
        "read_iops": read["iops"] if read else 0.0,
        "write_iops": write["iops"] if write else 0.0,
        "fsyncs_per_s": 0.0,
        "read_mibps": round(read["mibps"], 3) if read else 0.0,
        "write_mibps": round(write["mibps"], 3) if write else 0.0,
        "latency_ms": main["latency_ms"] if main else None,
        "read_latency_ms": read["latency_ms"] if read else None,
        "write_latency_ms": write["latency_ms"] if write else None,
        "percentiles_ms": main["percentiles_ms"] if main else {},
        "duration_s": runtime_ms / 1000.0,
        "events": (read["ios"] if read else 0) + (write["ios"] if write else 0),
    }


def import_fio(path: Path) -> dict[str, Any]:
    """A calibration (same shape as `run_calibration`'s) from a fio JSON file."""
    document = load_fio_json(path)
    global_options = document.get("global options") or {}
    runs = [
        fio_measurement(job, global_options, where=f"fio JSON {path}")
        for job in document["jobs"]
        if not job.get("error")
    ]
    if not runs:
        raise InvalidInput(f"fio JSON {path}: no job finished without an error")
    directory = global_options.get("directory") or global_options.get("filename")
    return {
        "tool": document.get("fio version", "fio"),
        "source_file": str(path),
        "path": directory or str(path),
        "date": document.get("time", ""),
        "block_bytes": runs[0]["block_bytes"],
        "direct_io": all(r["direct"] for r in runs),
        "runs": runs,
        "flush": None,
        "notes": [f"imported from fio JSON {path}"],
        "complete": True,
        "error": None,
    }
