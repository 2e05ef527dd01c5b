"""Reading a chat-completions answer: reply text and tool calls.

Pure functions over the decoded JSON, in the three formats arksim documents,
detected by shape (first match wins, as arksim): `choices` (OpenAI),
`content` as a list of blocks (Anthropic Messages: `text` and `tool_use`),
`candidates` (Gemini: `parts` with `text` and `functionCall`). Both shapes an
answer can take are read: one object, or the events of a stream (OpenAI
`chat.completion.chunk` fragments accumulated by `index`, Anthropic
`content_block_*` events, Gemini partial responses). Tool calls become
explicit `ToolCall`s with source `chat_completions` (arksim drops them);
arguments that are not a JSON object are kept as `{"_raw": text}` so nothing
the agent said is lost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tracesim.schemas import AgentResponse, ToolCall, ToolCallSource

__all__ = [
    "StreamAccumulator",
    "parse_anthropic",
    "parse_arguments",
    "parse_completion",
    "parse_gemini",
]


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """Decode a tool call's `function.arguments` (a JSON string, or already an object).

    Empty means `{}`; text that is not a JSON object is kept as `{"_raw": text}`.
    """
    if isinstance(arguments, dict):
        return arguments
    if arguments is None:
        return {}
    if not isinstance(arguments, str):
        return {"_raw": json.dumps(arguments)}
    if not arguments.strip():
        return {}
    try:
        decoded = json.loads(arguments)
    except ValueError:
        return {"_raw": arguments}
    return decoded if isinstance(decoded, dict) else {"_raw": arguments}


def _content_text(content: Any) -> str:
    """Message content as text: a string, None, or a list of `{"type": "text", "text": ...}` parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return str(content)


def _tool_call(raw: Any) -> ToolCall | None:
    if not isinstance(raw, dict):
        return None
    function = raw.get("function")
    if not isinstance(function, dict):
        return None
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return None
    call_id = raw.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) else "",
        name=name,
        arguments=parse_arguments(function.get("arguments")),
        source=ToolCallSource.CHAT_COMPLETIONS,
    )


def _anthropic_call(block: dict[str, Any]) -> ToolCall | None:
    name = block.get("name")
    if not isinstance(name, str) or not name:
        return None
    call_id = block.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) else "",
        name=name,
        arguments=parse_arguments(block.get("input")),
        source=ToolCallSource.CHAT_COMPLETIONS,
    )


def _gemini_call(part: dict[str, Any]) -> ToolCall | None:
    call = part.get("functionCall") or part.get("function_call")
    if not isinstance(call, dict):
        return None
    name = call.get("name")
    if not isinstance(name, str) or not name:
        return None
    call_id = call.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) else "",
        name=name,
        arguments=parse_arguments(call.get("args")),
        source=ToolCallSource.CHAT_COMPLETIONS,
    )


def parse_anthropic(body: dict[str, Any]) -> AgentResponse:
    """An Anthropic Messages answer: `text` blocks joined, `tool_use` blocks as calls."""
    text: list[str] = []
    calls: list[ToolCall] = []
    for block in body.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            text.append(block["text"])
        elif block.get("type") == "tool_use":
            call = _anthropic_call(block)
            if call is not None:
                calls.append(call)
    return AgentResponse(content="".join(text), tool_calls=calls)


def _gemini_parts(body: dict[str, Any], *, require: bool) -> list[Any]:
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        if require:
            raise ValueError("expected `candidates` to be a non-empty list")
        return []
    content = candidates[0].get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def parse_gemini(body: dict[str, Any]) -> AgentResponse:
    """A Gemini answer: `text` parts of candidate 0 joined (thoughts skipped), `functionCall`s."""
    text: list[str] = []
    calls: list[ToolCall] = []
    for part in _gemini_parts(body, require=True):
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str) and not part.get("thought"):
            text.append(part["text"])
        call = _gemini_call(part)
        if call is not None:
            calls.append(call)
    return AgentResponse(content="".join(text), tool_calls=calls)


def parse_completion(body: Any) -> AgentResponse:
    """Read a non-streamed answer in OpenAI, Anthropic or Gemini format (see module doc).

    Raises ValueError (with what was expected) when the body is none of them.
    """
    if not isinstance(body, dict):
        raise ValueError(f"expected a JSON object, got {type(body).__name__}")
    if isinstance(body.get("error"), dict | str):
        raise ValueError(f"the agent answered an error object: {json.dumps(body['error'])[:300]}")
    if "choices" not in body:
        if isinstance(body.get("content"), list):
            return parse_anthropic(body)
        if "candidates" in body:
            return parse_gemini(body)
        raise ValueError(
            "expected a chat completion: `choices` (OpenAI), a `content` list (Anthropic) or "
            f"`candidates` (Gemini); got keys {sorted(body)[:10]}"
        )
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("expected `choices` to be a non-empty list")
    # arksim reads `delta` too (a chunk-shaped answer); a choice with neither is empty text
    message = choices[0].get("message") or choices[0].get("delta") or {}
    if not isinstance(message, dict):
        raise ValueError("expected `choices[0].message` to be an object")
    raw_calls = message.get("tool_calls") or []
    calls = [
        call for call in map(_tool_call, raw_calls if isinstance(raw_calls, list) else []) if call
    ]
    return AgentResponse(content=_content_text(message.get("content")), tool_calls=calls)


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


_ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)


@dataclass
class StreamAccumulator:
    """Builds one reply from the events of a stream, whatever the format.

    OpenAI `chat.completion.chunk`s (choice 0 only): tool-call fragments are
    grouped by their `index`, the first non-empty `id` kept, `name` and
    `arguments` fragments concatenated in arrival order. Anthropic events:
    `text_delta`s append text, a `tool_use` block's `input_json_delta`s are
    concatenated into its arguments. Gemini: each event's text parts are
    appended and its `functionCall` parts are whole calls.
    """

    content: list[str] = field(default_factory=list)
    calls: dict[int, _PartialCall] = field(default_factory=dict)
    whole_calls: list[ToolCall] = field(default_factory=list)

    def add(self, chunk: Any) -> None:
        """Fold one decoded event in; events without content (usage, ping) are ignored.

        Raises ValueError when the event is an error object.
        """
        if not isinstance(chunk, dict):
            raise ValueError(f"expected a JSON object per event, got {type(chunk).__name__}")
        if chunk.get("error"):
            raise ValueError(f"the agent streamed an error: {json.dumps(chunk['error'])[:300]}")
        if chunk.get("type") in _ANTHROPIC_EVENTS:
            self._add_anthropic(chunk)
            return
        if "candidates" in chunk:
            self._add_gemini(chunk)
            return
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if not isinstance(delta, dict):
                continue
            text = delta.get("content")
            if isinstance(text, str):
                self.content.append(text)
            for fragment in delta.get("tool_calls") or []:
                self._add_call_fragment(fragment)

    def _add_anthropic(self, event: dict[str, Any]) -> None:
        kind, index = event.get("type"), event.get("index")
        if not isinstance(index, int):
            return
        if kind == "content_block_start":
            block = event.get("content_block") or {}
            if isinstance(block, dict) and block.get("type") == "tool_use":
                partial = self.calls.setdefault(index, _PartialCall())
                partial.id = block.get("id") if isinstance(block.get("id"), str) else ""
                partial.name = block.get("name") if isinstance(block.get("name"), str) else ""
                initial = block.get("input")
                if isinstance(initial, dict) and initial:
                    partial.arguments = json.dumps(initial)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                self.content.append(block["text"])
        elif kind == "content_block_delta":
            delta = event.get("delta") or {}
            if not isinstance(delta, dict):
                return
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                self.content.append(delta["text"])
            elif delta.get("type") == "input_json_delta" and index in self.calls:
                fragment = delta.get("partial_json")
                if isinstance(fragment, str):
                    self.calls[index].arguments += fragment

    def _add_gemini(self, chunk: dict[str, Any]) -> None:
        for part in _gemini_parts(chunk, require=False):
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("text"), str) and not part.get("thought"):
                self.content.append(part["text"])
            call = _gemini_call(part)
            if call is not None:
                self.whole_calls.append(call)

    def _add_call_fragment(self, fragment: Any) -> None:
        if not isinstance(fragment, dict):
            return
        index = fragment.get("index", len(self.calls))
        partial = self.calls.setdefault(
            index if isinstance(index, int) else len(self.calls), _PartialCall()
        )
        if isinstance(fragment.get("id"), str) and fragment["id"] and not partial.id:
            partial.id = fragment["id"]
        function = fragment.get("function") or {}
        if isinstance(function, dict):
            if isinstance(function.get("name"), str):
                partial.name += function["name"]
            if isinstance(function.get("arguments"), str):
                partial.arguments += function["arguments"]

    def response(self) -> AgentResponse:
        """The reply accumulated so far (calls in index order; nameless fragments dropped)."""
        calls = [
            ToolCall(
                id=partial.id,
                name=partial.name,
                arguments=parse_arguments(partial.arguments),
                source=ToolCallSource.CHAT_COMPLETIONS,
            )
            for _, partial in sorted(self.calls.items())
            if partial.name
        ]
        return AgentResponse(content="".join(self.content), tool_calls=calls + self.whole_calls)
