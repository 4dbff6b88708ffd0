"""`advisor calibrate --import-sysbench`: sysbench 1.0.20 fileio output (captured on this project's
machine, and run live when sysbench is installed) imported like a calibration run."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.workloads.cli import run_cli
from workloads.real.sysbench_import import import_sysbench

FIXTURES = Path(__file__).parent / "fixtures"


def test_default_run_keeps_what_sysbench_printed() -> None:
    """rndrw, 2 threads, default options: rates as printed, latency at sysbench's two decimals
    and its one default percentile (95th); the missing p50/p99 are said, not invented."""
    calibration = import_sysbench([FIXTURES / "sysbench_fileio_rndrw_nohistogram.txt"])
    (run,) = calibration["runs"]
    assert calibration["tool"] == "sysbench 1.0.20"
    assert {k: run[k] for k in ("mode", "threads", "iodepth", "block_bytes", "direct",
                                "read_iops", "write_iops", "fsyncs_per_s", "read_mibps",
                                "write_mibps", "duration_s", "events")} == {
        "mode": "rndrw", "threads": 2, "iodepth": 1, "block_bytes": 16384, "direct": False,
        "read_iops": 9383.53, "write_iops": 6255.69, "fsyncs_per_s": 629.53,
        "read_mibps": 146.62, "write_mibps": 97.75, "duration_s": 2.02, "events": 32864}
    assert run["latency_ms"] == {"min": 0.0, "avg": 0.12, "max": 88.07, "p50": None,
                                 "p90": None, "p95": 0.01, "p99": None, "p999": None}
    assert run["percentiles_ms"] == {"p95": 0.01}
    notes = " ".join(calibration["notes"])
    assert "a device profile needs p50 and p99" in notes
    assert "include the fsyncs" in notes


def test_prepare_run_and_cleanup_appended_in_one_file() -> None:
    """A log of prepare + run (--histogram=on) + cleanup: one run, percentiles read from the
    histogram as sysbench reads its own."""
    (run,) = import_sysbench([FIXTURES / "sysbench_fileio_prepare_rndrd_cleanup.txt"])["runs"]
    assert (run["mode"], run["threads"], run["direct"], run["events"]) == ("rndrd", 1, True,
                                                                          10032)
    assert run["read_iops"] == 4990.22
    assert run["latency_ms"] == {"min": 0.05, "avg": 0.2, "max": 31.68, "p50": 0.079,
                                 "p90": 0.112, "p95": 0.141, "p99": 3.885, "p999": 13.219}


def test_four_mode_files_fit_a_device(tmp_path: Path) -> None:
    """rndrd, rndwr, seqrd and seqwr outputs (with histograms): a device profile is fitted."""
    files = ["sysbench_fileio_rndrd_t1.txt", "sysbench_fileio_rndwr_t4_nofsync.txt",
             "sysbench_fileio_seqrd_t4_nodirect.txt", "sysbench_fileio_seqwr_t1.txt"]
    out = tmp_path / "p.json"
    args = [a for f in files for a in ("--import-sysbench", str(FIXTURES / f))]
    result = run_cli("calibrate", *args, "--name", "disk1", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    (device,) = document["local_devices"]
    assert device["name"] == "disk1"
    assert device["read_iops"] == 12214.8
    assert [r["mode"] for r in document["calibration"]["runs"]] == [
        "rndrd", "rndwr", "seqrd", "seqwr"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("garbage\n", "not sysbench fileio run output (no 'Doing ... test' line)"),
        ((FIXTURES / "sysbench_oltp_read_write_t2.txt").read_text(),
         "sysbench OLTP output; calibrate reads the output of sysbench fileio ... run"),
        ((FIXTURES / "sysbench_fileio_prepare.txt").read_text(),
         "no fileio run in it (only prepare or cleanup output)"),
        ((FIXTURES / "sysbench_fileio_rndrw_nohistogram.txt").read_text().split("General")[0],
         "sysbench output has no 'total time:' line"),  # cut short
        ((FIXTURES / "sysbench_fileio_rndrw_nohistogram.txt").read_text().replace(
            "Number of threads: 2\n", ""), "sysbench output has no 'Number of threads' line"),
    ],
)
def test_bad_text_is_one_line_and_exit_2(tmp_path: Path, text: str, message: str) -> None:
    """Text that is not a fileio run: one `error:` line naming the file, exit 2, no profile."""
    path = tmp_path / "out.txt"
    path.write_text(text)
    out = tmp_path / "p.json"
    result = run_cli("calibrate", "--import-sysbench", str(path), "--out", str(out))
    assert result.exit_code == 2
    assert result.stderr == f"error: sysbench output {path}: {message}\n"
    assert not out.exists()


@pytest.mark.sysbench
def test_real_sysbench_fileio_run_imports(sysbench_bin: str, tmp_path: Path) -> None:
    """This machine's sysbench: a 1 s rndrd run on 16 MiB of files imports as one run with
    the options it was given and the rates it printed."""
    common = [sysbench_bin, "fileio", "--file-total-size=16M", "--file-num=2"]
    subprocess.run([*common, "prepare"], cwd=tmp_path, capture_output=True, check=True,
                   timeout=60)
    done = subprocess.run([*common, "--file-test-mode=rndrd", "--threads=2", "--time=1",
                           "--histogram=on", "--file-block-size=4096", "run"], cwd=tmp_path,
                          capture_output=True, text=True, check=True, timeout=60)
    path = tmp_path / "run.txt"
    path.write_text(done.stdout)
    (run,) = import_sysbench([path])["runs"]
    assert (run["mode"], run["threads"], run["block_bytes"]) == ("rndrd", 2, 4096)
    printed = float(done.stdout.split("reads/s:")[1].split()[0])
    assert run["read_iops"] == printed > 0
    assert run["latency_ms"]["p50"] is not None
