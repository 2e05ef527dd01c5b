"""Read-only SQL over a tracesim DuckDB file, or over a running collector's query endpoint.

`run_query(sql, db_path=..., endpoint=...)` refuses any statement that does
not only read (`collector.check_read_only`, the one statement check shared
with the collector), opens the file read-only, and, when a running `tracesim
collect` holds the file's lock, sends the query to the collector instead:
`POST {endpoint}/tracesim/query` with `{"sql": ...}`, answered `{"columns":
[...], "rows": [[...]]}` plus `"truncated": true` when the collector's row
limit cut the rows (bearer token if given). The file path may read files and
call any function: it runs with the user's own privileges; the endpoint
refuses that (`collector.check_safe_for_endpoint`). Every failure is a
`SqlError` whose message says what to do.

Which collector: `endpoint` when given; otherwise the one the file's sidecar
`<db>.collector.json` names (written by a running collector, so a non-default
port is found), unless it does not answer (a stale sidecar left by a crash);
then DEFAULT_ENDPOINT.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from tracesim.collector import RefusedQuery, read_sidecar, sidecar_path
from tracesim.collector import check_read_only as _check_read_only
from tracesim.schemas.views import VIEW_NAMES, create_views

__all__ = ["DEFAULT_ENDPOINT", "QueryResult", "SqlError", "check_read_only", "run_query"]

DEFAULT_ENDPOINT = "http://127.0.0.1:4318"
"""The collector's OTLP/HTTP address, which also serves `/tracesim/query`."""


class SqlError(Exception):
    """A query that could not run; the message is meant for the user as is."""


class _Unreachable(SqlError):
    """Nothing answered at the endpoint (no connection)."""


@dataclass
class QueryResult:
    """Column names and rows of one query."""

    columns: list[str]
    rows: list[list[Any]]
    source: str  # the file path or the endpoint URL that answered
    truncated: bool = False  # the collector's row limit cut the rows


def check_read_only(sql: str) -> None:
    """Raise SqlError unless `sql` is one statement that only reads (the collector's check)."""
    try:
        _check_read_only(sql)
    except RefusedQuery as exc:
        raise SqlError(str(exc)) from exc


def _is_lock_error(exc: duckdb.Error) -> bool:
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


def _tables_hint(con: duckdb.DuckDBPyConnection) -> str:
    names = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT table_name FROM information_schema.tables ORDER BY table_name"
        ).fetchall()
    ]
    return "tables and views: " + ", ".join(names) if names else "the file holds no tables"


def _query_file(db_path: Path, sql: str) -> QueryResult:
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        present = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views()").fetchall()}
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        if not set(VIEW_NAMES) <= present and {"spans", "tool_calls", "scores", "runs"} <= tables:
            create_views(con, temporary=True)  # a file written before the views existed
        try:
            cur = con.execute(sql)
        except duckdb.CatalogException as exc:
            raise SqlError(f"{exc}\n\n{db_path}: {_tables_hint(con)}") from exc
        except duckdb.Error as exc:
            raise SqlError(f"query failed: {exc}") from exc
        if cur.description is None:
            return QueryResult([], [], str(db_path))
        columns = [d[0] for d in cur.description]
        return QueryResult(columns, [list(r) for r in cur.fetchall()], str(db_path))
    finally:
        con.close()


def _query_endpoint(endpoint: str, sql: str, token: str | None) -> QueryResult:
    import httpx

    url = endpoint.rstrip("/") + "/tracesim/query"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.post(url, json={"sql": sql}, headers=headers, timeout=60.0)
    except httpx.ConnectError as exc:
        raise _Unreachable(
            f"could not reach the collector at {url}: {exc}. Is `tracesim collect` running "
            "there? Pass its address with --endpoint."
        ) from exc
    except httpx.HTTPError as exc:
        raise SqlError(
            f"could not reach the collector at {url}: {exc}. Is `tracesim collect` running "
            "there? Pass its address with --endpoint."
        ) from exc
    if response.status_code in (401, 403):
        raise SqlError(
            f"{url} refused the query (HTTP {response.status_code}): give the collector's "
            "token with --auth-token-env VAR (the name of an environment variable holding it)."
        )
    if response.status_code >= 400:
        try:
            document = response.json()
            detail = document.get("message") or document.get("error") or response.text
        except (ValueError, AttributeError):
            detail = response.text
        raise SqlError(f"{url} answered HTTP {response.status_code}: {detail}")
    body = response.json()
    return QueryResult(
        list(body.get("columns", [])),
        [list(r) for r in body.get("rows", [])],
        url,
        truncated=bool(body.get("truncated", False)),
    )


def _sidecar_endpoint(db_path: Path) -> str | None:
    """The HTTP endpoint the file's sidecar names (None when there is no usable sidecar)."""
    document = read_sidecar(db_path)
    endpoint = document.get("http_endpoint") if document else None
    return endpoint if isinstance(endpoint, str) and endpoint else None


def _query_collector(db_path: Path, sql: str, token: str | None) -> QueryResult:
    """Query the collector named by the sidecar, falling back to DEFAULT_ENDPOINT when it is
    stale (nothing answers there)."""
    endpoint = _sidecar_endpoint(db_path)
    if endpoint is not None and endpoint.rstrip("/") != DEFAULT_ENDPOINT:
        try:
            return _query_endpoint(endpoint, sql, token)
        except _Unreachable:
            pass  # left by a collector that did not shut down cleanly
    try:
        return _query_endpoint(DEFAULT_ENDPOINT, sql, token)
    except _Unreachable as exc:
        stale = f" ({sidecar_path(db_path)} names {endpoint}, which does not answer)"
        raise SqlError(
            f"{db_path} is locked by another process, and no collector answered at "
            f"{DEFAULT_ENDPOINT}{stale if endpoint else ''}. Pass the collector's address "
            "with --endpoint."
        ) from exc


def run_query(
    sql: str,
    *,
    db_path: str | Path,
    endpoint: str | None = None,
    token: str | None = None,
) -> QueryResult:
    """Run a read-only query on `db_path`, or through the collector that locks the file:
    `endpoint` when given, else the one the file's sidecar names, else DEFAULT_ENDPOINT.
    A `clickhouse://` or `chdb://` URL is queried there (`tracesim.sql_clickhouse`)."""
    if "://" in str(db_path):
        from tracesim.sql_clickhouse import query_clickhouse

        return query_clickhouse(str(db_path), sql)
    check_read_only(sql)
    db_path = Path(db_path)
    if not db_path.exists():
        raise SqlError(
            f"{db_path}: no such DuckDB file. Create one with `tracesim run config.yaml` or "
            "`tracesim collect --db PATH`, or point --db (or TRACESIM_DB) at an existing file."
        )
    try:
        return _query_file(db_path, sql)
    except duckdb.Error as exc:
        if not _is_lock_error(exc):
            raise SqlError(f"{db_path}: {exc}") from exc
        if not endpoint:
            return _query_collector(db_path, sql, token)
        return _query_endpoint(endpoint, sql, token)
