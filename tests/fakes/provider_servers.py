"""Local stand-ins for the Anthropic, Gemini and Azure OpenAI HTTP APIs (paid LLM APIs).

Each speaks its API's wire format on loopback so the real SDK client talks to it
over HTTP. Tests give a plain handler `handler(request_json, path) -> dict |
FakeReply` answering in the provider's response shape; every request body and
path is recorded. Builders for the usual answers sit beside each server.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fakes.asgi import serve_asgi
from tests.fakes.openai_server import FakeReply, chat_completion

__all__ = [
    "FakeProvider",
    "anthropic_message",
    "azure_completion",
    "fake_provider",
    "gemini_response",
]

Handler = Callable[[dict[str, Any], str], "dict[str, Any] | FakeReply"]


@dataclass
class FakeProvider:
    """Handle on a running stand-in: its base URL and what it received."""

    base_url: str
    requests: list[dict[str, Any]]
    paths: list[str]
    headers: list[dict[str, str]]


_ROUTES = {
    "anthropic": ["/v1/messages"],
    "google": ["/{version}/models/{rest:path}"],  # /v1(beta)/models/<model>:generateContent
    "azure": ["/openai/deployments/{model}/chat/completions"],
    "openai": ["/v1/chat/completions"],
}


@contextmanager
def fake_provider(provider: str, handler: Handler) -> Iterator[FakeProvider]:
    """Serve `provider`'s API; `base_url` is what the SDK (or LLMConfig.base_url) takes."""
    requests: list[dict[str, Any]] = []
    paths: list[str] = []
    headers: list[dict[str, str]] = []

    async def endpoint(request: Request) -> JSONResponse:
        body = json.loads(await request.body() or b"{}")
        requests.append(body)
        paths.append(request.url.path + (f"?{request.url.query}" if request.url.query else ""))
        headers.append(dict(request.headers))
        reply = handler(body, request.url.path)
        if isinstance(reply, FakeReply):
            return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)
        return JSONResponse(reply)

    app = Starlette(routes=[Route(p, endpoint, methods=["POST"]) for p in _ROUTES[provider]])
    with serve_asgi(app) as url:
        base = f"{url}/v1" if provider == "openai" else url
        yield FakeProvider(base_url=base, requests=requests, paths=paths, headers=headers)


def anthropic_message(
    text: str | None = None,
    *,
    tool_input: dict[str, Any] | None = None,
    tool_name: str = "answer",
    input_tokens: int = 11,
    output_tokens: int = 7,
) -> dict[str, Any]:
    """A Messages API answer: a text block, or a `tool_use` block carrying `tool_input`."""
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_input is not None:
        content.append(
            {"type": "tool_use", "id": "toolu_01", "name": tool_name, "input": tool_input}
        )
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": "tool_use" if tool_input is not None else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def gemini_response(
    text: str, *, prompt_tokens: int = 13, candidates_tokens: int = 3
) -> dict[str, Any]:
    """A generateContent answer with one text part."""
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": candidates_tokens,
            "totalTokenCount": prompt_tokens + candidates_tokens,
        },
        "modelVersion": "gemini-test",
    }


def azure_completion(content: str) -> dict[str, Any]:
    """Azure OpenAI answers in the chat.completion shape."""
    return chat_completion(content)
