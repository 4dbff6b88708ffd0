"""`advisor simulate SPEC`: replay an I/O pattern (fio, sysbench fileio, ioping) on a layout."""

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from advisor.cli.common import CatalogOpt, console, emit_json, fmt_ms, load
from advisor.cli.layout_cmd import SPEC_HELP
from advisor.cli.report_cmd import ReportOpt, SaveOpt
from advisor.errors import InvalidInput


class SimFormat(str, Enum):
    table = "table"
    json = "json"
    fio = "fio"


def register(app: typer.Typer) -> None:
    app.command("simulate", help=(
        "Simulate a workload on a layout: IOPS, MiB/s and latency percentiles under rising load, "
        "and the limit that binds.\n\n"
        "fio style:      advisor simulate m5d.large:gp2:385GiB --rw randrw --rwmixread 75 --bs 4k "
        "--iodepth 64\n\n"
        "sysbench style: advisor simulate m5.8xlarge:io1:1000GiB:50000iops --file-test-mode rndwr "
        "--ramp threads=1,8,32,128\n\n"
        "ioping style:   advisor simulate m5d.large:store --pattern ioping\n\n"
        f"SPEC: {SPEC_HELP}"))(simulate)


def simulate(
    spec: Annotated[str, typer.Argument(help=SPEC_HELP, show_default=False)],
    rw: Annotated[str, typer.Option("--rw", help="fio pattern: read, write, randread, randwrite, "
                                    "rw, randrw")] = "randread",
    rwmixread: Annotated[float, typer.Option(help="% reads for rw/randrw (fio)")] = 50.0,
    bs: Annotated[str, typer.Option(help="block size, e.g. 4k, 16k, 1m")] = "4k",
    iodepth: Annotated[int, typer.Option(help="outstanding I/Os per job")] = 1,
    numjobs: Annotated[int, typer.Option(help="jobs; concurrency = iodepth x numjobs")] = 1,
    rate_iops: Annotated[float | None, typer.Option(
        "--rate-iops", help="open loop: Poisson arrivals at this many IOPS (latency from the "
        "intended start)")] = None,
    size: Annotated[str, typer.Option(help="span of the random offsets (fio --size)")] = "4g",
    pattern: Annotated[str | None, typer.Option(
        help="preset: ioping (QD1 4 KiB random reads)")] = None,
    file_test_mode: Annotated[str | None, typer.Option(
        "--file-test-mode", help="sysbench fileio mode: seqwr, seqrd, rndrd, rndwr, rndrw "
        "(threads at QD1, 16 KiB, fsync every 100 writes)")] = None,
    threads: Annotated[int, typer.Option(help="sysbench threads")] = 1,
    file_block_size: Annotated[str, typer.Option("--file-block-size")] = "16k",
    file_fsync_freq: Annotated[int, typer.Option("--file-fsync-freq")] = 100,
    duration: Annotated[float, typer.Option(help="simulated seconds per load level")] = 60.0,
    warmup: Annotated[float, typer.Option(help="seconds excluded from the statistics")] = 0.0,
    ramp: Annotated[str | None, typer.Option(
        help="rising load: iodepth=1,2,4,... or threads=1,8,64 or rate=1000,2000,... "
             "(IOPS)")] = None,
    engine: Annotated[str, typer.Option(
        help="des (event simulation), analytic (formulas, any horizon) or auto")] = "auto",
    seed: Annotated[int, typer.Option(help="random seed (echoed in the result)")] = 1,
    fmt: Annotated[SimFormat, typer.Option("--format", "-f", help="table, json or fio (fio "
                                           "--output-format=json shape)")] = SimFormat.table,
    out: Annotated[Path | None,
                   typer.Option(help="also write the JSON result to this file")] = None,
    catalog: CatalogOpt = None,
    workload: Annotated[str | None, typer.Option(
        help="database workload instead of a raw pattern: mysql or aerospike",
        rich_help_panel="Database workloads")] = None,
    tps: Annotated[float, typer.Option(help="mysql: all transactions/s",
                                       rich_help_panel="Database workloads")] = 627.0,
    reads: Annotated[float, typer.Option(help="mysql: read transactions per write transaction",
                                         rich_help_panel="Database workloads")] = 3.25,
    replicas: Annotated[int, typer.Option(help="mysql: replicas taking the reads (0: master)",
                                          rich_help_panel="Database workloads")] = 1,
    replica_layout: Annotated[str | None, typer.Option(
        help="mysql: layout of each replica (default: the master's)",
        rich_help_panel="Database workloads")] = None,
    data_gb: Annotated[float, typer.Option(help="mysql: data size in GiB",
                                           rich_help_panel="Database workloads")] = 100.0,
    buffer_pool_gib: Annotated[float | None, typer.Option(
        help="mysql: InnoDB buffer pool (default 75 % of RAM)",
        rich_help_panel="Database workloads")] = None,
    io_profile: Annotated[Path | None, typer.Option(
        help="mysql: measured per-transaction I/O profile (from advisor replay)",
        rich_help_panel="Database workloads")] = None,
    flush_log_at_trx_commit: Annotated[int, typer.Option(
        "--flush-log-at-trx-commit", rich_help_panel="Database workloads")] = 1,
    sync_binlog: Annotated[int, typer.Option(rich_help_panel="Database workloads")] = 1,
    p99_ms: Annotated[float, typer.Option(help="mysql: SLO on transaction p99 for the knee",
                                          rich_help_panel="Database workloads")] = 10.0,
    preset: Annotated[str | None, typer.Option(
        help="mysql: oltp-rw = sysbench oltp_read_write --point-selects=9 (3.25 reads per "
        "write; the defaults)", rich_help_panel="Database workloads")] = None,
    row_bytes: Annotated[int, typer.Option(help="mysql: bytes per row",
                                           rich_help_panel="Database workloads")] = 190,
    read_rows: Annotated[int, typer.Option(help="mysql: rows looked up per read transaction",
                                           rich_help_panel="Database workloads")] = 1,
    write_rows: Annotated[int, typer.Option(help="mysql: rows changed per write transaction",
                                            rich_help_panel="Database workloads")] = 4,
    secondary_indexes: Annotated[int, typer.Option(help="mysql: secondary indexes per table",
                                                   rich_help_panel="Database workloads")] = 1,
    replica_workers: Annotated[int, typer.Option(
        help="mysql: replica SQL threads applying writes",
        rich_help_panel="Database workloads")] = 1,
    x: Annotated[float | None, typer.Option(
        "--x", help="aerospike: ACT load multiple (1x = 2,000 reads/s + 1,000 writes/s per "
        "device)", rich_help_panel="Database workloads")] = None,
    reads_per_sec: Annotated[float | None, typer.Option(
        rich_help_panel="Database workloads")] = None,
    writes_per_sec: Annotated[float | None, typer.Option(
        rich_help_panel="Database workloads")] = None,
    record_bytes: Annotated[int, typer.Option(rich_help_panel="Database workloads")] = 1536,
    replication_factor: Annotated[int, typer.Option(rich_help_panel="Database workloads")] = 1,
    update_pct: Annotated[float, typer.Option(rich_help_panel="Database workloads")] = 0.0,
    defrag_lwm_pct: Annotated[float, typer.Option(rich_help_panel="Database workloads")] = 50.0,
    slice_s: Annotated[float | None, typer.Option(
        "--slice", help="aerospike: ACT report slice in seconds (default duration/6)",
        rich_help_panel="Database workloads")] = None,
    report: ReportOpt = None,
    save: SaveOpt = False,
) -> None:
    from advisor.layout import resolve
    from advisor.sim.patterns import build_pattern
    from advisor.sim.result import fio_json
    from advisor.sim.run import parse_ramp, simulate_pattern

    cat = load(catalog)
    layout = resolve(spec, cat)
    if engine not in ("des", "analytic", "auto"):
        raise InvalidInput(f"--engine {engine!r}: choose des, analytic or auto")
    if workload is not None:
        _simulate_db(layout, cat, workload, locals())
        return
    options = dict(locals())
    pat = build_pattern(rw=rw, rwmixread=rwmixread, bs=bs, iodepth=iodepth, numjobs=numjobs,
                        rate_iops=rate_iops, size=size, pattern=pattern,
                        file_test_mode=file_test_mode, threads=threads,
                        file_block_size=file_block_size, file_fsync_freq=file_fsync_freq)
    ramp_obj = parse_ramp(ramp) if ramp else None
    from advisor.cli.progress import level_progress

    levels = len(ramp_obj.values) if ramp_obj else 1
    with level_progress(levels, f"simulating {layout.spec}") as tick:
        result = simulate_pattern(layout, cat, pat, ramp=ramp_obj, duration_s=duration,
                                  engine=engine, seed=seed, warmup_s=warmup,  # type: ignore[arg-type]
                                  progress=tick)
    if out is not None:
        from advisor.userfiles import write_json

        write_json(out, result)
    if fmt is SimFormat.json:
        emit_json(result)
    elif fmt is SimFormat.fio:
        emit_json(fio_json(result))
    else:
        print_simulation(result)
    if report is not None or save:
        from advisor.cli.report_cmd import after_result

        after_result("simulate", options, result, report=report, save=save, catalog=cat)


def print_simulation(r: dict[str, Any]) -> None:
    p = r["pattern"]
    console.print(f"[bold]{r['layout']}[/bold]  {p['name']}  bs {p['block_bytes'] // 1024} KiB  "
                  f"{p['read_fraction']:.0%} reads  {r['duration_s']:g} s per level  "
                  f"seed {r['seed']}  engine {'/'.join(r['engine'])}")
    table = Table()
    for col in ("load", "rd IOPS", "wr IOPS", "MiB/s", "rd p50", "rd p99", "wr p50", "wr p99"):
        table.add_column(col, justify="left" if col == "load" else "right", no_wrap=True)
    labels = []
    for lv in r["levels"]:
        lat = lv["latency_ms"]
        label = ",".join(f"{k}={v:g}" for k, v in lv["load"].items())
        labels.append(label)
        table.add_row(label, f"{lv['iops']['read']:,.0f}", f"{lv['iops']['write']:,.0f}",
                      f"{lv['throughput_mibps']:,.1f}", fmt_ms(lat["read"]["p50"]),
                      fmt_ms(lat["read"]["p99"]), fmt_ms(lat["write"]["p50"]),
                      fmt_ms(lat["write"]["p99"]))
    table.caption = "latency in ms"
    console.print(table)
    console.print("[bold]Bottleneck[/bold]")
    for label, lv in zip(labels, r["levels"], strict=True):
        console.print(f"  {label}: {lv['bottleneck']}")
    tl = [pt for pt in r["timeline"] if pt.get("burst_balance") is not None]
    if tl:
        step = max(1, len(tl) // 12)
        t2 = Table(title="Burst credits over time (last level)", title_justify="left")
        for col in ("t (s)", "IOPS", "MiB/s", "credits left"):
            t2.add_column(col)
        for pt in tl[::step]:
            t2.add_row(f"{pt['t_s']:,.0f}", f"{pt['iops']:,.0f}", f"{pt['throughput_mibps']:,.1f}",
                       f"{max(0.0, pt['burst_balance']):.0%}")
        console.print(t2)
    for note in r.get("notes", []):
        console.print(f"  · {note}")



def _simulate_db(layout: Any, cat: Any, workload: str, o: dict[str, Any]) -> None:
    from advisor.cli import simulate_db as db
    from advisor.cli.progress import level_progress
    from advisor.layout import resolve
    from workloads import simulate as core

    core.check_workload(workload)
    if o["duration"] <= 0 or o["duration"] > 86400:
        raise InvalidInput(f"--duration {o['duration']:g}: must be between 0 and 86400 s")
    with level_progress(8, f"simulating {workload} on {layout.spec}") as tick:
        if workload == "mysql":
            replica = resolve(o["replica_layout"], cat) if o["replica_layout"] else None
            measured = None
            if o["io_profile"] is not None:
                from workloads.mysql import measured_io
                from workloads.real.io_profile_file import load_io_profile

                measured = measured_io(load_io_profile(o["io_profile"]))
            if o["preset"] not in (None, "oltp-rw"):
                raise InvalidInput(f"--preset {o['preset']!r}: the MySQL preset is oltp-rw")
            if o["preset"] == "oltp-rw":
                o["reads"] = 3.25  # 9 point selects + 4 ranges per 4 writes, as one ratio
            result = core.run_mysql(
                layout, cat, tps=o["tps"], reads=o["reads"], replicas=o["replicas"],
                replica_layout=replica, data_gb=o["data_gb"],
                buffer_pool_gib=o["buffer_pool_gib"], measured=measured,
                flush_log_at_trx_commit=o["flush_log_at_trx_commit"],
                sync_binlog=o["sync_binlog"], p99_ms=o["p99_ms"], ramp=o["ramp"],
                duration=o["duration"], engine=o["engine"], seed=o["seed"], progress=tick,
                row_bytes=o["row_bytes"], read_rows=o["read_rows"], write_rows=o["write_rows"],
                secondary_indexes=o["secondary_indexes"], replica_workers=o["replica_workers"])
        else:
            result = core.run_aerospike(
                layout, cat, x=o["x"], ramp=o["ramp"], reads_per_sec=o["reads_per_sec"],
                writes_per_sec=o["writes_per_sec"], record_bytes=o["record_bytes"],
                replication_factor=o["replication_factor"], update_pct=o["update_pct"],
                defrag_lwm_pct=o["defrag_lwm_pct"], duration=o["duration"],
                slice_s=o["slice_s"], seed=o["seed"], progress=tick)
    if o["out"] is not None:
        from advisor.userfiles import write_json

        write_json(o["out"], result)
    if o["fmt"] is SimFormat.json:
        emit_json(result)
    elif o["fmt"] is SimFormat.fio:
        raise InvalidInput("--format fio is for raw I/O patterns; use json for workloads")
    elif workload == "mysql":
        db.print_mysql(result)
    else:
        db.print_act(result)
    if o["report"] is not None or o["save"]:
        from advisor.cli.report_cmd import after_result

        after_result("simulate", o, result, report=o["report"], save=o["save"], catalog=cat)
