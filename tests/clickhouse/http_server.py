"""A protocol-faithful ClickHouse HTTP-interface test server over chdb -- NOT clickhouse-server.

No clickhouse-server installs here (Debian's is too old for Map columns; PyPI and npm ship
only clients; chdb's library has no server entry point), so the `clickhouse://` path is
tested against this: a real HTTP/1.1 server on loopback that speaks ClickHouse's HTTP
interface the way clickhouse-connect uses it and runs every statement on the real ClickHouse
engine through chdb (one Session on a data directory, statements serialised by a lock).

What it follows from the real server (src/Server/HTTPHandler.cpp and its docs):
- the query is the `query` URL parameter, a newline, then the body; the output format is
  the query's FORMAT, else `default_format`, else TabSeparated (`X-ClickHouse-Format`);
- `INSERT ... FORMAT f` / `VALUES` take their data from what follows in the body (read by
  the engine's own input format through `FROM INFILE`);
- `database` (URL or `X-ClickHouse-Database`), `param_<name>` query parameters (parsed by
  the engine), every other non-transport URL parameter as a query setting (the engine
  validates it: unknown -> 115; `readonly` enforced by the engine -> 164); a GET is readonly=2;
- credentials from `X-ClickHouse-User`/`X-ClickHouse-Key`, Basic auth or `user`/`password`
  (wrong -> 403, code 516, AUTHENTICATION_FAILED);
- errors as `Code: N. DB::Exception: ... (NAME) (version V)` with `X-ClickHouse-Exception-Code`
  and the HTTP status of `exceptionCodeToHTTPStatus` (404 unknown table/database, 400 syntax,
  500 otherwise, e.g. readonly);
- request bodies decoded per Content-Encoding (gzip, deflate, zstd, lz4, xz, bz2); responses
  compressed when `enable_http_compression` is 1, method chosen from Accept-Encoding in the
  server's order (zstd, br, lz4, gzip, deflate); `/ping`.
Not implemented: HTTP sessions (`session_id` is ignored: each request is session-less, so a
`SET`/`USE` statement has no effect past its request), multipart external data, `compress`/
`decompress` (ClickHouse-native block compression), progress headers, result streaming
(each result is computed whole under the lock, then sent).
"""

from __future__ import annotations

import base64
import bz2
import contextlib
import gzip
import json
import lzma
import os
import re
import socket
import tempfile
import threading
import urllib.error
import urllib.request
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

__all__ = ["ChdbHttpServer", "ClickHouseError"]

_TRANSPORT_PARAMS = {
    "query",
    "database",
    "default_format",
    "user",
    "password",
    "quota_key",
    "query_id",
    "session_id",
    "session_timeout",
    "session_check",
    "compress",
    "decompress",
    "buffer_size",
    "wait_end_of_query",
    "client_protocol_version",
    "role",
    "stacktrace",
}
# exceptionCodeToHTTPStatus (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp), by error name.
_STATUS_BY_NAME = {
    401: {"REQUIRED_PASSWORD"},
    403: {
        "UNKNOWN_USER",
        "WRONG_PASSWORD",
        "AUTHENTICATION_FAILED",
        "SET_NON_GRANTED_ROLE",
        "ACCESS_DENIED",
    },
    400: {
        "BAD_ARGUMENTS",
        "CANNOT_COMPILE_REGEXP",
        "CANNOT_PARSE_TEXT",
        "CANNOT_PARSE_ESCAPE_SEQUENCE",
        "CANNOT_PARSE_QUOTED_STRING",
        "CANNOT_PARSE_DATE",
        "CANNOT_PARSE_DATETIME",
        "CANNOT_PARSE_NUMBER",
        "CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING",
        "CANNOT_PARSE_IPV4",
        "CANNOT_PARSE_IPV6",
        "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
        "CANNOT_PARSE_UUID",
        "DUPLICATE_COLUMN",
        "ILLEGAL_COLUMN",
        "UNKNOWN_ELEMENT_IN_AST",
        "UNKNOWN_TYPE_OF_AST_NODE",
        "THERE_IS_NO_COLUMN",
        "TOO_DEEP_AST",
        "TOO_BIG_AST",
        "UNEXPECTED_AST_STRUCTURE",
        "SYNTAX_ERROR",
        "INCORRECT_DATA",
        "TYPE_MISMATCH",
        "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE",
    },
    404: {
        "UNKNOWN_TABLE",
        "UNKNOWN_FUNCTION",
        "UNKNOWN_IDENTIFIER",
        "UNKNOWN_TYPE",
        "UNKNOWN_STORAGE",
        "UNKNOWN_DATABASE",
        "UNKNOWN_SETTING",
        "UNKNOWN_DIRECTION_OF_SORTING",
        "UNKNOWN_AGGREGATE_FUNCTION",
        "UNKNOWN_FORMAT",
        "UNKNOWN_DATABASE_ENGINE",
        "UNKNOWN_TYPE_OF_QUERY",
        "UNKNOWN_ROLE",
    },
    413: {"QUERY_IS_TOO_LARGE"},
    501: {"NOT_IMPLEMENTED"},
    503: {"SOCKET_TIMEOUT", "CANNOT_OPEN_FILE", "CANNOT_SCHEDULE_TASK"},
    411: {"HTTP_LENGTH_REQUIRED"},
    408: {"TIMEOUT_EXCEEDED"},
    415: {"UNSUPPORTED_MEDIA_TYPE"},
}
_CONTENT_TYPES = {
    "TabSeparated": "text/tab-separated-values; charset=UTF-8",
    "TSV": "text/tab-separated-values; charset=UTF-8",
    "JSON": "application/json; charset=UTF-8",
    "JSONEachRow": "application/x-ndjson; charset=UTF-8",
    "CSV": "text/csv; charset=UTF-8; header=absent",
}
_RESPONSE_METHODS = ("zstd", "br", "lz4", "gzip", "deflate")  # chooseHTTPCompressionMethod
_TRAILING_FORMAT = re.compile(rb"\bFORMAT\s+(\w+)\s*$", re.IGNORECASE)
_INSERT = re.compile(rb"^\s*INSERT\b", re.IGNORECASE)
_INSERT_DATA = re.compile(rb"\b(?:FORMAT\s+(\w+)|(VALUES))\b", re.IGNORECASE)
_SELECT = re.compile(rb"\b(SELECT|WITH)\b", re.IGNORECASE)
_NO_EFFECT = re.compile(r"^\s*(SET|USE)\b", re.IGNORECASE)
_PROBE_SCOPE = re.compile(r":? In scope SELECT formatQuery\(.*\)(?=\. \()", re.DOTALL)
_CODE = re.compile(r"Code: (\d+)\.")
_NAME = re.compile(r"\(([A-Z][A-Z0-9_]+)\)")


class ClickHouseError(Exception):
    """An exception as ClickHouse reports it: code, symbolic name and message."""

    def __init__(self, code: int, name: str, message: str) -> None:
        super().__init__(message)
        self.code, self.name, self.message = code, name, message

    @classmethod
    def of(cls, exc: BaseException | str) -> ClickHouseError:
        """The engine's exception (`Code: N. DB::Exception: ... (NAME)`) as a ClickHouseError."""
        text = str(exc).strip()
        code = _CODE.search(text)
        names = _NAME.findall(text)
        return cls(
            int(code.group(1)) if code else 1001, names[-1] if names else "STD_EXCEPTION", text
        )

    @property
    def status(self) -> int:
        return next((s for s, names in _STATUS_BY_NAME.items() if self.name in names), 500)


class _Engine:
    """The chdb session every request runs on, one statement at a time."""

    def __init__(self, data_dir: Path) -> None:
        from chdb import session

        self._lock = threading.Lock()
        self._session: Any = session.Session(str(data_dir))
        row = self._run("SELECT version(), timezone(), getSetting('enable_http_compression')")
        self.version, self.timezone, compression = row.decode().rstrip("\n").split("\t")
        self.http_compression_default = compression

    def _run(self, sql: str, fmt: str = "TabSeparated", params: dict[str, str] | None = None):
        if self._session is None:
            raise ClickHouseError(210, "NETWORK_ERROR", "Code: 210. DB::Exception: shut down.")
        try:
            result = self._session.query(sql, fmt, params=params or None)
        except Exception as exc:  # noqa: BLE001 - every engine error becomes a ClickHouse error
            raise ClickHouseError.of(exc) from None
        return result.bytes()

    def execute(
        self,
        sql: str,
        *,
        fmt: str,
        database: str,
        params: dict[str, str],
        settings: dict[str, str],
    ) -> bytes:
        """Run one request's statement in `database` with its query-level `settings`."""
        with self._lock:
            self._run(f"USE `{database}`")  # 81 UNKNOWN_DATABASE as the server answers
            if _NO_EFFECT.match(sql):
                self._check_syntax(sql)
                return b""  # a session-less request: SET / USE end with it
            if not settings:
                return self._run(sql, fmt, params)
            clause = " SETTINGS " + ", ".join(f"{k} = {_quote(v)}" for k, v in settings.items())
            # Query-level SETTINGS follow a FORMAT clause (statements with output), or end
            # the statement (DELETE, INSERT SELECT); statements taking neither run as they are.
            if _TRAILING_FORMAT.search(sql.encode()) or sql.lstrip()[:6].upper() == "INSERT":
                variants = [sql + clause]
            else:
                variants = [f"{sql}\nFORMAT {fmt}{clause}", f"{sql}{clause}"]
            for variant in variants:
                try:
                    return self._run(variant, fmt, params)
                except ClickHouseError as exc:
                    if exc.name != "SYNTAX_ERROR":
                        raise
                    self._check_syntax(sql)  # the error of the statement as the client wrote it
            if settings.get("readonly", "0") not in ("", "0"):
                raise ClickHouseError(
                    164,
                    "READONLY",
                    "Code: 164. DB::Exception: Cannot execute query in readonly mode. (READONLY)",
                )
            return self._run(sql, fmt, params)

    def _check_syntax(self, sql: str) -> None:
        """Raise the engine's SYNTAX_ERROR for `sql` itself, if it has one."""
        try:
            self._run("SELECT formatQuery({q:String})", params={"q": _escaped(sql)})
        except ClickHouseError as exc:
            exc.message = _PROBE_SCOPE.sub("", exc.message)  # the error as the query's own
            raise

    def close(self) -> None:
        with self._lock:
            session, self._session = self._session, None
            session.close()


def _quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _escaped(value: str) -> str:
    """A query parameter value in ClickHouse's escaped text form."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _decode_body(body: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    if encoding == "zstd":
        return _zstd().decompress(body)
    if encoding == "lz4":
        import lz4.frame

        return lz4.frame.decompress(body)
    if encoding == "xz":
        return lzma.decompress(body)
    if encoding == "bz2":
        return bz2.decompress(body)
    raise ClickHouseError(
        48, "NOT_IMPLEMENTED", f"Code: 48. DB::Exception: Unknown Content-Encoding: {encoding}."
    )


def _zstd() -> Any:
    try:
        from compression import zstd  # Python 3.14
    except ImportError:
        from backports import zstd
    return zstd


def _encode_body(body: bytes, accept: str) -> tuple[bytes, str]:
    """`body` compressed with the first method of the server's order the client accepts."""
    for method in _RESPONSE_METHODS:
        if method not in accept:
            continue
        if method == "zstd":
            return _zstd().compress(body), method
        if method == "lz4":
            import lz4.frame

            return lz4.frame.compress(body), method
        if method == "gzip":
            return gzip.compress(body), method
        if method == "deflate":
            return zlib.compress(body), method
    return body, ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Quiet: tests read answers, not access logs."""

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
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        user = "default"
        try:
            user = self._authenticate(params)
            body = _decode_body(raw_body, self.headers.get("Content-Encoding", ""))
            self._answer(params, body)
        except ClickHouseError as exc:
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
        if (user, password or "") != (self.server.user, self.server.password):
            raise ClickHouseError(
                516,
                "AUTHENTICATION_FAILED",
                f"Code: 516. DB::Exception: {user}: Authentication failed: password is "
                "incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)",
            )
        return user

    def _answer(self, params: dict[str, str], body: bytes) -> None:
        engine = self.server.engine
        query = params.get("query", "").encode()
        full = (query + b"\n" if query else b"") + body
        settings = {
            k: v
            for k, v in params.items()
            if k not in _TRANSPORT_PARAMS and not k.startswith("param_")
        }
        if self.command == "GET" and settings.get("readonly", "0") in ("", "0"):
            settings["readonly"] = "2"
        query_params = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
        database = self.headers.get("X-ClickHouse-Database") or params.get("database") or "default"
        fmt = params.get("default_format") or "TabSeparated"
        infile = None
        try:
            sql, fmt, infile = _statement(full, fmt, settings)
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
            "Content-Type": _CONTENT_TYPES.get(fmt, "application/octet-stream"),
            "X-ClickHouse-Format": fmt,
            "X-ClickHouse-Timezone": settings.get("session_timezone") or engine.timezone,
            "X-ClickHouse-Query-Id": params.get("query_id") or str(uuid.uuid4()),
            "X-ClickHouse-Server-Display-Name": "tracesim-chdb-test-server",
            "X-ClickHouse-Summary": json.dumps({"read_rows": "0", "written_rows": "0"}),
        }
        compression = settings.get("enable_http_compression", engine.http_compression_default)
        if compression == "1" and result:
            result, method = _encode_body(result, self.headers.get("Accept-Encoding", ""))
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
        if self.command != "HEAD":
            self.wfile.write(body)


def _statement(full: bytes, fmt: str, settings: dict[str, str]) -> tuple[str, str, str | None]:
    """(SQL to run, output format, temp file holding INSERT data or None) for a request."""
    if _INSERT.match(full):
        found = _INSERT_DATA.search(full)
        if found and not _SELECT.search(full[: found.start()]):
            data_fmt = found.group(1).decode() if found.group(1) else "Values"
            rest = full[found.end() :] if found.group(1) else full[found.start() + 6 :]
            if found.group(1):  # data starts after the first newline, or the whitespace
                stripped = rest.lstrip(b" \t\r")
                rest = stripped[1:] if stripped[:1] == b"\n" else stripped
            with tempfile.NamedTemporaryFile(delete=False, suffix=".data") as tmp:
                tmp.write(rest)
            clause = ""
            if settings:
                clause = " SETTINGS " + ", ".join(f"{k} = {_quote(v)}" for k, v in settings.items())
            head = full[: found.start()].decode().strip()
            return f"{head} FROM INFILE {_quote(tmp.name)}{clause} FORMAT {data_fmt}", fmt, tmp.name
    text = full.decode().strip().rstrip(";").rstrip()
    named = _TRAILING_FORMAT.search(text.encode())
    return text, named.group(1).decode() if named else fmt, None


class _Server(ThreadingHTTPServer):
    """Tracks its open (keep-alive) connections so that shutting down closes them, as a
    stopped server's would be: the client then sees the server gone, not a stale handler."""

    daemon_threads = True
    engine: _Engine
    user: str
    password: str

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

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
    twice. One per process at a time (chdb runs one engine per process)."""

    def __init__(self, data_dir: Path, *, user: str = "default", password: str = "") -> None:
        self.data_dir = Path(data_dir)
        self.user, self.password = user, password
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the server first"
        return self._server.server_address[1]

    def url(self, database: str = "otel", *, password: str | None = None) -> str:
        """A `clickhouse://` URL for tracesim's `--db` naming this server."""
        secret = self.password if password is None else password
        return f"clickhouse://{self.user}:{secret}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, **settings: str) -> bytes:
        """POST `sql` (data may follow an INSERT's FORMAT) as a plain HTTP client would;
        ClickHouseError when the server answers an error."""
        query = urlencode(settings)
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/?{query}", data=sql.encode(), method="POST"
        )
        request.add_header("X-ClickHouse-User", self.user)
        request.add_header("X-ClickHouse-Key", self.password)
        try:
            with urllib.request.urlopen(request) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            code = int(exc.headers.get("X-ClickHouse-Exception-Code", "0"))
            raise ClickHouseError.of(exc.read().decode()) if code else exc from None

    def start(self) -> ChdbHttpServer:
        server = _Server(("127.0.0.1", 0))
        server.engine = _Engine(self.data_dir)
        server.user, server.password = self.user, self.password
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

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
