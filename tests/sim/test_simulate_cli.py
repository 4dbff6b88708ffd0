"""`advisor simulate`: the must-show commands of issue 3 and its error contract.

The tests call `advisor.cli.main.main(argv)`, the console-script entry point, because that is
where errors become one line and exit code 2 (typer's CliRunner would bypass the translation).
"""

import json

import pytest

from advisor.userfiles import CATALOG_ENV
from tests.cli_helpers import run, simulate_json

FIO_4K_QD64 = ["--rw", "randrw", "--rwmixread", "75", "--bs", "4k", "--iodepth", "64"]


@pytest.fixture(autouse=True)
def _shipped_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)


def test_gp2_fio_randrw_runs_at_the_burst_cap_with_75_percent_reads(
        capsys: pytest.CaptureFixture[str]) -> None:
    """m5d.large gp2 385 GiB, fio randrw 75/25 4k QD64: ~3,000 IOPS, 75 % of them reads."""
    r = simulate_json(capsys, "m5d.large:gp2:385GiB", *FIO_4K_QD64)
    assert r["iops"]["total"] == pytest.approx(3000, rel=0.02)
    assert r["iops"]["read"] / r["iops"]["total"] == pytest.approx(0.75, abs=0.01)
    assert "gp2 volume IOPS" in r["bottleneck"]
    assert r["seed"] == 1


def test_instance_store_runs_the_same_job_over_ten_times_faster(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The same job on m5d.large:store: ~42,700 IOPS, at least 10x the gp2 volume."""
    store = simulate_json(capsys, "m5d.large:store", *FIO_4K_QD64, "--duration", "10")
    gp2 = simulate_json(capsys, "m5d.large:gp2:385GiB", *FIO_4K_QD64, "--duration", "10")
    assert store["iops"]["total"] == pytest.approx(42700, rel=0.03)
    assert store["iops"]["total"] >= 10 * gp2["iops"]["total"]


def test_gp2_burst_drains_after_2000_s_and_falls_to_baseline(
        capsys: pytest.CaptureFixture[str]) -> None:
    """100 GiB gp2 under 16 KiB randrw QD64 for an hour: 3,000 IOPS for ~2,000 s, then 300."""
    r = simulate_json(capsys, "m5.8xlarge:gp2:100GiB", "--rw", "randrw", "--bs", "16k",
                      "--iodepth", "64", "--duration", "3600")
    timeline = r["timeline"]
    before = [p for p in timeline if p["t_s"] < 1900]
    after = [p for p in timeline if p["t_s"] > 2100]
    assert before
    assert after
    assert all(p["iops"] == pytest.approx(3000, rel=0.02) for p in before)
    assert all(p["iops"] == pytest.approx(300, rel=0.02) for p in after)
    assert before[0]["burst_balance"] > 0.9
    assert after[-1]["burst_balance"] == pytest.approx(0.0, abs=0.01)
    assert "burst credits" in r["bottleneck"]
    assert "exhausted at t=2,000 s" in r["bottleneck"]
    assert "baseline 300 IOPS" in r["bottleneck"]


def test_table_output_shows_the_bottleneck_and_the_credit_timeline(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The default table names the exhausted credits and prints the credits over time."""
    code, out, _ = run(capsys, "simulate", "m5.8xlarge:gp2:100GiB", "--rw", "randrw",
                       "--bs", "16k", "--iodepth", "64", "--duration", "3600",
                       "--engine", "analytic")
    assert code == 0
    assert "exhausted at t=2,000 s" in " ".join(out.split())
    assert "credits left" in out


def test_fio_format_has_the_fio_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    """--format fio prints jobs[].read.iops and clat_ns.percentile in nanoseconds, as fio does."""
    code, out, err = run(capsys, "simulate", "m5d.large:gp2:385GiB", *FIO_4K_QD64,
                         "--duration", "5", "--format", "fio")
    assert code == 0, err
    job = json.loads(out)["jobs"][0]
    assert job["read"]["iops"] == pytest.approx(2250, rel=0.03)
    assert job["write"]["iops"] == pytest.approx(750, rel=0.05)
    pct = job["read"]["clat_ns"]["percentile"]
    assert set(pct) >= {"50.000000", "99.000000", "99.900000"}
    # QD64 at 3,000 IOPS: ~21 ms in the queue (Little's law), in ns.
    assert 15e6 < pct["50.000000"] < 30e6


def test_ramp_gives_one_level_per_step(capsys: pytest.CaptureFixture[str]) -> None:
    """--ramp threads=1,2,4 with a sysbench mode gives three levels, labelled by threads."""
    r = simulate_json(capsys, "m5.8xlarge:gp2:1000GiB", "--file-test-mode", "rndwr",
                      "--ramp", "threads=1,2,4", "--duration", "5")
    assert [lv["load"] for lv in r["levels"]] == [{"threads": 1}, {"threads": 2}, {"threads": 4}]


@pytest.mark.parametrize(("flags", "names"), [
    (["--rw", "bogus"], "--rw"),
    (["--iodepth", "0"], "--iodepth"),
    (["--ramp", "iodepth=abc"], "--ramp"),
    (["--bs", "4x"], "--bs"),
    (["--duration", "-1"], "--duration"),
    (["--engine", "fast"], "--engine"),
    (["--pattern", "dd"], "--pattern"),
])
def test_bad_flags_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], flags: list[str],
                                        names: str) -> None:
    """A bad flag exits 2 with one `error: ...` line naming the flag on stderr, no stdout."""
    code, out, err = run(capsys, "simulate", "m5d.large:gp2:385GiB", *flags, "--format", "json")
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert err.count("\n") == 1
    assert names in err


def test_bad_layout_spec_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown instance in the spec is a one-line error, exit 2."""
    code, out, err = run(capsys, "simulate", "m9.huge:gp2:100GiB")
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert err.count("\n") == 1


def test_a_refused_act_run_does_not_suggest_the_analytic_engine(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Too much work is refused with what to change; ACT's slices need the event simulation,
    so for Aerospike the analytic engine (which refuses ACT) is not among the suggestions, and
    for a raw pattern it is."""
    code, _, err = run(capsys, "simulate", "i3.large:store", "--workload", "aerospike",
                       "--ramp", "x=1000", "--duration", "3600")
    assert code == 2
    assert "use fewer or lower load levels\n" in err
    assert "analytic" not in err
    code, _, err = run(capsys, "simulate", "m5.8xlarge:gp3:500GiB:16000iops", "--rw", "randread",
                       "--iodepth", "64", "--duration", "86400", "--engine", "des")
    assert code == 2
    assert err.endswith("or lower load levels, or the analytic engine\n")


@pytest.mark.parametrize("engine", ["des", "analytic"])
def test_an_hdd_throughput_limit_says_it_counts_random_ios_as_whole_mebibytes(
        capsys: pytest.CaptureFixture[str], engine: str) -> None:
    """st1 random 4 KiB reads bind on the volume's throughput at 122 MiB/s while moving 0.5
    MiB/s: the words say st1 counts each random I/O as 1 MiB; 1 MiB writes, whose MiB/s are
    their bytes, do not get the note."""
    spec = "m5.large:st1:500GiB"
    small = simulate_json(capsys, spec, "--rw", "randread", "--bs", "4k", "--iodepth", "4",
                          "--duration", "10", "--engine", engine)
    assert small["throughput_mibps"] < 1
    assert small["bottleneck"].startswith("st1 volume throughput at its burst rate 122 MiB/s "
                                          "(it counts each random I/O as 1 MiB at least)")
    large = simulate_json(capsys, spec, "--rw", "write", "--bs", "1m", "--iodepth", "4",
                          "--duration", "10", "--engine", engine)
    assert large["bottleneck"].startswith("st1 volume throughput at its burst rate 122 MiB/s")
    assert "counts each random I/O" not in large["bottleneck"]
