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

from tracesim.evaluator.extract.answer_tools import split_answer_tool
from tracesim.evaluator.extract.assign import PendingCall, RequestedCall, assign_requests
from tracesim.evaluator.extract.audit import IGNORED_SPAN, SKIPPED_SPAN, Unexplained, audit_turn
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
from tracesim.evaluator.extract.history import replayed_calls
from tracesim.evaluator.extract.messages import (
    FAILURE_MARKERS,
    calls_from_messages,
    row_may_hold_responses,
    tool_responses,
)
from tracesim.evaluator.extract.nested import merge_nested
from tracesim.evaluator.extract.provenance import (
    INPUT,
    MCP_SPAN,
    PROVENANCE_FIELDS,
    REPLAY,
    REQUEST,
    note,
)
from tracesim.evaluator.extract.recover import row_may_hold_requests, safe_requested_calls
from tracesim.evaluator.extract.results import fill_results
from tracesim.evaluator.extract.span import SpanView, has_marker, row_may_be_tool_span, view_of
from tracesim.evaluator.extract.unread import unread_requests
from tracesim.schemas import ADK, GENAI, ToolCall, ToolCallSource
from tracesim.schemas.conventions import LANGCHAIN, MCP

__all__ = ["extract_tool_calls"]

logger = logging.getLogger(__name__)

_SOURCE = ToolCallSource.TRACING_PROCESSOR
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


def _tool_call(span: SpanView) -> tuple[Any, Any] | None:
    """The tool call a span records (and what it lacks), None when it is not a tool span, or
    (kind, why) for a tool span that is no call (`audit`: skipped or ignored).

    The span was screened by `row_may_be_tool_span` (the text test `may_be_tool_span`
    would repeat): `is_tool_span` decides."""
    if not is_tool_span(span):
        return None
    name = tool_name(span)
    if name == ADK.MERGED_TOOLS_NAME:
        # ADK's summary of parallel calls: each call has its own span
        return IGNORED_SPAN, "ADK's summary of parallel calls (each has its own span)", name
    if not name:
        logger.warning("skipping tool span %s: no tool name in any convention", span.span_id)
        return SKIPPED_SPAN, "no tool name in any convention, nor in the span name", span.name
    attributes = _event_fields(span)
    arguments, is_object, args_id = read_arguments(attributes)
    result, result_id, failed = read_output(attributes)
    call_id = tool_call_id(attributes) or args_id or result_id
    error = tool_error(span) or (result or "error" if failed else None)
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
    )
    if attributes.get(MCP.METHOD_NAME) == MCP.TOOLS_CALL:
        # what the span holds came from an MCP span; a tool span's own fields need no entry
        # (`provenance.source_of`: a traced call's default), the hot path builds no dict
        call.provenance = dict.fromkeys(PROVENANCE_FIELDS, MCP_SPAN)
    if call_id and is_object and arguments and name not in LANGCHAIN.GENERIC_TOOL_CLASSES:
        return call, None  # nothing to recover (a missing result is looked up separately)
    # No id, a bare input, or empty `{}` arguments under an id of the span's own (ADK's
    # `adk-...` ids): the model request it answers holds the rest (SPEC §5).
    bare = None if is_object else arguments.get("input")
    return call, PendingCall(name, arguments, call_id, bare, span.sort_key())


def _apply(
    call: ToolCall, pending: PendingCall, request: RequestedCall | None, named: set[str]
) -> bool:
    """Fill what `pending` lacked from the model request it answers; True when done. The
    request's id, when it differs from the span's own, names the call in tool messages
    (`named`: the ids the requests name; one they do not is the framework's own)."""
    if request is None:
        return False
    provenance = call.provenance if call.provenance is not None else {}
    if not call.id or (request.id and call.id not in named):
        # no id, or one no request names (a framework's own: ADK's `adk-...`, LangChain's
        # run id): the request's is the call's, the one its answers and explicit reports use
        if call.id:
            pending.request_id = call.id  # the span's own id may still name its answer
        call.id = request.id or call.id
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
        requested = [
            r
            for v in models
            if v.trace_id == trace_id
            for r in safe_requested_calls(v, with_ids=False)
        ]
        in_trace = [(call, p) for view, call, p in pending if view.trace_id == trace_id]
        taken = {c.id for v, c, _ in calls if v.trace_id == trace_id and c.id}
        chosen = assign_requests([p for _, p in in_trace], requested, taken=taken)
        named = {r.id for r in requested if r.id}
        for (call, p), request in zip(in_trace, chosen, strict=True):
            if not _apply(call, p, request, named):
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
    named = {r.id for r in requested if r.id}
    for (call, p), request in zip(left, chosen, strict=True):
        _apply(call, p, request, named)


def extract_tool_calls(
    spans: Iterable[Any],
    *,
    context: Iterable[Any] | None = None,
    audit: list[Unexplained] | None = None,
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
    `audit`, when given, receives the turn's evidence no call explains (`extract.audit`).
    """
    calls: list[tuple[SpanView, ToolCall, PendingCall | None]] = []
    others: list[Any] = []  # not tool calls: read again only to recover ids
    skipped: list[Unexplained] = []  # tool spans that are no call, and why
    for span in spans:
        if not row_may_be_tool_span(span):
            others.append(span)
            continue
        try:
            view = view_of(span)
            found = _tool_call(view)
        except Exception as exc:  # one bad span must not stop extraction
            logger.warning("skipping unreadable span %r: %s", span_label(span), exc)
            skipped.append(_skipped(span, SKIPPED_SPAN, f"unreadable: {exc}"))
            continue
        if found is None:
            others.append(view)
        elif type(found[0]) is str:
            others.append(view)
            kind, why, name = found
            skipped.append(Unexplained(kind, view.trace_id, view.span_id, name, why))
        else:
            calls.append((view, *found))
    scope = context if isinstance(context, ConversationSpans) else ConversationSpans(context)
    requesters: list[Any] = []
    responders: list[Any] = []
    if audit is not None:  # one view per model span, shared with the audit (parsed once)
        shared = []
        for other in others:
            asks, answers = row_may_hold_requests(other), row_may_hold_responses(other)
            if asks or answers:
                other = view_of(other)
                if asks:
                    requesters.append(other)
                if answers:
                    responders.append(other)
            shared.append(other)
        others = shared
    traces = {view.span_id: view.trace_id for view, _, _ in calls}
    found_calls, aliases = _derive(calls, others, scope)
    found_calls, answers = split_answer_tool(found_calls, others, traces)
    skipped.extend(answers)
    if found_calls:
        _flag_failures(found_calls, others)
    if audit is not None:
        audit.extend(unread_requests(others, calls=len(found_calls)))
        audit.extend(skipped)
        audit.extend(
            audit_turn(
                requesters,
                responders,
                found_calls,
                aliases=aliases,
                context=scope,
                skipped=skipped,
            )
        )
    return found_calls


def _flag_failures(calls: list[ToolCall], others: list[Any]) -> None:
    """A call whose answer a later model input flags as failed (Anthropic `is_error`,
    Bedrock `status: error`) failed: its output is the error, in place. Only rows whose
    text may hold such a flag are read."""
    flagged = [s for s in others if _may_flag(s)]
    if not flagged:
        return
    failed: set[str] = set()
    tool_responses(views_of(flagged), failed=failed)
    for call in calls:
        if call.error is None and call.id and call.id in failed:
            call.error, call.result = call.result or "error", None
            note(call, "error", INPUT)


def _may_flag(span: Any) -> bool:
    if type(span) is dict:
        raw = span.get("attributes")
        return not isinstance(raw, str) or has_marker(raw, FAILURE_MARKERS)
    return span.raw_may_hold(*FAILURE_MARKERS) if type(span) is SpanView else True


def _skipped(span: Any, kind: str, why: str) -> Unexplained:
    get = span.get if isinstance(span, dict) else lambda key: getattr(span, key, None)
    return Unexplained(
        kind, str(get("trace_id") or ""), str(get("span_id") or ""), str(get("name") or ""), why
    )


def _derive(
    calls: list[tuple[SpanView, ToolCall, PendingCall | None]],
    others: list[Any],
    scope: ConversationSpans,
) -> tuple[list[ToolCall], list[str]]:
    """The calls of the tool spans `calls`, completed from `others` and the conversation
    (or read from the model messages when there is no tool span), and the request ids
    calls answered under ids of their own."""
    if not calls:
        return _from_messages(others, scope), []
    calls.sort(key=lambda item: item[0].sort_key())
    if len(calls) > 1:
        calls = merge_nested(calls, others)
    if any(p is None and c.id for _, c, p in calls):
        calls = _own_ids(calls, others)
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
        aliases = [p.request_id for _, _, p in calls if p is not None and p.request_id]
        if needs_result:
            fill_results(
                [(c, p.request_id if p is not None else "") for _, c, p in calls], models, scope
            )
        if pending and scope.given and all(c.id for _, c, _ in calls):
            found = [call for _, call, _ in calls]
            extra = _unspanned(found, models, scope, others)
            if extra or any(call.start_time is None for call in found):
                found.extend(extra)
                found.sort(key=_start_key)  # (calls in span order are in start order already)
            return found, aliases
        return [call for _, call, _ in calls], aliases
    return [call for _, call, _ in calls], []


def _own_ids(
    calls: list[tuple[SpanView, ToolCall, PendingCall | None]], others: list[Any]
) -> list[tuple[SpanView, ToolCall, PendingCall | None]]:
    """Tool spans under an id of their own (a framework's run id) where the turn's model
    requests name their calls under other ids: such a span joins the unanswered request of
    its name and arguments (`assign`), like a span without an id."""
    traces = {view.trace_id for view, _, _ in calls}
    requested = {
        r.id
        for v in views_of(s for s in others if row_may_hold_requests(s))
        if v.trace_id in traces
        for r in safe_requested_calls(v)
    }
    if not requested:
        return calls
    return [
        (view, call, PendingCall(call.name, call.arguments, call.id, None, view.sort_key()))
        if pending is None and call.id and call.id not in requested
        else (view, call, pending)
        for view, call, pending in calls
    ]


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
        if not call.arguments:  # a streamed request lost them: the replayed history has them
            _replayed_arguments(call, context)
        if call.error is None:
            call.result = answered[request.id]
            note(call, "result", INPUT)
        extra.append(call)
    return extra


def _replayed_arguments(call: ToolCall, context: ConversationSpans) -> None:
    """Empty arguments of `call` from the first model input that replays its id with some."""
    for view in context.views():
        for replayed in replayed_calls(view):
            if replayed.id == call.id and replayed.arguments:
                call.arguments = dict(replayed.arguments)
                note(call, "arguments", REPLAY)
                return


def _from_messages(others: list[Any], context: ConversationSpans) -> list[ToolCall]:
    """Calls requested by this turn's model spans when the conversation has no tool span."""
    candidates = [s for s in others if row_may_hold_requests(s) or row_may_hold_responses(s)]
    if not candidates:
        return []
    models = sorted(views_of(candidates), key=SpanView.sort_key)
    if not any(safe_requested_calls(v, with_ids=False) for v in models):
        # no request recorded: calls a later model input replays may be the only evidence
        if context.given and context.has_tool_spans():
            return []
        if not any(replayed_calls(v) for v in models):
            return []
    if context.given:
        if context.has_tool_spans():
            return []  # the conversation records its calls as tool spans
        conversation, history = context.views(), context.answer_history()
    else:
        if any(v.may_be_tool_span() and is_tool_span(v) for v in models):
            return []
        conversation, history = models, None
    executions = sorted(views_of(others), key=SpanView.sort_key)
    return calls_from_messages(models, conversation, spans=executions, history=history)
