"""Reading one tool call's fields from a span's attributes (SPEC §5).

Each function applies SPEC §5's precedence over the conventions we read:
OTel GenAI, OpenInference, OpenLLMetry (Traceloop), Logfire / Pydantic AI
(older `running tool` spans), Google ADK and the tracesim OpenAI-Agents
bridge (GenAI names). A source counts as present when it is not None and
not an empty string; the first present source wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from tracesim.evaluator.extract.readers.arguments import (
    ARGUMENT_KEYS,
    coerce_arguments,
    parse_arguments,
    read_arguments,
    tool_arguments,
)
from tracesim.evaluator.extract.readers.envelopes import is_placeholder, unwrap_value
from tracesim.evaluator.extract.readers.errors import error_output, tool_error
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ADK, GENAI, LOGFIRE, MLFLOW, OPENINFERENCE, TRACELOOP, UIPATH
from tracesim.schemas.conventions import (
    AI_SDK,
    ANY_AGENT,
    HAYSTACK,
    LANGFUSE,
    LANGSMITH,
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


FIELD_KEYS = frozenset((*ARGUMENT_KEYS, *_RESULT_KEYS, *_ID_KEYS))
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
