"""The chat-completions example agent: the shared shop policy behind OpenAI's wire format.

Each request continues the caller's trace (W3C `traceparent` and `baggage`
extracted from the headers): an `invoke_agent` server span, with one
`execute_tool <name>` span per tool call under it. The answer lists the tool
calls the agent made in `message.tool_calls` (OpenAI format) next to the
reply text, non-streamed or as SSE chunks with tool-call deltas.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from opentelemetry import context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import SpanKind
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from tracesim.schemas import GENAI

from examples.shared_tools import (
    Shop,
    ToolOutcome,
    default_shop,
    extract_context,
    run_turn,
    tracer_provider,
)

__all__ = ["SeenRequest", "build_app"]

MODEL = "tracesim-example-policy"


@dataclass(frozen=True)
class SeenRequest:
    """What the agent received (tests assert on headers such as traceparent)."""

    headers: dict[str, str]
    body: dict[str, Any]


def _openai_tool_calls(outcomes: list[ToolOutcome]) -> list[dict[str, Any]]:
    return [
        {
            "id": outcome.call.id,
            "type": "function",
            "function": {
                "name": outcome.call.name,
                "arguments": json.dumps(outcome.call.arguments),
            },
        }
        for outcome in outcomes
    ]


def _completion(reply: str, tool_calls: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


def _chunk(completion_id: str, delta: dict[str, Any], finish: str | None = None) -> str:
    body = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n"


async def _stream(reply: str, tool_calls: list[dict[str, Any]]) -> AsyncIterator[str]:
    """SSE chunks: role, each tool call (header then two argument fragments), content in pieces, [DONE]."""
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    yield _chunk(completion_id, {"role": "assistant", "content": ""})
    for index, call in enumerate(tool_calls):
        arguments = call["function"]["arguments"]
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        yield _chunk(completion_id, {"tool_calls": [head]})
        middle = len(arguments) // 2
        for fragment in (arguments[:middle], arguments[middle:]):
            yield _chunk(
                completion_id,
                {"tool_calls": [{"index": index, "function": {"arguments": fragment}}]},
            )
    words = reply.split(" ")
    for position, word in enumerate(words):
        yield _chunk(completion_id, {"content": word if position == 0 else f" {word}"})
    yield _chunk(completion_id, {}, finish="stop")
    yield "data: [DONE]\n\n"


def build_app(
    *,
    provider: TracerProvider | None = None,
    shop: Shop | None = None,
    agent_name: str = "customer-service",
    lifespan: Callable[[Any], AbstractAsyncContextManager[None]] | None = None,
) -> Starlette:
    """The agent app. `provider` defaults to `tracer_provider(...)` (OTLP from the environment).

    `app.state.requests` lists every request received (`SeenRequest`); `lifespan`
    is Starlette's (the server passes `flush_on_shutdown(provider)`).
    """
    provider = provider or tracer_provider("example-chat-completions-agent")
    tracer = provider.get_tracer("examples.chat_completions_agent")
    state_shop = shop or default_shop()
    seen: list[SeenRequest] = []

    async def completions(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": {"message": "body is not JSON"}}, status_code=400)
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return JSONResponse(
                {"error": {"message": "`messages` must be a list"}}, status_code=400
            )
        seen.append(SeenRequest(headers=dict(request.headers), body=body))
        token = context.attach(
            extract_context(request.headers)
        )  # trace + baggage for all child spans
        try:
            with tracer.start_as_current_span(
                f"{GENAI.OP_INVOKE_AGENT} {agent_name}",
                kind=SpanKind.SERVER,
                attributes={
                    GENAI.OPERATION_NAME: GENAI.OP_INVOKE_AGENT,
                    GENAI.AGENT_NAME: agent_name,
                },
            ):
                reply, outcomes = run_turn(body["messages"], shop=state_shop, tracer=tracer)
        finally:
            context.detach(token)
        tool_calls = _openai_tool_calls(outcomes)
        if body.get("stream"):
            return StreamingResponse(_stream(reply, tool_calls), media_type="text/event-stream")
        return JSONResponse(_completion(reply, tool_calls))

    app = Starlette(
        routes=[Route("/v1/chat/completions", completions, methods=["POST"])], lifespan=lifespan
    )
    app.state.requests = seen
    app.state.provider = provider
    return app
