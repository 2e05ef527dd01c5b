"""An OTLP/HTTP capture server for conformance recordings (stdlib only).

Writes every traces / logs request body exactly as received (gzip removed) to
`<out>/otlp/NNNN-<signal>.<pb|json>` in arrival order and answers success, so the
framework's own exporter sends what it would send to any collector.
"""

from __future__ import annotations

import gzip
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["CaptureServer"]

_SIGNALS = {"/v1/traces": "traces", "/v1/logs": "logs", "/v1/metrics": "metrics"}


class CaptureServer:
    """Stores OTLP/HTTP requests on disk; metrics are acknowledged and dropped."""

    def __init__(self, out_dir: Path, *, port: int = 0) -> None:
        self.out_dir = out_dir / "otlp"
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.count = 0
        self.received = {"traces": 0, "logs": 0, "metrics": 0}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _body(self) -> bytes:
                """The request body, sized by content-length or sent chunked (Node's exporters)."""
                if "chunked" not in (self.headers.get("transfer-encoding") or "").lower():
                    return self.rfile.read(int(self.headers.get("content-length") or 0))
                parts = []
                while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)

            def do_POST(self) -> None:  # noqa: N802
                body = self._body()
                encoding = (self.headers.get("content-encoding") or "").lower()
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "deflate":
                    body = zlib.decompress(body)
                is_json = "json" in (self.headers.get("content-type") or "")
                signal = _SIGNALS.get(self.path.split("?")[0].rstrip("/"))
                if signal is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                with server._lock:
                    server.received[signal] += 1
                    if signal != "metrics":
                        server.count += 1
                        name = f"{server.count:04d}-{signal}.{'json' if is_json else 'pb'}"
                        (server.out_dir / name).write_bytes(body)
                answer = b"{}" if is_json else b""
                self.send_response(200)
                self.send_header(
                    "content-type", "application/json" if is_json else "application/x-protobuf"
                )
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> CaptureServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
