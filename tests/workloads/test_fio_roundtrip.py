"""`advisor simulate --format fio` writes fio's JSON (keys and types of a real fio 3.33 run), and
`advisor calibrate --import-fio` reads it back: the round trip, numjobs as threads, and the same
checks against fio itself when it is installed."""

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from advisor.catalog import builtin_catalog
from advisor.layout import resolve
from advisor.percentiles import FIO_PERCENTILES
from advisor.sim.fio_export import fio_json
from advisor.sim.patterns import build_pattern
from advisor.sim.run import simulate_pattern
from advisor.userfiles import CATALOG_ENV
from tests.cli_helpers import run
from tests.conftest import require
from tests.workloads.cli import run_cli
from workloads.real.fio import import_fio

FIXTURES = Path(__file__).parent / "fixtures"
REAL_FIO = FIXTURES / "fio_randrw_qd16.json"  # fio 3.33, libaio, direct, randrw 75/25
SPEC = "m5d.large:gp2:385GiB"
FIO_RANDRW = ["--rw", "randrw", "--rwmixread", "75", "--bs", "4k", "--iodepth", "16"]
# What fio measures and the simulator does not model: CPU, context switches, page faults, the
# queue-depth histograms, the disks' own counters (`disk_util` is an empty list).
NOT_SIMULATED = {"usr_cpu", "sys_cpu", "ctx", "majf", "minf", "iodepth_level", "iodepth_submit",
                 "iodepth_complete"}


@pytest.fixture(autouse=True)
def _shipped_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)


def shape(value: Any, path: str = "") -> dict[str, str]:
    """Every key path of a JSON value with its type; percentile keys and options as `*`."""
    out = {path: type(value).__name__}
    if isinstance(value, dict):
        for key, item in value.items():
            wild = path.endswith((".percentile", " options")) or path == ".disk_util[]"
            out |= shape(item, f"{path}.{'*' if wild else key}")
    elif isinstance(value, list):
        for item in value[:1]:
            out |= shape(item, f"{path}[]")
    return out


def compare(real: dict[str, Any], simulated: dict[str, Any]) -> tuple[set[str], list[Any]]:
    """(key paths of `real` the simulation lacks, keys whose types differ)."""
    ours, theirs = shape(simulated), shape(real)
    missing = {k for k in theirs if k not in ours}
    types = sorted((k, theirs[k], ours[k]) for k in theirs if k in ours and theirs[k] != ours[k])
    return missing, types


def not_simulated(missing: set[str]) -> set[str]:
    """The missing paths that are not in NOT_SIMULATED or disk_util's entries."""
    return {k for k in missing if not k.startswith(".disk_util[]")
            and k.split(".")[2] not in NOT_SIMULATED}


def simulated(capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, Any]:
    code, out, err = run(capsys, "simulate", SPEC, *flags, "--duration", "5", "--format", "fio")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def test_simulated_fio_json_has_the_keys_and_types_of_real_fio(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Every key of a real fio 3.33 JSON with its type, except what fio measures of the host."""
    missing, types = compare(json.loads(REAL_FIO.read_text()), simulated(capsys, *FIO_RANDRW))
    assert not_simulated(missing) == set()
    assert types == []


@pytest.mark.parametrize("engine", ["des", "analytic"])
def test_fio_figures_agree_with_the_simulation(engine: str) -> None:
    """Per direction: fio's 17 default percentiles, rising, the median the result's; count, IOPS,
    bandwidth and bytes consistent as fio computes them; the same on both engines."""
    catalog = builtin_catalog()
    pattern = build_pattern(rw="randrw", rwmixread=75, bs="4k", iodepth=16)
    result = simulate_pattern(resolve(SPEC, catalog), catalog, pattern, duration_s=5,
                              engine=engine)  # type: ignore[arg-type]
    (level,) = result.levels
    (job,) = fio_json(result)["jobs"]
    for op in ("read", "write"):
        stats, summary = job[op], getattr(level.latency_ms, op)
        pct = stats["clat_ns"]["percentile"]
        assert list(pct) == [f"{q:f}" for q in FIO_PERCENTILES]
        assert list(pct.values()) == sorted(pct.values())
        assert pct["50.000000"] / 1e6 == pytest.approx(summary.p50, rel=1e-3)
        assert pct["99.900000"] / 1e6 == pytest.approx(summary.p999, rel=1e-3)
        assert stats["lat_ns"]["mean"] / 1e6 == pytest.approx(summary.mean, rel=1e-3)
        assert stats["total_ios"] == getattr(level.ios, op)
        # latencies of the requests started in the window; I/Os completed in it
        assert stats["clat_ns"]["N"] == pytest.approx(stats["total_ios"], rel=0.01)
        assert stats["clat_ns"]["min"] <= pct["1.000000"]
        assert stats["clat_ns"]["max"] >= pct["99.990000"]
        assert stats["io_bytes"] == stats["total_ios"] * 4096
        assert stats["bw_bytes"] == stats["io_bytes"] * 1000 // stats["runtime"]
        assert stats["bw"] == stats["bw_bytes"] // 1024
        assert stats["iops"] == pytest.approx(getattr(level.iops, op), rel=1e-3)
        assert stats["iops_mean"] == pytest.approx(stats["iops"], rel=0.05)
        assert stats["slat_ns"]["N"] == 0  # submission is not simulated, as fio's sync engines
    buckets = [*job["latency_ns"].values(), *job["latency_us"].values(),
               *job["latency_ms"].values()]
    assert sum(buckets) == pytest.approx(100, abs=1e-3)


def test_round_trip_simulate_then_calibrate_import(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """simulate --format fio > x.json; calibrate --import-fio x.json: the simulated IOPS,
    queue depth and percentiles come back, and the profile says it was simulated."""
    path = tmp_path / "x.json"
    document = simulated(capsys, *FIO_RANDRW)
    path.write_text(json.dumps(document))
    out = tmp_path / "p.json"
    result = run_cli("calibrate", "--import-fio", str(path), "--out", str(out))
    assert result.exit_code == 0, result.stderr
    calibration = json.loads(out.read_text())["calibration"]
    (run_,) = calibration["runs"]
    read = document["jobs"][0]["read"]
    assert {k: run_[k] for k in ("mode", "threads", "iodepth", "block_bytes", "direct")} == {
        "mode": "rndrw", "threads": 1, "iodepth": 16, "block_bytes": 4096, "direct": True}
    assert run_["read_iops"] == read["iops"]
    assert run_["read_mibps"] == pytest.approx(read["bw"] / 1024, abs=1e-3)
    assert run_["read_latency_ms"]["p99"] == read["clat_ns"]["percentile"]["99.000000"] / 1e6
    assert run_["duration_s"] == 5.0
    assert calibration["tool"].endswith("-simulated")
    assert "simulated by advisor simulate --format fio" in " ".join(calibration["notes"])


@pytest.mark.parametrize(("flags", "threads", "iodepth"), [
    (["--rw", "randread", "--numjobs", "4", "--iodepth", "2"], [4], [2]),
    (["--file-test-mode", "rndwr", "--ramp", "threads=1,8"], [1, 8], [1, 1]),
    (["--rw", "randread", "--ramp", "iodepth=1,32"], [1, 1], [1, 32]),
])
def test_concurrency_comes_back_as_threads_and_queue_depth(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, flags: list[str],
        threads: list[int], iodepth: list[int]) -> None:
    """numjobs (one grouped job, as fio reports it with group_reporting) and sysbench threads
    import as threads, iodepth as queue depth; a ramp gives one run per level."""
    path = tmp_path / "x.json"
    path.write_text(json.dumps(simulated(capsys, *flags)))
    runs = import_fio(path)["runs"]
    assert [r["threads"] for r in runs] == threads
    assert [r["iodepth"] for r in runs] == iodepth


# -- against fio itself -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def fio_bin() -> str:
    path = shutil.which("fio")
    require("fio", path is not None, "not on PATH: install the Debian package fio")
    assert path is not None
    return path


def run_fio(fio: str, directory: Path, *options: str) -> dict[str, Any]:
    args = [fio, "--name=probe", f"--filename={directory / 'fio.dat'}", "--size=8m",
            "--runtime=300ms", "--time_based", "--rw=randread", "--bs=4k",
            "--output-format=json", *options]
    done = subprocess.run(args, capture_output=True, text=True, check=True, timeout=60)
    document: dict[str, Any] = json.loads(done.stdout[done.stdout.index("{"):])
    (directory / "fio.json").write_text(done.stdout)
    return document


@pytest.mark.slow  # three fio runs
def test_real_fio_keys_and_numjobs(fio_bin: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """On this machine's fio: the simulated JSON has its keys and types; --numjobs 2 imports as
    2 threads with and without --group_reporting, IOPS summed either way."""
    real = run_fio(fio_bin, tmp_path)
    missing, types = compare(real, simulated(capsys, *FIO_RANDRW))
    assert not_simulated(missing) == set()
    assert types == []
    for grouped in (True, False):
        document = run_fio(fio_bin, tmp_path, "--numjobs=2",
                           *(["--group_reporting"] if grouped else []))
        assert len(document["jobs"]) == (1 if grouped else 2)
        (run_,) = import_fio(tmp_path / "fio.json")["runs"]
        assert run_["threads"] == 2
        assert run_["read_iops"] == pytest.approx(sum(j["read"]["iops"]
                                                      for j in document["jobs"]))
