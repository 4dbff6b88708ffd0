"""`advisor serve`: the HTTP API (FastAPI under uvicorn)."""

import logging
from typing import Annotated

import typer

from advisor.cli.common import err_console

HELP = (
    "Serve the HTTP API: the same calls as this command line, as JSON over HTTP.\n\n"
    "  advisor serve --port 8000\n\n"
    "  curl -s -XPOST localhost:8000/v1/size -d '{\"tps\":627,\"reads\":3.25}' "
    "-H 'content-type: application/json'\n\n"
    "Endpoints: POST /v1/size, POST /v1/simulate, GET /v1/layouts/{spec}, "
    "GET /v1/catalog/instances, GET /v1/catalog/volumes, GET /v1/runs/{id}, "
    "GET /v1/runs/{id}/report (HTML), GET /healthz; OpenAPI at /docs. Every POST result is "
    "stored as a run ($ADVISOR_DATABASE_URL, default a SQLite file in your data directory). "
    "Set ADVISOR_API_TOKEN to require `Authorization: Bearer TOKEN`; ADVISOR_API_IO_BUDGET "
    "bounds the I/Os one simulate request may ask for (default 20,000,000)."
)


_APP_FACTORY = "api.app:create_app"


def register(app: typer.Typer) -> None:
    app.command("serve", help=HELP)(serve)


def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port", min=1, max=65535)] = 8000,
    log_level: Annotated[str, typer.Option(help="debug, info, warning or error")] = "info",
) -> None:
    import uvicorn

    level = log_level.upper()
    logging.basicConfig(level=getattr(logging, level, logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    err_console.print(f"advisor API on http://{host}:{port} (OpenAPI: /docs)", highlight=False,
                      soft_wrap=True)
    # The app by name, as `uvicorn --factory api.app:create_app` takes it: the two adapters stay
    # independent (the CLI imports nothing of the API). The app reads its settings from the
    # environment and logs where its runs go; a bad setting still ends here as one error line.
    uvicorn.run(_APP_FACTORY, factory=True, host=host, port=port, log_level=log_level.lower(),
                access_log=False, server_header=False)
