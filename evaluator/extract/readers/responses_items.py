"""OpenAI Responses API input items serialised as a message's text, read as GenAI messages.

OpenLLMetry for Node (`@traceloop/instrumentation-openai` 0.27) records a Responses API
request as if it were chat: `gen_ai.input.messages` is ONE user message whose text part is
the request's whole `input` array as JSON (`{"role", "content"}` messages,
`{"type": "function_call", "call_id", "name", "arguments"}`, `{"type":
"function_call_output", "call_id", "output"}`), and a reply that calls a tool is a text
part `""`. The calls and their answers are only in that text, in the next request's
history. Read as the GenAI messages they stand for (an assistant message of `tool_call`
parts, a tool message of `tool_call_response` parts), the history readers find them as for
any instrumentation (SPEC §5: calls a later model input replays; answers by id).

Named as specific to that instrumentation's Responses support (no other one in the corpus
serialises a request body into a message's text). Pure: attributes in, attributes out; a
text that is not such an item list is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from tracesim.schemas import GENAI

__all__ = ["MARKER", "responses_items_as_genai"]

MARKER = "function_call"
"""Text an input-messages attribute holds when it may serialise Responses items."""
_CALL = "function_call"
_OUTPUT = "function_call_output"
_TEXT_TYPES = frozenset({"input_text", "output_text", "text"})


def _items(part: Any) -> list[Mapping[str, Any]] | None:
    """The Responses input items a text part's content serialises, else None."""
    if not isinstance(part, Mapping) or part.get("type") != "text":
        return None
    content = part.get("content")
    if not isinstance(content, str) or not content.startswith("[") or MARKER not in content:
        return None
    try:
        items = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
        return None
    if not any(i.get("type") in (_CALL, _OUTPUT) for i in items):
        return None
    return items


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # [{"type": "input_text", "text": ...}]
        return "".join(
            str(c.get("text") or "")
            for c in content
            if isinstance(c, Mapping) and c.get("type") in _TEXT_TYPES
        )
    return ""


def _arguments(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _as_messages(items: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """GenAI messages for Responses input items, in order (consecutive calls: one message)."""
    messages: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("type")
        if kind == _CALL:
            part = {
                "type": GENAI.PART_TOOL_CALL,
                "id": item.get("call_id") or "",
                "name": item.get("name") or "",
                "arguments": _arguments(item.get("arguments")),
            }
            if messages and messages[-1]["role"] == "assistant" and messages[-1]["calls"]:
                messages[-1]["parts"].append(part)
            else:
                messages.append({"role": "assistant", "parts": [part], "calls": True})
        elif kind == _OUTPUT:
            part = {
                "type": GENAI.PART_TOOL_CALL_RESPONSE,
                "id": item.get("call_id") or "",
                "response": item.get("output"),
            }
            messages.append({"role": "tool", "parts": [part], "calls": False})
        elif "role" in item:
            text = {"type": "text", "content": _text(item.get("content"))}
            messages.append({"role": str(item["role"]), "parts": [text], "calls": False})
    for message in messages:
        del message["calls"]
    return messages


def responses_items_as_genai(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    """`attributes` with input messages whose text parts serialise Responses input items
    replaced by the GenAI messages those items stand for."""
    value = attributes.get(GENAI.INPUT_MESSAGES)
    if not isinstance(value, str):
        return attributes
    try:
        messages = orjson.loads(value)
    except orjson.JSONDecodeError:
        return attributes
    if not isinstance(messages, list):
        return attributes
    read: list[Any] = []
    changed = False
    for message in messages:
        parts = message.get("parts") if isinstance(message, Mapping) else None
        items = _items(parts[0]) if isinstance(parts, list) and len(parts) == 1 else None
        if items is None:
            read.append(message)
        else:
            read.extend(_as_messages(items))
            changed = True
    if not changed:
        return attributes
    return {**attributes, GENAI.INPUT_MESSAGES: orjson.dumps(read).decode()}
