"""What the sizing report shows, read from a typed `size` result and the curves the core
computed for it (`recommend.curves.size_curves`); nothing here runs a model.

MySQL curves plot transaction p50/p99 against total TPS; Aerospike curves plot ACT's three
threshold percentages against the per-node load.
"""

from itertools import pairwise
from typing import Any

from advisor.catalog.pricing import unpriced_text
from advisor.report.charts import PALETTE, LineChart, Mark, Series, line_chart, responsive
from advisor.report.commands import measured_note, size_command
from advisor.report.common import cost_table, fmt_usd, fmt_value, timeline_chart
from recommend.curves import SizeCurves
from recommend.request import MysqlSizeRequest
from recommend.result import (
    AerospikeCluster,
    AerospikeSizeResult,
    DesCheck,
    MysqlDeployment,
    MysqlSizeResult,
    SizeResult,
    Variability,
    variability_summary,
)
from workloads.aerospike import ACT_LIMITS
from workloads.mysql import MeasuredIo


def _mysql_chart(result: MysqlSizeResult, curves: SizeCurves) -> dict[str, Any]:
    req, slo, rec = result.request, result.slo, result.recommendation
    knee = rec.max_tps_at_slo
    loads = list(curves.x)
    series: list[Series] = []
    for n, c in enumerate(curves.curves):  # a colour and a marker shape per deployment
        series.append(Series(label=f"{c.label} · p99", x=loads, y=list(c.y["p99"]),
                             emphasis=n == 0))
        series.append(Series(label=f"{c.label} · p50", x=loads, y=list(c.y["p50"]),
                             dashed=True, emphasis=n == 0))
    p99_at_knee = _interpolate(loads, series[0].y, knee) if knee else None
    marks = [Mark(label=f"SLO p99 ≤ {req.p99_ms:g} ms", y=req.p99_ms),
             Mark(label=f"target {slo['target_tps']:,.0f} tps (with headroom)",
                  x=slo["target_tps"], colour="#6b7280", style=":")]
    if knee and p99_at_knee is not None:
        marks.append(Mark(label=f"knee {knee:,.0f} tps (recommended)", x=knee, y=p99_at_knee,
                          colour="#111827"))
    ymax = req.p99_ms * 3
    chart = LineChart(title="Transaction latency vs load", xlabel="offered load (transactions/s)",
                      ylabel="latency (ms)", series=series, marks=marks, ymax=ymax,
                      shade_from=knee, shade_label="beyond the recommended knee")
    return {"svg": responsive(line_chart, chart, "curve"),
            "caption": (f"Analytic engine, {len(loads)} loads from {loads[0]:,.0f} to "
                        f"{loads[-1]:,.0f} tps; one colour and marker shape per deployment "
                        "(the recommendation widest, underneath), p99 solid, p50 dashed with "
                        f"open markers; values above {ymax:g} ms "
                        "are cut off. The knee is the sizing search's (event simulation "
                        "confirms it), so it can sit below where the p99 line crosses the SLO "
                        "when another limit (burst credits, replica apply rate, CPU) binds first."),
            "beyond": list(curves.beyond), "timeline": curves.timeline}


def _interpolate(xs: list[float], ys: Any, x: float) -> float | None:
    pts = [(a, b) for a, b in zip(xs, ys, strict=True) if b is not None]
    for (x0, y0), (x1, y1) in pairwise(pts):
        if x0 <= x <= x1:
            return float(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return None


def _act_chart(result: AerospikeSizeResult, curves: SizeCurves) -> dict[str, Any]:
    per = result.recommendation.per_node_load
    xs = list(curves.x)
    series = [Series(label=c.label, x=xs, y=list(c.y["pct"]), colour=PALETTE[i])
              for i, c in enumerate(curves.curves)]
    marks = [Mark(label=f"limit {lim:g} % > {ms} ms", y=lim, colour=PALETTE[i], style=":")
             for i, (ms, lim) in enumerate(ACT_LIMITS)]
    marks.append(Mark(label="per-node load at target (one node down)",
                      x=per["client_reads_per_sec"] / (1 + result.request.headroom),
                      colour="#6b7280", style="--"))
    chart = LineChart(title="ACT thresholds vs load, one node (worst slice)",
                      xlabel="client reads/s per node (writes scale with them)",
                      ylabel="% of reads over threshold", series=series,
                      marks=marks, logy=True)
    return {"svg": responsive(line_chart, chart, "curve"),
            "caption": "Event simulation, 20 s per load, worst of ACT's time slices; a load "
                       "passes while every line stays under its dotted limit (log scale).",
            "beyond": [], "timeline": curves.timeline}


def _deployment_row(d: MysqlDeployment | AerospikeCluster) -> dict[str, Any]:
    row = {"name": d.why or "", "deployment": d.deployment, "monthly_usd": fmt_usd(d.monthly_usd),
           "max_tps": "-", "p99": "-", "headroom": "-", "bottleneck": d.bottleneck,
           "ephemeral": d.durability.ephemeral, "des": "-"}
    if isinstance(d, MysqlDeployment):
        row.update(max_tps=fmt_value(d.max_tps_at_slo), p99=fmt_value(d.p99_ms, " ms"),
                   headroom=fmt_value(d.headroom_pct, " %"),
                   des="; ".join(f"{role} {r['p99']} [{r['ci']}]" for role, v in
                                 d.verified.items() for r in _des_rows(v)
                                 if r["load"] == "headroom") or "not checked")
    return row


def _des_rows(v: DesCheck) -> list[dict[str, str]]:
    """A server's event-simulation checks, one row per load (older results: the headroom load
    only, without an interval)."""
    if not v.loads:
        return [{"load": "headroom", "tps": "-", "p99": fmt_value(v.des_p99_ms_at_headroom, " ms"),
                 "ci": "-", "requests": f"{v.des_requests:,}", "verdict": "passed"}]
    return [{"load": x.load, "tps": fmt_value(x.tps), "p99": fmt_value(x.p99_ms, " ms"),
             "ci": f"{x.p99_ci95_ms[0]:,.2f}-{x.p99_ci95_ms[1]:,.2f} ms",
             "requests": f"{x.requests:,}", "verdict": "passed" if x.passed else "FAILS"}
            for x in v.loads]


def _tile(label: str, value: str, note: str = "") -> dict[str, str]:
    return {"label": label, "value": value, "note": note}


def _variability_tile(v: Variability) -> dict[str, str]:
    """The p99 over weeks with the volumes' slow episodes, its note the table's wording; a
    result saved before the long-run figures gives the verified check without them."""
    if v.p99_ms_long_run is None:
        return _tile("p99 without slow episodes", fmt_value(v.p99_ms_steady, " ms"),
                     f"at headroom; with them (default) {fmt_value(v.p99_ms, ' ms')}")
    return _tile("long-run p99 (slow episodes)", fmt_value(v.p99_ms_long_run, " ms"),
                 variability_summary(v))


def _des_tiles(rec: MysqlDeployment) -> list[dict[str, str]]:
    """p99 at the target and the headroom load as the event simulation verified them: the
    slowest server's, with its 95 % interval (the figures the verified table lists). Results
    saved before the target load was checked give the analytic p99 there, labelled so."""
    tiles = []
    for load, label, analytic in (("target", "p99 at target load", rec.p99_ms),
                                  ("headroom", "p99 with headroom", rec.p99_ms_at_headroom)):
        checked = rec.verified_p99(load)
        if checked:
            role, x = checked
            lo, hi = x.p99_ci95_ms
            tiles.append(_tile(label, fmt_value(x.p99_ms, " ms"),
                               f"event simulation, {role}; 95 % interval {lo:,.2f}-{hi:,.2f} ms"))
        elif load == "headroom" and rec.verified:
            role, v = max(rec.verified.items(), key=lambda kv: kv[1].des_p99_ms_at_headroom)
            tiles.append(_tile(label, fmt_value(v.des_p99_ms_at_headroom, " ms"),
                               f"event simulation, {role}"))
        else:
            tiles.append(_tile(label, fmt_value(analytic, " ms"), "analytic (not verified)"))
    return tiles


def _request_rows(result: SizeResult) -> list[tuple[str, str]]:
    q = result.request
    if isinstance(q, MysqlSizeRequest):
        rows = [("workload", "MySQL master + replicas (InnoDB)"),
                ("transactions/s", f"{q.tps:,.0f}"),
                ("reads per write", f"{q.reads_per_write:g} "
                 f"({q.params(replicas=1, tps=q.tps).write_share:.1%} read-write)"),
                *((f"shape {i + 1}" if i else "what a transaction is", line)
                  for i, line in enumerate(getattr(result, "workload_shape", ()))),
                ("replicas", "auto" if q.replicas is None else str(q.replicas))]
    else:
        rows = [("workload", "Aerospike (ACT model)"),
                ("client reads/s", f"{q.reads_per_sec:,.0f}"),
                ("client writes/s", f"{q.writes_per_sec:,.0f}"),
                ("record size", f"{q.record_bytes:,} B"),
                ("replication factor", str(q.replication_factor))]
    rows += [("data", f"{q.data_gb:,g} GiB"), ("headroom", f"{q.headroom:.0%}"),
             ("peak hours a day", f"{q.peak_hours:g}"),
             ("instance store", "allowed" if q.allow_ephemeral else "not allowed"),
             ("budget", fmt_usd(q.max_monthly_usd) + "/month" if q.max_monthly_usd
              else "none")]
    return rows


def _slo_rows(result: SizeResult) -> list[tuple[str, str]]:
    slo = result.slo
    if "act" in slo:
        a = slo["act"]
        return [("ACT thresholds", f"< {a['gt_1ms_pct']:g} % of reads > 1 ms, < "
                 f"{a['gt_8ms_pct']:g} % > 8 ms, < {a['gt_64ms_pct']:g} % > 64 ms"),
                ("at load", f"{1 + slo['headroom']:.0%} of the request")]
    return [("latency", f"transaction p99 ≤ {slo['p99_ms']:g} ms"),
            ("at load", f"{slo['target_tps']:,.0f} tps ({slo['tps']:,.0f} + "
                        f"{slo['headroom']:.0%} headroom)"),
            ("durability", slo["durability"])]


def _costs(rec: MysqlDeployment | AerospikeCluster) -> list[dict[str, Any]]:
    from advisor.serial import to_json

    if isinstance(rec, AerospikeCluster):
        return [cost_table(f"each node ({rec.nodes} x) {rec.layout}", to_json(rec.cost.node_each))]
    out = [cost_table(f"master {rec.master}", to_json(rec.cost.master))]
    if rec.cost.replica_each is not None and rec.replicas:
        out.append(cost_table(f"each replica ({len(rec.replicas)} x) {rec.replicas[0]}",
                              to_json(rec.cost.replica_each)))
    return out


def _measured(result: SizeResult) -> MeasuredIo | None:
    return result.measured_io if isinstance(result, MysqlSizeResult) else None


def size_context(result: SizeResult, curves: SizeCurves | None,
                 curve_error: str | None = None) -> dict[str, Any]:
    """Everything the size template shows (no curves when none were computed)."""
    rec = result.recommendation
    q = result.request
    mysql = isinstance(result, MysqlSizeResult)
    if isinstance(q, MysqlSizeRequest):
        title = f"MySQL {q.tps:,.0f} tps {q.mix_text}"
    else:
        title = f"Aerospike {q.reads_per_sec:,.0f} reads/s + {q.writes_per_sec:,.0f} writes/s"
    chart: dict[str, Any] | None = None
    if curves is not None:
        chart = _mysql_chart(result, curves) if isinstance(result, MysqlSizeResult) else \
            _act_chart(result, curves)
    burst = None
    if chart and chart.get("timeline"):
        burst = timeline_chart(chart["timeline"], "burst", at=(
            f"{q.tps:,.0f} tps" if isinstance(q, MysqlSizeRequest) else "the requested load"),
            hours=q.peak_hours if mysql else None)
    facts = [_tile("monthly cost", fmt_usd(rec.monthly_usd),
                   f"instances {q.pricing}" if q.pricing != "on-demand" else "")]
    if isinstance(rec, MysqlDeployment):
        facts += [*_des_tiles(rec),
                  _tile("knee (max tps at SLO)", fmt_value(rec.max_tps_at_slo),
                        "event simulation" if "event simulation" in rec.knee_engine
                        else "analytic"),
                  _tile("headroom", fmt_value(rec.headroom_pct, " %")),
                  _tile("usable capacity", fmt_value(rec.capacity_gib, " GiB"))]
        if rec.variability is not None:
            facts.append(_variability_tile(rec.variability))
        verified = [(role, _des_rows(v)) for role, v in rec.verified.items()]
        des_method = next((v.method for v in rec.verified.values() if v.method), "")
        knee_engine: str | None = rec.knee_engine
        act_slices: list[Any] = []
    else:
        facts += [_tile("nodes", str(rec.nodes)), _tile("ACT", rec.act.text if rec.act else "-")]
        if rec.binds:
            facts.append(_tile("binds", rec.binds, "per node, one node down"))
        if rec.device_rating is not None:
            facts.append(_tile("device ACT rating", fmt_value(rec.device_rating.x, "x")
                               if rec.device_rating.x is not None else "fails 1x",
                               rec.device_rating.device))
        verified, knee_engine, des_method = [], None, ""
        act_slices = list(rec.act.slices) if rec.act else []

    return {
        "kind": "size", "title": f"Sizing report — {title}",
        "summary": f"{rec.deployment} for {fmt_usd(rec.monthly_usd)}/month",
        "request_rows": _request_rows(result), "slo_rows": _slo_rows(result),
        "rec": rec, "facts": facts, "knee_engine": knee_engine,
        "costs": _costs(rec), "verified": verified, "des_method": des_method,
        "bottlenecks": [b.strip() for b in rec.bottleneck.split(";") if b.strip()],
        "alternatives": [_deployment_row(a) for a in result.alternatives],
        "rejected": result.rejected,
        "rejected_total": result.rejected_total,
        "curves": chart, "curve_error": curve_error, "burst": burst,
        "durability": rec.durability, "search": result.search,
        "command": size_command(result.request, _measured(result)),
        "command_note": measured_note(_measured(result)), "seed": result.seed,
        "act_slices": act_slices, "assumptions": _assumptions(result),
        **_aerospike_context(result),
    }


def _aerospike_context(result: SizeResult) -> dict[str, Any]:
    """Per-node resources with one node down, the cluster rules, and each alternative's binding
    resource and device rating (empty for MySQL and for results saved before them)."""
    if not isinstance(result, AerospikeSizeResult):
        return {"node_resources": [], "node_failure": "", "cluster_rules": [],
                "alt_ratings": []}
    rec = result.recommendation
    rows = [{"resource": u.resource, "need": fmt_value(u.need), "unit": u.unit,
             "have": "no sourced figure" if u.have is None else fmt_value(u.have),
             "use": "unverified" if not u.verified else "-" if u.utilisation is None
             else f"{u.utilisation:.0%}", "basis": u.basis} for u in rec.resources]
    return {"node_resources": rows, "node_failure": rec.failure,
            "cluster_rules": list(result.cluster_rules),
            "alt_ratings": [f"{a.nodes} x {a.layout}: binds {a.binds}"
                            + (f"; {a.device_rating.text}" if a.device_rating else "")
                            for a in result.alternatives]}


def _assumptions(result: SizeResult) -> list[str]:
    q = result.request
    if q.pricing == "on-demand":
        prices = (f"Prices: on-demand {result.catalog_version} catalog (us-east-1 unless "
                  "a user catalog says otherwise), 730 hours a month; no reserved or savings-plan "
                  "discounts, no data transfer or snapshot costs.")
    else:  # the plan's rates, as the cost breakdown's notes give their sources
        prices = (f"Prices: instances {q.pricing} (All Upfront, as an effective hourly rate), EBS "
                  f"as billed on demand, {result.catalog_version} catalog (us-east-1 unless a "
                  "user catalog says otherwise), 730 hours a month; no data transfer or snapshot "
                  "costs" + (f"; {unpriced_text(result.unpriced, q.pricing)}."
                             if result.unpriced else "."))
    common = [prices,
              f"Load is sustained {q.peak_hours:g} h a day at the rate asked for: burst "
              "credits only count if they last that long.",
              "The model is only as good as its calibration: check it against a replay or fio "
              "run on the recommended layout before committing (advisor replay / calibrate)."]
    if isinstance(result, MysqlSizeResult):
        return [f"Data {q.data_gb:g} GiB, every layout sized for data + 20 % (logs, temp "
                "space, growth); InnoDB buffer pool 75 % of the instance's RAM.",
                "I/O per transaction from the model's InnoDB defaults (sysbench "
                "oltp_read_write-like rows, redo + binlog fsync per commit with group commit, "
                "doublewrite page flushing) unless a measured --io-profile was given.",
                "Writes go to the master, reads are spread evenly over the replicas; every "
                "replica applies every write on one SQL thread.", *common]
    own = list(result.assumptions) if isinstance(result, AerospikeSizeResult) else []
    return ["ACT's derivation: records rounded to 16 B, reads to 512 B, 128 KiB large-block "
            "writes with defrag amplification 2.0 (defrag-lwm-pct 50) and defrag reads at the "
            "same rate; devices kept at most 50 % full.",
            "Client load spread evenly over the nodes with one node down; replication writes "
            "included.", *own, *common]
