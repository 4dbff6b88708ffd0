"""Golden files for the HTML reports of a live `size` and `simulate` run (`--report`).

Two files per report: the page's visible text (a readable diff) and the whole page (markup, CSS
and the SVG charts, which the text leaves out). The advisor version is replaced; see conftest.
"""

import pytest

from tests.conftest import Golden
from tests.goldens.conftest import Run, table_text, without_version
from tests.report.conftest import page_text


def _check_report(golden: Golden, name: str, run: Run) -> None:
    assert run.report_html is not None
    html = without_version(run.report_html)
    golden.check(f"{name}.txt", page_text(html))
    golden.check(f"{name}.html", html)


@pytest.mark.slow  # over 5 s on a 2-core host (durations of 2026-11-29)
def test_size_report_is_golden(size_627_run: Run, golden: Golden) -> None:
    """`advisor size --tps 627 --reads 3.25 --report`: the sizing report."""
    _check_report(golden, "report_size_627", size_627_run)


@pytest.mark.slow  # over 5 s on a 2-core host (durations of 2026-11-29)
def test_simulate_table_is_golden(simulate_gp2_run: Run, golden: Golden) -> None:
    """fio randrw on gp2 385 GiB, iodepth 1/8/64, seed 7: the per-level table and credits."""
    golden.check("simulate_gp2.txt", table_text(simulate_gp2_run.stdout))


@pytest.mark.slow  # over 5 s on a 2-core host (durations of 2026-11-29)
def test_simulate_report_is_golden(simulate_gp2_run: Run, golden: Golden) -> None:
    """The same run's simulation report."""
    _check_report(golden, "report_simulate_gp2", simulate_gp2_run)
