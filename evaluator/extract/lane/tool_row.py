"""One span row for the lane: a simple tool span's call, any other span, or "do not claim".

A simple tool span carries only `SIMPLE_KEYS` (the fields of the common tool conventions
and attributes no reader consults), no events, a name, an object of non-empty arguments
and a result or an error. Its fields are read by the general readers (`readers.fields`,
`readers.errors`), so they are what `tool_spans.span_piece` reads; what the lane skips is
the turn's pairing, which a simple turn does not need (`lane.turn`).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import orjson
from tracesim.evaluator.extract.readers.arguments import ARGUMENT_KEYS, read_arguments
from tracesim.evaluator.extract.readers.envelopes import is_placeholder
from tracesim.evaluator.extract.readers.errors import tool_error
from tracesim.evaluator.extract.readers.fields import (
    _JSON_ENCODED_RESULTS,
    _RESULT_KEYS,
    is_tool_span,
    read_output,
    tool_call_id,
    tool_name,
)
from tracesim.evaluator.extract.readers.responses_items import MARKER as RESPONSES_MARKER
from tracesim.evaluator.extract.span import (
    SpanView,
    _id_text,
    _status_name,
    _to_datetime,
    row_may_be_tool_span,
    view_of,
)
from tracesim.schemas import ADK, GENAI, LOGFIRE, OPENINFERENCE, TRACELOOP, ToolCall, ToolCallSource
from tracesim.schemas.conventions import GENKIT, LANGCHAIN, LLAMA_INDEX

__all__ = [
    "ABORT",
    "CANDIDATE",
    "CALL_KEYS",
    "CONTEXT_KEYS",
    "HARMLESS_PREFIXES",
    "OTHER",
    "SIMPLE_KEYS",
    "TOOL",
    "Piece",
    "read_row",
    "simple_keys",
]

ABORT, OTHER, TOOL, CANDIDATE = 0, 1, 2, 3
"""What a row is to the lane: a reason not to claim the turn, another span, a tool call,
another span whose text names a tool convention (the general model views it whole)."""

CALL_KEYS = frozenset(
    (  # the call's fields, in the common conventions (read by `readers.fields`)
        GENAI.OPERATION_NAME,
        GENAI.TOOL_NAME,
        GENAI.TOOL_CALL_ID,
        GENAI.TOOL_CALL_ARGUMENTS,
        GENAI.TOOL_CALL_RESULT,
        OPENINFERENCE.SPAN_KIND,
        OPENINFERENCE.TOOL_NAME,
        OPENINFERENCE.TOOL_CALL_ID,
        OPENINFERENCE.TOOL_ID,
        OPENINFERENCE.INPUT_VALUE,
        OPENINFERENCE.OUTPUT_VALUE,
        TRACELOOP.SPAN_KIND,
        TRACELOOP.ENTITY_NAME,
        TRACELOOP.ENTITY_INPUT,
        TRACELOOP.ENTITY_OUTPUT,
        ADK.TOOL_CALL_ARGS,
        ADK.TOOL_RESPONSE,
        LOGFIRE.TOOL_ARGUMENTS,
        LOGFIRE.TOOL_RESPONSE,
    )
)
CONTEXT_KEYS = frozenset(
    (  # descriptive attributes no extraction module names
        "gen_ai.tool.description",
        "gen_ai.tool.type",
        "gen_ai.system",
        "gen_ai.provider.name",
        "tool.description",
        "tool.parameters",
        "input.mime_type",
        "output.mime_type",
        "traceloop.entity.path",
        "traceloop.workflow.name",
        "logfire.msg",
        "logfire.span_type",
        "logfire.level_num",
        "code.function",
        "code.filepath",
        "code.lineno",
        "code.namespace",
        "session.id",
        "user.id",
        "tag.tags",
        "metadata",
        "llm.system",
        "llm.provider",
        "deployment.environment",
        "gen_ai.conversation.id",
        "gen_ai.agent.name",
        "gen_ai.agent.id",
        "gen_ai.agent.description",
        "gen_ai.agent.call.id",
        "gen_ai.application_name",
        "gen_ai.environment",
        "gen_ai.client.operation.duration",
        "gen_ai.response.model",
        "gen_ai.task.status",
        "gen_ai.event.start_time",
        "gen_ai.event.end_time",
        "gen_ai.tool.json_schema",
        "gcp.vertex.agent.event_id",
        "gcp.vertex.agent.invocation_id",
        "gcp.vertex.agent.session_id",
        "ag2.span.type",
    )
)
SIMPLE_KEYS = CALL_KEYS | CONTEXT_KEYS
"""The only attribute keys a claimed tool span carries (with `HARMLESS_PREFIXES`): any
other key may be a rule the lane does not mirror (MCP, error types, vendor error outputs,
name fallbacks), so the turn goes to `extract_tool_calls`. The descriptive ones are keys no
extraction module names (`tests/evaluator/test_lane_equivalence.py` checks it)."""
HARMLESS_PREFIXES = ("traceloop.association.properties.", "session.", "metadata.")
"""Key prefixes of context attributes (sessions, user metadata) no extraction module names."""


_ARGUMENT_ORDER = tuple(key for key in ARGUMENT_KEYS if key in CALL_KEYS)
_RESULT_ORDER = tuple(key for key in _RESULT_KEYS if key in CALL_KEYS)
"""`readers.fields`' precedence over the keys a simple span may carry (kept in sync)."""
_ENVELOPE_KEYS = frozenset(("type", "inputs", "kwargs", "options", "arguments"))
"""Keys that make an argument object an envelope (`envelopes.unwrap_arguments`, MCP)."""
_JSON_HEADS = ("{", "[", '"')
_DEEPEST = 254
"""Brackets past which `readers.fields` keeps argument text as text (orjson's limit)."""


def simple_keys(attributes: dict[str, Any]) -> bool:
    """Whether a tool span's attributes hold only `SIMPLE_KEYS` and harmless context keys."""
    if attributes.keys() <= SIMPLE_KEYS:
        return True
    for key in attributes:
        if key not in SIMPLE_KEYS and not key.startswith(HARMLESS_PREFIXES):
            return False
    return True


_SOURCE = ToolCallSource.TRACING_PROCESSOR
_NO_EVENTS = (None, "", "[]")
_EXECUTE_TOOL = GENAI.EXECUTE_TOOL_SPAN_PREFIX
_MODEL_OPERATIONS = frozenset(
    (GENAI.OP_CHAT, GENAI.OP_TEXT_COMPLETION, GENAI.OP_GENERATE_CONTENT, GENAI.OP_EMBEDDINGS)
)
_NAME_KEYS = (GENAI.TOOL_NAME, OPENINFERENCE.TOOL_NAME, TRACELOOP.ENTITY_NAME)
"""`readers.fields`' name keys a simple span may carry, in its order."""
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_NAIVE = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)


class Piece:
    """A claimed tool span: what the turn predicate needs of it, and its call."""

    __slots__ = ("key", "trace_id", "span_id", "parent_span_id", "call")

    def __init__(
        self, key: tuple, trace_id: str, span_id: str, parent_span_id: str, call: ToolCall
    ) -> None:
        self.key = key
        """Start order: (start unknown, start in ns, span id), as `SpanView.sort_key`."""
        self.trace_id = trace_id
        self.span_id = span_id
        self.parent_span_id = parent_span_id
        self.call = call


def read_row(row: Any) -> tuple[int, Any]:
    """(TOOL, Piece) for a simple tool span; (OTHER, row) for a span that certainly records
    no tool call (no tool marker in its text), (CANDIDATE, row) for one that has a marker
    but is no tool span; (ABORT, None) for anything else. Rows are parsed once, without a
    view: a declined turn costs the general model little more than the parse."""
    if type(row) is not dict:
        return ABORT, None
    raw = row.get("attributes")
    if type(raw) is not str:
        return ABORT, None
    if not row_may_be_tool_span(row):
        return OTHER, row
    try:
        attributes = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return ABORT, None
    if type(attributes) is not dict or _converted(attributes):
        return ABORT, None
    if not is_tool_span(_Parsed(row.get("name") or "", attributes)):
        return CANDIDATE, row
    if row.get("events") not in _NO_EVENTS or not simple_keys(attributes):
        return ABORT, None  # events may carry the call's fields or its exception
    if _status_name(row.get("status_code")) != "ERROR":
        fast = _fast(row, attributes)
        if fast is not None:
            return fast
    return _general(row)


class _Parsed:
    """What `readers.fields.is_tool_span` reads of a span: its name and attributes."""

    __slots__ = ("name", "attributes")

    def __init__(self, name: str, attributes: dict[str, Any]) -> None:
        self.name = name
        self.attributes = attributes


def _converted(attributes: dict[str, Any]) -> bool:
    """Whether `SpanView.attributes` reads these attributes as another convention (Logfire's
    agents function template, LlamaIndex's tool call event, Genkit, Responses API items):
    the parsed text is then not what the readers see, and the lane declines."""
    if attributes.get(LOGFIRE.MSG_TEMPLATE) == LOGFIRE.AGENTS_FUNCTION_TEMPLATE:
        return True
    if LLAMA_INDEX.STEP_INPUT_EVENT in attributes or GENKIT.SUBTYPE in attributes:
        return True
    messages = attributes.get(GENAI.INPUT_MESSAGES)
    return type(messages) is str and RESPONSES_MARKER in messages


def _fast(row: dict[str, Any], attributes: dict[str, Any]) -> tuple[int, Any] | None:
    """A simple, not failed tool span read from its parsed attributes without a view;
    None when in doubt (`_general` reads it)."""
    start = row.get("start_time")
    if not (start is None or type(start) is datetime and start.tzinfo is None):
        return None
    name = ""
    for key in _NAME_KEYS:
        value = attributes.get(key)
        if value is not None and not is_placeholder(value):
            name = str(value)
            break
    if not name or name == ADK.MERGED_TOOLS_NAME or name in LANGCHAIN.GENERIC_TOOL_CLASSES:
        return None
    arguments, args_id = _plain_arguments(attributes), ""
    if arguments is None:
        arguments, is_object, args_id = read_arguments(attributes)
        if not (is_object and arguments):
            return ABORT, None  # a bare input or none: the request holds them
    result, result_id, failed = _plain_result(attributes), "", False
    if result is None:
        result, result_id, failed = read_output(attributes)
    # `errors.tool_error` is None here: status not ERROR, no events, no error attribute
    error = (result or "error") if failed else None
    if error is None and result is None:
        return ABORT, None  # the outcome is in a later model input (answers)
    span_id = _id_text(row.get("span_id"), 16)
    duration = row.get("duration_ms")
    if duration is None:
        end = row.get("end_time")
        if start is not None and end is not None:
            duration = float((_to_datetime(end) - _to_datetime(start)) / timedelta(milliseconds=1))
    elif type(duration) is not float:
        duration = float(duration)
    call = ToolCall(
        id=tool_call_id(attributes) or args_id or result_id,
        name=name,
        arguments=arguments,
        result=None if error is not None else result,
        error=error,
        source=_SOURCE,
        span_id=span_id or None,
        start_time=None if start is None else _EPOCH + (start - _EPOCH_NAIVE),
        duration_ms=duration,
    )
    if start is None:
        key: tuple = (True, 0, span_id)
    else:
        key = (False, (start - _EPOCH_NAIVE) // _MICROSECOND * 1000, span_id)
    trace_id = _id_text(row.get("trace_id"), 32)
    return TOOL, Piece(key, trace_id, span_id, _id_text(row.get("parent_span_id"), 16), call)


def _plain_arguments(attributes: dict[str, Any]) -> dict[str, Any] | None:
    """What `read_arguments` gives for an object of arguments that is no envelope (JSON
    text, or OpenLLMetry's `{"args": [], "kwargs": {...}}`), else None (ask it)."""
    for key in _ARGUMENT_ORDER:
        value = attributes.get(key)
        if value is None or is_placeholder(value):
            continue
        if type(value) is not str or value[:1] != "{":
            return None
        if value.count("{") + value.count("[") > _DEEPEST:
            return None
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
        if type(parsed) is not dict or not parsed:
            return None
        if key == TRACELOOP.ENTITY_INPUT:  # its kwargs, when no positional argument
            kwargs = parsed.get("kwargs")
            if not (parsed.keys() <= {"args", "kwargs"} and parsed.get("args", []) == []):
                return None
            if type(kwargs) is not dict or not kwargs or (len(kwargs) == 1 and "input" in kwargs):
                return None
            return dict(kwargs)
        return parsed if parsed.keys().isdisjoint(_ENVELOPE_KEYS) else None
    return None


def _plain_result(attributes: dict[str, Any]) -> str | None:
    """What `read_output` gives for a plain text result (no envelope, no placeholder), else
    None (ask it)."""
    for key in _RESULT_ORDER:
        value = attributes.get(key)
        if value is None:
            continue
        if type(value) is not str:
            return None
        if key in _JSON_ENCODED_RESULTS:  # a JSON-encoded string: its text
            try:
                decoded = orjson.loads(value)
            except orjson.JSONDecodeError:
                decoded = value
            value = decoded if type(decoded) is str else value
        if value.lstrip()[:1] in _JSON_HEADS or value.startswith("content="):
            return None
        return None if is_placeholder(value) else value
    return None


def _general(row: dict[str, Any]) -> tuple[int, Any]:
    """A simple tool span read through a view and the general readers (a failed span)."""
    view = view_of(row)
    attributes = view.attributes
    if type(attributes) is not dict or not simple_keys(attributes):
        return ABORT, None
    call = _call(view, attributes)
    if call is None:
        return ABORT, None
    return TOOL, Piece(view.sort_key(), view.trace_id, view.span_id, view.parent_span_id, call)


def _call(view: SpanView, attributes: Any) -> ToolCall | None:
    """The call a simple tool span records (what `span_piece` reads), or None when the
    span lacks what a model request would complete (pairing)."""
    name = tool_name(view)
    if not name or name == ADK.MERGED_TOOLS_NAME or name in LANGCHAIN.GENERIC_TOOL_CLASSES:
        return None
    arguments, is_object, args_id = read_arguments(attributes)
    if not (is_object and arguments):
        return None
    result, result_id, failed = read_output(attributes)
    error = tool_error(view) or (result or "error" if failed else None)
    if error is None and result is None:
        return None
    return ToolCall(
        id=tool_call_id(attributes) or args_id or result_id,
        name=name,
        arguments=arguments,
        result=None if error is not None else result,
        error=error,
        source=_SOURCE,
        span_id=view.span_id or None,
        start_time=view.start_time,
        duration_ms=view.duration_ms,
    )
