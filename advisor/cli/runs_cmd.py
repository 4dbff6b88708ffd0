"""`advisor runs list|show|report`: the runs `--save` and the API stored."""

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from advisor.cli.common import (
    CatalogOpt,
    Format,
    FormatOpt,
    OutOpt,
    console,
    emit_csv,
    emit_json,
    new_table,
    text_column,
    write_out,
)
from advisor.errors import InvalidInput
from advisor.options import MAX_NUMBER_TEXT

runs_app = typer.Typer(help="List, show and render the stored runs (`size --save`, `simulate "
                       "--save` and every API call; $ADVISOR_DATABASE_URL, default a SQLite "
                       "file in your data directory).", no_args_is_help=True)

IdArg = Annotated[str, typer.Argument(help="run id (as `--save` or `runs list` printed it)",
                                      show_default=False, metavar="ID")]


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app, name="runs")


def _store() -> Any:
    from advisor.store import SqlRunStore

    return SqlRunStore()


def stored_run(run_id: str, label: str) -> Any:
    """The stored run `run_id`, or one line naming it after `label` (`run ab12`, `--run ab12`;
    a long id cut short) and the store it is not in."""
    store = _store()
    try:
        run = store.get(run_id)
    finally:
        store.close()
    if run is None:
        shown = run_id if len(run_id) <= MAX_NUMBER_TEXT else run_id[:MAX_NUMBER_TEXT] + "..."
        raise InvalidInput(f"{label} {shown}: no such run in {store.location}")
    return run


def summary(kind: str, result: dict[str, Any]) -> str:
    """What a run answered, in a few words: the deployment or layout and its headline figure."""
    rec = result.get("recommendation")
    if kind == "size" and isinstance(rec, dict):
        cost = rec.get("monthly_usd")
        return f"{rec.get('deployment')}" + (f", ${cost:,.2f}/month" if cost is not None else "")
    if kind == "simulate":
        where = result.get("layout") or (result.get("deployment") or {}).get("master") or ""
        return f"{result.get('workload') or 'pattern'} on {where}".strip()
    if kind == "replay":
        target = result.get("target") or {}
        return f"{len(result.get('levels') or [])} step(s) on {target.get('master', '')}"
    if kind == "calibrate":
        devices = result.get("local_devices") or []
        return ", ".join(f"local:{d.get('name')}" for d in devices if isinstance(d, dict))
    return ""


@runs_app.command("list", help="The most recent stored runs, newest first.")
def list_runs(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=10_000,
                                       help="how many runs")] = 20,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
) -> None:
    store = _store()
    try:
        runs = store.recent(limit)
    finally:
        store.close()
    rows = [{"id": r.id, "created_at": r.created_at.isoformat(timespec="seconds"), "kind": r.kind,
             "workload": r.workload, "advisor_version": r.advisor_version,
             "catalog_version": r.catalog_version, "summary": summary(r.kind, r.result)}
            for r in runs]
    write_out(out, {"location": store.location, "runs": rows})
    if fmt is Format.json:
        emit_json({"location": store.location, "runs": rows})
        return
    if fmt is Format.csv:
        emit_csv(rows)
        return
    if not rows:
        console.print(f"no stored runs in {store.location} (size and simulate store one with "
                      "--save)", markup=False, highlight=False)
        return
    table = new_table(f"Stored runs ({store.location})", title_justify="left",
                      caption="advisor runs show ID; advisor runs report ID --out FILE.html")
    text_column(table, "id, then what it answered", wrap=True)
    text_column(table, "created (UTC)")
    text_column(table, "kind")
    for r in rows:
        table.add_row(Text(f"{r['id']}\n{r['summary']}"), r["created_at"][:16].replace("T", " "),
                      r["kind"], end_section=True)
    console.print(table)


@runs_app.command("show", help="One stored run: when, what was asked, what it answered "
                  "(--format json: the whole run, result included).")
def show_run(run_id: IdArg, fmt: FormatOpt = Format.table, out: OutOpt = None) -> None:
    run = stored_run(run_id, "run")
    data = run.to_json()
    write_out(out, data)
    if fmt is Format.json:
        emit_json(data)
        return
    meta = {k: v for k, v in data.items() if k not in ("request", "result")}
    if fmt is Format.csv:
        emit_csv([{**meta, "summary": summary(run.kind, run.result), "request": run.request}])
        return
    table = new_table(f"Run {run.id}", title_justify="left", show_header=False)
    table.add_column("what", style="bold", no_wrap=True)
    text_column(table, "value", wrap=True)
    table.add_row("created (UTC)", meta["created_at"][:19].replace("T", " "))
    table.add_row("kind", run.kind + (f" ({run.workload})" if run.workload else ""))
    table.add_row("versions", f"advisor {run.advisor_version}, catalog {run.catalog_version}")
    table.add_row("answer", Text(summary(run.kind, run.result)))
    for key, value in run.request.items():
        if value not in (None, [], ""):
            table.add_row(key, Text(str(value)))
    console.print(table)
    console.print(f"whole result: advisor runs show {run.id} --format json; HTML: advisor runs "
                  f"report {run.id} --out FILE.html", markup=False, highlight=False)


@runs_app.command("report", help="Render a stored run as an HTML report (as `advisor report "
                  "--run ID`).")
def report_run(
    run_id: IdArg,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="HTML file to write \\[default: report.html]", show_default=False,
        dir_okay=False)] = None,
    catalog: CatalogOpt = None,
) -> None:
    from advisor.cli.report_cmd import report

    report(result=None, out=out, output=None, compare=None, run=run_id, catalog=catalog)
