"""Turns tracesim could not read at all (SPEC §5: nothing is dropped in silence).

An instrumentation whose convention tracesim does not know yields no model call, no tool
call and no tool request: the turn looks empty and the scores are silently wrong. A turn is
`unread` when none of its spans (tracesim's own `tracesim.*` spans aside) is a model or tool
span under any convention read, while at least one carries payload-looking attributes (an
input/output/messages/prompt/completion key, or a JSON value naming a tool or function).
The item names the attribute-key prefixes seen, so the user knows which instrumentation was
not read. Generic: no framework is named; the hot columns (`operation`, `tool_name`) say
what the collector recognised, extraction's own readers confirm.

An `unread_request` is the other half: a model call whose finish reason says it asked for
tools (`tool_calls`, `tool_use`, `function_call`, ...) with no request readable on it
(streamed replies or prompts recorded without content), in a conversation where no call was
found at all (`audit.settle` drops it otherwise: a span per trace may hold the calls
elsewhere). So is a model call whose messages hold tool calls as JSON TEXT inside a message
(a request body serialised into a text part, as OpenLLMetry for Node records the Responses
API's `input` items): the calls are there, in no shape tracesim reads. So, last, is a model
call recorded without any message content (no input, output, message, prompt or completion
attribute, on the span or its events and log records): content capture is off, the default
of the OTel GenAI instrumentations, and whatever tool calls it asked for are not in the
telemetry (some providers' finish reason says `stop` even then). That one is found over the
whole file (`extract.contentless`), so unkeyed traces are covered too.

Pure: span rows in, items out (`evaluator.inspect` and the stores run the SQL).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from tracesim.evaluator.extract.audit import UNREAD_REQUEST, UNREAD_TURN, Unexplained
from tracesim.evaluator.extract.instrumentation_errors import instrumentation_error
from tracesim.evaluator.extract.pairing.recover import safe_requested_calls
from tracesim.evaluator.extract.readers.fields import is_tool_span
from tracesim.evaluator.extract.span import SpanView, has_marker, json_or_none, view_of

__all__ = [
    "OWN_SPAN_PREFIX",
    "PAYLOAD_KEY_PATTERN",
    "carries_no_payload",
    "payload_prefixes",
    "unread_reason",
    "unread_requests",
    "unread_turns",
]

OWN_SPAN_PREFIX = "tracesim."
"""tracesim's own spans (run, conversation, turn): never evidence of an agent's calls."""

_PAYLOAD_WORDS = frozenset(
    {
        "input",
        "inputs",
        "output",
        "outputs",
        "message",
        "messages",
        "prompt",
        "prompts",
        "completion",
        "completions",
    }
)
PAYLOAD_KEY_PATTERN = "(^|[.:/])(" + "|".join(sorted(_PAYLOAD_WORDS)) + ")([.:/]|$)"
"""`_payload_key` as a regular expression over a lower-cased key (for the stores' SQL)."""
_PAYLOAD_MARKERS = ("input", "output", "message", "prompt", "completion", "tool", "function")
_SEGMENT = re.compile(r"[.:/]")
_PREFIX = re.compile(r"^[^.:/]+[.:/]?")
_TOOLISH = re.compile(r'"(tool|tools|function|toolRequest|tool_calls|function_call)\w*"', re.I)


def _payload_key(key: str) -> bool:
    return any(part.lower() in _PAYLOAD_WORDS for part in _SEGMENT.split(key))


def _toolish_json(value: Any) -> bool:
    """A JSON text (object or array) whose keys name a tool or function."""
    if not isinstance(value, str) or not value.lstrip().startswith(("{", "[")):
        return False
    return bool(_TOOLISH.search(value)) and json_or_none(value) is not None


def payload_prefixes(attributes: Mapping[str, Any]) -> set[str]:
    """The key prefixes (`genkit:`, `input.`) of `attributes` that look like a payload."""
    found: set[str] = set()
    for key, value in attributes.items():
        if key.startswith(OWN_SPAN_PREFIX):
            continue
        if _payload_key(key) or _toolish_json(value):
            match = _PREFIX.match(key)
            found.add(match.group(0) if match else key)
    return found


def _read(row: Mapping[str, Any]) -> bool:
    """Whether extraction reads `row` as a model or tool span (or a request of one)."""
    if row.get("operation") or row.get("tool_name"):
        return True
    try:
        view = view_of(dict(row))
        return is_tool_span(view) or bool(safe_requested_calls(view))
    except Exception:  # noqa: BLE001 - an unreadable span reads as nothing
        return False


def unread_turns(
    rows: Iterable[Mapping[str, Any]], *, read: Iterable[tuple[Any, Any]] = ()
) -> list[Unexplained]:
    """One `unread_turn` item per turn of `rows` (span rows with `trace_id`, `span_id`,
    `name`, `attributes`, `chat_id`, `turn_id`, and the hot `operation` / `tool_name`) whose
    spans gave nothing extraction reads but carry payload-looking attributes. A turn is its
    (chat id, turn id), else its trace; `read`: (chat id, turn id) already known to hold a
    model or tool span (their other spans are not fetched)."""
    known = set(read)
    turns: dict[tuple[Any, Any], list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        if str(row.get("name") or "").startswith(OWN_SPAN_PREFIX):
            continue
        trace = row.get("trace_id")
        chat = row.get("chat_id")
        turn = row.get("turn_id")
        key = (chat if chat is not None else trace, turn if turn is not None else trace)
        if (chat, turn) in known:
            continue
        turns[key].append(row)
    found: list[Unexplained] = []
    for spans in turns.values():
        prefixes: set[str] = set()
        carriers = 0
        for row in spans:
            raw = row.get("attributes")
            if isinstance(raw, str) and not has_marker(raw.lower(), _PAYLOAD_MARKERS):
                continue  # certainly no payload-looking key nor tool JSON: not parsed
            attributes = json_or_none(raw) or {}
            if not isinstance(attributes, Mapping):
                continue
            seen = payload_prefixes(attributes)
            if seen:
                carriers += 1
                prefixes |= seen
        if not prefixes or any(_read(row) for row in spans):
            continue
        first = spans[0]
        found.append(
            Unexplained(
                UNREAD_TURN,
                str(first.get("trace_id") or ""),
                str(first.get("span_id") or ""),
                str(first.get("name") or ""),
                f"{len(spans)} span(s), {carriers} with payload attributes "
                f"({', '.join(sorted(prefixes))}) no convention tracesim reads: no model call, "
                "tool call or tool request found",
            )
        )
    return found


_STOP_MARKERS = ("finish", "Finish", "stop_reason", "stopReason")
_TOOL_MARKERS = (
    "tool_call",
    "tool-call",
    "toolCall",
    "tool_use",
    "toolUse",
    "function_call",
    "TOOL_CALL",
    "TOOL_USE",
    "FUNCTION_CALL",
)
"""Finish reasons that stop for tools, as they occur in the stored text (a prefilter: the
parsed value is checked by `_TOOL_STOP`)."""
_STOP_KEY = re.compile(r"finish|stop_?reason", re.I)
_TOOL_STOP = re.compile(r"tool|function", re.I)


def _tool_stop(view: SpanView) -> str | None:
    """The finish-reason attribute saying the model stopped to call tools, if any."""
    for key, value in view.attributes.items():
        if _STOP_KEY.search(key) and _TOOL_STOP.search(str(value)):
            return key
    return None


_NESTED_DEPTH = 4
"""How deep message structures are walked for JSON text (parts sit at depth 3)."""


def _nested_tool_json(value: Any, depth: int = 0) -> bool:
    """Whether a string inside `value` (a decoded message list) is itself JSON text naming
    a tool call: a payload serialised into a message's text."""
    if isinstance(value, str):
        return depth > 0 and _toolish_json(value)
    if depth >= _NESTED_DEPTH:
        return False
    if isinstance(value, Mapping):
        return any(_nested_tool_json(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_nested_tool_json(v, depth + 1) for v in value)
    return False


def _tool_text(view: SpanView) -> str | None:
    """The message attribute whose messages hold tool calls as JSON text, if any."""
    for key, value in view.attributes.items():
        if not _payload_key(key) or not isinstance(value, str):
            continue
        if not value.lstrip().startswith(("{", "[")):
            continue
        decoded = json_or_none(value)
        if decoded is not None and _nested_tool_json(decoded):
            return key
    return None


def unread_reason(view: SpanView) -> str | None:
    """Why `view` asked for tools that no reader found, or None."""
    if not view.raw_may_hold(*_TOOL_MARKERS):
        return None
    if view.raw_may_hold(*_STOP_MARKERS):
        key = _tool_stop(view)
        if key is not None and not safe_requested_calls(view):
            return (
                f"{key} says it asked for tools, but no request is recorded (content not "
                "captured, or a streamed reply): the calls are missing"
            )
    key = _tool_text(view)
    if key is not None and not safe_requested_calls(view):
        return (
            f"{key} holds tool calls as JSON text inside a message (a request body "
            "serialised as text), in no shape tracesim reads: the calls are missing"
        )
    return None


def carries_no_payload(view: SpanView) -> bool:
    """Whether neither `view` nor its events and log records hold a payload-looking key
    (content capture off): `extract.contentless` speaks for such model calls, over the
    whole file."""
    if any(_payload_key(key) for key in view.attributes):
        return False
    return not any(
        _payload_key(key)
        for event in view.events
        if isinstance(event, Mapping)
        for key in (event.get("attributes") or {})
    )


def unread_requests(spans: Iterable[Any], *, calls: int) -> list[Unexplained]:
    """One `unread_request` per model span of a turn that found no call (`calls` == 0) whose
    finish reason says it asked for tools, or whose messages hold tool calls as JSON text,
    yet carries no request tracesim can read. A span whose instrumentation failed is left to
    `extract.instrumentation_errors`, one without any content and no such reason to
    `extract.contentless` (over the whole file): each span is told about once."""
    if calls:
        return []
    found: list[Unexplained] = []
    for span in spans:
        try:
            view = span if type(span) is SpanView else view_of(span)
            reason = unread_reason(view)
            if reason is not None and instrumentation_error(view):
                reason = None
        except Exception:  # noqa: BLE001 - an unreadable span is the audit's, not ours
            continue
        if reason is not None:
            found.append(
                Unexplained(UNREAD_REQUEST, view.trace_id, view.span_id, view.name, reason)
            )
    return found
