"""Live runs of the `advisor` command whose output the golden tests store and diff.

Each run is a subprocess of this interpreter calling the console-script entry point, with an
environment reduced to what the command needs and a 100-column, colourless, UTF-8 terminal, so
the text does not depend on the shell the tests run from (CI variables such as GITHUB_ACTIONS or
FORCE_COLOR make typer and rich print colour codes; COLUMNS changes every table).

What changes between identical runs is replaced before the comparison, and nothing else: the
search's wall-clock seconds and the advisor package version. The catalog and model versions stay:
they change only with the prices or the model, and so does every number next to them.
"""

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from advisor import __version__

WIDTH = 100
ENTRY = "from advisor.cli.main import run; run()"  # the console script's entry point
# Kept from the caller's environment: where to find the code, the numba cache and a temp dir.
PASS_THROUGH = ("PATH", "HOME", "PYTHONPATH", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "TMPDIR")
SIZE_627 = ("size", "--tps", "627", "--reads", "3.25")
SIMULATE_GP2 = ("simulate", "m5d.large:gp2:385GiB", "--rw", "randrw", "--rwmixread", "75",
                "--ramp", "iodepth=1,8,64", "--duration", "20", "--seed", "7")


@dataclass(frozen=True, slots=True)
class Run:
    stdout: str
    report_html: str | None = None


def advisor(*argv: str, cwd: Path, report: bool = False) -> Run:
    """`advisor ARGV...` (plus `--report` when asked) in a fixed terminal; it must exit 0."""
    env = {k: os.environ[k] for k in PASS_THROUGH if k in os.environ}
    env.update(COLUMNS=str(WIDTH), LINES="50", PYTHONUTF8="1")
    page = cwd / "report.html"
    args = [*argv, "--report", str(page)] if report else list(argv)
    proc = subprocess.run([sys.executable, "-c", ENTRY, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=300,
                          check=False)
    assert proc.returncode == 0, f"advisor {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}"
    return Run(stdout=proc.stdout, report_html=page.read_text("utf-8") if report else None)


def table_text(stdout: str) -> str:
    """Terminal text as a reader sees it: trailing blanks (rich pads every line) dropped."""
    return "".join(line.rstrip() + "\n" for line in stdout.splitlines())


def without_version(text: str) -> str:
    return text.replace(f"advisor {__version__}", "advisor [version]")  # HTML-safe


def without_timing(text: str) -> str:
    """`--explain`'s "... in 2.31 s;" is wall-clock time."""
    return re.sub(r" in [\d,]+\.\d+ s;", " in [seconds] s;", text)


# Paths of the JSON values that differ between two runs of one command, and why.
VOLATILE_JSON = {
    ("search", "seconds"): "[seconds]",  # wall-clock time of the search
    ("advisor_version",): "[version]",  # the package version, bumped by releases
}


def stable_json(stdout: str) -> str:
    """The JSON result with its volatile values replaced (each must exist: no silent drift)."""
    data: dict[str, Any] = json.loads(stdout)
    for path, placeholder in VOLATILE_JSON.items():
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        assert path[-1] in parent, f"volatile field {'.'.join(path)} is gone: update VOLATILE_JSON"
        parent[path[-1]] = placeholder
    return json.dumps(data, indent=2) + "\n"  # as the command prints it


@pytest.fixture(scope="session")
def size_627_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """`advisor size --tps 627 --reads 3.25 --report report.html`: the table and the page."""
    return advisor(*SIZE_627, cwd=tmp_path_factory.mktemp("size"), report=True)


@pytest.fixture(scope="session")
def simulate_gp2_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """fio randrw 75 % reads, iodepth 1, 8, 64 on gp2 385 GiB, 20 s a level, seed 7."""
    return advisor(*SIMULATE_GP2, cwd=tmp_path_factory.mktemp("simulate"), report=True)
