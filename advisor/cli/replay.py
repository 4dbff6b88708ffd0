"""`advisor replay` and `advisor calibrate`: measure real databases and disks.

Thin adapters over `workloads.real.replay.run_replay`, `workloads.real.replay_sysbench` and
`workloads.real.calibrate`. Bad input: one `error:` line on stderr, exit 2. A run that breaks
midway (database gone, replica stopped, disk full): the finished steps are printed, then one
`error:` line, exit 1. Database passwords are never printed (URLs are shown masked).
"""

import contextlib
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.table import Table

from advisor.cli.common import (
    Format,
    FormatOpt,
    PipeConsole,
    console,
    emit_csv,
    emit_json,
    err_console,
    is_narrow,
    new_table,
    num_column,
    text_column,
)
from advisor.cli.options import fixed, with_options
from advisor.cli.progress import level_progress
from advisor.errors import AdvisorError, InvalidInput
from advisor.options import FieldError
from advisor.units import parse_bytes
from workloads.real.requests import (
    CalibrateRequest,
    ReplayRequest,
    calibrate_fields,
    replay_fields,
)

REPLAY_HELP = (
    "Drive a real database with the MySQL workload and measure TPS and latency.\n\n"
    "Each transaction is a write on the master (UPDATE of a random row) or a read on a replica "
    "(SELECT of one row or a small range), --reads reads per write. Each --ramp step runs that "
    "many client threads for --warmup seconds (not measured), then --duration seconds, and "
    "reports TPS, latency percentiles, errors and replica lag.\n\n"
    "With no --master, an embedded SQLite file is used (master and replica are the same "
    "file):\n\n"
    "  advisor replay --ramp 1,2,4 --duration 5\n\n"
    "Against MariaDB/MySQL (the project's own pair: scripts/mariadb-pair up; "
    "scripts/mariadb-pair env prints the URLs):\n\n"
    "  advisor replay --master mysql+pymysql://USER:PASSWORD@127.0.0.1:33061/advisor "
    "--replica mysql+pymysql://USER:PASSWORD@127.0.0.1:33062/advisor --io-profile-out io.json"
    "\n\n"
    "With --driver sysbench (oltp_read_write on the master) the result also states the "
    "measured transaction: its statements per transaction from the master's counters, in the "
    "--write-txn grammar, and the nearest --preset; --io-profile-out records it with the I/O "
    "per sysbench transaction, and advisor size --io-profile says whether it sizes that "
    "transaction.\n\n"
    "Exit codes: 0 all steps ran; 1 a step failed (the finished steps are still printed); "
    "2 bad input."
)

CALIBRATE_HELP = (
    "Measure a real disk with sysbench fileio and fit a device profile from it.\n\n"
    "Runs random reads, random writes, sequential reads and sequential writes at each --threads "
    "count on test files in --path (direct I/O where the file system allows it), measures "
    "fsync, and writes a user-catalog file: the fitted device (usable as local:NAME) and the "
    "raw measurements.\n\n"
    "  advisor calibrate --path /mnt/data --size 1G --time 10 --threads 1,4,16\n\n"
    "Or import fio results (fio --output-format=json):\n\n"
    "  advisor calibrate --import-fio results.json --name my-nvme\n\n"
    "or sysbench fileio run output (one run per file, or several appended; with "
    "--histogram=on for p50/p99):\n\n"
    "  advisor calibrate --import-sysbench rndrd.txt --import-sysbench rndwr.txt\n\n"
    "Needs the Debian package sysbench. Exit codes: 0 done; 1 a run failed (the finished runs "
    "are kept in the file); 2 bad input (path missing or read-only, not enough space...)."
)


def _fail(message: str, code: int) -> NoReturn:
    """One `error:` line on stderr, then exit with `code`.

    SystemExit, not typer.Exit: under `main()`'s standalone_mode=False click turns typer.Exit
    into a return value that is then lost; SystemExit keeps its code everywhere (CliRunner too).
    """
    err_console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    raise SystemExit(code)


@contextmanager
def _user_errors() -> Iterator[None]:
    """AdvisorError -> one `error:` line and exit 2, also when not run through `main()`; a
    declared option is named by its flag (`--time 0: ...`)."""
    try:
        yield
    except FieldError as exc:
        _fail(exc.named(exc.flag), 2)
    except AdvisorError as exc:
        _fail(str(exc), 2)


def _wide(build: Callable[[bool], Table]) -> None:
    """Print a table to stdout: a narrower one on a terminal below 100 columns (or when COLUMNS
    says so); a file or pipe otherwise gets the whole table (160 columns), not one cut at 80."""
    if console.is_terminal or os.environ.get("COLUMNS"):
        console.print(build(is_narrow()))
    else:
        PipeConsole(width=max(console.width, 160)).print(build(False))


def _data_dir() -> Path:
    override = os.environ.get("ADVISOR_DATA_DIR")
    if override:
        return Path(override)
    import platformdirs

    return platformdirs.user_data_path("advisor")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}" if value < 10 else f"{value:,.1f}"


def _replay_table(result: dict[str, Any], narrow: bool = False) -> Table:
    """One row per step; below 100 columns without the counts and the p95/p99.9 columns (all
    in --format json or csv)."""
    target = result["target"]
    table = new_table(f"replay ({result['mode']}, {result['reads_per_write']:g} reads/write): "
                      f"{target['master']}", narrow=narrow, title_justify="left")
    wide = not narrow
    columns = ("threads", "offered\ntps", "TPS", *(("txns", "reads", "writes") if wide else ()),
               "errors", "p50\nms", *(("p95\nms",) if wide else ()), "p99\nms",
               *(("p99.9\nms",) if wide else ()), "max\nms", "lag s")
    for column in columns:
        num_column(table, column)
    text_column(table, "step")
    for level in result["levels"]:
        latency = level["latency_ms"]["transaction"] or {}
        lag = level["replica_lag_s"]
        table.add_row(
            str(level["threads"]),
            "-" if level["offered_tps"] is None else f"{level['offered_tps']:,.0f}",
            f"{level['achieved_tps']:,.1f}",
            *((f"{level['transactions']:,}", f"{level['reads']:,}", f"{level['writes']:,}")
              if wide else ()), f"{level['errors']:,}",
            *(_ms(latency.get(k)) for k in ("p50", *(("p95",) if wide else ()), "p99",
                                            *(("p999",) if wide else ()), "max")),
            "-" if lag is None else f"{lag:.3f}",
            "[red]failed[/red]" if level["failed"] else "ok",
        )
    return table


@with_options(
    replay_fields().values(),
    fixed("io_profile_out", Annotated[Path | None, typer.Option(
        "--io-profile-out", help="write the measured per-transaction I/O profile here "
        "(needs MySQL/MariaDB: SQLite has no server counters)", show_default=False)], None),
    fixed("out", Annotated[Path | None, typer.Option(
        "--out", help="also write the result JSON here (kept when a step fails)",
        show_default=False)], None),
    fixed("fmt", FormatOpt, Format.table),
)
def replay_command(*, io_profile_out: Path | None, out: Path | None, fmt: Format,
                   **options: Any) -> None:
    with _user_errors():
        from advisor.userfiles import check_output

        req = ReplayRequest(**options)
        check_output(out, what="result")  # before the run, not after it
        check_output(io_profile_out, what="io profile")
        result = _replay(req, io_profile_out)
        if out is not None:
            from advisor.userfiles import write_json

            write_json(out, result)
    _print_replay(result, fmt, io_profile_out, out)
    if not result["complete"]:
        _fail(result["error"], 1)


def _replay(req: ReplayRequest, io_profile_out: Path | None) -> dict[str, Any]:
    from workloads.real.io_profile_file import save_io_profile
    from workloads.real.replay import open_target, run_replay

    config = req.config()  # checked with the request
    master, replicas = req.master, req.replica or []
    if io_profile_out is not None and (master is None or master.startswith("sqlite")):
        raise InvalidInput("--io-profile-out needs a MySQL/MariaDB --master "
                           "(SQLite has no server counters)")
    steps = config.steps()
    if req.driver == "sysbench":
        from workloads.real.replay_sysbench import run_sysbench_replay
        from workloads.real.sysbench import Sysbench

        if master is None:
            raise InvalidInput("--driver sysbench needs --master (a MySQL/MariaDB URL)")
        runner = Sysbench.find()
        with level_progress(len(steps), "sysbench replay") as update:
            result = run_sysbench_replay(
                master, replicas, config, runner=runner,
                on_step=lambda step, n, threads, phase: update(max(step - 1, 0),
                                                               0.5 if phase == "measure" else 0),
            )
    else:
        target = open_target(master, replicas, pool_size=max(t for t, _ in steps) + 2,
                             sqlite_path=_data_dir() / "replay.sqlite3")
        try:
            with level_progress(len(steps), "replay") as update:
                result = run_replay(target, config, progress=lambda e: update(
                    max(e.step - 1, 0), min(e.elapsed_s / e.step_s, 1.0) if e.step_s else 0.0))
        finally:
            target.close()
    if io_profile_out is not None and result["io_profile"] is not None:
        save_io_profile(result["io_profile"], io_profile_out)
    return result


def _print_replay(
    result: dict[str, Any], fmt: Format, io_profile_out: Path | None, out: Path | None
) -> None:
    if fmt is Format.json:
        emit_json(result)
    elif fmt is Format.csv:
        emit_csv(result["levels"])
    else:
        if result["levels"]:
            _wide(lambda narrow: _replay_table(result, narrow))
        target = result["target"]
        role = "reads on" if target["driver"] == "sqlalchemy" else "watched"
        for replica in target["replicas"]:
            console.print(f"{role} replica {replica}", markup=False, highlight=False,
                          soft_wrap=True)
        if target["note"]:
            console.print(f"note: {target['note']}", markup=False, highlight=False,
                          soft_wrap=True)
        if result.get("shape"):
            from workloads.io_profile import shape_from_dict

            console.print(f"measured transaction: {shape_from_dict(result['shape']).text()}",
                          markup=False, highlight=False, soft_wrap=True)
    if io_profile_out is not None:
        if result["io_profile"] is not None:
            err_console.print(f"I/O profile written to {io_profile_out}", markup=False,
                              soft_wrap=True)
        else:
            err_console.print("no I/O profile: no step finished", markup=False, soft_wrap=True)
    if out is not None:
        err_console.print(f"result written to {out}", markup=False, soft_wrap=True)


def _calibration_table(document: dict[str, Any], narrow: bool = False) -> Table:
    calibration = document["calibration"]
    table = new_table(f"calibration: {calibration['tool']} on {calibration['path']}"
                      f"{'' if calibration.get('direct_io', True) else ' (no O_DIRECT)'}",
                      narrow=narrow, title_justify="left")
    text_column(table, "mode")
    for column in ("threads", "QD", "block", "read\nIOPS", "write\nIOPS", "MiB/s", "p50\nms",
                   "p99\nms", "p99.9\nms", "max\nms"):
        num_column(table, column)
    for run in calibration["runs"]:
        latency = run["latency_ms"] or {}
        table.add_row(
            run["mode"], str(run["threads"]), str(run["iodepth"]),
            f"{run['block_bytes'] // 1024}KiB", f"{run['read_iops']:,.0f}",
            f"{run['write_iops']:,.0f}", f"{run['read_mibps'] + run['write_mibps']:,.1f}",
            *(_ms(latency.get(k)) for k in ("p50", "p99", "p999", "max")),
        )
    return table


def _print_device(document: dict[str, Any]) -> None:
    for device in document["local_devices"]:
        profile = next(p for p in document["latency_profiles"]
                       if p["name"] == device["latency_profile"])
        console.print(
            f"device local:{device['name']}: {device['read_iops']:,.0f} read / "
            f"{device['write_iops']:,.0f} write IOPS at {device['block_kib']} KiB, sequential "
            f"{device['seq_read_mibps']:,.0f} / {device['seq_write_mibps']:,.0f} MiB/s; "
            f"QD1 read median {profile['read']['median_ms']} ms (sigma "
            f"{profile['read']['sigma']}), write median {profile['write']['median_ms']} ms, "
            f"fsync {profile['flush_ms']} ms", markup=False, highlight=False, soft_wrap=True)
    for note in document["calibration"].get("notes", []):
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)


@with_options(
    calibrate_fields().values(),
    fixed("out", Annotated[Path | None, typer.Option(
        "--out", help="profile file to write \\[default: calibration-NAME.json]",
        show_default=False)], None),
    fixed("fmt", FormatOpt, Format.table),
)
def calibrate_command(*, out: Path | None, fmt: Format, **options: Any) -> None:
    with _user_errors():
        from advisor.userfiles import check_output

        req = CalibrateRequest(**options)
        check_output(out, what="profile")  # before the measurements, not after them
        document, name = _calibrate(req)
        from advisor.userfiles import write_json

        target = out or Path(f"calibration-{name}.json")
        write_json(target, document, what="profile")
    if fmt is Format.json:
        emit_json(document)
    elif fmt is Format.csv:
        emit_csv(document["calibration"]["runs"])
    else:
        if document["calibration"]["runs"]:
            _wide(lambda narrow: _calibration_table(document, narrow))
        _print_device(document)
    err_console.print(f"profile written to {target}", markup=False, soft_wrap=True)
    error = document["calibration"].get("error")
    if error:
        _fail(error, 1)


def _calibrate(req: CalibrateRequest) -> tuple[dict[str, Any], str]:
    from workloads.real.calibrate import (
        CalibrationPlan,
        calibration_document,
        capacity_gib,
        run_calibration,
    )
    from workloads.real.device_profile import check_name, default_name

    path = None if req.path is None else Path(req.path)
    import_fio, import_sysbench, name = req.import_fio, req.import_sysbench or [], req.name
    if (path is not None) + (import_fio is not None) + bool(import_sysbench) != 1:
        raise InvalidInput("give either --path DIR (run sysbench), --import-fio FILE.json or "
                           "--import-sysbench FILE")
    if import_fio is not None or import_sysbench:
        if import_fio is not None:
            from workloads.real.fio import import_fio as read_fio

            calibration, source = read_fio(import_fio), import_fio
        else:
            from workloads.real.sysbench_import import import_sysbench as read_sysbench

            calibration, source = read_sysbench(import_sysbench), import_sysbench[0]
        device_name = check_name(name or default_name(source.stem))
        directory = Path(calibration["path"])
        capacity = capacity_gib(directory) if directory.is_dir() else 0.0
        return calibration_document(calibration, name=device_name, capacity_gib=capacity), \
            device_name
    assert path is not None
    from workloads.real.sysbench import Sysbench

    plan = CalibrationPlan(
        path=path, name=check_name(name or default_name(socket.gethostname())),
        size_bytes=parse_bytes(req.size), time_s=req.time, threads=req.thread_counts,
        block_bytes=parse_bytes(req.block_size),
    )
    plan.validate()
    created = _make_directory(path)  # the user's input is checked before the machine's tools
    try:
        runner = Sysbench.find()
        runs = len(plan.modes) * len(plan.threads) + 2
        with level_progress(runs, "calibrate") as update:
            calibration = run_calibration(plan, runner=runner,
                                          progress=lambda done, total, what: update(done, 0.0))
        document = calibration_document(calibration, name=plan.name,
                                        capacity_gib=capacity_gib(path))
    finally:
        for directory in created:  # ours, and the test files are gone: leave no empty ones
            with contextlib.suppress(OSError):
                directory.rmdir()
    return document, plan.name


def _make_directory(path: Path) -> list[Path]:
    """`--path` need not exist: create it and its missing parents; those created, deepest
    first."""
    missing = []
    for directory in (path, *path.parents):
        if directory.exists() or directory.is_symlink():
            break
        missing.append(directory)
    if missing:
        try:
            path.mkdir(parents=True)
        except OSError as exc:
            raise InvalidInput(f"--path {path}: cannot create the directory "
                               f"({exc.strerror or exc})") from None
    return missing


def register(app: typer.Typer) -> None:
    """Add `replay` and `calibrate` to the main app."""
    app.command("replay", help=REPLAY_HELP)(replay_command)
    app.command("calibrate", help=CALIBRATE_HELP)(calibrate_command)
