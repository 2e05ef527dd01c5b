"""One read-only view over the two span shapes extraction accepts.

`extract_tool_calls` takes OTel SDK `ReadableSpan` objects (in-process
agents, tests) or rows of the `spans` table (mappings with SPEC §4's
columns, `attributes`/`events` either decoded or as JSON text). `SpanView`
hides the difference and is lazy: a row's attribute JSON is parsed only when
someone asks for `attributes`, so spans that cannot be tool calls (checked
on the raw text first, see `may_be_tool_span`) cost almost nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

import orjson
from tracesim.evaluator.extract.json_text import json_or_none
from tracesim.evaluator.extract.readers.genkit import MARKER as GENKIT_MARKER
from tracesim.evaluator.extract.readers.genkit import genkit_as_genai
from tracesim.evaluator.extract.readers.llama_index_repr import llama_index_tool_call_as_genai
from tracesim.evaluator.extract.readers.responses_items import MARKER as RESPONSES_MARKER
from tracesim.evaluator.extract.readers.responses_items import responses_items_as_genai
from tracesim.schemas import GENAI, MLFLOW, OPENINFERENCE, TRACELOOP
from tracesim.schemas.conventions import (
    AI_SDK,
    GENKIT,
    HAYSTACK,
    LANGFUSE,
    LLAMA_INDEX,
    LOGFIRE,
    MCP,
)

__all__ = [
    "has_marker",
    "json_or_none",
    "SpanView",
    "row_may_be_tool_span",
    "row_may_hold",
    "view_of",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_NAIVE = datetime(1970, 1, 1)
_EMPTY: dict[str, Any] = {}
_MICROSECOND = timedelta(microseconds=1)
_EXECUTE_TOOL = GENAI.EXECUTE_TOOL_SPAN_PREFIX

# A tool span must carry one of these attribute keys (SPEC §5). In a row's
# JSON text a key appears quoted; when none of them does, and the span name
# does not say `execute_tool `, the span is not a tool call and its JSON is
# never parsed. (The check is a necessary condition only: a match is
# confirmed on the parsed attributes.)
_TOOL_MARKERS = tuple(
    f'"{key}"'
    for key in (
        GENAI.TOOL_NAME,
        GENAI.OP_EXECUTE_TOOL,  # the value of gen_ai.operation.name
        OPENINFERENCE.TOOL_NAME,
        OPENINFERENCE.SPAN_KIND,
        TRACELOOP.SPAN_KIND,
        MLFLOW.SPAN_TYPE,
        AI_SDK.TOOL_CALL_NAME,
        HAYSTACK.TOOL_NAME,
        LANGFUSE.OBSERVATION_TYPE,
        LOGFIRE.AGENTS_FUNCTION_TEMPLATE,  # a value of logfire.msg_template
        LLAMA_INDEX.TOOL_CALL_EVENT,  # a value of llamaindex.step.input_event
        MCP.TOOLS_CALL,  # a value of mcp.method.name
        OPENINFERENCE.TOOL_CALL_FUNCTION_NAME,  # arksim's tool spans
        GENKIT.SUBTYPE,  # Genkit's tool and model actions (read as GenAI: `extract.genkit`)
    )
)


def has_marker(raw: str, markers: tuple[str, ...]) -> bool:
    """Whether any of `markers` occurs in `raw` (a plain loop: cheaper than `any()` over a
    generator, and this runs for every span of every turn)."""
    for marker in markers:
        if marker in raw:
            return True
    return False


def row_may_hold(span: Any, markers: tuple[str, ...]) -> bool:
    """False only for a `spans` row (dict with JSON text) whose attributes name none of
    `markers` and which has no events: the cheap screen before a span is viewed whole."""
    if type(span) is not dict:
        return True
    raw = span.get("attributes")
    if not isinstance(raw, str):
        return True
    events = span.get("events")
    if isinstance(events, str) and len(events) > 2:
        return True
    return has_marker(raw, markers)


def _agents_function_as_genai(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    """Logfire's OpenAI Agents function span (plain name/input/output under the template
    `Function: {name}`) read as an OTel GenAI execute_tool span."""
    fields = {
        GENAI.TOOL_NAME: LOGFIRE.AGENTS_FUNCTION_NAME,
        GENAI.TOOL_CALL_ARGUMENTS: LOGFIRE.AGENTS_FUNCTION_INPUT,
        GENAI.TOOL_CALL_RESULT: LOGFIRE.AGENTS_FUNCTION_OUTPUT,
    }
    merged = dict(attributes)
    merged.setdefault(GENAI.OPERATION_NAME, GENAI.OP_EXECUTE_TOOL)
    for key, source in fields.items():
        if key not in merged and attributes.get(source) is not None:
            merged[key] = attributes[source]
    return merged


def _hex(value: Any, width: int) -> str | None:
    if type(value) is str:
        return value.lower() if value else None  # stored ids are already hex text
    if value is None:
        return None
    if isinstance(value, int):
        return format(value, f"0{width}x")
    if isinstance(value, bytes):
        return value.hex()
    text = str(value).lower()
    return text or None


def _to_datetime(value: Any) -> datetime | None:
    """A UTC-aware datetime from a datetime (naive = UTC), epoch ns, or ISO text."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return value
        # naive = UTC; arithmetic, not `replace(tzinfo=...)`: its keyword parsing costs
        # ~3 us, once per span of every turn
        return _EPOCH + (value - _EPOCH_NAIVE)
    if isinstance(value, (int, float)):
        return _EPOCH + timedelta(microseconds=value / 1000)
    if isinstance(value, str) and value:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return _to_datetime(parsed)
    return None


def _decode_json(value: Any, default: Any) -> Any:
    if isinstance(value, (str, bytes)):
        if not value:
            return default
        return orjson.loads(value)
    if value is None:
        return default
    return value


class SpanView:
    """What extraction needs from a span, whatever shape it arrived in."""

    __slots__ = (
        "trace_id",
        "span_id",
        "parent_span_id",
        "name",
        "status_code",
        "status_message",
        "duration_ms",
        "_start_raw",
        "_start",
        "_attributes",
        "_raw_attributes",
        "_events",
        "_raw_events",
        "_key",
        "requests",
        "keys",
    )

    def __init__(
        self,
        *,
        trace_id: str | None,
        span_id: str | None,
        name: str,
        start: Any,
        duration_ms: float | None,
        status_code: str,
        status_message: str | None,
        attributes: Any,
        events: Any,
        parent_span_id: str | None = None,
    ) -> None:
        self.trace_id = trace_id or ""
        self.span_id = span_id or ""
        self.parent_span_id = parent_span_id or ""
        self.name = name or ""
        self.status_code = status_code
        self.status_message = status_message
        self.duration_ms = duration_ms
        self._start_raw = start
        self._start: datetime | None | bool = False  # False = not computed yet
        self._attributes: Mapping[str, Any] | None = None
        self._raw_attributes = attributes
        self._events: list[Mapping[str, Any]] | None = None
        self._raw_events = events
        self._key: tuple[bool, int, str] | None = None
        self.requests: list[Any] | None = None
        """The tool calls this span requested, once read (`extract.recover`)."""
        self.keys: list[tuple[str, str]] | None = None
        """(id, tool name) of those calls, once read without their arguments."""

    @property
    def attributes(self) -> Mapping[str, Any]:
        """The span's attributes, decoded on first use (JSON text is parsed once)."""
        if self._attributes is None:
            decoded = _decode_json(self._raw_attributes, _EMPTY)
            if type(decoded) is not dict and not isinstance(decoded, Mapping):
                decoded = _EMPTY
            if decoded.get(LOGFIRE.MSG_TEMPLATE) == LOGFIRE.AGENTS_FUNCTION_TEMPLATE:
                decoded = _agents_function_as_genai(decoded)
            elif decoded.get(LLAMA_INDEX.STEP_INPUT_EVENT) == LLAMA_INDEX.TOOL_CALL_EVENT:
                decoded = llama_index_tool_call_as_genai(decoded)
            elif GENKIT.SUBTYPE in decoded:
                decoded = genkit_as_genai(decoded)
            else:
                messages = decoded.get(GENAI.INPUT_MESSAGES)
                if type(messages) is str and RESPONSES_MARKER in messages:
                    decoded = responses_items_as_genai(decoded)  # items serialised as text
            self._attributes = decoded
        return self._attributes

    @property
    def events(self) -> list[Mapping[str, Any]]:
        """Events as mappings {name, time, attributes}, decoded on first use."""
        if self._events is None:
            raw = _decode_json(self._raw_events, [])
            events: list[Mapping[str, Any]] = []
            for event in raw if isinstance(raw, (list, tuple)) else ():
                if isinstance(event, Mapping):
                    events.append(event)
                else:  # an SDK Event
                    events.append(
                        {
                            "name": getattr(event, "name", ""),
                            "attributes": dict(getattr(event, "attributes", None) or {}),
                        }
                    )
            self._events = events
        return self._events

    @property
    def start_time(self) -> datetime | None:
        """Start time as a UTC-aware datetime, or None when unknown."""
        if self._start is False:
            try:
                self._start = _to_datetime(self._start_raw)
            except (TypeError, ValueError, OverflowError):
                self._start = None  # an unreadable time sorts last, it does not fail
        return self._start  # type: ignore[return-value]

    def sort_key(self) -> tuple[bool, int, str]:
        """Order by start time in ns (unknown last), then span id.

        An SDK span's epoch-ns start is used as it is: `start_time` (a datetime)
        keeps microseconds only, and calls less than 1 us apart must still sort
        by time, not by span id.
        """
        key = self._key
        if key is None:
            key = self._key = self._sort_key()
        return key

    def _sort_key(self) -> tuple[bool, int, str]:
        raw = self._start_raw
        if type(raw) is int:
            return (False, raw, self.span_id)
        if type(raw) is datetime and raw.tzinfo is None:  # a stored (naive UTC) timestamp
            return (False, (raw - _EPOCH_NAIVE) // _MICROSECOND * 1000, self.span_id)
        start = self.start_time
        if start is None:
            return (True, 0, self.span_id)
        return (False, (start - _EPOCH) // _MICROSECOND * 1000, self.span_id)

    def may_be_tool_span(self) -> bool:
        """Cheap necessary condition for being a tool span (see _TOOL_MARKERS)."""
        if self.name.startswith(GENAI.EXECUTE_TOOL_SPAN_PREFIX):
            return True
        raw = self._raw_attributes
        if self._attributes is None and type(raw) is str:
            return has_marker(raw, _TOOL_MARKERS)
        return True

    def raw_may_hold(self, *markers: str) -> bool:
        """`may_hold_text`, on the stored text even once parsed (False only when a row's
        JSON text certainly lacks every marker)."""
        raw = self._raw_attributes
        return has_marker(raw, markers) if type(raw) is str else True

    def may_hold_text(self, *markers: str) -> bool:
        """False only when the raw attribute JSON certainly lacks every marker."""
        raw = self._raw_attributes
        if self._attributes is None and type(raw) is str:
            return has_marker(raw, markers)
        return True


def row_may_be_tool_span(row: Any) -> bool:
    """False only for a row (dict) that certainly records no tool call.

    Checked before any view is built: on a turn's spans, most are model,
    agent or turn spans, and this keeps them at the cost of a substring scan.
    """
    if type(row) is not dict:
        return True
    raw = row.get("attributes")
    if type(raw) is not str:
        return True
    name = row.get("name")
    if type(name) is str and name.startswith(_EXECUTE_TOOL):
        return True
    return has_marker(raw, _TOOL_MARKERS)


def _view_of_readable(span: Any) -> SpanView:
    context = span.context
    status = span.status
    start, end = span.start_time, span.end_time
    duration = (end - start) / 1e6 if start is not None and end is not None else None
    return SpanView(
        trace_id=_hex(context.trace_id, 32) if context is not None else None,
        span_id=_hex(context.span_id, 16) if context is not None else None,
        name=span.name,
        start=start,
        duration_ms=duration,
        status_code=status.status_code.name if status is not None else "UNSET",
        status_message=status.description if status is not None else None,
        attributes=dict(span.attributes or {}),
        events=list(span.events or ()),
        parent_span_id=_hex(span.parent.span_id, 16) if span.parent is not None else None,
    )


_STATUS_NAMES = {"UNSET": "UNSET", "OK": "OK", "ERROR": "ERROR"}


def _status_name(value: Any) -> str:
    known = _STATUS_NAMES.get(value) if type(value) is str else None
    if known is not None:
        return known
    if value is None:
        return "UNSET"
    if isinstance(value, int):
        return {0: "UNSET", 1: "OK", 2: "ERROR"}.get(value, "UNSET")
    text = getattr(value, "name", None) or str(value)
    return text.upper().removeprefix("STATUS_CODE_")


def _id_text(value: Any, width: int) -> str:
    """A stored id as lower-case hex ("" when absent); ids are stored as hex text."""
    if type(value) is str:
        return value.lower()
    return _hex(value, width) or ""


def _view_of_row(row: Mapping[str, Any]) -> SpanView:
    """A view over a `spans` row, its slots set directly (one per span of every turn: the
    keyword constructor is measurably slower)."""
    get = row.get
    duration = get("duration_ms")
    start = get("start_time")
    if duration is None:
        if start is not None and get("end_time") is not None:
            start_dt, end_dt = _to_datetime(start), _to_datetime(row["end_time"])
            if start_dt is not None and end_dt is not None:
                duration = float((end_dt - start_dt) / timedelta(milliseconds=1))
    elif type(duration) is not float:
        duration = float(duration)
    view = _new_view(SpanView)
    view.trace_id = _id_text(get("trace_id"), 32)
    view.span_id = _id_text(get("span_id"), 16)
    view.parent_span_id = _id_text(get("parent_span_id"), 16)
    view.name = get("name") or ""
    view.status_code = _status_name(get("status_code"))
    view.status_message = get("status_message")
    view.duration_ms = duration
    view._start_raw = start
    view._start = False
    view._attributes = None
    raw = view._raw_attributes = get("attributes")
    if type(raw) is str and GENKIT_MARKER in raw:
        # read as GenAI from the start: the readers' text screening sees GenAI keys
        view._raw_attributes = orjson.dumps(view.attributes).decode()
    view._events = None
    view._raw_events = get("events")
    view._key = None
    view.requests = None
    view.keys = None
    return view


_new_view = object.__new__


def view_of(span: Any) -> SpanView:
    """Wrap a ReadableSpan or a `spans` row mapping; raises on neither."""
    if type(span) is SpanView:
        return span
    if type(span) is dict or isinstance(span, Mapping):
        return _view_of_row(span)
    if hasattr(span, "context") and hasattr(span, "attributes"):
        return _view_of_readable(span)
    raise TypeError(f"not a span: expected a ReadableSpan or a mapping, got {type(span).__name__}")
