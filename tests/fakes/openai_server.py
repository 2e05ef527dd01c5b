"""A local OpenAI-compatible chat-completions server: the stand-in for a paid LLM API.

Tests give it a plain handler `handler(request_json) -> dict | FakeReply`; the
real `openai` client talks to it over HTTP at `base_url`. Every request is
recorded in `requests`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fakes.asgi import serve_asgi

__all__ = ["FakeOpenAI", "FakeReply", "chat_completion", "fake_openai", "judge_reply"]


@dataclass
class FakeReply:
    """A non-default HTTP answer (status, body, headers), e.g. a 429 with Retry-After."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def chat_completion(
    content: str | None = None,
    *,
    model: str = "fake-model",
    tool_calls: list[dict[str, Any]] | None = None,
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
) -> dict[str, Any]:
    """Build a chat.completion response body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def judge_reply(
    body: dict[str, Any],
    *,
    scale: int = 4,
    goal_done: bool = True,
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
) -> dict[str, Any]:
    """A valid structured answer for whichever built-in judge `body` asks (by its schema name).

    Scale judges get `scale` (1-5); goal completion is complete or not per `goal_done`;
    the label judges answer their passing label.
    """
    name = body["response_format"]["json_schema"]["name"]
    if name == "goal_completion":
        answer: dict[str, Any] = {
            "reasoning": "the goal was met" if goal_done else "the goal was not met",
            "label": "complete" if goal_done else "not_complete",
            "score": 1.0 if goal_done else 0.0,
        }
    elif name in ("agent_behavior_failure", "tool_call_behavior_failure"):
        answer = {"reasoning": "no problem seen", "label": "no failure"}
    elif name == "tool_use":
        answer = {"reasoning": "the right tool with the right arguments", "label": "appropriate"}
    elif "label" in body["response_format"]["json_schema"]["schema"]["properties"]:
        labels = body["response_format"]["json_schema"]["schema"]["properties"]["label"]["enum"]
        answer = {"reasoning": "fits the rubric", "label": labels[0]}  # first label passes
    else:
        answer = {"reasoning": "clear and correct", "score": scale}
    return chat_completion(
        json.dumps(answer), prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
    )


@dataclass
class FakeOpenAI:
    """Handle on a running fake server."""

    base_url: str
    requests: list[dict[str, Any]]
    headers: list[dict[str, str]]


@contextmanager
def fake_openai(
    handler: Callable[[dict[str, Any]], dict[str, Any] | FakeReply],
) -> Iterator[FakeOpenAI]:
    """Start the fake server; `base_url` ends in `/v1` as the openai client expects."""
    requests: list[dict[str, Any]] = []
    headers: list[dict[str, str]] = []

    async def completions(request: Request) -> JSONResponse:
        body = json.loads(await request.body())
        requests.append(body)
        headers.append(dict(request.headers))
        reply = handler(body)
        if isinstance(reply, FakeReply):
            return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)
        return JSONResponse(reply)

    app = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    with serve_asgi(app) as url:
        yield FakeOpenAI(base_url=f"{url}/v1", requests=requests, headers=headers)
