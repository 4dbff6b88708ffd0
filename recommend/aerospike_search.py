"""Size an Aerospike cluster: node count x layout, every check made with one node down.

For every node count from RF + 1 up (cheapest first), each instance type is checked analytically:
RAM for the primary index (and the data, in memory), network and CPU (`aerospike_node`); then
each storage layout for capacity (devices at most half full), I/O utilisation and ACT's three
latency thresholds on the analytic engine (on volumes with slow episodes, also in an hour holding
one where ACT's 24 h likely hold one, as the event simulation checks). Node counts stop once N x
the cheapest node costs more than the fourth-cheapest candidate that passed (the answer + 3
alternatives). The survivors are verified in cost order with ACT in the event simulation until
four pass.
"""

import dataclasses
import hashlib
import heapq
import math
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog, InstanceType
from advisor.errors import AdvisorError, InfeasibleSlo, over_budget_text
from advisor.layout.cost import monthly_usd
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.model import resolve
from advisor.layout.spec import LayoutSpec
from advisor.serial import SCHEMA_VERSION, from_json, to_json
from advisor.sim.parallel import side_by_side
from advisor.sim.plan import SimPlan, compile_plan, steady
from advisor.sim.results import ActEpisodeHour, ActTest, ActThreshold
from recommend.aerospike_device import (
    UTIL_PRUNE,
    act_margin,
    act_screen,
    io_utilisation,
    shadow_devices,
)
from recommend.aerospike_node import (
    ASSUMPTIONS,
    ClusterShape,
    NodeDemand,
    fits,
    instance_checks,
    node_demand,
    over_limit,
)
from recommend.aerospike_result import CHECKED, Candidate, closest, cluster_rules, cluster_view
from recommend.candidates import Demand, candidate_specs
from recommend.mysql_search import _over
from recommend.request import AEROSPIKE_FILL, AerospikeSizeRequest
from recommend.result import (
    AerospikeSizeResult,
    DeviceRating,
    Rejection,
    ResourceUse,
    SearchStats,
)
from workloads.aerospike import (
    EPISODE_JUDGED_PER_DAY,
    EPISODE_SETS,
    EPISODE_STRATA,
    ActLoad,
    act_decided,
    act_thresholds,
    episode_hour,
    fell_behind,
    simulate_act,
)

MAX_NODES = 256
KEEP = 4  # the answer + 3 alternatives
# Work bounds: a load no device passes (e.g. 8 MiB records: no 8 MiB read takes under 1 ms)
# would otherwise price every layout at every node count.
MAX_SCREENS = 120
MAX_CONSIDERED = 200_000
VERIFY_READS = 60_000  # small reads one event-simulation check draws (6 slices of ~10,000)
VERIFY_MIN_S, VERIFY_MAX_S = 1.0, 20.0
# Replications of the event simulation's ACT check (2 at least): it stops once every
# threshold's 95 % interval lies on one side of its limit; undecided at this many, it fails.
ACT_REPLICATIONS = 8
# Each stratum of an hour with a slow episode (`workloads.aerospike.episode_hour`) runs this
# share of one replication's length.
EPISODE_LENGTH = 0.5


@dataclass(slots=True)
class _Search:
    req: AerospikeSizeRequest
    catalog: Catalog
    stats: dict[str, int] = field(default_factory=lambda: {
        "considered": 0, "pruned": 0, "screened": 0, "verified": 0})
    rejected: list[Rejection] = field(default_factory=list)
    passed: list[Candidate] = field(default_factory=list)
    passed_specs: set[str] = field(default_factory=set)
    best: list[float] = field(default_factory=list)  # max-heap (negated) of KEEP lowest costs
    screens: dict[tuple[str, float, float], tuple[bool, str, list[float]]] = field(
        default_factory=dict)
    memo: MutableMapping[str, Any] | None = None
    profiles_repr: str | None = None
    stopped: str = ""  # why the search stopped before the bound, if it did

    @property
    def bound(self) -> float:
        return -self.best[0] if len(self.best) >= KEEP else math.inf

    def keep(self, cost: float) -> None:
        heapq.heappush(self.best, -cost)
        if len(self.best) > KEEP:
            heapq.heappop(self.best)

    def reject(self, deployment: str, cost: float, stage: str, reason: str) -> None:
        self.rejected.append(Rejection(deployment=deployment, monthly_usd=round(cost, 2),
                                       stage=stage, reason=reason))


def _store_allowed(req: AerospikeSizeRequest) -> bool:
    if req.storage in ("store", "shadow"):
        return True
    # "any": instance store when the other copies survive a node's loss.
    return req.storage == "any" and req.replication_factor >= 2


def _specs(s: _Search, inst: InstanceType, d: NodeDemand, load: ActLoad) -> list[LayoutSpec]:
    req = s.req
    store = _store_allowed(req)
    # The instance's sustained EBS IOPS bound every EBS layout on it: past UTIL_PRUNE of them
    # with the small reads alone, none can pass (burst credits never count here).
    ebs = (req.storage in ("any", "ebs") and inst.ebs is not None
           and load.internal_reads_per_sec <= UTIL_PRUNE * inst.ebs.baseline_iops)
    demand = Demand(iops=load.internal_reads_per_sec + 2 * load.large_block_writes_per_sec,
                    mibps=load.large_block_writes_per_sec * load.large_block_kib / 1024,
                    capacity_gib=d.storage_gib)
    cat = dataclasses.replace(s.catalog, instance_types={inst.name: inst})
    return [spec for spec in candidate_specs(cat, demand, ebs=ebs, store=store, min_vcpu=1)
            if spec.raid not in ("raid1", "raid10")]  # Aerospike replicates across nodes


def _min_storage_usd(s: _Search, inst: InstanceType, need_gib: float) -> float:
    """A lower bound of one node's storage bill: nothing when its instance store may hold the
    data, else the cheapest allowed EBS type's GiB-month price for the capacity."""
    store = inst.store is not None and _store_allowed(s.req)
    if store and inst.store is not None and inst.store.count * inst.store.size_gib >= need_gib:
        return 0.0
    if s.req.storage not in ("any", "ebs"):
        return 0.0 if store else math.inf
    prices = [vt.storage_usd_per_gib_month for vt in s.catalog.volume_types.values()]
    return need_gib * min(prices) if prices and inst.ebs is not None else math.inf


@dataclass(slots=True)
class _Pair:
    """One instance type at one node count, with the demand on its busiest node."""

    nodes: int
    inst: InstanceType
    node_usd: float


def _first_fit(s: _Search, inst: InstanceType, lo: int) -> int | None:
    req = s.req
    for nodes in range(lo, MAX_NODES + 1, req.racks):
        shape = ClusterShape(nodes=nodes, racks=req.racks, rf=req.replication_factor)
        if fits(req, node_demand(req, shape), inst):
            return nodes
    return None


def _refuse_instance(s: _Search, inst: InstanceType, nodes: int) -> None:
    """The most nodes of `inst` that still miss a per-node limit, with the reason."""
    req = s.req
    shape = ClusterShape(nodes=nodes, racks=req.racks, rf=req.replication_factor)
    bad = over_limit(instance_checks(req, node_demand(req, shape), inst))
    if bad is None:
        return
    s.stats["considered"] += 1
    s.stats["pruned"] += 1
    s.reject(f"{nodes} x {inst.name}", nodes * inst.hourly_usd * 730, "pruned",
             f"{bad.resource} {CHECKED}: needs {bad.need:,.2f} of {bad.have:,.2f} "
             f"{bad.unit} ({bad.basis})")


def _expand(s: _Search, pair: _Pair) -> list[Candidate]:
    """Check one instance type at one node count; its layouts, priced."""
    req, nodes, inst = s.req, pair.nodes, pair.inst
    shape = ClusterShape(nodes=nodes, racks=req.racks, rf=req.replication_factor)
    d = node_demand(req, shape)
    uses = instance_checks(req, d, inst)
    bad = over_limit(uses)
    if bad is not None:
        s.stats["considered"] += 1
        s.stats["pruned"] += 1
        s.reject(f"{nodes} x {inst.name}", nodes * pair.node_usd, "pruned",
                 f"{bad.resource} {CHECKED}: needs {bad.need:,.2f} of {bad.have:,.2f} "
                 f"{bad.unit} ({bad.basis})")
        return []
    load = ActLoad(reads_per_sec=d.reads_per_sec, writes_per_sec=d.writes_per_sec,
                   record_bytes=req.record_bytes, replication_factor=shape.copies)
    out = []
    for spec in _specs(s, inst, d, load):
        if str(spec) in s.passed_specs:
            continue  # passed with fewer nodes: more of the same only costs more
        try:
            layout = resolve(spec, s.catalog)
        except AdvisorError:
            continue
        extra: tuple[ResourceUse, ...] = ()
        shadow: tuple[Any, ...] = ()
        per_node = monthly_usd(layout)
        if req.storage == "shadow":
            got = shadow_devices(layout, s.catalog, load, inst)
            if isinstance(got, str):
                s.reject(f"{nodes} x {spec}", nodes * per_node, "pruned", got)
                continue
            shadow, use = got
            extra = (use,)
            per_node += sum(i.monthly_usd for i in shadow)
        out.append(Candidate(nodes=nodes, layout=layout, monthly_usd=nodes * per_node, load=load,
                         uses=uses + extra, shadow=shadow, demand=d))
    s.stats["considered"] += len(out)
    return out


def _screen_one(s: _Search, c: Candidate) -> None:
    layout, load, d = c.layout, c.load, c.demand
    have_gib = usable_capacity_gib(layout)
    cap = ResourceUse(resource="capacity", need=round(d.storage_gib, 2), have=round(have_gib, 2),
                      unit="GiB", utilisation=round(d.storage_gib / have_gib, 4),
                      basis="data x copies on the node, devices at most 50 % full")
    bad = over_limit((cap, *c.uses))
    if bad is not None:
        s.stats["pruned"] += 1
        s.reject(c.deployment, c.monthly_usd, "pruned", f"{bad.resource}: needs "
                 f"{bad.need:,.2f} of {bad.have:,.2f} {bad.unit} {CHECKED}")
        return
    util = io_utilisation(layout, s.catalog, load)
    io = ResourceUse(resource="device I/O", need=round(util, 4), have=1.0, unit="of rated",
                     utilisation=round(util, 4),
                     basis=f"{load.internal_reads_per_sec:,.0f} small reads + "
                           f"{load.large_block_writes_per_sec:,.1f} large-block writes and "
                           "defrag reads/s against the layout's sustained IOPS")
    if util > UTIL_PRUNE:
        s.stats["pruned"] += 1
        s.reject(c.deployment, c.monthly_usd, "pruned",
                 f"needs {_over(util)} of its rated IOPS/throughput {CHECKED}")
        return
    key = (str(layout.spec), round(load.reads_per_sec, 3), round(load.writes_per_sec, 3))
    got = s.screens.get(key)
    if got is None:
        s.stats["screened"] += 1
        got = s.screens[key] = act_screen(layout, s.catalog, load, episodes=True)
    ok, why, over = got
    act = ResourceUse(resource="device (ACT)", need=round(act_margin(over), 4), have=1.0,
                      unit="of ACT's limits", utilisation=round(act_margin(over), 4),
                      basis=f"analytic: {100 * over[0]:.2f} % > 1 ms, {100 * over[1]:.2f} % > "
                            f"8 ms, {100 * over[2]:.3f} % > 64 ms (limits 5 / 1 / 0.1 %)")
    if not ok:
        s.reject(c.deployment, c.monthly_usd, "screened", f"{why} {CHECKED}")
        return
    c.uses = (act, io, cap, *c.uses)
    s.passed.append(c)
    if str(layout.spec) not in s.passed_specs:
        s.passed_specs.add(str(layout.spec))
        s.keep(c.monthly_usd)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Verdict:
    """A memo entry: the event simulation's ACT replications of one candidate, in the result
    schema's version."""

    tests: tuple[ActTest, ...]
    episode: ActEpisodeHour | None = None  # a passing candidate's hour with a slow episode
    schema_version: int = SCHEMA_VERSION


def _verify_key(s: _Search, c: Candidate, duration: float) -> str:
    """Everything the event simulation's verdict depends on: the layout as resolved (instance,
    volume type and their figures), the catalog's latency profiles, the load, length, seed,
    the replication and episode-hour rules and the model and code versions."""
    if s.profiles_repr is None:
        s.profiles_repr = repr(sorted(s.catalog.latency_profiles.items()))
    text = "\n".join((repr(c.layout), s.profiles_repr, repr(sorted(c.load.derivation().items())),
                      repr((c.load.reads_per_sec, c.load.writes_per_sec, duration, s.req.seed,
                            ACT_REPLICATIONS, "steady", EPISODE_STRATA, EPISODE_SETS,
                            EPISODE_LENGTH,
                            EPISODE_JUDGED_PER_DAY, MODEL_VERSION, __version__))))
    return hashlib.sha256(text.encode()).hexdigest()


def _replications(s: _Search, c: Candidate, plan: SimPlan,
                  duration: float) -> tuple[ActTest, ...]:
    """ACT at the headroom load in the event simulation, on the layout's `plan` without its
    volumes' slow episodes (an hour with one is judged apart): replications with seeds seed,
    seed + 1, ... until every threshold's interval lies on one side of its limit (2 at least,
    ACT_REPLICATIONS at most), or at once when a slice fell behind its reads."""
    replication = partial(_replication, s, c, steady(plan), duration)
    # The first two run whatever they give: side by side.
    first = side_by_side([partial(replication, k) for k in range(min(2, ACT_REPLICATIONS))])
    tests: list[ActTest] = []
    for k in range(ACT_REPLICATIONS):
        tests.append(first[k] if k < len(first) else replication(k))
        if fell_behind(tests[-1]):
            break
        if len(tests) >= 2 and act_decided(act_thresholds(tests)) is not None:
            break
    return tuple(tests)


def _replication(s: _Search, c: Candidate, plan: SimPlan, duration: float, k: int) -> ActTest:
    """Replication k of the event simulation's ACT check (seed seed + k) on `plan`."""
    return simulate_act(c.layout, s.catalog, [({"x_load": 1 + s.req.headroom}, c.load)],
                        duration_s=duration, seed=s.req.seed + k, plan=plan).levels[0].act


def _judged(c: Candidate, verdict: _Verdict) -> tuple[tuple[ActTest, ...],
                                                     tuple[ActThreshold, ...], bool, bool | None]:
    """The verdict's replications (kept on the candidate), their thresholds, whether the last
    fell behind its reads, and whether they are decided (None: not, or it fell behind)."""
    c.act_tests = verdict.tests
    thresholds = act_thresholds(verdict.tests)
    behind = fell_behind(verdict.tests[-1])
    return verdict.tests, thresholds, behind, None if behind else act_decided(thresholds)


def _verify(s: _Search, c: Candidate) -> bool:
    load = c.load
    duration = min(VERIFY_MAX_S, max(VERIFY_MIN_S, VERIFY_READS / max(
        load.internal_reads_per_sec, 1.0)))
    s.stats["verified"] += 1
    key = _verify_key(s, c, duration) if s.memo is not None else ""
    known = s.memo.get(key) if s.memo is not None else None
    verdict: _Verdict | None = None
    if known is not None:
        try:
            verdict = from_json(_Verdict, known)
        except AdvisorError:
            verdict = None  # a memo written by another version of the result type: run again
    plan: SimPlan | None = None  # compiled once, when a simulation needs it
    if verdict is None:
        plan = compile_plan(c.layout, s.catalog)
        verdict = _Verdict(tests=_replications(s, c, plan, duration))
    tests, thresholds, behind, decided = _judged(c, verdict)
    if decided is True and verdict.episode is None:
        plan = plan or compile_plan(c.layout, s.catalog)
        if plan.variable:
            more = list(tests)
            usual_plan = steady(plan)

            def more_usual() -> tuple[ActThreshold, ...] | None:
                """The usual hours with one more replication (an episode hour undecided for
                their interval's sake), while the check's own bound allows one."""
                if len(more) >= ACT_REPLICATIONS:
                    return None
                more.append(_replication(s, c, usual_plan, duration, len(more)))
                return act_thresholds(more)

            episode = episode_hour(
                c.layout, s.catalog, load, thresholds, duration_s=duration * EPISODE_LENGTH,
                seed=s.req.seed, label={"x_load": 1 + s.req.headroom}, plan=plan,
                more_usual=more_usual)
            verdict = dataclasses.replace(verdict, tests=tuple(more), episode=episode)
            tests, thresholds, behind, decided = _judged(c, verdict)
    c.act_episode = verdict.episode
    if s.memo is not None and known != (kept := to_json(verdict)):
        s.memo[key] = kept
    if behind:
        fails = [f for row in tests[-1].slices for f in row.fails][:1]
        s.reject(c.deployment, c.monthly_usd, "verified",
                 "ACT in the event simulation: " + "; ".join(fails) + f" {CHECKED}")
        return False
    episode = verdict.episode
    if decided is True and episode is not None and episode.judged and not episode.passed:
        over = [t for t in episode.thresholds if t.ci95_pct[1] >= t.limit_pct][:2]
        undecided = act_decided(episode.thresholds) is None
        s.reject(c.deployment, c.monthly_usd, "verified",
                 f"ACT in the event simulation: an hour holding one volume's "
                 f"{episode.episode_s / 60:g}-min slow episode (~{episode.expected_per_day:.2g} "
                 "in ACT's 24 h on this node, by the device model): " + "; ".join(
                     f"{t.pct:.2f} % of reads over {t.over_ms} ms (95 % interval "
                     f"{t.ci95_pct[0]:.2f}-{t.ci95_pct[1]:.2f} %, limit {t.limit_pct:g} %)"
                     for t in over)
                 + (f", undecided after {episode.sets} sets of its {EPISODE_STRATA} strata"
                    if undecided else "") + f" {CHECKED}")
        return False
    if decided is not True:
        over = [t for t in thresholds if t.ci95_pct[1] >= t.limit_pct][:2]
        words = "; ".join(
            f"{t.pct:.2f} % of reads over {t.over_ms} ms (95 % interval {t.ci95_pct[0]:.2f}-"
            f"{t.ci95_pct[1]:.2f} %, limit {t.limit_pct:g} %)" for t in over)
        s.reject(c.deployment, c.monthly_usd, "verified",
                 "ACT in the event simulation: " + words
                 + (f", undecided after {len(tests)} replications" if decided is None else "")
                 + f" {CHECKED}")
        return False
    return True


def _act_method(req: AerospikeSizeRequest) -> str:
    return (f"ACT verified in the event simulation: 2 to {ACT_REPLICATIONS} replications of "
            f"~{VERIFY_READS:,} small reads (seeds {req.seed}-{req.seed + ACT_REPLICATIONS - 1}, "
            f"{VERIFY_MIN_S:g}-{VERIFY_MAX_S:g} s each), pooled; passes when every threshold's "
            "95 % interval (Student's t on the replications' own %) lies under its limit, "
            "refused when one lies over it or still straddles it after the last; on volumes "
            "with slow episodes (EBS, by the device model) the hour holding one volume's whole "
            f"episode ({EPISODE_STRATA} strata of its speed loss, a 95 % interval from their "
            f"slices as batch means with the usual hours', up to {EPISODE_SETS} sets of strata "
            "while it straddles a limit) must pass too where ACT's 24 h more likely than not "
            "hold one")


def size_aerospike(req: AerospikeSizeRequest, catalog: Catalog,
                   progress: Callable[[int, float], None] | None = None,
                   memo: MutableMapping[str, Any] | None = None) -> AerospikeSizeResult:
    """The cheapest cluster passing every check with one node down. `memo`: event-simulation
    verdicts by a key of everything they depend on (the caller may keep it between runs; the
    simulation is deterministic for a seed, so a hit is the same verdict)."""
    s = _Search(req=req, catalog=catalog, memo=memo)
    lo = req.min_nodes
    lo += -lo % req.racks  # whole racks
    # Best first over (lower-bound cost, ...): an instance type at its next node count enters
    # with N x (instance + the cheapest storage that could hold the data); a priced layout with
    # its exact cost. Everything below the KEEP-th passing cost is checked, nothing above it.
    heap: list[tuple[float, int, int, _Pair | Candidate]] = []
    tie = 0

    def push_pair(inst: InstanceType, nodes: int) -> None:
        nonlocal tie
        if nodes > MAX_NODES:
            return
        node_usd = inst.hourly_usd * 730
        shape = ClusterShape(nodes=nodes, racks=req.racks, rf=req.replication_factor)
        need = req.data_gb * shape.copies * shape.share / AEROSPIKE_FILL
        bound = nodes * (node_usd + _min_storage_usd(s, inst, need))
        if bound < math.inf:
            tie += 1
            heapq.heappush(heap, (bound, 0, tie, _Pair(nodes=nodes, inst=inst,
                                                       node_usd=node_usd)))

    # Every node count screened on the numbers first: each instance type enters at the fewest
    # nodes whose busiest survivor fits its RAM, network and CPU (the count below is refused,
    # with its reason; RAM, network and CPU per node only fall as nodes are added).
    for inst in catalog.instance_types.values():
        first = _first_fit(s, inst, lo)
        if first is None:
            _refuse_instance(s, inst, MAX_NODES - (MAX_NODES - lo) % req.racks)
            continue
        if first > lo:
            _refuse_instance(s, inst, first - req.racks)
        push_pair(inst, first)
    last = lo
    while heap and heap[0][0] <= s.bound:
        if s.stats["screened"] >= MAX_SCREENS or s.stats["considered"] >= MAX_CONSIDERED:
            s.stopped = (f"the search stopped after {s.stats['screened']:,} analytic screens "
                         f"and {s.stats['considered']:,} candidates")
            break
        cost, _, _, item = heapq.heappop(heap)
        if isinstance(item, _Pair):
            push_pair(item.inst, item.nodes + req.racks)
            last = max(last, item.nodes)
            for c in _expand(s, item):
                tie += 1
                heapq.heappush(heap, (c.monthly_usd, 1, tie, c))
        elif str(item.layout.spec) not in s.passed_specs:
            _screen_one(s, item)
            if progress and s.bound < math.inf:
                progress(item.nodes, min(1.0, cost / s.bound))
    verified: list[Candidate] = []
    for c in sorted(s.passed, key=lambda c: (round(c.monthly_usd, 2), c.nodes,
                                             str(c.layout.spec))):
        if len(verified) >= KEEP:
            break
        if _verify(s, c):
            verified.append(c)
    rules = cluster_rules(req, lo, last) + (_act_method(req),) + (
        (s.stopped,) if s.stopped else ())
    budget = req.max_monthly_usd
    if budget is not None and verified and verified[0].monthly_usd > budget:
        # Clusters do meet the SLO, only above the budget: the answer is what the SLO costs.
        dearer = verified[0]
        over = over_budget_text("cluster", dearer.monthly_usd, budget,
                                f"{dearer.nodes} nodes x {dearer.layout.spec}")
        near = sorted((r for r in s.rejected if r.monthly_usd <= budget),
                      key=lambda r: (r.stage == "pruned", -r.monthly_usd))[:5]
        raise InfeasibleSlo("; ".join([over, *(f"{r.deployment} (${r.monthly_usd:,.2f}/month): "
                                               f"{r.reason}" for r in near)]),
                            over_budget=over)
    verified = [c for c in verified if budget is None or c.monthly_usd <= budget]
    if not verified:
        near = sorted(s.rejected, key=lambda r: (r.stage == "pruned", -r.monthly_usd))[:5]
        raise InfeasibleSlo("; ".join([*(f"{r.deployment} (${r.monthly_usd:,.2f}/month): "
                                         f"{r.reason}" for r in near),
                                       *([s.stopped] if s.stopped else [])]) or "no candidate")
    ratings: dict[str, DeviceRating] = {}
    rec = cluster_view(verified[0], req, catalog, ratings)
    alts = tuple(cluster_view(c, req, catalog, ratings, why="next cheapest") for c in verified[1:])
    cheaper = closest(s.rejected, rec.monthly_usd)
    return AerospikeSizeResult(
        request=req, slo=req.slo_json(), recommendation=rec, alternatives=alts,
        rejected=cheaper, rejected_total=sum(r.monthly_usd < rec.monthly_usd
                                             for r in s.rejected),
        search=SearchStats(**s.stats), seed=req.seed, model_version=MODEL_VERSION,
        advisor_version=__version__, catalog_version=catalog.catalog_version,
        cluster_rules=rules, assumptions=ASSUMPTIONS)
