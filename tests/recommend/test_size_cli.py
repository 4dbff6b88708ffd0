"""`advisor size`: the JSON contract (BRIEF section 6), a fixed-seed golden file, the table,
Aerospike sizing, and the exit codes (0 found, 1 nothing meets the SLO, 2 bad input).

The tests call `advisor.cli.main.main(argv)`, the console-script entry point, because that is
where errors become one line and an exit code. Regenerate the golden file after a deliberate
model or catalog change with `ADVISOR_UPDATE_GOLDEN=1 pytest tests/recommend/test_size_cli.py`
and review its diff.
"""

import contextlib
import difflib
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.cli.size_cmd import print_size
from advisor.userfiles import CATALOG_ENV
from recommend.result import load_size_result
from tests.cli_helpers import run

GOLDEN = Path(__file__).parent / "golden" / "size_627.json"
UPDATE_ENV = "ADVISOR_UPDATE_GOLDEN"
AEROSPIKE = ("--workload", "aerospike", "--reads-per-sec", "100000", "--writes-per-sec", "50000",
             "--data-gb", "2000", "--replication-factor", "2")


@pytest.fixture(autouse=True)
def _shipped_catalog_wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # rich tables unabridged


def run_json(*argv: str) -> dict[str, Any]:
    """`advisor ARGV... --format json` parsed (usable from module-scoped fixtures)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--format", "json"])
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def size_627(monkeypatch_module: None) -> dict[str, Any]:
    return run_json("size", "--tps", "627", "--reads", "3.25")


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(CATALOG_ENV, raising=False)
        yield None


def stable_parts(result: dict[str, Any]) -> dict[str, Any]:
    """What a reader relies on and the fixed seed pins: no timings, no versions."""
    rec = result["recommendation"]
    return {
        "recommendation": {k: rec[k] for k in ("deployment", "monthly_usd", "max_tps_at_slo")},
        "rejected": [{k: r[k] for k in ("deployment", "reason")} for r in result["rejected"][:5]],
        "slo": result["slo"],
    }


# -- JSON contract and golden file -----------------------------------------------------------


def test_size_json_has_the_brief_s_keys(size_627: dict[str, Any]) -> None:
    """BRIEF section 6: recommendation{deployment, monthly_usd, p99_ms, max_tps_at_slo,
    bottleneck}, alternatives [...], rejected [{deployment, reason}], slo; the seed is echoed."""
    assert {"recommendation", "alternatives", "rejected", "slo", "seed"} <= set(size_627)
    rec = size_627["recommendation"]
    assert {"deployment", "monthly_usd", "p99_ms", "max_tps_at_slo", "bottleneck"} <= set(rec)
    assert isinstance(rec["deployment"], str)
    assert isinstance(rec["monthly_usd"], float)
    assert isinstance(rec["max_tps_at_slo"], int)
    assert isinstance(size_627["alternatives"], list)
    assert size_627["rejected"]
    assert all({"deployment", "reason"} <= set(r) for r in size_627["rejected"])
    assert size_627["slo"]["p99_ms"] == 10.0
    assert size_627["slo"]["tps"] == 627.0
    assert size_627["seed"] == 1


def test_size_627_matches_the_golden_file(size_627: dict[str, Any]) -> None:
    """The fixed-seed answer to `advisor size --tps 627 --reads 3.25` is stored and diffed."""
    got = json.dumps(stable_parts(size_627), indent=2, sort_keys=True) + "\n"
    if os.environ.get(UPDATE_ENV) == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(got)
    want = GOLDEN.read_text()
    diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                        str(GOLDEN), "advisor size --tps 627 --reads 3.25"))
    assert got == want, f"golden file differs ({UPDATE_ENV}=1 rewrites it):\n{diff}"


# -- table ------------------------------------------------------------------------------------


def test_size_table_shows_the_answer_its_cost_headroom_and_rejections(
        capsys: pytest.CaptureFixture[str], size_627: dict[str, Any]) -> None:
    """The table names the deployment, its monthly cost with the breakdown, the knee with its
    headroom, the bottleneck, EBS durability and the cheaper candidates with reasons."""
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--explain")
    assert (code, err) == (0, "")
    rec = size_627["recommendation"]
    assert ("Sizing MySQL 627 tps at 3.25 reads/write, 100 GiB, p99 <= 10 ms with 30% headroom "
            "(knee >= 815 tps), EBS only") in out
    assert rec["deployment"] in out
    assert f"${rec['monthly_usd']:,.2f} (master $" in out
    assert f"{rec['max_tps_at_slo']:,} (headroom {rec['headroom_pct']:,.0f} %)" in out
    assert "durability" in out
    assert "Cheaper candidates rejected" in out
    assert size_627["rejected"][0]["reason"][:60] in out  # the rest may fold in its cell
    assert "Search:" in out
    assert "candidates considered" in out


def test_allow_ephemeral_table_says_what_is_lost_on_stop(
        capsys: pytest.CaptureFixture[str]) -> None:
    """--allow-ephemeral at 627 tps (p99 <= 5 ms, where local NVMe is cheaper than the EBS it
    would take): the answer is EPHEMERAL and says the data is lost on stop."""
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--p99-ms", "5",
                         "--allow-ephemeral")
    assert (code, err) == (0, "")
    assert "EPHEMERAL instance store" in out
    assert "uses instance store: its data is lost on stop, hibernate, terminate or host failure" \
        in out
    assert "ephemeral allowed with >= 1 replica" in out


# -- Aerospike --------------------------------------------------------------------------------


@pytest.mark.slow
def test_aerospike_size_gives_a_node_count_a_layout_and_the_act_table(
        capsys: pytest.CaptureFixture[str]) -> None:
    """100,000 reads/s + 50,000 writes/s of 1,536 B, 2,000 GB, RF 2: N nodes x one layout that
    holds the data at half full, each slice of the verifying ACT run under the thresholds."""
    r = run_json("size", *AEROSPIKE)
    rec = r["recommendation"]
    nodes = rec["nodes"]
    assert isinstance(nodes, int)
    assert nodes >= 3  # RF + 1
    assert rec["deployment"] == f"{nodes} nodes x {rec['layout']} (replication factor 2)"
    load = rec["per_node_load"]  # with one node down: N - 1 nodes carry the load
    assert load["client_reads_per_sec"] == pytest.approx(100_000 * 1.3 / (nodes - 1), rel=1e-6)
    assert load["internal_writes_per_sec"] == pytest.approx(2 * 50_000 * 1.3 / (nodes - 1),
                                                            rel=1e-6)
    assert rec["monthly_usd"] == pytest.approx(rec["cost"]["node_each"]["monthly_usd"] * nodes,
                                               abs=0.01 * nodes)
    slices = rec["act"]["slices"]
    assert len(slices) == 6
    assert all(s["pass"] and s["gt_1ms_pct"] < 5 and s["gt_8ms_pct"] < 1
               and s["gt_64ms_pct"] < 0.1 for s in slices)
    # The verdict pools 2 or more replications: every threshold's interval under its limit.
    act = rec["act"]
    assert act["replications"] >= 2
    assert act["reads"] > act["replications"] * 50_000
    assert [(t["over_ms"], t["limit_pct"]) for t in act["thresholds"]] == [
        (1, 5.0), (8, 1.0), (64, 0.1)]
    assert all(t["ci95_pct"][0] <= t["pct"] <= t["ci95_pct"][1] < t["limit_pct"]
               for t in act["thresholds"])
    assert r["slo"]["act"] == {"gt_1ms_pct": 5, "gt_8ms_pct": 1, "gt_64ms_pct": 0.1}
    assert all(x["monthly_usd"] < rec["monthly_usd"] and x["reason"] for x in r["rejected"])
    print_size(load_size_result(r))
    out = capsys.readouterr().out
    assert f"{nodes} nodes x {rec['layout']} (replication factor 2)" in out
    assert "passes ACT at 130% of the load with one node down: " in out
    assert "% > 1 ms" in out
    assert "% > 8 ms" in out
    assert "% > 64 ms" in out


# -- exit codes -------------------------------------------------------------------------------


@pytest.mark.slow
def test_an_unreachable_p99_exits_1_with_the_nearest_candidates(
        capsys: pytest.CaptureFixture[str]) -> None:
    """--p99-ms 0.01: nothing meets it; one line gives the lowest p99 a deployment could have,
    set by its slowest role (the master: a replica's fast reads are no answer alone), and with
    --explain the 5 cheapest candidates, their price and the p99 each would have at least."""
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--p99-ms", "0.01")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert err.startswith("no layout meets the SLO: the lowest p99 found is ")
    assert "ms (master " in err
    low = float(err.split("the lowest p99 found is ")[1].split(" ms")[0])
    assert low > 1.0  # a master's transactions make several I/Os of ~0.5 ms each
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--p99-ms", "0.01",
                         "--explain")
    assert (code, out) == (1, "")
    listed = err.split("closest candidates and what they miss: ")[1].split("\n")[0]
    assert listed.count("/month): ") == 5
    assert listed.count(" p99 ") == 5
    assert listed.count("> 0.01 ms") == 5


def test_ten_million_tps_exits_1_with_the_nearest_candidates(
        capsys: pytest.CaptureFixture[str]) -> None:
    """--tps 10000000 is valid input with no answer: exit 1, the largest servers and their CPU."""
    code, out, err = run(capsys, "size", "--tps", "10000000", "--reads", "3.25")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert err.startswith("no layout meets the SLO: ")
    assert "CPU" in err
    assert "busy at 13,000,000 tps" in err


@pytest.mark.parametrize(("argv", "message"), [
    (("--tps", "-5"), "error: --tps -5: must be positive"),
    (("--tps", "0"), "error: --tps 0: must be positive"),
    (("--tps", "20000000"), "error: --tps 20000000: at most 10,000,000"),
    (("--reads", "abc"), "error: Invalid value for '--reads'"),
    (("--replicas", "x"), "error: --replicas 'x': a whole number or auto"),
    (("--replicas", "9"), "error: --replicas 9: must be 0..8 or auto"),
    (("--headroom", "-1"), "error: --headroom -1: must be 0 or more"),
    (("--p99-ms", "0"), "error: --p99-ms 0: must be at least 0.01"),
    (("--data-gb", "-1"), "error: --data-gb -1: must be positive"),
    (("--peak-hours", "25"), "error: --peak-hours 25: at most 24"),
    (("--workload", "nosql"), "error: --workload 'nosql': choose mysql or aerospike"),
    (("--workload", "aerospike"), "error: --reads-per-sec 0: aerospike needs reads and/or"),
    (("--region", "eu-west-1"), "error: --region 'eu-west-1': the catalog holds us-east-1"),
    (("--tps",), "error: Option '--tps' requires an argument"),
])
def test_nonsense_exits_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                        argv: tuple[str, ...], message: str) -> None:
    """Bad input exits 2 with one line starting `error:` that names the option; no traceback."""
    code, out, err = run(capsys, "size", *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(message)
    assert "Traceback" not in err
