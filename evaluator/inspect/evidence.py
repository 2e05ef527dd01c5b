"""File-wide evidence counts and the warnings `tracesim evaluate` prints from them: tool
spans no conversation key reached, turns whose payloads no convention reads, token usage no
counted model call accounts for (SPEC §5: nothing dropped in silence)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from tracesim.evaluator.extract.audit import (
    KINDS,
    UNCOUNTED_USAGE,
    WARNED_KINDS,
    Unexplained,
    count_kinds,
)
from tracesim.evaluator.extract.contentless import contentless_requests
from tracesim.evaluator.extract.readers.fields import is_tool_span
from tracesim.evaluator.extract.span import view_of
from tracesim.evaluator.extract.unread import unread_turns
from tracesim.evaluator.inspect.inspect_sql import INSPECT_SQL
from tracesim.evaluator.inspect.model import UnkeyedToolSpan
from tracesim.evaluator.load.load_logs import attach_logs, has_span_logs

__all__ = [
    "contentless_items",
    "count_unkeyed_tool_spans",
    "evidence_warning",
    "file_evidence_counts",
    "rows_of",
    "tool_rows",
    "uncounted_usage_items",
    "unkeyed_tool_spans",
    "unkeyed_warning",
    "unread_turn_items",
]


def rows_of(con: Any, name: str, sql: Mapping[str, str] = INSPECT_SQL) -> list[dict[str, Any]]:
    """The rows of the statement `name` of `sql` as dicts."""
    cursor = con.execute(sql[name])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def tool_rows(con: Any, sql: Mapping[str, str] = INSPECT_SQL) -> dict[str, list[dict[str, Any]]]:
    """Candidate spans by trace_id."""
    by_trace: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows_of(con, "tool_candidates", sql):
        by_trace[row["trace_id"]].append(row)
    return by_trace


def _is_tool(row: dict[str, Any]) -> bool:
    try:
        return is_tool_span(view_of(row))
    except Exception:  # noqa: BLE001 - an unreadable span is not counted
        return False


def unkeyed_tool_spans(con: Any) -> list[UnkeyedToolSpan]:
    """Tool spans stored without a conversation key (what `tracesim evaluate` warns about)."""
    found = []
    for rows in tool_rows(con).values():
        for row in rows:
            if row["chat_id"] is None and _is_tool(row):
                found.append(UnkeyedToolSpan.of(row))
    return found


def count_unkeyed_tool_spans(con: Any) -> int:
    """How many tool spans the collector could not key (from the hot columns: fast)."""
    return int(con.execute(INSPECT_SQL["unkeyed_tool_spans"]).fetchall()[0][0])


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


def contentless_items(
    con: Any,
    sql: Mapping[str, str] = INSPECT_SQL,
    *,
    attach: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[Unexplained]:
    """Model calls recorded without content in conversations (chat id, else trace: unkeyed
    traces too) where no call is found (`extract.contentless`). `attach` appends the
    candidate spans' log records to their events (default: DuckDB's `logs` table, for
    `INSPECT_SQL`)."""
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


def file_evidence_counts(con: Any) -> dict[str, int]:
    """What `tracesim evaluate` counts over the whole file, by kind (non-zero only): the
    items of `unread_turn_items`, `contentless_items` and `uncounted_usage_items`."""
    return count_kinds(
        [*unread_turn_items(con), *contentless_items(con), *uncounted_usage_items(con)]
    )


def unkeyed_warning(count: int, db_path: str) -> str | None:
    """The warning `tracesim evaluate` prints for `count` unkeyed tool spans (None for 0)."""
    if not count:
        return None
    return (
        f"warning: {count} tool span(s) carry no conversation key (no tracesim.chat_id, "
        "gen_ai.conversation.id, session.id or other conversation id on any span of their "
        "trace); each such trace was evaluated as a conversation of its own (chat_id = trace "
        f"id). See `tracesim inspect --db {db_path}`."
    )


def evidence_warning(counts: Mapping[str, int], db_path: str) -> str | None:
    """The one-line warning `tracesim evaluate` prints when tool evidence did not become a
    call (`evaluator.extract.audit`; None when nothing it warns about was found)."""
    warned = [(KINDS[kind], counts[kind]) for kind in WARNED_KINDS if counts.get(kind)]
    if not warned:
        return None
    total = sum(n for _, n in warned)
    parts = ", ".join(f"{n} {what}" for what, n in warned)
    return (
        f"warning: {total} piece(s) of tool evidence did not become a tool call ({parts}); "
        f"the calls scored may be incomplete. See `tracesim inspect --db {db_path}`."
    )
