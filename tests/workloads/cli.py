"""Run `advisor replay` / `advisor calibrate` through typer's CliRunner on a bare app.

The app has only this module's commands (`register(app)`), so these tests do not depend on the
rest of the CLI; stdout and stderr are kept apart, as a shell user sees them.
"""

import typer
from typer.testing import CliRunner, Result

from advisor.cli.replay import register


def run_cli(*args: str) -> Result:
    app = typer.Typer()
    register(app)
    return CliRunner().invoke(app, list(args))
