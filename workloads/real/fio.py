"""Import fio 3.x `--output-format=json` (or json+) results as calibration measurements.

The document is validated first (pydantic, only here): a file that is not fio JSON is refused in
one line naming the field, never imported as an empty profile. Per job: `read`/`write` `iops`
and `bw` (KiB/s), completion-latency percentiles (`clat_ns.percentile`), min/mean/max of the
total latency (`lat_ns`), and the job's options over the global ones: rw, bs, iodepth, numjobs.

Threads: fio writes neither `group_reporting` nor command-line global options reliably into its
JSON, so the entries decide. A job run with `numjobs=N` is either one entry (group_reporting:
fio summed the N clones) or N entries of the same name and group (one per clone); both import
as one measurement of N threads. Clones are merged here: IOPS and bandwidth summed, latency
percentiles those of the clones' mixture (each clone's percentile curve weighted by its I/Os),
min/max over the clones, mean weighted by I/Os.
"""

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from advisor.errors import InvalidInput
from advisor.io_modes import FIO_RW_MODES, sysbench_name
from advisor.percentiles import PERCENTILES, TOOL_PERCENTILES
from advisor.units import parse_bytes
from advisor.userfiles import read_json_object

_PERCENTILES = {f"{pct:f}": key for key, pct in TOOL_PERCENTILES.items()}  # fio's "99.900000"
_Number = Annotated[float, Field(ge=0, allow_inf_nan=False)]
_Count = Annotated[int, Field(ge=0)]


class _Latency(BaseModel):
    """fio's `clat_ns` / `lat_ns` block (ns)."""

    model_config = ConfigDict(extra="allow")
    min: _Number = 0
    max: _Number = 0
    mean: _Number = 0
    N: _Count = 0
    percentile: dict[str, _Number] = Field(default_factory=dict)


class _Direction(BaseModel):
    model_config = ConfigDict(extra="allow")
    iops: _Number
    bw: _Number  # KiB/s
    total_ios: _Count
    runtime: _Count = 0  # ms
    clat_ns: _Latency | None = None
    lat_ns: _Latency | None = None


class _Job(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    jobname: str
    groupid: int = 0
    error: int = 0
    options: dict[str, str] = Field(default_factory=dict, alias="job options")
    read: _Direction | None = None
    write: _Direction | None = None

    @model_validator(mode="after")
    def _has_a_direction(self) -> "_Job":
        if self.read is None and self.write is None:
            raise ValueError("neither 'read' nor 'write' results")
        return self


class _Document(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    version: str = Field(alias="fio version")
    time: str = ""
    global_options: dict[str, str] = Field(default_factory=dict, alias="global options")
    jobs: list[_Job] = Field(min_length=1)


def load_fio_json(path: Path) -> _Document:
    """fio's JSON document, validated; text fio printed before it (warnings) is skipped."""
    document = read_json_object(path, what="fio JSON", skip_preamble=True)
    if not isinstance(document.get("jobs"), list):
        raise InvalidInput(f"fio JSON {path}: no 'jobs' list: run fio with --output-format=json")
    try:
        return _Document.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise InvalidInput(f"fio JSON {path}: field {loc}: {message}") from None


def _merged_percentiles(parts: list[tuple[int, dict[float, float]]]) -> dict[float, float]:
    """Percentiles (pct -> ns) of the mixture of several runs' latencies, each given by its
    percentile list and weighted by its I/Os: each run's CDF is taken piecewise linear through
    its points, the weighted CDF inverted at every percentile they all list."""
    listed = set.intersection(*(set(p) for _, p in parts))
    if len(parts) == 1:
        return {q: v for q, v in parts[0][1].items() if q in listed}
    xs = np.unique(np.concatenate([list(p.values()) for _, p in parts]))
    total = sum(w for w, _ in parts)
    cdf = np.zeros_like(xs, dtype=float)
    for weight, points in parts:
        qs = sorted(points)
        cdf += weight / total * np.interp(xs, [points[q] for q in qs], qs, left=0, right=100)
    return {q: float(np.interp(q, cdf, xs)) for q in sorted(listed)}


def _direction(parts: list[_Direction]) -> dict[str, Any] | None:
    """One direction of a job (its clones merged); None when it did no I/O."""
    done = [d for d in parts if d.total_ios]
    if not done:
        return None
    ios = sum(d.total_ios for d in done)
    clats = [(d.total_ios, {float(k): v for k, v in d.clat_ns.percentile.items()})
             for d in done if d.clat_ns is not None and d.clat_ns.percentile]
    merged = _merged_percentiles(clats) if len(clats) == len(done) else {}
    percentiles = {_PERCENTILES[f"{q:f}"]: round(v / 1e6, 6) for q, v in merged.items()
                   if f"{q:f}" in _PERCENTILES}
    lats = [(d.total_ios, d.lat_ns) for d in done if d.lat_ns is not None and d.lat_ns.N]
    lat_ios = sum(n for n, _ in lats)
    return {
        "iops": sum(d.iops for d in done),
        "mibps": sum(d.bw for d in done) / 1024.0,  # fio's bw is KiB/s
        "ios": ios,
        "runtime_ms": max(d.runtime for d in done),
        "latency_ms": {
            "min": min((lat.min for _, lat in lats), default=0) / 1e6,
            "avg": sum(n * lat.mean for n, lat in lats) / lat_ios / 1e6 if lat_ios else 0.0,
            "max": max((lat.max for _, lat in lats), default=0) / 1e6,
            **{k: percentiles.get(k) for k in PERCENTILES},
        },
        "percentiles_ms": percentiles,
    }


def fio_measurement(
    jobs: list[_Job], global_options: Mapping[str, str], *, where: str
) -> dict[str, Any]:
    """One calibration measurement from one fio job: its entry, or its clones' entries."""
    job = jobs[0]
    options = {**global_options, **job.options}
    rw = str(options.get("rw") or options.get("readwrite") or "read").split(":")[0]
    block = str(options.get("bs") or options.get("blocksize") or "4k").split(",")[0]
    block_bytes = parse_bytes(block.split("-")[0], what=f"{where}: job {job.jobname} bs")
    try:
        numjobs, iodepth = int(options.get("numjobs", 1)), int(options.get("iodepth", 1))
    except ValueError:
        raise InvalidInput(f"{where}: job {job.jobname}: numjobs/iodepth "
                           f"{options.get('numjobs')!r}/{options.get('iodepth')!r} are not "
                           "whole numbers") from None
    read = _direction([j.read for j in jobs if j.read is not None])
    write = _direction([j.write for j in jobs if j.write is not None])
    main = max((d for d in (read, write) if d), key=lambda d: d["ios"], default=None)
    return {
        "source": "fio",
        "job": job.jobname,
        "mode": sysbench_name(rw) if rw in FIO_RW_MODES else rw,
        # N entries of one job are its clones (no group_reporting); one entry of a numjobs=N
        # job is the N clones summed (group_reporting)
        "threads": len(jobs) if len(jobs) > 1 else max(numjobs, 1),
        "iodepth": iodepth,
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
        "duration_s": max((d["runtime_ms"] for d in (read, write) if d), default=0) / 1000.0,
        "events": (read["ios"] if read else 0) + (write["ios"] if write else 0),
    }


def import_fio(path: Path) -> dict[str, Any]:
    """A calibration (same shape as `run_calibration`'s) from a fio JSON file."""
    document = load_fio_json(path)
    where = f"fio JSON {path}"
    groups: dict[tuple[str, int], list[_Job]] = defaultdict(list)
    failed = []
    for job in document.jobs:
        if job.error:
            failed.append(job.jobname)
        else:
            groups[(job.jobname, job.groupid)].append(job)
    measured = [fio_measurement(jobs, document.global_options, where=where)
                for jobs in groups.values()]
    runs = [run for run in measured if run["events"]]
    if not runs:
        raise InvalidInput(f"{where}: no job did any I/O without an error")
    first = {**document.global_options, **document.jobs[0].options}
    directory = first.get("directory") or first.get("filename")
    notes = [f"imported from fio JSON {path}"]
    idle = [run["job"] for run in measured if not run["events"]]
    if idle:
        notes.append(f"left out jobs that did no I/O: {', '.join(idle)}")
    if failed:
        notes.append(f"left out jobs that ended with an error: {', '.join(sorted(set(failed)))}")
    if document.model_extra and "advisor" in document.model_extra:
        notes.append("the fio JSON was simulated by advisor simulate --format fio, not measured")
    return {
        "tool": document.version,
        "source_file": str(path),
        "path": directory or str(path),
        "date": document.time,
        "block_bytes": runs[0]["block_bytes"],
        "direct_io": all(r["direct"] for r in runs),
        "runs": runs,
        "flush": None,
        "notes": notes,
        "complete": True,
        "error": None,
    }
