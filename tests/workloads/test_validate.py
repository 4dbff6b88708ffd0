"""`advisor validate`: the simulator against the calibration its device profile was fitted from."""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import run

FIXTURE = Path(__file__).with_name("fixtures") / "calibration-this-vm.json"


@pytest.fixture
def profile() -> Path:
    """A real profile: `advisor calibrate --path /tmp/calib --size 1G --time 10 --threads
    1,4,16` on this project's build VM (sysbench 1.0.20, O_DIRECT), measurements included."""
    return FIXTURE


def validate_json(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    # The command's own default length (10 s per case): the fitted write point at QD1 sits ~13 %
    # from its measurement, and a 2 s run's sampling noise alone moved it by +-4 points.
    code, out, err = run(capsys, "validate", "--profile", str(path), "--format", "json")
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


@pytest.mark.slow
def test_every_calibration_run_becomes_a_case_with_its_error(
        capsys: pytest.CaptureFixture[str], profile: Path) -> None:
    """Twelve runs, twelve cases: measured and simulated IOPS and percentiles, the error of each,
    and a summary that counts the cases within the +-20 % IOPS target."""
    r = validate_json(capsys, profile)
    assert (r["kind"], r["device"], r["layout"]) == ("validate", "vda-this-machine",
                                                "localhost:local:vda-this-machine")
    assert [(c["mode"], c["threads"]) for c in r["cases"]] == [
        (m, t) for m in ("rndrd", "rndwr", "seqrd", "seqwr") for t in (1, 4, 16)]
    for case in r["cases"]:
        m, s = case["measured"], case["simulated"]
        assert case["error_pct"]["iops"] == pytest.approx((s["iops"] / m["iops"] - 1) * 100,
                                                          abs=0.1)
        assert case["within_tolerance"] == (abs(case["error_pct"]["iops"]) <= 20)
    assert r["summary"]["cases"] == 12
    assert r["summary"]["within_tolerance"] == sum(c["within_tolerance"] for c in r["cases"])


def test_the_fitted_points_reproduce(capsys: pytest.CaptureFixture[str],
                                     profile: Path) -> None:
    """The profile is fitted at queue depth 1 (latency) and at the best thread count (rates):
    simulating those runs gives them back, IOPS within 2 % at saturation and 15 % at QD1, the
    QD1 median within 10 %."""
    r = validate_json(capsys, profile)
    for mode in ("rndrd", "rndwr"):
        runs = [c for c in r["cases"] if c["mode"] == mode]
        best = max(runs, key=lambda c: c["measured"]["iops"])
        assert best["error_pct"]["iops"] == pytest.approx(0.0, abs=2.0)
        qd1 = next(c for c in runs if c["threads"] == 1)
        assert abs(qd1["error_pct"]["iops"]) <= 15
        assert qd1["simulated"]["p50_ms"] == pytest.approx(qd1["measured"]["p50_ms"], rel=0.10)


def test_the_table_names_each_case_and_the_summary(capsys: pytest.CaptureFixture[str],
                                                   profile: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The table form: one row per case and the within-tolerance count."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "validate", "--profile", str(profile), "--duration", "2")
    assert code == 0
    assert "rndrd x1" in out
    assert "seqwr x16" in out
    assert "of 12 cases within ±20 %" in out


@pytest.mark.parametrize(("content", "message"), [
    ("[1]", "a profile is a JSON object, this is a list"),
    ("{", "profile is not JSON"),
    ('{"schema_version": 1}', "holds no local device"),
])
def test_a_bad_profile_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path, content: str,
                                              message: str) -> None:
    """Not an object, not JSON, no device: exit 2 with one `error:` line naming the file."""
    path = tmp_path / "p.json"
    path.write_text(content)
    code, _, err = run(capsys, "validate", "--profile", str(path))
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith(f"error: {path}")
    assert message in err
