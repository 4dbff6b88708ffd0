"""A real `advisor serve` on a free loopback port for the bench scripts (api_load.py,
api_durability.py, api_size.py): one way to start it and wait for it."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, env_extra: dict[str, str] | None = None,
                 log: IO[bytes] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """`advisor serve` storing runs in the SQLite file `db`, without a token, its output to
    `log` (else discarded); returns the process and its URL once /healthz answers."""
    port = free_port()
    env = {**os.environ, "ADVISOR_DATABASE_URL": f"sqlite:///{db}", **(env_extra or {})}
    env.pop("ADVISOR_API_TOKEN", None)
    out = log if log is not None else subprocess.DEVNULL
    # From the scratch directory: `python -m` puts the working directory first on the path,
    # which would shadow the code under test ($PYTHONPATH, or the install) with a checkout.
    proc = subprocess.Popen([sys.executable, "-m", "advisor.cli.main", "serve", "--port",
                             str(port), "--log-level", "warning"], env=env, cwd=db.parent,
                            stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"advisor serve exited with {proc.returncode}"
                             + (f" (log: {log.name})" if log is not None else ""))
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("advisor serve did not answer /healthz within 60 s")
