"""The reading commands' queries in DuckDB's dialect, on any DuckDB-shaped connection: a
file opened here (`DuckDBStore`) or a running collector's (`LiveStore`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tracesim.evaluator.store.base import QueryRows, StoreError

__all__ = [
    "NEWEST_RUNS_SQL",
    "inspect_connection",
    "newest_runs",
    "run_user_query",
    "unkeyed_count",
]

NEWEST_RUNS_SQL = (
    "SELECT run_id FROM conversations WHERE run_id IS NOT NULL "
    "GROUP BY run_id ORDER BY max(start_time) DESC NULLS LAST, run_id DESC"
)


def newest_runs(con: Any) -> list[str]:
    """The run_ids of the conversations, newest first (by their latest start time)."""
    present = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'conversations'"
    ).fetchall()[0][0]
    return [row[0] for row in con.execute(NEWEST_RUNS_SQL).fetchall()] if present else []


def unkeyed_count(con: Any) -> int:
    """Tool spans the collector could not key (`evaluator.inspect`)."""
    from tracesim.evaluator.inspect.inspect import count_unkeyed_tool_spans

    return count_unkeyed_tool_spans(con)


def inspect_connection(con: Any, *, label: str, own_views: bool) -> Any:
    """`inspect_db` on `con`; `own_views` creates this version's views as temporary ones
    first (a file written by an older version). StoreError when it is not a tracesim file."""
    import duckdb
    from tracesim.evaluator.inspect.inspect import inspect_db
    from tracesim.schemas.views import create_views

    try:
        if own_views:
            create_views(con, temporary=True)
        return inspect_db(con)
    except duckdb.CatalogException as exc:
        raise StoreError(f"{label} is not a tracesim file ({exc})") from None


def _tables_hint(con: Any) -> str:
    names = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT table_name FROM information_schema.tables ORDER BY table_name"
        ).fetchall()
    ]
    return "tables and views: " + ", ".join(names) if names else "the file holds no tables"


def run_user_query(
    con: Any, sql: str, *, label: str, check: Callable[[str], None] | None
) -> QueryRows:
    """A user's read-only query on a DuckDB file's connection; StoreError on failure."""
    import duckdb
    from tracesim.schemas.views import VIEW_NAMES, create_views

    if check is not None:
        check(sql)
    present = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views()").fetchall()}
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    if not set(VIEW_NAMES) <= present and {"spans", "tool_calls", "scores", "runs"} <= tables:
        create_views(con, temporary=True)  # a file written before the views existed
    try:
        cur = con.execute(sql)
    except duckdb.CatalogException as exc:
        raise StoreError(f"{exc}\n\n{label}: {_tables_hint(con)}") from exc
    except duckdb.Error as exc:
        raise StoreError(f"query failed: {exc}") from exc
    if cur.description is None:
        return QueryRows([], [], label)
    columns = [d[0] for d in cur.description]
    return QueryRows(columns, [list(r) for r in cur.fetchall()], label)
