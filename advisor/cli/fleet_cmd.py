"""`advisor fleet FILE`: size every workload of a fleet, in this process or on a Dask cluster."""

import shlex
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from advisor.cli.common import CatalogOpt, Format, FormatOpt, console, emit_json, load, usd
from advisor.cli.report_cmd import ReportOpt

HELP = """Size a fleet: every row of FILE is sized as `advisor size` sizes it.

  advisor fleet fleet.csv --out results.csv --report fleet.html

FILE is CSV, JSON Lines (.jsonl) or Parquet: one row per database with an `id`, its `workload`
(mysql or aerospike) and `size`'s options as columns in snake_case (tps, reads, data_gb,
p99_ms, replicas, reads_per_sec, writes_per_sec, ...; a blank cell takes size's default), and
optionally `current_deployment` and `current_monthly_usd` (what it runs on and costs now).

Rows run in this process by default; --workers N starts a local Dask cluster of N processes and
--scheduler tcp://HOST:PORT uses an existing one (pip install 'advisor\\[fleet]'). A row with a
bad value, or whose SLO nothing meets, is recorded with its reason and the run goes on.
--out (CSV or Parquet) gets one row per workload as it finishes; --resume skips the ids it
already holds. Each sized row is also stored as a `size` run (--no-save to skip).

Exit codes: 0 the fleet ran (failed rows are in the results); 2 bad input (an unknown column,
a row without an id, a repeated id, an unreachable scheduler)."""


def register(app: typer.Typer) -> None:
    app.command("fleet", help=HELP)(fleet)


def fleet(
    file: Annotated[Path, typer.Argument(help="workloads: .csv, .jsonl or .parquet",
                                         show_default=False, dir_okay=False)],
    out: Annotated[Path | None, typer.Option(
        help="row results as they finish: .csv or .parquet", show_default=False,
        dir_okay=False)] = None,
    resume: Annotated[bool, typer.Option("--resume", help="skip the ids --out already "
                                         "holds")] = False,
    workers: Annotated[int, typer.Option(help="local Dask worker processes (0: in this "
                                         "process)", min=0, max=256)] = 0,
    scheduler: Annotated[str | None, typer.Option(help="an existing Dask scheduler, "
                                                  "tcp://HOST:PORT", show_default=False)] = None,
    catalog: CatalogOpt = None,
    fmt: FormatOpt = Format.table,
    report: ReportOpt = None,
    save: Annotated[bool, typer.Option("--save/--no-save", help="store each sized row as a "
                                       "`size` run in the runs database")] = True,
) -> None:
    from advisor.errors import InvalidInput
    from advisor.fleet_files import ResultsFile, check_out, done_rows, kept_results, read_fleet
    from advisor.fleet_run import Where, run_fleet
    from recommend.fleet import parse_rows, summarise

    if fmt is Format.csv:
        raise InvalidInput("--format csv: the row results are a table already; use --out "
                           "results.csv (--format json prints the fleet report)")
    if resume and out is None:
        raise InvalidInput("--resume continues an --out file: give --out")
    where = Where(workers=workers, scheduler=scheduler)
    rows = parse_rows(read_fleet(file))
    if out is not None:
        check_out(out)
    if report is not None:
        from advisor.userfiles import check_output

        check_output(report, what="report")
    kept = kept_results(done_rows(out)) if resume and out is not None else []
    done = {r.id for r in kept}
    todo = [r for r in rows if r.id not in done]
    cat = load(catalog)
    sink = ResultsFile(out, kept) if out is not None else None
    store = _store() if save else None
    results = list(kept)
    start = time.perf_counter()
    try:
        with _progress(len(todo), where.text) as advance:

            def on_result(r: Any) -> None:
                if sink is not None:
                    sink.add(r)
                if store is not None and r.result is not None:
                    store.save("size", r.result["request"], r.result)
                results.append(r)
                advance()

            run_fleet(todo, cat, where, on_result)
    finally:
        if sink is not None:
            sink.close()
        if store is not None:
            store.close()
    seconds = time.perf_counter() - start
    summary = summarise(results, catalog_version=cat.catalog_version)
    from advisor.report.fleet_view import fleet_json, render_fleet

    command = "advisor fleet " + " ".join(shlex.quote(a) for a in sys.argv[2:]) \
        if len(sys.argv) > 2 and sys.argv[1] == "fleet" else f"advisor fleet {file}"
    if report is not None:
        from advisor.userfiles import write_text

        write_text(report, render_fleet(summary, where=where.text, seconds=seconds,
                                        command=command), what="report")
    if fmt is Format.json:
        emit_json(fleet_json(summary, where=where.text, seconds=seconds))
    else:
        _print(summary, where.text, seconds, len(todo), len(kept))
    if report is not None:
        from advisor.cli.common import err_console

        err_console.print(f"report written to {report}", highlight=False, soft_wrap=True)


def _store() -> Any:
    from advisor.store import SqlRunStore

    return SqlRunStore()


def _progress(total: int, where: str) -> Any:
    """A progress bar with the rate and the time left (silent when stderr is not a terminal)."""
    from contextlib import contextmanager

    @contextmanager
    def bar() -> Any:
        if not sys.stderr.isatty():
            yield lambda: None
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                      MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                      TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                      console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task(f"sizing the fleet ({where})", total=total, rate="")
            started = time.perf_counter()

            def advance() -> None:
                progress.advance(task)
                done = progress.tasks[0].completed
                elapsed = time.perf_counter() - started
                progress.update(task, rate=f"{done / elapsed:,.2f} rows/s" if elapsed else "")

            yield advance

    return bar()


def _print(summary: Any, where: str, seconds: float, ran: int, kept: int) -> None:
    s = summary.by_status
    c = summary.compared
    console.print(f"[bold]Fleet[/bold] {summary.rows:,} rows ({ran:,} sized now {where} in "
                  f"{seconds:,.1f} s" + (f", {kept:,} kept from --out" if kept else "") + ")")
    console.print(f"  sized {s['ok']:,} · meet no SLO {s['no_slo']:,} · refused "
                  f"{s['invalid']:,} · failed {s['error']:,}")
    console.print(f"  recommended total {usd(summary.recommended_monthly_usd)}/month")
    if c.rows:
        console.print(f"  {c.rows:,} rows with a current cost: {usd(c.current_monthly_usd)} now"
                      f", {usd(c.recommended_monthly_usd)} recommended, savings "
                      f"{usd(c.savings_monthly_usd)}/month")
    for r in summary.unmet[:10]:
        console.print(f"  {r.id}: {r.reason}", markup=False, highlight=False, soft_wrap=True)
    if len(summary.unmet) > 10:
        console.print(f"  ... {len(summary.unmet) - 10:,} more rows without a recommendation "
                      "(--format json or --report lists them)")
