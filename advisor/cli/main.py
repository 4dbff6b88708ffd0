"""The `advisor` command line: thin adapters over the core calls.

Errors the user can fix print one line on stderr and exit 2; an SLO nobody can meet exits 1.
"""

import os
import sys

import typer

try:  # typer >= 0.20 vendors its own click
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover - older typer on plain click
    from click import exceptions as click_exc  # type: ignore[no-redef]

from advisor import __version__
from advisor.cli import (
    catalog_cmd,
    layout_cmd,
    replay,
    report_cmd,
    serve_cmd,
    simulate_cmd,
    size_cmd,
    validate_cmd,
)
from advisor.errors import AdvisorError, InfeasibleSlo
from advisor.options import FieldError

app = typer.Typer(
    name="advisor",
    help="Database-workload simulator and AWS storage sizing advisor.\n\n"
    "Start with `advisor size --tps 627 --reads 3.25`: the cheapest instance + storage layout "
    "that sustains 627 transactions/s at 3.25 reads per write within a p99 latency SLO.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
for _commands in (catalog_cmd, layout_cmd, simulate_cmd, size_cmd, replay, validate_cmd,
                  report_cmd, serve_cmd):  # the order of `advisor --help`
    _commands.register(app)


@app.command("version", help="Print the advisor version.")
def version() -> None:
    typer.echo(__version__)


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the app and turns every user error into one line."""
    try:
        code = app(args=argv, prog_name="advisor", standalone_mode=False)
        if isinstance(code, int):  # typer.Exit(n) comes back as a return value here
            return code
    except InfeasibleSlo as exc:
        typer.echo(f"no layout meets the SLO: {exc}", err=True)
        return 1
    except FieldError as exc:  # named as the command line names it
        typer.echo(f"error: {exc.named(exc.flag)}", err=True)
        return 2
    except AdvisorError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2
    except click_exc.NoArgsIsHelpError:
        return 0
    except click_exc.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "advisor"
        message = " ".join(exc.format_message().split())
        typer.echo(f"error: {message} (see {where} --help)", err=True)
        return 2
    except typer.Exit as exc:
        return int(exc.exit_code)
    except click_exc.ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug, not bad input: one line, the traceback on request
        if os.environ.get("ADVISOR_DEBUG"):
            raise
        typer.echo(f"internal error: {type(exc).__name__}: {exc} (set ADVISOR_DEBUG=1 for the "
                   "traceback and please report it)", err=True)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
