"""The optional bearer token, and request logs that never carry a secret."""

import logging
import os
from pathlib import Path

import pytest

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from api.service import Settings
from tests.api.conftest import make_client

TOKEN = "tok-3f9a-very-secret"


@pytest.fixture
def guarded(catalog: Catalog, tmp_path: Path):
    return make_client(catalog, f"sqlite:///{tmp_path / 'runs.sqlite3'}", token=TOKEN)


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"},
                                     {"Authorization": f"Basic {TOKEN}"},
                                     {"Authorization": f"Bearer {TOKEN}x"}])
@pytest.mark.parametrize("path", ["/v1/catalog/volumes", "/v1/layouts/m5d.large:store",
                                  "/v1/runs/0123"])
def test_without_the_token_every_v1_endpoint_is_401(guarded, headers: dict[str, str],
                                                    path: str) -> None:
    """ADVISOR_API_TOKEN set: a missing or wrong bearer token gets 401 and a Bearer challenge."""
    r = guarded.get(path, headers=headers)
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert r.json() == {"detail": "missing or wrong bearer token"}


def test_posts_are_guarded_before_any_work(guarded) -> None:
    """POSTs without the token are refused before the body is even looked at."""
    assert guarded.post("/v1/size", json={"tps": 627}).status_code == 401
    assert guarded.post("/v1/simulate", json={"spec": "m5d.large:store"}).status_code == 401


def test_with_the_token_requests_pass_and_healthz_is_open(guarded) -> None:
    """The right token opens /v1; /healthz needs none (for load balancers)."""
    ok = guarded.get("/v1/catalog/volumes", headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200
    assert guarded.get("/healthz").status_code == 200


def test_request_log_has_method_path_status_and_time_but_no_secret(
        guarded, caplog: pytest.LogCaptureFixture) -> None:
    """One line per request: method, path, status, ms. Never the token or the query string."""
    with caplog.at_level(logging.INFO, logger="advisor.api"):
        guarded.get("/v1/catalog/volumes?password=hunter2",
                    headers={"Authorization": f"Bearer {TOKEN}"})
        guarded.get("/v1/catalog/volumes", headers={"Authorization": "Bearer wrong-guess"})
    lines = [r.getMessage() for r in caplog.records if r.name == "advisor.api"]
    assert lines[0].startswith("GET /v1/catalog/volumes 200 ")
    assert lines[0].endswith("ms")
    assert lines[1].startswith("GET /v1/catalog/volumes 401 ")
    text = caplog.text
    assert TOKEN not in text
    assert "hunter2" not in text
    assert "wrong-guess" not in text


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """ADVISOR_API_*: token, I/O budget, workers (default one per CPU), queue (default 2 per
    worker), time limit, body limit; a bad value is one line naming the variable."""
    for name in ("WORKERS", "QUEUE", "TIMEOUT_S", "MAX_BODY_BYTES"):
        monkeypatch.delenv(f"ADVISOR_API_{name}", raising=False)
    monkeypatch.setenv("ADVISOR_API_TOKEN", "t")
    monkeypatch.setenv("ADVISOR_API_IO_BUDGET", "5e6")
    cpus = os.cpu_count() or 1
    assert Settings.from_env() == Settings(token="t", io_budget=5e6, workers=cpus,
                                           queue=2 * cpus)
    monkeypatch.setenv("ADVISOR_API_WORKERS", "3")
    monkeypatch.setenv("ADVISOR_API_TIMEOUT_S", "90")
    monkeypatch.setenv("ADVISOR_API_MAX_BODY_BYTES", "4096")
    assert Settings.from_env() == Settings(token="t", io_budget=5e6, workers=3, queue=6,
                                           timeout_s=90, max_body_bytes=4096)
    monkeypatch.setenv("ADVISOR_API_QUEUE", "0")
    assert Settings.from_env().queue_depth == 0
    monkeypatch.setenv("ADVISOR_API_IO_BUDGET", "lots")
    with pytest.raises(InvalidInput, match="ADVISOR_API_IO_BUDGET='lots'"):
        Settings.from_env()
