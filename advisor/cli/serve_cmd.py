"""`advisor serve`: the HTTP API (FastAPI under uvicorn)."""

import logging
from enum import Enum
from typing import Annotated

import typer

from advisor.cli.common import err_console

GRACE_S = 10  # SIGTERM: in-flight requests may finish within this, then they are cancelled
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
    "bounds the I/Os one simulate request may ask for (default 20,000,000).\n\n"
    "Sizings and simulations run on worker processes: ADVISOR_API_WORKERS of them (default one "
    "per CPU) and ADVISOR_API_QUEUE more requests waiting (default 2 per worker); beyond that a "
    "request gets 503 with Retry-After. ADVISOR_API_TIMEOUT_S bounds one request's computing "
    "(default 600); ADVISOR_API_MAX_BODY_BYTES a request body (default 65536, then 413). A "
    "client that leaves cancels its work; on SIGTERM the server finishes what it can within "
    f"{GRACE_S} s, then stops the rest."
)


class LogLevel(str, Enum):
    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


_APP_FACTORY = "api.app:create_app"
MAX_HOST_CHARS = 253  # the longest DNS name (RFC 1035)


def _check_host(host: str, port: int) -> None:
    """The address resolves to one this host can listen on, or one line naming --host (before
    uvicorn starts: its own failure is a log line and exit 3)."""
    import socket

    from advisor.errors import InvalidInput
    from advisor.options import show_value

    if not host.strip():
        raise InvalidInput(f"--host {show_value(host)}: empty: give an address like 127.0.0.1 "
                           "(this host only) or 0.0.0.0 (every interface)")
    if len(host) > MAX_HOST_CHARS:
        raise InvalidInput(f"--host {show_value(host)}: longer than a host name can be "
                           f"({MAX_HOST_CHARS} characters)")
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise InvalidInput(f"--host {show_value(host)}: cannot be resolved "
                           f"({exc.strerror or exc})") from None
    except (UnicodeError, ValueError) as exc:  # an IDNA label over 63 characters, a NUL
        raise InvalidInput(f"--host {show_value(host)}: not a host name or address "
                           f"({str(exc).split(' (')[0]})") from None


def register(app: typer.Typer) -> None:
    app.command("serve", help=HELP)(serve)


def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port", min=1, max=65535)] = 8000,
    log_level: Annotated[LogLevel, typer.Option(
        case_sensitive=False, help="how much the server logs")] = LogLevel.info,
) -> None:
    _check_host(host, port)
    import uvicorn

    logging.basicConfig(level=getattr(logging, log_level.value.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # The app by name, as `uvicorn --factory api.app:create_app` takes it: the two adapters stay
    # independent (the CLI imports nothing of the API). The app reads its settings from the
    # environment, so it is built before the banner: a bad setting ends as one error line.
    config = uvicorn.Config(_APP_FACTORY, factory=True, host=host, port=port,
                            log_level=log_level.value, access_log=False, server_header=False,
                            timeout_graceful_shutdown=GRACE_S)
    config.load()
    err_console.print(f"advisor API on http://{host}:{port} (OpenAPI: /docs)", highlight=False,
                      soft_wrap=True)
    uvicorn.Server(config).run()
