"""Results a tool span lacks, from the tool messages later model inputs carried (SPEC §5):
by the call's id, by the id of the request it answered, then (ids rewritten) by position
among the new answers, only when exactly as many."""

from __future__ import annotations

from tracesim.evaluator.extract.context import ConversationSpans
from tracesim.evaluator.extract.messages import tool_responses
from tracesim.evaluator.extract.provenance import INPUT, INPUT_POSITION, note
from tracesim.evaluator.extract.recover import safe_requested_calls
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ToolCall

__all__ = ["fill_results"]


def fill_results(
    calls: list[tuple[ToolCall, str]], models: list[SpanView], context: ConversationSpans
) -> None:
    """Results of calls that lack one, in place: the tool message later model requests
    carried (same trace first, then the conversation) under the call's id or the id of the
    request it answers; then, where ids were rewritten between request and answer, the
    trace's tool messages no call or request names, paired in order when they are exactly
    as many as the calls still without a result (never guessed otherwise: `inspect` lists
    what is left)."""
    missing = [(c, alias) for c, alias in calls if c.result is None and c.error is None]
    if not missing:
        return
    found = tool_responses(models)
    if context.given and any(
        (c.id or alias) and c.id not in found and alias not in found for c, alias in missing
    ):
        for call_id, result in context.responses().items():
            found.setdefault(call_id, result)
    left = []
    for call, alias in missing:
        key = call.id if call.id in found else alias if alias in found else ""
        if key:
            call.result = found[key]
            note(call, "result", INPUT)
        else:
            left.append(call)
    if not left:
        return
    orphans = _new_answers(calls, left, models, context)
    if len(orphans) == len(left):
        for call, value in zip(left, orphans, strict=True):
            call.result = value
            note(call, "result", INPUT_POSITION)


def _new_answers(
    calls: list[tuple[ToolCall, str]],
    left: list[ToolCall],
    models: list[SpanView],
    context: ConversationSpans,
) -> list[str | None]:
    """Tool messages first carried by a model input after the first of `left` started, whose
    id no call and no request of the conversation names (history repeated in every later
    input is not new)."""
    starts = [c.start_time for c in left if c.start_time is not None]
    if len(starts) != len(left):
        return []
    first = min(starts)
    named = {c.id for c, _ in calls} | {alias for _, alias in calls}
    for view in context.views() if context.given else models:
        named.update(r.id for r in safe_requested_calls(view))
    seen: set[str] = set()
    answers: list[str | None] = []
    for view in models:
        for key, value in tool_responses([view]).items():
            if key in seen:
                continue
            seen.add(key)
            start = view.start_time
            if key not in named and start is not None and start >= first:
                answers.append(value)
    return answers
