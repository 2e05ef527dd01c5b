"""Calls whose outcome no evidence gave (SPEC §5: nothing is dropped in silence).

A call known only from the model's request (its name read from the model's output or a
later input's replayed history; no tool span, MCP span or execution span ran it where the
telemetry shows) whose result and error no later model input, event or log record carried:
as far as the telemetry tells, that request was never answered. Such a call is graded with
no result, so a verdict on it is a guess; the user is told (`unanswered_request`, detail
"no answer"), as for a request that became no call at all. A call a tool span ran may
return nothing (a tool returning None): that is an outcome, and stays quiet.

Seen in instrumentations that record a model's tool calls but not the answers (OpenLIT's
Responses API support keeps only the user's text as input), and where the answers are in a
shape no reader knows (Gemini function responses in user turns, Haystack reprs). Pure:
the conversation's final calls in, items out; run after `audit.settle`, which would take
a call's own id for an explanation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tracesim.evaluator.extract.audit import UNANSWERED_REQUEST, Unexplained
from tracesim.evaluator.extract.provenance import EXECUTION, MCP_SPAN, REPLAY, REQUEST, TOOL_SPAN
from tracesim.schemas import ToolCall

__all__ = ["NO_ANSWER", "unanswered_calls"]

NO_ANSWER = "no answer: no model input, event or tool span gave this call's result or error"
"""The detail of an unanswered call's item (its id, when it has one, comes first)."""
_FROM_MODEL = frozenset({REQUEST, REPLAY})
_RAN = frozenset({TOOL_SPAN, MCP_SPAN, EXECUTION})


def _known_only_from_the_model(call: ToolCall) -> bool:
    provenance = call.provenance
    if not provenance or provenance.get("name") not in _FROM_MODEL:
        return False  # a tool span's (or an explicit report's) own call
    return not any(kind in _RAN for kind in provenance.values() if isinstance(kind, str))


def unanswered_calls(
    calls: Iterable[ToolCall], traces: Mapping[str, str] | None = None
) -> list[Unexplained]:
    """One `unanswered_request` per traced call of `calls` known only from a model request
    that has neither a result nor an error (`traces`: span id -> trace id, for the item)."""
    found: list[Unexplained] = []
    for call in calls:
        if call.result is not None or call.error is not None:
            continue
        if call.source is not None and call.source.explicit:
            continue
        if not _known_only_from_the_model(call):
            continue
        detail = f"{call.id}: {NO_ANSWER}" if call.id else NO_ANSWER
        span_id = call.span_id or ""
        trace_id = traces.get(span_id, "") if traces else ""
        found.append(Unexplained(UNANSWERED_REQUEST, trace_id, span_id, call.name, detail))
    return found
