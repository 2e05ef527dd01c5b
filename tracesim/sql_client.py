"""Read-only SQL over any store `--db` names (`evaluator.store.open_store`): a DuckDB file,
the running collector that holds it, or a ClickHouse store.

`run_query(sql, db_path=..., endpoint=..., token=...)` refuses any statement
that does not only read (`collector.check_read_only`, the one statement check
shared with the collector) before a DuckDB file runs it read-only. When a
running `tracesim collect` holds the file, the store sends the query to that
collector's capped endpoint (`POST /tracesim/query`; `truncated` when its row
limit cut the rows), after the collector proved it serves this very file; a
file locked by anything else is an error, never another file's rows. The file
path may read files and call any function: it runs with the user's own
privileges; the endpoint refuses that (`collector.check_safe_for_endpoint`).
ClickHouse runs it with `readonly = 2`. Every failure is a `SqlError` whose
message says what to do.
"""

from __future__ import annotations

from pathlib import Path

from tracesim.collector import RefusedQuery
from tracesim.collector import check_read_only as _check_read_only
from tracesim.evaluator.store import QueryRows, StoreError, open_store
from tracesim.evaluator.store.live import DEFAULT_ENDPOINT

__all__ = ["DEFAULT_ENDPOINT", "QueryResult", "SqlError", "check_read_only", "run_query"]

QueryResult = QueryRows
"""Column names and rows of one query, what answered (`source`) and `truncated`."""


class SqlError(Exception):
    """A query that could not run; the message is meant for the user as is."""


def check_read_only(sql: str) -> None:
    """Raise SqlError unless `sql` is one statement that only reads (the collector's check)."""
    try:
        _check_read_only(sql)
    except RefusedQuery as exc:
        raise SqlError(str(exc)) from exc


def run_query(
    sql: str,
    *,
    db_path: str | Path,
    endpoint: str | None = None,
    token: str | None = None,
) -> QueryResult:
    """Run a read-only query on the store `db_path` names (see the module's docstring)."""
    try:
        with open_store(db_path, read_only=True, endpoint=endpoint, token=token) as store:
            return store.query(sql, check=check_read_only)
    except StoreError as exc:
        raise SqlError(str(exc)) from None
