"""The example configs and scenarios agree with the example agents.

Each scripted scenario of `examples/*/scenarios.json` is replayed through
the connector its config names, against the agent served on loopback, and
every `tool_calls` assertion is checked on the explicit tool calls
(`exact`/`strict`: same calls in order; `contains`: expected ones present,
`args` a subset of the actual arguments).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tracesim.schemas import RunConfig, ToolCall
from tracesim.simulator.connectors import AgentConnector, TurnContext
from tracesim.simulator.connectors.a2a import A2AConnector
from tracesim.simulator.connectors.chat_completions import ChatCompletionsConnector
from tracesim.simulator.scenarios import load_scenarios

from examples.a2a_agent import build_app as build_a2a_app
from examples.chat_completions_agent import build_app as build_chat_app
from examples.shared_tools import tracer_provider
from tests.fakes.asgi import serve_asgi

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _matches(expected: dict[str, Any], call: ToolCall) -> bool:
    args = expected.get("args", {})
    return call.name == expected["name"] and all(
        call.arguments.get(k) == v for k, v in args.items()
    )


def _check(assertion: dict[str, Any], calls: list[ToolCall]) -> None:
    expected = assertion["expected"]
    if assertion["match_mode"] in ("exact", "strict"):
        assert len(calls) == len(expected), (assertion, calls)
        assert all(_matches(e, c) for e, c in zip(expected, calls, strict=True)), (assertion, calls)
    else:
        assert all(any(_matches(e, c) for c in calls) for e in expected), (assertion, calls)


async def _replay(connector: AgentConnector, turns: list[str]) -> list[list[ToolCall]]:
    chat_id = await connector.open()
    history: list[dict[str, str]] = []
    per_turn = []
    try:
        for turn_id, message in enumerate(turns):
            context = TurnContext(chat_id=chat_id, turn_id=turn_id, history=tuple(history))
            response = await connector.send(message, turn=context)
            history += [
                {"role": "user", "content": message},
                {"role": "assistant", "content": response.content},
            ]
            per_turn.append(response.tool_calls)
    finally:
        await connector.close()
    return per_turn


@pytest.mark.parametrize("example", ["chat_completions_agent", "a2a_agent"])
def test_scripted_scenarios_pass_against_the_example_agent(example: str) -> None:
    folder = EXAMPLES / example
    config = RunConfig.model_validate(yaml.safe_load((folder / "config.yaml").read_text()))
    scenarios = load_scenarios(folder / config.scenario_file_path)
    for scenario in scenarios:
        provider = tracer_provider(
            "scenario-test", exporter=InMemorySpanExporter(), synchronous=True
        )
        build = build_a2a_app if example == "a2a_agent" else build_chat_app
        with serve_asgi(build(provider=provider)) as url:
            api = config.agent_config.api_config.model_copy()
            port_and_path = api.endpoint.split("//", 1)[1].split("/", 1)
            api.endpoint = url + ("/" + port_and_path[1] if len(port_and_path) > 1 else "")
            connector = (
                A2AConnector(api) if example == "a2a_agent" else ChatCompletionsConnector(api)
            )
            per_turn = asyncio.run(_replay(connector, scenario.turns or []))
        for assertion in scenario.assertions:
            _check(assertion, per_turn[assertion["turn"]])
