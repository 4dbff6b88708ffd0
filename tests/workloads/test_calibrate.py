"""Calibration: the sweep's orchestration and faults, the profile fit, and fio import."""

import errno
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from advisor.errors import InvalidInput
from tests.workloads.cli import run_cli
from workloads.real.calibrate import CalibrationPlan, calibration_document, run_calibration
from workloads.real.device_profile import fit_latency
from workloads.real.fio import import_fio
from workloads.real.sysbench import SysbenchFailed, check_directory

FIXTURES = Path(__file__).parent / "fixtures"
RUN_OUTPUT = {
    "rndrd": "sysbench_fileio_rndrd_t1.txt",
    "rndwr": "sysbench_fileio_rndwr_t4_nofsync.txt",
    "seqrd": "sysbench_fileio_seqrd_t4_nodirect.txt",
    "seqwr": "sysbench_fileio_seqwr_t1.txt",
}


class FixtureRunner:
    """Answers sysbench commands with captured real outputs; can fail one mode like a full disk."""

    version = "sysbench 1.0.20"

    def __init__(self, fail_mode: str | None = None) -> None:
        self.fail_mode = fail_mode
        self.commands: list[list[str]] = []

    def run(self, args: Any, *, cwd: Path | None = None, env: Any = None,
            timeout_s: float | None = None) -> str:
        self.commands.append(list(args))
        assert cwd is not None
        assert cwd.is_dir()
        if args[-1] == "prepare":
            (cwd / "test_file.0").write_bytes(b"x")
            return (FIXTURES / "sysbench_fileio_prepare.txt").read_text()
        if args[-1] == "cleanup":
            return (FIXTURES / "sysbench_fileio_cleanup.txt").read_text()
        mode = next(a.split("=", 1)[1] for a in args if a.startswith("--file-test-mode="))
        if mode == self.fail_mode:
            raise SysbenchFailed("Failed to write file! errno = 28 (No space left on device)")
        return (FIXTURES / RUN_OUTPUT[mode]).read_text()


def plan(path: Path, **overrides: Any) -> CalibrationPlan:
    settings: dict[str, Any] = {"path": path, "name": "disk1", "size_bytes": 64 * 2**20,
                                "time_s": 2, "threads": (1, 4)}
    return CalibrationPlan(**(settings | overrides))


def test_sweep_runs_every_mode_at_every_thread_count_and_cleans_up(tmp_path: Path) -> None:
    """prepare once, 4 modes x 2 thread counts, fsync probe, cleanup; no file left behind."""
    runner = FixtureRunner()
    calibration = run_calibration(plan(tmp_path), runner=runner)
    assert calibration["complete"] is True
    assert [c[-1] for c in runner.commands] == ["prepare", *["run"] * 8, "cleanup"]
    assert [r["mode"] for r in calibration["runs"]] == [
        m for m in ("rndrd", "rndwr", "seqrd", "seqwr") for _ in (1, 4)]
    assert calibration["flush"]["p50_ms"] > 0
    assert list(tmp_path.iterdir()) == []


def test_fitted_profile_follows_the_measurements(tmp_path: Path) -> None:
    """Saturation = best run; latency body through QD1 p50/p99; names as the catalog wants."""
    calibration = run_calibration(plan(tmp_path), runner=FixtureRunner())
    document = calibration_document(calibration, name="disk1", capacity_gib=100.0)
    (device,) = document["local_devices"]
    (profile,) = document["latency_profiles"]
    assert device == device | {
        "name": "disk1", "capacity_gib": 100.0, "read_iops": 12214.8, "write_iops": 42462.2,
        "block_kib": 16, "seq_read_mibps": 11129.41, "seq_write_mibps": 99.42,
        "latency_profile": "local-disk1",
    }
    # The body is fitted net of the 16 KiB transfer time the simulator adds back: QD1 p50 and
    # p90 minus 16 KiB / transfer_mibps; sigma = ln(p90 / p50) / 1.2816.
    transfer_ms = 16 / 1024 / 11129.41 * 1000
    qd1 = next(r for r in calibration["runs"] if r["mode"] == "rndrd" and r["threads"] == 1)
    p50, p90 = (qd1["latency_ms"][k] - transfer_ms for k in ("p50", "p90"))
    assert profile["read"]["median_ms"] == round(0.078 - transfer_ms, 4)
    assert profile["read"]["sigma"] == pytest.approx(math.log(p90 / p50) / 1.2816, abs=1e-3)
    assert profile["write"]["median_ms"] == round(0.087 - transfer_ms, 4)
    assert profile["transfer_mibps"] == 11129.41
    assert document["calibration"]["runs"] == calibration["runs"]
    assert document["calibration"]["profile_fitted"] is True


def test_a_failing_run_keeps_the_finished_ones(tmp_path: Path) -> None:
    """The disk fills up in seqwr: the six runs before are kept, the error names the path."""
    calibration = run_calibration(plan(tmp_path), runner=FixtureRunner(fail_mode="seqwr"))
    assert calibration["complete"] is False
    assert len(calibration["runs"]) == 6
    assert calibration["error"] == (
        f"sysbench fileio in {tmp_path}: Failed to write file! errno = 28 "
        "(No space left on device)"
    )
    assert list(tmp_path.iterdir()) == []
    document = calibration_document(calibration, name="disk1", capacity_gib=1.0)
    assert document["local_devices"] == []
    assert "no device profile: no seqwr measurement" in document["calibration"]["notes"][-1]


def test_cli_reports_the_partial_calibration_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that breaks: the finished runs printed and saved, one error line, exit 1."""
    import workloads.real.sysbench

    monkeypatch.setattr(workloads.real.sysbench.Sysbench, "find",
                        classmethod(lambda cls: FixtureRunner(fail_mode="seqrd")))
    out = tmp_path / "p.json"
    work = tmp_path / "disk"
    work.mkdir()
    result = run_cli("calibrate", "--path", str(work), "--size", "64M", "--threads", "1",
                     "--out", str(out))
    assert result.exit_code == 1
    assert "rndwr" in result.stdout
    assert result.stderr.splitlines()[-1].startswith(f"error: sysbench fileio in {work}: ")
    assert len(json.loads(out.read_text())["calibration"]["runs"]) == 2


@pytest.mark.parametrize(
    ("make", "size", "message"),
    [
        (lambda p: p / "missing", 2**26, "calibration path {p} does not exist"),
        (lambda p: (p / "file").touch() or p / "file", 2**26,
         "calibration path {p} is not a directory"),
        (lambda p: p, 2**60, "not enough free space in {p}: the test files need"),
    ],
)
def test_unusable_paths_are_refused_naming_the_path(
    tmp_path: Path, make: Any, size: int, message: str
) -> None:
    """Missing, not a directory, too small: one line naming the path."""
    path = make(tmp_path)
    with pytest.raises(InvalidInput, match="^" + message.format(p=path)):
        check_directory(path, size)


def test_read_only_file_system_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """EROFS when creating the probe file: 'is on a read-only file system'."""
    real_open = os.open

    def read_only(path: Any, flags: int, *args: Any) -> int:
        if str(path).startswith(str(tmp_path)) and flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(InvalidInput, match=f"^calibration path {tmp_path} is on a read-only"):
        check_directory(tmp_path, 2**20)


def test_no_direct_io_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system that refuses O_DIRECT (EINVAL, e.g. older tmpfs): runs buffered."""
    real_open = os.open

    def no_direct(path: Any, flags: int, *args: Any) -> int:
        if flags & getattr(os, "O_DIRECT", 0):
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", no_direct)
    assert check_directory(tmp_path, 2**20) is False
    runner = FixtureRunner()
    calibration = run_calibration(plan(tmp_path), runner=runner)
    assert calibration["direct_io"] is False
    assert calibration["notes"] == [f"{tmp_path} does not support O_DIRECT: ran without it"]
    assert len(runner.commands) == 10
    assert all("--file-extra-flags=direct" not in c for c in runner.commands)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"name": "bad:name"}, "--name 'bad:name': use letters"),
        ({"threads": (0,)}, "threads 0: must be at least 1"),
        ({"block_bytes": 1000}, "block_size 1000: must be a multiple of 512"),
        ({"size_bytes": 2**20}, "size 1048576: must be at least 128 x block_size"),
        ({"time_s": 0}, "time 0: must be at least 1"),
    ],
)
def test_bad_plans_are_refused(tmp_path: Path, overrides: dict[str, Any], message: str) -> None:
    """Each bad option: one line naming it."""
    with pytest.raises(InvalidInput, match=message):
        run_calibration(plan(tmp_path, **overrides), runner=FixtureRunner())


def test_latency_fit_on_reference_values() -> None:
    """p50 0.1 ms, p99 0.2 ms: sigma = ln 2 / 2.326; no tail when everything fits the body."""
    run = {"mode": "rndrd", "threads": 1, "events": 1000,
           "latency_ms": {"p50": 0.1, "p99": 0.2, "max": 0.25},
           "percentiles_ms": {"p50": 0.1, "p99": 0.2, "p999": 0.25}}
    assert fit_latency(run) == {"median_ms": 0.1, "sigma": round(math.log(2) / 2.326, 4),
                                "tail_probability": 0.0, "tail_min_ms": 0.0, "tail_max_ms": 0.0}


def test_latency_fit_finds_a_heavy_tail() -> None:
    """A p99.9 twenty times the median, far beyond the body: a ~0.5 % tail up to the max.

    The body's p99.99 (0.191 ms) lies between the listed p99.5 (0.17) and p99.9 (2.0):
    log-linear interpolation puts it at the 99.519th percentile, so 0.481 % are tail events.
    """
    run = {"mode": "rndrd", "threads": 1, "events": 100_000,
           "latency_ms": {"p50": 0.1, "p99": 0.15, "max": 12.0},
           "percentiles_ms": {"p50": 0.1, "p99": 0.15, "p995": 0.17, "p999": 2.0,
                              "p9999": 9.0}}
    fitted = fit_latency(run)
    assert fitted["tail_probability"] == pytest.approx(0.00481, rel=0.01)
    assert fitted["tail_max_ms"] == 12.0
    assert fitted["tail_min_ms"] == pytest.approx(0.1 * math.exp(3.719 * fitted["sigma"]),
                                                  rel=1e-3)


def test_fio_json_becomes_calibration_runs() -> None:
    """fio randrw at iodepth 16: IOPS, MiB/s, completion-latency percentiles, job options."""
    calibration = import_fio(FIXTURES / "fio_randrw_qd16.json")
    (run,) = calibration["runs"]
    assert calibration["tool"] == "fio-3.33"
    assert {k: run[k] for k in ("mode", "threads", "iodepth", "block_bytes", "direct")} == {
        "mode": "rndrw", "threads": 1, "iodepth": 16, "block_bytes": 4096, "direct": True}
    assert run["read_iops"] == pytest.approx(40785.107446)
    assert run["read_mibps"] == pytest.approx(163140 / 1024, abs=1e-3)
    assert run["read_latency_ms"]["p50"] == pytest.approx(0.257024)
    assert run["read_latency_ms"]["p999"] == pytest.approx(2.37568)
    assert run["write_iops"] > 0
    assert run["latency_ms"] == run["read_latency_ms"]  # 75 % reads: the main direction


def test_fio_global_options_and_group_reporting() -> None:
    """Global bs/direct apply to every job; numjobs=2 with group_reporting is 2 threads."""
    runs = import_fio(FIXTURES / "fio_jobfile_two_groups.json")["runs"]
    assert [(r["job"], r["mode"], r["threads"], r["iodepth"], r["block_bytes"], r["direct"])
            for r in runs] == [
        ("randread-qd1", "rndrd", 1, 1, 16384, True),
        ("randwrite-qd4", "rndwr", 2, 4, 16384, True),
    ]
    assert runs[1]["write_latency_ms"]["p50"] == pytest.approx(0.185344)
    assert runs[0]["read_latency_ms"] is not None
    assert runs[0]["write_latency_ms"] is None


def test_cli_imports_fio_and_says_what_it_could_not_fit(tmp_path: Path) -> None:
    """--import-fio: runs printed and saved; without sequential runs no device is fitted."""
    out = tmp_path / "p.json"
    result = run_cli("calibrate", "--import-fio", str(FIXTURES / "fio_jobfile_two_groups.json"),
                     "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert "randread" not in result.stdout  # modes are shown in sysbench's names
    assert "rndrd" in result.stdout
    document = json.loads(out.read_text())
    assert document["local_devices"] == []
    assert document["calibration"]["notes"][-1] == (
        "no device profile: no seqrd, seqwr measurement to fit a device profile from")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--import-fio", "/nonexistent/fio.json"),
         "error: /nonexistent/fio.json: fio JSON not found"),
        ((), "error: give either --path DIR (run sysbench), --import-fio FILE.json or "
             "--import-sysbench FILE"),
        (("--path", "/tmp", "--import-fio", "x.json"), "error: give either --path DIR"),
        (("--path", "/dev/null/sub"),  # a missing --path is created; this one cannot be
         "error: --path /dev/null/sub: cannot create the directory (Not a directory)"),
        (("--path", "/tmp", "--size", "lots"), "error: --size 'lots': not a size like 4k"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    """Bad input: one `error:` line, exit 2."""
    result = run_cli("calibrate", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('{"jobs": []}', "field fio version: Field required"),
        ('{"fio version": "fio-3.33", "jobs": []}', "field jobs: List should have at least 1"),
        ('{"fio version": "fio-3.33", "jobs": [{"foo": 1}]}', "field jobs.0.jobname: Field "
         "required"),
        ('{"fio version": "fio-3.33", "jobs": [1]}', "field jobs.0: Input should be a valid "
         "dictionary"),
        ('{"fio version": "fio-3.33", "jobs": [{"jobname": "j"}]}',
         "field jobs.0: neither 'read' nor 'write' results"),
        ('{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "read": {"iops": 1, '
         '"bw": null, "total_ios": 3}}]}', "field jobs.0.read.bw: Input should be a valid number"),
        ('{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "read": {"iops": "abc", '
         '"bw": 1, "total_ios": 3}}]}', "field jobs.0.read.iops: Input should be a valid number"),
        ('{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "read": {"iops": 0, "bw": 0, '
         '"total_ios": 0}}]}', "no job did any I/O without an error"),
        ('{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "error": 5, "read": {"iops": 9, '
         '"bw": 9, "total_ios": 9}}]}', "no job did any I/O without an error"),
    ],
)
def test_cli_refuses_what_is_not_fio_json_in_one_line(
    tmp_path: Path, document: str, message: str
) -> None:
    """Garbage fio JSON: one line naming the field, exit 2, no profile written."""
    path = tmp_path / "fio.json"
    path.write_text(document)
    out = tmp_path / "p.json"
    result = run_cli("calibrate", "--import-fio", str(path), "--out", str(out))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: fio JSON {path}: {message}")
    assert result.stderr.count("\n") == 1
    assert not out.exists()


def test_fio_numjobs_with_group_reporting_is_one_entry_of_n_threads() -> None:
    """fio --numjobs=2 --group_reporting (command line, so not in the JSON): one entry, summed
    by fio, imported as 2 threads with fio's own figures."""
    (run,) = import_fio(FIXTURES / "fio_numjobs2_group_reporting.json")["runs"]
    assert {k: run[k] for k in ("job", "mode", "threads", "iodepth", "direct")} == {
        "job": "randread-nj2", "mode": "rndrd", "threads": 2, "iodepth": 2, "direct": True}
    assert run["read_iops"] == pytest.approx(16396.317829)
    assert run["read_latency_ms"]["p50"] == pytest.approx(0.057088)
    assert run["duration_s"] == pytest.approx(1.032)  # the run's wall time, not 2 x job_runtime


def test_fio_numjobs_without_group_reporting_merges_the_clones() -> None:
    """fio --numjobs=2 alone: two entries of one job, merged into one run of 2 threads; IOPS
    and MiB/s summed, I/O-weighted mean latency, percentiles of the clones' mixture."""
    document = json.loads((FIXTURES / "fio_numjobs2_clones.json").read_text())
    clones = [job["read"] for job in document["jobs"]]
    (run,) = import_fio(FIXTURES / "fio_numjobs2_clones.json")["runs"]
    assert (run["threads"], run["iodepth"]) == (2, 2)
    assert run["read_iops"] == pytest.approx(sum(c["iops"] for c in clones))
    assert run["read_mibps"] == pytest.approx(sum(c["bw"] for c in clones) / 1024, abs=1e-3)
    assert run["events"] == sum(c["total_ios"] for c in clones)
    ios = [c["total_ios"] for c in clones]
    mean_ns = sum(n * c["lat_ns"]["mean"] for n, c in zip(ios, clones, strict=True)) / sum(ios)
    assert run["read_latency_ms"]["avg"] == pytest.approx(mean_ns / 1e6)
    assert run["read_latency_ms"]["max"] == max(c["lat_ns"]["max"] for c in clones) / 1e6
    # both clones have the same median (73216 ns): so has their mixture
    assert run["read_latency_ms"]["p50"] == pytest.approx(0.073216)
    for key, pct in (("p90", "90.000000"), ("p99", "99.000000")):
        low, high = sorted(c["clat_ns"]["percentile"][pct] / 1e6 for c in clones)
        assert low <= run["read_latency_ms"][key] <= high


def test_clone_percentiles_are_those_of_the_mixture() -> None:
    """Two equal clones, uniform on 0-100 ns and on 100-200 ns: their mixture is uniform on
    0-200 ns, so its 10th and 90th percentiles are 20 and 180 ns."""
    from advisor.percentiles import FIO_PERCENTILES
    from workloads.real.fio import _merged_percentiles

    low = {q: q for q in FIO_PERCENTILES}
    high = {q: 100 + q for q in FIO_PERCENTILES}
    merged = _merged_percentiles([(1000, low), (1000, high)])
    assert merged[10.0] == pytest.approx(20.0)
    assert merged[90.0] == pytest.approx(180.0)
    assert _merged_percentiles([(5, low)]) == low
