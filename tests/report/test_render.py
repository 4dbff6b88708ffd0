"""HTML reports: one self-contained page per result with the sections the brief asks for."""

import re
from importlib import resources
from typing import Any

import jinja2
import pytest

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.report import kind_of, render_report
from advisor.report.charts import LineChart, Mark, Series, line_chart
from advisor.report.common import timeline_chart
from advisor.report.render import ENV
from tests.report.conftest import page_text

EXTERNAL = re.compile(r"""(?:src|href|xlink:href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?"""
                      r"""\s*(?:https?:)?//|@import|<link\b|<script\b|<iframe\b|<img\b""", re.I)


@pytest.fixture(scope="module")
def size_html(size_result: dict[str, Any], catalog: Catalog) -> str:
    return render_report(size_result, catalog=catalog)


def assert_self_contained(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>")
    assert not EXTERNAL.search(html), EXTERNAL.search(html)
    assert "<style>" in html
    assert "@media print" in html
    assert "@media (max-width" in html
    assert 'name="viewport"' in html


def test_size_report_is_one_self_contained_page(size_html: str) -> None:
    """No script, stylesheet, font or image is loaded: inline CSS and inline SVG only."""
    assert_self_contained(size_html)
    assert size_html.count("<svg") == 1  # the latency curves (no burst chart: nothing drains)
    assert "<metadata>" not in size_html


def test_size_report_tells_the_whole_story(size_html: str, size_result: dict[str, Any]) -> None:
    """Request, SLO, recommendation, costs, alternatives, rejections, bottleneck, burst,
    durability, assumptions, catalog version and the command to reproduce are all there."""
    text = page_text(size_html)
    rec = size_result["recommendation"]
    for expected in (
        "transactions/s\n627", "reads per write\n3.25 (23.5% read-write)",
        "what a transaction is\nworkload shape point-rw",
        "transaction p99 ≤ 10 ms", "815 tps (627 + 30% headroom)",
        rec["deployment"], f"${rec['monthly_usd']:,.2f}", "c5.large on-demand",
        "gp3 volume 1 storage",
        "Alternatives", size_result["alternatives"][0]["deployment"],
        size_result["rejected"][0]["reason"],
            f"{size_result['rejected_total']} cheaper candidates",
        rec["bottleneck"].split("; ")[0], "Past the knee",
        "No burst bucket drains at 627 tps over 24 h", "stay full", "raid0 loses the array",
        "all copies lost in a year", "Assumptions", "catalog 2026.11.1",
        "advisor size --tps 627 --reads 3.25 --seed 1", "Seed 1",
    ):
        assert expected in text, expected


def test_the_curve_shows_slo_target_and_knee(size_html: str,
                                            size_result: dict[str, Any]) -> None:
    """The latency chart draws p50 and p99 for the recommendation and the alternative, the SLO
    line, the target load and the knee (legend texts are SVG text, not paths)."""
    svg = size_html[size_html.index("<svg"):size_html.index("</svg>")]
    for label in ("recommended · p99", "recommended · p50", "alternative 1 · p99",
                  "SLO p99 ≤ 10 ms", "target 815 tps",
                  f"knee {size_result['recommendation']['max_tps_at_slo']:,} tps (recommended)",
                  "offered load (transactions/s)"):
        assert label in svg, label
    assert "<text" in svg
    assert 'role="img"' in svg


def test_ids_are_unique_across_charts(pattern_result: dict[str, Any]) -> None:
    """Several charts on one page never share an element id (clip paths stay per chart)."""
    html = render_report(pattern_result)
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    assert html.count("<svg") >= 4


def test_text_from_results_is_escaped(size_result: dict[str, Any]) -> None:
    """Autoescape: markup in a result shows as text, never as markup."""
    evil = {**size_result, "recommendation": {**size_result["recommendation"],
                                              "deployment": "<script>alert(1)</script>"}}
    html = render_report(evil)
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_templates_are_strict_and_come_from_the_package() -> None:
    """Templates load from the installed `templates` package; an undefined name raises."""
    names = {p.name for p in resources.files("templates").iterdir()}
    assert {"base.html.j2", "size.html.j2", "simulate.html.j2", "replay.html.j2",
            "report.css"} <= names
    assert ENV.autoescape is True
    assert ENV.undefined is jinja2.StrictUndefined
    with pytest.raises(jinja2.UndefinedError):
        ENV.from_string("{{ missing }}").render()


def test_without_a_catalog_the_size_report_still_renders(size_result: dict[str, Any]) -> None:
    """No catalog, no curves: the page says how to get them instead of failing."""
    text = page_text(render_report(size_result))
    assert "Curves need the catalog" in text


def test_pattern_report_has_levels_curves_histogram_and_timeline(
        pattern_result: dict[str, Any]) -> None:
    """A ramped fio run: per-level table, IOPS and latency vs load, histogram, timeline."""
    html = render_report(pattern_result)
    assert_self_contained(html)
    text = page_text(html)
    assert "iodepth 64" in text
    assert "Per load level" in text
    for title in ("IOPS vs load", "Latency vs load", "I/O latency at iodepth 64",
                  "over time at iodepth 64"):
        assert title in html, title
    assert ("advisor simulate m5d.large:gp2:385GiB --rw randrw --rwmixread 75 --bs 4k "
            "--iodepth 1 --size 4g --ramp iodepth=1,8,64 --duration 20 --engine des --seed 7"
            in text)


def test_burst_credits_are_drawn_when_they_drain(catalog: Catalog) -> None:
    """A sustained gp2 run that drains its bucket gets the IOPS + credits chart and a sentence
    naming the bucket and how low it falls."""
    from advisor.layout import resolve
    from advisor.sim.run import simulate_pattern
    from advisor.sim.source import IoPattern

    pat = IoPattern(name="fio randwrite", read_fraction=0.0, random=True, block_bytes=16384,
                    concurrency=16, span_bytes=2**30)
    result = simulate_pattern(resolve("m5.large:gp2:100GiB", catalog), catalog, pat,
                              duration_s=3600, engine="analytic")
    chart = timeline_chart(result.levels[-1], "t", at="iodepth 16")
    assert chart["matters"]
    assert "gp2 volume IOPS falls to 0%" in chart["text"]
    assert "credits left" in chart["svg"]


def test_mysql_report_has_per_server_table_and_knee(mysql_result: dict[str, Any]) -> None:
    """A MySQL ramp: per-level SLO verdicts, per-server rows, latency and throughput curves."""
    html = render_report(mysql_result)
    assert_self_contained(html)
    text = page_text(html)
    assert "Per server" in text
    assert "replica r5.large:gp3:500GiB" in text
    assert mysql_result["knee"]["text"] in text
    assert "Transaction latency vs load" in html
    assert "Throughput vs load" in html
    assert "advisor simulate r5.large:gp3:500GiB --workload mysql --tps 627" in text


def test_aerospike_report_has_the_act_tables(act_result: dict[str, Any]) -> None:
    """ACT: per-level worst-slice percentages with pass/fail, the per-slice table, the rating."""
    text = page_text(render_report(act_result))
    assert "ACT per load level" in text
    assert "Per time slice at x 4" in text
    assert act_result["rating"]["text"] in text
    assert "> 64 ms %" in text
    assert ("pass" in text or "fail" in text)


def test_replay_report_overlays_a_simulation(replay_result: dict[str, Any],
                                             mysql_result: dict[str, Any]) -> None:
    """Measured curves alone, or measured and simulated together with the error per step."""
    alone = page_text(render_report(replay_result))
    assert "Measured per step" in alone
    assert "No simulation to compare" in alone
    html = render_report(replay_result, compare=mysql_result)
    assert "simulated · p99" in html
    assert "measured · p99" in html
    text = page_text(html)
    assert "Model error" in text
    assert "Simulated: r5.large:gp3:500GiB" in text


def test_kind_is_sniffed_and_bad_results_say_why() -> None:
    """Old files without `kind` are recognised by shape; a broken one is one line."""
    assert kind_of({"recommendation": {}, "request": {}}) == "size"
    assert kind_of({"levels": [], "layout": "x"}) == "simulate"
    assert kind_of({"levels": [], "target": {}}) == "replay"
    with pytest.raises(InvalidInput, match="not a complete size result: missing slo"):
        render_report({"kind": "size", "request": {}, "recommendation": {}})
    text = page_text(render_report({"calibration": {"name": "nvme"}, "tool": "sysbench 1.0"}))
    assert "Calibrate result" in text
    assert "sysbench 1.0" in text


def test_line_chart_is_svg_text_without_external_references() -> None:
    """matplotlib's SVG, inline: text as <text>, no DOCTYPE, no metadata URLs, scalable."""
    svg = line_chart(LineChart(title="t", xlabel="x", ylabel="y", series=[
        Series(label="a", x=[1, 2, 3], y=[1.0, None, float("nan")])],
        marks=[Mark(label="slo", y=2.0)]), "c1")
    assert svg.startswith("<svg")
    assert "viewBox" in svg
    assert "<!DOCTYPE" not in svg
    assert "http://purl.org" not in svg
    assert not re.search(r'<svg[^>]*\swidth="', svg)
