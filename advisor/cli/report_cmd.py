"""`advisor report RESULT.json --out FILE.html`, and the `--report` / `--save` steps that `size`
and `simulate` run after their result is computed."""

import math
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from advisor.cli.common import CatalogOpt, err_console, load
from advisor.errors import InvalidInput

HELP = (
    "Render a result as one self-contained HTML page (inline CSS and SVG charts; opens "
    "offline, prints cleanly).\n\n"
    "  advisor size --tps 627 --reads 3.25 --format json > size.json\n\n"
    "  advisor report size.json --out size.html\n\n"
    "Any result JSON works: size (with latency-vs-load curves, recomputed on the analytic "
    "engine), simulate (per-level tables, curves, histogram, timeline; ACT tables for "
    "aerospike), replay (measured curves; --compare SIM.json overlays a simulation of the "
    "same workload). A stored run renders with --run ID (the id `--save` printed)."
)

ReportOpt = Annotated[Path | None, typer.Option(
    "--report", help="also write an HTML report of the result to this file",
    show_default=False, dir_okay=False)]
SaveOpt = Annotated[bool, typer.Option(
    "--save", help="store the run in the runs database ($ADVISOR_DATABASE_URL, default a "
    "SQLite file in your data directory) and print its id on stderr")]


def register(app: typer.Typer) -> None:
    app.command("report", help=HELP)(report)


def report(
    result: Annotated[Path | None, typer.Argument(help="result JSON file (from --format json "
                                                  "or --out)", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="HTML file to write \\[default: report.html]", show_default=False,
        dir_okay=False)] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", hidden=True, dir_okay=False)] = None,  # the old name, still accepted
    compare: Annotated[Path | None, typer.Option(
        help="replay reports: a `simulate --workload mysql` result to overlay")] = None,
    run: Annotated[str | None, typer.Option("--run", help="render a stored run by id instead "
                                            "of a file")] = None,
    catalog: CatalogOpt = None,
) -> None:
    from advisor.report import read_result, render_report, write_html

    if out is not None and output is not None and out != output:
        raise InvalidInput("--out and --output name the same option (the HTML file): give one")
    target = out or output or Path("report.html")
    if (result is None) == (run is None):
        raise InvalidInput("give a result file or --run ID (one of them)")
    from advisor.userfiles import check_output

    check_output(target, what="report")  # before the rendering, not after it
    run_id = created = None
    if run is not None:
        from advisor.cli.runs_cmd import stored_run

        stored = stored_run(run, "--run")
        data, run_id = stored.result, stored.id
        created = stored.created_at.isoformat(timespec="seconds")
    else:
        assert result is not None
        data = read_result(result)
        _check_finite(data, str(result))
    other = read_result(compare) if compare is not None else None
    if other is not None:
        _check_finite(other, str(compare))
    html = render_report(data, catalog=load(catalog), compare=other, run_id=run_id,
                         created_at=created)
    write_html(target, html)
    err_console.print(f"wrote {target}", highlight=False, soft_wrap=True)


def _non_finite(value: Any, where: str) -> str | None:
    """The JSON path of the first NaN or infinity in `value`, or None (iterative: a deep file
    was already refused by the reader, but no recursion limit is needed here either)."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return at
        if isinstance(item, dict):
            stack.extend((v, f"{at}.{k}") for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{i}]") for i, v in reversed(list(enumerate(item))))
    return None


# The kinds of result this advisor writes (calibrate's profile carries none; older tests and
# files name it "calibrate"); any other `kind` is not a result of ours.
KNOWN_KINDS = ("size", "simulate", "replay", "validate", "calibrate")


def _check_finite(data: dict[str, Any], source: str) -> None:
    """A result holds finite numbers only: NaN or Infinity (which Python's JSON reader accepts)
    would be drawn as a broken chart or a silent 'nan ms', so the file is refused in one line;
    so is one whose `kind` no command of this advisor writes."""
    if "kind" in data and data["kind"] not in KNOWN_KINDS:
        from advisor.options import show_value

        raise InvalidInput(f"{source}: kind {show_value(data['kind'])} is not a result this "
                           f"advisor writes ({', '.join(KNOWN_KINDS)})")
    at = _non_finite(data, "")
    if at is not None:
        from advisor.options import show_value

        raise InvalidInput(f"{source}: not a result this advisor wrote: "
                           f"{show_value(at.lstrip('.'))} is not a finite number")


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


SKIP = ("fmt", "out", "catalog", "report", "save", "explain")


def request_of(options: Mapping[str, Any]) -> dict[str, Any]:
    """The command's options as a JSON request (output-only options left out)."""
    return {k: _plain(v) for k, v in options.items() if k not in SKIP and not k.startswith("_")
            and isinstance(_plain(v), str | int | float | bool | list | type(None))}


def after_result(kind: str, request: Mapping[str, Any], result: dict[str, Any], *,
                 report: Path | None, save: bool, catalog: Any) -> None:
    """Write the HTML report and/or store the run; messages go to stderr (stdout is the
    result)."""
    if report is not None:
        from advisor.report import render_report, write_html

        write_html(report, render_report(result, catalog=catalog))
        err_console.print(f"report written to {report}", highlight=False, soft_wrap=True)
    if save:
        from advisor.store import SqlRunStore

        store = SqlRunStore()
        try:
            run_id = store.save(kind, request_of(request), result)
        finally:
            store.close()
        err_console.print(f"saved run {run_id} in {store.location}", highlight=False,
                          soft_wrap=True)
