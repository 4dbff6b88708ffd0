"""The attack suite (bench/attack.py): how it judges an outcome, and a `--quick` run end to end."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench_modules import load_bench

REPO = Path(__file__).resolve().parent.parent


attack = load_bench("attack")
inputs = sys.modules["attack_inputs"]
cli_inputs = sys.modules["attack_cli_inputs"]
api_inputs = sys.modules["attack_api_inputs"]


def cli(**kw: object) -> object:
    return inputs.CliCase(area="t", argv=["layout", "x"], **kw)


@pytest.mark.parametrize(("case", "rc", "err", "timed_out", "verdict"), [
    (cli(), 2, "error: --tps nan: must be a finite number\n", False, "ok"),
    (cli(), 2, "note: no replica\nerror: bad\n", False, "ok"),
    (cli(), 1, "no layout meets the SLO: ...\n", False, "ok"),
    (cli(), 3, "internal error: OverflowError: ...\n", False, "exit-3"),
    (cli(), 1, "Traceback (most recent call last):\n  File ...\nValueError\n", False,
     "traceback"),
    (cli(), 2, "error: one\nerror: two\n", False, "multi-line"),
    (cli(), 0, "", False, "accepted"),
    (cli(expect="any"), 0, "", False, "ok"),
    (cli(), -6, "double free or corruption\n", False, "crash"),
    (cli(), 0, "", True, "hang"),
    (cli(serve=True), 0, "advisor API on http://127.0.0.1:8000\n", True, "accepted"),
    (cli(serve=True, expect="any"), 0, "", True, "ok"),
    (cli(expect="any"), 2, f"error: mysql://u:{inputs.SECRET}@h/db refused\n", False, "secret"),
    (cli(check=lambda: "replaced the FIFO with a file"), 0, "", False, "unsafe-write"),
])
def test_command_line_outcomes_are_judged(case: object, rc: int, err: str, timed_out: bool,
                                          verdict: str) -> None:
    """Exit 0/1/2 with one error line is fine; exit 3, a traceback, a signal, two error lines,
    a hang, a printed secret, an unsafe write or an absurd value accepted is a finding."""
    assert attack.judge_cli(case, rc, "", err, timed_out, 20)[0] == verdict


def test_a_long_input_quoted_whole_is_an_echo() -> None:
    """An error that repeats a 5,000-character argument quotes more than an excerpt."""
    long = "9" * 5000
    case = inputs.CliCase(area="t", argv=["layout", long])
    assert attack.judge_cli(case, 2, "", f"error: layout {long!r}: bad\n", False, 20)[0] == "echo"
    assert attack.judge_cli(case, 2, "", "error: layout '99999…' (5000 chars): bad\n", False,
                            20)[0] == "ok"


@pytest.mark.parametrize(("case", "status", "body", "problem", "alive", "verdict"), [
    (inputs.ApiCase(area="t"), 422, '{"detail": "tps: must be finite"}', "", True, "ok"),
    (inputs.ApiCase(area="t"), 500, "Internal Server Error", "", True, "5xx"),
    (inputs.ApiCase(area="t"), None, "", "timeout", True, "hang"),
    (inputs.ApiCase(area="t"), 422, "{}", "", False, "crash"),
    (inputs.ApiCase(area="t"), 201, "{}", "", True, "accepted"),
    (inputs.ApiCase(area="t", expect=401, token=None), 422, "{}", "", True, "auth"),
    (inputs.ApiCase(area="t", long_values=("a" * 5000,)), 422, "a" * 5000, "", True, "echo"),
    (inputs.ApiCase(area="t"), 422, "x" * 20_000, "", True, "echo"),
    (inputs.ApiCase(area="t", closed_ok=True), None, "", "closed without a reply", True, "ok"),
    (inputs.ApiCase(area="t"), None, "", "closed without a reply", True, "no-reply"),
])
def test_http_outcomes_are_judged(case: object, status: int | None, body: str, problem: str,
                                  alive: bool, verdict: str) -> None:
    """A 5xx, no reply, a dead server, a wrong-token request not refused with 401, a reply
    quoting the input or an absurd value accepted is a finding; a one-line 4xx is fine."""
    assert attack.judge_api(case, status, body, problem, alive, 20)[0] == verdict


@pytest.mark.slow  # builds the workspace (a 3,000-type catalog, deep JSON) and imports the core
def test_the_suite_tries_what_the_issue_asks() -> None:
    """At least 370 command-line inputs across every command and 185 HTTP requests."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        ws = inputs.build_workspace(Path(tmp), REPO)
        hostile = [c for c in cli_inputs.cli_cases(ws) if not c.control]
    commands = {c.argv[0] for c in hostile}
    assert len(hostile) >= 370
    assert {"layout", "simulate", "size", "replay", "calibrate", "validate", "report", "serve",
            "catalog"} <= commands
    assert len([c for c in api_inputs.api_cases() if not c.control]) >= 185


@pytest.mark.slow
def test_quick_run_reports_counts_and_exits_by_its_findings() -> None:
    """`--quick` runs ~20 inputs against the real CLI and server: the controls work, nothing
    crashes, hangs or exits 3, and the exit code says whether anything was found."""
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "attack.py"), "--quick",
                           "--format", "json", "--skip-load"],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    report = json.loads(proc.stdout)
    assert report["controls"]["passed"] == report["controls"]["run"] >= 4, proc.stderr
    total = report["counts"]["total"]
    assert total["tried"] >= 15
    assert (total["exit-3/5xx"], total["hangs"], total["crashes"]) == (0, 0, 0), \
        report["findings"]
    assert proc.returncode == (1 if report["findings"] else 0)
