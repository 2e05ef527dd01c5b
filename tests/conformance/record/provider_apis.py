"""The scripted model's answers in the non-OpenAI wire formats (stdlib only).

Provider SDKs are recorded with their own telemetry, so the scripted model speaks their
APIs too: Anthropic Messages (`POST /v1/messages`, plain and server-sent events), Gemini
(`POST /v1beta/models/<m>:generateContent` and `:streamGenerateContent?alt=sse`), the
Bedrock Converse API (`POST /model/<id>/converse`), Cohere's v2 chat (`POST /v2/chat`) and
Ollama's chat (`POST /api/chat`, one JSON body or JSON lines when streamed). Each function gets the scripted step
(a tool call `(id, name, args)` or the final text) and the usage, and returns what the
real API returns: a JSON body, or a list of SSE `(event, payload)` pairs.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = [
    "anthropic_events",
    "anthropic_message",
    "bedrock_converse",
    "cohere_chat",
    "ollama_chat",
    "gemini_chunks",
    "gemini_response",
    "offered_tool_names",
    "provider_tool_results",
]

Call = tuple[str, str, dict[str, Any]]


def provider_tool_results(body: dict[str, Any]) -> int:
    """Tool results in an Anthropic, Gemini or Bedrock request (0 for other formats)."""
    count = 0
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and (
                block.get("type") == "tool_result" or "toolResult" in block
            ):
                count += 1
    for content in body.get("contents") or []:
        for part in (content.get("parts") or []) if isinstance(content, dict) else []:
            if isinstance(part, dict) and (
                "functionResponse" in part or "function_response" in part
            ):
                count += 1
    return count


def offered_tool_names(body: dict[str, Any]) -> list[str]:
    """Names of the tools a request offers, in any of the served formats."""
    names: list[str] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        function = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        if isinstance(function.get("name"), str):
            names.append(function["name"])
        for key in ("functionDeclarations", "function_declarations"):
            names.extend(d.get("name") for d in tool.get(key) or [] if isinstance(d, dict))
    for tool in (body.get("toolConfig") or {}).get("tools") or []:
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            names.append(spec["name"])
    return [n for n in names if isinstance(n, str)]


def anthropic_message(
    model: str, call: Call | None, final: str, usage: dict[str, int]
) -> dict[str, Any]:
    """A Messages API response: one tool_use block, or the final text."""
    if call is not None:
        content: list[dict[str, Any]] = [
            {"type": "tool_use", "id": call[0], "name": call[1], "input": call[2]}
        ]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": final}]
        stop = "end_turn"
    return {
        "id": f"msg_{time.monotonic_ns()}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": usage["prompt"], "output_tokens": usage["completion"]},
    }


def anthropic_events(
    model: str, call: Call | None, final: str, usage: dict[str, int]
) -> list[tuple[str | None, dict[str, Any]]]:
    """The same message streamed as the Messages API streams it (usage split as it does)."""
    import json

    message = anthropic_message(model, call, final, usage)
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": usage["prompt"], "output_tokens": 1},
    }
    if call is not None:
        block: dict[str, Any] = {"type": "tool_use", "id": call[0], "name": call[1], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call[2])}
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": final}
    return [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["completion"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def gemini_response(
    model: str, call: Call | None, final: str, usage: dict[str, int]
) -> dict[str, Any]:
    """A generateContent response: one functionCall part (no id, as the Gemini API), or text."""
    part: dict[str, Any] = (
        {"functionCall": {"name": call[1], "args": call[2]}} if call else {"text": final}
    )
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [part]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": usage["prompt"],
            "candidatesTokenCount": usage["completion"],
            "totalTokenCount": usage["prompt"] + usage["completion"],
        },
        "modelVersion": model,
        "responseId": f"resp-{time.monotonic_ns()}",
    }


def gemini_chunks(
    model: str, call: Call | None, final: str, usage: dict[str, int]
) -> list[tuple[str | None, dict[str, Any]]]:
    """streamGenerateContent?alt=sse: the response as one data chunk (usage on it)."""
    return [(None, gemini_response(model, call, final, usage))]


def bedrock_converse(call: Call | None, final: str, usage: dict[str, int]) -> dict[str, Any]:
    """A Converse API response: one toolUse block, or the final text."""
    if call is not None:
        content: list[dict[str, Any]] = [
            {"toolUse": {"toolUseId": call[0], "name": call[1], "input": call[2]}}
        ]
        stop = "tool_use"
    else:
        content = [{"text": final}]
        stop = "end_turn"
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {
            "inputTokens": usage["prompt"],
            "outputTokens": usage["completion"],
            "totalTokens": usage["prompt"] + usage["completion"],
        },
        "metrics": {"latencyMs": 1},
    }


def cohere_chat(model: str, call: Call | None, final: str, usage: dict[str, int]) -> dict[str, Any]:
    """A Cohere v2 chat response: one function tool call (with a tool plan), or the text."""
    import json

    message: dict[str, Any] = {"role": "assistant"}
    if call is not None:
        message["tool_plan"] = f"I will call {call[1]}."
        message["tool_calls"] = [
            {
                "id": call[0],
                "type": "function",
                "function": {"name": call[1], "arguments": json.dumps(call[2])},
            }
        ]
        finish = "TOOL_CALL"
    else:
        message["content"] = [{"type": "text", "text": final}]
        finish = "COMPLETE"
    tokens = {"input_tokens": usage["prompt"], "output_tokens": usage["completion"]}
    return {
        "id": f"cohere-{time.monotonic_ns()}",
        "finish_reason": finish,
        "message": message,
        "usage": {"billed_units": dict(tokens), "tokens": dict(tokens)},
    }


def ollama_chat(
    model: str, call: Call | None, final: str, usage: dict[str, int], *, stream: bool
) -> list[dict[str, Any]]:
    """Ollama /api/chat: the reply as one body, or as the JSON lines it streams (the message,
    then a closing line with the counts). Ollama's tool calls carry no id."""
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    if call is not None:
        message["tool_calls"] = [{"function": {"name": call[1], "arguments": call[2]}}]
    else:
        message["content"] = final
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    done = {
        "done": True,
        "done_reason": "stop",
        "total_duration": 1000,
        "load_duration": 10,
        "prompt_eval_count": usage["prompt"],
        "prompt_eval_duration": 100,
        "eval_count": usage["completion"],
        "eval_duration": 100,
    }
    if not stream:
        return [{"model": model, "created_at": stamp, "message": message, **done}]
    return [
        {"model": model, "created_at": stamp, "message": message, "done": False},
        {
            "model": model,
            "created_at": stamp,
            "message": {"role": "assistant", "content": ""},
            **done,
        },
    ]
