"""Simulate a MySQL deployment (master + replicas) under rising load and find its knee."""

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.layout.describe import usable_capacity_gib
from advisor.layout.model import Layout
from advisor.sim.analytic import build_mix, mix_level
from advisor.sim.analytic.commit import with_group_commit
from advisor.sim.analytic.engine import MixLevel
from advisor.sim.des import RawLevel, run_des
from advisor.sim.plan import SimPlan, compile_plan
from advisor.sim.result import des_level
from advisor.sim.results import Latency, LatencySummary
from advisor.sim.source import Background, Requests
from advisor.sim.stats import LatencyStats
from advisor.units import shown_past
from workloads.mysql import GIB, MysqlParams, MysqlServer, TxnIo, derive_io, servers
from workloads.results import (
    DeployedLayouts,
    IoProfileView,
    Knee,
    MysqlLevel,
    MysqlSimResult,
    MysqlSlo,
    ReadTxnIo,
    Replication,
    ServerLevel,
    WriteTxnIo,
)

ProgressFn = Callable[[int, float], None]
# What a server's level leaves for combining latency over servers: the event run's statistics
# or the analytic level's distributions.
ServerStats = dict[str, LatencyStats] | MixLevel
BACKGROUND_LAG_LIMIT_S = 1.0
CPU_LIMIT = 0.85
# InnoDB's checkpoint-age rule (log0log: max_modified_age_sync = 15/16 of the redo capacity's
# margin): past it, foreground threads flush pages themselves, i.e. writes wait for flushing.
# workloads.mysql.derive_io already lets pages coalesce over 75 % of the redo log, so flushing
# may fall (15/16 - 3/4) of the redo log behind before writes are held.
SYNC_FLUSH_FRACTION = 15 / 16
FLUSH_WINDOW_FRACTION = 0.75


@dataclass(frozen=True, slots=True, kw_only=True)
class Deployment:
    master: Layout
    replica: Layout | None  # every replica uses this layout

    def replicas_for(self, params: MysqlParams) -> list[str]:
        layout = self.replica or self.master
        return [str(layout.spec)] * params.replicas


def _server_layout(dep: Deployment, role: str) -> Layout:
    return dep.master if role == "master" else (dep.replica or dep.master)


def _check_fits(dep: Deployment, params: MysqlParams) -> None:
    for role in ("master", "replica") if params.replicas else ("master",):
        layout = _server_layout(dep, role)
        cap = usable_capacity_gib(layout)
        if cap < params.data_gb * 1.05:
            raise InvalidInput(f"{role} layout {layout.spec}: {cap:,.0f} GiB usable is too small "
                               f"for {params.data_gb:g} GiB of data plus logs (needs "
                               f"{params.data_gb * 1.05:,.0f} GiB)")


def _io_for(layout: Layout, params: MysqlParams, measured: TxnIo | None) -> TxnIo:
    if measured is not None:
        return measured
    memory = layout.instance.memory_gib if layout.instance else 16.0
    return derive_io(params, memory, layout.instance.vcpu if layout.instance else 2)


def build_servers(dep: Deployment, params: MysqlParams,
                  measured: TxnIo | None) -> list[MysqlServer]:
    data = int(params.data_gb * GIB)
    return servers(params, _io_for(dep.master, params, measured),
                   _io_for(dep.replica or dep.master, params, measured), data_bytes=data,
                   master_capacity=int(usable_capacity_gib(dep.master) * GIB),
                   replica_capacity=int(usable_capacity_gib(dep.replica or dep.master) * GIB))


def cpu_utilisation(server: MysqlServer, layout: Layout) -> float:
    p = server.params
    vcpu = layout.instance.vcpu if layout.instance else 2
    reads = server.rate_tps * server.read_share
    writes = server.rate_tps * (1 - server.read_share)
    return (reads * p.cpu_ms_read + writes * p.cpu_ms_write
            + server.write_apply_tps * p.cpu_ms_apply) / 1000 / vcpu


def apply_capacity_tps(server: MysqlServer, plan: SimPlan, read_ms: float | None) -> float:
    """Read-write transactions/s the replica's applier can apply. One worker applies one
    transaction after another (its page reads, CPU and commit); `replica_workers` workers overlap
    all but the dependent share of the work (Amdahl: speed-up 1 / (d + (1 - d) / workers))."""
    d = server.params.replica_dependency
    speedup = 1 / (d + (1 - d) / server.params.workers)
    return speedup / _apply_seconds(server, plan, read_ms)


def apply_ceiling_tps(server: MysqlServer, plan: SimPlan, read_ms: float | None) -> float | None:
    """What the applier applies at most with any number of workers, 1 / (d x one transaction's
    apply time); None when no share of the work is dependent (d = 0)."""
    d = server.params.replica_dependency
    return 1 / (d * _apply_seconds(server, plan, read_ms)) if d > 0 else None


def _apply_seconds(server: MysqlServer, plan: SimPlan, read_ms: float | None) -> float:
    """One worker's time for one transaction: its page reads, its commits' flushes, its CPU."""
    p, io = server.params, server.io
    prof = plan.profile
    read_s = (read_ms / 1000) if read_ms else prof.read.median_ms / 1000
    commit_s = ((prof.write.median_ms + prof.flush_ms) / 1000 if p.flush_log_at_trx_commit == 1
                else 0)
    w = p.shape.write_txn
    commits = max(1, w.commits) if w is not None else 1
    return max(io.apply_reads * read_s + commits * commit_s + p.cpu_ms_apply / 1000, 1e-9)


def _fsync_note(server: MysqlServer, plan: SimPlan) -> str | None:
    commits = len(server._commit_ios())
    if server.role != "master" or commits == 0 or server.params.write_tps <= 0:
        return None  # a read-only shape commits no writes: nothing waits for a log flush
    prof = plan.profile
    flush = prof.write.median_ms + prof.flush_ms
    io = server.io
    reads = io.write_page_reads * prof.read.median_ms
    if commits * flush < reads + server.params.cpu_ms_write:
        return None
    return (f"fsync-bound: each write commit waits for {commits} log flush"
            f"{'es' if commits > 1 else ''} (redo{', binlog' if commits > 1 else ''}) of "
            f"~{flush:.2f} ms on {plan.profile.name}; group commit shares them between concurrent "
            "commits")


def flush_throttle_lag_s(server: MysqlServer, layout: Layout) -> float:
    """How far (s) page flushing may fall behind the master's writes before they are held: the
    redo log between the flushing window and InnoDB's sync-flush point, at the redo rate."""
    p = server.params
    redo_per_s = server.io.redo_bytes * p.write_tps
    if server.role != "master" or redo_per_s <= 0:
        return 0.0
    redo_mib = server.io.redo_log_mib or p.redo_mib(layout.instance.vcpu if layout.instance
                                                    else 2)
    return (SYNC_FLUSH_FRACTION - FLUSH_WINDOW_FRACTION) * redo_mib * 2**20 / redo_per_s


@dataclass(slots=True)
class ClosedLoop:
    """A server's transactions run by `concurrency` client threads, each starting its next
    transaction when the last one commits (sysbench --threads): no arrival times."""

    server: MysqlServer
    concurrency: int
    open_rate: float | None = None

    def requests(self, rng: np.random.Generator, count: int, t0: float) -> Requests:
        batch = self.server.requests(rng, count, t0)
        batch.sched = np.full(len(batch), -1.0)
        return batch

    def background(self, rng: np.random.Generator, t0: float, t1: float) -> Background:
        return self.server.background(rng, t0, t1)


IDLE_TEXT = ("idle: receives no transactions (the shape has no writes, and every read goes to "
             "the replicas)")


def _server_level(server: MysqlServer, layout: Layout, plan: SimPlan, *, engine: str,
                  duration_s: float, seed: int, warmup_s: float,
                  progress: Callable[[float], None] | None,
                  threads: int | None = None) -> tuple[ServerLevel, ServerStats]:
    """One server's level: open loop at its offered rate, or closed loop with `threads` clients.
    On the master, page flushing follows the transactions it runs, and writes are held when it
    falls behind (checkpoint age): past saturation throughput plateaus rather than collapses."""
    load: dict[str, float] = {"tps": round(server.rate_tps, 3)}
    if threads:
        load["threads"] = threads
    stats: ServerStats
    # A server offered no transactions (a master behind replicas under a read-only shape) runs
    # nothing: the analytic engine's idle level (no wait, no I/O), with no latency to report.
    idle = server.rate_tps <= 0 and not threads
    if engine == "des" and not idle:
        # Page flushes follow the transactions run. On a replica the applier's work (a stream
        # fed by the master) is coupled to the reads as well: past saturation the device serves
        # both in proportion instead of one open-loop stream taking all of it.
        source = ClosedLoop(server, threads) if threads else server
        raw: RawLevel = run_des(plan, source, duration_s=duration_s, seed=seed,
                                warmup_s=warmup_s, progress=progress,
                                couple_background=True,
                                throttle_lag_s=flush_throttle_lag_s(server, layout),
                                closed_rate=server.rate_tps if threads else 0.0)
        level = des_level(plan, raw, load=load, queue_depth=threads)
        # Throughput: transactions finished in the window, whenever they arrived (past
        # saturation the ones that arrived after the warm-up may all still be queued).
        achieved = round(raw.finished_in_window / (duration_s - warmup_s), 3)
        unfinished: int | None = raw.request_latency["all"].n - raw.completed
        stats = raw.request_latency
        read_ms = raw.io_latency["read"].mean_s * 1000 if raw.io_latency["read"].n else None
    else:
        # At its offered rate a log's commits share flushes (group commit): fewer log writes
        # than commits reach the limits.
        mix = with_group_commit(
            build_mix(plan, server.request_classes(), server.background_specs()),
            server.rate_tps)
        stats = mix_level(plan, mix, duration_s=duration_s, load=load,
                          open_rate=None if threads else server.rate_tps,
                          concurrency=threads or server.concurrency)
        level, achieved, unfinished = stats.level, stats.achieved_tps, None
        read_ms = None
    replication = None
    if server.role == "replica":
        cap = apply_capacity_tps(server, plan, read_ms)
        behind = server.params.write_tps > cap
        replication = Replication(
            apply_capacity_tps=round(cap, 1), write_tps=round(server.params.write_tps, 1),
            falls_behind=behind,
            lag_growth_s_per_s=round(server.params.write_tps / cap - 1, 4) if behind else 0.0)
    note = _fsync_note(server, plan)
    if note and level.bottleneck.startswith("latency-bound"):
        level = replace(level, bottleneck=note)
    if idle:
        none = LatencySummary()
        level = replace(level, latency_ms=Latency(read=none, write=none, transaction=none),
                        engine="des" if engine == "des" else level.engine,
                        bottleneck=IDLE_TEXT)
        if engine == "des":  # the deployment's latency pools the DES servers' requests
            stats = {k: LatencyStats() for k in ("read", "write", "all")}
    elif not server.serves_requests and not threads:
        # A replica no read reaches runs its applier alone: no transaction of its own to time
        # (the event simulation's has none; the analytic engine would time a phantom read).
        none = LatencySummary()
        level = replace(level, latency_ms=Latency(read=none, write=none, transaction=none))
    return level.extended(
        ServerLevel, achieved_tps=achieved, unfinished=unfinished,
        role=server.role, layout=str(layout.spec), offered_tps=round(server.rate_tps, 3),
        cpu_utilisation=round(cpu_utilisation(server, layout), 4),
        replication=replication), stats


def _verdict(levels: list[ServerLevel], p99: float | None, p99_ms: float) -> list[str]:
    why = []
    if p99 is not None and p99 > p99_ms:
        why.append(f"transaction p99 {shown_past(p99, p99_ms, percent=False, digits=2)} ms > "
                   f"{p99_ms:g} ms")
    for s in levels:
        role = s.role
        if s.replication is not None and s.replication.falls_behind:
            r = s.replication
            why.append(f"{role} falls behind: applies {r.apply_capacity_tps:,.0f} writes/s < "
                       f"{r.write_tps:,.0f}")
        if s.background is not None and s.background.lag_s > BACKGROUND_LAG_LIMIT_S:
            why.append(f"{role} page flushing falls behind ({s.background.lag_s:,.1f} s late)")
        if s.cpu_utilisation > CPU_LIMIT:
            why.append(f"{role} CPU {shown_past(s.cpu_utilisation, CPU_LIMIT)} busy "
                       f"(> {CPU_LIMIT:.0%})")
    return why


def _combined(parts: list[tuple[ServerLevel, ServerStats]]) -> Latency:
    """The deployment's latency: every server's requests together."""
    merged = {k: LatencyStats() for k in ("all", "read", "write")}
    analytic = []
    for level, stats in parts:
        if isinstance(stats, MixLevel):
            analytic.append((level.offered_tps, stats))
        else:
            for k in merged:
                merged[k].merge(stats[k])
    if analytic:
        from advisor.sim.analytic import combine_dists

        return combine_dists(analytic)
    return Latency(read=LatencySummary.of(merged["read"].summary_ms()),
                   write=LatencySummary.of(merged["write"].summary_ms()),
                   transaction=LatencySummary.of(merged["all"].summary_ms()))


def simulate_mysql(dep: Deployment, catalog: Catalog, params: MysqlParams, *,
                   tps_levels: list[float] | None = None, duration_s: float = 60.0,
                   engine: str = "auto", seed: int = 1, warmup_s: float = 5.0,
                   p99_ms: float = 10.0, measured: TxnIo | None = None,
                   progress: ProgressFn | None = None,
                   threads_levels: list[int] | None = None) -> MysqlSimResult:
    """Simulate the deployment at each offered TPS (open loop: Poisson arrivals), or with each
    number of client threads in `threads_levels` (closed loop); the knee is the highest level
    that meets the SLO."""
    if warmup_s >= duration_s:
        warmup_s = 0.0
    _check_fits(dep, params)
    split: list[list[int] | None] = []
    thread_counts = threads_levels or []
    if threads_levels:
        levels_tps = []
        solved: dict[float, MysqlSimResult] = {}  # one analytic level per rate, for every count
        for n in threads_levels:
            tps, per_server = thread_split(dep, catalog, params, n, measured, solved=solved)
            levels_tps.append(tps)
            split.append(per_server)
    else:
        levels_tps = tps_levels or [params.tps]
        split = [None for _ in levels_tps]
    plans: dict[str, SimPlan] = {}
    out_levels: list[MysqlLevel] = []
    for i, tps in enumerate(levels_tps):
        p = replace(params, tps=tps)
        parts: list[tuple[ServerLevel, ServerStats]] = []
        srv = build_servers(dep, p, measured)
        use = engine if engine != "auto" else ("des" if tps * duration_s <= 3_000_000 else
                                               "analytic")
        for j, server in enumerate(srv):
            if j > 0 and p.replicas:
                server = _applying(dep, p, measured, server, parts[0][0])
            layout = _server_layout(dep, server.role)
            key = str(layout.spec)
            if key not in plans:  # compiled once per layout, not once per load level
                plans[key] = compile_plan(layout, catalog)
            plan = plans[key]

            def tick(frac: float, i: int = i, j: int = j, n: int = len(srv)) -> None:
                if progress is not None:
                    progress(i, (j + frac) / n)
            shares = split[i]
            parts.append(_server_level(server, layout, plan, engine=use, duration_s=duration_s,
                                       seed=seed + 7919 * i + j, warmup_s=warmup_s,
                                       progress=tick,
                                       threads=shares[j] if shares else None))
        server_levels = [lvl for lvl, _ in parts]
        latency = _combined(parts)
        reasons = _verdict(server_levels, latency.transaction.p99, p99_ms)
        # As Python floats: the analytic engine's may be numpy's, whose round() breaks ties
        # differently.
        achieved = sum(float(s.achieved_tps) for s in server_levels)
        out_levels.append(MysqlLevel(
            load={"tps": tps} if split[i] is None else {"threads": thread_counts[i],
                                                         "tps": round(tps, 1)},
            offered_tps=tps, achieved_tps=round(achieved, 2),
            latency_ms=latency, servers=tuple(server_levels), meets_slo=not reasons,
            reasons=tuple(reasons), engine="des" if use == "des" else "analytic",
            bottleneck="; ".join(f"{s.role}: {s.bottleneck}" for s in server_levels[:2])))
    passing = [lv.offered_tps for lv in out_levels if lv.meets_slo]
    last = out_levels[-1]
    master_last = last.servers[0]
    io = build_servers(dep, params, measured)[0].io
    return MysqlSimResult(
        deployment=DeployedLayouts(master=str(dep.master.spec),
                                   replicas=tuple(dep.replicas_for(params))),
        layout=str(dep.master.spec), params=params,
        io_profile=IoProfileView(
            source=io.source, miss_ratio=round(io.miss_ratio, 4),
            per_read_txn=ReadTxnIo(page_reads=round(io.read_page_reads, 4)),
            per_write_txn=WriteTxnIo(page_reads=round(io.write_page_reads, 4),
                                     page_flushes=round(io.write_page_flushes, 4),
                                     redo_bytes=round(io.redo_bytes),
                                     binlog_bytes=round(io.binlog_bytes)),
            explain=tuple(io.explain)),
        slo=MysqlSlo(p99_ms=p99_ms), levels=tuple(out_levels),
        knee=_knee(out_levels, passing, p99_ms), duration_s=duration_s, warmup_s=warmup_s,
        ios=master_last.ios, iops=master_last.iops,
        throughput_mibps=master_last.throughput_mibps, latency_ms=last.latency_ms,
        bottleneck=last.bottleneck, timeline=master_last.timeline,
        engine=tuple(sorted({lv.engine for lv in out_levels})), seed=seed,
        model_version=MODEL_VERSION, advisor_version=__version__,
        catalog_version=catalog.catalog_version,
        measured_io=measured.measured if measured is not None else None)


def _closed_loop_level(dep: Deployment, catalog: Catalog, params: MysqlParams, tps: float,
                       measured: TxnIo | None,
                       solved: dict[float, MysqlSimResult] | None) -> MysqlSimResult:
    """The analytic level at `tps` that the closed-loop search reads (kept in `solved`: every
    thread count of a ramp searches the same rates from the same start)."""
    found = solved.get(tps) if solved is not None else None
    if found is None:
        found = simulate_mysql(dep, catalog, replace(params, tps=tps), tps_levels=[tps],
                               duration_s=600.0, engine="analytic", measured=measured,
                               warmup_s=0.0)
        if solved is not None:
            solved[tps] = found
    return found


def tps_for_threads(dep: Deployment, catalog: Catalog, params: MysqlParams, threads: int,
                    measured: TxnIo | None = None, *,
                    solved: dict[float, MysqlSimResult] | None = None) -> float:
    """Closed loop: the rate at which `threads` clients, each running one transaction after
    another, keep `threads` transactions in flight (Little: threads = tps x mean latency).
    `solved` keeps the levels evaluated, for the next thread count of a ramp."""
    def in_flight(tps: float) -> float:
        r = _closed_loop_level(dep, catalog, params, tps, measured, solved)
        mean = r.levels[0].latency_ms.transaction.mean or 0.0
        return tps * mean / 1000

    lo, hi = 0.0, 100.0
    while in_flight(hi) < threads and hi < 1e7:
        lo, hi = hi, hi * 2
    for _ in range(40):
        mid = (lo + hi) / 2
        if in_flight(mid) < threads:
            lo = mid
        else:
            hi = mid
        if hi - lo < max(0.5, 0.002 * hi):
            break
    return round((lo + hi) / 2, 2)


def _applying(dep: Deployment, params: MysqlParams, measured: TxnIo | None,
              replica: MysqlServer, master: ServerLevel) -> MysqlServer:
    """The replica as it is fed: it applies the writes the master committed. Past the master's
    saturation that is fewer than were offered to it."""
    committed = float(master.achieved_tps)
    if committed >= 0.99 * params.write_tps:
        return replica
    fed = replace(params, tps=max(committed, 1e-6) * (1 + params.reads_per_write))
    fresh = build_servers(dep, fed, measured)[1]
    return replace(fresh, rate_tps=replica.rate_tps, read_share=replica.read_share)


def thread_split(dep: Deployment, catalog: Catalog, params: MysqlParams, threads: int,
                 measured: TxnIo | None = None, *,
                 solved: dict[float, MysqlSimResult] | None = None) -> tuple[float, list[int]]:
    """The closed loop's rate (`tps_for_threads`) and how its `threads` spread over the servers:
    each server holds its share of the transactions in flight (its rate x its mean latency, on
    the analytic engine), at least one thread each but none on a server offered no
    transactions (an idle master under a read-only shape)."""
    tps = tps_for_threads(dep, catalog, params, threads, measured, solved=solved)
    r = _closed_loop_level(dep, catalog, params, tps, measured, solved)
    servers = r.levels[0].servers
    in_flight = [float(s.offered_tps) * (s.latency_ms.transaction.mean or 0.0) / 1000
                 for s in servers]
    total = sum(in_flight)
    busy = [float(s.offered_tps) > 0 for s in servers]
    if total <= 0:
        return tps, [max(1, threads // max(1, sum(busy))) if b else 0 for b in busy]
    return tps, [max(1, round(threads * x / total)) if b else 0
                 for x, b in zip(in_flight, busy, strict=True)]


def _knee(levels: list[MysqlLevel], passing: list[float], p99_ms: float) -> Knee:
    """The SLO knee (highest level meeting it) and the saturation point of the curve (the
    highest level whose achieved rate still follows the offered one; with client threads, the
    first level whose throughput is within 5 % of the plateau)."""
    slo = (f"highest load meeting p99 <= {p99_ms:g} ms: {max(passing):,.0f} tps" if passing
           else f"no level meets p99 <= {p99_ms:g} ms")
    if "threads" in levels[0].load:
        top = max(lv.achieved_tps for lv in levels)
        first = next(lv for lv in levels if lv.achieved_tps >= 0.95 * top)
        at = first.load["threads"]
        sat_text = (f"throughput plateaus at {top:,.0f} tps from {at:,.0f} threads (more threads "
                    "add latency, not throughput)" if first is not levels[-1] else
                    f"throughput still grows at {at:,.0f} threads ({top:,.0f} tps)")
        return Knee(tps=max(passing) if passing else None, saturation_tps=first.achieved_tps,
                    text=f"{slo}; {sat_text}")
    following = [lv.offered_tps for lv in levels if lv.achieved_tps >= 0.95 * lv.offered_tps]
    beyond = [lv.offered_tps for lv in levels if lv.achieved_tps < 0.95 * lv.offered_tps]
    sat = max(following) if following else None
    if sat is not None and beyond and min(beyond) > sat:
        sat_text = f"throughput follows the load up to {sat:,.0f} tps and saturates before " \
                   f"{min(beyond):,.0f}"
    elif sat is None:
        sat_text = f"already saturated at {levels[0].offered_tps:,.0f} tps (achieved " \
                   f"{levels[0].achieved_tps:,.0f})"
    else:
        sat_text = f"throughput follows the load at every level (up to {sat:,.0f} tps)"
    return Knee(tps=max(passing) if passing else None, saturation_tps=sat,
                text=f"{slo}; {sat_text}")
