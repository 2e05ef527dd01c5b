"""The example agents' tool spans reach the Collector keyed to the turn (SPEC §3).

Both routing paths: the agent copies the baggage onto its spans
(`tracesim.chat_id`/`turn_id` attributes), or it only continues the
traceparent and the collector keys its spans by the trace of the
`tracesim.turn` span the test sends, as the simulator does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import baggage, propagate, trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from tracesim.collector import Collector
from tracesim.schemas import TRACESIM, AgentResponse
from tracesim.schemas.agent_config import A2AAgentConfig, ChatCompletionsAgentConfig
from tracesim.simulator.connectors import AgentConnector, TurnContext
from tracesim.simulator.connectors.a2a import A2AConnector
from tracesim.simulator.connectors.chat_completions import ChatCompletionsConnector

from examples.a2a_agent import build_app as build_a2a_app
from examples.chat_completions_agent import build_app as build_chat_app
from examples.shared_tools import tracer_provider
from tests.fakes.asgi import serve_asgi

MESSAGE = "I am ada@example.com, where is ORD-1001?"
TURN_ID = 1


def _connector(kind: str, url: str) -> AgentConnector:
    if kind == "a2a":
        return A2AConnector(A2AAgentConfig(agent_type="a2a", api_config={"endpoint": url}))
    config = ChatCompletionsAgentConfig(
        agent_type="chat_completions", api_config={"endpoint": f"{url}/v1/chat/completions"}
    )
    return ChatCompletionsConnector(config)


async def _drive(connector: AgentConnector, simulator: TracerProvider) -> tuple[str, AgentResponse]:
    """One turn inside a `tracesim.turn` span, its context sent as W3C headers."""
    chat_id = await connector.open()
    try:
        tracer = simulator.get_tracer("tracesim.simulator")
        attributes = {TRACESIM.CHAT_ID: chat_id, TRACESIM.TURN_ID: TURN_ID}
        with tracer.start_as_current_span(
            TRACESIM.TURN_SPAN,
            context=trace.set_span_in_context(trace.INVALID_SPAN),
            attributes=attributes,
        ):
            ctx = baggage.set_baggage(TRACESIM.CHAT_ID, chat_id)
            ctx = baggage.set_baggage(TRACESIM.TURN_ID, str(TURN_ID), context=ctx)
            headers: dict[str, str] = {}
            propagate.inject(headers, context=ctx)
            turn = TurnContext(chat_id=chat_id, turn_id=TURN_ID, headers=headers)
            response = await connector.send(MESSAGE, turn=turn)
        return chat_id, response
    finally:
        await connector.close()


@pytest.mark.parametrize("routing", ["baggage", "traceparent"])
@pytest.mark.parametrize("kind", ["chat_completions", "a2a"])
def test_tool_spans_are_stored_with_chat_and_turn(tmp_path: Path, kind: str, routing: str) -> None:
    with Collector(tmp_path / "spans.duckdb", grpc_port=0, http_port=None) as collector:

        def exporter() -> OTLPSpanExporter:
            return OTLPSpanExporter(endpoint=collector.grpc_endpoint, insecure=True)

        agent = tracer_provider(
            f"agent-{kind}", exporter=exporter(), routing=routing, synchronous=True
        )
        simulator = TracerProvider(resource=Resource.create({"service.name": "tracesim"}))
        simulator.add_span_processor(SimpleSpanProcessor(exporter()))
        build = build_a2a_app if kind == "a2a" else build_chat_app
        with serve_asgi(build(provider=agent)) as url:
            chat_id, response = asyncio.run(_drive(_connector(kind, url), simulator))
        agent.shutdown()
        simulator.shutdown()
        assert collector.flush(10)
        _, rows = collector.query(
            "SELECT tool_name, chat_id, turn_id, attributes FROM spans "
            "WHERE operation = 'execute_tool' ORDER BY start_time, span_id"
        )
    explicit: list[Any] = [(c.id, c.name) for c in response.tool_calls]
    assert explicit == [("call_1", "verify_identity"), ("call_2", "lookup_order")]
    assert [row[0] for row in rows] == ["verify_identity", "lookup_order"]
    assert {(row[1], row[2]) for row in rows} == {(chat_id, TURN_ID)}
    carries_keys = all(TRACESIM.CHAT_ID in row[3] for row in rows)
    assert carries_keys is (routing == "baggage")
