"""A minimal DevTools-protocol client over Chromium's `--remote-debugging-pipe` (no library, no
port): the report tests lay a page out at a phone's width and measure it.

`--window-size` cannot do this: headless Chromium keeps its window at least 500 px wide, so a
page loaded with `--window-size=390,...` is laid out at 500 px (`--screenshot` alone emulates the
size asked for). `Emulation.setDeviceMetricsOverride` sets the viewport itself.
"""

import contextlib
import fcntl
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

MEASURE = """((w) => {
  const wide = [];
  for (const e of document.querySelectorAll("body *")) {
    const r = e.getBoundingClientRect();
    // an element whose box or content pokes out of the viewport, not held by a scrolling box
    const own = getComputedStyle(e).overflowX === "visible" ? e.scrollWidth || 0 : 0;
    const right = Math.max(r.right, r.left + own);
    if (right > w + 0.5 && r.width > 0 && e.offsetParent !== null) {
      let clipped = false;
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
        const ox = getComputedStyle(p).overflowX;
        if (ox === "auto" || ox === "scroll" || ox === "hidden") { clipped = true; break; }
      }
      if (!clipped && wide.length < 5) {
        wide.push(`${e.tagName.toLowerCase()}.${e.getAttribute("class") || ""} right ${right}`);
      }
    }
  }
  return JSON.stringify({inner: w, scroll: document.documentElement.scrollWidth,
                         body: document.body.scrollWidth, wide: wide});
})(%d)"""


class Browser:
    """One headless Chromium driven through fds 3 (commands in) and 4 (replies out)."""

    def __init__(self, chromium: str, flags: list[str], profile: Path) -> None:
        to_child, self._w = os.pipe()
        self._r, from_child = os.pipe()

        def on_3_and_4() -> None:  # in the child: Chromium reads fd 3 and writes fd 4
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child, from_child)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [chromium, *flags, f"--user-data-dir={profile}", "--remote-debugging-pipe",
             "about:blank"],
            pass_fds=(3, 4), preexec_fn=on_3_and_4, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, timeout_s: float = 60.0, session: str | None = None,
             **params: Any) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._next(timeout_s)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})  # type: ignore[no-any-return]
            self.events.append(reply)

    def wait_event(self, name: str, timeout_s: float = 60.0) -> dict[str, Any]:
        for i, ev in enumerate(self.events):
            if ev.get("method") == name:
                return self.events.pop(i)
        while True:
            ev = self._next(timeout_s)
            if ev.get("method") == name:
                return ev
            self.events.append(ev)

    def _next(self, timeout_s: float) -> dict[str, Any]:
        import select

        deadline = time.monotonic() + timeout_s
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._r], [], [], max(0.0, left))
            if not ready:
                raise TimeoutError("no reply from Chromium")
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe: "
                                   + (self.proc.stderr.read()[-2000:].decode(errors="replace")
                                      if self.proc.stderr else ""))
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)  # type: ignore[no-any-return]

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close", timeout_s=10)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        if self.proc.stderr:
            self.proc.stderr.close()


def measure_width(chromium: str, flags: list[str], profile: Path, url: str,
                  width: int = 390, height: int = 844) -> dict[str, Any]:
    """Lay `url` out in a `width` x `height` phone viewport and return its widths: the layout
    viewport (`inner`: a phone widens it to fit content wider than the screen), the document's
    `scroll` width and up to five elements reaching past `width` that no scrolling box holds
    (`wide`)."""
    browser = Browser(chromium, flags, profile)
    try:
        target = browser.call("Target.createTarget", url="about:blank")["targetId"]
        session = browser.call("Target.attachToTarget", targetId=target,
                               flatten=True)["sessionId"]
        browser.call("Page.enable", session=session)
        browser.call("Emulation.setDeviceMetricsOverride", session=session, width=width,
                     height=height, deviceScaleFactor=1, mobile=True)
        browser.call("Page.navigate", session=session, url=url)
        browser.wait_event("Page.loadEventFired")
        value = browser.call("Runtime.evaluate", session=session, expression=MEASURE % width,
                             returnByValue=True)["result"]["value"]
        return json.loads(value)  # type: ignore[no-any-return]
    finally:
        browser.close()
