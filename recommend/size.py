"""`size`: the cheapest deployment that meets the SLO, with alternatives and reasons. One core
call shared by `advisor size` and `POST /v1/size`."""

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog
from advisor.errors import InfeasibleSlo, over_budget_text
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.durability import layout_durability, probability
from recommend.explain import RoleModel, role_model
from recommend.mysql_search import (
    MAX_DES_CANDIDATES,
    Candidate,
    bottleneck_of,
    deployment_knee,
    des_check,
    idle_role,
    passes_des,
    search_role,
    server_for,
)
from recommend.request import MysqlSizeRequest
from recommend.result import (
    CostSummary,
    DurabilityView,
    LossWindow,
    MysqlCost,
    MysqlDeployment,
    MysqlSizeResult,
    Rejection,
    SearchStats,
    Variability,
    bottleneck_text,
)
from recommend.variability import variability
from workloads.mysql import TxnIo
from workloads.mysql_run import apply_capacity_tps

Progress = Callable[[int, float], None]  # (step, fraction done)
PAIRED = 4  # deployments pair each role's cheapest screen survivors, this many of each
# The answer's p99 over weeks in the event simulation (`variability`) must meet the SLO too: a
# deployment whose servers miss it there is refused and the next verified one taken, at most this
# many times (each costs two event simulations per server, as long as its headroom check).
LONG_RUN_REFUSALS = 4


@dataclass(slots=True)
class Deployment:
    master: Candidate
    replica: Candidate | None
    replicas: int

    @property
    def monthly_usd(self) -> float:
        extra = self.replica.monthly_usd * self.replicas if self.replica else 0.0
        return self.master.monthly_usd + extra

    @property
    def text(self) -> str:
        if not self.replicas or self.replica is None:
            return f"master {self.master.spec} (serves reads too)"
        return f"master {self.master.spec} + {self.replicas} x replica {self.replica.spec}"

    @property
    def ephemeral(self) -> bool:
        return self.master.layout.ephemeral or bool(self.replica and self.replica.layout.ephemeral)

    @property
    def uses_raid(self) -> bool:
        return bool(self.master.layout.spec.raid
                    or (self.replica and self.replica.layout.spec.raid))

    def servers(self) -> list[Candidate]:
        return [self.master] + ([self.replica] if self.replica and self.replicas else [])

    def simplicity(self) -> int:
        return (self.master.layout.spec.count
                + (self.replica.layout.spec.count if self.replica else 0))


def _options(req: MysqlSizeRequest) -> list[int]:
    """Replica counts to search: `auto` keeps at least one (a master alone is no HA answer);
    0 only when asked for."""
    return [req.replicas] if req.replicas is not None else [1, 2, 3]


def _loss_window(dep: Deployment, req: MysqlSizeRequest, catalog: Catalog,
                 measured: TxnIo | None) -> LossWindow | None:
    """What losing the instance-store master loses, at the target load.

    Asynchronous replication: the replica lags the master by the binlog relay (the dump thread
    sends each event once the master's binlog holds it: one network one-way, half the model's
    round trip) plus its apply queue, taken as one queue serving at the replica's apply capacity
    (M/M/1, as `--explain` states the lag: (1 / cap) / (1 - rho), rho = write rate / apply
    capacity). Transactions
    committed within that lag are not yet on the replica. Semi-synchronous (AFTER_SYNC): a
    commit is acknowledged once a replica holds it in its relay log, so none acknowledged is lost
    (until the master falls back to asynchronous after rpl_semi_sync_master_timeout)."""
    r = dep.replica
    if not dep.master.layout.ephemeral or r is None or not dep.replicas:
        return None
    server = server_for(req, r.layout, "replica", dep.replicas, req.tps, measured)
    writes = server.params.write_tps
    rtt_ms = float(getattr(server.params, "network_rtt_ms", 0.5))
    relay_ms = rtt_ms / 2
    if getattr(req, "semi_sync", False):
        return LossWindow(
            replication="semi-synchronous", window_ms=0.0, transactions=0.0, relay_ms=relay_ms,
            apply_lag_ms=0.0,
            text=("semi-synchronous replication: a commit is acknowledged only once a replica "
                  "holds it, so losing the instance-store master loses no acknowledged "
                  "transaction (commits in flight are not acknowledged; the master falls back "
                  "to asynchronous if no replica answers within rpl_semi_sync_master_timeout)"))
    cap = apply_capacity_tps(server, r.plan(catalog), None)
    rho = writes / cap if cap > 0 else math.inf
    apply_ms = math.inf if rho >= 1 else 1000 / cap / (1 - rho)
    window_ms = relay_ms + apply_ms
    lost = writes * window_ms / 1000
    # An M/M/1 queue's time in system is exponential: its p99 is ln 100 (4.6) x its mean.
    window_p99_ms = relay_ms + apply_ms * math.log(100)
    text = (f"asynchronous replication: losing the instance-store master loses the write "
            f"transactions committed within the replica lag, ~{window_ms:,.2f} ms at "
            f"{req.tps:,.0f} tps (~{lost:,.2f} transactions at {writes:,.0f} writes/s): binlog "
            f"relay {relay_ms:,.2f} ms (half the assumed {rtt_ms:g} ms network round trip) + "
            f"apply queue {apply_ms:,.2f} ms (apply capacity {cap:,.0f} writes/s, "
            f"{rho:.0%} busy, one M/M/1 queue); at the lag's 99th percentile "
            f"~{window_p99_ms:,.2f} ms (~{writes * window_p99_ms / 1000:,.2f} transactions: "
            "the queue's time in system is exponential, ln 100 x its mean); those already in "
            "the replica's relay log survive if the replica does. --semi-sync makes it zero "
            "acknowledged transactions"
            ) if math.isfinite(window_ms) else (
            f"asynchronous replication: the replica applies {cap:,.0f} writes/s < {writes:,.0f}"
            ": its lag grows without bound, and so does what losing the master loses")
    bounded = math.isfinite(window_ms)
    return LossWindow(replication="asynchronous",
                      window_ms=round(window_ms, 3) if bounded else None,
                      transactions=round(lost, 3) if bounded else None,
                      relay_ms=round(relay_ms, 3),
                      apply_lag_ms=round(apply_ms, 3) if bounded else None, text=text,
                      window_p99_ms=round(window_p99_ms, 3) if bounded else None)


def _durability(dep: Deployment, req: MysqlSizeRequest, catalog: Catalog,
                measured: TxnIo | None) -> DurabilityView:
    notes: list[str] = []
    loss = {}
    for c in (dep.master, dep.replica):
        if c is None:
            continue
        d = layout_durability(c.layout)
        loss[c.role] = d.annual_loss_probability
        if d.ephemeral:
            notes.append(f"{c.role} {c.spec} uses instance store: its data is lost on stop, "
                         "hibernate, terminate or host failure; it is rebuilt from the "
                         f"{'replica' if c.role == 'master' else 'master'} "
                         "(re-clone time not modelled)")
        notes.extend(f"{c.role}: {a}" for a in d.assumptions[:2])
    # Data is lost only if every copy is: master and each replica hold a full copy.
    p_all = loss.get("master", 0.0) * (loss.get("replica", 1.0) ** dep.replicas if dep.replicas
                                       else 1.0)
    window = _loss_window(dep, req, catalog, measured)
    if window is not None:
        notes.insert(0, f"loss window: {window.text}")
    return DurabilityView(ephemeral=dep.ephemeral, annual_loss_probability=dict(loss),
                          all_copies_lost_probability=probability(p_all), notes=tuple(notes),
                          loss_window=window)


def _missed_p99(c: Candidate, req: MysqlSizeRequest) -> tuple[float, str, bool] | None:
    """The p99 a rejected candidate misses the SLO by, and where: the worst of its checks (the
    screen at the target and the headroom load and over weeks, the event simulation's at each
    load it ran: the upper end of its p99's 95 % interval where that, not the p99, is over the
    SLO, as it decides the check), or its p99 floor (a bound, `True`). None when no latency was
    computed for it, or none is over the SLO (it missed on something else: CPU, a limit, the
    applier, lag)."""
    figures = [(st.p99_s * 1000, f"at the {label} load {tps:,.0f} tps")
               for st, label, tps in ((c.at_target, "target", req.tps),
                                      (c.at_headroom, "headroom", req.target_tps))
               if st is not None]
    for key, engine in (("p99_ms_long_run", ""), ("des_p99_ms_long_run", " in the event "
                                                                       "simulation")):
        if key in c.details:  # the screen's, with the volumes' slow episodes, or the DES's
            figures.append((float(c.details[key]),
                            f"over weeks at the headroom load {req.target_tps:,.0f} tps{engine}, "
                            "with its volumes' slow episodes"))
    for x in c.details.get("des_loads", ()):
        if not x.requests:
            continue
        where = f"at the {x.load} load {x.tps:,.0f} tps in the event simulation"
        high = x.p99_ci95_ms[1]
        if x.p99_ms <= req.p99_ms < high:
            figures.append((high, f"{where}: the upper end of the 95 % interval of its p99 "
                                  f"{x.p99_ms:,.2f} ms"))
        else:
            figures.append((x.p99_ms, where))
    if figures:
        p99, where = max(figures)
        return (p99, where, False) if p99 > req.p99_ms else None
    if "p99_floor_ms" in c.details:
        return float(c.details["p99_floor_ms"]), f"at the target load {req.tps:,.0f} tps", True
    return None


def _lowest_p99(rejected: list[Candidate], req: MysqlSizeRequest) -> tuple[float, str] | None:
    """The lowest p99 a deployment could have among the rejected candidates, each candidate
    counted by the worst of its checks (what it misses the SLO by: a screen that passed at the
    target load and failed at the headroom load, or in the event simulation, is not 'the lowest
    p99'). A deployment is as slow as its slowest server, so the role whose best candidate is
    slowest sets it (a replica's 0.2 ms says nothing when no master gets under 4 ms). A
    candidate refused by its p99 floor counts with the floor, a bound (said so)."""
    best: dict[str, tuple[float, Candidate, str, bool]] = {}
    for c in rejected:
        missed = _missed_p99(c, req)
        if missed is None:
            continue
        p99, where, bound = missed
        held = best.get(c.role)
        if held is None or (p99, c.monthly_usd) < (held[0], held[1].monthly_usd):
            best[c.role] = (p99, c, where, bound)
    if not best:
        return None
    p99, c, where, bound = max(best.values(), key=lambda t: t[0])
    return p99, (f"{c.role} {c.spec}, ${c.monthly_usd:,.2f}/month, {where}"
                 + (": at least this, its transactions' service times alone" if bound else ""))


def _deployment(dep: Deployment, req: MysqlSizeRequest, catalog: Catalog,
                measured: TxnIo | None, *, des_knee: bool = False,
                why: str | None = None) -> MysqlDeployment:
    m, r = dep.master, dep.replica
    servers = [m] + ([r] if r is not None and dep.replicas else [])
    # The deployment's p99 is its transactions': a server no transaction reaches (a replica
    # when the shape has no read-only transactions) has only its applier's steady state, whose
    # p99 is no user's latency (sysbench-oltp-rw: 15.16 ms at the headroom load was reported
    # as the deployment's, the master's 7.28 ms).
    timed = [c for c in servers
             if server_for(req, c.layout, c.role, dep.replicas, req.tps, measured).serves_requests]
    p99_target = max((c.at_target.p99_s for c in timed if c.at_target), default=0.0) * 1000
    bottlenecks = tuple(bottleneck_of(c, catalog, req, dep.replicas, measured)
                        for c in servers if c.at_headroom)
    knee = deployment_knee(req, catalog, m, r if dep.replicas else None, dep.replicas, measured,
                           des_check=des_knee)
    tps = math.floor(knee)
    idle = [c.role for c in servers if idle_role(c, req, dep.replicas, measured)]
    return MysqlDeployment(
        idle=(f"{' and '.join(idle)} receives no transactions (the shape has no writes, and "
              f"every read goes to the replica{'s' if dep.replicas > 1 else ''}): sized by "
              "capacity and CPU alone; it has no latency to screen or to check in the event "
              "simulation, and it could not take a failed replica's reads (size with one "
              "replica more to survive that)") if idle else None,
        why=why, deployment=dep.text, master=m.spec,
        replicas=(r.spec,) * dep.replicas if r else (),
        monthly_usd=round(dep.monthly_usd, 2),
        cost=MysqlCost(master=CostSummary.of(m.cost),
                       replica_each=CostSummary.of(r.cost) if r and dep.replicas else None),
        p99_ms=round(p99_target, 3),
        p99_ms_at_headroom=round(max((c.at_headroom.p99_s for c in timed if c.at_headroom),
                                     default=0.0) * 1000, 3),
        bottleneck=bottleneck_text(bottlenecks), bottlenecks=bottlenecks,
        capacity_gib=round(usable_capacity_gib(m.layout), 1),
        durability=_durability(dep, req, catalog, measured),
        verified={c.role: check for c in servers
                  if (check := des_check(c, req, (dep.replicas, knee) if des_knee else None))
                  is not None},
        max_tps_at_slo=int(tps),
        knee_engine=("event simulation: the highest of the analytic knee and its 7 % steps "
                     "down at which every server meets the SLO in the DES (bisection)"
                     if des_knee else "analytic"),
        headroom_pct=round((tps / req.tps - 1) * 100, 1))


def size_mysql(req: MysqlSizeRequest, catalog: Catalog, measured: TxnIo | None = None,
               progress: Progress | None = None) -> MysqlSizeResult:
    stats = {"considered": 0, "pruned": 0, "screened": 0, "verified": 0}
    deployments: list[Deployment] = []
    searched: list[Candidate] = []
    blocked: set[str] = set()  # roles for which no candidate passed
    for n in _options(req):
        store_master = req.allow_ephemeral and n >= 1
        masters = search_role(req, catalog, "master", n, ebs=True, store=store_master,
                              measured=measured, stats=stats)
        ok_m = [c for c in masters if c.ok]
        searched += masters
        if not ok_m:
            blocked.add("master")
        if n == 0:
            deployments += [Deployment(master=c, replica=None, replicas=0) for c in ok_m]
            continue
        reps = search_role(req, catalog, "replica", n, ebs=True, store=req.allow_ephemeral,
                           measured=measured, stats=stats)
        ok_r = [c for c in reps if c.ok]
        searched += reps
        if not ok_r:
            blocked.add("replica")
        # The screen's survivors; each server is verified in the event simulation when a
        # deployment it belongs to is about to be shown (`good`), cheapest first.
        for m in ok_m[:PAIRED]:
            for r in ok_r[:PAIRED]:
                deployments.append(Deployment(master=m, replica=r, replicas=n))
        if progress:
            progress(n, 1.0)
    if req.max_monthly_usd is not None:
        over = [d for d in deployments if d.monthly_usd > req.max_monthly_usd]
        deployments = [d for d in deployments if d.monthly_usd <= req.max_monthly_usd]
    else:
        over = []
    deployments.sort(key=lambda d: (round(d.monthly_usd, 2), d.simplicity(), d.text))

    def good(d: Deployment) -> bool:
        """Every server of the deployment passes the event simulation (verified on first ask)."""
        return all(passes_des(c, catalog, req, d.replicas, measured, stats)
                   for c in d.servers())

    best, weeks, refusals = _verified_over_weeks(deployments, good, req, catalog, measured, stats)
    rejected = [c for c in searched if c.reason]
    if best is None:
        blocked |= {c.role for c in searched if c.stage == "verified" and not c.ok}
        # Explain the role nothing passed for: passing masters are no answer without a replica.
        pool = [c for c in rejected if c.role in blocked] or rejected
        # The closest: those the models judged (their p99 or saturation), else the precheck's
        # near misses (within the rates, not the margin), else the cheapest of the rest.
        closest = sorted((c for c in pool if c.stage in ("screened", "verified")),
                         key=lambda c: c.monthly_usd)[:5]
        if not closest:
            closest = sorted((c for c in pool if c.details.get("near_miss")),
                             key=lambda c: c.monthly_usd)[:5]
        if not closest:
            closest = sorted(pool, key=lambda c: c.monthly_usd)[:5]
        lines = [f"{c.spec} (${c.monthly_usd:,.2f}/month): {c.reason}" for c in closest]
        if refusals >= LONG_RUN_REFUSALS:
            lines.insert(0, f"the event simulation refused {refusals} answers over weeks (with "
                         "the volumes' slow episodes; the search's bound): the next ones were "
                         "not checked")
        if stats.get("unverified_at_bound"):
            lines.insert(0, f"the event simulation checked {stats['verified']} candidates (the "
                         f"search's bound, {MAX_DES_CANDIDATES}) without verifying a whole "
                         f"deployment; {stats['unverified_at_bound']} more passed the analytic "
                         "screen and were left unverified")
        budget = None
        # Over the budget: the cheapest deployment that meets the SLO, verified like an answer,
        # so the user learns what budget the SLO needs.
        over.sort(key=lambda d: (round(d.monthly_usd, 2), d.simplicity(), d.text))
        dearer = next((d for d in over if good(d)), None)
        if dearer is not None and req.max_monthly_usd is not None:
            budget = over_budget_text("deployment", dearer.monthly_usd, req.max_monthly_usd,
                                      dearer.text)
            lines.insert(0, budget)
        low = _lowest_p99(rejected, req)
        raise InfeasibleSlo("; ".join(lines) or "no candidate layout in the catalog",
                            best_p99_ms=None if low is None else low[0],
                            best=None if low is None else low[1], over_budget=budget)
    rec = _deployment(best, req, catalog, measured, des_knee=True)
    rec = replace(rec, variability=weeks)
    alts = _alternatives(deployments, best, req, catalog, measured, good)
    rejected = [c for c in searched if c.reason]  # with those the alternatives' checks rejected
    role_price = {"master": best.master.monthly_usd,
                  "replica": best.replica.monthly_usd if best.replica else 0.0}
    # Rejected candidates no dearer than the recommended server of their role (the ones a user
    # would ask "why not this?" about), near misses first.
    chosen = {("master", best.master.spec),
              ("replica", best.replica.spec if best.replica else "")}
    # Every candidate the event simulation rejected is listed too, whatever its price.
    cheaper = sorted((c for c in rejected if (c.monthly_usd <= role_price.get(c.role, 0.0) + 1e-9
                                              or c.stage == "verified")
                      and (c.role, c.spec) not in chosen), key=lambda c: c.monthly_usd)
    return MysqlSizeResult(
        request=req, slo=req.slo_json(), recommendation=rec, alternatives=tuple(alts),
        rejected=tuple(Rejection(deployment=f"{c.role} {c.spec}",
                                 monthly_usd=round(c.monthly_usd, 2), stage=c.stage,
                                 reason=c.reason or "") for c in _distinct(cheaper)[:12]),
        rejected_total=len(cheaper),
        search=SearchStats(considered=stats["considered"], pruned=stats["pruned"],
                           screened=stats["screened"], verified=stats["verified"],
                           verify_bound=MAX_DES_CANDIDATES,
                           unverified_at_bound=stats.get("unverified_at_bound", 0),
                           des_rejected=stats.get("des_rejected") or None,
                           confirmations=stats.get("confirmations") or None,
                           confirmation_failures=stats.get("confirmation_failures") or None,
                           des_shared=stats.get("des_shared") or None,
                           long_run_rejected=stats.get("long_run_rejected") or None),
        seed=req.seed,
        model_version=MODEL_VERSION, advisor_version=__version__,
        catalog_version=catalog.catalog_version,
        workload_shape=tuple(req.params(replicas=best.replicas, tps=req.tps).shape_lines()),
        io_profile=measured.source if measured is not None else "model",
        io_model=io_models(best.master, best.replica if best.replicas else None, req, catalog,
                           best.replicas, measured))


def _verified_over_weeks(deployments: list[Deployment], good: Callable[[Deployment], bool],
                         req: MysqlSizeRequest, catalog: Catalog, measured: TxnIo | None,
                         stats: dict[str, int],
                         ) -> tuple[Deployment | None, Variability | None, int]:
    """The cheapest deployment that passes the event simulation (`good`) and whose p99 over
    weeks there (`variability`: its servers' usual state and one volume in a slow episode, mixed
    by their shares of time) meets the SLO, with that estimate, and how many were refused over
    weeks. A server that misses it is rejected with the event simulation's figures, so no
    later deployment takes it; after LONG_RUN_REFUSALS refusals, none (the search's bound). The
    screen judges the same p99 on the analytic engine (`mysql_search.long_run`), so a refusal
    here is a candidate the screen passed near the SLO."""
    refusals = 0
    while True:
        best = next((d for d in deployments if good(d)), None)
        if best is None:
            return None, None, refusals
        weeks = variability(best.servers(), req, catalog, best.replicas, measured)
        if weeks is None or weeks.meets_slo_long_run is not False:
            return best, weeks, refusals
        for c in best.servers():
            s = next((x for x in weeks.servers if x.role == c.role), None)
            if s is None or s.p99_ms_long_run is None or s.p99_ms_long_run <= req.p99_ms:
                continue
            c.ok = False
            c.details["des_p99_ms_long_run"] = s.p99_ms_long_run
            c.reason = (f"{c.role} p99 over weeks {s.p99_ms_long_run:,.2f} ms > {req.p99_ms:g} "
                        f"ms at headroom load {req.target_tps:,.0f} tps in the event simulation, "
                        f"with its volumes' slow episodes: {s.p99_ms_steady:,.2f} ms usually, "
                        f"{s.p99_ms_episode or 0.0:,.2f} ms while one of its volumes is in one "
                        f"({s.episode_share or 0.0:.2%} of the time)")
            stats["long_run_rejected"] = stats.get("long_run_rejected", 0) + 1
        refusals += 1
        if refusals >= LONG_RUN_REFUSALS:
            return None, None, refusals


def io_models(master: Candidate, replica: Candidate | None, req: MysqlSizeRequest,
              catalog: Catalog, replicas: int, measured: TxnIo | None) -> tuple[RoleModel, ...]:
    """The I/O model of each role of a deployment at the target load (`size --explain`)."""
    from recommend.mysql_search import server_for

    out = []
    for c in (master, replica):
        if c is None:
            continue
        server = server_for(req, c.layout, c.role, replicas, req.tps, measured)
        st = c.at_target
        out.append(role_model(role=c.role, layout=c.layout, catalog=catalog, server=server,
                              plan=c.plan(catalog), binding=st.binding if st else "none",
                              binding_utilisation=st.utilisation if st else 0.0))
    return tuple(out)


def _distinct(cands: list[Candidate]) -> list[Candidate]:
    """The cheaper rejections worth reading: every candidate the event simulation rejected
    first, then every near miss (one that got as far as the screen, or that the precheck
    rejected within the rates but not within the screen's margin on them), then one hard-limit
    rejection per role, instance and device type."""
    near = [c for c in cands if c.stage == "verified"] + [
        c for c in cands if c.stage == "screened" or (c.stage == "pruned"
                                                      and c.details.get("near_miss"))]
    out, seen = list(near), {(c.role, c.spec) for c in near}
    kinds: set[tuple[str, str, str]] = set()
    for c in cands:
        kind = (c.role, c.layout.spec.instance, c.layout.spec.device)
        if (c.role, c.spec) in seen or kind in kinds:
            continue
        kinds.add(kind)
        out.append(c)
    return out


def _alternatives(deps: list[Deployment], best: Deployment, req: MysqlSizeRequest,
                  catalog: Catalog, measured: TxnIo | None,
                  good: Callable[[Deployment], bool]) -> list[MysqlDeployment]:
    """3-5 deployments worth weighing against the recommendation, each with why; only ones
    whose servers pass the event simulation (`good`, asked last: it may run it)."""
    def family(d: Deployment) -> str:
        return d.master.layout.spec.instance.split(".")[0]

    def kind(d: Deployment) -> tuple[str, str, str, str]:
        r = d.replica.layout.spec if d.replica else d.master.layout.spec
        m = d.master.layout.spec
        return (m.instance, m.device, r.instance, r.device)

    rest = [d for d in deps if d is not best]
    picks: list[tuple[str, Deployment | None]] = [
        ("next cheapest on other instances or volume types",
         next((d for d in rest if kind(d) != kind(best) and good(d)), None)),
        ("cheapest without RAID", next((d for d in rest if not d.uses_raid and good(d)), None)
         if best.uses_raid else None),
        ("cheapest on another instance family",
         next((d for d in rest if family(d) != family(best) and good(d)), None)),
        ("cheapest with instance store",
         next((d for d in rest if d.ephemeral and good(d)), None)),
        ("cheapest on EBS only", next((d for d in rest if not d.ephemeral and good(d)), None)
         if best.ephemeral else None),
        ("cheapest with another replica count",
         next((d for d in rest if d.replicas != best.replicas and good(d)), None)),
        ("next cheapest", next((d for d in rest if good(d)), None)),
    ]
    chosen: list[tuple[str, Deployment]] = []
    seen = {best.text}
    for why, d in picks:
        if d is None or d.text in seen:
            continue
        seen.add(d.text)
        chosen.append((why, d))
        if len(chosen) >= 4:
            break
    for d in rest:  # top up to three with the next cheapest distinct ones
        if len(chosen) >= 3:
            break
        if d.text not in seen and good(d):
            seen.add(d.text)
            chosen.append(("next cheapest", d))
    out = [_deployment(d, req, catalog, measured, des_knee=True, why=why) for why, d in chosen]
    if out:
        i = max(range(len(out)), key=lambda k: out[k].max_tps_at_slo
                / max(out[k].monthly_usd, 1e-9))
        out[i] = replace(out[i], why=f"{out[i].why}; most headroom per dollar of these")
    return out
