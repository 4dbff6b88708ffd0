"""The exact `advisor` command that reproduces a result, rebuilt from the result itself."""

import shlex
from typing import Any

SIZE_DEFAULTS: dict[str, Any] = {
    "workload": "mysql", "tps": 627.0, "reads": 3.25, "p99_ms": 10.0, "data_gb": 100.0,
    "replicas": 1, "headroom": 0.3, "peak_hours": 24.0, "allow_ephemeral": False,
    "max_monthly_usd": None, "region": None, "reads_per_sec": 0.0, "writes_per_sec": 0.0,
    "record_bytes": 1536, "replication_factor": 2,
}
MYSQL_ONLY = ("tps", "reads", "p99_ms", "replicas", "allow_ephemeral")
AEROSPIKE_ONLY = ("reads_per_sec", "writes_per_sec", "record_bytes", "replication_factor")


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def size_command(request: dict[str, Any], seed: int | None) -> str:
    """`advisor size ...` with every option that differs from its default, and the seed."""
    args = ["advisor", "size"]
    workload = request.get("workload", "mysql")
    for name, default in SIZE_DEFAULTS.items():
        value = request.get(name, default)
        if name in AEROSPIKE_ONLY and workload != "aerospike":
            continue
        if name in MYSQL_ONLY and workload == "aerospike" and name != "allow_ephemeral":
            continue
        if name == "tps" and workload == "mysql":  # always shown: the question itself
            args += ["--tps", _num(value)]
            continue
        if name == "reads" and workload == "mysql":
            args += ["--reads", _num(value)]
            continue
        if value == default:
            continue
        if name == "replicas":
            args += ["--replicas", "auto" if value is None else str(value)]
        elif name == "allow_ephemeral":
            args.append("--allow-ephemeral")
        else:
            args += [_flag(name), _num(value)]
    args += ["--seed", str(seed if seed is not None else request.get("seed", 1))]
    return shlex.join(args)


_SIZE_OF = {4096: "4k", 8192: "8k", 16384: "16k", 32768: "32k", 65536: "64k",
            131072: "128k", 262144: "256k", 524288: "512k", 1048576: "1m"}


def _bytes(n: int) -> str:
    if n in _SIZE_OF:
        return _SIZE_OF[n]
    for unit, div in (("g", 2**30), ("m", 2**20), ("k", 1024)):
        if n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def _ramp(result: dict[str, Any]) -> list[str]:
    ramp = result.get("ramp")
    if ramp:
        return ["--ramp", f"{ramp['key']}=" + ",".join(_num(v) for v in ramp["values"])]
    loads = [lv.get("load", {}) for lv in result.get("levels", [])]
    if len(loads) > 1:
        key = next(iter(loads[0]), None)
        if key and all(key in ld for ld in loads):
            return ["--ramp", f"{key}=" + ",".join(_num(ld[key]) for ld in loads)]
    return []


def simulate_command(result: dict[str, Any]) -> str:
    """`advisor simulate SPEC ...` for a raw-pattern, mysql or aerospike simulation result."""
    args = ["advisor", "simulate", str(result.get("layout", "?"))]
    workload = result.get("workload")
    if workload == "mysql":
        p = result.get("params", {})
        dep = result.get("deployment", {})
        args += ["--workload", "mysql", "--tps", _num(p.get("tps", 627.0)),
                 "--reads", _num(p.get("reads_per_write", 3.25)),
                 "--replicas", str(p.get("replicas", 1)),
                 "--data-gb", _num(p.get("data_gb", 100.0))]
        replicas = dep.get("replicas") or []
        if replicas and replicas[0] != result.get("layout"):
            args += ["--replica-layout", replicas[0]]
        if p.get("buffer_pool_gib") is not None:
            args += ["--buffer-pool-gib", _num(p["buffer_pool_gib"])]
        args += ["--p99-ms", _num(result.get("slo", {}).get("p99_ms", 10.0))]
    elif workload == "aerospike":
        args += ["--workload", "aerospike"]
        if len(result.get("levels", [])) == 1:
            load = result["levels"][0].get("load", {})
            for key, value in load.items():
                args += [_flag(key), _num(value)]
        args += ["--slice", _num(result.get("slice_s", 10.0))]
    else:
        pat = result.get("pattern", {})
        name = str(pat.get("name", ""))
        if name.startswith("sysbench fileio"):
            args += ["--file-test-mode", name.split()[-1], "--threads",
                     str(pat.get("concurrency", 1)),
                     "--file-block-size", _bytes(int(pat.get("block_bytes", 16384)))]
        elif name == "ioping":
            args += ["--pattern", "ioping"]
        else:
            rw = name.split()[-1] if name.startswith("fio ") else "randread"
            args += ["--rw", rw]
            if rw in ("rw", "readwrite", "randrw"):
                args += ["--rwmixread", _num(round(100 * pat.get("read_fraction", 0.5), 3))]
            args += ["--bs", _bytes(int(pat.get("block_bytes", 4096))),
                     "--iodepth", str(pat.get("concurrency", 1))]
            if pat.get("rate_iops"):
                args += ["--rate-iops", _num(pat["rate_iops"])]
        args += ["--size", _bytes(int(pat.get("span_bytes", 2**32)))]
    if workload != "aerospike" or len(result.get("levels", [])) > 1:
        args += _ramp(result)
    args += ["--duration", _num(result.get("duration_s", 60.0))]
    engines = result.get("engine") or []
    if len(engines) == 1 and workload != "aerospike":
        args += ["--engine", engines[0]]
    args += ["--seed", str(result.get("seed", 1))]
    return shlex.join(args)
