"""The HTTP/1.1 server: authentication, the request's parameters, the answer's headers and
compression, on loopback, over an `Engine`."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import ssl
import sys
import threading
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from tests.clickhouse.chdb_http.engine import Engine
from tests.clickhouse.chdb_http.protocol import (
    CONTENT_TYPES,
    MAX_URI_SIZE,
    TRANSPORT_PARAMS,
    ClickHouseError,
    decode_body,
    encode_body,
    request_fields,
    statement,
)

__all__ = ["ChdbHttpServer"]

_PIECE = 64 * 1024


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Quiet: tests read answers, not access logs."""

    def setup(self) -> None:
        """The connection's socket timeout is ClickHouse's `http_send_timeout` and
        `http_receive_timeout` (30 s each by default): a client that reads nothing for that
        long while the answer waits in full socket buffers loses its query."""
        self.timeout = self.server.socket_timeout
        super().setup()

    def handle_one_request(self) -> None:
        """The stdlib's loop with ClickHouse's URI limit (1 MiB, answered 400 Bad Request)
        instead of the stdlib's 64 KiB."""
        self.raw_requestline = self.rfile.readline(MAX_URI_SIZE + 1)
        if len(self.raw_requestline) > MAX_URI_SIZE:
            line = self.raw_requestline
            while line and not line.endswith(b"\n"):  # read it all, so the client reads the 400
                line = self.rfile.readline(1 << 16)
            self.requestline = self.request_version = self.command = ""
            self.send_error(400, "Bad Request", "URI is longer than http_max_uri_size")
            return
        if not self.raw_requestline:
            self.close_connection = True
            return
        if not self.parse_request():
            return
        method = getattr(self, f"do_{self.command}", None)
        if method is None:
            self.send_error(501, f"Unsupported method ({self.command!r})")
            return
        method()
        self.wfile.flush()

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        self._handle()

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        self._handle()

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        raw_body = self._read_body()
        if parts.path.rstrip("/") == "/ping" or (
            self.command == "GET" and not parts.query and parts.path == "/"
        ):
            self._send(200, b"Ok.\n", {"Content-Type": "text/html; charset=UTF-8"})
            return
        user = "default"
        try:
            body = decode_body(raw_body, self.headers.get("Content-Encoding", ""))
            params, body = request_fields(parts.query, body, self.headers.get("Content-Type", ""))
            user = self._authenticate(params)
            self._answer(params, body, viewer=user == self.server.viewer[0])
        except Exception as exc:  # noqa: BLE001 - the server answers every failure
            if not isinstance(exc, ClickHouseError):  # as ClickHouse does an internal one
                exc = ClickHouseError(
                    1001, "STD_EXCEPTION", f"Code: 1001. DB::Exception: {exc!r}. (STD_EXCEPTION)"
                )
            # chdb runs as its `default` user; the server names the one who asked
            message = exc.message.replace("DB::Exception: default: ", f"DB::Exception: {user}: ")
            if "(version " not in message:
                message += f" (version {self.server.engine.version})"
            self._send(
                exc.status,
                (message + "\n").encode(),
                {
                    "Content-Type": "text/plain; charset=UTF-8",
                    "X-ClickHouse-Exception-Code": str(exc.code),
                },
            )

    def _authenticate(self, params: dict[str, str]) -> str:
        user = self.headers.get("X-ClickHouse-User")
        password = self.headers.get("X-ClickHouse-Key")
        auth = self.headers.get("Authorization", "")
        if user is None and auth.lower().startswith("basic "):
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
        if user is None:
            user, password = params.get("user", "default"), params.get("password", "")
        known = {(self.server.user, self.server.password), self.server.viewer}
        if (user, password or "") not in known:
            raise ClickHouseError(
                516,
                "AUTHENTICATION_FAILED",
                f"Code: 516. DB::Exception: {user}: Authentication failed: password is "
                "incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)",
            )
        return user

    def _answer(self, params: dict[str, str], body: bytes, *, viewer: bool) -> None:
        engine = self.server.engine
        query = params.get("query", "").encode()
        full = (query + b"\n" if query else b"") + body
        settings = {
            k: v
            for k, v in params.items()
            if k not in TRANSPORT_PARAMS and not k.startswith("param_")
        }
        if viewer:  # the `readonly = 1` profile: no setting may change, the engine refuses writes
            for name, value in settings.items():
                if engine.defaults.get(name, value) != value:
                    raise ClickHouseError(
                        164,
                        "READONLY",
                        f"Code: 164. DB::Exception: Cannot modify '{name}' setting in readonly "
                        "mode. (READONLY)",
                    )
            settings = {"readonly": "1", **settings}
        elif self.command == "GET" and settings.get("readonly", "0") in ("", "0"):
            settings["readonly"] = "2"
        query_params = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
        database = self.headers.get("X-ClickHouse-Database") or params.get("database") or "default"
        fmt = params.get("default_format") or "TabSeparated"
        infile = None
        try:
            sql, fmt, infile = statement(full, fmt, settings)
            result = engine.execute(
                sql,
                fmt=fmt,
                database=database,
                params=query_params,
                settings={} if infile else settings,  # an INSERT's are in its statement
            )
        finally:
            if infile:
                os.unlink(infile)
        headers = {
            "Content-Type": CONTENT_TYPES.get(fmt, "application/octet-stream"),
            "X-ClickHouse-Format": fmt,
            "X-ClickHouse-Timezone": settings.get("session_timezone") or engine.timezone,
            "X-ClickHouse-Query-Id": params.get("query_id") or str(uuid.uuid4()),
            "X-ClickHouse-Server-Display-Name": "tracesim-chdb-test-server",
            "X-ClickHouse-Summary": json.dumps({"read_rows": "0", "written_rows": "0"}),
        }
        compression = settings.get("enable_http_compression", engine.http_compression_default)
        if compression == "1" and result:
            result, method = encode_body(result, self.headers.get("Accept-Encoding", ""))
            if method:
                headers["Content-Encoding"] = method
        self._send(200, result, headers)

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Keep-Alive", "timeout=10")
        self.end_headers()
        if self.command == "HEAD":
            return
        for start in range(0, len(body), _PIECE):  # the timeout bounds each send, not the whole
            self.wfile.write(body[start : start + _PIECE])
        self.server.answered(len(body))


class _Server(ThreadingHTTPServer):
    """Tracks its open (keep-alive) connections so that shutting down closes them, as a
    stopped server's would be: the client then sees the server gone, not a stale handler."""

    daemon_threads = True
    engine: Engine
    user: str
    password: str
    viewer: tuple[str, str]

    def __init__(self, address: tuple[str, int], *, socket_timeout: float) -> None:
        super().__init__(address, _Handler)
        self.socket_timeout = socket_timeout
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self._answers: list[int] = []
        self._answered = threading.Condition()

    def answered(self, size: int) -> None:
        """Record that an answer of `size` bytes left the server in full."""
        with self._answered:
            self._answers.append(size)
            self._answered.notify_all()

    def wait_for_answer(self, min_bytes: int, timeout: float) -> bool:
        """True once an answer of at least `min_bytes` has been sent in full."""
        with self._answered:
            return self._answered.wait_for(
                lambda: any(size >= min_bytes for size in self._answers), timeout
            )

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client gone or too slow (the send timeout) ends its connection, as in
        ClickHouse; anything else is reported as the stdlib does."""
        if not isinstance(sys.exc_info()[1], (TimeoutError, ConnectionError)):
            super().handle_error(request, client_address)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._open_lock:
            open_sockets, self._open = list(self._open), set()
        for sock in open_sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class ChdbHttpServer:
    """`ChdbHttpServer(data_dir, user=..., password=...).start()` serves ClickHouse's HTTP
    interface on 127.0.0.1 (a free port) over the chdb data directory; `shutdown()` is safe
    twice. One per process at a time (chdb runs one engine per process). With `tls=(cert,
    key)` it serves HTTPS (ClickHouse's 8443), as a `clickhouses://` URL. `viewer` is a second
    user with a `readonly = 1` profile, as a team gives analysts: it may change no setting
    (code 164) and the engine refuses its writes. `timezone` is the server's own (default:
    this machine's), `profile` its default profile's settings (e.g. an older server's);
    `socket_timeout` is its `http_send_timeout` / `http_receive_timeout`."""

    def __init__(
        self,
        data_dir: Path,
        *,
        user: str = "default",
        password: str = "",
        tls: tuple[Path, Path] | None = None,
        viewer: tuple[str, str] = ("viewer", "viewer-pw"),
        timezone: str | None = None,
        profile: dict[str, str] | None = None,
        socket_timeout: float = 30,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.user, self.password = user, password
        self.viewer = viewer
        self.timezone, self.profile = timezone, profile
        self.socket_timeout = socket_timeout
        self.tls = tls
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the server first"
        return self._server.server_address[1]

    def url(self, database: str = "otel", *, password: str | None = None) -> str:
        """A `clickhouse://` (`clickhouses://` with TLS) URL for tracesim's `--db`."""
        secret = self.password if password is None else password
        scheme = "clickhouses" if self.tls else "clickhouse"
        return f"{scheme}://{self.user}:{secret}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, **settings: str) -> bytes:
        """POST `sql` (data may follow an INSERT's FORMAT) as a plain HTTP client would;
        ClickHouseError when the server answers an error."""
        query = urlencode(settings)
        scheme = "https" if self.tls else "http"
        request = urllib.request.Request(
            f"{scheme}://127.0.0.1:{self.port}/?{query}", data=sql.encode(), method="POST"
        )
        request.add_header("X-ClickHouse-User", self.user)
        request.add_header("X-ClickHouse-Key", self.password)
        context = ssl.create_default_context(cafile=str(self.tls[0])) if self.tls else None
        try:
            with urllib.request.urlopen(request, context=context) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            code = int(exc.headers.get("X-ClickHouse-Exception-Code", "0"))
            raise ClickHouseError.of(exc.read().decode()) if code else exc from None

    def start(self, *, port: int = 0) -> ChdbHttpServer:
        """Serve on 127.0.0.1:`port` (0: a free one) in a background thread."""
        server = _Server(("127.0.0.1", port), socket_timeout=self.socket_timeout)
        if self.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*map(str, self.tls))
            server.socket = context.wrap_socket(server.socket, server_side=True)
        server.engine = Engine(self.data_dir, timezone=self.timezone, profile=self.profile)
        server.user, server.password, server.viewer = self.user, self.password, self.viewer
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def wait_for_answer(self, min_bytes: int, *, timeout: float = 60) -> bool:
        """True once this server has sent an answer of at least `min_bytes` in full (False
        after `timeout` seconds)."""
        assert self._server is not None, "start() the server first"
        return self._server.wait_for_answer(min_bytes, timeout)

    def shutdown(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        server.close_connections()
        server.engine.close()
        if self._thread is not None:
            self._thread.join()
