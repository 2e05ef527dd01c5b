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

from collector.errors import InvalidRequest
from collector.sql_guard import check_safe_for_endpoint

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
    cursor: duckdb.DuckDBPyConnection,
    sql: str,
    params: list[Any] | None = None,
    *,
    max_rows: int | None = None,
    timeout: float | None = None,
) -> QueryAnswer:
    """Run a guarded read-only query on `cursor` (a reader cursor, not the writer's).

    Raises RefusedQuery for a statement the guard refuses, InvalidRequest when
    DuckDB fails or `timeout` seconds pass (the query is interrupted then).
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
            fetched: list[Any] = []
        elif max_rows is None:
            fetched = result.fetchall()
        else:
            fetched = result.fetchmany(max_rows + 1)
    except duckdb.InterruptException:
        limit = f" after {timeout:g} s (the collector's query time limit)" if timeout else ""
        raise InvalidRequest(
            f"query stopped{limit}; narrow it with WHERE / LIMIT, or stop the collector and "
            "use `tracesim sql --db FILE`"
        ) from None
    except duckdb.Error as error:
        raise InvalidRequest(f"query failed: {error}") from None
    finally:
        if timer is not None:
            timer.cancel()
    truncated = max_rows is not None and len(fetched) > max_rows
    if truncated:
        fetched = fetched[:max_rows]
    rows = [[json_safe(value) for value in row] for row in fetched]
    return QueryAnswer(columns, rows, truncated)
