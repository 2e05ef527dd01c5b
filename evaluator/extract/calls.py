"""Spans -> tool calls (SPEC §5).

`extract_tool_calls(spans)` finds the spans that record a tool call under
any convention we read, turns each into a `ToolCall` (source
`tracing_processor`, `span_id`, `start_time`, `duration_ms` set), recovers
missing tool-call ids (and arguments, when the tool span's input is a bare
value) from the model spans that requested the calls, in the same trace or
else in the conversation, and orders the calls by span start time, then span id.

Pure: spans in, tool calls out. A span that cannot be read is skipped with a
warning; extraction never raises for one bad span. The field-by-field
precedence lives in `fields`, the span shapes in `span`, id
recovery in `recover`, envelopes in `envelopes`, message-borne content in `messages`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from tracesim.evaluator.extract.assign import PendingCall, RequestedCall, assign_requests
from tracesim.evaluator.extract.context import ConversationSpans, span_label, views_of
from tracesim.evaluator.extract.fields import (
    FIELD_KEYS,
    is_tool_span,
    read_arguments,
    read_output,
    tool_call_id,
    tool_error,
    tool_name,
)
from tracesim.evaluator.extract.messages import calls_from_messages, tool_responses
from tracesim.evaluator.extract.recover import row_may_hold_requests, safe_requested_calls
from tracesim.evaluator.extract.span import SpanView, row_may_be_tool_span, view_of
from tracesim.schemas import ADK, GENAI, ToolCall, ToolCallSource
from tracesim.schemas.conventions import LANGCHAIN, MCP, SMOLAGENTS

__all__ = ["extract_tool_calls"]

logger = logging.getLogger(__name__)

_SOURCE = ToolCallSource.TRACING_PROCESSOR
TOOL_SPAN, MCP_SPAN, REQUEST = "tool_span", "mcp_span", "model_request"
INPUT, INPUT_POSITION = "model_input", "model_input_position"
_EVENT_FIELDS = (GENAI.TOOL_CALL_ARGUMENTS, GENAI.TOOL_CALL_RESULT)
_TOOL_MESSAGE_EVENT = GENAI.EVENT_TOOL_MESSAGE
_CHOICE_EVENT = GENAI.EVENT_CHOICE


def _event_fields(span: SpanView) -> dict[str, Any]:
    """The span's attributes, completed by tool-call fields its events carry (content in
    span events, SPEC §5) when the attributes lack them. On a tool span, the legacy GenAI
    events (Strands) are the call itself: `gen_ai.tool.message` {content, id} its input,
    `gen_ai.choice` {message} its output."""
    attributes = span.attributes
    if not span.events or all(key in attributes for key in _EVENT_FIELDS):
        return attributes  # type: ignore[return-value]
    merged = dict(attributes)
    for event in span.events:
        event_attributes = event.get("attributes")
        if not isinstance(event_attributes, Mapping):
            continue
        for key in FIELD_KEYS.intersection(event_attributes):
            merged.setdefault(key, event_attributes[key])
        name = event.get("name")
        if name == _TOOL_MESSAGE_EVENT and "content" in event_attributes:
            merged.setdefault(GENAI.TOOL_CALL_ARGUMENTS, event_attributes["content"])
            if event_attributes.get("id"):
                merged.setdefault(GENAI.TOOL_CALL_ID, event_attributes["id"])
        elif name == _CHOICE_EVENT and "message" in event_attributes:
            merged.setdefault(GENAI.TOOL_CALL_RESULT, event_attributes["message"])
    return merged


def _tool_call(span: SpanView) -> tuple[ToolCall, PendingCall | None] | None:
    """The tool call a span records (and what it lacks), or None when it is not a tool span.

    The span was screened by `row_may_be_tool_span` (the text test `may_be_tool_span`
    would repeat): `is_tool_span` decides."""
    if not is_tool_span(span):
        return None
    name = tool_name(span)
    if name == ADK.MERGED_TOOLS_NAME:
        return None  # ADK's summary of parallel calls: each call has its own span
    if span.name == SMOLAGENTS.FINAL_ANSWER_SPAN:
        return None  # smolagents answers through a tool: the answer, not a tool call
    if not name:
        logger.warning("skipping tool span %s: no tool name in any convention", span.span_id)
        return None
    attributes = _event_fields(span)
    arguments, is_object, args_id = read_arguments(attributes)
    result, result_id, failed = read_output(attributes)
    call_id = tool_call_id(attributes) or args_id or result_id
    error = tool_error(span) or (result or "error" if failed else None)
    kind = MCP_SPAN if attributes.get(MCP.METHOD_NAME) == MCP.TOOLS_CALL else TOOL_SPAN
    provenance = {"name": kind}
    if call_id:
        provenance["id"] = kind
    if arguments:
        provenance["arguments"] = kind
    if error is not None:
        provenance["error"] = kind
    elif result is not None:
        provenance["result"] = kind
    # Plain construction: measured faster than model_construct (pydantic 2).
    call = ToolCall(
        id=call_id,
        name=name,
        arguments=arguments,
        result=None if error is not None else result,  # what a failed call's span output
        error=error,  # holds is the error told to the model, not a return value
        source=_SOURCE,
        span_id=span.span_id or None,
        start_time=span.start_time,
        duration_ms=span.duration_ms,
        provenance=provenance,
    )
    if call_id and is_object and arguments and name not in LANGCHAIN.GENERIC_TOOL_CLASSES:
        return call, None  # nothing to recover (a missing result is looked up separately)
    # No id, a bare input, or empty `{}` arguments under an id of the span's own (ADK's
    # `adk-...` ids): the model request it answers holds the rest (SPEC §5).
    bare = None if is_object else arguments.get("input")
    return call, PendingCall(name, arguments, call_id, bare, span.sort_key())


def _merge_nested(
    calls: list[tuple[SpanView, ToolCall, PendingCall | None]], others: list[Any]
) -> list[tuple[SpanView, ToolCall, PendingCall | None]]:
    """One call per tool execution: a tool span below a tool span of the same tool (through
    any non-tool spans: an HTTP hop, a framework wrapper) is the same call seen by a second
    instrumentation (OpenInference around autogen-core's `execute_tool`; a framework's tool
    span, the MCP client span and the MCP server span of one `tools/call`); an MCP span
    merges into the tool span above it whatever its name (MCP adapters prefix names). The
    child's fields complete the parent's, a failure on either is the call's. Parent cycles
    and self-parents end the walk."""
    by_span = {view.span_id: index for index, (view, _, _) in enumerate(calls)}
    merged_into: dict[int, int] = {}
    parents: dict[str, str] | None = None
    seen_names: set[str] = set()
    repeated: set[str] = set()  # only a repeated name or an MCP span can merge: walk for those
    for _, call, _ in calls:
        (repeated if call.name in seen_names else seen_names).add(call.name)
    for index, (view, call, _) in enumerate(calls):
        parent_id = view.parent_span_id
        if not parent_id:
            continue
        parent_index = by_span.get(parent_id)
        mcp = (call.provenance or {}).get("name") == MCP_SPAN
        if parent_index is None and (mcp or call.name in repeated):
            if parents is None:
                parents = _parent_map(others)
            parent_index = _tool_ancestor(parent_id, by_span, parents)
        while parent_index is not None and parent_index in merged_into:
            parent_index = merged_into[parent_index]
        if parent_index is None or parent_index == index:
            continue
        parent_view, parent, pending = calls[parent_index]
        if parent.name != call.name and not mcp:
            continue
        _complete(parent, call)
        if pending is not None and parent.id and pending.bare is None and parent.arguments:
            pending = None
        elif pending is not None:
            pending.call_id = parent.id
        calls[parent_index] = (parent_view, parent, pending)
        merged_into[index] = parent_index
    return [item for index, item in enumerate(calls) if index not in merged_into]


def _parent_map(spans: list[Any]) -> dict[str, str]:
    """span id -> parent span id of the turn's other spans (rows or views)."""
    parents: dict[str, str] = {}
    for span in spans:
        if type(span) is dict:
            span_id, parent_id = span.get("span_id"), span.get("parent_span_id")
        else:
            span_id = getattr(span, "span_id", None)
            parent_id = getattr(span, "parent_span_id", None)
        if type(span_id) is str and type(parent_id) is str and parent_id:
            parents[span_id.lower()] = parent_id.lower()
    return parents


def _tool_ancestor(
    span_id: str, by_span: dict[str, int], parents: dict[str, str], *, depth: int = 16
) -> int | None:
    """The nearest tool call among `span_id` and its ancestors (cycles tolerated)."""
    seen: set[str] = set()
    while span_id and span_id not in seen and depth > 0:
        found = by_span.get(span_id)
        if found is not None:
            return found
        seen.add(span_id)
        span_id = parents.get(span_id, "")
        depth -= 1
    return None


def _complete(parent: ToolCall, child: ToolCall) -> None:
    """Fill `parent`'s missing fields from `child` (the same call seen by a second
    instrumentation: a nested tool span, an MCP client or server span), provenance too."""
    provenance = parent.provenance if parent.provenance is not None else {}
    taken = child.provenance or {}
    if not parent.id and child.id:
        parent.id = child.id
        provenance["id"] = taken.get("id", TOOL_SPAN)
    if not parent.arguments and child.arguments:
        parent.arguments = child.arguments
        provenance["arguments"] = taken.get("arguments", TOOL_SPAN)
    if not parent.error and child.error:
        parent.error = child.error
        provenance["error"] = taken.get("error", TOOL_SPAN)
        provenance.pop("result", None)
    if parent.error:
        parent.result = None
    elif not parent.result and child.result:
        parent.result = child.result
        provenance["result"] = taken.get("result", TOOL_SPAN)
    parent.provenance = provenance


def _apply(call: ToolCall, pending: PendingCall, request: RequestedCall | None) -> bool:
    """Fill what `pending` lacked from the model request it answers; True when done. The
    request's id, when it differs from the span's own, names the call in tool messages."""
    if request is None:
        return False
    provenance = call.provenance if call.provenance is not None else {}
    if not call.id:
        call.id = request.id
        if request.id:
            provenance["id"] = REQUEST
    elif request.id and request.id != call.id:
        pending.request_id = request.id
    if call.name in LANGCHAIN.GENERIC_TOOL_CLASSES:
        call.name = request.name  # the span named the tool's class; the request names the tool
        provenance["name"] = REQUEST
    if pending.bare is not None or not call.arguments:
        call.arguments = dict(request.arguments)
        if call.arguments:
            provenance["arguments"] = REQUEST
    call.provenance = provenance
    return True


def _recover(
    calls: list[tuple[SpanView, ToolCall, PendingCall | None]],
    models: list[SpanView],
    context: ConversationSpans,
) -> None:
    """Fill missing ids and bare arguments from the model requests of the same trace, then
    (still missing) of the whole conversation, in place."""
    pending = [(view, call, p) for view, call, p in calls if p is not None]
    left = []
    for trace_id in dict.fromkeys(view.trace_id for view, _, _ in pending):  # in start order
        requested = [r for v in models if v.trace_id == trace_id for r in safe_requested_calls(v)]
        in_trace = [(call, p) for view, call, p in pending if view.trace_id == trace_id]
        taken = {c.id for v, c, _ in calls if v.trace_id == trace_id and c.id}
        chosen = assign_requests([p for _, p in in_trace], requested, taken=taken)
        for (call, p), request in zip(in_trace, chosen, strict=True):
            if not _apply(call, p, request):
                left.append((call, p))
    if not left or not context.given:
        return
    requested = [
        r for v in context.views() if row_may_hold_requests(v) for r in safe_requested_calls(v)
    ]
    if not requested:
        return
    taken = {c.id for _, c, _ in calls if c.id}
    chosen = assign_requests([p for _, p in left], requested, taken=taken, latest=True)
    for (call, p), request in zip(left, chosen, strict=True):
        _apply(call, p, request)


def _fill_results(
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
            _note(call, "result", INPUT)
        else:
            left.append(call)
    if not left:
        return
    orphans = _new_answers(calls, left, models, context)
    if len(orphans) == len(left):
        for call, value in zip(left, orphans, strict=True):
            call.result = value
            _note(call, "result", INPUT_POSITION)


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


def _note(call: ToolCall, field: str, kind: str) -> None:
    """Record that `field` of `call` was read from evidence `kind`."""
    if call.provenance is None:
        call.provenance = {field: kind}
    else:
        call.provenance[field] = kind


def extract_tool_calls(
    spans: Iterable[Any], *, context: Iterable[Any] | None = None
) -> list[ToolCall]:
    """Tool calls recorded by `spans`, ordered by start time, then span id.

    `spans` are OTel SDK `ReadableSpan` objects or rows of the `spans` table
    (mappings; `attributes` and `events` may be JSON text). Spans that are
    not tool calls are ignored; spans that cannot be read are skipped with a
    warning. `context` (the conversation's spans) is where ids, arguments and
    results are recovered from when the calls' own traces lack them; in a
    conversation without any tool span, the calls the model requested are the
    calls (`messages`). Pass one `ConversationSpans` for every turn of a
    conversation: its spans are then viewed and parsed once, not once per turn.
    """
    calls: list[tuple[SpanView, ToolCall, PendingCall | None]] = []
    others: list[Any] = []  # not tool calls: read again only to recover ids
    for span in spans:
        if not row_may_be_tool_span(span):
            others.append(span)
            continue
        try:
            view = view_of(span)
            found = _tool_call(view)
        except Exception as exc:  # one bad span must not stop extraction
            logger.warning("skipping unreadable span %r: %s", span_label(span), exc)
            continue
        if found is None:
            others.append(view)
        else:
            calls.append((view, *found))
    scope = context if isinstance(context, ConversationSpans) else ConversationSpans(context)
    if not calls:
        return _from_messages(others, scope)
    calls.sort(key=lambda item: item[0].sort_key())
    if len(calls) > 1:
        calls = _merge_nested(calls, others)
    pending = any(p is not None for _, _, p in calls)
    needs_result = any(c.result is None and c.error is None for _, c, _ in calls)
    if pending or needs_result:
        traces = {view.trace_id for view, _, _ in calls}
        # Without a missing result, the model spans serve only their requests: a row that
        # certainly requests nothing (the turn span, most agent spans) is never viewed.
        candidates = others if needs_result else [s for s in others if row_may_hold_requests(s)]
        models = sorted(
            (v for v in views_of(candidates) if v.trace_id in traces), key=SpanView.sort_key
        )
        if pending:
            _recover(calls, models, scope)
        if needs_result:
            _fill_results(
                [(c, p.request_id if p is not None else "") for _, c, p in calls], models, scope
            )
        if pending and scope.given and all(c.id for _, c, _ in calls):
            found = [call for _, call, _ in calls]
            extra = _unspanned(found, models, scope, others)
            if extra or any(call.start_time is None for call in found):
                found.extend(extra)
                found.sort(key=_start_key)  # (calls in span order are in start order already)
            return found
    return [call for _, call, _ in calls]


def _start_key(call: ToolCall) -> tuple[bool, Any]:
    start = call.start_time
    return (start is None, start.timestamp() if start is not None else 0.0)


def _unspanned(
    calls: list[ToolCall], models: list[SpanView], context: ConversationSpans, others: list[Any]
) -> list[ToolCall]:
    """Where tool spans carry no id of their own (the model messages hold them), a call the
    model requested and got an answer for, of a tool that has no span at all in the turn
    (OpenLLMetry Node ends no span for a tool that throws), is a call of its own, read from
    the messages. (Requests of a tool that has spans are not: instrumentations that double
    model spans repeat them under other ids.)"""
    taken = {call.id for call in calls}
    traced = {call.name for call in calls}  # a tool with spans: its missing ids are doubles
    requested = [
        (view, request)
        for view in models
        for request in safe_requested_calls(view)
        if request.id not in taken and request.name not in traced
    ]
    if not requested:
        return []
    answered = context.responses()
    extra: list[ToolCall] = []
    executions = sorted(views_of(others), key=SpanView.sort_key)
    for view, request in requested:
        if request.id not in answered or request.id in taken:
            continue
        taken.add(request.id)
        derived = [
            c for c in calls_from_messages([view], [], spans=executions) if c.id == request.id
        ]
        if not derived:
            continue
        call = derived[0]
        if call.error is None:
            call.result = answered[request.id]
            _note(call, "result", INPUT)
        extra.append(call)
    return extra


def _from_messages(others: list[Any], context: ConversationSpans) -> list[ToolCall]:
    """Calls requested by this turn's model spans when the conversation has no tool span."""
    candidates = [s for s in others if row_may_hold_requests(s)]
    if not candidates:
        return []
    models = sorted(views_of(candidates), key=SpanView.sort_key)
    if not any(safe_requested_calls(v, with_ids=False) for v in models):
        return []
    if context.given:
        if context.has_tool_spans():
            return []  # the conversation records its calls as tool spans
        conversation, responses = context.views(), context.responses()
    else:
        if any(v.may_be_tool_span() and is_tool_span(v) for v in models):
            return []
        conversation, responses = models, None
    executions = sorted(views_of(others), key=SpanView.sort_key)
    return calls_from_messages(models, conversation, spans=executions, responses=responses)
