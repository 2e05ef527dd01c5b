"""What `--db` names: a DuckDB path, `clickhouse://user:pass@host:8123/db` or `chdb://DIR`.

Parsing is pure; credentials may come from the URL or from the environment
(`CLICKHOUSE_USER`, `CLICKHOUSE_PASSWORD`); `?secure=1` (or `clickhouses://`)
asks for TLS, `?ca_cert=PEM` trusts a private CA (`?verify=0` skips the check),
`?traces_table=` / `?logs_table=` name the exporter's tables.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = [
    "DEFAULT_DATABASE",
    "DEFAULT_LOGS_TABLE",
    "DEFAULT_TRACES_TABLE",
    "StoreURL",
    "is_store_url",
    "parse_store_url",
    "resolve_store",
]

DEFAULT_DATABASE = "otel"
"""The database the deploy/ collector config writes to (the exporter's `database:`)."""
DEFAULT_TRACES_TABLE = "otel_traces"
DEFAULT_LOGS_TABLE = "otel_logs"
_SCHEMES = ("clickhouse", "clickhouses", "chdb")
_TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class StoreURL:
    """A parsed `--db` value."""

    kind: str
    """`duckdb`, `clickhouse` (a server over HTTP) or `chdb` (a local data directory)."""
    raw: str
    path: str = ""
    """DuckDB file or chdb data directory."""
    host: str = "localhost"
    port: int = 8123
    username: str = "default"
    password: str = field(default="", repr=False)
    database: str = DEFAULT_DATABASE
    secure: bool = False
    ca_cert: str = ""
    """PEM file of the CA that signed the server's certificate; empty: the system's CAs."""
    verify: bool = True
    """False (`?verify=0`) accepts any certificate: for a test server, never production."""
    traces_table: str = DEFAULT_TRACES_TABLE
    logs_table: str = DEFAULT_LOGS_TABLE

    @property
    def label(self) -> str:
        """The URL without its password, for messages."""
        if self.kind == "duckdb":
            return self.path
        if self.kind == "chdb":
            return f"chdb://{self.path} (database {self.database})"
        scheme = "https" if self.secure else "http"
        return f"clickhouse://{self.username}@{self.host}:{self.port}/{self.database} ({scheme})"


def is_store_url(value: str) -> bool:
    """True when `value` names a ClickHouse store rather than a DuckDB file."""
    return str(value).split("://", 1)[0].lower() in _SCHEMES and "://" in str(value)


def _one(query: Mapping[str, list[str]], key: str, default: str) -> str:
    values = query.get(key)
    return values[-1] if values else default


def parse_store_url(value: str, *, env: Mapping[str, str] | None = None) -> StoreURL:
    """Parse a `--db` value; ValueError with the expected form when it is malformed."""
    env = os.environ if env is None else env
    text = str(value)
    if not is_store_url(text):
        return StoreURL(kind="duckdb", raw=text, path=text)
    parts = urlsplit(text)
    query = parse_qs(parts.query)
    names = {
        "database": _one(query, "database", DEFAULT_DATABASE),
        "traces_table": _one(query, "traces_table", DEFAULT_TRACES_TABLE),
        "logs_table": _one(query, "logs_table", DEFAULT_LOGS_TABLE),
    }
    if parts.scheme.lower() == "chdb":
        path = unquote(parts.netloc + parts.path)
        if not path:
            raise ValueError(f"{text}: give the data directory, e.g. chdb:///var/lib/tracesim")
        return StoreURL(kind="chdb", raw=text, path=path, **names)
    database = parts.path.strip("/") or names["database"]
    names["database"] = database
    secure = parts.scheme.lower() == "clickhouses" or _one(query, "secure", "") in _TRUE
    try:
        port = parts.port or (8443 if secure else 8123)
    except ValueError as exc:
        raise ValueError(f"{text}: the port is not a number ({exc})") from None
    return StoreURL(
        kind="clickhouse",
        raw=text,
        host=parts.hostname or "localhost",
        port=port,
        username=unquote(parts.username)
        if parts.username
        else env.get("CLICKHOUSE_USER", "default"),
        password=(
            unquote(parts.password)
            if parts.password is not None
            else env.get("CLICKHOUSE_PASSWORD", "")
        ),
        secure=secure,
        ca_cert=_one(query, "ca_cert", ""),
        verify=_one(query, "verify", "1").lower() not in ("0", "false", "no", "off"),
        **names,
    )


def resolve_store(value: str, base_dir: str | Path | None) -> str:
    """`value` with a relative DuckDB path taken from `base_dir` (a config file's folder);
    URLs and absolute paths as given."""
    if base_dir is None or is_store_url(value) or Path(value).is_absolute():
        return value
    return str(Path(base_dir) / value)
