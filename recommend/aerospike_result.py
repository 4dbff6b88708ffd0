"""An Aerospike sizing's candidates as the result shows them: the cluster with its per-node
resources, what binds, the device's ACT rating and the exposure of its storage; the cluster rules;
the cheaper candidates nearest the answer."""

import dataclasses
from dataclasses import dataclass
from typing import Any

from advisor.catalog.model import Catalog
from advisor.layout.cost import layout_cost
from advisor.layout.durability import layout_durability
from advisor.layout.model import Layout
from advisor.sim.results import ActEpisodeHour, ActRow, ActTest, ActThreshold
from recommend.aerospike_device import UTIL_PRUNE, device_rating
from recommend.aerospike_node import ClusterShape, NodeDemand
from recommend.request import AerospikeSizeRequest
from recommend.result import (
    ActVerdict,
    AerospikeCluster,
    Bottleneck,
    CostSummary,
    DeviceRating,
    DurabilityView,
    NodeCost,
    Rejection,
    ResourceUse,
    bottleneck_text,
)
from workloads.aerospike import ActLoad, act_decided, act_thresholds, reads_judged

CHECKED = "with one node down at the headroom load"


@dataclass(slots=True, kw_only=True)
class Candidate:
    """One priced layout at one node count, with its per-node checks so far."""

    nodes: int
    layout: Layout
    monthly_usd: float
    load: ActLoad
    uses: tuple[ResourceUse, ...]
    demand: NodeDemand
    shadow: tuple[Any, ...] = ()  # cost items of the EBS shadow devices, per node
    # The event simulation's ACT replications at the headroom load (`aerospike_search._verify`).
    act_tests: tuple[ActTest, ...] = ()
    act_episode: ActEpisodeHour | None = None  # an ACT hour holding a volume's slow episode

    @property
    def deployment(self) -> str:
        return f"{self.nodes} x {self.layout.spec}" + (" + EBS shadow" if self.shadow else "")


def closest(rejected: list[Rejection], answer_usd: float, keep: int = 12) -> tuple[
        Rejection, ...]:
    """The cheaper candidates nearest the answer's cost, one per instance type (each at its
    most nodes), cheapest first: what would have had to pass to beat the answer. Every one the
    event simulation refused is among them (it passed every analytic check)."""
    seen: set[str] = set()
    out: list[Rejection] = []
    cheaper = sorted((r for r in rejected if r.monthly_usd < answer_usd),
                     key=lambda r: (r.stage != "verified", -r.monthly_usd, r.deployment))
    for r in cheaper:
        inst = r.deployment.split(" x ", 1)[-1].split(":", 1)[0]
        if r.stage == "verified":
            out.append(r)
        elif inst not in seen:
            seen.add(inst)
            out.append(r)
        if len(out) >= keep:
            break
    return tuple(sorted(out, key=lambda r: (r.monthly_usd, r.deployment)))


def cluster_rules(req: AerospikeSizeRequest, lo: int, last: int) -> tuple[str, ...]:
    rf = req.replication_factor
    out = [f"node counts {lo}..{last} screened: " + (
        f"at least RF + 1 = {rf + 1} so a node down keeps {rf} copies" if not
        req.allow_n_equals_rf else f"N = RF = {rf} allowed (--allow-n-equals-rf): a node down "
        f"leaves {rf - 1} cop{'y' if rf == 2 else 'ies'}")
        + "; counts above stop once N x the cheapest node costs more than the answer's "
        "alternatives",
        "every check (ACT thresholds, capacity, RAM, network, CPU) with one node down at the "
        f"headroom load ({1 + req.headroom:.0%})",
        "EBS volume and instance limits at their sustained baselines: a layout needing more "
        f"than {UTIL_PRUNE:.0%} of them is refused, so burst credits never carry the load "
        "(--peak-hours and --off-peak do not apply)"]
    if req.racks > 1:
        out.append(f"{req.racks} racks (zones): nodes in multiples of {req.racks}; a lost node's "
                   "copies are rebuilt inside its rack")
    storage = {"any": "instance store or EBS", "store": "instance store only",
               "ebs": "EBS only", "shadow": "instance store with EBS shadow devices"}
    text = f"storage: {storage[req.storage]}"
    if req.storage == "any" and rf < 2:
        text += " (instance store left out at RF 1: a lost node would lose its records)"
    out.append(text)
    return tuple(out)


def exposure(layout: Layout, req: AerospikeSizeRequest, shadow: bool) -> str:
    rf = req.replication_factor
    if shadow:
        return ("instance store with an EBS shadow device: a stopped or failed node's data "
                "survives on its shadow volumes")
    if not layout.ephemeral:
        return "EBS volumes: a node's data survives a stop or an instance failure"
    if rf < 2:
        return ("EXPOSED: instance store at RF 1: a stopped, terminated or failed node loses "
                "its records for good")
    return (f"instance store: a stopped, terminated or failed node loses its copy; {rf - 1} "
            f"other cop{'y serves' if rf == 2 else 'ies serve'} it while the survivors rebuild it "
            f"(~{req.migration_hours:g} h assumed); records are lost only if {rf} nodes holding "
            "the same partition go before that")


def _pct(t: ActThreshold, value: float) -> str:
    return f"{value:.{3 if t.over_ms >= 64 else 2}f}"


def act_verdict(tests: tuple[ActTest, ...], episode: ActEpisodeHour | None,
                req: AerospikeSizeRequest) -> ActVerdict:
    """The words and figures of a node's passing ACT replications, and of an hour holding a
    volume's slow episode where the device model has them (stated, not judged: see
    `workloads.aerospike.episode_hour`)."""
    th = act_thresholds(tests)
    worst = ActRow(**{f.name: max(getattr(t.max, f.name) for t in tests)
                      for f in dataclasses.fields(ActRow)})
    reads = sum(reads_judged(t) for t in tests)
    figures = ", ".join(f"{_pct(t, t.pct)} % > {t.over_ms} ms" for t in th)
    uppers = " / ".join(_pct(t, t.ci95_pct[1]) for t in th)
    limits = " / ".join(f"{t.limit_pct:g}" for t in th)
    text = (f"passes ACT at {1 + req.headroom:.0%} of the load with one node down: {figures} "
            f"of {reads:,} simulated reads in {len(tests)} replications (95 % interval up to "
            f"{uppers} %; limits {limits} %)")
    if episode is not None:
        hour = ", ".join(f"{_pct(t, t.pct)} % > {t.over_ms} ms" for t in episode.thresholds)
        ups = " / ".join(_pct(t, t.ci95_pct[1]) for t in episode.thresholds)
        decided = act_decided(episode.thresholds)
        where = ("within ACT's limits" if decided is True else "over ACT's limits"
                 if decided is False else "not decided against ACT's limits")
        text += (f"; an hour holding one volume's {episode.episode_s / 60:g}-min slow episode "
                 f"(~{episode.expected_per_day:.2g} in ACT's 24 h on this node, by the device "
                 f"model): {hour} (95 % interval up to {ups} %), {where}"
                 + ("" if episode.judged or decided is True else
                    " (stated, not judged: ACT's 24 h more likely than not hold none)"))
    return ActVerdict(
        text=text, slices=tests[0].slices, max=worst, thresholds=th, replications=len(tests),
        reads=reads, episode_hour=episode)


def cluster_view(c: Candidate, req: AerospikeSizeRequest, catalog: Catalog,
             ratings: dict[str, DeviceRating], why: str | None = None) -> AerospikeCluster:
    layout, load, nodes = c.layout, c.load, c.nodes
    shape = ClusterShape(nodes=nodes, racks=req.racks, rf=req.replication_factor)
    dur = layout_durability(layout)
    verdict = act_verdict(c.act_tests, c.act_episode, req) if c.act_tests else None
    ranked = sorted((u for u in c.uses if u.utilisation is not None),
                    key=lambda u: -(u.utilisation or 0.0))
    top = ranked[0]
    binding = Bottleneck(role="node", limit=top.resource, utilisation=top.utilisation,
                         where=CHECKED)
    unverified = [u.resource for u in c.uses if not u.verified]
    binds = f"{top.resource} ({top.utilisation:.0%} of its limit)" + (
        f"; {', '.join(unverified)} unverified (no sourced figure)" if unverified else "")
    cost = layout_cost(layout)
    node_cost = CostSummary.of(cost)
    if c.shadow:
        extra = round(sum(i.monthly_usd for i in c.shadow), 2)
        node_cost = dataclasses.replace(
            node_cost, monthly_usd=round(node_cost.monthly_usd + extra, 2),
            storage_usd=round(node_cost.storage_usd + extra, 2),
            items=node_cost.items + tuple(c.shadow))
    return AerospikeCluster(
        why=why,
        deployment=f"{nodes} nodes x {layout.spec} (replication factor "
                   f"{req.replication_factor}" + (", EBS shadow devices" if c.shadow else "")
                   + ")",
        nodes=nodes, layout=str(layout.spec), monthly_usd=round(c.monthly_usd, 2),
        cost=NodeCost(node_each=node_cost),
        per_node_load=load.derivation() | {"client_reads_per_sec": round(load.reads_per_sec, 3),
                                           "client_writes_per_sec": round(
                                               load.writes_per_sec, 3)},
        bottleneck=bottleneck_text([binding]), bottlenecks=(binding,),
        durability=DurabilityView(
            ephemeral=layout.ephemeral and not c.shadow,
            annual_loss_probability={"node": dur.annual_loss_probability},
            notes=(exposure(layout, req, bool(c.shadow)), *dur.assumptions[:2],
                   f"replication factor {req.replication_factor}: each record lives on "
                   f"{req.replication_factor} nodes")),
        act=verdict, failure=shape.failure_text(), resources=tuple(ranked) + tuple(
            u for u in c.uses if u.utilisation is None),
        binds=binds, device_rating=device_rating(layout.spec, catalog, ratings))
