"""arksim's capture cases (test_tool_calls data models, test_trace_merge) on tracesim:
the ToolCall / AgentResponse models and the merge of explicit and traced calls."""

from __future__ import annotations

import asyncio
from typing import Any

from tracesim.evaluator.calls.merge import merge_tool_calls
from tracesim.schemas import AgentResponse, ToolCall
from tracesim.simulator.connectors.base import TurnContext
from tracesim.simulator.connectors.python import PythonConnector

# -- data models -------------------------------------------------------------------


def test_tool_call_construction_and_defaults() -> None:
    call = ToolCall(id="tc-1", name="get_weather", arguments={"city": "NYC"})
    assert (call.id, call.name, call.arguments, call.result, call.error) == (
        "tc-1",
        "get_weather",
        {"city": "NYC"},
        None,
        None,
    )
    assert ToolCall(id="tc-5", name="no_args").arguments == {}
    assert ToolCall(id="tc-3", name="fail", arguments={}, error="timeout").error == "timeout"
    assert ToolCall(id="tc-2", name="s", result='{"results": []}').result == '{"results": []}'


def test_tool_call_roundtrip_and_extra_fields_ignored() -> None:
    call = ToolCall(id="tc-4", name="search", arguments={"q": "x"}, result="ok")
    assert ToolCall(**call.model_dump()) == call
    assert ToolCall(id="x", name="n", unknown_field=1).name == "n"  # extra="ignore" (SPEC §4)


def test_agent_response_defaults() -> None:
    assert AgentResponse(content="hi").tool_calls == []
    response = AgentResponse(content="done", tool_calls=[ToolCall(id="tc-1", name="fn")])
    assert [c.name for c in response.tool_calls] == ["fn"]


# -- merge of explicit (AgentResponse) and traced calls -----------------------------


def _names(calls: list[ToolCall]) -> list[str]:
    return [c.name for c in calls]


def test_traced_calls_not_returned_are_appended() -> None:
    merged = merge_tool_calls(
        [ToolCall(id="explicit-1", name="lookup", arguments={"id": "42"})],
        [ToolCall(id="traced-1", name="search", arguments={"q": "test"})],
    )
    assert _names(merged) == ["lookup", "search"]


def test_same_id_is_one_call() -> None:
    merged = merge_tool_calls(
        [ToolCall(id="shared-id", name="search", arguments={"q": "test"})],
        [ToolCall(id="shared-id", name="search", arguments={"q": "test"})],
    )
    assert [c.id for c in merged] == ["shared-id"]


def test_same_name_and_arguments_is_one_call_and_the_explicit_id_wins() -> None:
    merged = merge_tool_calls(
        [ToolCall(id="call_xyz", name="search", arguments={"q": "test"})],
        [ToolCall(id="span-id-abc", name="search", arguments={"q": "test"})],
    )
    assert [c.id for c in merged] == ["call_xyz"]


def test_different_traced_call_is_kept_beside_the_explicit_one() -> None:
    merged = merge_tool_calls(
        [ToolCall(id="explicit-1", name="search", arguments={"q": "test"})],
        [ToolCall(id="traced-1", name="fetch_data", arguments={"url": "/api"})],
    )
    assert set(_names(merged)) == {"search", "fetch_data"}


def test_no_traced_calls_keeps_the_explicit_ones() -> None:
    merged = merge_tool_calls([ToolCall(id="tc-1", name="search", arguments={})], [])
    assert _names(merged) == ["search"]


def test_nested_arguments_dedup() -> None:
    args: dict[str, Any] = {"filter": {"status": "open", "tags": ["a", "b"]}, "limit": 5}
    merged = merge_tool_calls(
        [ToolCall(id="e", name="query", arguments=args)],
        [
            ToolCall(
                id="t",
                name="query",
                arguments={"limit": 5, "filter": {"tags": ["a", "b"], "status": "open"}},
            )
        ],
    )
    assert len(merged) == 1


def test_three_way_overlap() -> None:
    merged = merge_tool_calls(
        [
            ToolCall(id="a", name="search", arguments={"q": "test"}),
            ToolCall(id="b", name="lookup", arguments={"id": "42"}),
        ],
        [
            ToolCall(id="span-b", name="lookup", arguments={"id": "42"}),
            ToolCall(id="c", name="cancel", arguments={"id": "99"}),
        ],
    )
    assert _names(merged) == ["search", "lookup", "cancel"]
    assert "b" in [c.id for c in merged] and "span-b" not in [c.id for c in merged]


# -- what the agent is given per turn ---------------------------------------------


class _Recorder:
    def __init__(self) -> None:
        self.kwargs: list[dict[str, Any]] = []

    async def get_chat_id(self) -> str:
        return "conv-1"

    async def execute(self, user_query: str, **kwargs: Any) -> str:
        self.kwargs.append(kwargs)
        return "ok"


def test_turn_id_and_chat_id_are_in_the_metadata() -> None:
    connector = PythonConnector(_Recorder)

    async def one_turn() -> Any:
        chat_id = await connector.open()
        agent = connector.agent
        await connector.send(
            "hi", turn=TurnContext(chat_id=chat_id, turn_id=0, headers={}, history=())
        )
        return agent

    agent = asyncio.run(one_turn())
    [kwargs] = agent.kwargs
    assert kwargs["metadata"] == {"chat_id": "conv-1", "turn_id": 0}
