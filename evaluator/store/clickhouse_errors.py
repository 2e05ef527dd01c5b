"""ClickHouse failures as one-paragraph messages: what the server (or the connection) said,
the URL without its password, and the fix for that error code. The same text whether the
failure came from a server over HTTP (clickhouse-connect) or from chdb."""

from __future__ import annotations

import re

from tracesim.evaluator.store.url import StoreURL

__all__ = ["describe_error", "error_code"]

_CODE = re.compile(r"\bcode:? (\d+)", re.IGNORECASE)
_SERVER_TEXT = re.compile(r"Code: \d+\. DB::Exception: .*", re.DOTALL)
_TRAILER = re.compile(r"( \(version [^)]*\))?( \(for url [^)]*\))?\s*$")
_TLS_UNTRUSTED = ("certificate verify failed", "certificate_verify_failed")
_TLS_TO_PLAIN = ("wrong version number", "wrong_version_number", "record layer failure")
_PLAIN_TO_TLS = ("remotedisconnected", "connection aborted", "connection reset", "badstatusline")
_SSL_REASON = re.compile(r"\[SSL: \w+\] ([^(]+) \(_ssl")
_SOCKET_REASON = re.compile(r"(?:Disconnected|Error)\((?:\d+, )?'([^'\[]+)'\)")
_UNREACHABLE = ("connection refused", "timed out", "max retries", "name or service not known")
_FIXES = {
    "credentials": "check the user and password (in the URL, or CLICKHOUSE_USER / "
    "CLICKHOUSE_PASSWORD)",
    "readonly": "a read-only session or user: `tracesim sql` runs SELECTs only; `evaluate` "
    "needs a ClickHouse user allowed to CREATE and INSERT in the database",
    "syntax": "the statement is not valid ClickHouse SQL: correct it",
    "unreachable": "ClickHouse is not reachable there: check host and port (HTTP, 8123 / 8443)",
    "slow": "the server was reached but sent nothing for 300 s: check its load "
    "(system.processes) and that the connection is not cut by a proxy",
    "untrusted": "the server's TLS certificate is not trusted here: give the CA that signed "
    "it as ?ca_cert=/path/to/ca.pem",
    "tls_to_plain": "that port speaks plain HTTP: use clickhouse:// without secure "
    "(8123), or the server's HTTPS port (8443)",
    "plain_to_tls": "the server closed the connection: if that port serves HTTPS (8443), "
    "use clickhouses:// (or ?secure=1)",
}
_KIND_BY_CODE = {
    516: "credentials",  # AUTHENTICATION_FAILED
    192: "credentials",  # UNKNOWN_USER
    193: "credentials",  # WRONG_PASSWORD
    194: "credentials",  # REQUIRED_PASSWORD
    81: "database",  # UNKNOWN_DATABASE
    60: "table",  # UNKNOWN_TABLE
    164: "readonly",  # READONLY
    62: "syntax",  # SYNTAX_ERROR
}


def error_code(exc: BaseException) -> int | None:
    """The ClickHouse error code of a driver exception (clickhouse-connect's `code`, or the
    `Code: N` of the server's text), None for a transport failure."""
    code = getattr(exc, "code", None)
    if isinstance(code, int) and code > 0:
        return code
    found = _CODE.search(str(exc))
    return int(found.group(1)) if found else None


def _server_text(exc: BaseException) -> str:
    """What the server said (`Code: N. DB::Exception: ...`), without the driver's wrapping,
    the server version and the request URL; else the first line of the exception."""
    text = str(exc).strip()
    found = _SERVER_TEXT.search(text)
    if found:
        text = _TRAILER.sub("", found.group(0).strip())
    elif "connection refused" in text.lower():
        return "connection refused"
    elif found := _SSL_REASON.search(text) or _SOCKET_REASON.search(text):
        return found.group(1).strip()  # the reason inside urllib3's wrapping
    return text.splitlines()[0] if text else type(exc).__name__


_KIND_BY_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("credentials", ("authentication",)),
    ("untrusted", _TLS_UNTRUSTED),
    ("tls_to_plain", _TLS_TO_PLAIN),
    ("slow", ("read timed out",)),
    ("unreachable", _UNREACHABLE),
    ("plain_to_tls", _PLAIN_TO_TLS),
)
"""Without an error code (a connection failure): the kind by the driver's words, first match."""


def describe_error(url: StoreURL, exc: BaseException, doing: str) -> str:
    """A one-paragraph message for a ClickHouse failure (see `ClickHouseClient.error`): the
    same text from a server over HTTP as from chdb, with the fix for its error code."""
    lowered = str(exc).lower()
    kind = _KIND_BY_CODE.get(error_code(exc) or 0) or next(
        (kind for kind, words in _KIND_BY_WORDS if any(word in lowered for word in words)), ""
    )
    if kind == "database":
        fix = (
            f"database {url.database} does not exist: point the URL at the database the "
            "collector's clickhouse exporter writes (its `database:` setting)"
        )
    elif kind == "table":
        fix = (
            "a table is missing: start the OTel Collector with the clickhouse exporter "
            "(deploy/otel-collector.yaml) so it creates its tables, or name them with "
            "?traces_table=...&logs_table=..."
        )
    else:
        fix = _FIXES.get(
            kind, "check the URL and that the server is a ClickHouse the exporter writes"
        )
    return f"{url.label}: {doing} failed: {_server_text(exc)}. Fix: {fix}"
