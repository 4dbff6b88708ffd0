"""An API app on a private SQLite runs file, a TestClient for it, and a live `advisor serve`."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from advisor.catalog.model import Catalog
from advisor.store import SqlRunStore
from advisor.userfiles import load_catalog
from api.app import create_app
from api.service import Settings


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


@pytest.fixture(scope="session")
def runs_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('api') / 'runs.sqlite3'}"


@pytest.fixture(scope="session")
def app(runs_url: str, catalog: Catalog) -> FastAPI:
    """One app for the session: its sizing cache makes repeated requests cheap."""
    return create_app(Settings(), store=SqlRunStore(runs_url), catalog=catalog)


@pytest.fixture(scope="session")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def make_client(catalog: Catalog, url: str, **settings: object) -> TestClient:
    return TestClient(create_app(Settings(**settings), store=SqlRunStore(url),  # type: ignore[arg-type]
                                 catalog=catalog))


# -- a live `advisor serve` ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    """`advisor serve` in a subprocess on 127.0.0.1; `start`, `stop` (SIGTERM) or `kill`."""

    db: Path
    token: str | None = None
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    log: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "LiveServer":
        self.port = free_port()
        env = {**os.environ, "ADVISOR_DATABASE_URL": f"sqlite:///{self.db}"}
        env.pop("ADVISOR_API_TOKEN", None)
        if self.token:
            env["ADVISOR_API_TOKEN"] = self.token
        self.log = self.db.with_suffix(f".{self.port}.log")
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "advisor.cli.main", "serve", "--port", str(self.port)],
                stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"advisor serve exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError(f"advisor serve did not answer in 60 s: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(db=tmp_path / "runs.sqlite3")
    try:
        yield server
    finally:
        server.kill()
