"""`advisor simulate --workload mysql|aerospike`: database workloads on a layout (or deployment)."""

from pathlib import Path
from typing import Any

from rich.table import Table

from advisor.catalog.model import Catalog
from advisor.cli.common import console
from advisor.errors import InvalidInput
from advisor.layout.model import Layout


def run_mysql(layout: Layout, cat: Catalog, *, tps: float, reads: float, replicas: int,
              replica_layout: Layout | None, data_gb: float, buffer_pool_gib: float | None,
              io_profile: Path | None, flush_log_at_trx_commit: int, sync_binlog: int,
              p99_ms: float, ramp: str | None, duration: float, engine: str, seed: int,
              progress: Any) -> dict[str, Any]:
    from advisor.sim.run import parse_ramp
    from workloads.mysql import MysqlParams, TxnIo, measured_io
    from workloads.mysql_run import Deployment, simulate_mysql, tps_for_threads

    params = MysqlParams(tps=tps, reads_per_write=reads, replicas=replicas, data_gb=data_gb,
                         buffer_pool_gib=buffer_pool_gib,
                         flush_log_at_trx_commit=flush_log_at_trx_commit,
                         sync_binlog=sync_binlog)
    measured: TxnIo | None = None
    if io_profile is not None:
        from workloads.io_profile import load_io_profile

        measured = measured_io(load_io_profile(io_profile))
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
    from workloads.aerospike import ActLoad, simulate_act

    devices = layout.spec.count
    kw = {"record_bytes": record_bytes, "replication_factor": replication_factor,
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


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:,.2f}"


def print_mysql(r: dict[str, Any]) -> None:
    dep = r["deployment"]
    console.print(f"[bold]MySQL[/bold] master {dep['master']}"
                  + (f", {len(dep['replicas'])} replica(s) {dep['replicas'][0]}" if dep["replicas"]
                     else ", no replicas (the master serves reads)")
                  + f"  ·  {r['params']['reads_per_write']:g} reads/write  ·  "
                  f"{r['params']['data_gb']:g} GiB data  ·  SLO p99 <= {r['slo']['p99_ms']:g} ms"
                  f"  ·  seed {r['seed']}")
    for line in r["io_profile"]["explain"]:
        console.print(f"  · {line}")
    table = Table(caption="latency in ms")
    for col in ("load", "achieved tps", "p50", "p99", "read p99", "write p99", "SLO"):
        table.add_column(col, justify="left" if col == "load" else "right", no_wrap=True)
    for lv in r["levels"]:
        lat = lv["latency_ms"]
        load = ",".join(f"{k}={v:g}" for k, v in lv["load"].items())
        table.add_row(load, f"{lv['achieved_tps']:,.0f}", _ms(lat["transaction"]["p50"]),
                      _ms(lat["transaction"]["p99"]), _ms(lat["read"]["p99"]),
                      _ms(lat["write"]["p99"]), "[green]ok[/green]" if lv["meets_slo"] else
                      "[red]miss[/red]")
    console.print(table)
    console.print(f"[bold]Knee:[/bold] {r['knee']['text']}")
    for lv in r["levels"]:
        load = ",".join(f"{k}={v:g}" for k, v in lv["load"].items())
        console.print(f"[bold]{load}[/bold]")
        for s in lv["servers"]:
            extra = ""
            if "replication" in s:
                rep = s["replication"]
                extra = (f"; applies up to {rep['apply_capacity_tps']:,.0f} writes/s"
                         + (" [red](falls behind)[/red]" if rep["falls_behind"] else ""))
            console.print(f"  {s['role']} {s['layout']}: {s['iops']['total']:,.0f} IOPS, CPU "
                          f"{s['cpu_utilisation']:.0%}; {s['bottleneck']}{extra}")
        for why in lv["reasons"]:
            console.print(f"    [red]✗[/red] {why}")


def print_act(r: dict[str, Any]) -> None:
    console.print(f"[bold]ACT[/bold] {r['layout']} ({r['devices']} device(s)), "
                  f"{r['slice_s']:g} s slices, seed {r['seed']}")
    t = Table(caption="% of small reads over each threshold (worst slice); ACT passes below "
              "5 % >1 ms, 1 % >8 ms, 0.1 % >64 ms")
    for col in ("load", "reads/s", "LB writes/s", ">1ms %", ">8ms %", ">64ms %", "p99 ms", "ACT"):
        t.add_column(col, justify="left" if col == "load" else "right", no_wrap=True)
    for lv in r["levels"]:
        act = lv["act"]
        m = act["max"]
        load = ",".join(f"{k}={v:g}" for k, v in lv["load"].items())
        t.add_row(load, f"{act['derivation']['internal_reads_per_sec']:,.0f}",
                  f"{act['derivation']['large_block_writes_per_sec']:,.1f}",
                  *(f"{m[f'gt_{ms}ms_pct']:.2f}" for ms in (1, 8, 64)),
                  _ms(lv["latency_ms"]["read"]["p99"]),
                  "[green]pass[/green]" if act["pass"] else "[red]fail[/red]")
    console.print(t)
    console.print(f"[bold]Rating:[/bold] {r['rating']['text']}")
    last = r["levels"][-1]
    slices = Table(title=f"Per-slice table at {','.join(f'{k}={v:g}' for k, v in last['load'].items())}",
                   title_justify="left")
    for col in ("slice", "start s", "reads", ">1ms", ">8ms", ">64ms", "pass"):
        slices.add_column(col, justify="right")
    for row in last["act"]["slices"]:
        slices.add_row(str(row["slice"]), f"{row['start_s']:g}", f"{row['reads']:,}",
                       f"{row['gt_1ms_pct']:.2f}", f"{row['gt_8ms_pct']:.2f}",
                       f"{row['gt_64ms_pct']:.3f}", "yes" if row["pass"] else "no")
    console.print(slices)
    for note in last.get("notes", []):
        console.print(f"  · {note}")


def check_workload(workload: str | None) -> None:
    if workload not in (None, "mysql", "aerospike"):
        raise InvalidInput(f"--workload {workload!r}: choose mysql or aerospike")
