"""What tracesim understood of a capture (`tracesim inspect`): per service and scope, the
spans, the conventions detected, tool spans found and left unkeyed (and why), model calls
and tokens, and the tool-call fields it could not read.

A user pointing a new framework at tracesim sees at once what works. The SQL lives in
`evaluator.inspect.inspect_sql`, the data in `model`, the file-wide counts and warnings in
`evidence`, the text in `render`; this module walks the capture (and re-exports the rest).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls
from tracesim.evaluator.extract.audit import KINDS, Unexplained, settle
from tracesim.evaluator.extract.pairing.outcome import disagreeing_answers, unanswered_calls
from tracesim.evaluator.extract.readers.fields import tool_result
from tracesim.evaluator.extract.span import view_of
from tracesim.evaluator.inspect.evidence import (
    contentless_items,
    count_unkeyed_tool_spans,
    evidence_warning,
    file_evidence_counts,
    rows_of,
    tool_rows,
    uncounted_usage_items,
    unkeyed_tool_spans,
    unkeyed_warning,
    unread_turn_items,
)
from tracesim.evaluator.inspect.inspect_sql import INSPECT_SQL
from tracesim.evaluator.inspect.model import (
    CONVENTION_PREFIXES,
    GroupReport,
    Inspection,
    UnkeyedToolSpan,
)
from tracesim.evaluator.inspect.render import format_inspection
from tracesim.evaluator.load.load_logs import attach_logs, has_span_logs

__all__ = [
    "contentless_items",
    "CONVENTION_PREFIXES",
    "GroupReport",
    "Inspection",
    "UnkeyedToolSpan",
    "count_unkeyed_tool_spans",
    "file_evidence_counts",
    "evidence_warning",
    "format_inspection",
    "unkeyed_warning",
    "inspect_db",
    "unkeyed_tool_spans",
    "uncounted_usage_items",
    "unread_turn_items",
]


def inspect_db(con: Any, *, sql: Mapping[str, str] = INSPECT_SQL) -> Inspection:
    """Inspect the capture open on `con` (a DuckDB connection with the tracesim tables, or
    anything with its `execute` / `fetchall` / `description`, given its dialect's `sql`)."""
    groups: dict[tuple[Any, Any], GroupReport] = {}
    for row in rows_of(con, "groups", sql):
        key = (row["service_name"], row["scope_name"])
        groups[key] = GroupReport(*key, spans=row["spans"], unkeyed_spans=row["unkeyed"])
    for service, scope, calls, bare, tokens_in, tokens_out in con.execute(sql["models"]).fetchall():
        group = groups.setdefault((service, scope), GroupReport(service, scope))
        group.model_calls, group.model_calls_without_usage = calls, bare
        group.input_tokens, group.output_tokens = tokens_in, tokens_out
    seen: dict[tuple[Any, Any], set[str]] = defaultdict(set)
    for service, scope, key, _count in con.execute(sql["keys"]).fetchall():
        for prefix, label in CONVENTION_PREFIXES:
            if key.startswith(prefix):
                seen[(service, scope)].add(label)
    for key, labels in seen.items():
        if key in groups:
            groups[key].conventions = sorted(labels)
    unkeyed: list[UnkeyedToolSpan] = []
    unexplained: list[Unexplained] = []
    candidates = tool_rows(con, sql)
    # content in log records, as the evaluation reads it (DuckDB files: `logs`)
    if candidates and sql is INSPECT_SQL and has_span_logs(con):
        attach_logs(con, [row for rows in candidates.values() for row in rows])
    for turns in _conversations(candidates):
        audit: list[Unexplained] = []
        calls: list[tuple[dict[str, Any], Any]] = []
        for rows, context in turns:
            by_span = {row["span_id"]: row for row in rows}
            found = extract_tool_calls(rows, context=context, audit=audit)
            calls.extend((by_span, call) for call in found)
        unexplained.extend(settle(audit, (call for _, call in calls)))
        if calls:
            turns_rows = {id(by_span): by_span for by_span, _ in calls}.values()
            traces = {k: row["trace_id"] for spans in turns_rows for k, row in spans.items()}
            unexplained.extend(unanswered_calls((call for _, call in calls), traces))
            # what the model was told against what the tool span says (inspect only: it
            # reads every model input's answers, which evaluate need not parse)
            responses = turns[0][1].responses()
            by_id = {k: row for spans in turns_rows for k, row in spans.items()}
            unexplained.extend(
                disagreeing_answers(
                    (call for _, call in calls),
                    responses,
                    traces,
                    lambda span_id, by_id=by_id: _span_output(by_id.get(span_id)),
                )
            )
        for by_span, call in calls:
            row = by_span.get(call.span_id or "")
            if row is None:
                continue
            group = groups.setdefault(
                (row["service_name"], row["scope_name"]),
                GroupReport(row["service_name"], row["scope_name"]),
            )
            group.tool_spans += 1
            missing = []
            if not call.id:
                missing.append("id")
            if not call.arguments:
                missing.append("arguments")
            if call.result is None and call.error is None:
                missing.append("result")
            for name in missing:
                group.unread[name] = group.unread.get(name, 0) + 1
            if row["chat_id"] is None:
                group.unkeyed_tool_spans += 1
                unkeyed.append(UnkeyedToolSpan.of(row))
    unexplained.extend(unread_turn_items(con, sql))
    unexplained.extend(contentless_items(con, sql))
    unexplained.extend(uncounted_usage_items(con, sql))
    traces = [row[0] for row in con.execute(sql["unkeyed_traces"]).fetchall()]
    order = {kind: index for index, kind in enumerate(KINDS)}
    unexplained.sort(key=lambda item: (order.get(item.kind, len(order)), item.trace_id))
    return Inspection(sorted(groups.values(), key=_order), unkeyed, unexplained, traces)


def _span_output(row: dict[str, Any] | None) -> str | None:
    """The result text a tool span's row holds, if any (None for an unreadable span)."""
    if row is None:
        return None
    try:
        return tool_result(view_of(row).attributes)
    except Exception:  # noqa: BLE001 - an unreadable span has no output to compare
        return None


def _conversations(
    candidates: dict[str, list[dict[str, Any]]],
) -> list[list[tuple[list[dict[str, Any]], ConversationSpans]]]:
    """The candidate rows as the evaluation sees them: per conversation (chat id, else the
    trace), its turns (turn id, else the trace), each with the conversation as context."""
    chats: dict[Any, dict[Any, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for trace_id, rows in candidates.items():
        for row in rows:
            chat = row["chat_id"] if row["chat_id"] is not None else trace_id
            turn = row["turn_id"] if row["turn_id"] is not None else trace_id
            chats[chat][turn].append(row)
    conversations = []
    for by_turn in chats.values():
        context = ConversationSpans([row for rows in by_turn.values() for row in rows])
        conversations.append([(rows, context) for rows in by_turn.values()])
    return conversations


def _order(group: GroupReport) -> tuple[str, str]:
    return (group.service_name or "", group.scope_name or "")
