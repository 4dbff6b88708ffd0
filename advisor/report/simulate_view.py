"""What the simulation report shows, read from a typed `simulate` result: raw I/O patterns,
MySQL deployments and ACT runs."""

from typing import Any

from markupsafe import Markup

from advisor.report.charts import PALETTE, LineChart, Mark, Series, line_chart, responsive
from advisor.report.commands import measured_note, simulate_command
from advisor.report.common import (
    fmt_ms,
    fmt_value,
    histogram_section,
    load_label,
    timeline_chart,
)
from advisor.sim.results import Level, Load, PatternResult
from workloads.aerospike import ACT_LIMITS
from workloads.results import ActSimResult, MysqlSimResult, SimulateResult


def _x(load: Load) -> tuple[str, float]:
    """The load axis of a level: its first numeric load value."""
    for key, value in load.items():
        if isinstance(value, int | float):
            return key.replace("_", " "), float(value)
    return "level", 0.0


def _pattern_levels(result: PatternResult) -> list[dict[str, Any]]:
    rows = []
    for lv in result.levels:
        lat = lv.latency_ms
        rows.append({"load": load_label(lv.load), "read_iops": f"{lv.iops.read:,.0f}",
                     "write_iops": f"{lv.iops.write:,.0f}",
                     "mibps": f"{lv.throughput_mibps:,.1f}",
                     "read_p50": fmt_ms(lat.read.p50), "read_p99": fmt_ms(lat.read.p99),
                     "write_p50": fmt_ms(lat.write.p50), "write_p99": fmt_ms(lat.write.p99),
                     "engine": lv.engine, "bottleneck": lv.bottleneck})
    return rows


def _pattern_curves(result: PatternResult) -> list[Markup]:
    levels = result.levels
    if len(levels) < 2:
        return []
    name, _ = _x(levels[0].load)
    xs = [_x(lv.load)[1] for lv in levels]
    iops = LineChart(title="IOPS vs load", xlabel=name, ylabel="IOPS", series=[
        Series(label="read IOPS", x=xs, y=[lv.iops.read for lv in levels]),
        Series(label="write IOPS", x=xs, y=[lv.iops.write for lv in levels]),
        Series(label="total IOPS", x=xs, y=[lv.iops.total for lv in levels], dashed=True,
               colour="#374151")])
    series = []
    for n, op in enumerate(("read", "write")):
        lat = [getattr(lv.latency_ms, op) for lv in levels]
        if not any(x.p50 for x in lat):
            continue
        series += [Series(label=f"{op} · p99", x=xs, y=[x.p99 for x in lat], colour=PALETTE[n]),
                   Series(label=f"{op} · p50", x=xs, y=[x.p50 for x in lat],
                          colour=PALETTE[n], dashed=True)]
    latency = LineChart(title="Latency vs load", xlabel=name, ylabel="latency (ms)",
                        series=series, logy=True)
    return [responsive(line_chart, iops, "iops"), responsive(line_chart, latency, "latency")]


def _utilisation(level: Level) -> list[tuple[str, str]]:
    return [(k, f"{v:.0%}") for k, v in sorted(level.utilisation.items(), key=lambda kv: -kv[1])]


def _mysql(result: MysqlSimResult) -> dict[str, Any]:
    levels = result.levels
    rows, servers = [], []
    for lv in levels:
        lat = lv.latency_ms
        rows.append({"load": load_label(lv.load), "achieved": f"{lv.achieved_tps:,.0f}",
                     "p50": fmt_ms(lat.transaction.p50), "p99": fmt_ms(lat.transaction.p99),
                     "read_p99": fmt_ms(lat.read.p99), "write_p99": fmt_ms(lat.write.p99),
                     "ok": lv.meets_slo, "reasons": list(lv.reasons), "engine": lv.engine})
        for s in lv.servers:
            rep = s.replication
            servers.append({
                "load": load_label(lv.load), "role": s.role, "layout": s.layout,
                "tps": f"{s.offered_tps:,.0f}", "iops": f"{s.iops.total:,.0f}",
                "cpu": f"{s.cpu_utilisation:.0%}",
                "p99": fmt_ms(s.latency_ms.transaction.p99),
                "replication": (f"applies up to {rep.apply_capacity_tps:,.0f} writes/s"
                                + (" — falls behind" if rep.falls_behind else ""))
                if rep else "", "bottleneck": s.bottleneck})
    charts = []
    xs = [lv.offered_tps for lv in levels]
    if len(levels) > 1:
        tx = [lv.latency_ms.transaction for lv in levels]
        slo = result.slo.p99_ms
        marks = [Mark(label=f"SLO p99 ≤ {slo:g} ms", y=slo)] if slo else []
        knee = result.knee.tps
        if knee:
            marks.append(Mark(label=f"knee {knee:,.0f} tps", x=knee, colour="#111827", style=":"))
        charts.append(responsive(line_chart, LineChart(
            title="Transaction latency vs load", xlabel="offered load (transactions/s)",
            ylabel="latency (ms)", logy=True, marks=marks, series=[
                Series(label="transaction · p99", x=xs, y=[t.p99 for t in tx],
                       colour=PALETTE[0]),
                Series(label="transaction · p50", x=xs, y=[t.p50 for t in tx],
                       colour=PALETTE[0], dashed=True)]), "latency"))
        charts.append(responsive(line_chart, LineChart(
            title="Throughput vs load", xlabel="offered load (transactions/s)",
            ylabel="achieved transactions/s", series=[
                Series(label="achieved", x=xs, y=[lv.achieved_tps for lv in levels]),
                Series(label="offered", x=xs, y=xs, dashed=True, marker=None,
                       colour="#9ca3af")]), "tps"))
    last = levels[-1]
    master = last.servers[0]
    return {"mysql_rows": rows, "servers": servers, "curves": charts, "knee": result.knee.text,
            "io_profile": result.io_profile,
            "histogram": histogram_section(master, "histogram",
                                           f"Device I/O latency on the master at "
                                           f"{load_label(last.load)}"),
            "utilisation": _utilisation(master)}


def _act(result: ActSimResult) -> dict[str, Any]:
    levels = result.levels
    rows = []
    for lv in levels:
        act = lv.act
        rows.append({"load": load_label(lv.load),
                     "reads": f"{act.derivation['internal_reads_per_sec']:,.0f}",
                     "lb_writes": f"{act.derivation['large_block_writes_per_sec']:,.1f}",
                     "gt1": f"{act.max.gt_1ms_pct:.2f}", "gt8": f"{act.max.gt_8ms_pct:.2f}",
                     "gt64": f"{act.max.gt_64ms_pct:.3f}",
                     "p99": fmt_ms(lv.latency_ms.read.p99), "ok": act.passed})
    charts = []
    if len(levels) > 1:
        name, _ = _x(levels[0].load)
        xs = [_x(lv.load)[1] for lv in levels]
        charts.append(responsive(line_chart, LineChart(
            title="ACT thresholds vs load (worst slice; 0 % drawn at 0.001 %)", xlabel=name,
            logy=True, ylabel="% of reads over threshold",
            series=[Series(label=f"> {ms} ms", x=xs, colour=PALETTE[i],
                           y=[max(lv.act.max.over(ms), 1e-3) for lv in levels])
                    for i, (ms, _) in enumerate(ACT_LIMITS)],
            marks=[Mark(label=f"limit {lim:g} % > {ms} ms", y=lim, colour=PALETTE[i], style=":")
                   for i, (ms, lim) in enumerate(ACT_LIMITS)]), "act"))
    last = levels[-1]
    return {"act_rows": rows, "rating": result.rating.text, "curves": charts,
            "slices": last.act.slices, "slices_load": load_label(last.load),
            "histogram": histogram_section(last, "histogram",
                                           f"Small-read latency at {load_label(last.load)}"),
            "utilisation": _utilisation(last), "level_notes": list(last.notes)}


def simulate_context(result: SimulateResult) -> dict[str, Any]:
    """Everything the simulate template shows, for any of the three result types."""
    last = result.levels[-1]
    timeline = timeline_chart(last, "timeline", at=load_label(last.load), always=True)
    ctx: dict[str, Any] = {
        "kind": "simulate", "layout": result.layout,
        "duration": f"{result.duration_s:,g} s per level", "seed": result.seed,
        "engine": ", ".join(result.engine), "bottleneck": result.bottleneck,
        "command": simulate_command(result), "notes": [], "timeline": timeline,
        "command_note": measured_note(getattr(result, "measured_io", None)),
    }
    if isinstance(result, MysqlSimResult):
        dep = result.deployment
        reps = dep.replicas
        what = f"master {dep.master}" + (f" + {len(reps)} x replica {reps[0]}" if reps else "")
        ctx.update(_mysql(result), workload="mysql", title=f"MySQL simulation — {what}",
                   subject=what)
    elif isinstance(result, ActSimResult):
        ctx.update(_act(result), workload="aerospike", title=f"ACT simulation — {result.layout}",
                   subject=f"{result.layout} ({result.devices} device(s))")
        ctx["notes"] += [n for n in ctx.pop("level_notes") if n not in ctx["notes"]]
    else:
        p = result.pattern
        ctx.update(workload="pattern", notes=list(result.notes),
                   title=f"Simulation — {result.layout}, {p.name}",
                   subject=f"{result.layout} · {p.name}",
                   pattern=[("pattern", p.name),
                            ("block size", fmt_value(p.block_bytes // 1024, " KiB")),
                            ("reads", f"{p.read_fraction:.0%}"),
                            ("random", "yes" if p.random else "sequential"),
                            ("concurrency", fmt_value(p.concurrency)),
                            ("open-loop rate", fmt_value(p.rate_iops, " IOPS")),
                            ("ramp", f"{result.ramp.key}=" + ",".join(
                                f"{v:g}" for v in result.ramp.values)
                             if result.ramp else "none")],
                   levels=_pattern_levels(result), curves=_pattern_curves(result),
                   histogram=histogram_section(result.levels[-1], "histogram",
                                               f"I/O latency at {load_label(last.load)}"),
                   utilisation=_utilisation(result.levels[-1]))
    return ctx
