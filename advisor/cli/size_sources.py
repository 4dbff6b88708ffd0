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
    notes = _shape_notes(workload, w, options)
    if notes:
        import dataclasses

        workload = dataclasses.replace(workload, notes=(*workload.notes, *notes))
    derived = workload.size_options()
    typed = given_on_command_line(list(derived))
    merged = dict(options)
    merged.update({k: v for k, v in derived.items() if k not in typed})
    if workload.reads_per_write is None and "reads" not in typed:
        raise FieldError("from_mysql_status", str(paths[1]),
                         "the dumps show no read-write transaction: give --reads (and check "
                         "--preset) to size them")
    return merged, workload


def _shape_notes(workload: StatusWorkload, write: Any, options: Mapping[str, Any]) -> list[str]:
    """Where the dumps' statements per read-write transaction differ from the sizing shape's:
    the sizing's I/O is the measured one per transaction, its CPU and shape lines are the
    shape's, so say which flag would match."""
    if write is None or workload.write_txns <= 0:
        return []
    measured = workload.write_statements / workload.write_txns
    if abs(measured - write.write_statements) <= 0.1 * write.write_statements:
        return []
    how = ("autocommitted" if workload.explicit_txns == 0 else
           f"{workload.explicit_txns:,} explicit transactions")
    hint = (f" (e.g. --write-txn update={round(measured)},autocommit)"
            if workload.explicit_txns == 0 and round(measured) >= 1 else "")
    return [f"the dumps show {measured:,.2f} write statements per read-write transaction ({how})"
            f"; the sizing shape ({options.get('preset', 'point-rw')}) has "
            f"{write.write_statements}: set the shape to match{hint}"]


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


CLOUDWATCH_OPTIONS = {"p99_ms", "data_gb", "allow_ephemeral", "region", "workload"}


def size_from_cloudwatch(path: Path, *, instance: str | None, current: str | None,
                         options: Mapping[str, Any], fmt: Any, catalog: list[Path] | None,
                         out: Path | None) -> None:
    """`size --from-cloudwatch FILE --instance TYPE [--current-layout SPEC]`: the demand per
    sample and its peaks, then the cheapest layouts on TYPE that serve the p99 sample within
    --p99-ms (each I/O's p99), the current layout judged the same way."""
    from advisor.cli.common import Format, emit_csv, emit_json, load
    from advisor.cli.progress import activity
    from advisor.errors import InfeasibleSlo
    from advisor.userfiles import check_output, read_json_object, write_json
    from recommend.request import MysqlSizeRequest, size_request
    from recommend.storage_fit import storage_fit
    from workloads.cloudwatch import demand_json, parse_metric_data

    if instance is None:
        raise FieldError("instance", None, "--from-cloudwatch sizes storage for one instance "
                         "type: give --instance TYPE")
    req = size_request(options)
    if not isinstance(req, MysqlSizeRequest):
        raise FieldError("from_cloudwatch", str(path), "applies to the mysql workload only")
    ignored = sorted(given_on_command_line(list(options)) - CLOUDWATCH_OPTIONS)
    if ignored:  # typed but meaningless here: refused rather than silently ignored
        raise FieldError(ignored[0], options[ignored[0]], "does not apply to --from-cloudwatch "
                         "(it judges storage at the measured I/O; it takes --p99-ms, --data-gb, "
                         "--allow-ephemeral, --region)")
    check_output(out, what="result")
    cat = load(catalog)
    if req.region is not None and req.region != cat.region:
        raise FieldError("region", req.region, f"the catalog holds {cat.region}; add a user "
                         "catalog with that region's prices (--catalog FILE)")
    demand = parse_metric_data(read_json_object(path, what="CloudWatch file"), source=str(path))
    p99 = demand.percentile(99)
    with activity(f"judging layouts on {instance}", "layouts") as tick:
        fit = storage_fit(cat, instance, p99, peak_s=demand.peak_run_s(p99), p99_ms=req.p99_ms,
                          capacity_gib=req.needed_gib, current=current,
                          allow_store=req.allow_ephemeral, series=demand.samples,
                          period_s=demand.period_s, progress=lambda done: tick(done, 0.0))
    data: dict[str, Any] = {
            "kind": "storage_fit", "demand": demand_json(demand), "instance": fit.instance,
            "p99_ms": fit.p99_ms, "capacity_gib": fit.capacity_gib,
            "io_size_bytes": fit.block_bytes, "judged_over_s": fit.judged_over_s,
            "recommendation": _row(fit.recommendation), "alternatives":
            [_row(r) for r in fit.alternatives], "current": _row(fit.current),
            "rejected": [_row(r) for r in fit.rejected], "considered": fit.considered,
            "judged": fit.judged}
    if out is not None:
        write_json(out, data)
    if fmt is Format.json:
        emit_json(data)
    elif fmt is Format.csv:
        emit_csv([{"rank": rank, **row} for rank, rows in (
            ("recommendation", [data["recommendation"]]), ("alternative", data["alternatives"]),
            ("current", [data["current"]]), ("rejected", data["rejected"])) for row in rows
            if row is not None])
    else:
        _print_fit(demand, fit)
    if fit.recommendation is None:
        best = min(fit.rejected, key=lambda r: r.p99_ms, default=None)
        raise InfeasibleSlo(f"no layout on {instance} serves the p99 sample ({p99.iops:,.0f} "
                            f"IOPS) within {req.p99_ms:g} ms", best=None if best is None else
                            best.layout, best_p99_ms=None if best is None else best.p99_ms)


def _row(row: Any) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"layout": row.layout, "monthly_usd": row.monthly_usd, "storage_usd": row.storage_usd,
            "read_p99_ms": row.read_p99_ms, "write_p99_ms": row.write_p99_ms,
            "busiest": row.busiest, "utilisation": row.utilisation,
            "capacity_gib": row.capacity_gib, "fits": row.fits, "why": row.why}


def _print_fit(demand: Any, fit: Any) -> None:
    from advisor.cli.common import new_table, num_column
    from workloads.cloudwatch import sample_lines

    console.print(f"[bold]From CloudWatch[/bold] ({demand.source.upper()}: "
                  f"{', '.join(demand.metrics)}; {demand.series} series, {len(demand.samples)} "
                  f"samples of {demand.period_s} s)")
    peaks = demand.peaks()
    for name, unit in (("iops", "IOPS"), ("mibps", "MiB/s")):
        p = peaks[name]
        console.print(f"  · {unit}: p50 {p['p50']:,.1f}, p90 {p['p90']:,.1f}, p99 "
                      f"{p['p99']:,.1f}, max {p['max']:,.1f}", highlight=False)
    console.print(f"  · p99 sample {sample_lines(fit.sample)}", markup=False, highlight=False,
                  soft_wrap=True)
    console.print(f"  · judged as open-loop random I/O of {fit.block_bytes // 1024} KiB over "
                  f"{fit.capacity_gib:,.0f} GiB for {fit.judged_over_s:,.0f} s (the load stayed "
                  f"near the p99 sample that long), each I/O's p99 <= {fit.p99_ms:g} ms",
                  highlight=False)
    for note in demand.notes:
        console.print(f"  · {note}", markup=False, highlight=False)
    table = new_table(f"Layouts on {fit.instance} that serve it (cheapest first; "
                      f"{fit.judged} of {fit.considered} judged)", title_justify="left")
    # A long spec folds (at 80 columns it would leave the busiest limit a word a line).
    table.add_column("layout", overflow="fold", min_width=20)
    for col in ("$/month", "storage\n$/month", "read\np99 ms", "write\np99 ms"):
        num_column(table, col)
    table.add_column("busiest limit", overflow="fold", min_width=18)
    rows = [("", r) for r in ([fit.recommendation] if fit.recommendation else [])]
    rows += [("", r) for r in fit.alternatives]
    if fit.current is not None:
        rows.append(("(current) ", fit.current))
    for label, r in rows:
        over = r.utilisation >= 1
        table.add_row(label + r.layout, f"{r.monthly_usd:,.2f}", f"{r.storage_usd:,.2f}",
                      "-" if over else f"{r.read_p99_ms:,.2f}",
                      "-" if over else f"{r.write_p99_ms:,.2f}",
                      f"{r.busiest} {r.utilisation:.0%}" + (f"; FAILS: {r.why}" if r.why else ""))
    console.print(table)
    if fit.current is not None and fit.recommendation is not None:
        saving = fit.current.monthly_usd - fit.recommendation.monthly_usd
        console.print(f"  · the current layout {'fits' if fit.current.fits else 'does NOT fit'}"
                      f"; the recommendation costs {abs(saving):,.2f} $/month "
                      f"{'less' if saving >= 0 else 'more'}", highlight=False)
