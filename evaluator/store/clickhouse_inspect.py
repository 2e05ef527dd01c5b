"""`tracesim inspect` on a ClickHouse store: its statements in ClickHouse SQL and a
cursor-shaped adapter, so `evaluator.inspect.inspect.inspect_db` runs unchanged on the views."""

from __future__ import annotations

import logging
from typing import Any

from tracesim.evaluator.extract.audit import KINDS, UNCOUNTED_USAGE, count_kinds
from tracesim.evaluator.extract.unread import PAYLOAD_KEY_PATTERN
from tracesim.evaluator.inspect.evidence import (
    contentless_items,
    uncounted_usage_items,
    unread_turn_items,
)
from tracesim.evaluator.inspect.inspect import Inspection, inspect_db
from tracesim.evaluator.inspect.inspect_sql import (
    CONTENTLESS_COLUMNS,
    INSPECT_SQL,
    RUN_SPAN,
    contentless_sql,
)
from tracesim.evaluator.store.base import StoreError
from tracesim.evaluator.store.clickhouse_readonly import prepare_for_reading
from tracesim.evaluator.store.clickhouse_rows import flatten_json_span
from tracesim.evaluator.store.clickhouse_store import ClickHouseStore, _append_logs

log = logging.getLogger(__name__)

_CANDIDATES = "contentless_candidates"

UNCHECKED_USAGE = "unchecked_usage"
"""`store_evidence`'s count when the server could not run the uncounted-usage walk (1):
the evaluation says usage was not checked rather than that none was uncounted."""

__all__ = ["CLICKHOUSE_INSPECT_SQL", "inspect_store", "store_evidence"]

_NO_PAYLOAD = (
    f"NOT arrayExists(k -> match(lower(k), '{PAYLOAD_KEY_PATTERN}'), "
    "JSONExtractKeys(ifNull(attributes, '{}')))"
)

CLICKHOUSE_INSPECT_SQL: dict[str, str] = {
    # `unkeyed_tool_spans` and `tool_candidates` read the same in both; `uncounted_usage`
    # (a recursive walk) is DuckDB's only for now
    **{name: sql for name, sql in INSPECT_SQL.items() if name != "uncounted_usage"},
    # a prefilter (JSON-schema attributes nest dotted keys: their top keys pass, and
    # `extract.contentless` reads the flattened row)
    "contentless_candidates": contentless_sql(_NO_PAYLOAD),
    "groups": f"""
        SELECT service_name, scope_name, count() AS spans,
               countIf(chat_id IS NULL AND name != '{RUN_SPAN}') AS unkeyed
        FROM spans GROUP BY ALL ORDER BY ALL
    """,
    "models": """
        SELECT s.service_name, s.scope_name, count() AS calls,
               countIf(l.input_tokens IS NULL AND l.output_tokens IS NULL) AS without_usage,
               sum(l.input_tokens), sum(l.output_tokens)
        FROM llm_calls AS l INNER JOIN spans AS s USING (trace_id, span_id)
        GROUP BY ALL ORDER BY ALL
    """,
    "keys": """
        SELECT service_name, scope_name, key, count() FROM (
            SELECT service_name, scope_name, arrayJoin(JSONExtractKeys(attributes)) AS key
            FROM spans
        ) GROUP BY ALL
    """,
}
"""`INSPECT_SQL` in ClickHouse's dialect, over the store's views."""


class _Cursor:
    """The slice of a DB-API cursor `inspect_db` uses, over a ClickHouse store."""

    def __init__(self, store: ClickHouseStore) -> None:
        self._store = store
        self._rows: list[tuple[Any, ...]] = []
        self.description: list[tuple[str]] = []

    def execute(self, sql: str) -> _Cursor:
        table = self._store._c.query(sql)
        names = list(table.column_names)
        rows = [
            dict(zip(names, values, strict=True))
            for values in zip(*(c.to_pylist() for c in table.columns), strict=True)
        ]
        if self._store.schema.variant == "json" and "attributes" in names:
            for row in rows:
                flatten_json_span(row)
        self.description = [(name,) for name in names]
        self._rows = [tuple(row[n] for n in names) for row in rows]
        return self

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._rows

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None


def _with_logs(store: ClickHouseStore) -> dict[str, str]:
    """`CLICKHOUSE_INSPECT_SQL` whose content-less candidates carry their spans' log
    records (`log_events`) when the store has any that may hold messages."""
    if not store._has_span_logs():
        return CLICKHOUSE_INSPECT_SQL
    select = ", ".join(f"r.{c.strip()}" for c in CONTENTLESS_COLUMNS.split(","))
    candidates = contentless_sql(
        _NO_PAYLOAD,
        select=f"{select}, l.log_events AS log_events",
        tail=f"AS r {store._logs_join()}",
    )
    return {**CLICKHOUSE_INSPECT_SQL, "contentless_candidates": candidates}


def _attach(store: ClickHouseStore) -> Any:
    """Appends each candidate row's `log_events` to its events (as the evaluation does)."""
    json_logs = bool(store.schema.logs_json)

    def attach(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            _append_logs(row, json_logs=json_logs)

    return attach


def _contentless(store: ClickHouseStore, cursor: _Cursor) -> list[Any]:
    return contentless_items(cursor, _with_logs(store), attach=_attach(store))


def inspect_store(store: ClickHouseStore) -> Inspection:
    """What tracesim understood of the spans a ClickHouse store holds."""
    prepare_for_reading(store)
    store._c.use_database()
    sql = {name: q for name, q in CLICKHOUSE_INSPECT_SQL.items() if name != _CANDIDATES}
    inspection = inspect_db(_Cursor(store), sql=sql)
    inspection.unexplained.extend(_contentless(store, _Cursor(store)))
    inspection.unexplained.sort(key=_order)
    return inspection


def store_evidence(store: ClickHouseStore) -> dict[str, int]:
    """`EvalStore.file_evidence` on ClickHouse: unread turns, and uncounted usage with
    DuckDB's own statement (a recursive walk and a correlated subquery: ClickHouse 25.x
    runs it); a server that cannot gives `{UNCHECKED_USAGE: 1}` and a logged warning, so
    the evaluation is never silently quieter than on DuckDB."""
    store._c.use_database()
    cursor = _Cursor(store)
    items = unread_turn_items(cursor, CLICKHOUSE_INSPECT_SQL)
    items.extend(_contentless(store, cursor))
    counts = count_kinds(items)
    try:
        usage = uncounted_usage_items(cursor, {"uncounted_usage": INSPECT_SQL[UNCOUNTED_USAGE]})
    except StoreError as exc:
        log.warning(
            "%s: uncounted token usage not checked (the server cannot run the walk: %s)",
            store.label,
            str(exc).splitlines()[0][:200],
        )
        return {**counts, UNCHECKED_USAGE: 1}
    counts.update(count_kinds(usage))
    return counts


def _order(item: Any) -> tuple[int, str]:
    """`inspect_db`'s order of unexplained items: by kind, then trace."""
    order = list(KINDS)
    return (order.index(item.kind) if item.kind in KINDS else len(order), item.trace_id)
