"""Reading an OpenAI-compatible chat-completions answer: reply text and tool calls.

Pure functions over the decoded JSON, for both shapes an answer can take:
one `chat.completion` object, or the `chat.completion.chunk` events of a
stream (content and tool-call fragments accumulated by `index`). Tool calls
become explicit `ToolCall`s with source `chat_completions` (arksim drops
them); arguments that are not a JSON object are kept as `{"_raw": text}` so
nothing the agent said is lost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from schemas import AgentResponse, ToolCall, ToolCallSource

__all__ = ["StreamAccumulator", "parse_arguments", "parse_completion"]


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


def parse_completion(body: Any) -> AgentResponse:
    """Read `choices[0].message` of a non-streamed answer.

    Raises ValueError (with what was expected) when the body is not a chat completion.
    """
    if not isinstance(body, dict):
        raise ValueError(f"expected a JSON object, got {type(body).__name__}")
    if isinstance(body.get("error"), dict | str):
        raise ValueError(f"the agent answered an error object: {json.dumps(body['error'])[:300]}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("expected `choices` to be a non-empty list")
    message = choices[0].get("message")
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


@dataclass
class StreamAccumulator:
    """Builds one reply from `chat.completion.chunk` events (only choice 0 is read).

    Tool-call fragments are grouped by their `index`: the first non-empty `id`
    is kept, `name` and `arguments` fragments are concatenated in arrival order.
    """

    content: list[str] = field(default_factory=list)
    calls: dict[int, _PartialCall] = field(default_factory=dict)

    def add(self, chunk: Any) -> None:
        """Fold one decoded chunk in; chunks without choices (usage) are ignored.

        Raises ValueError when the chunk is an error object.
        """
        if not isinstance(chunk, dict):
            raise ValueError(f"expected a JSON object per event, got {type(chunk).__name__}")
        if chunk.get("error"):
            raise ValueError(f"the agent streamed an error: {json.dumps(chunk['error'])[:300]}")
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
        return AgentResponse(content="".join(self.content), tool_calls=calls)
