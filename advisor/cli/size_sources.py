"""`size --from-mysql-status BEFORE AFTER [--variables FILE]`: the workload read from a running
server's counters (workloads.mysql_status) as `size` options; flags typed on the command line
override what the dumps give."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from advisor.cli.common import console
from advisor.options import FieldError
from workloads.mysql_status import StatusWorkload


def given_on_command_line(names: list[str]) -> set[str]:
    """Which of these parameters the user typed (not their defaults)."""
    try:  # typer >= 0.20 vendors its own click
        from typer._click import core, globals
    except ImportError:  # pragma: no cover - older typer on plain click
        from click import core, globals  # type: ignore[no-redef]
    ctx = globals.get_current_context(silent=True)
    if ctx is None:
        return set()
    typed = (core.ParameterSource.COMMANDLINE, core.ParameterSource.ENVIRONMENT)
    return {n for n in names if ctx.get_parameter_source(n) in typed}


def status_options(paths: tuple[Path, Path], variables: Path | None,
                   options: Mapping[str, Any]) -> tuple[dict[str, Any], StatusWorkload]:
    """The options with what the dumps give set where the user typed nothing, and the
    workload derived (its lines go to the user with the answer)."""
    from advisor.userfiles import read_text
    from recommend.request import size_request
    from workloads.mysql_status import derive, parse_status, parse_variables

    if options.get("workload", "mysql") != "mysql":
        raise FieldError("from_mysql_status", str(paths[0]), "applies to the mysql workload only")
    before = parse_status(read_text(paths[0], what="status dump"), source=str(paths[0]))
    after = parse_status(read_text(paths[1], what="status dump"), source=str(paths[1]))
    var = None if variables is None else parse_variables(
        read_text(variables, what="variables dump"), source=str(variables))
    # What one explicit transaction holds: the sizing shape's read-write transaction.
    shape = size_request(options).shape()  # type: ignore[union-attr]
    w = shape.write_txn
    workload = derive(before, after, variables=var,
                      selects_per_write_txn=w.read_statements if w is not None else 0,
                      writes_per_write_txn=w.write_statements if w is not None else 1)
    derived = workload.size_options()
    typed = given_on_command_line(list(derived))
    merged = dict(options)
    merged.update({k: v for k, v in derived.items() if k not in typed})
    if workload.reads_per_write is None and "reads" not in typed:
        raise FieldError("from_mysql_status", str(paths[1]),
                         "the dumps show no read-write transaction: give --reads (and check "
                         "--preset) to size them")
    return merged, workload


def status_json(workload: StatusWorkload) -> dict[str, Any]:
    """What was derived, for --format json (the result's `from_mysql_status`)."""
    return {"interval_s": workload.interval_s, "tps": round(workload.tps, 4),
            "read_txns": workload.read_txns, "write_txns": workload.write_txns,
            "reads_per_write": None if workload.reads_per_write is None
            else round(workload.reads_per_write, 4),
            "explicit_txns": workload.explicit_txns, "autocommitted": workload.autocommitted,
            "selects": workload.selects, "write_statements": workload.write_statements,
            "rows_read_per_select": workload.rows_read_per_select,
            "rows_changed_per_write_statement": workload.rows_changed_per_write_statement,
            "buffer_pool_miss_ratio": workload.buffer_pool_miss_ratio,
            "redo_fsyncs_per_s": round(workload.redo_fsyncs_per_s, 4),
            "data_fsyncs_per_s": round(workload.data_fsyncs_per_s, 4),
            "pages_written_per_s": round(workload.pages_written_per_s, 4),
            "version": workload.version, "size_options": workload.size_options(),
            "io_profile": dict(workload.profile_document or {}) or None,
            "notes": list(workload.notes)}


def print_status(workload: StatusWorkload) -> None:
    console.print("[bold]From SHOW GLOBAL STATUS[/bold] (flags typed override what it gives)")
    for line in workload.lines():
        console.print(f"  · {line}", markup=False, highlight=False, soft_wrap=True)
