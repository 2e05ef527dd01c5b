"""Reading one tool call's fields from a span's attributes (SPEC §5).

Each function applies SPEC §5's precedence over the conventions we read:
OTel GenAI, OpenInference, OpenLLMetry (Traceloop), Logfire / Pydantic AI
(older `running tool` spans), Google ADK and the tracesim OpenAI-Agents
bridge (GenAI names). A source counts as present when it is not None and
not an empty string; the first present source wins.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from evaluator.extract_span import SpanView
from schemas import ADK, GENAI, LOGFIRE, OPENINFERENCE, OTEL, TRACELOOP

__all__ = [
    "coerce_arguments",
    "encode_result",
    "is_tool_span",
    "parse_arguments",
    "tool_arguments",
    "tool_call_id",
    "tool_error",
    "tool_name",
    "tool_result",
]

_ARGUMENT_KEYS = (
    GENAI.TOOL_CALL_ARGUMENTS,
    OPENINFERENCE.INPUT_VALUE,
    TRACELOOP.ENTITY_INPUT,  # unwrapped below: its `kwargs`
    ADK.TOOL_CALL_ARGS,
    LOGFIRE.TOOL_ARGUMENTS,
)
_RESULT_KEYS = (
    GENAI.TOOL_CALL_RESULT,
    OPENINFERENCE.OUTPUT_VALUE,
    TRACELOOP.ENTITY_OUTPUT,  # unwrapped below: may be a JSON wrapper
    ADK.TOOL_RESPONSE,
    LOGFIRE.TOOL_RESPONSE,
)
_ID_KEYS = (GENAI.TOOL_CALL_ID, OPENINFERENCE.TOOL_CALL_ID, OPENINFERENCE.TOOL_ID)
_NAME_KEYS = (GENAI.TOOL_NAME, OPENINFERENCE.TOOL_NAME, TRACELOOP.ENTITY_NAME)


def _present(value: Any) -> bool:
    return value is not None and value != ""


def is_tool_span(span: SpanView) -> bool:
    """True when the span records a tool call under any convention we read."""
    if span.name.startswith(GENAI.EXECUTE_TOOL_SPAN_PREFIX):
        return True
    attributes = span.attributes
    if not attributes:
        return False
    if attributes.get(GENAI.OPERATION_NAME) == GENAI.OP_EXECUTE_TOOL:
        return True
    if GENAI.TOOL_NAME in attributes or OPENINFERENCE.TOOL_NAME in attributes:
        return True
    kind = attributes.get(OPENINFERENCE.SPAN_KIND)
    if isinstance(kind, str) and kind.upper() == OPENINFERENCE.KIND_TOOL:
        return True
    kind = attributes.get(TRACELOOP.SPAN_KIND)
    return isinstance(kind, str) and kind.lower() == TRACELOOP.KIND_TOOL


def tool_name(span: SpanView) -> str:
    """gen_ai.tool.name > tool.name > traceloop.entity.name > span name minus `execute_tool `."""
    attributes = span.attributes
    for key in _NAME_KEYS:
        value = attributes.get(key)
        if _present(value):
            return str(value)
    if span.name.startswith(GENAI.EXECUTE_TOOL_SPAN_PREFIX):
        return span.name[len(GENAI.EXECUTE_TOOL_SPAN_PREFIX) :].strip()
    return ""


def tool_call_id(attributes: Mapping[str, Any]) -> str:
    """gen_ai.tool.call.id > tool_call.id > tool.id > "" (never a span id)."""
    for key in _ID_KEYS:
        value = attributes.get(key)
        if _present(value):
            return str(value)
    return ""


def coerce_arguments(value: Any) -> dict[str, Any]:
    """Arguments as a dict: a dict as-is, None as {}, anything else as {"input": value}.

    Tools that take one positional value (a string, a list) still get a
    mapping, so metrics can compare them like any other arguments.
    """
    if type(value) is dict or isinstance(value, Mapping):
        return {k if type(k) is str else str(k): v for k, v in value.items()}
    if value is None:
        return {}
    if isinstance(value, tuple):
        value = list(value)
    return {"input": value}


def _parse_text(text: str | bytes) -> tuple[bool, Any]:
    """JSON first, then a Python literal (`"{'a': 1}"`); (False, None) if neither."""
    try:
        return True, orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        return True, _json_like(ast.literal_eval(text.strip()))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _json_like(value: Any) -> Any:
    """Python literal -> JSON-like data: tuples and sets become lists, keys strings."""
    if isinstance(value, dict):
        return {str(k): _json_like(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_like(v) for v in value]
    return value


def parse_arguments(value: Any) -> dict[str, Any]:
    """Parse an arguments attribute: dict as-is, JSON text, then Python literal text.

    Text that is neither JSON nor a Python literal is kept as {"input": text}.
    """
    if isinstance(value, (str, bytes)):
        if not value.strip():
            return {}
        ok, parsed = _parse_text(value)
        return coerce_arguments(parsed if ok else value)
    return coerce_arguments(value)


def _unwrap_traceloop_input(value: Any) -> dict[str, Any]:
    """OpenLLMetry's entity input: `{"args": [...], "kwargs": {...}}` -> kwargs.

    Positional args, when there are any, are kept under "args". LangChain
    tool spans instrumented by OpenLLMetry carry `{"inputs": {...},
    "input_str": ...}` instead: `inputs` wins, then `input_str`.
    """
    if isinstance(value, (str, bytes)):
        ok, parsed = _parse_text(value) if value.strip() else (True, {})
        if not ok:
            return {"input": value}
        value = parsed
    if not isinstance(value, Mapping):
        return coerce_arguments(value)
    inputs = value.get("inputs")
    if isinstance(inputs, Mapping):
        return coerce_arguments(inputs)
    if "kwargs" in value or "args" in value:
        kwargs = value.get("kwargs")
        arguments = coerce_arguments(kwargs) if isinstance(kwargs, Mapping) else {}
        positional = value.get("args")
        if isinstance(positional, Sequence) and not isinstance(positional, str) and positional:
            arguments.setdefault("args", list(positional))
        return arguments
    if "input_str" in value:
        return parse_arguments(value["input_str"])
    return coerce_arguments(value)


def tool_arguments(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """gen_ai.tool.call.arguments > input.value > traceloop.entity.input (kwargs) > ADK > Logfire.

    `tool.parameters` is the tool's JSON schema, never its arguments.
    """
    for key in _ARGUMENT_KEYS:
        value = attributes.get(key)
        if not _present(value):
            continue
        if key == TRACELOOP.ENTITY_INPUT:
            return _unwrap_traceloop_input(value)
        return parse_arguments(value)
    return {}


def encode_result(value: Any) -> str | None:
    """A result as text: strings as-is, anything else JSON-encoded."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def _unwrap_traceloop_output(value: Any) -> str | None:
    """OpenLLMetry JSON-encodes return values: `"\\"sunny\\""` -> `sunny`.

    LangChain tool spans wrap it once more as `{"output": ..., "kwargs": ...}`;
    the wrapper is dropped. Other JSON (a dict the tool returned) stays as
    its JSON text.
    """
    if not isinstance(value, (str, bytes)):
        return encode_result(value)
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return encode_result(value)
    if isinstance(parsed, Mapping) and "output" in parsed and set(parsed) <= {"output", "kwargs"}:
        parsed = parsed["output"]
        return parsed if isinstance(parsed, str) else encode_result(parsed)
    if isinstance(parsed, str):
        return parsed
    return encode_result(value)


def tool_result(attributes: Mapping[str, Any]) -> str | None:
    """gen_ai.tool.call.result > output.value > traceloop.entity.output > ADK > Logfire."""
    for key in _RESULT_KEYS:
        value = attributes.get(key)
        if value is None:
            continue
        if key == TRACELOOP.ENTITY_OUTPUT:
            return _unwrap_traceloop_output(value)
        return encode_result(value)
    return None


def tool_error(span: SpanView) -> str | None:
    """Status ERROR (its message) > an `exception` event's message > `error.type`.

    A status ERROR without a message still marks the call failed; its text then
    comes from the next source in that order ("error" when there is none).
    """
    attributes = span.attributes
    error_type = attributes.get(OTEL.ERROR_TYPE)
    failed = span.status_code == "ERROR"
    if failed and span.status_message:
        return str(span.status_message)
    for event in span.events:
        if event.get("name") == OTEL.EXCEPTION_EVENT:
            event_attributes = event.get("attributes") or {}
            message = event_attributes.get(OTEL.EXCEPTION_MESSAGE)
            if _present(message):
                return str(message)
            kind = event_attributes.get(OTEL.EXCEPTION_TYPE)
            return str(kind) if _present(kind) else OTEL.EXCEPTION_EVENT
    if _present(error_type):
        return str(error_type)
    return "error" if failed else None
