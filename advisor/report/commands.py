"""The exact `advisor` command that reproduces a result, rebuilt from the result itself."""

import dataclasses
import shlex
from typing import TYPE_CHECKING, Any

from advisor.options import changed, flag_of, plain_number
from recommend.request import WORKLOAD, SizeRequest
from workloads.mysql import MeasuredIo

if TYPE_CHECKING:
    from workloads.results import SimulateResult


def _num(value: Any) -> str:
    """A number exactly as given (no rounding: the command must reproduce the run)."""
    return plain_number(value) if isinstance(value, float) else str(value)


def options_args(obj: Any) -> list[str]:
    """The flags that set every option of a declared request that matters: the request kind's
    own options first (always-shown ones, then those off their default), then the shared ones,
    the seed last."""
    args: list[str] = []
    inherited = {f.name for base in type(obj).__mro__[1:] if dataclasses.is_dataclass(base)
                 for f in dataclasses.fields(base)}
    pairs = sorted(changed(obj), key=lambda p: (p[0].name == "seed", p[0].name in inherited,
                                                p[0].opt.reproduce != "always"))
    for d, value in pairs:
        if d.type is bool:
            if value:
                args.append(d.flag)
        elif d.opt.text is not None:
            args += [d.flag, d.opt.text[1](value)]
        else:
            args += [d.flag, _num(value)]
    return args


# Where a reproduce command names the measured I/O profile a run used: a result records the
# profile's figures, never its file's path (`measured_note` says which profile it is).
PROFILE_FILE = "PROFILE.json"


def size_command(request: SizeRequest, measured: MeasuredIo | None = None) -> str:
    """`advisor size ...` that reproduces the request, generated from its declarations (with
    `--io-profile` when the sizing used a measured profile)."""
    args = ["advisor", "size"]
    if request.workload != WORKLOAD.default:
        args += ["--workload", request.workload]
    return shlex.join(args + options_args(request) + _profile_args(measured))


def _profile_args(measured: MeasuredIo | None) -> list[str]:
    return [] if measured is None else ["--io-profile", PROFILE_FILE]


def measured_note(measured: MeasuredIo | None) -> str | None:
    """What the reproduce command's `--io-profile PROFILE.json` stands for (None: the model)."""
    if measured is None:
        return None
    return (f"{PROFILE_FILE}: the measured I/O profile this run used ({measured.text}: "
            f"{measured.write_page_reads:.2f} page reads, {measured.write_page_writes:.2f} page "
            f"writes, {measured.redo_bytes:,.0f} redo bytes per write transaction, "
            f"{measured.read_page_reads:.2f} page reads per read); give its file")


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


def simulate_command(result: "SimulateResult | dict[str, Any]") -> str:
    """`advisor simulate SPEC ...` for a raw-pattern, mysql or aerospike simulation result:
    generated from the request the result records (with `--io-profile` when a measured profile
    was used); older results are rebuilt from their fields."""
    if isinstance(result, dict):  # a result made before requests were recorded
        return _rebuilt_simulate_command(result)
    request = result.request
    if not (isinstance(request, dict) and "spec" in request):
        from advisor.serial import to_json

        return _rebuilt_simulate_command(to_json(result))
    from workloads.simulate_request import simulate_request

    req = simulate_request(request)
    args = ["advisor", "simulate", req.spec]
    if req.workload is not None:
        args += ["--workload", req.workload]
    return shlex.join(args + options_args(req) + _profile_args(getattr(result, "measured_io",
                                                                       None)))


# The MySQL options a result made before requests were recorded keeps in its `params`.
LEGACY_SHAPE = {"row_bytes": 190, "read_rows": 1, "write_rows": 4, "secondary_indexes": 1,
                "flush_log_at_trx_commit": 1, "sync_binlog": 1, "replica_workers": 1}
# Older rows-per-transaction options as today's statement grammar (--read-txn / --write-txn).
LEGACY_TXN = {"read_rows": ("--read-txn", "point"), "write_rows": ("--write-txn", "update")}


def _rebuilt_simulate_command(result: dict[str, Any]) -> str:
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
        for name, default in LEGACY_SHAPE.items():  # the transaction shape, when not default
            if p.get(name, default) != default:
                if name in LEGACY_TXN:  # rows per transaction became statements
                    flag, key = LEGACY_TXN[name]
                    args += [flag, f"{key}={_num(p[name])}"]
                else:
                    args += [flag_of(name), _num(p[name])]
        args += ["--p99-ms", _num(result.get("slo", {}).get("p99_ms", 10.0))]
    elif workload == "aerospike":
        args += ["--workload", "aerospike"]
        if len(result.get("levels", [])) == 1:
            load = result["levels"][0].get("load", {})
            for key, value in load.items():
                args += [flag_of(key), _num(value)]
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
