"""The database-workload simulations as one core call each, shared by `advisor simulate
--workload ...` and `POST /v1/simulate`: options in, result JSON out (no files, no printing)."""

from typing import Any

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.layout.model import Layout
from workloads.mysql import TxnIo


def run_mysql(layout: Layout, cat: Catalog, *, tps: float, reads: float, replicas: int,
              replica_layout: Layout | None, data_gb: float, buffer_pool_gib: float | None,
              measured: TxnIo | None, flush_log_at_trx_commit: int, sync_binlog: int,
              p99_ms: float, ramp: str | None, duration: float, engine: str, seed: int,
              progress: Any, row_bytes: int = 190, read_rows: int = 1, write_rows: int = 4,
              secondary_indexes: int = 1, replica_workers: int = 1) -> dict[str, Any]:
    from advisor.sim.run import parse_ramp
    from workloads.mysql import MysqlParams
    from workloads.mysql_run import Deployment, simulate_mysql, tps_for_threads

    params = MysqlParams(tps=tps, reads_per_write=reads, replicas=replicas, data_gb=data_gb,
                         buffer_pool_gib=buffer_pool_gib,
                         flush_log_at_trx_commit=flush_log_at_trx_commit,
                         sync_binlog=sync_binlog, row_bytes=row_bytes, read_rows=read_rows,
                         write_rows=write_rows, secondary_indexes=secondary_indexes,
                         replica_workers=replica_workers)
    dep = Deployment(master=layout, replica=replica_layout)
    levels = [tps]
    threads: list[int] | None = None
    if ramp:
        r = parse_ramp(ramp, ("tps", "threads"))
        if r.key == "threads":
            threads = [int(v) for v in r.values]
            levels = [tps_for_threads(dep, cat, params, n, measured) for n in threads]
        else:
            levels = list(r.values)
    result = simulate_mysql(dep, cat, params, tps_levels=levels, duration_s=duration,
                            engine=engine, seed=seed, p99_ms=p99_ms, measured=measured,
                            progress=progress)
    if threads:
        for lv, n in zip(result["levels"], threads, strict=True):
            lv["load"] = {"threads": n, "tps": round(lv["offered_tps"], 1)}
        result["closed_loop_note"] = ("threads: each level's rate solves threads = tps x mean "
                                      "transaction latency (Little's law) on the analytic engine")
    return result


def run_aerospike(layout: Layout, cat: Catalog, *, x: float | None, ramp: str | None,
                  reads_per_sec: float | None, writes_per_sec: float | None,
                  record_bytes: int, replication_factor: int, update_pct: float,
                  defrag_lwm_pct: float, duration: float, slice_s: float | None, seed: int,
                  progress: Any) -> dict[str, Any]:
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


def check_workload(workload: str | None) -> None:
    if workload not in (None, "mysql", "aerospike"):
        raise InvalidInput(f"--workload {workload!r}: choose mysql or aerospike")
