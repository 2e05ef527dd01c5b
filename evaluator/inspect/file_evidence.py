"""Tool evidence found over the whole file rather than per conversation (SPEC §5): turns no
convention reads (`extract.unread`), model calls recorded without content
(`extract.contentless`: unkeyed traces included, whatever the evaluation selected) and token
usage no model call accounts for. `tracesim evaluate` counts them, `inspect` lists them; the
stores run their own dialect's statements (`inspect_sql`, `store.clickhouse_inspect`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tracesim.evaluator.extract.audit import UNCOUNTED_USAGE, Unexplained, count_kinds
from tracesim.evaluator.extract.contentless import contentless_requests
from tracesim.evaluator.extract.unread import unread_turns
from tracesim.evaluator.inspect.inspect_sql import INSPECT_SQL
from tracesim.evaluator.load.load_logs import attach_logs, has_span_logs

__all__ = [
    "contentless_items",
    "file_evidence_counts",
    "rows_of",
    "uncounted_usage_items",
    "unread_turn_items",
]


def rows_of(con: Any, name: str, sql: Mapping[str, str] = INSPECT_SQL) -> list[dict[str, Any]]:
    """The rows of statement `name` of `sql`, as dicts."""
    cursor = con.execute(sql[name])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def unread_turn_items(con: Any, sql: Mapping[str, str] = INSPECT_SQL) -> list[Unexplained]:
    """Turns whose spans no convention tracesim reads carry payloads (`extract.unread`)."""
    if "unread_candidates" not in sql:
        return []
    read = [tuple(row) for row in con.execute(sql["read_turns"]).fetchall()]
    return unread_turns(rows_of(con, "unread_candidates", sql), read=read)


def uncounted_usage_items(con: Any, sql: Mapping[str, str] = INSPECT_SQL) -> list[Unexplained]:
    """Spans whose token usage no counted model call accounts for (`inspect_sql`): an
    inference span no convention recognised, so its tokens are missing from the counts."""
    if "uncounted_usage" not in sql:
        return []
    return [
        Unexplained(
            UNCOUNTED_USAGE,
            row["trace_id"],
            row["span_id"],
            row["name"],
            f"{row['input_tokens'] or 0} input / {row['output_tokens'] or 0} output tokens",
        )
        for row in rows_of(con, "uncounted_usage", sql)
    ]


def file_evidence_counts(con: Any) -> dict[str, int]:
    """What `tracesim evaluate` counts over the whole file, by kind (non-zero only): the
    items of `unread_turn_items`, `contentless_items` and `uncounted_usage_items`."""
    return count_kinds(
        [*unread_turn_items(con), *contentless_items(con), *uncounted_usage_items(con)]
    )


def contentless_items(
    con: Any,
    sql: Mapping[str, str] = INSPECT_SQL,
    *,
    attach: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[Unexplained]:
    """Model calls recorded without content in conversations where no call is found
    (`extract.contentless`). `attach` appends the candidate spans' log records to their
    events (default: DuckDB's `logs` table, for `INSPECT_SQL`)."""
    if "contentless_candidates" not in sql:
        return []
    rows = rows_of(con, "contentless_candidates", sql)
    if not rows:
        return []
    if attach is not None:
        attach(rows)
    elif sql is INSPECT_SQL and has_span_logs(con):
        attach_logs(con, rows)
    return contentless_requests(rows)
