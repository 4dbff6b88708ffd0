"""`simulate` as one core call, shared by `advisor simulate` and `POST /v1/simulate`: a typed
request in, the result out (no files, no printing), with a bound on the work it may take.

Raw patterns go to `advisor.sim.run.simulate_pattern` (which refuses runs over `io_budget`);
database workloads to `run_mysql` / `run_aerospike`, after an estimate of the device I/Os they
would simulate.
"""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from advisor.catalog.model import Catalog
from advisor.layout.model import Layout
from advisor.options import FieldError
from advisor.sim.run import (
    ANALYTIC_MYSQL_IOS,
    THREADS_LEVEL_IOS,
    check_budget,
)
from workloads.mysql import TxnIo
from workloads.results import ActSimResult, MysqlSimResult, SimulateResult
from workloads.simulate_request import (
    AerospikeSimRequest,
    MysqlSimRequest,
    PatternSimRequest,
    SimulateRequest,
)


def run_mysql(layout: Layout, cat: Catalog, *, params: Any, replica_layout: Layout | None,
              measured: TxnIo | None, p99_ms: float, ramp: str | None, duration: float,
              engine: str, seed: int, progress: Any) -> MysqlSimResult:
    """Simulate `params` (workloads.mysql.MysqlParams) on the deployment, at its tps or along
    the ramp."""
    from advisor.sim.run import parse_ramp
    from workloads.mysql_run import Deployment, simulate_mysql

    tps = params.tps
    dep = Deployment(master=layout, replica=replica_layout)
    levels = [tps]
    threads: list[int] | None = None
    if ramp:
        r = parse_ramp(ramp, ("tps", "threads"))
        if r.key == "threads":
            threads = [int(v) for v in r.values]
        else:
            levels = list(r.values)
    result = simulate_mysql(dep, cat, params, tps_levels=levels, duration_s=duration,
                            engine=engine, seed=seed, p99_ms=p99_ms, measured=measured,
                            progress=progress, threads_levels=threads)
    if threads:
        result = replace(
            result,
            closed_loop_note="threads: a closed loop, each client thread starting its next "
                             "transaction when the last one commits; the threads are spread "
                             "over the servers by their share of transactions in flight, and "
                             "the level's tps is the rate Little's law predicts on the analytic "
                             "engine (achieved is what the run measured)")
    return result


def run_aerospike(layout: Layout, cat: Catalog, *, x: float | None, ramp: str | None,
                  reads_per_sec: float | None, writes_per_sec: float | None,
                  record_bytes: int, replication_factor: int, update_pct: float,
                  defrag_lwm_pct: float, duration: float, slice_s: float | None, seed: int,
                  progress: Any) -> ActSimResult:
    from advisor.sim.run import parse_ramp
    from workloads.aerospike import ActLoad, ActOptions, simulate_act

    devices = layout.spec.count
    kw: ActOptions = {"record_bytes": record_bytes, "replication_factor": replication_factor,
                      "update_pct": update_pct, "defrag_lwm_pct": defrag_lwm_pct}
    if ramp:
        xs = list(parse_ramp(ramp, ("x",)).values)
        loads = [({"x": v}, ActLoad.at_x(v, devices, **kw)) for v in xs]
    elif reads_per_sec is not None or writes_per_sec is not None:
        loads = [({"reads_per_sec": reads_per_sec or 0.0, "writes_per_sec": writes_per_sec or 0.0},
                  ActLoad(reads_per_sec=reads_per_sec or 0.0, writes_per_sec=writes_per_sec or 0.0,
                          **kw))]
    else:
        v = x if x is not None else 1.0
        loads = [({"x": v}, ActLoad.at_x(v, devices, **kw))]
    return simulate_act(layout, cat, loads, duration_s=duration, slice_s=slice_s, seed=seed,
                        progress=progress)


AUTO_DES_TXNS = 3_000_000  # workloads.mysql_run: engine=auto simulates events up to tps x s
Progress = Callable[[int, float], None]


def run_simulate(req: SimulateRequest, catalog: Catalog, *, measured: TxnIo | None = None,
                 io_budget: float | None = None,
                 progress: Progress | None = None) -> SimulateResult:
    """The simulate result for `req` (with the request it answers, so a report can give the
    command that reproduces it), or InvalidInput (a bad value, or over `io_budget`)."""
    from advisor.serial import to_json

    result = _run(req, catalog, measured=measured, io_budget=io_budget, progress=progress)
    return replace(result, request=to_json(req))


def _run(req: SimulateRequest, catalog: Catalog, *, measured: TxnIo | None,
         io_budget: float | None, progress: Progress | None) -> SimulateResult:
    from advisor.layout import resolve

    layout = resolve(req.spec, catalog)
    if isinstance(req, PatternSimRequest):
        from advisor.sim.patterns import build_pattern
        from advisor.sim.run import parse_ramp, simulate_pattern

        pattern = build_pattern(
            rw=req.rw, rwmixread=req.rwmixread, bs=req.bs, iodepth=req.iodepth,
            numjobs=req.numjobs, rate_iops=req.rate_iops, size=req.size, pattern=req.pattern,
            file_test_mode=req.file_test_mode, threads=req.threads,
            file_block_size=req.file_block_size, file_fsync_freq=req.file_fsync_freq,
            direct=req.direct, file_extra_flags=req.file_extra_flags,
            file_total_size=req.file_total_size, fsync=req.fsync)
        ramp = parse_ramp(req.ramp) if req.ramp else None
        return simulate_pattern(layout, catalog, pattern, ramp=ramp, duration_s=req.duration,
                                engine=req.engine, seed=req.seed,  # type: ignore[arg-type]
                                warmup_s=req.warmup, io_budget=io_budget, progress=progress)
    if isinstance(req, MysqlSimRequest):
        replica = resolve(req.replica_layout, catalog) if req.replica_layout else None
        _check_buffer_pool(req, layout, replica)
        _mysql_estimate(req, layout, replica, catalog, io_budget)
        return run_mysql(
            layout, catalog, params=req.params(req.tps), replica_layout=replica,
            measured=measured, p99_ms=req.p99_ms, ramp=req.ramp, duration=req.duration,
            engine=req.engine, seed=req.seed, progress=progress)
    check_budget(_act_estimate(req, layout), io_budget, duration_s=req.duration, ramp=req.ramp,
                 analytic=False)  # ACT's slices need the event simulation
    return run_aerospike(
        layout, catalog, x=req.x, ramp=req.ramp, reads_per_sec=req.reads_per_sec,
        writes_per_sec=req.writes_per_sec, record_bytes=req.record_bytes,
        replication_factor=req.replication_factor, update_pct=req.update_pct,
        defrag_lwm_pct=req.defrag_lwm_pct, duration=req.duration, slice_s=req.slice,
        seed=req.seed, progress=progress)


def _params(req: MysqlSimRequest, tps: float) -> Any:
    return req.params(tps)


def _check_buffer_pool(req: MysqlSimRequest, *layouts: Layout | None) -> None:
    """A buffer pool must fit in the server's RAM (larger, the server swaps or is killed)."""
    for layout in layouts:
        inst = layout.instance if layout is not None else None
        if req.buffer_pool_gib is not None and inst is not None \
                and req.buffer_pool_gib > inst.memory_gib:
            raise FieldError("buffer_pool_gib", req.buffer_pool_gib,
                             f"above the {inst.memory_gib:g} GiB of RAM of {inst.name}")


def _per_txn_ios(dep: Any, req: MysqlSimRequest, tps: float) -> float:
    """Device I/Os (and CPU steps) the event simulation runs per transaction at `tps`."""
    from workloads.mysql_run import build_servers

    per_s = 0.0
    for server in build_servers(dep, _params(req, tps), None):
        per_txn = sum(c.probability * sum(io.count for io in c.ios)
                      for c in server.request_classes())
        per_txn += sum(spec.count for spec in server.background_specs())
        per_s += per_txn * server.rate_tps
    return per_s / tps


def _mysql_estimate(req: MysqlSimRequest, layout: Layout, replica: Layout | None,
                    catalog: Catalog, io_budget: float | None) -> None:
    """Refuse (over_budget) a MySQL simulation whose work would exceed `io_budget`: device I/Os
    the event simulation would run, plus a charge per analytic level; a closed-loop level is
    charged the search for its rate, and its rate is bounded before any search (a client thread
    runs at most one transaction per unloaded latency), so refusing costs one analytic level."""
    from advisor.sim.run import parse_ramp
    from workloads.mysql_run import Deployment, simulate_mysql

    dep = Deployment(master=layout, replica=replica)
    ramp = parse_ramp(req.ramp, ("tps", "threads")) if req.ramp else None

    def check(cost: float) -> None:
        check_budget(cost, io_budget, duration_s=req.duration, ramp=req.ramp)

    def des_cost(tps: float, *, exact: bool = True) -> float:
        """What one level at `tps` (exact: False, at most `tps`) may cost on its engine."""
        txns = tps * req.duration
        if req.engine == "analytic" or (req.engine == "auto" and exact
                                        and txns > AUTO_DES_TXNS):
            return ANALYTIC_MYSQL_IOS
        if req.engine == "auto":  # a level of fewer than AUTO_DES_TXNS runs events
            txns = min(txns, AUTO_DES_TXNS)
        return max(_per_txn_ios(dep, req, max(tps, 1e-3)) * txns, ANALYTIC_MYSQL_IOS)

    if ramp is None or ramp.key == "tps":
        levels = list(ramp.values) if ramp else [req.tps]
        check(len(levels) * ANALYTIC_MYSQL_IOS)
        check(sum(des_cost(tps) for tps in levels))
        return
    threads = [int(v) for v in ramp.values]
    check(len(threads) * THREADS_LEVEL_IOS)  # finding each level's rate
    if req.engine == "analytic":
        return
    idle = simulate_mysql(dep, catalog, _params(req, 1.0), tps_levels=[1.0], duration_s=600.0,
                          engine="analytic", warmup_s=0.0)
    latency_s = max((idle.levels[0].latency_ms.transaction.mean or 0.0) / 1000, 1e-6)
    check(len(threads) * THREADS_LEVEL_IOS + sum(des_cost(n / latency_s, exact=False)
                                                 for n in threads))


def _act_estimate(req: AerospikeSimRequest, layout: Layout) -> float:
    from advisor.sim.run import parse_ramp
    from workloads.aerospike import ActLoad, ActOptions

    kw: ActOptions = {"record_bytes": req.record_bytes,
                      "replication_factor": req.replication_factor,
                      "update_pct": req.update_pct, "defrag_lwm_pct": req.defrag_lwm_pct}
    devices = layout.spec.count
    if req.ramp:
        loads = [ActLoad.at_x(v, devices, **kw) for v in parse_ramp(req.ramp, ("x",)).values]
    elif req.reads_per_sec is not None or req.writes_per_sec is not None:
        loads = [ActLoad(reads_per_sec=req.reads_per_sec or 0.0,
                         writes_per_sec=req.writes_per_sec or 0.0, **kw)]
    else:
        loads = [ActLoad.at_x(req.x if req.x is not None else 1.0, devices, **kw)]
    return sum((ld.internal_reads_per_sec + ld.large_block_writes_per_sec
                + ld.large_block_reads_per_sec) * req.duration for ld in loads)
