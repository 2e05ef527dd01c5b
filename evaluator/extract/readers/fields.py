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
from tracesim.evaluator.extract.readers.envelopes import (
    is_placeholder,
    mcp_call_arguments,
    unwrap_arguments,
    unwrap_value,
)
from tracesim.evaluator.extract.readers.errors import error_output, tool_error
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ADK, GENAI, LOGFIRE, MLFLOW, OPENINFERENCE, TRACELOOP, UIPATH
from tracesim.schemas.conventions import (
    AI_SDK,
    ANY_AGENT,
    HAYSTACK,
    LANGFUSE,
    LANGSMITH,
    LLAMA_INDEX,
    MCP,
    TOOL_SPAN_NAME_SUFFIXES,
)

__all__ = [
    "coerce_arguments",
    "encode_result",
    "error_output",
    "is_tool_span",
    "mlflow_span_type",
    "name_from_span_name",
    "parse_arguments",
    "read_arguments",
    "read_output",
    "read_result",
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
    MLFLOW.SPAN_INPUTS,
    AI_SDK.TOOL_CALL_ARGS,
    HAYSTACK.TOOL_INPUT,
    LANGSMITH.TOOL_INPUT,
    LLAMA_INDEX.TOOL_ARGUMENTS,
    LANGFUSE.INPUT,
    OPENINFERENCE.TOOL_CALL_FUNCTION_ARGUMENTS,  # arksim's documented tool-span convention
    ANY_AGENT.TOOL_ARGS,  # any-agent (specific: its 7 framework adapters share it)
)
_RESULT_KEYS = (
    GENAI.TOOL_CALL_RESULT,
    OPENINFERENCE.OUTPUT_VALUE,
    TRACELOOP.ENTITY_OUTPUT,  # unwrapped below: may be a JSON wrapper
    ADK.TOOL_RESPONSE,
    LOGFIRE.TOOL_RESPONSE,
    MLFLOW.SPAN_OUTPUTS,
    AI_SDK.TOOL_CALL_RESULT,
    HAYSTACK.TOOL_OUTPUT,
    LANGSMITH.TOOL_OUTPUT,
    LANGFUSE.OUTPUT,
    ANY_AGENT.OUTPUT,  # any-agent (specific)
)
_ID_KEYS = (
    GENAI.TOOL_CALL_ID,
    OPENINFERENCE.TOOL_CALL_ID,
    OPENINFERENCE.TOOL_ID,
    AI_SDK.TOOL_CALL_ID,
)
_NAME_KEYS = (
    GENAI.TOOL_NAME,
    OPENINFERENCE.TOOL_NAME,
    TRACELOOP.ENTITY_NAME,
    AI_SDK.TOOL_CALL_NAME,
    HAYSTACK.TOOL_NAME,
    OPENINFERENCE.TOOL_CALL_FUNCTION_NAME,  # arksim's documented tool-span convention
)
_MODEL_OPERATIONS = frozenset(
    (GENAI.OP_CHAT, GENAI.OP_TEXT_COMPLETION, GENAI.OP_GENERATE_CONTENT, GENAI.OP_EMBEDDINGS)
)
_JSON_ENCODED_RESULTS = (TRACELOOP.ENTITY_OUTPUT, MLFLOW.SPAN_OUTPUTS, AI_SDK.TOOL_CALL_RESULT)


FIELD_KEYS = frozenset((*_ARGUMENT_KEYS, *_RESULT_KEYS, *_ID_KEYS))
"""Attributes a tool call's fields are read from (events may carry them instead)."""


def _present(value: Any) -> bool:
    """Not None, not empty, not a placeholder such as ADK's `<not specified>`."""
    return not is_placeholder(value)


def mlflow_span_type(attributes: Mapping[str, Any]) -> str | None:
    """MLflow's span type (stored JSON-encoded: `"\"TOOL\""`), upper-case, or None."""
    value = attributes.get(MLFLOW.SPAN_TYPE)
    if not isinstance(value, str):
        return None
    return value.strip().strip('"').upper() or None


def is_tool_span(span: SpanView) -> bool:
    """True when the span records a tool call under any convention we read.

    A UiPath-style `tool.synthesized` container around the real tool span is not a call.
    """
    attributes = span.attributes
    if attributes and attributes.get(UIPATH.TOOL_SYNTHESIZED) in (True, "true", "True"):
        return False
    if span.name.startswith(GENAI.EXECUTE_TOOL_SPAN_PREFIX):
        return True
    if not attributes:
        return False
    if mlflow_span_type(attributes) == MLFLOW.TYPE_TOOL:
        return True
    if attributes.get(LANGFUSE.OBSERVATION_TYPE) == LANGFUSE.TYPE_TOOL:
        return True
    operation = attributes.get(GENAI.OPERATION_NAME)
    if operation == GENAI.OP_EXECUTE_TOOL:
        return True
    if isinstance(operation, str) and operation in _MODEL_OPERATIONS:  # (a bad value: no op)
        return False  # a model span naming the call it requested (OpenLIT), not a tool span
    if GENAI.TOOL_NAME in attributes or OPENINFERENCE.TOOL_NAME in attributes:
        return True
    if AI_SDK.TOOL_CALL_NAME in attributes or HAYSTACK.TOOL_NAME in attributes:
        return True
    if attributes.get(MCP.METHOD_NAME) == MCP.TOOLS_CALL:
        return True  # an MCP client or server span of a tool call (one call with its parent)
    if OPENINFERENCE.TOOL_CALL_FUNCTION_NAME in attributes:
        return True  # arksim's tool spans: `tool_call.function.name` / `.arguments`
    kind = attributes.get(OPENINFERENCE.SPAN_KIND)
    if isinstance(kind, str) and kind.upper() == OPENINFERENCE.KIND_TOOL:
        return True
    kind = attributes.get(TRACELOOP.SPAN_KIND)
    return isinstance(kind, str) and kind.lower() == TRACELOOP.KIND_TOOL


def name_from_span_name(name: str) -> str:
    """The tool's name in a span name that is only the tool's: `execute_tool t`,
    `tools/call t` (MCP), `t.__call__` (OpenInference), `t.tool` (OpenLLMetry) -> `t`."""
    name = name.strip()
    for prefix in (GENAI.EXECUTE_TOOL_SPAN_PREFIX, MCP.TOOLS_CALL + " "):
        if name.startswith(prefix):
            return name[len(prefix) :].strip()
    for suffix in TOOL_SPAN_NAME_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def tool_name(span: SpanView) -> str:
    """gen_ai.tool.name > tool.name > traceloop.entity.name > ... > the span name minus
    `execute_tool ` / call suffixes (a tool span that names its tool nowhere else: MLflow,
    Langfuse, OpenInference TOOL spans without `tool.name`, MCP `tools/call t`)."""
    attributes = span.attributes
    for key in _NAME_KEYS:
        value = attributes.get(key)
        if value is not None and _present(value):
            return str(value)
    if span.name.startswith(GENAI.EXECUTE_TOOL_SPAN_PREFIX):
        return span.name[len(GENAI.EXECUTE_TOOL_SPAN_PREFIX) :].strip()
    if mlflow_span_type(attributes) == MLFLOW.TYPE_TOOL:
        return span.name  # MLflow names a tool span after the function
    if attributes.get(LANGFUSE.OBSERVATION_TYPE) == LANGFUSE.TYPE_TOOL:
        return span.name  # so does Langfuse's @observe(as_type="tool")
    if attributes.get(MCP.METHOD_NAME) == MCP.TOOLS_CALL:
        return name_from_span_name(span.name)
    kind = attributes.get(OPENINFERENCE.SPAN_KIND)
    if isinstance(kind, str) and kind.upper() == OPENINFERENCE.KIND_TOOL:
        return name_from_span_name(span.name)
    kind = attributes.get(TRACELOOP.SPAN_KIND)
    if isinstance(kind, str) and kind.lower() == TRACELOOP.KIND_TOOL:
        return name_from_span_name(span.name)
    return ""


def tool_call_id(attributes: Mapping[str, Any]) -> str:
    """gen_ai.tool.call.id > tool_call.id > tool.id > "" (never a span id)."""
    for key in _ID_KEYS:
        value = attributes.get(key)
        if value is not None and _present(value):
            return str(value)
    return ""


def coerce_arguments(value: Any) -> dict[str, Any]:
    """Arguments as a dict: a dict as-is, None as {}, anything else as {"input": value}.

    Tools that take one positional value (a string, a list) still get a
    mapping, so metrics can compare them like any other arguments.
    """
    if type(value) is dict or isinstance(value, Mapping):
        for key in value:
            if type(key) is not str:
                return {k if type(k) is str else str(k): v for k, v in value.items()}
        return dict(value)
    if value is None:
        return {}
    if isinstance(value, tuple):
        value = list(value)
    return {"input": value}


_WRITABLE_DEPTH = 254
"""Deepest nesting orjson writes back (it refuses 255 levels and more); deeper text is kept."""


def _parse_text(text: str | bytes) -> tuple[bool, Any]:
    """JSON first, then a Python literal (`"{'a': 1}"`); (False, None) if neither, or if it
    nests deeper than results can be written (the caller then keeps the raw text)."""
    if _may_nest_too_deep(text):
        return False, None
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


def _may_nest_too_deep(text: str | bytes) -> bool:
    """True when `text` nests brackets past `_WRITABLE_DEPTH` (a C-speed count first: only
    text with that many brackets is scanned)."""
    opening = ("{", "[") if isinstance(text, str) else (b"{", b"[")
    if text.count(opening[0]) + text.count(opening[1]) <= _WRITABLE_DEPTH:
        return False
    depth = 0
    quoted = escaped = False
    for char in text.decode("utf-8", "replace") if isinstance(text, bytes) else text:
        if quoted:
            escaped, quoted = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            quoted = True
        elif char == "{" or char == "[":
            depth += 1
            if depth > _WRITABLE_DEPTH:
                return True
        elif char == "}" or char == "]":
            depth -= 1
    return False


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
    if not (type(value) is dict or isinstance(value, Mapping)):
        return coerce_arguments(value)
    mcp = mcp_call_arguments(value)
    if mcp is not None:
        return coerce_arguments(mcp)  # an MCP tools/call envelope (OpenLLMetry's MCP spans)
    inputs = value.get("inputs")
    if type(inputs) is dict or isinstance(inputs, Mapping):
        return coerce_arguments(inputs)
    if "kwargs" in value or "args" in value:
        kwargs = value.get("kwargs")
        arguments = (
            coerce_arguments(kwargs)
            if (type(kwargs) is dict or isinstance(kwargs, Mapping))
            else {}
        )
        positional = value.get("args")
        if not arguments and isinstance(positional, list) and len(positional) == 1:
            ok, only = (
                _parse_text(positional[0])
                if isinstance(positional[0], str)
                else (True, positional[0])
            )
            if ok and (type(only) is dict or isinstance(only, Mapping)):
                return coerce_arguments(only)  # LangChain.js: the tool's input, as JSON text
        if isinstance(positional, Sequence) and not isinstance(positional, str) and positional:
            arguments.setdefault("args", list(positional))
        return arguments
    if "input_str" in value:
        return parse_arguments(value["input_str"])
    return coerce_arguments(value)


def read_arguments(attributes: Mapping[str, Any]) -> tuple[dict[str, Any], bool, str]:
    """(arguments, whether the span's input was an object of arguments, envelope call id).

    gen_ai.tool.call.arguments > input.value > traceloop.entity.input (kwargs) > ADK >
    Logfire > MLflow span inputs; LangChain ToolCall and callback envelopes unwrapped.
    A bare value (a string) is kept as {"input": value} and flagged (as are arguments
    not recorded at all), so the caller may take them from the model's request instead. `tool.parameters` (a schema)
    is never read.
    """
    for key in _ARGUMENT_KEYS:
        value = attributes.get(key)
        if value is None or not _present(value):
            continue
        if key == TRACELOOP.ENTITY_INPUT:
            arguments = _unwrap_traceloop_input(value)
            return arguments, "input" not in arguments or len(arguments) != 1, ""
        if isinstance(value, (str, bytes)):
            ok, parsed = _parse_text(value) if value.strip() else (True, {})
            value = parsed if ok else value
        unwrapped = unwrap_arguments(value)
        value = unwrapped.value
        is_object = type(value) is dict or isinstance(value, Mapping)
        return coerce_arguments(value), is_object, unwrapped.call_id
    return {}, False, ""  # none recorded: the requesting model span may hold them


def tool_arguments(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments `read_arguments` finds."""
    return read_arguments(attributes)[0]


def encode_result(value: Any) -> str | None:
    """A result as text: strings as-is, anything else JSON-encoded."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def read_result(attributes: Mapping[str, Any]) -> tuple[str | None, str]:
    """(result text, envelope call id): gen_ai.tool.call.result > output.value >
    traceloop.entity.output > ADK > Logfire > MLflow span outputs, envelopes unwrapped
    (`evaluator.extract.readers.envelopes`); a placeholder is no result. See `read_output` for
    the failure an envelope may report."""
    text, call_id, _ = read_output(attributes)
    return text, call_id


def read_output(attributes: Mapping[str, Any]) -> tuple[str | None, str, bool]:
    """`read_result` plus whether the envelope reported a failure (the text is then the
    error)."""
    for key in _RESULT_KEYS:
        value = attributes.get(key)
        if value is None:
            continue
        if key in _JSON_ENCODED_RESULTS and isinstance(value, str):
            try:  # these JSON-encode the return value: `"\"sunny\""` -> `sunny`
                decoded = orjson.loads(value)
            except orjson.JSONDecodeError:
                decoded = value
            value = decoded if isinstance(decoded, str) else value
        unwrapped = unwrap_value(value)
        return encode_result(unwrapped.value), unwrapped.call_id, unwrapped.failed
    return None, "", False


def tool_result(attributes: Mapping[str, Any]) -> str | None:
    """The result `read_result` finds."""
    return read_result(attributes)[0]
