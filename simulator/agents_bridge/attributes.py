"""Pure mapping of OpenAI Agents SDK span data to OTel GenAI span names and attributes.

Data in, data out; no OTel objects. Mapping (SDK span type -> OTel span):
- `function` -> `execute_tool {name}`: gen_ai.operation.name=execute_tool,
  gen_ai.tool.name, gen_ai.tool.call.arguments (the SDK's input JSON),
  gen_ai.tool.call.result (its output as text), gen_ai.tool.call.id (recovered
  by the processor from the model's function_call items);
- `response` / `generation` -> `chat {model}`: gen_ai.operation.name=chat,
  request/response model, usage, gen_ai.output.messages with text and
  tool_call parts (GenAI JSON message format);
- `agent` -> `invoke_agent {name}`;
- `handoff` -> `handoff {from} -> {to}` with gen_ai.operation.name=handoff
  (not a GenAI-standard operation; a tracesim-bridge extension) and
  `openai_agents.handoff.from_agent` / `.to_agent`;
- `guardrail` -> `guardrail {name}` with gen_ai.operation.name=guardrail and
  `openai_agents.guardrail.triggered`;
- anything else (`task`, `turn`, `custom`, ...) -> `openai_agents.{type} {name}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from tracesim.schemas.conventions import GENAI

__all__ = [
    "HANDOFF_FROM",
    "HANDOFF_TO",
    "GUARDRAIL_TRIGGERED",
    "ModelToolCall",
    "canonical_arguments",
    "end_attributes",
    "model_tool_calls",
    "span_name",
]

HANDOFF_FROM = "openai_agents.handoff.from_agent"
HANDOFF_TO = "openai_agents.handoff.to_agent"
GUARDRAIL_TRIGGERED = "openai_agents.guardrail.triggered"
SDK_SPAN_TYPE = "openai_agents.span.type"
PROVIDER = "openai"

ModelToolCall = tuple[str, str, str]
"""(name, canonical arguments, call id) of a function call the model requested."""


def span_name(data: Any) -> str:
    """The OTel span name for SDK span data (the model name may only be known at the end)."""
    kind = getattr(data, "type", "custom")
    if kind == "function":
        return f"{GENAI.EXECUTE_TOOL_SPAN_PREFIX}{data.name}"
    if kind in ("response", "generation"):
        model = _model_of(data)
        return f"{GENAI.OP_CHAT} {model}" if model else GENAI.OP_CHAT
    if kind == "agent":
        return f"{GENAI.OP_INVOKE_AGENT} {data.name}"
    if kind == "handoff":
        return f"handoff {data.from_agent or '?'} -> {data.to_agent or '?'}"
    if kind == "guardrail":
        return f"guardrail {data.name}"
    name = getattr(data, "name", None) or getattr(data, "agent_name", None)
    return f"openai_agents.{kind} {name}" if name else f"openai_agents.{kind}"


def end_attributes(data: Any) -> dict[str, Any]:
    """Attributes known when the SDK span ends."""
    kind = getattr(data, "type", "custom")
    attrs: dict[str, Any] = {SDK_SPAN_TYPE: str(kind)}
    if kind == "function":
        attrs[GENAI.OPERATION_NAME] = GENAI.OP_EXECUTE_TOOL
        attrs[GENAI.TOOL_NAME] = data.name
        attrs[GENAI.TOOL_TYPE] = "function"
        if data.input is not None:
            attrs[GENAI.TOOL_CALL_ARGUMENTS] = str(data.input)
        if data.output is not None:
            attrs[GENAI.TOOL_CALL_RESULT] = _as_text(data.output)
    elif kind in ("response", "generation"):
        attrs.update(_chat_attributes(data))
    elif kind == "agent":
        attrs[GENAI.OPERATION_NAME] = GENAI.OP_INVOKE_AGENT
        attrs[GENAI.AGENT_NAME] = data.name
        if data.tools:
            attrs["openai_agents.agent.tools"] = [str(t) for t in data.tools]
        if data.handoffs:
            attrs["openai_agents.agent.handoffs"] = [str(h) for h in data.handoffs]
    elif kind == "handoff":
        attrs[GENAI.OPERATION_NAME] = "handoff"
        if data.from_agent:
            attrs[HANDOFF_FROM] = data.from_agent
        if data.to_agent:
            attrs[HANDOFF_TO] = data.to_agent
    elif kind == "guardrail":
        attrs[GENAI.OPERATION_NAME] = "guardrail"
        attrs[GUARDRAIL_TRIGGERED] = bool(data.triggered)
    return attrs


def model_tool_calls(data: Any) -> list[ModelToolCall]:
    """The function calls a response/generation span's output requested, in order."""
    return [(name, canonical_arguments(args), call_id) for name, args, call_id, _ in _parts(data)]


def canonical_arguments(arguments: Any) -> str:
    """Arguments as sorted-key JSON (falls back to the raw text when not JSON)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return arguments.strip()
    try:
        return json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(arguments)


def _chat_attributes(data: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {GENAI.OPERATION_NAME: GENAI.OP_CHAT, GENAI.PROVIDER_NAME: PROVIDER}
    model = _model_of(data)
    if model:
        attrs[GENAI.REQUEST_MODEL] = model
        attrs[GENAI.RESPONSE_MODEL] = model
    response = getattr(data, "response", None)
    if response is not None and getattr(response, "id", None):
        attrs[GENAI.RESPONSE_ID] = response.id
    input_tokens, output_tokens = _usage(data)
    if input_tokens is not None:
        attrs[GENAI.USAGE_INPUT_TOKENS] = input_tokens
    if output_tokens is not None:
        attrs[GENAI.USAGE_OUTPUT_TOKENS] = output_tokens
    inputs = _input_messages(getattr(data, "input", None))
    if inputs:
        attrs[GENAI.INPUT_MESSAGES] = json.dumps(inputs, ensure_ascii=False)
    parts: list[dict[str, Any]] = []
    for name, args, call_id, text in _parts(data):
        if name:
            parts.append(
                {"type": "tool_call", "id": call_id, "name": name, "arguments": _json_or_text(args)}
            )
        else:
            parts.append({"type": "text", "content": text})
    if parts:
        finish = "tool_call" if any(p["type"] == "tool_call" for p in parts) else "stop"
        message = {"role": "assistant", "parts": parts, "finish_reason": finish}
        attrs[GENAI.OUTPUT_MESSAGES] = json.dumps([message], ensure_ascii=False)
    return attrs


def _input_messages(items: Any) -> list[dict[str, Any]]:
    """The text messages (system, user, assistant) of a model call's input, as GenAI input
    messages; tool calls and results are left to the tool spans."""
    if isinstance(items, str):
        return [{"role": "user", "parts": [{"type": "text", "content": items}]}]
    out: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else ():
        item = _plain(item)
        if not isinstance(item, Mapping) or item.get("role") not in ("system", "user", "assistant"):
            continue
        content = item.get("content")
        if isinstance(content, list):
            content = " ".join(
                str(p.get("text")) for p in content if isinstance(p, Mapping) and p.get("text")
            )
        if isinstance(content, str) and content:
            out.append({"role": item["role"], "parts": [{"type": "text", "content": content}]})
    return out


def _parts(data: Any) -> Iterable[tuple[str, Any, str, str]]:
    """(tool name, arguments, call id, "") for calls and ("", None, "", text) for text, in order."""
    response = getattr(data, "response", None)
    if response is not None:
        yield from _response_items(_plain(item) for item in getattr(response, "output", None) or [])
        return
    for entry in getattr(data, "output", None) or []:
        entry = _plain(entry)
        if not isinstance(entry, Mapping):
            continue
        if isinstance(entry.get("output"), list):  # a Responses `Response` dump
            yield from _response_items(_plain(i) for i in entry["output"])
        elif "type" in entry and "role" not in entry:  # a bare Responses output item
            yield from _response_items([entry])
        else:  # a chat-completions message
            content = entry.get("content")
            if isinstance(content, str) and content:
                yield "", None, "", content
            for call in entry.get("tool_calls") or []:
                function = call.get("function") or {}
                if function.get("name"):
                    yield function["name"], function.get("arguments"), call.get("id") or "", ""


def _response_items(items: Iterable[Any]) -> Iterable[tuple[str, Any, str, str]]:
    for item in items:
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "function_call" and item.get("name"):
            yield item["name"], item.get("arguments"), item.get("call_id") or "", ""
        elif item.get("type") == "message":
            for part in item.get("content") or []:
                if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                    yield "", None, "", part["text"]


def _model_of(data: Any) -> str | None:
    model = getattr(data, "model", None)
    response = getattr(data, "response", None)
    if not model and response is not None:
        model = getattr(response, "model", None)
    return str(model) if model else None


def _usage(data: Any) -> tuple[int | None, int | None]:
    usage = getattr(data, "usage", None)
    response = getattr(data, "response", None)
    if not usage and response is not None and getattr(response, "usage", None) is not None:
        usage = _plain(response.usage)
    if not isinstance(usage, Mapping):
        return None, None
    inp = usage.get("input_tokens", usage.get("prompt_tokens"))
    out = usage.get("output_tokens", usage.get("completion_tokens"))
    return (int(inp) if inp is not None else None, int(out) if out is not None else None)


def _plain(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(exclude_none=True)
    return obj


def _json_or_text(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(_plain(value), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
