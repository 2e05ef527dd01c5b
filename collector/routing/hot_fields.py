"""Hot columns (operation, tool_name, model, tokens) from whichever convention a span uses.

Pure functions over a decoded attribute dict; precedence follows SPEC §4/§5. Every reader
takes any shape (a number where a list is expected, ...) and then derives None for it
(fuzzed in tests/collector/test_convention_shapes.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from tracesim.schemas.conventions import (
    AI_SDK,
    GENAI,
    GENKIT,
    HAYSTACK,
    LANGFUSE,
    LLAMA_INDEX,
    LOGFIRE,
    MLFLOW,
    OPENINFERENCE,
    TRACELOOP,
)

__all__ = ["CONTENT_ATTRIBUTES", "HOT_ATTRIBUTES", "HotFields", "hot_fields", "as_int"]

HotFields = tuple[str | None, str | None, str | None, int | None, int | None]
"""(operation, tool_name, model, input_tokens, output_tokens)."""

_OPENINFERENCE_OPS = {
    OPENINFERENCE.KIND_TOOL: GENAI.OP_EXECUTE_TOOL,
    OPENINFERENCE.KIND_LLM: GENAI.OP_CHAT,
    OPENINFERENCE.KIND_AGENT: GENAI.OP_INVOKE_AGENT,
}
_PREFIX = GENAI.EXECUTE_TOOL_SPAN_PREFIX
_CLIENT = "CLIENT"  # the span kind of a call to a remote service (an inference client span)
_OI_MESSAGES = (OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX, OPENINFERENCE.LLM_OUTPUT_MESSAGES_PREFIX)
_MLFLOW_OPS = {
    f'"{MLFLOW.TYPE_TOOL}"': GENAI.OP_EXECUTE_TOOL,
    **{f'"{kind}"': GENAI.OP_CHAT for kind in MLFLOW.MODEL_TYPES},
    '"AGENT"': GENAI.OP_INVOKE_AGENT,
}
"""MLflow span types (stored JSON-encoded) -> GenAI operation."""

HOT_ATTRIBUTES: frozenset[str] = frozenset(
    (
        GENAI.OPERATION_NAME,
        AI_SDK.OPERATION_ID,
        TRACELOOP.LLM_REQUEST_TYPE,
        OPENINFERENCE.SPAN_KIND,
        TRACELOOP.SPAN_KIND,
        GENAI.TOOL_NAME,
        OPENINFERENCE.TOOL_NAME,
        TRACELOOP.ENTITY_NAME,
        MLFLOW.SPAN_TYPE,
        MLFLOW.CHAT_USAGE,
        AI_SDK.TOOL_CALL_NAME,
        HAYSTACK.TOOL_NAME,
        HAYSTACK.LLM_OUTPUT,
        LANGFUSE.OBSERVATION_TYPE,
        LANGFUSE.USAGE_DETAILS,
        LANGFUSE.MODEL_NAME,
        GENAI.RESPONSE_MODEL,
        GENAI.REQUEST_MODEL,
        OPENINFERENCE.LLM_MODEL_NAME,
        GENAI.USAGE_INPUT_TOKENS,
        GENAI.USAGE_PROMPT_TOKENS,
        OPENINFERENCE.LLM_TOKEN_COUNT_PROMPT,
        GENAI.USAGE_OUTPUT_TOKENS,
        GENAI.USAGE_COMPLETION_TOKENS,
        OPENINFERENCE.LLM_TOKEN_COUNT_COMPLETION,
        GENAI.RESPONSE_ID,
        GENKIT.SUBTYPE,
        GENKIT.NAME,
        GENKIT.OUTPUT,
    )
)
"""Every attribute `hot_fields` reads (redaction leaves them alone, so the stored attributes
agree with the hot columns), but `CONTENT_ATTRIBUTES`."""
CONTENT_ATTRIBUTES: frozenset[str] = frozenset({HAYSTACK.LLM_OUTPUT, GENKIT.OUTPUT})
"""Hot attributes that hold free text (a model's replies): redaction may change them, so it
first writes what `hot_fields` derives from them as GenAI attributes, which the reader
falls back to."""


def as_int(value: Any) -> int | None:
    """An int from an int, integral float or decimal string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _text(value: Any) -> str | None:
    """A non-empty string value, else None."""
    return value if isinstance(value, str) and value else None


def _first_int(attrs: dict[str, Any], *keys: str) -> int | None:
    """First key present with an integer value."""
    for key in keys:
        if key in attrs:
            number = as_int(attrs[key])
            if number is not None:
                return number
    return None


def _records_a_model_call(attrs: dict[str, Any]) -> bool:
    """An OpenInference LLM span records a model call when it carries usage or messages;
    one with neither is a framework helper or a wrapper (LlamaIndex's
    `_prepare_chat_with_tools`, the outer `achat`), not a model call (SPEC §5)."""
    if OPENINFERENCE.LLM_TOKEN_COUNT_PROMPT in attrs or (
        OPENINFERENCE.LLM_TOKEN_COUNT_COMPLETION in attrs
    ):
        return True
    return any(key.startswith(_OI_MESSAGES) for key in attrs)


def hot_fields(
    name: str, attrs: dict[str, Any], kind: str | None = None, events: Sequence[Any] = ()
) -> HotFields:
    """Derive the hot columns of one span from its name, attributes and span kind
    (`CLIENT`, ...: only an inference span known by what it carries needs it); `events`
    ((name, ...) tuples or {name} mappings) only for a span no attribute names."""
    get = attrs.get
    traceloop_kind = get(TRACELOOP.SPAN_KIND)
    operation = _text(get(GENAI.OPERATION_NAME))
    if operation is None:
        inference_kind = get(OPENINFERENCE.SPAN_KIND)
        if isinstance(inference_kind, str):
            operation = _OPENINFERENCE_OPS.get(inference_kind.upper())
            if operation == GENAI.OP_CHAT and not _records_a_model_call(attrs):
                return None, None, None, None, None
        if operation is None and traceloop_kind == TRACELOOP.KIND_TOOL:
            operation = GENAI.OP_EXECUTE_TOOL
        if operation is None and name.startswith(_PREFIX):
            operation = GENAI.OP_EXECUTE_TOOL
        if operation is None and AI_SDK.TOOL_CALL_NAME in attrs:
            operation = GENAI.OP_EXECUTE_TOOL
        if operation is None and MLFLOW.SPAN_TYPE in attrs:
            return _mlflow_fields(name, attrs)
        if operation is None and HAYSTACK.TOOL_NAME in attrs:
            operation = GENAI.OP_EXECUTE_TOOL
        if operation is None and HAYSTACK.LLM_OUTPUT in attrs:
            return _haystack_llm_fields(attrs)
        if operation is None and LANGFUSE.OBSERVATION_TYPE in attrs:
            return _langfuse_fields(name, attrs)
        if operation is None and GENKIT.SUBTYPE in attrs:
            return _genkit_fields(attrs)
        if operation is None and (
            get(LLAMA_INDEX.STEP_INPUT_EVENT) == LLAMA_INDEX.TOOL_CALL_EVENT  # repr only
            or get(LOGFIRE.MSG_TEMPLATE) == LOGFIRE.AGENTS_FUNCTION_TEMPLATE
        ):
            operation = GENAI.OP_EXECUTE_TOOL
        if operation is None:
            operation = _inference_operation(get)
        if operation is None and kind == _CLIENT and _carries_an_inference(attrs):
            operation = GENAI.OP_CHAT
        if operation is None and events:
            operation = _event_operation(events)
    tool_name = (
        _text(get(GENAI.TOOL_NAME))
        or _text(get(OPENINFERENCE.TOOL_NAME))
        or _text(get(AI_SDK.TOOL_CALL_NAME))
        or _text(get(HAYSTACK.TOOL_NAME))
    )
    if tool_name is None and traceloop_kind == TRACELOOP.KIND_TOOL:
        tool_name = _text(get(TRACELOOP.ENTITY_NAME))
    if tool_name is None and name.startswith(_PREFIX):
        tool_name = name[len(_PREFIX) :].strip() or None
    if tool_name is None and get(LOGFIRE.MSG_TEMPLATE) == LOGFIRE.AGENTS_FUNCTION_TEMPLATE:
        tool_name = _text(get(LOGFIRE.AGENTS_FUNCTION_NAME))
    model = (
        _text(get(GENAI.RESPONSE_MODEL))
        or _text(get(GENAI.REQUEST_MODEL))
        or _text(get(OPENINFERENCE.LLM_MODEL_NAME))
    )
    input_tokens = _first_int(
        attrs,
        GENAI.USAGE_INPUT_TOKENS,
        GENAI.USAGE_PROMPT_TOKENS,
        OPENINFERENCE.LLM_TOKEN_COUNT_PROMPT,
    )
    output_tokens = _first_int(
        attrs,
        GENAI.USAGE_OUTPUT_TOKENS,
        GENAI.USAGE_COMPLETION_TOKENS,
        OPENINFERENCE.LLM_TOKEN_COUNT_COMPLETION,
    )
    return operation, tool_name, model, input_tokens, output_tokens


def _carries_an_inference(attrs: dict[str, Any]) -> bool:
    """A span without an operation that records a model's response as GenAI inference spans
    do: a model, token usage and the response's own id (the GenAI semantic conventions'
    example client span). Agent and workflow spans that only repeat a model name or sum
    usage carry no response id of their own (SPEC §5)."""
    get = attrs.get
    return bool(
        (_text(get(GENAI.RESPONSE_MODEL)) or _text(get(GENAI.REQUEST_MODEL)))
        and _text(get(GENAI.RESPONSE_ID))
        and _first_int(attrs, GENAI.USAGE_INPUT_TOKENS, GENAI.USAGE_OUTPUT_TOKENS) is not None
    )


def _event_operation(events: Sequence[Any]) -> str | None:
    """The model operation a span records by an event only: LlamaIndex's own OTel
    integration names span events after the instrumentation events it dispatched, and a
    model call's span alone carries `LLMChatStartEvent` / `LLMCompletionStartEvent`
    (specific to LlamaIndex: no attribute says it is a model call)."""
    for event in events:
        name = event.get("name") if isinstance(event, dict) else event[0]
        operation = LLAMA_INDEX.MODEL_START_EVENTS.get(name) if isinstance(name, str) else None
        if operation is not None:
            return operation
    return None


def _inference_operation(get: Any) -> str | None:
    """The model operation a span without `gen_ai.operation.name` records, from the
    convention's own operation field: the Vercel AI SDK's provider-call spans
    (`ai.operationId` ending `.doGenerate` / `.doStream` / `.doEmbed`; Node 4.x-7.x) and
    OpenLLMetry's `llm.request.type` (Python and Node). Spans that only carry a model name
    or usage (agent, workflow, usage-record spans) record no call (SPEC §5)."""
    operation_id = get(AI_SDK.OPERATION_ID)
    if isinstance(operation_id, str):
        for suffix, operation in AI_SDK.INFERENCE_SUFFIXES.items():
            if operation_id.endswith(suffix):
                return operation
        return None
    request_type = get(TRACELOOP.LLM_REQUEST_TYPE)
    if isinstance(request_type, str):
        return TRACELOOP.REQUEST_TYPE_OPERATIONS.get(request_type)
    return None


def _json_object(value: Any) -> dict[str, Any] | None:
    """A JSON object held as text (usage records inside an attribute), else None."""
    if not (isinstance(value, str) and value.startswith("{")):
        return None
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _mlflow_fields(name: str, attrs: dict[str, Any]) -> HotFields:
    """MLflow tracing spans: the type names the operation, a TOOL span is named after its
    function, usage sits in `mlflow.chat.tokenUsage` (JSON)."""
    operation = _MLFLOW_OPS.get(str(attrs.get(MLFLOW.SPAN_TYPE)).strip())
    tool_name = name if operation == GENAI.OP_EXECUTE_TOOL else None
    tokens_in = tokens_out = None
    parsed = _json_object(attrs.get(MLFLOW.CHAT_USAGE))
    if parsed is not None:
        tokens_in, tokens_out = (
            as_int(parsed.get("input_tokens")),
            as_int(parsed.get("output_tokens")),
        )
    model = _text(attrs.get(GENAI.REQUEST_MODEL)) if operation == GENAI.OP_CHAT else None
    return operation, tool_name, model, tokens_in, tokens_out


def _haystack_llm_fields(attrs: dict[str, Any]) -> HotFields:
    """Haystack's LLM step span: usage and model inside the replies' `meta` (JSON text)."""
    try:
        output = orjson.loads(attrs[HAYSTACK.LLM_OUTPUT])
    except (orjson.JSONDecodeError, TypeError):
        output = None
    tokens_in = tokens_out = None
    model = None
    replies = output.get("replies") if isinstance(output, dict) else None
    for reply in replies if isinstance(replies, list) else ():  # any other shape: no usage
        meta = reply.get("meta") if isinstance(reply, dict) else None
        if not isinstance(meta, dict):
            continue
        model = model or _text(meta.get("model"))
        usage = meta.get("usage")
        if isinstance(usage, dict):
            prompt, completion = (
                as_int(usage.get("prompt_tokens")),
                as_int(usage.get("completion_tokens")),
            )
            tokens_in = (tokens_in or 0) + prompt if prompt is not None else tokens_in
            tokens_out = (tokens_out or 0) + completion if completion is not None else tokens_out
    model = model or _text(attrs.get(GENAI.RESPONSE_MODEL))  # kept there when redacted
    if tokens_in is None:
        tokens_in = _first_int(attrs, GENAI.USAGE_INPUT_TOKENS)
    if tokens_out is None:
        tokens_out = _first_int(attrs, GENAI.USAGE_OUTPUT_TOKENS)
    return GENAI.OP_CHAT, None, model, tokens_in, tokens_out


def _langfuse_fields(name: str, attrs: dict[str, Any]) -> HotFields:
    """Langfuse SDK observations: a tool is named after its function; a generation carries
    its model and usage (`usage_details` JSON, OpenAI or GenAI names)."""
    kind = attrs.get(LANGFUSE.OBSERVATION_TYPE)
    if kind == LANGFUSE.TYPE_TOOL:
        return GENAI.OP_EXECUTE_TOOL, name, None, None, None
    if kind != LANGFUSE.TYPE_GENERATION:
        return None, None, None, None, None
    tokens_in = tokens_out = None
    parsed = _json_object(attrs.get(LANGFUSE.USAGE_DETAILS))
    if parsed is not None:
        tokens_in = as_int(parsed.get("prompt_tokens", parsed.get("input")))
        tokens_out = as_int(parsed.get("completion_tokens", parsed.get("output")))
    return GENAI.OP_CHAT, None, _text(attrs.get(LANGFUSE.MODEL_NAME)), tokens_in, tokens_out


def _genkit_fields(attrs: dict[str, Any]) -> HotFields:
    """Genkit's action spans (specific: `conventions.GENKIT`): a tool action is named in
    `genkit:name`; a model action names its model there and reports usage inside its
    `genkit:output` JSON (kept as GenAI usage when redaction changed that text)."""
    kind, name = attrs.get(GENKIT.SUBTYPE), _text(attrs.get(GENKIT.NAME))
    if kind == GENKIT.SUBTYPE_TOOL:
        return GENAI.OP_EXECUTE_TOOL, name, None, None, None
    if kind != GENKIT.SUBTYPE_MODEL:
        return None, None, None, None, None
    tokens_in = tokens_out = None
    parsed = _json_object(attrs.get(GENKIT.OUTPUT))
    usage = parsed.get(GENKIT.USAGE) if parsed is not None else None
    if isinstance(usage, dict):
        tokens_in = as_int(usage.get(GENKIT.INPUT_TOKENS))
        tokens_out = as_int(usage.get(GENKIT.OUTPUT_TOKENS))
    if tokens_in is None:
        tokens_in = _first_int(attrs, GENAI.USAGE_INPUT_TOKENS)
    if tokens_out is None:
        tokens_out = _first_int(attrs, GENAI.USAGE_OUTPUT_TOKENS)
    model = name or _text(attrs.get(GENAI.RESPONSE_MODEL))
    return GENAI.OP_CHAT, None, model, tokens_in, tokens_out
