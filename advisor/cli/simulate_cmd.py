"""`advisor simulate SPEC`: replay an I/O pattern (fio, sysbench fileio, ioping) on a layout."""

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from advisor.cli.common import (
    CatalogOpt,
    console,
    emit_csv,
    emit_json,
    fmt_ms,
    load,
    new_table,
    num_column,
)
from advisor.cli.layout_cmd import SPEC_HELP
from advisor.cli.options import fixed, with_options
from advisor.cli.report_cmd import ReportOpt, SaveOpt
from advisor.errors import InvalidInput
from advisor.options import FieldError, declared
from advisor.sim.results import PatternResult
from workloads.simulate_request import (
    DB,
    WORKLOAD,
    MysqlSimRequest,
    PatternSimRequest,
    SimulateCommon,
    simulate_fields,
    simulate_request,
)

# --help lists the pattern's options, then the run's, then the database workloads' (own panel).
_COMMON = [d for d in declared(SimulateCommon) if d.name != "spec"]
PATTERN_FIRST = [d for d in declared(PatternSimRequest) if d not in _COMMON and d.name != "spec"]
PATTERN_FIRST += [*_COMMON, WORKLOAD, *(d for d in simulate_fields().values() if d.opt.panel)]


class SimFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
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


@with_options(
    [simulate_fields()["spec"], *PATTERN_FIRST],
    fixed("fmt", Annotated[SimFormat, typer.Option(
        "--format", "-f", help="table, json, csv (one row per load level) or fio (fio "
        "--output-format=json shape)")],
        SimFormat.table),
    fixed("out", Annotated[Path | None, typer.Option(
        help="also write the JSON result to this file")], None),
    fixed("catalog", CatalogOpt, None),
    fixed("io_profile", Annotated[Path | None, typer.Option(
        help="mysql: measured per-transaction I/O profile (from advisor replay)",
        rich_help_panel=DB)], None),
    fixed("report", ReportOpt, None),
    fixed("save", SaveOpt, False),
)
def simulate(*, fmt: SimFormat, out: Path | None, catalog: list[Path] | None,
             io_profile: Path | None, report: Path | None, save: bool, **options: Any) -> None:
    from advisor.cli.progress import level_progress
    from workloads.simulate import run_simulate

    req = simulate_request(options)
    from advisor.userfiles import check_output

    check_output(out, what="result")  # before the simulation, not after it
    check_output(report, what="report")
    cat = load(catalog)
    measured = None
    if io_profile is not None:
        if not isinstance(req, MysqlSimRequest):
            raise FieldError("io_profile", str(io_profile), "applies to --workload mysql only")
        from workloads.mysql import measured_io
        from workloads.real.io_profile_file import load_io_profile

        measured = measured_io(load_io_profile(io_profile))
    if fmt is SimFormat.fio and req.workload is not None:
        raise InvalidInput("--format fio is for raw I/O patterns; use json for workloads")
    levels = 8 if req.workload else len(req.ramp.split(",")) if req.ramp else 1
    what = f"{req.workload} on {req.spec}" if req.workload else req.spec
    with level_progress(levels, f"simulating {what}") as tick:
        result = run_simulate(req, cat, measured=measured, progress=tick)
    from advisor.serial import to_json
    from workloads.results import ActSimResult, MysqlSimResult

    data = to_json(result)
    if out is not None:
        from advisor.userfiles import write_json

        write_json(out, data)
    if fmt is SimFormat.json:
        emit_json(data)
    elif fmt is SimFormat.csv:
        # latency_detail is the fio export's (`--format fio`); json keeps it
        emit_csv(data["levels"], skip=("sources", "notes", "latency_detail"))
    elif isinstance(result, MysqlSimResult):
        from advisor.cli import simulate_db

        simulate_db.print_mysql(result)
    elif isinstance(result, ActSimResult):
        from advisor.cli import simulate_db

        simulate_db.print_act(result)
    elif fmt is SimFormat.fio:
        import time

        from advisor.sim.fio_export import fio_json

        now = time.time()
        emit_json(fio_json(result, stamp={
            "timestamp": int(now), "timestamp_ms": int(now * 1000),
            "time": time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(now))}))
    else:
        print_simulation(result)
    if report is not None or save:
        from advisor.cli.report_cmd import after_result

        after_result("simulate", data["request"], data, report=report, save=save,
                     catalog=cat)


def print_simulation(r: PatternResult) -> None:
    p = r.pattern
    console.print(f"[bold]{r.layout}[/bold]  {p.name}  bs {p.block_bytes // 1024} KiB  "
                  f"{p.read_fraction:.0%} reads  {r.duration_s:g} s per level  "
                  f"seed {r.seed}  engine {'/'.join(r.engine)}")
    table = new_table(caption="latency in ms")
    table.add_column("load", no_wrap=True)
    for col in ("read\nIOPS", "write\nIOPS", "MiB/s", "read\np50", "read\np99", "write\np50",
                "write\np99"):
        num_column(table, col)
    labels = []
    for lv in r.levels:
        lat = lv.latency_ms
        label = ",".join(f"{k}={v:g}" for k, v in lv.load.items())
        labels.append(label)
        table.add_row(label, f"{lv.iops.read:,.0f}", f"{lv.iops.write:,.0f}",
                      f"{lv.throughput_mibps:,.1f}", fmt_ms(lat.read.p50), fmt_ms(lat.read.p99),
                      fmt_ms(lat.write.p50), fmt_ms(lat.write.p99))
    console.print(table)
    console.print("[bold]Bottleneck[/bold]")
    for label, lv in zip(labels, r.levels, strict=True):
        console.print(f"  {label}: {lv.bottleneck}")
    tl = [pt for pt in r.timeline if pt.burst_balance is not None]
    if tl:
        step = max(1, len(tl) // 12)
        t2 = new_table("Burst credits over time (last level)", title_justify="left")
        for col in ("t (s)", "IOPS", "MiB/s", "credits left"):
            num_column(t2, col)
        for pt in tl[::step]:
            t2.add_row(f"{pt.t_s:,.0f}", f"{pt.iops:,.0f}", f"{pt.throughput_mibps:,.1f}",
                       f"{max(0.0, pt.burst_balance or 0.0):.0%}")
        console.print(t2)
    for note in r.notes:
        console.print(f"  · {note}")
