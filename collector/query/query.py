"""Read-only SQL while the collector runs: guarded, capped, timed, JSON-safe results.

`run_query` is what `Collector.query` and `POST /tracesim/query` run: the
statement must pass `check_safe_for_endpoint` against the database's own
tables and views, it runs on a reader cursor (never the writer's
connection), a timer interrupts it after `timeout` seconds, and at most
`max_rows` rows come back (`QueryAnswer.truncated` says when more matched).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import threading
import uuid
from dataclasses import dataclass
from typing import Any

import duckdb
from tracesim.collector.errors import InvalidRequest
from tracesim.collector.query.sql_guard import check_safe_for_endpoint

__all__ = ["QueryAnswer", "database_tables", "json_safe", "run_query"]

_TABLES_SQL = """
    SELECT table_name FROM duckdb_tables() WHERE NOT internal AND schema_name = 'main'
    UNION
    SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'
"""


@dataclass(frozen=True)
class QueryAnswer:
    """The result of one query: column names, JSON-safe rows, and whether rows were cut."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool = False
    """True when the query matched more than the row limit; `rows` holds the first ones."""


def database_tables(cursor: duckdb.DuckDBPyConnection) -> set[str]:
    """Names of the user tables and views in the database (schema main)."""
    return {row[0] for row in cursor.execute(_TABLES_SQL).fetchall()}


MAX_ANSWER_DEPTH = 200
"""Deepest list/struct level an answer carries (JSON encoders stop near 255); a value
nested deeper is answered as a note saying how to read it."""


def json_safe(value: Any, depth: int = 0) -> Any:
    """A JSON-serialisable version of a DuckDB result value (lists and structs nested past
    `MAX_ANSWER_DEPTH` levels become a note: no recursion limit is reached)."""
    if depth > MAX_ANSWER_DEPTH:
        return (
            f"[value nested more than {MAX_ANSWER_DEPTH} levels deep: select it as text, "
            "e.g. CAST(x AS VARCHAR)]"
        )
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):  # HUGEINT / UHUGEINT past 64 bits: JSON readers lose them
        return value if -(2**63) <= value < 2**64 else str(value)
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
        return {str(k): json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, depth + 1) for v in value]
    return str(value)


def _size(value: Any) -> int:
    """Rough size of a JSON-safe value in an answer (bytes)."""
    if isinstance(value, str):
        return len(value) + 3
    if isinstance(value, (list, dict)):
        return len(repr(value))
    return 8


def _fetch(result: Any, max_rows: int | None, max_bytes: int | None) -> tuple[list[Any], bool]:
    """JSON-safe rows of a result up to `max_rows` and about `max_bytes`; whether cut. Rows
    are fetched a few at a time once they turn out large, so a huge answer is never held."""
    rows: list[list[Any]] = []
    size = 0
    step = 64
    while True:
        want = step if max_rows is None else min(step, max_rows + 1 - len(rows))
        chunk = result.fetchmany(want)
        for raw in chunk:
            row = [json_safe(value) for value in raw]
            size += sum(_size(value) for value in row) + 2
            if (max_rows is not None and len(rows) >= max_rows) or (
                max_bytes is not None and size > max_bytes
            ):
                return rows, True
            rows.append(row)
        if len(chunk) < want:
            return rows, False
        if max_bytes is not None:  # about as many rows as the budget left holds
            per_row = max(1, size // max(1, len(rows)))
            step = max(1, min(4096, (max_bytes - size) // per_row + 1))
        else:
            step = 4096


def run_query(
    cursor: duckdb.DuckDBPyConnection,
    sql: str,
    params: list[Any] | None = None,
    *,
    max_rows: int | None = None,
    max_bytes: int | None = None,
    timeout: float | None = None,
) -> QueryAnswer:
    """Run a guarded read-only query on `cursor` (a reader cursor, not the writer's).

    At most `max_rows` rows and about `max_bytes` bytes come back (`truncated` says when
    more matched). Raises RefusedQuery for a statement the guard refuses, InvalidRequest
    when DuckDB fails or `timeout` seconds pass (the query is interrupted then).
    """
    check_safe_for_endpoint(sql, allowed_tables=database_tables(cursor))
    timer = threading.Timer(timeout, cursor.interrupt) if timeout else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        result = cursor.execute(sql, params or None)
        columns = [column[0] for column in result.description or []]
        if result.description is None:
            rows, truncated = [], False
        else:
            rows, truncated = _fetch(result, max_rows, max_bytes)
    except duckdb.InterruptException:
        limit = f" after {timeout:g} s (the collector's query time limit)" if timeout else ""
        raise InvalidRequest(
            f"query stopped{limit} or by shutdown; narrow it with WHERE / LIMIT, or stop the "
            "collector and use `tracesim sql --db FILE`"
        ) from None
    except duckdb.Error as error:
        raise InvalidRequest(f"query failed: {error}") from None
    finally:
        if timer is not None:
            timer.cancel()
    return QueryAnswer(columns, rows, truncated)
