"""Size an Aerospike cluster: node count x layout, every check made with one node down.

For every node count from RF + 1 up (cheapest first), each instance type is checked analytically:
RAM for the primary index (and the data, in memory), network and CPU (`aerospike_node`); then
each storage layout for capacity (devices at most half full), I/O utilisation and ACT's three
latency thresholds on the analytic engine. Node counts stop once N x the cheapest node costs more
than the fourth-cheapest candidate that passed (the answer + 3 alternatives). The survivors are
verified in cost order with ACT in the event simulation until four pass.
"""

import dataclasses
import hashlib
import heapq
import math
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog, InstanceType
from advisor.errors import AdvisorError, InfeasibleSlo
from advisor.layout.capacity import capacity, limits_of
from advisor.layout.cost import layout_cost, monthly_usd, volume_items
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.durability import layout_durability
from advisor.layout.model import Layout, resolve
from advisor.layout.spec import LayoutSpec
from advisor.serial import SCHEMA_VERSION, from_json, to_json
from advisor.sim.analytic import IoSpec, RequestClass, build_mix, read_fraction_over
from advisor.sim.plan import compile_plan, with_write_load
from advisor.sim.results import ActTest
from recommend.aerospike_node import (
    ASSUMPTIONS,
    ClusterShape,
    NodeDemand,
    fits,
    instance_checks,
    node_demand,
    over_limit,
)
from recommend.candidates import GP3_MIBPS_GRID, Demand, candidate_specs
from recommend.mysql_search import _over
from recommend.request import AEROSPIKE_FILL, AerospikeSizeRequest
from recommend.result import (
    ActVerdict,
    AerospikeCluster,
    AerospikeSizeResult,
    Bottleneck,
    CostSummary,
    DeviceRating,
    DurabilityView,
    NodeCost,
    Rejection,
    ResourceUse,
    SearchStats,
    bottleneck_text,
)
from workloads.aerospike import ACT_LIMITS, ActLoad, simulate_act

MAX_NODES = 256
KEEP = 4  # the answer + 3 alternatives
# Work bounds: a load no device passes (e.g. 8 MiB records: no 8 MiB read takes under 1 ms)
# would otherwise price every layout at every node count.
MAX_SCREENS = 120
MAX_CONSIDERED = 200_000
VERIFY_READS = 60_000  # small reads one event-simulation check draws (6 slices of ~10,000)
VERIFY_MIN_S, VERIFY_MAX_S = 1.0, 20.0
UTIL_PRUNE = 0.9  # a layout needing more of its rated I/O than this is not screened
RATING_LADDER = (1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
CHECKED = "with one node down at the headroom load"


@dataclass(slots=True, kw_only=True)
class _Cand:
    nodes: int
    layout: Layout
    monthly_usd: float
    load: ActLoad
    uses: tuple[ResourceUse, ...]
    demand: NodeDemand
    shadow: tuple[Any, ...] = ()  # cost items of the EBS shadow devices, per node
    act: ActTest | None = None

    @property
    def deployment(self) -> str:
        return f"{self.nodes} x {self.layout.spec}" + (" + EBS shadow" if self.shadow else "")


@dataclass(slots=True)
class _Search:
    req: AerospikeSizeRequest
    catalog: Catalog
    stats: dict[str, int] = field(default_factory=lambda: {
        "considered": 0, "pruned": 0, "screened": 0, "verified": 0})
    rejected: list[Rejection] = field(default_factory=list)
    passed: list[_Cand] = field(default_factory=list)
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


def _screen(layout: Layout, catalog: Catalog, load: ActLoad) -> tuple[bool, str, list[float]]:
    """ACT's three thresholds on the analytic engine: the share of small reads over 1, 8, 64 ms."""
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
    """Share of the layout's sustained rated capacity the node's I/O uses (small reads + large
    blocks), burst credits not counted."""
    lim = limits_of(layout, catalog)
    small = capacity(layout, catalog, write=False, size_kib=load.read_bytes / 1024,
                     bursting=False, limits=lim).iops
    if load.internal_reads_per_sec > UTIL_PRUNE * small:
        return load.internal_reads_per_sec / small  # past the prune on the small reads alone
    big = load.large_block_kib
    wcap = capacity(layout, catalog, write=True, size_kib=big, bursting=False, limits=lim).iops
    rcap = capacity(layout, catalog, write=False, size_kib=big, bursting=False, limits=lim).iops
    return (load.internal_reads_per_sec / small + load.large_block_writes_per_sec / wcap
            + load.large_block_reads_per_sec / rcap)


def _act_margin(over: list[float]) -> float:
    """The screen's worst share of a threshold's limit (1 = at the limit)."""
    return max(100 * f / lim for f, (_, lim) in zip(over, ACT_LIMITS, strict=True))


def _store_allowed(req: AerospikeSizeRequest) -> bool:
    if req.storage in ("store", "shadow"):
        return True
    # "any": instance store when the other copies survive a node's loss.
    return req.storage == "any" and req.replication_factor >= 2


def _shadow(layout: Layout, catalog: Catalog, load: ActLoad,
            inst: InstanceType) -> tuple[tuple[Any, ...], ResourceUse] | str:
    """gp3 shadow devices, one per instance-store device, sized to it and provisioned for the
    node's large-block writes (Aerospike mirrors every write to the shadow; reads stay local)."""
    vt = catalog.volume_types.get("gp3")
    if vt is None or inst.ebs is None:
        return "no gp3 or no EBS on this instance for a shadow device"
    devices = layout.spec.count
    size = math.ceil(layout.device_size_gib)
    write_mibps = load.large_block_writes_per_sec * load.large_block_kib / 1024
    per_dev = write_mibps / devices
    mibps = next((m for m in GP3_MIBPS_GRID if m >= per_dev * 1.25 and m <= vt.max_mibps), None)
    if mibps is None:
        return f"shadow writes {per_dev:,.0f} MiB/s a device exceed gp3's {vt.max_mibps:g} MiB/s"
    items = tuple(item for k in range(devices) for item in volume_items(
        vt, size, None, mibps, f"shadow gp3 #{k + 1}"))
    ebs_mibps = inst.ebs.baseline_mbs * 1e6 / 2**20
    use = ResourceUse(resource="shadow EBS writes", need=round(write_mibps, 3),
                      have=round(ebs_mibps, 3), unit="MiB/s",
                      utilisation=round(write_mibps / ebs_mibps, 4),
                      basis=f"{devices} x gp3 {size} GiB at {mibps} MiB/s against the "
                            "instance's sustained EBS bandwidth")
    return items, use


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


def _expand(s: _Search, pair: _Pair) -> list[_Cand]:
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
            got = _shadow(layout, s.catalog, load, inst)
            if isinstance(got, str):
                s.reject(f"{nodes} x {spec}", nodes * per_node, "pruned", got)
                continue
            shadow, use = got
            extra = (use,)
            per_node += sum(i.monthly_usd for i in shadow)
        out.append(_Cand(nodes=nodes, layout=layout, monthly_usd=nodes * per_node, load=load,
                         uses=uses + extra, shadow=shadow, demand=d))
    s.stats["considered"] += len(out)
    return out


def _screen_one(s: _Search, c: _Cand) -> None:
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
    util = _utilisation(layout, s.catalog, load)
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
        got = s.screens[key] = _screen(layout, s.catalog, load)
    ok, why, over = got
    act = ResourceUse(resource="device (ACT)", need=round(_act_margin(over), 4), have=1.0,
                      unit="of ACT's limits", utilisation=round(_act_margin(over), 4),
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
    """A memo entry: one event-simulation ACT test, in the result schema's version."""

    test: ActTest
    schema_version: int = SCHEMA_VERSION


def _verify_key(s: _Search, c: _Cand, duration: float) -> str:
    """Everything the event simulation's verdict depends on: the layout as resolved (instance,
    volume type and their figures), the catalog's latency profiles, the load, length, seed and
    the model and code versions."""
    if s.profiles_repr is None:
        s.profiles_repr = repr(sorted(s.catalog.latency_profiles.items()))
    text = "\n".join((repr(c.layout), s.profiles_repr, repr(sorted(c.load.derivation().items())),
                      repr((c.load.reads_per_sec, c.load.writes_per_sec, duration, s.req.seed,
                            MODEL_VERSION, __version__))))
    return hashlib.sha256(text.encode()).hexdigest()


def _verify(s: _Search, c: _Cand) -> bool:
    load = c.load
    duration = min(VERIFY_MAX_S, max(VERIFY_MIN_S, VERIFY_READS / max(
        load.internal_reads_per_sec, 1.0)))
    s.stats["verified"] += 1
    key = _verify_key(s, c, duration) if s.memo is not None else ""
    known = s.memo.get(key) if s.memo is not None else None
    test: ActTest | None = None
    if known is not None:
        try:
            test = from_json(_Verdict, known).test
        except AdvisorError:
            test = None  # a memo written by another version of the result type: run again
    if test is None:
        act = simulate_act(c.layout, s.catalog, [({"x_load": 1 + s.req.headroom}, load)],
                           duration_s=duration, seed=s.req.seed)
        test = act.levels[0].act
        if s.memo is not None:
            s.memo[key] = to_json(_Verdict(test=test))
    if not test.passed:
        fails = [f for row in test.slices for f in row.fails][:2]
        s.reject(c.deployment, c.monthly_usd, "verified",
                 "ACT in the event simulation: " + "; ".join(fails) + f" {CHECKED}")
        return False
    c.act = test
    return True


def device_rating(spec: LayoutSpec, catalog: Catalog,
                  cache: dict[str, DeviceRating] | None = None) -> DeviceRating:
    """The highest rung of ACT's load ladder (1x, 1.5x, 2x, 3x ... 512x) one device of `spec`
    passes on the analytic engine, with ACT's default configuration."""
    one = dataclasses.replace(spec, raid=None, count=1)
    name = str(one)
    if cache is not None and name in cache:
        return cache[name]
    layout = resolve(one, catalog)
    lo, hi = -1, len(RATING_LADDER)  # passes at rung lo (-1: none yet), fails at rung hi
    while hi - lo > 1:  # the screen's verdict falls with load: bisect the ladder
        mid = (lo + hi) // 2
        ok, _, _ = _screen(layout, catalog, ActLoad.at_x(RATING_LADDER[mid], 1))
        lo, hi = (mid, hi) if ok else (lo, mid)
    best = RATING_LADDER[lo] if lo >= 0 else None
    text = (f"{name}: passes ACT up to {best:g}x" if best is not None
            else f"{name}: does not pass ACT at 1x")
    if best == RATING_LADDER[-1]:
        text += " (the top of the ladder tried)"
    rating = DeviceRating(device=name, x=best, text=text)
    if cache is not None:
        cache[name] = rating
    return rating


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
    heap: list[tuple[float, int, int, _Pair | _Cand]] = []
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
    verified: list[_Cand] = []
    for c in sorted(s.passed, key=lambda c: (round(c.monthly_usd, 2), c.nodes,
                                             str(c.layout.spec))):
        if len(verified) >= KEEP:
            break
        if _verify(s, c):
            verified.append(c)
    rules = _rules(req, lo, last) + ((s.stopped,) if s.stopped else ())
    if not verified:
        closest = sorted(s.rejected, key=lambda r: (r.stage == "pruned", -r.monthly_usd))[:5]
        raise InfeasibleSlo("; ".join([*(f"{r.deployment} (${r.monthly_usd:,.2f}/month): "
                                         f"{r.reason}" for r in closest),
                                       *([s.stopped] if s.stopped else [])]) or "no candidate")
    ratings: dict[str, DeviceRating] = {}
    rec = _cluster(verified[0], req, catalog, ratings)
    alts = tuple(_cluster(c, req, catalog, ratings, why="next cheapest") for c in verified[1:])
    cheaper = _closest(s.rejected, rec.monthly_usd)
    return AerospikeSizeResult(
        request=req, slo=req.slo_json(), recommendation=rec, alternatives=alts,
        rejected=cheaper, rejected_total=sum(r.monthly_usd < rec.monthly_usd
                                             for r in s.rejected),
        search=SearchStats(**s.stats), seed=req.seed, model_version=MODEL_VERSION,
        advisor_version=__version__, catalog_version=catalog.catalog_version,
        cluster_rules=rules, assumptions=ASSUMPTIONS)


def _closest(rejected: list[Rejection], answer_usd: float, keep: int = 12) -> tuple[
        Rejection, ...]:
    """The cheaper candidates nearest the answer's cost, one per instance type (each at its
    most nodes), cheapest first: what would have had to pass to beat the answer."""
    seen: set[str] = set()
    out: list[Rejection] = []
    for r in sorted((r for r in rejected if r.monthly_usd < answer_usd),
                    key=lambda r: (-r.monthly_usd, r.deployment)):
        inst = r.deployment.split(" x ", 1)[-1].split(":", 1)[0]
        if inst not in seen:
            seen.add(inst)
            out.append(r)
        if len(out) >= keep:
            break
    return tuple(sorted(out, key=lambda r: (r.monthly_usd, r.deployment)))


def _rules(req: AerospikeSizeRequest, lo: int, last: int) -> tuple[str, ...]:
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


def _exposure(layout: Layout, req: AerospikeSizeRequest, shadow: bool) -> str:
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


def _cluster(c: _Cand, req: AerospikeSizeRequest, catalog: Catalog,
             ratings: dict[str, DeviceRating], why: str | None = None) -> AerospikeCluster:
    layout, load, nodes = c.layout, c.load, c.nodes
    shape = ClusterShape(nodes=nodes, racks=req.racks, rf=req.replication_factor)
    dur = layout_durability(layout)
    act = c.act
    verdict = None if act is None else ActVerdict(
        text=f"passes ACT at {1 + req.headroom:.0%} of the load with one node down (worst "
             f"slice {act.max.gt_1ms_pct:.2f} % > 1 ms, {act.max.gt_8ms_pct:.2f} % > 8 ms, "
             f"{act.max.gt_64ms_pct:.3f} % > 64 ms)",
        slices=act.slices, max=act.max)
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
            notes=(_exposure(layout, req, bool(c.shadow)), *dur.assumptions[:2],
                   f"replication factor {req.replication_factor}: each record lives on "
                   f"{req.replication_factor} nodes")),
        act=verdict, failure=shape.failure_text(), resources=tuple(ranked) + tuple(
            u for u in c.uses if u.utilisation is None),
        binds=binds, device_rating=device_rating(layout.spec, catalog, ratings))
