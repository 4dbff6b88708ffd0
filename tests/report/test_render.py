"""HTML reports: one self-contained page per result with the sections the brief asks for."""

import re
from importlib import resources
from typing import Any

import jinja2
import pytest

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.report import kind_of, render_report
from advisor.report.charts import MARKERS, LineChart, Mark, Series, _styles, line_chart
from advisor.report.common import fmt_value, timeline_chart
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
    # the latency curves, wide and narrow (no burst chart: nothing drains)
    assert size_html.count("<svg") == 2
    assert size_html.count('<svg class="wide"') == size_html.count('<svg class="narrow"') == 1
    assert "<metadata>" not in size_html


def test_size_report_tells_the_whole_story(size_html: str, size_result: dict[str, Any]) -> None:
    """Request, SLO, recommendation, costs, alternatives, rejections, bottleneck, burst,
    durability, assumptions, catalog version and the command to reproduce are all there."""
    text = page_text(size_html)
    rec = size_result["recommendation"]
    master_type = rec["deployment"].removeprefix("master ").split(":", 1)[0]
    for expected in (
        "transactions/s\n627", "reads per write\n3.25 (23.5% read-write)",
        "what a transaction is\nworkload shape point-rw",
        "transaction p99 ≤ 10 ms", "815 tps (627 + 30% headroom)",
        rec["deployment"], f"${rec['monthly_usd']:,.2f}", f"{master_type} on-demand",
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


def test_a_chart_whose_points_all_lie_at_zero_draws_a_unit_axis() -> None:
    """An Aerospike sizing of writes only plots every level at 0 reads/s: matplotlib warned
    "identical low and high xlims" on the user's terminal (and the test suite treats warnings
    as errors)."""
    svg = line_chart(LineChart(title="t", xlabel="reads/s", ylabel="% over 1 ms", series=[
        Series(label="a", x=[0.0, 0.0, 0.0], y=[0.0, 0.5, 1.0])]), "c0")
    assert svg.startswith("<svg")


def test_tiles_show_the_figures_the_event_simulation_verified(
        size_html: str, size_result: dict[str, Any]) -> None:
    """The p99 tiles are the verified table's figures (the slowest server at the target and
    the headroom load, with its 95 % interval), not the analytic p99 the search screened on."""
    text = page_text(size_html)
    rec = size_result["recommendation"]
    for load, label, analytic in (("target", "p99 at target load", rec["p99_ms"]),
                                  ("headroom", "p99 with headroom", rec["p99_ms_at_headroom"])):
        checked = [(x["p99_ms"], role, x) for role, v in rec["verified"].items()
                   for x in v["loads"] if x["load"] == load]
        p99, role, x = max(checked, key=lambda c: c[0])
        lo, hi = x["p99_ci95_ms"]
        tile = (f"{label}\n{fmt_value(p99, ' ms')}\nevent simulation, {role}; "
                f"95 % interval {lo:,.2f}-{hi:,.2f} ms\n")
        assert tile in text, tile
        if fmt_value(analytic, " ms") != fmt_value(p99, " ms"):
            assert f"{label}\n{fmt_value(analytic, ' ms')}" not in text
        assert f"{fmt_value(p99, ' ms')}\n{lo:,.2f}-{hi:,.2f} ms" in text  # the table agrees


@pytest.mark.parametrize("preset", ["point-rw", "sysbench-oltp-rw"])
def test_a_size_result_without_reads_renders_with_the_presets_ratio(
        size_result: dict[str, Any], preset: str) -> None:
    """A request without --reads (`reads` None: the preset's ratio) renders; the title gives
    the ratio, or the one class a ratio of 0 leaves (sysbench oltp_read_write: every
    transaction is read-write), and the request table the ratio."""
    from workloads.mysql_shape import PRESETS

    request = {**size_result["request"], "reads": None, "preset": preset}
    text = page_text(render_report({**size_result, "request": request}))
    ratio = PRESETS[preset].reads
    mix = f"at {ratio:g} reads/write" if ratio else "of read-write transactions"
    assert f"Sizing report — MySQL 627 tps {mix}" in text
    assert f"reads per write\n{ratio:g} (" in text


def test_each_group_of_curves_has_its_own_colour_and_marker() -> None:
    """Deployments (the label before " · ") differ in colour and marker shape; a group's p50
    shares them; markers of different groups fall on different points of a long series."""
    xs = list(range(19))
    series = [Series(label=f"{name} · {pct}", x=xs, y=[1.0] * 19, dashed=pct == "p50",
                  emphasis=name == "recommended")
              for name in ("recommended", "alternative 1", "alternative 2", "alternative 3")
              for pct in ("p99", "p50")]
    styles = _styles(series)
    by_group = {s.group: st for s, st in zip(series, styles, strict=True)}
    assert len({st[0] for st in by_group.values()}) == 4
    assert len({st[1] for st in by_group.values()}) == 4
    assert all(st[1] in MARKERS for st in styles)
    for s, st in zip(series, styles, strict=True):
        assert st == by_group[s.group]
    offsets = [st[2][0] for st in by_group.values()]
    step = styles[0][2][1]
    assert len(set(offsets)) == 4
    assert all(set(range(o, 19, step)).isdisjoint(range(p, 19, step))
               for o in offsets for p in offsets if o != p)


def test_overlapping_curves_all_show_in_the_size_chart(size_html: str) -> None:
    """Identical-looking curves stay visible: every deployment's line is drawn in its own
    colour, the recommendation widest and underneath, p50 dashed; the legend lists each."""
    svg = size_html[size_html.index('<svg class="wide"'):]
    svg = svg[:svg.index("</svg>")]
    strokes = re.findall(r"stroke: (#[0-9a-f]{6}); stroke-width: ([\d.]+)", svg)
    widths: dict[str, float] = {}
    for colour, w in strokes:  # a line's width (its markers' edges are thinner)
        widths[colour] = max(widths.get(colour, 0.0), float(w))
    for colour in ("#2563eb", "#ea580c", "#16a34a"):  # recommended, alternatives 1 and 2
        assert colour in widths, colour
    assert widths["#2563eb"] > widths["#ea580c"]
    assert "stroke-dasharray" in svg
    for label in ("recommended · p50", "alternative 1 · p99", "alternative 2 · p50"):
        assert label in svg, label


def test_the_narrow_chart_is_drawn_for_a_phone(size_html: str) -> None:
    """The narrow variant is its own SVG with its own ids, a narrower view box and the same
    legend; the stylesheet shows it only on narrow screens."""
    wide = re.search(r'<svg class="wide"[^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"', size_html)
    narrow = re.search(r'<svg class="narrow"[^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"', size_html)
    assert wide
    assert narrow
    assert float(narrow.group(1)) < 0.6 * float(wide.group(1))
    assert float(narrow.group(2)) > float(narrow.group(1))  # taller than wide on a phone
    assert "figure.chart svg.narrow { display: none;" in size_html
    assert re.search(r"@media screen and \(max-width: 600px\) \{\s*figure.chart svg.wide "
                     r"\{ display: none; \}", size_html)


@pytest.mark.parametrize("field", ["reads_per_write", "duration_s", "warmup_s", "rows", "mode"])
def test_a_replay_result_with_a_null_figure_still_renders(replay_result: dict[str, Any],
                                                          field: str) -> None:
    """A stored replay result whose figure is null shows "-" (or the default) instead of
    failing with "cannot read this replay result: TypeError"."""
    text = page_text(render_report({**replay_result, field: None}))
    assert "Measured per step" in text


def test_a_result_saved_before_loads_were_checked_labels_its_analytic_tile(
        size_result: dict[str, Any]) -> None:
    """An older result checked only the headroom load: that tile is its event-simulation p99,
    the target tile the analytic p99, said so."""
    rec = size_result["recommendation"]
    verified = {role: {"des_p99_ms_at_headroom": v["des_p99_ms_at_headroom"],
                       "des_requests": v["des_requests"]} for role, v in rec["verified"].items()}
    old = {**size_result, "recommendation": {**rec, "verified": verified}}
    text = page_text(render_report(old))
    role, worst = max(verified.items(), key=lambda kv: kv[1]["des_p99_ms_at_headroom"])
    assert (f"p99 with headroom\n{fmt_value(worst['des_p99_ms_at_headroom'], ' ms')}\n"
            f"event simulation, {role}\n") in text
    assert f"p99 at target load\n{fmt_value(rec['p99_ms'], ' ms')}\nanalytic (not verified)\n" \
        in text
