"""Read-only SQL while the collector runs: statement check and JSON-safe results."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import re
import uuid
from typing import Any

import duckdb

from collector.errors import InvalidRequest

__all__ = ["check_read_only", "json_safe", "run_query"]

_READ_PRAGMAS = {
    "table_info",
    "show",
    "show_tables",
    "show_tables_expanded",
    "database_list",
    "database_size",
    "storage_info",
    "version",
    "platform",
    "functions",
    "collations",
    "metadata_info",
    "user_agent",
}
_PRAGMA_NAME = re.compile(r"^\s*pragma\s+([a-z_]+)", re.IGNORECASE)
_EXPLAIN = re.compile(r"^\s*explain\s+(analyze\s+)?", re.IGNORECASE)


def check_read_only(sql: str) -> None:
    """Raise InvalidRequest unless every statement only reads."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as error:
        raise InvalidRequest(f"cannot parse SQL: {error}") from None
    if not statements:
        raise InvalidRequest("no SQL statement given")
    for statement in statements:
        kind = statement.type
        if kind == duckdb.StatementType.SELECT:
            continue
        if kind == duckdb.StatementType.EXPLAIN:
            check_read_only(_EXPLAIN.sub("", statement.query, count=1))
            continue
        if kind == duckdb.StatementType.PRAGMA:
            match = _PRAGMA_NAME.match(statement.query)
            if match and match.group(1).lower() in _READ_PRAGMAS:
                continue
        raise InvalidRequest(
            f"only read-only queries are allowed (SELECT, WITH, DESCRIBE, SHOW, EXPLAIN, "
            f"SUMMARIZE, read PRAGMAs); refused a {kind.name} statement: "
            f"{statement.query.strip()[:80]!r}"
        )


def json_safe(value: Any) -> Any:
    """A JSON-serialisable version of a DuckDB result value."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return str(value)


def run_query(
    cursor: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None
) -> tuple[list[str], list[list[Any]]]:
    """Run a checked read-only query; returns (column names, JSON-safe rows)."""
    check_read_only(sql)
    try:
        result = cursor.execute(sql, params or None)
        columns = [column[0] for column in result.description or []]
        rows = [[json_safe(value) for value in row] for row in result.fetchall()]
    except duckdb.Error as error:
        raise InvalidRequest(f"query failed: {error}") from None
    return columns, rows
