"""Where a request is in the scripted conversation (stdlib only): the step (tool results
already in it), the script it follows (per-agent scripts chosen by the tools it offers),
the name a framework offers a tool under, and the argument of its `final_answer` tool."""

from __future__ import annotations

from typing import Any

from provider_apis import offered_tool_names

__all__ = [
    "FINAL_ANSWER",
    "SCRIPT",
    "final_answer_key",
    "offered_name",
    "script_for",
    "tool_results",
]

SCRIPT: list[tuple[str, str, dict[str, Any]]] = [
    ("call_w1", "get_weather", {"city": "Paris"}),
    ("call_w2", "get_weather", {"city": "Paris"}),
    ("call_o1", "lookup_order", {"order_id": "A1"}),
]
FINAL_ANSWER = "It is sunny in Paris, and order A1 was not found."


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text") or "" for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def tool_results(body: dict[str, Any]) -> int:
    """Count tool results in a chat-completions or Responses request.

    Frameworks that replay their tool calls as text (smolagents: an assistant message
    "Calling tools:\n[...]" per successful call with its result as a user "Observation:"
    message, a failed call only as an "Error:" block in a user message) have no tool-role
    messages; their calls are counted instead.
    """
    count = 0
    replayed = 0
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        if message.get("role") in ("tool", "function"):
            count += 1
        elif message.get("role") == "assistant" and _text(message).startswith("Calling tools:"):
            replayed += 1
        elif message.get("role") == "user":
            # a failed call: smolagents sends only an "Error:" block, merged into the
            # previous user message when that was an observation
            replayed += _text(message).split("\n").count("Error:")
    items = body.get("input")
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                count += 1
    return count or replayed


def offered_name(body: dict[str, Any], name: str) -> str:
    """The name under which the request offers tool `name`, as a real model would call it.

    Some frameworks qualify tool names (Semantic Kernel: "<plugin>-<function>").
    """
    offered = offered_tool_names(body)
    if name in offered:
        return name
    qualified = [o for o in offered if o.endswith(name) and not o[-len(name) - 1].isalnum()]
    return qualified[0] if len(qualified) == 1 else name


def final_answer_key(body: dict[str, Any]) -> str | None:
    """The argument name of the `final_answer` tool when the agent ends its run by calling
    one (smolagents: `answer`, BeeAI: `response`), else None."""
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name") == "final_answer":
            properties = (function.get("parameters") or {}).get("properties") or {}
            return next(iter(properties), "answer")
    return None


def script_for(
    body: dict[str, Any], scripts: list[dict[str, Any]]
) -> tuple[list[tuple[str, str, dict[str, Any]]], str]:
    """The steps and final text for this request: the first of `scripts` whose
    `when_offered` tool the request offers (a delegate agent and its caller each get their
    own script), else the default SCRIPT."""
    offered = offered_tool_names(body)
    for script in scripts:
        if script["when_offered"] in offered:
            steps = [(c[0], c[1], c[2]) for c in script["steps"]]
            return steps, script.get("final", FINAL_ANSWER)
    return SCRIPT, FINAL_ANSWER
