"""Search one MySQL server role (master or replica) for the cheapest layouts meeting the SLO.

Order of work: price every candidate; prune by hard limits (capacity, CPU floor, a capacity
check of the rated limits against the demand); screen in cost order with the analytic engine at
the target and at the headroom load over the peak window; verify the cheapest survivors with the
DES. Every rejection keeps its reason in words.

Each thing is done once per sizing: a candidate keeps its layout's limits, its compiled plan and
every steady state evaluated on it (the screen's loads are the knee search's first probes), and
the master keeps the knee of each deployment it heads, so the recommendation, the alternatives
and a report can all ask for it.
"""

import math
from dataclasses import dataclass, field
from typing import Any

from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError
from advisor.layout.capacity import capacity, limits_of
from advisor.layout.cost import Cost, layout_cost, monthly_usd
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.limits import LayoutLimits
from advisor.layout.model import Layout, resolve
from advisor.sim.analytic import SteadyState, build_mix, steady_state
from advisor.sim.plan import SimPlan, compile_plan
from recommend.candidates import Demand, candidate_specs
from recommend.request import MysqlSizeRequest
from workloads.mysql import GIB, MysqlParams, MysqlServer, TxnIo, derive_io, servers
from workloads.mysql_run import CPU_LIMIT, apply_capacity_tps, cpu_utilisation

VERIFY_SECONDS = 15.0
MAX_SCREENED = 40  # screen at most this many once enough pass, looking for variety
UTILISATION_LIMIT = 0.95
KneeKey = tuple[str | None, int, bool]  # (replica spec, replicas, confirmed by the DES)


@dataclass(slots=True, kw_only=True)
class Candidate:
    """One layout for one role in one sizing (one request), and what the search learnt of it."""

    layout: Layout
    role: str
    monthly_usd: float
    stage: str = "priced"  # priced, pruned, screened, verified
    ok: bool = False
    reason: str | None = None
    at_target: SteadyState | None = None
    at_headroom: SteadyState | None = None
    details: dict[str, Any] = field(default_factory=dict)
    spec: str = ""  # str(layout.spec) (filled in if not given): the search sorts and keys by it
    # Derived once, on first use (the search prices thousands and screens dozens):
    _limits: LayoutLimits | None = field(default=None, init=False, repr=False)
    _plan: SimPlan | None = field(default=None, init=False, repr=False)
    _states: dict[tuple[int, float], tuple[MysqlServer, SteadyState]] = field(
        default_factory=dict, init=False, repr=False)  # (replicas, tps) -> server, state
    _knees: dict[KneeKey, int] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.spec = self.spec or str(self.layout.spec)

    @property
    def cost(self) -> Cost:
        return layout_cost(self.layout)

    def limits(self, catalog: Catalog) -> LayoutLimits:
        if self._limits is None:
            self._limits = limits_of(self.layout, catalog)
        return self._limits

    def plan(self, catalog: Catalog) -> SimPlan:
        if self._plan is None:
            self._plan = compile_plan(self.layout, catalog, limits=self.limits(catalog))
        return self._plan


def diverse(cands: list[Candidate]) -> bool:
    """Passing candidates include one without RAID and at least two instance families."""
    ok = [c for c in cands if c.ok]
    families = {c.layout.spec.instance.split(".")[0] for c in ok}
    return any(c.layout.spec.raid is None for c in ok) and len(families) >= 2


def params_for(req: MysqlSizeRequest, replicas: int, tps: float) -> MysqlParams:
    return MysqlParams(tps=tps, reads_per_write=req.reads, replicas=replicas, data_gb=req.data_gb)


def server_for(req: MysqlSizeRequest, layout: Layout, role: str, replicas: int, tps: float,
               measured: TxnIo | None) -> MysqlServer:
    p = params_for(req, replicas, tps)
    memory = layout.instance.memory_gib if layout.instance else 16.0
    io = measured or derive_io(p, memory)
    cap = int(usable_capacity_gib(layout) * GIB)
    all_servers = servers(p, io, io, data_bytes=int(p.data_gb * GIB), master_capacity=cap,
                          replica_capacity=cap)
    return all_servers[0] if role == "master" else all_servers[1]


def _demand(server: MysqlServer) -> tuple[float, float, float]:
    """(random reads/s, writes/s, MiB/s) a server issues, from its request mix."""
    reads = writes = mib = 0.0
    rate = server.rate_tps
    for cls in server.request_classes():
        for io in cls.ios:
            if io.op in (0, 1, 2):
                n = rate * cls.probability * io.count
                reads += n if io.op == 0 else 0.0
                writes += n if io.op != 0 else 0.0
                mib += n * io.size_bytes / 2**20
    for io in server.background_specs():
        if io.op in (0, 1, 2):
            n = rate * io.count
            reads += n if io.op == 0 else 0.0
            writes += n if io.op != 0 else 0.0
            mib += n * io.size_bytes / 2**20
    return reads, writes, mib


def _bursting_allowed(layout: Layout, lim: LayoutLimits, peak_hours: float,
                      demand_iops: float) -> bool:
    """Credits may carry the peak only if they last all of it."""
    peak_s = peak_hours * 3600
    for limit in (*lim.member_limits, *lim.instance_limits):
        if limit.bucket is None:
            continue
        per = demand_iops / (layout.spec.count if limit.scope == "volume" else 1)
        if limit.unit == "mibps":
            continue
        if limit.bucket.seconds_at(max(per, limit.sustained + 1e-9)) < peak_s:
            return False
    return True


def _precheck(c: Candidate, catalog: Catalog, server: MysqlServer,
              req: MysqlSizeRequest) -> str | None:
    layout = c.layout
    cap = usable_capacity_gib(layout)
    if cap < req.needed_gib:
        return f"{cap:,.0f} GiB usable < {req.needed_gib:,.0f} GiB needed (data + 20 %)"
    cpu = cpu_utilisation(server, layout)
    if cpu > CPU_LIMIT:
        vcpu = layout.instance.vcpu if layout.instance else "?"
        return (f"CPU {cpu:.0%} busy at {server.params.tps:,.0f} tps on {vcpu} "
                f"vCPU (limit {CPU_LIMIT:.0%})")
    reads, writes, _ = _demand(server)
    lim = c.limits(catalog)
    burst = _bursting_allowed(layout, lim, req.peak_hours, reads + writes)
    rcap = capacity(layout, catalog, write=False, size_kib=16, bursting=burst, limits=lim)
    wcap = capacity(layout, catalog, write=True, size_kib=16, bursting=burst, limits=lim)
    util = reads / rcap.iops + writes / wcap.iops
    if util > 1.0:
        binding = rcap.binding if reads / rcap.iops >= writes / wcap.iops else wcap.binding
        return (f"needs {reads:,.0f} reads/s + {writes:,.0f} writes/s at {server.params.tps:,.0f} "
                f"tps; {binding} allows {rcap.iops:,.0f} reads/s or {wcap.iops:,.0f} writes/s"
                f"{'' if burst else ' sustained'} ({_over(util)} of capacity)")
    return None


def _over(util: float) -> str:
    return f"{util:.0%}" if util < 10 else f"{util:,.0f}x"


def evaluate(plan: SimPlan, server: MysqlServer, req: MysqlSizeRequest) -> SteadyState:
    mix = build_mix(plan, server.request_classes(), server.background_specs())
    return steady_state(plan, mix, rate=server.rate_tps, duration_s=req.peak_hours * 3600)


def _state(c: Candidate, plan: SimPlan, req: MysqlSizeRequest, replicas: int, tps: float,
           measured: TxnIo | None) -> tuple[MysqlServer, SteadyState]:
    """The candidate's server at `tps` and its steady state (once per replica count and load)."""
    key = (replicas, tps)
    if key not in c._states:
        server = server_for(req, c.layout, c.role, replicas, tps, measured)
        c._states[key] = (server, evaluate(plan, server, req))
    return c._states[key]


def _screen(c: Candidate, plan: SimPlan, req: MysqlSizeRequest, replicas: int,
            measured: TxnIo | None) -> str | None:
    role = c.role
    for label, tps in (("target", req.tps), ("headroom", req.target_tps)):
        server, st = _state(c, plan, req, replicas, tps, measured)
        if label == "target":
            c.at_target = st
        else:
            c.at_headroom = st
        what = "reads" if role == "replica" else "writes" if replicas else "transactions"
        if st.backlog or st.utilisation > UTILISATION_LIMIT:
            return (f"{role} saturates at {label} load {tps:,.0f} tps ({server.rate_tps:,.0f} "
                    f"{what}/s): {st.binding} {min(st.utilisation, 9.99):.0%} busy")
        if st.p99_s * 1000 > req.p99_ms:
            return (f"{role} p99 {st.p99_s * 1000:,.1f} ms > {req.p99_ms:g} ms at {label} load "
                    f"{tps:,.0f} tps ({server.rate_tps:,.0f} {what}/s); busiest {st.binding} at "
                    f"{st.utilisation:.0%}")
        if role == "replica":
            cap = apply_capacity_tps(server, plan, None)
            if cap < server.params.write_tps:
                return (f"replica falls behind at {label} load: applies {cap:,.0f} writes/s < "
                        f"{server.params.write_tps:,.0f}")
    return None


def _verify(c: Candidate, plan: SimPlan, req: MysqlSizeRequest, replicas: int,
            measured: TxnIo | None) -> str | None:
    from advisor.sim.des import run_des

    server = server_for(req, c.layout, c.role, replicas, req.target_tps, measured)
    raw = run_des(plan, server, duration_s=VERIFY_SECONDS, seed=req.seed, warmup_s=2.0)
    p99 = raw.request_latency["all"].quantile_s(99) * 1000
    c.details["des_p99_ms_at_headroom"] = round(p99, 3)
    c.details["des_requests"] = raw.request_latency["all"].n
    if p99 > req.p99_ms:
        return (f"{c.role} p99 {p99:,.1f} ms > {req.p99_ms:g} ms at headroom load "
                f"{req.target_tps:,.0f} tps in the event simulation")
    if raw.background_lag_s > 1.0:
        return f"{c.role} page flushing falls {raw.background_lag_s:,.1f} s behind (DES)"
    return None


def search_role(req: MysqlSizeRequest, catalog: Catalog, role: str, replicas: int, *,
                ebs: bool, store: bool, measured: TxnIo | None, want: int = 6,
                verify: int = 1, stats: dict[str, int]) -> list[Candidate]:
    """All priced candidates for the role, cheapest first, with their verdicts."""
    probe = server_for(req, _probe_layout(catalog), role, replicas, req.target_tps, measured)
    reads, writes, mib = _demand(probe)
    demand = Demand(iops=reads + writes, mibps=mib, capacity_gib=req.needed_gib)
    cpu_per_s = ((probe.rate_tps * probe.read_share * probe.params.cpu_ms_read
                  + (probe.rate_tps * (1 - probe.read_share) + probe.write_apply_tps)
                  * probe.params.cpu_ms_write) / 1000)
    specs = list(candidate_specs(catalog, demand, ebs=ebs, store=store,
                                 min_vcpu=cpu_per_s / CPU_LIMIT))
    if not specs:  # no instance has the CPU: price the largest so the answer says why they fail
        top = max(i.vcpu for i in catalog.instance_types.values())
        specs = list(candidate_specs(catalog, demand, ebs=ebs, store=store, min_vcpu=top))
    cands: list[Candidate] = []
    seen: set[str] = set()
    for spec in specs:
        key = str(spec)
        if key in seen:
            continue
        seen.add(key)
        try:
            layout = resolve(spec, catalog)
        except AdvisorError:
            continue
        cands.append(Candidate(layout=layout, role=role, monthly_usd=monthly_usd(layout),
                               spec=key))
    cands.sort(key=lambda c: (round(c.monthly_usd, 2), c.layout.spec.count, c.spec))
    stats["considered"] += len(cands)
    passing = verified = attempts = screened_after = 0
    for c in cands:
        # Enough survivors, and varied enough for the alternatives (one without RAID, more than
        # one instance family), or the screen has looked far enough past the first survivors.
        if passing >= want and (diverse(cands) or screened_after >= MAX_SCREENED):
            break
        server = server_for(req, c.layout, role, replicas, req.target_tps, measured)
        reason = _precheck(c, catalog, server, req)
        if reason:
            c.stage, c.reason = "pruned", reason
            stats["pruned"] += 1
            continue
        plan = c.plan(catalog)
        c.stage = "screened"
        stats["screened"] += 1
        if passing >= want:
            screened_after += 1
        c.reason = _screen(c, plan, req, replicas, measured)
        if c.reason:
            continue
        # The cheapest survivors go through the event simulation until `verify` of them pass
        # it (at most 4 attempts); later ones rank as alternatives on the analytic screen.
        if verified < verify and attempts < 4:
            c.stage = "verified"
            stats["verified"] += 1
            attempts += 1
            c.reason = _verify(c, plan, req, replicas, measured)
            if c.reason:
                continue
            verified += 1
        c.ok = True
        passing += 1
    return cands


def _probe_layout(catalog: Catalog) -> Layout:
    """A mid-size reference layout to estimate the demand before the instance is known."""
    return resolve("r5.xlarge:gp3:2TiB", catalog) if "r5.xlarge" in catalog.instance_types \
        else resolve(f"{next(iter(catalog.instance_types))}:gp3:2TiB", catalog)


def max_tps_at_slo(req: MysqlSizeRequest, catalog: Catalog, master: Candidate,
                   replica: Candidate | None, replicas: int, measured: TxnIo | None, *,
                   des_check: bool = False) -> int:
    """The knee: highest total tps at which every server still meets the SLO (analytic; with
    `des_check`, confirmed by the event simulation). Computed once per deployment and check in a
    sizing: the master candidate keeps it."""
    key = (replica.spec if replica is not None else None, replicas, des_check)
    if key not in master._knees:
        master._knees[key] = _knee(req, catalog, master, replica, replicas, measured,
                                   des_check=des_check)
    return master._knees[key]


def _meets(c: Candidate, catalog: Catalog, req: MysqlSizeRequest, replicas: int, tps: float,
           measured: TxnIo | None) -> bool:
    """The server meets the SLO at `tps` on the analytic engine, with CPU and apply to spare."""
    plan = c.plan(catalog)
    server, st = _state(c, plan, req, replicas, tps, measured)
    if st.backlog or st.utilisation > UTILISATION_LIMIT or st.p99_s * 1000 > req.p99_ms:
        return False
    if cpu_utilisation(server, c.layout) > CPU_LIMIT:
        return False
    return not (c.role == "replica"
                and apply_capacity_tps(server, plan, None) < server.params.write_tps)


def _knee(req: MysqlSizeRequest, catalog: Catalog, master: Candidate, replica: Candidate | None,
          replicas: int, measured: TxnIo | None, *, des_check: bool) -> int:
    servers = [c for c in (master, replica) if c is not None]

    def ok(tps: float) -> bool:
        return all(_meets(c, catalog, req, replicas, tps, measured) for c in servers)

    lo, hi = 0.0, max(req.tps, 1.0)
    while ok(hi) and hi < 1e8:
        lo, hi = hi, hi * 2
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        if hi - lo <= max(1.0, 0.005 * hi):
            break
    if not des_check:
        return math.floor(lo)
    # The analytic knee can be optimistic in the tail: confirm it in the event simulation and
    # step down until the DES agrees (never below the verified headroom load).
    floor_tps = req.target_tps
    tps = lo
    for _ in range(6):
        if tps <= floor_tps or _des_ok(req, catalog, servers, replicas, measured, tps):
            break
        tps = max(floor_tps, tps * 0.93)
    return math.floor(tps)


def _des_ok(req: MysqlSizeRequest, catalog: Catalog, servers: list[Candidate], replicas: int,
            measured: TxnIo | None, tps: float) -> bool:
    from advisor.sim.des import run_des

    for c in servers:
        server = server_for(req, c.layout, c.role, replicas, tps, measured)
        raw = run_des(c.plan(catalog), server, duration_s=VERIFY_SECONDS, seed=req.seed,
                      warmup_s=2.0)
        if raw.request_latency["all"].quantile_s(99) * 1000 > req.p99_ms:
            return False
        if raw.background_lag_s > 1.0:
            return False
    return True
