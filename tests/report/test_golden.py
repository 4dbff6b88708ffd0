"""Golden files: the text of fixed-seed reports, so any change to what a reader sees is a
visible diff. Regenerate with ADVISOR_UPDATE_GOLDEN=1 after checking the change is wanted."""

import os
from pathlib import Path
from typing import Any

import pytest

from advisor.catalog.model import Catalog
from advisor.report import render_report
from tests.report.conftest import GOLDEN, page_text

UPDATE = os.environ.get("ADVISOR_UPDATE_GOLDEN") == "1"


def check(name: str, text: str) -> None:
    path: Path = GOLDEN / name
    if UPDATE or not path.exists():
        path.write_text(text, "utf-8")
        if not UPDATE:
            pytest.fail(f"{path.name} did not exist: written now, check it and commit it")
    assert text == path.read_text("utf-8"), (
        f"{name} changed: diff it against the page text, then ADVISOR_UPDATE_GOLDEN=1")


def test_size_report_text_is_golden(size_result: dict[str, Any], catalog: Catalog) -> None:
    """`advisor size --tps 627 --reads 3.25` (seed 1): the sizing report's text."""
    check("size_627_seed1.txt", page_text(render_report(size_result, catalog=catalog)))


def test_simulate_report_text_is_golden(pattern_result: dict[str, Any]) -> None:
    """fio randrw on gp2 385 GiB, iodepth 1/8/64, seed 7: the simulation report's text."""
    check("simulate_gp2_seed7.txt", page_text(render_report(pattern_result)))
