"""The chat-completions connector over HTTP against agents answering in Anthropic and
Gemini formats, streamed (server-sent events) and not."""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route
from tracesim.schemas import ToolCallSource
from tracesim.schemas.agent_config import ChatCompletionsAgentConfig
from tracesim.simulator.connectors import TurnContext
from tracesim.simulator.connectors.chat_completions import ChatCompletionsConnector

from tests.fakes.asgi import serve_asgi

ANTHROPIC = {
    "content": [
        {"type": "text", "text": "Cancelled."},
        {"type": "tool_use", "id": "toolu_1", "name": "cancel_order", "input": {"order_id": "A1"}},
    ]
}
ANTHROPIC_EVENTS = [
    {"type": "message_start", "message": {"content": []}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Cancel"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "led."}},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "cancel_order", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"order_id": "A1"}'},
    },
    {"type": "message_stop"},
]
GEMINI = {
    "candidates": [
        {
            "content": {
                "parts": [
                    {"text": "Cancelled."},
                    {
                        "functionCall": {
                            "id": "toolu_1",
                            "name": "cancel_order",
                            "args": {"order_id": "A1"},
                        }
                    },
                ]
            }
        }
    ]
}
GEMINI_EVENTS = [
    {"candidates": [{"content": {"parts": [{"text": "Cancel"}]}}]},
    {"candidates": [{"content": {"parts": [{"text": "led."}]}}]},
    {"candidates": [{"content": {"parts": [GEMINI["candidates"][0]["content"]["parts"][1]]}}]},
]


def _app(whole: dict, events: list[dict]) -> Starlette:
    async def answer(request: Request) -> JSONResponse | StreamingResponse:
        body = json.loads(await request.body())
        if not body.get("stream"):
            return JSONResponse(whole)

        async def sse():
            for event in events:
                yield f"event: {event.get('type', 'chunk')}\ndata: {json.dumps(event)}\n\n"

        return StreamingResponse(sse(), media_type="text/event-stream")

    return Starlette(routes=[Route("/chat", answer, methods=["POST"])])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(
    ("whole", "events"),
    [(ANTHROPIC, ANTHROPIC_EVENTS), (GEMINI, GEMINI_EVENTS)],
    ids=["anthropic", "gemini"],
)
def test_reply_and_tool_calls_in_every_format(whole: dict, events: list, stream: bool) -> None:
    with serve_asgi(_app(whole, events)) as url:
        config = ChatCompletionsAgentConfig.model_validate(
            {
                "agent_type": "chat_completions",
                "api_config": {"endpoint": f"{url}/chat", "stream": stream, "body": {"model": "m"}},
            }
        )
        connector = ChatCompletionsConnector(config)

        async def one_turn():
            chat_id = await connector.open()
            try:
                turn = TurnContext(chat_id=chat_id, turn_id=0, headers={}, history=())
                return await connector.send("cancel A1", turn=turn)
            finally:
                await connector.close()

        response = asyncio.run(one_turn())
    assert response.content == "Cancelled."
    [call] = response.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_1", "cancel_order", {"order_id": "A1"})
    assert call.source is ToolCallSource.CHAT_COMPLETIONS
