"""The `advisor` command line: thin adapters over the core calls.

Errors the user can fix print one line on stderr and exit 2; an SLO nobody can meet exits 1; a bug
exits 3; a reader that closes the pipe early (`advisor catalog instances | head -1`) exits 141
quietly, as a program killed by SIGPIPE does.
"""

import gc
import inspect
import os
import sys
from typing import Annotated, NoReturn

import typer

try:  # typer >= 0.20 vendors its own click
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover - older typer on plain click
    from click import exceptions as click_exc  # type: ignore[no-redef]

from advisor import __version__
from advisor.cli import (
    catalog_cmd,
    export_cmd,
    fleet_cmd,
    layout_cmd,
    replay,
    report_cmd,
    runs_cmd,
    serve_cmd,
    simulate_cmd,
    size_cmd,
    validate_cmd,
)
from advisor.cli.common import PipeClosed
from advisor.errors import AdvisorError, InfeasibleSlo
from advisor.options import FieldError
from advisor.sim.parallel import threads

EXIT_OK, EXIT_SLO_NOT_MET, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what the shell reports for `yes | head -1`
EPILOG = (
    "Exit codes: 0 ok; 1 the answer is no (no layout meets the SLO, every validate case misses, "
    "a replay or calibrate step failed); 2 bad input (one line naming the option); 3 internal "
    "error (a bug: please report it; ADVISOR_DEBUG=1 shows the traceback); 130 interrupted; "
    "141 the reader closed the pipe (`advisor catalog instances | head -1`).\n\n"
    "Shell completion: `advisor --install-completion` (bash, zsh, fish, PowerShell; restart the "
    "shell), or `advisor --show-completion` to print the script."
)

app = typer.Typer(
    name="advisor",
    help="Database-workload simulator and AWS storage sizing advisor.\n\n"
    "Start with `advisor size --tps 627 --reads 3.25`: the cheapest instance + storage layout "
    "that sustains 627 transactions/s at 3.25 reads per write within a p99 latency SLO.",
    epilog=EPILOG,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
for _commands in (catalog_cmd, layout_cmd, simulate_cmd, size_cmd, export_cmd, fleet_cmd, replay,
                  validate_cmd, report_cmd, runs_cmd, serve_cmd):  # the order of `advisor --help`
    _commands.register(app)


def reflow(text: str) -> str:
    """Help text as paragraphs rich wraps to the terminal: the lines of a paragraph, wrapped in
    the source at 100 columns, joined (typer keeps single line breaks, which on an 80-column
    terminal leave every other line a few words long); indented lines (examples) and list
    items ("- ") stay lines of their own."""
    paragraphs = []
    for para in inspect.cleandoc(text).split("\n\n"):
        lines: list[str] = []
        for line in para.split("\n"):
            alone = line.startswith((" ", "- ", "\b"))
            if lines and not alone and not lines[-1].startswith((" ", "\b")):
                lines[-1] += " " + line.strip()
            else:
                lines.append(line)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _reflow_help(t: typer.Typer) -> None:
    """`reflow` every command's and group's help, whether given or its callback's docstring."""
    for c in t.registered_commands:
        doc = c.help or (inspect.getdoc(c.callback) if c.callback else None)
        if doc:
            c.help = reflow(doc)
    for g in t.registered_groups:
        if g.help:
            g.help = reflow(g.help)
        if g.typer_instance is not None:
            _reflow_help(g.typer_instance)


@app.command("version", help="Print the advisor version (also `advisor --version`).")
def version() -> None:
    typer.echo(__version__)


_reflow_help(app)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit(0)


@app.callback()
def _root(
    _version: Annotated[bool, typer.Option(
        "--version", "-V", help="Print the advisor version and exit.", is_eager=True,
        callback=_print_version)] = False,
) -> None:
    """Options of `advisor` itself (before the command)."""
    threads()  # $ADVISOR_SIM_THREADS checked before any command runs: one line, exit 2


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail on a closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file descriptor (tests capture it)
        pass


def _infeasible_line(exc: InfeasibleSlo) -> str:
    """The answer in one line: the budget when deployments meet the SLO above it, else the
    lowest p99 the search found, else the closest candidate."""
    if exc.over_budget is not None:
        return (f"{exc.over_budget}; --explain lists the closest candidates within it and what "
                "they miss")
    if exc.best_p99_ms is not None:
        return (f"the lowest p99 found is {exc.best_p99_ms:,.2f} ms ({exc.best}); --explain "
                "lists the closest candidates and what they miss")
    first, _, rest = str(exc).partition("; ")
    if len(first) > 220:  # the line, prefix and hint included, stays under 300 characters
        first = first[:219] + "…"
    return first + ("; --explain lists the other close candidates" if rest else "")


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the app and turns every user error into one line."""
    try:
        code = app(args=argv, prog_name="advisor", standalone_mode=False)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        if isinstance(code, int):  # typer.Exit(n) comes back as a return value here
            return code
    except InfeasibleSlo as exc:
        within = " within --max-monthly-usd" if exc.over_budget is not None else ""
        typer.echo(f"no layout meets the SLO{within}: {_infeasible_line(exc)}", err=True)
        return EXIT_SLO_NOT_MET
    except FieldError as exc:  # named as the command line names it
        typer.echo(f"error: {exc.named(exc.flag)}", err=True)
        return EXIT_BAD_INPUT
    except AdvisorError as exc:
        typer.echo(f"error: {exc}", err=True)
        return EXIT_BAD_INPUT
    except click_exc.NoArgsIsHelpError:
        return EXIT_OK
    except click_exc.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "advisor"
        message = " ".join(exc.format_message().split())
        typer.echo(f"error: {message} (see {where} --help)", err=True)
        return EXIT_BAD_INPUT
    except typer.Exit as exc:
        return int(exc.exit_code)
    except click_exc.ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        return exc.exit_code
    except SystemExit as exc:  # replay and calibrate end a failed run so; completion too
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130
    except (PipeClosed, BrokenPipeError):
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # a bug, not bad input: one line, the traceback on request
        if os.environ.get("ADVISOR_DEBUG"):
            raise
        typer.echo(f"internal error: {type(exc).__name__}: {exc} (set ADVISOR_DEBUG=1 for the "
                   "traceback and please report it)", err=True)
        return EXIT_INTERNAL
    return EXIT_OK


def run() -> NoReturn:
    """The console script `advisor`: `main()`, then the interpreter's exit without its last
    garbage collections.

    Once numba has loaded a compiled function (every sizing and simulation does), the
    interpreter's own shutdown spent ~0.25 s (a bare `import numpy, numba` exits in ~0.05 s) in
    the full collections it runs while it tears the modules down, over the ~120,000 objects of
    numba's compiler and LLVM's wrappers (bench/README.md, 2026-12-02). `gc.freeze()` moves every
    object to the permanent generation, which those collections skip; the process's memory goes
    back to the system whole. What must outlive the process is written before this point: the
    output (flushed by `main`, and again by the interpreter), the runs database and the kept
    replications (committed and closed by their commands), temporary files (removed by their
    own `atexit` finalizers, which still run). Only `main`'s callers that go on running (the
    tests) keep the collector as it was."""
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
