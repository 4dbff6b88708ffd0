"""Running the `advisor` command line in-process, as the CLI tests do.

`advisor.cli.main.main(argv)` is the real entry point (error translation included); typer's
CliRunner would bypass it.
"""

import json
from typing import Any

import pytest

from advisor.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `advisor ARGV...`."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def simulate_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """`advisor simulate ARGV... --format json`, parsed; the command must succeed."""
    code, out, err = run(capsys, "simulate", *argv, "--format", "json")
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result
