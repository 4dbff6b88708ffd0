"""A real headless Chromium opens generated reports from a file:// URL, offline: the charts
render (screenshot not blank, SVG in the DOM), no console error, no network request, and at a
phone's 390 px nothing makes the page scroll sideways."""

import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib import image

from advisor.catalog.model import Catalog
from advisor.report import render_report, write_html
from tests.report.cdp import measure_width

pytestmark = pytest.mark.chromium

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars",
         # every host name resolves to nothing: a request the page made would fail and be logged
         "--host-resolver-rules=MAP * ~NOTFOUND"]


def run_chromium(chromium: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    return subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}",
                           "--enable-logging=stderr", "--v=0", *args],
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory, size_result: dict[str, Any],
                catalog: Catalog) -> Path:
    path = tmp_path_factory.mktemp("report") / "size.html"
    write_html(path, render_report(size_result, catalog=catalog))
    return path


def console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line or "Uncaught" in line or "net::ERR" in line
            or "Failed to load resource" in line]


@pytest.mark.slow
def test_the_page_renders_its_charts_on_screen(chromium: str, report_file: Path,
                                               tmp_path: Path) -> None:
    """The screenshot is a page, not a blank: the header's blue band and the chart's lines
    (blue, red SLO line) are there, with many distinct colours."""
    shot = tmp_path / "size.png"
    proc = run_chromium(chromium, tmp_path, f"--screenshot={shot}", "--window-size=1280,2400",
                        report_file.as_uri())
    assert shot.is_file(), proc.stderr[-2000:]
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (2400, 1280)
    assert pixels.std() > 0.05  # not one flat colour
    colours = np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 200
    reddish = (pixels[..., 0] > 0.75) & (pixels[..., 1] < 0.35) & (pixels[..., 2] < 0.35)
    assert reddish.sum() > 200, "the SLO line (red) is not on screen"
    assert console_errors(proc.stderr) == []


def test_the_dom_holds_the_svg_charts_and_nothing_was_fetched(chromium: str, report_file: Path,
                                                               tmp_path: Path,
                                                               size_result: dict[str, Any]) -> None:
    """Chromium's DOM after load has the inline SVG with its lines and labels; the log shows
    no console error and no failed request; the HTML names no external resource."""
    proc = run_chromium(chromium, tmp_path, "--dump-dom", report_file.as_uri())
    dom = proc.stdout
    assert dom.count("<svg") >= 1, proc.stderr[-2000:]
    assert dom.count("<path") > 20
    knee = size_result["recommendation"]["max_tps_at_slo"]
    assert f"knee {knee:,} tps (recommended)" in dom
    assert console_errors(proc.stderr) == []
    html = report_file.read_text("utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert not re.search(r"url\(\s*[\"']?\s*(?:https?:)?//|@import|<link\b|<script\b", html, re.I)


def test_the_page_fits_a_phone(chromium: str, report_file: Path, tmp_path: Path) -> None:
    """At a phone's width the page still renders (the responsive CSS stacks the columns)."""
    shot = tmp_path / "phone.png"
    run_chromium(chromium, tmp_path, f"--screenshot={shot}", "--window-size=390,1600",
                 "--force-device-scale-factor=1", report_file.as_uri())
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[1] == 390
    assert pixels.std() > 0.05


@pytest.fixture(scope="module")
def simulate_files(tmp_path_factory: pytest.TempPathFactory, mysql_result: dict[str, Any],
                   pattern_result: dict[str, Any]) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("simulate")
    out = {}
    for name, result in (("mysql", mysql_result), ("pattern", pattern_result)):
        out[name] = folder / f"{name}.html"
        write_html(out[name], render_report(result))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("which", ["size", "simulate-mysql", "simulate-pattern"])
def test_at_390_px_the_page_does_not_scroll_sideways(chromium: str, report_file: Path,
                                                     simulate_files: dict[str, Path],
                                                     tmp_path: Path, which: str) -> None:
    """Laid out in a 390 x 844 phone viewport (DevTools device metrics: headless Chromium's
    window is never narrower than 500 px), the document is no wider than the screen: charts
    scale, tables reflow or scroll inside their own box."""
    page = report_file if which == "size" else simulate_files[which.split("-")[1]]
    widths = measure_width(chromium, FLAGS, tmp_path / "profile", page.as_uri())
    assert widths["scroll"] <= 390, widths
    assert widths["body"] <= 390, widths
    assert widths["wide"] == [], widths


@pytest.mark.slow
def test_the_width_probe_sees_a_page_that_scrolls_sideways(chromium: str,
                                                           tmp_path: Path) -> None:
    """The probe is not blind: an unbreakable 700 px line makes the document wider than 390."""
    page = tmp_path / "wide.html"
    page.write_text('<!DOCTYPE html><html><head><meta name="viewport" content="width='
                    'device-width, initial-scale=1"></head><body><p style="white-space:nowrap">'
                    + "x" * 120 + "</p></body></html>", "utf-8")
    widths = measure_width(chromium, FLAGS, tmp_path / "profile", page.as_uri())
    assert widths["scroll"] > 390
    assert widths["wide"]
