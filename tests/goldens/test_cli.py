"""Golden files for the command line people read: `--help`, the `size` table and its JSON.

Each test runs the real command (tests/goldens/conftest.py) and diffs its output with the file in
tests/goldens/; `pytest --update-goldens` rewrites the files after a deliberate change.
"""

import pytest

from tests.conftest import Golden
from tests.goldens.conftest import (
    SIZE_627,
    Run,
    advisor,
    stable_json,
    table_text,
    without_timing,
)


@pytest.mark.parametrize(("argv", "name"), [
    ((), "help.txt"),
    (("size",), "help_size.txt"),
    (("simulate",), "help_simulate.txt"),
], ids=["advisor", "size", "simulate"])
def test_help_is_golden(argv: tuple[str, ...], name: str, golden: Golden,
                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """`advisor [COMMAND] --help` at 100 columns: usage, every option, its help and default."""
    run = advisor(*argv, "--help", cwd=tmp_path_factory.mktemp("help"))
    golden.check(name, table_text(run.stdout))


@pytest.mark.slow  # over 5 s on a 2-core host (durations of 2026-11-29)
def test_size_table_is_golden(size_627_run: Run, golden: Golden) -> None:
    """`advisor size --tps 627 --reads 3.25`: recommendation, alternatives and rejections."""
    golden.check("size_627.txt", table_text(size_627_run.stdout))


def test_size_explain_table_is_golden(golden: Golden,
                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    """`--explain` adds how the search went (its wall-clock seconds replaced)."""
    run = advisor(*SIZE_627, "--explain", cwd=tmp_path_factory.mktemp("explain"))
    golden.check("size_627_explain.txt", without_timing(table_text(run.stdout)))


def test_size_json_is_golden(golden: Golden, tmp_path_factory: pytest.TempPathFactory) -> None:
    """`--format json`, whole: every key and value, the search time and version replaced."""
    run = advisor(*SIZE_627, "--format", "json", cwd=tmp_path_factory.mktemp("json"))
    golden.check("size_627.json", stable_json(run.stdout))
