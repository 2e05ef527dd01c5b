"""What ClickHouse's HTTP interface means by a request and how it answers errors: the
statement and its data, transport parameters vs settings, exception codes and HTTP statuses,
Content-Encoding both ways."""

from __future__ import annotations

import bz2
import email.parser
import email.policy
import gzip
import lzma
import re
import tempfile
import zlib
from typing import Any
from urllib.parse import unquote_plus

__all__ = [
    "CONTENT_TYPES",
    "MAX_FIELD_VALUE_SIZE",
    "MAX_URI_SIZE",
    "request_fields",
    "TRAILING_FORMAT",
    "TRANSPORT_PARAMS",
    "ClickHouseError",
    "decode_body",
    "encode_body",
    "quote",
    "statement",
]

MAX_URI_SIZE = 1 << 20
"""ClickHouse's `http_max_uri_size` default: a longer request line is answered 400."""
MAX_FIELD_VALUE_SIZE = 128 * 1024
"""`http_max_field_value_size` default: the longest value of a URL or form field (HTMLForm)."""
TRANSPORT_PARAMS = {
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
CONTENT_TYPES = {
    "TabSeparated": "text/tab-separated-values; charset=UTF-8",
    "TSV": "text/tab-separated-values; charset=UTF-8",
    "JSON": "application/json; charset=UTF-8",
    "JSONEachRow": "application/x-ndjson; charset=UTF-8",
    "CSV": "text/csv; charset=UTF-8; header=absent",
}
_RESPONSE_METHODS = ("zstd", "br", "lz4", "gzip", "deflate")  # chooseHTTPCompressionMethod
TRAILING_FORMAT = re.compile(rb"\bFORMAT\s+(\w+)\s*$", re.IGNORECASE)
_INSERT = re.compile(rb"^\s*INSERT\b", re.IGNORECASE)
_INSERT_DATA = re.compile(rb"\b(?:FORMAT\s+(\w+)|(VALUES))\b", re.IGNORECASE)
_SELECT = re.compile(rb"\b(SELECT|WITH)\b", re.IGNORECASE)
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


def quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def decode_body(body: bytes, encoding: str) -> bytes:
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


def encode_body(body: bytes, accept: str) -> tuple[bytes, str]:
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


def statement(full: bytes, fmt: str, settings: dict[str, str]) -> tuple[str, str, str | None]:
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
                clause = " SETTINGS " + ", ".join(f"{k} = {quote(v)}" for k, v in settings.items())
            head = full[: found.start()].decode().strip()
            return f"{head} FROM INFILE {quote(tmp.name)}{clause} FORMAT {data_fmt}", fmt, tmp.name
    text = full.decode().strip().rstrip(";").rstrip()
    named = TRAILING_FORMAT.search(text.encode())
    return text, named.group(1).decode() if named else fmt, None


def request_fields(raw_query: str, body: bytes, content_type: str) -> tuple[dict[str, str], bytes]:
    """The request's fields (URL, then a multipart/form-data body's) and what is left of the
    body; a value past `http_max_field_value_size` is refused as HTMLForm refuses it."""
    fields: dict[str, str] = {}
    for pair in raw_query.split("&") if raw_query else []:
        name, _, value = pair.partition("=")
        _check_size(value)
        fields[unquote_plus(name)] = unquote_plus(value)
    if not content_type.lower().startswith("multipart/form-data"):
        return fields, body
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    for part in message.iter_parts():
        if part.get_filename():
            raise ClickHouseError(
                48,
                "NOT_IMPLEMENTED",
                "Code: 48. DB::Exception: external data (multipart files) is not implemented by "
                "this test server. (NOT_IMPLEMENTED)",
            )
        value = part.get_payload(decode=True) or b""
        _check_size(value)
        fields[str(part.get_param("name", header="content-disposition"))] = value.decode()
    return fields, b""


def _check_size(value: str | bytes) -> None:
    if len(value) > MAX_FIELD_VALUE_SIZE:  # Poco's HTMLFormException, code POCO_EXCEPTION
        raise ClickHouseError(
            1000,
            "POCO_EXCEPTION",
            "Code: 1000. DB::Exception: Field value too long. (POCO_EXCEPTION)",
        )
