"""`advisor replay --driver sysbench`: sysbench `oltp_read_write` against the master.

One sysbench transaction is BEGIN, `--point-selects` point + 4 range SELECTs, 2 UPDATEs, a DELETE
and an INSERT, COMMIT: `--point-selects=9` gives the brief's 3.25 reads per write. sysbench has no
read/write routing (all statements go to the master); replicas given are watched (their counters,
`Seconds_Behind_Master`), not read from. Per step: an unmeasured warmup run, then the measured run
between two `SHOW GLOBAL STATUS` snapshots. Same result schema as the SQLAlchemy driver, with
`reads`/`writes` counting statements (sysbench's "queries performed"), plus `shape`: the measured
statements of one transaction (`workloads.io_profile.measure_rw_shape`) of the step the I/O
profile comes from. The profile is per sysbench transaction (one class: each reads and writes).
"""

from collections.abc import Callable, Sequence
from typing import Any

from advisor.percentiles import PERCENTILES
from workloads.io_profile import derive_txn_profile, measure_rw_shape, status_delta, sum_deltas
from workloads.real.db import Database, DatabaseError
from workloads.real.db_sqlalchemy import SqlAlchemyDatabase
from workloads.real.replay import ReplayConfig
from workloads.real.sysbench import (
    INDEX_UPDATES,
    NON_INDEX_UPDATES,
    RANGE_SIZE,
    SysbenchFailed,
    SysbenchRunner,
    oltp_args,
    oltp_connection,
    point_selects_for,
    run_oltp,
)

StepCallback = Callable[[int, int, int, str], None]  # (step, steps, threads, phase)


def run_sysbench_replay(
    master_url: str,
    replica_urls: Sequence[str],
    config: ReplayConfig,
    *,
    runner: SysbenchRunner,
    on_step: StepCallback | None = None,
) -> dict[str, Any]:
    """Prepare sbtest1 (if not there with `rows` rows), run every step, return the result."""
    config.validate()
    point_selects = point_selects_for(config.reads_per_write)
    connection, env = oltp_connection(master_url)
    notify = on_step or (lambda step, steps, threads, phase: None)
    master = SqlAlchemyDatabase(master_url, pool_size=2)
    replicas: list[Database] = [
        SqlAlchemyDatabase(url, pool_size=2, replica=True) for url in replica_urls
    ]
    actual_ratio = (point_selects + 4) / 4
    result: dict[str, Any] = {
        "kind": "replay",
        "target": {
            "master": master.name,
            "replicas": [r.name for r in replicas],
            "driver": "sysbench",
            "note": f"sysbench oltp_read_write --point-selects={point_selects} on the master "
                    f"({actual_ratio:g} read statements per write); replicas only watched",
        },
        "mode": "open-loop" if config.rates_tps else "closed-loop",
        "reads_per_write": actual_ratio,
        "duration_s": config.duration_s,
        "warmup_s": config.warmup_s,
        "rows": config.rows,
        "seed": None,
        "tool": runner.version,
        "levels": [],
        "io_profile": None,
        "shape": None,
        "complete": False,
        "error": None,
    }
    steps = config.steps()
    try:
        info = master.server_info()
        for replica in replicas:
            if reason := replica.replication_error():
                raise DatabaseError(reason)
        notify(0, len(steps), 0, f"preparing sbtest1 with {config.rows} rows")
        _prepare(runner, master, connection, env, config.rows, point_selects)
        for index, (threads, rate) in enumerate(steps):

            def phase_of_step(phase: str, step: int = index + 1, threads: int = threads) -> None:
                notify(step, len(steps), threads, phase)

            level = _step(runner, master_url, master, replicas, config, point_selects,
                          threads, rate, phase_of_step)
            result["levels"].append(level)
            if level["failed"]:
                result["error"] = f"step {index + 1} ({threads} threads): {level['error']}"
                break
        else:
            result["complete"] = True
        finished = [lv for lv in result["levels"] if not lv["failed"] and lv["transactions"]]
        if finished:
            best = max(finished, key=lambda lv: lv["achieved_tps"])
            result["shape"] = measured_shape(best)
            result["io_profile"] = derive_txn_profile(best, info, shape=result["shape"])
    except (DatabaseError, SysbenchFailed) as exc:
        result["error"] = f"prepare: {exc}" if not result["levels"] else str(exc)
    finally:
        for db in (master, *replicas):
            db.close()
    return result


def measured_shape(level: dict[str, Any]) -> dict[str, Any] | None:
    """What one transaction of a finished step was, from the master's counters (sysbench runs
    only on the master, so its Com_* are the transactions'); None without counters."""
    return measure_rw_shape(
        level["status_delta"]["master"], transactions=level["transactions"],
        driver="sysbench oltp_read_write", range_rows=RANGE_SIZE,
        index_update_share=INDEX_UPDATES / (INDEX_UPDATES + NON_INDEX_UPDATES),
        read_statements=level["reads"])


def _prepare(
    runner: SysbenchRunner, master: SqlAlchemyDatabase, connection: list[str],
    env: dict[str, str], rows: int, point_selects: int,
) -> None:
    if master.table_rows("sbtest1") == rows:
        return  # already prepared with this size
    common = {"rows": rows, "point_selects": point_selects}
    runner.run(oltp_args("cleanup", connection, **common), env=env, timeout_s=600)
    runner.run(oltp_args("prepare", connection, **common), env=env,
               timeout_s=600 + rows / 1000)


def _step(
    runner: SysbenchRunner, url: str, master: Database, replicas: Sequence[Database],
    config: ReplayConfig, point_selects: int, threads: int, rate: float | None,
    notify: Callable[[str], None],
) -> dict[str, Any]:
    level: dict[str, Any] = {
        "threads": threads, "offered_tps": rate, "achieved_tps": 0.0, "transactions": 0,
        "reads": 0, "writes": 0, "errors": 0, "unserved": 0, "measured_s": 0.0,
        "latency_ms": {"transaction": None, "read": None, "write": None},
        "replica_lag_s": None, "replica_lag_mean_s": None, "seconds_behind_master": None,
        "heartbeat_writes": 0, "status_delta": {"master": {}, "replica": {}},
        "failed": False, "error": None,
    }
    try:
        if config.warmup_s > 0:
            notify("warmup")
            run_oltp(runner, url, rows=config.rows, point_selects=point_selects,
                     threads=threads, time_s=config.warmup_s, rate_tps=rate)
        before = [master.status(), *(r.status() for r in replicas)]
        notify("measure")
        parsed = run_oltp(runner, url, rows=config.rows, point_selects=point_selects,
                          threads=threads, time_s=config.duration_s, rate_tps=rate)
        after = [master.status(), *(r.status() for r in replicas)]
        lags = [r.replica_lag_s() for r in replicas]
        for replica in replicas:
            if reason := replica.replication_error():
                raise DatabaseError(reason)
    except (DatabaseError, SysbenchFailed) as exc:
        level.update(failed=True, error=str(exc))
        notify("failed")
        return level
    hist = parsed["histogram_ms"] or {}
    behind = max((lag for lag in lags if lag is not None), default=None)
    level.update({
        "achieved_tps": parsed["tps"],
        "transactions": parsed["transactions"],
        "reads": parsed["queries"]["read"],
        "writes": parsed["queries"]["write"],
        "queries": parsed["queries"],
        "errors": parsed["ignored_errors"],
        "reconnects": parsed["reconnects"],
        "measured_s": parsed["total_time_s"],
        "latency_ms": {
            "transaction": {**{k: hist.get(k) for k in PERCENTILES},
                            "max": parsed["latency_ms"]["max"]},
            "read": None,
            "write": None,
        },
        "replica_lag_s": behind,
        "seconds_behind_master": behind,
        "status_delta": {
            "master": status_delta(before[0], after[0]),
            "replica": sum_deltas([status_delta(b, a)
                                   for b, a in zip(before[1:], after[1:], strict=True)]),
        },
    })
    notify("done")
    return level
