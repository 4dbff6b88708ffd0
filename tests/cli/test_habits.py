"""CLI habits (issue 16, item 7): `--version`, shell completion, documented and distinct exit codes,
a closed pipe that exits quietly, `--out` on every data command, `report --out`."""

import io
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from advisor import __version__
from advisor.cli import main as cli_main
from advisor.errors import InfeasibleSlo
from advisor.userfiles import CATALOG_ENV
from tests.cli_helpers import run

REPORT_GOLDEN = Path(__file__).parents[1] / "report" / "golden" / "replay_sqlite.json"
ENTRY = "from advisor.cli.main import run; run()"  # the console script's entry point


@pytest.fixture(autouse=True)
def _shipped_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag_prints_the_version(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`advisor --version` (and -V) prints the version, as `advisor version` does, and exits 0."""
    assert run(capsys, flag) == (0, f"{__version__}\n", "")
    assert run(capsys, "version") == (0, f"{__version__}\n", "")


def test_help_documents_exit_codes_and_completion(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`advisor --help` ends with the exit codes and how to install shell completion."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "--help")
    assert code == 0
    text = " ".join(out.split())
    for words in ("0 ok", "1 the answer is no", "2 bad input", "3 internal error",
                  "141 the reader closed the pipe", "--install-completion", "--show-completion",
                  "--version"):
        assert words in text, words


@pytest.mark.parametrize(("words", "cword", "offered"), [
    ("advisor ca", "1", ["calibrate", "catalog"]),
    ("advisor size --p9", "2", ["--p99-ms"]),
    ("advisor runs ", "2", ["list", "report", "show"]),
])
def test_completion_completes_commands_and_options(
        words: str, cword: str, offered: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The shell-completion protocol (what `--install-completion` sets up) answers: command
    names, a command's options, a group's subcommands."""
    monkeypatch.setenv("_ADVISOR_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", cword)
    assert cli_main.main([]) == 0
    assert sorted(capsys.readouterr().out.split()) == offered


class _ClosedPipe(io.StringIO):
    """stdout whose reader has gone: every write fails as a closed pipe does."""

    def write(self, s: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


@pytest.mark.parametrize("argv", [
    ("catalog", "instances"),  # rich table
    ("catalog", "instances", "--format", "json"),
    ("catalog", "volumes", "--format", "csv"),
    ("layout", "m5d.large:gp2:385GiB"),
], ids=["table", "json", "csv", "layout"])
def test_a_closed_pipe_exits_141_quietly(argv: tuple[str, ...],
                                         monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """`advisor ... | head -1`: exit 141 (not 1, "SLO not met"), nothing on stderr."""
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert cli_main.main(list(argv)) == cli_main.EXIT_BROKEN_PIPE == 141
    assert capsys.readouterr().err == ""


@pytest.mark.slow  # a subprocess: the interpreter's start and exit are part of what is tested
@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_a_closed_pipe_in_a_real_pipeline(fmt: str, tmp_path: Path) -> None:
    """A reader that closes the pipe before the output comes: exit 141, nothing on stderr (no
    traceback, no "Exception ignored" from the interpreter's last flush)."""
    proc = subprocess.Popen([sys.executable, "-c", ENTRY, "catalog", "instances", "--format",
                             fmt], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdout is not None
    proc.stdout.close()  # long before the interpreter has started and written anything
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err.decode()) == (141, "")


def test_the_console_script_exits_without_the_last_collections(tmp_path: Path) -> None:
    """`advisor` (`advisor.cli.main:run`, as pyproject.toml installs it) ends with the collector
    frozen, so the interpreter's shutdown skips its full collections over numba's objects; its
    output and exit codes are `main`'s."""
    scripts = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert scripts["project"]["scripts"]["advisor"] == "advisor.cli.main:run"
    said = ("import atexit, gc, sys\n"
            "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0, file=sys.stderr))\n"
            + ENTRY)
    ok = subprocess.run([sys.executable, "-c", said, "layout", "m5d.large:gp2:385GiB", "--format",
                         "json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert (ok.returncode, ok.stderr) == (0, "frozen True\n")
    assert json.loads(ok.stdout)["spec"] == "m5d.large:gp2:385GiB"
    bad = subprocess.run([sys.executable, "-c", said, "size", "--tps", "-1"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120)
    first, last = bad.stderr.splitlines()
    assert (bad.returncode, last) == (2, "frozen True")
    assert first.startswith("error: ")


def test_infeasible_slo_is_one_line_with_the_best_p99(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """No layout meets the SLO: exit 1 and one short line stating the lowest p99 found; the
    closest candidates' long list only with --explain."""
    closest = "; ".join(f"c5.large:gp3:{n}GiB ($71.65/month): master p99 5.2 ms > 0.5 ms at "
                        "target load 627 tps (148 writes/s); busiest gp3 volume IOPS at 44%"
                        for n in range(100, 105))

    def no(*args: Any, **kwargs: Any) -> Any:
        raise InfeasibleSlo(closest, best_p99_ms=3.5412, best="master i3.8xlarge:gp3:120GiB, "
                            "$1,831.68/month")

    monkeypatch.setattr("recommend.run.run_size", no)
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--p99-ms", "0.5")
    assert (code, out) == (1, "")
    assert err == ("no layout meets the SLO: the lowest p99 found is 3.54 ms (master "
                   "i3.8xlarge:gp3:120GiB, $1,831.68/month); --explain lists the closest "
                   "candidates and what they miss\n")
    code, out, err = run(capsys, "size", "--tps", "627", "--reads", "3.25", "--p99-ms", "0.5",
                         "--explain")
    assert code == 1
    assert closest in " ".join(err.split()), "--explain prints the closest candidates"


def test_infeasible_without_a_p99_names_the_closest_candidate(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An answer with no p99 (Aerospike is judged by ACT): the cheapest candidate's reason, one
    line of bounded length."""
    def no(*args: Any, **kwargs: Any) -> Any:
        raise InfeasibleSlo("; ".join(["2 x i3.large:store ($227.76/month): " + "x" * 400] * 5))

    monkeypatch.setattr("recommend.run.run_size", no)
    code, _, err = run(capsys, "size", "--workload", "aerospike", "--reads-per-sec", "1000",
                       "--writes-per-sec", "1000", "--data-gb", "10")
    assert code == 1
    assert err.count("\n") == 1
    assert len(err) < 300
    assert err.startswith("no layout meets the SLO: 2 x i3.large:store ($227.76/month): ")
    assert err.endswith("; --explain lists the other close candidates\n")


@pytest.mark.parametrize("argv", [
    ("catalog", "instances"), ("catalog", "volumes"), ("layout", "m5d.large:gp2:385GiB"),
], ids=["instances", "volumes", "layout"])
def test_out_writes_the_json_result(argv: tuple[str, ...], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`--out FILE` on every data command: the file holds what `--format json` prints."""
    target = tmp_path / "result.json"
    code, _table, err = run(capsys, *argv, "--out", str(target))
    assert (code, err) == (0, "")
    code, out, _ = run(capsys, *argv, "--format", "json")
    assert json.loads(target.read_text()) == json.loads(out)


@pytest.mark.parametrize("flag", ["--out", "-o", "--output"])
def test_report_takes_out_like_every_command(flag: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`advisor report RESULT --out FILE` (and -o; --output is kept, hidden) writes the page."""
    page = tmp_path / "r.html"
    code, _, err = run(capsys, "report", str(REPORT_GOLDEN), flag, str(page))
    assert (code, err) == (0, f"wrote {page}\n")
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_report_help_shows_out_not_output(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "report", "--help")
    assert code == 0
    assert "--out" in out
    assert "--output" not in out


def test_report_out_and_output_disagreeing_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "report", str(REPORT_GOLDEN), "--out", str(tmp_path / "a.html"),
                         "--output", str(tmp_path / "b.html"))
    assert (code, out) == (2, "")
    assert err == "error: --out and --output name the same option (the HTML file): give one\n"


def _commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out = [(path, group)]
    for name, cmd in getattr(group, "commands", {}).items():
        out += _commands(cmd, (*path, name))
    return out


def test_every_help_text_shows_its_square_brackets(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`--help` is rendered as rich markup, which takes '[fleet]' or '[default: report.html]'
    for a style tag and drops it: `advisor fleet --help` said "pip install 'advisor'". Every
    command's and option's help that holds a '[' shows it in the rendered page."""
    import typer

    monkeypatch.setenv("COLUMNS", "1000")  # one line per help text: nothing wraps
    checked = 0
    for path, cmd in _commands(typer.main.get_command(cli_main.app)):
        texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
        texts = [t for t in texts if "[" in t]
        if not texts:
            continue
        code, out, _ = run(capsys, *path, "--help")
        assert code == 0
        shown = " ".join(out.split())
        for text in texts:
            for line in text.split("\n"):
                # What a reader sees: escaped brackets as brackets, white space folded, and
                # rich's own tags ([bold]...) taken out.
                want = " ".join(line.replace("\\[", "[").split())
                for part in (want.split("[bold]")[0], *want.split("[/bold]")[1:]):
                    if "[" in part and "[/" not in part and "[i]" not in part:
                        assert part.strip() in shown, (path, part)
                        checked += 1
    assert checked >= 4  # fleet's pip extra, report's and runs report's --out, layout's SPEC


def test_help_paragraphs_wrap_to_the_terminal_not_to_the_source() -> None:
    """Help texts are wrapped at 100 columns in the source; typer keeps single line breaks, so
    on an 80-column terminal every other line was a few words long. `reflow` joins a
    paragraph's lines and keeps examples (indented) and list items on lines of their own."""
    text = ("Summary line.\n\n  advisor size --tps 1\n  advisor size --tps 2\n\n"
            "A paragraph wrapped\nin the source\n- an item\n- another\n  that goes on")
    assert cli_main.reflow(text) == (
        "Summary line.\n\n  advisor size --tps 1\n  advisor size --tps 2\n\n"
        "A paragraph wrapped in the source\n- an item\n- another\n  that goes on")
    fleet = next(c for c in cli_main.app.registered_commands if c.name == "fleet")
    assert fleet.help is not None
    assert "an `id`, its `workload` (mysql or aerospike) and" in fleet.help
