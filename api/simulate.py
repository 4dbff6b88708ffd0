"""`POST /v1/simulate`: the CLI's simulate options turned into the same core calls, with a bound
on the work one request may ask for.

Raw patterns go to `advisor.sim.run.simulate_pattern` (which refuses runs over `io_budget`);
database workloads to `workloads.simulate.run_mysql` / `run_aerospike`, as the CLI's, after an
estimate of the device I/Os they would simulate. Patterns come from the same builder as
`advisor simulate` (`advisor.sim.patterns`), so both say the same about the same bad value.
"""

from typing import Any

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from api.models import SimulateBody

AUTO_DES_TXNS = 3_000_000  # workloads.mysql_run: engine=auto simulates events up to tps x s


def _over(estimate: float, budget: float) -> InvalidInput:
    return InvalidInput(f"this request would simulate about {estimate:,.0f} I/Os, over the "
                        f"limit of {budget:,.0f}: shorten --duration, use fewer ramp levels or "
                        "engine=analytic")


def _pattern(body: SimulateBody) -> Any:
    from advisor.sim.patterns import build_pattern

    b = body
    return build_pattern(rw=b.rw, rwmixread=b.rwmixread, bs=b.bs, iodepth=b.iodepth,
                         numjobs=b.numjobs, rate_iops=b.rate_iops, size=b.size, pattern=b.pattern,
                         file_test_mode=b.file_test_mode, threads=b.threads,
                         file_block_size=b.file_block_size, file_fsync_freq=b.file_fsync_freq)


def _mysql_estimate(body: SimulateBody, layout: Any, replica: Any, catalog: Catalog) -> float:
    """Device I/Os (and CPU steps) the event simulation would run for this request."""
    from advisor.sim.run import parse_ramp
    from workloads.mysql import MysqlParams
    from workloads.mysql_run import Deployment, build_servers, tps_for_threads

    params = MysqlParams(tps=body.tps, reads_per_write=body.reads, replicas=body.replicas,
                         data_gb=body.data_gb, buffer_pool_gib=body.buffer_pool_gib,
                         flush_log_at_trx_commit=body.flush_log_at_trx_commit,
                         sync_binlog=body.sync_binlog, row_bytes=body.row_bytes,
                         read_rows=body.read_rows, write_rows=body.write_rows,
                         secondary_indexes=body.secondary_indexes,
                         replica_workers=body.replica_workers)
    dep = Deployment(master=layout, replica=replica)
    levels = [body.tps]
    if body.ramp:
        r = parse_ramp(body.ramp, ("tps", "threads"))
        levels = list(r.values)
        if r.key == "threads":
            if body.engine == "analytic":
                return 0.0
            levels = [tps_for_threads(dep, catalog, params, int(n)) for n in r.values]
    total = 0.0
    for tps in levels:
        if body.engine == "analytic" or (body.engine == "auto"
                                         and tps * body.duration > AUTO_DES_TXNS):
            continue
        per_s = 0.0
        for server in build_servers(dep, MysqlParams(**{**_fields(params), "tps": tps}), None):
            per_txn = sum(c.probability * sum(io.count for io in c.ios)
                          for c in server.request_classes())
            per_txn += sum(spec.count for spec in server.background_specs())
            per_s += per_txn * server.rate_tps
        total += per_s * body.duration
    return total


def _fields(params: Any) -> dict[str, Any]:
    return {k: getattr(params, k) for k in params.__dataclass_fields__}


def _act_estimate(body: SimulateBody, layout: Any) -> float:
    from advisor.sim.run import parse_ramp
    from workloads.aerospike import ActLoad, ActOptions

    kw: ActOptions = {"record_bytes": body.record_bytes,
                      "replication_factor": body.replication_factor,
                      "update_pct": body.update_pct, "defrag_lwm_pct": body.defrag_lwm_pct}
    devices = layout.spec.count
    if body.ramp:
        loads = [ActLoad.at_x(v, devices, **kw) for v in parse_ramp(body.ramp, ("x",)).values]
    elif body.reads_per_sec is not None or body.writes_per_sec is not None:
        loads = [ActLoad(reads_per_sec=body.reads_per_sec or 0.0,
                         writes_per_sec=body.writes_per_sec or 0.0, **kw)]
    else:
        loads = [ActLoad.at_x(body.x if body.x is not None else 1.0, devices, **kw)]
    return sum((ld.internal_reads_per_sec + ld.large_block_writes_per_sec
                + ld.large_block_reads_per_sec) * body.duration for ld in loads)


def run_simulate(body: SimulateBody, catalog: Catalog, *, io_budget: float,
                 max_duration_s: float) -> dict[str, Any]:
    """The simulate result for `body`, or InvalidInput (bad value, or over the work limits)."""
    from advisor.layout import resolve

    if not 0 < body.duration <= max_duration_s:
        raise InvalidInput(f"--duration {body.duration:g}: the API simulates between 0 and "
                           f"{max_duration_s:g} s per level (use the CLI for longer runs)")
    layout = resolve(body.spec, catalog)
    if body.engine not in ("des", "analytic", "auto"):
        raise InvalidInput(f"--engine {body.engine!r}: choose des, analytic or auto")
    if body.workload is None:
        from advisor.sim.run import parse_ramp, simulate_pattern

        pattern = _pattern(body)
        ramp = parse_ramp(body.ramp) if body.ramp else None
        return simulate_pattern(layout, catalog, pattern, ramp=ramp, duration_s=body.duration,
                                engine=body.engine, seed=body.seed,  # type: ignore[arg-type]
                                warmup_s=body.warmup, io_budget=io_budget)
    from workloads import simulate as db

    db.check_workload(body.workload)
    if body.workload == "mysql":
        replica = resolve(body.replica_layout, catalog) if body.replica_layout else None
        estimate = _mysql_estimate(body, layout, replica, catalog)
        if estimate > io_budget:
            raise _over(estimate, io_budget)
        return db.run_mysql(
            layout, catalog, tps=body.tps, reads=body.reads, replicas=body.replicas,
            replica_layout=replica, data_gb=body.data_gb, buffer_pool_gib=body.buffer_pool_gib,
            measured=None, flush_log_at_trx_commit=body.flush_log_at_trx_commit,
            sync_binlog=body.sync_binlog, p99_ms=body.p99_ms, ramp=body.ramp,
            duration=body.duration, engine=body.engine, seed=body.seed, progress=None,
            row_bytes=body.row_bytes, read_rows=body.read_rows, write_rows=body.write_rows,
            secondary_indexes=body.secondary_indexes, replica_workers=body.replica_workers)
    estimate = _act_estimate(body, layout)
    if estimate > io_budget:
        raise _over(estimate, io_budget)
    return db.run_aerospike(
        layout, catalog, x=body.x, ramp=body.ramp, reads_per_sec=body.reads_per_sec,
        writes_per_sec=body.writes_per_sec, record_bytes=body.record_bytes,
        replication_factor=body.replication_factor, update_pct=body.update_pct,
        defrag_lwm_pct=body.defrag_lwm_pct, duration=body.duration, slice_s=body.slice,
        seed=body.seed, progress=None)
