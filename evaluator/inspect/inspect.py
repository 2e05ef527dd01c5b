"""What tracesim understood of a capture (`tracesim inspect`): per service and scope, the
spans, the conventions detected, tool spans found and left unkeyed (and why), model calls
and tokens, and the tool-call fields it could not read.

A user pointing a new framework at tracesim sees at once what works. The SQL lives in
`evaluator.inspect.inspect_sql`; this module is the logic over its rows and the plain-text
rendering (no markup: stored text is printed as it is).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls
from tracesim.evaluator.extract.audit import (
    KINDS,
    RESULT_WITHOUT_CALL,
    WARNED_KINDS,
    Unexplained,
    settle,
)
from tracesim.evaluator.extract.pairing.outcome import disagreeing_answers, unanswered_calls
from tracesim.evaluator.extract.readers.fields import is_tool_span, tool_result
from tracesim.evaluator.extract.span import view_of
from tracesim.evaluator.inspect.file_evidence import (
    contentless_items,
    file_evidence_counts,
    rows_of,
    uncounted_usage_items,
    unread_turn_items,
)
from tracesim.evaluator.inspect.inspect_sql import INSPECT_SQL
from tracesim.evaluator.load.load_logs import attach_logs, has_span_logs
from tracesim.schemas.conversation_keys import CONVERSATION_ID_KEYS, EXPLICIT_KEYS

__all__ = [
    "CONVENTION_PREFIXES",
    "GroupReport",
    "Inspection",
    "UnkeyedToolSpan",
    "contentless_items",
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

CONVENTION_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gen_ai.", "OTel GenAI"),
    ("openinference.", "OpenInference"),
    ("llm.", "OpenInference/OpenLLMetry llm.*"),
    ("traceloop.", "OpenLLMetry"),
    ("gcp.vertex.agent.", "Google ADK"),
    ("logfire.", "Logfire"),
    ("mlflow.", "MLflow"),
    ("ai.", "Vercel AI SDK"),
    ("langfuse.", "Langfuse"),
    ("tracesim.", "tracesim"),
    ("arksim.", "arksim"),
)
"""Attribute-key prefix -> the convention it reveals."""

_KEYS_LOOKED_FOR = len(EXPLICIT_KEYS) + len(CONVERSATION_ID_KEYS)
_UNKEYED_REASON = (
    "no conversation key on any span of its trace (looked for tracesim.chat_id, "
    f"arksim.conversation_id, gen_ai.conversation.id, session.id and {_KEYS_LOOKED_FOR - 4} "
    "more; see schemas/conversation_keys.py); evaluated as a conversation of its own "
    "(chat_id = trace id)"
)


@dataclass
class UnkeyedToolSpan:
    """A tool span the collector could not key to a conversation."""

    trace_id: str
    span_id: str
    name: str
    service_name: str | None
    scope_name: str | None
    reason: str = _UNKEYED_REASON


@dataclass
class GroupReport:
    """What was understood of one (service, scope)."""

    service_name: str | None
    scope_name: str | None
    spans: int = 0
    unkeyed_spans: int = 0
    conventions: list[str] = field(default_factory=list)
    tool_spans: int = 0
    unkeyed_tool_spans: int = 0
    model_calls: int = 0
    model_calls_without_usage: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    unread: dict[str, int] = field(default_factory=dict)
    """Tool-call field -> how many tool spans lacked it (id, arguments, result or error)."""


@dataclass
class Inspection:
    """The whole capture."""

    groups: list[GroupReport]
    unkeyed: list[UnkeyedToolSpan]
    unexplained: list[Unexplained] = field(default_factory=list)
    """Tool evidence that did not become a call (`evaluator.extract.audit`)."""
    unkeyed_traces: list[str] = field(default_factory=list)
    """Traces with tool or model calls that no conversation key reached (each evaluated as a
    conversation of its own)."""

    @property
    def tool_spans(self) -> int:
        """Tool spans over all groups."""
        return sum(g.tool_spans for g in self.groups)


def _tool_rows(con: Any, sql: Mapping[str, str] = INSPECT_SQL) -> dict[str, list[dict[str, Any]]]:
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
    for rows in _tool_rows(con).values():
        for row in rows:
            if row["chat_id"] is None and _is_tool(row):
                found.append(
                    UnkeyedToolSpan(
                        row["trace_id"],
                        row["span_id"],
                        row["name"],
                        row["service_name"],
                        row["scope_name"],
                    )
                )
    return found


def count_unkeyed_tool_spans(con: Any) -> int:
    """How many tool spans the collector could not key (from the hot columns: fast)."""
    return int(con.execute(INSPECT_SQL["unkeyed_tool_spans"]).fetchall()[0][0])


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
    candidates = _tool_rows(con, sql)
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
                unkeyed.append(
                    UnkeyedToolSpan(
                        row["trace_id"],
                        row["span_id"],
                        row["name"],
                        row["service_name"],
                        row["scope_name"],
                    )
                )
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


def format_inspection(inspection: Inspection, *, limit: int = 20) -> str:
    """Plain text for a terminal or a CI log; `limit` unkeyed tool spans are listed."""
    lines: list[str] = []
    if not inspection.groups:
        return "no spans stored"
    for g in inspection.groups:
        lines.append(f"service {g.service_name or '(none)'} / scope {g.scope_name or '(none)'}")
        lines.append(
            f"  spans: {g.spans} ({g.unkeyed_spans} without a conversation key)"
            f"; conventions: {', '.join(g.conventions) or 'none recognised'}"
        )
        tools = f"  tool spans: {g.tool_spans}"
        if g.unkeyed_tool_spans:
            tools += f" ({g.unkeyed_tool_spans} unkeyed)"
        if g.tool_spans:
            unread = ", ".join(f"{k} {v}/{g.tool_spans}" for k, v in sorted(g.unread.items()))
            tools += f"; fields not read: {unread or 'none'}"
        lines.append(tools)
        usage = (
            "no usage"
            if g.input_tokens is None and g.output_tokens is None
            else (f"tokens in {g.input_tokens or 0} / out {g.output_tokens or 0}")
        )
        models = f"  model calls: {g.model_calls}"
        if g.model_calls:
            models += f"; {usage}"
            if g.model_calls_without_usage:
                models += f" ({g.model_calls_without_usage} calls without usage)"
        lines.append(models)
    _format_unexplained(inspection, lines, limit)
    if inspection.unkeyed_traces:
        lines.append("")
        lines.append(
            f"unkeyed traces (tool or model calls, no conversation key; each evaluated as a "
            f"conversation of its own): {len(inspection.unkeyed_traces)}"
        )
        lines.extend(f"  trace {trace_id}" for trace_id in inspection.unkeyed_traces[:limit])
        if len(inspection.unkeyed_traces) > limit:
            lines.append(f"  ... and {len(inspection.unkeyed_traces) - limit} more")
        answering = {i.trace_id for i in inspection.unexplained if i.kind == RESULT_WITHOUT_CALL}
        answering &= set(inspection.unkeyed_traces)
        if answering:  # tracesim never joins traces by a replayed history (README)
            lines.append(
                f"  {len(answering)} of them hold results without a call: likely one "
                "conversation split over traces (a trace per model call); a parent span "
                "around the agent loop, or a conversation key on each call, keys it as one"
            )
    if inspection.unkeyed:
        lines.append("")
        lines.append(f"unkeyed tool spans: {len(inspection.unkeyed)}")
        reasons = sorted({item.reason for item in inspection.unkeyed})
        lines.extend(f"  why: {reason}" for reason in reasons)
        for item in inspection.unkeyed[:limit]:
            lines.append(
                f"  {item.name} (trace {item.trace_id}, span {item.span_id}, "
                f"service {item.service_name or '(none)'})"
            )
        if len(inspection.unkeyed) > limit:
            lines.append(f"  ... and {len(inspection.unkeyed) - limit} more")
    return "\n".join(lines)


def _format_unexplained(inspection: Inspection, lines: list[str], limit: int) -> None:
    """The evidence that did not become a call, per kind, `limit` items each."""
    by_kind: dict[str, list[Unexplained]] = defaultdict(list)
    for item in inspection.unexplained:
        by_kind[item.kind].append(item)
    for kind, what in KINDS.items():
        items = by_kind.get(kind)
        if not items:
            continue
        lines.append("")
        lines.append(f"{what}: {len(items)}")
        for item in items[:limit]:
            name = f"{item.name} " if item.name else ""
            detail = f": {item.detail}" if item.detail else ""
            lines.append(f"  {name}(trace {item.trace_id}, span {item.span_id}){detail}")
        if len(items) > limit:
            lines.append(f"  ... and {len(items) - limit} more")
