"""A2AConnector against the real example A2A agent (a2a-sdk server) on loopback."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from a2a.client import ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from tracesim.schemas import A2A_TOOL_CALL_EXTENSION_URI, AgentResponse, ToolCallSource
from tracesim.schemas.agent_config import A2AAgentConfig
from tracesim.simulator.connectors import ConnectorError, TurnContext
from tracesim.simulator.connectors.a2a import A2AConnector

from examples.a2a_agent import CaptureQuirks, build_app, build_card
from examples.shared_tools import tracer_provider
from tests.fakes.asgi import serve_asgi

URI = A2A_TOOL_CALL_EXTENSION_URI
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
BAGGAGE = "tracesim.chat_id=c1,tracesim.turn_id=0"
MESSAGE = "I am ada@example.com, where is ORD-1001?"


def _config(endpoint: str, **api: Any) -> A2AAgentConfig:
    return A2AAgentConfig.model_validate(
        {"agent_type": "a2a", "api_config": {"endpoint": endpoint, **api}}
    )


@contextmanager
def _agent(**options: Any) -> Iterator[tuple[str, Any, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = tracer_provider("test-a2a-agent", exporter=exporter, synchronous=True)
    app = build_app(provider=provider, **options)
    with serve_asgi(app) as url:
        yield url, app, exporter


async def _turns(connector: A2AConnector, *messages: str) -> tuple[str, list[AgentResponse]]:
    chat_id = await connector.open()
    try:
        responses = []
        for turn_id, message in enumerate(messages):
            turn = TurnContext(
                chat_id=chat_id,
                turn_id=turn_id,
                headers={"traceparent": TRACEPARENT, "baggage": BAGGAGE},
            )
            responses.append(await connector.send(message, turn=turn))
        return chat_id, responses
    finally:
        await connector.close()


def _names(response: AgentResponse) -> list[str]:
    return [call.name for call in response.tool_calls]


@pytest.mark.parametrize("streaming", [True, False])
def test_tool_calls_headers_and_trace_reach_both_ways(streaming: bool) -> None:
    with _agent(streaming=streaming) as (url, app, exporter):
        connector = A2AConnector(_config(url))
        chat_id, (response,) = asyncio.run(_turns(connector, MESSAGE))
    assert connector.streaming is streaming and connector.card_declares_capture is True
    assert (
        response.content
        == "Thanks, you are verified. Order ORD-1001 (mechanical keyboard) is shipped."
    )
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_1", "verify_identity", {"email": "ada@example.com", "order_id": "ORD-1001"}),
        ("call_2", "lookup_order", {"order_id": "ORD-1001"}),
    ]
    assert response.tool_calls[1].result == (
        '{"item": "mechanical keyboard", "order_id": "ORD-1001", "status": "shipped", "total": 120}'
    )
    assert all(c.source is ToolCallSource.A2A_PROTOCOL for c in response.tool_calls)
    (seen,) = app.state.executor.seen
    assert URI in seen.requested_extensions and seen.headers["a2a-extensions"] == URI
    assert seen.message_extensions == (URI,)
    assert seen.context_id == chat_id
    assert seen.headers["traceparent"] == TRACEPARENT and seen.headers["baggage"] == BAGGAGE
    tool_spans = [s for s in exporter.get_finished_spans() if s.name.startswith("execute_tool ")]
    assert [s.attributes["gen_ai.tool.call.id"] for s in tool_spans] == ["call_1", "call_2"]
    assert {format(s.context.trace_id, "032x") for s in tool_spans} == {TRACEPARENT.split("-")[1]}
    assert {s.attributes["tracesim.chat_id"] for s in tool_spans} == {"c1"}


def test_config_can_force_non_streaming_and_the_conversation_keeps_its_context() -> None:
    with _agent(streaming=True) as (url, app, _):
        connector = A2AConnector(_config(url, streaming=False))
        chat_id, responses = asyncio.run(
            _turns(connector, "Please cancel ORD-1002", "I am ada@example.com, cancel it")
        )
    assert connector.streaming is False
    assert _names(responses[0]) == [] and "e-mail" in responses[0].content
    assert [(c.id, c.name) for c in responses[1].tool_calls] == [
        ("call_1", "verify_identity"),
        ("call_2", "cancel_order"),
    ]
    assert [seen.context_id for seen in app.state.executor.seen] == [chat_id, chat_id]
    first, second = app.state.executor.seen
    assert first.task_id != second.task_id  # a completed task is not reused


@pytest.mark.parametrize("streaming", [True, False])
def test_malformed_entries_are_skipped(streaming: bool) -> None:
    quirks = CaptureQuirks(
        extra_entries=[
            {"id": "bad1", "arguments": {"order_id": "ORD-1"}},  # missing name
            {"id": "bad2", "name": "lookup_order", "arguments": ["ORD-1"]},  # non-object arguments
            {"id": "bad3", "name": 12},  # non-string name
            "not an object",
            {"id": "x1", "name": "audit", "arguments": {"n": 2}, "result": {"ok": True, "n": 2}},
        ]
    )
    with _agent(streaming=streaming, quirks=quirks) as (url, _, _):
        _, (response,) = asyncio.run(_turns(A2AConnector(_config(url)), "Where is ORD-1001?"))
    assert [(c.id, c.name) for c in response.tool_calls] == [
        ("call_1", "lookup_order"),
        ("x1", "audit"),
    ]
    audit = response.tool_calls[1]
    assert audit.arguments == {"n": 2}  # the Struct's 2.0 comes back as an int
    assert json.loads(audit.result) == {"ok": True, "n": 2}  # JSON-encoded (a Struct reorders keys)


def test_artifact_without_the_extension_listed_is_ignored() -> None:
    with _agent(quirks=CaptureQuirks(untagged_artifact=True)) as (url, _, _):
        _, (response,) = asyncio.run(_turns(A2AConnector(_config(url)), "Where is ORD-1001?"))
    assert [c.id for c in response.tool_calls] == ["call_1"]


@pytest.mark.parametrize(
    ("snapshot", "expected"), [("same", ["call_1", "call_2"]), ("differs", ["call_1"])]
)
def test_streamed_updates_then_a_final_snapshot_which_wins(
    snapshot: str, expected: list[str]
) -> None:
    with _agent(quirks=CaptureQuirks(final_snapshot=snapshot)) as (url, _, _):
        connector = A2AConnector(_config(url))
        _, (response,) = asyncio.run(_turns(connector, MESSAGE))
    assert connector.streaming is True
    assert [c.id for c in response.tool_calls] == expected
    assert response.content.startswith("Thanks, you are verified.")


def test_card_without_the_extension_gives_no_calls() -> None:
    with _agent(declare_extension=False) as (url, app, _):
        connector = A2AConnector(_config(url))
        _, (response,) = asyncio.run(_turns(connector, MESSAGE))
    assert connector.card_declares_capture is False
    assert response.tool_calls == [] and "shipped" in response.content
    assert (
        URI in app.state.executor.seen[0].requested_extensions
    )  # asked anyway; the agent ignores it


def test_agent_emits_no_calls_to_a_client_that_did_not_ask() -> None:
    async def plain_client(url: str) -> list[dict]:
        client = await create_client(url, client_config=ClientConfig(streaming=False))
        try:
            message = Message(
                role=Role.ROLE_USER, message_id="m1", parts=[Part(text="Where is ORD-1001?")]
            )
            events = [
                event async for event in client.send_message(SendMessageRequest(message=message))
            ]
        finally:
            await client.close()
        return [dict(artifact.metadata) for artifact in events[-1].task.artifacts]

    with _agent() as (url, app, _):
        metadata = asyncio.run(plain_client(url))
    assert metadata == [{}]
    assert app.state.executor.seen[0].requested_extensions == frozenset()


def test_config_headers_with_env_reach_the_agent(monkeypatch) -> None:
    monkeypatch.setenv("A2A_TEST_TOKEN", "tok")
    with _agent() as (url, app, _):
        connector = A2AConnector(
            _config(url, headers={"Authorization": "Bearer ${A2A_TEST_TOKEN}"})
        )
        asyncio.run(_turns(connector, "hello"))
    assert app.state.executor.seen[0].headers["authorization"] == "Bearer tok"


def test_hanging_agent_times_out() -> None:
    release = threading.Event()

    async def card(request: Request) -> JSONResponse:
        from a2a.server.request_handlers.response_helpers import agent_card_to_dict

        return JSONResponse(agent_card_to_dict(build_card(str(request.base_url), streaming=False)))

    async def hang(request: Request) -> JSONResponse:
        await asyncio.to_thread(release.wait)
        return JSONResponse({})

    app = Starlette(
        routes=[Route("/.well-known/agent-card.json", card), Route("/", hang, methods=["POST"])]
    )
    with serve_asgi(app) as url:
        try:
            with pytest.raises(ConnectorError, match=r"did not answer within 0\.5 s"):
                asyncio.run(_turns(A2AConnector(_config(url, timeout=0.5)), "hi"))
        finally:
            release.set()


def test_unreachable_agent_is_a_connector_error() -> None:
    with pytest.raises(ConnectorError, match="could not read the A2A agent card"):
        asyncio.run(_turns(A2AConnector(_config("http://127.0.0.1:9")), "hi"))


@pytest.mark.parametrize("progress", ["text", "structured"])
def test_tool_progress_in_status_updates_is_captured(progress: str) -> None:
    """Seed 004's agents announce calls in working-state status updates, without the
    capture extension: those are the turn's calls (source a2a_status)."""
    with _agent() as (url, _, _):
        _, (reference,) = asyncio.run(_turns(A2AConnector(_config(url)), MESSAGE))
    quirks = CaptureQuirks(tool_progress=progress)
    with _agent(declare_extension=False, quirks=quirks) as (url, _, _):
        connector = A2AConnector(_config(url))
        _, (response,) = asyncio.run(_turns(connector, MESSAGE))
    assert connector.streaming is True
    assert _names(response) == _names(reference) and _names(response)
    assert {c.source for c in response.tool_calls} == {ToolCallSource.A2A_STATUS}
    if progress == "structured":
        assert [(c.id, c.arguments) for c in response.tool_calls] == [
            (c.id, c.arguments) for c in reference.tool_calls
        ]
    assert [c.error is None for c in response.tool_calls] == [
        c.error is None for c in reference.tool_calls
    ]
