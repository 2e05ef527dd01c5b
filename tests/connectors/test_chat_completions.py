"""ChatCompletionsConnector against the real example agent (and tiny servers) on loopback."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from tracesim.schemas import ToolCallSource
from tracesim.schemas.agent_config import ChatCompletionsAgentConfig
from tracesim.simulator.connectors import ConnectorError, TurnContext
from tracesim.simulator.connectors.chat_completions import ChatCompletionsConnector

from examples.chat_completions_agent import build_app
from examples.shared_tools import tracer_provider
from tests.fakes.asgi import serve_asgi
from tests.fakes.openai_server import FakeReply, chat_completion, fake_openai

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
BAGGAGE = "tracesim.chat_id=chat-1,tracesim.turn_id=0"


def _config(endpoint: str, **api: object) -> ChatCompletionsAgentConfig:
    return ChatCompletionsAgentConfig.model_validate(
        {"agent_type": "chat_completions", "api_config": {"endpoint": endpoint, **api}}
    )


def _turn(chat_id: str, turn_id: int = 0, history: tuple[dict[str, str], ...] = ()) -> TurnContext:
    return TurnContext(
        chat_id=chat_id,
        turn_id=turn_id,
        headers={"traceparent": TRACEPARENT, "baggage": BAGGAGE},
        history=history,
    )


async def _one_turn(connector: ChatCompletionsConnector, message: str, **turn: object):
    chat_id = await connector.open()
    try:
        return chat_id, await connector.send(message, turn=_turn(chat_id, **turn))
    finally:
        await connector.close()


@pytest.fixture
def agent() -> Iterator[tuple[str, object, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = tracer_provider("test-agent", exporter=exporter, synchronous=True)
    app = build_app(provider=provider)
    with serve_asgi(app) as url:
        yield f"{url}/v1/chat/completions", app, exporter


@pytest.mark.parametrize("stream", [False, True])
def test_tool_calls_are_captured(agent, stream: bool) -> None:
    endpoint, app, _ = agent
    connector = ChatCompletionsConnector(_config(endpoint, stream=stream))
    history = (
        {"role": "user", "content": "Can I cancel ORD-1002?"},
        {"role": "assistant", "content": "e-mail?"},
    )
    _, response = asyncio.run(
        _one_turn(connector, "I am ada@example.com, please cancel it", turn_id=1, history=history)
    )
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_1", "verify_identity", {"email": "ada@example.com", "order_id": "ORD-1002"}),
        ("call_2", "cancel_order", {"order_id": "ORD-1002"}),
    ]
    assert all(c.source is ToolCallSource.CHAT_COMPLETIONS for c in response.tool_calls)
    assert response.content == "Thanks, you are verified. Order ORD-1002 is cancelled."
    sent = app.state.requests[-1].body
    assert sent["messages"][:2] == list(history)
    assert sent["messages"][-1] == {
        "role": "user",
        "content": "I am ada@example.com, please cancel it",
    }
    assert sent.get("stream", False) is stream


def test_trace_headers_reach_the_agent_and_its_spans_join_the_trace(agent) -> None:
    endpoint, app, exporter = agent
    asyncio.run(_one_turn(ChatCompletionsConnector(_config(endpoint)), "Where is ORD-1001?"))
    headers = app.state.requests[-1].headers
    assert headers["traceparent"] == TRACEPARENT
    assert headers["baggage"] == BAGGAGE
    spans = {span.name: span for span in exporter.get_finished_spans()}
    tool = spans["execute_tool lookup_order"]
    assert format(tool.context.trace_id, "032x") == TRACEPARENT.split("-")[1]
    assert tool.attributes["gen_ai.tool.call.id"] == "call_1"
    assert tool.attributes["tracesim.chat_id"] == "chat-1"
    assert tool.attributes["tracesim.turn_id"] == 0


def test_system_messages_body_and_env_headers(agent, monkeypatch) -> None:
    endpoint, app, _ = agent
    monkeypatch.setenv("AGENT_TOKEN", "s3cret")
    config = _config(
        endpoint,
        headers={"Authorization": "Bearer ${AGENT_TOKEN}"},
        body={
            "model": "m",
            "temperature": 0,
            "messages": [{"role": "system", "content": "be brief"}],
        },
    )
    asyncio.run(_one_turn(ChatCompletionsConnector(config), "hello"))
    seen = app.state.requests[-1]
    assert seen.headers["authorization"] == "Bearer s3cret"
    assert seen.body["model"] == "m" and seen.body["temperature"] == 0
    assert seen.body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hello"},
    ]


def test_missing_env_var_fails_at_open(monkeypatch) -> None:
    monkeypatch.delenv("TRACESIM_TEST_UNSET", raising=False)
    connector = ChatCompletionsConnector(
        _config(
            "http://127.0.0.1:9/v1/chat/completions", headers={"X-Key": "${TRACESIM_TEST_UNSET}"}
        )
    )
    with pytest.raises(ConnectorError, match="TRACESIM_TEST_UNSET"):
        asyncio.run(connector.open())


def test_429_with_retry_after_is_retried() -> None:
    replies = [FakeReply(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"})]

    def handler(body: dict) -> object:
        return (
            replies.pop()
            if replies
            else chat_completion(
                "fine",
                tool_calls=[
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "lookup_order", "arguments": "not json"},
                    }
                ],
            )
        )

    with fake_openai(handler) as server:
        connector = ChatCompletionsConnector(
            _config(f"{server.base_url}/chat/completions", max_retries=2)
        )
        _, response = asyncio.run(_one_turn(connector, "hi"))
    assert len(server.requests) == 2
    assert all(h["traceparent"] == TRACEPARENT for h in server.headers)
    assert response.content == "fine"
    assert response.tool_calls[0].arguments == {"_raw": "not json"}


def test_retries_exhausted_and_4xx_are_connector_errors() -> None:
    with fake_openai(
        lambda body: FakeReply(503, {"error": "down"}, {"Retry-After": "0"})
    ) as server:
        connector = ChatCompletionsConnector(
            _config(f"{server.base_url}/chat/completions", max_retries=1)
        )
        with pytest.raises(ConnectorError, match="503 after 1 retries"):
            asyncio.run(_one_turn(connector, "hi"))
        assert len(server.requests) == 2
    with fake_openai(lambda body: FakeReply(401, {"error": "bad key"})) as server:
        connector = ChatCompletionsConnector(_config(f"{server.base_url}/chat/completions"))
        with pytest.raises(ConnectorError, match="HTTP 401.*bad key"):
            asyncio.run(_one_turn(connector, "hi"))
        assert len(server.requests) == 1


def test_hanging_agent_times_out() -> None:
    release = threading.Event()
    entered = threading.Event()

    async def hang(request: Request) -> JSONResponse:
        entered.set()
        await asyncio.to_thread(release.wait)
        return JSONResponse(chat_completion("late"))

    app = Starlette(routes=[Route("/v1/chat/completions", hang, methods=["POST"])])
    with serve_asgi(app) as url:
        try:
            connector = ChatCompletionsConnector(_config(f"{url}/v1/chat/completions", timeout=0.5))
            with pytest.raises(ConnectorError, match=r"did not answer within 0\.5 s"):
                asyncio.run(_one_turn(connector, "hi"))
            assert entered.is_set()
        finally:
            release.set()


def test_unreachable_agent_is_a_connector_error() -> None:
    connector = ChatCompletionsConnector(
        _config("http://127.0.0.1:9/v1/chat/completions", max_retries=0)
    )
    with pytest.raises(ConnectorError, match="could not connect"):
        asyncio.run(_one_turn(connector, "hi"))
