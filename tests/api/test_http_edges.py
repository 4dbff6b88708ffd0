"""The HTTP edge before any work: the token before the body, body size and arrival time, deep
JSON, short 422s, settings refused in one line, and the docs pages served without a CDN."""

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from advisor.catalog.model import Catalog
from advisor.cli.main import main
from advisor.errors import InvalidInput
from advisor.store import SqlRunStore
from api.app import MAX_DETAIL_CHARS, create_app
from api.service import Settings

TOKEN = "tok-edge-1"


def make_app(catalog: Catalog, tmp_path: Path, **settings: Any) -> FastAPI:
    return create_app(Settings(**settings), store=SqlRunStore(f"sqlite:///{tmp_path}/r.sqlite3"),
                      catalog=catalog)


def asgi_call(app: FastAPI, method: str, path: str, headers: dict[str, str],
              receive: Callable[[], Awaitable[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One request straight through the ASGI interface: the messages the app sent."""
    sent: list[dict[str, Any]] = []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "scheme": "http", "server": ("127.0.0.1", 8000),
             "client": ("127.0.0.1", 5000),
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def call() -> None:
        with anyio.fail_after(10):
            await app(scope, receive, send)

    anyio.run(call)
    return sent


def status_headers_body(sent: list[dict[str, Any]]) -> tuple[int, dict[str, str], Any]:
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], headers, json.loads(body)


def test_the_token_is_checked_before_the_body_is_read(catalog: Catalog, tmp_path: Path) -> None:
    """With ADVISOR_API_TOKEN set, a POST without it is 401 before one byte of its body is read
    (the body here would fail the test if anything asked for it), and the connection closes."""
    app = make_app(catalog, tmp_path, token=TOKEN)

    async def receive() -> dict[str, Any]:
        raise AssertionError("the body was read before the token was checked")

    for headers in ({}, {"authorization": "Bearer nope"}, {"authorization": f"Basic {TOKEN}"}):
        sent = asgi_call(app, "POST", "/v1/size", {"content-type": "application/json",
                                                   "content-length": "99", **headers}, receive)
        status, head, body = status_headers_body(sent)
        assert (status, body) == (401, {"detail": "missing or wrong bearer token"})
        assert head["www-authenticate"] == "Bearer"
        assert head["connection"] == "close"


def test_an_oversized_content_length_is_413_without_reading(catalog: Catalog,
                                                            tmp_path: Path) -> None:
    """A Content-Length over the limit is refused from the header alone, and the connection
    is closed rather than left to drain the body."""
    app = make_app(catalog, tmp_path, max_body_bytes=2048)

    async def receive() -> dict[str, Any]:
        raise AssertionError("an oversized body was read")

    sent = asgi_call(app, "POST", "/v1/size", {"content-type": "application/json",
                                               "content-length": str(10**11)}, receive)
    status, head, body = status_headers_body(sent)
    assert status == 413
    assert body == {"detail": "the request body is over 2,048 bytes (the API's bodies are small "
                              "JSON objects; see /docs)"}
    assert head["connection"] == "close"


def test_a_body_without_length_is_counted_as_it_arrives(catalog: Catalog,
                                                        tmp_path: Path) -> None:
    """A chunked body is counted: the chunk that crosses the limit ends the request with 413."""
    app = make_app(catalog, tmp_path, max_body_bytes=2048)
    chunks = iter([b"{" + b" " * 1500, b" " * 1500])
    asked = 0

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        return {"type": "http.request", "body": next(chunks), "more_body": True}

    sent = asgi_call(app, "POST", "/v1/size", {"content-type": "application/json"}, receive)
    assert status_headers_body(sent)[0] == 413
    assert asked == 2


def test_a_body_that_never_arrives_is_408(catalog: Catalog, tmp_path: Path) -> None:
    """Content-Length says 100, 2 bytes come, then nothing: 408 after the body timeout, saying
    how much came, and the connection is closed (it does not hang)."""
    app = make_app(catalog, tmp_path, body_timeout_s=0.3)
    first = True

    async def receive() -> dict[str, Any]:
        nonlocal first
        if first:
            first = False
            return {"type": "http.request", "body": b"{}", "more_body": True}
        await anyio.sleep_forever()
        raise AssertionError

    sent = asgi_call(app, "POST", "/v1/size", {"content-type": "application/json",
                                               "content-length": "100"}, receive)
    status, head, body = status_headers_body(sent)
    assert status == 408
    assert body == {"detail": "the request body did not arrive within 0.3 s (2 bytes came of "
                              "the 100 its Content-Length announced)"}
    assert head["connection"] == "close"


def test_deeply_nested_json_is_one_line(client: TestClient) -> None:
    """JSON nested deeper than the parser recurses is 422 in one line (not a crash)."""
    r = client.post("/v1/size", content="[" * 20_000 + "]" * 20_000,
                    headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert r.json() == {"detail": "the body is JSON nested too deeply (a request is a flat JSON "
                                  "object)"}
    r = client.post("/v1/size", content='{"tps": ' + "[" * 900 + "]" * 900 + "}",
                    headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert r.json() == {"detail": "tps: Input should be a valid number, got [[[...]]]"}


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/simulate", {"spec": "m5d.large:gp2:" + "9" * 50_000}),
    ("/v1/simulate", {"spec": "m5d.large:gp2:100GiB", "rw": "x" * 50_000}),
    ("/v1/size", {"tps": "7" * 50_000}),
    ("/v1/size", {"preset": "p" * 50_000}),
    ("/v1/size", {"x" * 50_000: 1}),
])
def test_a_422_quotes_an_excerpt_not_the_input(client: TestClient, path: str,
                                               body: dict[str, Any]) -> None:
    """A 50 KB bad value gets a short one-line answer: at most MAX_DETAIL_CHARS of detail."""
    r = client.post(path, json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert len(detail) <= MAX_DETAIL_CHARS
    assert "\n" not in detail
    assert len(r.content) < 400


@pytest.mark.parametrize(("name", "value"), [
    ("ADVISOR_API_IO_BUDGET", "nan"), ("ADVISOR_API_IO_BUDGET", "-5"),
    ("ADVISOR_API_IO_BUDGET", "inf"), ("ADVISOR_API_IO_BUDGET", "1e400"),
    ("ADVISOR_API_IO_BUDGET", "lots"), ("ADVISOR_API_IO_BUDGET", "0"),
    ("ADVISOR_API_IO_BUDGET", "9" * 500), ("ADVISOR_API_WORKERS", "-1"),
    ("ADVISOR_API_WORKERS", "1.5"), ("ADVISOR_API_QUEUE", "many"),
    ("ADVISOR_API_TIMEOUT_S", "nan"), ("ADVISOR_API_MAX_BODY_BYTES", "1e12"),
])
def test_bad_settings_are_refused_in_one_line(monkeypatch: pytest.MonkeyPatch, name: str,
                                              value: str) -> None:
    """A setting that is not a finite number in its range is refused, naming the variable."""
    monkeypatch.setenv(name, value)
    with pytest.raises(InvalidInput, match=rf"^{name}='.*': a (whole )?number from ") as exc:
        Settings.from_env()
    assert len(str(exc.value)) < 160


def test_serve_refuses_a_bad_setting_before_it_starts(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """`ADVISOR_API_IO_BUDGET=nan advisor serve`: exit 2, one line, no banner, no server."""
    monkeypatch.setenv("ADVISOR_DATABASE_URL", f"sqlite:///{tmp_path}/r.sqlite3")
    monkeypatch.setenv("ADVISOR_API_IO_BUDGET", "nan")
    assert main(["serve", "--port", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: ADVISOR_API_IO_BUDGET='nan': a number from 1 to 1e+12, e.g. 20000000"]


def test_serve_refuses_an_unknown_log_level(capsys: pytest.CaptureFixture[str]) -> None:
    """`advisor serve --log-level verbose`: exit 2 and one line listing the levels."""
    assert main(["serve", "--log-level", "verbose"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("error: Invalid value for '--log-level'")
    assert "'debug', 'info', 'warning', 'error'" in err[0]


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_docs_pages_load_every_asset_from_this_server(client: TestClient, page: str) -> None:
    """/docs and /redoc reference no other host (they work offline), and every script, style
    sheet, icon and the OpenAPI document they reference is served here."""
    html = client.get(page)
    assert html.status_code == 200
    refs = set(re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", html.text))
    assert any(r.endswith(".js") for r in refs)
    assert "/openapi.json" in refs
    for ref in refs:
        assert ref.startswith("/"), ref
        assert not ref.startswith("//"), ref
        r = client.get(ref)
        assert r.status_code == 200, ref
        assert len(r.content) > 100, ref
    assert "cdn" not in html.text.lower()
    assert "fonts.googleapis" not in html.text


def test_a_cancelled_request_answers_503_only_when_the_server_cancels_it() -> None:
    """A bare task cancel (uvicorn ending its shutdown grace period) gets a one-line 503 with
    Retry-After; a caller's own timeout around the request gets its cancellation back, with
    nothing sent (no made-up answer)."""
    import asyncio

    from api.guard import RequestGuard

    async def slow_app(scope: Any, receive: Any, send: Any) -> None:
        await anyio.sleep(30)

    guard = RequestGuard(slow_app, token=None, max_body_bytes=1000, body_timeout_s=5)
    scope = {"type": "http", "path": "/v1/size", "headers": []}

    def call(sent: list[dict[str, Any]]) -> tuple[Any, Any]:
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": b"{}", "more_body": False}
            await anyio.sleep_forever()
            raise AssertionError

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        return receive, send

    async def server_cancels() -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []
        task = asyncio.get_running_loop().create_task(guard(scope, *call(sent)))
        await asyncio.sleep(0.2)
        task.cancel()
        await task
        return sent

    sent = asyncio.run(server_cancels())
    assert sent[0]["status"] == 503
    assert (b"retry-after", b"10") in sent[0]["headers"]
    assert json.loads(sent[1]["body"]) == {"detail": "the server is shutting down; try again "
                                                     "shortly"}

    async def caller_times_out() -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []
        with pytest.raises(TimeoutError), anyio.fail_after(0.2):
            await guard(scope, *call(sent))
        return sent

    assert anyio.run(caller_times_out) == []


def test_an_unexpected_error_is_named_not_its_task_group(catalog: Catalog,
                                                         tmp_path: Path) -> None:
    """The guard runs the app inside a task group, which wraps what the app raises: the error
    handlers must see the error itself (the one line names RuntimeError, not ExceptionGroup)."""
    app = make_app(catalog, tmp_path)

    @app.get("/v1/boom")
    def boom() -> None:
        raise RuntimeError("boom")

    with TestClient(app, raise_server_exceptions=False) as client:
        reply = client.get("/v1/boom")
    assert reply.status_code == 500
    assert reply.json()["detail"] == "internal error: RuntimeError (logged)"
