"""A minimal headless-Chromium driver over the Chrome DevTools Protocol, for the report tests.

Launches `/usr/bin/chromium --headless --remote-debugging-port=0`, reads the
DevTools websocket address from its stderr, opens one page, and records
every console error, uncaught exception and error log entry. Waiting is done
on protocol events and on in-page conditions (a promise that resolves when a
JS expression is truthy), never by sleeping.

Needs the `websockets` package (sync client).
"""

from __future__ import annotations

import base64
import itertools
import json
import queue
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

__all__ = ["CHROMIUM", "Browser", "BrowserError"]

CHROMIUM = Path("/usr/bin/chromium")
"""Where Debian's `chromium` package installs the browser."""

_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
]


class BrowserError(RuntimeError):
    """The browser did not start, or a page-side wait or evaluation failed."""


class Browser:
    """One headless Chromium with one page; a context manager."""

    def __init__(self, *, width: int = 1400, height: int = 1000, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.errors: list[str] = []
        self._events: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._profile = tempfile.mkdtemp(prefix="tracesim-chromium-")
        self._proc = subprocess.Popen(
            [str(CHROMIUM), *_FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(lines,), daemon=True).start()
        url = self._devtools_url(lines)
        self._ws = connect(url, max_size=None, open_timeout=timeout)
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=True)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    def _pump(self, lines: queue.Queue[str | None]) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            lines.put(line)
        lines.put(None)

    def _devtools_url(self, lines: queue.Queue[str | None]) -> str:
        seen = []
        while True:
            try:
                line = lines.get(timeout=self.timeout)
            except queue.Empty:
                line = None
            if line is None:
                self.close()
                raise BrowserError("chromium did not print its DevTools address:\n" + "".join(seen))
            seen.append(line)
            if "DevTools listening on " in line:
                return line.split("DevTools listening on ", 1)[1].strip()

    # -- protocol ---------------------------------------------------------------------------
    def _receive(self) -> dict[str, Any]:
        try:
            message = json.loads(self._ws.recv(timeout=self.timeout))
        except TimeoutError as exc:
            raise BrowserError(f"no DevTools message within {self.timeout} s") from exc
        method = message.get("method")
        params = message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.errors.append(f"console.{params['type']}: {args}")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            self.errors.append(f"uncaught exception: {text}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            entry = params["entry"]
            self.errors.append(
                f"log error ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}"
            )
        if method:
            self._events.append(message)
        return message

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = False
    ) -> dict[str, Any]:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        msg_id = next(self._ids)
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        self._ws.send(json.dumps(message))
        while True:
            reply = self._receive()
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def wait_event(self, method: str) -> dict[str, Any]:
        """Return the first not-yet-consumed event named `method`, waiting for it."""
        while True:
            for i, event in enumerate(self._events):
                if event["method"] == method:
                    return self._events.pop(i)
            self._receive()

    # -- page -------------------------------------------------------------------------------
    def open(self, url: str) -> None:
        """Navigate and wait for the load event."""
        self._events.clear()
        self.send("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """Evaluate JS in the page (promises awaited) and return its JSON value."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
            session=True,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"evaluating {expression[:80]!r}: {text}")
        return result["result"].get("value")

    def wait_for(self, condition: str, *, timeout_ms: int = 20000) -> Any:
        """Wait until the JS expression `condition` is truthy in the page; return its value."""
        script = f"""new Promise((resolve, reject) => {{
            const t0 = performance.now();
            (function check() {{
                let v; try {{ v = ({condition}); }} catch (e) {{ v = undefined; }}
                if (v) return resolve(v);
                if (performance.now() - t0 > {timeout_ms})
                    return reject(new Error("timed out waiting for: " + {json.dumps(condition)}));
                setTimeout(check, 25);
            }})();
        }})"""
        return self.evaluate(script)

    def click_at(self, x: float, y: float) -> None:
        """A real mouse click (move, press, release) at viewport coordinates."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params: dict[str, Any] = {"type": kind, "x": x, "y": y}
            if kind != "mouseMoved":
                params.update(button="left", clickCount=1)
            self.send("Input.dispatchMouseEvent", params, session=True)

    def click_element(self, selector_js: str) -> None:
        """Scroll the element `selector_js` (a JS expression) into view and click its centre."""
        box = self.evaluate(
            f"(() => {{ const e = {selector_js}; e.scrollIntoView({{block: 'center'}});"
            " const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        self.click_at(*box)

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        """Save a PNG of the viewport (or the whole page) to `path`."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics", session=True)["cssContentSize"]
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": min(size["height"], 12000),
                "scale": 1,
            }
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params, session=True)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """Close the connection and the browser; safe twice."""
        ws = getattr(self, "_ws", None)
        if ws is not None:
            ws.close()
            self._ws = None
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
