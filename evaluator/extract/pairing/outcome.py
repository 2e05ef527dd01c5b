"""Calls whose outcome no evidence gave, or two sources disagree on (SPEC §5: nothing is
dropped in silence, conflicts are reported).

A call known only from the model's request (its name read from the model's output or a
later input's replayed history; no tool span, MCP span or execution span ran it where the
telemetry shows) whose result and error no later model input, event or log record carried:
as far as the telemetry tells, that request was never answered. Such a call is graded with
no result, so a verdict on it is a guess; the user is told (`unanswered_request`, detail
"no answer"), as for a request that became no call at all. A call a tool span ran may
return nothing (a tool returning None): that is an outcome, and stays quiet.

Seen in instrumentations that record a model's tool calls but not the answers (OpenLIT's
Responses API support keeps only the user's text as input), and where the answers are in a
shape no reader knows (Gemini function responses in user turns, Haystack reprs).

A call whose result or error its tool span gave, while the model input that carried its
answer (same id) says something else, is a `conflict` (the value kept is the tool span's):
a result that is an object's repr (`<generator object ...>`) where the model got the
member agent's answer, a framework's wrapper message (`Tool execution failed`) where the
model got the cause and no span attribute confirms it (`wrapped_errors`), an error a framework hid from the model. With no answer in any model
input, a failed tool span whose own output says something else than the error kept (a
wrapper's message beside the handler's `error: <cause>`, where the status says more than
`error.type`: `errors` reads the output when it does not) is one too. Texts compare loosely: JSON by value, one containing the other agrees.

Pure: the conversation's final calls in, items out; run after `audit.settle`, which would
take a call's own id for an explanation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import orjson
from tracesim.evaluator.extract.audit import CONFLICT, UNANSWERED_REQUEST, Unexplained
from tracesim.evaluator.extract.provenance import EXECUTION, MCP_SPAN, REPLAY, REQUEST, TOOL_SPAN
from tracesim.schemas import ToolCall

__all__ = ["NO_ANSWER", "disagreeing_answers", "unanswered_calls"]

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


def _comparable(text: str) -> str:
    """`text` for a loose comparison: JSON by value (keys sorted), a JSON string unquoted,
    surrounding blanks dropped."""
    text = text.strip()
    if text[:1] in ("{", "[", '"'):
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text
        if isinstance(value, str):
            return value.strip()
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    return text


def _agree(ours: str, answer: str) -> bool:
    ours, answer = _comparable(ours), _comparable(answer)
    return ours == answer or ours in answer or answer in ours


def disagreeing_answers(
    calls: Iterable[ToolCall],
    responses: Mapping[str, str | None],
    traces: Mapping[str, str] | None = None,
    span_output: Callable[[str], str | None] | None = None,
) -> list[Unexplained]:
    """One `conflict` per traced call of `calls` whose result or error (not taken from the
    model input itself) disagrees with the answer `responses` (call id -> the text a model
    input carried back) holds for its id; with no such answer, a failed call whose own
    span's output (`span_output`: span id -> the result text its span holds) says
    something else than its error (a wrapper's message kept, the cause in the output)."""
    found: list[Unexplained] = []
    for call in calls:
        if call.source is not None and call.source.explicit:
            continue
        field = "error" if call.error is not None else "result"
        ours = call.error if call.error is not None else call.result
        if ours is None or (call.provenance or {}).get(field, "").startswith("model_input"):
            continue
        answer = responses.get(call.id) if call.id else None
        where = "the model input answered"
        if answer is None and field == "error" and span_output and call.span_id:
            answer, where = span_output(call.span_id), "its span's output says"
        if answer is None or _agree(ours, answer):
            continue
        span_id = call.span_id or ""
        found.append(
            Unexplained(
                CONFLICT,
                traces.get(span_id, "") if traces else "",
                span_id,
                call.name,
                f"{call.id or '(no id)'}: {field} {ours[:80]!r} kept, but {where} {answer[:80]!r}",
            )
        )
    return found
