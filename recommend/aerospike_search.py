"""Size an Aerospike cluster: node count x layout, judged by ACT's thresholds at the headroom load.

Per node: reads/N and writes/N client operations (ACT derives the replica writes from the
replication factor), data x RF / N that must fit at half the device (defrag keeps ~50 % free).
Screened with the analytic engine (share of small reads over 1, 8, 64 ms), verified with ACT
in the event simulation.
"""

import math
from collections.abc import Callable
from typing import Any

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError, InfeasibleSlo
from advisor.layout.capacity import capacity
from advisor.layout.cost import layout_cost, monthly_usd
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.durability import layout_durability
from advisor.layout.model import Layout, resolve
from advisor.sim.analytic import IoSpec, RequestClass, build_mix, read_fraction_over
from advisor.sim.plan import compile_plan, with_write_load
from recommend.candidates import Demand, candidate_specs
from recommend.mysql_search import _over
from recommend.request import AEROSPIKE_FILL, AerospikeSizeRequest
from recommend.result import (
    ActVerdict,
    AerospikeCluster,
    AerospikeSizeResult,
    Bottleneck,
    CostSummary,
    DurabilityView,
    NodeCost,
    Rejection,
    SearchStats,
    bottleneck_text,
)
from workloads.aerospike import ACT_LIMITS, ActLoad, simulate_act

NODE_COUNTS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64)
VERIFY_SECONDS = 20.0


def _load(req: AerospikeSizeRequest, nodes: int, scale: float = 1.0) -> ActLoad:
    return ActLoad(reads_per_sec=req.reads_per_sec * scale / nodes,
                   writes_per_sec=req.writes_per_sec * scale / nodes,
                   record_bytes=req.record_bytes, replication_factor=req.replication_factor)


def _screen(layout: Layout, catalog: Catalog, load: ActLoad) -> tuple[bool, str, list[float]]:
    plan = compile_plan(layout, catalog)
    devices = layout.spec.count
    block = load.large_block_kib * 1024
    plan = with_write_load(plan, load.large_block_writes_per_sec * block / 2**20 / devices)
    rate = max(load.internal_reads_per_sec, 1e-9)
    bg = (IoSpec(op=1, size_bytes=block, count=load.large_block_writes_per_sec / rate),
          IoSpec(op=0, size_bytes=block, count=load.large_block_reads_per_sec / rate))
    mix = build_mix(plan, (RequestClass(probability=1.0, kind=0, ios=(
        IoSpec(op=0, size_bytes=load.read_bytes, count=1),)),), bg)
    over = read_fraction_over(plan, mix, rate=rate, duration_s=3600.0,
                              thresholds_s=tuple(ms / 1000 for ms, _ in ACT_LIMITS))
    fails = [f"{100 * f:.2f} % of reads over {ms} ms (limit {lim:g} %)"
             for f, (ms, lim) in zip(over, ACT_LIMITS, strict=True) if 100 * f >= lim]
    return not fails, "; ".join(fails), over


def _utilisation(layout: Layout, catalog: Catalog, load: ActLoad) -> float:
    """Share of the layout's rated capacity the node's I/O uses (small reads + large blocks)."""
    small = capacity(layout, catalog, write=False, size_kib=load.read_bytes / 1024,
                     bursting=False).iops
    big = load.large_block_kib
    wcap = capacity(layout, catalog, write=True, size_kib=big, bursting=False).iops
    rcap = capacity(layout, catalog, write=False, size_kib=big, bursting=False).iops
    return (load.internal_reads_per_sec / small + load.large_block_writes_per_sec / wcap
            + load.large_block_reads_per_sec / rcap)


def size_aerospike(req: AerospikeSizeRequest, catalog: Catalog,
                   progress: Callable[[int, float], None] | None = None) -> AerospikeSizeResult:
    stats = {"considered": 0, "pruned": 0, "screened": 0, "verified": 0}
    rf = req.replication_factor
    found: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    cheapest_node = min(i.hourly_usd for i in catalog.instance_types.values()) * 730
    best_total = math.inf
    for nodes in (n for n in NODE_COUNTS if n >= rf):
        if nodes * cheapest_node > best_total:
            break
        need_gib = req.data_gb * rf / nodes / AEROSPIKE_FILL
        load = _load(req, nodes, 1 + req.headroom)
        per_dev_ios = load.internal_reads_per_sec + 2 * load.large_block_writes_per_sec
        demand = Demand(iops=per_dev_ios, mibps=load.large_block_writes_per_sec * 0.25,
                        capacity_gib=need_gib)
        specs = {str(s): s for s in candidate_specs(catalog, demand, ebs=True, store=True,
                                                     min_vcpu=1)}
        cands = []
        for spec in specs.values():
            if spec.raid in ("raid1", "raid10"):
                continue  # Aerospike replicates across nodes, not inside one
            try:
                layout = resolve(spec, catalog)
            except AdvisorError:
                continue
            cands.append((monthly_usd(layout) * nodes, layout))
        cands.sort(key=lambda c: (round(c[0], 2), c[1].spec.count, str(c[1].spec)))
        stats["considered"] += len(cands)
        passing = 0
        for total, layout in cands:
            if total > best_total * 1.5 or passing >= 3:
                break
            if usable_capacity_gib(layout) < need_gib:
                stats["pruned"] += 1
                continue
            util = _utilisation(layout, catalog, load)
            if util > 0.9:
                stats["pruned"] += 1
                rejected.append({"nodes": nodes, "layout": str(layout.spec),
                                 "monthly_usd": round(total, 2), "pruned": True,
                                 "deployment": f"{nodes} x {layout.spec}",
                                 "reason": f"needs {_over(util)} of its rated IOPS/throughput "
                                           f"at {1 + req.headroom:.0%} load"})
                continue
            allowed = req.allow_ephemeral or not layout.ephemeral
            stats["screened"] += 1
            ok, why, _ = _screen(layout, catalog, load)
            entry = {"nodes": nodes, "layout": str(layout.spec), "monthly_usd": round(total, 2),
                     "deployment": f"{nodes} x {layout.spec}", "ephemeral": layout.ephemeral}
            if not ok:
                rejected.append({**entry, "reason": f"at {1 + req.headroom:.0%} load: {why}"})
                continue
            if not allowed:
                entry["note"] = "instance store: needs --allow-ephemeral"
                found.append({**entry, "eligible": False, "layout_obj": layout, "load": load})
                continue
            stats["verified"] += 1
            act = simulate_act(layout, catalog, [({"x_load": 1 + req.headroom}, load)],
                               duration_s=VERIFY_SECONDS, seed=req.seed)
            level = act.levels[0]
            if not level.act.passed:
                fails = [f for row in level.act.slices for f in row.fails][:2]
                rejected.append({**entry, "reason": "ACT in the event simulation: "
                                 + "; ".join(fails)})
                continue
            found.append({**entry, "eligible": True, "layout_obj": layout, "load": load,
                          "act": level.act})
            passing += 1
            best_total = min(best_total, total)
        if progress:
            progress(nodes, 1.0)
    eligible = sorted((f for f in found if f["eligible"]), key=lambda f: f["monthly_usd"])
    if not eligible:
        closest = sorted(rejected, key=lambda r: r["monthly_usd"])[:5]
        raise InfeasibleSlo("; ".join(f"{r['deployment']} (${r['monthly_usd']:,.2f}/month): "
                                      f"{r['reason']}" for r in closest) or "no candidate")
    best = eligible[0]
    rec = _cluster(best, req)
    alts = [_cluster(f, req, why="next cheapest") for f in eligible[1:3]]
    store = sorted((f for f in found if not f["eligible"]), key=lambda f: f["monthly_usd"])
    if store and store[0]["monthly_usd"] < best["monthly_usd"]:
        alts.append(_cluster(store[0], req, why="cheaper with instance store (ephemeral: allow "
                             "with --allow-ephemeral; RF >= 2 keeps a copy elsewhere)"))
    cheaper = sorted((r for r in rejected if r["monthly_usd"] < best["monthly_usd"]),
                     key=lambda r: (r.get("pruned", False), r["monthly_usd"]))
    return AerospikeSizeResult(
        request=req, slo=req.slo_json(), recommendation=rec, alternatives=tuple(alts),
        rejected=tuple(Rejection(deployment=r["deployment"], monthly_usd=r["monthly_usd"],
                                 stage="screened", reason=r["reason"]) for r in cheaper[:12]),
        rejected_total=len(cheaper), search=SearchStats(**stats), seed=req.seed,
        model_version=MODEL_VERSION, advisor_version=__version__,
        catalog_version=catalog.catalog_version)


ACT_BOTTLENECK = Bottleneck(role="node", limit="ACT thresholds", utilisation=None,
                            where="at the headroom load (small-read latency)")


def _cluster(f: dict[str, Any], req: AerospikeSizeRequest,
             why: str | None = None) -> AerospikeCluster:
    layout: Layout = f["layout_obj"]
    load: ActLoad = f["load"]
    nodes = f["nodes"]
    dur = layout_durability(layout)
    act = f.get("act")
    verdict = None if act is None else ActVerdict(
        text=f"passes ACT at {1 + req.headroom:.0%} of the load (worst slice "
             f"{act.max.gt_1ms_pct:.2f} % > 1 ms, {act.max.gt_8ms_pct:.2f} % > 8 ms, "
             f"{act.max.gt_64ms_pct:.3f} % > 64 ms)",
        slices=act.slices, max=act.max)
    return AerospikeCluster(
        why=why,
        deployment=f"{nodes} nodes x {layout.spec} (replication factor "
                   f"{req.replication_factor})",
        nodes=nodes, layout=str(layout.spec), monthly_usd=f["monthly_usd"],
        cost=NodeCost(node_each=CostSummary.of(layout_cost(layout))),
        per_node_load=load.derivation() | {"client_reads_per_sec": load.reads_per_sec,
                                           "client_writes_per_sec": load.writes_per_sec},
        bottleneck=bottleneck_text([ACT_BOTTLENECK]), bottlenecks=(ACT_BOTTLENECK,),
        durability=DurabilityView(
            ephemeral=layout.ephemeral,
            annual_loss_probability={"node": dur.annual_loss_probability},
            notes=(*dur.assumptions[:2], f"replication factor {req.replication_factor}: each "
                   f"record lives on {req.replication_factor} nodes")),
        act=verdict)
