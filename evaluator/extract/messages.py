"""Tool calls and results read from model messages (SPEC §5).

A conversation without any tool span (OpenLLMetry openai, a manual loop) records its
tool calls only in the model messages: each requested call (`recover`) is a
call, its result the tool message a later request carried back.

When a tool span lacks its result (OTel GenAI without content on spans, or no tool
span at all), the result is the tool message a later model request sent, found by
the call's id:
- OTel GenAI messages (`gen_ai.input.messages` on a span, or in an
  `gen_ai.client.inference.operation.details` log record): parts
  `{"type": "tool_call_response", "id", "response"}`; OpenAI-style
  `{"role": "tool", "tool_call_id", "content"}` messages too;
- OTel GenAI legacy events / log records `gen_ai.tool.message`: `{"content", "id"}`;
- OpenInference: `llm.input_messages.{i}.message.role = tool` with
  `.message.tool_call_id` and `.message.content`;
- OpenLLMetry legacy: `gen_ai.prompt.{i}.role = tool`, `.tool_call_id`, `.content`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from tracesim.evaluator.extract.envelopes import unwrap_value
from tracesim.evaluator.extract.fields import is_tool_span, tool_error
from tracesim.evaluator.extract.recover import safe_requested_calls
from tracesim.evaluator.extract.reused import Occurrences
from tracesim.evaluator.extract.span import SpanView, has_marker, json_or_none
from tracesim.schemas import GENAI, OPENINFERENCE, ToolCall, ToolCallSource
from tracesim.schemas.conventions import PROVIDER

__all__ = ["FAILURE_MARKERS", "calls_from_messages", "row_may_hold_responses", "tool_responses"]

logger = logging.getLogger(__name__)

_TOOL_MESSAGE_EVENT = GENAI.EVENT_TOOL_MESSAGE
_PROVIDER_MARKERS = (PROVIDER.ANTHROPIC_TOOL_RESULT, PROVIDER.BEDROCK_TOOL_RESULT)
FAILURE_MARKERS = (PROVIDER.ANTHROPIC_IS_ERROR, PROVIDER.BEDROCK_TOOL_RESULT)
"""Text a stored row holds when a model input may flag a tool result as failed."""
_MARKERS = (
    *_PROVIDER_MARKERS,  # inside a provider request body (`input.value`)
    f'"{GENAI.INPUT_MESSAGES}"',
    f'"{OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX}',
    f'"{GENAI.PROMPT_PREFIX}',
)


def row_may_hold_responses(span: Any) -> bool:
    """False only for a `spans` row (dict with JSON text) that certainly carries no tool
    message (no input-message attribute, no events)."""
    if type(span) is not dict:
        return True
    raw = span.get("attributes")
    if not isinstance(raw, str):
        return True
    events = span.get("events")
    if isinstance(events, str) and len(events) > 2:
        return True
    return has_marker(raw, _MARKERS)


def _from_messages(value: Any) -> Iterable[tuple[Any, Any]]:
    messages = json_or_none(value)
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, Mapping):
            continue
        for part in message.get("parts") or ():
            if isinstance(part, Mapping) and part.get("type") == GENAI.PART_TOOL_CALL_RESPONSE:
                yield part.get("id"), part.get("response")
        if message.get("role") == "tool" and message.get("tool_call_id"):
            yield message.get("tool_call_id"), message.get("content")


def _from_indexed(attributes: Mapping[str, Any], prefix: str, middle: str) -> list[tuple]:
    """`{prefix}{i}.{middle}role = tool` messages -> (tool_call_id, content)."""
    found = []
    for key, role in attributes.items():
        if role != "tool" or not key.startswith(prefix) or not key.endswith(middle + "role"):
            continue
        head = key[: -len("role")]
        found.append((attributes.get(head + "tool_call_id"), attributes.get(head + "content")))
    return found


def _provider_results(value: Any, failed: set[str]) -> Iterable[tuple[Any, Any]]:
    """Tool results in a provider request body (OpenInference's `input.value`): Anthropic
    Messages `tool_result` blocks {tool_use_id, content, is_error} (Python and JS SDKs) and
    Bedrock Converse `toolResult` {toolUseId, content, status}. Failed ids go to `failed`."""
    body = json_or_none(value)
    messages = body.get("messages") if isinstance(body, Mapping) else body
    for message in messages if isinstance(messages, list) else ():
        content = message.get("content") if isinstance(message, Mapping) else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == PROVIDER.ANTHROPIC_TOOL_RESULT:
                call_id, error = block.get("tool_use_id"), block.get("is_error") is True
            elif isinstance(block.get(PROVIDER.BEDROCK_TOOL_RESULT), Mapping):
                block = block[PROVIDER.BEDROCK_TOOL_RESULT]
                call_id, error = block.get("toolUseId"), block.get("status") == "error"
            else:
                continue
            if call_id and error:
                failed.add(str(call_id))
            yield call_id, block.get("content")


def _from_attributes(
    attributes: Mapping[str, Any], failed: set[str] | None = None
) -> list[tuple[Any, Any]]:
    pairs: list[tuple[Any, Any]] = []
    messages = attributes.get(GENAI.INPUT_MESSAGES)
    if messages:
        pairs.extend(_from_messages(messages))
    pairs.extend(_from_indexed(attributes, OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX, "message."))
    pairs.extend(_from_indexed(attributes, GENAI.PROMPT_PREFIX, ""))
    body = attributes.get(OPENINFERENCE.INPUT_VALUE)
    if isinstance(body, str) and has_marker(body, _PROVIDER_MARKERS):
        pairs.extend(_provider_results(body, failed if failed is not None else set()))
    return pairs


def _span_responses(span: SpanView, failed: set[str] | None = None) -> list[tuple[Any, Any]]:
    pairs: list[tuple[Any, Any]] = []
    if span.may_hold_text(*_MARKERS):
        pairs.extend(_from_attributes(span.attributes, failed))
    for event in span.events:
        attributes = event.get("attributes")
        if not isinstance(attributes, Mapping):
            continue
        if event.get("name") == _TOOL_MESSAGE_EVENT:
            pairs.append((attributes.get("id"), attributes.get("content")))
        else:
            pairs.extend(_from_attributes(attributes))
    return pairs


def tool_responses(
    spans: Iterable[SpanView], *, failed: set[str] | None = None
) -> dict[str, str | None]:
    """Tool-call id -> the result its tool message carried (first seen), over `spans`;
    `failed` receives the ids a message flags as failed (`is_error`, `status: error`)."""
    found: dict[str, str | None] = {}
    for span in spans:
        try:
            if span.may_be_tool_span() and is_tool_span(span):
                continue  # a tool span's own events are its input and output (Strands)
            pairs = _span_responses(span, failed)
        except Exception as exc:  # one bad model span must not stop extraction
            logger.warning("skipping span %s for tool results: %s", span.span_id, exc)
            continue
        for call_id, content in pairs:
            if call_id and str(call_id) not in found:
                found[str(call_id)] = _answer_text(content)
    return found


def _answer_text(content: Any) -> str | None:
    """A tool message's content as the call's result text (envelopes unwrapped)."""
    value = unwrap_value(content).value
    if value is not None and not isinstance(value, str):
        value = orjson.dumps(value).decode()
    return value


def lone_error(content: Any) -> str | None:
    """The message of a function response that is a lone `{"error": message}` (how the
    Gemini API's function responses report a failure, SPEC §5), else None."""
    decoded = json_or_none(content) if isinstance(content, str) else content
    if isinstance(decoded, Mapping) and len(decoded) == 1 and "error" in decoded:
        error = decoded["error"]
        return error if isinstance(error, str) else orjson.dumps(error).decode()
    return None


def ordered_answers(view: SpanView) -> list[tuple[str, Any, bool]]:
    """The tool messages a view's model input carried, in message order, repeats kept:
    (call id, result or error text, whether it is an error)."""
    try:
        if view.may_be_tool_span() and is_tool_span(view):
            return []
        pairs = _span_responses(view)
    except Exception as exc:  # one bad model span must not stop extraction
        logger.warning("skipping span %s for tool results: %s", view.span_id, exc)
        return []
    answers = []
    for call_id, content in pairs:
        if call_id:
            error = lone_error(content)
            text = error if error is not None else _answer_text(content)
            answers.append((str(call_id), text, error is not None))
    return answers


def _execution(
    call: ToolCall, after: tuple, spans: list[SpanView], used: set[str]
) -> SpanView | None:
    """The first unused span named after the tool that started after its request: the
    function's own span where the framework traces it without a tool convention (OpenLIT
    `@trace`, manual spans)."""
    for span in spans:
        if span.name == call.name and span.span_id not in used and span.sort_key() > after:
            return span
    return None


def calls_from_messages(
    models: list[SpanView],
    conversation: list[SpanView],
    *,
    spans: list[SpanView] = (),
    responses: dict[str, str | None] | None = None,
) -> list[ToolCall]:
    """The calls `models` (a turn's model spans, in start order) requested, with the results
    found in `conversation`'s model messages; for a conversation without tool spans. A span
    of `spans` named after the tool is the call's execution: its failure is the error.
    `responses`: `tool_responses(conversation)` when the caller already has it."""
    calls: list[ToolCall] = []
    seen: set[tuple[str, int]] = set()
    used: set[str] = set()
    occurrences = Occurrences.of(conversation or models, ordered_answers)
    reused: list[tuple[ToolCall, str, int]] = []  # calls under an id made up per request
    for view in models:
        for index, request in enumerate(safe_requested_calls(view, with_ids=False)):
            ordinal = occurrences.ordinal(view, index) if request.id in occurrences.reused else 0
            if request.id and (request.id, ordinal) in seen:
                continue
            seen.add((request.id, ordinal))
            provenance = {"name": "model_request"}
            if request.id:
                provenance["id"] = "model_request"
            if request.arguments:
                provenance["arguments"] = "model_request"
            call = ToolCall(
                id=request.id,
                name=request.name,
                arguments=dict(request.arguments),
                source=ToolCallSource.TRACING_PROCESSOR,
                span_id=view.span_id or None,
                start_time=view.start_time,
                provenance=provenance,
            )
            execution = _execution(call, view.sort_key(), list(spans), used)
            if execution is not None:
                used.add(execution.span_id)
                call.span_id, call.start_time = execution.span_id, execution.start_time
                call.error = tool_error(execution)
                if call.error is not None:
                    provenance["error"] = "execution_span"
            if request.id in occurrences.reused:
                reused.append((call, request.id, ordinal))
            calls.append(call)
    for call, call_id, ordinal in reused:
        _answer_by_position(call, occurrences.answer(call_id, ordinal))
    if calls:
        results = tool_responses(conversation) if responses is None else responses
        for call in calls:
            if call.error is None and call.result is None and call.id:
                call.result = results.get(call.id)
                error = lone_error(call.result) if call.result else None
                if error is not None:
                    call.error, call.result = error, None
                    call.provenance["error"] = "model_input"  # type: ignore[index]
                elif call.result is not None:
                    call.provenance["result"] = "model_input"  # type: ignore[index]
        if any(not c.id and c.result is None and c.error is None for c in calls):
            _pair_unnamed_answers(calls, conversation or models)
    return calls


def _answer_by_position(call: ToolCall, answer: tuple[Any, bool] | None) -> None:
    """A call under a reused id takes the answer of its position; its id names no one call
    and is dropped (an id that is not unique within the turn counts as missing)."""
    call.id = ""
    provenance = call.provenance if call.provenance is not None else {}
    provenance.pop("id", None)
    call.provenance = provenance
    if answer is None or call.error is not None:
        return
    text, failed = answer
    if failed:
        call.error = text
        provenance["error"] = "model_input_position"
    elif text is not None:
        call.result = text
        provenance["result"] = "model_input_position"


def _unnamed_answers(views: list[SpanView]) -> list[tuple[str, Any]]:
    """Tool messages without a call id (Gemini function responses: OpenInference
    `llm.input_messages.N.message.role = tool` with `.name`), in conversation order: each
    model input repeats the history, so a message is known by its index (first seen)."""
    by_index: dict[int, tuple[str, Any]] = {}
    prefix = OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX
    for view in views:
        if not view.may_hold_text(f'"{prefix}'):
            continue
        attributes = view.attributes
        for key, role in attributes.items():
            if role != "tool" or not key.startswith(prefix) or not key.endswith(".message.role"):
                continue
            head = key[: -len("role")]
            index = key[len(prefix) :].partition(".")[0]
            if not index.isdigit() or attributes.get(head + "tool_call_id"):
                continue
            name = attributes.get(head + "name")
            by_index.setdefault(int(index), (str(name or ""), attributes.get(head + "content")))
    return [by_index[i] for i in sorted(by_index)]


def _pair_unnamed_answers(calls: list[ToolCall], views: list[SpanView]) -> None:
    """Id-less calls take the id-less tool messages in order, by tool name (SPEC §5: pair by
    position and name where ids are missing); `{"error": msg}` is the call's error."""
    answers = _unnamed_answers(views)
    for call in calls:
        if call.id or call.result is not None or call.error is not None:
            continue
        index = next((i for i, (name, _) in enumerate(answers) if name in ("", call.name)), None)
        if index is None:
            continue
        _, content = answers.pop(index)
        decoded = json_or_none(content) if isinstance(content, str) else content
        if isinstance(decoded, Mapping) and len(decoded) == 1 and "error" in decoded:
            call.error = str(decoded["error"])
            call.provenance["error"] = "model_input_position"  # type: ignore[index]
            continue
        value = unwrap_value(content).value
        if value is not None and not isinstance(value, str):
            value = orjson.dumps(value).decode()
        call.result = value
        call.provenance["result"] = "model_input_position"  # type: ignore[index]
