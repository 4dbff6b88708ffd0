"""`simulate --engine analytic` follows a MySQL deployment for weeks (credit buckets over daily
peaks); the event simulation keeps its bound."""

import itertools

import pytest

from tests.cli_helpers import run, simulate_json

SPEC = "c5.large:raid0:2xgp3:60GiB"


def test_analytic_mysql_runs_four_weeks_and_shows_the_bucket_drain(
        capsys: pytest.CaptureFixture[str]) -> None:
    """28 days at a load a little over the c5.large bandwidth baseline: the instance bucket
    drains over days, not minutes, and the timeline shows it falling to empty."""
    sim = simulate_json(capsys, SPEC, "--workload", "mysql", "--tps", "800", "--replicas", "0",
                        "--engine", "analytic", "--duration", str(28 * 86400))
    assert sim["duration_s"] == 28 * 86400
    timeline = sim["levels"][0]["servers"][0]["timeline"]
    balance = [p["buckets"]["c5.large instance EBS bandwidth"] for p in timeline]
    assert all(a >= b for a, b in itertools.pairwise(balance))
    assert balance[0] > 0.9
    assert balance[-1] == 0.0
    dry_s = next(p["t_s"] for p, b in zip(timeline, balance, strict=True) if b == 0.0)
    assert 86400 < dry_s < 28 * 86400


@pytest.mark.parametrize(("argv", "words"), [
    (("--workload", "mysql", "--engine", "des", "--duration", "86401"),
     "event simulation of mysql runs at most 86,400 s"),
    (("--workload", "mysql", "--engine", "analytic", "--duration", str(28 * 86400 + 1)),
     "duration"),
    (("--rw", "randread", "--engine", "analytic", "--duration", str(7 * 86400 + 1)),
     "with --workload mysql --engine analytic"),
])
def test_horizons_beyond_an_engine_are_refused_with_one_line(
        capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: str) -> None:
    code, _out, err = run(capsys, "simulate", SPEC, *argv)
    assert code == 2
    assert words in err
    assert len(err.strip().splitlines()) == 1
