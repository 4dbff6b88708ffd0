"""What the sizing report shows, computed from a `size` result (and the catalog for the curves).

The latency-vs-load curves are not in the result: they are recomputed here with the analytic
engine on the recommended (and alternative) deployments, a few dozen milliseconds each. MySQL
curves plot transaction p50/p99 against total TPS; Aerospike curves plot ACT's three threshold
percentages against the per-node load.
"""

from itertools import pairwise
from typing import Any

from markupsafe import Markup

from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError
from advisor.layout import resolve
from advisor.report.charts import PALETTE, LineChart, Mark, Series, line_chart
from advisor.report.commands import size_command
from advisor.report.common import cost_table, fmt_usd, fmt_value, timeline_chart

CURVE_POINTS = 16
MAX_DEPLOYMENTS_ON_CHART = 4
SATURATED_MS = 60_000.0


def _mysql_curves(result: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    from workloads.mysql import MysqlParams
    from workloads.mysql_run import Deployment, simulate_mysql

    req, slo, rec = result["request"], result["slo"], result["recommendation"]
    deps = [("recommended", rec)] + [(f"alternative {i + 1}", a) for i, a in
                                     enumerate(result["alternatives"])]
    deps = deps[:MAX_DEPLOYMENTS_ON_CHART]
    top = max([slo["target_tps"] * 1.5] + [d.get("max_tps_at_slo", 0) * 1.3 for _, d in deps])
    knee = rec.get("max_tps_at_slo")
    grid = [round(top * (i + 1) / CURVE_POINTS, 1) for i in range(CURVE_POINTS)]
    extra = [slo["target_tps"], float(knee), round(knee * 1.01, 1)] if knee else \
        [slo["target_tps"]]
    loads = sorted(set(grid + extra))
    series: list[Series] = []
    beyond: list[str] = []
    timeline: dict[str, Any] | None = None
    for n, (name, dep) in enumerate(deps):
        master = resolve(dep["master"], catalog)
        replicas = dep.get("replicas") or []
        replica = resolve(replicas[0], catalog) if replicas else None
        params = MysqlParams(tps=req["tps"], reads_per_write=req["reads"],
                             replicas=len(replicas), data_gb=req["data_gb"])
        d = Deployment(master=master, replica=replica)
        sim = simulate_mysql(d, catalog, params, tps_levels=loads, engine="analytic",
                             duration_s=req["peak_hours"] * 3600, warmup_s=0.0,
                             p99_ms=req["p99_ms"], seed=result.get("seed", 1))
        colour = PALETTE[n % len(PALETTE)]
        tx = [lv["latency_ms"]["transaction"] for lv in sim["levels"]]
        label = name if name == "recommended" else f"{name}"
        series.append(Series(label=f"{label} · p99", x=loads, y=[t["p99"] for t in tx],
                             colour=colour, emphasis=n == 0, marker="o" if n == 0 else None))
        series.append(Series(label=f"{label} · p50", x=loads, y=[t["p50"] for t in tx],
                             colour=colour, dashed=True, marker=None, emphasis=n == 0))
        if n == 0:
            fail = next((lv for lv in sim["levels"] if not lv["meets_slo"]
                         and (knee is None or lv["offered_tps"] > knee)), None)
            if fail is not None:
                beyond = [f"at {fail['offered_tps']:,.0f} tps: {_plain(why, fail)}"
                          for why in fail["reasons"]]
            at_target = simulate_mysql(d, catalog, params, tps_levels=[req["tps"]],
                                       engine="analytic", duration_s=req["peak_hours"] * 3600,
                                       warmup_s=0.0, p99_ms=req["p99_ms"])
            timeline = at_target["levels"][0]
    p99_at_knee = _interpolate(loads, series[0].y, knee) if knee else None
    marks = [Mark(label=f"SLO p99 ≤ {req['p99_ms']:g} ms", y=req["p99_ms"]),
             Mark(label=f"target {slo['target_tps']:,.0f} tps (with headroom)",
                  x=slo["target_tps"], colour="#6b7280", style=":")]
    if knee and p99_at_knee is not None:
        marks.append(Mark(label=f"knee {knee:,.0f} tps (recommended)", x=knee, y=p99_at_knee,
                          colour="#111827"))
    ymax = req["p99_ms"] * 3
    chart = LineChart(title="Transaction latency vs load", xlabel="offered load (transactions/s)",
                      ylabel="latency (ms)", series=series, marks=marks, ymax=ymax,
                      shade_from=knee, shade_label="beyond the recommended knee")
    return {"svg": Markup(line_chart(chart, "curve")),
            "caption": (f"Analytic engine, {len(loads)} loads from {loads[0]:,.0f} to "
                        f"{loads[-1]:,.0f} tps; p99 solid, p50 dashed; values above {ymax:g} ms "
                        "are cut off. The knee is the sizing search's (event simulation "
                        "confirms it), so it can sit below where the p99 line crosses the SLO "
                        "when another limit (burst credits, replica apply rate, CPU) binds first."),
            "beyond": beyond, "timeline": timeline}


def _plain(reason: str, level: dict[str, Any]) -> str:
    """A reason in words when the number has no meaning (a queue that never drains)."""
    p99 = level["latency_ms"]["transaction"]["p99"]
    if reason.startswith("transaction p99") and p99 is not None and p99 > SATURATED_MS:
        worst = [s["bottleneck"] for s in level["servers"]
                 if (s["latency_ms"]["transaction"]["p99"] or 0) > SATURATED_MS]
        return ("saturated: the queue grows for the rest of the day, transaction p99 beyond "
                f"{SATURATED_MS / 1000:g} s" + (f" ({'; '.join(worst)})" if worst else ""))
    return reason


def _interpolate(xs: list[float], ys: Any, x: float) -> float | None:
    pts = [(a, b) for a, b in zip(xs, ys, strict=True) if b is not None]
    for (x0, y0), (x1, y1) in pairwise(pts):
        if x0 <= x <= x1:
            return float(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return None


def _act_curves(result: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    from workloads.aerospike import ACT_LIMITS, ActLoad, simulate_act

    req, rec = result["request"], result["recommendation"]
    per = rec["per_node_load"]
    layout = resolve(rec["layout"], catalog)
    fractions = (0.25, 0.5, 0.75, 1.0, 1.0 + req["headroom"], 1.6, 2.0, 2.5)
    loads = [({"load": f}, ActLoad(reads_per_sec=per["client_reads_per_sec"] * f,
                                   writes_per_sec=per["client_writes_per_sec"] * f,
                                   record_bytes=req["record_bytes"],
                                   replication_factor=req["replication_factor"]))
             for f in sorted(set(fractions))]
    sim = simulate_act(layout, catalog, loads, duration_s=20.0, seed=result.get("seed", 1))
    xs = [lv["load"]["load"] * per["client_reads_per_sec"] for lv in sim["levels"]]
    series = [Series(label=f"% of reads > {ms} ms", x=xs,
                     y=[max(lv["act"]["max"][f"gt_{ms}ms_pct"], 1e-3) for lv in sim["levels"]],
                     colour=PALETTE[i]) for i, (ms, _) in enumerate(ACT_LIMITS)]
    marks = [Mark(label=f"limit {lim:g} % > {ms} ms", y=lim, colour=PALETTE[i], style=":")
             for i, (ms, lim) in enumerate(ACT_LIMITS)]
    marks.append(Mark(label="per-node load at target", x=per["client_reads_per_sec"],
                      colour="#6b7280", style="--"))
    chart = LineChart(title="ACT thresholds vs load, one node (worst slice)",
                      xlabel="client reads/s per node (writes scale with them)",
                      ylabel="% of reads over threshold", series=series,
                      marks=marks, logy=True)
    return {"svg": Markup(line_chart(chart, "curve")),
            "caption": "Event simulation, 20 s per load, worst of ACT's time slices; a load "
                       "passes while every line stays under its dotted limit (log scale).",
            "beyond": [], "timeline": sim["levels"][min(3, len(sim["levels"]) - 1)]}


def _deployment_row(name: str, d: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "deployment": d["deployment"], "monthly_usd": fmt_usd(d["monthly_usd"]),
            "max_tps": fmt_value(d.get("max_tps_at_slo")),
            "p99": fmt_value(d.get("p99_ms"), " ms"),
            "headroom": fmt_value(d.get("headroom_pct"), " %"),
            "bottleneck": d.get("bottleneck", ""),
            "ephemeral": d.get("durability", {}).get("ephemeral", d.get("ephemeral", False))}


def _request_rows(result: dict[str, Any]) -> list[tuple[str, str]]:
    q = result["request"]
    if result["workload"] == "aerospike":
        rows = [("workload", "Aerospike (ACT model)"),
                ("client reads/s", f"{q['reads_per_sec']:,.0f}"),
                ("client writes/s", f"{q['writes_per_sec']:,.0f}"),
                ("record size", f"{q['record_bytes']:,} B"),
                ("replication factor", str(q["replication_factor"]))]
    else:
        rows = [("workload", "MySQL master + replicas (InnoDB)"),
                ("transactions/s", f"{q['tps']:,.0f}"),
                ("reads per write", f"{q['reads']:g} ({1 / (1 + q['reads']):.1%} writes)"),
                ("replicas", "auto" if q["replicas"] is None else str(q["replicas"]))]
    rows += [("data", f"{q['data_gb']:,g} GiB"), ("headroom", f"{q['headroom']:.0%}"),
             ("peak hours a day", f"{q['peak_hours']:g}"),
             ("instance store", "allowed" if q["allow_ephemeral"] else "not allowed"),
             ("budget", fmt_usd(q["max_monthly_usd"]) + "/month" if q["max_monthly_usd"]
              else "none")]
    return rows


def _slo_rows(result: dict[str, Any]) -> list[tuple[str, str]]:
    slo = result["slo"]
    if "act" in slo:
        a = slo["act"]
        return [("ACT thresholds", f"< {a['gt_1ms_pct']:g} % of reads > 1 ms, < "
                 f"{a['gt_8ms_pct']:g} % > 8 ms, < {a['gt_64ms_pct']:g} % > 64 ms"),
                ("at load", f"{1 + slo['headroom']:.0%} of the request")]
    return [("latency", f"transaction p99 ≤ {slo['p99_ms']:g} ms"),
            ("at load", f"{slo['target_tps']:,.0f} tps ({slo['tps']:,.0f} + "
                        f"{slo['headroom']:.0%} headroom)"),
            ("durability", slo["durability"])]


def _costs(rec: dict[str, Any]) -> list[dict[str, Any]]:
    c = rec.get("cost", {})
    out = []
    if "master" in c:
        out.append(cost_table(f"master {rec['master']}", c["master"]))
        if c.get("replica_each") and rec.get("replicas"):
            n = len(rec["replicas"])
            out.append(cost_table(f"each replica ({n} x) {rec['replicas'][0]}", c["replica_each"]))
    if "node_each" in c:
        out.append(cost_table(f"each node ({rec['nodes']} x) {rec['layout']}", c["node_each"]))
    return out


def size_context(result: dict[str, Any], catalog: Catalog | None) -> dict[str, Any]:
    """Everything the size template shows; curves need the catalog (skipped without it)."""
    rec = result["recommendation"]
    mysql = result["workload"] == "mysql"
    q = result["request"]
    title = (f"MySQL {q['tps']:,.0f} tps at {q['reads']:g} reads/write" if mysql else
             f"Aerospike {q['reads_per_sec']:,.0f} reads/s + {q['writes_per_sec']:,.0f} writes/s")
    curves: dict[str, Any] | None = None
    curve_error = None
    if catalog is not None:
        try:
            curves = (_mysql_curves if mysql else _act_curves)(result, catalog)
        except AdvisorError as exc:  # a layout this catalog no longer knows
            curve_error = f"curves not drawn: {exc}"
    burst = None
    if curves and curves.get("timeline"):
        burst = timeline_chart(curves["timeline"], "burst", at=(
            f"{q['tps']:,.0f} tps" if mysql else "the requested load"),
            hours=q["peak_hours"] if mysql else None)
    summary = (f"{rec['deployment']} for {fmt_usd(rec['monthly_usd'])}/month")
    facts = [("monthly cost", fmt_usd(rec["monthly_usd"]))]
    if mysql:
        facts += [("p99 at target load", fmt_value(rec.get("p99_ms"), " ms")),
                  ("p99 with headroom", fmt_value(rec.get("p99_ms_at_headroom"), " ms")),
                  ("knee (max tps at SLO)", fmt_value(rec.get("max_tps_at_slo"))),
                  ("headroom", fmt_value(rec.get("headroom_pct"), " %")),
                  ("usable capacity", fmt_value(rec.get("capacity_gib"), " GiB"))]
    else:
        facts += [("nodes", str(rec["nodes"])), ("ACT", rec["act"]["text"])]
    verified = [(role, v) for role, v in rec.get("verified", {}).items()]
    return {
        "kind": "size", "title": f"Sizing report — {title}", "summary": summary,
        "request_rows": _request_rows(result), "slo_rows": _slo_rows(result),
        "rec": rec, "facts": facts, "knee_engine": rec.get("knee_engine"),
        "costs": _costs(rec), "verified": verified,
        "bottlenecks": [b.strip() for b in rec.get("bottleneck", "").split(";") if b.strip()],
        "alternatives": [_deployment_row(a.get("why", ""), a) for a in result["alternatives"]],
        "rejected": result["rejected"], "rejected_total": result.get("rejected_total", 0),
        "curves": curves, "curve_error": curve_error, "burst": burst,
        "durability": rec.get("durability", {}), "search": result.get("search", {}),
        "command": size_command(q, result.get("seed")), "seed": result.get("seed"),
        "act_slices": rec.get("act", {}).get("slices", []) if not mysql else [],
        "assumptions": _assumptions(result),
    }


def _assumptions(result: dict[str, Any]) -> list[str]:
    q = result["request"]
    common = [f"Prices: on-demand {result.get('catalog_version', '?')} catalog (us-east-1 unless "
              "a user catalog says otherwise), 730 hours a month; no reserved or savings-plan "
              "discounts, no data transfer or snapshot costs.",
              f"Load is sustained {q['peak_hours']:g} h a day at the rate asked for: burst "
              "credits only count if they last that long.",
              "The model is only as good as its calibration: check it against a replay or fio "
              "run on the recommended layout before committing (advisor replay / calibrate)."]
    if result["workload"] == "mysql":
        return [f"Data {q['data_gb']:g} GiB, every layout sized for data + 20 % (logs, temp "
                "space, growth); InnoDB buffer pool 75 % of the instance's RAM.",
                "I/O per transaction from the model's InnoDB defaults (sysbench "
                "oltp_read_write-like rows, redo + binlog fsync per commit with group commit, "
                "doublewrite page flushing) unless a measured --io-profile was given.",
                "Writes go to the master, reads are spread evenly over the replicas; every "
                "replica applies every write on one SQL thread.", *common]
    return ["ACT's derivation: records rounded to 16 B, reads to 512 B, 128 KiB large-block "
            "writes with defrag amplification 2.0 (defrag-lwm-pct 50) and defrag reads at the "
            "same rate; devices kept at most 50 % full.",
            "Client load spread evenly over the nodes; replication writes included.", *common]
