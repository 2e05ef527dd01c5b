"""Recovering missing tool-call ids from the model spans that requested them.

Some instrumentations record the tool-call id only on the model (LLM) span
whose response asked for the call, not on the tool span. Such a tool span
gets its id back from a requested call of the same trace with the same tool
name: first every tool call whose canonical arguments equal an unused
request's takes that request, then each remaining call (in start order)
takes the earliest unused request of its name. Each requested id is used
once, requests are consumed in the model spans' start order.

Requested calls are read from:
- `gen_ai.output.messages`: JSON list of `{role, parts: [{type: "tool_call",
  id, name, arguments}]}` (OTel GenAI); OpenAI-style `tool_calls` on a
  message are read too;
- OpenInference: `llm.output_messages.{i}.message.tool_calls.{j}.tool_call.id`,
  `....tool_call.function.name`, `....tool_call.function.arguments`;
- legacy indexed: `gen_ai.completion.{i}.tool_calls.{j}.id|name|arguments`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from evaluator.canonical import canonical_args
from evaluator.extract_fields import parse_arguments
from evaluator.extract_span import SpanView
from schemas import GENAI, OPENINFERENCE

__all__ = ["RequestedCall", "assign_recovered_ids", "requested_calls", "safe_requested_calls"]

logger = logging.getLogger(__name__)

_MARKERS = (
    f'"{GENAI.OUTPUT_MESSAGES}"',
    f'"{OPENINFERENCE.LLM_OUTPUT_MESSAGES_PREFIX}',
    f'"{GENAI.COMPLETION_PREFIX}',
)
_OI_TOOL_CALLS = ".message.tool_calls."
_OI_FIELDS = {
    "tool_call.id": "id",
    "tool_call.function.name": "name",
    "tool_call.function.arguments": "arguments",
}
_LEGACY_TOOL_CALLS = ".tool_calls."
_LEGACY_FIELDS = {"id": "id", "name": "name", "arguments": "arguments"}


@dataclass(frozen=True)
class RequestedCall:
    """A tool call a model asked for: its id, tool name and canonical arguments."""

    id: str
    name: str
    args_key: tuple


def _from_output_messages(value: Any) -> Iterable[dict[str, Any]]:
    messages = orjson.loads(value) if isinstance(value, (str, bytes)) else value
    if not isinstance(messages, list):
        return
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        for part in message.get("parts") or ():
            if isinstance(part, Mapping) and part.get("type") == "tool_call":
                yield {k: part.get(k) for k in ("id", "name", "arguments")}
        for call in message.get("tool_calls") or ():  # OpenAI-style message
            if isinstance(call, Mapping):
                function = call.get("function") or {}
                yield {
                    "id": call.get("id"),
                    "name": function.get("name", call.get("name")),
                    "arguments": function.get("arguments", call.get("arguments")),
                }


def _from_indexed(
    attributes: Mapping[str, Any], prefix: str, infix: str, fields: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Collect `{prefix}{i}{infix}{j}.{field}` attributes into ordered calls."""
    calls: dict[tuple[int, int], dict[str, Any]] = {}
    for key, value in attributes.items():
        if not key.startswith(prefix) or infix not in key:
            continue
        head, _, tail = key[len(prefix) :].partition(infix)
        index_j, _, field = tail.partition(".")
        target = fields.get(field)
        if target is None or not head.isdigit() or not index_j.isdigit():
            continue
        calls.setdefault((int(head), int(index_j)), {})[target] = value
    return [calls[k] for k in sorted(calls)]


def requested_calls(span: SpanView) -> list[RequestedCall]:
    """Tool calls a model span requested, in message order (empty for other spans)."""
    if not span.may_hold_text(*_MARKERS):
        return []
    attributes = span.attributes
    raw: list[dict[str, Any]] = []
    output_messages = attributes.get(GENAI.OUTPUT_MESSAGES)
    if output_messages:
        raw.extend(_from_output_messages(output_messages))
    raw.extend(
        _from_indexed(
            attributes, OPENINFERENCE.LLM_OUTPUT_MESSAGES_PREFIX, _OI_TOOL_CALLS, _OI_FIELDS
        )
    )
    raw.extend(
        _from_indexed(attributes, GENAI.COMPLETION_PREFIX, _LEGACY_TOOL_CALLS, _LEGACY_FIELDS)
    )
    calls = []
    for item in raw:
        call_id, name = item.get("id"), item.get("name")
        if not call_id or not name:
            continue
        args = parse_arguments(item.get("arguments"))
        calls.append(RequestedCall(str(call_id), str(name), canonical_args(args)))
    return calls


def assign_recovered_ids(
    missing: list[tuple[str, dict[str, Any]]],
    requested: list[RequestedCall],
    *,
    taken: set[str],
) -> list[str]:
    """Ids for tool calls lacking one, in order; "" where none fits.

    `missing` holds (name, arguments) of the id-less tool calls of one trace
    in start order, `requested` the trace's requested calls in order, and
    `taken` the ids tool spans already carry (never handed out twice).
    """
    used = set(taken)
    found = [""] * len(missing)
    # First every call whose arguments equal an unused request of its name, so an
    # earlier call that fits no request by arguments cannot take that one...
    for index, (name, arguments) in enumerate(missing):
        key = canonical_args(arguments)
        choice = next(
            (r for r in requested if r.name == name and r.id not in used and r.args_key == key),
            None,
        )
        if choice is not None:
            used.add(choice.id)
            found[index] = choice.id
    # ... then the rest, each the earliest unused request of its name.
    for index, (name, _) in enumerate(missing):
        if found[index]:
            continue
        choice = next((r for r in requested if r.name == name and r.id not in used), None)
        if choice is not None:
            used.add(choice.id)
            found[index] = choice.id
    return found


def safe_requested_calls(span: SpanView) -> list[RequestedCall]:
    """`requested_calls`, logging and skipping a span that cannot be read."""
    try:
        return requested_calls(span)
    except Exception as exc:  # one bad model span must not stop extraction
        logger.warning("skipping model span %s for id recovery: %s", span.span_id, exc)
        return []
