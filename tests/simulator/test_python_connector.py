"""The python connector: chat ids, explicit tool calls, the turn's OTel context during execute()."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from opentelemetry import baggage, trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tracesim.schemas import AgentResponse, Scenario, ToolCall, UserConfig
from tracesim.schemas.agent_config import CustomAgentConfig
from tracesim.schemas.llm_config import LLMConfig
from tracesim.simulator import Runner, UserFactory, make_connector_factory, make_simulator_provider
from tracesim.simulator.connectors.python import PythonConnector


class ArksimStyle:  # duck-typed: no tracesim base class
    def __init__(self, prefix: str = "chat") -> None:
        self.prefix = prefix

    async def get_chat_id(self) -> str:
        return f"{self.prefix}-fixed"

    async def execute(self, user_query: str, **kwargs):
        span = trace.get_current_span().get_span_context()
        context = {
            "trace_id": format(span.trace_id, "032x"),
            "baggage_chat": baggage.get_baggage("tracesim.chat_id"),
            "baggage_turn": baggage.get_baggage("tracesim.turn_id"),
            "metadata": kwargs["metadata"],
        }
        return AgentResponse(
            content=json.dumps(context),
            tool_calls=[ToolCall(id="c1", name="lookup", arguments={"q": user_query})],
        )


def _run(factory) -> tuple[list, list]:
    exporter = InMemorySpanExporter()
    provider = make_simulator_provider(exporter=exporter)
    runner = Runner(
        tracer=provider.get_tracer("test"),
        connector_factory=factory,
        user_factory=UserFactory(UserConfig(), LLMConfig()),
        scenarios=[Scenario(scenario_id="s", turns=["a", "b"])],
    )
    result = asyncio.run(runner.run())
    provider.force_flush()
    return result.conversations, list(exporter.get_finished_spans())


def test_duck_typed_agent_chat_id_tool_calls_and_active_context() -> None:
    conversations, spans = _run(lambda: PythonConnector(ArksimStyle, init_kwargs={"prefix": "x"}))
    (conversation,) = conversations
    assert conversation.chat_id == "x-fixed"  # get_chat_id() IS the chat id
    turn_spans = {s.attributes["tracesim.turn_id"]: s for s in spans if s.name == "tracesim.turn"}
    for turn in conversation.turns:
        seen = json.loads(turn.agent_message)
        span = turn_spans[turn.turn_id]
        assert seen["trace_id"] == format(span.context.trace_id, "032x")
        assert seen["baggage_chat"] == "x-fixed" and seen["baggage_turn"] == str(turn.turn_id)
        assert seen["metadata"] == {"chat_id": "x-fixed", "turn_id": turn.turn_id}
        (call,) = json.loads(span.attributes["tracesim.explicit_tool_calls"])
        assert call == {
            "id": "c1",
            "name": "lookup",
            "arguments": {"q": turn.user_message},
            "source": "agent_response",
        }
    # Each turn is its own trace.
    assert len({s.context.trace_id for s in turn_spans.values()}) == 2


def test_factory_loads_module_class_syntax(tmp_path: Path) -> None:
    (tmp_path / "duck_agent.py").write_text(
        "class A:\n    async def execute(self, q, **kw):\n        return 'a'\n"
        "class B:\n    async def execute(self, q, **kw):\n        return 'b'\n"
    )
    config = CustomAgentConfig(agent_type="custom", module_path="duck_agent.py:B")
    conversations, _ = _run(make_connector_factory(config, base_dir=tmp_path))
    assert [t.agent_message for t in conversations[0].turns] == ["b", "b"]
    assert len(conversations[0].chat_id) == 32  # no get_chat_id: a uuid4 hex
