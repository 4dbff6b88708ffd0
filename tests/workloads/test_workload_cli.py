"""`advisor simulate --workload mysql|aerospike`: issue 4's must-show commands and the error
contract.

The tests call `advisor.cli.main.main(argv)`, the console-script entry point, because that is
where errors become one line and an exit code (typer's CliRunner would bypass the translation).
"""

from typing import Any

import pytest

from advisor.userfiles import CATALOG_ENV
from tests.cli_helpers import run, simulate_json

SHORT = ("--duration", "20")


@pytest.fixture(autouse=True)
def _shipped_catalog_wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # rich tables unabridged


def curve(result: dict[str, Any]) -> list[tuple[float, float, float, bool]]:
    """(offered tps, transaction p50 ms, p99 ms, meets the SLO) per level."""
    return [(lv["offered_tps"], lv["latency_ms"]["transaction"]["p50"],
             lv["latency_ms"]["transaction"]["p99"], lv["meets_slo"]) for lv in result["levels"]]


# -- Aerospike / ACT -------------------------------------------------------------------------


def test_act_on_i3_prints_the_rating_and_the_per_slice_table(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`simulate i3.large:store --workload aerospike --ramp x=1,2,5,10,30`: passes up to 10x;
    the table shows each level's worst slice and the per-slice table of the last level."""
    code, out, err = run(capsys, "simulate", "i3.large:store", "--workload", "aerospike",
                         "--ramp", "x=1,2,5,10,30", "--duration", "12")
    assert (code, err) == (0, "")
    assert "ACT i3.large:store (1 device(s)), 2 s slices, seed 1" in out
    assert "Rating: passes ACT up to 10x" in out
    assert "Per-slice table at x=30" in out
    for col in (">1ms %", ">8ms %", ">64ms %", "LB writes/s"):
        assert col in out
    slice_rows = [line for line in out.splitlines()
                  if line.strip("│ ").split(" ")[0] in {"1", "2", "3", "4", "5", "6"}]
    assert len(slice_rows) == 6
    assert all(line.rstrip(" │").endswith("no") for line in slice_rows)  # 30x fails


def test_act_json_has_the_rating_and_each_level_s_slices(
        capsys: pytest.CaptureFixture[str]) -> None:
    """JSON: rating 10x, ACT's derivation per level, 6 slices each with the three thresholds."""
    r = simulate_json(capsys, "i3.large:store", "--workload", "aerospike",
                      "--ramp", "x=1,2,5,10,30", "--duration", "12")
    assert r["rating"] == {"x": 10, "text": "passes ACT up to 10x"}
    assert [lv["act"]["pass"] for lv in r["levels"]] == [True, True, True, True, False]
    at_5x = r["levels"][2]
    assert at_5x["act"]["derivation"]["large_block_writes_per_sec"] == pytest.approx(117.188)
    assert len(at_5x["act"]["slices"]) == 6
    assert {"gt_1ms_pct", "gt_8ms_pct", "gt_64ms_pct", "pass", "fails"} <= set(
        at_5x["act"]["slices"][0])


def test_act_rating_of_i3_store_is_far_above_gp3(capsys: pytest.CaptureFixture[str]) -> None:
    """The same ramp on m5.large:gp3:500GiB rates at most a third of i3.large:store."""
    i3 = simulate_json(capsys, "i3.large:store", "--workload", "aerospike",
                       "--ramp", "x=0.5,1,2,5,10", "--duration", "12")
    gp3 = simulate_json(capsys, "m5.large:gp3:500GiB", "--workload", "aerospike",
                        "--ramp", "x=0.5,1,2,5,10", "--duration", "12")
    assert i3["rating"]["x"] == 10
    assert gp3["rating"]["x"] is not None
    assert i3["rating"]["x"] >= 3 * gp3["rating"]["x"]


# -- MySQL ------------------------------------------------------------------------------------


def test_mysql_table_says_why_data_that_fits_is_fast(capsys: pytest.CaptureFixture[str]) -> None:
    """--data-gb 4 on r5.large:gp3:500GiB (MariaDB 10.11: a 96 MiB redo log): the table explains
    the 0 % miss ratio and names the knee and the master's fsync-bound commits."""
    code, out, err = run(capsys, "simulate", "r5.large:gp3:500GiB", "--workload", "mysql",
                         "--data-gb", "4", "--ramp", "tps=200,627,1500,3000",
                         "--server", "mariadb-10.11", *SHORT)
    assert (code, err) == (0, "")
    assert "buffer pool 12.0 GiB (innodb_dedicated_server rule) for 4 GiB of data" in out
    assert "miss ratio 0.0% of page accesses" in out
    assert "redo capacity 96 MiB" in out
    assert "Knee: highest load meeting p99 <= 10 ms: 1,500 tps" in out
    assert "fsync-bound: each write commit waits for 2 log flushes (redo, binlog)" in out
    assert "✗ transaction p99" in out  # 3,000 tps misses, and says by how much


@pytest.mark.parametrize(("spec", "ramp"), [
    ("c1.medium:raid0:4xstandard:20GiB", "tps=10,20,40,80,160"),
    ("m1.large:raid0:2xstore", "tps=10,20,40,80"),
])
def test_old_hdd_instances_show_a_knee(capsys: pytest.CaptureFixture[str], spec: str,
                                       ramp: str) -> None:
    """Issue 4's HDD deployments (3.25 reads/write, 40 GiB on 1.7 / 7.5 GiB of RAM, so most page
    reads seek): with p99 <= 500 ms the ramp meets the SLO up to a knee inside it and misses
    every level past it, each miss with its reasons; past the knee latency runs away."""
    r = simulate_json(capsys, spec, "--workload", "mysql", "--reads", "3.25", "--data-gb", "40",
                      "--ramp", ramp, "--p99-ms", "500", *SHORT)
    levels = curve(r)
    knee = r["knee"]["tps"]
    assert levels[0][0] <= knee < levels[-1][0]
    assert [ok for *_, ok in levels] == [tps <= knee for tps, *_ in levels]
    assert r["knee"]["text"].startswith(f"highest load meeting p99 <= 500 ms: {knee:,.0f} tps; ")
    assert all(lv["reasons"] for lv in r["levels"] if not lv["meets_slo"])
    p99 = [p for _, _, p, _ in levels]
    assert p99[-1] > 10 * p99[0]


@pytest.mark.parametrize("spec", ["c1.medium:raid0:4xstandard:20GiB", "m1.large:raid0:2xstore"])
def test_hdd_instances_miss_a_10ms_p99_at_any_load(capsys: pytest.CaptureFixture[str],
                                                   spec: str) -> None:
    """With 40 GiB on 1.7-7.5 GiB of RAM most page reads are disk seeks of several ms and a
    write reads ~7 pages: even at 10 tps the p99 is far over 10 ms, so there is no 10 ms knee."""
    r = simulate_json(capsys, spec, "--workload", "mysql", "--reads", "3.25", "--data-gb", "40",
                      "--ramp", "tps=10,25", *SHORT)
    assert r["knee"]["tps"] is None
    assert r["knee"]["text"].startswith("no level meets p99 <= 10 ms; ")
    assert r["io_profile"]["per_read_txn"]["page_reads"] > 0.85  # a point select's leaf misses
    assert all(p50 > 5 and p99 > 50 for _, p50, p99, _ in curve(r))


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "message"), [
    (("r5.large:gp3:500GiB", "--workload", "nosql"),
     "error: --workload 'nosql': choose mysql or aerospike"),
    (("i3.large:store", "--workload", "aerospike", "--x", "0"), "error: --x 0: must be positive"),
    (("r5.large:gp3:500GiB", "--workload", "mysql", "--tps", "-5"),
     "error: --tps -5: must be positive"),
    (("r5.large:gp3:500GiB", "--workload", "mysql", "--data-gb", "1000"),
     "error: master layout r5.large:gp3:500GiB: 500 GiB usable is too small for 1000 GiB of "
     "data plus logs (needs 1,050 GiB)"),
    (("r5.large:gp3:500GiB", "--workload", "mysql", "--ramp", "x=1,2"),
     "error: --ramp 'x=1,2': write tps=100,200,400 or threads=1,8,64"),
    (("r5.large:gp3:500GiB", "--workload", "mysql", "--reads", "abc"),
     "error: Invalid value for '--reads'"),
    (("r5.large:gp3:500GiB", "--workload", "mysql", "--duration", "0"),
     "error: --duration 0: must be positive"),
    (("r5.large:gp3:500GiB", "--workload", "mysql", "--format", "fio"),
     "error: --format fio is for raw I/O patterns; use json for workloads"),
])
def test_bad_workload_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                                  argv: tuple[str, ...], message: str) -> None:
    """Nonsense exits 2 with one `error:` line on stderr naming the option, no traceback."""
    code, out, err = run(capsys, "simulate", *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(message)
    assert "Traceback" not in err


def test_mysql_transaction_shape_options_reach_the_io_model(
        capsys: pytest.CaptureFixture[str]) -> None:
    """--write-txn update=2 --secondary-indexes 0: two rows changed per write; redo and binlog
    shrink with the rows (hand numbers: 2 x (190 + 150) + 200 = 880 B redo, 2 updates x 2 images
    x 190 + 2 x 60 + 150 = 1,030 B binlog); the result states what a transaction is."""
    r = simulate_json(capsys, "r5.large:gp3:500GiB", "--workload", "mysql", "--write-txn",
                      "update=2", "--secondary-indexes", "0", "--engine", "analytic",
                      "--duration", "10")
    assert r["params"]["reads_per_write"] == 3.25
    assert r["params"]["shape"]["write_txn"]["updates"] == 2
    assert r["params"]["shape"]["secondary_indexes"] == 0
    assert r["params"]["shape"]["preset"] == "point-rw (modified)"
    assert r["io_profile"]["per_write_txn"]["redo_bytes"] == 880
    assert r["io_profile"]["per_write_txn"]["binlog_bytes"] == 1030
    code, _, err = run(capsys, "simulate", "r5.large:gp3:500GiB", "--workload", "mysql",
                       "--preset", "tpcc")
    assert code == 2
    assert err == ("error: --preset 'tpcc': choose point-rw, sysbench-oltp-rw, sysbench-oltp-ro, "
                   "sysbench-oltp-wo or tpcc-like\n")
