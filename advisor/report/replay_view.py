"""What the replay report shows: measured TPS and latency per step, and, when a simulation of
the same workload is at hand, the simulated curves overlaid with the error at each step."""

from itertools import pairwise
from typing import Any

from markupsafe import Markup

from advisor.report.charts import PALETTE, LineChart, Series, line_chart, responsive
from advisor.report.common import fmt_ms
from workloads.results import MysqlSimResult, load_simulate_result


def _interpolate(xs: list[float], ys: list[float | None], x: float) -> float | None:
    pts = sorted((a, b) for a, b in zip(xs, ys, strict=True) if b is not None)
    if not pts or x < pts[0][0] or x > pts[-1][0]:
        return None
    for (x0, y0), (x1, y1) in pairwise(pts):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return pts[0][1] if pts[0][0] == x else None


def _g(value: Any, default: float | None = None) -> str:
    """A number of a stored result as given; a missing or null one is `default` (or "-")."""
    value = default if value is None else value
    return "-" if value is None else f"{value:g}"


def simulated_of(result: dict[str, Any],
                 compare: dict[str, Any] | None) -> MysqlSimResult | None:
    """The simulation to overlay: given explicitly, or embedded in the replay result."""
    sim = compare or result.get("simulated")
    if sim and sim.get("kind") == "simulate" and sim.get("workload") == "mysql":
        typed = load_simulate_result(sim)
        return typed if isinstance(typed, MysqlSimResult) else None
    return None


def replay_context(result: dict[str, Any], compare: dict[str, Any] | None) -> dict[str, Any]:
    levels = [lv for lv in result.get("levels", []) if lv.get("transactions")]
    open_loop = result.get("mode") == "open-loop"
    rows = []
    for lv in result.get("levels", []):
        lat = lv["latency_ms"]
        rows.append({"threads": lv["threads"], "offered": "-" if lv.get("offered_tps") is None
                     else f"{lv['offered_tps']:,.0f}",
                     "achieved": f"{lv['achieved_tps']:,.0f}",
                     "p50": fmt_ms(lat["transaction"]["p50"]),
                     "p99": fmt_ms(lat["transaction"]["p99"]),
                     "read_p99": fmt_ms(lat["read"]["p99"]),
                     "write_p99": fmt_ms(lat["write"]["p99"]), "errors": lv.get("errors", 0),
                     "lag": "-" if lv.get("replica_lag_s") is None
                     else f"{lv['replica_lag_s']:.3f} s",
                     "failed": lv.get("failed", False), "error": lv.get("error")})
    sim = simulated_of(result, compare)
    charts: list[Markup] = []
    errors: list[dict[str, str]] = []
    if levels:
        x_meas = [lv["achieved_tps"] for lv in levels]
        tx = [lv["latency_ms"]["transaction"] for lv in levels]
        series = [Series(label="measured · p99", x=x_meas, y=[t["p99"] for t in tx],
                         colour=PALETTE[0]),
                  Series(label="measured · p50", x=x_meas, y=[t["p50"] for t in tx],
                         colour=PALETTE[0], dashed=True)]
        if sim is not None:
            xs = [lv.offered_tps for lv in sim.levels]
            st = [lv.latency_ms.transaction for lv in sim.levels]
            series += [Series(label="simulated · p99", x=xs, y=[t.p99 for t in st],
                              colour=PALETTE[1]),
                       Series(label="simulated · p50", x=xs, y=[t.p50 for t in st],
                              colour=PALETTE[1], dashed=True)]
            for lv, t in zip(levels, tx, strict=True):
                for pct in ("p50", "p99"):
                    model = _interpolate(xs, [getattr(s, pct) for s in st], lv["achieved_tps"])
                    measured = t[pct]
                    errors.append({
                        "load": f"{lv['achieved_tps']:,.0f} tps", "pct": pct,
                        "measured": fmt_ms(measured), "simulated": fmt_ms(model),
                        "error": "outside the simulated range" if model is None or not measured
                        else f"{100 * (model - measured) / measured:+.0f} %"})
        title = "Latency vs throughput" + (": measured and simulated" if sim else "")
        charts.append(responsive(line_chart, LineChart(
            title=title, xlabel="transactions/s", ylabel="latency (ms)", series=series,
            logy=True), "latency"))
        xname = "offered transactions/s" if open_loop else "client threads"
        xt = [(lv["offered_tps"] or 0.0) if open_loop else lv["threads"] for lv in levels]
        charts.append(responsive(line_chart, LineChart(
            title="Throughput per step", xlabel=xname, ylabel="achieved transactions/s",
            series=[Series(label="achieved", x=xt, y=x_meas)]), "tps"))
    target = result.get("target", {})
    return {
        "kind": "replay", "title": f"Replay report — {target.get('driver', 'database')} "
        f"{result.get('mode', '')}", "target": target, "rows": rows, "curves": charts,
        "errors": errors, "simulated": sim is not None,
        "simulated_what": (f"{sim.deployment.master} ({', '.join(sim.engine)})"
                           if sim else None),
        "facts": [("mode", result.get("mode") or "-"),
                  ("reads per write", _g(result.get("reads_per_write"))),
                  ("duration per step", f"{_g(result.get('duration_s'))} s "
                   f"(+ {_g(result.get('warmup_s'))} s warm-up)"),
                  ("rows", f"{result.get('rows') or 0:,}"), ("seed", str(result.get("seed"))),
                  ("complete", "yes" if result.get("complete") else "no")],
        "error": result.get("error"), "io_profile": result.get("io_profile"),
        "command": "advisor replay --reads {} --ramp {} --duration {}".format(
            _g(result.get("reads_per_write"), 3.25),
            ",".join(str(lv["threads"]) for lv in result.get("levels", [])) or "1",
            _g(result.get("duration_s"), 10)),
        "seed": result.get("seed"),
    }
