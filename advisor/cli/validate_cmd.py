"""`advisor validate --profile FILE`: the simulator against the calibration it was fitted from."""

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from advisor.cli.common import (
    Format,
    FormatOpt,
    OutOpt,
    console,
    emit_csv,
    emit_json,
    err_console,
    fmt_ms,
    new_table,
    num_column,
    write_out,
)
from advisor.cli.progress import level_progress
from advisor.errors import InvalidInput


def register(app: typer.Typer) -> None:
    app.command("validate", help=(
        "Simulate a calibration's own patterns (sysbench fileio modes and thread counts) on the "
        "device profile fitted from it, and print measured vs simulated IOPS and latency "
        "percentiles with the error of each case.\n\n"
        "  advisor calibrate --path /var/tmp/probe --name mydisk --out mydisk.json\n\n"
        "  advisor validate --profile mydisk.json\n\n"
        "Exit codes: 0 at least one case within the IOPS tolerance; 1 every case misses it (the "
        "table is still printed); 2 bad input."))(validate)


def validate(
    profile: Annotated[Path, typer.Option(help="profile JSON written by advisor calibrate")],
    device: Annotated[str | None, typer.Option(help="device in the profile (default: the "
                                                     "only/first one)")] = None,
    duration: Annotated[float, typer.Option(help="simulated seconds per case")] = 10.0,
    seed: Annotated[int, typer.Option()] = 1,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
) -> None:
    from advisor.catalog.load import builtin_catalog, extend_catalog
    from advisor.userfiles import read_json_object
    from workloads.validate import validate_profile

    raw = read_json_object(profile, what="profile")
    catalog = extend_catalog(builtin_catalog(), str(profile), json.dumps(raw))
    names = list(catalog.local_devices)  # the built-in catalog has none: these are the file's
    if device is None:
        if not names:
            raise InvalidInput(f"{profile}: holds no local device (write one with advisor "
                               "calibrate)")
        device = str(names[0])
    elif device not in names:
        from advisor.options import show_value

        held = ", ".join(map(str, names[:5])) + (", ..." if len(names) > 5 else "")
        raise InvalidInput(f"--device {show_value(device)}: not in {profile} "
                           f"({f'it holds {held}' if names else 'it holds no local device'})")
    if duration <= 0 or duration > 3600:
        raise InvalidInput(f"--duration {duration:g}: must be between 0 and 3600 s")
    runs = len((raw.get("calibration") or {}).get("runs") or [])
    with level_progress(max(runs, 1), f"validating {device}") as tick:
        result = validate_profile(catalog, device, raw.get("calibration") or {},
                                  duration_s=duration, seed=seed, progress=tick)
    write_out(out, result)
    if fmt is Format.json:
        emit_json(result)
    elif fmt is Format.csv:
        emit_csv({"device": result["device"], **case} for case in result["cases"])
    else:
        print_validation(result)
    summary = result["summary"]
    if summary["cases"] and not summary["within_tolerance"]:
        err_console.print(f"every case misses the ±{result['tolerance_pct']:g} % IOPS tolerance",
                          highlight=False, soft_wrap=True)
        raise typer.Exit(1)


def print_validation(r: dict[str, Any]) -> None:
    cal = r["calibration"]
    console.print(f"[bold]Model vs measurement[/bold] {r['device']} ({cal.get('tool')} on "
                  f"{cal.get('path')}, {cal.get('date')}); IOPS tolerance "
                  f"±{r['tolerance_pct']:g} %")
    t = new_table(caption="latency in ms; error = simulated / measured - 1")
    t.add_column("case", no_wrap=True)
    for col in ("IOPS\nmeasured", "IOPS\nsimulated", "error\n%", "p50\nmeasured",
                "p50\nsimulated", "p99\nmeasured", "p99\nsimulated"):
        num_column(t, col)
    for c in r["cases"]:
        m, s, e = c["measured"], c["simulated"], c["error_pct"]
        ok = "green" if c["within_tolerance"] else "red"
        t.add_row(f"{c['mode']} x{c['threads']}", f"{m['iops']:,.0f}", f"{s['iops']:,.0f}",
                  f"[{ok}]{e['iops']:+.1f}[/{ok}]" if e["iops"] is not None else "-",
                  fmt_ms(m["p50_ms"]), fmt_ms(s["p50_ms"]), fmt_ms(m["p99_ms"]),
                  fmt_ms(s["p99_ms"]))
    console.print(t)
    sm = r["summary"]
    console.print(f"{sm['within_tolerance']} of {sm['cases']} cases within ±"
                  f"{r['tolerance_pct']:g} %; mean |IOPS error| {sm['mean_abs_iops_error_pct']} %, "
                  f"max {sm['max_abs_iops_error_pct']} %")
