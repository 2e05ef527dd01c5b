"""Model calls recorded without any content, over the whole file (SPEC §5: nothing is
dropped in silence).

Content capture off is the OTel GenAI instrumentations' default: a model span then holds its
model and usage, but no input, output, message, prompt or completion attribute, on itself,
its events or its log records. Whatever tool calls it asked for are not in the telemetry
(some providers' finish reason says `stop` even then). A conversation (its chat id, else its
trace: unkeyed traces are covered) holding such a call, no tool span, and in which
extraction finds no call, gets one `unread_request` per content-less model call, naming
the setting to turn on. The stores select the candidate conversations in SQL (an inference
operation, no payload-looking key, no tool span: `inspect_sql`); this module confirms on
the spans, their events and log records. A span whose instrumentation failed is said by
`extract.instrumentation_errors` instead, one whose finish reason says it asked for tools by
`extract.unread` (per turn, with that reason): each span is told about once.

Pure: span rows in, items out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from tracesim.evaluator.extract.audit import UNREAD_REQUEST, Unexplained
from tracesim.evaluator.extract.calls import extract_tool_calls
from tracesim.evaluator.extract.context import ConversationSpans
from tracesim.evaluator.extract.instrumentation_errors import instrumentation_error
from tracesim.evaluator.extract.span import view_of
from tracesim.evaluator.extract.unread import carries_no_payload, unread_reason
from tracesim.schemas.conventions import GENAI

__all__ = ["CONTENTLESS", "REQUESTING_OPERATIONS", "contentless_requests"]

REQUESTING_OPERATIONS = tuple(
    op for op in GENAI.CALL_BEARING_OPERATIONS if op != GENAI.OP_EXECUTE_TOOL
)
"""Model operations that may ask for tools (inference, embeddings aside)."""
CONTENTLESS = (
    "model call recorded without message content (content capture off): any tool call it "
    "asked for is not in the telemetry; capture content (e.g. "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT) to evaluate tool calls"
)


def _conversations(
    rows: Iterable[Mapping[str, Any]],
) -> list[dict[Any, list[dict[str, Any]]]]:
    """Rows per conversation (chat id, else trace), per turn (turn id, else trace)."""
    chats: dict[Any, dict[Any, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        trace = row.get("trace_id")
        chat = row.get("chat_id")
        turn = row.get("turn_id")
        chats[chat if chat is not None else trace][turn if turn is not None else trace].append(
            dict(row)
        )
    return list(chats.values())


def contentless_requests(rows: Iterable[Mapping[str, Any]]) -> list[Unexplained]:
    """One `unread_request` per content-less model call (hot `operation` one that may ask for tools)
    of `rows` (the spans of candidate conversations, events with their log records) in a
    conversation where extraction finds no call."""
    found: list[Unexplained] = []
    for turns in _conversations(rows):
        spans = [row for turn in turns.values() for row in turn]
        context = ConversationSpans([dict(row) for row in spans])
        if any(
            extract_tool_calls([dict(r) for r in turn], context=context) for turn in turns.values()
        ):
            continue  # calls found: the content is somewhere
        for row in spans:
            if row.get("operation") not in REQUESTING_OPERATIONS:
                continue
            try:
                view = view_of(row)
                if (
                    not carries_no_payload(view)
                    or instrumentation_error(view)
                    or unread_reason(view)
                ):
                    continue
            except Exception:  # noqa: BLE001 - an unreadable span is the audit's, not ours
                continue
            found.append(
                Unexplained(UNREAD_REQUEST, view.trace_id, view.span_id, view.name, CONTENTLESS)
            )
    return found
