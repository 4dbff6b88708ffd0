"""Latency-vs-load curves of a sizing's deployments, for the report: computed here, in the core,
by the adapter that asks for a report (the report only draws them).

MySQL: transaction p50/p99 against total TPS on the analytic engine over the peak window, for
the recommendation and up to three alternatives. Aerospike: ACT's three threshold percentages
against the per-node load, in the event simulation.
"""

from dataclasses import dataclass

from advisor.catalog.model import Catalog
from advisor.layout import resolve
from recommend.result import AerospikeSizeResult, MysqlDeployment, MysqlSizeResult, SizeResult
from workloads.results import ActLevel, MysqlLevel

CURVE_POINTS = 16
MAX_DEPLOYMENTS = 4
SATURATED_MS = 60_000.0
ACT_FRACTIONS = (0.25, 0.5, 0.75, 1.0, 1.6, 2.0, 2.5)
ACT_SECONDS = 20.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Curve:
    label: str  # "recommended", "alternative 1", or an ACT threshold
    y: dict[str, tuple[float | None, ...]]  # series name (p50, p99, gt_1ms_pct...) -> values


@dataclass(frozen=True, slots=True, kw_only=True)
class SizeCurves:
    x: tuple[float, ...]  # offered load: total tps (mysql) or client reads/s per node (ACT)
    curves: tuple[Curve, ...]
    beyond: tuple[str, ...] = ()  # why the recommendation fails past its knee
    timeline: MysqlLevel | ActLevel | None = None  # a level with its timeline at the target load


def size_curves(result: SizeResult, catalog: Catalog) -> SizeCurves:
    if isinstance(result, MysqlSizeResult):
        return _mysql(result, catalog)
    return _act(result, catalog)


def _mysql(result: MysqlSizeResult, catalog: Catalog) -> SizeCurves:
    from workloads.mysql_run import Deployment, simulate_mysql

    req, rec = result.request, result.recommendation
    target = float(result.slo["target_tps"])
    deps: list[tuple[str, MysqlDeployment]] = [("recommended", rec)] + [
        (f"alternative {i + 1}", a) for i, a in enumerate(result.alternatives)]
    deps = deps[:MAX_DEPLOYMENTS]
    top = max([target * 1.5] + [d.max_tps_at_slo * 1.3 for _, d in deps])
    knee = rec.max_tps_at_slo
    grid = [round(top * (i + 1) / CURVE_POINTS, 1) for i in range(CURVE_POINTS)]
    loads = sorted({*grid, target, float(knee), round(knee * 1.01, 1)})
    curves: list[Curve] = []
    beyond: tuple[str, ...] = ()
    timeline = None
    # the measured I/O profile the sizing used, if any (the curves are of what it sized)
    measured = result.measured_io.txn_io() if result.measured_io is not None else None
    for n, (name, dep) in enumerate(deps):
        replica = resolve(dep.replicas[0], catalog) if dep.replicas else None
        params = req.params(replicas=len(dep.replicas), tps=req.tps)
        d = Deployment(master=resolve(dep.master, catalog), replica=replica)
        sim = simulate_mysql(d, catalog, params, tps_levels=loads, engine="analytic",
                             duration_s=req.peak_hours * 3600, warmup_s=0.0,
                             p99_ms=req.p99_ms, seed=result.seed, measured=measured)
        tx = [lv.latency_ms.transaction for lv in sim.levels]
        curves.append(Curve(label=name, y={"p99": tuple(t.p99 for t in tx),
                                           "p50": tuple(t.p50 for t in tx)}))
        if n == 0:
            fail = next((lv for lv in sim.levels if not lv.meets_slo
                         and lv.offered_tps > knee), None)
            if fail is not None:
                beyond = tuple(f"at {fail.offered_tps:,.0f} tps: {_plain(why, fail)}"
                               for why in fail.reasons)
            at_target = simulate_mysql(d, catalog, params, tps_levels=[req.tps],
                                       engine="analytic", duration_s=req.peak_hours * 3600,
                                       warmup_s=0.0, p99_ms=req.p99_ms, measured=measured)
            timeline = at_target.levels[0]
    return SizeCurves(x=tuple(loads), curves=tuple(curves), beyond=beyond, timeline=timeline)


def _plain(reason: str, level: MysqlLevel) -> str:
    """A reason in words when the number has no meaning (a queue that never drains)."""
    p99 = level.latency_ms.transaction.p99
    if reason.startswith("transaction p99") and p99 is not None and p99 > SATURATED_MS:
        worst = [s.bottleneck for s in level.servers
                 if (s.latency_ms.transaction.p99 or 0) > SATURATED_MS]
        return ("saturated: the queue grows for the rest of the day, transaction p99 beyond "
                f"{SATURATED_MS / 1000:g} s" + (f" ({'; '.join(worst)})" if worst else ""))
    return reason


def _act(result: AerospikeSizeResult, catalog: Catalog) -> SizeCurves:
    from workloads.aerospike import ACT_LIMITS, ActLoad, simulate_act

    req, rec = result.request, result.recommendation
    # The result's per-node load is at the headroom load (with one node down): the curve's
    # fractions are of the target load.
    per = {k: v / (1 + req.headroom) for k, v in rec.per_node_load.items()}
    layout = resolve(rec.layout, catalog)
    fractions = sorted({*ACT_FRACTIONS, 1.0 + req.headroom})
    loads = [({"load": f}, ActLoad(reads_per_sec=per["client_reads_per_sec"] * f,
                                   writes_per_sec=per["client_writes_per_sec"] * f,
                                   record_bytes=req.record_bytes,
                                   replication_factor=req.replication_factor))
             for f in fractions]
    sim = simulate_act(layout, catalog, loads, duration_s=ACT_SECONDS, seed=result.seed)
    xs = tuple(lv.load["load"] * per["client_reads_per_sec"] for lv in sim.levels)
    curves = tuple(Curve(label=f"% of reads > {ms} ms", y={"pct": tuple(
        max(lv.act.max.over(ms), 1e-3) for lv in sim.levels)})
        for ms, _ in ACT_LIMITS)
    return SizeCurves(x=xs, curves=curves, timeline=sim.levels[min(3, len(sim.levels) - 1)])
