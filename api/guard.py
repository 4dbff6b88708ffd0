"""ASGI middleware at the HTTP edge, before FastAPI parses anything.

In order: the bearer token (when one is set) on every `/v1` request, before a byte of the body
is read; the body's size, refused with 413 from its Content-Length alone when that is over the
limit, else counted as it arrives; the body's arrival time, so a client that announces more
than it sends (or sends it a byte at a time) gets 408 instead of holding a connection open. A
refusal closes the connection (`Connection: close`), since the rest of its body is never read.

Then the request runs with the whole body in hand, while the middleware listens for the client
going away: if it does, the request is cancelled, which cancels the work it started (a job on a
worker process is stopped), and the log line says 499.
"""

import json
import math
import secrets

import anyio
import anyio.abc
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CLIENT_GONE = "advisor.client_gone"  # scope key: the client left before the answer


async def send_json(send: Send, status: int, detail: str, *,
                    headers: dict[str, str] | None = None, close: bool = False) -> None:
    """A complete `{"detail": ...}` response."""
    body = json.dumps({"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    if close:
        raw.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


class RequestGuard:
    def __init__(self, app: ASGIApp, *, token: str | None, max_body_bytes: int,
                 body_timeout_s: float) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s

    def _authorised(self, scope: Scope) -> bool:
        if self.token is None or not scope["path"].startswith("/v1"):
            return True
        scheme, _, given = (_header(scope, b"authorization") or b"").partition(b" ")
        return scheme.lower() == b"bearer" and secrets.compare_digest(given.strip(), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self._authorised(scope):
            await send_json(send, 401, "missing or wrong bearer token",
                            headers={"WWW-Authenticate": "Bearer"}, close=True)
            return
        length = _header(scope, b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body_bytes:
            await send_json(send, 413, self._too_large(), close=True)
            return
        body = await self._read_body(receive, send, length)
        if body is None:
            return
        await self._run(scope, receive, send, body)

    def _too_large(self) -> str:
        return (f"the request body is over {self.max_body_bytes:,} bytes (the API's bodies are "
                "small JSON objects; see /docs)")

    async def _read_body(self, receive: Receive, send: Send,
                         length: bytes | None) -> bytes | None:
        """The whole body, or None after answering 413/408 (or the client left)."""
        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self.body_timeout_s):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body_bytes:
                    await send_json(send, 413, self._too_large(), close=True)
                    return None
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)
        announced = f" of the {int(length):,} its Content-Length announced" \
            if length is not None and length.isdigit() else ""
        await send_json(send, 408, f"the request body did not arrive within "
                        f"{self.body_timeout_s:g} s ({size:,} bytes came{announced})",
                        close=True)
        return None

    async def _run(self, scope: Scope, receive: Receive, send: Send, body: bytes) -> None:
        gone = anyio.Event()
        delivered = answered = started = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def tracked(message: Message) -> None:
            nonlocal answered, started
            started = True
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered = True  # the server reports "disconnect" once the answer is out too
            await send(message)

        async def watch(tg: anyio.abc.TaskGroup) -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            if not answered:
                scope[CLIENT_GONE] = True
                gone.set()
                tg.cancel_scope.cancel()

        try:
            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(watch, tg)
                    await self.app(scope, replay, tracked)
                    tg.cancel_scope.cancel()
            except BaseExceptionGroup as group:
                # The task group wraps what the app raised: hand the error handlers the error
                # itself (a lone one; several stay grouped).
                if len(group.exceptions) == 1:
                    raise group.exceptions[0] from None
                raise
        except anyio.get_cancelled_exc_class():
            # Not the client leaving (that cancel stays inside the group). A cancelled scope
            # around this call (a caller's timeout) has given up on the answer: let it have its
            # cancellation. A bare task cancel is uvicorn ending its shutdown grace period: the
            # work was cancelled with the request, and the client gets one line, not a dropped
            # connection.
            if started or anyio.current_effective_deadline() == -math.inf:
                raise
            with anyio.CancelScope(shield=True):
                await send_json(send, 503, "the server is shutting down; try again shortly",
                                headers={"Retry-After": "10"}, close=True)
