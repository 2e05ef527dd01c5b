"""HTTP agents' answers are capped (decompressed bytes included): a huge reply or a gzip bomb
ends the turn with a clear error instead of filling the run's memory."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from tracesim.schemas.agent_config import A2AAgentConfig, ChatCompletionsAgentConfig
from tracesim.simulator.connectors import ConnectorError, TurnContext
from tracesim.simulator.connectors.a2a import A2AConnector
from tracesim.simulator.connectors.chat_completions import ChatCompletionsConnector

from tests.fakes.asgi import serve_asgi

LIMIT = 64 << 10


def _completion(content: str) -> bytes:
    return json.dumps(
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    ).encode()


async def _big(_request: Request) -> Response:
    return Response(_completion("x" * (4 * LIMIT)), media_type="application/json")


async def _bomb(_request: Request) -> Response:
    body = gzip.compress(_completion("0" * (50 * LIMIT)))  # small on the wire
    return Response(body, media_type="application/json", headers={"content-encoding": "gzip"})


async def _small_gzip(_request: Request) -> Response:
    body = gzip.compress(_completion("hello"))
    return Response(body, media_type="application/json", headers={"content-encoding": "gzip"})


async def _card(_request: Request) -> Response:
    return Response(b'{"name": "' + b"n" * (4 * LIMIT) + b'"}', media_type="application/json")


APP = Starlette(
    routes=[
        Route("/big/v1/chat/completions", _big, methods=["POST"]),
        Route("/bomb/v1/chat/completions", _bomb, methods=["POST"]),
        Route("/ok/v1/chat/completions", _small_gzip, methods=["POST"]),
        Route("/a2a/.well-known/agent-card.json", _card),
    ]
)


async def _send(endpoint: str) -> str:
    config = ChatCompletionsAgentConfig.model_validate(
        {"agent_type": "chat_completions", "api_config": {"endpoint": endpoint}}
    )
    connector = ChatCompletionsConnector(config, max_response_bytes=LIMIT)
    chat_id = await connector.open()
    try:
        turn = TurnContext(chat_id=chat_id, turn_id=0, headers={}, history=())
        return (await connector.send("hi", turn=turn)).content
    finally:
        await connector.close()


def test_chat_completions_answers_are_capped() -> None:
    with serve_asgi(APP) as url:
        assert asyncio.run(_send(f"{url}/ok/v1/chat/completions")) == "hello"
        for path in ("big", "bomb"):
            with pytest.raises(ConnectorError, match=f"exceeds {LIMIT} bytes"):
                asyncio.run(_send(f"{url}/{path}/v1/chat/completions"))


def test_a2a_answers_are_capped() -> None:
    config = A2AAgentConfig.model_validate(
        {"agent_type": "a2a", "api_config": {"endpoint": "http://x"}}
    )

    async def open_it(endpoint: str) -> None:
        api = config.api_config.model_copy(update={"endpoint": endpoint})
        connector = A2AConnector(api, max_response_bytes=LIMIT)
        try:
            await connector.open()
        finally:
            await connector.close()

    with serve_asgi(APP) as url:
        with pytest.raises(ConnectorError, match=f"exceeds {LIMIT} bytes"):
            asyncio.run(open_it(f"{url}/a2a"))
